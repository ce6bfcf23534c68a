//! Choosing the number of groups k and the kernel: [`select_k`] over points,
//! [`select_k_precomputed`] over a kernel matrix.
//!
//! # The rule over points
//!
//! Candidate kernels: the energy kernel (`ρ = ‖x − y‖`, nothing to fit), the self-tuning
//! affinity (Zelnik-Manor & Perona, a probe only) and the kNN connectivity graph (10
//! neighbours), both graphs clustered as normalised cut. The statistics:
//!
//! * **the gap statistic of the energy kernel**: `W_k`, the energy within-cluster dispersion
//!   of kernel k-groups' partition into k groups, against `B` reference sets drawn uniformly
//!   on the data's principal-component box (the kernel needs no fitting, so it is the same
//!   for the references): `Gap(k) = E*[log W_k] − log W_k`, with standard error
//!   `s_k = sd_k √(1 + 1/B)`;
//! * **the structure test** of the energy kernel (`structure_score`): some k ≥ 2 gains
//!   `Gap(k) − Gap(1)` of more than 0.1 and more than `3 s_k`. The self-tuning probe sees
//!   structure when `Gap(2) − s_2 − Gap(1)` of its normalised cut plus one (each reference
//!   put through the same construction) exceeds [`PROBE_MIN_SCORE`];
//! * **the relative eigen-gap** of the kNN graph: `λ_k = 1 − μ_k` from the top eigenvalues
//!   `μ` of `D^-½ A D^-½`, and the k in 2 … K with the largest `(λ_{k+1} − λ_k) / λ_{k+1}`;
//! * **the cut ratio** at a k: the normalised cut, on the kNN graph, of the graph's own
//!   partition into k groups over that of the energy kernel's partition;
//! * **stability**: the mean adjusted Rand index of the partitions of pairs of 80 %
//!   subsamples on their common points (reported, not used by the rule).
//!
//! The rule (`kernel = Auto`): when the energy kernel sees structure, k by Tibshirani's 1-SE
//! rule from k = 2, passing over a k that a larger k beats by the structure margin
//! (`gap_k`) and, at that k, the kNN graph's partition when the
//! cut ratio is below [`GRAPH_CUT_RATIO`], else the energy kernel's. When the energy kernel
//! sees no structure or its gap still rises at `k_max`: the kNN graph with k at its largest
//! relative eigen-gap when the probe sees structure and the cut ratio there is below
//! [`GRAPH_ONLY_CUT_RATIO`]; else the gap's k at `k_max` (flagged
//! [`Selection::at_range_end`]), or one group. The thresholds were chosen on the development
//! sets of `benches/bench_select_k.py` and are judged on its held-out sets and on
//! `benches/bench_select_null.py`. With k given (`k_min == k_max`), only the kernel is
//! chosen, by the cut ratio at k.
//!
//! # Cost and large n
//!
//! The statistics are computed on at most [`SelectOptions::max_statistics_points`] points
//! (a seeded uniform subsample beyond that; the self-tuning probe on at most
//! [`PROBE_MAX_POINTS`] of them); the final partition at the chosen k is then computed on all
//! points: for the energy kernel by kernel k-groups on all of them, for the kNN graph by a
//! 10-neighbour vote of the sample's partition refined on the graph of all points. Every
//! reference set, subsample and start gets its seed up front,
//! and they run in parallel on rayon: the result is the same for any number of threads.

pub mod bandwidth;
mod cut;
mod eigengap;
mod every_point;
mod fits;
mod gap;
mod given_k;
pub mod neighbors;
mod precomputed;
mod references;
mod stability;
mod steps;
mod table;
#[cfg(test)]
mod tests;
mod warm;

pub use table::{SelectionTable, StructureScores};

use crate::error::{try_filled, KGroupsError, Result};
use crate::gram::energy_gram_with;
use crate::rng::{derive_seeds, derived_seed, Rng};
use crate::{Base, Control, DataKernel, DenseKernel, Points, Semimetric};
use cut::{kernel_by_cut, GraphPartitions};
pub use cut::{GRAPH_CUT_RATIO, GRAPH_ONLY_CUT_RATIO};
use every_point::{best_of_starts, knn_partition_of_all};
use fits::{energy_fits, spectral_graph_fits, KFit};
use gap::{gap_curve_of_rows, gap_k, structure_score};
use neighbors::{
    knn_affinity, self_tuning_affinity, CsrGraphKernel, DenseGraphKernel, KNN_NEIGHBOURS,
};
pub use precomputed::select_k_precomputed;
use rayon::prelude::*;
use references::ReferenceFrame;
use std::sync::atomic::AtomicUsize;
use steps::Steps;

