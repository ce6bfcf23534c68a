//! Energy statistics of a partition (specification, "Energy statistics"), with point weights.
//!
//! With cluster weights s_j = Σ_{i∈C_j} w_i and s = Σ_j s_j:
//!
//! - g(A,B) = (1/(s_A s_B)) Σ_{a∈A} Σ_{b∈B} w_a w_b ρ(x_a,x_b);
//! - within dispersion W = Σ_j (s_j/2)·g(C_j,C_j);
//! - between statistic S = Σ_{i<j} (s_i s_j/(2s))·[2g(C_i,C_j) − g(C_i,C_i) − g(C_j,C_j)];
//! - total = (s/2)·g(X,X) = W + S.
//!
//! W, S and total need O(k) memory: with U_j = Σ_{a<b, both in C_j} w_a w_b ρ_ab and
//! B = Σ_{a<b in different clusters} w_a w_b ρ_ab, W = Σ_j U_j/s_j, total = (Σ_j U_j + B)/s and
//! S = (B − Σ_j (U_j/s_j)(s − s_j))/s, whose two terms are both non-negative (S is as accurate
//! as the sum of its terms). Only the matrix g takes k² memory, and only when asked for.
//!
//! Weights are divided by a power of two near the largest weight, and the values of a matrix
//! R or G by a power of two near their largest magnitude, so that no weighted sum overflows or
//! underflows whatever the scale of the input; the results are scaled back exactly at the end,
//! and an error names the argument whose scale makes a result exceed the range of f64.
//!
//! All sums are accumulated in a fixed order (rows in index order, each row sequentially), so
//! results are bit for bit independent of the number of threads. Rows are processed in groups
//! of a few milliseconds of work, with a cancellation checkpoint after each group.

use std::ops::Range;

use rayon::prelude::*;

use crate::control::Control;
use crate::error::{try_filled, KGroupsError, Result};
use crate::gram::{
    check_square, max_abs, rho_from_squared_distances, squared_distances_to_transposed,
    validate_semimetric_matrix, Base, Frame, Points, Semimetric,
};
use crate::scale::{binary_exponent, times_pow2};

/// Semimetric values of one row evaluated at once, into a buffer on the stack.
const CHUNK: usize = 512;
/// Work (in rough floating-point operations) per thread between two cancellation checkpoints:
/// a few milliseconds.
const WORK_PER_THREAD: usize = 1 << 22;
/// At most this many rows in one group (bounds the per-row result buffers).
const MAX_GROUP_ROWS: usize = 1 << 14;
/// At most this many per-row cluster accumulators (rows × k) in one group, when the k × k
/// table is computed.
const MAX_GROUP_ACCS: usize = 1 << 22;

/// Where pairwise semimetric values ρ(x_a, x_b) come from.
///
/// ```
/// use kgroups::gram::{Points, Semimetric};
/// use kgroups::stats::PairwiseSource;
/// let x = Points::new(&[0.0, 1.0, 3.0], 3, 1).unwrap();
/// let src = PairwiseSource::Data { points: x, semimetric: Semimetric::Power { alpha: 1.0 } };
/// assert_eq!(src.n(), 3);
/// assert!(src.validate().is_ok());
/// ```
#[derive(Clone, Copy, Debug)]
pub enum PairwiseSource<'a> {
    /// ρ computed on the fly from the data (O(n·D) extra memory).
    Data {
        /// The data points.
        points: Points<'a>,
        /// The semimetric.
        semimetric: Semimetric,
    },
    /// A precomputed row-major n×n semimetric matrix R (validated as in
    /// [`crate::gram::gram_from_semimetric`]; its upper triangle is used). Errors name `"R"`.
    Semimetric {
        /// The matrix, `n * n` values.
        r: &'a [f64],
        /// Number of points.
        n: usize,
    },
    /// A row-major n×n Gram matrix G: ρ(a,b) = G_aa + G_bb − 2G_ab (must be finite and
    /// symmetric by the rule of [`crate::symmetry`]; its upper triangle is used; any finite
    /// magnitude, ρ is evaluated without overflow). Errors name `"G"`.
    GramF64 {
        /// The matrix, `n * n` values.
        g: &'a [f64],
        /// Number of points.
        n: usize,
    },
}

impl PairwiseSource<'_> {
    /// Number of points.
    ///
    /// ```
    /// use kgroups::stats::PairwiseSource;
    /// let r = [0.0, 1.0, 1.0, 0.0];
    /// assert_eq!(PairwiseSource::Semimetric { r: &r, n: 2 }.n(), 2);
    /// ```
    pub fn n(&self) -> usize {
        match *self {
            PairwiseSource::Data { points, .. } => points.n(),
            PairwiseSource::Semimetric { n, .. } | PairwiseSource::GramF64 { n, .. } => n,
        }
    }

    /// Checks the source: the semimetric's parameter; R square, finite, symmetric, ≥ 0 with zero
    /// diagonal; G square, finite and symmetric.
    ///
    /// ```
    /// use kgroups::stats::PairwiseSource;
    /// let g = [2.0, 1.0, 0.0, 2.0]; // not symmetric
    /// assert!(PairwiseSource::GramF64 { g: &g, n: 2 }.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        match *self {
            PairwiseSource::Data { semimetric, .. } => semimetric.validate(),
            PairwiseSource::Semimetric { r, n } => validate_semimetric_matrix(r, n, "R"),
            PairwiseSource::GramF64 { g, n } => {
                check_square(g.len(), n, "G")?;
                crate::symmetry::check_dense(g, n, "G")
            }
        }
    }

    /// The argument errors about this source name.
    fn argument(&self) -> &'static str {
        match self {
            PairwiseSource::Data { .. } => "X",
            PairwiseSource::Semimetric { .. } => "R",
            PairwiseSource::GramF64 { .. } => "G",
        }
    }
}

/// Points transposed (dim × n, row stride n), allocated fallibly; errors name `argument`.
fn transposed(x: &Points, argument: &'static str) -> Result<Vec<f64>> {
    let (n, dim) = (x.n(), x.dim());
    let mut t = try_filled(n * dim, 0.0, argument, "a transposed copy of the points")?;
    for i in 0..n {
        for (k, &v) in x.row(i).iter().enumerate() {
            t[k * n + i] = v;
        }
    }
    Ok(t)
}

/// The end of the group of rows that starts at `start`: about [`WORK_PER_THREAD`] work per
/// thread of the current pool, with `cost(a)` the work of row `a`; at most `max_rows` rows
/// and at least one.
fn group_end(start: usize, n: usize, max_rows: usize, cost: impl Fn(usize) -> usize) -> usize {
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

/// Evaluates scaled semimetric values ρ'(a, b) = ρ(a, b) · 2^-`exponent` in chunks along a
/// row. For R and G the scale puts every |ρ'| below 2, so that no weighted sum overflows;
/// for data the scale is 1.
struct RowEvaluator<'a> {
    source: PairwiseSource<'a>,
    /// For `Data`: all points transposed (dim × n); for `GramF64`: the diagonal of G times
    /// `factor`.
    aux: Vec<f64>,
    /// 2^-`exponent`, applied to the entries of R or G.
    factor: f64,
    /// ρ = ρ' · 2^exponent.
    exponent: i32,
}

