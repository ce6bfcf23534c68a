//! Tests of the dense kernel: construction, the cluster-sums pass (with and without the
//! fused symmetry check) and moves.

use super::*;
use crate::test_support::TestRng;

#[test]
fn rejects_bad_matrices() {
    let nan = [1.0, f64::NAN, f64::NAN, 1.0];
    let err = DenseKernel::new(&nan, 2).unwrap_err().to_string();
    assert!(err.contains("NaN"), "{err}");
    let asym = [1.0, 0.5, 0.6, 1.0];
    let err = DenseKernel::new(&asym, 2).unwrap_err().to_string();
    assert!(err.contains("not symmetric"), "{err}");
    assert!(DenseKernel::<f64>::new(&[], 0).is_err());
    assert!(DenseKernel::new(&[1.0, 2.0, 3.0], 2).is_err());
}

#[test]
fn asymmetry_far_from_the_first_block_is_found() {
    let n = 200;
    let mut g = vec![0.0; n * n];
    for i in 0..n {
        g[i * n + i] = 1.0;
    }
    g[150 * n + 199] = 0.25;
    assert!(DenseKernel::new(&g, n).is_err());
    g[199 * n + 150] = 0.25;
    assert!(DenseKernel::new(&g, n).is_ok());
}

#[test]
fn every_defect_is_found_wherever_it_is() {
    // n not a multiple of the tile, so edge tiles and remainders are exercised.
    let n = 150;
    let base: Vec<f64> = (0..n * n)
        .map(|p| {
            let (a, b) = (p / n, p % n);
            ((a.min(b) * 7 + a.max(b) * 3) % 11) as f64 - 5.0 + if a == b { 20.0 } else { 0.0 }
        })
        .collect();
    assert!(DenseKernel::new(&base, n).is_ok());
    let max_diagonal = (0..n).map(|i| base[i * n + i].abs()).fold(0.0, f64::max);
    for &(a, b) in &[
        (0, 1),
        (1, 0),
        (3, 3),
        (10, 140),
        (140, 10),
        (149, 148),
        (63, 64),
        (64, 63),
        (149, 0),
    ] {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut g = base.clone();
            g[a * n + b] = bad;
            let err = DenseKernel::new(&g, n).unwrap_err().to_string();
            assert!(err.contains("NaN or infinity"), "({a}, {b}) = {bad}: {err}");
        }
        if a == b {
            continue;
        }
        let value = base[a * n + b];
        let allowed = 1e-9 * (2.0 * value.abs() + max_diagonal);
        let mut g = base.clone();
        g[a * n + b] = value + 2.0 * allowed;
        let err = DenseKernel::new(&g, n).unwrap_err().to_string();
        assert!(
            err.contains(&format!("G[{}, {}]", a.min(b), a.max(b))),
            "{err}"
        );
        g[a * n + b] = value + 0.25 * allowed;
        assert!(
            DenseKernel::new(&g, n).is_ok(),
            "({a}, {b}) within the tolerance"
        );
    }
    // Huge but finite (u + l would overflow): accepted.
    let mut huge = base.clone();
    huge[10 * n + 140] = 1.5e308;
    huge[140 * n + 10] = 1.5e308;
    assert!(DenseKernel::new(&huge, n).is_ok());
    let single: Vec<f32> = base.iter().map(|&v| v as f32).collect();
    assert!(DenseKernel::new(&single, n).is_ok());
    let mut single_bad = single.clone();
    single_bad[140 * n + 10] += 1e-3;
    assert!(DenseKernel::new(&single_bad, n).is_err());
}

fn naive_sums(g: &[f64], n: usize, labels: &[usize], weights: &[f64], k: usize) -> Vec<f64> {
    let mut out = vec![0.0; k * n];
    for y in 0..n {
        for i in 0..n {
            out[labels[i] * n + y] += weights[i] * g[y * n + i];
        }
    }
    out
}

#[test]
fn cluster_sums_match_naive_for_small_and_large_k() {
    let n = 37;
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..=a {
            let v = ((a * 31 + b * 17) % 13) as f64 / 7.0 - 0.5;
            g[a * n + b] = v;
            g[b * n + a] = v;
        }
    }
    let weights: Vec<f64> = (0..n).map(|i| 0.5 + (i % 5) as f64).collect();
    for k in [1, 3, 20] {
        let labels: Vec<usize> = (0..n).map(|i| (i * 7) % k).collect();
        let kernel = DenseKernel::new(&g, n).unwrap();
        let fast = kernel
            .cluster_sums(&labels, &weights, k, &Control::new())
            .unwrap();
        let slow = naive_sums(&g, n, &labels, &weights, k);
        for (a, b) in fast.iter().zip(&slow) {
            assert!((a - b).abs() < 1e-12, "k = {k}: {a} vs {b}");
        }
    }
}

/// A symmetric n × n matrix (bit for bit) with a positive diagonal.
fn symmetric(n: usize, rng: &mut TestRng) -> Vec<f64> {
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        for b in a..n {
            let v = if a == b {
                3.0 + rng.next_f64()
            } else {
                rng.normal_ish()
            };
            g[a * n + b] = v;
            g[b * n + a] = v;
        }
    }
    g
}