/// The most points of the self-tuning probe's dense graphs (a seeded subsample of the
/// statistics' points beyond it).
pub const PROBE_MAX_POINTS: usize = 1000;

/// The most k-means++ starts per k of a reference set. The gap averages `log W_k` over the
/// reference sets, so a reference needs fewer starts than the data: against 9 starts, 3
/// moved the gap by at most 0.41 of its standard error and changed no chosen k on two seeds
/// of the 25 sets of `benches/bench_select_k.py`, for a third of the cost (1 start moved it
/// by up to 0.89).
pub const REFERENCE_STARTS: usize = 3;

/// The self-tuning probe sees structure when its score `Gap(2) − s_2 − Gap(1)` exceeds
/// this: on the development data of `benches/bench_select_k.py`, structureless sets scored
/// up to 0.004 (and one 0.044, which the cut ratio then refused) and the kNN graph's shapes
/// 0.014 or more.
pub const PROBE_MIN_SCORE: f64 = 0.005;

/// Which kernels [`select_k`] may choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelChoice {
    /// The rule of the [module documentation](self): energy first, then the kNN graph.
    #[default]
    Auto,
    /// The energy kernel only: k by its gap statistic (k = 1 when it sees no structure).
    Energy,
    /// The kNN graph only: k by its relative eigen-gap (k = 1 when the self-tuning probe sees
    /// no structure).
    Knn,
}

/// The kernel [`select_k`] chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectedKernel {
    /// The energy kernel, `ρ = ‖x − y‖`.
    Energy,
    /// The kNN connectivity graph (10 neighbours, union), as normalised cut.
    Knn,
}

impl SelectedKernel {
    /// `"energy"` or `"knn"`.
    pub fn name(self) -> &'static str {
        match self {
            SelectedKernel::Energy => "energy",
            SelectedKernel::Knn => "knn",
        }
    }
}

/// The rule that gave k.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectionRule {
    /// Tibshirani's 1-SE rule on the energy kernel's gap (principal-component box).
    EnergyGap,
    /// The largest relative eigen-gap of the kNN graph.
    KnnRelativeEigengap,
    /// No kernel saw structure: one group.
    NoStructure,
    /// The most stable k over subsamples (a precomputed kernel).
    Stability,
    /// k was given; only the kernel was chosen (the kernel alone).
    GivenK,
}

impl SelectionRule {
    /// A short name: `"energy_gap"`, `"knn_relative_eigengap"`, `"no_structure"`,
    /// `"stability"` or `"given_k"`.
    pub fn name(self) -> &'static str {
        match self {
            SelectionRule::EnergyGap => "energy_gap",
            SelectionRule::KnnRelativeEigengap => "knn_relative_eigengap",
            SelectionRule::NoStructure => "no_structure",
            SelectionRule::Stability => "stability",
            SelectionRule::GivenK => "given_k",
        }
    }
}

/// The options of [`select_k`] and [`select_k_precomputed`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelectOptions {
    /// The smallest k considered (≥ 1; 1 allows the answer "one group").
    pub k_min: usize,
    /// The largest k considered (> `k_min`, ≤ n).
    pub k_max: usize,
    /// Which kernels may be chosen.
    pub kernel: KernelChoice,
    /// `B`, the reference sets per box (≥ 1; 10 by default: 20 was not better).
    pub n_refs: usize,
    /// k-means++ starts per k on the data (≥ 1; 10 by default: with 3, W_k of the data was
    /// noisy enough to move the gap rule, see `benches/bench_select_k.py`); the references get
    /// `n_init.min(`[`REFERENCE_STARTS`]`)`.
    pub n_init: usize,
    /// Subsample pairs of the stability column (0: not computed).
    pub n_pairs: usize,
    /// Every fit over k (the data's, each reference set's, each subsample's) gives each k
    /// that follows k − 1 one more start: the best partition into k − 1 with its most
    /// dispersed cluster split in two (its most dispersed cluster split by a 2-means). On by default.
    pub warm_start: bool,
    /// The statistics are computed on a seeded subsample of this many points when n is
    /// larger (≥ 2); the final partition always covers every point.
    pub max_statistics_points: usize,
    /// The seed every reference, subsample and start is derived from.
    pub seed: u64,
}

