//! Initial partitions: labels given by the user, uniform random labels, and weighted greedy
//! k-means++ in the kernel's feature space (SPEC, "Initialisation").

use crate::control::Control;
use crate::error::{try_filled, Result};
use crate::kernel::Kernel;
use crate::rng::Rng;
use crate::validate;

/// How the first partition is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Init<'a> {
    /// Weighted greedy k-means++ in feature space, `d²(i, c) = G_ii + G_cc − 2 G_ic`.
    #[default]
    KMeansPlusPlus,
    /// Uniform random labels with every cluster non-empty.
    Random,
    /// Spectral: the rows of the top-k eigenvectors of `W^½ G W^½`, normalised to unit length
    /// (Ng, Jordan and Weiss), rounded to k clusters by k-means++ and Lloyd's method in that
    /// k-dimensional embedding ([`crate::spectral`]). The eigenvectors are computed once per
    /// fit, each start rounds them with its own seed, and the result reports the bound
    /// `λ_1 + … + λ_k ≥ Q` ([`crate::Clustering::spectral_bound`]).
    Spectral,
    /// The caller's labels (length n, values in `0..k`, every cluster non-empty: the rule
    /// of [`crate::validate::labels`], argument `init`).
    Labels(&'a [usize]),
}

/// Uniform random labels in `0..k`, with a random point placed in each cluster first so that
/// none is empty. Errors unless `1 <= k <= n`.
///
/// ```
/// use kgroups::{init::random_labels, rng::Rng};
/// let labels = random_labels(5, 3, &mut Rng::new(0))?;
/// assert!((0..3).all(|l| labels.contains(&l)));
/// assert!(random_labels(2, 3, &mut Rng::new(0)).is_err());
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn random_labels(n: usize, k: usize, rng: &mut Rng) -> Result<Vec<usize>> {
    validate::k(k, n)?;
    let mut labels = try_filled(n, 0, "n", "the labels")?;
    for label in labels.iter_mut() {
        *label = rng.below(k).unwrap_or(0);
    }
    // k distinct points, one per cluster.
    let anchors = rng.distinct(n, k).unwrap_or_default();
    for (cluster, &point) in anchors.iter().enumerate() {
        labels[point] = cluster;
    }
    Ok(labels)
}

/// Weighted greedy k-means++ in feature space (as scikit-learn: the best of
/// `2 + ⌊ln k⌋` candidates per centre), then every point goes to its nearest centre
/// (ties to the lowest centre index) and each centre keeps its own cluster.
pub fn kmeans_plus_plus<K: Kernel>(
    kernel: &K,
    k: usize,
    weights: &[f64],
    rng: &mut Rng,
    control: &Control,
) -> Result<Vec<usize>> {
    let n_trials = 2 + (k as f64).ln().floor() as usize;
    Ok(seed_centres(kernel, k, weights, n_trials, rng, control)?.1)
}

/// `k` distinct centres chosen by weighted k-means++ in feature space with `n_trials`
/// candidates per centre (1: plain D² sampling), e.g. as Nyström landmarks.
///
/// ```
/// use kgroups::{init::kmeans_plus_plus_centres, rng::Rng, Control, DenseKernel};
/// let g = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
/// let kernel = DenseKernel::new(&g, 3)?;
/// let mut centres = kmeans_plus_plus_centres(&kernel, 3, &[1.0; 3], 1, &mut Rng::new(0), &Control::new())?;
/// centres.sort();
/// assert_eq!(centres, vec![0, 1, 2]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn kmeans_plus_plus_centres<K: Kernel>(
    kernel: &K,
    k: usize,
    weights: &[f64],
    n_trials: usize,
    rng: &mut Rng,
    control: &Control,
) -> Result<Vec<usize>> {
    Ok(seed_centres(kernel, k, weights, n_trials.max(1), rng, control)?.0)
}

