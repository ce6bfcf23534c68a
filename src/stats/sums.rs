//! The one pass over the upper triangle of ρ behind every statistic of a partition: checks of
//! the partition, weights scaled by a power of two, sums per cluster, and the k × k table of
//! cluster pair sums.

use std::ops::Range;

use rayon::prelude::*;

use super::scaled::ScaledData;
use super::source::{PairwiseSource, SourceRows};
use super::{MAX_GROUP_ACCS, MAX_GROUP_ROWS, WORK_PER_THREAD};
use crate::control::Control;
use crate::distance::PairwiseRows;
use crate::error::{try_filled, KGroupsError, Result};
use crate::scale::times_pow2;
use crate::validate;

/// The end of the group of rows that starts at `start`: about [`WORK_PER_THREAD`] work per
/// thread of the current pool, with `cost(a)` the work of row `a`; at most `max_rows` rows
/// and at least one.
pub(super) fn group_end(
    start: usize,
    n: usize,
    max_rows: usize,
    cost: impl Fn(usize) -> usize,
) -> usize {
    let budget = WORK_PER_THREAD.saturating_mul(rayon::current_num_threads().max(1));
    let mut work = 0usize;
    let mut end = start;
    while end < n && end - start < max_rows.max(1) {
        work = work.saturating_add(cost(end).max(1));
        end += 1;
        if work >= budget {
            break;
        }
    }
    end
}

/// Weights divided by 2^`exponent` (a power of two near the largest weight), and the cluster
/// weights of the partition in the same units.
struct ScaledPartition {
    /// w_i · 2^-exponent (ones for unit weights).
    w: Vec<f64>,
    /// s_j · 2^-exponent.
    s: Vec<f64>,
    /// The weight scale.
    exponent: i32,
}

/// Validates `k`, `labels` and `weights` for `n` points, before anything is allocated from
/// `k`: k ≥ 1, one label per point, labels in 0..k, k ≤ n, no empty cluster, weights finite
/// and > 0 with finite cluster sums.
fn validate_partition(
    n: usize,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
) -> Result<ScaledPartition> {
    // k = max(labels) + 1 when the caller counts the labels: a label beyond the points is
    // the error to report, before k is judged.
    if k > n {
        if let Some(i) = labels.iter().position(|&l| l >= n) {
            return Err(KGroupsError::invalid(
                "labels",
                format!(
                    "labels[{i}] = {} but the data have only n = {n} points; every cluster \
                     0..k-1 needs a point, so labels must be below n",
                    labels[i]
                ),
            ));
        }
    }
    validate::k(k, n)?;
    validate::labels(labels, n, k, "labels")?;
    let (w, exponent) = match weights {
        None => (try_filled(n, 1.0, "weights", "the point weights")?, 0),
        Some(w) => validate::scaled_weights(w, n, "weights")?,
    };
    let mut s = try_filled(k, 0.0, "k", "the cluster weights")?;
    for (&l, &wi) in labels.iter().zip(&w) {
        s[l] += wi;
    }
    if let Some(j) = s.iter().position(|&v| !times_pow2(v, exponent).is_finite()) {
        return Err(KGroupsError::invalid(
            "weights",
            format!("the weights of cluster {j} add up to infinity; rescale the weights"),
        ));
    }
    Ok(ScaledPartition { w, s, exponent })
}

/// The sums of a partition in scaled units (ρ' = ρ·2^-rho_exponent, w' = w·2^-weight_exponent).
pub(super) struct PartitionSums {
    /// U'_j = Σ_{a<b, both in C_j} w'_a w'_b ρ'_ab.
    pub(super) within: Vec<f64>,
    /// B' = Σ_{a<b in different clusters} w'_a w'_b ρ'_ab.
    pub(super) between: f64,
    /// With the k × k table: u'[i·k + j] = Σ_{a∈C_i, b∈C_j, a<b} w'_a w'_b ρ'_ab (row-major).
    pub(super) pairs: Option<Vec<f64>>,
    /// The scaled cluster weights s'_j.
    pub(super) s: Vec<f64>,
    pub(super) rho_exponent: i32,
    pub(super) weight_exponent: i32,
}

