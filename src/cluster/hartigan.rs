//! Kernel k-groups: Hartigan's method in kernel space (SPEC, eqs. 47–51, Algorithm 2).

use crate::cluster::partition::Partition;
use crate::cluster::pending_moves::MoveUpdates;
use crate::cluster::sweeps::{self, Reporting, SweepStats, CHECK_EVERY_POINTS, GAIN_TOLERANCE};
use crate::control::Control;
use crate::error::Result;
use crate::kernel::{diagonal_values, KernelAccess};

/// `2 m_l(i)/s_l`, the cross term of the squared feature-space distance of point `i` to the
/// weighted mean of cluster `l`, `d_l(i) = ‖φ_i − μ_l‖² = G_ii − 2 m_l(i)/s_l + Q_l/s_l²`.
#[inline(always)]
fn cross_term(sum: f64, weight: f64) -> f64 {
    2.0 * sum / weight
}

/// `d_l(i)` from its cross term and `norm = Q_l/s_l²` ([`MeanConstants`]).
#[inline(always)]
fn distance_to_mean(diagonal: f64, cross: f64, norm: f64) -> f64 {
    (diagonal - cross) + norm
}

/// The magnitude of the terms `d_l(i)` is computed from, which bounds its rounding error.
#[inline(always)]
fn distance_magnitude(diagonal: f64, cross: f64, norm: f64) -> f64 {
    diagonal.abs() + cross.abs() + norm.abs()
}

/// The cluster totals a gain is evaluated against: the member counts, the weights `s_l` and
/// the terms `Q_l` of the k clusters. A [`Partition`]'s, or (for the exact distributed rounds,
/// [`crate::cluster::exact_rounds`]) the global totals a coordinator holds.
#[derive(Clone, Copy)]
pub(crate) struct Totals<'a> {
    pub(crate) counts: &'a [usize],
    pub(crate) cluster_weights: &'a [f64],
    pub(crate) terms: &'a [f64],
}

impl<'a> Totals<'a> {
    /// The totals of `partition`.
    #[inline(always)]
    pub(crate) fn of(partition: &'a Partition<'_>) -> Self {
        Totals {
            counts: &partition.counts,
            cluster_weights: &partition.cluster_weights,
            terms: &partition.terms,
        }
    }

    #[inline(always)]
    fn k(&self) -> usize {
        self.counts.len()
    }
}

/// The per-cluster factors of the gains that change only when a point moves: the squared
/// norm of each mean, `Q_l/s_l²`, and the joining factor `s_l/(s_l + w)` for the weight `w`
/// of the point evaluated last. Kept through a sweep, each recomputed by the same
/// expression from the same `Q_l`, `s_l` and `w` as when it is computed afresh for every
/// point, so the gains are the same numbers; it saves two of a cluster's three divisions per
/// point (all points of equal weight).
pub(crate) struct MeanConstants {
    norm: Vec<f64>,
    join: Vec<f64>,
    /// The weight `join` was computed for (NaN: none yet).
    weight: f64,
    /// Scratch for one point: the joining costs `s_l/(s_l + w)·d_l(i)`.
    costs: Vec<f64>,
}

impl MeanConstants {
    /// The factors for the clusters of `totals`.
    pub(crate) fn new(totals: Totals<'_>) -> Self {
        let k = totals.k();
        let mut constants = MeanConstants {
            norm: vec![0.0; k],
            join: vec![0.0; k],
            weight: f64::NAN,
            costs: vec![0.0; k],
        };
        for l in 0..k {
            constants.norm[l] = Self::norm_of(totals, l);
        }
        constants
    }

    #[inline(always)]
    fn norm_of(totals: Totals<'_>, l: usize) -> f64 {
        let s = totals.cluster_weights[l];
        totals.terms[l] / (s * s)
    }

    #[inline(always)]
    fn join_of(totals: Totals<'_>, l: usize, weight: f64) -> f64 {
        let s = totals.cluster_weights[l];
        s / (s + weight)
    }

    /// The joining factors for a point of weight `weight`.
    #[inline(always)]
    fn set_weight(&mut self, totals: Totals<'_>, weight: f64) {
        // Bitwise comparison: the cached factors were computed for exactly this weight.
        if weight.to_bits() != self.weight.to_bits() {
            for l in 0..totals.k() {
                self.join[l] = Self::join_of(totals, l, weight);
            }
            self.weight = weight;
        }
    }

    /// After a move between clusters `from` and `to`: their factors again.
    #[inline(always)]
    pub(crate) fn moved(&mut self, totals: Totals<'_>, from: usize, to: usize) {
        for l in [from, to] {
            self.norm[l] = Self::norm_of(totals, l);
            self.join[l] = Self::join_of(totals, l, self.weight);
        }
    }
}

