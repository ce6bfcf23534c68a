//! The pieces of exact, matrix-free kernel k-groups on distributed chunks of the points (the
//! Dask path's `method="exact"`).
//!
//! Every chunk `b` keeps, for its own rows, the point-to-cluster kernel sums
//! `S_b[i, l] = m_l(i) = Σ_{y∈C_l} w_y G_iy` (n_b × k, point-major), built by a pass over
//! fixed blocks of the points — [`within_sums`] for each block, [`cross_sums`] for each pair
//! of blocks, each pair of points computed once — and kept up to date by [`apply_moves`]. A
//! coordinator holds only the k cluster totals ([`ClusterTotals`]: the member counts, the
//! weights `s_l` and the terms `Q_l`). A round is:
//!
//! 1. every chunk lists its rows' improving moves against the round's totals ([`propose`]),
//!    each by the single-machine Hartigan gain and rounding tolerance;
//! 2. the coordinator takes the first candidates in sweep order, with their coordinates and
//!    sums, and runs one sequential Hartigan pass over them ([`accept`]):
//!    each is re-evaluated exactly against the totals and its sums as changed by the moves
//!    accepted before it (their kernel values to it computed from the coordinates), and
//!    moved only if its gain still exceeds the tolerance. Every accepted move is one exact
//!    Hartigan move, so the objective `Q = Σ_l Q_l / s_l` rises with each;
//! 3. the accepted moves go to every chunk, which updates its sums in O(n_b · moves · D).
//!
//! A fit ends when no chunk proposes a move: a Hartigan local optimum.
//!
//! The kernel is that of [`crate::DataKernel`] with [`Base::Origin`] (centre the data
//! first: any base point gives the same clustering). Every function adds its kernel values
//! in an order fixed by its arguments alone (not by the number of threads), so a pass over
//! blocks fixed by n and moves applied in one order give the same sums however the points
//! are split into chunks.

use std::ops::Range;

use rayon::prelude::*;

use crate::cluster::hartigan::{best_move, MeanConstants, Totals};
use crate::control::Control;
use crate::distance::{block_range, DataRows, Points, Semimetric, BLOCK};
use crate::error::{try_filled, KGroupsError, Result};
use crate::gram::{Base, BaseKernelRow, Frame};
use crate::kernel::cluster_sums;
use crate::validate;
use crate::DataKernel;

/// Rows of `out` per parallel task of [`add_cluster_sums`].
const ROWS_PER_TASK: usize = 16;
/// [`accept`] checks for cancellation after this many candidates.
const CHECK_EVERY: usize = 64;

/// The global cluster state of a distributed fit: what a coordinator holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterTotals {
    /// The number of points of each cluster.
    pub counts: Vec<usize>,
    /// `s_l = Σ_{i∈C_l} w_i`.
    pub cluster_weights: Vec<f64>,
    /// `Q_l = Σ_{i∈C_l} w_i m_l(i)`.
    pub terms: Vec<f64>,
}

impl ClusterTotals {
    /// The objective `Q = Σ_l Q_l / s_l`.
    ///
    /// ```
    /// use kgroups::exact_rounds::ClusterTotals;
    /// let totals = ClusterTotals { counts: vec![1, 2], cluster_weights: vec![1.0, 2.0], terms: vec![3.0, 4.0] };
    /// assert_eq!(totals.objective(), 5.0);
    /// ```
    pub fn objective(&self) -> f64 {
        self.terms
            .iter()
            .zip(&self.cluster_weights)
            .map(|(q, s)| q / s)
            .sum()
    }

    fn view(&self) -> Totals<'_> {
        Totals {
            counts: &self.counts,
            cluster_weights: &self.cluster_weights,
            terms: &self.terms,
        }
    }

    /// Errors unless the three vectors have one entry per cluster (k ≥ 1), every non-empty
    /// cluster has a finite positive weight and every term is finite.
    fn check(&self) -> Result<usize> {
        let k = self.counts.len();
        if k == 0 || self.cluster_weights.len() != k || self.terms.len() != k {
            return Err(KGroupsError::invalid(
                "totals",
                format!(
                    "counts, cluster_weights and terms need one entry per cluster, got {}, {} and {}",
                    k,
                    self.cluster_weights.len(),
                    self.terms.len()
                ),
            ));
        }
        for l in 0..k {
            let s = self.cluster_weights[l];
            if self.counts[l] > 0 && !(s.is_finite() && s > 0.0) || !self.terms[l].is_finite() {
                return Err(KGroupsError::invalid(
                    "totals",
                    format!(
                        "cluster {l} has weight {s} and term {} with {} points; weights must be \
                         finite and > 0 and terms finite",
                        self.terms[l], self.counts[l]
                    ),
                ));
            }
        }
        Ok(k)
    }
}

