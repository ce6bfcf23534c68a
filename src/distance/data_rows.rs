//! ρ from data ([`DataRows`]): the points kept once more, scaled into a frame and transposed
//! block by block, so that a run of points is evaluated with vectorised loops ([`super::simd`]);
//! squared distances by coordinate differences or expanded with a cancellation guard, and the
//! pairs whose squared distance lost its digits evaluated from the distance itself.

use std::ops::Range;

use rayon::prelude::*;

use super::rows::{block_range, PairwiseRows, RunEpilogue, BLOCK};
use super::semimetric::{RhoOfSquared, WithRho};
use super::simd;
use super::{Points, Semimetric};
use crate::control::Control;
use crate::error::{out_of_memory, try_filled, Result};

/// The smallest dimension D whose squared distances are expanded, ‖x‖² + ‖y‖² − 2⟨x, y⟩
/// (see [`DataRows`]). Below it, summing coordinate differences is as fast (`benches/core.rs`,
/// group `gram_tile`, times both sides of it).
pub(crate) const EXPANSION_MIN_DIM: usize = 20;

/// The largest dimension D whose squared distances are expanded: the cancellation guard
/// ([`expansion_guard`]) grows with D, and from here on would send too many pairs (those with
/// ‖x − y‖² below a quarter of ‖x‖² + ‖y‖²) to the exact recomputation.
pub(crate) const EXPANSION_MAX_DIM: usize = 1024;

/// Whether squared distances in dimension `dim` are expanded.
fn expands(dim: usize) -> bool {
    (EXPANSION_MIN_DIM..=EXPANSION_MAX_DIM).contains(&dim)
}

/// Expanded squared distances e below this are recomputed from differences (see
/// [`expansion_guard`]): it keeps the rounding errors of underflowed products (at most
/// 2^-1074 each) negligible.
const EXPANSION_FLOOR: f64 = 1.1e-271; // ≈ 2^-900

/// The cancellation guard c of dimension `dim`: an expanded squared distance
/// e = fl(fl(‖x‖² + ‖y‖²) − 2·fl(⟨x, y⟩)) is kept only when e ≥ c·s, s = fl(‖x‖² + ‖y‖²)
/// (and e ≥ [`EXPANSION_FLOOR`], s finite); other pairs are recomputed from differences.
///
/// Why c: with u = 2^-53 and each of ‖x‖², ‖y‖², ⟨x, y⟩ summed in order over D terms (⟨x, y⟩
/// by fused multiply-adds, which round once per term instead of twice: the bound below holds
/// either way),
/// |fl(‖x‖²) − ‖x‖²| ≤ γ_D‖x‖², |fl(⟨x, y⟩) − ⟨x, y⟩| ≤ γ_D Σ|x_k y_k| ≤ γ_D (‖x‖² + ‖y‖²)/2
/// (γ_D = Du/(1 − Du); doubling is exact), and the sum and difference add one rounding each,
/// of a value at most 2s; so |e − d²| ≤ (2γ_D + 3u)(1 + γ_D)·s ≤ (2D + 4)·u·s =: β·s for
/// D ≤ 1024. A kept pair has d² ≥ e − βs ≥ (c − β)s, hence relative error
/// |e − d²|/d² ≤ β/(c − β). With c = 2^40·β that is ≤ 1/(2^40 − 1) < 1e-12 (½ that for
/// ‖x − y‖); the exact-difference sum itself is within (D + 2)u. For D = 100, c ≈ 0.025: only
/// pairs closer than ~0.16·√(‖x‖² + ‖y‖²) (near-duplicates, or points far from the frame's
/// origin) pay for the recomputation.
fn expansion_guard(dim: usize) -> f64 {
    (2 * dim + 4) as f64 * 2f64.powi(-53 + 40)
}

/// Whether an expanded squared distance `e` of a pair with s = ‖x‖² + ‖y‖² is accurate (see
/// [`expansion_guard`]); false for NaN.
#[inline(always)]
fn expansion_is_accurate(e: f64, s: f64, guard: f64) -> bool {
    e >= guard * s && e >= EXPANSION_FLOOR && s <= f64::MAX
}

/// Σ_k x_k², summed in coordinate order: the squared norms of the expansion.
#[inline(always)]
pub(super) fn squared_norm(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += v * v;
    }
    s
}

