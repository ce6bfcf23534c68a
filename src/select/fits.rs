//! One partition per k for a kernel, as the selection rules need them: kernel k-groups
//! (Hartigan) from k-means++ starts for the energy kernel, and from a spectral start (plus
//! optional k-means++ starts) for normalised-cut graph kernels, where a k-means++ start in
//! feature space seeds poorly.

use super::warm::split_most_dispersed;
use crate::error::{KGroupsError, Result};
use crate::rng::derive_seeds;
use crate::rng::Rng;
use crate::spectral::{EigenOptions, Eigenpairs, SpectralEmbedding};
use crate::{fit, Control, Init, Kernel, Options};
use rayon::prelude::*;

/// A partition and its dispersion.
#[derive(Debug, Clone, PartialEq)]
pub struct KFit {
    /// The labels, `0..k`.
    pub labels: Vec<usize>,
    /// The energy within-cluster dispersion `W` (energy kernel), or the normalised cut plus
    /// one, `k − Q + 1` (graph kernels, whose `W` is minus the association, not positive).
    pub within: f64,
    /// Whether the partition came from the warm start (the split of the best partition into
    /// k − 1, [`split_most_dispersed`]) rather than from a cold start.
    pub from_warm_start: bool,
}

/// The best fit of one k so far: what the next k's warm start needs.
struct Best {
    labels: Vec<usize>,
    objective: f64,
    within: f64,
    terms: Vec<f64>,
    warm: bool,
}

impl From<crate::Clustering> for Best {
    fn from(c: crate::Clustering) -> Self {
        Best {
            labels: c.labels,
            objective: c.objective,
            within: c.within,
            terms: c.cluster_terms,
            warm: false,
        }
    }
}

/// With `warm_start`, walks `ks` in order and gives every k that follows k − 1 one more
/// start: the best partition into k − 1 with its most dispersed cluster split in two
/// ([`split_most_dispersed`]), refined by the same local search; it replaces the cold
/// starts' best when its objective is larger. Its seed is derived from the k's own seed.
fn warm_chain<K: Kernel>(
    kernel: &K,
    ks: &[usize],
    best: &mut [Best],
    weights: Option<&[f64]>,
    seeds: &[u64],
    warm_start: bool,
    control: &Control,
) -> Result<()> {
    if !warm_start {
        return Ok(());
    }
    for i in 1..ks.len() {
        if ks[i] != ks[i - 1] + 1 {
            continue;
        }
        let split_seed = derive_seeds(seeds[i], 2)[1];
        let prev = &best[i - 1];
        let start = split_most_dispersed(
            kernel,
            &prev.labels,
            ks[i - 1],
            &prev.terms,
            weights,
            split_seed,
            control,
        )?;
        let Some(start) = start else { continue };
        let options = Options {
            init: Init::Labels(&start),
            weights,
            seed: seeds[i],
            ..Options::default()
        };
        // An extra start that cannot run (a cluster of the k − 1 partition left empty) is
        // skipped, as a failed spectral start is: the cold starts stand.
        let c = match fit(kernel, ks[i], &options, control) {
            Ok(c) => c,
            Err(KGroupsError::Interrupted) => return Err(KGroupsError::Interrupted),
            Err(_) => continue,
        };
        if c.objective > best[i].objective {
            best[i] = Best {
                warm: true,
                ..Best::from(c)
            };
        }
    }
    Ok(())
}

/// Partitions of an energy-type kernel for every k in `ks`, the best of `n_init` k-means++
/// starts each (run in parallel over k) and, with `warm_start`, of one warm start from the
/// partition into k − 1 ([`split_most_dispersed`]); seeds derived from `seed` per k.
pub fn energy_fits<K: Kernel>(
    kernel: &K,
    ks: &[usize],
    n_init: usize,
    warm_start: bool,
    seed: u64,
    control: &Control,
) -> Result<Vec<KFit>> {
    let seeds = derive_seeds(seed, ks.len());
    let mut best: Vec<Best> = ks
        .par_iter()
        .zip(&seeds)
        .map(|(&k, &seed)| {
            let options = Options {
                n_init: n_init.max(1),
                seed,
                ..Options::default()
            };
            Ok(Best::from(fit(kernel, k, &options, control)?))
        })
        .collect::<Result<_>>()?;
    warm_chain(kernel, ks, &mut best, None, &seeds, warm_start, control)?;
    Ok(best
        .into_iter()
        .map(|b| KFit {
            within: b.within,
            labels: b.labels,
            from_warm_start: b.warm,
        })
        .collect())
}

