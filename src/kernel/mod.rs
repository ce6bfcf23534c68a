//! The one abstraction over "the kernel the algorithms read".
//!
//! Hartigan, Lloyd and the initialisations are written once, against [`Kernel`]: the number
//! of points, the diagonal, and row `i` visited entry by entry. Four kinds implement it:
//!
//! | kind | type | module |
//! |---|---|---|
//! | dense matrix (f64 or f32, borrowed, never copied) | [`DenseKernel`] | `kernel/dense.rs` |
//! | sparse symmetric CSR matrix, with its renumbering | [`CsrKernel`] | [`csr`] |
//! | energy kernel computed on the fly from the points | [`DataKernel`] | `kernel/matrix_free.rs` |
//! | low-rank kernel `Φ Φᵀ` from explicit features | [`FeatureKernel`] | `kernel/lowrank.rs` |

use crate::control::Control;
use crate::error::{out_of_memory, try_filled, try_filled_huge_pages, try_filled_uninit, Result};
use crate::validate;
use rayon::prelude::*;

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

/// A symmetric kernel (Gram) matrix as the clustering algorithms see it.
///
/// Implementors promise symmetry: `G[i, y] == G[y, i]`. Entries not visited by
/// [`Kernel::for_each_in_row`] are zero.
///
/// ```
/// use kgroups::{DenseKernel, Kernel};
/// let g = [2.0, 1.0, 1.0, 3.0];
/// let kernel = DenseKernel::new(&g, 2).unwrap();
/// assert_eq!(kernel.n(), 2);
/// assert_eq!(kernel.diagonal(1), 3.0);
/// let mut row = vec![];
/// kernel.for_each_in_row(0, |y, v| row.push((y, v)));
/// assert_eq!(row, vec![(0, 2.0), (1, 1.0)]);
/// ```
pub trait Kernel: Sync {
    /// Number of points `n`.
    fn n(&self) -> usize;

    /// `G[i, i]`.
    fn diagonal(&self, i: usize) -> f64;

