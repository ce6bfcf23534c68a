//! Properties of the clustering core through the crate's public API: global optimality on
//! tiny problems (brute force), local optimality of Hartigan's result, monotone objective
//! histories, reported numbers against direct evaluation, reproducibility across rayon pools,
//! cancellation, and every input error.
//!
//! The reference formulas here are written from SPEC.md directly (O(n²) double sums), not
//! from the crate's incremental updates.

use kgroups::rng::Rng;
use kgroups::{
    fit, kernel_kgroups, kernel_kmeans, Algorithm, Clustering, Control, DenseKernel, Init,
    KGroupsError, Options, Progress,
};
use proptest::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

const ALGORITHMS: [Algorithm; 3] = [
    Algorithm::Hartigan,
    Algorithm::Lloyd,
    Algorithm::LloydOnline,
];

// ----------------------------------------------------------------------------- references

/// A random PSD matrix `A Aᵀ` (row-major), exactly symmetric: both triangles are the same sum
/// in the same order.
fn random_psd(n: usize, rank: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let a: Vec<f64> = (0..n * rank).map(|_| 2.0 * rng.next_f64() - 1.0).collect();
    let mut g = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            g[i * n + j] = (0..rank).map(|t| a[i * rank + t] * a[j * rank + t]).sum();
        }
    }
    g
}

fn random_weights(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed ^ 0xABCD);
    (0..n).map(|_| 0.1 + 3.0 * rng.next_f64()).collect()
}

fn random_labels(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut rng = Rng::new(seed ^ 0x1234);
    let mut labels: Vec<usize> = (0..n).map(|_| rng.below(k).unwrap()).collect();
    for (c, label) in labels.iter_mut().take(k).enumerate() {
        *label = c;
    }
    labels
}

/// `Q = Σ_j Q_j / s_j`, `Q_j = Σ_{a,b ∈ C_j} w_a w_b G_ab`, by direct summation.
fn objective(g: &[f64], n: usize, labels: &[usize], w: &[f64]) -> f64 {
    let k = labels.iter().max().map_or(0, |m| m + 1);
    let mut q = vec![0.0; k];
    let mut s = vec![0.0; k];
    for a in 0..n {
        s[labels[a]] += w[a];
        for b in 0..n {
            if labels[a] == labels[b] {
                q[labels[a]] += w[a] * w[b] * g[a * n + b];
            }
        }
    }
    q.iter()
        .zip(&s)
        .filter(|(_, s)| **s > 0.0)
        .map(|(q, s)| q / s)
        .sum()
}

fn trace(g: &[f64], n: usize, w: &[f64]) -> f64 {
    (0..n).map(|i| w[i] * g[i * n + i]).sum()
}

/// max Q over all partitions into exactly k non-empty clusters (point 0 in cluster 0).
fn brute_force_optimum(g: &[f64], n: usize, k: usize, w: &[f64]) -> f64 {
    let mut best = f64::NEG_INFINITY;
    let mut labels = vec![0usize; n];
    let total = k.pow((n - 1) as u32);
    for code in 0..total {
        let mut c = code;
        for label in labels.iter_mut().skip(1) {
            *label = c % k;
            c /= k;
        }
        let mut used = vec![false; k];
        labels.iter().for_each(|&l| used[l] = true);
        if used.iter().all(|&u| u) {
            best = best.max(objective(g, n, &labels, w));
        }
    }
    best
}

/// The largest change of Q from moving one point to another cluster without emptying one.
fn best_single_move_gain(g: &[f64], n: usize, k: usize, labels: &[usize], w: &[f64]) -> f64 {
    let base = objective(g, n, labels, w);
    let mut counts = vec![0usize; k];
    labels.iter().for_each(|&l| counts[l] += 1);
    let mut best = f64::NEG_INFINITY;
    let mut moved = labels.to_vec();
    for i in 0..n {
        if counts[labels[i]] == 1 {
            continue;
        }
        for target in (0..k).filter(|&t| t != labels[i]) {
            moved[i] = target;
            best = best.max(objective(g, n, &moved, w) - base);
        }
        moved[i] = labels[i];
    }
    best
}

fn options<'a>(algorithm: Algorithm, init: Init<'a>, weights: Option<&'a [f64]>) -> Options<'a> {
    Options {
        algorithm,
        init,
        weights,
        ..Options::default()
    }
}

fn assert_valid(labels: &[usize], n: usize, k: usize) {
    assert_eq!(labels.len(), n);
    let mut counts = vec![0usize; k];
    for &l in labels {
        assert!(l < k, "label {l} out of range (k = {k})");
        counts[l] += 1;
    }
    assert!(counts.iter().all(|&c| c > 0), "empty cluster: {labels:?}");
}

fn assert_monotone(history: &[f64]) {
    let scale = history.iter().fold(1.0f64, |m, q| m.max(q.abs()));
    for pair in history.windows(2) {
        assert!(
            pair[1] >= pair[0] - 1e-12 * scale,
            "Q decreased: {history:?}"
        );
    }
}

fn close(a: f64, b: f64, rel: f64, abs: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()) + abs
}

// ------------------------------------------------------------------ optimality, brute force