impl<'a> RowEvaluator<'a> {
    /// For a validated source.
    fn new(source: PairwiseSource<'a>) -> Result<Self> {
        // Exponents within ±1020 keep `factor` representable; a matrix whose largest entry is
        // below 2^-1020 keeps its scale (its values are then already tiny, nothing overflows).
        let exponent_for =
            |m: &[f64], headroom: i32| (binary_exponent(max_abs(m)) + headroom).clamp(-1020, 1030);
        let (aux, exponent) = match source {
            PairwiseSource::Data { points, .. } => (transposed(&points, "X")?, 0),
            // ρ' = R·2^-e < 2
            PairwiseSource::Semimetric { r, .. } => (Vec::new(), exponent_for(r, 0)),
            // |G'| < 2^-1, so |ρ'| = |G'_aa + G'_bb − 2G'_ab| < 2
            PairwiseSource::GramF64 { g, n } => {
                let exponent = exponent_for(g, 2);
                let factor = times_pow2(1.0, -exponent);
                let mut diag = try_filled(n, 0.0, "G", "the diagonal of G")?;
                for (b, d) in diag.iter_mut().enumerate() {
                    *d = g[b * n + b] * factor;
                }
                (diag, exponent)
            }
        };
        Ok(RowEvaluator {
            source,
            aux,
            factor: times_pow2(1.0, -exponent),
            exponent,
        })
    }

    /// ρ'(a, b) for b = start..start + out.len().
    #[inline]
    fn values(&self, a: usize, start: usize, out: &mut [f64]) {
        match self.source {
            PairwiseSource::Data { points, semimetric } => {
                squared_distances_to_transposed(points.row(a), &self.aux, points.n(), start, out);
                rho_from_squared_distances(semimetric, points.row(a), &points, start, 1.0, out);
            }
            PairwiseSource::Semimetric { r, n } => {
                let row = &r[a * n + start..a * n + start + out.len()];
                if self.factor == 1.0 {
                    out.copy_from_slice(row);
                } else {
                    for (o, &v) in out.iter_mut().zip(row) {
                        *o = v * self.factor;
                    }
                }
            }
            PairwiseSource::GramF64 { g, n } => {
                let gaa = self.aux[a];
                let row = &g[a * n + start..a * n + start + out.len()];
                let diag = &self.aux[start..start + out.len()];
                for ((o, &gbb), &gab) in out.iter_mut().zip(diag).zip(row) {
                    *o = (gaa + gbb) - 2.0 * (gab * self.factor);
                }
            }
        }
    }

    /// Work of one value, for [`group_end`].
    fn cost_per_value(&self) -> usize {
        match self.source {
            PairwiseSource::Data { points, .. } => 3 * points.dim() + 16,
            PairwiseSource::Semimetric { .. } => 2,
            PairwiseSource::GramF64 { .. } => 3,
        }
    }