/// ρ from data in a frame: coordinates multiplied by `scale` (a power of two), `semimetric`
/// the semimetric of the scaled data. The points are kept once more, scaled and transposed
/// block by block (block q, the points `q·BLOCK..`, holds `dim × len_q` values, point-minor),
/// so that a run of points is read as short contiguous columns that stay in cache.
///
/// Squared distances are summed from coordinate differences, Σ_k (x_k − y_k)², for
/// D < [`EXPANSION_MIN_DIM`] (and D > [`EXPANSION_MAX_DIM`]); in between they are expanded,
/// ‖x‖² + ‖y‖² − 2⟨x, y⟩ (one fused multiply-add per coordinate, and several points x share
/// each load of the y), with the squared norms kept (O(n)) and every pair whose expansion may have cancelled
/// recomputed from differences ([`expansion_guard`]): relative error below 1e-12. Each pair
/// is computed by the same operations in the same order whether it is evaluated in a row
/// ([`DataRows::rho_point_then`]) or in a tile ([`PairwiseRows::tile_then`]).
#[derive(Debug, Clone)]
pub(crate) struct DataRows<'a> {
    points: Points<'a>,
    scale: f64,
    semimetric: Semimetric,
    transposed: Vec<f64>,
    /// ‖x_b‖² of the scaled points when the squared distances are expanded, else empty.
    norms: Vec<f64>,
    /// The cancellation guard ([`expansion_guard`]) when expanded.
    guard: f64,
}

/// Coordinates of at most this many values are scaled into a buffer on the stack.
const STACK_DIM: usize = 32;

impl<'a> DataRows<'a> {
    /// The rows of `points` in the frame given by `scale` and `semimetric` (that of the scaled
    /// data). Fails with [`KGroupsError::OutOfMemory`](crate::KGroupsError::OutOfMemory) (argument `arg`) when the transposed
    /// copy cannot be had.
    pub(crate) fn new(
        points: Points<'a>,
        scale: f64,
        semimetric: Semimetric,
        arg: &'static str,
    ) -> Result<Self> {
        let (n, dim) = (points.n(), points.dim());
        let total = n.checked_mul(dim).ok_or_else(|| {
            out_of_memory::<f64>(usize::MAX, arg, "a transposed copy of the data")
        })?;
        let mut transposed = try_filled(total, 0.0, arg, "a transposed copy of the data")?;
        transposed
            .par_chunks_mut(BLOCK.saturating_mul(dim))
            .enumerate()
            .for_each(|(q, block)| {
                let rows = block_range(q, BLOCK, n);
                let len = rows.len();
                for (j, i) in rows.enumerate() {
                    for (k, &v) in points.row(i).iter().enumerate() {
                        block[k * len + j] = v * scale;
                    }
                }
            });
        let (norms, guard) = if expands(dim) {
            let mut norms = try_filled(n, 0.0, arg, "the squared norms of the data")?;
            norms.par_iter_mut().enumerate().for_each(|(i, norm)| {
                // The same sum as `squared_norm` of the scaled row, without a buffer.
                *norm = points.row(i).iter().fold(0.0, |s, &v| {
                    let u = v * scale;
                    s + u * u
                });
            });
            (norms, expansion_guard(dim))
        } else {
            (Vec::new(), 0.0)
        };
        Ok(DataRows {
            points,
            scale,
            semimetric,
            transposed,
            norms,
            guard,
        })
    }

    /// Whether the squared distances are expanded (see [`DataRows`]).
    #[inline(always)]
    pub(super) fn expanded(&self) -> bool {
        !self.norms.is_empty()
    }

    /// `out[j] = ρ(x, y_{start + j})` for a point `x` given by its coordinates `row` (not
    /// scaled: of the data, of the same dimension), against the points y of these rows.
    #[inline]
    pub(crate) fn rho_point(&self, row: &[f64], start: usize, out: &mut [f64]) {
        self.rho_point_then(row, start, out, &());
    }