impl Default for SelectOptions {
    fn default() -> Self {
        SelectOptions {
            k_min: 1,
            k_max: 10,
            kernel: KernelChoice::Auto,
            n_refs: 10,
            n_init: 10,
            n_pairs: 5,
            warm_start: true,
            max_statistics_points: 2000,
            seed: 0,
        }
    }
}

/// The outcome of [`select_k`].
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The chosen number of groups.
    pub k: usize,
    /// Each point's group at that k, `0..k`.
    pub labels: Vec<usize>,
    /// The kernel of the partition (`None` for k = 1).
    pub kernel: Option<SelectedKernel>,
    /// The rule that gave k.
    pub rule: SelectionRule,
    /// The statistics per k.
    pub table: SelectionTable,
    /// The scores the rule read.
    pub structure: StructureScores,
    /// k is `k_max` (below n) because the energy kernel's gap still rose there: the data
    /// may hold `k_max` groups or more, and a wider range may give a larger k.
    pub at_range_end: bool,
    /// The number of points the statistics were computed on (n, or the subsample's size).
    pub n_statistics: usize,
}

/// Checks the options against `n` points.
fn check_options(options: &SelectOptions, n: usize) -> Result<()> {
    check_sample_options(options, n)?;
    if options.k_min < 1 || options.k_max <= options.k_min || options.k_max > n {
        return Err(KGroupsError::invalid(
            "k",
            format!(
                "the k range must hold at least two values within 1 … n = {n}, got {} … {}",
                options.k_min, options.k_max
            ),
        ));
    }
    if options.n_refs < 1 {
        return Err(KGroupsError::invalid("n_refs", "n_refs must be at least 1"));
    }
    Ok(())
}

/// Checks what every selection reads: `n ≥ 2` points, `n_init` and the sample's size.
fn check_sample_options(options: &SelectOptions, n: usize) -> Result<()> {
    if n < 2 {
        return Err(KGroupsError::invalid(
            "X",
            format!("choosing k needs at least 2 points, got {n}"),
        ));
    }
    crate::validate::n_init(options.n_init)?;
    if options.max_statistics_points < 2 {
        return Err(KGroupsError::invalid(
            "max_statistics_points",
            "max_statistics_points must be at least 2",
        ));
    }
    Ok(())
}

/// The points the statistics are computed on: all of `x` when there are at most `limit`,
/// else `limit` of them drawn from `seed` (in their order); with the drawn indices.
fn statistics_sample(x: &Points, limit: usize, seed: u64) -> (Vec<f64>, usize, Option<Vec<usize>>) {
    let (n, dim) = (x.n(), x.dim());
    if n > limit {
        let mut nodes = Rng::new(seed).distinct(n, limit).unwrap_or_default();
        nodes.sort_unstable();
        (gather_rows(x.data(), dim, &nodes), limit, Some(nodes))
    } else {
        (x.data().to_vec(), n, None)
    }
}

/// `a · b` for a buffer's length, or an error naming `argument` when it overflows.
fn count_product(a: usize, b: usize, argument: &'static str) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| {
        KGroupsError::invalid(
            argument,
            format!("{argument} = {a} is too large: {a} × {b} values cannot be counted"),
        )
    })
}

/// `log W`, floored at `W_1 · 10⁻¹²` so that data with fewer distinct points than k
/// (`W_k = 0`) give a finite, very small value rather than −∞.
fn log_within(fits: &[KFit], floor: f64) -> Vec<f64> {
    fits.iter().map(|f| f.within.max(floor).ln()).collect()
}

/// The energy kernel's `log W_k`, k = 1 … k_max, of the points `data` (`m × dim`).
fn energy_log_w(
    points: &Points,
    ks: &[usize],
    n_init: usize,
    warm_start: bool,
    seed: u64,
    control: &Control,
) -> Result<(Vec<KFit>, Vec<f64>)> {
    let m = points.n();
    let g: Vec<f64> = energy_gram_with(
        points,
        Semimetric::Power { alpha: 1.0 },
        Base::Mean,
        control,
    )?;
    let kernel = DenseKernel::trusting_symmetry(&g, m)?;
    let fits = energy_fits(&kernel, ks, n_init, warm_start, seed, control)?;
    let floor = fits[0].within * 1e-12;
    let logs = log_within(&fits, floor.max(f64::MIN_POSITIVE));
    Ok((fits, logs))
}

