//! Renumbering a CSR kernel for cache-friendly sweeps.
//!
//! A sweep visits the points in index order, and a move of point `i` updates the cluster sums
//! of every neighbour of `i`. When the points are numbered at random (as the nodes of most
//! graphs read from disk), those updates land anywhere in the k × n sums and the first
//! sweeps, where most points move, wait on memory. Renumbering the points in breadth-first
//! order puts a node's neighbours near it and near each other, so the updates hit cache.
//!
//! The clustering then runs on `P G Pᵀ` ([`PermutedCsr`]) and the labels are mapped back
//! ([`fit`]). The start of each run is drawn on the caller's kernel in the caller's numbering,
//! so it is exactly the start of the run without renumbering; the local search then visits
//! the points in the new order, and since a sweep's moves depend on the order in which points
//! are visited, the local optimum found can differ from the one found without renumbering.
//! The result is a local optimum of the caller's kernel either way, and its objective is
//! the objective of the returned labels on it (up to the order of summation).

use super::{CsrIndex, CsrKernel};
use crate::control::Control;
use crate::error::{try_filled, try_filled_uninit, KGroupsError, Result};
use crate::kernel::{Kernel, KernelElement};
use crate::restarts::{self, CheckedOptions, Clustering, Options};
use rayon::prelude::*;

/// Whether [`fit`] renumbers the kernel before the local search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reorder {
    /// Renumber when it pays: at least [`AUTO_MIN_POINTS`] points.
    #[default]
    Auto,
    /// Always renumber.
    Always,
    /// Never renumber: exactly [`crate::fit`].
    Never,
}

/// The number of points from which [`Reorder::Auto`] renumbers. Below it the k × n cluster
/// sums of the usual k fit in the cache anyway, and renumbering only costs time (measured in
/// `benches/bench_sparse.py`).
pub const AUTO_MIN_POINTS: usize = 200_000;

impl Reorder {
    /// Whether a kernel of `n` points is renumbered.
    ///
    /// ```
    /// use kgroups::sparse::reorder::{Reorder, AUTO_MIN_POINTS};
    /// assert!(!Reorder::Auto.applies(1000));
    /// assert!(Reorder::Auto.applies(AUTO_MIN_POINTS));
    /// assert!(Reorder::Always.applies(1) && !Reorder::Never.applies(10_000_000));
    /// ```
    pub fn applies(self, n: usize) -> bool {
        match self {
            Reorder::Auto => n >= AUTO_MIN_POINTS,
            Reorder::Always => true,
            Reorder::Never => false,
        }
    }
}

/// A permutation of `0..n`: point `i` of the new numbering is point `order()[i]` of the old
/// one, and old point `j` is new point `position()[j]`.
///
/// ```
/// use kgroups::sparse::reorder::Permutation;
/// let p = Permutation::from_order(vec![2, 0, 1])?;
/// assert_eq!(p.position(), &[1, 2, 0]);
/// assert!(Permutation::from_order(vec![0, 0, 1]).is_err());
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permutation {
    order: Vec<usize>,
    position: Vec<usize>,
}

impl Permutation {
    /// The permutation with `order[new] = old`; errors (argument `order`) unless every index
    /// of `0..order.len()` appears exactly once.
    pub fn from_order(order: Vec<usize>) -> Result<Self> {
        let n = order.len();
        let mut position = try_filled(n, usize::MAX, "order", "the inverse permutation")?;
        for (new, &old) in order.iter().enumerate() {
            match position.get_mut(old) {
                Some(slot) if *slot == usize::MAX => *slot = new,
                _ => {
                    return Err(KGroupsError::invalid(
                        "order",
                        format!(
                            "not a permutation of 0..{n}: index {old} at position {new} is out of \
                             range or repeated"
                        ),
                    ))
                }
            }
        }
        Ok(Permutation { order, position })
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether it permutes nothing (n = 0).
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// `order[new] = old`.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// `position[old] = new`, the inverse of [`Permutation::order`].
    pub fn position(&self) -> &[usize] {
        &self.position
    }
}

/// Nodes dequeued between two checks for cancellation.
const CHECK_EVERY_NODES: usize = 1 << 14;

/// Breadth-first order of the graph of `kernel`'s stored entries: from node 0, neighbours in
/// increasing index; when a component is exhausted, from the lowest-numbered node not yet
/// reached (so disconnected graphs and isolated nodes are covered, each component
/// contiguous). Deterministic: it depends on the sparsity pattern only. One pass over the
/// entries; stops with [`KGroupsError::Interrupted`] when `control` is cancelled.
///
/// ```
/// use kgroups::{sparse::reorder::breadth_first_order, Control, CsrKernel};
/// // The path 0 — 2 — 1 and the isolated node 3.
/// let indptr = [0usize, 1, 2, 4, 4];
/// let indices = [2usize, 2, 0, 1];
/// let kernel = CsrKernel::new(&indptr, &indices, &[1.0; 4], 4)?;
/// let p = breadth_first_order(&kernel, &Control::new())?;
/// assert_eq!(p.order(), &[0, 2, 1, 3]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn breadth_first_order<I: CsrIndex, T: KernelElement>(
    kernel: &CsrKernel<'_, I, T>,
    control: &Control,
) -> Result<Permutation> {
    let n = kernel.n();
    let mut reached = try_filled(n, false, "G", "the breadth-first search")?;
    // The queue is the order itself: every node enters it once, so it never reallocates.
    let mut order: Vec<usize> = try_filled_uninit(n, "G", "the breadth-first order")?;
    let mut head = 0;
    for root in 0..n {
        if reached[root] {
            continue;
        }
        reached[root] = true;
        order.push(root);
        while let Some(&node) = order.get(head) {
            if head % CHECK_EVERY_NODES == 0 {
                control.checkpoint()?;
            }
            head += 1;
            for &column in &kernel.indices[kernel.row_range(node)] {
                let column = column.index();
                if let Some(seen) = reached.get_mut(column) {
                    if !*seen {
                        *seen = true;
                        order.push(column);
                    }
                }
            }
        }
    }
    Permutation::from_order(order)
}

