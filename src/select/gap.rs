//! The gap statistic (Tibshirani, Walther & Hastie 2001) with the kernel construction held
//! fixed across the references, the structure test, and Tibshirani et al.'s rule that
//! picks k from it.

use crate::error::{KGroupsError, Result};

/// The gap curve over `k = 1 … K` (index `k − 1`).
#[derive(Debug, Clone, PartialEq)]
pub struct GapCurve {
    /// `E*[log W_k]`: the mean of `log W_k` over the references.
    pub expected: Vec<f64>,
    /// `Gap(k) = E*[log W_k] − log W_k`.
    pub gap: Vec<f64>,
    /// `sd_k`: the standard deviation of the references' `log W_k` (denominator `B`, as in
    /// Tibshirani et al.; R's `clusGap` divides by `B − 1`).
    pub sd: Vec<f64>,
    /// `s_k = sd_k · √(1 + 1/B)`, the standard error of `Gap(k)`.
    pub se: Vec<f64>,
}

/// The gap curve of the data's `log_w` (length K) against `reference_log_w` (B rows of K).
/// Errors when there is no reference or a row's length differs. (The tests' form of
/// [`gap_curve_of_rows`].)
#[cfg(test)]
fn gap_curve(log_w: &[f64], reference_log_w: &[Vec<f64>]) -> Result<GapCurve> {
    let k = log_w.len();
    if reference_log_w.iter().any(|r| r.len() != k) {
        return Err(no_reference());
    }
    curve(log_w, reference_log_w.len(), |r| &reference_log_w[r])
}

/// The gap curve of the data's `log_w` (length K) against the references' `log W` in one
/// row-major buffer of B rows of K. Errors when there is no reference or a row's length
/// differs.
pub fn gap_curve_of_rows(log_w: &[f64], reference_rows: &[f64]) -> Result<GapCurve> {
    let k = log_w.len();
    if k == 0 || !reference_rows.len().is_multiple_of(k) {
        return Err(no_reference());
    }
    curve(log_w, reference_rows.len() / k, |r| {
        &reference_rows[r * k..(r + 1) * k]
    })
}

fn no_reference() -> KGroupsError {
    KGroupsError::invalid(
        "n_refs",
        "the gap statistic needs at least one reference with one log W per k",
    )
}

/// The gap curve against the `b` rows `row(0) … row(b − 1)`, each of `log_w.len()` values.
fn curve<'r>(log_w: &[f64], b: usize, row: impl Fn(usize) -> &'r [f64]) -> Result<GapCurve> {
    let k = log_w.len();
    if b == 0 {
        return Err(no_reference());
    }
    let mut curve = GapCurve {
        expected: Vec::with_capacity(k),
        gap: Vec::with_capacity(k),
        sd: Vec::with_capacity(k),
        se: Vec::with_capacity(k),
    };
    for (j, &own) in log_w.iter().enumerate() {
        let mean = (0..b).map(|r| row(r)[j]).sum::<f64>() / b as f64;
        let var = (0..b)
            .map(|r| (row(r)[j] - mean) * (row(r)[j] - mean))
            .sum::<f64>()
            / b as f64;
        let sd = var.sqrt();
        curve.expected.push(mean);
        curve.gap.push(mean - own);
        curve.sd.push(sd);
        curve.se.push(sd * (1.0 + 1.0 / b as f64).sqrt());
    }
    Ok(curve)
}

/// The smallest gain `Gap(k) − Gap(1)` of some k ≥ 2 that counts as structure: 0.1, a
/// within-cluster dispersion a tenth below what the references reach at that k relative to
/// one group. On the development suite of `benches/bench_select_k.py` and 24 structureless
/// sets, structureless data gained at most 0.071 and grouped data at least 0.137 (the
/// overlapping TPAMI eq. 56 mixture, 0.023, is left to the kNN graph).
pub const STRUCTURE_MIN_GAIN: f64 = 0.1;

/// The gain must also exceed this many standard errors `s_k` (small samples, where the
/// references' spread is wide).
pub const STRUCTURE_MIN_SE: f64 = 3.0;

/// The structure score of a gap curve: `max over k ≥ 2 of Gap(k) − Gap(1) −
/// max(`[`STRUCTURE_MIN_GAIN`]`, `[`STRUCTURE_MIN_SE`]` · s_k)`; positive means the kernel
/// sees more than one group. NaN for a curve of one k. It is [`gain_beyond`] at k = 1.
pub fn structure_score(curve: &GapCurve) -> f64 {
    gain_beyond(&curve.gap, &curve.se, 1)
}

