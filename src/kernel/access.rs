//! The crate's side of a kernel: how a fit stores its cluster sums and applies its moves
//! for each kind, chosen here and nowhere else.
//!
//! [`KernelAccess`] extends the public [`Kernel`] with the storage and move strategies; each
//! method has a default written with [`Kernel::for_each_in_row`], so a kernel that keeps
//! every default behaves as a user's kernel does. The four built-in kinds override what
//! their storage does faster. A public entry point (`fit`, `cluster_sums`,
//! `spectral::top_eigenpairs`) takes `K: Kernel` and calls [`Kernel::dispatch`] once with a
//! [`Visit`]or: a built-in kind visits itself, any other kernel visits through [`Custom`],
//! which keeps every default. Below that point everything is monomorphised for the kind.
//!
//! The traits and the adapter are `pub` inside this private module so that they can appear
//! in the (hidden) signature of [`Kernel::dispatch`]; no caller outside the crate can name
//! them, so a user's kernel cannot override the hook.

use super::{check_cluster_sums_args, transpose_to_cluster_major, Kernel};
use crate::control::Control;
use crate::error::{try_filled_huge_pages, try_filled_uninit, Result};
use rayon::prelude::*;

/// What a public entry point does with the kernel once its kind is known: `visit` runs
/// monomorphised for that kind.
pub trait Visit {
    /// What the visit returns.
    type Output;
    /// Run on `kernel`, a built-in kind or a user's kernel behind [`Custom`].
    fn visit<K: KernelAccess>(self, kernel: &K) -> Self::Output;
}

/// A user's kernel seen by the crate: its four public methods, every strategy the default.
pub struct Custom<'a, K: ?Sized>(pub &'a K);

impl<K: Kernel + ?Sized> Kernel for Custom<'_, K> {
    #[inline]
    fn n(&self) -> usize {
        self.0.n()
    }
    #[inline]
    fn diagonal(&self, i: usize) -> f64 {
        self.0.diagonal(i)
    }
    #[inline]
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, visit: F) {
        self.0.for_each_in_row(i, visit)
    }
    #[inline]
    fn row_into(&self, i: usize, out: &mut [f64]) {
        self.0.row_into(i, out)
    }
    fn dispatch<V: Visit>(&self, visit: V) -> V::Output {
        visit.visit(self)
    }
}

impl<K: Kernel + ?Sized> KernelAccess for Custom<'_, K> {}

/// A kernel as the clustering internals read it: the public [`Kernel`] and how a fit stores
/// its cluster sums and applies its moves. Implemented by the four built-in kinds and by
/// [`Custom`] (every default).
pub trait KernelAccess: Kernel {
    /// For a low-rank kernel `G = Φ Φᵀ`: the features Φ (n × m, row-major) and m. The
    /// algorithms then keep per-cluster feature sums instead of the k × n matrix of sums.
    fn features(&self) -> Option<(&[f64], usize)> {
        None
    }

    /// `out[j] = G[i, start + j]` for `start + out.len() <= n` (panics otherwise, as slice
    /// indexing does): a run of row `i`, the same values as [`Kernel::row_into`] writes there.
    fn row_run(&self, i: usize, start: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        let end = start + out.len();
        self.for_each_in_row(i, |y, v| {
            if (start..end).contains(&y) {
                out[y - start] = v;
            }
        });
    }

    /// Row `i` as stored f64 values, where the kernel stores them (a dense f64 matrix):
    /// read in place instead of copied by [`KernelAccess::row_run`].
    fn stored_row(&self, _i: usize) -> Option<&[f64]> {
        None
    }