    /// [`DataRows::rho_point`], then `epilogue` on the values, in the same vectorised code.
    #[inline]
    pub(crate) fn rho_point_then<E: RunEpilogue>(
        &self,
        row: &[f64],
        start: usize,
        out: &mut [f64],
        epilogue: &E,
    ) {
        let norm = |xa: &[f64]| {
            if self.expanded() {
                squared_norm(xa)
            } else {
                0.0
            }
        };
        if self.scale == 1.0 {
            return simd::rho_in_frame(self, row, norm(row), start, out, epilogue);
        }
        // The point in the frame, in a stack (small D) or heap buffer.
        if row.len() <= STACK_DIM {
            let mut small = [0.0f64; STACK_DIM];
            for (b, &v) in small.iter_mut().zip(row) {
                *b = v * self.scale;
            }
            let xa = &small[..row.len()];
            simd::rho_in_frame(self, xa, norm(xa), start, out, epilogue);
        } else {
            let heap: Vec<f64> = row.iter().map(|&v| v * self.scale).collect();
            simd::rho_in_frame(self, &heap, norm(&heap), start, out, epilogue);
        }
    }

    /// [`DataRows::rho_point_then`] for point `a` of these rows.
    #[inline]
    pub(crate) fn rho_row_then<E: RunEpilogue>(
        &self,
        a: usize,
        start: usize,
        out: &mut [f64],
        epilogue: &E,
    ) {
        self.rho_point_then(self.points.row(a), start, out, epilogue);
    }

    /// The tile of the points `rows` against the run from `start` (`out` row-major, as
    /// [`PairwiseRows::tile_then`]), each row followed by the epilogue `epilogue_for(a)`. Expanded
    /// squared distances are evaluated [`TILE_ROWS`] rows at a time, each pair exactly as
    /// [`DataRows::rho_row_then`] evaluates it. Returns false once `control` is cancelled
    /// (checked between groups of rows).
    pub(crate) fn rho_tile_then<E: RunEpilogue, F: Fn(usize) -> E>(
        &self,
        rows: Range<usize>,
        start: usize,
        out: &mut [f64],
        control: &Control,
        epilogue_for: F,
    ) -> bool {
        if rows.is_empty() {
            return true;
        }
        let width = out.len() / rows.len();
        let dim = self.points.dim();
        let mut rows = rows;
        let mut out = out;
        // Buffers for the groups of rows: the run's points in the frame, packed in panels of
        // PANEL points (coordinate-major, PANEL values per coordinate, the last panel padded
        // with zeros) so that the kernel streams contiguous memory; the group's points row by
        // row and interleaved. Without them (out of memory), rows one by one: the same values.
        let panels_len = width
            .div_ceil(PANEL)
            .saturating_mul(PANEL)
            .saturating_mul(dim);
        let buffers = if self.expanded() && rows.len() >= TILE_ROWS && width > 0 {
            try_filled(panels_len, 0.0, "X", "a panel of points")
                .and_then(|p| {
                    Ok((
                        p,
                        try_filled(2 * TILE_ROWS * dim, 0.0, "X", "a group of points")?,
                    ))
                })
                .ok()
        } else {
            None
        };
        if let Some((mut panels, mut group)) = buffers {
            for (j, b) in (start..start + width).enumerate() {
                let at = (j / PANEL) * PANEL * dim + j % PANEL;
                for (k, &v) in self.points.row(b).iter().enumerate() {
                    panels[at + k * PANEL] = v * self.scale;
                }
            }
            let (scaled, interleaved) = group.split_at_mut(TILE_ROWS * dim);
            while rows.len() >= TILE_ROWS {
                if control.checkpoint().is_err() {
                    return false;
                }
                let (here, rest) = out.split_at_mut(TILE_ROWS * width);
                for (r, a) in (rows.start..rows.start + TILE_ROWS).enumerate() {
                    for (k, &v) in self.points.row(a).iter().enumerate() {
                        let u = v * self.scale;
                        scaled[r * dim + k] = u;
                        interleaved[k * TILE_ROWS + r] = u;
                    }
                }
                simd::rho_group_in_frame(
                    self,
                    (scaled, interleaved, &panels),
                    rows.start,
                    start,
                    here,
                    &epilogue_for,
                );
                out = rest;
                rows.start += TILE_ROWS;
            }
        }
        for (a, out) in rows.zip(out.chunks_exact_mut(width.max(1))) {
            if control.checkpoint().is_err() {
                return false;
            }
            self.rho_row_then(a, start, out, &epilogue_for(a));
        }
        true
    }

