//! The leading eigenpairs of a weighted kernel, `M = W^½ G W^½` with `W = diag(weights)`,
//! for every [`Kernel`] (dense, sparse, computed from data, low-rank), and the spectral
//! initialisation built on them.
//!
//! The eigenpairs come from a restarted block Krylov method: a random block `V` of `b`
//! orthonormal columns (`b` = the eigenpairs asked for plus an oversampling) is extended to
//! the orthonormal basis of `[V, MV, M²V, …]`, the Rayleigh–Ritz step (the eigen-decomposition
//! of the small projected matrix `QᵀMQ`, by faer) gives the Ritz pairs, and the method
//! restarts until every wanted pair's residual `‖M v − λ v‖` is small. A restart keeps the
//! best Ritz vectors (half the basis, at least `b`) with their images `M v`, which are known,
//! and extends them from the residuals of the best `b` (a thick restart): each restart
//! multiplies only new blocks. Rayleigh–Ritz keeps the algebraically largest eigenvalues, so
//! kernels that are not positive semidefinite (graphs) are handled without a shift. Products
//! `M V` are computed row by row through the kernel, each row of the result by one task, and
//! every reduction adds fixed chunks in a fixed order: the result is the same for any number
//! of threads.

use crate::error::{try_filled, KGroupsError, Result};
use crate::kernel::{KernelAccess, Visit};
use crate::linalg::{norm, orthonormalize_against, symmetric_eigen, times_small, transpose_times};
use crate::rng::Rng;
use crate::{validate, Control, Kernel};
use faer::MatRef;
use rayon::prelude::*;

/// The default relative residual tolerance of [`top_eigenpairs`].
pub const DEFAULT_TOLERANCE: f64 = 1e-8;

/// The default number of restarts of [`top_eigenpairs`].
pub const DEFAULT_MAX_RESTARTS: usize = 200;

/// The leading eigenpairs of `M = W^½ G W^½` ([`top_eigenpairs`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Eigenpairs {
    /// The `count` largest eigenvalues, in descending order.
    pub values: Vec<f64>,
    /// The eigenvectors, `n × count` row-major: column `j` (`vectors[i * count + j]`) is the
    /// unit eigenvector of `values[j]`, with its entry of largest magnitude (the first such)
    /// positive. Row `i` is point `i`'s coordinates in the spectral embedding.
    pub vectors: Vec<f64>,
    /// The number of points `n`.
    pub n: usize,
    /// The number of eigenpairs, `count`.
    pub count: usize,
    /// `‖M v_j − λ_j v_j‖₂` of each pair, as computed at the last restart.
    pub residuals: Vec<f64>,
    /// Whether every residual met the tolerance: `residual ≤ tolerance · ‖M‖`, with `‖M‖`
    /// estimated by the largest Ritz value's magnitude. Always true when `n` is small
    /// enough for the basis to span the whole space (the decomposition is then exact up to
    /// rounding).
    pub converged: bool,
    /// Restarts run (1 when the first basis sufficed).
    pub n_restarts: usize,
    /// Products of `M` with an `n × b` block computed.
    pub n_products: usize,
}

/// How [`top_eigenpairs_with`] iterates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EigenOptions {
    /// Stop when every wanted pair's residual `‖M v − λ v‖` is at most `tolerance` times
    /// the largest Ritz value's magnitude (an estimate of `‖M‖`). The eigenvalues are then
    /// accurate to about `tolerance² · ‖M‖² / gap`, the vectors to `tolerance · ‖M‖ / gap`
    /// (gap: the distance to the rest of the spectrum). Finite, `> 0`.
    pub tolerance: f64,
    /// The most restarts; the result says whether it converged before. At least 1.
    pub max_restarts: usize,
}

impl Default for EigenOptions {
    fn default() -> Self {
        EigenOptions {
            tolerance: DEFAULT_TOLERANCE,
            max_restarts: DEFAULT_MAX_RESTARTS,
        }
    }
}