/// One improving move a chunk proposes: row `row` of the chunk to cluster `to`, with the gain
/// `ΔQ` and the rounding tolerance it exceeds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proposal {
    /// The row within the chunk.
    pub row: usize,
    /// The cluster the point would join.
    pub to: usize,
    /// `ΔQ`, the rise of the objective.
    pub gain: f64,
    /// The rounding tolerance the gain exceeds.
    pub tolerance: f64,
}

/// A move the coordinator accepted: candidate `candidate` from cluster `from` to `to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The candidate's position in the list given to [`accept`].
    pub candidate: usize,
    /// The cluster the point left.
    pub from: usize,
    /// The cluster the point joined.
    pub to: usize,
}

fn same_dim(rows: &Points, other: &Points) -> Result<()> {
    if rows.dim() != other.dim() {
        return Err(KGroupsError::invalid(
            "other",
            format!(
                "the rows have D={} columns but the other points D={}",
                rows.dim(),
                other.dim()
            ),
        ));
    }
    Ok(())
}

/// Adds to `out` (n_rows × k, row-major) the kernel sums of every row against the other
/// points grouped by their labels: `out[i, l] += Σ_{j: labels[j] = l} weights[j]·G(x_i, y_j)`,
/// with `G` the energy kernel of `semimetric` with base point 0 ([`Base::Origin`]), the
/// entries of [`crate::DataKernel`]. Each row's sums are added one other point at a time in
/// the order of `other`, so continuing with further points in another call gives the same
/// numbers as one call over all of them. Moves are applied by [`apply_moves`].
///
/// Errors: columns that differ, `labels`/`weights` of another length than `other` or labels
/// not below `k`, non-finite weights, `out` of the wrong length, kernel values too large
/// for f64 or sums that are not finite (argument `"X"`), cancellation.
///
/// ```
/// use kgroups::exact_rounds::add_cluster_sums;
/// use kgroups::{Control, Points, Semimetric};
/// let rows = Points::new(&[1.0, 4.0], 2, 1)?;
/// let other = Points::new(&[4.0, -2.0], 2, 1)?;
/// let mut out = vec![0.0; 4];
/// let power = Semimetric::Power { alpha: 1.0 };
/// add_cluster_sums(&rows, &other, &[0, 1], &[1.0, 2.0], 2, power, &mut out, &Control::new())?;
/// // K(1, 4) = ½(1 + 4 − 3) = 1, K(1, −2) = 0, K(4, 4) = 4, K(4, −2) = 0
/// assert_eq!(out, vec![1.0, 0.0, 4.0, 0.0]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn add_cluster_sums(
    rows: &Points,
    other: &Points,
    labels: &[usize],
    weights: &[f64],
    k: usize,
    semimetric: Semimetric,
    out: &mut [f64],
    control: &Control,
) -> Result<()> {
    validate::labels_below_k(labels, other.n(), k, "labels")?;
    check_sum_arguments(rows, other, weights, k, out, semimetric)?;
    add_kernel_blocks(
        rows,
        other,
        k,
        semimetric,
        out,
        control,
        |acc, values, cols| {
            let by = labels[cols.clone()].iter().zip(&weights[cols]);
            for (&v, (&l, &w)) in values.iter().zip(by) {
                acc[l] += w * v;
            }
        },
    )
}

