//! Sparse symmetric kernels in CSR form (graph adjacencies, k-nearest-neighbour affinities).
//!
//! Missing entries are zeros, the diagonal may be absent. Evaluating a point stays O(k); a
//! move touches only the non-zeros of its row, so a Hartigan sweep costs O(n·k + moves·deg)
//! and building the cluster sums one pass over the non-zeros: O(k·nnz) overall at worst.
//!
//! [`reorder`] renumbers a CSR kernel for cache-friendly sweeps (the clustering then runs on
//! the renumbered copy and the labels are mapped back).

pub mod reorder;

use crate::error::{KGroupsError, Result};
use crate::kernel::{Kernel, KernelAccess, KernelElement, SumsLayout, Visit};
use crate::validate::{
    self,
    symmetry::{asymmetry_error, pair_is_symmetric},
};
use rayon::prelude::*;
use std::borrow::Cow;

/// Index type of a CSR matrix: `i32`, `i64` (scipy's choices) or `usize`.
pub trait CsrIndex: Copy + Send + Sync + 'static {
    /// The index as `usize`; negative values map to `usize::MAX` (rejected by validation).
    fn index(self) -> usize;
    /// `value` as this index type, or `None` when it does not fit.
    fn from_index(value: usize) -> Option<Self>;
}

/// `CsrIndex` for the signed index types scipy uses.
macro_rules! signed_csr_index {
    ($($t:ty),*) => {$(
        impl CsrIndex for $t {
            #[inline(always)]
            fn index(self) -> usize {
                usize::try_from(self).unwrap_or(usize::MAX)
            }
            #[inline(always)]
            fn from_index(value: usize) -> Option<Self> {
                Self::try_from(value).ok()
            }
        }
    )*};
}

signed_csr_index!(i32, i64);

impl CsrIndex for usize {
    #[inline(always)]
    fn index(self) -> usize {
        self
    }
    #[inline(always)]
    fn from_index(value: usize) -> Option<Self> {
        Some(value)
    }
}

/// A borrowed symmetric `n × n` CSR matrix with sorted, unique column indices per row.
///
/// ```
/// use kgroups::{CsrKernel, Kernel};
/// // The path graph 0 — 1 — 2 (no diagonal stored).
/// let indptr = [0usize, 1, 3, 4];
/// let indices = [1usize, 0, 2, 1];
/// let data = [1.0, 1.0, 1.0, 1.0];
/// let kernel = CsrKernel::new(&indptr, &indices, &data, 3)?;
/// assert_eq!(kernel.diagonal(1), 0.0);
/// let mut row = vec![];
/// kernel.for_each_in_row(1, |y, v| row.push((y, v)));
/// assert_eq!(row, vec![(0, 1.0), (2, 1.0)]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct CsrKernel<'a, I: CsrIndex, T: KernelElement> {
    indptr: &'a [I],
    indices: &'a [I],
    data: &'a [T],
    n: usize,
    /// Owned when built by [`CsrKernel::new`]; borrowed from a [`reorder::PermutedCsr`].
    diagonal: Cow<'a, [f64]>,
}

impl<'a, I: CsrIndex, T: KernelElement> CsrKernel<'a, I, T> {
    /// Borrow a CSR matrix after checking its structure (row pointers non-decreasing from 0 to
    /// nnz, column indices in range, sorted and unique within each row), that every stored
    /// value is finite, and that it is symmetric in structure and values (relative tolerance
    /// 1e-9 for f64, 1e-5 for f32; a missing mirror entry counts as 0).
    pub fn new(indptr: &'a [I], indices: &'a [I], data: &'a [T], n: usize) -> Result<Self> {
        validate::csr_structure(indptr, indices, data.len(), n, "G")?;
        let kernel = CsrKernel {
            indptr,
            indices,
            data,
            n,
            diagonal: Cow::Borrowed(&[]),
        };
        kernel.check_values_and_symmetry()?;
        let diagonal: Vec<f64> = (0..n).into_par_iter().map(|i| kernel.entry(i, i)).collect();
        Ok(CsrKernel {
            diagonal: Cow::Owned(diagonal),
            ..kernel
        })
    }