    /// [`DataRows::rho_point_then`] for `xa` already in the frame, `norm_a` its squared norm
    /// when the squared distances are expanded: squared distances block by block, then ρ,
    /// then the epilogue. Compiled into the portable, the AVX2 and the AVX-512 pair kernels
    /// of [`super::simd`].
    #[inline(always)]
    pub(super) fn rho_in_frame_portable<E: RunEpilogue>(
        &self,
        xa: &[f64],
        norm_a: f64,
        start: usize,
        out: &mut [f64],
        epilogue: &E,
    ) {
        if self.expanded() {
            for (b, block, offset, run) in self.block_runs(start, out) {
                let len = block.len() / xa.len();
                simd::dots_to_transposed::<1, 16>(
                    xa,
                    block,
                    len,
                    offset,
                    run.len(),
                    run,
                    run.len(),
                );
                self.expanded_squared_distances(xa, norm_a, block, len, offset, b, run);
            }
            rho_from_squared_distances(self.semimetric, xa, &self.points, start, self.scale, out);
        } else {
            /// The squared distances by differences, with ρ in the same pass where ρ's
            /// latency can hide behind the sums ([`RhoOfSquared::OVERLAPS`]); returns whether
            /// ρ was taken.
            struct Differences<'r, 'x, 'o, 'a> {
                rows: &'r DataRows<'a>,
                xa: &'x [f64],
                start: usize,
                out: &'o mut [f64],
            }
            impl WithRho for Differences<'_, '_, '_, '_> {
                type Output = bool;
                #[inline(always)]
                fn run<R: RhoOfSquared>(self, rho: R) -> bool {
                    let dim = self.xa.len();
                    for (_, block, offset, run) in self.rows.block_runs(self.start, self.out) {
                        let len = block.len() / dim;
                        if R::OVERLAPS {
                            simd::rho_of_differences_to_transposed(
                                self.xa, block, len, offset, run, rho,
                            );
                        } else {
                            simd::squared_distances_to_transposed(self.xa, block, len, offset, run);
                        }
                    }
                    R::OVERLAPS
                }
            }
            let fused = self.semimetric.with_rho(Differences {
                rows: self,
                xa,
                start,
                out: &mut *out,
            });
            if fused {
                // The data are finite and the frame keeps their squared distances finite, and
                // ρ of a finite d² ≥ 0 is never NaN: a NaN is a marked value. Counted (not
                // searched) so that the test vectorises.
                let marked = out.iter().fold(0usize, |c, v| c + usize::from(v.is_nan()));
                if marked > 0 {
                    rho_of_lost(self.semimetric, xa, &self.points, start, self.scale, out);
                }
            } else {
                rho_from_squared_distances(
                    self.semimetric,
                    xa,
                    &self.points,
                    start,
                    self.scale,
                    out,
                );
            }
        }
        epilogue.apply(start, out);
    }

