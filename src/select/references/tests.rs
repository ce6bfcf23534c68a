use super::*;
use std::cell::Cell;

thread_local! {
    static FORCE_SCATTER: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread's principal boxes must come from the `D × D` covariance (the slow,
/// independent path the Gram form is checked against).
pub(crate) fn scatter_forced() -> bool {
    FORCE_SCATTER.with(Cell::get)
}

/// Runs `f` with the principal box built from the `D × D` covariance on this thread.
pub(crate) fn with_scatter_forced<T>(f: impl FnOnce() -> T) -> T {
    FORCE_SCATTER.with(|c| c.set(true));
    let out = f();
    FORCE_SCATTER.with(|c| c.set(false));
    out
}

/// `n × dim` data with a different spread per coordinate (distinct eigenvalues).
fn random_data(n: usize, dim: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n * dim)
        .map(|i| (1.0 + (i % dim) as f64 * 0.37) * (rng.next_f64() - 0.5) + 3.0)
        .collect()
}

fn mean_of(data: &[f64], n: usize, dim: usize) -> Vec<f64> {
    let mut mean = vec![0.0; dim];
    for row in data.chunks_exact(dim) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v / n as f64;
        }
    }
    mean
}

/// The data's coordinates along the `axes` columns of `vectors` (`dim × stride`).
fn scores(data: &[f64], mean: &[f64], vectors: &[f64], stride: usize, axes: usize) -> Vec<f64> {
    let dim = mean.len();
    let mut out = Vec::new();
    for row in data.chunks_exact(dim) {
        for j in 0..axes {
            out.push(
                (0..dim)
                    .map(|a| (row[a] - mean[a]) * vectors[a * stride + j])
                    .sum(),
            );
        }
    }
    out
}

#[test]
fn the_gram_form_gives_the_covariance_eigenvalues_and_scores() {
    for (n, dim) in [(12, 30), (25, 7), (9, 9), (40, 41)] {
        let data = random_data(n, dim, (n * 100 + dim) as u64);
        let mean = mean_of(&data, n, dim);
        let c = Control::new();
        let (slow_values, slow, _) = principal_axes(&data, &mean, n, dim, false, &c).unwrap();
        let (fast_values, fast, axes) = principal_axes(&data, &mean, n, dim, true, &c).unwrap();
        // n centred points span n − 1 dimensions (or dim, if fewer).
        assert_eq!(axes, (n - 1).min(dim), "n = {n}, dim = {dim}");
        let largest = slow_values[0];
        for j in 0..n.max(dim) {
            let s = slow_values.get(j).copied().unwrap_or(0.0);
            let f = fast_values.get(j).copied().unwrap_or(0.0);
            assert!(
                (s - f).abs() <= 1e-10 * largest,
                "n = {n}, dim = {dim}, eigenvalue {j}: {s} vs {f}"
            );
        }
        // The data's coordinates on every axis the Gram form keeps, up to sign (the sign
        // convention makes them equal in fact); the slow path's other axes carry nothing.
        let a = scores(&data, &mean, &slow, dim, dim);
        let b = scores(&data, &mean, &fast, axes, axes);
        let scale = largest.sqrt();
        for i in 0..n {
            for j in 0..axes {
                let (x, y) = (a[i * dim + j], b[i * axes + j]);
                assert!(
                    (x.abs() - y.abs()).abs() <= 1e-8 * scale && (x - y).abs() <= 1e-8 * scale,
                    "n = {n}, dim = {dim}, point {i}, axis {j}: {x} vs {y}"
                );
            }
            for j in axes..dim {
                assert!(a[i * dim + j].abs() <= 1e-8 * scale);
            }
        }
        // Unit, orthogonal axes.
        for p in 0..axes {
            for q in 0..axes {
                let dot: f64 = (0..dim)
                    .map(|i| fast[i * axes + p] * fast[i * axes + q])
                    .sum();
                let want = if p == q { 1.0 } else { 0.0 };
                assert!((dot - want).abs() < 1e-9, "axes {p}, {q}: {dot}");
            }
        }
    }
}

#[test]
fn the_wide_principal_box_draws_the_same_points_either_way() {
    let (n, dim) = (15, 40);
    let data = random_data(n, dim, 3);
    let x = Points::new(&data, n, dim).unwrap();
    let fast = ReferenceFrame::new_with(&x, &Control::new()).unwrap();
    let slow = with_scatter_forced(|| ReferenceFrame::new_with(&x, &Control::new())).unwrap();
    assert_eq!((fast.axes, slow.axes), (n - 1, dim));
    let (a, b) = (
        fast.draw_with(50, 7, &Control::new()).unwrap(),
        slow.draw_with(50, 7, &Control::new()).unwrap(),
    );
    let spread = data.iter().fold(0.0f64, |m, v| m.max((v - 3.0).abs()));
    for (p, q) in a.iter().zip(&b) {
        assert!((p - q).abs() <= 1e-9 * spread, "{p} vs {q}");
    }
    // Every drawn point lies in the data's affine span: its Gram-form coordinates recover it.
    let mean = mean_of(&data, n, dim);
    let rotation = &fast.rotation;
    for point in a.chunks_exact(dim) {
        let mut coordinates = vec![0.0; n - 1];
        project(point, &mean, rotation, &mut coordinates);
        for (i, v) in point.iter().enumerate() {
            let back: f64 = (0..n - 1)
                .map(|j| rotation[i * (n - 1) + j] * coordinates[j])
                .sum();
            assert!((mean[i] + back - v).abs() <= 1e-9 * spread);
        }
    }
}

#[test]
fn the_gram_form_handles_a_single_point_and_repeated_points() {
    for (n, dim) in [(1, 5), (4, 10)] {
        let data = vec![2.5; n * dim];
        let x = Points::new(&data, n, dim).unwrap();
        let frame = ReferenceFrame::new_with(&x, &Control::new()).unwrap();
        assert_eq!(frame.axes, 0);
        assert!(frame
            .draw_with(3, 1, &Control::new())
            .unwrap()
            .iter()
            .all(|&v| v == 2.5));
    }
}

#[test]
fn a_cancelled_gram_form_stops_with_interrupted() {
    let data = random_data(10, 30, 1);
    let x = Points::new(&data, 10, 30).unwrap();
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let control = Control::new().with_cancel(&cancel);
    assert_eq!(
        ReferenceFrame::new_with(&x, &control).unwrap_err(),
        crate::KGroupsError::Interrupted
    );
}

#[test]
fn compact_draws_keep_the_distances_of_the_drawn_points() {
    for (n, dim) in [(12, 30), (30, 5)] {
        let data = random_data(n, dim, 9);
        let x = Points::new(&data, n, dim).unwrap();
        let frame = ReferenceFrame::new_with(&x, &Control::new()).unwrap();
        let points = frame.draw_with(20, 4, &Control::new()).unwrap();
        let (u, width) = frame.draw_compact_with(20, 4, &Control::new()).unwrap();
        assert_eq!(width, dim.min(n - 1));
        let distance = |p: &[f64], q: &[f64]| -> f64 {
            p.iter()
                .zip(q)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        for a in 0..20 {
            for b in 0..a {
                let dx = distance(
                    &points[a * dim..(a + 1) * dim],
                    &points[b * dim..(b + 1) * dim],
                );
                let du = distance(
                    &u[a * width..(a + 1) * width],
                    &u[b * width..(b + 1) * width],
                );
                assert!((dx - du).abs() <= 1e-9 * dx.max(1.0), "{dx} vs {du}");
            }
        }
    }
}