#[test]
fn best_of_20_starts_reaches_the_brute_force_optimum() {
    let mut checked = 0;
    for n in 3..=8 {
        for k in 2..=3usize.min(n) {
            for seed in 0..6u64 {
                for weighted in [false, true] {
                    let g = random_psd(n, n, 100 * n as u64 + 10 * k as u64 + seed);
                    let w = if weighted {
                        random_weights(n, seed)
                    } else {
                        vec![1.0; n]
                    };
                    let kernel = DenseKernel::new(&g, n).unwrap();
                    let opts = Options {
                        n_init: 20,
                        seed,
                        weights: weighted.then_some(w.as_slice()),
                        ..Options::default()
                    };
                    let result = kernel_kgroups(&kernel, k, opts, &Control::new()).unwrap();
                    let best = brute_force_optimum(&g, n, k, &w);
                    assert_valid(&result.labels, n, k);
                    assert!(
                        close(result.objective, best, 1e-9, 0.0),
                        "n = {n}, k = {k}, seed = {seed}, weighted = {weighted}: \
                         Q = {} but the optimum is {best}",
                        result.objective
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100);
}

#[test]
fn every_hartigan_start_is_a_local_optimum() {
    for n in [4usize, 6, 9] {
        for k in [2usize, 3] {
            for seed in 0..8u64 {
                let g = random_psd(n, n, 7 * seed + n as u64);
                let w = random_weights(n, seed);
                let kernel = DenseKernel::new(&g, n).unwrap();
                for init in [Init::KMeansPlusPlus, Init::Random] {
                    let opts = Options {
                        init,
                        seed,
                        weights: Some(&w),
                        ..Options::default()
                    };
                    let r = fit(&kernel, k, &opts, &Control::new()).unwrap();
                    assert!(r.converged);
                    let gain = best_single_move_gain(&g, n, k, &r.labels, &w);
                    assert!(
                        gain <= 1e-9 * r.objective.abs(),
                        "gain {gain} at {:?}",
                        r.labels
                    );
                }
            }
        }
    }
}

// --------------------------------------------------------------------------- monotonicity

#[test]
fn stopping_after_m_sweeps_gives_the_history_prefix() {
    let n = 100;
    let k = 6;
    let g = random_psd(n, 5, 77);
    let w = random_weights(n, 77);
    let init = random_labels(n, k, 3);
    let kernel = DenseKernel::new(&g, n).unwrap();
    for algorithm in ALGORITHMS {
        let base = Options {
            algorithm,
            init: Init::Labels(&init),
            weights: Some(&w),
            ..Options::default()
        };
        let full = fit(&kernel, k, &base, &Control::new()).unwrap();
        assert!(
            full.converged && full.n_iter >= 3,
            "{algorithm:?}: {}",
            full.n_iter
        );
        assert_monotone(&full.objective_history);
        let mut previous = full.objective_history[0];
        for m in 1..=full.n_iter + 1 {
            let partial = fit(
                &kernel,
                k,
                &Options {
                    max_iter: m,
                    ..base
                },
                &Control::new(),
            )
            .unwrap();
            assert_eq!(partial.n_iter, m.min(full.n_iter));
            assert_eq!(partial.converged, m >= full.n_iter);
            assert_eq!(
                partial.objective_history[..],
                full.objective_history[..=partial.n_iter]
            );
            assert!(partial.objective >= previous - 1e-12 * previous.abs());
            previous = partial.objective;
        }
    }
}

/// A symmetric matrix with entries uniform in [−1, 1): indefinite, on which Lloyd's method
/// often cycles.
fn random_indefinite(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        for b in a..n {
            let v = 2.0 * rng.next_f64() - 1.0;
            g[a * n + b] = v;
            g[b * n + a] = v;
        }
    }
    g
}

/// On indefinite kernels a Lloyd run with an unbounded `max_iter` ends: converged, or on a
/// cycle whose partition really repeats (a run stopped `cycle_length` sweeps earlier has the
/// same labels and no cycle yet); the objective history up to the stop is that of a run with
/// the same `max_iter`. Hartigan's method never cycles, and neither does Lloyd on a PSD
/// kernel here. Some runs must cycle, in both variants, or the test shows nothing.
#[test]
fn a_cycling_lloyd_run_stops_on_a_partition_that_repeats() {
    let mut cycled = [0usize; 3];
    for seed in 0..60u64 {
        let n = 6 + (seed as usize * 7) % 30;
        let k = 2 + (seed as usize) % 3;
        let g = random_indefinite(n, seed);
        let w = random_weights(n, seed);
        let init = random_labels(n, k, seed);
        let kernel = DenseKernel::new(&g, n).unwrap();
        for (a, algorithm) in ALGORITHMS.into_iter().enumerate() {
            let base = Options {
                algorithm,
                init: Init::Labels(&init),
                weights: (seed % 2 == 0).then_some(&w[..]),
                max_iter: usize::MAX,
                ..Options::default()
            };
            let result = fit(&kernel, k, &base, &Control::new()).unwrap();
            let Some(length) = result.cycle_length else {
                assert!(result.converged, "seed {seed} {algorithm:?}");
                continue;
            };
            cycled[a] += 1;
            // The first repeat may be of the start itself (sweep 0).
            assert!(!result.converged && length >= 1 && length <= result.n_iter);
            let stop_at = |max_iter: usize| {
                fit(&kernel, k, &Options { max_iter, ..base }, &Control::new()).unwrap()
            };
            if result.n_iter == length {
                assert_eq!(init, result.labels, "seed {seed} {algorithm:?}");
            } else {
                let earlier = stop_at(result.n_iter - length);
                assert_eq!(earlier.labels, result.labels, "seed {seed} {algorithm:?}");
                assert_eq!(earlier.cycle_length, None);
            }
            let same = stop_at(result.n_iter);
            assert_eq!(same.labels, result.labels);
            assert_eq!(same.objective_history, result.objective_history);
        }
        let psd = random_psd(n, 3, seed);
        let kernel = DenseKernel::new(&psd, n).unwrap();
        for algorithm in ALGORITHMS {
            let opts = options(algorithm, Init::Labels(&init), Some(&w));
            let result = fit(&kernel, k, &opts, &Control::new()).unwrap();
            assert!(result.converged && result.cycle_length.is_none());
        }
    }
    assert_eq!(cycled[0], 0, "Hartigan's method cycled");
    assert!(cycled[1] > 10 && cycled[2] > 10, "{cycled:?}");
}

// ------------------------------------------------------------------------ reproducibility

#[test]
fn same_seed_same_result_under_pools_of_one_and_two_threads() {
    let n = 250;
    let g = random_psd(n, 8, 5);
    let w = random_weights(n, 5);
    let kernel = DenseKernel::new(&g, n).unwrap();
    for algorithm in ALGORITHMS {
        for init in [Init::KMeansPlusPlus, Init::Random] {
            for n_init in [1, 4] {
                let opts = Options {
                    algorithm,
                    init,
                    weights: Some(&w),
                    n_init,
                    seed: 99,
                    ..Options::default()
                };
                let results: Vec<Clustering> = [1, 2, 3]
                    .iter()
                    .map(|&t| {
                        rayon::ThreadPoolBuilder::new()
                            .num_threads(t)
                            .build()
                            .unwrap()
                            .install(|| fit(&kernel, 7, &opts, &Control::new()).unwrap())
                    })
                    .collect();
                let outside = fit(&kernel, 7, &opts, &Control::new()).unwrap();
                for r in results.iter().skip(1).chain([&outside]) {
                    assert_eq!(r, &results[0], "{algorithm:?} {init:?} n_init = {n_init}");
                }
            }
        }
    }
}

#[test]
fn best_start_is_the_start_with_the_largest_objective() {
    let n = 120;
    let g = random_psd(n, 6, 8);
    let kernel = DenseKernel::new(&g, n).unwrap();
    for algorithm in ALGORITHMS {
        let finals = Mutex::new(vec![(0usize, f64::NAN); 6]);
        let record = |p: &Progress| {
            let mut finals = finals.lock().unwrap();
            if p.sweep > finals[p.start].0 {
                finals[p.start] = (p.sweep, p.objective);
            }
        };
        let control = Control::new().with_progress(&record);
        let opts = Options {
            algorithm,
            init: Init::Random,
            n_init: 6,
            seed: 1,
            ..Options::default()
        };
        let r = fit(&kernel, 5, &opts, &control).unwrap();
        let finals = finals.into_inner().unwrap();
        let best = finals.iter().map(|f| f.1).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(r.objective, best);
        assert!(r.best_start < 6);
        assert_eq!(finals[r.best_start].1, r.objective);
        // Ties go to the first start.
        assert!(finals[..r.best_start].iter().all(|f| f.1 < r.objective));
    }
}

#[test]
fn f32_kernel_equals_its_exact_f64_widening() {
    let n = 60;
    let g64 = random_psd(n, 6, 9);
    let g32: Vec<f32> = g64.iter().map(|&v| v as f32).collect();
    let widened: Vec<f64> = g32.iter().map(|&v| v as f64).collect();
    let k32 = DenseKernel::new(&g32, n).unwrap();
    let k64 = DenseKernel::new(&widened, n).unwrap();
    for algorithm in ALGORITHMS {
        let opts = Options {
            algorithm,
            n_init: 3,
            seed: 4,
            ..Options::default()
        };
        let a = fit(&k32, 4, &opts, &Control::new()).unwrap();
        let b = fit(&k64, 4, &opts, &Control::new()).unwrap();
        assert_eq!(a, b);
    }
}

#[test]
fn kernel_kgroups_and_kernel_kmeans_are_fit_with_the_algorithm_set() {
    let n = 50;
    let g = random_psd(n, 4, 10);
    let kernel = DenseKernel::new(&g, n).unwrap();
    let opts = Options {
        seed: 3,
        n_init: 2,
        algorithm: Algorithm::LloydOnline, // overridden below
        ..Options::default()
    };
    let c = Control::new();
    let hartigan = kernel_kgroups(&kernel, 3, opts, &c).unwrap();
    let expected = fit(
        &kernel,
        3,
        &Options {
            algorithm: Algorithm::Hartigan,
            ..opts
        },
        &c,
    )
    .unwrap();
    assert_eq!(hartigan, expected);
    let lloyd = kernel_kmeans(&kernel, 3, opts, &c).unwrap();
    let expected = fit(
        &kernel,
        3,
        &Options {
            algorithm: Algorithm::Lloyd,
            ..opts
        },
        &c,
    )
    .unwrap();
    assert_eq!(lloyd, expected);
}

#[test]
fn only_the_ratios_of_the_weights_matter() {
    // Multiplying every weight by 2^m is exact in floating point and leaves every decision
    // of every algorithm unchanged (dQ is homogeneous of degree 1 in w, the Lloyd costs of
    // degree 0), so the runs must be identical with Q scaled by 2^m. Counts or population
    // totals as weights easily reach 1e10.
    let n = 70;
    let g = random_psd(n, 6, 28);
    let w = random_weights(n, 28);
    let kernel = DenseKernel::new(&g, n).unwrap();
    for algorithm in ALGORITHMS {
        let base_opts = Options {
            algorithm,
            init: Init::Random,
            weights: Some(&w),
            seed: 6,
            ..Options::default()
        };
        let base = fit(&kernel, 4, &base_opts, &Control::new()).unwrap();
        for m in [-40i32, -3, 5, 20, 34, 40, 60] {
            let c = 2f64.powi(m);
            let scaled_w: Vec<f64> = w.iter().map(|v| v * c).collect();
            let scaled = fit(
                &kernel,
                4,
                &Options {
                    weights: Some(&scaled_w),
                    ..base_opts
                },
                &Control::new(),
            )
            .unwrap();
            assert_eq!(
                (scaled.n_moves, &scaled.labels),
                (base.n_moves, &base.labels),
                "{algorithm:?}, weights x 2^{m}"
            );
            assert_eq!(
                scaled.objective,
                c * base.objective,
                "{algorithm:?}, weights x 2^{m}"
            );
        }
    }
}

// ------------------------------------------------------------------------- special cases

#[test]
fn k_one_and_k_n() {
    let n = 11;
    let g = random_psd(n, n, 11);
    let w = random_weights(n, 11);
    let kernel = DenseKernel::new(&g, n).unwrap();
    let weights = w.as_slice();
    for algorithm in ALGORITHMS {
        let one = fit(
            &kernel,
            1,
            &options(algorithm, Init::KMeansPlusPlus, None),
            &Control::new(),
        )
        .unwrap();
        assert_eq!(one.labels, vec![0; n]);
        let sum: f64 = g.iter().sum();
        assert!(close(one.objective, sum / n as f64, 1e-12, 0.0));
        for init in [Init::KMeansPlusPlus, Init::Random] {
            let all = fit(
                &kernel,
                n,
                &options(algorithm, init, Some(weights)),
                &Control::new(),
            )
            .unwrap();
            let mut sorted = all.labels.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>());
            assert!(close(all.objective, trace(&g, n, &w), 1e-12, 0.0));
            assert!(all.within.abs() <= 1e-10 * trace(&g, n, &w));
            assert_eq!(all.n_moves, 0);
        }
    }
}

// -------------------------------------------------------------------------- cancellation

#[test]
fn a_set_cancel_flag_interrupts_every_algorithm() {
    let n = 40;
    let g = random_psd(n, 4, 12);
    let kernel = DenseKernel::new(&g, n).unwrap();
    let flag = AtomicBool::new(true);
    let control = Control::new().with_cancel(&flag);
    for algorithm in ALGORITHMS {
        for n_init in [1, 5] {
            let opts = Options {
                algorithm,
                n_init,
                ..Options::default()
            };
            assert_eq!(
                fit(&kernel, 3, &opts, &control),
                Err(KGroupsError::Interrupted)
            );
        }
    }
    // Cleared, the same control runs to the end.
    flag.store(false, Ordering::Relaxed);
    assert!(fit(&kernel, 3, &Options::default(), &control).is_ok());
}

#[test]
fn cancelling_from_the_progress_callback_stops_the_run() {
    let n = 200;
    let g = random_psd(n, 5, 13);
    let kernel = DenseKernel::new(&g, n).unwrap();
    for algorithm in ALGORITHMS {
        let flag = AtomicBool::new(false);
        let calls = AtomicUsize::new(0);
        let stop = |_: &Progress| {
            calls.fetch_add(1, Ordering::Relaxed);
            flag.store(true, Ordering::Relaxed);
        };
        let control = Control::new().with_cancel(&flag).with_progress(&stop);
        let opts = Options {
            algorithm,
            init: Init::Random,
            n_init: 1,
            ..Options::default()
        };
        assert_eq!(
            fit(&kernel, 8, &opts, &control),
            Err(KGroupsError::Interrupted)
        );
        assert_eq!(calls.load(Ordering::Relaxed), 1, "{algorithm:?}");
    }
}

#[test]
fn progress_reports_every_sweep_of_one_start() {
    let n = 150;
    let g = random_psd(n, 5, 14);
    let kernel = DenseKernel::new(&g, n).unwrap();
    for algorithm in ALGORITHMS {
        let events = Mutex::new(Vec::new());
        let record = |p: &Progress| events.lock().unwrap().push(*p);
        let control = Control::new().with_progress(&record);
        let opts = Options {
            algorithm,
            init: Init::Random,
            seed: 2,
            ..Options::default()
        };
        let r = fit(&kernel, 5, &opts, &control).unwrap();
        let events = events.into_inner().unwrap();
        assert_eq!(events.len(), r.n_iter);
        for (i, e) in events.iter().enumerate() {
            assert_eq!((e.start, e.sweep), (0, i + 1));
            assert_eq!(e.objective, r.objective_history[i + 1]);
        }
        assert_eq!(
            events.iter().map(|e| e.moves_in_sweep).sum::<usize>(),
            r.n_moves
        );
        assert_eq!(events.last().unwrap().moves_in_sweep, 0);
    }
}

// -------------------------------------------------------------------------------- errors

fn invalid_argument<T: std::fmt::Debug>(result: Result<T, KGroupsError>) -> &'static str {
    match result {
        Err(KGroupsError::InvalidInput { argument, message }) => {
            assert!(!message.is_empty());
            argument
        }
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn every_bad_input_is_invalid_input_naming_the_argument() {
    let n = 6;
    let g = random_psd(n, n, 15);
    let kernel = DenseKernel::new(&g, n).unwrap();
    let c = Control::new();
    let run = |k: usize, opts: Options| fit(&kernel, k, &opts, &c);
    let d = Options::default;

    assert_eq!(invalid_argument(run(0, d())), "k");
    assert_eq!(invalid_argument(run(n + 1, d())), "k");
    assert_eq!(invalid_argument(run(usize::MAX, d())), "k");
    for algorithm in ALGORITHMS {
        assert_eq!(invalid_argument(run(0, Options { algorithm, ..d() })), "k");
    }

    let short = [0usize, 1, 0, 1, 0];
    let long = [0usize, 1, 0, 1, 0, 1, 0];
    let out_of_range = [0usize, 1, 2, 1, 0, 1];
    let empty_cluster = [0usize, 0, 2, 2, 0, 2];
    let huge = [0usize, 1, usize::MAX, 1, 0, 1];
    for labels in [
        &short[..],
        &long[..],
        &out_of_range[..],
        &empty_cluster[..],
        &huge[..],
    ] {
        let opts = Options {
            init: Init::Labels(labels),
            ..d()
        };
        assert_eq!(
            invalid_argument(run(if labels == empty_cluster { 3 } else { 2 }, opts)),
            "init"
        );
    }
    let good = [0usize, 1, 0, 1, 0, 1];
    assert_eq!(
        invalid_argument(run(
            2,
            Options {
                init: Init::Labels(&good),
                n_init: 2,
                ..d()
            }
        )),
        "n_init"
    );
    assert!(run(
        2,
        Options {
            init: Init::Labels(&good),
            ..d()
        }
    )
    .is_ok());
    assert_eq!(
        invalid_argument(run(2, Options { n_init: 0, ..d() })),
        "n_init"
    );
    assert_eq!(
        invalid_argument(run(2, Options { max_iter: 0, ..d() })),
        "max_iter"
    );

    let bad_weights: Vec<Vec<f64>> = vec![
        vec![1.0; n - 1],
        vec![1.0; n + 1],
        vec![],
        vec![1.0, 1.0, f64::NAN, 1.0, 1.0, 1.0],
        vec![1.0, 1.0, f64::INFINITY, 1.0, 1.0, 1.0],
        vec![1.0, 0.0, 1.0, 1.0, 1.0, 1.0],
        vec![1.0, 1.0, 1.0, 1.0, 1.0, -0.5],
        vec![-0.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    ];
    for w in &bad_weights {
        for algorithm in ALGORITHMS {
            let opts = Options {
                weights: Some(w),
                algorithm,
                ..d()
            };
            assert_eq!(invalid_argument(run(2, opts)), "weights", "{w:?}");
        }
    }

    for shift in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for algorithm in ALGORITHMS {
            let opts = Options {
                shift,
                algorithm,
                ..d()
            };
            assert_eq!(invalid_argument(run(2, opts)), "shift", "{shift}");
        }
    }
    // Beyond the range of f64 once divided by the weights' scale (2^-499), but not at the
    // caller's: the figures are finite, and Lloyd's costs take the shift as the limit it
    // is (no point leaves its cluster). Two groups on a line, a start that mixes them.
    let x = [0.0, 0.1, 0.2, 5.0, 5.1, 5.2];
    let line: Vec<f64> = x
        .iter()
        .flat_map(|a| x.iter().map(move |b| a * b))
        .collect();
    let line = DenseKernel::new(&line, n).unwrap();
    let tiny = vec![1e-150; n];
    let start = [0usize, 1, 0, 1, 0, 1];
    for algorithm in ALGORITHMS {
        let opts = Options {
            shift: 1e300,
            ..options(algorithm, Init::Labels(&start), Some(&tiny))
        };
        let r = fit(&line, 2, &opts, &c).unwrap();
        assert!(
            r.objective.is_finite() && r.within.is_finite(),
            "{algorithm:?}"
        );
        let unshifted = fit(&line, 2, &Options { shift: 0.0, ..opts }, &c).unwrap();
        assert!(
            unshifted.n_moves > 0,
            "{algorithm:?} moves without the shift"
        );
        if algorithm != Algorithm::Hartigan {
            assert_eq!((r.n_moves, &r.labels[..]), (0, &start[..]), "{algorithm:?}");
        }
    }
    // Finite, but W gains (n − k)·shift, beyond the range of f64.
    for algorithm in ALGORITHMS {
        let opts = Options {
            shift: 1e308,
            algorithm,
            ..d()
        };
        assert_eq!(invalid_argument(run(2, opts)), "shift");
    }
}

#[test]
fn bad_kernel_matrices_are_invalid_g() {
    let n = 5;
    let g = random_psd(n, n, 16);
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut h = g.clone();
        h[n + 3] = bad;
        h[3 * n + 1] = bad;
        assert_eq!(invalid_argument(DenseKernel::new(&h, n)), "G");
        let mut h = g.clone();
        h[4 * n + 4] = bad;
        assert_eq!(invalid_argument(DenseKernel::new(&h, n)), "G");
    }
    let mut asymmetric = g.clone();
    asymmetric[2 * n + 4] += 0.25;
    match DenseKernel::new(&asymmetric, n) {
        Err(KGroupsError::InvalidInput { argument, message }) => {
            assert_eq!(argument, "G");
            assert!(message.contains("symmetric"), "{message}");
        }
        other => panic!("expected InvalidInput, got {other:?}"),
    }
    let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
    let mut asym32 = g32.clone();
    asym32[n] *= 1.01;
    assert_eq!(invalid_argument(DenseKernel::new(&asym32, n)), "G");
    assert_eq!(invalid_argument(DenseKernel::new(&g[..n * n - 1], n)), "G");
    assert_eq!(invalid_argument(DenseKernel::new(&g, n - 1)), "G");
    assert_eq!(invalid_argument(DenseKernel::<f64>::new(&[], 0)), "G");
    // Entries so large that the cluster sums overflow are refused, not turned into NaN labels.
    let huge = vec![f64::MAX / 2.0; 9];
    let kernel = DenseKernel::new(&huge, 3).unwrap();
    for algorithm in ALGORITHMS {
        let result = fit(
            &kernel,
            1,
            &options(algorithm, Init::KMeansPlusPlus, None),
            &Control::new(),
        );
        assert_eq!(invalid_argument(result), "G");
    }
}

#[test]
fn errors_display_the_argument() {
    let err = fit(
        &DenseKernel::new(&[1.0], 1).unwrap(),
        2,
        &Options::default(),
        &Control::new(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("`k`"), "{err}");
}

// ------------------------------------------------------------------------ property tests

#[derive(Debug, Clone)]
struct Problem {
    n: usize,
    k: usize,
    g: Vec<f64>,
    w: Option<Vec<f64>>,
    seed: u64,
}

fn problems(max_n: usize) -> impl Strategy<Value = Problem> {
    (2..=max_n)
        .prop_flat_map(|n| (Just(n), 1..=n.min(5), 1..=n, any::<u64>(), any::<bool>()))
        .prop_map(|(n, k, rank, seed, weighted)| Problem {
            n,
            k,
            g: random_psd(n, rank, seed),
            w: weighted.then(|| random_weights(n, seed)),
            seed,
        })
}

fn algorithms() -> impl Strategy<Value = Algorithm> {
    prop_oneof![
        Just(Algorithm::Hartigan),
        Just(Algorithm::Lloyd),
        Just(Algorithm::LloydOnline),
    ]
}

fn inits() -> impl Strategy<Value = Init<'static>> {
    prop_oneof![Just(Init::KMeansPlusPlus), Just(Init::Random)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn prop_result_is_consistent(
        p in problems(30), algorithm in algorithms(), init in inits(), n_init in 1usize..4
    ) {
        let kernel = DenseKernel::new(&p.g, p.n).unwrap();
        let opts = Options { algorithm, init, weights: p.w.as_deref(), n_init, seed: p.seed, ..Options::default() };
        let r = fit(&kernel, p.k, &opts, &Control::new()).unwrap();
        assert_valid(&r.labels, p.n, p.k);
        let w = p.w.clone().unwrap_or_else(|| vec![1.0; p.n]);
        let tr = trace(&p.g, p.n, &w);
        let scale = (0..p.n).map(|i| w[i] * p.g[i * p.n + i].abs()).sum::<f64>();
        prop_assert!(close(r.objective, objective(&p.g, p.n, &r.labels, &w), 1e-9, 1e-12 * scale));
        prop_assert!(close(r.within, tr - r.objective, 0.0, 1e-12 * scale));
        prop_assert!(r.within >= -1e-9 * scale);
        prop_assert_eq!(r.objective_history.len(), r.n_iter + 1);
        prop_assert_eq!(*r.objective_history.last().unwrap(), r.objective);
        prop_assert!(r.best_start < n_init);
        assert_monotone(&r.objective_history);
    }

    #[test]
    fn prop_hartigan_is_a_local_optimum(p in problems(10), init in inits()) {
        let kernel = DenseKernel::new(&p.g, p.n).unwrap();
        let opts = Options { init, weights: p.w.as_deref(), seed: p.seed, ..Options::default() };
        let r = kernel_kgroups(&kernel, p.k, opts, &Control::new()).unwrap();
        prop_assert!(r.converged);
        if p.k > 1 {
            let w = p.w.clone().unwrap_or_else(|| vec![1.0; p.n]);
            let scale = r.objective.abs() + (0..p.n).map(|i| w[i] * w[i] * p.g[i * p.n + i].abs()).sum::<f64>();
            let gain = best_single_move_gain(&p.g, p.n, p.k, &r.labels, &w);
            prop_assert!(gain <= 1e-9 * scale, "gain {} at {:?}", gain, r.labels);
        }
    }

    #[test]
    fn prop_hartigan_from_lloyd_never_loses(p in problems(30), batch in any::<bool>()) {
        let kernel = DenseKernel::new(&p.g, p.n).unwrap();
        let algorithm = if batch { Algorithm::Lloyd } else { Algorithm::LloydOnline };
        let base = Options { weights: p.w.as_deref(), seed: p.seed, ..Options::default() };
        let lloyd = fit(&kernel, p.k, &Options { algorithm, ..base }, &Control::new()).unwrap();
        let hartigan = kernel_kgroups(
            &kernel, p.k, Options { init: Init::Labels(&lloyd.labels), ..base }, &Control::new()
        ).unwrap();
        prop_assert!(hartigan.objective >= lloyd.objective - 1e-9 * lloyd.objective.abs().max(1.0));
    }
}

#[test]
fn an_absurd_n_init_is_invalid_input_not_an_allocation_failure() {
    // derive_seeds allocates n_init seeds (and fit one result slot per start) up front: an
    // n_init no machine can hold must be refused as `n_init`, not panic ("capacity overflow")
    // or abort the process (a failed allocation of 2^40 seeds kills the Python interpreter).
    let g = [1.0, 0.0, 0.0, 1.0];
    let kernel = DenseKernel::new(&g, 2).unwrap();
    let opts = Options {
        n_init: usize::MAX,
        ..Options::default()
    };
    let result = std::panic::catch_unwind(|| fit(&kernel, 2, &opts, &Control::new()));
    match result {
        Ok(r) => assert_eq!(invalid_argument(r), "n_init"),
        Err(_) => panic!("fit panicked on n_init = usize::MAX instead of returning InvalidInput"),
    }
}

// ------------------------------------------------------------------ renumbered sparse runs

/// A sparse symmetric matrix, row-major dense and as CSR: about `degree` random neighbours
/// per point (weights in [0.5, 2)), a diagonal entry on every third point, and the last
/// `isolated` points without entries.
fn sparse_symmetric(
    n: usize,
    degree: usize,
    isolated: usize,
    seed: u64,
) -> (Vec<f64>, Vec<usize>, Vec<usize>, Vec<f64>) {
    random_symmetric(
        (n, degree, isolated, seed),
        |rng| 0.5 + 1.5 * rng.next_f64(),
        |rng| 1.0 + rng.next_f64(),
    )
}

/// [`sparse_symmetric`] with the values of the edges and of the diagonal entries drawn by
/// `edge` and `diagonal`.
fn random_symmetric(
    (n, degree, isolated, seed): (usize, usize, usize, u64),
    mut edge: impl FnMut(&mut Rng) -> f64,
    mut diagonal: impl FnMut(&mut Rng) -> f64,
) -> (Vec<f64>, Vec<usize>, Vec<usize>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let connected = n - isolated;
    let mut g = vec![0.0; n * n];
    for a in 0..connected {
        for _ in 0..degree.div_ceil(2) {
            let b = rng.below(connected).unwrap();
            let v = edge(&mut rng);
            g[a * n + b] = v;
            g[b * n + a] = v;
        }
        if a % 3 == 0 {
            g[a * n + a] = diagonal(&mut rng);
        }
    }
    let (mut indptr, mut indices, mut data) = (vec![0usize], vec![], vec![]);
    for row in g.chunks(n) {
        for (b, &v) in row.iter().enumerate().filter(|(_, v)| **v != 0.0) {
            indices.push(b);
            data.push(v);
        }
        indptr.push(indices.len());
    }
    (g, indptr, indices, data)
}

#[test]
fn a_renumbered_hartigan_run_ends_at_a_local_optimum_of_the_callers_kernel() {
    use kgroups::kernel::csr::reorder::{self, Reorder};
    use kgroups::CsrKernel;
    for (n, degree, isolated) in [(7usize, 2usize, 3usize), (40, 3, 0), (60, 4, 5), (90, 6, 0)] {
        let (g, indptr, indices, data) = sparse_symmetric(n, degree, isolated, n as u64);
        let kernel = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
        let w = random_weights(n, n as u64);
        let start = random_labels(n, 3, 5);
        for (init, weights) in [
            (Init::Random, None),
            (Init::KMeansPlusPlus, Some(&w[..])),
            (Init::Labels(&start), Some(&w[..])),
        ] {
            let opts = Options {
                init,
                weights,
                seed: 5,
                ..Options::default()
            };
            let r = reorder::fit(&kernel, 3, &opts, Reorder::Always, &Control::new()).unwrap();
            let w = weights.map_or(vec![1.0; n], <[f64]>::to_vec);
            let q = objective(&g, n, &r.labels, &w);
            assert!(
                close(r.objective, q, 1e-12, 1e-12),
                "{} vs {q}",
                r.objective
            );
            assert!(close(r.within, trace(&g, n, &w) - q, 1e-12, 1e-12));
            assert!(r.converged);
            let gain = best_single_move_gain(&g, n, 3, &r.labels, &w);
            assert!(gain <= 1e-9 * q.abs().max(1.0), "gain {gain} on n = {n}");
            if let Init::Labels(start) = init {
                // The history starts at the objective of the caller's labels.
                assert!(close(
                    r.objective_history[0],
                    objective(&g, n, start, &w),
                    1e-12,
                    1e-12
                ));
            }
        }
    }
}

/// A sparse kernel's cluster sums (accumulated point-major, the layout its fits keep, then
/// transposed) are the direct sums Σ_{b ∈ C_l} w_b G_ab, for one-, two- and eight-byte label
/// storage (k ≤ 256, ≤ 65 536, above), unit and unequal weights.
#[test]
fn sparse_cluster_sums_are_the_direct_sums() {
    use kgroups::{kernel::cluster_sums, CsrKernel};
    let n = 80;
    let (g, indptr, indices, data) = sparse_symmetric(n, 5, 4, 17);
    let kernel = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
    for k in [2usize, 7, 300, 70_000] {
        let labels: Vec<usize> = (0..n).map(|i| (i * 7919 + i / 3) % k).collect();
        for w in [vec![1.0; n], random_weights(n, 3)] {
            let sums = cluster_sums(&kernel, &labels, &w, k, &Control::new()).unwrap();
            for a in 0..n {
                let mut direct = vec![0.0; k];
                for b in 0..n {
                    direct[labels[b]] += w[b] * g[a * n + b];
                }
                for (l, &d) in direct.iter().enumerate() {
                    assert!(close(sums[l * n + a], d, 1e-13, 1e-13), "k {k} a {a} l {l}");
                }
            }
        }
    }
}

/// Hartigan on a sparse kernel (point-major sums, cached per-cluster factors) and on the same
/// matrix stored dense (cluster-major sums) ends at the same labels and objective, with
/// unequal weights, from the same starts.
#[test]
fn sparse_and_dense_hartigan_agree_with_unequal_weights() {
    use kgroups::CsrKernel;
    for (n, k, seed) in [(60usize, 3usize, 1u64), (90, 5, 2), (120, 2, 3)] {
        let (g, indptr, indices, data) = sparse_symmetric(n, 6, 0, seed);
        let sparse = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
        let dense = DenseKernel::new(&g, n).unwrap();
        let w = random_weights(n, seed);
        let start = random_labels(n, k, seed);
        let opts = options(Algorithm::Hartigan, Init::Labels(&start), Some(&w));
        let a = fit(&sparse, k, &opts, &Control::new()).unwrap();
        let b = fit(&dense, k, &opts, &Control::new()).unwrap();
        assert_eq!(a.labels, b.labels, "n {n} k {k}");
        assert!(close(a.objective, b.objective, 1e-12, 1e-12));
        assert!(close(
            a.objective,
            objective(&g, n, &a.labels, &w),
            1e-12,
            1e-12
        ));
        assert_eq!(a.n_moves, b.n_moves);
    }
}

/// A kernel of the caller's own, the same entries as `K`: a fit reads it row by row and keeps
/// its sums as f64 (the reference for the compact integer sums of a sparse kernel).
struct AsUserKernel<'a, K>(&'a K);

impl<K: kgroups::Kernel> kgroups::Kernel for AsUserKernel<'_, K> {
    fn n(&self) -> usize {
        self.0.n()
    }
    fn diagonal(&self, i: usize) -> f64 {
        self.0.diagonal(i)
    }
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, visit: F) {
        self.0.for_each_in_row(i, visit)
    }
}