/// Applies moved points to the kernel sums of every row (`sums` n_rows × k, row-major): for
/// move `j` (coordinates `moved.row(j)`, weight `weights[j]`, from cluster `from[j]` to
/// `to[j]`), `sums[i, from[j]] −= weights[j]·G(x_i, y_j)` and `sums[i, to[j]] += …`, the moves
/// in order, one kernel value per row and move (the kernel of [`add_cluster_sums`]).
///
/// Errors: as [`add_cluster_sums`], and `from`/`to` of another length than `moved` or not
/// below `k`.
///
/// ```
/// use kgroups::exact_rounds::{add_cluster_sums, apply_moves};
/// use kgroups::{Control, Points, Semimetric};
/// let x = Points::new(&[1.0, 4.0, -2.0], 3, 1)?;
/// let power = Semimetric::Power { alpha: 1.0 };
/// let control = Control::new();
/// let mut sums = vec![0.0; 6];
/// add_cluster_sums(&x, &x, &[0, 0, 1], &[1.0; 3], 2, power, &mut sums, &control)?;
/// // The point 4 moves from cluster 0 to cluster 1: the same as sums of the new labels.
/// apply_moves(&x, &mut sums, &Points::new(&[4.0], 1, 1)?, &[1.0], &[0], &[1], 2, power, &control)?;
/// let mut fresh = vec![0.0; 6];
/// add_cluster_sums(&x, &x, &[0, 1, 1], &[1.0; 3], 2, power, &mut fresh, &control)?;
/// assert_eq!(sums, fresh);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn apply_moves(
    rows: &Points,
    sums: &mut [f64],
    moved: &Points,
    weights: &[f64],
    from: &[usize],
    to: &[usize],
    k: usize,
    semimetric: Semimetric,
    control: &Control,
) -> Result<()> {
    validate::labels_below_k(from, moved.n(), k, "from")?;
    validate::labels_below_k(to, moved.n(), k, "to")?;
    check_sum_arguments(rows, moved, weights, k, sums, semimetric)?;
    add_kernel_blocks(
        rows,
        moved,
        k,
        semimetric,
        sums,
        control,
        |acc, values, cols| {
            let by = from[cols.clone()]
                .iter()
                .zip(&to[cols.clone()])
                .zip(&weights[cols]);
            for (&v, ((&f, &t), &w)) in values.iter().zip(by) {
                acc[f] -= w * v;
                acc[t] += w * v;
            }
        },
    )
}

fn check_sum_arguments(
    rows: &Points,
    other: &Points,
    weights: &[f64],
    k: usize,
    out: &[f64],
    semimetric: Semimetric,
) -> Result<()> {
    semimetric.validate()?;
    same_dim(rows, other)?;
    check_finite_weights(weights, other.n())?;
    if rows.n().checked_mul(k) != Some(out.len()) {
        return Err(KGroupsError::invalid(
            "out",
            format!(
                "out has length {} but {} rows and k = {k} need n·k entries",
                out.len(),
                rows.n()
            ),
        ));
    }
    Ok(())
}

/// For every row `a` of `rows` (its k sums `out[a·k..(a+1)·k]`) and every block `cols` of the
/// other points in order, `add(sums, values, cols)` with `values[c] = G(x_a, y_{cols.start + c})`;
/// rows in parallel tasks, each row's blocks in order. Then checks the sums are finite.
#[allow(clippy::too_many_arguments)]
fn add_kernel_blocks(
    rows: &Points,
    other: &Points,
    k: usize,
    semimetric: Semimetric,
    out: &mut [f64],
    control: &Control,
    add: impl Fn(&mut [f64], &[f64], Range<usize>) + Sync,
) -> Result<()> {
    let ny = other.n();
    if rows.n() == 0 || ny == 0 {
        return Ok(());
    }
    let (to_base_rows, to_base_other, factors, reference) =
        kernel_parts(rows, other, semimetric, control)?;
    out.par_chunks_mut(ROWS_PER_TASK * k)
        .enumerate()
        .try_for_each_init(
            || vec![0.0; BLOCK.min(ny)],
            |buffer, (p, chunk)| -> Result<()> {
                for (i, acc) in chunk.chunks_exact_mut(k).enumerate() {
                    control.checkpoint()?;
                    let a = p * ROWS_PER_TASK + i;
                    let epilogue = BaseKernelRow {
                        r_a: to_base_rows[a],
                        to_base: &to_base_other,
                        factors,
                    };
                    for q in 0..ny.div_ceil(BLOCK) {
                        let cols = block_range(q, BLOCK, ny);
                        let values = &mut buffer[..cols.len()];
                        reference.rho_point_then(rows.row(a), cols.start, values, &epilogue);
                        add(acc, values, cols);
                    }
                }
                Ok(())
            },
        )?;
    finite_sums(out, k)
}