    /// For row `a` of the upper triangle (b > a): (Σ_{b in a's cluster} w_b ρ'_ab,
    /// Σ_{b in other clusters} w_b ρ'_ab), each summed in order of b; with `acc`, also
    /// `acc[l_b] += w_b ρ'_ab` in order of b (so `acc[l_a]` equals the first sum).
    fn upper_row_sums(
        &self,
        a: usize,
        labels: &[usize],
        w: &[f64],
        mut acc: Option<&mut [f64]>,
    ) -> (f64, f64) {
        let n = labels.len();
        let la = labels[a];
        let mut buf = [0.0; CHUNK];
        let (mut same, mut other) = (0.0, 0.0);
        let mut start = a + 1;
        while start < n {
            let len = CHUNK.min(n - start);
            let values = &mut buf[..len];
            self.values(a, start, values);
            let (lbs, wbs) = (&labels[start..start + len], &w[start..start + len]);
            for ((&rho, &lb), &wb) in values.iter().zip(lbs).zip(wbs) {
                let v = wb * rho;
                let in_cluster = lb == la;
                same += if in_cluster { v } else { 0.0 };
                other += if in_cluster { 0.0 } else { v };
            }
            if let Some(acc) = acc.as_deref_mut() {
                for ((&rho, &lb), &wb) in values.iter().zip(lbs).zip(wbs) {
                    acc[lb] += wb * rho;
                }
            }
            start += len;
        }
        (same, other)
    }
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
    if k == 0 {
        return Err(KGroupsError::invalid(
            "k",
            "k = 0 is not allowed; the number of clusters must be >= 1",
        ));
    }
    if labels.len() != n {
        return Err(KGroupsError::invalid(
            "labels",
            format!(
                "labels has length {} but the data have n = {n} points; give one label per point",
                labels.len()
            ),
        ));
    }
    if let Some((i, &l)) = labels.iter().enumerate().find(|(_, &l)| l >= k) {
        return Err(KGroupsError::invalid(
            "labels",
            format!(
                "labels[{i}] = {l} but k = {k}; labels must be in 0..k (0 to {})",
                k - 1
            ),
        ));
    }
    if k > n {
        if let Some((i, &l)) = labels.iter().enumerate().find(|(_, &l)| l >= n) {
            return Err(KGroupsError::invalid(
                "labels",
                format!(
                    "labels[{i}] = {l} but the data have only n = {n} points; every cluster \
                     0..k-1 needs a point, so labels must be below n"
                ),
            ));
        }
        return Err(KGroupsError::invalid(
            "k",
            format!("k = {k} exceeds the number of points n = {n}; every cluster needs a point"),
        ));
    }
    let (w, exponent) = match weights {
        None => (try_filled(n, 1.0, "weights", "the point weights")?, 0),
        Some(w) => {
            if w.len() != n {
                return Err(KGroupsError::invalid(
                    "weights",
                    format!(
                        "weights has length {} but the data have n = {n} points; give one weight per point",
                        w.len()
                    ),
                ));
            }
            if let Some((i, &v)) = w
                .iter()
                .enumerate()
                .find(|(_, &v)| !(v.is_finite() && v > 0.0))
            {
                return Err(KGroupsError::invalid(
                    "weights",
                    format!("weights[{i}] = {v}; every weight must be finite and > 0"),
                ));
            }
            let largest = w.iter().fold(0.0f64, |m, &v| m.max(v));
            let exponent = binary_exponent(largest).clamp(-1020, 1023);
            let mut scaled = try_filled(n, 0.0, "weights", "the point weights")?;
            for (i, (o, &v)) in scaled.iter_mut().zip(w).enumerate() {
                *o = times_pow2(v, -exponent);
                if *o == 0.0 {
                    return Err(KGroupsError::invalid(
                        "weights",
                        format!(
                            "weights[{i}] = {v} is too small next to the largest weight {largest} \
                             (a ratio below 2^-1074 is not representable); drop the point or \
                             raise its weight"
                        ),
                    ));
                }
            }
            (scaled, exponent)
        }
    };
    let mut s = try_filled(k, 0.0, "k", "the cluster weights")?;
    let mut count = try_filled(k, 0usize, "k", "the cluster sizes")?;
    for (&l, &wi) in labels.iter().zip(&w) {
        s[l] += wi;
        count[l] += 1;
    }
    if let Some(j) = count.iter().position(|&c| c == 0) {
        return Err(KGroupsError::invalid(
            "labels",
            format!(
                "cluster {j} is empty (no label equals {j}); every cluster 0..k-1 needs at least one point for its energy statistics to be defined"
            ),
        ));
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
struct PartitionSums {
    /// U'_j = Σ_{a<b, both in C_j} w'_a w'_b ρ'_ab.
    within: Vec<f64>,
    /// B' = Σ_{a<b in different clusters} w'_a w'_b ρ'_ab.
    between: f64,
    /// With the k × k table: u'[i·k + j] = Σ_{a∈C_i, b∈C_j, a<b} w'_a w'_b ρ'_ab (row-major).
    pairs: Option<Vec<f64>>,
    /// The scaled cluster weights s'_j.
    s: Vec<f64>,
    rho_exponent: i32,
    weight_exponent: i32,
}

/// One pass over the upper triangle of ρ: validates everything, then accumulates
/// [`PartitionSums`], with the k × k table if `with_pairs`. Rows run in parallel within groups
/// of a few milliseconds; groups are combined in row order, then `control` is checked.
fn partition_sums(
    source: &PairwiseSource,
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
        PairwiseSource::Semimetric { r, n } => check_square(r.len(), n, "R")?,
        PairwiseSource::GramF64 { g, n } => check_square(g.len(), n, "G")?,
    }
    let ScaledPartition { w, s, exponent } = validate_partition(n, labels, k, weights)?;
    control.checkpoint()?;
    source.validate()?;
    control.checkpoint()?;
    let eval = RowEvaluator::new(*source)?;
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
fn scale_back(
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
fn for_upper_pairs(k: usize, mut f: impl FnMut(usize, usize) -> Result<()>) -> Result<()> {
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
/// use kgroups::gram::{Points, Semimetric};
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
    let sums = partition_sums(source, labels, k, weights, true, control)?;
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

/// The energy statistics of a partition (see the module documentation).
///
/// ```
/// use kgroups::stats::EnergyStatistics;
/// fn show(e: &EnergyStatistics) -> String { format!("W = {}, S = {}", e.within, e.between) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct EnergyStatistics {
    /// Within dispersion W = Σ_j (s_j/2)·g(C_j,C_j).
    pub within: f64,
    /// Between statistic S = Σ_{i<j} (s_i s_j/(2s))·[2g(C_i,C_j) − g(C_i,C_i) − g(C_j,C_j)].
    pub between: f64,
    /// total = (s/2)·g(X,X) (= W + S up to rounding).
    pub total: f64,
    /// The cluster weights s_j (cluster sizes for unit weights).
    pub cluster_weights: Vec<f64>,
    /// The k×k matrix g(C_i, C_j), row-major, when asked for (`with_g`).
    pub g: Option<Vec<f64>>,
}

/// Data whose spread would make squared distances underflow or overflow (below 2^-256 or
/// beyond 2^257), in the frame of the Gram builders ([`Frame`]): the coordinates times 2^e,
/// the semimetric of the scaled data (σ·2^e for the exponential and gaussian ones), and the
/// factor 2^(−e·α) that turns the power semimetric's values back (1 for the others). Every
/// statistic is linear in ρ, so it is computed on the scaled data and multiplied by the
/// factor.
struct ScaledData {
    coordinates: Vec<Vec<f64>>,
    semimetric: Semimetric,
    factor: f64,
}

impl ScaledData {
    /// `None` when the data need no scaling (the common case: nothing is copied).
    fn new(sets: &[&Points], semimetric: Semimetric, control: &Control) -> Result<Option<Self>> {
        let frame = Frame::new(sets, sets[0], semimetric, Base::Centered, control)?;
        if frame.unscaled() {
            return Ok(None);
        }
        let scale = frame.scale();
        let mut coordinates = Vec::with_capacity(sets.len());
        for points in sets {
            let data = points.data();
            let mut copy = try_filled(data.len(), 0.0, "X", "a rescaled copy of the data")?;
            for (c, &v) in copy.iter_mut().zip(data) {
                *c = v * scale;
            }
            coordinates.push(copy);
        }
        let factor = match semimetric {
            Semimetric::Power { alpha } => (-scale.log2() * alpha).exp2(),
            _ => 1.0,
        };
        Ok(Some(ScaledData {
            coordinates,
            semimetric: frame.semimetric(),
            factor,
        }))
    }

    /// The points of set `i`, scaled.
    fn points(&self, i: usize, like: &Points) -> Result<Points<'_>> {
        Points::new(&self.coordinates[i], like.n(), like.dim())
    }

    /// `value` (computed on the scaled data) for the data, or an error when f64 cannot hold it.
    fn unscale(&self, value: f64, what: &str) -> Result<f64> {
        let out = value * self.factor;
        if !out.is_finite() || (value != 0.0 && !out.is_normal()) {
            return Err(KGroupsError::invalid(
                "X",
                format!(
                    "{what} of X is beyond the range of f64 (it would overflow or underflow: about \
                     {value:e} × {:e}); rescale X",
                    self.factor
                ),
            ));
        }
        Ok(out)
    }
}

/// W, S, total (and, with `with_g`, the k × k matrix g) for a partition given by `labels`
/// (values in 0..k) with optional point weights.
///
/// Memory beyond the input is O(n + k) without g (any k ≤ n), plus k² values with g. W, S and
/// total are the same bits with and without g, and on any number of threads. Checks `control`
/// every few milliseconds. Errors as [`cluster_pair_sums`].
///
/// ```
/// use kgroups::gram::{Points, Semimetric};
/// use kgroups::stats::{energy_statistics, PairwiseSource};
/// use kgroups::Control;
/// let x = Points::new(&[0.0, 1.0, 3.0], 3, 1).unwrap();
/// let src = PairwiseSource::Data { points: x, semimetric: Semimetric::Power { alpha: 1.0 } };
/// let e = energy_statistics(&src, &[0, 0, 1], 2, None, true, &Control::new()).unwrap();
/// assert_eq!(e.within, 0.5); // (2/2)·g(C_0,C_0) = 2/4
/// assert!((e.within + e.between - e.total).abs() < 1e-12);
/// assert_eq!(e.g, Some(vec![0.5, 2.5, 2.5, 0.0]));
/// ```
pub fn energy_statistics(
    source: &PairwiseSource,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
    with_g: bool,
    control: &Control,
) -> Result<EnergyStatistics> {
    if let PairwiseSource::Data { points, semimetric } = *source {
        semimetric.validate()?;
        if let Some(scaled) = ScaledData::new(&[&points], semimetric, control)? {
            let inner = PairwiseSource::Data {
                points: scaled.points(0, &points)?,
                semimetric: scaled.semimetric,
            };
            let mut stats = energy_statistics(&inner, labels, k, weights, with_g, control)?;
            stats.within = scaled.unscale(stats.within, "the within dispersion W")?;
            stats.between = scaled.unscale(stats.between, "the between statistic S")?;
            stats.total = scaled.unscale(stats.total, "the total (s/2)·g(X, X)")?;
            if let Some(g) = stats.g.as_mut() {
                for v in g.iter_mut() {
                    *v = scaled.unscale(*v, "g")?;
                }
            }
            return Ok(stats);
        }
    }
    let sums = partition_sums(source, labels, k, weights, with_g, control)?;
    let (s, u) = (&sums.s, &sums.within);
    let s_all: f64 = s.iter().sum();
    // W'_j = U'_j / s'_j; s' − s'_j as (Σ_{i<j} s'_i) + (Σ_{i>j} s'_i), accurate even when
    // one cluster holds almost all the weight.
    let mut after = try_filled(k, 0.0, "k", "the cluster weight sums")?;
    for j in (0..k.saturating_sub(1)).rev() {
        after[j] = after[j + 1] + s[j + 1];
    }
    let (mut within, mut penalty, mut before) = (0.0, 0.0, 0.0);
    for j in 0..k {
        let wj = u[j] / s[j];
        within += wj;
        penalty += wj * (before + after[j]);
        before += s[j];
    }
    let between = (sums.between - penalty) / s_all;
    let total = (u.iter().sum::<f64>() + sums.between) / s_all;

    let arg = source.argument();
    let (rho_e, w_e) = (sums.rho_exponent, sums.weight_exponent);
    let within = scale_back(within, rho_e, w_e, arg, "the within dispersion W")?;
    let between = scale_back(between, rho_e, w_e, arg, "the between statistic S")?;
    let total = scale_back(total, rho_e, w_e, arg, "the total (s/2)·g(X, X)")?;
    let g = match sums.pairs {
        None => None,
        Some(mut g) => {
            for_upper_pairs(k, |i, j| {
                let t = if i == j {
                    2.0 * g[i * k + i]
                } else {
                    g[i * k + j] + g[j * k + i]
                };
                let v = times_pow2(t / (s[i] * s[j]), rho_e);
                if !v.is_finite() {
                    // g is an average of ρ: it overflows only with ρ, unless s_i·s_j underflows
                    return Err(if s[i] * s[j] == 0.0 {
                        KGroupsError::invalid(
                            "weights",
                            format!(
                                "the weights of clusters {i} and {j} are too small next to the largest weight for g(C_{i}, C_{j}) to be computed in f64; rescale the weights of those clusters"
                            ),
                        )
                    } else {
                        KGroupsError::invalid(
                            arg,
                            format!(
                                "g(C_{i}, C_{j}), an average of semimetric values, exceeds the largest f64 (about 1.8e308); rescale {arg}"
                            ),
                        )
                    });
                }
                g[i * k + j] = v;
                g[j * k + i] = v;
                Ok(())
            })?;
            Some(g)
        }
    };
    let mut cluster_weights = sums.s;
    for v in &mut cluster_weights {
        *v = times_pow2(*v, w_e);
    }
    Ok(EnergyStatistics {
        within,
        between,
        total,
        cluster_weights,
        g,
    })
}

/// Σ over rows a of x of Σ_b ρ(x_a, y_b), with b over all of y (`upper = false`) or, when y is
/// x itself, over b > a (`upper = true`). Each row is summed in order of b, rows in row order;
/// rows run in parallel within groups of a few milliseconds, `control` checked between groups.
fn rho_sum(
    x: &Points,
    y: &Points,
    y_argument: &'static str,
    semimetric: Semimetric,
    upper: bool,
    control: &Control,
) -> Result<f64> {
    let (nx, ny) = (x.n(), y.n());
    let yt = transposed(y, y_argument)?;
    let max_rows = MAX_GROUP_ROWS.min(nx);
    let mut rows = try_filled(max_rows, 0.0, y_argument, "the per-row sums")?;
    let cost = 3 * x.dim() + 16;
    let first = |a: usize| if upper { a + 1 } else { 0 };
    let mut total = 0.0;
    let mut start = 0;
    while start < nx {
        let end = group_end(start, nx, max_rows, |a| {
            (ny - first(a).min(ny)).saturating_mul(cost)
        });
        let group = &mut rows[..end - start];
        group.par_iter_mut().zip(start..end).for_each(|(out, a)| {
            let mut buf = [0.0; CHUNK];
            let mut sum = 0.0;
            let mut b = first(a);
            while b < ny {
                let len = CHUNK.min(ny - b);
                let values = &mut buf[..len];
                squared_distances_to_transposed(x.row(a), &yt, ny, b, values);
                rho_from_squared_distances(semimetric, x.row(a), y, b, 1.0, values);
                for &v in values.iter() {
                    sum += v;
                }
                b += len;
            }
            *out = sum;
        });
        control.checkpoint()?;
        for &v in group.iter() {
            total += v;
        }
        start = end;
    }
    Ok(total)
}

/// Two-sample energy distance E(A,B) = 2·mean ρ(a,b) − mean ρ(a,a') − mean ρ(b,b') (unit
/// weights; means over all ordered pairs, a = a' included). Mathematically ≥ 0; a result that
/// rounding makes negative is returned as 0. Checks `control` every few milliseconds.
///
/// Errors: an invalid semimetric parameter; `b` with a different number of columns than `a`
/// (argument `"Y"`); semimetric values that overflow f64 (argument `"X"`);
/// [`KGroupsError::Interrupted`] when `control` is cancelled.
///
/// ```
/// use kgroups::gram::{Points, Semimetric};
/// use kgroups::stats::energy_distance;
/// use kgroups::Control;
/// let a = Points::new(&[0.0], 1, 1).unwrap();
/// let b = Points::new(&[2.0], 1, 1).unwrap();
/// let e = energy_distance(&a, &b, Semimetric::Power { alpha: 1.0 }, &Control::new()).unwrap();
/// assert_eq!(e, 4.0); // 2·2 − 0 − 0
/// ```
pub fn energy_distance(
    a: &Points,
    b: &Points,
    semimetric: Semimetric,
    control: &Control,
) -> Result<f64> {
    semimetric.validate()?;
    if a.dim() != b.dim() {
        return Err(KGroupsError::invalid(
            "Y",
            format!(
                "X has D={} columns but Y has D={}; both samples need the same number of columns",
                a.dim(),
                b.dim()
            ),
        ));
    }
    if let Some(scaled) = ScaledData::new(&[a, b], semimetric, control)? {
        let (a2, b2) = (scaled.points(0, a)?, scaled.points(1, b)?);
        let e = energy_distance(&a2, &b2, scaled.semimetric, control)?;
        return scaled.unscale(e, "the energy distance");
    }
    let (na, nb) = (a.n() as f64, b.n() as f64);
    let cross = rho_sum(a, b, "Y", semimetric, false, control)? / (na * nb);
    let within_a = 2.0 * rho_sum(a, a, "X", semimetric, true, control)? / (na * na);
    let within_b = 2.0 * rho_sum(b, b, "Y", semimetric, true, control)? / (nb * nb);
    let e = 2.0 * cross - within_a - within_b;
    if !e.is_finite() {
        return Err(KGroupsError::invalid(
            "X",
            "the semimetric values overflow f64; rescale X and Y",
        ));
    }
    Ok(if e > 0.0 { e } else { 0.0 })
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // the naive reference loops index on purpose
mod tests {
    use super::*;
    use crate::gram::tests::{assert_invalid, in_pool, naive_r, TestRng};
    use crate::gram::{energy_gram, Base};
    use proptest::prelude::*;

    fn stats_with_g(
        source: &PairwiseSource,
        labels: &[usize],
        k: usize,
        weights: Option<&[f64]>,
    ) -> Result<EnergyStatistics> {
        energy_statistics(source, labels, k, weights, true, &Control::new())
    }

    fn pair_sums(
        source: &PairwiseSource,
        labels: &[usize],
        k: usize,
        weights: Option<&[f64]>,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        cluster_pair_sums(source, labels, k, weights, &Control::new())
    }

    fn distance(a: &Points, b: &Points, semimetric: Semimetric) -> Result<f64> {
        energy_distance(a, b, semimetric, &Control::new())
    }

    fn labels_for(n: usize, k: usize, rng: &mut TestRng) -> Vec<usize> {
        (0..n)
            .map(|i| {
                if i < k {
                    i
                } else {
                    (rng.next_f64() * k as f64) as usize % k
                }
            })
            .collect()
    }

    fn naive_pair_sums(r: &[f64], n: usize, labels: &[usize], k: usize, w: &[f64]) -> Vec<f64> {
        let mut t = vec![0.0; k * k];
        for a in 0..n {
            for b in 0..n {
                t[labels[a] * k + labels[b]] += w[a] * w[b] * r[a * n + b];
            }
        }
        t
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
    }

    #[test]
    fn pair_sums_match_naive() {
        let (n, dim, k) = (90, 3, 4);
        let mut rng = TestRng(100);
        let data = rng.data(n, dim, 1.0, 2.0);
        let labels = labels_for(n, k, &mut rng);
        let w: Vec<f64> = (0..n).map(|_| 0.1 + 3.0 * rng.next_f64()).collect();
        let x = Points::new(&data, n, dim).unwrap();
        for sm in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Power { alpha: 1.5 },
            Semimetric::Gaussian { sigma: 0.7 },
        ] {
            let r = naive_r(sm, &data, n, dim);
            let want = naive_pair_sums(&r, n, &labels, k, &w);
            let (t, s) = pair_sums(
                &PairwiseSource::Data {
                    points: x,
                    semimetric: sm,
                },
                &labels,
                k,
                Some(&w),
            )
            .unwrap();
            for i in 0..k * k {
                assert!(
                    close(t[i], want[i], 1e-12),
                    "{sm:?} T[{i}]: {} vs {}",
                    t[i],
                    want[i]
                );
            }
            for i in 0..k {
                for j in 0..k {
                    assert_eq!(t[i * k + j], t[j * k + i]);
                }
                let sj: f64 = (0..n).filter(|&a| labels[a] == i).map(|a| w[a]).sum();
                assert!(close(s[i], sj, 1e-14));
            }
            // unit weights by default
            let ones = vec![1.0; n];
            let (t1, s1) =
                pair_sums(&PairwiseSource::Semimetric { r: &r, n }, &labels, k, None).unwrap();
            let want1 = naive_pair_sums(&r, n, &labels, k, &ones);
            for i in 0..k * k {
                assert!(close(t1[i], want1[i], 1e-12));
            }
            assert_eq!(s1.iter().sum::<f64>(), n as f64);
        }
    }

    fn all_sources_agree(
        data: &[f64],
        n: usize,
        dim: usize,
        sm: Semimetric,
        labels: &[usize],
        k: usize,
        w: Option<&[f64]>,
    ) -> EnergyStatistics {
        let x = Points::new(data, n, dim).unwrap();
        let e_data = stats_with_g(
            &PairwiseSource::Data {
                points: x,
                semimetric: sm,
            },
            labels,
            k,
            w,
        )
        .unwrap();
        let r = naive_r(sm, data, n, dim);
        let e_r = stats_with_g(&PairwiseSource::Semimetric { r: &r, n }, labels, k, w).unwrap();
        let rmax = r.iter().fold(0.0f64, |m, v| m.max(*v));
        for base in [Base::Origin, Base::Centered] {
            let g: Vec<f64> = energy_gram(&x, sm, base).unwrap();
            let e_g = stats_with_g(&PairwiseSource::GramF64 { g: &g, n }, labels, k, w).unwrap();
            // ρ recovered from G carries absolute error ~ eps·|G|
            let gmax = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let abs = 1e-12 * (gmax + rmax) * e_data.cluster_weights.iter().sum::<f64>();
            for (a, b) in [
                (e_g.within, e_data.within),
                (e_g.between, e_data.between),
                (e_g.total, e_data.total),
            ] {
                assert!((a - b).abs() <= abs, "{base:?}: {a} vs {b}");
            }
        }
        for (a, b) in [
            (e_r.within, e_data.within),
            (e_r.between, e_data.between),
            (e_r.total, e_data.total),
        ] {
            assert!(close(a, b, 1e-12), "R vs data: {a} vs {b}");
        }
        for (a, b) in e_r
            .g
            .as_ref()
            .unwrap()
            .iter()
            .zip(e_data.g.as_ref().unwrap())
        {
            assert!(close(*a, *b, 1e-12));
        }
        assert_eq!(e_r.cluster_weights, e_data.cluster_weights);
        e_data
    }

    #[test]
    fn statistics_identities_weighted() {
        let (n, dim, k) = (150, 4, 3);
        let mut rng = TestRng(101);
        let data = rng.data(n, dim, 1.0, 10.0);
        let labels = labels_for(n, k, &mut rng);
        let w: Vec<f64> = (0..n).map(|_| 0.2 + 2.0 * rng.next_f64()).collect();
        for sm in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Exponential { sigma: 2.0 },
        ] {
            let e = all_sources_agree(&data, n, dim, sm, &labels, k, Some(&w));
            assert!(close(e.within + e.between, e.total, 1e-12), "{e:?}");
            assert!(e.within > 0.0 && e.between > 0.0);
            // W = Σ_i w_i G_ii − Σ_j Q_j/s_j from the Origin Gram matrix
            let x = Points::new(&data, n, dim).unwrap();
            let g: Vec<f64> = energy_gram(&x, sm, Base::Origin).unwrap();
            let diag: f64 = (0..n).map(|i| w[i] * g[i * n + i]).sum();
            let mut q = vec![0.0; k];
            for a in 0..n {
                for b in 0..n {
                    if labels[a] == labels[b] {
                        q[labels[a]] += w[a] * w[b] * g[a * n + b];
                    }
                }
            }
            let w_from_g = diag - (0..k).map(|j| q[j] / e.cluster_weights[j]).sum::<f64>();
            assert!(
                (w_from_g - e.within).abs() <= 1e-10 * diag,
                "{w_from_g} vs {}",
                e.within
            );
            // g by definition
            let r = naive_r(sm, &data, n, dim);
            let s = &e.cluster_weights;
            for i in 0..k {
                for j in 0..k {
                    let mut sum = 0.0;
                    for a in (0..n).filter(|&a| labels[a] == i) {
                        for b in (0..n).filter(|&b| labels[b] == j) {
                            sum += w[a] * w[b] * r[a * n + b];
                        }
                    }
                    assert!(close(
                        e.g.as_ref().unwrap()[i * k + j],
                        sum / (s[i] * s[j]),
                        1e-12
                    ));
                }
            }
        }
    }

    #[test]
    fn one_cluster_has_no_between() {
        let data = [0.0, 1.0, 5.0];
        let x = Points::new(&data, 3, 1).unwrap();
        let e = stats_with_g(
            &PairwiseSource::Data {
                points: x,
                semimetric: Semimetric::Power { alpha: 1.0 },
            },
            &[0, 0, 0],
            1,
            None,
        )
        .unwrap();
        assert_eq!(e.between, 0.0);
        // Σ_ab |x_a − x_b| = 2·(1 + 5 + 4) = 20; g = 20/9; W = (3/2)·20/9
        assert!(close(e.within, 1.5 * 20.0 / 9.0, 1e-15));
        assert_eq!(e.within, e.total);
    }

    #[test]
    fn energy_distance_matches_direct_loop() {
        let mut rng = TestRng(102);
        let (na, nb, dim) = (70, 45, 3);
        let a = rng.data(na, dim, 1.0, 0.0);
        let b = rng.data(nb, dim, 1.5, 0.3);
        let (pa, pb) = (
            Points::new(&a, na, dim).unwrap(),
            Points::new(&b, nb, dim).unwrap(),
        );
        for sm in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Power { alpha: 0.5 },
            Semimetric::Gaussian { sigma: 1.0 },
        ] {
            let mut ab = vec![0.0; (na + nb) * dim];
            ab[..na * dim].copy_from_slice(&a);
            ab[na * dim..].copy_from_slice(&b);
            let r = naive_r(sm, &ab, na + nb, dim);
            let n = na + nb;
            let mean = |rows: std::ops::Range<usize>, cols: std::ops::Range<usize>| {
                let mut s = 0.0;
                for i in rows.clone() {
                    for j in cols.clone() {
                        s += r[i * n + j];
                    }
                }
                s / (rows.len() * cols.len()) as f64
            };
            let want = 2.0 * mean(0..na, na..n) - mean(0..na, 0..na) - mean(na..n, na..n);
            let got = distance(&pa, &pb, sm).unwrap();
            assert!(close(got, want, 1e-12), "{sm:?}: {got} vs {want}");
            assert!(got > 0.0);
            // E(A,B) = 2s/(s_A s_B)·S for the two-cluster partition of A ∪ B
            let labels: Vec<usize> = (0..n).map(|i| usize::from(i >= na)).collect();
            let e =
                stats_with_g(&PairwiseSource::Semimetric { r: &r, n }, &labels, 2, None).unwrap();
            assert!(close(
                got,
                e.between * 2.0 * n as f64 / (na * nb) as f64,
                1e-12
            ));
            let self_distance = distance(&pa, &pa, sm).unwrap();
            assert!(
                (0.0..=1e-14 * want).contains(&self_distance),
                "{self_distance}"
            );
        }
    }

