//! The options of a clustering run, checked once ([`Options::check`] → [`CheckedOptions`]);
//! then initialisation and `n_init` independent starts run in parallel on rayon, keeping the
//! best objective. Seeds are derived up front from one seed, so the result is the same for
//! any number of threads.

use crate::cluster::hartigan;
use crate::cluster::init::{kmeans_plus_plus, random_labels, Init};
use crate::cluster::lloyd;
use crate::cluster::partition::Partition;
use crate::cluster::spectral::{spectral_embedding, SpectralEmbedding};
use crate::cluster::sweeps::Reporting;
use crate::control::Control;
use crate::error::{try_filled, KGroupsError, Result};
use crate::kernel::{Kernel, KernelAccess, Visit};
use crate::rng::{derive_seeds, Rng};
use crate::scale::times_pow2;
use crate::validate;
use rayon::prelude::*;

/// Which local search to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Kernel k-groups: Hartigan's method (every move strictly increases `Q`).
    #[default]
    Hartigan,
    /// Kernel k-means: batch Lloyd (all points reassigned from the same state, then the
    /// sums brought up to date).
    Lloyd,
    /// Kernel k-means: online Lloyd (points reassigned one at a time, the sums updated after
    /// each move).
    LloydOnline,
}

/// Options of a clustering run. `Options::default()` is Hartigan from k-means++, unit
/// weights, one start, at most 300 sweeps, seed 0, no diagonal shift.
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
    /// The diagonal shift (finite): the search runs on the kernel `G + shift·W⁻¹`, that is
    /// `shift/w_i` added to each `G_ii` (the shift that makes a graph's kernel positive
    /// semi-definite, see Dhillon, Guan and Kulis). It is applied in the formulas, never
    /// added to the sums kept for `G`, so a shift far larger or smaller than `G`'s entries
    /// is not lost to rounding.
    ///
    /// - Every partition's `Q` gains `k·shift`, `W` gains `(n − k)·shift` and each `Q_l`
    ///   gains `shift·s_l`: the result reports them for the shifted kernel.
    /// - Hartigan's moves change `Q` by the same amount with or without it, so its search
    ///   is the same.
    /// - Lloyd's distances change: `shift/s_l` more to every other cluster's mean, `shift/s_j`
    ///   less to the point's own cluster `j`.
    /// - k-means++ draws the first partition on `G` itself.
    pub shift: f64,
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
            shift: 0.0,
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
    /// Set when the search stopped because its partition repeated: the partition after the
    /// last sweep is the one this many sweeps earlier, and more sweeps would only go round
    /// the same cycle (`converged` is false). Lloyd's method can cycle on a kernel that is
    /// not positive semidefinite; Hartigan's only when rounding hides the true gains
    /// (weights spanning hundreds of orders of magnitude).
    pub cycle_length: Option<usize>,
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
    /// With [`Init::Spectral`]: `λ_1 + … + λ_k`, the sum of the k largest eigenvalues of
    /// `W^½ (G + shift·W⁻¹) W^½` (with the diagonal shift), an upper bound on the objective of every
    /// partition into k clusters, and so on `objective` (see
    /// [`crate::spectral::SpectralEmbedding::bound`]); `None` for the other initialisations.
    pub spectral_bound: Option<f64>,
}

impl Clustering {
    /// The values of a clustering of data divided by `2^e` expressed for the data themselves
    /// (the energy kernel of `ρ = ‖x − y‖` scales as the data): `objective`, `within`,
    /// `objective_history`, `cluster_terms` and `spectral_bound` times `2^e`. Values beyond
    /// the range of f64 become infinite.
    pub(crate) fn scale_energy_values(&mut self, e: i32) {
        let up = |v: f64| crate::scale::times_pow2(v, e);
        self.objective = up(self.objective);
        self.within = up(self.within);
        self.objective_history.iter_mut().for_each(|v| *v = up(*v));
        self.cluster_terms.iter_mut().for_each(|v| *v = up(*v));
        self.spectral_bound = self.spectral_bound.map(up);
    }
}