/// The spectral start for k groups ([`SpectralEmbedding::round`] of the first k of `pairs`,
/// the points weighted by `weights`), drawn from `seed`.
pub fn spectral_start(
    pairs: &Eigenpairs,
    k: usize,
    weights: &[f64],
    seed: u64,
    control: &Control,
) -> Result<Vec<usize>> {
    SpectralEmbedding::from_pairs(pairs, k)?.round(weights, &mut Rng::new(seed), control)
}

/// Partitions of a normalised-cut kernel (node weights `degrees`) for every k in `ks`, run
/// in parallel: Hartigan from the spectral start built on `pairs` (at least `max(ks)`
/// eigenpairs) and, when `extra_starts > 0`, from that many k-means++ starts; with
/// `warm_start`, also from the partition into k − 1 ([`split_most_dispersed`]); the larger
/// objective wins. `within` is the normalised cut plus one.
#[allow(clippy::too_many_arguments)]
pub fn graph_fits<K: Kernel>(
    kernel: &K,
    degrees: &[f64],
    pairs: &Eigenpairs,
    ks: &[usize],
    extra_starts: usize,
    warm_start: bool,
    seed: u64,
    control: &Control,
) -> Result<Vec<KFit>> {
    let n = kernel.n();
    let seeds = derive_seeds(seed, ks.len());
    let mut best: Vec<Best> = ks
        .par_iter()
        .zip(&seeds)
        .map(|(&k, &seed)| {
            if k == 1 {
                // One group: Q = 1 (the normalised association of the whole graph); its
                // single term is not needed to split it.
                return Ok(Best {
                    labels: vec![0; n],
                    objective: 1.0,
                    within: 1.0,
                    terms: vec![0.0],
                    warm: false,
                });
            }
            let base = Options {
                weights: Some(degrees),
                seed,
                ..Options::default()
            };
            let mut best: Option<crate::Clustering> = None;
            if k <= pairs.count {
                let start = spectral_start(pairs, k, degrees, seed, control)?;
                // A start that fails is skipped: the k-means++ start below stands in.
                match fit(
                    kernel,
                    k,
                    &Options {
                        init: Init::Labels(&start),
                        ..base
                    },
                    control,
                ) {
                    Ok(c) => best = Some(c),
                    Err(KGroupsError::Interrupted) => return Err(KGroupsError::Interrupted),
                    Err(_) => {}
                }
            }
            if extra_starts > 0 || best.is_none() {
                let c = fit(
                    kernel,
                    k,
                    &Options {
                        n_init: extra_starts.max(1),
                        ..base
                    },
                    control,
                )?;
                if best.as_ref().is_none_or(|b| c.objective > b.objective) {
                    best = Some(c);
                }
            }
            best.map(Best::from)
                .ok_or_else(|| KGroupsError::Internal("no fit".into()))
        })
        .collect::<Result<_>>()?;
    warm_chain(
        kernel,
        ks,
        &mut best,
        Some(degrees),
        &seeds,
        warm_start,
        control,
    )?;
    Ok(ks
        .iter()
        .zip(best)
        .map(|(&k, b)| KFit {
            within: k as f64 - b.objective + 1.0,
            labels: b.labels,
            from_warm_start: b.warm,
        })
        .collect())
}

/// [`graph_fits`] from the spectral start alone, on the graph's own top `count` eigenpairs
/// ([`super::eigengap::normalized_eigenpairs`] with `eigen_options`, `count ≥ max(ks)`).
#[allow(clippy::too_many_arguments)]
pub fn spectral_graph_fits<K: Kernel>(
    kernel: &K,
    degrees: &[f64],
    count: usize,
    ks: &[usize],
    warm_start: bool,
    seed: u64,
    eigen_options: &EigenOptions,
    control: &Control,
) -> Result<Vec<KFit>> {
    let pairs = super::eigengap::normalized_eigenpairs(
        kernel,
        degrees,
        count,
        seed,
        eigen_options,
        control,
    )?;
    graph_fits(kernel, degrees, &pairs, ks, 0, warm_start, seed, control)
}