    /// The runs of `out` (the values of the points from `start`) that lie in one transposed
    /// block each: `(b, block, offset, run)`, the run holding the points from `b`, at `offset`
    /// within `block` (its transposed coordinates, row stride `block.len() / D`).
    #[inline(always)]
    fn block_runs<'s, 'o>(
        &'s self,
        start: usize,
        out: &'o mut [f64],
    ) -> impl Iterator<Item = (usize, &'s [f64], usize, &'o mut [f64])> + use<'s, 'o, 'a> {
        let (n, dim) = (self.points.n(), self.points.dim());
        let mut rest = out;
        let mut b = start;
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let first = b - b % BLOCK;
            let len = BLOCK.min(n - first);
            let take = (first + len - b).min(rest.len());
            let (run, tail) = std::mem::take(&mut rest).split_at_mut(take);
            rest = tail;
            let item = (
                b,
                &self.transposed[first * dim..(first + len) * dim],
                b - first,
                run,
            );
            b += take;
            Some(item)
        })
    }

    /// [`DataRows::rho_in_frame_portable`] for the [`TILE_ROWS`] points from `first_row`
    /// (`group`: the points row by row in the frame, the same interleaved coordinate-major,
    /// and the run's points in panels, see [`DataRows::rho_tile_then`]), into `out`
    /// (row-major, [`TILE_ROWS`] rows), each row followed by its epilogue.
    ///
    /// `PANELS` panels are taken at once (`TILE_ROWS · PANEL · PANELS` accumulators: as many
    /// as the vector registers hold, 2 with AVX-512, 1 with AVX2); each pair's dot product is
    /// summed in coordinate order whatever `PANELS` is, so the values do not depend on it.
    #[inline(always)]
    pub(super) fn rho_group_in_frame_portable<
        const PANELS: usize,
        E: RunEpilogue,
        F: Fn(usize) -> E,
    >(
        &self,
        group: (&[f64], &[f64], &[f64]),
        first_row: usize,
        start: usize,
        out: &mut [f64],
        epilogue_for: &F,
    ) {
        let (scaled, interleaved, panels) = group;
        let (n, dim) = (self.points.n(), self.points.dim());
        let width = out.len() / TILE_ROWS;
        let mut copy_dots = |p: usize, dots: &[[f64; PANEL]; TILE_ROWS]| {
            let j = p * PANEL;
            let m = PANEL.min(width - j);
            for (row, d) in out.chunks_exact_mut(width).zip(dots) {
                row[j..j + m].copy_from_slice(&d[..m]);
            }
        };
        let mut wide = panels.chunks_exact(PANELS * PANEL * dim);
        let mut p = 0;
        for several in &mut wide {
            let dots = simd::dot_panels::<TILE_ROWS, PANEL, PANELS>(interleaved, several);
            for d in &dots {
                copy_dots(p, d);
                p += 1;
            }
        }
        for panel in wide.remainder().chunks_exact(PANEL * dim) {
            copy_dots(
                p,
                &simd::dot_panels::<TILE_ROWS, PANEL, 1>(interleaved, panel)[0],
            );
            p += 1;
        }
        let mut done = 0;
        while done < width {
            let b = start + done;
            let first = b - b % BLOCK;
            let len = BLOCK.min(n - first);
            let take = (first + len - b).min(width - done);
            let block = &self.transposed[first * dim..(first + len) * dim];
            for (r, row) in out.chunks_exact_mut(width).enumerate() {
                let xa = &scaled[r * dim..(r + 1) * dim];
                let norm_a = self.norms[first_row + r];
                let run = &mut row[done..done + take];
                self.expanded_squared_distances(xa, norm_a, block, len, b - first, b, run);
            }
            done += take;
        }
        for (r, row) in out.chunks_exact_mut(width).enumerate() {
            let xa = &scaled[r * dim..(r + 1) * dim];
            rho_from_squared_distances(self.semimetric, xa, &self.points, start, self.scale, row);
            epilogue_for(first_row + r).apply(start, row);
        }
    }

    /// Turns the dot products `d2[j] = ⟨xa, y_{b + j}⟩` into squared distances, expanded, then
    /// recomputes from differences those the guard doubts (see [`expansion_guard`]). `block`
    /// is the transposed block (row stride `stride`) holding the points from `b` at `offset`.
    #[allow(clippy::too_many_arguments)] // one run of one transposed block, as the kernels take it
    #[inline(always)]
    fn expanded_squared_distances(
        &self,
        xa: &[f64],
        norm_a: f64,
        block: &[f64],
        stride: usize,
        offset: usize,
        b: usize,
        d2: &mut [f64],
    ) {
        let guard = self.guard;
        let norms = &self.norms[b..b + d2.len()];
        let mut doubtful = 0usize;
        for (v, &norm_b) in d2.iter_mut().zip(norms) {
            let s = norm_a + norm_b;
            let e = s - 2.0 * *v;
            doubtful += usize::from(!expansion_is_accurate(e, s, guard));
            *v = e;
        }
        if doubtful == 0 {
            return;
        }
        // The doubted pairs from differences: one by one when few, else the whole run by the
        // vectorised routine (the same sums, so the same bits).
        let mut exact = [0.0f64; BLOCK];
        let exact = &mut exact[..d2.len()];
        let many = doubtful > d2.len() / 8;
        if many {
            simd::squared_distances_to_transposed(xa, block, stride, offset, exact);
        }
        for (j, (v, &norm_b)) in d2.iter_mut().zip(norms).enumerate() {
            if !expansion_is_accurate(*v, norm_a + norm_b, guard) {
                *v = if many {
                    exact[j]
                } else {
                    squared_distance_scaled(xa, self.points.row(b + j), self.scale)
                };
            }
        }
    }
}

