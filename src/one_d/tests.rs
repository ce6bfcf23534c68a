//! Tests of the 1-D solver. References are independent of the O(1) formula: interval costs
//! from the gap form (a sum of non-negative terms) in f64 or exactly in integers, brute force
//! over every interval partition, and the plain O(k n²) dynamic programme over all columns.

use super::*;
use crate::rng::Rng;
use proptest::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const U: f64 = f64::EPSILON / 2.0;

// ----------------------------------------------------------------------------- references

/// `cost(i, j)` of sorted `x`, `w` by the gap form `(1/s) Σ_t (x_{t+1} − x_t) L_t R_t`.
fn gap_cost(x: &[f64], w: &[f64], i: usize, j: usize) -> f64 {
    if j <= i + 1 {
        return 0.0;
    }
    let s: f64 = w[i..j].iter().sum();
    let mut left = 0.0;
    let mut total = 0.0;
    for t in i..j - 1 {
        left += w[t];
        total += (x[t + 1] - x[t]) * left * (s - left);
    }
    total / s
}

/// The exact pair sum `Σ_{a<b} w_a w_b (x_b − x_a)` and weight of `[i, j)` for integer data.
fn exact_pair_sum(x: &[i64], w: &[i64], i: usize, j: usize) -> (i128, i128) {
    let s: i128 = w[i..j].iter().map(|&v| v as i128).sum();
    let mut left: i128 = 0;
    let mut total: i128 = 0;
    for t in i..j.saturating_sub(1) {
        left += w[t] as i128;
        let term = ((x[t + 1] - x[t]) as i128).checked_mul(left * (s - left));
        total = term
            .and_then(|v| total.checked_add(v))
            .expect("exact sum beyond i128");
    }
    (total, s)
}

/// W of the partition with the given cuts, by the gap form.
fn partition_cost(x: &[f64], w: &[f64], cuts: &[usize]) -> f64 {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(x.len());
    bounds.windows(2).map(|b| gap_cost(x, w, b[0], b[1])).sum()
}

/// Min W over every partition into k intervals (all cut combinations), gap-form costs.
fn brute_force(x: &[f64], w: &[f64], k: usize) -> f64 {
    fn rec(x: &[f64], w: &[f64], start: usize, k: usize, memo: &mut Vec<usize>) -> f64 {
        let n = x.len();
        if k == 1 {
            return gap_cost(x, w, start, n);
        }
        let mut best = f64::INFINITY;
        for c in start + 1..=n - k + 1 {
            memo.push(c);
            let v = gap_cost(x, w, start, c) + rec(x, w, c, k - 1, memo);
            memo.pop();
            best = best.min(v);
        }
        best
    }
    rec(x, w, 0, k, &mut Vec::new())
}

/// The plain dynamic programme over all columns with the same costs and tie rule: the cuts and
/// every layer's row minima.
#[allow(clippy::needless_range_loop)] // layers and rows are indices of the recurrence
fn full_dp(prefix: &Prefix, k: usize) -> (Vec<usize>, Vec<Vec<f64>>) {
    let n = prefix.ph.len() - 1;
    let mut d = vec![f64::INFINITY; n + 1];
    for (m, dm) in d.iter_mut().enumerate().skip(1) {
        *dm = prefix.cost(0, m);
    }
    let mut layers = vec![d.clone()];
    let mut back = vec![vec![0usize; n + 1]; k + 1];
    for j in 2..=k {
        let mut next = vec![f64::INFINITY; n + 1];
        let last = if j == k { n } else { n - k + j };
        let first = if j == k { n } else { j };
        for m in first..=last {
            let vals: Vec<f64> = (j - 1..m).map(|i| d[i] + prefix.cost(i, m)).collect();
            let (tie, _) = choose(&vals).unwrap();
            next[m] = vals[tie];
            back[j][m] = j - 1 + tie;
        }
        layers.push(next.clone());
        d = next;
    }
    let mut cuts = vec![0; k - 1];
    let mut end = n;
    for j in (2..=k).rev() {
        end = back[j][end];
        cuts[j - 2] = end;
    }
    (cuts, layers)
}