    /// A kernel over arrays that are valid and symmetric by construction (a permuted copy of
    /// a validated kernel), with its diagonal: nothing is checked again.
    pub(crate) fn from_trusted_parts(
        indptr: &'a [I],
        indices: &'a [I],
        data: &'a [T],
        n: usize,
        diagonal: &'a [f64],
    ) -> Self {
        CsrKernel {
            indptr,
            indices,
            data,
            n,
            diagonal: Cow::Borrowed(diagonal),
        }
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.data.len()
    }

    #[inline]
    fn row_range(&self, i: usize) -> std::ops::Range<usize> {
        // Clamped, although the structure was validated: the arrays are borrowed, and a
        // caller who modifies them while a call runs must get meaningless numbers, not a panic.
        let nnz = self.indices.len().min(self.data.len());
        let start = self.indptr[i].index().min(nnz);
        start..self.indptr[i + 1].index().clamp(start, nnz)
    }

    /// `G[i, j]` by binary search in row `i` (0 when not stored).
    pub fn entry(&self, i: usize, j: usize) -> f64 {
        let range = self.row_range(i);
        let columns = &self.indices[range.clone()];
        match columns.binary_search_by(|c| c.index().cmp(&j)) {
            Ok(position) => self.data[range.start + position].widen(),
            Err(_) => 0.0,
        }
    }

    /// Every stored value finite, and every pair judged by the rule, naming the first
    /// offending entry. The verdict comes from [`CsrKernel::mirrors_pass`] (one pass over the
    /// stored entries); only a matrix it cannot pass is searched entry by entry, in row order,
    /// for the first offending entry (or passed, where every pair is within the rule after
    /// all, e.g. a stored zero whose mirror is not stored).
    fn check_values_and_symmetry(&self) -> Result<()> {
        let tolerance = T::SYMMETRY_TOLERANCE;
        let roots: Vec<f64> = (0..self.n)
            .into_par_iter()
            .map(|i| self.entry(i, i).abs().sqrt())
            .collect();
        if self.mirrors_pass(&roots, tolerance)? {
            return Ok(());
        }
        let problem = (0..self.n)
            .into_par_iter()
            .map(|i| {
                for position in self.row_range(i) {
                    let j = self.indices[position].index();
                    let value = self.data[position].widen();
                    if !value.is_finite() {
                        return Some((i, j, value, f64::NAN, true));
                    }
                    // Pairs with both entries stored are judged once, from the upper one; a
                    // lower entry whose mirror is missing (0) is judged from the lower side.
                    let mirror = self.entry(j, i);
                    let judged_here = j > i || (j < i && mirror == 0.0);
                    if judged_here
                        && !pair_is_symmetric(value, mirror, roots[i], roots[j], tolerance)
                    {
                        return Some((i, j, value, mirror, false));
                    }
                }
                None
            })
            .find_first(|p| p.is_some())
            .flatten();
        match problem {
            None => Ok(()),
            Some((i, j, _, _, true)) => Err(KGroupsError::invalid(
                "G",
                format!("the sparse matrix stores NaN or infinity at ({i}, {j}); all values must be finite"),
            )),
            Some((i, j, value, mirror, false)) => Err(asymmetry_error(
                "G",
                i,
                j,
                value,
                mirror,
                tolerance,
                "(A + A.T) / 2",
            )),
        }
    }
}