/// A random symmetric integer graph in CSR (see [`random_symmetric`]): each value drawn from
/// `-top..=top` without 0 (negative entries too: the sums then cancel).
fn integer_graph(
    n: usize,
    degree: usize,
    top: i64,
    seed: u64,
) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let value = |rng: &mut Rng| {
        let v = 1 + rng.below(top as usize).unwrap() as i64;
        (if rng.below(4).unwrap() == 0 { -v } else { v }) as f64
    };
    let (_, indptr, indices, data) = random_symmetric((n, degree, 0, seed), value, value);
    (indptr, indices, data)
}

/// On graphs with integer entries a fit keeps the point-major sums as i8 or i16 (the largest
/// absolute row sum below 128 or 32 768) and otherwise as f64; either way every reported
/// number has the same bits as the fit that keeps f64 sums (the same entries as a kernel of
/// the caller's own), for every algorithm and start.
#[test]
fn integer_graphs_give_the_same_bits_with_compact_sums() {
    use kgroups::CsrKernel;
    // (n, degree, largest |entry|): row sums within i8, within i16, beyond i16.
    for (n, degree, top) in [(70usize, 6usize, 3i64), (90, 8, 900), (60, 10, 20_000)] {
        for seed in 0..3u64 {
            let (indptr, indices, data) = integer_graph(n, degree, top, seed);
            let kernel = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
            let reference = AsUserKernel(&kernel);
            let start = random_labels(n, 4, seed);
            for algorithm in ALGORITHMS {
                for init in [Init::Labels(&start), Init::Random, Init::KMeansPlusPlus] {
                    let opts = Options {
                        algorithm,
                        init,
                        seed,
                        ..Options::default()
                    };
                    let a = fit(&kernel, 4, &opts, &Control::new()).unwrap();
                    let b = fit(&reference, 4, &opts, &Control::new()).unwrap();
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(a.labels, b.labels, "n {n} top {top} seed {seed}");
                    assert_eq!(a.objective.to_bits(), b.objective.to_bits());
                    assert_eq!(a.within.to_bits(), b.within.to_bits());
                    assert_eq!(bits(&a.objective_history), bits(&b.objective_history));
                    assert_eq!(bits(&a.cluster_terms), bits(&b.cluster_terms));
                    assert_eq!((a.n_iter, a.n_moves), (b.n_iter, b.n_moves));
                }
            }
        }
    }
}

