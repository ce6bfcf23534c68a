use super::*;
use crate::rng::Rng;
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
    let mut data = Vec::new();
    let mut rng = Rng::new(9);
    for (radius, count) in [(1.0, 60), (4.0, 90)] {
        for _ in 0..count {
            let t = rng.next_f64() * std::f64::consts::TAU;
            let r = radius + 0.1 * (rng.next_f64() - 0.5);
            data.extend([r * t.cos(), r * t.sin()]);
        }
    }
    let x = Points::new(&data, 150, 2).unwrap();
    let s = select_k(&x, &small(5), &Control::new()).unwrap();
    assert_eq!(s.kernel, Some(SelectedKernel::Knn), "{s:?}");
    assert_eq!(s.k, 2);
    assert!(s.labels[..60].iter().all(|&l| l == s.labels[0]));
    assert!(s.labels[60..].iter().all(|&l| l != s.labels[0]));
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
        k_min: 3,
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
        assert!((t.gap_box[j] - (t.expected_log_within_box[j] - t.log_within[j])).abs() < 1e-12);
    }
    // One-dimensional data: the principal box is the data's box, so the two references agree.
    for j in 0..2 {
        assert!(t.se_pc[j] >= 0.0 && t.se_box[j] >= 0.0);
    }
    assert_eq!(s.k, 2);
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
