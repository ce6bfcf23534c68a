//! Validation, initialisation and `n_init` independent starts run in parallel on rayon,
//! keeping the best objective. Seeds are derived up front from one seed, so the result is
//! the same for any number of threads.

use crate::control::Control;
use crate::error::{try_filled, KGroupsError, Result};
use crate::hartigan;
use crate::init::{check_weights_len, kmeans_plus_plus, random_labels, validate_labels, Init};
use crate::kernel::Kernel;
use crate::lloyd::{self, LloydVariant};
use crate::partition::Partition;
use crate::rng::{derive_seeds, Rng};
use crate::scale::{binary_exponent, times_pow2};
use crate::sweeps::Reporting;
use rayon::prelude::*;

/// The largest number of starts accepted (each start's seed is derived up front).
pub const MAX_N_INIT: usize = 1_000_000;

/// Which local search to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Kernel k-groups: Hartigan's method (every move strictly increases `Q`).
    #[default]
    Hartigan,
    /// Kernel k-means: Lloyd's method, batch or online.
    Lloyd(LloydVariant),
}

/// Options of a clustering run. `Options::default()` is Hartigan from k-means++, unit
/// weights, one start, at most 300 sweeps, seed 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options<'a> {
    /// Hartigan (kernel k-groups) or Lloyd (kernel k-means).
    pub algorithm: Algorithm,
    /// How the first partition of each start is chosen.
    pub init: Init<'a>,
    /// Point weights `w_i > 0` (`None`: all 1).
    pub weights: Option<&'a [f64]>,
    /// Independent starts (≥ 1); the best objective wins, ties to the first start.
    pub n_init: usize,
    /// Maximum number of sweeps (≥ 1) per start.
    pub max_iter: usize,
    /// Seed from which every start's seed is derived.
    pub seed: u64,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            algorithm: Algorithm::Hartigan,
            init: Init::KMeansPlusPlus,
            weights: None,
            n_init: 1,
            max_iter: 300,
            seed: 0,
        }
    }
}

/// The result of a clustering run (the best start).
#[derive(Debug, Clone, PartialEq)]
pub struct Clustering {
    /// Cluster of each point, `0..k`.
    pub labels: Vec<usize>,
    /// `Q = Σ_l Q_l / s_l` (maximised).
    pub objective: f64,
    /// `W = Σ_i w_i G_ii − Q` (minimised).
    pub within: f64,
    /// Sweeps run, counting the last one that changed nothing.
    pub n_iter: usize,
    /// Points moved over all sweeps.
    pub n_moves: usize,
    /// Whether the last sweep changed nothing.
    pub converged: bool,
    /// `Q` before the first sweep and after each sweep.
    pub objective_history: Vec<f64>,
    /// `Q_l = Σ_{a,b ∈ C_l} w_a w_b G_ab` of each cluster, so that `objective = Σ_l Q_l / s_l`
    /// (with `s_l` the cluster weights) and `Q_l / s_l²` is the squared norm of cluster `l`'s
    /// weighted mean in feature space.
    pub cluster_terms: Vec<f64>,
    /// Which start (0-based) produced this result.
    pub best_start: usize,
    /// The number of distinct cluster means: clusters whose feature-space means coincide
    /// (up to rounding) count once. Fewer than k means the data have fewer than k distinct
    /// points, or that the local search ended with clusters on top of each other.
    pub n_distinct_clusters: usize,
}