impl<I: CsrIndex, T: KernelElement> CsrKernel<'_, I, T> {
    /// Whether every stored value is finite and every pair passes the rule, found in one
    /// pass over the stored entries (O(nnz), where a search for each mirror costs
    /// O(nnz · log deg) in scattered reads). `false` is not a verdict: the caller then judges
    /// entry by entry.
    ///
    /// The rows are split into blocks by their stored entries, one block a task. A block
    /// visits its rows `i` in increasing order, and the upper entries `(i, j)`, `j > i`, of
    /// each: if the matrix is symmetric, their mirrors `(j, i)` appear in row `j` in
    /// increasing column order, so a cursor per row `j` (started at the first column of the
    /// block's range) finds each at the next stored position, or passes lower entries
    /// `(j, c)` whose mirror `(c, j)` is not stored (judged against 0). An upper entry with
    /// no stored mirror is judged against 0. Every lower entry is then either a matched
    /// mirror or judged; the counts of both, summed over the blocks, must equal the number
    /// of lower entries (counted from the diagonal's position in each row), else a lower
    /// entry was never reached (an unmatched one beyond the block's last upper entry).
    fn mirrors_pass(&self, roots: &[f64], tolerance: f64) -> Result<bool> {
        let n = self.n;
        if n == 0 {
            return Ok(true);
        }
        let lower_entries: usize = (0..n)
            .into_par_iter()
            .map(|i| self.first_at_or_after(i, i) - self.row_range(i).start)
            .sum();
        let blocks = self.row_blocks(rayon::current_num_threads().max(1));
        let per_block: Vec<Option<usize>> = blocks
            .par_windows(2)
            .map(|w| self.mirrors_in_block(w[0]..w[1], roots, tolerance))
            .collect::<Result<_>>()?;
        let mut reached = 0usize;
        for block in per_block {
            match block {
                Some(count) => reached += count,
                None => return Ok(false),
            }
        }
        Ok(reached == lower_entries)
    }

    /// The first position in row `i` whose column is at least `column`.
    #[inline]
    fn first_at_or_after(&self, i: usize, column: usize) -> usize {
        let range = self.row_range(i);
        range.start + self.indices[range].partition_point(|c| c.index() < column)
    }

    /// Row boundaries `0 = b_0 < … = n` splitting the stored entries into about `parts`
    /// blocks of equal size.
    fn row_blocks(&self, parts: usize) -> Vec<usize> {
        let (n, nnz) = (self.n, self.row_range(self.n - 1).end);
        let mut bounds = vec![0];
        for part in 1..parts {
            let target = nnz / parts * part;
            let row = self.indptr[..=n].partition_point(|p| p.index() < target);
            if row > *bounds.last().unwrap_or(&0) && row < n {
                bounds.push(row);
            }
        }
        bounds.push(n);
        bounds
    }

    /// [`CsrKernel::mirrors_pass`] on the rows `block`: the number of lower entries with a
    /// column in `block` that were matched or judged, or `None` when a value is not finite
    /// or a pair fails the rule.
    fn mirrors_in_block(
        &self,
        block: std::ops::Range<usize>,
        roots: &[f64],
        tolerance: f64,
    ) -> Result<Option<usize>> {
        let first = block.start;
        // cursors[j - first]: row j's next stored position with a column in the block, and
        // the end of row j (one cache line for both), set in one sequential pass.
        let mut cursors: Vec<(usize, usize)> =
            crate::error::try_filled(self.n - first, (0, 0), "G", "the symmetry check's cursors")?;
        cursors
            .iter_mut()
            .zip(first..self.n)
            .for_each(|(cursor, j)| {
                *cursor = (self.first_at_or_after(j, first), self.row_range(j).end)
            });
        let mut reached = 0usize;
        for i in block {
            for position in self.row_range(i) {
                let j = self.indices[position].index();
                let value = self.data[position].widen();
                if !value.is_finite() {
                    return Ok(None);
                }
                if j <= i || j >= self.n {
                    continue;
                }
                let (cursor, end) = &mut cursors[j - first];
                // Lower entries of row j before column i have no stored mirror.
                while *cursor < *end && self.indices[*cursor].index() < i {
                    let orphan = self.data[*cursor].widen();
                    let c = self.indices[*cursor].index();
                    if !pair_is_symmetric(orphan, 0.0, roots[j], roots[c], tolerance) {
                        return Ok(None);
                    }
                    *cursor += 1;
                    reached += 1;
                }
                let mirror = if *cursor < *end && self.indices[*cursor].index() == i {
                    let mirror = self.data[*cursor].widen();
                    *cursor += 1;
                    reached += 1;
                    mirror
                } else {
                    0.0
                };
                if value.to_bits() != mirror.to_bits()
                    && !pair_is_symmetric(value, mirror, roots[i], roots[j], tolerance)
                {
                    return Ok(None);
                }
            }
        }
        Ok(Some(reached))
    }
}