/// The `count` algebraically largest eigenvalues of `M = W^½ G W^½` (`G` the kernel,
/// `W = diag(weights)`, all 1 when `weights` is `None`) and their eigenvectors, by a
/// restarted block Krylov method started from a random block drawn with `seed`
/// (see the [module documentation](self)), with the default [`EigenOptions`].
///
/// The eigenvalues of `M` bound the clustering objective: for every partition into `k`
/// clusters, `Q = Σ_l Q_l / s_l ≤ λ_1 + … + λ_k` (`Q` is the trace of `HᵀMH` for an `n × k`
/// `H` with orthonormal columns).
///
/// Deterministic for a given seed, and the same for any number of threads. Stops with
/// [`KGroupsError::Interrupted`] when `control` is cancelled (checked between the rows of
/// every product). Errors when `count` is 0 or above n (argument `count`), or a weight is not
/// finite and `> 0` or their number is not n (argument `weights`).
///
/// ```
/// use kgroups::{spectral::top_eigenpairs, Control, DenseKernel};
/// // Two blocks of ones: eigenvalues 3 (the first three points) and 2 (the last two).
/// let mut g = vec![0.0; 25];
/// for (a, b) in [(0, 3), (3, 5)] {
///     for i in a..b {
///         for j in a..b {
///             g[i * 5 + j] = 1.0;
///         }
///     }
/// }
/// let pairs = top_eigenpairs(&DenseKernel::new(&g, 5)?, None, 2, 0, &Control::new())?;
/// assert!((pairs.values[0] - 3.0).abs() < 1e-12 && (pairs.values[1] - 2.0).abs() < 1e-12);
/// let first: Vec<f64> = (0..5).map(|i| pairs.vectors[i * 2]).collect();
/// assert!(first[..3].iter().all(|v| (v - 3f64.sqrt().recip()).abs() < 1e-12));
/// assert!(first[3..].iter().all(|v| v.abs() < 1e-12));
/// assert!(pairs.converged);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn top_eigenpairs<K: Kernel>(
    kernel: &K,
    weights: Option<&[f64]>,
    count: usize,
    seed: u64,
    control: &Control,
) -> Result<Eigenpairs> {
    top_eigenpairs_with(
        kernel,
        weights,
        count,
        seed,
        &EigenOptions::default(),
        control,
    )
}

/// [`top_eigenpairs`] with the tolerance and the most restarts given by `options`
/// (arguments `tolerance` and `max_restarts` in the errors).
///
/// ```
/// use kgroups::spectral::{top_eigenpairs_with, EigenOptions};
/// use kgroups::{Control, DenseKernel};
/// let g = [2.0, 1.0, 1.0, 2.0];
/// let options = EigenOptions { tolerance: 1e-12, max_restarts: 10 };
/// let pairs = top_eigenpairs_with(&DenseKernel::new(&g, 2)?, Some(&[1.0, 1.0]), 1, 7, &options, &Control::new())?;
/// assert!((pairs.values[0] - 3.0).abs() < 1e-12);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn top_eigenpairs_with<K: Kernel>(
    kernel: &K,
    weights: Option<&[f64]>,
    count: usize,
    seed: u64,
    options: &EigenOptions,
    control: &Control,
) -> Result<Eigenpairs> {
    let n = kernel.n();
    let block = count.saturating_add(count.clamp(8, 32)).min(n);
    let depth = (96 / block.max(1)).clamp(3, 8);
    struct Krylov<'a> {
        weights: Option<&'a [f64]>,
        count: usize,
        seed: u64,
        options: &'a EigenOptions,
        plan: Plan,
        control: &'a Control<'a>,
    }
    impl Visit for Krylov<'_> {
        type Output = Result<Eigenpairs>;
        fn visit<K: KernelAccess>(self, kernel: &K) -> Self::Output {
            let Krylov {
                weights,
                count,
                seed,
                options,
                plan,
                control,
            } = self;
            krylov(kernel, weights, count, seed, options, plan, control)
        }
    }
    kernel.dispatch(Krylov {
        weights,
        count,
        seed,
        options,
        plan: Plan { block, depth },
        control,
    })
}

