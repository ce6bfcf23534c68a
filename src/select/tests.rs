use super::*;
use crate::rng::Rng;
use crate::{energy_gram, Progress};
use std::sync::atomic::AtomicBool;

/// `count` points per centre, Gaussian-ish (sum of uniforms) with spread `spread`.
fn blobs(centres: &[[f64; 2]], count: usize, spread: f64, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for c in centres {
        for _ in 0..count {
            for coordinate in c {
                let noise: f64 = (0..4).map(|_| rng.next_f64() - 0.5).sum();
                out.push(coordinate + spread * noise);
            }
        }
    }
    out
}

fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..2 * n).map(|_| rng.next_f64()).collect()
}

/// Noisy rings in 2-D: `count` points at uniform angles on each circle of `radius`, the
/// radius jittered uniformly by ±0.05.
fn rings(spec: &[(f64, usize)], seed: u64) -> Vec<f64> {
    let mut data = Vec::new();
    let mut rng = Rng::new(seed);
    for &(radius, count) in spec {
        for _ in 0..count {
            let t = rng.next_f64() * std::f64::consts::TAU;
            let r = radius + 0.1 * (rng.next_f64() - 0.5);
            data.extend([r * t.cos(), r * t.sin()]);
        }
    }
    data
}

fn small(k_max: usize) -> SelectOptions {
    SelectOptions {
        k_max,
        n_refs: 5,
        n_init: 2,
        n_pairs: 2,
        ..SelectOptions::default()
    }
}

#[test]
fn two_far_blobs_give_two_groups_with_the_energy_kernel() {
    let data = blobs(&[[0.0, 0.0], [20.0, 0.0]], 30, 1.0, 1);
    let x = Points::new(&data, 60, 2).unwrap();
    let s = select_k(&x, &small(5), &Control::new()).unwrap();
    assert_eq!(s.k, 2, "{s:?}");
    assert_eq!(s.kernel, Some(SelectedKernel::Energy));
    assert_eq!(s.rule, SelectionRule::EnergyGap);
    assert!(s.labels[..30].iter().all(|&l| l == s.labels[0]));
    assert!(s.labels[30..].iter().all(|&l| l != s.labels[0]));
    assert!(s.structure.energy > 0.0);
    assert!(s.table.stability[1] > 0.99);
}

#[test]
fn uniform_data_give_one_group() {
    let data = uniform(80, 3);
    let x = Points::new(&data, 80, 2).unwrap();
    let s = select_k(&x, &small(5), &Control::new()).unwrap();
    assert_eq!(s.k, 1, "{s:?}");
    assert_eq!(s.kernel, None);
    assert_eq!(s.rule, SelectionRule::NoStructure);
    assert!(s.structure.self_tuning.is_some());
    assert!(s.labels.iter().all(|&l| l == 0));
}

#[test]
fn identical_points_give_one_group() {
    let data = vec![1.5; 20];
    let x = Points::new(&data, 10, 2).unwrap();
    let s = select_k(&x, &small(4), &Control::new()).unwrap();
    assert_eq!((s.k, s.kernel), (1, None));
    assert_eq!(s.labels, vec![0; 10]);
}

#[test]
fn two_rings_go_to_the_knn_graph() {
    let data = rings(&[(1.0, 60), (4.0, 90)], 9);
    let x = Points::new(&data, 150, 2).unwrap();
    let s = select_k(&x, &small(5), &Control::new()).unwrap();
    assert_eq!(s.kernel, Some(SelectedKernel::Knn), "{s:?}");
    assert_eq!(s.k, 2);
    assert!(s.labels[..60].iter().all(|&l| l == s.labels[0]));
    assert!(s.labels[60..].iter().all(|&l| l != s.labels[0]));
}

/// Beyond the statistics' sample, the kNN partition of all points comes from the sample's
/// partition by a 10-neighbour vote, refined on the full graph: two rings of 400 points with
/// statistics on 150 are still split by ring.
#[test]
fn two_rings_beyond_the_sample_are_split_by_ring() {
    let data = rings(&[(1.0, 160), (4.0, 240)], 9);
    let x = Points::new(&data, 400, 2).unwrap();
    let options = SelectOptions {
        max_statistics_points: 150,
        ..small(5)
    };
    let s = select_k(&x, &options, &Control::new()).unwrap();
    assert_eq!(
        (s.kernel, s.k, s.n_statistics),
        (Some(SelectedKernel::Knn), 2, 150),
        "{s:?}"
    );
    assert!(s.labels[..160].iter().all(|&l| l == s.labels[0]));
    assert!(s.labels[160..].iter().all(|&l| l != s.labels[0]));
}

