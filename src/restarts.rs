//! Validation, initialisation and `n_init` independent starts run in parallel on rayon,
//! keeping the best objective. Seeds are derived up front from one seed, so the result is
//! the same for any number of threads.

use crate::control::Control;
use crate::error::{KGroupsError, Result};
use crate::hartigan;
use crate::init::{kmeans_plus_plus, random_labels, validate_labels, Init};
use crate::kernel::Kernel;
use crate::lloyd::{self, LloydVariant};
use crate::partition::Partition;
use crate::rng::{derive_seeds, Rng};
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
}

fn validate<K: Kernel>(kernel: &K, k: usize, options: &Options) -> Result<Vec<f64>> {
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
    match options.weights {
        None => Ok(vec![1.0; n]),
        Some(weights) => {
            if weights.len() != n {
                return Err(KGroupsError::invalid(
                    "weights",
                    format!(
                        "weights have length {} but there are n = {n} points",
                        weights.len()
                    ),
                ));
            }
            if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
                return Err(KGroupsError::invalid(
                    "weights",
                    format!(
                        "weights[{i}] = {} but every weight must be finite and > 0",
                        weights[i]
                    ),
                ));
            }
            Ok(weights.to_vec())
        }
    }
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
    let weights = validate(kernel, k, options)?;
    let seeds = derive_seeds(options.seed, options.n_init);
    // Reduce as results arrive (memory O(threads · n), not O(n_init · n)). The choice is a
    // total order — larger objective, then lower start index — so it does not depend on
    // how rayon schedules the starts.
    let best = seeds
        .par_iter()
        .enumerate()
        .map(|(start, &seed)| run_start(kernel, k, options, &weights, seed, start, control))
        .try_reduce_with(|a, b| {
            let a_wins = a.objective > b.objective
                || (a.objective == b.objective && a.best_start < b.best_start);
            Ok(if a_wins { a } else { b })
        })
        .transpose()?;
    best.ok_or_else(|| KGroupsError::Internal("no start produced a result".into()))
}

fn run_start<K: Kernel>(
    kernel: &K,
    k: usize,
    options: &Options,
    weights: &[f64],
    seed: u64,
    start: usize,
    control: &Control,
) -> Result<Clustering> {
    control.checkpoint()?;
    let mut rng = Rng::new(seed);
    let labels = match options.init {
        Init::Labels(labels) => labels.to_vec(),
        Init::Random => random_labels(kernel.n(), k, &mut rng),
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
            start,
        )?,
        Algorithm::Lloyd(variant) => lloyd::run(
            kernel,
            weights,
            &mut partition,
            variant,
            options.max_iter,
            control,
            start,
        )?,
    };
    let objective = partition.objective();
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
    })
}
