use super::*;
use crate::test_support::{assert_invalid, dense_to_csr, in_pool, TestRng};
use crate::{Base, CsrKernel, DataKernel, DenseKernel, FeatureKernel, Points, Semimetric};
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

/// Three Gaussian groups in the plane.
fn three_groups(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = TestRng(seed);
    let centres = [(0.0, 0.0), (3.0, 0.5), (1.0, 3.0)];
    (0..n)
        .flat_map(|i| {
            let (cx, cy) = centres[i % 3];
            [cx + 0.6 * rng.normal_ish(), cy + 0.6 * rng.normal_ish()]
        })
        .collect()
}

/// The Gaussian kernel `exp(−|x − y|² / 2)` of 2-D points, row-major n × n (PSD).
fn rbf(points: &[f64]) -> Vec<f64> {
    let n = points.len() / 2;
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            let dx = points[2 * a] - points[2 * b];
            let dy = points[2 * a + 1] - points[2 * b + 1];
            g[a * n + b] = (-(dx * dx + dy * dy) / 2.0).exp();
        }
    }
    g
}

fn random_weights(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = TestRng(seed);
    (0..n).map(|_| 0.5 + 1.5 * rng.next_f64()).collect()
}

/// The dense `M = W^½ G W^½` of a kernel, from its rows.
fn dense_m<K: Kernel>(kernel: &K, weights: Option<&[f64]>) -> Vec<f64> {
    let n = kernel.n();
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        kernel.row_into(i, &mut m[i * n..(i + 1) * n]);
        for y in 0..n {
            m[i * n + y] *= (w(i) * w(y)).sqrt();
        }
    }
    // Symmetric up to the kernel's own rounding (matrix-free rows).
    for i in 0..n {
        for y in 0..i {
            let mean = 0.5 * (m[i * n + y] + m[y * n + i]);
            m[i * n + y] = mean;
            m[y * n + i] = mean;
        }
    }
    m
}

/// Checks `pairs` against the dense Jacobi decomposition of M: values, residuals computed
/// on the dense M, orthonormality, and each vector whose eigenvalue is well separated.
fn assert_matches_dense<K: Kernel>(kernel: &K, weights: Option<&[f64]>, pairs: &Eigenpairs) {
    let n = kernel.n();
    let count = pairs.count;
    let m = dense_m(kernel, weights);
    let (values, vectors) = symmetric_eigen(&m, n).unwrap();
    let scale = values.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    assert!(pairs.converged, "not converged: {:?}", pairs.residuals);
    assert_eq!(pairs.values.len(), count);
    assert_eq!(pairs.vectors.len(), n * count);
    for j in 0..count {
        assert!(
            (pairs.values[j] - values[j]).abs() <= 1e-9 * scale,
            "value {j}: {} vs {}",
            pairs.values[j],
            values[j]
        );
        let v: Vec<f64> = (0..n).map(|i| pairs.vectors[i * count + j]).collect();
        let residual: f64 = (0..n)
            .map(|i| {
                let mv: f64 = (0..n).map(|y| m[i * n + y] * v[y]).sum();
                (mv - pairs.values[j] * v[i]).powi(2)
            })
            .sum::<f64>()
            .sqrt();
        assert!(residual <= 1e-7 * scale, "residual {j}: {residual}");
        for l in 0..count {
            let dot: f64 = (0..n).map(|i| v[i] * pairs.vectors[i * count + l]).sum();
            let expected = if j == l { 1.0 } else { 0.0 };
            assert!((dot - expected).abs() < 1e-10, "⟨v{j}, v{l}⟩ = {dot}");
        }
        let gap = [j.checked_sub(1), Some(j + 1)]
            .iter()
            .flatten()
            .filter(|&&t| t < n)
            .map(|&t| (values[t] - values[j]).abs())
            .fold(f64::INFINITY, f64::min);
        if gap > 1e-3 * scale {
            let dot: f64 = (0..n).map(|i| v[i] * vectors[i * n + j]).sum();
            assert!((dot.abs() - 1.0).abs() < 1e-9, "vector {j}: cos = {dot}");
        }
    }
}

#[test]
fn dense_f64_and_f32_kernels_with_and_without_weights() {
    let n = 150;
    let g = rbf(&three_groups(n, 1));
    let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
    let w = random_weights(n, 2);
    let kernel = DenseKernel::new(&g, n).unwrap();
    let kernel32 = DenseKernel::new(&g32, n).unwrap();
    for (count, weights) in [(3, None), (5, Some(w.as_slice())), (1, Some(w.as_slice()))] {
        let pairs = top_eigenpairs(&kernel, weights, count, 4, &Control::new()).unwrap();
        assert_matches_dense(&kernel, weights, &pairs);
        let pairs = top_eigenpairs(&kernel32, weights, count, 4, &Control::new()).unwrap();
        assert_matches_dense(&kernel32, weights, &pairs);
    }
}