#[test]
fn the_result_is_the_same_for_any_number_of_threads() {
    let data = blobs(&[[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]], 25, 1.5, 4);
    let x = Points::new(&data, 75, 2).unwrap();
    let options = SelectOptions {
        max_statistics_points: 50, // the subsample path too
        ..small(5)
    };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let s = pool
            .install(|| select_k(&x, &options, &Control::new()))
            .unwrap();
        format!("{s:?}") // NaN != NaN: compare the printed form
    };
    let one = run(1);
    assert_eq!(one, run(3));
    assert_eq!(one, run(4));
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let data = uniform(5, 1);
    let x = Points::new(&data, 5, 2).unwrap();
    let c = Control::new();
    let too_many = SelectOptions {
        k_max: 6,
        ..small(5)
    };
    assert_eq!(
        select_k(&x, &too_many, &c).unwrap_err().argument(),
        Some("k")
    );
    let empty_range = SelectOptions {
        k_min: 4,
        k_max: 3,
        ..small(5)
    };
    assert_eq!(
        select_k(&x, &empty_range, &c).unwrap_err().argument(),
        Some("k")
    );
    let zero = SelectOptions {
        k_min: 0,
        ..small(5)
    };
    assert_eq!(select_k(&x, &zero, &c).unwrap_err().argument(), Some("k"));
    let no_refs = SelectOptions {
        n_refs: 0,
        ..small(5)
    };
    assert_eq!(
        select_k(&x, &no_refs, &c).unwrap_err().argument(),
        Some("n_refs")
    );
    let one = Points::new(&data[..2], 1, 2).unwrap();
    assert_eq!(
        select_k(&one, &small(2), &c).unwrap_err().argument(),
        Some("X")
    );
    assert!(Points::new(&[1.0, f64::NAN], 2, 1).is_err());
    // The smallest case that is allowed works.
    let two = Points::new(&data[..4], 2, 2).unwrap();
    let r = select_k(&two, &small(2), &c);
    assert!(r.is_ok(), "{r:?}");
    let g = [1.0, 0.0, 0.0, 1.0];
    assert_eq!(
        select_k_precomputed(&g, 2, &small(3), &c)
            .unwrap_err()
            .argument(),
        Some("k")
    );
}

/// Counts beyond memory or beyond `usize` are errors naming their argument, never a panic
/// or an abort.
#[test]
fn counts_beyond_memory_are_errors_naming_them() {
    let data = uniform(20, 1);
    let x = Points::new(&data, 20, 2).unwrap();
    let c = Control::new();
    let huge = [usize::MAX, usize::MAX / 2 + 1, 1 << 62, 1 << 58, 1 << 40];
    for n_refs in huge {
        let options = SelectOptions { n_refs, ..small(3) };
        let err = select_k(&x, &options, &c).unwrap_err();
        assert_eq!(err.argument(), Some("n_refs"), "{n_refs}: {err}");
    }
    let g: Vec<f64> = (0..400).map(|i| f64::from(u8::from(i % 21 == 0))).collect();
    for n_pairs in huge {
        let options = SelectOptions {
            n_pairs,
            ..small(3)
        };
        let err = select_k(&x, &options, &c).unwrap_err();
        assert_eq!(err.argument(), Some("n_pairs"), "{n_pairs}: {err}");
        let err = select_k_precomputed(&g, 20, &options, &c).unwrap_err();
        assert_eq!(err.argument(), Some("n_pairs"), "{n_pairs}: {err}");
    }
}