/// The self-tuning graph's `log W_k` (normalised cut + 1) for k = 1, 2 of `data`.
fn self_tuning_log_w(
    data: &[f64],
    m: usize,
    dim: usize,
    warm_start: bool,
    seed: u64,
    control: &Control,
) -> Result<Vec<f64>> {
    let points = Points::new(data, m, dim)?;
    let graph = DenseGraphKernel::from_affinity(self_tuning_affinity(&points, control)?, m)?;
    let kernel = graph.kernel()?;
    let fits = spectral_graph_fits(
        &kernel,
        &graph.degrees,
        2,
        &[1, 2],
        warm_start,
        seed,
        &eigengap::START_EIGEN_OPTIONS,
        control,
    )?;
    Ok(fits.iter().map(|f| f.within.max(1e-300).ln()).collect())
}

/// The rows `nodes` of the `dim`-column matrix `data`.
fn gather_rows(data: &[f64], dim: usize, nodes: &[usize]) -> Vec<f64> {
    nodes
        .iter()
        .flat_map(|&i| data[i * dim..(i + 1) * dim].iter().copied())
        .collect()
}

/// The k of the stability column: `max(2, k_min) … k_max`, those a subsample of `m` points
/// can hold.
fn stable_range(options: &SelectOptions, m: usize) -> Vec<usize> {
    let sub = (stability::SUBSAMPLE_FRACTION * m as f64) as usize;
    (options.k_min.max(2)..=options.k_max.min(sub)).collect()
}

/// Choose k (and the kernel) for the points `x` by the rule of the
/// [module documentation](self), and partition every point into that many groups. With
/// `k_min == k_max` (k given) only the kernel is chosen: the energy kernel's and the kNN
/// graph's partitions into k groups, compared by the cut ratio (no gap statistic; `rule` is
/// [`SelectionRule::GivenK`]; with `kernel` Energy or Knn, that kernel's partition).
///
/// ```
/// use kgroups::select::{select_k, SelectOptions, SelectedKernel, SelectionRule};
/// use kgroups::{Control, Points};
/// // Two concentric rings: the energy kernel cuts them in halves, the graph by ring.
/// let mut data = Vec::new();
/// for (radius, count) in [(1.0, 60), (4.0, 90)] {
///     for i in 0..count {
///         let t = i as f64 / count as f64 * std::f64::consts::TAU;
///         data.extend([radius * t.cos(), radius * t.sin()]);
///     }
/// }
/// let x = Points::new(&data, 150, 2)?;
/// let given = SelectOptions { k_min: 2, k_max: 2, ..SelectOptions::default() };
/// let s = select_k(&x, &given, &Control::new())?;
/// assert_eq!((s.k, s.kernel, s.rule), (2, Some(SelectedKernel::Knn), SelectionRule::GivenK));
/// assert!(s.labels[..60].iter().all(|&l| l == s.labels[0]));
/// assert!(s.labels[60..].iter().all(|&l| l != s.labels[0]));
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
///
/// Data of any finite magnitude: beyond about 1e77 they are divided by a power of two first
/// (exact), and the table's `W_k` scaled back (infinite beyond the range of f64).
///
/// Errors: fewer than 2 points, a k range that is not `1 ≤ k_min ≤ k_max ≤ n`, `n_refs` or
/// `n_init` of 0 (each naming its argument); [`KGroupsError::Interrupted`] when `control`
/// is cancelled (checked between and inside every fit). `Points` guarantees finite data.
pub fn select_k(x: &Points, options: &SelectOptions, control: &Control) -> Result<Selection> {
    if options.k_min == options.k_max {
        return given_k::select_kernel(x, options.k_min, options, control);
    }
    check_options(options, x.n())?;
    // Data of huge magnitude are divided by a power of two first (exact: every kernel here
    // is invariant to a common scale but for W_k, which scales with it); W_k scaled back.
    let Some(e) = crate::scale::large_data_exponent(x.data()) else {
        return select_k_of(x, options, control);
    };
    let scaled = crate::scale::scaled_copy(x.data(), e, "X")?;
    let mut selection = select_k_of(&Points::new(&scaled, x.n(), x.dim())?, options, control)?;
    let table = &mut selection.table;
    let shift = f64::from(e) * std::f64::consts::LN_2;
    table
        .within
        .iter_mut()
        .for_each(|w| *w = crate::scale::times_pow2(*w, e));
    for column in [&mut table.log_within, &mut table.expected_log_within_pc] {
        column.iter_mut().for_each(|v| *v += shift);
    }
    Ok(selection)
}

