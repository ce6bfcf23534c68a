//! The partition of every point beyond the statistics' sample: the energy kernel's fits of
//! all the points, or the kNN graph's vote and refinement.

use super::eigengap;
use super::fits::spectral_graph_fits;
use super::neighbors::{self, knn_affinity, CsrGraphKernel, KNN_NEIGHBOURS};
use super::steps::Steps;
use crate::error::{KGroupsError, Result};
use crate::rng::derived_seed;
use crate::{fit, Control, Options, Points};
use rayon::prelude::*;

/// The energy kernel's partition of every point into `k`: the best of `n_init` single-start
/// fits (the largest objective, the first start if tied), start `i` seeded by
/// `derived_seed(seed, i)`; each start is one step of `steps`.
pub(super) fn best_of_starts<K: crate::Kernel + Sync>(
    kernel: &K,
    k: usize,
    n_init: usize,
    seed: u64,
    steps: &Steps,
    control: &Control,
) -> Result<Vec<usize>> {
    let best = (0..n_init)
        .into_par_iter()
        .map(|start| {
            let options = Options {
                n_init: 1,
                seed: derived_seed(seed, start),
                ..Options::default()
            };
            let fitted = fit(kernel, k, &options, control)?;
            steps.step_if_planned()?;
            Ok((fitted.objective, start, fitted.labels))
        })
        .try_reduce_with(|a, b| {
            Ok(if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
                b
            } else {
                a
            })
        })
        .transpose()?;
    best.map(|(_, _, labels)| labels)
        .ok_or_else(|| KGroupsError::Internal("no start produced a result".into()))
}

/// The kNN graph's partition into `k` of every point of `x`, from the partition `labels` of
/// the statistics' sample `nodes`: each point takes the label most of its 10 nearest sample
/// points hold ([`neighbors::vote_labels`]), then Hartigan's method refines the normalised
/// cut of the kNN graph of all points from there. No eigenvectors of the full graph are
/// needed; they are computed (and the partition started from them, as on the sample) only
/// when the voted labels leave a group empty.
pub(super) fn knn_partition_of_all(
    x: &Points,
    nodes: &[usize],
    labels: &[usize],
    k: usize,
    seed: u64,
    stage: &dyn Fn() -> Result<()>,
    control: &Control,
) -> Result<Vec<usize>> {
    let n = x.n();
    let voted = neighbors::vote_labels(x, nodes, labels, k, KNN_NEIGHBOURS, control)?;
    stage()?;
    let graph = CsrGraphKernel::from_affinity(knn_affinity(x, KNN_NEIGHBOURS.min(n - 1), control)?);
    stage()?;
    let kernel = graph.kernel()?;
    let refined = fit(
        &kernel,
        k,
        &Options {
            init: crate::Init::Labels(&voted),
            weights: Some(&graph.degrees),
            ..Options::default()
        },
        control,
    );
    match refined {
        Ok(c) => Ok(c.labels),
        Err(KGroupsError::Interrupted) => Err(KGroupsError::Interrupted),
        Err(_) => {
            let fits = spectral_graph_fits(
                &kernel,
                &graph.degrees,
                k,
                &[k],
                false,
                seed,
                &eigengap::SELECTION_EIGEN_OPTIONS,
                control,
            )?;
            Ok(fits
                .into_iter()
                .next()
                .map(|f| f.labels)
                .unwrap_or_default())
        }
    }
}