/// The block width `b` and the number of blocks per restart of the Krylov method.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plan {
    pub(crate) block: usize,
    pub(crate) depth: usize,
}

/// The restarted block Krylov method of [`top_eigenpairs_with`], with the block width and
/// depth given (tests choose small ones to exercise the restarts on small kernels).
pub(crate) fn krylov<K: KernelAccess>(
    kernel: &K,
    weights: Option<&[f64]>,
    count: usize,
    seed: u64,
    options: &EigenOptions,
    plan: Plan,
    control: &Control,
) -> Result<Eigenpairs> {
    let n = kernel.n();
    validate::non_empty(n, "G")?;
    if count == 0 || count > n {
        return Err(KGroupsError::invalid(
            "count",
            format!("count must be between 1 and n = {n} (the number of points), got {count}"),
        ));
    }
    if !(options.tolerance.is_finite() && options.tolerance > 0.0) {
        return Err(KGroupsError::invalid(
            "tolerance",
            format!(
                "tolerance must be finite and > 0, got {}",
                options.tolerance
            ),
        ));
    }
    if options.max_restarts == 0 {
        return Err(KGroupsError::invalid(
            "max_restarts",
            "max_restarts must be at least 1, got 0",
        ));
    }
    // Weights scaled by an exact power of two 2^-e (the eigenvalues scale by 2^e, restored
    // at the end), so that extreme scales neither overflow nor underflow.
    let (sqrt_weights, exponent) = match weights {
        None => (try_filled(n, 1.0, "weights", "the point weights")?, 0),
        Some(weights) => {
            let (mut scaled, exponent) = validate::scaled_weights(weights, n, "weights")?;
            scaled.iter_mut().for_each(|w| *w = w.sqrt());
            (scaled, exponent)
        }
    };
    let scale_back = 2f64.powi(exponent);
    let b = plan.block.clamp(count, n);
    // The basis Q = [V, Q_1, …] of the Krylov space and the products P = M Q, `n × capacity`
    // column-major, of which the first `used` columns are filled.
    let capacity = b.saturating_mul(plan.depth.max(2)).min(n);
    let mut basis = try_filled(n * capacity, 0.0, "count", "the Krylov basis")?;
    let mut products = try_filled(n * capacity, 0.0, "count", "the Krylov basis")?;
    let mut rng = Rng::new(seed);
    basis[..n * b]
        .iter_mut()
        .for_each(|x| *x = rng.next_f64() - 0.5);
    orthonormalize_against(
        MatRef::from_column_major_slice(&[], n, 0),
        &mut basis[..n * b],
        b,
    )?;

    // Ritz vectors kept at a restart (a thick restart): half the basis, at least the block,
    // leaving room for at least one new block.
    let keep = (capacity / 2).min(capacity.saturating_sub(b)).max(b);
    // Columns at the front of the basis whose products are already known (the kept Ritz
    // vectors and their images), 0 before the first restart.
    let mut kept = 0;
    let mut n_products = 0;
    let mut restart = 0;
    loop {
        restart += 1;
        control.checkpoint()?;
        let (mut used, mut width) = if kept > 0 { (kept, kept) } else { (b, b) };
        let mut known = kept > 0;
        loop {
            let block = (used - width) * n..used * n;
            if !known {
                let product = apply(kernel, &sqrt_weights, &basis[block.clone()], width, control)?;
                products[block.clone()].copy_from_slice(&product);
                n_products += 1;
            }
            known = false;
            if used == capacity {
                break;
            }
            // The next block: the last product's leading columns, made orthonormal to the
            // basis (after a restart, the images of the best Ritz vectors: their residuals).
            let lead = b.min(capacity - used);
            let (done, rest) = basis.split_at_mut(used * n);
            let next = &mut rest[..lead * n];
            next.copy_from_slice(&products[block.start..block.start + lead * n]);
            orthonormalize_against(MatRef::from_column_major_slice(done, n, used), next, lead)?;
            width = lead;
            used += lead;
            control.checkpoint()?;
        }

        // Rayleigh–Ritz: T = Qᵀ M Q (symmetrised), T = S Θ Sᵀ.
        let q = MatRef::from_column_major_slice(&basis[..used * n], n, used);
        let p = MatRef::from_column_major_slice(&products[..used * n], n, used);
        let mut projected = transpose_times(q, p)?;
        for a in 0..used {
            for c in 0..a {
                let mean = 0.5 * projected[a * used + c] + 0.5 * projected[c * used + a];
                projected[a * used + c] = mean;
                projected[c * used + a] = mean;
            }
        }
        let (theta, s) = symmetric_eigen(&projected, used, control)?;
        // The leading Ritz vectors U = Q S_keep and M U = P S_keep (S is row-major).
        let s_keep = MatRef::from_row_major_slice(&s, used, used).subcols(0, keep.min(used));
        let ritz = times_small(q, s_keep)?;
        let ritz_image = times_small(p, s_keep)?;
        let residuals: Vec<f64> = (0..count)
            .into_par_iter()
            .map(|j| {
                let u = &ritz[j * n..(j + 1) * n];
                let mu = &ritz_image[j * n..(j + 1) * n];
                let r: Vec<f64> = mu.iter().zip(u).map(|(m, u)| m - theta[j] * u).collect();
                norm(&r)
            })
            .collect();
        let norm_estimate = theta.iter().fold(0.0f64, |m, t| m.max(t.abs()));
        let complete = used == n;
        let converged = complete
            || residuals
                .iter()
                .all(|&r| r <= options.tolerance * norm_estimate);
        if converged || restart >= options.max_restarts {
            return Ok(finish(
                &ritz,
                &theta[..count],
                &residuals,
                n,
                count,
                scale_back,
                Outcome {
                    converged,
                    n_restarts: restart,
                    n_products,
                },
            ));
        }
        // Restart from the kept Ritz vectors, whose images are known: Q S is orthonormal to
        // rounding, and every new block is made orthonormal to it.
        basis[..ritz.len()].copy_from_slice(&ritz);
        products[..ritz.len()].copy_from_slice(&ritz_image);
        kept = ritz.len() / n;
    }
}