/// The kernel sums of a block of points against itself, by its labels: `n × k`, point-major,
/// `Σ_{j: labels[j] = l} weights[j]·G(x_i, x_j)` (the kernel of [`add_cluster_sums`]), each
/// pair computed once, in tiles (the same sums for any number of threads). With
/// [`cross_sums`] for every other block, a pass over all pairs of blocks builds every
/// point's sums with each pair of points computed once.
///
/// Errors: `labels`/`weights` of another length than `x` or labels not below `k`, kernel
/// values too large for f64 or sums that are not finite (argument `"X"`), cancellation.
///
/// ```
/// use kgroups::exact_rounds::{add_cluster_sums, within_sums};
/// use kgroups::{Control, Points, Semimetric};
/// let x = Points::new(&[1.0, 4.0, -2.0], 3, 1)?;
/// let power = Semimetric::Power { alpha: 1.0 };
/// let sums = within_sums(&x, &[0, 1, 1], &[1.0, 2.0, 1.0], 2, power, &Control::new())?;
/// let mut rowwise = vec![0.0; 6];
/// add_cluster_sums(&x, &x, &[0, 1, 1], &[1.0, 2.0, 1.0], 2, power, &mut rowwise, &Control::new())?;
/// assert_eq!(sums, rowwise);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn within_sums(
    x: &Points,
    labels: &[usize],
    weights: &[f64],
    k: usize,
    semimetric: Semimetric,
    control: &Control,
) -> Result<Vec<f64>> {
    validate::labels_below_k(labels, x.n(), k, "labels")?;
    check_finite_weights(weights, x.n())?;
    let n = x.n();
    if n == 0 {
        return Ok(Vec::new());
    }
    let kernel = DataKernel::new(*x, semimetric, Base::Origin)?;
    let cluster_major = cluster_sums(&kernel, labels, weights, k, control)?;
    let mut sums = try_filled(n * k, 0.0, "k", "the n × k cluster sums")?;
    for (l, run) in cluster_major.chunks_exact(n).enumerate() {
        for (i, &v) in run.iter().enumerate() {
            sums[i * k + l] = v;
        }
    }
    finite_sums(&sums, k)?;
    Ok(sums)
}

/// The kernel sums between two blocks of points, each pair computed once: `a`'s sums against
/// `b` by `b`'s labels and `b`'s against `a` by `a`'s labels (`n_a × k` and `n_b × k`,
/// point-major; the kernel of [`add_cluster_sums`]). The tiles run in a fixed order on the
/// calling thread: a pass runs one such pair per task, many at once.
///
/// Errors: as [`within_sums`] for either block, and columns that differ.
///
/// ```
/// use kgroups::exact_rounds::{add_cluster_sums, cross_sums};
/// use kgroups::{Control, Points, Semimetric};
/// let (a, b) = (Points::new(&[1.0, 4.0], 2, 1)?, Points::new(&[-2.0, 3.0, 0.5], 3, 1)?);
/// let power = Semimetric::Power { alpha: 1.0 };
/// let control = Control::new();
/// let (sums_a, sums_b) = cross_sums(&a, &b, &[0, 1], &[1.0; 2], &[1, 1, 0], &[1.0; 3], 2, power, &control)?;
/// let mut rowwise = vec![0.0; 4];
/// add_cluster_sums(&a, &b, &[1, 1, 0], &[1.0; 3], 2, power, &mut rowwise, &control)?;
/// assert!(sums_a.iter().zip(&rowwise).all(|(s, r)| (s - r).abs() < 1e-12));
/// assert_eq!(sums_b.len(), 6);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn cross_sums(
    a: &Points,
    b: &Points,
    labels_a: &[usize],
    weights_a: &[f64],
    labels_b: &[usize],
    weights_b: &[f64],
    k: usize,
    semimetric: Semimetric,
    control: &Control,
) -> Result<(Vec<f64>, Vec<f64>)> {
    same_dim(a, b)?;
    validate::labels_below_k(labels_a, a.n(), k, "labels")?;
    validate::labels_below_k(labels_b, b.n(), k, "labels")?;
    check_finite_weights(weights_a, a.n())?;
    check_finite_weights(weights_b, b.n())?;
    let (na, nb) = (a.n(), b.n());
    if na == 0 || nb == 0 {
        let zeros = |n: usize| try_filled(n * k, 0.0, "k", "the n × k cluster sums");
        return Ok((zeros(na)?, zeros(nb)?));
    }
    let dim = a.dim();
    let mut both = try_filled((na + nb) * dim, 0.0, "X", "the two blocks of points")?;
    both[..na * dim].copy_from_slice(a.data());
    both[na * dim..].copy_from_slice(b.data());
    let labels = [labels_a, labels_b].concat();
    let weights = [weights_a, weights_b].concat();
    let points = Points::new(&both, na + nb, dim)?;
    let kernel = DataKernel::new(points, semimetric, Base::Origin)?;
    let (sums_a, sums_b) = kernel.cross_cluster_sums(na, &labels, &weights, k, control)?;
    finite_sums(&sums_a, k)?;
    finite_sums(&sums_b, k)?;
    Ok((sums_a, sums_b))
}