impl<'a> Options<'a> {
    /// Checks the options for a kernel of `n` points and `k` clusters, by the rules of
    /// [`crate::validate`] (in this order: `n`, `k`, `n_init`, `max_iter`, the labels of
    /// [`Init::Labels`], `weights`, `shift`), and returns what [`fit_checked`] runs.
    ///
    /// ```
    /// use kgroups::Options;
    /// let checked = Options::default().check(10, 3)?;
    /// assert_eq!((checked.n(), checked.k()), (10, 3));
    /// let err = Options { n_init: 0, ..Options::default() }.check(10, 3).unwrap_err();
    /// assert_eq!(err.argument(), Some("n_init"));
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    pub fn check(&self, n: usize, k: usize) -> Result<CheckedOptions<'a>> {
        validate::non_empty(n, "G")?;
        validate::k(k, n)?;
        validate::n_init(self.n_init)?;
        validate::max_iter(self.max_iter)?;
        if let Init::Labels(labels) = self.init {
            validate::labels(labels, n, k, "init")?;
            validate::one_start_for_labels(self.n_init)?;
        }
        let (weights, weight_exponent) = match self.weights {
            None => (try_filled(n, 1.0, "weights", "the point weights")?, 0),
            Some(weights) => validate::scaled_weights(weights, n, "weights")?,
        };
        validate::shift(self.shift)?;
        Ok(CheckedOptions {
            n,
            k,
            algorithm: self.algorithm,
            init: self.init,
            weights,
            weight_exponent,
            n_init: self.n_init,
            max_iter: self.max_iter,
            seed: self.seed,
            shift: self.shift,
        })
    }
}

/// [`Options`] checked for a kernel of `n` points and `k` clusters by [`Options::check`]:
/// only a check makes one, so [`fit_checked`] runs it without checking again. The weights
/// are held scaled by an exact power of two (see [`validate::scaled_weights`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedOptions<'a> {
    n: usize,
    k: usize,
    algorithm: Algorithm,
    init: Init<'a>,
    weights: Vec<f64>,
    weight_exponent: i32,
    n_init: usize,
    max_iter: usize,
    seed: u64,
    /// The diagonal shift, at the caller's scale.
    shift: f64,
}

impl CheckedOptions<'_> {
    /// The number of points the options were checked for.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The number of clusters.
    pub fn k(&self) -> usize {
        self.k
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
    fit_checked(kernel, &options.check(kernel.n(), k)?, control)
}

/// Cluster the points of `kernel` with options already checked for it ([`Options::check`]),
/// e.g. checked before an expensive kernel is built. Errors when the kernel does not have
/// the `n` points the options were checked for.
///
/// ```
/// use kgroups::{fit_checked, Control, DenseKernel, Options};
/// let g = [2.0, 1.9, 0.0, 1.9, 2.0, 0.0, 0.0, 0.0, 2.0];
/// let checked = Options::default().check(3, 2)?;
/// let kernel = DenseKernel::new(&g, 3)?;
/// let result = fit_checked(&kernel, &checked, &Control::new())?;
/// assert_eq!(result.labels[0], result.labels[1]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn fit_checked<K: Kernel>(
    kernel: &K,
    options: &CheckedOptions,
    control: &Control,
) -> Result<Clustering> {
    // The one place a fit learns the kernel's kind: below it, every sweep is monomorphised
    // for that kind's storage and moves.
    struct Fit<'a> {
        options: &'a CheckedOptions<'a>,
        control: &'a Control<'a>,
    }
    impl Visit for Fit<'_> {
        type Output = Result<Clustering>;
        fn visit<K: KernelAccess>(self, kernel: &K) -> Self::Output {
            fit_starts::<K, K>(kernel, None, self.options, self.control)
        }
    }
    kernel.dispatch(Fit { options, control })
}

/// [`fit_checked`] with the local search of every start on `renumbered`, the kernel `kernel`
/// with its points renumbered: point `i` of `renumbered` is point `order[i]` of `kernel`.
/// Each start is drawn on `kernel` exactly as [`fit_checked`] draws it (the same labels for
/// the same seed), then its labels and the weights are renumbered, the search runs on
/// `renumbered`, and the labels are mapped back. The caller guarantees that `order` is a
/// permutation of `0..n` and that `renumbered` is `P G Pᵀ` for it.
pub(crate) fn fit_checked_renumbered<K: KernelAccess, S: KernelAccess>(
    kernel: &K,
    renumbered: &S,
    order: &[usize],
    options: &CheckedOptions,
    control: &Control,
) -> Result<Clustering> {
    if renumbered.n() != kernel.n() || order.len() != kernel.n() {
        return Err(KGroupsError::Internal(
            "the renumbered kernel or the order does not have the kernel's n points".into(),
        ));
    }
    let mut weights = try_filled(order.len(), 0.0, "G", "the renumbered point weights")?;
    gather(&options.weights, order, &mut weights)?;
    let renumbered = Renumbered {
        kernel: renumbered,
        order,
        weights,
    };
    fit_starts(kernel, Some(&renumbered), options, control)
}

/// A renumbered copy of the kernel on which the local searches run (see
/// [`fit_checked_renumbered`]), with the weights renumbered.
struct Renumbered<'a, S> {
    kernel: &'a S,
    /// `order[new] = old`.
    order: &'a [usize],
    weights: Vec<f64>,
}