/// How the iteration ended.
struct Outcome {
    converged: bool,
    n_restarts: usize,
    n_products: usize,
}

/// The first `count` columns of the Ritz block (column-major, `n` rows) as [`Eigenpairs`],
/// signs fixed and the eigenvalues scaled back by `scale_back`.
fn finish(
    ritz: &[f64],
    values: &[f64],
    residuals: &[f64],
    n: usize,
    count: usize,
    scale_back: f64,
    outcome: Outcome,
) -> Eigenpairs {
    let mut vectors = vec![0.0; n * count];
    for (j, column) in ritz.chunks_exact(n).take(count).enumerate() {
        let peak = (0..n).fold(0, |best, i| {
            if column[i].abs() > column[best].abs() {
                i
            } else {
                best
            }
        });
        let sign = if column[peak] < 0.0 { -1.0 } else { 1.0 };
        for (i, &x) in column.iter().enumerate() {
            vectors[i * count + j] = sign * x;
        }
    }
    Eigenpairs {
        values: values.iter().map(|v| v * scale_back).collect(),
        vectors,
        n,
        count,
        residuals: residuals.iter().map(|r| r * scale_back).collect(),
        converged: outcome.converged,
        n_restarts: outcome.n_restarts,
        n_products: outcome.n_products,
    }
}

