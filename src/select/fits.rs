//! One partition per k for a kernel, as the selection rules need them: kernel k-groups
//! (Hartigan) from k-means++ starts for the energy kernel, and from a spectral start (plus
//! optional k-means++ starts) for normalised-cut graph kernels, where a k-means++ start in
//! feature space seeds poorly.

use crate::error::{KGroupsError, Result};
use crate::rng::derive_seeds;
use crate::spectral::Eigenpairs;
use crate::{fit, Control, FeatureKernel, Init, Kernel, Options};
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

/// The spectral start for k groups: the rows of the first k eigenvectors of `W^½ G W^½`,
/// scaled to unit length, clustered by k-means (kernel k-groups on their linear kernel,
/// 2 k-means++ starts).
pub fn spectral_start(
    pairs: &Eigenpairs,
    k: usize,
    seed: u64,
    control: &Control,
) -> Result<Vec<usize>> {
    let (n, count) = (pairs.n, pairs.count);
    let k_cols = k.min(count);
    let mut embedding = vec![0.0; n * k_cols];
    for i in 0..n {
        let row = &pairs.vectors[i * count..i * count + k_cols];
        let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-300);
        for (e, v) in embedding[i * k_cols..(i + 1) * k_cols].iter_mut().zip(row) {
            *e = v / norm;
        }
    }
    let features = FeatureKernel::new(&embedding, n, k_cols)?;
    let options = Options {
        n_init: 2,
        seed,
        ..Options::default()
    };
    Ok(fit(&features, k, &options, &control.without_progress())?.labels)
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
                let start = spectral_start(pairs, k, seed, control)?;
                // A start that lost a group (possible only with duplicated embedding rows)
                // is skipped: the k-means++ start below stands in.
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
