//! One partition per k for a kernel, as the selection rules need them: kernel k-groups
//! (Hartigan) from k-means++ starts for the energy kernel, and from a spectral start (plus
//! optional k-means++ starts) for normalised-cut graph kernels, where a k-means++ start in
//! feature space seeds poorly.

use crate::error::{KGroupsError, Result};
use crate::rng::derive_seeds;
use crate::rng::Rng;
use crate::spectral::{Eigenpairs, SpectralEmbedding};
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
}

/// Partitions of an energy-type kernel for every k in `ks` (run in parallel), the best of
/// `n_init` k-means++ starts each; seeds derived from `seed` per k.
pub fn energy_fits<K: Kernel>(
    kernel: &K,
    ks: &[usize],
    n_init: usize,
    seed: u64,
    control: &Control,
) -> Result<Vec<KFit>> {
    let seeds = derive_seeds(seed, ks.len());
    ks.par_iter()
        .zip(seeds)
        .map(|(&k, seed)| {
            let options = Options {
                n_init: n_init.max(1),
                seed,
                ..Options::default()
            };
            let c = fit(kernel, k, &options, control)?;
            Ok(KFit {
                labels: c.labels,
                within: c.within,
            })
        })
        .collect()
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
/// eigenpairs) and, when `extra_starts > 0`, from that many k-means++ starts; the larger
/// objective wins. `within` is the normalised cut plus one.
pub fn graph_fits<K: Kernel>(
    kernel: &K,
    degrees: &[f64],
    pairs: &Eigenpairs,
    ks: &[usize],
    extra_starts: usize,
    seed: u64,
    control: &Control,
) -> Result<Vec<KFit>> {
    let n = kernel.n();
    let seeds = derive_seeds(seed, ks.len());
    ks.par_iter()
        .zip(seeds)
        .map(|(&k, seed)| {
            if k == 1 {
                return Ok(KFit {
                    labels: vec![0; n],
                    within: 1.0,
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
            let best = best.ok_or_else(|| KGroupsError::Internal("no fit".into()))?;
            Ok(KFit {
                within: k as f64 - best.objective + 1.0,
                labels: best.labels,
            })
        })
        .collect()
}