// ------------------------------------------------------------------------ diagonal shift

/// `G + shift·W⁻¹`, written out.
fn shifted(g: &[f64], n: usize, w: &[f64], shift: f64) -> Vec<f64> {
    let mut g = g.to_vec();
    for i in 0..n {
        g[i * n + i] += shift / w[i];
    }
    g
}

#[test]
fn a_shift_clusters_the_shifted_kernel() {
    // The option applies the shift in the formulas; the reference adds it to G's diagonal. Both
    // are the same search up to rounding, so moderate data give the same labels.
    let (n, k) = (24, 3);
    let mut moved = 0;
    for seed in 0..12u64 {
        let g = random_psd(n, 3, seed);
        let w = random_weights(n, seed);
        let start = random_labels(n, k, seed);
        for shift in [-0.05, 0.3, 2.5] {
            let explicit = shifted(&g, n, &w, shift);
            for algorithm in ALGORITHMS {
                let what = format!("seed {seed}, shift {shift}, {algorithm:?}");
                let run = |matrix: &[f64], shift: f64| {
                    let kernel = DenseKernel::new(matrix, n).unwrap();
                    let opts = Options {
                        shift,
                        ..options(algorithm, Init::Labels(&start), Some(&w))
                    };
                    fit(&kernel, k, &opts, &Control::new()).unwrap()
                };
                let by_option = run(&g, shift);
                let reference = run(&explicit, 0.0);
                assert_eq!(by_option.labels, reference.labels, "{what}");
                assert_eq!(by_option.n_iter, reference.n_iter, "{what}");
                assert_eq!(by_option.n_distinct_clusters, reference.n_distinct_clusters);
                moved += by_option.n_moves;
                let q = objective(&explicit, n, &by_option.labels, &w);
                assert!(
                    close(by_option.objective, q, 1e-12, 1e-12),
                    "{what}: Q {} vs {q}",
                    by_option.objective
                );
                let within = trace(&explicit, n, &w) - q;
                assert!(
                    close(by_option.within, within, 1e-10, 1e-10),
                    "{what}: W {} vs {within}",
                    by_option.within
                );
                for (a, b) in by_option.cluster_terms.iter().zip(&reference.cluster_terms) {
                    assert!(close(*a, *b, 1e-12, 1e-12), "{what}: Q_l {a} vs {b}");
                }
                for (a, b) in by_option
                    .objective_history
                    .iter()
                    .zip(&reference.objective_history)
                {
                    assert!(close(*a, *b, 1e-12, 1e-12), "{what}: history {a} vs {b}");
                }
            }
        }
    }
    assert!(moved > 100, "the starts should move points ({moved})");
}