/// `out[i] = values[order[i]]`, in parallel; errors (never panics) on an index out of range.
fn gather<T: Copy + Send + Sync>(values: &[T], order: &[usize], out: &mut [T]) -> Result<()> {
    out.par_iter_mut()
        .zip(order.par_iter())
        .try_for_each(|(o, &old)| {
            *o = *values.get(old).ok_or_else(|| {
                KGroupsError::Internal("a renumbering index is out of range".into())
            })?;
            Ok(())
        })
}

/// The starts of [`fit_checked`], with the local searches on `renumbered` when given.
fn fit_starts<K: KernelAccess, S: KernelAccess>(
    kernel: &K,
    renumbered: Option<&Renumbered<'_, S>>,
    options: &CheckedOptions,
    control: &Control,
) -> Result<Clustering> {
    if kernel.n() != options.n {
        return Err(KGroupsError::invalid(
            "G",
            format!(
                "G has n = {} points but the options were checked for n = {}",
                kernel.n(),
                options.n
            ),
        ));
    }
    // A kernel whose validation was deferred (a dense matrix checked in its first pass) is
    // checked in the single start's first pass, or before several starts run on it.
    let spectral = matches!(options.init, Init::Spectral);
    let check_in_first_pass = kernel.has_deferred_check() && options.n_init == 1 && !spectral;
    if kernel.has_deferred_check() && !check_in_first_pass {
        kernel.check_deferred(control)?;
    }
    let exponent = options.weight_exponent;
    // The spectral embedding is computed once; each start rounds it with its own seed.
    let embedding = if spectral {
        Some(spectral_embedding(
            kernel,
            Some(&options.weights),
            options.k,
            options.seed,
            control,
        )?)
    } else {
        None
    };
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
                objective_shift: options.k as f64 * options.shift,
            };
            run_start(
                kernel,
                renumbered,
                options,
                reporting,
                seed,
                control,
                check_in_first_pass,
                embedding.as_ref(),
            )
        })
        .try_reduce_with(|a, b| {
            let a_wins = a.objective > b.objective
                || (a.objective == b.objective && a.best_start < b.best_start);
            Ok(if a_wins { a } else { b })
        })
        .transpose()?;
    let best = best.ok_or_else(|| KGroupsError::Internal("no start produced a result".into()))?;
    let mut result = with_shift(scale_back(best, exponent)?, options)?;
    result.spectral_bound =
        embedding.map(|e| times_pow2(e.bound(), exponent) + options.k as f64 * options.shift);
    Ok(result)
}

/// The result for the kernel `G + shift·W⁻¹` from the result for `G`, at the caller's scale:
/// `Q` and each entry of the history gain `k·shift`, `W` gains `(n − k)·shift` and each `Q_l`
/// gains `shift·s_l` (exact identities of the shifted kernel, added last so that a shift far larger
/// or smaller than `G`'s entries costs no accuracy).
fn with_shift(mut result: Clustering, options: &CheckedOptions) -> Result<Clustering> {
    let (shift, k, n) = (options.shift, options.k, options.n);
    if shift == 0.0 {
        return Ok(result);
    }
    let mut sizes = try_filled(k, 0.0, "k", "the cluster weights")?;
    for (&label, &w) in result.labels.iter().zip(&options.weights) {
        sizes[label] += w;
    }
    let k_shift = k as f64 * shift;
    result.objective += k_shift;
    result.within += (n - k) as f64 * shift;
    result
        .objective_history
        .iter_mut()
        .for_each(|q| *q += k_shift);
    for (q, s) in result.cluster_terms.iter_mut().zip(&sizes) {
        *q += shift * times_pow2(*s, options.weight_exponent);
    }
    if !figures_finite(&result) {
        return Err(KGroupsError::invalid(
            "shift",
            format!(
                "shift = {shift:e} makes the objective overflow f64 (it adds k·shift to Q, \
                 (n − k)·shift to W and shift·s_l to each Q_l); use a smaller shift"
            ),
        ));
    }
    Ok(result)
}

/// Whether `Q`, `W`, the history and every `Q_l` are finite.
fn figures_finite(result: &Clustering) -> bool {
    result.objective.is_finite()
        && result.within.is_finite()
        && result.objective_history.iter().all(|q| q.is_finite())
        && result.cluster_terms.iter().all(|q| q.is_finite())
}

