//! Criterion benchmarks of the core on the paper's eq. 56 data (two Gaussians in D = 10,
//! μ₂ = 0.7·1), energy kernel ρ = ‖x − y‖ with base point 0.
//!
//! Run: `cargo bench --bench core`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kgroups::rng::Rng;
use kgroups::{fit, Algorithm, Control, DenseKernel, Init, Kernel, LloydVariant, Options};

fn gaussian(rng: &mut Rng) -> f64 {
    // Box–Muller; 1 − u keeps the logarithm finite.
    let (u, v) = (1.0 - rng.next_f64(), rng.next_f64());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// The energy Gram matrix of `n` points from eq. 56, built naively (not what is measured).
fn eq56_gram(n: usize, seed: u64) -> Vec<f64> {
    const D: usize = 10;
    let mut rng = Rng::new(seed);
    let points: Vec<[f64; D]> = (0..n)
        .map(|i| {
            let shift = if i % 2 == 1 { 0.7 } else { 0.0 };
            std::array::from_fn(|_| gaussian(&mut rng) + shift)
        })
        .collect();
    let norm = |p: &[f64; D]| p.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            let d: f64 = (0..D)
                .map(|t| (points[a][t] - points[b][t]).powi(2))
                .sum::<f64>()
                .sqrt();
            g[a * n + b] = 0.5 * (norm(&points[a]) + norm(&points[b]) - d);
        }
    }
    g
}

fn bench_algorithms(c: &mut Criterion) {
    let n = 2000;
    let g = eq56_gram(n, 1);
    let kernel = DenseKernel::new(&g, n).expect("valid kernel");
    let mut group = c.benchmark_group("fit_n2000");
    group.sample_size(20);
    for k in [2usize, 10] {
        for (name, algorithm) in [
            ("hartigan", Algorithm::Hartigan),
            ("lloyd_batch", Algorithm::Lloyd(LloydVariant::Batch)),
        ] {
            let options = Options {
                algorithm,
                init: Init::KMeansPlusPlus,
                seed: 3,
                ..Options::default()
            };
            group.bench_with_input(BenchmarkId::new(name, k), &k, |b, &k| {
                b.iter(|| fit(&kernel, k, &options, &Control::new()).expect("fit"))
            });
        }
    }
    group.finish();

    let labels: Vec<usize> = (0..n).map(|i| i % 10).collect();
    let weights = vec![1.0; n];
    c.bench_function("cluster_sums_n2000_k10", |b| {
        b.iter(|| {
            kernel
                .cluster_sums(&labels, &weights, 10, &Control::new())
                .expect("sums")
        })
    });
    c.bench_function("symmetry_check_n2000", |b| {
        b.iter(|| DenseKernel::new(&g, n).expect("valid kernel"))
    });
}

criterion_group!(benches, bench_algorithms);
criterion_main!(benches);