    #[test]
    fn argument_errors() {
        let data = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let x = Points::new(&data, 6, 1).unwrap();
        let sm = Semimetric::Power { alpha: 1.0 };
        let src = PairwiseSource::Data {
            points: x,
            semimetric: sm,
        };
        let labels = [0, 0, 1, 1, 2, 2];
        assert!(stats_with_g(&src, &labels, 3, None).is_ok());
        assert_invalid(stats_with_g(&src, &labels, 0, None), "k", "k = 0");
        assert_invalid(
            stats_with_g(&src, &labels[..5], 3, None),
            "labels",
            "labels has length 5 but the data have n = 6 points",
        );
        assert_invalid(
            stats_with_g(&src, &[0, 0, 1, 1, 2, 3], 3, None),
            "labels",
            "labels[5] = 3 but k = 3",
        );
        assert_invalid(
            stats_with_g(&src, &[0, 0, 2, 2, 2, 2], 3, None),
            "labels",
            "cluster 1 is empty",
        );
        assert_invalid(
            stats_with_g(&src, &labels, 3, Some(&[1.0; 5])),
            "weights",
            "length 5",
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let mut w = [1.0; 6];
            w[4] = bad;
            assert_invalid(
                pair_sums(&src, &labels, 3, Some(&w)),
                "weights",
                "weights[4]",
            );
        }
        assert_invalid(
            pair_sums(&src, &labels, 3, Some(&[1e308, 1e308, 1.0, 1.0, 1.0, 1.0])),
            "weights",
            "cluster 0",
        );
        let bad_sm = PairwiseSource::Data {
            points: x,
            semimetric: Semimetric::Exponential { sigma: 0.0 },
        };
        assert_invalid(
            stats_with_g(&bad_sm, &labels, 3, None),
            "sigma",
            "sigma = 0",
        );
        let r = [0.0, 1.0, 1.5, 0.0];
        assert_invalid(
            stats_with_g(
                &PairwiseSource::Semimetric { r: &r, n: 2 },
                &[0, 1],
                2,
                None,
            ),
            "R",
            "R must be symmetric",
        );
        assert_invalid(
            stats_with_g(
                &PairwiseSource::Semimetric { r: &r[..3], n: 2 },
                &[0, 1],
                2,
                None,
            ),
            "R",
            "has 3 entries",
        );
        let g = [1.0, f64::NAN, f64::NAN, 1.0];
        assert_invalid(
            stats_with_g(&PairwiseSource::GramF64 { g: &g, n: 2 }, &[0, 1], 2, None),
            "G",
            "NaN or infinity at (0, 1)",
        );
        let g = [1.0, 0.5, 0.7, 1.0];
        assert_invalid(
            stats_with_g(&PairwiseSource::GramF64 { g: &g, n: 2 }, &[0, 1], 2, None),
            "G",
            "G is not symmetric",
        );
        assert_invalid(
            stats_with_g(&PairwiseSource::GramF64 { g: &g, n: 0 }, &[], 2, None),
            "G",
            "0 rows",
        );
        // overflow of the sums
        let big = [0.0, 1e300, -1e300];
        let xb = Points::new(&big, 3, 1).unwrap();
        assert_invalid(
            stats_with_g(
                &PairwiseSource::Data {
                    points: xb,
                    semimetric: Semimetric::Power { alpha: 2.0 },
                },
                &[0, 1, 1],
                2,
                None,
            ),
            "X",
            "overflow",
        );
        // energy distance
        let y = Points::new(&data, 3, 2).unwrap();
        let z = Points::new(&data, 2, 3).unwrap();
        assert_invalid(distance(&z, &y, sm), "Y", "X has D=3 columns but Y has D=2");
        assert_invalid(
            distance(&y, &y, Semimetric::Power { alpha: 0.0 }),
            "alpha",
            "alpha = 0",
        );
        assert_invalid(
            distance(&xb, &x, Semimetric::Power { alpha: 2.0 }),
            "X",
            "overflow",
        );
    }

