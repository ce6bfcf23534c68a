//! Are the data one Gaussian? A Monte Carlo test of "the n points are one Gaussian, of any
//! mean and covariance" by the k-group partition that kernel k-groups finds in them, every
//! null data set clustered exactly as the data were (SigClust's question, Liu, Hayes, Nobel &
//! Marron 2008, asked of the energy statistic).
//!
//! **What a small p-value says: the data are not one Gaussian.** It is not by itself evidence
//! of clusters: uniform data hold none, yet a uniform square is split more cleanly than a
//! Gaussian with its covariance and is rejected (200 points uniform in a square get
//! p ≈ 0.001 with `n_null = 999`), and other unimodal clouds that are not Gaussian (skewed,
//! heavy- or light-tailed) can be rejected as well.
//!
//! **Statistic.** The data are clustered with the energy kernel of ρ(x, y) = ‖x − y‖ (the
//! library's default energy kernel) into k groups; the statistic is the within-cluster energy
//! dispersion of that partition relative to the total,
//! `T = W_k / W_1`, with `W_k = Σ_j (1 / (2 n_j)) Σ_{a,b ∈ C_j} ‖x_a − x_b‖` (the `within` of
//! [`crate::energy_statistics`], the `W` that kernel k-groups minimises) and
//! `W_1 = (1 / (2 n)) Σ_{a,b} ‖x_a − x_b‖` (its `total`). `0 ≤ T ≤ 1`; a small T means
//! compact, well separated groups. T does not change under translation, rotation or a common
//! scale of the data.
//!
//! **Null.** One Gaussian, of any mean and covariance. The test conditions on the data's
//! sample mean and covariance, which are sufficient for the Gaussian: given them, the centred
//! data matrix of an i.i.d. Gaussian sample is `U Λ^{1/2} Vᵀ` (`Λ`, `V` the sample
//! covariance's eigenvalues times n − 1 and eigenvectors) with `U` a uniformly random
//! orthonormal frame orthogonal to the ones vector, whatever the true mean and covariance.
//! Since T depends only on the distances between the points, every null data set is
//! `U Λ^{1/2}` with a fresh random frame U (`min(D, n − 1)` columns): it has exactly the
//! data's sample covariance, and the p-value is exactly uniform under the null, for any n and
//! D. No covariance is estimated.
//!
//! **p-value.** `p = (1 + #{i : T_i ≤ T}) / (n_null + 1)` over the null statistics T_i (a
//! valid Monte Carlo p-value: under the null it is uniform on the multiples of
//! `1 / (n_null + 1)` up to ties), with its Monte Carlo standard error
//! `sqrt(p (1 − p) / n_null)`.
//!
//! Every null data set gets its seed up front from the one seed, and the null fits run in
//! parallel on rayon: the result is the same for any number of threads.

use crate::error::try_filled;
use crate::rng::{derived_seed, splitmix64, Rng};
use crate::stats::{energy_statistics, PairwiseSource};
use crate::validate;
use crate::{
    fit, Base, Clustering, Control, DataKernel, Init, KGroupsError, Options, Points, Progress,
    Result, Semimetric,
};
use rayon::prelude::*;

/// Mixed into the seed before the null data sets' seeds are derived from it, so that they do
/// not repeat the seeds of the data's own starts.
const NULL_STREAM: u64 = 0x5349_4743_4C55_5354;

/// The energy kernel of the test: ρ(x, y) = ‖x − y‖.
const ENERGY: Semimetric = Semimetric::Power { alpha: 1.0 };

/// Options of [`cluster_significance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignificanceOptions<'a> {
    /// Null data sets drawn and clustered (≥ 1).
    pub n_null: usize,
    /// The clustering run on the data and on every null data set: `algorithm`, `init`,
    /// `n_init` and `max_iter` are used; the data's fit uses `seed` itself, the null data
    /// sets seeds derived from it. No weights, no initial labels, no diagonal shift.
    pub fit: Options<'a>,
}