/// Checks the options against the kernel; returns the weights scaled by `2^-e`, and `e`.
fn validate<K: Kernel>(kernel: &K, k: usize, options: &Options) -> Result<(Vec<f64>, i32)> {
    let n = kernel.n();
    if n == 0 {
        return Err(KGroupsError::invalid("G", "there are no points (n = 0)"));
    }
    if k < 1 || k > n {
        return Err(KGroupsError::invalid(
            "k",
            format!(
                "k = {k} is out of range; the number of clusters must satisfy 1 <= k <= n = {n}"
            ),
        ));
    }
    if options.n_init < 1 || options.n_init > MAX_N_INIT {
        return Err(KGroupsError::invalid(
            "n_init",
            format!(
                "n_init = {} is out of range; use 1 <= n_init <= {MAX_N_INIT}",
                options.n_init
            ),
        ));
    }
    if options.max_iter < 1 {
        return Err(KGroupsError::invalid(
            "max_iter",
            "max_iter must be at least 1",
        ));
    }
    if let Init::Labels(labels) = options.init {
        validate_labels(labels, n, k)?;
        if options.n_init != 1 {
            return Err(KGroupsError::invalid(
                "n_init",
                format!(
                    "n_init = {} but initial labels were given; with explicit labels every start would be \
                     the same, so n_init must be 1",
                    options.n_init
                ),
            ));
        }
    }
    let weights = match options.weights {
        None => return Ok((vec![1.0; n], 0)),
        Some(weights) => weights,
    };
    check_weights_len(weights, n)?;
    if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
        return Err(KGroupsError::invalid(
            "weights",
            format!(
                "weights[{i}] = {} but every weight must be finite and > 0",
                weights[i]
            ),
        ));
    }
    normalised_weights(weights)
}

/// The weights times an exact power of two `2^-e` that brings the largest into `[1, 2)`,
/// and `e`. The partition does not depend on a common scale of the weights, while `w_a w_b`
/// and the sums built from them would overflow or underflow for extreme scales; results are
/// scaled back by `2^e` (exactly, as long as they are representable).
fn normalised_weights(weights: &[f64]) -> Result<(Vec<f64>, i32)> {
    let largest = weights.iter().fold(0.0f64, |m, &w| m.max(w));
    let e = binary_exponent(largest);
    let mut scaled = try_filled(weights.len(), 0.0, "weights", "the point weights")?;
    for (s, &w) in scaled.iter_mut().zip(weights) {
        *s = times_pow2(w, -e);
    }
    if let Some(i) = scaled.iter().position(|w| !w.is_normal()) {
        return Err(KGroupsError::invalid(
            "weights",
            format!(
                "weights[{i}] = {:e} is too small beside the largest weight {largest:e}: their ratio \
                 is beyond the range of f64; drop such points or give them a larger weight",
                weights[i]
            ),
        ));
    }
    Ok((scaled, e))
}

/// Cluster the points of `kernel` into `k` groups.
///
/// ```
/// use kgroups::{fit, Control, DenseKernel, Options};
/// // A linear kernel on the points 0, 0.1, 5, 5.1.
/// let x = [0.0, 0.1, 5.0, 5.1];
/// let g: Vec<f64> = x.iter().flat_map(|a| x.iter().map(move |b| a * b)).collect();
/// let kernel = DenseKernel::new(&g, 4).unwrap();
/// let result = fit(&kernel, 2, &Options { n_init: 4, ..Options::default() }, &Control::new()).unwrap();
/// assert_eq!(result.labels[0], result.labels[1]);
/// assert_ne!(result.labels[1], result.labels[2]);
/// ```
pub fn fit<K: Kernel>(
    kernel: &K,
    k: usize,
    options: &Options,
    control: &Control,
) -> Result<Clustering> {
    let (weights, exponent) = validate(kernel, k, options)?;
    let seeds = derive_seeds(options.seed, options.n_init);
    // Reduce as results arrive (memory O(threads · n), not O(n_init · n)). The choice is a
    // total order — larger objective, then lower start index — so it does not depend on
    // how rayon schedules the starts.
    let best = seeds
        .par_iter()
        .enumerate()
        .map(|(start, &seed)| {
            let reporting = Reporting {
                start,
                weight_exponent: exponent,
            };
            run_start(kernel, k, options, &weights, reporting, seed, control)
        })
        .try_reduce_with(|a, b| {
            let a_wins = a.objective > b.objective
                || (a.objective == b.objective && a.best_start < b.best_start);
            Ok(if a_wins { a } else { b })
        })
        .transpose()?;
    let best = best.ok_or_else(|| KGroupsError::Internal("no start produced a result".into()))?;
    scale_back(best, exponent)
}

