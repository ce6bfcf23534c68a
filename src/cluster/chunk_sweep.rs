//! One round of distributed kernel k-groups on one chunk of the points, for a low-rank
//! kernel `G = Φ Φᵀ` (Nyström features).
//!
//! A distributed run keeps the points' features and labels in chunks on workers and only the
//! global cluster state on the client: the k weighted feature sums `S_l = Σ_{y∈C_l} w_y φ_y`
//! (k × m), the cluster weights `s_l` and the member counts. In a round every chunk receives
//! a copy of that state and runs [`chunk_round`]: one sequential Hartigan sweep over its own
//! points in index order (the very sweep of the single-machine search, with its gain and its
//! rounding tolerance), or one batch Lloyd assignment, updating its copy as if it were alone.
//! It returns its new labels, its copy of the sums after its moves, and its partial cluster
//! weights and counts before and after, from which the client forms and verifies the
//! combined state. [`chunk_sums`] gives a chunk's partial state for given labels, and
//! [`feature_objective`] the objective `Q = Σ_l ‖S_l‖² / s_l` of a state.
//!
//! With a single chunk, a round is exactly one sweep of [`crate::fit`] on the same features.

use crate::cluster::hartigan;
use crate::cluster::lloyd::{best_cluster, keep_clusters_non_empty};
use crate::cluster::partition::{dot, ClusterSums, Partition};
use crate::control::Control;
use crate::error::{out_of_memory, try_filled, KGroupsError, Result};
use crate::kernel::lowrank::FeatureKernel;
use crate::kernel::{diagonal_values, Kernel};
use crate::validate;

/// The local search one round runs on a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChunkAlgorithm {
    /// One sequential Hartigan sweep (kernel k-groups).
    #[default]
    Hartigan,
    /// One batch Lloyd assignment from the broadcast state (kernel k-means).
    Lloyd,
}

/// A chunk's partial cluster state for its labels: the weighted feature sums (k × m,
/// row-major, added in index order), the cluster weights, the member counts and
/// `Σ_i w_i ‖φ_i‖²` (the chunk's part of the kernel's weighted trace).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkSums {
    /// `Σ_{i∈C_l} w_i φ_i` over the chunk's points, k × m row-major.
    pub sums: Vec<f64>,
    /// `Σ_{i∈C_l} w_i` over the chunk's points.
    pub cluster_weights: Vec<f64>,
    /// The chunk's points in each cluster.
    pub counts: Vec<usize>,
    /// `Σ_i w_i ‖φ_i‖²` over the chunk's points.
    pub trace: f64,
}

/// The global cluster state broadcast to every chunk in a round.
#[derive(Debug, Clone, Copy)]
pub struct GlobalState<'a> {
    /// `S_l`, k × m row-major.
    pub sums: &'a [f64],
    /// `s_l`, the cluster weights (all > 0).
    pub cluster_weights: &'a [f64],
    /// The members of each cluster over all chunks.
    pub counts: &'a [usize],
}

/// What one round did on one chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRound {
    /// The chunk's labels after the round.
    pub labels: Vec<usize>,
    /// Points of the chunk that changed cluster.
    pub moves: usize,
    /// The chunk's copy of the global sums `S_l` after its own moves (k × m).
    pub sums: Vec<f64>,
    /// The chunk's partial cluster weights from its labels before the round.
    pub weights_before: Vec<f64>,
    /// The chunk's partial cluster weights from its labels after the round.
    pub weights_after: Vec<f64>,
    /// The chunk's partial member counts before the round.
    pub counts_before: Vec<usize>,
    /// The chunk's partial member counts after the round.
    pub counts_after: Vec<usize>,
}

/// Weights of `n` points: the given ones (checked finite and positive) or all 1.
fn chunk_weights(weights: Option<&[f64]>, n: usize) -> Result<Vec<f64>> {
    match weights {
        None => try_filled(n, 1.0, "weights", "the point weights"),
        Some(w) => {
            validate::weights(w, n, "weights")?;
            Ok(w.to_vec())
        }
    }
}

/// Labels of one chunk: positions are the chunk's own (the caller knows its offset), so the
/// message says so, unlike [`validate::labels_below_k`]'s.
fn check_labels(labels: &[usize], n: usize, k: usize) -> Result<()> {
    if labels.len() != n {
        return Err(KGroupsError::invalid(
            "init",
            format!(
                "expected {n} labels for the chunk's {n} points, got {}",
                labels.len()
            ),
        ));
    }
    if let Some(p) = labels.iter().position(|&l| l >= k) {
        return Err(KGroupsError::invalid(
            "init",
            format!(
                "label {} at chunk position {p} is not in 0..k = 0..{k}",
                labels[p]
            ),
        ));
    }
    Ok(())
}