impl Default for SignificanceOptions<'_> {
    fn default() -> Self {
        SignificanceOptions {
            n_null: 999,
            fit: Options::default(),
        }
    }
}

/// The result of [`cluster_significance`].
#[derive(Debug, Clone, PartialEq)]
pub struct Significance {
    /// The observed statistic `T = W_k / W_1` of the data's partition.
    pub statistic: f64,
    /// `W_k`, the within-cluster energy dispersion of the data's partition.
    pub within: f64,
    /// `W_1`, the total energy dispersion of the data.
    pub total: f64,
    /// The data's clustering (its `labels` are the partition tested).
    pub clustering: Clustering,
    /// The statistic of each null data set, in the order of their seeds.
    pub null_statistics: Vec<f64>,
    /// `(1 + #{T_i ≤ T}) / (n_null + 1)`.
    pub pvalue: f64,
    /// The Monte Carlo standard error of `pvalue`, `sqrt(p (1 − p) / n_null)`.
    pub pvalue_se: f64,
    /// The eigenvalues of the data's sample covariance, descending (D values; beyond the
    /// rank n − 1 they are 0): every null data set has exactly these.
    pub sample_eigenvalues: Vec<f64>,
}

/// Tests whether `points` are not one Gaussian (of any mean and covariance), by how much more
/// cleanly kernel k-groups splits them into k groups than it splits Gaussian data sets with
/// exactly their sample mean and covariance (see the module documentation for the statistic,
/// the null and the p-value).
///
/// A small p-value says the data are not one Gaussian, not that they hold k clusters: uniform
/// data get small p-values too, and so can other non-Gaussian single clouds.
///
/// Progress: after each null data set is clustered, `control` receives
/// `Progress { start: i, sweep: 1, moves_in_sweep: 0, objective: T_i }` (i the data set's
/// index; they arrive in any order); the fits themselves report nothing. Cancellation is
/// checked within every fit.
///
/// Cost: `n_null + 1` clusterings of n points (each O(n² D) for the kernel's sums), run in
/// parallel, and the eigenvalues of a `min(n, D)²` matrix.
///
/// Data of any finite magnitude: beyond about 1e77 they are divided by a power of two
/// before any square is formed (exact), and the dispersions, variances and clustering values
/// are scaled back (infinite where they exceed the range of f64).
///
/// Errors: `k < 2` or `k > n` (argument `k`), `n_null = 0` (`n_null`), points that all
/// coincide (`X`), weights, initial labels or a diagonal shift in `options.fit` (`weights`,
/// `init`, `shift`), the errors of [`Options::check`]; [`KGroupsError::Interrupted`] on
/// cancellation.
///
/// ```
/// use kgroups::significance::{cluster_significance, SignificanceOptions};
/// use kgroups::{Control, Points};
/// // Two tight groups of five points on a line, far apart.
/// let x: Vec<f64> = (0..10).map(|i| if i < 5 { i as f64 * 0.01 } else { 10.0 + i as f64 * 0.01 }).collect();
/// let points = Points::new(&x, 10, 1)?;
/// let options = SignificanceOptions { n_null: 19, ..SignificanceOptions::default() };
/// let result = cluster_significance(points, 2, &options, &Control::new())?;
/// // The smallest p-value 1 / (n_null + 1): these points are not one Gaussian (here because
/// // they form two groups, but a uniform cloud would be rejected too).
/// assert_eq!(result.pvalue, 1.0 / 20.0);
/// assert!(result.statistic < 0.01);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn cluster_significance(
    points: Points,
    k: usize,
    options: &SignificanceOptions,
    control: &Control,
) -> Result<Significance> {
    check(points, k, options)?;
    // Data of huge magnitude are divided by a power of two first (exact: the partitions, the
    // statistic and the p-value are those of the data), their dispersions scaled back.
    let Some(e) = crate::scale::large_data_exponent(points.data()) else {
        return significance_of(points, k, options, control);
    };
    let scaled = crate::scale::scaled_copy(points.data(), e, "X")?;
    let scaled = Points::new(&scaled, points.n(), points.dim())?;
    let mut result = significance_of(scaled, k, options, control)?;
    let up = |v: f64| crate::scale::times_pow2(v, e);
    let up2 = |v: f64| crate::scale::times_pow2(v, 2 * e);
    result.within = up(result.within);
    result.total = up(result.total);
    result.clustering.scale_energy_values(e);
    result
        .sample_eigenvalues
        .iter_mut()
        .for_each(|v| *v = up2(*v));
    Ok(result)
}