/// Ten points repeated eight times and one more point: the self-tuning bandwidths of the
/// repeated points are floored, every affinity of the lone point underflows, and its
/// normalised-cut entries stay finite (not `0 · ∞ = NaN`, which the eigensolver refuses as an
/// invalid `block`). Every seed gets an answer.
#[test]
fn repeated_points_and_one_more_get_an_answer() {
    for seed in 0..12u64 {
        let mut rng = Rng::new(seed);
        let distinct: Vec<[f64; 2]> = (0..10)
            .map(|_| [rng.next_f64() * 4.0, rng.next_f64() * 4.0])
            .collect();
        let mut data: Vec<f64> = distinct
            .iter()
            .flat_map(|p| std::iter::repeat_n(*p, 8).flatten())
            .collect();
        data.extend([rng.next_f64() * 4.0, rng.next_f64() * 4.0]);
        let x = Points::new(&data, 81, 2).unwrap();
        let graph =
            DenseGraphKernel::from_affinity(self_tuning_affinity(&x, &Control::new()).unwrap(), 81)
                .unwrap();
        assert!(graph.g.iter().all(|v| v.is_finite()), "seed {seed}");
        let options = SelectOptions { seed, ..small(10) };
        let s = select_k(&x, &options, &Control::new());
        assert!(s.is_ok(), "seed {seed}: {s:?}");
    }
}

/// The events of a selection: `(done, planned)` in order.
fn progress_of(x: &Points, options: &SelectOptions) -> (Selection, Vec<(usize, usize)>) {
    let events = std::sync::Mutex::new(Vec::new());
    let report = |p: &Progress| events.lock().unwrap().push((p.sweep, p.moves_in_sweep));
    let s = select_k(x, options, &Control::new().with_progress(&report)).unwrap();
    let mut events = events.into_inner().unwrap();
    events.sort_unstable();
    (s, events)
}

/// On a sample's statistics the partition of every point is the longest part: it reports
/// n_init steps (each energy start; the kNN graph's vote, graph and refinement), within a
/// plan that every event states and that is met exactly.
#[test]
fn the_partition_of_every_point_reports_progress() {
    let blobs = blobs(&[[0.0, 0.0], [20.0, 0.0]], 60, 1.0, 1);
    let rings = rings(&[(1.0, 160), (4.0, 240)], 9);
    for (data, n, kernel) in [
        (&blobs, 120, SelectedKernel::Energy),
        (&rings, 400, SelectedKernel::Knn),
    ] {
        let x = Points::new(data, n, 2).unwrap();
        let options = SelectOptions {
            max_statistics_points: if n == 400 { 150 } else { 50 },
            n_init: 4,
            ..small(4)
        };
        let (s, events) = progress_of(&x, &options);
        assert_eq!(s.kernel, Some(kernel));
        let planned = options.n_refs + 2 * options.n_pairs + 3 + options.n_init;
        let expected: Vec<(usize, usize)> = (1..=planned).map(|d| (d, planned)).collect();
        assert_eq!(events, expected, "{kernel:?}");
    }
}

#[test]
fn the_gap_numbers_match_the_direct_formula_on_a_tiny_case() {
    // 1-D points {0, 0.1} and {10, 10.3}: W_1 and W_2 by the formula
    // W = Σ_j (1 / (2 n_j)) Σ_{a,b ∈ C_j} |x_a − x_b|.
    let xs = [0.0, 0.1, 10.0, 10.3];
    let x = Points::new(&xs, 4, 1).unwrap();
    let options = SelectOptions {
        k_max: 2,
        n_refs: 3,
        ..small(2)
    };
    let s = select_k(&x, &options, &Control::new()).unwrap();
    let w = |group: &[f64]| {
        let pairs: f64 = group
            .iter()
            .flat_map(|a| group.iter().map(move |b| (a - b).abs()))
            .sum();
        pairs / (2.0 * group.len() as f64)
    };
    let w1 = w(&xs);
    let w2 = w(&xs[..2]) + w(&xs[2..]);
    let t = &s.table;
    assert!((t.within[0] - w1).abs() < 1e-12 * w1);
    assert!((t.within[1] - w2).abs() < 1e-12 * w1);
    for j in 0..2 {
        assert!((t.log_within[j] - t.within[j].ln()).abs() < 1e-12);
        assert!((t.gap_pc[j] - (t.expected_log_within_pc[j] - t.log_within[j])).abs() < 1e-12);
        assert!(t.se_pc[j] >= 0.0);
    }
    assert_eq!(s.k, 2);
    // k = 2 is the end of the range 1 … 2 and the gap still rises there.
    assert!(s.at_range_end);
}