/// `P G Pᵀ` for a permutation `P` of a CSR kernel, owned: row `i` is row `order[i]` of `G`
/// with its columns renumbered and sorted. Symmetric and valid by construction, so it is
/// not checked again.
///
/// ```
/// use kgroups::{sparse::reorder::{Permutation, PermutedCsr}, Control, CsrKernel, Kernel};
/// // G = [[1, 2, 0], [2, 0, 3], [0, 3, 0]] renumbered 0 ↦ 2, 1 ↦ 0, 2 ↦ 1.
/// let kernel = CsrKernel::new(&[0usize, 2, 4, 5], &[0usize, 1, 0, 2, 1], &[1.0, 2.0, 2.0, 3.0, 3.0], 3)?;
/// let p = Permutation::from_order(vec![1, 2, 0])?;
/// let permuted = PermutedCsr::new(&kernel, &p, &Control::new())?;
/// assert_eq!(permuted.indices(), &[1, 2, 0, 0, 2]);
/// assert_eq!(permuted.data(), &[3.0, 2.0, 3.0, 2.0, 1.0]);
/// assert_eq!(permuted.kernel().diagonal(2), 1.0);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PermutedCsr<I: CsrIndex, T: KernelElement> {
    indptr: Vec<I>,
    indices: Vec<I>,
    data: Vec<T>,
    diagonal: Vec<f64>,
}

/// Rows per parallel task of [`PermutedCsr::new`] (the output does not depend on it).
const ROWS_PER_BLOCK: usize = 4096;

impl<I: CsrIndex, T: KernelElement> PermutedCsr<I, T> {
    /// Builds `P G Pᵀ` in parallel (each row by one task, so the result does not depend on
    /// the number of threads). Errors when `permutation` is not of `kernel`'s size
    /// (argument `order`), when the arrays cannot be allocated, or with
    /// [`KGroupsError::Interrupted`] when `control` is cancelled.
    pub fn new(
        kernel: &CsrKernel<'_, I, T>,
        permutation: &Permutation,
        control: &Control,
    ) -> Result<Self> {
        let n = kernel.n();
        if permutation.len() != n {
            return Err(KGroupsError::invalid(
                "order",
                format!(
                    "the permutation has {} points, the kernel {n}",
                    permutation.len()
                ),
            ));
        }
        let (order, position) = (permutation.order(), permutation.position());
        let index = |value: usize| {
            I::from_index(value).ok_or_else(|| {
                KGroupsError::Internal("a renumbered CSR index does not fit its type".into())
            })
        };
        let mut indptr = try_filled(n + 1, index(0)?, "G", "the renumbered CSR row pointers")?;
        let mut nnz = 0usize;
        for (pointer, &old) in indptr[1..].iter_mut().zip(order) {
            nnz += kernel.row_range(old).len();
            *pointer = index(nnz)?;
        }
        let mut indices = try_filled(nnz, index(0)?, "G", "the renumbered CSR indices")?;
        let mut data = try_filled(nnz, T::narrow(0.0), "G", "the renumbered CSR values")?;

        // Disjoint output slices, one per block of rows.
        let mut blocks = Vec::new();
        let (mut indices_left, mut data_left) = (&mut indices[..], &mut data[..]);
        for first in (0..n).step_by(ROWS_PER_BLOCK) {
            let end = (first + ROWS_PER_BLOCK).min(n);
            let len = indptr[end].index() - indptr[first].index();
            let (block_indices, rest_indices) = std::mem::take(&mut indices_left).split_at_mut(len);
            let (block_data, rest_data) = std::mem::take(&mut data_left).split_at_mut(len);
            (indices_left, data_left) = (rest_indices, rest_data);
            blocks.push((first..end, block_indices, block_data));
        }
        blocks
            .into_par_iter()
            .try_for_each(|(rows, block_indices, block_data)| {
                control.checkpoint()?;
                let mut row: Vec<(usize, T)> = Vec::new();
                let mut written = 0;
                for &old in &order[rows] {
                    let range = kernel.row_range(old);
                    row.clear();
                    row.try_reserve(range.len()).map_err(|_| {
                        KGroupsError::Internal("no memory for one row of the CSR kernel".into())
                    })?;
                    for (column, &value) in kernel.indices[range.clone()]
                        .iter()
                        .zip(&kernel.data[range])
                    {
                        let new_column = position.get(column.index()).ok_or_else(|| {
                            KGroupsError::Internal("a CSR column is out of range".into())
                        })?;
                        row.push((*new_column, value));
                    }
                    // Columns are unique, so the unstable sort is deterministic.
                    row.sort_unstable_by_key(|&(column, _)| column);
                    let end = written + row.len();
                    let (Some(out_indices), Some(out_data)) = (
                        block_indices.get_mut(written..end),
                        block_data.get_mut(written..end),
                    ) else {
                        return Err(KGroupsError::Internal(
                            "the CSR arrays changed while they were renumbered".into(),
                        ));
                    };
                    for ((out_index, out_value), &(column, value)) in
                        out_indices.iter_mut().zip(out_data).zip(&row)
                    {
                        *out_index = index(column)?;
                        *out_value = value;
                    }
                    written = end;
                }
                Ok(())
            })?;
        let mut diagonal = try_filled(n, 0.0, "G", "the renumbered diagonal")?;
        diagonal
            .par_iter_mut()
            .zip(order.par_iter())
            .for_each(|(d, &old)| *d = kernel.diagonal(old));
        Ok(PermutedCsr {
            indptr,
            indices,
            data,
            diagonal,
        })
    }