/// [`cluster_significance`] of checked points.
fn significance_of(
    points: Points,
    k: usize,
    options: &SignificanceOptions,
    control: &Control,
) -> Result<Significance> {
    let n = points.n();
    // The one buffer n_null sizes, allocated before any work so that a count beyond memory
    // is refused at once.
    let mut null_statistics = try_filled(
        options.n_null,
        f64::NAN,
        "n_null",
        "the null data sets' statistics",
    )?;
    let quiet = control.without_progress();
    let null = NullModel::fit(points, &quiet)?;
    quiet.checkpoint()?;
    let observed = clustered_statistic(points, k, &options.fit, &quiet)?;
    let null_seed = splitmix64(&mut (options.fit.seed ^ NULL_STREAM));
    null_statistics
        .par_iter_mut()
        .enumerate()
        .try_for_each(|(i, slot)| {
            quiet.checkpoint()?;
            let mut rng = Rng::new(derived_seed(null_seed, i));
            let (data, width) = null.draw(n, &mut rng)?;
            let fit_options = Options {
                seed: rng.next_u64(),
                ..options.fit
            };
            let replicate = Points::new(&data, n, width)?;
            let statistic = clustered_statistic(replicate, k, &fit_options, &quiet)?.statistic;
            control.report(Progress {
                start: i,
                sweep: 1,
                moves_in_sweep: 0,
                objective: statistic,
            })?;
            *slot = statistic;
            Ok(())
        })?;
    let as_small = null_statistics
        .iter()
        .filter(|&&t| t <= observed.statistic)
        .count();
    let pvalue = (as_small as f64 + 1.0) / (options.n_null as f64 + 1.0);
    let pvalue_se = (pvalue * (1.0 - pvalue) / options.n_null as f64).sqrt();
    Ok(Significance {
        statistic: observed.statistic,
        within: observed.within,
        total: observed.total,
        clustering: observed.clustering,
        null_statistics,
        pvalue,
        pvalue_se,
        sample_eigenvalues: null.sample_eigenvalues,
    })
}

/// The caller's values that [`cluster_significance`] refuses before any work.
fn check(points: Points, k: usize, options: &SignificanceOptions) -> Result<()> {
    let n = points.n();
    if k < 2 {
        return Err(KGroupsError::invalid(
            "k",
            format!("k must be at least 2 (the test compares k groups with one), got {k}"),
        ));
    }
    validate::k(k, n)?;
    validate::count(options.n_null, 1, usize::MAX, None, "n_null")?;
    let fit = &options.fit;
    if fit.weights.is_some() {
        return Err(KGroupsError::invalid(
            "weights",
            "point weights are not supported by the significance test (its null draws unweighted points)",
        ));
    }
    if let Init::Labels(_) = fit.init {
        return Err(KGroupsError::invalid(
            "init",
            "initial labels cannot be used: every null data set must be clustered as the data were, from a start it draws itself",
        ));
    }
    if fit.shift != 0.0 {
        return Err(KGroupsError::invalid(
            "shift",
            "the significance test clusters with the energy kernel, which needs no diagonal shift; use 0",
        ));
    }
    fit.check(n, k)?;
    let first = points.get(0).unwrap_or(&[]);
    if (1..n).all(|i| points.get(i) == Some(first)) {
        return Err(KGroupsError::invalid(
            "X",
            format!("all {n} points coincide: there is no spread to split into groups"),
        ));
    }
    Ok(())
}

/// The partition found in one data set and its statistic.
struct Observed {
    clustering: Clustering,
    statistic: f64,
    within: f64,
    total: f64,
}