#[test]
fn sparse_indefinite_kernel_gives_the_algebraically_largest() {
    // The Gaussian kernel with its small entries dropped: sparse and indefinite.
    let n = 140;
    let mut g = rbf(&three_groups(n, 5));
    g.iter_mut().for_each(|v| {
        if *v < 0.3 {
            *v = 0.0
        }
    });
    let (indptr, indices, data) = dense_to_csr(&g, n);
    let kernel = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
    let w = random_weights(n, 6);
    for weights in [None, Some(w.as_slice())] {
        let pairs = top_eigenpairs(&kernel, weights, 4, 9, &Control::new()).unwrap();
        assert_matches_dense(&kernel, weights, &pairs);
    }
}

#[test]
fn negative_eigenvalue_of_largest_magnitude_is_not_taken() {
    // G = RBF − 40 u uᵀ: its eigenvalue of largest magnitude is about −40.
    let n = 120;
    let mut g = rbf(&three_groups(n, 7));
    let u: Vec<f64> = (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 20.0).collect();
    let norm2: f64 = u.iter().map(|x| x * x).sum();
    for a in 0..n {
        for b in 0..n {
            g[a * n + b] -= 40.0 * u[a] * u[b] / norm2;
        }
    }
    let kernel = DenseKernel::new(&g, n).unwrap();
    let pairs = top_eigenpairs(&kernel, None, 3, 1, &Control::new()).unwrap();
    assert!(pairs.values.iter().all(|&v| v > 0.0), "{:?}", pairs.values);
    assert_matches_dense(&kernel, None, &pairs);
}

#[test]
fn matrix_free_and_low_rank_kernels() {
    let n = 130;
    let x = three_groups(n, 11);
    let points = Points::new(&x, n, 2).unwrap();
    let w = random_weights(n, 12);
    for semimetric in [
        Semimetric::Power { alpha: 1.0 },
        Semimetric::Gaussian { sigma: 1.0 },
    ] {
        let kernel = DataKernel::new(points, semimetric, Base::Mean).unwrap();
        for weights in [None, Some(w.as_slice())] {
            let pairs = top_eigenpairs(&kernel, weights, 3, 2, &Control::new()).unwrap();
            assert_matches_dense(&kernel, weights, &pairs);
        }
    }
    let features = TestRng(13).data(n, 6, 1.0, 0.2);
    let kernel = FeatureKernel::new(&features, n, 6).unwrap();
    for (count, weights) in [(3, None), (6, Some(w.as_slice())), (8, None)] {
        // count 8 > rank 6: the last two eigenvalues are 0.
        let pairs = top_eigenpairs(&kernel, weights, count, 3, &Control::new()).unwrap();
        assert_matches_dense(&kernel, weights, &pairs);
    }
}

#[test]
fn restarts_converge_to_the_dense_answer() {
    // A narrow block and a shallow basis: many restarts on a small kernel.
    let n = 120;
    let g = rbf(&three_groups(n, 21));
    let kernel = DenseKernel::new(&g, n).unwrap();
    let w = random_weights(n, 22);
    let plan = Plan { block: 5, depth: 2 };
    let pairs = krylov(
        &kernel,
        Some(&w),
        4,
        5,
        &EigenOptions::default(),
        plan,
        &Control::new(),
    )
    .unwrap();
    assert!(pairs.n_restarts > 1, "{}", pairs.n_restarts);
    assert_eq!(pairs.n_products, 2 * pairs.n_restarts);
    assert_matches_dense(&kernel, Some(&w), &pairs);
    // One restart allowed: reported as not converged, residuals as computed.
    let options = EigenOptions {
        tolerance: 1e-14,
        max_restarts: 1,
    };
    let rough = krylov(&kernel, None, 4, 5, &options, plan, &Control::new()).unwrap();
    assert!(!rough.converged);
    assert_eq!(rough.n_restarts, 1);
    assert!(rough.residuals.iter().all(|r| r.is_finite() && *r > 0.0));
}

#[test]
fn small_kernels_are_decomposed_exactly() {
    // n below the basis size: one restart, the whole space, converged.
    for n in [1, 2, 7] {
        let g = rbf(&three_groups(n, 30 + n as u64));
        let kernel = DenseKernel::new(&g, n).unwrap();
        let pairs = top_eigenpairs(&kernel, None, n, 0, &Control::new()).unwrap();
        assert_eq!(pairs.n_restarts, 1);
        assert_matches_dense(&kernel, None, &pairs);
    }
}

