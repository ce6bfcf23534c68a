use kgroups::{kernel_kgroups, Control, DenseKernel, KGroupsError, Options};

fn main() -> Result<(), KGroupsError> {
    let x = [0.0_f64, 0.2, 0.1, 9.0, 9.3];
    // Energy kernel for ρ(x, y) = |x − y| with base point 0.
    let energy = |a: f64, b: f64| 0.5 * (a.abs() + b.abs() - (a - b).abs());
    let g: Vec<f64> = x
        .iter()
        .flat_map(|&a| x.iter().map(move |&b| energy(a, b)))
        .collect();
    let kernel = DenseKernel::new(&g, x.len())?; // checks square, finite, symmetric
    let options = Options {
        n_init: 4,
        seed: 7,
        ..Options::default()
    };
    let result = kernel_kgroups(&kernel, 2, options, &Control::new())?;
    assert_eq!(result.labels[0], result.labels[1]);
    println!("labels {:?}, Q = {}", result.labels, result.objective);
    Ok(())
}
