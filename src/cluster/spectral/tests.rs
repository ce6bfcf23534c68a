use super::*;
use crate::linalg::symmetric_eigen;
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

/// Checks `pairs` against the dense decomposition of M: values, residuals computed
/// on the dense M, orthonormality, and each vector whose eigenvalue is well separated.
fn assert_matches_dense<K: Kernel>(kernel: &K, weights: Option<&[f64]>, pairs: &Eigenpairs) {
    let n = kernel.n();
    let count = pairs.count;
    let m = dense_m(kernel, weights);
    let (values, vectors) = symmetric_eigen(&m, n, &Control::new()).unwrap();
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
    // Two blocks at first; each restart keeps five Ritz vectors with their images and
    // multiplies one new block.
    assert_eq!(pairs.n_products, pairs.n_restarts + 1);
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
    /// weights and counts: the same eigenvalues as the dense decomposition of M, orthonormal
    /// vectors with small residuals.
    #[test]
    fn random_psd_kernels_match_the_dense_decomposition(
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

// ---- Init::Spectral ----

use crate::{fit, Algorithm, Init, Options};

/// Two concentric rings (radii 1 and 2, a little noise) and the symmetrised 8-nearest-
/// neighbour graph of their points, as a dense 0/1 matrix (zero diagonal).
fn rings_knn(n: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
    let mut rng = TestRng(seed);
    let truth: Vec<usize> = (0..n).map(|i| i % 2).collect();
    let x: Vec<[f64; 2]> = truth
        .iter()
        .map(|&ring| {
            let angle = 2.0 * std::f64::consts::PI * rng.next_f64();
            let radius = 1.0 + ring as f64 + 0.05 * rng.normal_ish();
            [radius * angle.cos(), radius * angle.sin()]
        })
        .collect();
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        let mut order: Vec<(f64, usize)> = (0..n)
            .filter(|&b| b != a)
            .map(|b| ((x[a][0] - x[b][0]).powi(2) + (x[a][1] - x[b][1]).powi(2), b))
            .collect();
        order.sort_by(|p, q| p.0.total_cmp(&q.0));
        for &(_, b) in &order[..8] {
            g[a * n + b] = 1.0;
            g[b * n + a] = 1.0;
        }
    }
    (g, truth)
}

fn same_partition(a: &[usize], b: &[usize]) -> bool {
    let mut map = std::collections::HashMap::new();
    a.iter()
        .zip(b)
        .all(|(x, y)| *map.entry(*x).or_insert(*y) == *y)
        && {
            let mut back = std::collections::HashMap::new();
            b.iter()
                .zip(a)
                .all(|(x, y)| *back.entry(*x).or_insert(*y) == *y)
        }
}

fn algorithms() -> [Algorithm; 2] {
    [Algorithm::Hartigan, Algorithm::Lloyd]
}

#[test]
fn spectral_init_recovers_rings_and_reports_its_bound() {
    let n = 300;
    let (a, truth) = rings_knn(n, 3);
    // Normalised cut as kernel k-groups: G = D⁻¹ A D⁻¹ with the degrees as weights, so that
    // M = D^-½ A D^-½ (the normalised affinity of Ng, Jordan and Weiss).
    let degrees: Vec<f64> = a.chunks_exact(n).map(|row| row.iter().sum()).collect();
    let mut g = a.clone();
    for i in 0..n {
        for j in 0..n {
            g[i * n + j] /= degrees[i] * degrees[j];
        }
    }
    let kernel = DenseKernel::new(&g, n).unwrap();
    for algorithm in algorithms() {
        let options = Options {
            algorithm,
            init: Init::Spectral,
            weights: Some(&degrees),
            // M's eigenvalues are at least −1: this shift makes the kernel PSD for Lloyd.
            shift: 1.0,
            ..Options::default()
        };
        let result = fit(&kernel, 2, &options, &Control::new()).unwrap();
        assert!(same_partition(&result.labels, &truth), "{algorithm:?}");
        let bound = result.spectral_bound.expect("the bound is reported");
        // Two components: M's top eigenvalues are 1 and 1, the bound 2 + 2·shift is attained.
        assert!((bound - 4.0).abs() < 1e-9, "{bound}");
        assert!(
            (result.objective - bound).abs() < 1e-9,
            "{}",
            result.objective
        );
        let plain = fit(
            &kernel,
            2,
            &Options {
                init: Init::KMeansPlusPlus,
                ..options
            },
            &Control::new(),
        )
        .unwrap();
        assert_eq!(plain.spectral_bound, None);
    }
}

#[test]
fn bound_holds_on_random_kernels_with_weights_and_shift() {
    for seed in 0..6u64 {
        let n = 90;
        let mut g = rbf(&three_groups(n, 100 + seed));
        if seed % 2 == 1 {
            // Indefinite: the bound is Ky Fan's and needs no PSD kernel.
            g.iter_mut().for_each(|v| *v -= 0.3);
        }
        let kernel = DenseKernel::new(&g, n).unwrap();
        let w = random_weights(n, 200 + seed);
        for (k, weights, shift) in [
            (2, None, 0.0),
            (3, Some(w.as_slice()), 0.0),
            (4, Some(w.as_slice()), 1.5),
        ] {
            for algorithm in algorithms() {
                let options = Options {
                    algorithm,
                    init: Init::Spectral,
                    weights,
                    shift,
                    n_init: 3,
                    seed,
                    ..Options::default()
                };
                let result = fit(&kernel, k, &options, &Control::new()).unwrap();
                let bound = result.spectral_bound.unwrap();
                assert!(
                    result.objective <= bound + 1e-9 * bound.abs(),
                    "seed {seed}, k {k}: Q = {} > {bound}",
                    result.objective
                );
                // The bound is on every partition: k-means++ too, and the caller's labels.
                let other = fit(
                    &kernel,
                    k,
                    &Options {
                        init: Init::Random,
                        ..options
                    },
                    &Control::new(),
                )
                .unwrap();
                assert!(other.objective <= bound + 1e-9 * bound.abs());
                // The bound with the shift is the one without plus k·shift.
                let unshifted = fit(
                    &kernel,
                    k,
                    &Options {
                        shift: 0.0,
                        ..options
                    },
                    &Control::new(),
                )
                .unwrap();
                let difference = bound - unshifted.spectral_bound.unwrap();
                assert!((difference - k as f64 * shift).abs() < 1e-9 * bound.abs());
            }
        }
    }
}

#[test]
fn bound_is_attained_on_blocks_that_do_not_interact() {
    // G = blockdiag(c_l 11ᵀ): M's top eigenvalues are c_l s_l, the partition into the blocks
    // has Q = Σ c_l s_l, the bound is tight.
    let sizes = [7usize, 12, 5, 9];
    let levels = [1.0, 0.5, 2.0, 0.8];
    let n: usize = sizes.iter().sum();
    let mut g = vec![0.0; n * n];
    let mut truth = vec![];
    let mut start = 0;
    for (l, (&size, &c)) in sizes.iter().zip(&levels).enumerate() {
        for a in start..start + size {
            for b in start..start + size {
                g[a * n + b] = c;
            }
            truth.push(l);
        }
        start += size;
    }
    let kernel = DenseKernel::new(&g, n).unwrap();
    let w = random_weights(n, 5);
    for (weights, shift) in [
        (None, 0.0),
        (Some(w.as_slice()), 0.0),
        (Some(w.as_slice()), -0.25),
    ] {
        for algorithm in algorithms() {
            let options = Options {
                algorithm,
                init: Init::Spectral,
                weights,
                shift,
                ..Options::default()
            };
            let result = fit(&kernel, 4, &options, &Control::new()).unwrap();
            assert!(same_partition(&result.labels, &truth));
            let bound = result.spectral_bound.unwrap();
            assert!(
                (result.objective - bound).abs() < 1e-10 * bound.abs(),
                "Q = {} vs {bound}",
                result.objective
            );
            // The value itself: Σ c_l s_l + k·shift.
            let expected: f64 = (0..n)
                .map(|i| levels[truth[i]] * weights.map_or(1.0, |w| w[i]))
                .sum::<f64>()
                + 4.0 * shift;
            assert!((bound - expected).abs() < 1e-10 * expected.abs());
        }
    }
}

#[test]
fn spectral_starts_are_seeded_and_thread_count_independent() {
    let n = 400;
    let (g, _) = rings_knn(n, 9);
    let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
    let kernel = DenseKernel::new(&g32, n).unwrap();
    let w = random_weights(n, 1);
    let options = Options {
        init: Init::Spectral,
        n_init: 4,
        seed: 77,
        weights: Some(&w),
        shift: 9.0,
        ..Options::default()
    };
    let run = || fit(&kernel, 5, &options, &Control::new()).unwrap();
    let one = in_pool(1, run);
    let three = in_pool(3, run);
    assert_eq!(one, three);
    // Starts differ in their rounding only: other seeds, possibly other partitions, the same bound.
    let other = fit(
        &kernel,
        5,
        &Options {
            seed: 78,
            ..options
        },
        &Control::new(),
    )
    .unwrap();
    let (a, b) = (one.spectral_bound.unwrap(), other.spectral_bound.unwrap());
    assert!((a - b).abs() < 1e-9 * a.abs());
}

#[test]
fn rounding_fills_every_cluster_even_with_coinciding_points() {
    // Two blocks but k = 4: the embedding has only two distinct directions... plus zeros.
    let n = 10;
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            if (a < 5) == (b < 5) {
                g[a * n + b] = 1.0;
            }
        }
    }
    let kernel = DenseKernel::new(&g, n).unwrap();
    for seed in 0..10 {
        let options = Options {
            init: Init::Spectral,
            seed,
            max_iter: 1,
            ..Options::default()
        };
        let result = fit(&kernel, 4, &options, &Control::new()).unwrap();
        assert!(validate::labels(&result.labels, n, 4, "init").is_ok());
    }
    let zero = vec![0.0; 16];
    let kernel = DenseKernel::new(&zero, 4).unwrap();
    let result = fit(
        &kernel,
        3,
        &Options {
            init: Init::Spectral,
            ..Options::default()
        },
        &Control::new(),
    )
    .unwrap();
    assert!(validate::labels(&result.labels, 4, 3, "init").is_ok());
    assert_eq!(result.spectral_bound, Some(0.0));
}

#[test]
fn spectral_init_checks_a_deferred_kernel_first() {
    let asymmetric = [2.0, 1.9, 0.0, 1.5, 2.0, 0.0, 0.0, 0.0, 2.0];
    let kernel = DenseKernel::with_deferred_check(&asymmetric, 3).unwrap();
    let options = Options {
        init: Init::Spectral,
        ..Options::default()
    };
    assert_invalid(
        fit(&kernel, 2, &options, &Control::new()),
        "G",
        "not symmetric",
    );
    let g = rbf(&three_groups(5, 1));
    let kernel = DenseKernel::new(&g, 5).unwrap();
    assert_invalid(fit(&kernel, 6, &options, &Control::new()), "k", "n = 5");
    let cancel = AtomicBool::new(true);
    assert_eq!(
        fit(&kernel, 2, &options, &Control::new().with_cancel(&cancel)),
        Err(KGroupsError::Interrupted)
    );
}
