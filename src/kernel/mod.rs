//! The one abstraction over "the kernel the algorithms read".
//!
//! Hartigan, Lloyd and the initialisations are written once, against [`Kernel`]: the number
//! of points, the diagonal, and row `i` visited entry by entry (or written whole). A user can
//! implement it for a kernel of their own; four kinds are built in:
//!
//! | kind | type | module |
//! |---|---|---|
//! | dense matrix (f64 or f32, borrowed, never copied) | [`DenseKernel`] | `kernel/dense.rs` |
//! | sparse symmetric CSR matrix, with its renumbering | [`CsrKernel`] | [`csr`] |
//! | energy kernel computed on the fly from the points | [`DataKernel`] | `kernel/matrix_free.rs` |
//! | low-rank kernel `Φ Φᵀ` from explicit features | [`FeatureKernel`] | `kernel/lowrank.rs` |

//!
//! How a fit stores its cluster sums and applies its moves for each built-in kind (integer
//! sums, point-major sums for sparse rows, batched or split moves, a validation left to the
//! first pass) is crate-private, chosen in one place: `kernel/access.rs`.

use crate::control::Control;
use crate::error::{out_of_memory, try_filled, try_filled_uninit, Result};
use crate::validate;

/// Element type of a dense kernel matrix: `f64` or `f32`. Arithmetic is always done in `f64`.
pub trait KernelElement: Copy + Send + Sync + 'static {
    /// Widen to `f64` (exact).
    fn widen(self) -> f64;
    /// Round from `f64` (for matrices this crate writes).
    fn narrow(value: f64) -> Self;
    /// Relative tolerance of the symmetry rule ([`crate::validate::symmetry`]) for this precision.
    const SYMMETRY_TOLERANCE: f64;

    /// `dst[j] = narrow(values[j])`, for the Gram builders, which write each entry once and do
    /// not read it back (for every `j` both slices have); returns whether every stored value
    /// is finite. For f64 on x86-64 the stores stream past the caches (the same values).
    #[doc(hidden)]
    fn write_once(dst: &mut [Self], values: &[f64]) -> bool {
        for (d, &v) in dst.iter_mut().zip(values) {
            *d = Self::narrow(v);
        }
        crate::validate::all_finite(dst)
    }

    /// The matrix as f64 values when this is `f64` (for the copies of a pass written for
    /// f64 vectors), else `None`.
    #[doc(hidden)]
    #[inline(always)]
    fn as_f64(_data: &[Self]) -> Option<&[f64]> {
        None
    }
}

impl KernelElement for f64 {
    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }
    #[inline(always)]
    fn narrow(value: f64) -> Self {
        value
    }
    const SYMMETRY_TOLERANCE: f64 = 1e-9;

    fn write_once(dst: &mut [f64], values: &[f64]) -> bool {
        crate::gram::stream::store_run(dst, values);
        crate::validate::all_finite(values)
    }

    #[inline(always)]
    fn as_f64(data: &[f64]) -> Option<&[f64]> {
        Some(data)
    }
}

impl KernelElement for f32 {
    #[inline(always)]
    fn widen(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn narrow(value: f64) -> Self {
        value as f32
    }
    const SYMMETRY_TOLERANCE: f64 = 1e-5;
}

/// A symmetric kernel (Gram) matrix `G` as the clustering algorithms see it: the number of
/// points, the diagonal, and row `i` visited entry by entry.
///
/// Implement it to cluster a kernel this crate does not store: [`fit`](crate::fit),
/// [`cluster_sums`], [`init`](crate::init) and [`spectral`](crate::spectral) accept any
/// `K: Kernel`. A fit on your kernel gives the same result as on a [`DenseKernel`] holding the
/// same matrix. The four built-in kinds ([`DenseKernel`], [`CsrKernel`], [`DataKernel`],
/// [`FeatureKernel`]) implement it too, and a fit chooses for each of them how to store its
/// cluster sums and apply its moves; for any other kernel it uses [`Kernel::for_each_in_row`]
/// and [`Kernel::row_into`].
///
/// Implementors promise symmetry, `G[i, y] == G[y, i]`, and that `diagonal(i)` is the value
/// row `i` visits at `y = i`. Entries not visited by [`Kernel::for_each_in_row`] are zero.
///
/// ```
/// use kgroups::{fit, Control, DenseKernel, Kernel, Options};
///
/// /// The linear kernel `G[a, b] = x_a x_b` of points on a line, never stored.
/// struct Linear<'a>(&'a [f64]);
///
/// impl Kernel for Linear<'_> {
///     fn n(&self) -> usize {
///         self.0.len()
///     }
///     fn diagonal(&self, i: usize) -> f64 {
///         self.0[i] * self.0[i]
///     }
///     fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut visit: F) {
///         for (y, x) in self.0.iter().enumerate() {
///             visit(y, self.0[i] * x);
///         }
///     }
/// }
///
/// let x = [0.0, 0.1, 0.2, 5.0, 5.1];
/// let options = Options { n_init: 3, ..Options::default() };
/// let result = fit(&Linear(&x), 2, &options, &Control::new())?;
/// assert_eq!(result.labels[0], result.labels[2]);
/// assert_ne!(result.labels[0], result.labels[3]);
///
/// // The same clustering as the stored matrix gives.
/// let g: Vec<f64> = x.iter().flat_map(|a| x.iter().map(move |b| a * b)).collect();
/// let stored = fit(&DenseKernel::new(&g, 5)?, 2, &options, &Control::new())?;
/// assert_eq!(result.labels, stored.labels);
/// assert_eq!(result.objective, stored.objective);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub trait Kernel: Sync {
    /// Number of points `n`.
    fn n(&self) -> usize;

    /// `G[i, i]`.
    fn diagonal(&self, i: usize) -> f64;