#[test]
fn a_cancelled_selection_stops_with_interrupted() {
    let data = blobs(&[[0.0, 0.0], [20.0, 0.0]], 30, 1.0, 1);
    let x = Points::new(&data, 60, 2).unwrap();
    let cancel = AtomicBool::new(true);
    let control = Control::new().with_cancel(&cancel);
    assert_eq!(
        select_k(&x, &small(4), &control).unwrap_err(),
        KGroupsError::Interrupted
    );
}

#[test]
fn a_precomputed_kernel_is_chosen_by_stability() {
    let data = blobs(&[[0.0, 0.0], [20.0, 0.0], [0.0, 20.0]], 15, 1.0, 2);
    let x = Points::new(&data, 45, 2).unwrap();
    let g: Vec<f64> = energy_gram(&x, Semimetric::Power { alpha: 1.0 }, Base::Mean).unwrap();
    let s = select_k_precomputed(&g, 45, &small(5), &Control::new()).unwrap();
    assert_eq!((s.k, s.rule), (3, SelectionRule::Stability), "{s:?}");
    assert!(s.table.stability[0].is_nan());
    assert!((s.table.stability[2] - 1.0).abs() < 1e-12);
}

#[test]
fn knn_affinity_is_symmetric_with_at_least_count_neighbours() {
    let data = uniform(50, 8);
    let x = Points::new(&data, 50, 2).unwrap();
    let a = neighbors::knn_affinity(&x, 5, &Control::new()).unwrap();
    for i in 0..50 {
        let row = &a.indices[a.indptr[i]..a.indptr[i + 1]];
        assert!(row.len() >= 5 && !row.contains(&i));
        for &j in row {
            assert!(a.indices[a.indptr[j]..a.indptr[j + 1]].contains(&i));
        }
    }
}

/// The energy kernel of 200 points in eight blobs with random centres (seeded).
fn eight_blobs(rng: &mut Rng, seed: u64) -> Vec<f64> {
    let centres: Vec<[f64; 2]> = (0..8)
        .map(|_| [rng.next_f64() * 20.0, rng.next_f64() * 20.0])
        .collect();
    let data = blobs(&centres, 25, 1.5, seed);
    let x = Points::new(&data, 200, 2).unwrap();
    energy_gram(&x, Semimetric::Power { alpha: 1.0 }, Base::Mean).unwrap()
}

/// With one cold start per k, the best W_k can rise with k (eight blobs: it does on some
/// of these sets). The warm start (the best k − 1 partition with a cluster split, then
/// the local search) never makes a k worse than its cold start, makes W_k non-increasing
/// in k on every set, and changes nothing where it does not win.
#[test]
fn warm_starts_never_raise_w_and_make_it_fall_with_k() {
    let mut rng = Rng::new(99);
    let ks: Vec<usize> = (1..=10).collect();
    let control = Control::new();
    let (mut cold_rises, mut warm_wins) = (0, 0);
    for trial in 0..12u64 {
        let g = eight_blobs(&mut rng, trial);
        let kernel = DenseKernel::trusting_symmetry(&g, 200).unwrap();
        let cold = fits::energy_fits(&kernel, &ks, 1, false, trial, &control).unwrap();
        let warm = fits::energy_fits(&kernel, &ks, 1, true, trial, &control).unwrap();
        for (c, w) in cold.iter().zip(&warm) {
            assert!(
                w.within <= c.within,
                "trial {trial}: {} > {}",
                w.within,
                c.within
            );
            if !w.from_warm_start {
                assert_eq!(
                    w,
                    &fits::KFit {
                        from_warm_start: false,
                        ..c.clone()
                    }
                );
            }
        }
        assert!(
            warm.windows(2).all(|p| p[1].within <= p[0].within),
            "trial {trial}: W_k rises with warm starts"
        );
        cold_rises += usize::from(cold.windows(2).any(|p| p[1].within > p[0].within));
        warm_wins += warm.iter().filter(|f| f.from_warm_start).count();
    }
    assert!(
        cold_rises >= 1,
        "no set where cold W_k rises: the test shows nothing"
    );
    assert!(warm_wins >= 12, "the warm start won only {warm_wins} times");
}

