use super::*;
use crate::kernel::cluster_sums;
use crate::test_support::{assert_invalid, TestRng};
use crate::DataKernel;

const POWER: Semimetric = Semimetric::Power { alpha: 1.0 };

fn problem(n: usize, dim: usize, k: usize, seed: u64) -> (Vec<f64>, Vec<usize>, Vec<f64>) {
    let mut rng = TestRng(seed);
    let data = rng.data(n, dim, 1.0, 0.0);
    let labels = (0..n).map(|i| i % k).collect();
    let weights = (0..n).map(|_| 0.5 + rng.next_f64()).collect();
    (data, labels, weights)
}

fn totals_of(sums: &[f64], labels: &[usize], weights: &[f64], k: usize) -> ClusterTotals {
    let mut totals = ClusterTotals {
        counts: vec![0; k],
        cluster_weights: vec![0.0; k],
        terms: vec![0.0; k],
    };
    for (i, (&l, &w)) in labels.iter().zip(weights).enumerate() {
        totals.counts[l] += 1;
        totals.cluster_weights[l] += w;
        totals.terms[l] += w * sums[i * k + l];
    }
    totals
}

#[test]
fn sums_match_the_matrix_free_kernel_and_do_not_depend_on_the_split() {
    let (n, dim, k) = (300, 3, 4);
    let (data, labels, weights) = problem(n, dim, k, 7);
    let x = Points::new(&data, n, dim).unwrap();
    let control = Control::new();
    let mut whole = vec![0.0; n * k];
    add_cluster_sums(&x, &x, &labels, &weights, k, POWER, &mut whole, &control).unwrap();
    let kernel = DataKernel::new(x, POWER, Base::Origin).unwrap();
    let reference = cluster_sums(&kernel, &labels, &weights, k, &control).unwrap();
    for i in 0..n {
        for l in 0..k {
            let (a, b) = (whole[i * k + l], reference[l * n + i]);
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{i} {l}: {a} {b}");
        }
    }
    // The other points in two calls, and the rows split differently: the same bits.
    let mut parts = vec![0.0; n * k];
    let split = 123;
    for (rows, out) in [(0..77, 0..77 * k), (77..n, 77 * k..n * k)] {
        let r = Points::new(&data[rows.start * dim..rows.end * dim], rows.len(), dim).unwrap();
        for cols in [0..split, split..n] {
            let o = Points::new(&data[cols.start * dim..cols.end * dim], cols.len(), dim);
            add_cluster_sums(
                &r,
                &o.unwrap(),
                &labels[cols.clone()],
                &weights[cols],
                k,
                POWER,
                &mut parts[out.clone()],
                &control,
            )
            .unwrap();
        }
    }
    assert_eq!(whole, parts);
}