    /// Call `visit(y, G[i, y])` for every (non-zero, for sparse kernels) entry of row `i`,
    /// in increasing `y`.
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, visit: F);

    /// For a low-rank kernel `G = Φ Φᵀ`: the features Φ (n × m, row-major) and m. The
    /// algorithms then keep per-cluster feature sums instead of the k × n matrix of sums.
    fn features(&self) -> Option<(&[f64], usize)> {
        None
    }

    /// `Some(b)` when every entry of G is an integer and every row's absolute sum
    /// `Σ_y |G_iy|` is at most `b`: with integer weights every cluster sum is then an integer,
    /// which f64 computes exactly, and a fit keeps sparse kernels' sums as small integers
    /// (the same numbers in less memory). `None` (the default): not known.
    ///
    /// ```
    /// use kgroups::{CsrKernel, DenseKernel, Kernel};
    /// let path = CsrKernel::new(&[0usize, 1, 3, 4], &[1usize, 0, 2, 1], &[1.0; 4], 3)?;
    /// assert_eq!(path.integer_entries_row_bound(), Some(2.0));
    /// let halves = CsrKernel::new(&[0usize, 1, 2], &[1usize, 0], &[0.5; 2], 2)?;
    /// assert_eq!(halves.integer_entries_row_bound(), None);
    /// assert_eq!(DenseKernel::new(&[1.0], 1)?.integer_entries_row_bound(), None);
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    fn integer_entries_row_bound(&self) -> Option<f64> {
        None
    }

    /// Row `i` written into `out` (`out.len() == n`).
    fn row_into(&self, i: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        self.for_each_in_row(i, |y, v| out[y] = v);
    }

    /// `out[j] = G[i, start + j]` for `start + out.len() <= n` (panics otherwise, as slice
    /// indexing does): a run of row `i`, the same values as [`Kernel::row_into`] writes there.
    ///
    /// ```
    /// use kgroups::{DenseKernel, Kernel};
    /// let kernel = DenseKernel::new(&[2.0, 1.0, 0.5, 1.0, 3.0, 0.0, 0.5, 0.0, 1.0], 3)?;
    /// let mut run = [0.0; 2];
    /// kernel.row_run(1, 1, &mut run);
    /// assert_eq!(run, [3.0, 0.0]);
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    fn row_run(&self, i: usize, start: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        let end = start + out.len();
        self.for_each_in_row(i, |y, v| {
            if (start..end).contains(&y) {
                out[y - start] = v;
            }
        });
    }

    /// Whether a Hartigan sweep batches this kernel's moves: the updates of the cluster sums
    /// wait, a batch of moves is applied in one pass over the points, and a point's own sums
    /// are brought up to date (from single entries, [`Kernel::row_run`]) before it is
    /// evaluated. Worth it where rows are computed, not read: a batch computes its rows
    /// reading the data once instead of once per move. Every sum receives the same updates
    /// in the same order either way, so the results are the same. A kernel that batches
    /// should also implement [`Kernel::row_run`] (the default reads the whole row).
    ///
    /// ```
    /// use kgroups::{DenseKernel, Kernel};
    /// assert!(!DenseKernel::new(&[1.0], 1)?.batches_moves());
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    fn batches_moves(&self) -> bool {
        false
    }

    /// `out[y] += scale * G[i, y]` for every `y` (`out.len() == n`).
    fn add_scaled_row(&self, i: usize, scale: f64, out: &mut [f64]) {
        self.for_each_in_row(i, |y, v| out[y] += scale * v);
    }

    /// Apply one move of point `i` (weight `weight`) between two rows of the cluster-sum
    /// matrix: `leaving[y] -= weight * G[i, y]` and `joining[y] += weight * G[i, y]`.
    fn move_point(&self, i: usize, weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
        self.for_each_in_row(i, |y, v| {
            let delta = weight * v;
            leaving[y] -= delta;
            joining[y] += delta;
        });
    }

    /// The part of [`Kernel::move_point`] for the columns `start .. start + leaving.len()`:
    /// `leaving[t] -= weight * G[i, start + t]` and `joining[t] += weight * G[i, start + t]`,
    /// the same operations on those entries, so a move can be split between threads
    /// ([`Kernel::splits_moves`]).
    ///
    /// ```
    /// use kgroups::{DenseKernel, Kernel};
    /// let g = [2.0, 1.0, 0.5, 1.0, 2.0, 0.25, 0.5, 0.25, 2.0];
    /// let kernel = DenseKernel::new(&g, 3)?;
    /// let (mut leaving, mut joining) = ([0.0; 2], [0.0; 2]);
    /// kernel.move_point_part(0, 1, 2.0, &mut leaving, &mut joining); // columns 1 and 2
    /// assert_eq!((leaving, joining), ([-2.0, -1.0], [2.0, 1.0]));
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    fn move_point_part(
        &self,
        i: usize,
        start: usize,
        weight: f64,
        leaving: &mut [f64],
        joining: &mut [f64],
    ) {
        // Both runs' common length: no index past either (nor an overflowing end).
        let columns = start..start.saturating_add(leaving.len().min(joining.len()));
        self.for_each_in_row(i, |y, v| {
            if columns.contains(&y) {
                let delta = weight * v;
                leaving[y - start] -= delta;
                joining[y - start] += delta;
            }
        });
    }

    /// Whether a single search should split each move's row between two threads
    /// ([`Kernel::move_point_part`]): for dense rows long enough that a second core reading
    /// half of the row from memory beats handing it the work. `false` by default.
    ///
    /// ```
    /// use kgroups::{CsrKernel, Kernel};
    /// let kernel = CsrKernel::new(&[0usize, 1], &[0usize], &[1.0], 1)?;
    /// assert!(!kernel.splits_moves());
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    fn splits_moves(&self) -> bool {
        false
    }

    /// How a fit stores the per-point cluster sums for this kernel: cluster-major (the
    /// default) when a move updates whole rows of n sums, point-major for sparse rows, where
    /// a move updates the sums of a few scattered points and point-major puts both sums a
    /// point's update touches (the cluster left and the cluster joined) in one cache line or
    /// two adjacent ones, and a point's k sums, read to evaluate it, together.
    ///
    /// ```
    /// use kgroups::{CsrKernel, DenseKernel, Kernel, SumsLayout};
    /// assert_eq!(DenseKernel::new(&[1.0], 1)?.sums_layout(), SumsLayout::ClusterMajor);
    /// let sparse = CsrKernel::new(&[0usize, 1], &[0usize], &[1.0], 1)?;
    /// assert_eq!(sparse.sums_layout(), SumsLayout::PointMajor);
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    fn sums_layout(&self) -> SumsLayout {
        SumsLayout::ClusterMajor
    }

    /// Apply one move of point `i` (weight `weight`) from cluster `from` to cluster `to` to
    /// the point-major cluster sums (`sums[y * k + l]`, see [`Kernel::sums_layout`]):
    /// `sums[y * k + from] -= weight * G[i, y]` and `sums[y * k + to] += weight * G[i, y]`,
    /// the same operations in the same order as [`Kernel::move_point`] on the cluster-major
    /// rows, so both layouts hold the same numbers.
    fn move_point_point_major(
        &self,
        i: usize,
        weight: f64,
        sums: &mut [f64],
        k: usize,
        from: usize,
        to: usize,
    ) {
        self.for_each_in_row(i, |y, v| {
            let delta = weight * v;
            let point = &mut sums[y * k..(y + 1) * k];
            point[from] -= delta;
            point[to] += delta;
        });
    }

    /// Whether part of the kernel's validation was left to the first pass of a fit (see
    /// [`DenseKernel::with_deferred_check`]); the fit then builds its first cluster sums with
    /// [`Kernel::cluster_sums_and_check`], or runs [`Kernel::check_deferred`] first.
    fn has_deferred_check(&self) -> bool {
        false
    }

    /// The validation left to the first pass, on its own. Errors as the kernel's eager
    /// constructor would have.
    fn check_deferred(&self, _control: &Control) -> Result<()> {
        Ok(())
    }

    /// [`Kernel::cluster_sums`] together with [`Kernel::check_deferred`], in one pass over the
    /// kernel where the kernel can fuse them.
    fn cluster_sums_and_check(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        self.check_deferred(control)?;
        self.cluster_sums(labels, weights, k, control)
    }

    /// The per-point cluster sums, cluster-major: `sums[l * n + y] = Σ_{i ∈ C_l} w_i G[y, i]`.
    ///
    /// One pass over the kernel, parallel over rows. The result is the same for any number
    /// of threads: each row's sums are computed by one thread in a fixed order. Stops with
    /// [`crate::KGroupsError::Interrupted`] when `control` is cancelled; errors when `labels`
    /// or `weights` do not have length n, a label is not below `k`, or the n × k sums cannot
    /// be allocated.
    fn cluster_sums(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        let point_major = self.cluster_sums_point_major(labels, weights, k, control)?;
        Ok(transpose_to_cluster_major(&point_major, self.n(), k))
    }

    /// The same sums as [`Kernel::cluster_sums`] (the same numbers), point-major:
    /// `sums[y * k + l]`, the layout of [`SumsLayout::PointMajor`]. Errors as
    /// [`Kernel::cluster_sums`] does.
    ///
    /// ```
    /// use kgroups::{Control, CsrKernel, Kernel};
    /// // The path 0 — 1 — 2 with unit weights, labels [0, 0, 1].
    /// let kernel = CsrKernel::new(&[0usize, 1, 3, 4], &[1usize, 0, 2, 1], &[1.0; 4], 3)?;
    /// let sums = kernel.cluster_sums_point_major(&[0, 0, 1], &[1.0; 3], 2, &Control::new())?;
    /// // Point 0 sees 1 (cluster 0); point 1 sees 0 and 2 (clusters 0, 1); point 2 sees 1.
    /// assert_eq!(sums, vec![1.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    fn cluster_sums_point_major(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        let n = self.n();
        check_cluster_sums_args(n, labels, weights, k)?;
        let mut point_major = try_filled_huge_pages(n * k, 0.0, "k", "the n × k cluster sums")?;
        // The labels and weights are read at random (row y visits its neighbours' entries):
        // labels in one or two bytes stay in cache where 8 bytes would not, and unit weights
        // (graphs, unweighted data) need no reading (`1.0 * v` is exactly `v`).
        let unit_weights = weights.iter().all(|&w| w == 1.0);
        macro_rules! accumulate {
            ($labels:expr) => {
                accumulate_point_major(
                    self,
                    $labels,
                    weights,
                    unit_weights,
                    &mut point_major,
                    control,
                )?
            };
        }
        if k <= 1 << 8 {
            accumulate!(&compact_labels::<u8>(labels)?);
        } else if k <= 1 << 16 {
            accumulate!(&compact_labels::<u16>(labels)?);
        } else {
            accumulate!(labels);
        }
        Ok(point_major)
    }
}