/// The split step against a direct computation on a tiny weighted input: the cluster it
/// splits has the largest dispersion `(1 / 2 s_l) Σ_{a,b ∈ C_l} w_a w_b ‖φ(a) − φ(b)‖²`
/// (from the matrix, not the cluster terms), and its two parts are the best of all 2-splits
/// of that cluster, found by brute force.
#[test]
fn the_split_is_the_best_two_split_of_the_most_dispersed_cluster() {
    // Three tight groups; cluster 0 holds two of them, cluster 1 the third.
    let centres = [[0.0, 0.0], [6.0, 0.0], [0.0, 30.0]];
    let data = blobs(&centres, 4, 0.5, 7);
    let n = 12;
    let x = Points::new(&data, n, 2).unwrap();
    let g: Vec<f64> = energy_gram(&x, Semimetric::Power { alpha: 1.0 }, Base::Mean).unwrap();
    let kernel = DenseKernel::new(&g, n).unwrap();
    let weights: Vec<f64> = (0..n).map(|a| 0.5 + (a % 3) as f64).collect();
    let labels: Vec<usize> = (0..n).map(|a| usize::from(a >= 8)).collect();
    let d = |a: usize, b: usize| g[a * n + a] + g[b * n + b] - 2.0 * g[a * n + b];
    let dispersion = |members: &[usize]| {
        let s: f64 = members.iter().map(|&a| weights[a]).sum();
        let pairs: f64 = members
            .iter()
            .flat_map(|&a| members.iter().map(move |&b| (a, b)))
            .map(|(a, b)| weights[a] * weights[b] * d(a, b))
            .sum();
        pairs / (2.0 * s)
    };
    let cluster = |l: usize| (0..n).filter(|&a| labels[a] == l).collect::<Vec<_>>();
    let terms: Vec<f64> = (0..2)
        .map(|l| {
            let m = cluster(l);
            m.iter()
                .flat_map(|&a| m.iter().map(move |&b| (a, b)))
                .map(|(a, b)| weights[a] * weights[b] * g[a * n + b])
                .sum()
        })
        .collect();
    let chosen = if dispersion(&cluster(0)) > dispersion(&cluster(1)) {
        0
    } else {
        1
    };
    assert_eq!(chosen, 0, "the test's data should make cluster 0 the wider");
    // Brute force over the 2-splits of the chosen cluster.
    let members = cluster(chosen);
    let mut best = f64::INFINITY;
    for mask in 1..(1u32 << (members.len() - 1)) {
        let one: Vec<usize> = (0..members.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| members[i])
            .collect();
        let two: Vec<usize> = (0..members.len())
            .filter(|i| mask >> i & 1 == 0)
            .map(|i| members[i])
            .collect();
        best = best.min(dispersion(&one) + dispersion(&two));
    }
    for seed in 0..5 {
        let split = warm::split_most_dispersed(
            &kernel,
            &labels,
            2,
            &terms,
            Some(&weights),
            seed,
            &Control::new(),
        )
        .unwrap()
        .expect("a cluster to split");
        assert!(split
            .iter()
            .zip(&labels)
            .all(|(&s, &l)| l != chosen && s == l || l == chosen && (s == chosen || s == 2)));
        let parts = [chosen, 2].map(|l| (0..n).filter(|&a| split[a] == l).collect::<Vec<_>>());
        let found = dispersion(&parts[0]) + dispersion(&parts[1]);
        assert!(
            (found - best).abs() <= 1e-9 * best,
            "seed {seed}: {found} vs {best}"
        );
    }
    // A cluster of coinciding points (and single points) cannot be split.
    let same = DenseKernel::new(&[1.0; 9], 3).unwrap();
    let none =
        warm::split_most_dispersed(&same, &[0, 0, 1], 2, &[4.0, 1.0], None, 0, &Control::new());
    assert_eq!(none.unwrap(), None);
}