/// The result for the caller's weights, from the result for the weights scaled by `2^-e`:
/// `Q`, `W` and the history scale by `2^e`, each `Q_l` by `2^(2e)`.
fn scale_back(mut result: Clustering, e: i32) -> Result<Clustering> {
    if e == 0 {
        if !figures_finite(&result) {
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
    let finite = terms_representable && figures_finite(&result);
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

/// One start: its first partition, then the local search (on `renumbered` when given). With
/// `check_kernel`, the kernel's deferred validation runs in the pass that builds the first
/// cluster sums (and, should the initialisation fail on an invalid kernel, the validation's
/// error is the one reported).
#[allow(clippy::too_many_arguments)]
fn run_start<K: KernelAccess, S: KernelAccess>(
    kernel: &K,
    renumbered: Option<&Renumbered<'_, S>>,
    options: &CheckedOptions,
    reporting: Reporting,
    seed: u64,
    control: &Control,
    check_kernel: bool,
    embedding: Option<&SpectralEmbedding>,
) -> Result<Clustering> {
    let (k, weights) = (options.k, &options.weights[..]);
    control.checkpoint()?;
    // The start is always drawn on the caller's kernel, in the caller's numbering.
    let mut rng = Rng::new(seed);
    let labels = match options.init {
        Init::Labels(labels) => Ok(labels.to_vec()),
        Init::Random => random_labels(kernel.n(), k, &mut rng),
        Init::KMeansPlusPlus => kmeans_plus_plus(kernel, k, weights, &mut rng, control),
        Init::Spectral => match embedding {
            Some(embedding) => embedding.round(weights, &mut rng, control),
            None => Err(KGroupsError::Internal("no spectral embedding".into())),
        },
    };
    let labels = match labels {
        Err(error) if check_kernel => {
            kernel.check_deferred(control)?;
            return Err(error);
        }
        labels => labels?,
    };
    validate::labels(&labels, kernel.n(), k, "init").map_err(|e| {
        KGroupsError::Internal(format!("initialisation produced invalid labels: {e}"))
    })?;
    control.checkpoint()?;
    let trace: f64 = (0..kernel.n())
        .map(|i| weights[i] * kernel.diagonal(i))
        .sum();
    let Some(renumbered) = renumbered else {
        let search = Search {
            options,
            reporting,
            trace,
            check_kernel,
        };
        return local_search(kernel, weights, labels, search, control);
    };
    if check_kernel {
        // The renumbered copy's first pass cannot check the caller's kernel.
        kernel.check_deferred(control)?;
    }
    let mut start_labels = try_filled(labels.len(), 0, "G", "the renumbered labels")?;
    gather(&labels, renumbered.order, &mut start_labels)?;
    drop(labels);
    let search = Search {
        options,
        reporting,
        trace,
        check_kernel: false,
    };
    let mut result = local_search(
        renumbered.kernel,
        &renumbered.weights,
        start_labels,
        search,
        control,
    )?;
    // Back to the caller's numbering: point order[i] has the label of renumbered point i.
    let mut labels = try_filled(result.labels.len(), 0, "G", "the labels")?;
    for (&label, &old) in result.labels.iter().zip(renumbered.order) {
        *labels.get_mut(old).ok_or_else(|| {
            KGroupsError::Internal("a renumbering index is out of range".into())
        })? = label;
    }
    result.labels = labels;
    Ok(result)
}

/// What [`local_search`] needs besides the kernel, its weights and the start.
struct Search<'o, 'a> {
    options: &'o CheckedOptions<'a>,
    reporting: Reporting,
    /// `Σ_i w_i G_ii`, which gives `W = trace − Q`.
    trace: f64,
    /// Run the kernel's deferred validation in the first pass ([`Partition::new`]).
    check_kernel: bool,
}

/// The local search of one start from `labels` on `kernel` (with `weights` in the kernel's
/// numbering).
fn local_search<K: KernelAccess>(
    kernel: &K,
    weights: &[f64],
    labels: Vec<usize>,
    search: Search,
    control: &Control,
) -> Result<Clustering> {
    let Search {
        options,
        reporting,
        trace,
        check_kernel,
    } = search;
    let k = options.k;
    let mut partition = Partition::new(kernel, labels, weights, k, control, check_kernel)?;
    // The shift of the scaled weights' kernel (infinite where that overflows: the costs
    // then take it as the limit it is, a point never leaves its cluster).
    partition.shift = times_pow2(options.shift, -options.weight_exponent);
    let stats = match options.algorithm {
        Algorithm::Hartigan => hartigan::run(
            kernel,
            weights,
            &mut partition,
            options.max_iter,
            control,
            reporting,
        )?,
        Algorithm::Lloyd | Algorithm::LloydOnline => lloyd::run(
            kernel,
            weights,
            &mut partition,
            options.algorithm == Algorithm::LloydOnline,
            options.max_iter,
            control,
            reporting,
        )?,
    };
    let objective = partition.objective();
    let n_distinct_clusters = partition.distinct_means(weights)?;
    Ok(Clustering {
        cluster_terms: partition.terms,
        labels: partition.labels,
        objective,
        within: trace - objective,
        n_iter: stats.n_iter,
        n_moves: stats.n_moves,
        converged: stats.converged,
        cycle_length: stats.cycle_length,
        objective_history: stats.objective_history,
        best_start: reporting.start,
        n_distinct_clusters,
        spectral_bound: None,
    })
}