/// `M V` for the `n × width` block `v` (column-major, as is the result), `M = W^½ G W^½`
/// (`sqrt_weights` = the diagonal of `W^½`): through the features for a low-rank kernel
/// (`W^½ Φ (Φᵀ W^½ V)`), otherwise row by row, each output row summed by one task in the
/// order of the kernel's row.
fn apply<K: KernelAccess>(
    kernel: &K,
    sqrt_weights: &[f64],
    v: &[f64],
    width: usize,
    control: &Control,
) -> Result<Vec<f64>> {
    let n = kernel.n();
    let mut product = if let Some((features, m)) = kernel.features() {
        let mut weighted = try_filled(n * width, 0.0, "count", "the Krylov block")?;
        weighted
            .par_chunks_mut(n)
            .zip(v.par_chunks(n))
            .for_each(|(out, column)| {
                for ((o, x), w) in out.iter_mut().zip(column).zip(sqrt_weights) {
                    *o = w * x;
                }
            });
        let phi = MatRef::from_row_major_slice(features, n, m);
        let small = transpose_times(phi, MatRef::from_column_major_slice(&weighted, n, width))?;
        control.checkpoint()?;
        times_small(phi, MatRef::from_column_major_slice(&small, m, width))?
    } else {
        // Row-major copies, so that each row of the kernel meets rows of the block.
        let mut weighted = try_filled(n * width, 0.0, "count", "the Krylov block")?;
        weighted
            .par_chunks_mut(width)
            .enumerate()
            .for_each(|(i, out)| {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = sqrt_weights[i] * v[j * n + i];
                }
            });
        let mut rows = try_filled(n * width, 0.0, "count", "the Krylov block")?;
        rows.par_chunks_mut(width)
            .enumerate()
            .try_for_each(|(i, out)| {
                control.checkpoint()?;
                kernel.for_each_in_row(i, |y, g| {
                    let source = &weighted[y * width..(y + 1) * width];
                    for (o, s) in out.iter_mut().zip(source) {
                        *o += g * s;
                    }
                });
                Ok::<(), KGroupsError>(())
            })?;
        let mut product = weighted;
        product
            .par_chunks_mut(n)
            .enumerate()
            .for_each(|(j, column)| {
                for (i, c) in column.iter_mut().enumerate() {
                    *c = rows[i * width + j];
                }
            });
        product
    };
    product.par_chunks_mut(n).for_each(|column| {
        column
            .iter_mut()
            .zip(sqrt_weights)
            .for_each(|(c, w)| *c *= w)
    });
    Ok(product)
}

/// The most Lloyd iterations of the rounding in the embedding ([`SpectralEmbedding::round`]).
const MAX_ROUNDING_ITER: usize = 100;

/// The spectral embedding of a kernel for `k` clusters ([`spectral_embedding`]), from which
/// [`crate::Init::Spectral`] draws each start.
#[derive(Debug, Clone, PartialEq)]
pub struct SpectralEmbedding {
    /// The top-k eigenpairs of `M = W^½ G W^½`.
    pub pairs: Eigenpairs,
    /// The embedding, `n × k` row-major: row `i` of the eigenvectors scaled to unit length
    /// (a zero row stays zero).
    pub rows: Vec<f64>,
}