#[test]
fn wide_data_get_the_same_selection_from_the_gram_form() {
    // 24 points in 60 dimensions, three groups: the principal box from the 24 × 24 Gram
    // matrix must give what the 60 × 60 covariance gives.
    let (n, dim) = (24, 60);
    let mut rng = Rng::new(11);
    let centres: Vec<Vec<f64>> = (0..3)
        .map(|_| (0..dim).map(|_| 6.0 * (rng.next_f64() - 0.5)).collect())
        .collect();
    let data: Vec<f64> = (0..n)
        .flat_map(|i| {
            let c = centres[i % 3].clone();
            c.into_iter()
                .map(|v| v + rng.next_f64() - 0.5)
                .collect::<Vec<_>>()
        })
        .collect();
    let x = Points::new(&data, n, dim).unwrap();
    let options = small(4);
    let fast = select_k(&x, &options, &Control::new()).unwrap();
    let slow =
        references::tests::with_scatter_forced(|| select_k(&x, &options, &Control::new())).unwrap();
    assert_eq!(
        (fast.k, fast.rule, &fast.labels),
        (slow.k, slow.rule, &slow.labels)
    );
    assert_eq!(fast.structure.cut_ratio, slow.structure.cut_ratio);
    let (e, f) = (fast.structure.energy, slow.structure.energy);
    assert!((e - f).abs() <= 1e-9 * e.abs().max(1.0), "{e} vs {f}");
    let (a, b) = (&fast.table, &slow.table);
    let columns = [
        (&a.within, &b.within),
        (&a.expected_log_within_pc, &b.expected_log_within_pc),
        (&a.gap_pc, &b.gap_pc),
        (&a.se_pc, &b.se_pc),
        (&a.stability, &b.stability),
        (&a.eigenvalue, &b.eigenvalue),
    ];
    for (column, (p, q)) in columns.iter().enumerate() {
        for (u, v) in p.iter().zip(q.iter()) {
            assert!(
                (u.is_nan() && v.is_nan()) || (u - v).abs() <= 1e-9 * u.abs().max(1.0),
                "column {column}: {u} vs {v}"
            );
        }
    }
    assert_eq!(fast.k, 3, "{fast:?}");
}

#[test]
fn an_unconverged_eigen_solve_is_retried() {
    let data = rings(&[(1.0, 150), (3.0, 150)], 4);
    let x = Points::new(&data, 300, 2).unwrap();
    let c = Control::new();
    let knn = CsrGraphKernel::from_affinity(knn_affinity(&x, KNN_NEIGHBOURS, &c).unwrap());
    let kernel = knn.kernel().unwrap();
    let one = crate::spectral::EigenOptions {
        tolerance: 1e-5,
        max_restarts: 1,
    };
    let first = eigengap::normalized_eigenpairs(&kernel, &knn.degrees, 6, 0, &one, &c).unwrap();
    assert!(!first.converged);
    let retried = eigengap::selection_eigenpairs(&kernel, &knn.degrees, 6, 0, &one, &c).unwrap();
    assert!(retried.converged && retried.n_restarts > 1, "{retried:?}");
    // What the unconverged result keeps of its gaps lies within its residuals of the
    // converged gaps.
    let rough = eigengap::resolved_relative_eigengap(&first);
    let lambda = eigengap::laplacian_eigenvalues(&first.values);
    let exact = eigengap::laplacian_eigenvalues(&retried.values);
    for k in 1..rough.len() {
        if rough[k].is_finite() {
            let bound = first.residuals[k] + first.residuals[k + 1];
            let (rough_gap, exact_gap) = (lambda[k + 1] - lambda[k], exact[k + 1] - exact[k]);
            assert!(exact_gap > 0.0 && (rough_gap - exact_gap).abs() <= 2.0 * bound);
        }
    }
}

#[test]
fn the_eigengap_rule_ignores_gaps_an_unconverged_solve_does_not_resolve() {
    // Ritz values whose largest relative gap (at k = 3) is within the residuals: the rule
    // takes the largest resolved gap (k = 2) instead.
    let pairs = crate::spectral::Eigenpairs {
        values: vec![1.0, 0.7, 0.65, 0.1, 0.05],
        vectors: vec![0.0; 25],
        n: 5,
        count: 5,
        residuals: vec![1e-3, 1e-3, 1e-3, 0.6, 0.6],
        converged: false,
        n_restarts: 25,
        n_products: 25,
    };
    let raw = eigengap::relative_eigengap(&eigengap::laplacian_eigenvalues(&pairs.values));
    assert_eq!(eigengap::relative_eigengap_k(&raw, 1, 3), 3);
    let resolved = eigengap::resolved_relative_eigengap(&pairs);
    assert!(resolved[2].is_nan() && resolved[1].is_finite());
    assert_eq!(eigengap::relative_eigengap_k(&resolved, 1, 3), 2);
    let converged = crate::spectral::Eigenpairs {
        converged: true,
        ..pairs
    };
    let bits = |v: Vec<f64>| v.iter().map(|g| g.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(eigengap::resolved_relative_eigengap(&converged)),
        bits(raw)
    );
}