#[test]
fn hartigan_moves_the_same_points_whatever_the_shift() {
    let (n, k) = (30, 4);
    for seed in 0..6u64 {
        let g = random_psd(n, 4, seed + 40);
        let w = random_weights(n, seed + 40);
        let kernel = DenseKernel::new(&g, n).unwrap();
        let opts = options(Algorithm::Hartigan, Init::Random, Some(&w));
        let opts = Options { seed, ..opts };
        let plain = fit(&kernel, k, &opts, &Control::new()).unwrap();
        let mut sizes = vec![0.0; k];
        for (&l, &wi) in plain.labels.iter().zip(&w) {
            sizes[l] += wi;
        }
        for shift in [-3.0, 0.25, 1e6, 1e300] {
            let r = fit(&kernel, k, &Options { shift, ..opts }, &Control::new()).unwrap();
            assert_eq!(r.labels, plain.labels);
            assert_eq!(r.n_moves, plain.n_moves);
            // Exactly the unshifted figures with the shift's parts added.
            let kshift = k as f64 * shift;
            assert_eq!(r.objective, plain.objective + kshift);
            assert_eq!(r.within, plain.within + (n - k) as f64 * shift);
            for (a, b) in r.objective_history.iter().zip(&plain.objective_history) {
                assert_eq!(*a, b + kshift);
            }
            let terms = r.cluster_terms.iter().zip(&plain.cluster_terms);
            for ((term, plain_term), s) in terms.zip(&sizes) {
                assert_eq!(*term, plain_term + shift * s);
            }
        }
    }
}