fn check_finite_weights(weights: &[f64], n: usize) -> Result<()> {
    validate::weights_len(weights, n, "weights")?;
    if let Some(j) = weights.iter().position(|w| !w.is_finite()) {
        return Err(KGroupsError::invalid(
            "weights",
            format!("weights[{j}] = {} is not finite", weights[j]),
        ));
    }
    Ok(())
}

/// An error (argument `"X"`) naming the first row of `sums` (n × k) with a sum that is not
/// finite.
fn finite_sums(sums: &[f64], k: usize) -> Result<()> {
    if let Some(position) = sums.iter().position(|v| !v.is_finite()) {
        return Err(KGroupsError::invalid(
            "X",
            format!(
                "the kernel sums of row {} are not finite (the data are too large to add up); rescale X",
                position / k
            ),
        ));
    }
    Ok(())
}

/// What the rows' kernel values against `other` are computed from: ρ of the rows and of
/// the other points to the base point 0, the output factors, and the other points' rows.
type KernelParts<'a> = (Vec<f64>, Vec<f64>, (f64, f64), DataRows<'a>);

fn kernel_parts<'a>(
    rows: &Points,
    other: &Points<'a>,
    semimetric: Semimetric,
    control: &Control,
) -> Result<KernelParts<'a>> {
    let frame = Frame::new(&[rows, other], other, semimetric, Base::Origin, control)?;
    let to_base_rows = frame.rho_to_base(rows, "X", control)?;
    let to_base_other = frame.rho_to_base(other, "X", control)?;
    let max_entry = to_base_rows
        .iter()
        .chain(&to_base_other)
        .fold(0.0f64, |m, &v| m.max(v));
    let factors = frame.output_factors::<f64>(max_entry, "X")?;
    let reference = frame.rows(*other, "X")?;
    Ok((to_base_rows, to_base_other, factors, reference))
}

/// The kernel diagonal `G_ii = ρ(x_i, 0)` of the points, as [`crate::DataKernel`] computes it
/// with [`Base::Origin`].
///
/// ```
/// use kgroups::exact_rounds::diagonal;
/// use kgroups::{Points, Semimetric};
/// let x = Points::new(&[3.0, 4.0], 1, 2)?;
/// assert_eq!(diagonal(&x, Semimetric::Power { alpha: 1.0 })?, vec![5.0]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn diagonal(x: &Points, semimetric: Semimetric) -> Result<Vec<f64>> {
    semimetric.validate()?;
    if x.n() == 0 {
        return Ok(Vec::new());
    }
    let control = Control::new();
    let frame = Frame::new(&[x], x, semimetric, Base::Origin, &control)?;
    let to_base = frame.rho_to_base(x, "X", &control)?;
    let max_entry = to_base.iter().fold(0.0f64, |m, &v| m.max(v));
    let factors = frame.output_factors::<f64>(max_entry, "X")?;
    let zero = frame.semimetric().from_squared_distance(0.0);
    Ok(to_base
        .iter()
        .map(|&r| crate::gram::base_kernel_value(r, r, zero, factors))
        .collect())
}

