//! Kernel k-means: Lloyd's method in kernel space (SPEC, Algorithm 1 corrected), batch and
//! online.
//!
//! The cost of point `i` in cluster `l` is `‖φ(x_i) − μ_l‖² − G_ii = Q_l/s_l² − 2 m_l(i)/s_l`.
//! A point changes cluster only if another cluster is cheaper by more than a relative
//! tolerance; on a tie it stays.
//!
//! Empty clusters: the online variant never moves a point that is alone in its cluster. In
//! the batch variant, if the new assignment would leave a cluster empty, the old member of
//! that cluster closest to its old centre stays in it (repeated until no cluster is empty).
//! Either way the cost cannot increase, so `W` never increases for a PSD kernel.
//!
//! With a diagonal shift (the kernel `G + shift·W⁻¹`, see [`crate::Options::shift`]) the
//! sums stay those of `G` and the costs take the shift from the formulas: point `i` is
//! `shift/s_l` farther from every other cluster's mean and `shift/s_j` nearer its own
//! cluster `j`'s.

use crate::cluster::partition::Partition;
use crate::cluster::pending_moves::MoveUpdates;
use crate::cluster::sweeps::{self, Reporting, SweepStats, CHECK_EVERY_POINTS, GAIN_TOLERANCE};
use crate::control::Control;
use crate::error::Result;
use crate::kernel::KernelAccess;
use rayon::prelude::*;

/// The cheapest cluster for point `i` and whether it beats the current one by more than
/// the tolerance. Ties keep the current cluster, then the lowest index.
#[inline]
pub(crate) fn best_cluster(partition: &Partition, i: usize) -> usize {
    let current = partition.labels[i];
    // `Q'_l/s_l² − 2 m'_l(i)/s_l` of the shifted kernel, with `Q'_l = Q_l + shift·s_l` and
    // `m'_l(i) = m_l(i) + shift·[i ∈ C_l]`.
    let shift = |l: usize| {
        if partition.shift == 0.0 {
            return 0.0; // no division on the unshifted kernel
        }
        let own = if l == current { -1.0 } else { 1.0 };
        own * partition.shift / partition.cluster_weights[l]
    };
    let cost = |l: usize| {
        let s = partition.cluster_weights[l];
        partition.terms[l] / (s * s) - 2.0 * partition.sum(l, i) / s + shift(l)
    };
    let magnitude = |l: usize| {
        let s = partition.cluster_weights[l];
        (partition.terms[l] / (s * s)).abs()
            + (2.0 * partition.sum(l, i) / s).abs()
            + shift(l).abs()
    };
    let current_cost = cost(current);
    let mut best = current;
    let mut best_cost = current_cost;
    for l in (0..partition.k).filter(|&l| l != current) {
        let c = cost(l);
        if c < best_cost {
            best = l;
            best_cost = c;
        }
    }
    if best != current
        && current_cost - best_cost > GAIN_TOLERANCE * (magnitude(current) + magnitude(best))
    {
        best
    } else {
        current
    }
}

/// Run Lloyd iterations until nothing changes or `max_iter`: batch (all points reassigned from
/// the same state, then the sums brought up to date) or `online` (points reassigned one at a
/// time, the sums updated after each move).
pub(crate) fn run<'a, K: KernelAccess>(
    kernel: &'a K,
    weights: &[f64],
    partition: &mut Partition<'a>,
    online: bool,
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
        |partition| {
            if online {
                online_sweep(kernel, weights, partition, control)
            } else {
                batch_step(kernel, weights, partition, control)
            }
        },
    )
}

fn online_sweep<K: KernelAccess>(
    kernel: &K,
    weights: &[f64],
    partition: &mut Partition<'_>,
    control: &Control,
) -> Result<usize> {
    let updates = MoveUpdates::for_sweep(kernel, partition)?;
    online_sweep_using(kernel, weights, partition, control, updates)
}

