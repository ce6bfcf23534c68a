//! The gap statistic (Tibshirani, Walther & Hastie 2001) with the kernel construction held
//! fixed across the references, and the rules of R's `cluster::maxSE` that pick k from it.

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
/// Errors when there is no reference or a row's length differs.
///
/// ```
/// use kgroups::select::gap::gap_curve;
/// let curve = gap_curve(&[1.0, 0.0], &[vec![1.0, 0.9], vec![1.0, 1.1]])?;
/// assert!((curve.gap[1] - 1.0).abs() < 1e-12);
/// assert!((curve.sd[1] - 0.1).abs() < 1e-12);
/// assert!((curve.se[1] - 0.1 * 1.5f64.sqrt()).abs() < 1e-12);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn gap_curve(log_w: &[f64], reference_log_w: &[Vec<f64>]) -> Result<GapCurve> {
    let k = log_w.len();
    if reference_log_w.iter().any(|r| r.len() != k) {
        return Err(no_reference());
    }
    curve(log_w, reference_log_w.len(), |r| &reference_log_w[r])
}

/// [`gap_curve`] with the references' `log W` in one row-major buffer of B rows of K.
///
/// ```
/// use kgroups::select::gap::{gap_curve, gap_curve_of_rows};
/// let rows = [1.0, 0.9, 1.0, 1.1];
/// let curve = gap_curve(&[1.0, 0.0], &[vec![1.0, 0.9], vec![1.0, 1.1]])?;
/// assert_eq!(gap_curve_of_rows(&[1.0, 0.0], &rows)?, curve);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
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

/// R `cluster::maxSE`'s rules (with `SE.factor = 1`) for choosing k from `f = Gap` and its
/// standard errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapRule {
    /// The smallest k with `f(k) ≥ f(k+1) − s_{k+1}` (Tibshirani et al.'s rule).
    Tibs2001SEmax,
    /// The smallest k with `f(k) ≥ f(K*) − s_{K*}`, `K*` the first local maximum.
    FirstSEmax,
    /// The smallest k with `f(k) ≥ f(K*) − s_{K*}`, `K*` the global maximum.
    GlobalSEmax,
    /// The first local maximum.
    FirstMax,
    /// The global maximum (the first, if tied).
    GlobalMax,
}

impl GapRule {
    /// Every rule, in R's order.
    pub const ALL: [GapRule; 5] = [
        GapRule::Tibs2001SEmax,
        GapRule::FirstSEmax,
        GapRule::GlobalSEmax,
        GapRule::FirstMax,
        GapRule::GlobalMax,
    ];

    /// R's name of the rule.
    pub fn name(self) -> &'static str {
        match self {
            GapRule::Tibs2001SEmax => "Tibs2001SEmax",
            GapRule::FirstSEmax => "firstSEmax",
            GapRule::GlobalSEmax => "globalSEmax",
            GapRule::FirstMax => "firstmax",
            GapRule::GlobalMax => "globalmax",
        }
    }
}

/// The position (1-based, so k when `f` starts at k = 1) that `rule` picks from `f` and
/// `se` (same length ≥ 1), as R's `cluster::maxSE(f, SE.f, method, SE.factor = 1)`.
///
/// ```
/// use kgroups::select::gap::{max_se, GapRule};
/// let f = [0.0, 1.0, 1.05, 2.0];
/// let se = [0.1, 0.1, 0.1, 0.1];
/// assert_eq!(max_se(&f, &se, GapRule::Tibs2001SEmax), 2); // 1.0 ≥ 1.05 − 0.1
/// assert_eq!(max_se(&f, &se, GapRule::GlobalMax), 4);
/// assert_eq!(max_se(&f, &se, GapRule::FirstMax), 4);
/// assert_eq!(max_se(&f, &se, GapRule::GlobalSEmax), 4);
/// ```
pub fn max_se(f: &[f64], se: &[f64], rule: GapRule) -> usize {
    let k = f.len().min(se.len());
    if k == 0 {
        return 1;
    }
    let first_max = || (0..k - 1).find(|&i| f[i + 1] <= f[i]).map_or(k, |i| i + 1);
    let global_max = || {
        let mut best = 0;
        for i in 1..k {
            if f[i] > f[best] {
                best = i;
            }
        }
        best + 1
    };
    let within_se_of = |nc: usize| {
        let bound = f[nc - 1] - se[nc - 1];
        (0..nc - 1).find(|&i| f[i] >= bound).map_or(nc, |i| i + 1)
    };
    match rule {
        GapRule::GlobalMax => global_max(),
        GapRule::FirstMax => first_max(),
        GapRule::Tibs2001SEmax => (0..k - 1)
            .find(|&i| f[i] >= f[i + 1] - se[i + 1])
            .map_or(k, |i| i + 1),
        GapRule::FirstSEmax => within_se_of(first_max()),
        GapRule::GlobalSEmax => within_se_of(global_max()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R's maxSE, transcribed literally from the prototype (numpy semantics).
    fn reference_rule(f: &[f64], se: &[f64], rule: GapRule) -> usize {
        let k = f.len();
        let argmax_true = |v: &[bool]| v.iter().position(|&b| b);
        let first = || {
            let decr: Vec<bool> = (0..k - 1).map(|i| f[i + 1] - f[i] <= 0.0).collect();
            argmax_true(&decr).map_or(k, |i| i + 1)
        };
        let global = || {
            let mut b = 0;
            for i in 0..k {
                if f[i] > f[b] {
                    b = i;
                }
            }
            b + 1
        };
        match rule {
            GapRule::GlobalMax => global(),
            GapRule::FirstMax => first(),
            GapRule::Tibs2001SEmax => {
                let mp: Vec<bool> = (0..k - 1).map(|i| f[i] >= f[i + 1] - se[i + 1]).collect();
                argmax_true(&mp).map_or(k, |i| i + 1)
            }
            GapRule::FirstSEmax | GapRule::GlobalSEmax => {
                let nc = if rule == GapRule::FirstSEmax {
                    first()
                } else {
                    global()
                };
                let mp: Vec<bool> = (0..nc - 1)
                    .map(|i| f[i] >= f[nc - 1] - se[nc - 1])
                    .collect();
                argmax_true(&mp).map_or(nc, |i| i + 1)
            }
        }
    }

    #[test]
    fn rules_match_a_literal_transcription_on_random_curves() {
        let mut rng = crate::rng::Rng::new(5);
        for _ in 0..2000 {
            let k = 1 + rng.below(9).unwrap();
            let f: Vec<f64> = (0..k)
                .map(|_| (rng.below(5).unwrap() as f64) * 0.5)
                .collect();
            let se: Vec<f64> = (0..k).map(|_| rng.next_f64()).collect();
            for rule in GapRule::ALL {
                assert_eq!(
                    max_se(&f, &se, rule),
                    reference_rule(&f, &se, rule),
                    "{f:?} {se:?} {rule:?}"
                );
            }
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