/// The tiled pass against the naive sums, across tile boundaries (n not a multiple of
/// the tile, several blocks), for the masked (k ≤ 4) and gathering (k > 4) kernels, with
/// and without the fused check, in f64 and f32, on 1 and 2 threads (same bits).
#[test]
fn tiled_sums_match_naive_and_do_not_depend_on_threads_or_check() {
    let mut rng = TestRng(5);
    // 512: rows 4 KiB apart (the tiles' rows share their cache sets).
    for &n in &[1usize, 2, 127, 128, 129, 300, 512, 515] {
        let g = symmetric(n, &mut rng);
        let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
        let g32_wide: Vec<f64> = g32.iter().map(|&v| v as f64).collect();
        let weights: Vec<f64> = (0..n).map(|_| 0.25 + rng.next_f64()).collect();
        for k in [1usize, 2, 4, 5, 9, 20] {
            let k = k.min(n);
            let labels: Vec<usize> = (0..n).map(|i| (i * 7 + i / 3) % k).collect();
            let control = Control::new();
            let slow = naive_sums(&g, n, &labels, &weights, k);
            let kernel = DenseKernel::new(&g, n).unwrap();
            let deferred = DenseKernel::with_deferred_check(&g, n).unwrap();
            let runs: Vec<Vec<f64>> = [1, 2]
                .iter()
                .flat_map(|&threads| {
                    crate::test_support::in_pool(threads, || {
                        vec![
                            kernel.cluster_sums(&labels, &weights, k, &control).unwrap(),
                            deferred
                                .cluster_sums_and_check(&labels, &weights, k, &control)
                                .unwrap(),
                        ]
                    })
                })
                .collect();
            for run in &runs {
                assert_eq!(run, &runs[0], "n = {n}, k = {k}");
            }
            for (a, b) in runs[0].iter().zip(&slow) {
                assert!(
                    (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                    "n = {n}, k = {k}: {a} vs {b}"
                );
            }
            let single = DenseKernel::new(&g32, n).unwrap();
            let fast = single.cluster_sums(&labels, &weights, k, &control).unwrap();
            // The checked pass takes f32 sums from a widened copy of each tile: the same bits.
            let checked = DenseKernel::with_deferred_check(&g32, n)
                .unwrap()
                .cluster_sums_and_check(&labels, &weights, k, &control)
                .unwrap();
            assert_eq!(
                checked, fast,
                "f32 n = {n}, k = {k}: checked against unchecked"
            );
            let slow = naive_sums(&g32_wide, n, &labels, &weights, k);
            for (a, b) in fast.iter().zip(&slow) {
                assert!(
                    (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                    "f32 n = {n}, k = {k}: {a} vs {b}"
                );
            }
        }
    }
}

/// The check fused into the first pass gives the eager check's verdict and error (the
/// same first offending entry), wherever the defect is and whatever it is.
#[test]
fn fused_check_reports_what_the_eager_check_reports() {
    // 300, and 512 (rows 4 KiB apart: the tiles' rows share their cache sets).
    for n in [300, 512] {
        fused_check_matches_eager(n);
    }
}

fn fused_check_matches_eager(n: usize) {
    let mut rng = TestRng(9);
    let base = symmetric(n, &mut rng);
    let labels: Vec<usize> = (0..n).map(|i| i % 3).collect();
    let weights = vec![1.0; n];
    let control = Control::new();
    let mut rejected = 0;
    for trial in 0..40 {
        let mut g = base.clone();
        let a = rng.below(n);
        let b = rng.below(n);
        let v = g[a * n + b];
        g[a * n + b] = match trial % 5 {
            0 => v * (1.0 + 1e-12), // within the tolerance: accepted
            1 => v * (1.0 + 1e-6),
            2 => v + 1.0,
            3 => f64::NAN,
            _ => f64::NEG_INFINITY,
        };
        let eager = DenseKernel::new(&g, n).err().map(|e| e.to_string());
        let kernel = DenseKernel::with_deferred_check(&g, n).unwrap();
        // Masked (k ≤ 4) and gathering sums.
        for k in [3, 20] {
            let labels: Vec<usize> = labels.iter().map(|&l| l * 7 % k).collect();
            let fused = kernel
                .cluster_sums_and_check(&labels, &weights, k, &control)
                .err()
                .map(|e| e.to_string());
            assert_eq!(fused, eager, "trial {trial}: ({a}, {b}), k = {k}");
        }
        let separate = kernel.check_deferred(&control).err().map(|e| e.to_string());
        assert_eq!(separate, eager, "trial {trial}");
        rejected += usize::from(eager.is_some());
    }
    assert!(rejected >= 20, "too few defects rejected: {rejected}");
}

/// A fit on a kernel with a deferred check fails as the eager constructor does (one
/// start: in the first pass; several starts: before them), and otherwise gives the same
/// result as on the eagerly checked kernel.
#[test]
fn fit_with_deferred_check_matches_eager() {
    use crate::{fit, Init, Options};
    let mut rng = TestRng(3);
    let n = 260;
    let g = symmetric(n, &mut rng);
    let control = Control::new();
    for n_init in [1, 3] {
        for init in [Init::KMeansPlusPlus, Init::Random] {
            let options = Options {
                n_init,
                init,
                ..Options::default()
            };
            let eager = fit(&DenseKernel::new(&g, n).unwrap(), 3, &options, &control);
            let deferred = DenseKernel::with_deferred_check(&g, n).unwrap();
            assert_eq!(
                fit(&deferred, 3, &options, &control).unwrap(),
                eager.unwrap()
            );
            let mut bad = g.clone();
            bad[7 * n + 250] += 1e-3;
            let expected = DenseKernel::new(&bad, n).unwrap_err().to_string();
            let deferred = DenseKernel::with_deferred_check(&bad, n).unwrap();
            let err = fit(&deferred, 3, &options, &control)
                .unwrap_err()
                .to_string();
            assert_eq!(err, expected);
            bad[7 * n + 250] = f64::NAN;
            let expected = DenseKernel::new(&bad, n).unwrap_err().to_string();
            let deferred = DenseKernel::with_deferred_check(&bad, n).unwrap();
            let err = fit(&deferred, 3, &options, &control)
                .unwrap_err()
                .to_string();
            assert_eq!(err, expected);
        }
    }
}