/// One online sweep, with the moves' updates of the sums made by `updates` (as Hartigan's
/// sweep makes them, see [`MoveUpdates`]).
pub(crate) fn online_sweep_using<K: KernelAccess>(
    kernel: &K,
    weights: &[f64],
    partition: &mut Partition<'_>,
    control: &Control,
    mut updates: MoveUpdates,
) -> Result<usize> {
    let mut moves = 0;
    let mut visit = || -> Result<()> {
        for (i, &weight) in weights.iter().enumerate().take(kernel.n()) {
            if i % CHECK_EVERY_POINTS == CHECK_EVERY_POINTS - 1 {
                control.checkpoint()?;
            }
            if partition.counts[partition.labels[i]] <= 1 {
                continue;
            }
            updates.catch_up(kernel, partition, i);
            let to = best_cluster(partition, i);
            if to != partition.labels[i] {
                updates.make_move(kernel, partition, i, to, weight, kernel.diagonal(i));
                moves += 1;
            }
        }
        Ok(())
    };
    let visited = visit();
    // Also when interrupted: the partition the caller keeps must hold its moves.
    updates.finish(kernel, partition);
    visited.map(|()| moves)
}

fn batch_step<'a, K: KernelAccess>(
    kernel: &'a K,
    weights: &[f64],
    partition: &mut Partition<'a>,
    control: &Control,
) -> Result<usize> {
    let n = kernel.n();
    let mut new_labels: Vec<usize> = (0..n)
        .into_par_iter()
        .map(|i| best_cluster(partition, i))
        .collect();
    control.checkpoint()?;
    keep_clusters_non_empty(kernel, partition, weights, &mut new_labels, None);
    let changed: Vec<usize> = (0..n)
        .filter(|&i| new_labels[i] != partition.labels[i])
        .collect();
    // Updating M costs O(n) per changed point; past a fraction of n a rebuild is cheaper.
    if changed.len() * 4 > n {
        let shift = partition.shift;
        *partition = Partition::new(kernel, new_labels, weights, partition.k, control, false)?;
        partition.shift = shift;
    } else {
        for (count, &i) in changed.iter().enumerate() {
            if count % 1024 == 1023 {
                control.checkpoint()?;
            }
            partition.move_point(kernel, i, new_labels[i], weights[i], kernel.diagonal(i));
        }
    }
    Ok(changed.len())
}

/// If `new_labels` leaves a cluster empty, give it back the old member closest to its old
/// centre (`‖φ(x_i) − μ_l‖²` from the old state, of the shifted kernel: `shift/w_i − shift/s_l`
/// more than `G`'s; ties to the lowest index). A restored point
/// returns to its old cluster and never moves again, so this ends after at most n repairs.
/// `elsewhere` counts the members of each cluster outside these points (for one chunk of a
/// distributed run: the other chunks' members); `None` means there are none.
pub(crate) fn keep_clusters_non_empty<K: KernelAccess>(
    kernel: &K,
    partition: &Partition,
    weights: &[f64],
    new_labels: &mut [usize],
    elsewhere: Option<&[usize]>,
) {
    let k = partition.k;
    let mut counts = match elsewhere {
        Some(counts) => counts.to_vec(),
        None => vec![0usize; k],
    };
    for &l in new_labels.iter() {
        counts[l] += 1;
    }
    while let Some(empty) = counts.iter().position(|&c| c == 0) {
        let s = partition.cluster_weights[empty];
        let distance = |i: usize| {
            kernel.diagonal(i) - 2.0 * partition.sum(empty, i) / s
                + partition.terms[empty] / (s * s)
                + partition.shift * (1.0 / weights[i] - 1.0 / s)
        };
        let closest = (0..new_labels.len())
            .filter(|&i| partition.labels[i] == empty)
            .min_by(|&a, &b| distance(a).total_cmp(&distance(b)));
        let Some(i) = closest else { break };
        counts[new_labels[i]] -= 1;
        new_labels[i] = empty;
        counts[empty] += 1;
    }
}
