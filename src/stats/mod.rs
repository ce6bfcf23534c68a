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

use crate::control::Control;
use crate::error::{try_filled, KGroupsError, Result};
use crate::scale::times_pow2;

mod energy_distance;
mod scaled;
mod source;
mod sums;
#[cfg(test)]
mod tests;

pub use energy_distance::energy_distance;
pub use source::PairwiseSource;
pub use sums::cluster_pair_sums;

use scaled::ScaledData;
use sums::{for_upper_pairs, partition_sums, scale_back};

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
// A run of a row ends on a block of the transposed data (see `source::chunk_len`).
const _: () = assert!(CHUNK >= crate::distance::BLOCK);

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

/// W, S, total (and, with `with_g`, the k × k matrix g) for a partition given by `labels`
/// (values in 0..k) with optional point weights.
///
/// Memory beyond the input is O(n + k) without g (any k ≤ n), plus k² values with g. W, S and
/// total are the same bits with and without g, and on any number of threads. Checks `control`
/// every few milliseconds. Errors as [`cluster_pair_sums`].
///
/// ```
/// use kgroups::distance::{Points, Semimetric};
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
    let scaled = match *source {
        PairwiseSource::Data { points, semimetric } => {
            semimetric.validate()?;
            ScaledData::new(&[&points], semimetric, control)?
        }
        _ => None,
    };
    let mut stats =
        statistics_in_frame(source, scaled.as_ref(), labels, k, weights, with_g, control)?;
    let Some(scaled) = scaled else {
        return Ok(stats);
    };
    stats.within = scaled.unscale(stats.within, "the within dispersion W")?;
    stats.between = scaled.unscale(stats.between, "the between statistic S")?;
    stats.total = scaled.unscale(stats.total, "the total (s/2)·g(X, X)")?;
    if let Some(g) = stats.g.as_mut() {
        for v in g.iter_mut() {
            *v = scaled.unscale(*v, "g")?;
        }
    }
    Ok(stats)
}

/// [`energy_statistics`] of the values of `source`, data evaluated in the frame of `scaled`
/// when given (the statistics are then those of the scaled data).
fn statistics_in_frame(
    source: &PairwiseSource,
    scaled: Option<&ScaledData>,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
    with_g: bool,
    control: &Control,
) -> Result<EnergyStatistics> {
    let sums = partition_sums(source, scaled, labels, k, weights, with_g, control)?;
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