/// Clusters `points` with the energy kernel (matrix-free, translation invariant base) and
/// returns the partition with `T = W_k / W_1`.
fn clustered_statistic(
    points: Points,
    k: usize,
    options: &Options,
    control: &Control,
) -> Result<Observed> {
    let kernel = DataKernel::new(points, ENERGY, Base::Mean)?;
    let clustering = fit(&kernel, k, options, control)?;
    let source = PairwiseSource::Data {
        points,
        semimetric: ENERGY,
    };
    let stats = energy_statistics(&source, &clustering.labels, k, None, false, control)?;
    if stats.total <= 0.0 {
        return Err(KGroupsError::invalid(
            "X",
            "all points coincide: there is no spread to split into groups",
        ));
    }
    Ok(Observed {
        clustering,
        statistic: stats.within / stats.total,
        within: stats.within,
        total: stats.total,
    })
}

/// The Gaussian null conditioned on a data set's sample mean and covariance.
struct NullModel {
    /// Eigenvalues of the sample covariance, descending, in the data's units.
    sample_eigenvalues: Vec<f64>,
    /// The factors `sqrt((n − 1) λ_j)` of the frame's `min(D, n − 1)` columns, in the units
    /// of the scaled data (what is drawn).
    scaled_sd: Vec<f64>,
}

impl NullModel {
    /// Fits the null to `points` (not all coinciding).
    fn fit(points: Points, control: &Control) -> Result<NullModel> {
        let (n, dim) = (points.n(), points.dim());
        let data = points.data();
        // Divided by the largest magnitude first, so that no square or sum overflows; the
        // statistic does not depend on the scale, and the reported values are scaled back.
        let scale = data.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mut centred = crate::error::try_filled(n * dim, 0.0, "X", "the centred data")?;
        for j in 0..dim {
            let mean = (0..n).map(|i| data[i * dim + j] / scale).sum::<f64>() / n as f64;
            for i in 0..n {
                centred[i * dim + j] = data[i * dim + j] / scale - mean;
            }
        }
        let mut sample = covariance_eigenvalues(&centred, n, dim, control)?;
        for v in sample.iter_mut() {
            *v = v.max(0.0);
        }
        // Centred data have rank at most n − 1: what the decomposition leaves beyond it is
        // rounding.
        sample.iter_mut().skip(n - 1).for_each(|v| *v = 0.0);
        // The columns of a random orthonormal frame have unit norm: times sqrt(n − 1) they
        // have unit sample variance. Only the rank min(D, n − 1) is drawn.
        let rank = dim.min(n - 1);
        let root = ((n - 1) as f64).sqrt();
        let scaled_sd = sample[..rank].iter().map(|v| root * v.sqrt()).collect();
        let square = scale * scale;
        Ok(NullModel {
            sample_eigenvalues: sample.iter().map(|v| v * square).collect(),
            scaled_sd,
        })
    }

    /// One null data set of n points (scaled units), row-major, and its number of columns: a
    /// uniformly random orthonormal frame of `min(D, n − 1)` columns orthogonal to the ones
    /// vector (Gaussian columns orthonormalised against it, in order), column j times
    /// `sqrt((n − 1) λ_j)`.
    fn draw(&self, n: usize, rng: &mut Rng) -> Result<(Vec<f64>, usize)> {
        let width = self.scaled_sd.len();
        let mut data = crate::error::try_filled(n * width, 0.0, "X", "a null data set")?;
        fill_standard_normal(rng, &mut data);
        let ones = crate::error::try_filled(n, 1.0 / (n as f64).sqrt(), "X", "a unit vector")?;
        // Column-major, as the orthonormalisation takes it.
        let mut columns = crate::error::try_filled(n * width, 0.0, "X", "a null data set")?;
        for (i, row) in data.chunks_exact(width).enumerate() {
            for (j, v) in row.iter().enumerate() {
                columns[j * n + i] = *v;
            }
        }
        crate::linalg::orthonormalize_against(
            faer::MatRef::from_column_major_slice(&ones, n, 1),
            &mut columns,
            width,
        )?;
        for (j, (column, sd)) in columns.chunks_exact(n).zip(&self.scaled_sd).enumerate() {
            for (i, v) in column.iter().enumerate() {
                data[i * width + j] = v * sd;
            }
        }
        Ok((data, width))
    }
}

