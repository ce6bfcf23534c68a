//! Dense kernel matrices: borrowed n × n buffers (f64 or f32), and how a move updates their
//! cluster sums. The pass that builds the sums, reading each pair of entries once and able
//! to check the symmetry rule in the same pass, is in [`sums_pass`].

use crate::control::Control;
use crate::error::Result;
use crate::kernel::{Kernel, KernelAccess, KernelElement, Visit};
use crate::validate::{self, symmetry};
use rayon::prelude::*;

mod sums_pass;
#[cfg(test)]
mod tests;

/// When a dense kernel's symmetry rule (and finiteness) is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Already checked, or the caller vouches for it.
    Done,
    /// In the first pass over the matrix of a fit (see [`DenseKernel::with_deferred_check`]).
    Deferred,
}

/// A dense symmetric `n × n` kernel matrix, borrowed.
///
/// The slice holds the matrix in row-major (C) order; because the matrix is symmetric, a
/// column-major (Fortran) buffer is the same matrix, so both layouts are accepted as they are.
#[derive(Debug, Clone, Copy)]
pub struct DenseKernel<'a, T: KernelElement> {
    data: &'a [T],
    n: usize,
    check: Check,
}

impl<'a, T: KernelElement> DenseKernel<'a, T> {
    /// Borrow `data` (length `n * n`) as a kernel matrix after checking that it is square,
    /// finite and symmetric by the crate's one rule ([`crate::validate::symmetry`]):
    /// `|G_ab − G_ba| ≤ tol · max(|G_ab|, |G_ba|, √|G_aa|·√|G_bb|)`, tol = 1e-9 for f64 and
    /// 1e-5 for f32.
    ///
    /// ```
    /// use kgroups::DenseKernel;
    /// assert!(DenseKernel::new(&[1.0, 0.5, 0.5, 1.0], 2).is_ok());
    /// assert!(DenseKernel::new(&[1.0, 0.5, 0.4, 1.0], 2).is_err()); // not symmetric
    /// assert!(DenseKernel::new(&[1.0, 0.5, 0.5], 2).is_err());      // not n × n
    /// ```
    pub fn new(data: &'a [T], n: usize) -> Result<Self> {
        let kernel = Self::trusting_symmetry(data, n)?;
        symmetry::check_dense(data, n, "G")?;
        Ok(kernel)
    }

    /// Like [`DenseKernel::new`] but without the O(n²) symmetry check, for a matrix the
    /// caller built symmetric (e.g. with [`crate::energy_gram`]); only the shape is checked
    /// here. Non-finite entries are still caught when the cluster sums are built, in the
    /// upper triangle they read (for a symmetric matrix, all of them; a non-finite entry
    /// below the diagonal with a finite mirror makes the matrix asymmetric). If the matrix
    /// is not symmetric the results are meaningless.
    ///
    /// ```
    /// use kgroups::DenseKernel;
    /// assert!(DenseKernel::trusting_symmetry(&[1.0, 0.5, 0.5, 1.0], 2).is_ok());
    /// assert!(DenseKernel::trusting_symmetry(&[1.0, 0.5, 0.5], 2).is_err());
    /// ```
    pub fn trusting_symmetry(data: &'a [T], n: usize) -> Result<Self> {
        validate::non_empty(n, "G")?;
        validate::square(data.len(), n, "G")?;
        Ok(DenseKernel {
            data,
            n,
            check: Check::Done,
        })
    }

    /// Checks the shape now and leaves the symmetry rule and finiteness of
    /// [`DenseKernel::new`] to the fit ([`crate::fit`]). A one-start fit checks them with
    /// the pass that builds its first cluster sums: each tile is compared with its mirror
    /// (bit for bit, then by the rule where the bits differ) in the pass itself, instead of
    /// in a separate check before it. The fit fails with the same error as [`DenseKernel::new`]
    /// (naming the same entry) when the matrix breaks the rule; with several starts it checks
    /// before they begin. Use the kernel only through a fit or [`crate::kernel::cluster_sums`]
    /// (which checks in its pass too): its other methods do not check.
    ///
    /// ```
    /// use kgroups::{fit, Control, DenseKernel, Options};
    /// let ok = [2.0, 1.9, 0.0, 1.9, 2.0, 0.0, 0.0, 0.0, 2.0];
    /// let kernel = DenseKernel::with_deferred_check(&ok, 3)?;
    /// assert!(fit(&kernel, 2, &Options::default(), &Control::new()).is_ok());
    /// let asymmetric = [2.0, 1.9, 0.0, 1.5, 2.0, 0.0, 0.0, 0.0, 2.0];
    /// let kernel = DenseKernel::with_deferred_check(&asymmetric, 3)?; // the shape is fine
    /// let err = fit(&kernel, 2, &Options::default(), &Control::new()).unwrap_err();
    /// assert!(err.to_string().contains("not symmetric"));
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    pub fn with_deferred_check(data: &'a [T], n: usize) -> Result<Self> {
        Ok(DenseKernel {
            check: Check::Deferred,
            ..Self::trusting_symmetry(data, n)?
        })
    }