/// How far some larger k's gap beats k's: `max over j > k of Gap(j) − Gap(k) −
/// max(`[`STRUCTURE_MIN_GAIN`]`, `[`STRUCTURE_MIN_SE`]` · s_j)` (NaN when k is the last).
/// Positive means a larger k sees structure that k does not.
pub fn gain_beyond(gap: &[f64], se: &[f64], k: usize) -> f64 {
    let base = gap.get(k - 1).copied().unwrap_or(f64::NAN);
    gap.iter()
        .zip(se)
        .skip(k)
        .map(|(g, s)| g - base - STRUCTURE_MIN_GAIN.max(STRUCTURE_MIN_SE * s))
        .fold(f64::NAN, f64::max)
}

/// Tibshirani et al.'s rule from `k_from` on: the smallest `k ≥ k_from` with
/// `Gap(k) ≥ Gap(k+1) − s_{k+1}`, or the last k of the curve when none qualifies (the curve
/// still rises at its end). `k_from ≥ 1`; the curve starts at k = 1.
pub fn tibshirani_k(gap: &[f64], se: &[f64], k_from: usize) -> usize {
    let last = gap.len().min(se.len());
    (k_from.max(1)..last)
        .find(|&k| gap[k - 1] >= gap[k] - se[k])
        .unwrap_or(last.max(1))
}

/// The k of the energy gap: Tibshirani's rule from `k_from` on, passing over a k that sees
/// structure (`Gap(k) > Gap(1)`) when a larger k beats it by the structure margin
/// ([`gain_beyond`] positive) and by more than twice what k gained over one group
/// (`Gap(j) − Gap(k) > 2 (Gap(k) − Gap(1))`): groups of groups (evenly spaced blobs, say)
/// give the gap small local maxima before its steep rise at the true k, and those are not
/// where it stops; the slower rise past the true k of elongated groups is.
pub fn gap_k(gap: &[f64], se: &[f64], k_from: usize) -> usize {
    let last = gap.len().min(se.len());
    let mut k = tibshirani_k(gap, se, k_from);
    while k < last && beaten(gap, se, k) {
        k = tibshirani_k(gap, se, k + 1);
    }
    k
}

/// Whether `k` sees structure and a larger k beats it by the structure margin and by more
/// than twice what `k` gained over one group.
fn beaten(gap: &[f64], se: &[f64], k: usize) -> bool {
    let gained = gap[k - 1] - gap[0];
    let rise = gap[k..].iter().fold(f64::NEG_INFINITY, |a, &g| a.max(g)) - gap[k - 1];
    gained > 0.0 && gain_beyond(gap, se, k) > 0.0 && rise > 2.0 * gained
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tibshirani_k_matches_a_literal_transcription_on_random_curves() {
        let mut rng = crate::rng::Rng::new(5);
        for _ in 0..2000 {
            let k = 1 + rng.below(9).unwrap();
            let f: Vec<f64> = (0..k)
                .map(|_| (rng.below(5).unwrap() as f64) * 0.5)
                .collect();
            let se: Vec<f64> = (0..k).map(|_| rng.next_f64()).collect();
            let from = 1 + rng.below(k).unwrap();
            // R's maxSE(f, SE.f, "Tibs2001SEmax") on the curve from `from` on.
            let qualifies: Vec<bool> = (from - 1..k - 1)
                .map(|i| f[i] >= f[i + 1] - se[i + 1])
                .collect();
            let expected = qualifies.iter().position(|&b| b).map_or(k, |i| i + from);
            assert_eq!(tibshirani_k(&f, &se, from), expected, "{f:?} {se:?} {from}");
        }
    }

    #[test]
    fn the_structure_score_is_the_best_margin_over_one_group() {
        let curve = |gap: Vec<f64>, se: Vec<f64>| GapCurve {
            expected: vec![0.0; gap.len()],
            sd: se.clone(),
            gap,
            se,
        };
        // The gain at k = 4 (0.3) beats 0.1 and 3 · 0.05 by 0.15.
        let c = curve(vec![0.2, 0.2, 0.3, 0.5], vec![0.05; 4]);
        assert!((structure_score(&c) - 0.15).abs() < 1e-12);
        // A wide spread: 3 · 0.2 = 0.6 > 0.3.
        let c = curve(vec![0.2, 0.2, 0.3, 0.5], vec![0.2; 4]);
        assert!(structure_score(&c) < 0.0);
        assert!(structure_score(&curve(vec![0.2], vec![0.1])).is_nan());
    }

    #[test]
    fn gap_k_stops_where_no_larger_k_gains_the_margin() {
        let mut rng = crate::rng::Rng::new(9);
        for _ in 0..2000 {
            let len = 2 + rng.below(9).unwrap();
            let gap: Vec<f64> = (0..len).map(|_| rng.next_f64()).collect();
            let se: Vec<f64> = (0..len).map(|_| 0.05 * rng.next_f64()).collect();
            let from = 1 + rng.below(len).unwrap();
            let k = gap_k(&gap, &se, from);
            assert!((from..=len).contains(&k));
            // Where it stops, Tibshirani's condition holds (or the curve ended) and no larger
            // k gains the margin; every k it passed over failed one of the two.
            let stops =
                |k: usize| k == len || (gap[k - 1] >= gap[k] - se[k] && !beaten(&gap, &se, k));
            assert!(stops(k), "{gap:?} {se:?} {from} -> {k}");
            assert!((from..k).all(|j| !stops(j)), "{gap:?} {se:?} {from} -> {k}");
        }
    }

    #[test]
    fn gap_curve_matches_the_direct_formula() {
        let log_w = [2.0, 1.0, 0.5];
        let refs = vec![
            vec![2.1, 1.6, 1.2],
            vec![1.9, 1.4, 1.0],
            vec![2.0, 1.5, 1.4],
        ];
        let c = gap_curve(&log_w, &refs).unwrap();
        for j in 0..3 {
            let xs: Vec<f64> = refs.iter().map(|r| r[j]).collect();
            let mean = xs.iter().sum::<f64>() / 3.0;
            let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
            assert!((c.gap[j] - (mean - log_w[j])).abs() < 1e-12);
            assert!((c.se[j] - sd * (4.0f64 / 3.0).sqrt()).abs() < 1e-12);
        }
        assert!(gap_curve(&log_w, &[]).is_err());
        assert!(gap_curve(&log_w, &[vec![1.0]]).is_err());
    }
}