    #[test]
    fn results_do_not_depend_on_thread_count() {
        let (n, dim, k) = (1324, 2, 5); // several row groups (of WORK_PER_THREAD) on 1 to 4 threads
        let mut rng = TestRng(103);
        let data = rng.data(n, dim, 1.0, 1.0);
        let labels = labels_for(n, k, &mut rng);
        let w: Vec<f64> = (0..n).map(|_| 0.5 + rng.next_f64()).collect();
        let x = Points::new(&data, n, dim).unwrap();
        let y = Points::new(&data[..600], 300, dim).unwrap();
        let run = || {
            let src = PairwiseSource::Data {
                points: x,
                semimetric: Semimetric::Power { alpha: 1.0 },
            };
            let e = stats_with_g(&src, &labels, k, Some(&w)).unwrap();
            let d = distance(&x, &y, Semimetric::Gaussian { sigma: 0.5 }).unwrap();
            (e, d)
        };
        let one = in_pool(1, run);
        let two = in_pool(2, run);
        let four = in_pool(4, run);
        assert_eq!(one, two);
        assert_eq!(two, four);
        assert_eq!(one.0.within.to_bits(), two.0.within.to_bits());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn prop_identity_and_sources(
            n in 2usize..30,
            dim in 1usize..4,
            k in 1usize..5,
            seed in any::<u64>(),
            weighted in any::<bool>(),
            alpha in 0.2f64..2.0,
            shift in -50.0f64..50.0,
        ) {
            let k = k.min(n);
            let mut rng = TestRng(seed);
            let data = rng.data(n, dim, 1.0, shift);
            let labels = labels_for(n, k, &mut rng);
            let w: Vec<f64> = (0..n).map(|_| 0.1 + 5.0 * rng.next_f64()).collect();
            let w = if weighted { Some(&w[..]) } else { None };
            let e = all_sources_agree(&data, n, dim, Semimetric::Power { alpha }, &labels, k, w);
            prop_assert!(close(e.within + e.between, e.total, 1e-11), "{:?}", e);
            prop_assert!(e.between >= -1e-12 * e.total);
        }
    }