/// Partial cluster weights and counts of `labels`.
fn partial_weights(labels: &[usize], weights: &[f64], k: usize) -> Result<(Vec<f64>, Vec<usize>)> {
    let mut cluster_weights = try_filled(k, 0.0, "k", "the cluster weights")?;
    let mut counts = try_filled(k, 0usize, "k", "the cluster sizes")?;
    for (&l, &w) in labels.iter().zip(weights) {
        cluster_weights[l] += w;
        counts[l] += 1;
    }
    Ok((cluster_weights, counts))
}

/// The partial cluster state of one chunk (features `n × m`, row-major) for `labels` in
/// `0..k`, with optional point weights (default 1). The sums are added in index order, as
/// the single-machine search adds them.
///
/// ```
/// use kgroups::chunk_sweep::chunk_sums;
/// let features = [1.0, 0.0, 0.0, 2.0, 3.0, 1.0]; // three points, m = 2
/// let part = chunk_sums(&features, 2, &[0, 1, 0], None, 2)?;
/// assert_eq!(part.sums, vec![4.0, 1.0, 0.0, 2.0]);
/// assert_eq!((part.cluster_weights, part.counts), (vec![2.0, 1.0], vec![2, 1]));
/// assert_eq!(part.trace, 1.0 + 4.0 + 10.0);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn chunk_sums(
    features: &[f64],
    m: usize,
    labels: &[usize],
    weights: Option<&[f64]>,
    k: usize,
) -> Result<ChunkSums> {
    let n = labels.len();
    check_labels(labels, n, k)?;
    let weights = chunk_weights(weights, n)?;
    let len = k
        .checked_mul(m)
        .ok_or_else(|| out_of_memory::<f64>(usize::MAX, "k", "the k cluster feature sums"))?;
    let mut sums = try_filled(len, 0.0, "k", "the k cluster feature sums")?;
    if n == 0 {
        // An empty chunk (dask allows them) adds nothing.
        return Ok(ChunkSums {
            sums,
            cluster_weights: try_filled(k, 0.0, "k", "the cluster weights")?,
            counts: try_filled(k, 0usize, "k", "the cluster sizes")?,
            trace: 0.0,
        });
    }
    let kernel = FeatureKernel::new(features, n, m)?;
    let mut trace = 0.0;
    for (i, (&label, &w)) in labels.iter().zip(&weights).enumerate() {
        let target = &mut sums[label * m..(label + 1) * m];
        for (s, f) in target.iter_mut().zip(kernel.feature(i)) {
            *s += w * f;
        }
        trace += w * kernel.diagonal(i);
    }
    let (cluster_weights, counts) = partial_weights(labels, &weights, k)?;
    Ok(ChunkSums {
        sums,
        cluster_weights,
        counts,
        trace,
    })
}

/// `Q = Σ_l ‖S_l‖² / s_l` for the feature sums `S` (k × m, row-major) and cluster weights
/// `s` (k), computed exactly as the single-machine search computes it.
///
/// ```
/// use kgroups::chunk_sweep::feature_objective;
/// // S_0 = (3, 4) over weight 5, S_1 = (1, 0) over weight 1: 25/5 + 1/1.
/// assert_eq!(feature_objective(&[3.0, 4.0, 1.0, 0.0], &[5.0, 1.0])?, 6.0);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn feature_objective(sums: &[f64], cluster_weights: &[f64]) -> Result<f64> {
    let k = cluster_weights.len();
    if k == 0 || sums.is_empty() || !sums.len().is_multiple_of(k) {
        return Err(KGroupsError::invalid(
            "sums",
            format!(
                "expected k × m feature sums for k = {k} cluster weights, got {} values",
                sums.len()
            ),
        ));
    }
    let m = sums.len() / k;
    Ok(sums
        .chunks_exact(m)
        .zip(cluster_weights)
        .map(|(s, weight)| dot(s, s) / weight)
        .sum())
}

