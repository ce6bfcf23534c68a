//! Renumbering a CSR kernel for cache-friendly sweeps.
//!
//! A sweep visits the points in index order, and a move of point `i` updates the cluster sums
//! of every neighbour of `i`. When the points are numbered at random (as the nodes of most
//! graphs read from disk), those updates land anywhere in the k × n sums and the first
//! sweeps, where most points move, wait on memory. Renumbering the points in breadth-first
//! order puts a node's neighbours near it and near each other, so the updates hit cache —
//! on graphs with locality to find (k-nearest-neighbour graphs of low-dimensional data,
//! meshes). A random graph (an expander) has none: its breadth-first levels grow
//! geometrically, and [`Reorder::Auto`] leaves it alone.
//!
//! The clustering then runs on `P G Pᵀ` ([`PermutedCsr`]) and the labels are mapped back
//! ([`fit`]). The start of each run is drawn on the caller's kernel in the caller's numbering,
//! so it is exactly the start of the run without renumbering; the local search then visits
//! the points in the new order, and since a sweep's moves depend on the order in which points
//! are visited, the local optimum found can differ from the one found without renumbering.
//! The result is a local optimum of the caller's kernel either way, and its objective is
//! the objective of the returned labels on it (up to the order of summation).

use super::{CsrIndex, CsrKernel};
use crate::cluster::restarts::{self, CheckedOptions, Clustering, Options};
use crate::control::Control;
use crate::error::{out_of_memory, try_filled, try_filled_uninit, KGroupsError, Result};
use crate::kernel::{Kernel, KernelElement};

/// Whether [`fit`] renumbers the kernel before the local search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reorder {
    /// Renumber when it pays: kernels of at least [`AUTO_MIN_POINTS`] points whose
    /// breadth-first levels are at most [`auto_max_level_width`] wide on average.
    #[default]
    Auto,
    /// Always renumber.
    Always,
    /// Never renumber: exactly [`crate::fit`].
    Never,
}

/// The number of points from which [`Reorder::Auto`] considers renumbering. Below it the
/// k × n cluster sums of a usual k take a few MiB, and renumbering costs more than the
/// cache misses it saves (`benches/bench_sparse.py`).
pub const AUTO_MIN_POINTS: usize = 200_000;

/// A permutation of `0..n`: point `i` of the new numbering is point `order()[i]` of the old
/// one, and old point `j` is new point `position()[j]`.
///
/// ```
/// use kgroups::kernel::csr::reorder::Permutation;
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

/// `P G Pᵀ` for a permutation `P` of a CSR kernel, owned: row `i` is row `order[i]` of `G`
/// with its columns renumbered and sorted. Symmetric and valid by construction, so it is
/// not checked again. Built by [`PermutedCsr::breadth_first`].
///
/// ```
/// use kgroups::{kernel::csr::reorder::PermutedCsr, Control, CsrKernel, Kernel};
/// // G = [[1, 0, 2], [0, 0, 3], [2, 3, 0]]: the path 0 — 2 — 1, renumbered 0, 2, 1.
/// let kernel = CsrKernel::new(&[0usize, 2, 3, 5], &[0usize, 2, 2, 0, 1], &[1.0, 2.0, 3.0, 2.0, 3.0], 3)?;
/// let (p, permuted) = PermutedCsr::breadth_first(&kernel, None, &Control::new())?.unwrap();
/// assert_eq!(p.order(), &[0, 2, 1]);
/// assert_eq!(permuted.indptr(), &[0, 2, 4, 5]);
/// assert_eq!(permuted.indices(), &[0, 1, 0, 2, 1]);
/// assert_eq!(permuted.data(), &[1.0, 2.0, 2.0, 3.0, 3.0]);
/// assert_eq!(permuted.kernel().diagonal(0), 1.0);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PermutedCsr<I: CsrIndex, T: KernelElement> {
    indptr: Vec<I>,
    indices: Vec<I>,
    data: Vec<T>,
    diagonal: Vec<f64>,
}