    fn unit_data(n: usize, dim: usize, seed: u64) -> Vec<f64> {
        TestRng(seed).data(n, dim, 1.0, 0.0)
    }

    #[test]
    fn every_point_its_own_cluster_without_g() {
        // k = n: W = 0 (no pair in a cluster), S = total, in O(n) memory
        let n = 2500;
        let data = unit_data(n, 2, 110);
        let x = Points::new(&data, n, 2).unwrap();
        let src = PairwiseSource::Data {
            points: x,
            semimetric: Semimetric::Power { alpha: 1.0 },
        };
        let labels: Vec<usize> = (0..n).collect();
        let e = energy_statistics(&src, &labels, n, None, false, &Control::new()).unwrap();
        assert_eq!(e.g, None);
        assert_eq!(e.within, 0.0);
        assert_eq!(e.cluster_weights, vec![1.0; n]);
        let one = energy_statistics(&src, &vec![0; n], 1, None, false, &Control::new()).unwrap();
        assert_eq!(one.between, 0.0);
        assert!(
            close(e.between, one.total, 1e-12),
            "{} vs {}",
            e.between,
            one.total
        );
        assert!(close(e.total, one.total, 1e-12));
        // small n against the k × k path and the naive sums
        let (n, k) = (40, 40);
        let data = unit_data(n, 3, 111);
        let labels: Vec<usize> = (0..n).rev().collect();
        let r = naive_r(Semimetric::Power { alpha: 1.0 }, &data, n, 3);
        let src = PairwiseSource::Semimetric { r: &r, n };
        let with = stats_with_g(&src, &labels, k, None).unwrap();
        let without = energy_statistics(&src, &labels, k, None, false, &Control::new()).unwrap();
        assert_eq!(
            (with.within, with.between, with.total),
            (without.within, without.between, without.total)
        );
        let g = with.g.unwrap();
        for a in 0..n {
            for b in 0..n {
                assert_eq!(g[labels[a] * k + labels[b]], r[a * n + b]);
            }
        }
    }