/// One pass over the upper triangle of ρ: validates everything, then accumulates
/// [`PartitionSums`], with the k × k table if `with_pairs`. Rows run in parallel within groups
/// of a few milliseconds; groups are combined in row order, then `control` is checked.
pub(super) fn partition_sums(
    source: &PairwiseSource,
    scaled: Option<&ScaledData>,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
    with_pairs: bool,
    control: &Control,
) -> Result<PartitionSums> {
    let n = source.n();
    // The shape of the source and the O(n) checks first, then the (possibly O(n²)) validation.
    match *source {
        PairwiseSource::Data { .. } => {}
        PairwiseSource::Semimetric { r: m, n } | PairwiseSource::GramF64 { g: m, n } => {
            validate::non_empty(n, source.argument())?;
            validate::square(m.len(), n, source.argument())?;
        }
    }
    let ScaledPartition { w, s, exponent } = validate_partition(n, labels, k, weights)?;
    control.checkpoint()?;
    source.validate_with(control)?;
    control.checkpoint()?;
    let eval = SourceRows::new(*source, scaled)?;
    control.checkpoint()?;

    let max_rows = if with_pairs {
        (MAX_GROUP_ACCS / k).clamp(1, MAX_GROUP_ROWS)
    } else {
        MAX_GROUP_ROWS
    }
    .min(n);
    let mut row_sums = try_filled(2 * max_rows, 0.0, "labels", "the per-row sums")?;
    let (mut accs, mut pairs) = if with_pairs {
        let table = k.checked_mul(k).ok_or_else(|| KGroupsError::OutOfMemory {
            argument: "k",
            message: format!(
                "the k × k table of cluster pair sums for k = {k} does not fit in memory"
            ),
        })?;
        (
            try_filled(max_rows * k, 0.0, "k", "the per-row cluster sums")?,
            try_filled(
                table,
                0.0,
                "k",
                "the k × k table of cluster pair sums behind g (W, S and total alone need none)",
            )?,
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let mut within = try_filled(k, 0.0, "k", "the within-cluster sums")?;
    let mut between = 0.0;
    let cost = eval.cost_per_value();
    let mut start = 0;
    while start < n {
        let end = group_end(start, n, max_rows, |a| (n - a - 1).saturating_mul(cost));
        let rows: Range<usize> = start..end;
        let sums = &mut row_sums[..2 * rows.len()];
        if with_pairs {
            let group = &mut accs[..rows.len() * k];
            sums.par_chunks_mut(2)
                .zip(group.par_chunks_mut(k))
                .zip(rows.clone())
                .for_each(|((out, acc), a)| {
                    acc.fill(0.0);
                    let (same, other) = eval.upper_row_sums(a, labels, &w, Some(acc));
                    out.copy_from_slice(&[same, other]);
                });
        } else {
            sums.par_chunks_mut(2)
                .zip(rows.clone())
                .for_each(|(out, a)| {
                    let (same, other) = eval.upper_row_sums(a, labels, &w, None);
                    out.copy_from_slice(&[same, other]);
                });
        }
        control.checkpoint()?;
        for (out, a) in sums.chunks_exact(2).zip(rows.clone()) {
            let (ca, wa) = (labels[a], w[a]);
            within[ca] += wa * out[0];
            between += wa * out[1];
        }
        if with_pairs {
            for (acc, a) in accs.chunks_exact(k).zip(rows) {
                let (ca, wa) = (labels[a], w[a]);
                for (t, &v) in pairs[ca * k..(ca + 1) * k].iter_mut().zip(acc) {
                    *t += wa * v;
                }
            }
        }
        start = end;
    }
    if !between.is_finite() || within.iter().any(|v| !v.is_finite()) {
        let arg = source.argument();
        return Err(KGroupsError::invalid(
            arg,
            format!("the weighted sums of semimetric values overflow f64; rescale {arg}"),
        ));
    }
    Ok(PartitionSums {
        within,
        between,
        pairs: with_pairs.then_some(pairs),
        s,
        rho_exponent: eval.exponent,
        weight_exponent: exponent,
    })
}

/// `value · 2^(rho_exponent + weight_exponent)`, or an error naming the argument whose scale
/// makes it exceed f64: the weights when the value without their scale fits, else `source`.
pub(super) fn scale_back(
    value: f64,
    rho_exponent: i32,
    weight_exponent: i32,
    source: &'static str,
    what: &str,
) -> Result<f64> {
    let v = times_pow2(value, rho_exponent.saturating_add(weight_exponent));
    if v.is_finite() {
        return Ok(v);
    }
    let argument = if weight_exponent > 0 && times_pow2(value, rho_exponent).is_finite() {
        "weights"
    } else {
        source
    };
    Err(KGroupsError::invalid(
        argument,
        format!(
            "{what} = {value:e} · 2^{} exceeds the largest f64 (about 1.8e308); rescale {argument}",
            rho_exponent.saturating_add(weight_exponent)
        ),
    ))
}

/// Tiles of the symmetric k × k post-processing, so that transposed reads stay in cache.
const TILE: usize = 64;

/// Calls `f(i, j)` for every 0 <= i <= j < k, tile by tile.
pub(super) fn for_upper_pairs(
    k: usize,
    mut f: impl FnMut(usize, usize) -> Result<()>,
) -> Result<()> {
    for bi in (0..k).step_by(TILE) {
        for bj in (bi..k).step_by(TILE) {
            for i in bi..(bi + TILE).min(k) {
                for j in i.max(bj)..(bj + TILE).min(k) {
                    f(i, j)?;
                }
            }
        }
    }
    Ok(())
}

/// The k×k matrix (row-major) of sums `T[i][j]` = Σ_{a∈C_i} Σ_{b∈C_j} w_a w_b ρ(x_a, x_b), and the
/// cluster weights s_j = Σ_{a∈C_j} w_a.
///
/// Each pair is evaluated once (ρ(a,a) = 0); rows are processed in parallel and their
/// contributions combined in index order, so the result is exactly symmetric and independent of
/// the number of threads. `weights = None` means unit weights. Checks `control` every few
/// milliseconds.
///
/// Errors: `k = 0` or k > n; `labels` not of length n, a label ≥ k, or an empty cluster;
/// `weights` not of length n or not finite and > 0; an invalid source (see
/// [`PairwiseSource::validate`]); a sum that exceeds f64 (naming the source or `weights`);
/// [`KGroupsError::OutOfMemory`] when the k × k table cannot be allocated;
/// [`KGroupsError::Interrupted`] when `control` is cancelled.
///
/// ```
/// use kgroups::distance::{Points, Semimetric};
/// use kgroups::stats::{cluster_pair_sums, PairwiseSource};
/// use kgroups::Control;
/// let x = Points::new(&[0.0, 1.0, 3.0], 3, 1).unwrap();
/// let src = PairwiseSource::Data { points: x, semimetric: Semimetric::Power { alpha: 1.0 } };
/// let (t, s) = cluster_pair_sums(&src, &[0, 0, 1], 2, None, &Control::new()).unwrap();
/// assert_eq!(t, vec![2.0, 5.0, 5.0, 0.0]);
/// assert_eq!(s, vec![2.0, 1.0]);
/// ```
pub fn cluster_pair_sums(
    source: &PairwiseSource,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
    control: &Control,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let sums = partition_sums(source, None, labels, k, weights, true, control)?;
    let arg = source.argument();
    let (rho_e, w_e) = (sums.rho_exponent, sums.weight_exponent);
    let mut t = sums.pairs.unwrap_or_default();
    for_upper_pairs(k, |i, j| {
        let v = if i == j {
            2.0 * t[i * k + i]
        } else {
            t[i * k + j] + t[j * k + i]
        };
        let v = scale_back(v, rho_e, w_e.saturating_mul(2), arg, "a cluster pair sum")?;
        t[i * k + j] = v;
        t[j * k + i] = v;
        Ok(())
    })?;
    let mut s = sums.s;
    for v in &mut s {
        *v = times_pow2(*v, w_e);
    }
    Ok((t, s))
}