/// The best move of a point in cluster `j`: `(ℓ*, ΔQ(j → ℓ*), tolerance)`, or `None`
/// when the point is alone in its cluster or `k = 1`. Ties go to the lowest cluster index.
/// `sums` holds the point's k cluster sums `m_l(i)` ([`Partition::point_sums`]), `totals`
/// the clusters' totals and `constants` their factors ([`MeanConstants::new`] of the same
/// totals).
///
/// The gain is written through the distances to the cluster means,
/// `ΔQ(j → ℓ) = w [ s_j/(s_j − w)·d_j(i) − s_ℓ/(s_ℓ + w)·d_ℓ(i) ]`, which equals the
/// difference of the objectives before and after the move in exact arithmetic. Its terms are
/// per-point quantities (a kernel entry, a cluster's mean kernel row, a mean's squared norm),
/// so the rounding error, and the tolerance, do not grow with the size or the total weight of
/// the clusters, and both scale like the gains when all weights are scaled.
#[inline]
pub(crate) fn best_move(
    totals: Totals<'_>,
    constants: &mut MeanConstants,
    j: usize,
    weight: f64,
    diagonal: f64,
    sums: &[f64],
) -> Option<(usize, f64, f64)> {
    let k = totals.k();
    if totals.counts[j] <= 1 || k < 2 {
        return None;
    }
    constants.set_weight(totals, weight);
    // Every cluster's cost first: independent divisions, which vectorise (cluster j's is
    // computed and not used); then the selection, a short chain of comparisons.
    let costs = &mut constants.costs[..k];
    let per_cluster = sums[..k].iter().zip(&totals.cluster_weights[..k]);
    let factors = constants.norm[..k].iter().zip(&constants.join[..k]);
    for (cost, ((&sum, &s), (&norm, &join))) in costs.iter_mut().zip(per_cluster.zip(factors)) {
        *cost = join * distance_to_mean(diagonal, cross_term(sum, s), norm);
    }
    let mut best = usize::from(j == 0);
    for l in best + 1..k {
        if l != j && costs[l] < costs[best] {
            best = l;
        }
    }
    let s_j = totals.cluster_weights[j];
    let leave = s_j / (s_j - weight);
    let cross_j = cross_term(sums[j], s_j);
    let d_j = distance_to_mean(diagonal, cross_j, constants.norm[j]);
    let e_j = distance_magnitude(diagonal, cross_j, constants.norm[j]);
    let cross = cross_term(sums[best], totals.cluster_weights[best]);
    let magnitude =
        constants.join[best] * distance_magnitude(diagonal, cross, constants.norm[best]);
    let delta = weight * (leave * d_j - costs[best]);
    let tolerance = GAIN_TOLERANCE * weight * (leave * e_j + magnitude);
    Some((best, delta, tolerance))
}

/// Run Hartigan sweeps on `partition` until a sweep moves nothing or `max_iter` sweeps.
/// Each sweep is one [`sweep`].
pub(crate) fn run<K: KernelAccess>(
    kernel: &K,
    weights: &[f64],
    partition: &mut Partition<'_>,
    max_iter: usize,
    control: &Control,
    reporting: Reporting,
) -> Result<SweepStats> {
    let diagonal = diagonal_values(kernel)?;
    sweeps::run(
        partition,
        weights,
        max_iter,
        control,
        reporting,
        |partition| sweep(kernel, weights, &diagonal, partition, control),
    )
}

/// One Hartigan sweep: visit the points in index order and make each point's best move when
/// its gain exceeds the tolerance; returns the number of points moved. `diagonal` holds
/// `G_ii` ([`diagonal_values`]). The single-machine search repeats it;
/// [`crate::cluster::chunk_sweep`] runs it on one chunk of the points against a copy of the global
/// cluster state.
pub(crate) fn sweep<K: KernelAccess>(
    kernel: &K,
    weights: &[f64],
    diagonal: &[f64],
    partition: &mut Partition<'_>,
    control: &Control,
) -> Result<usize> {
    let updates = MoveUpdates::for_sweep(kernel, partition)?;
    sweep_using(kernel, weights, diagonal, partition, control, updates)
}

/// [`sweep`], with the moves' updates of the sums made by `updates`.
pub(crate) fn sweep_using<K: KernelAccess>(
    kernel: &K,
    weights: &[f64],
    diagonal: &[f64],
    partition: &mut Partition<'_>,
    control: &Control,
    mut updates: MoveUpdates,
) -> Result<usize> {
    let mut moves_in_sweep = 0;
    let mut constants = MeanConstants::new(Totals::of(partition));
    let mut buffer = vec![0.0; partition.k];
    let points = weights.iter().zip(diagonal).enumerate().take(kernel.n());
    let visit = || -> Result<()> {
        for (i, (&weight, &diagonal)) in points {
            if i % CHECK_EVERY_POINTS == CHECK_EVERY_POINTS - 1 {
                control.checkpoint()?;
            }
            updates.catch_up(kernel, partition, i);
            let sums = partition.point_sums(i, &mut buffer);
            if let Some((to, delta, tolerance)) = best_move(
                Totals::of(partition),
                &mut constants,
                partition.labels[i],
                weight,
                diagonal,
                sums,
            ) {
                if delta > tolerance {
                    let from = partition.labels[i];
                    updates.make_move(kernel, partition, i, to, weight, diagonal);
                    constants.moved(Totals::of(partition), from, to);
                    moves_in_sweep += 1;
                }
            }
        }
        Ok(())
    };
    let visited = visit();
    // Also when interrupted: the partition the caller keeps must hold its moves.
    updates.finish(kernel, partition);
    visited.map(|()| moves_in_sweep)
}