/// Fills `out` with independent standard normal values by the Box–Muller transform: each
/// pair of uniforms `u_1 ∈ (0, 1]`, `u_2 ∈ [0, 1)` gives `r cos θ` and `r sin θ` with
/// `r = sqrt(−2 ln u_1)`, `θ = 2π u_2` (the last value of an odd length is the cosine one).
///
/// ```
/// use kgroups::rng::Rng;
/// use kgroups::significance::fill_standard_normal;
/// let mut z = vec![0.0; 10_000];
/// fill_standard_normal(&mut Rng::new(3), &mut z);
/// let mean = z.iter().sum::<f64>() / 1e4;
/// let var = z.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 1e4;
/// assert!(mean.abs() < 0.05 && (var - 1.0).abs() < 0.05);
/// ```
pub fn fill_standard_normal(rng: &mut Rng, out: &mut [f64]) {
    for pair in out.chunks_mut(2) {
        let u1 = 1.0 - rng.next_f64();
        let u2 = rng.next_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let theta = std::f64::consts::TAU * u2;
        pair[0] = r * theta.cos();
        if let Some(second) = pair.get_mut(1) {
            *second = r * theta.sin();
        }
    }
}

/// The eigenvalues of the sample covariance `Yᵀ Y / (n − 1)` of the centred `n × dim` data
/// `Y` (n ≥ 2), descending, `dim` values. For `dim ≤ n` from the `dim × dim` covariance; for
/// `dim > n` from the `n × n` matrix `Y Yᵀ / (n − 1)`, which has the same nonzero eigenvalues
/// (the rest are 0): the smaller matrix either way.
/// Checks `control` for cancellation between the matrix's rows and during the
/// eigen-decomposition.
fn covariance_eigenvalues(
    centred: &[f64],
    n: usize,
    dim: usize,
    control: &Control,
) -> Result<Vec<f64>> {
    eigenvalues_from(centred, n, dim, dim <= n, control)
}

/// [`covariance_eigenvalues`] from the `dim × dim` covariance (`by_columns`) or from the
/// `n × n` matrix `Y Yᵀ / (n − 1)`.
fn eigenvalues_from(
    centred: &[f64],
    n: usize,
    dim: usize,
    by_columns: bool,
    control: &Control,
) -> Result<Vec<f64>> {
    // The rows whose pairwise dot products make the matrix: the columns of Y (dim rows of n
    // values) or the rows of Y.
    let (rows, m, len) = if by_columns {
        let mut columns = crate::error::try_filled(n * dim, 0.0, "X", "the transposed data")?;
        for i in 0..n {
            for j in 0..dim {
                columns[j * n + i] = centred[i * dim + j];
            }
        }
        (columns, dim, n)
    } else {
        (centred.to_vec(), n, dim)
    };
    let mut product = crate::error::try_filled(m * m, 0.0, "X", "the covariance matrix")?;
    let divisor = (n - 1) as f64;
    product
        .par_chunks_mut(m)
        .enumerate()
        .try_for_each(|(a, out)| {
            control.checkpoint()?;
            let row_a = &rows[a * len..(a + 1) * len];
            for (b, entry) in out.iter_mut().enumerate() {
                let row_b = &rows[b * len..(b + 1) * len];
                let dot: f64 = row_a.iter().zip(row_b).map(|(x, y)| x * y).sum();
                *entry = dot / divisor;
            }
            Ok(())
        })?;
    let mut values = crate::linalg::symmetric_eigenvalues(&product, m, control).map_err(|e| {
        if e == KGroupsError::Interrupted {
            e
        } else {
            KGroupsError::Internal(format!("covariance eigenvalues: {e}"))
        }
    })?;
    values.truncate(dim);
    values.resize(dim, 0.0);
    Ok(values)
}

#[cfg(test)]
mod tests;