/// The spectral embedding of Ng, Jordan and Weiss for `k` clusters: the top-k eigenvectors
/// of `M = W^½ G W^½` ([`top_eigenpairs`], drawn with `seed`), each point's row normalised to
/// unit length (a zero row stays zero). For a kernel made of k blocks that do not interact,
/// every point of a block gets the same row, and different blocks orthogonal rows. Errors as
/// [`top_eigenpairs`] (with `count = k`; argument `k`).
///
/// ```
/// use kgroups::{spectral::spectral_embedding, Control, DenseKernel};
/// // Two blocks of ones: the embedding puts each block on one point of the unit circle.
/// let g = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0];
/// let embedding = spectral_embedding(&DenseKernel::new(&g, 3)?, None, 2, 0, &Control::new())?;
/// let (first, second) = (&embedding.rows[0..2], &embedding.rows[2..4]);
/// assert!(first.iter().zip(second).all(|(a, b)| (a - b).abs() < 1e-12));
/// let cross = embedding.rows[0] * embedding.rows[4] + embedding.rows[1] * embedding.rows[5];
/// assert!(cross.abs() < 1e-12);
/// assert!((embedding.bound() - 3.0).abs() < 1e-12); // 2 + 1
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn spectral_embedding<K: Kernel>(
    kernel: &K,
    weights: Option<&[f64]>,
    k: usize,
    seed: u64,
    control: &Control,
) -> Result<SpectralEmbedding> {
    validate::non_empty(kernel.n(), "G")?;
    validate::k(k, kernel.n())?;
    let pairs = top_eigenpairs(kernel, weights, k, seed, control)?;
    SpectralEmbedding::from_pairs(&pairs, k)
}

impl SpectralEmbedding {
    /// The embedding for `k` clusters from eigenpairs computed beforehand (for instance once
    /// for several k, or with other [`EigenOptions`]): the first `k` of `pairs`, each point's
    /// row normalised to unit length (a zero row stays zero), as [`spectral_embedding`].
    /// Errors when `k` is 0 or above `pairs.count` (argument `k`).
    ///
    /// ```
    /// use kgroups::spectral::{top_eigenpairs, SpectralEmbedding};
    /// use kgroups::{Control, DenseKernel};
    /// let g = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    /// let pairs = top_eigenpairs(&DenseKernel::new(&g, 3)?, None, 3, 0, &Control::new())?;
    /// let embedding = SpectralEmbedding::from_pairs(&pairs, 2)?;
    /// assert_eq!((embedding.pairs.count, embedding.rows.len()), (2, 6));
    /// assert!((embedding.bound() - 3.0).abs() < 1e-12);
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    pub fn from_pairs(pairs: &Eigenpairs, k: usize) -> Result<SpectralEmbedding> {
        if k == 0 || k > pairs.count {
            return Err(KGroupsError::invalid(
                "k",
                format!(
                    "k must be in 1 … {} (the eigenpairs computed), got {k}",
                    pairs.count
                ),
            ));
        }
        let (n, count) = (pairs.n, pairs.count);
        let mut vectors = try_filled(n * k, 0.0, "k", "the spectral embedding")?;
        for (row, all) in vectors
            .chunks_exact_mut(k)
            .zip(pairs.vectors.chunks_exact(count))
        {
            row.copy_from_slice(&all[..k]);
        }
        let mut rows = vectors.clone();
        rows.par_chunks_mut(k).for_each(|row| {
            let norm = row.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                row.iter_mut().for_each(|x| *x /= norm);
            }
        });
        let pairs = Eigenpairs {
            values: pairs.values[..k].to_vec(),
            vectors,
            n,
            count: k,
            residuals: pairs.residuals[..k].to_vec(),
            converged: pairs.converged,
            n_restarts: pairs.n_restarts,
            n_products: pairs.n_products,
        };
        Ok(SpectralEmbedding { pairs, rows })
    }

    /// `λ_1 + … + λ_k`, an upper bound on the objective `Q = Σ_l Q_l / s_l` of every
    /// partition into k clusters (with the weights of the embedding): `Q = tr(HᵀMH)` for the
    /// `n × k` matrix `H` with orthonormal columns `H_il = √w_i / √s_l` for `i ∈ C_l`, and the
    /// trace of `HᵀMH` is at most the sum of M's k largest eigenvalues (Ky Fan). Equal to
    /// the best `Q` when the kernel is made of k blocks of rank one that do not interact.
    pub fn bound(&self) -> f64 {
        self.pairs.values.iter().sum()
    }

    /// A partition of the embedded points into k clusters, every cluster non-empty: weighted
    /// k-means++ in the embedding (drawn from `rng`), then Lloyd's method there (each point to
    /// its nearest weighted mean, ties to the lower cluster; a cluster left empty takes the
    /// point farthest from its own mean) until nothing changes or 100 iterations. Errors when
    /// `weights` does not have length n.
    ///
    /// ```
    /// use kgroups::{rng::Rng, spectral::spectral_embedding, Control, DenseKernel};
    /// let g = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    /// let embedding = spectral_embedding(&DenseKernel::new(&g, 3)?, None, 2, 0, &Control::new())?;
    /// let labels = embedding.round(&[1.0; 3], &mut Rng::new(4), &Control::new())?;
    /// assert_eq!(labels[0], labels[1]);
    /// assert_ne!(labels[0], labels[2]);
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    pub fn round(&self, weights: &[f64], rng: &mut Rng, control: &Control) -> Result<Vec<usize>> {
        let (n, k) = (self.pairs.n, self.pairs.count);
        validate::weights_len(weights, n, "weights")?;
        let features = crate::FeatureKernel::new(&self.rows, n, k)?;
        let mut labels = crate::init::kmeans_plus_plus(&features, k, weights, rng, control)?;
        lloyd_in_embedding(&self.rows, n, k, weights, &mut labels, control)?;
        Ok(labels)
    }
}