fn given(k: usize) -> SelectOptions {
    SelectOptions {
        k_min: k,
        k_max: k,
        n_init: 3,
        ..SelectOptions::default()
    }
}

#[test]
fn with_k_given_only_the_kernel_is_chosen() {
    let c = Control::new();
    let blobs = blobs(&[[0.0, 0.0], [20.0, 0.0], [0.0, 20.0]], 30, 1.0, 3);
    let s = select_k(&Points::new(&blobs, 90, 2).unwrap(), &given(3), &c).unwrap();
    assert_eq!((s.k, s.rule), (3, SelectionRule::GivenK));
    assert_eq!(s.kernel, Some(SelectedKernel::Energy), "{s:?}");
    for g in 0..3 {
        let first = s.labels[30 * g];
        assert!(s.labels[30 * g..30 * (g + 1)].iter().all(|&l| l == first));
    }
    assert_eq!(s.table.k, vec![3]);
    assert!(s.structure.cut_ratio.is_some());
    // Rings beyond the statistics' sample: the graph, by ring, for every point.
    let rings = rings(&[(1.0, 160), (4.0, 240)], 9);
    let options = SelectOptions {
        max_statistics_points: 150,
        ..given(2)
    };
    let s = select_k(&Points::new(&rings, 400, 2).unwrap(), &options, &c).unwrap();
    assert_eq!(s.kernel, Some(SelectedKernel::Knn), "{s:?}");
    assert_eq!(s.n_statistics, 150);
    assert!(s.labels[..160].iter().all(|&l| l == s.labels[0]));
    assert!(s.labels[160..].iter().all(|&l| l != s.labels[0]));
}

#[test]
fn with_k_given_bad_input_is_an_error_naming_it() {
    let c = Control::new();
    let data = uniform(20, 1);
    let x = Points::new(&data, 20, 2).unwrap();
    for k in [0, 21] {
        let err = select_k(&x, &given(k), &c).unwrap_err();
        assert!(err.to_string().contains('k'), "{err}");
    }
    let one = select_k(&x, &given(1), &c).unwrap();
    assert_eq!((one.k, one.kernel, one.labels), (1, None, vec![0; 20]));
    let same = vec![1.5; 20];
    let identical = Points::new(&same, 10, 2).unwrap();
    let err = select_k(&identical, &given(2), &c).unwrap_err();
    assert!(err.to_string().contains("identical"), "{err}");
}

#[test]
fn with_k_and_the_kernel_given_that_kernel_partitions() {
    let c = Control::new();
    let rings = rings(&[(1.0, 80), (4.0, 120)], 4);
    let x = Points::new(&rings, 200, 2).unwrap();
    let auto = select_k(&x, &given(2), &c).unwrap();
    for (choice, kernel) in [
        (KernelChoice::Knn, SelectedKernel::Knn),
        (KernelChoice::Energy, SelectedKernel::Energy),
    ] {
        let options = SelectOptions {
            kernel: choice,
            ..given(2)
        };
        let s = select_k(&x, &options, &c).unwrap();
        assert_eq!((s.kernel, s.structure.cut_ratio), (Some(kernel), None));
        if kernel == SelectedKernel::Knn {
            // The graph's partition that the comparison chose.
            assert_eq!(s.labels, auto.labels);
        }
    }
}

#[test]
fn with_k_given_the_result_is_the_same_for_any_number_of_threads() {
    let rings = rings(&[(1.0, 80), (4.0, 120)], 4);
    let x = Points::new(&rings, 200, 2).unwrap();
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| select_k(&x, &given(2), &Control::new()).unwrap())
    };
    let (one, three) = (run(1), run(3));
    // (The table's NaN columns make the whole result unequal to itself.)
    assert_eq!(
        (
            one.k,
            &one.labels,
            one.kernel,
            one.structure.cut_ratio,
            &one.table.within
        ),
        (
            three.k,
            &three.labels,
            three.kernel,
            three.structure.cut_ratio,
            &three.table.within
        )
    );
}