    #[test]
    fn labels_and_k_are_checked_against_n_before_allocating() {
        let data = [0.0, 1.0, 3.0];
        let x = Points::new(&data, 3, 1).unwrap();
        let src = PairwiseSource::Data {
            points: x,
            semimetric: Semimetric::Power { alpha: 1.0 },
        };
        let huge = 1_000_000_000_000usize;
        for with_g in [false, true] {
            assert_invalid(
                energy_statistics(&src, &[0, 1, huge], huge + 1, None, with_g, &Control::new()),
                "labels",
                "labels[2] = 1000000000000 but the data have only n = 3 points",
            );
            assert_invalid(
                energy_statistics(&src, &[0, 1, 2], usize::MAX, None, with_g, &Control::new()),
                "k",
                "exceeds the number of points n = 3",
            );
        }
        assert_invalid(
            cluster_pair_sums(&src, &[0, 1, 2], 4, None, &Control::new()),
            "k",
            "k = 4 exceeds",
        );
    }

    #[test]
    fn weights_of_any_scale() {
        let (n, dim, k) = (60, 2, 3);
        let mut rng = TestRng(112);
        let data = rng.data(n, dim, 1.0, 0.0);
        let labels = labels_for(n, k, &mut rng);
        let w: Vec<f64> = (0..n).map(|_| 0.5 + rng.next_f64()).collect();
        let x = Points::new(&data, n, dim).unwrap();
        let src = PairwiseSource::Data {
            points: x,
            semimetric: Semimetric::Power { alpha: 1.0 },
        };
        let unit = stats_with_g(&src, &labels, k, Some(&w)).unwrap();
        // powers of two: exactly scaled
        for e in [-1000, -700, 700, 900] {
            let we: Vec<f64> = w.iter().map(|&v| times_pow2(v, e)).collect();
            let got = stats_with_g(&src, &labels, k, Some(&we)).unwrap();
            assert_eq!(got.within, times_pow2(unit.within, e), "2^{e}");
            assert_eq!(got.between, times_pow2(unit.between, e));
            assert_eq!(got.total, times_pow2(unit.total, e));
            assert_eq!(got.g, unit.g);
            let s: Vec<f64> = unit
                .cluster_weights
                .iter()
                .map(|&v| times_pow2(v, e))
                .collect();
            assert_eq!(got.cluster_weights, s);
        }
        for c in [1e200, 1e-200, 1e300, 1e-300] {
            let wc: Vec<f64> = w.iter().map(|&v| v * c).collect();
            let got = stats_with_g(&src, &labels, k, Some(&wc)).unwrap();
            for (a, b) in [
                (got.within, unit.within),
                (got.between, unit.between),
                (got.total, unit.total),
            ] {
                assert!(
                    a.is_finite() && close(a, b * c, 1e-12),
                    "{c}: {a} vs {}",
                    b * c
                );
            }
        }
        // T scales with c²: 1e200² is beyond f64, and the error says so
        let wc: Vec<f64> = w.iter().map(|&v| v * 1e200).collect();
        assert_invalid(
            pair_sums(&src, &labels, k, Some(&wc)),
            "weights",
            "exceeds the largest f64",
        );
        // results beyond f64
        let wc: Vec<f64> = w.iter().map(|&v| v * 1e306).collect();
        let wide: Vec<f64> = data.iter().map(|v| 1000.0 * v).collect();
        let wide_src = PairwiseSource::Data {
            points: Points::new(&wide, n, dim).unwrap(),
            semimetric: Semimetric::Power { alpha: 1.0 },
        };
        assert!(stats_with_g(&wide_src, &labels, k, Some(&w)).is_ok());
        assert_invalid(
            stats_with_g(&wide_src, &labels, k, Some(&wc)),
            "weights",
            "exceeds the largest f64",
        );
        // a ratio of weights that f64 cannot hold
        let mut wr = w.clone();
        wr[0] = 1e300;
        wr[5] = 1e-300;
        assert_invalid(
            stats_with_g(&src, &labels, k, Some(&wr)),
            "weights",
            "weights[5] = 0.000000",
        );
    }