#[test]
fn a_shift_beside_huge_entries_is_not_lost_to_rounding() {
    // A graph with every edge weight 1e200 and the shift 1, k = n − 1. With the shift added
    // to the diagonal, the sums would hold 1 + 1e200 − 1e200 = 0 for a point whose
    // neighbour came and went, and report Q short of 1 per such cluster.
    let n = 12;
    let edges = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 11),
        (1, 3),
        (1, 6),
        (1, 7),
        (1, 8),
        (1, 9),
        (2, 7),
        (2, 8),
        (2, 11),
        (3, 5),
        (3, 7),
        (3, 8),
        (3, 10),
        (4, 5),
        (4, 6),
        (4, 7),
        (4, 8),
        (4, 10),
        (4, 11),
        (5, 6),
        (5, 8),
        (5, 9),
        (6, 7),
        (6, 9),
        (7, 8),
        (8, 10),
        (9, 11),
    ];
    let mut a = vec![0.0; n * n];
    for &(i, j) in &edges {
        a[i * n + j] = 1e200;
        a[j * n + i] = 1e200;
    }
    let kernel = DenseKernel::new(&a, n).unwrap();
    let ones = vec![1.0; n];
    let k = n - 1;
    for algorithm in ALGORITHMS {
        for seed in 0..40 {
            let opts = Options {
                shift: 1.0,
                seed,
                ..options(algorithm, Init::KMeansPlusPlus, None)
            };
            let r = fit(&kernel, k, &opts, &Control::new()).unwrap();
            // Σ_l (A(C_l, C_l) + |C_l|) / |C_l|, summed directly.
            let q = objective(&shifted(&a, n, &ones, 1.0), n, &r.labels, &ones);
            assert!(
                close(r.objective, q, 1e-12, 0.0),
                "{algorithm:?}, seed {seed}: Q {} vs {q}",
                r.objective
            );
        }
    }
}