/// A pass of blocks — each block against itself ([`within_sums`]) and every pair of blocks
/// once ([`cross_sums`], several tiles each) — gives the row-by-row sums to rounding, for the
/// masked (k ≤ 4) and the scattered (k > 4) tile sums.
#[test]
fn block_pass_matches_the_rows_sums() {
    for (k, seed) in [(3, 1), (7, 2)] {
        let (n, dim) = (1100, 3);
        let (data, mut labels, weights) = problem(n, dim, k, seed);
        let mut rng = TestRng(seed + 10);
        for l in labels.iter_mut() {
            *l = (rng.next_f64() * k as f64) as usize % k;
        }
        let x = Points::new(&data, n, dim).unwrap();
        let control = Control::new();
        let mut rowwise = vec![0.0; n * k];
        add_cluster_sums(&x, &x, &labels, &weights, k, POWER, &mut rowwise, &control).unwrap();
        let bounds = [0, 300, 820, n];
        let block = |p: usize| bounds[p]..bounds[p + 1];
        let points = |p: usize| {
            Points::new(
                &data[block(p).start * dim..block(p).end * dim],
                block(p).len(),
                dim,
            )
            .unwrap()
        };
        let mut sums = vec![0.0; n * k];
        for p in 0..3 {
            let own = within_sums(
                &points(p),
                &labels[block(p)],
                &weights[block(p)],
                k,
                POWER,
                &control,
            )
            .unwrap();
            for (s, v) in sums[block(p).start * k..block(p).end * k]
                .iter_mut()
                .zip(own)
            {
                *s += v;
            }
            for q in p + 1..3 {
                let (sp, sq) = cross_sums(
                    &points(p),
                    &points(q),
                    &labels[block(p)],
                    &weights[block(p)],
                    &labels[block(q)],
                    &weights[block(q)],
                    k,
                    POWER,
                    &control,
                )
                .unwrap();
                for (s, v) in sums[block(p).start * k..block(p).end * k]
                    .iter_mut()
                    .zip(sp)
                {
                    *s += v;
                }
                for (s, v) in sums[block(q).start * k..block(q).end * k]
                    .iter_mut()
                    .zip(sq)
                {
                    *s += v;
                }
            }
        }
        for (a, b) in sums.iter().zip(&rowwise) {
            assert!((a - b).abs() <= 1e-10 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }
}

#[test]
fn rounds_reach_a_local_optimum_and_the_sums_stay_exact() {
    let (n, dim, k) = (200, 2, 3);
    let (data, mut labels, weights) = problem(n, dim, k, 11);
    let x = Points::new(&data, n, dim).unwrap();
    let control = Control::new();
    let diag = diagonal(&x, POWER).unwrap();
    let mut sums = vec![0.0; n * k];
    add_cluster_sums(&x, &x, &labels, &weights, k, POWER, &mut sums, &control).unwrap();
    let mut totals = totals_of(&sums, &labels, &weights, k);
    let mut rounds = 0;
    loop {
        let before = totals.objective();
        let mut proposed = propose(&sums, &labels, &weights, &diag, &totals).unwrap();
        if proposed.is_empty() {
            break;
        }
        proposed.sort_by(|a, b| b.gain.total_cmp(&a.gain).then(a.row.cmp(&b.row)));
        proposed.truncate(16);
        let rows: Vec<usize> = proposed.iter().map(|p| p.row).collect();
        let coords: Vec<f64> = rows.iter().flat_map(|&i| x.row(i).to_vec()).collect();
        let cand = Points::new(&coords, rows.len(), dim).unwrap();
        let pick = |v: &[f64]| rows.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        let cand_labels: Vec<usize> = rows.iter().map(|&i| labels[i]).collect();
        let cand_sums: Vec<f64> = rows
            .iter()
            .flat_map(|&i| sums[i * k..(i + 1) * k].to_vec())
            .collect();
        let accepted = accept(
            &cand,
            &pick(&weights),
            &pick(&diag),
            &cand_labels,
            &cand_sums,
            POWER,
            &mut totals,
            &control,
        )
        .unwrap();
        assert!(!accepted.is_empty());
        assert!(totals.objective() > before);
        // Broadcast the accepted moves, in order.
        let moved_rows: Vec<usize> = accepted.iter().map(|a| rows[a.candidate]).collect();
        let moved: Vec<f64> = moved_rows.iter().flat_map(|&i| x.row(i).to_vec()).collect();
        let from: Vec<usize> = accepted.iter().map(|a| a.from).collect();
        let to: Vec<usize> = accepted.iter().map(|a| a.to).collect();
        let moved_weights: Vec<f64> = moved_rows.iter().map(|&i| weights[i]).collect();
        for (&i, &t) in moved_rows.iter().zip(&to) {
            labels[i] = t;
        }
        let m = Points::new(&moved, moved_rows.len(), dim).unwrap();
        apply_moves(
            &x,
            &mut sums,
            &m,
            &moved_weights,
            &from,
            &to,
            k,
            POWER,
            &control,
        )
        .unwrap();
        rounds += 1;
        assert!(rounds < 10_000);
    }
    // The kept sums and totals agree with fresh ones; no single move improves.
    let mut fresh = vec![0.0; n * k];
    add_cluster_sums(&x, &x, &labels, &weights, k, POWER, &mut fresh, &control).unwrap();
    for (a, b) in sums.iter().zip(&fresh) {
        assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()));
    }
    let exact = totals_of(&fresh, &labels, &weights, k);
    assert_eq!(exact.counts, totals.counts);
    assert!((exact.objective() - totals.objective()).abs() <= 1e-9 * exact.objective().abs());
    assert!(propose(&fresh, &labels, &weights, &diag, &exact)
        .unwrap()
        .is_empty());
}

#[test]
fn bad_arguments_are_errors() {
    let x = Points::new(&[0.0, 1.0, 2.0], 3, 1).unwrap();
    let control = Control::new();
    let mut out = vec![0.0; 6];
    let r = add_cluster_sums(&x, &x, &[0, 2, 1], &[1.0; 3], 2, POWER, &mut out, &control);
    assert_invalid(r, "labels", "below k");
    let r = add_cluster_sums(
        &x,
        &x,
        &[0, 1, 1],
        &[1.0, f64::NAN, 1.0],
        2,
        POWER,
        &mut out,
        &control,
    );
    assert_invalid(r, "weights", "not finite");
    let r = add_cluster_sums(&x, &x, &[0, 1, 1], &[1.0; 3], 3, POWER, &mut out, &control);
    assert_invalid(r, "out", "n·k");
    let mut sums = vec![0.0; 6];
    let one = Points::new(&[1.0], 1, 1).unwrap();
    let r = apply_moves(&x, &mut sums, &one, &[1.0], &[0], &[2], 2, POWER, &control);
    assert_invalid(r, "to", "below k");
    let r = apply_moves(
        &x,
        &mut sums,
        &one,
        &[1.0, 1.0],
        &[0],
        &[1],
        2,
        POWER,
        &control,
    );
    assert_invalid(r, "weights", "length");
    let totals = ClusterTotals {
        counts: vec![3, 0],
        cluster_weights: vec![3.0, 0.0],
        terms: vec![1.0, 0.0],
    };
    let r = propose(&out, &[0, 1, 0], &[1.0; 3], &[0.0; 3], &totals);
    assert_invalid(r, "labels", "empty");
    let bad = ClusterTotals {
        counts: vec![3],
        ..totals
    };
    assert_invalid(
        propose(&out, &[0, 0, 0], &[1.0; 3], &[0.0; 3], &bad),
        "totals",
        "one entry",
    );
}