/// The examples of the items above, run as tests (the module is private to the crate).
#[cfg(test)]
mod examples {
    #[test]
    fn gap_curve_example() -> crate::error::Result<()> {
        use crate::select::gap::gap_curve;
        let curve = gap_curve(&[1.0, 0.0], &[vec![1.0, 0.9], vec![1.0, 1.1]])?;
        assert!((curve.gap[1] - 1.0).abs() < 1e-12);
        assert!((curve.sd[1] - 0.1).abs() < 1e-12);
        assert!((curve.se[1] - 0.1 * 1.5f64.sqrt()).abs() < 1e-12);
        Ok(())
    }

    #[test]
    fn gap_curve_of_rows_example() -> crate::error::Result<()> {
        use crate::select::gap::{gap_curve, gap_curve_of_rows};
        let rows = [1.0, 0.9, 1.0, 1.1];
        let curve = gap_curve(&[1.0, 0.0], &[vec![1.0, 0.9], vec![1.0, 1.1]])?;
        assert_eq!(gap_curve_of_rows(&[1.0, 0.0], &rows)?, curve);
        Ok(())
    }

    #[test]
    fn structure_score_example() {
        use crate::select::gap::{structure_score, GapCurve};
        let curve = GapCurve {
            expected: vec![0.0; 3],
            gap: vec![0.40, 0.42, 0.60],
            sd: vec![0.01; 3],
            se: vec![0.01; 3],
        };
        // k = 3 gains 0.20 over one group, more than 0.1 and than 3 · 0.01.
        assert!((structure_score(&curve) - 0.10).abs() < 1e-12);
    }

    #[test]
    fn tibshirani_k_example() {
        use crate::select::gap::tibshirani_k;
        let gap = [0.0, 1.0, 1.05, 2.0];
        let se = [0.1, 0.1, 0.1, 0.1];
        assert_eq!(tibshirani_k(&gap, &se, 1), 2); // 1.0 ≥ 1.05 − 0.1
        assert_eq!(tibshirani_k(&gap, &se, 3), 4); // rises to the end
    }

    #[test]
    fn gap_k_example() {
        use crate::select::gap::{gap_k, tibshirani_k};
        let gap = [-0.1, -0.06, -0.03, 0.11, 0.13, 0.25, 0.55, 1.26, 1.19];
        let se = [0.02; 9];
        assert_eq!(tibshirani_k(&gap, &se, 2), 4); // a small local maximum
        assert_eq!(gap_k(&gap, &se, 2), 8);
        // Past a clear first rise, a slower one does not move it.
        let gap = [0.0, 0.6, 0.9, 0.85, 0.95, 1.05, 1.15];
        assert_eq!(gap_k(&gap, &se, 2), 3);
    }
}