/// The middle layers of the divide and conquer, as `solve` runs them, for comparison.
fn dc_layers(prefix: &Prefix, k: usize) -> Vec<Vec<f64>> {
    let n = prefix.ph.len() - 1;
    let rows = n - k + 1;
    let mut d_prev = vec![f64::INFINITY; n + 1];
    prefix.first_layer(&mut d_prev[..=rows]);
    let mut out = vec![d_prev.clone()];
    let mut scan = Scan {
        values: vec![0.0; n + 1],
        cols: vec![0; n + 1],
    };
    for j in 2..k {
        let mut d_next = vec![f64::INFINITY; n + 1];
        let mut back = vec![0u32; rows];
        let control = Control::new();
        let mut layer = Layer {
            prefix,
            d_prev: &d_prev,
            d_next: &mut d_next,
            back: &mut back,
            first_row: j,
            scan: &mut scan,
            control: &control,
            work: 0,
        };
        layer.rows(j, n - k + j, j - 1, n - k + j - 1).unwrap();
        out.push(d_next.clone());
        d_prev = d_next;
    }
    out
}

fn ones(n: usize) -> Vec<f64> {
    vec![1.0; n]
}

fn random_data(rng: &mut Rng, n: usize, kind: usize) -> Vec<f64> {
    let mut x: Vec<f64> = (0..n)
        .map(|_| match kind % 4 {
            0 => rng.next_f64(),
            1 => (3.0 * (rng.next_f64() - 0.5)).exp() * 100.0,
            2 => (rng.next_f64() * 5.0).floor(), // many ties
            _ => rng.next_f64().powi(6) + if rng.next_f64() < 0.5 { 1e9 } else { 0.0 },
        })
        .collect();
    x.sort_by(f64::total_cmp);
    x
}

fn random_weights(rng: &mut Rng, n: usize, spread: f64) -> Vec<f64> {
    (0..n)
        .map(|_| (spread * (rng.next_f64() - 0.5)).exp())
        .collect()
}