fn check_rows(
    n: usize,
    k: usize,
    sums: &[f64],
    labels: &[usize],
    weights: &[f64],
    diagonal: &[f64],
) -> Result<()> {
    if n.checked_mul(k) != Some(sums.len()) {
        return Err(KGroupsError::invalid(
            "sums",
            format!(
                "sums has {} entries but n = {n} rows and k = {k} need n·k",
                sums.len()
            ),
        ));
    }
    validate::labels_below_k(labels, n, k, "labels")?;
    validate::weights(weights, n, "weights")?;
    if diagonal.len() != n {
        return Err(KGroupsError::invalid(
            "diagonal",
            format!("diagonal has length {} but n = {n}", diagonal.len()),
        ));
    }
    Ok(())
}

/// The improving moves of a chunk's rows against the global `totals`: for each row `i`
/// (label `labels[i]`, weight `weights[i]`, kernel diagonal `diagonal[i]`, sums
/// `sums[i·k..(i+1)·k]`), the best move of single-machine Hartigan, listed when its gain
/// exceeds the rounding tolerance. In row order.
///
/// Errors: inconsistent lengths, labels not below k, weights not finite and > 0, totals that
/// are not one finite entry per cluster, a row's cluster with no member in the totals.
///
/// ```
/// use kgroups::exact_rounds::{add_cluster_sums, diagonal, propose, ClusterTotals};
/// use kgroups::{Control, Points, Semimetric};
/// let x = Points::new(&[-1.0, 0.0, 1.0, 10.0], 4, 1)?;
/// let power = Semimetric::Power { alpha: 1.0 };
/// let (labels, weights) = ([0, 1, 1, 1], [1.0; 4]); // -1 alone, 0 and 1 with 10
/// let mut sums = vec![0.0; 8];
/// add_cluster_sums(&x, &x, &labels, &weights, 2, power, &mut sums, &Control::new())?;
/// let mut totals = ClusterTotals { counts: vec![1, 3], cluster_weights: vec![1.0, 3.0], terms: vec![0.0; 2] };
/// for i in 0..4 { totals.terms[labels[i]] += weights[i] * sums[i * 2 + labels[i]]; }
/// let moves = propose(&sums, &labels, &weights, &diagonal(&x, power)?, &totals)?;
/// assert!(moves.iter().any(|m| m.row == 1 && m.to == 0 && m.gain > m.tolerance));
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn propose(
    sums: &[f64],
    labels: &[usize],
    weights: &[f64],
    diagonal: &[f64],
    totals: &ClusterTotals,
) -> Result<Vec<Proposal>> {
    let k = totals.check()?;
    let n = labels.len();
    check_rows(n, k, sums, labels, weights, diagonal)?;
    if let Some(i) = labels.iter().position(|&l| totals.counts[l] == 0) {
        return Err(KGroupsError::invalid(
            "labels",
            format!(
                "row {i} is in cluster {} which the totals hold empty",
                labels[i]
            ),
        ));
    }
    let view = totals.view();
    let mut constants = MeanConstants::new(view);
    let mut proposals = Vec::new();
    for (i, ((&j, &w), &d)) in labels.iter().zip(weights).zip(diagonal).enumerate() {
        let row = &sums[i * k..(i + 1) * k];
        if let Some((to, gain, tolerance)) = best_move(view, &mut constants, j, w, d, row) {
            if gain > tolerance {
                proposals.push(Proposal {
                    row: i,
                    to,
                    gain,
                    tolerance,
                });
            }
        }
    }
    Ok(proposals)
}