    /// Call `visit(y, G[i, y])` for every (non-zero, for sparse kernels) entry of row `i`,
    /// in increasing `y`.
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, visit: F);

    /// Row `i` written into `out` (`out.len() == n`): every entry, the ones
    /// [`Kernel::for_each_in_row`] does not visit as zeros. Override it where a whole row is
    /// cheaper to write than to visit (a copy, or a computation in parallel); the values must
    /// be the ones `for_each_in_row` visits.
    ///
    /// ```
    /// use kgroups::{DenseKernel, Kernel};
    /// let kernel = DenseKernel::new(&[2.0, 1.0, 1.0, 3.0], 2)?;
    /// let mut row = [0.0; 2];
    /// kernel.row_into(1, &mut row);
    /// assert_eq!(row, [1.0, 3.0]);
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    fn row_into(&self, i: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        self.for_each_in_row(i, |y, v| out[y] = v);
    }

    /// The crate's hook that runs an algorithm monomorphised for a built-in kind; a kernel
    /// outside the crate keeps this default (and cannot name its types to override it).
    #[doc(hidden)]
    fn dispatch<V: Visit>(&self, visit: V) -> V::Output {
        visit.visit(&Custom(self))
    }
}

/// The per-point cluster sums, cluster-major: `sums[l * n + y] = Σ_{i ∈ C_l} w_i G[y, i]`.
///
/// One pass over the kernel, parallel over rows. The result is the same for any number of
/// threads: each row's sums are computed by one thread in a fixed order. A kernel whose
/// validation was deferred ([`DenseKernel::with_deferred_check`]) is validated in the same
/// pass, and errors as [`DenseKernel::new`] would. Stops with
/// [`crate::KGroupsError::Interrupted`] when `control` is cancelled; errors when `labels` or
/// `weights` do not have length n, a label is not below `k`, or the n × k sums cannot be
/// allocated.
///
/// ```
/// use kgroups::{kernel::cluster_sums, Control, CsrKernel};
/// // The path 0 — 1 — 2 with unit weights, labels [0, 0, 1].
/// let kernel = CsrKernel::new(&[0usize, 1, 3, 4], &[1usize, 0, 2, 1], &[1.0; 4], 3)?;
/// let sums = cluster_sums(&kernel, &[0, 0, 1], &[1.0; 3], 2, &Control::new())?;
/// // Cluster 0 = {0, 1}: point 0 sees 1, point 1 sees 0, point 2 sees 1.
/// assert_eq!(sums, vec![1.0, 1.0, 1.0, 0.0, 1.0, 0.0]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn cluster_sums<K: Kernel>(
    kernel: &K,
    labels: &[usize],
    weights: &[f64],
    k: usize,
    control: &Control,
) -> Result<Vec<f64>> {
    struct Sums<'a> {
        labels: &'a [usize],
        weights: &'a [f64],
        k: usize,
        control: &'a Control<'a>,
    }
    impl Visit for Sums<'_> {
        type Output = Result<Vec<f64>>;
        fn visit<K: KernelAccess>(self, kernel: &K) -> Self::Output {
            kernel.cluster_sums_and_check(self.labels, self.weights, self.k, self.control)
        }
    }
    kernel.dispatch(Sums {
        labels,
        weights,
        k,
        control,
    })
}

/// The arguments of [`cluster_sums`]: `labels` and `weights` of length `n`, every
/// label below `k` (empty clusters allowed), and room for the n × k sums (twice:
/// point-major and cluster-major).
pub(crate) fn check_cluster_sums_args(
    n: usize,
    labels: &[usize],
    weights: &[f64],
    k: usize,
) -> Result<()> {
    validate::labels_below_k(labels, n, k, "labels")?;
    validate::weights_len(weights, n, "weights")?;
    let len = n
        .checked_mul(k)
        .and_then(|len| len.checked_mul(2))
        .ok_or_else(|| out_of_memory::<f64>(usize::MAX, "k", "the n × k cluster sums"))?;
    // Probe only: untouched memory costs nothing, the callers then allocate for real.
    // `black_box` keeps the optimiser from removing the unused allocation (and with it the
    // check: a later infallible allocation would then abort the process).
    drop(std::hint::black_box(try_filled_uninit::<f64>(
        len,
        "k",
        "the n × k cluster sums",
    )?));
    Ok(())
}

/// `G_ii` for every point, gathered once for the sweeps: a dense kernel's diagonal entries
/// are a row apart, one cache miss each, too slow to read again for every point of every
/// sweep (n = 10⁴: 36 sweeps spent 15% of a fit waiting on them).
pub(crate) fn diagonal_values<K: Kernel>(kernel: &K) -> Result<Vec<f64>> {
    let mut diagonal = try_filled(kernel.n(), 0.0, "G", "the kernel's diagonal")?;
    for (i, value) in diagonal.iter_mut().enumerate() {
        *value = kernel.diagonal(i);
    }
    Ok(diagonal)
}

/// Turn an `n × k` point-major matrix into `k × n` cluster-major.
pub(crate) fn transpose_to_cluster_major(point_major: &[f64], n: usize, k: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * k];
    for (y, sums) in point_major.chunks_exact(k.max(1)).enumerate() {
        for (l, &value) in sums.iter().enumerate() {
            out[l * n + y] = value;
        }
    }
    out
}

mod access;
pub mod csr;
mod dense;
pub(crate) mod lowrank;
pub(crate) mod matrix_free;
pub(crate) mod tile_sums;

pub use csr::{CsrIndex, CsrKernel};
pub use dense::DenseKernel;
pub use lowrank::{select_landmarks, FeatureKernel, LandmarkMethod};
pub use matrix_free::DataKernel;

pub(crate) use access::{Custom, KernelAccess, SumsLayout, Visit};