/// A cluster label in as few bytes as the number of clusters allows.
trait CompactLabel: Copy + Send + Sync {
    /// `label`, which the caller has checked fits.
    fn narrow(label: usize) -> Self;
    fn get(self) -> usize;
}

macro_rules! compact_label {
    ($($t:ty),*) => {$(
        impl CompactLabel for $t {
            #[inline(always)]
            fn narrow(label: usize) -> Self {
                label as $t
            }
            #[inline(always)]
            fn get(self) -> usize {
                self as usize
            }
        }
    )*};
}

compact_label!(u8, u16, usize);

/// `labels` as `L`, every label below `L`'s range (checked by the caller through k).
fn compact_labels<L: CompactLabel>(labels: &[usize]) -> Result<Vec<L>> {
    let mut compact = try_filled_uninit(labels.len(), "labels", "the compact labels")?;
    compact.extend(labels.iter().map(|&l| L::narrow(l)));
    Ok(compact)
}

/// The point-major cluster sums into `point_major` (zeros, n × k): row `y` accumulates
/// `weights[i] * G[y, i]` into the sum of `labels[i]`, in the order of the row, one thread
/// per row (so the numbers do not depend on the number of threads).
fn accumulate_point_major<K: Kernel + ?Sized, L: CompactLabel>(
    kernel: &K,
    labels: &[L],
    weights: &[f64],
    unit_weights: bool,
    point_major: &mut [f64],
    control: &Control,
) -> Result<()> {
    let k = point_major.len() / kernel.n().max(1);
    point_major
        .par_chunks_mut(k.max(1))
        .enumerate()
        .try_for_each(|(y, sums)| {
            control.checkpoint()?;
            if unit_weights {
                kernel.for_each_in_row(y, |i, v| sums[labels[i].get()] += v);
            } else {
                kernel.for_each_in_row(y, |i, v| sums[labels[i].get()] += weights[i] * v);
            }
            Ok(())
        })
}

/// How the per-point cluster sums `m_l(y) = Σ_{i ∈ C_l} w_i G[y, i]` are laid out in memory
/// ([`Kernel::sums_layout`]).
///
/// ```
/// use kgroups::{DenseKernel, Kernel, SumsLayout};
/// let kernel = DenseKernel::new(&[2.0, 1.0, 1.0, 3.0], 2)?;
/// assert_eq!(kernel.sums_layout(), SumsLayout::ClusterMajor);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SumsLayout {
    /// k rows of n: `sums[l * n + y]`; a move updates two contiguous rows.
    ClusterMajor,
    /// n rows of k: `sums[y * k + l]`; a move updates two entries of each neighbour's row.
    PointMajor,
}

/// The arguments of [`Kernel::cluster_sums`]: `labels` and `weights` of length `n`, every
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

pub mod csr;
mod dense;
pub(crate) mod lowrank;
pub(crate) mod matrix_free;
pub(crate) mod tile_sums;

pub use csr::{CsrIndex, CsrKernel};
pub use dense::DenseKernel;
pub use lowrank::{select_landmarks, FeatureKernel, LandmarkMethod};
pub use matrix_free::DataKernel;