/// One sequential Hartigan pass over candidate points, in the order given, against `totals`
/// (updated in place by every accepted move). Candidate `p` has coordinates
/// `candidates.row(p)`, weight `weights[p]`, kernel diagonal `diagonal[p]`, current cluster
/// `labels[p]` and cluster sums `sums[p·k..(p+1)·k]` as of `totals`. Each candidate's best
/// move is evaluated exactly against the current totals and its sums updated by the moves
/// accepted before it (their kernel values to it computed from the coordinates, the kernel of
/// [`add_cluster_sums`]); it is made when its gain exceeds the rounding tolerance, with the
/// single-machine updates of `Q_l`, `s_l` and the counts. Every accepted move raises the
/// objective. A candidate moves at most once.
///
/// Errors: as [`propose`], and columns or lengths that differ, cancellation.
///
/// ```
/// use kgroups::exact_rounds::{accept, add_cluster_sums, diagonal, propose, ClusterTotals};
/// use kgroups::{Control, Points, Semimetric};
/// let data = [-1.0, 0.0, 1.0, 10.0];
/// let x = Points::new(&data, 4, 1)?;
/// let power = Semimetric::Power { alpha: 1.0 };
/// let labels = [0, 1, 1, 1]; // 0 and 1 belong together
/// let weights = [1.0; 4];
/// let mut sums = vec![0.0; 8];
/// add_cluster_sums(&x, &x, &labels, &weights, 2, power, &mut sums, &Control::new())?;
/// let d = diagonal(&x, power)?;
/// let mut totals = ClusterTotals { counts: vec![1, 3], cluster_weights: vec![1.0, 3.0], terms: vec![0.0; 2] };
/// for i in 0..4 { totals.terms[labels[i]] += weights[i] * sums[i * 2 + labels[i]]; }
/// let before = totals.objective();
/// let proposed = propose(&sums, &labels, &weights, &d, &totals)?;
/// assert!(!proposed.is_empty());
/// let p = proposed[0].row;
/// let moved = accept(&Points::new(&data[p..p + 1], 1, 1)?, &[1.0], &d[p..p + 1], &labels[p..p + 1],
///                    &sums[2 * p..2 * p + 2], power, &mut totals, &Control::new())?;
/// assert_eq!(moved.len(), 1);
/// assert!(totals.objective() > before);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn accept(
    candidates: &Points,
    weights: &[f64],
    diagonal: &[f64],
    labels: &[usize],
    sums: &[f64],
    semimetric: Semimetric,
    totals: &mut ClusterTotals,
    control: &Control,
) -> Result<Vec<Accepted>> {
    semimetric.validate()?;
    let k = totals.check()?;
    let c = candidates.n();
    check_rows(c, k, sums, labels, weights, diagonal)?;
    if c == 0 {
        return Ok(Vec::new());
    }
    let mut own = try_filled(sums.len(), 0.0, "sums", "the candidates' sums")?;
    own.copy_from_slice(sums);
    let mut sums = own;
    let (to_base, _, factors, reference) =
        kernel_parts(candidates, candidates, semimetric, control)?;
    let mut column = try_filled(c, 0.0, "sums", "a column of the candidates' kernel")?;
    let mut constants = MeanConstants::new(totals.view());
    let mut accepted = Vec::new();
    for p in 0..c {
        if p % CHECK_EVERY == CHECK_EVERY - 1 {
            control.checkpoint()?;
        }
        let (from, w, d) = (labels[p], weights[p], diagonal[p]);
        if totals.counts[from] == 0 {
            return Err(KGroupsError::invalid(
                "labels",
                format!("candidate {p} is in cluster {from} which the totals hold empty"),
            ));
        }
        let row = &sums[p * k..(p + 1) * k];
        let Some((to, gain, tolerance)) = best_move(totals.view(), &mut constants, from, w, d, row)
        else {
            continue;
        };
        if gain <= tolerance {
            continue;
        }
        // Partition::move_totals, with this candidate's sums.
        let self_term = w * w * d;
        totals.terms[from] += -2.0 * w * row[from] + self_term;
        totals.terms[to] += 2.0 * w * row[to] + self_term;
        totals.cluster_weights[from] -= w;
        totals.cluster_weights[to] += w;
        totals.counts[from] -= 1;
        totals.counts[to] += 1;
        constants.moved(totals.view(), from, to);
        accepted.push(Accepted {
            candidate: p,
            from,
            to,
        });
        // The later candidates' sums: m_from −= w·G(·, p), m_to += w·G(·, p).
        if p + 1 < c {
            let epilogue = BaseKernelRow {
                r_a: to_base[p],
                to_base: &to_base,
                factors,
            };
            for q in 0..(c - p - 1).div_ceil(BLOCK) {
                let cols = block_range(q, BLOCK, c - p - 1);
                let (start, len) = (p + 1 + cols.start, cols.len());
                let out = &mut column[start..start + len];
                reference.rho_point_then(candidates.row(p), start, out, &epilogue);
            }
            for (q, &g) in column.iter().enumerate().skip(p + 1) {
                sums[q * k + from] -= w * g;
                sums[q * k + to] += w * g;
            }
        }
    }
    Ok(accepted)
}

#[cfg(test)]
mod tests;