/// The result for the caller's weights, from the result for the weights scaled by `2^-e`:
/// `Q`, `W` and the history scale by `2^e`, each `Q_l` by `2^(2e)`.
fn scale_back(mut result: Clustering, e: i32) -> Result<Clustering> {
    if e == 0 {
        let finite = result.objective.is_finite() && result.within.is_finite();
        if !finite {
            return Err(KGroupsError::invalid(
                "G",
                "the objective Q = Σ_l Q_l / s_l or W overflows f64: the kernel's entries are too \
                 large to add up; divide G by a common factor (the labels do not change)",
            ));
        }
        return Ok(result);
    }
    result.objective = times_pow2(result.objective, e);
    result.within = times_pow2(result.within, e);
    result
        .objective_history
        .iter_mut()
        .for_each(|q| *q = times_pow2(*q, e));
    // Q_l scales like the square of the weights: it must neither overflow nor lose its
    // digits below the normal range.
    let mut terms_representable = true;
    for q in result.cluster_terms.iter_mut() {
        let scaled = times_pow2(*q, 2 * e);
        terms_representable &= scaled.is_finite() && (*q == 0.0 || scaled.is_normal());
        *q = scaled;
    }
    let finite = terms_representable
        && result.objective.is_finite()
        && result.within.is_finite()
        && result.objective_history.iter().all(|q| q.is_finite());
    if !finite {
        return Err(KGroupsError::invalid(
            "weights",
            "the weights are so large or so small that the objective or the cluster terms \
             Q_l = Σ w_a w_b G_ab are beyond the range of f64; multiply all weights by a common \
             factor that brings them nearer 1 (the labels do not change)",
        ));
    }
    Ok(result)
}

fn run_start<K: Kernel>(
    kernel: &K,
    k: usize,
    options: &Options,
    weights: &[f64],
    reporting: Reporting,
    seed: u64,
    control: &Control,
) -> Result<Clustering> {
    let start = reporting.start;
    control.checkpoint()?;
    let mut rng = Rng::new(seed);
    let labels = match options.init {
        Init::Labels(labels) => labels.to_vec(),
        Init::Random => random_labels(kernel.n(), k, &mut rng)?,
        Init::KMeansPlusPlus => kmeans_plus_plus(kernel, k, weights, &mut rng, control)?,
    };
    validate_labels(&labels, kernel.n(), k).map_err(|e| {
        KGroupsError::Internal(format!("initialisation produced invalid labels: {e}"))
    })?;
    control.checkpoint()?;
    let mut partition = Partition::new(kernel, labels, weights, k, control)?;
    let stats = match options.algorithm {
        Algorithm::Hartigan => hartigan::run(
            kernel,
            weights,
            &mut partition,
            options.max_iter,
            control,
            reporting,
        )?,
        Algorithm::Lloyd(variant) => lloyd::run(
            kernel,
            weights,
            &mut partition,
            variant,
            options.max_iter,
            control,
            reporting,
        )?,
    };
    let objective = partition.objective();
    let n_distinct_clusters = partition.distinct_means(weights)?;
    let trace: f64 = (0..kernel.n())
        .map(|i| weights[i] * kernel.diagonal(i))
        .sum();
    Ok(Clustering {
        cluster_terms: partition.terms,
        labels: partition.labels,
        objective,
        within: trace - objective,
        n_iter: stats.n_iter,
        n_moves: stats.n_moves,
        converged: stats.converged,
        objective_history: stats.objective_history,
        best_start: start,
        n_distinct_clusters,
    })
}