impl<I: CsrIndex, T: KernelElement> Kernel for CsrKernel<'_, I, T> {
    #[inline]
    fn n(&self) -> usize {
        self.n
    }

    #[inline]
    fn diagonal(&self, i: usize) -> f64 {
        self.diagonal[i]
    }

    #[inline]
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut visit: F) {
        let range = self.row_range(i);
        for (c, v) in self.indices[range.clone()].iter().zip(&self.data[range]) {
            // Always true for the validated structure (see `row_range`).
            if c.index() < self.n {
                visit(c.index(), v.widen());
            }
        }
    }

    fn dispatch<V: Visit>(&self, visit: V) -> V::Output {
        visit.visit(self)
    }
}

impl<I: CsrIndex, T: KernelElement> KernelAccess for CsrKernel<'_, I, T> {
    /// Point-major: a move touches only the sums of the moved point's neighbours.
    fn sums_layout(&self) -> SumsLayout {
        SumsLayout::PointMajor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_malformed_csr() {
        let data = [1.0, 1.0];
        // Unsorted columns in row 0.
        assert!(CsrKernel::new(&[0usize, 2, 2], &[1usize, 0], &data, 2).is_err());
        // Column out of range.
        assert!(CsrKernel::new(&[0usize, 1, 2], &[5usize, 0], &data, 2).is_err());
        // Wrong indptr length.
        assert!(CsrKernel::new(&[0usize, 2], &[1usize, 0], &data, 2).is_err());
        // Negative index (i32).
        assert!(CsrKernel::new(&[0i32, 1, 2], &[-1i32, 0], &data, 2).is_err());
        // Asymmetric: (0, 1) stored, (1, 0) missing.
        assert!(CsrKernel::new(&[0usize, 1, 1], &[1usize], &[1.0], 2).is_err());
        // Asymmetric values.
        assert!(CsrKernel::new(&[0usize, 1, 2], &[1usize, 0], &[1.0, 2.0], 2).is_err());
        // NaN.
        assert!(CsrKernel::new(&[0usize, 1, 2], &[1usize, 0], &[f64::NAN, f64::NAN], 2).is_err());
        assert!(CsrKernel::new(&[0usize, 1, 2], &[1usize, 0], &data, 2).is_ok());
    }

    #[test]
    fn dense_and_sparse_kernels_agree() {
        use crate::{fit, Control, DenseKernel, Options};
        let n = 30;
        let mut dense = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..=a {
                if (a * 7 + b * 3) % 4 == 0 || a == b {
                    let v = 1.0 + ((a + b) % 5) as f64;
                    dense[a * n + b] = v;
                    dense[b * n + a] = v;
                }
            }
        }
        let (indptr, indices, data) = crate::test_support::dense_to_csr(&dense, n);
        let sparse = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
        let dense_kernel = DenseKernel::new(&dense, n).unwrap();
        let options = Options {
            init: crate::Init::Random,
            n_init: 3,
            seed: 11,
            ..Options::default()
        };
        let a = fit(&sparse, 3, &options, &Control::new()).unwrap();
        let b = fit(&dense_kernel, 3, &options, &Control::new()).unwrap();
        assert_eq!(a.labels, b.labels);
        assert!((a.objective - b.objective).abs() <= 1e-12 * b.objective.abs());
    }

    /// The check judges every pair: the bitwise-symmetric matrices pass, so do asymmetries
    /// within the tolerance; values traded between pairs and one-sided entries fail.
    #[test]
    fn every_pair_is_judged() {
        let check = |dense: &[f64], n: usize| {
            let (indptr, indices, data) = crate::test_support::dense_to_csr(dense, n);
            CsrKernel::new(&indptr, &indices, &data, n).map(|_| ())
        };
        let n = 5;
        let mut g = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..=a {
                let v = 1.0 + (a * 3 + b) as f64 / 7.0;
                g[a * n + b] = v;
                g[b * n + a] = v;
            }
        }
        assert!(check(&g, n).is_ok());
        // The diagonal alone never breaks symmetry.
        let mut diagonal = g.clone();
        diagonal[2 * n + 2] = 9.5;
        assert!(check(&diagonal, n).is_ok());
        // One bit off (within the tolerance).
        let mut nudged = g.clone();
        nudged[n + 3] = f64::from_bits(g[n + 3].to_bits() + 1);
        assert!(check(&nudged, n).is_ok());
        // Pairs (0, 1) and (2, 3) trade their upper values: the same multiset of values in
        // each triangle, not the same pairs.
        let mut traded = g.clone();
        traded[1] = g[2 * n + 3];
        traded[2 * n + 3] = g[1];
        assert!(check(&traded, n).is_err());
        // An upper entry whose mirror is not stored.
        let mut one_sided = g.clone();
        one_sided[4 * n] = 0.0;
        assert!(check(&one_sided, n).is_err());
    }

    /// The one-pass verdict against the rule applied to every pair of the dense matrix:
    /// random patterns with one-sided entries, stored zeros, nudged and traded values. The
    /// pass never passes a matrix the rule refuses, and passes every exactly symmetric one.
    #[test]
    fn one_pass_verdict_is_the_rule() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let mut runner = TestRunner::new(Config::with_cases(300));
        let case = (2usize..40, any::<u64>(), 0usize..4, 0usize..6);
        runner
            .run(&case, |(n, seed, defect, threads)| {
                let mut rng = crate::rng::Rng::new(seed);
                let mut g = vec![0.0; n * n];
                for a in 0..n {
                    for b in a..n {
                        if rng.next_f64() < 0.3 || a == b {
                            let v = rng.next_f64() * 4.0 - 1.0;
                            g[a * n + b] = v;
                            g[b * n + a] = v;
                        }
                    }
                }
                let symmetric = g.clone();
                let (a, b) = (rng.below(n).unwrap(), rng.below(n).unwrap());
                match defect {
                    0 => {}
                    1 => g[a * n + b] = 0.0, // a one-sided entry (or none)
                    2 => g[a * n + b] = f64::from_bits(g[a * n + b].to_bits() + 1),
                    _ => g[a * n + b] += 0.5,
                }
                let (indptr, indices, data) = crate::test_support::dense_to_csr(&g, n);
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads + 1)
                    .build()
                    .unwrap();
                let kernel = CsrKernel {
                    indptr: &indptr,
                    indices: &indices,
                    data: &data,
                    n,
                    diagonal: Cow::Borrowed(&[]),
                };
                let roots: Vec<f64> = (0..n).map(|i| g[i * n + i].abs().sqrt()).collect();
                let fast = pool.install(|| kernel.mirrors_pass(&roots, 1e-9)).unwrap();
                let rule = crate::validate::symmetry::check_dense(&g, n, "G").is_ok();
                let checked = pool.install(|| CsrKernel::new(&indptr, &indices, &data, n));
                prop_assert_eq!(checked.is_ok(), rule);
                prop_assert!(!fast || rule, "the one-pass check passed a refused matrix");
                if g == symmetric {
                    prop_assert!(fast, "an exactly symmetric matrix needed the slow search");
                }
                Ok(())
            })
            .unwrap();
    }

    /// A pair `x / −x` at `(a, b)` / `(b, a)` beside pairs whose values would balance
    /// a hash keyed by index sums; every such forgery, both orders of the pair, f64 and f32,
    /// and a one-sided entry, is refused.
    #[test]
    fn forged_asymmetries_are_refused() {
        for (a, b, c, d) in crate::validate::symmetry::forgery_quadruples(40) {
            for swap in [false, true] {
                let g = crate::validate::symmetry::forged(40, (a, b), (c, d), swap);
                let (indptr, indices, data) = crate::test_support::dense_to_csr(&g, 40);
                let err = CsrKernel::new(&indptr, &indices, &data, 40).unwrap_err();
                assert!(err.to_string().contains("not symmetric"), "{err}");
                let data32: Vec<f32> = data.iter().map(|&v| v as f32).collect();
                assert!(CsrKernel::new(&indptr, &indices, &data32, 40).is_err());
            }
        }
        // One stored entry with no mirror, in a matrix otherwise exactly symmetric.
        let n = 40;
        let mut g = crate::validate::symmetry::forged(n, (1, 38), (2, 37), false);
        for (i, j) in [(1, 38), (38, 1), (2, 37), (37, 2)] {
            g[i * n + j] = 0.0;
        }
        g[5 * n + 30] = 1e6;
        g[30 * n + 5] = 0.0;
        let (indptr, indices, data) = crate::test_support::dense_to_csr(&g, n);
        let err = CsrKernel::new(&indptr, &indices, &data, n).unwrap_err();
        assert!(err.to_string().contains("G[5, 30] = 1e6"), "{err}");
    }
}