/// [`select_k`] of data of ordinary magnitude.
fn select_k_of(x: &Points, options: &SelectOptions, control: &Control) -> Result<Selection> {
    let (n, dim) = (x.n(), x.dim());
    let data = x.data();
    let ks: Vec<usize> = (1..=options.k_max).collect();
    let seeds = derive_seeds(options.seed, 8);
    let warm = options.warm_start;
    let b = options.n_refs;
    let quiet = control.without_progress();
    let first = &data[..dim];
    if data.chunks_exact(dim).all(|row| row == first) {
        return Ok(one_group(n, SelectionTable::empty(&ks)));
    }

    let limit = options.max_statistics_points.max(options.k_max + 1);
    let (sample, m, sample_nodes) = statistics_sample(x, limit, seeds[0]);
    let points = Points::new(&sample, m, dim)?;
    // The parts: the data's energy fits, B references, the kNN spectrum, the rule, two
    // subsamples per stability pair (when computed) and the final partition: one part when
    // the statistics' points are all the points, else n_init parts (the partition of every
    // point is then the longest part: reported start by start, or stage by stage).
    let final_parts = if m == n { 1 } else { options.n_init };
    let stability_parts = if options.n_pairs == 0 || stable_range(options, m).is_empty() {
        0
    } else {
        options.n_pairs.saturating_mul(2)
    };
    let steps = Steps {
        control,
        done: AtomicUsize::new(0),
        total: b
            .saturating_add(stability_parts)
            .saturating_add(3)
            .saturating_add(final_parts),
    };
    // The buffers n_refs sizes, allocated before any work: the references' log W, and the
    // self-tuning probe's (k = 1, 2).
    let mut reference_log_w = try_filled(
        count_product(b, ks.len(), "n_refs")?,
        f64::NAN,
        "n_refs",
        "the reference sets' log W",
    )?;
    let mut probe_log_w = try_filled(
        count_product(b, 2, "n_refs")?,
        f64::NAN,
        "n_refs",
        "the self-tuning probe's reference log W",
    )?;

    // The energy kernel's gap: B references, in parallel.
    let (energy, log_w) = energy_log_w(&points, &ks, options.n_init, warm, seeds[1], &quiet)?;
    steps.step()?;
    let frame = ReferenceFrame::new_with(&points, &quiet)?;
    let ref_init = options.n_init.min(REFERENCE_STARTS);
    reference_log_w
        .par_chunks_mut(ks.len())
        .enumerate()
        .try_for_each(|(r, row)| {
            let seed = derived_seed(seeds[2], r);
            let (reference, width) = frame.draw_compact_with(m, seed, &quiet)?;
            let reference = Points::new(&reference, m, width)?;
            let (_, logs) = energy_log_w(&reference, &ks, ref_init, warm, seed, &quiet)?;
            row.copy_from_slice(&logs);
            steps.step()
        })?;
    let gap = gap_curve_of_rows(&log_w, &reference_log_w)?;
    let mut structure = StructureScores {
        energy: structure_score(&gap),
        self_tuning: None,
        cut_ratio: None,
    };

    // The kNN graph's spectrum.
    let knn =
        CsrGraphKernel::from_affinity(knn_affinity(&points, KNN_NEIGHBOURS.min(m - 1), &quiet)?);
    let knn_kernel = knn.kernel()?;
    let knn_pairs = eigengap::selection_eigenpairs(
        &knn_kernel,
        &knn.degrees,
        (options.k_max + 1).min(m),
        seeds[3],
        &eigengap::SELECTION_EIGEN_OPTIONS,
        &quiet,
    )?;
    let lambda = eigengap::laplacian_eigenvalues(&knn_pairs.values);
    let relative = eigengap::resolved_relative_eigengap(&knn_pairs);
    steps.step()?;

    // The rule.
    let mut graph = GraphPartitions {
        graph: &knn,
        kernel: &knn_kernel,
        pairs: &knn_pairs,
        seed: seeds[7],
        fits: Vec::new(),
    };
    let energy_k = (structure.energy > 0.0).then(|| gap_k(&gap.gap, &gap.se, options.k_min.max(2)));
    let gap_k_from_k_min = || gap_k(&gap.gap, &gap.se, options.k_min);
    let eigengap_k = eigengap::relative_eigengap_k(&relative, options.k_min, options.k_max);
    let mut probe = || {
        self_tuning_score(
            &sample,
            m,
            dim,
            &frame,
            &mut probe_log_w,
            [seeds[4], seeds[5]],
            warm,
            &quiet,
        )
    };
    let (kernel, k, rule) = match options.kernel {
        KernelChoice::Energy => match energy_k {
            Some(k) => (Some(SelectedKernel::Energy), k, SelectionRule::EnergyGap),
            None if options.k_min > 1 => (
                Some(SelectedKernel::Energy),
                gap_k_from_k_min(),
                SelectionRule::EnergyGap,
            ),
            None => (None, 1, SelectionRule::NoStructure),
        },
        KernelChoice::Knn => {
            let score = probe()?;
            structure.self_tuning = Some(score);
            if score > PROBE_MIN_SCORE || options.k_min > 1 {
                (
                    Some(SelectedKernel::Knn),
                    eigengap_k,
                    SelectionRule::KnnRelativeEigengap,
                )
            } else {
                (None, 1, SelectionRule::NoStructure)
            }
        }
        KernelChoice::Auto => match energy_k {
            Some(k) if k < options.k_max => {
                let ratio = graph.cut_ratio(k, &energy[k - 1].labels, &quiet)?;
                structure.cut_ratio = Some(ratio);
                (Some(kernel_by_cut(ratio)), k, SelectionRule::EnergyGap)
            }
            _ => {
                // The energy kernel sees no groups, or its gap still rises at k_max: the
                // kNN graph, when the probe sees structure and the graph cuts far less
                // than the energy partition into as many groups.
                let score = probe()?;
                structure.self_tuning = Some(score);
                let graph_ratio = if score > PROBE_MIN_SCORE {
                    let ratio =
                        graph.cut_ratio(eigengap_k, &energy[eigengap_k - 1].labels, &quiet)?;
                    structure.cut_ratio = Some(ratio);
                    ratio
                } else {
                    f64::NAN
                };
                if graph_ratio < GRAPH_ONLY_CUT_RATIO {
                    (
                        Some(SelectedKernel::Knn),
                        eigengap_k,
                        SelectionRule::KnnRelativeEigengap,
                    )
                } else if let Some(k) = energy_k.or((options.k_min > 1).then(gap_k_from_k_min)) {
                    let ratio = graph.cut_ratio(k, &energy[k - 1].labels, &quiet)?;
                    structure.cut_ratio = Some(ratio);
                    (Some(kernel_by_cut(ratio)), k, SelectionRule::EnergyGap)
                } else {
                    (None, 1, SelectionRule::NoStructure)
                }
            }
        },
    };
    steps.step()?;

    // Stability of the chosen kernel (the energy kernel for one group).
    let stable_ks = stable_range(options, m);
    let stability_values = if options.n_pairs == 0 || stable_ks.is_empty() {
        None
    } else {
        let values = match kernel {
            Some(SelectedKernel::Knn) => stability::stability(
                m,
                &stable_ks,
                options.n_pairs,
                seeds[6],
                |nodes, ks, seed| {
                    let sub = knn.induced(nodes);
                    let sub_kernel = sub.kernel()?;
                    let count = (ks.iter().copied().max().unwrap_or(2)).min(nodes.len());
                    let fits = spectral_graph_fits(
                        &sub_kernel,
                        &sub.degrees,
                        count,
                        ks,
                        warm,
                        seed,
                        &eigengap::START_EIGEN_OPTIONS,
                        &quiet,
                    )?;
                    steps.step()?;
                    Ok(fits.into_iter().map(|f| f.labels).collect())
                },
                control,
            )?,
            _ => stability::stability(
                m,
                &stable_ks,
                options.n_pairs,
                seeds[6],
                |nodes, ks, seed| {
                    let rows = gather_rows(&sample, dim, nodes);
                    let sub = Points::new(&rows, nodes.len(), dim)?;
                    let g: Vec<f64> = energy_gram_with(
                        &sub,
                        Semimetric::Power { alpha: 1.0 },
                        Base::Mean,
                        &quiet,
                    )?;
                    let sub_kernel = DenseKernel::trusting_symmetry(&g, nodes.len())?;
                    let fits = energy_fits(&sub_kernel, ks, 1, warm, seed, &quiet)?;
                    steps.step()?;
                    Ok(fits.into_iter().map(|f| f.labels).collect())
                },
                control,
            )?,
        };
        Some(values)
    };

    // The partition of every point at the chosen k.
    let labels = match kernel {
        None => vec![0; n],
        Some(SelectedKernel::Energy) if m == n => energy[k - 1].labels.clone(),
        Some(SelectedKernel::Energy) => {
            let full = DataKernel::new(*x, Semimetric::Power { alpha: 1.0 }, Base::Mean)?;
            best_of_starts(&full, k, options.n_init, seeds[7], &steps, &quiet)?
        }
        Some(SelectedKernel::Knn) => {
            let labels = graph.fit(k, &quiet)?.labels.clone();
            match &sample_nodes {
                None => labels,
                Some(nodes) => {
                    let stage = || steps.step_if_planned();
                    knn_partition_of_all(x, nodes, &labels, k, seeds[7], &stage, &quiet)?
                }
            }
        }
    };
    steps.finish()?;

    let mut stability_column = try_filled(options.k_max, f64::NAN, "k", "the table")?;
    if let Some(values) = stability_values {
        for (&k, v) in stable_ks.iter().zip(values) {
            stability_column[k - 1] = v;
        }
    }
    let mut eigenvalue = vec![f64::NAN; options.k_max];
    for (e, l) in eigenvalue.iter_mut().zip(&lambda) {
        *e = *l;
    }
    let mut relative_column = vec![f64::NAN; options.k_max];
    for (e, l) in relative_column.iter_mut().zip(&relative) {
        *e = *l;
    }
    let table = SelectionTable {
        k: ks,
        within: energy.iter().map(|f| f.within).collect(),
        log_within: log_w,
        expected_log_within_pc: gap.expected,
        gap_pc: gap.gap,
        se_pc: gap.se,
        stability: stability_column,
        eigenvalue,
        relative_eigengap: relative_column,
    };
    Ok(Selection {
        k,
        labels,
        kernel,
        rule,
        table,
        structure,
        at_range_end: rule == SelectionRule::EnergyGap && k == options.k_max && k < n,
        n_statistics: m,
    })
}