/// The k-means++ centres and each point's nearest centre.
fn seed_centres<K: Kernel>(
    kernel: &K,
    k: usize,
    weights: &[f64],
    n_trials: usize,
    rng: &mut Rng,
    control: &Control,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let n = kernel.n();
    validate::k(k, n)?;
    validate::weights_len(weights, n, "weights")?;
    let diagonal: Vec<f64> = (0..n).map(|i| kernel.diagonal(i)).collect();
    let distances_to = |c: usize, out: &mut Vec<f64>| {
        let g_cc = diagonal[c];
        out.resize(n, 0.0);
        kernel.row_into(c, out);
        for (d, &g_ii) in out.iter_mut().zip(&diagonal) {
            *d = g_ii + g_cc - 2.0 * *d;
        }
        // Rounding (or a kernel that is not PSD) can make d² slightly negative.
        out.iter_mut().for_each(|d| *d = d.max(0.0));
        // And a point's distance to itself nonzero, where a kernel's row and diagonal are
        // summed differently (Nyström features): it is 0, so no centre is drawn twice.
        out[c] = 0.0;
    };

    let mut centres = Vec::with_capacity(k);
    let mut is_centre = vec![false; n];
    let first = rng.weighted_index(weights).unwrap_or(0);
    let mut closest = Vec::with_capacity(n);
    distances_to(first, &mut closest);
    let mut owner = vec![0usize; n];
    centres.push(first);
    is_centre[first] = true;

    let mut candidate = Vec::with_capacity(n);
    let mut best_candidate = Vec::with_capacity(n);
    let mut probabilities = vec![0.0; n];
    for c in 1..k {
        control.checkpoint()?;
        for (p, (&w, &d)) in probabilities.iter_mut().zip(weights.iter().zip(&closest)) {
            *p = w * d;
        }
        let mut best: Option<(f64, usize)> = None;
        for _ in 0..n_trials {
            let pick = match rng.weighted_index(&probabilities) {
                Some(i) => i,
                // Every remaining point coincides with a centre: take any non-centre point.
                None => {
                    let free: Vec<usize> = (0..n).filter(|&i| !is_centre[i]).collect();
                    match rng.below(free.len()) {
                        Some(f) => free[f],
                        None => break,
                    }
                }
            };
            distances_to(pick, &mut candidate);
            let potential: f64 = weights
                .iter()
                .zip(closest.iter().zip(&candidate))
                .map(|(w, (a, b))| w * a.min(*b))
                .sum();
            if best.is_none_or(|(p, _)| potential < p) {
                best = Some((potential, pick));
                std::mem::swap(&mut best_candidate, &mut candidate);
            }
        }
        let Some((_, chosen)) = best else { break };
        centres.push(chosen);
        is_centre[chosen] = true;
        for i in 0..n {
            if best_candidate[i] < closest[i] {
                closest[i] = best_candidate[i];
                owner[i] = c;
            }
        }
    }
    for (c, &centre) in centres.iter().enumerate() {
        owner[centre] = c;
    }
    Ok((centres, owner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::DenseKernel;

    #[test]
    fn random_labels_fill_every_cluster() {
        let mut rng = Rng::new(5);
        for k in 1..=6 {
            let labels = random_labels(6, k, &mut rng).unwrap();
            assert!(validate::labels(&labels, 6, k, "init").is_ok());
        }
    }

    #[test]
    fn kmeans_plus_plus_handles_duplicate_points() {
        // Three identical points and k = 3: every cluster must still get one.
        let g = [1.0; 9];
        let kernel = DenseKernel::new(&g, 3).unwrap();
        let labels =
            kmeans_plus_plus(&kernel, 3, &[1.0; 3], &mut Rng::new(1), &Control::new()).unwrap();
        assert!(
            validate::labels(&labels, 3, 3, "init").is_ok(),
            "{labels:?}"
        );
    }

    /// Four identical points whose diagonal is summed apart from their rows (as Nyström
    /// features' can be): `G_ii` reads 2 from `diagonal` and 1 from the row, so every
    /// distance, a point's to itself included, reads 2.
    struct DiagonalApartFromRows;

    impl crate::kernel::Kernel for DiagonalApartFromRows {
        fn n(&self) -> usize {
            4
        }
        fn diagonal(&self, _i: usize) -> f64 {
            2.0
        }
        fn for_each_in_row<F: FnMut(usize, f64)>(&self, _i: usize, mut visit: F) {
            (0..4).for_each(|j| visit(j, 1.0));
        }
    }

    #[test]
    fn kmeans_plus_plus_never_draws_a_centre_twice() {
        // A centre drawn again would own no point: a cluster left empty.
        for seed in 0..50 {
            let labels = kmeans_plus_plus(
                &DiagonalApartFromRows,
                4,
                &[1.0; 4],
                &mut Rng::new(seed),
                &Control::new(),
            )
            .unwrap();
            assert!(
                validate::labels(&labels, 4, 4, "init").is_ok(),
                "{labels:?}"
            );
        }
    }

    #[test]
    fn kmeans_plus_plus_separates_far_groups() {
        // Points on a line: 0, 0.1, 0.2 and 10, 10.1; linear kernel.
        let x = [0.0, 0.1, 0.2, 10.0, 10.1];
        let g: Vec<f64> = x
            .iter()
            .flat_map(|a| x.iter().map(move |b| a * b))
            .collect();
        let kernel = DenseKernel::new(&g, 5).unwrap();
        for seed in 0..20 {
            let labels =
                kmeans_plus_plus(&kernel, 2, &[1.0; 5], &mut Rng::new(seed), &Control::new())
                    .unwrap();
            assert_eq!(labels[0], labels[1]);
            assert_eq!(labels[1], labels[2]);
            assert_eq!(labels[3], labels[4]);
            assert_ne!(labels[0], labels[3]);
        }
    }
}