// ---------------------------------------------------------------------------------- Monge

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// The quadrangle inequality, exactly, on integer data (ties and repeated points included)
    /// with integer weights: every a <= b, c <= d (empty and reversed intervals cost 0).
    #[test]
    fn monge_holds_exactly_on_integer_data(
        xs in prop::collection::vec(-6i64..6, 1..13),
        ws in prop::collection::vec(1i64..20, 13),
    ) {
        let mut x = xs.clone();
        x.sort_unstable();
        let n = x.len();
        let w = &ws[..n];
        // cost = num / den as a pair of i128 (empty: 0 / 1).
        let c = |i: usize, j: usize| -> (i128, i128) {
            if j <= i { (0, 1) } else { exact_pair_sum(&x, w, i, j) }
        };
        let add = |p: (i128, i128), q: (i128, i128)| (p.0 * q.1 + q.0 * p.1, p.1 * q.1);
        for a in 0..=n {
            for b in a..=n {
                for cc in 0..=n {
                    for d in cc..=n {
                        let lhs = add(c(a, cc), c(b, d));
                        let rhs = add(c(a, d), c(b, cc));
                        prop_assert!(lhs.0 * rhs.1 <= rhs.0 * lhs.1, "{a} {b} {cc} {d} x={x:?} w={w:?}");
                    }
                }
            }
        }
    }

    /// The same on real data with weights spanning 1e9, ties and equal points, through the
    /// solver's own double-double costs (tolerance: a few ulp of the largest term).
    #[test]
    fn monge_holds_for_the_computed_costs(seed in any::<u64>(), n in 2usize..24, kind in 0usize..4) {
        let mut rng = Rng::new(seed);
        let x = random_data(&mut rng, n, kind);
        let w = random_weights(&mut rng, n, 20.0);
        let p = Prefix::new(&x, Some(&w), &Control::new()).unwrap();
        let c = |i: usize, j: usize| if j <= i { 0.0 } else { p.cost(i, j) };
        for a in 0..=n {
            for b in a..=n {
                for cc in b..=n {
                    for d in cc..=n {
                        let lhs = c(a, cc) + c(b, d);
                        let rhs = c(a, d) + c(b, cc);
                        prop_assert!(lhs <= rhs + 1e-13 * rhs.abs().max(c(0, n)), "{a} {b} {cc} {d}");
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------------- cost accuracy

/// Data far from the origin (in [2^40, 2^41), full 52-bit mantissas, so no sum is exact in
/// double-double either) with integer weights up to 2^30: the double-double cost of short
/// intervals at the end, of intervals in the middle and of random ones against its exact
/// rational value, within the documented bound `8 u cost + 30 u² P[j] A[j] / s`; the same
/// formula in plain double precision breaks that bound hundreds of times.
#[test]
fn costs_match_exact_rationals_far_from_the_origin() {
    let mut naive_failures = 0;
    let mut worst: f64 = 0.0;
    // (n, largest weight, bits of the data's integer grid): exact sums stay below 2^127.
    for (n, w_max, bits, seed) in [
        (200_000usize, 1i64, 52u32, 1u64),
        (100_000, 1000, 50, 2),
        (20_000, 1 << 30, 30, 3),
    ] {
        let mut rng = Rng::new(seed);
        let mut xi: Vec<i64> = (0..n)
            .map(|_| (rng.next_u64() >> (64 - bits)) as i64)
            .collect();
        xi.sort_unstable();
        xi[n / 3] = xi[n / 3 - 1]; // a tie, in case the draw has none
        let wi: Vec<i64> = (0..n)
            .map(|_| 1 + (rng.next_u64() % w_max as u64) as i64)
            .collect();
        // x = 2^40 + xi 2^-12, exact; costs are then the integer ones times 2^-12.
        let x: Vec<f64> = xi
            .iter()
            .map(|&v| 2f64.powi(40) + v as f64 * 2f64.powi(-12))
            .collect();
        let w: Vec<f64> = wi.iter().map(|&v| v as f64).collect();
        let p = Prefix::new(&x, Some(&w), &Control::new()).unwrap();
        let scale = 2f64.powi(-(p.x_exp + p.w_exp));
        let mut segments = vec![];
        for len in 1..40 {
            segments.push((n - len, n)); // short intervals at the very end
            segments.push((n / 2, n / 2 + len));
        }
        for _ in 0..200 {
            let i = (rng.next_f64() * n as f64) as usize % n;
            let j = i + 1 + (rng.next_f64() * (n - i) as f64) as usize % (n - i);
            segments.push((i, j));
        }
        segments.push((0, n));
        for (i, j) in segments {
            let (num, s) = exact_pair_sum(&xi, &wi, i, j);
            let exact = num as f64 / s as f64 * 2f64.powi(-12);
            let got = p.cost(i, j) * scale;
            let (pj, aj) = (p.ph[j] + p.pl[j], p.ah[j] + p.al[j]);
            let sj = (p.ph[j] - p.ph[i]) + (p.pl[j] - p.pl[i]);
            let bound = 8.0 * U * exact + 30.0 * U * U * pj * aj / sj * scale;
            assert!(
                (got - exact).abs() <= bound,
                "n = {n}, [{i}, {j}): got {got}, exact {exact}, bound {bound}"
            );
            worst = worst.max((got - exact).abs() / bound);
            // The formula in plain double precision (the high words only).
            let naive = ((p.bh[j] - p.bh[i]) - (p.ph[i] + p.ph[j]) * (p.ah[j] - p.ah[i]))
                / (p.ph[j] - p.ph[i])
                * scale;
            if (naive - exact).abs() > bound {
                naive_failures += 1;
            }
        }
    }
    eprintln!("double-double: worst error / bound = {worst:.2e}; plain doubles beyond the bound: {naive_failures}");
    assert!(
        naive_failures > 100,
        "the bound should be beyond plain doubles: {naive_failures}"
    );
}

/// Translating the data changes no cost (u = x − x_0 is exact): identical cuts, bit for bit.
#[test]
fn offsets_change_nothing() {
    let mut rng = Rng::new(5);
    for (n, k) in [(3000usize, 4usize), (500, 7)] {
        let x: Vec<f64> = random_data(&mut rng, n, 1)
            .iter()
            .map(|v| (v * 1024.0).round() / 1024.0)
            .collect();
        let w = random_weights(&mut rng, n, 10.0);
        let base = optimal_cuts(&x, Some(&w), k, &Control::new()).unwrap();
        for offset in [1e9, -1e9, 2f64.powi(40), 3.0] {
            let shifted: Vec<f64> = x.iter().map(|v| v + offset).collect();
            // x + offset is exact here (values on a 2^-10 grid, far below 2^53 ulps).
            assert!(shifted.iter().zip(&x).all(|(s, v)| s - offset == *v));
            assert_eq!(
                optimal_cuts(&shifted, Some(&w), k, &Control::new()).unwrap(),
                base
            );
        }
        // Scaling by powers of two is exact too.
        let scaled: Vec<f64> = x.iter().map(|v| v * 2f64.powi(300)).collect();
        let wscaled: Vec<f64> = w.iter().map(|v| v * 2f64.powi(-200)).collect();
        assert_eq!(
            optimal_cuts(&scaled, Some(&wscaled), k, &Control::new()).unwrap(),
            base
        );
    }
}

/// The plain-double estimate used to skip columns is within half its radius of the
/// double-double value (the radius has a factor 2 to spare), on data built to make it
/// inaccurate: long arrays, values far from the origin, weights spanning 1e11, many ties,
/// short intervals far into the array.
#[test]
fn the_filter_radius_bounds_the_plain_double_error() {
    let mut worst: f64 = 0.0;
    for (seed, n, spread, kind) in [
        (1u64, 300_000usize, 0.0, 3usize),
        (2, 100_000, 26.0, 1),
        (3, 100_000, 26.0, 2),
        (4, 50_000, 10.0, 0),
    ] {
        let mut rng = Rng::new(seed);
        let x = random_data(&mut rng, n, kind);
        let w = random_weights(&mut rng, n, spread);
        let p = Prefix::new(&x, Some(&w), &Control::new()).unwrap();
        for _ in 0..20_000 {
            let m = 1 + rng.below(n).unwrap();
            let len = if rng.next_f64() < 0.5 {
                1 + rng.below(m.min(20)).unwrap()
            } else {
                1 + rng.below(m).unwrap()
            };
            let i = m - len;
            let d = if rng.next_f64() < 0.5 {
                0.0
            } else {
                p.cost(0, m) * rng.next_f64()
            };
            let (v, radius) = estimate([p.ph[i], p.pl[i], p.ah[i], p.bh[i]], p.at(m), d);
            let exact = d + p.cost(i, m);
            worst = worst.max((v - exact).abs() / radius);
        }
    }
    eprintln!("worst |estimate - double-double| / radius = {worst:.3}");
    assert!(worst <= 0.5, "{worst}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// `best_split` (filtered) picks exactly what `choose` picks from every column's
    /// double-double value: the same split, bound and value, bit for bit.
    #[test]
    fn the_filter_changes_no_choice(seed in any::<u64>(), n in 2usize..3000, kind in 0usize..4, spread in 0.0f64..25.0, d_kind in 0usize..3) {
        let mut rng = Rng::new(seed);
        let x = random_data(&mut rng, n, kind);
        let w = random_weights(&mut rng, n, spread);
        let p = Prefix::new(&x, Some(&w), &Control::new()).unwrap();
        let mut d = vec![0.0; n + 1];
        match d_kind {
            0 => {}
            1 => p.first_layer(&mut d),
            _ => d.iter_mut().for_each(|v| *v = rng.next_f64() * p.cost(0, n)),
        }
        let mut scan = Scan { values: vec![0.0; n + 1], cols: vec![0; n + 1] };
        for _ in 0..20 {
            let m = 1 + rng.below(n).unwrap();
            let lo = rng.below(m).unwrap();
            let hi = lo + rng.below(m - lo).unwrap();
            let all: Vec<f64> = (lo..=hi).map(|i| d[i] + p.cost(i, m)).collect();
            let (tie, arg) = choose(&all).unwrap();
            let got = p.best_split(m, lo, hi, &d, &mut scan).unwrap();
            prop_assert_eq!((got.split, got.arg), (lo + tie, lo + arg));
            prop_assert_eq!(got.value.to_bits(), all[tie].to_bits());
        }
    }
}

// ------------------------------------------------------------------------------ optimality

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Brute force over every interval partition (n <= 10), weighted or not, with ties.
    #[test]
    fn equals_brute_force(seed in any::<u64>(), n in 1usize..11, k in 1usize..6, kind in 0usize..4, weighted in any::<bool>()) {
        let k = k.min(n);
        let mut rng = Rng::new(seed);
        let x = random_data(&mut rng, n, kind);
        let w = if weighted { random_weights(&mut rng, n, 6.0) } else { ones(n) };
        let cuts = optimal_cuts(&x, weighted.then_some(&w[..]), k, &Control::new()).unwrap();
        prop_assert_eq!(cuts.len(), k - 1);
        prop_assert!(cuts.windows(2).all(|c| c[0] < c[1]));
        prop_assert!(cuts.first().is_none_or(|&c| c > 0) && cuts.last().is_none_or(|&c| c < n));
        let got = partition_cost(&x, &w, &cuts);
        let best = brute_force(&x, &w, k);
        let scale = partition_cost(&x, &w, &[]);
        prop_assert!(got <= best + 1e-12 * best + 1e-14 * scale, "{got} vs {best}");
    }

    /// Against the plain dynamic programme over all columns (same costs, same tie rule):
    /// every layer's row minima agree to rounding, and so does W; on continuous data (no
    /// ties) the cuts are identical.
    #[test]
    fn equals_the_full_dynamic_programme(seed in any::<u64>(), n in 2usize..120, k in 2usize..7, kind in 0usize..4, weighted in any::<bool>()) {
        let k = k.min(n);
        let mut rng = Rng::new(seed);
        let x = random_data(&mut rng, n, kind);
        let w = if weighted { random_weights(&mut rng, n, 12.0) } else { ones(n) };
        let p = Prefix::new(&x, Some(&w), &Control::new()).unwrap();
        let (full_cuts, full_layers) = full_dp(&p, k);
        let dc = dc_layers(&p, k);
        let scale = p.cost(0, n);
        for (j, (a, b)) in dc.iter().zip(&full_layers).enumerate() {
            for m in j + 1..=n - k + j + 1 {
                prop_assert!((a[m] - b[m]).abs() <= 1e-12 * b[m].abs() + 1e-15 * scale, "layer {} row {m}: {} vs {}", j + 1, a[m], b[m]);
            }
        }
        let cuts = optimal_cuts(&x, Some(&w), k, &Control::new()).unwrap();
        let (got, want) = (partition_cost(&x, &w, &cuts), partition_cost(&x, &w, &full_cuts));
        prop_assert!((got - want).abs() <= 1e-12 * want + 1e-14 * partition_cost(&x, &w, &[]), "{got} vs {want}");
        if kind == 0 || kind == 1 {
            prop_assert_eq!(cuts, full_cuts);
        }
    }
}

#[test]
fn ties_go_to_the_smallest_split() {
    let c = Control::new();
    // {0} | {1, 2} and {0, 1} | {2} both have W = 1/2.
    assert_eq!(
        optimal_cuts(&[0.0, 1.0, 2.0], None, 2, &c).unwrap(),
        vec![1]
    );
    // Constant data: every partition has W = 0; sizes 1, 1, ..., n - k + 1.
    assert_eq!(optimal_cuts(&[3.5; 6], None, 3, &c).unwrap(), vec![1, 2]);
    assert_eq!(
        optimal_cuts(&[-2.0; 1000], None, 5, &c).unwrap(),
        vec![1, 2, 3, 4]
    );
    // Two distinct values, k = 3: a run must be split, at its smallest position.
    assert_eq!(
        optimal_cuts(&[1.0, 1.0, 1.0, 2.0], None, 3, &c).unwrap(),
        vec![1, 3]
    );
    // k = n: singletons; k = 1: no cut.
    assert_eq!(
        optimal_cuts(&[1.0, 2.0, 4.0], None, 3, &c).unwrap(),
        vec![1, 2]
    );
    assert_eq!(
        optimal_cuts(&[1.0, 2.0, 4.0], None, 1, &c).unwrap(),
        Vec::<usize>::new()
    );
}

#[test]
fn well_separated_groups_are_found_at_scale() {
    // 5 groups of 20 000 points, far apart: the cuts are the group boundaries.
    let mut rng = Rng::new(9);
    let mut x: Vec<f64> = (0..100_000)
        .map(|i| (i / 20_000) as f64 * 100.0 + rng.next_f64())
        .collect();
    x.sort_by(f64::total_cmp);
    let cuts = optimal_cuts(&x, None, 5, &Control::new()).unwrap();
    assert_eq!(cuts, vec![20_000, 40_000, 60_000, 80_000]);
}

// ------------------------------------------------------------------ memory, errors, control

#[test]
fn memory_bytes_counts_the_allocations() {
    for (n, k) in [
        (1usize, 1usize),
        (2, 2),
        (10, 3),
        (1000, 2),
        (1000, 7),
        (37, 37),
        (500, 250),
    ] {
        let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let want = memory_bytes(n, k).unwrap();
        if k < 2 {
            assert_eq!(want, 0);
            continue;
        }
        let p = Prefix::new(&x, None, &Control::new()).unwrap();
        let b = Buffers::new(n, k).unwrap();
        let f = |v: &Vec<f64>| 8 * v.capacity() as u64;
        let got = [
            &p.ph,
            &p.pl,
            &p.ah,
            &p.al,
            &p.bh,
            &p.bl,
            &b.d_prev,
            &b.d_next,
            &b.scan.values,
        ]
        .into_iter()
        .map(f)
        .sum::<u64>()
            + 4 * (b.back.capacity() + b.scan.cols.capacity()) as u64;
        assert_eq!(got, want, "n = {n}, k = {k}");
    }
    assert_eq!(memory_bytes(usize::MAX, usize::MAX / 2), None);
    assert_eq!(memory_bytes(5, 6), Some(0));
}

#[test]
fn impossible_sizes_are_out_of_memory_not_a_crash() {
    let err = Buffers::new(usize::MAX / 4, usize::MAX / 8).err().unwrap();
    assert!(matches!(err, KGroupsError::OutOfMemory { .. }), "{err}");
}

#[test]
fn bad_input_is_refused_with_a_clear_message() {
    let c = Control::new();
    type Case = (Vec<f64>, Option<Vec<f64>>, usize, &'static str);
    let cases: Vec<Case> = vec![
        (vec![], None, 1, "x is empty"),
        (vec![1.0, 2.0], None, 0, "use 1 <= k <= n"),
        (vec![1.0, 2.0], None, 3, "k = 3 clusters for n = 2"),
        (vec![1.0, f64::NAN], None, 1, "NaN or infinite"),
        (vec![f64::NEG_INFINITY, 1.0], None, 2, "NaN or infinite"),
        (
            vec![2.0, 1.0],
            None,
            1,
            "sorted ascending, but x[0] = 2 > x[1] = 1",
        ),
        (vec![1.0, 2.0], Some(vec![1.0]), 1, "1 weights for n = 2"),
        (
            vec![1.0, 2.0],
            Some(vec![1.0, 0.0]),
            1,
            "positive and finite",
        ),
        (
            vec![1.0, 2.0],
            Some(vec![-1.0, 1.0]),
            1,
            "positive and finite",
        ),
        (
            vec![1.0, 2.0],
            Some(vec![1.0, f64::NAN]),
            1,
            "positive and finite",
        ),
        (
            vec![1.0, 2.0],
            Some(vec![1.0, f64::INFINITY]),
            1,
            "positive and finite",
        ),
        (
            vec![1.0, 2.0, 3.0],
            Some(vec![1e-20, 1.0, 1.0]),
            2,
            "weights span 1.0e20",
        ),
    ];
    for (x, w, k, want) in cases {
        let err = optimal_cuts(&x, w.as_deref(), k, &c).unwrap_err();
        assert!(matches!(err, KGroupsError::InvalidInput { .. }), "{err}");
        assert!(err.to_string().contains(want), "{err} lacks {want:?}");
    }
    // The weight-ratio limit is on the total weight: 2^53 points of weight 1 would be fine,
    // one weight 2^-53 below 2 others is not.
    let ok = optimal_cuts(&[0.0, 1.0, 2.0], Some(&[2f64.powi(-51), 1.0, 1.0]), 2, &c);
    assert!(ok.is_ok());
    let err = optimal_cuts(&[0.0, 1.0, 2.0], Some(&[2f64.powi(-53), 1.0, 1.0]), 2, &c);
    assert!(err
        .unwrap_err()
        .to_string()
        .contains("beyond the precision"));
    // k = 1 needs no precision: any positive weights.
    assert!(optimal_cuts(&[0.0, 1.0], Some(&[1e-300, 1e300]), 1, &c).is_ok());
    // Extreme but finite values do not overflow.
    let cuts = optimal_cuts(
        &[-1.7e308, -1e308, 1e308, 1.7e308],
        Some(&[1e300, 1e290, 1e295, 1e299]),
        2,
        &c,
    );
    assert_eq!(cuts.unwrap(), vec![2]);
}

#[test]
fn cancellation_is_noticed_within_a_fraction_of_a_second() {
    let mut rng = Rng::new(3);
    let x = random_data(&mut rng, 300_000, 0);
    let flag = AtomicBool::new(true);
    let control = Control::new().with_cancel(&flag);
    assert_eq!(
        optimal_cuts(&x, None, 6, &control),
        Err(KGroupsError::Interrupted)
    );
    flag.store(false, Ordering::Relaxed);
    std::thread::scope(|scope| {
        // Solve again and again (however fast the machine) until cancelled, for at most 60 s.
        let started = Instant::now();
        let (x, control) = (&x, &control);
        let worker = scope.spawn(move || loop {
            match optimal_cuts(x, None, 30, control) {
                Ok(_) if started.elapsed() < Duration::from_secs(60) => continue,
                Ok(_) => panic!("the cancellation was never noticed"),
                Err(e) => return (e, Instant::now()),
            }
        });
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::Relaxed);
        let set = Instant::now();
        let (err, stopped) = worker.join().unwrap();
        assert_eq!(err, KGroupsError::Interrupted);
        let latency = stopped.saturating_duration_since(set);
        // The promise is Ctrl-C within a second, on a loaded machine too.
        assert!(latency < Duration::from_secs(1), "{latency:?}");
    });
}