impl<I: CsrIndex, T: KernelElement> PermutedCsr<I, T> {
    /// The breadth-first renumbering of `kernel` and `P G Pᵀ` for it, in one pass over the
    /// entries (sequential: each row is written as the search leaves it, so the rows are
    /// read once and written in order). The order starts at node 0 and visits neighbours in
    /// increasing index; when a component is exhausted it goes on from the lowest-numbered
    /// node not yet reached, so disconnected graphs and isolated nodes are covered and each
    /// component is contiguous. Deterministic: it depends on the sparsity pattern only.
    ///
    /// With `max_level_width`, gives up (`Ok(None)`) as soon as the first
    /// [`AUTO_PROBE_NODES`] nodes are found to lie in levels wider than that on average (a
    /// graph without locality to find, such as a random graph, where the search's levels
    /// grow geometrically). Stops with [`KGroupsError::Interrupted`] when `control` is
    /// cancelled.
    ///
    /// ```
    /// use kgroups::{kernel::csr::reorder::PermutedCsr, Control, CsrKernel};
    /// // The path 0 — 2 — 1 and the isolated node 3.
    /// let indptr = [0usize, 1, 2, 4, 4];
    /// let indices = [2usize, 2, 0, 1];
    /// let kernel = CsrKernel::new(&indptr, &indices, &[1.0; 4], 4)?;
    /// let (p, permuted) = PermutedCsr::breadth_first(&kernel, None, &Control::new())?.unwrap();
    /// assert_eq!(p.order(), &[0, 2, 1, 3]);
    /// assert_eq!(permuted.indices(), &[1, 0, 2, 1]);
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    pub fn breadth_first(
        kernel: &CsrKernel<'_, I, T>,
        max_level_width: Option<usize>,
        control: &Control,
    ) -> Result<Option<(Permutation, Self)>> {
        // u32::MAX marks "not reached", so the compact table needs n < u32::MAX.
        if kernel.n() < u32::MAX as usize {
            breadth_first_renumbering::<u32, I, T>(kernel, max_level_width, control)
        } else {
            breadth_first_renumbering::<usize, I, T>(kernel, max_level_width, control)
        }
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
/// documentation for what stays the same): the breadth-first renumbering and the renumbered
/// copy ([`PermutedCsr::breadth_first`], as much memory again as the CSR arrays) are built
/// once and serve every start. [`Reorder::Never`] is exactly [`crate::fit`].
///
/// ```
/// use kgroups::{kernel::csr::reorder::{self, Reorder}, Control, CsrKernel, Init, Options};
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
///
/// ```
/// use kgroups::{kernel::csr::reorder::{fit_checked, Reorder}, Control, CsrKernel, Options};
/// // The path 0 — 1 — 2 — 3 with a diagonal.
/// let indptr = [0usize, 2, 5, 8, 10];
/// let indices = [0usize, 1, 0, 1, 2, 1, 2, 3, 2, 3];
/// let kernel = CsrKernel::new(&indptr, &indices, &[2.0, 1.0, 1.0, 2.0, 0.1, 0.1, 2.0, 1.0, 1.0, 2.0], 4)?;
/// let checked = Options::default().check(4, 2)?;
/// let r = fit_checked(&kernel, &checked, Reorder::Always, &Control::new())?;
/// assert_eq!(r.labels[0], r.labels[1]);
/// assert_ne!(r.labels[1], r.labels[2]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn fit_checked<I: CsrIndex, T: KernelElement>(
    kernel: &CsrKernel<'_, I, T>,
    options: &CheckedOptions,
    reorder: Reorder,
    control: &Control,
) -> Result<Clustering> {
    let n = kernel.n();
    let renumbered = match reorder {
        Reorder::Never => None,
        _ if n != options.n() => None, // fit_checked names the mismatch
        Reorder::Auto if n < AUTO_MIN_POINTS => None,
        // "auto" is an optimisation: without the memory for the copy, cluster as it is.
        Reorder::Auto => {
            let max_width = Some(auto_max_level_width(options.k()));
            match PermutedCsr::breadth_first(kernel, max_width, control) {
                Err(KGroupsError::OutOfMemory { .. }) => None,
                other => other?,
            }
        }
        Reorder::Always => PermutedCsr::breadth_first(kernel, None, control)?,
    };
    match renumbered {
        None => restarts::fit_checked(kernel, options, control),
        Some((permutation, permuted)) => restarts::fit_checked_renumbered(
            kernel,
            &permuted.kernel(),
            permutation.order(),
            options,
            control,
        ),
    }
}

/// [`Reorder::Auto`] renumbers only when the sums of three consecutive breadth-first levels
/// (`3 · width · k` values) fit in this many bytes, about a core's L2 cache: then a sweep's
/// updates stay near the point it visits.
pub const AUTO_CACHE_BYTES: usize = 1 << 20;

/// Nodes of the breadth-first search after which [`Reorder::Auto`] judges the level width.
pub const AUTO_PROBE_NODES: usize = 1 << 16;

/// The widest average breadth-first level (nodes per level over the first
/// [`AUTO_PROBE_NODES`] nodes) for which [`Reorder::Auto`] renumbers, for `k` clusters.
///
/// ```
/// use kgroups::kernel::csr::reorder::auto_max_level_width;
/// assert_eq!(auto_max_level_width(10), 4369);
/// assert_eq!(auto_max_level_width(0), auto_max_level_width(1));
/// ```
pub fn auto_max_level_width(k: usize) -> usize {
    AUTO_CACHE_BYTES / (3 * std::mem::size_of::<f64>() * k.max(1))
}

/// Nodes dequeued between two checks for cancellation.
const CHECK_EVERY_NODES: usize = 1 << 14;

/// A node's new number in the breadth-first renumbering, or `NONE` before it is reached:
/// 4 bytes when n allows (the lookups are random, and a smaller table stays in cache).
trait Slot: Copy + PartialEq {
    const NONE: Self;
    /// `value < n`, which the caller has checked fits below `NONE`.
    fn new(value: usize) -> Self;
    fn get(self) -> usize;
}

impl Slot for u32 {
    const NONE: Self = u32::MAX;
    #[inline(always)]
    fn new(value: usize) -> Self {
        value as u32
    }
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
}

impl Slot for usize {
    const NONE: Self = usize::MAX;
    #[inline(always)]
    fn new(value: usize) -> Self {
        value
    }
    #[inline(always)]
    fn get(self) -> usize {
        self
    }
}

/// The breadth-first renumbering and `P G Pᵀ` in one pass (see [`PermutedCsr::breadth_first`]).
fn breadth_first_renumbering<S: Slot, I: CsrIndex, T: KernelElement>(
    kernel: &CsrKernel<'_, I, T>,
    max_level_width: Option<usize>,
    control: &Control,
) -> Result<Option<(Permutation, PermutedCsr<I, T>)>> {
    let n = kernel.n();
    let nnz = kernel.indices.len().min(kernel.data.len());
    let index = |value: usize| {
        I::from_index(value).ok_or_else(|| {
            KGroupsError::Internal("a renumbered CSR index does not fit its type".into())
        })
    };
    let changed =
        || KGroupsError::Internal("the CSR arrays changed while they were renumbered".into());
    let mut position = try_filled(n, S::NONE, "G", "the renumbering table")?;
    // The queue is the order itself: every node enters it once, so it never reallocates;
    // nor do the output arrays, filled row after row in the new order.
    let mut order: Vec<usize> = try_filled_uninit(n, "G", "the breadth-first order")?;
    let mut indptr: Vec<I> = try_filled_uninit(n + 1, "G", "the renumbered CSR row pointers")?;
    let mut indices: Vec<I> = try_filled_uninit(nnz, "G", "the renumbered CSR indices")?;
    let mut data: Vec<T> = try_filled_uninit(nnz, "G", "the renumbered CSR values")?;
    let mut diagonal: Vec<f64> = try_filled_uninit(n, "G", "the renumbered diagonal")?;
    indptr.push(index(0)?);
    // (new column, or the old one while `NONE`; slot; value) of the row being renumbered.
    let mut row: Vec<(usize, S, T)> = Vec::new();
    let (mut head, mut levels, mut level_end) = (0, 0, 0);
    for root in 0..n {
        if position[root] != S::NONE {
            continue;
        }
        position[root] = S::new(order.len());
        order.push(root);
        while let Some(&node) = order.get(head) {
            if head == level_end {
                levels += 1;
                level_end = order.len();
            }
            if head % CHECK_EVERY_NODES == 0 {
                control.checkpoint()?;
            }
            head += 1;
            if let Some(max_width) = max_level_width {
                // The verdict at AUTO_PROBE_NODES nodes, given as soon as it is certain: once
                // that many nodes are found, the last of them lies in this level or the next,
                // so at most `levels + 1` levels will have started (a random graph is judged
                // within a few levels, not after the whole probe).
                let most_levels = match head.cmp(&AUTO_PROBE_NODES) {
                    std::cmp::Ordering::Equal => Some(levels),
                    std::cmp::Ordering::Less if order.len() >= AUTO_PROBE_NODES => Some(levels + 1),
                    _ => None,
                };
                if most_levels.is_some_and(|most| AUTO_PROBE_NODES > max_width.saturating_mul(most))
                {
                    return Ok(None);
                }
            }
            let range = kernel.row_range(node);
            row.clear();
            row.try_reserve(range.len()).map_err(|_| {
                out_of_memory::<(usize, S, T)>(range.len(), "G", "a row of the renumbered kernel")
            })?;
            // The table lookups first, independent of each other so that their cache misses
            // overlap; then the columns not reached yet get their numbers.
            for (column, &value) in kernel.indices[range.clone()]
                .iter()
                .zip(&kernel.data[range])
            {
                let column = column.index();
                row.push((column, *position.get(column).ok_or_else(changed)?, value));
            }
            for (column, slot, _) in row.iter_mut() {
                if *slot == S::NONE {
                    *slot = S::new(order.len());
                    position[*column] = *slot;
                    order.push(*column);
                }
                *column = slot.get();
            }
            // Columns are unique, so the unstable sort is deterministic.
            row.sort_unstable_by_key(|&(column, _, _)| column);
            if indices.len() + row.len() > nnz {
                return Err(changed());
            }
            for &(column, _, value) in &row {
                indices.push(index(column)?);
                data.push(value);
            }
            indptr.push(index(indices.len())?);
            diagonal.push(kernel.diagonal(node));
        }
    }
    drop(position);
    Ok(Some((
        Permutation::from_order(order)?,
        PermutedCsr {
            indptr,
            indices,
            data,
            diagonal,
        },
    )))
}

#[cfg(test)]
mod tests;
