//! Kernel k-groups: Hartigan's method in kernel space (SPEC, eqs. 47–51, Algorithm 2).

use crate::control::{Control, Progress};
use crate::error::Result;
use crate::kernel::Kernel;
use crate::partition::Partition;

/// A move must gain more than this times the magnitude of the terms it compares, so that
/// rounding can never make a pair of moves cycle.
pub(crate) const RELATIVE_TOLERANCE: f64 = 1e-12;

/// Check the cancel flag after this many points evaluated.
pub(crate) const CHECK_EVERY_POINTS: usize = 256;

/// What a run of sweeps did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SweepStats {
    pub n_iter: usize,
    pub n_moves: usize,
    pub converged: bool,
    pub objective_history: Vec<f64>,
}

/// The best move of point `i` (in cluster `j`): `(ℓ*, ΔQ(j → ℓ*), tolerance)`, or `None`
/// when `i` is alone in its cluster or `k = 1`. Ties go to the lowest cluster index.
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
    let self_term = weight * weight * diagonal;
    let (q_j, s_j) = (partition.terms[j], partition.sizes[j]);
    let leave_gain =
        (q_j - 2.0 * weight * partition.sum(j, i) + self_term) / (s_j - weight) - q_j / s_j;
    let mut best: Option<(usize, f64)> = None;
    for l in (0..partition.k).filter(|&l| l != j) {
        let (q_l, s_l) = (partition.terms[l], partition.sizes[l]);
        let join_gain =
            (q_l + 2.0 * weight * partition.sum(l, i) + self_term) / (s_l + weight) - q_l / s_l;
        let delta = join_gain + leave_gain;
        if best.is_none_or(|(_, d)| delta > d) {
            best = Some((l, delta));
        }
    }
    best.map(|(l, delta)| {
        // Every term scales like the weights (Q ~ w², s ~ w), so the tolerance does too.
        let s_l = partition.sizes[l];
        let scale =
            (q_j / s_j).abs() + (partition.terms[l] / s_l).abs() + self_term.abs() / (s_l + weight);
        (l, delta, RELATIVE_TOLERANCE * scale)
    })
}

/// Run Hartigan sweeps on `partition` until a sweep moves nothing or `max_iter` sweeps.
pub(crate) fn run<K: Kernel>(
    kernel: &K,
    weights: &[f64],
    partition: &mut Partition<'_>,
    max_iter: usize,
    control: &Control,
    start: usize,
) -> Result<SweepStats> {
    let n = kernel.n();
    let mut history = vec![partition.objective()];
    let mut n_moves = 0;
    let mut converged = false;
    let mut n_iter = 0;
    while n_iter < max_iter {
        n_iter += 1;
        let mut moves_in_sweep = 0;
        for (i, &weight) in weights.iter().enumerate().take(n) {
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
        partition.refresh_totals(weights);
        n_moves += moves_in_sweep;
        let objective = partition.objective();
        history.push(objective);
        control.report(Progress {
            start,
            sweep: n_iter,
            moves_in_sweep,
            objective,
        })?;
        if moves_in_sweep == 0 {
            converged = true;
            break;
        }
    }
    Ok(SweepStats {
        n_iter,
        n_moves,
        converged,
        objective_history: history,
    })
}