/// One round on one chunk: the chunk's features (`n × m`, row-major, finite), its labels
/// and weights (default 1), and the broadcast global state. Hartigan runs one sequential
/// sweep in index order, each point making its best move when the gain exceeds its rounding
/// tolerance (the single-machine rule), against the chunk's copy of the state, which it
/// updates after every move; a point alone in its cluster (over all chunks) never moves.
/// Lloyd assigns every point to its nearest mean in the broadcast state, keeping clusters
/// non-empty (counting the other chunks' members), then applies the moves to the copy.
///
/// ```
/// use kgroups::chunk_sweep::{chunk_round, chunk_sums, ChunkAlgorithm, GlobalState};
/// use kgroups::Control;
/// // Four 1-D points; point 1 (at 9.0) starts in the cluster of the points near 0.
/// let features = [0.0, 9.0, 0.5, 10.0];
/// let labels = [0, 0, 0, 1];
/// let part = chunk_sums(&features, 1, &labels, None, 2)?;
/// let state = GlobalState { sums: &part.sums, cluster_weights: &part.cluster_weights, counts: &part.counts };
/// let round = chunk_round(&features, 1, &labels, None, state, ChunkAlgorithm::Hartigan, &Control::new())?;
/// assert_eq!(round.labels, vec![0, 1, 0, 1]);
/// assert_eq!((round.moves, round.counts_after.clone()), (1, vec![2, 2]));
/// assert_eq!(round.sums, vec![0.5, 19.0]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn chunk_round(
    features: &[f64],
    m: usize,
    labels: &[usize],
    weights: Option<&[f64]>,
    state: GlobalState<'_>,
    algorithm: ChunkAlgorithm,
    control: &Control,
) -> Result<ChunkRound> {
    let n = labels.len();
    let k = state.cluster_weights.len();
    if k == 0 || k.checked_mul(m) != Some(state.sums.len()) || state.counts.len() != k {
        return Err(KGroupsError::invalid(
            "sums",
            format!(
                "the global state must hold k × m = {k} × {m} sums and k counts, got {} sums and {} counts",
                state.sums.len(),
                state.counts.len()
            ),
        ));
    }
    if let Some(l) = (0..k).find(|&l| {
        !(state.cluster_weights[l].is_finite()
            && state.cluster_weights[l] > 0.0
            && state.counts[l] > 0)
    }) {
        return Err(KGroupsError::invalid(
            "sums",
            format!("cluster {l} of the global state is empty or has a non-finite weight"),
        ));
    }
    if let Some(p) = state.sums.iter().position(|v| !v.is_finite()) {
        return Err(KGroupsError::invalid(
            "sums",
            format!("the global feature sums are not finite (cluster {})", p / m),
        ));
    }
    check_labels(labels, n, k)?;
    let weights = chunk_weights(weights, n)?;
    let (weights_before, counts_before) = partial_weights(labels, &weights, k)?;
    if n == 0 {
        return Ok(ChunkRound {
            labels: Vec::new(),
            moves: 0,
            sums: state.sums.to_vec(),
            weights_after: weights_before.clone(),
            weights_before,
            counts_after: counts_before.clone(),
            counts_before,
        });
    }
    let kernel = FeatureKernel::new(features, n, m)?;
    if let Some(l) = (0..k).find(|&l| counts_before[l] > state.counts[l]) {
        return Err(KGroupsError::invalid(
            "counts",
            format!("the chunk has more members of cluster {l} than the global state counts"),
        ));
    }
    let mut partition = Partition {
        n,
        k,
        labels: labels.to_vec(),
        counts: state.counts.to_vec(),
        cluster_weights: state.cluster_weights.to_vec(),
        terms: vec![0.0; k],
        sums: ClusterSums::Features {
            sums: state.sums.to_vec(),
            features,
            m,
        },
        shift: 0.0,
    };
    // Q_l = ‖S_l‖², as the single-machine search refreshes it after every sweep.
    for (term, s) in partition.terms.iter_mut().zip(state.sums.chunks_exact(m)) {
        *term = dot(s, s);
    }
    let moves = match algorithm {
        ChunkAlgorithm::Hartigan => {
            let diagonal = diagonal_values(&kernel)?;
            hartigan::sweep(&kernel, &weights, &diagonal, &mut partition, control)?
        }
        ChunkAlgorithm::Lloyd => {
            let mut new_labels: Vec<usize> = (0..n).map(|i| best_cluster(&partition, i)).collect();
            control.checkpoint()?;
            let elsewhere: Vec<usize> = state
                .counts
                .iter()
                .zip(&counts_before)
                .map(|(total, here)| total - here)
                .collect();
            keep_clusters_non_empty(
                &kernel,
                &partition,
                &weights,
                &mut new_labels,
                Some(&elsewhere),
            );
            let mut moves = 0;
            for (i, &to) in new_labels.iter().enumerate() {
                if to != partition.labels[i] {
                    partition.move_point(&kernel, i, to, weights[i], kernel.diagonal(i));
                    moves += 1;
                }
            }
            moves
        }
    };
    let (weights_after, counts_after) = partial_weights(&partition.labels, &weights, k)?;
    let sums = match partition.sums {
        ClusterSums::Features { sums, .. } => sums,
        ClusterSums::ClusterMajor(_) | ClusterSums::PointMajor(_) => {
            return Err(KGroupsError::Internal(
                "a chunk partition lost its feature sums".into(),
            ))
        }
    };
    Ok(ChunkRound {
        labels: partition.labels,
        moves,
        sums,
        weights_before,
        weights_after,
        counts_before,
        counts_after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{fit, Algorithm, Init, Options};

    fn features(n: usize, m: usize, seed: u64) -> Vec<f64> {
        let mut rng = crate::rng::Rng::new(seed);
        (0..n * m)
            .map(|p| rng.next_f64() + if (p / m).is_multiple_of(3) { 1.5 } else { 0.0 })
            .collect()
    }

    /// Rounds on one chunk, with the client's bookkeeping, repeat the single-machine search.
    #[test]
    fn one_chunk_rounds_are_the_sequential_search() {
        let (n, m, k) = (90, 4, 3);
        let phi = features(n, m, 5);
        let init: Vec<usize> = (0..n).map(|i| (i * 7 + i / 5) % k).collect();
        let kernel = FeatureKernel::new(&phi, n, m).unwrap();
        let options = Options {
            algorithm: Algorithm::Hartigan,
            init: Init::Labels(&init),
            ..Options::default()
        };
        let single = fit(&kernel, k, &options, &Control::new()).unwrap();
        let part = chunk_sums(&phi, m, &init, None, k).unwrap();
        let (mut sums, mut cluster_weights, mut counts) =
            (part.sums, part.cluster_weights, part.counts);
        let mut labels = init.clone();
        let mut history = vec![feature_objective(&sums, &cluster_weights).unwrap()];
        loop {
            let state = GlobalState {
                sums: &sums,
                cluster_weights: &cluster_weights,
                counts: &counts,
            };
            let round = chunk_round(
                &phi,
                m,
                &labels,
                None,
                state,
                ChunkAlgorithm::Hartigan,
                &Control::new(),
            )
            .unwrap();
            (sums, cluster_weights, counts) = (round.sums, round.weights_after, round.counts_after);
            labels = round.labels;
            history.push(feature_objective(&sums, &cluster_weights).unwrap());
            if round.moves == 0 {
                break;
            }
        }
        assert_eq!(labels, single.labels);
        assert_eq!(history, single.objective_history);
    }

    #[test]
    fn lloyd_round_keeps_clusters_non_empty_across_chunks() {
        // Cluster 1 has one member here and none elsewhere; its mean is far from it.
        let phi = [0.0, 0.1, 0.2, 5.0];
        let labels = [0, 1, 0, 0];
        let part = chunk_sums(&phi, 1, &labels, None, 2).unwrap();
        let state = GlobalState {
            sums: &part.sums,
            cluster_weights: &part.cluster_weights,
            counts: &part.counts,
        };
        let round = chunk_round(
            &phi,
            1,
            &labels,
            None,
            state,
            ChunkAlgorithm::Lloyd,
            &Control::new(),
        )
        .unwrap();
        assert!(round.counts_after.iter().all(|&c| c > 0), "{round:?}");
    }

    #[test]
    fn rejects_bad_chunks() {
        let phi = [0.0, 1.0, f64::NAN, 2.0];
        assert!(chunk_sums(&phi, 1, &[0, 1, 0, 1], None, 2).is_err());
        let phi = [0.0, 1.0];
        assert!(chunk_sums(&phi, 1, &[0, 2], None, 2).is_err());
        assert!(chunk_sums(&phi, 1, &[0, 1], Some(&[1.0, -1.0]), 2).is_err());
        let state = GlobalState {
            sums: &[0.0, 1.0],
            cluster_weights: &[1.0, 0.0],
            counts: &[1, 0],
        };
        let err = chunk_round(
            &phi,
            1,
            &[0, 1],
            None,
            state,
            ChunkAlgorithm::Hartigan,
            &Control::new(),
        );
        assert!(err.unwrap_err().to_string().contains("empty"));
        assert!(feature_objective(&[1.0, 2.0, 3.0], &[1.0, 1.0]).is_err());
    }
}
