//! Kernel k-groups: Hartigan's method in kernel space (SPEC, eqs. 47–51, Algorithm 2).

use crate::control::Control;
use crate::error::Result;
use crate::kernel::Kernel;
use crate::partition::Partition;
use crate::sweeps::{self, Reporting, SweepStats, CHECK_EVERY_POINTS, GAIN_TOLERANCE};

/// `d_l(i) = ‖φ_i − μ_l‖² = G_ii − 2 m_l(i)/s_l + Q_l/s_l²`, the squared feature-space
/// distance of point `i` to the weighted mean of cluster `l`, and the magnitude of the terms
/// it is computed from (which bounds its rounding error).
#[inline(always)]
pub(crate) fn distance_to_mean(
    partition: &Partition,
    l: usize,
    i: usize,
    diagonal: f64,
) -> (f64, f64) {
    let s = partition.sizes[l];
    let cross = 2.0 * partition.sum(l, i) / s;
    let norm = partition.terms[l] / (s * s);
    (
        (diagonal - cross) + norm,
        diagonal.abs() + cross.abs() + norm.abs(),
    )
}

/// The best move of point `i` (in cluster `j`): `(ℓ*, ΔQ(j → ℓ*), tolerance)`, or `None`
/// when `i` is alone in its cluster or `k = 1`. Ties go to the lowest cluster index.
///
/// The gain is written through the distances to the cluster means,
/// `ΔQ(j → ℓ) = w [ s_j/(s_j − w)·d_j(i) − s_ℓ/(s_ℓ + w)·d_ℓ(i) ]`, which equals the
/// difference of the objectives before and after the move in exact arithmetic. Its terms are
/// per-point quantities (a kernel entry, a cluster's mean kernel row, a mean's squared norm),
/// so the rounding error, and the tolerance, do not grow with the size or the total weight of
/// the clusters, and both scale like the gains when all weights are scaled.
#[inline]
pub(crate) fn best_move(
    partition: &Partition,
    i: usize,
    weight: f64,
    diagonal: f64,
) -> Option<(usize, f64, f64)> {
    let j = partition.labels[i];
    if partition.counts[j] <= 1 {
        return None;
    }
    let s_j = partition.sizes[j];
    let leave = s_j / (s_j - weight);
    let (d_j, e_j) = distance_to_mean(partition, j, i, diagonal);
    let mut best: Option<(usize, f64, f64)> = None;
    for l in (0..partition.k).filter(|&l| l != j) {
        let s_l = partition.sizes[l];
        let join = s_l / (s_l + weight);
        let (d_l, e_l) = distance_to_mean(partition, l, i, diagonal);
        let cost = join * d_l;
        if best.is_none_or(|(_, c, _)| cost < c) {
            best = Some((l, cost, join * e_l));
        }
    }
    best.map(|(l, cost, magnitude)| {
        let delta = weight * (leave * d_j - cost);
        let tolerance = GAIN_TOLERANCE * weight * (leave * e_j + magnitude);
        (l, delta, tolerance)
    })
}

/// Run Hartigan sweeps on `partition` until a sweep moves nothing or `max_iter` sweeps.
/// Each sweep is one [`sweep`].
pub(crate) fn run<K: Kernel>(
    kernel: &K,
    weights: &[f64],
    partition: &mut Partition<'_>,
    max_iter: usize,
    control: &Control,
    reporting: Reporting,
) -> Result<SweepStats> {
    sweeps::run(
        partition,
        weights,
        max_iter,
        control,
        reporting,
        |partition| sweep(kernel, weights, partition, control),
    )
}

/// One Hartigan sweep: visit the points in index order and make each point's best move when
/// its gain exceeds the tolerance; returns the number of points moved. The single-machine
/// search repeats it; [`crate::chunk_sweep`] runs it on one chunk of the points against a
/// copy of the global cluster state.
pub(crate) fn sweep<K: Kernel>(
    kernel: &K,
    weights: &[f64],
    partition: &mut Partition<'_>,
    control: &Control,
) -> Result<usize> {
    let mut moves_in_sweep = 0;
    for (i, &weight) in weights.iter().enumerate().take(kernel.n()) {
        if i % CHECK_EVERY_POINTS == CHECK_EVERY_POINTS - 1 {
            control.checkpoint()?;
        }
        let diagonal = kernel.diagonal(i);
        if let Some((to, delta, tolerance)) = best_move(partition, i, weight, diagonal) {
            if delta > tolerance {
                partition.move_point(kernel, i, to, weight, diagonal);
                moves_in_sweep += 1;
            }
        }
    }
    Ok(moves_in_sweep)
}