    /// Row `i` as a slice.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.n..(i + 1) * self.n]
    }
}

/// From this n a dense move's row is updated in parallel chunks by rayon (a row of 512 KiB
/// and more).
const PARALLEL_MOVE_MIN_N: usize = 1 << 16;

/// `leaving[y] -= weight * row[y]`, `joining[y] += weight * row[y]` over `leaving.len()`
/// entries.
#[inline]
fn move_run<T: KernelElement>(row: &[T], weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
    for ((v, l), j) in row.iter().zip(leaving.iter_mut()).zip(joining.iter_mut()) {
        let delta = weight * v.widen();
        *l -= delta;
        *j += delta;
    }
}

impl<T: KernelElement> Kernel for DenseKernel<'_, T> {
    #[inline]
    fn n(&self) -> usize {
        self.n
    }

    #[inline]
    fn diagonal(&self, i: usize) -> f64 {
        self.data[i * self.n + i].widen()
    }

    #[inline]
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut visit: F) {
        for (y, value) in self.row(i).iter().enumerate() {
            visit(y, value.widen());
        }
    }

    fn dispatch<V: Visit>(&self, visit: V) -> V::Output {
        visit.visit(self)
    }
}

impl<T: KernelElement> KernelAccess for DenseKernel<'_, T> {
    /// Batched by eight: a batch's rows are applied in parallel over chunks of points, where
    /// one move's row would be read by one core (one core does not draw all of the memory
    /// bandwidth). A point's catch-up reads each pending row at its column, a cache line for
    /// eight consecutive points: eight pending rows' lines stay in the 12-way L1 cache
    /// whatever the row stride (at a power of two they all fall in one set; 32 were read
    /// from memory at every point, 1.5x slower at n = 16 384).
    fn move_batch(&self) -> Option<usize> {
        Some(8)
    }

    #[inline]
    fn stored_row(&self, i: usize) -> Option<&[f64]> {
        T::as_f64(self.row(i))
    }

    #[inline]
    fn row_run(&self, i: usize, start: usize, out: &mut [f64]) {
        for (o, v) in out.iter_mut().zip(&self.row(i)[start..]) {
            *o = v.widen();
        }
    }

    #[inline]
    fn add_scaled_row(&self, i: usize, scale: f64, out: &mut [f64]) {
        for (o, v) in out.iter_mut().zip(self.row(i)) {
            *o += scale * v.widen();
        }
    }

    fn move_point(&self, i: usize, weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
        let row = self.row(i);
        if self.n >= PARALLEL_MOVE_MIN_N {
            const CHUNK: usize = 1 << 14;
            row.par_chunks(CHUNK)
                .zip(
                    leaving
                        .par_chunks_mut(CHUNK)
                        .zip(joining.par_chunks_mut(CHUNK)),
                )
                .for_each(|(row, (leaving, joining))| move_run(row, weight, leaving, joining));
        } else {
            move_run(row, weight, leaving, joining);
        }
    }

    fn cluster_sums(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        self.sums_pass(labels, weights, k, control, false)
    }

    fn has_deferred_check(&self) -> bool {
        self.check == Check::Deferred
    }

    fn check_deferred(&self, _control: &Control) -> Result<()> {
        if self.check == Check::Deferred {
            symmetry::check_dense(self.data, self.n, "G")?;
        }
        Ok(())
    }

    fn cluster_sums_and_check(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        // Every tile is compared with its mirror in the pass that reads it for the sums.
        let check = self.check == Check::Deferred;
        self.sums_pass(labels, weights, k, control, check)
    }
}