/// Rows of a tile evaluated at once from expanded squared distances (they share the loads of
/// the points of the run).
pub(crate) const TILE_ROWS: usize = 4;

/// Points of a run per panel of the tile kernel (two AVX2 vectors; with [`TILE_ROWS`] rows,
/// eight accumulators).
pub(crate) const PANEL: usize = 8;

impl PairwiseRows for DataRows<'_> {
    fn n(&self) -> usize {
        self.points.n()
    }

    #[inline]
    fn values(&self, a: usize, start: usize, out: &mut [f64]) {
        self.rho_point(self.points.row(a), start, out);
    }

    fn cost_per_value(&self) -> usize {
        3 * self.points.dim() + 16
    }

    fn tile_then<E: RunEpilogue, F: Fn(usize) -> E>(
        &self,
        rows: Range<usize>,
        start: usize,
        out: &mut [f64],
        control: &Control,
        epilogue_for: F,
    ) -> bool {
        self.rho_tile_then(rows, start, out, control, epilogue_for)
    }
}

/// A squared distance below the normal range has lost its digits (a distance under ~1e-154,
/// e.g. between two close points of data that also hold values near the float limits, where
/// it matters for a small alpha): it is marked NaN (ρ of NaN is NaN for every semimetric) for
/// [`rho_of_lost`] to evaluate from the distance itself. Identical points take that path too.
#[inline(always)]
pub(super) fn mark_lost(d2: f64) -> f64 {
    if d2 < f64::MIN_POSITIVE {
        f64::NAN
    } else {
        d2
    }
}

/// Turns the squared distances `d2[j]` between `xa` (a point already in the frame) and the
/// points `first + j` of `y` (multiplied by `scale` into the frame) into ρ, those below the
/// normal range through [`mark_lost`] and [`rho_of_lost`].
#[inline(always)]
fn rho_from_squared_distances(
    semimetric: Semimetric,
    xa: &[f64],
    y: &Points,
    first: usize,
    scale: f64,
    d2: &mut [f64],
) {
    let mut lost = false;
    for v in d2.iter_mut() {
        lost |= *v < f64::MIN_POSITIVE;
        *v = mark_lost(*v);
    }
    semimetric.apply_to_squared_distances(d2);
    if lost {
        rho_of_lost(semimetric, xa, y, first, scale, d2);
    }
}

/// Replaces every NaN of `values` (ρ of a marked squared distance, see [`mark_lost`]) between
/// `xa` (in the frame) and the point `first + j` of `y` (multiplied by `scale` into the frame)
/// by ρ evaluated from the distance itself, m·√Σ(Δ_k/m)² with m = max_k |Δ_k|
/// ([`Semimetric::from_distance`]); identical points give 0.
#[cold]
fn rho_of_lost(
    semimetric: Semimetric,
    xa: &[f64],
    y: &Points,
    first: usize,
    scale: f64,
    values: &mut [f64],
) {
    for (j, value) in values.iter_mut().enumerate() {
        if value.is_nan() {
            let yb = y.row(first + j);
            let delta = |u: f64, v: f64| u - v * scale;
            let m = xa
                .iter()
                .zip(yb)
                .fold(0.0f64, |m, (&u, &v)| m.max(delta(u, v).abs()));
            *value = if m == 0.0 {
                0.0
            } else {
                let s: f64 = xa
                    .iter()
                    .zip(yb)
                    .map(|(&u, &v)| (delta(u, v) / m).powi(2))
                    .sum();
                semimetric.from_distance(m * s.sqrt())
            };
        }
    }
}

/// Σ_k (a_k − scale·y_k)², summed in coordinate order: [`squared_distance`](super::rows::squared_distance) of `a` and the
/// point `y` taken into the frame.
#[inline]
fn squared_distance_scaled(a: &[f64], y: &[f64], scale: f64) -> f64 {
    let mut s = 0.0;
    for (&u, &v) in a.iter().zip(y) {
        let d = u - v * scale;
        s = d.mul_add(d, s);
    }
    s
}