    /// The renumbered kernel, borrowing these arrays.
    pub fn kernel(&self) -> CsrKernel<'_, I, T> {
        CsrKernel::from_trusted_parts(
            &self.indptr,
            &self.indices,
            &self.data,
            self.diagonal.len(),
            &self.diagonal,
        )
    }

    /// The row pointers (length n + 1).
    pub fn indptr(&self) -> &[I] {
        &self.indptr
    }

    /// The column indices, sorted within each row.
    pub fn indices(&self) -> &[I] {
        &self.indices
    }

    /// The stored values.
    pub fn data(&self) -> &[T] {
        &self.data
    }
}

/// [`crate::fit`] on a CSR kernel, renumbered first when `reorder` says so (see the module
/// documentation for what stays the same): the ordering ([`breadth_first_order`]) and the
/// renumbered copy ([`PermutedCsr`], as much memory again as the CSR arrays) are built
/// once and serve every start. [`Reorder::Never`] is exactly [`crate::fit`].
///
/// ```
/// use kgroups::{sparse::reorder::{self, Reorder}, Control, CsrKernel, Init, Options};
/// // Two triangles joined by the edge 2 — 3.
/// let indptr = [0usize, 2, 4, 7, 10, 12, 14];
/// let indices = [1usize, 2, 0, 2, 0, 1, 3, 2, 4, 5, 3, 5, 3, 4];
/// let kernel = CsrKernel::new(&indptr, &indices, &[1.0; 14], 6)?;
/// let options = Options { init: Init::Random, n_init: 4, ..Options::default() };
/// let r = reorder::fit(&kernel, 2, &options, Reorder::Always, &Control::new())?;
/// assert_eq!(r.labels[0], r.labels[1]);
/// assert_ne!(r.labels[0], r.labels[5]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn fit<I: CsrIndex, T: KernelElement>(
    kernel: &CsrKernel<'_, I, T>,
    k: usize,
    options: &Options,
    reorder: Reorder,
    control: &Control,
) -> Result<Clustering> {
    fit_checked(kernel, &options.check(kernel.n(), k)?, reorder, control)
}

/// [`fit`] with options already checked for the kernel ([`Options::check`]).
pub fn fit_checked<I: CsrIndex, T: KernelElement>(
    kernel: &CsrKernel<'_, I, T>,
    options: &CheckedOptions,
    reorder: Reorder,
    control: &Control,
) -> Result<Clustering> {
    if !reorder.applies(kernel.n()) || kernel.n() != options.n() {
        return restarts::fit_checked(kernel, options, control);
    }
    let permutation = breadth_first_order(kernel, control)?;
    let permuted = PermutedCsr::new(kernel, &permutation, control)?;
    restarts::fit_checked_renumbered(
        kernel,
        &permuted.kernel(),
        permutation.order(),
        options,
        control,
    )
}

#[cfg(test)]
mod tests;