    #[test]
    fn gram_and_semimetric_matrices_of_any_finite_scale() {
        let (n, dim, k) = (50, 3, 3);
        let mut rng = TestRng(113);
        let data = rng.data(n, dim, 1.0, 2.0);
        let labels = labels_for(n, k, &mut rng);
        let x = Points::new(&data, n, dim).unwrap();
        let sm = Semimetric::Power { alpha: 1.0 };
        let g0: Vec<f64> = energy_gram(&x, sm, Base::Origin).unwrap();
        let r0 = naive_r(sm, &data, n, dim);
        let ones = vec![1.0; n];
        // the largest entries just below f64::MAX: G_aa + G_bb and sums of R overflow unscaled
        let top = |m: &[f64]| 1023 - binary_exponent(max_abs(m));
        let (pg, pr) = (top(&g0), top(&r0));
        let g: Vec<f64> = g0.iter().map(|&v| times_pow2(v, pg)).collect();
        let r: Vec<f64> = r0.iter().map(|&v| times_pow2(v, pr)).collect();
        assert!(g.iter().fold(0.0f64, |m, v| m.max(v.abs())) > 8e307);
        let small: Vec<f64> = ones.iter().map(|&v| times_pow2(v, -40)).collect();
        for (big, base, p) in [
            (
                PairwiseSource::GramF64 { g: &g, n },
                PairwiseSource::GramF64 { g: &g0, n },
                pg,
            ),
            (
                PairwiseSource::Semimetric { r: &r, n },
                PairwiseSource::Semimetric { r: &r0, n },
                pr,
            ),
        ] {
            let unit = stats_with_g(&base, &labels, k, None).unwrap();
            let got = stats_with_g(&big, &labels, k, Some(&small)).unwrap();
            assert_eq!(got.within, times_pow2(unit.within, p - 40));
            assert_eq!(got.between, times_pow2(unit.between, p - 40));
            assert_eq!(got.total, times_pow2(unit.total, p - 40));
            let gs: Vec<f64> = unit.g.unwrap().iter().map(|&v| times_pow2(v, p)).collect();
            assert_eq!(got.g.unwrap(), gs);
            // with unit weights W exceeds f64: an error naming the matrix
            let arg = big.argument();
            assert_invalid(
                stats_with_g(&big, &labels, k, None),
                arg,
                "exceeds the largest f64",
            );
        }
    }

    #[test]
    fn cancelled_runs_stop_with_interrupted() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let data = unit_data(200, 2, 114);
        let x = Points::new(&data, 200, 2).unwrap();
        let src = PairwiseSource::Data {
            points: x,
            semimetric: Semimetric::Power { alpha: 1.0 },
        };
        let labels: Vec<usize> = (0..200).map(|i| i % 3).collect();
        let flag = AtomicBool::new(true);
        let cancelled = Control::new().with_cancel(&flag);
        for with_g in [false, true] {
            assert_eq!(
                energy_statistics(&src, &labels, 3, None, with_g, &cancelled),
                Err(KGroupsError::Interrupted)
            );
        }
        assert_eq!(
            cluster_pair_sums(&src, &labels, 3, None, &cancelled),
            Err(KGroupsError::Interrupted)
        );
        assert_eq!(
            energy_distance(&x, &x, Semimetric::Power { alpha: 1.0 }, &cancelled),
            Err(KGroupsError::Interrupted)
        );
        // a long run notices a cancellation soon: powf over 40 000² / 2 pairs takes seconds
        let n = 40_000;
        let data = unit_data(n, 2, 115);
        let x = Points::new(&data, n, 2).unwrap();
        let sm = Semimetric::Power { alpha: 1.5 };
        let src = PairwiseSource::Data {
            points: x,
            semimetric: sm,
        };
        let labels: Vec<usize> = (0..n).map(|i| i % 7).collect();
        for run in 0..2 {
            let flag = AtomicBool::new(false);
            let control = Control::new().with_cancel(&flag);
            let (result, latency) = std::thread::scope(|scope| {
                let job = scope.spawn(|| {
                    let r = if run == 0 {
                        energy_statistics(&src, &labels, 7, None, false, &control).map(|_| ())
                    } else {
                        energy_distance(&x, &x, sm, &control).map(|_| ())
                    };
                    (r, std::time::Instant::now())
                });
                std::thread::sleep(std::time::Duration::from_millis(50));
                let sent = std::time::Instant::now();
                flag.store(true, Ordering::Relaxed);
                let (r, done) = job.join().unwrap();
                (r, done.saturating_duration_since(sent))
            });
            assert_eq!(result, Err(KGroupsError::Interrupted), "run {run}");
            assert!(latency.as_secs_f64() < 1.0, "run {run}: {latency:?}");
        }
    }
}