#[test]
fn the_shift_separates_the_means_of_identical_points() {
    // Six identical points: under G every cluster has the same mean; under G + shift·I each
    // point has a direction of its own, so the means differ.
    let n = 6;
    let g = vec![2.0; n * n];
    let labels = [0usize, 1, 0, 1, 0, 1];
    for algorithm in ALGORITHMS {
        let run = |matrix: &[f64], shift: f64| {
            let kernel = DenseKernel::new(matrix, n).unwrap();
            let opts = Options {
                shift,
                ..options(algorithm, Init::Labels(&labels), None)
            };
            fit(&kernel, 2, &opts, &Control::new()).unwrap()
        };
        assert_eq!(run(&g, 0.0).n_distinct_clusters, 1);
        for shift in [0.5, 1e-3] {
            let explicit = shifted(&g, n, &[1.0; 6], shift);
            assert_eq!(run(&explicit, 0.0).n_distinct_clusters, 2);
            assert_eq!(
                run(&g, shift).n_distinct_clusters,
                2,
                "{algorithm:?} shift {shift}"
            );
        }
    }
}

#[test]
fn batch_lloyd_gives_an_emptied_cluster_its_nearest_member_of_the_shifted_kernel() {
    // 1-D points, linear kernel. Cluster 2 starts as {x0, x1, x8} (weights 3, 0.1, 3), whose
    // mean is near 4.9; all three are nearer cluster 0's or cluster 1's mean and leave, so
    // one must stay. Under G the nearest is x1 (squared distance 19.6 against 24.3 and
    // 25.7); the shift adds shift/w_i, 10 for x1 and 1/3 for x0, so x0 stays.
    let x = [0.0, 0.5, 1.0, 1.2, 1.4, 8.6, 8.8, 9.0, 10.0];
    let w = [3.0, 0.1, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0];
    let n = x.len();
    let g: Vec<f64> = x
        .iter()
        .flat_map(|a| x.iter().map(move |b| a * b))
        .collect();
    let start = [2usize, 2, 0, 0, 0, 1, 1, 1, 2];
    let run = |matrix: &[f64], shift: f64| {
        let kernel = DenseKernel::new(matrix, n).unwrap();
        let opts = Options {
            shift,
            ..options(Algorithm::Lloyd, Init::Labels(&start), Some(&w))
        };
        fit(&kernel, 3, &opts, &Control::new()).unwrap()
    };
    assert_eq!(run(&g, 0.0).labels[1], 2, "without the shift x1 stays");
    let by_option = run(&g, 1.0);
    let reference = run(&shifted(&g, n, &w, 1.0), 0.0);
    assert_eq!(by_option.labels, reference.labels);
    assert_eq!((by_option.labels[0], by_option.labels[1]), (2, 0));
}