/// The self-tuning probe's structure score `Gap(2) − s_2 − Gap(1)` (normalised cut plus one
/// as W, references uniform on `frame`'s box) on at most [`PROBE_MAX_POINTS`] of the `m`
/// points `sample`; `reference_log_w` holds B rows of two.
#[allow(clippy::too_many_arguments)]
fn self_tuning_score(
    sample: &[f64],
    m: usize,
    dim: usize,
    frame: &ReferenceFrame,
    reference_log_w: &mut [f64],
    seeds: [u64; 2],
    warm: bool,
    control: &Control,
) -> Result<f64> {
    // The probe's graphs are dense: at most PROBE_MAX_POINTS of the statistics' points.
    let (probe, p) = if m > PROBE_MAX_POINTS {
        let mut nodes = Rng::new(seeds[0])
            .distinct(m, PROBE_MAX_POINTS)
            .unwrap_or_default();
        nodes.sort_unstable();
        (gather_rows(sample, dim, &nodes), PROBE_MAX_POINTS)
    } else {
        (sample.to_vec(), m)
    };
    let logs = self_tuning_log_w(&probe, p, dim, warm, seeds[0], control)?;
    reference_log_w
        .par_chunks_mut(2)
        .enumerate()
        .try_for_each(|(r, row)| {
            let s = derived_seed(seeds[1], r);
            let (reference, width) = frame.draw_compact_with(p, s, control)?;
            row.copy_from_slice(&self_tuning_log_w(&reference, p, width, warm, s, control)?);
            Ok(())
        })?;
    let curve = gap_curve_of_rows(&logs, reference_log_w)?;
    Ok(curve.gap[1] - curve.se[1] - curve.gap[0])
}

/// The answer "one group" with the given table.
fn one_group(n: usize, table: SelectionTable) -> Selection {
    Selection {
        k: 1,
        labels: vec![0; n],
        kernel: None,
        rule: SelectionRule::NoStructure,
        table,
        structure: StructureScores::none(),
        at_range_end: false,
        n_statistics: n,
    }
}