/// Lloyd's method on the embedded points (`rows`, n × k) from `labels`, keeping every
/// cluster non-empty (see [`SpectralEmbedding::round`]).
fn lloyd_in_embedding(
    rows: &[f64],
    n: usize,
    k: usize,
    weights: &[f64],
    labels: &mut [usize],
    control: &Control,
) -> Result<()> {
    let squared =
        |a: &[f64], b: &[f64]| -> f64 { a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum() };
    for _ in 0..MAX_ROUNDING_ITER {
        control.checkpoint()?;
        let mut means = vec![0.0; k * k];
        let mut sizes = vec![0.0; k];
        for (i, &label) in labels.iter().enumerate() {
            sizes[label] += weights[i];
            for (m, x) in means[label * k..(label + 1) * k]
                .iter_mut()
                .zip(&rows[i * k..(i + 1) * k])
            {
                *m += weights[i] * x;
            }
        }
        for (mean, &size) in means.chunks_exact_mut(k).zip(&sizes) {
            if size > 0.0 {
                mean.iter_mut().for_each(|m| *m /= size);
            }
        }
        let mut next: Vec<(usize, f64)> = rows
            .par_chunks(k)
            .map(|row| {
                let mut best = (0, f64::INFINITY);
                for (l, mean) in means.chunks_exact(k).enumerate() {
                    if sizes[l] > 0.0 {
                        let d = squared(row, mean);
                        if d < best.1 {
                            best = (l, d);
                        }
                    }
                }
                best
            })
            .collect();
        // Empty clusters, in order, each take the point farthest from its own mean among
        // clusters that keep another point.
        let mut counts = vec![0usize; k];
        next.iter().for_each(|&(l, _)| counts[l] += 1);
        for empty in 0..k {
            if counts[empty] > 0 {
                continue;
            }
            let far = (0..n)
                .filter(|&i| counts[next[i].0] > 1)
                .fold(None, |best: Option<usize>, i| match best {
                    Some(b) if next[b].1 >= next[i].1 => Some(b),
                    _ => Some(i),
                })
                .ok_or_else(|| KGroupsError::Internal("k > n in the spectral rounding".into()))?;
            counts[next[far].0] -= 1;
            next[far] = (empty, 0.0);
            counts[empty] = 1;
        }
        let changed = labels.iter().zip(&next).any(|(&label, &(l, _))| label != l);
        labels
            .iter_mut()
            .zip(&next)
            .for_each(|(label, &(l, _))| *label = l);
        if !changed {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