#[test]
fn extreme_weight_scales_are_exact_scalings() {
    let n = 60;
    let g = rbf(&three_groups(n, 41));
    let kernel = DenseKernel::new(&g, n).unwrap();
    let w = random_weights(n, 42);
    let big: Vec<f64> = w.iter().map(|x| x * 2f64.powi(600)).collect();
    let a = top_eigenpairs(&kernel, Some(&w), 3, 1, &Control::new()).unwrap();
    let b = top_eigenpairs(&kernel, Some(&big), 3, 1, &Control::new()).unwrap();
    assert_eq!(a.vectors, b.vectors);
    for (x, y) in a.values.iter().zip(&b.values) {
        assert_eq!(x * 2f64.powi(600), *y);
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let n = 2100; // several chunks of rows in every reduction
    let x = three_groups(n, 51);
    let points = Points::new(&x, n, 2).unwrap();
    let kernel = DataKernel::new(points, Semimetric::Gaussian { sigma: 1.0 }, Base::Mean).unwrap();
    let w = random_weights(n, 52);
    let run = || top_eigenpairs(&kernel, Some(&w), 3, 8, &Control::new()).unwrap();
    let one = in_pool(1, run);
    let three = in_pool(3, run);
    assert_eq!(one, three);
    assert!(one.converged);
    // Another seed: the same pairs up to the tolerance.
    let other = top_eigenpairs(&kernel, Some(&w), 3, 9, &Control::new()).unwrap();
    for (a, b) in one.values.iter().zip(&other.values) {
        assert!((a - b).abs() < 1e-9 * a.abs());
    }
}

#[test]
fn bad_arguments_are_errors() {
    let g = rbf(&three_groups(10, 61));
    let kernel = DenseKernel::new(&g, 10).unwrap();
    let control = Control::new();
    assert_invalid(
        top_eigenpairs(&kernel, None, 0, 0, &control),
        "count",
        "got 0",
    );
    assert_invalid(
        top_eigenpairs(&kernel, None, 11, 0, &control),
        "count",
        "n = 10",
    );
    assert_invalid(
        top_eigenpairs(&kernel, Some(&[1.0; 9]), 2, 0, &control),
        "weights",
        "length 9",
    );
    let mut w = vec![1.0; 10];
    w[3] = 0.0;
    assert_invalid(
        top_eigenpairs(&kernel, Some(&w), 2, 0, &control),
        "weights",
        "weights[3]",
    );
    w[3] = f64::NAN;
    assert_invalid(
        top_eigenpairs(&kernel, Some(&w), 2, 0, &control),
        "weights",
        "weights[3]",
    );
    let options = EigenOptions {
        tolerance: 0.0,
        max_restarts: 5,
    };
    assert_invalid(
        top_eigenpairs_with(&kernel, None, 2, 0, &options, &control),
        "tolerance",
        "> 0",
    );
    let options = EigenOptions {
        tolerance: 1e-8,
        max_restarts: 0,
    };
    assert_invalid(
        top_eigenpairs_with(&kernel, None, 2, 0, &options, &control),
        "max_restarts",
        "at least 1",
    );
}

#[test]
fn cancellation_stops_the_iteration() {
    let g = rbf(&three_groups(50, 71));
    let kernel = DenseKernel::new(&g, 50).unwrap();
    let cancel = AtomicBool::new(true);
    let control = Control::new().with_cancel(&cancel);
    assert_eq!(
        top_eigenpairs(&kernel, None, 2, 0, &control),
        Err(KGroupsError::Interrupted)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Random PSD kernels G = X Xᵀ (rank up to 4, so eigenvalues repeat at 0), random
    /// weights and counts: the same eigenvalues as Jacobi on the dense M, orthonormal
    /// vectors with small residuals.
    #[test]
    fn random_psd_kernels_match_jacobi(
        n in 1usize..70,
        rank in 1usize..5,
        count_fraction in 0.0f64..1.0,
        weighted in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let x = TestRng(seed).data(n, rank, 1.0, 0.1);
        let mut g = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..n {
                g[a * n + b] = (0..rank).map(|t| x[a * rank + t] * x[b * rank + t]).sum();
            }
        }
        let kernel = DenseKernel::new(&g, n).unwrap();
        let count = 1 + ((n - 1) as f64 * count_fraction) as usize;
        let w = random_weights(n, seed ^ 1);
        let weights = weighted.then_some(w.as_slice());
        let pairs = top_eigenpairs(&kernel, weights, count, seed, &Control::new()).unwrap();
        assert_matches_dense(&kernel, weights, &pairs);
    }
}