    /// How many moves a Hartigan sweep batches for this kernel (at most 255), or `None` when
    /// each move updates the sums at once. Batched, the updates of the cluster sums wait, a
    /// batch of moves is applied in one pass over the points, in parallel over chunks of
    /// points, and a point's own sums are brought up to date (from single entries,
    /// [`KernelAccess::row_run`]) before it is evaluated. Every sum receives the same updates
    /// in the same order either way, so the results are the same. A kernel that batches
    /// should also implement [`KernelAccess::row_run`] (the default reads the whole row).
    fn move_batch(&self) -> Option<usize> {
        None
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

    /// How a fit stores the per-point cluster sums for this kernel: cluster-major (the
    /// default) when a move updates whole rows of n sums, point-major for sparse rows, where
    /// a move updates the sums of a few scattered points and point-major puts both sums a
    /// point's update touches (the cluster left and the cluster joined) in one cache line or
    /// two adjacent ones, and a point's k sums, read to evaluate it, together.
    fn sums_layout(&self) -> SumsLayout {
        SumsLayout::ClusterMajor
    }

    /// Apply one move of point `i` (weight `weight`) from cluster `from` to cluster `to` to
    /// the point-major cluster sums (`sums[y * k + l]`, see [`KernelAccess::sums_layout`]):
    /// `sums[y * k + from] -= weight * G[i, y]` and `sums[y * k + to] += weight * G[i, y]`,
    /// the same operations in the same order as [`KernelAccess::move_point`] on the cluster-major
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
    /// [`DenseKernel::with_deferred_check`](crate::DenseKernel::with_deferred_check)); the fit then builds its first cluster sums with
    /// [`KernelAccess::cluster_sums_and_check`], or runs [`KernelAccess::check_deferred`] first.
    fn has_deferred_check(&self) -> bool {
        false
    }

    /// The validation left to the first pass, on its own. Errors as the kernel's eager
    /// constructor would have.
    fn check_deferred(&self, _control: &Control) -> Result<()> {
        Ok(())
    }

    /// [`KernelAccess::cluster_sums`] together with [`KernelAccess::check_deferred`], in one pass over the
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

    /// The same sums as [`KernelAccess::cluster_sums`] (the same numbers), point-major:
    /// `sums[y * k + l]`, the layout of [`SumsLayout::PointMajor`]. Errors as
    /// [`KernelAccess::cluster_sums`] does.
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
fn accumulate_point_major<K: KernelAccess + ?Sized, L: CompactLabel>(
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
/// ([`KernelAccess::sums_layout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SumsLayout {
    /// k rows of n: `sums[l * n + y]`; a move updates two contiguous rows.
    ClusterMajor,
    /// n rows of k: `sums[y * k + l]`; a move updates two entries of each neighbour's row.
    PointMajor,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CsrKernel, DenseKernel};

    /// The path 0 — 1 — 2, unit entries.
    fn path() -> CsrKernel<'static, usize, f64> {
        CsrKernel::new(&[0, 1, 3, 4], &[1, 0, 2, 1], &[1.0; 4], 3).unwrap()
    }

    #[test]
    fn each_kind_chooses_its_strategies() {
        let dense = DenseKernel::new(&[1.0], 1).unwrap();
        assert_eq!(dense.sums_layout(), SumsLayout::ClusterMajor);
        assert_eq!(dense.move_batch(), Some(8));
        let sparse = path();
        assert_eq!(sparse.sums_layout(), SumsLayout::PointMajor);
    }

    #[test]
    fn a_users_kernel_keeps_every_default() {
        let sparse = path();
        let user = Custom(&sparse);
        assert_eq!(user.sums_layout(), SumsLayout::ClusterMajor);
        assert!(user.move_batch().is_none() && !user.has_deferred_check());
        assert_eq!(user.features(), None);
        // Its rows are the wrapped kernel's.
        let (mut a, mut b) = ([9.0; 3], [9.0; 3]);
        sparse.row_into(1, &mut a);
        user.row_into(1, &mut b);
        assert_eq!(a, b);
    }

    #[test]
    fn the_defaults_read_runs_and_parts_of_rows() {
        let g = [2.0, 1.0, 0.5, 1.0, 3.0, 0.0, 0.5, 0.0, 1.0];
        let dense = DenseKernel::new(&g, 3).unwrap();
        for run in [
            {
                let mut out = [0.0; 2];
                dense.row_run(1, 1, &mut out);
                out
            },
            {
                let mut out = [7.0; 2];
                Custom(&dense).row_run(1, 1, &mut out);
                out
            },
        ] {
            assert_eq!(run, [3.0, 0.0]);
        }
    }

    #[test]
    fn point_major_sums_are_the_cluster_major_sums_transposed() {
        let sparse = path();
        let control = Control::new();
        let point = sparse
            .cluster_sums_point_major(&[0, 0, 1], &[1.0; 3], 2, &control)
            .unwrap();
        // Point 0 sees 1 (cluster 0); point 1 sees 0 and 2 (clusters 0, 1); point 2 sees 1.
        assert_eq!(point, vec![1.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
        let cluster = sparse
            .cluster_sums(&[0, 0, 1], &[1.0; 3], 2, &control)
            .unwrap();
        assert_eq!(cluster, transpose_to_cluster_major(&point, 3, 2));
    }
}