/// A kernel of the caller's own: the linear kernel `G_ab = x_a · x_b + 1` of 2-D points,
/// computed row by row, never stored.
struct LinearOnTheFly<'a>(&'a [[f64; 2]]);

impl LinearOnTheFly<'_> {
    fn entry(&self, a: usize, b: usize) -> f64 {
        let (x, y) = (self.0[a], self.0[b]);
        x[0] * y[0] + x[1] * y[1] + 1.0
    }
}

impl kgroups::Kernel for LinearOnTheFly<'_> {
    fn n(&self) -> usize {
        self.0.len()
    }
    fn diagonal(&self, i: usize) -> f64 {
        self.entry(i, i)
    }
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut visit: F) {
        (0..self.0.len()).for_each(|y| visit(y, self.entry(i, y)));
    }
}

/// A kernel implemented by the caller (four methods) clusters as the `DenseKernel` holding
/// the same matrix: the same labels, moves and sweeps, and the same objective and history up
/// to rounding (the dense kind sums its first cluster sums in another order), for Hartigan
/// and both Lloyds, every start, unit and unequal weights; and its cluster sums and top
/// eigenpairs are the dense kind's.
#[test]
fn a_users_kernel_clusters_as_the_dense_kernel_of_its_matrix() {
    use kgroups::kernel::cluster_sums;
    use kgroups::spectral::top_eigenpairs;
    let n = 90;
    let mut rng = Rng::new(11);
    let centres = [[0.0, 0.0], [3.0, 0.5], [1.0, 4.0]];
    let points: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let c = centres[i % 3];
            [c[0] + rng.next_f64() * 2.0, c[1] + rng.next_f64() * 2.0]
        })
        .collect();
    let user = LinearOnTheFly(&points);
    let g: Vec<f64> = (0..n * n).map(|p| user.entry(p / n, p % n)).collect();
    let dense = DenseKernel::new(&g, n).unwrap();
    let w = random_weights(n, 4);
    let start = random_labels(n, 3, 4);
    for weights in [None, Some(&w[..])] {
        for algorithm in ALGORITHMS {
            for init in [
                Init::Labels(&start),
                Init::Random,
                Init::KMeansPlusPlus,
                Init::Spectral,
            ] {
                let opts = Options {
                    // One start: with several, starts that reach the same partition tie
                    // up to rounding, and which one is reported (its moves) may differ.
                    n_init: 1,
                    seed: 7,
                    ..options(algorithm, init, weights)
                };
                let a = fit(&user, 3, &opts, &Control::new()).unwrap();
                let b = fit(&dense, 3, &opts, &Control::new()).unwrap();
                let what = format!("{algorithm:?} {init:?} weighted {}", weights.is_some());
                assert_eq!(a.labels, b.labels, "{what}");
                assert_eq!((a.n_iter, a.n_moves), (b.n_iter, b.n_moves), "{what}");
                assert!(close(a.objective, b.objective, 1e-12, 1e-12), "{what}");
                assert!(close(a.within, b.within, 1e-12, 1e-12), "{what}");
                assert_eq!(a.objective_history.len(), b.objective_history.len());
                for (x, y) in a.objective_history.iter().zip(&b.objective_history) {
                    assert!(close(*x, *y, 1e-12, 1e-12), "{what}");
                }
            }
        }
        let ones = vec![1.0; n];
        let w = weights.unwrap_or(&ones);
        let a = cluster_sums(&user, &start, w, 3, &Control::new()).unwrap();
        let b = cluster_sums(&dense, &start, w, 3, &Control::new()).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert!(close(*x, *y, 1e-13, 1e-13));
        }
        let a = top_eigenpairs(&user, weights, 3, 1, &Control::new()).unwrap();
        let b = top_eigenpairs(&dense, weights, 3, 1, &Control::new()).unwrap();
        for (x, y) in a.values.iter().zip(&b.values) {
            assert!(close(*x, *y, 1e-10, 1e-10));
        }
    }
}
