//! Rows of pairwise values: the one abstraction through which the dense Gram builders, the
//! matrix-free kernel and the statistics evaluate pairs of points.
//!
//! A [`PairwiseRows`] gives `v(a, b)` for one point `a` and a run of consecutive points `b`.
//! Its sources: data ([`DataRows`]: ρ of coordinates in a frame scaled by a power of two,
//! transposed block by block so that a run is evaluated with vectorised loops), a user's
//! semimetric matrix ([`SemimetricRows`]) and a user's Gram matrix ([`GramRows`]); the
//! matrix-free kernel turns the data rows into kernel values inside the vectorised loop (a
//! [`RunEpilogue`]). The tile scheduler of the dense builders and the row passes of the
//! statistics read any of them.

use std::ops::Range;

use rayon::prelude::*;

use super::simd;
use super::{Points, Semimetric};
use crate::error::{out_of_memory, try_filled, KGroupsError, Result};

/// Points per block of the transposed data, and the side of the tiles of the dense builders.
/// A 256 × 256 tile of f64 (512 KiB) stays in L2, and each output row receives runs of 2 KiB
/// per tile. The value must not depend on the number of threads (centred row sums are
/// accumulated tile by tile).
pub(crate) const BLOCK: usize = 256;

/// The indices of block `p` of `bs` points out of `n`.
#[inline]
pub(crate) fn block_range(p: usize, bs: usize, n: usize) -> Range<usize> {
    let start = p * bs;
    start..(start + bs).min(n)
}

/// Rows of a symmetric function of pairs of points, v(a, b) = v(b, a), a run of consecutive `b`
/// at a time: semimetric values ρ(x_a, x_b) (or ρ times a power of two, as the source says),
/// or kernel values computed from them.
pub(crate) trait PairwiseRows: Sync {
    /// Number of points.
    fn n(&self) -> usize;

    /// `out[j] = v(a, start + j)` for `a < n` and `start + out.len() <= n`.
    fn values(&self, a: usize, start: usize, out: &mut [f64]);

    /// Rough floating-point work of one value, for sizing groups of rows between two
    /// cancellation checkpoints.
    fn cost_per_value(&self) -> usize;
}

/// Work on a run of values right after they are evaluated, compiled into the same vectorised
/// pair kernel (for instance turning ρ into kernel values). Implementations mark `apply`
/// `#[inline(always)]`, so that it is compiled for the vector width of the kernel.
pub(crate) trait RunEpilogue {
    /// Transforms `values[j]`, the value of the pair with point `start + j`.
    fn apply(&self, start: usize, values: &mut [f64]);
}

/// No epilogue: the values stay ρ.
impl RunEpilogue for () {
    #[inline(always)]
    fn apply(&self, _start: usize, _values: &mut [f64]) {}
}

/// ρ from data in a frame: coordinates multiplied by `scale` (a power of two), `semimetric`
/// the semimetric of the scaled data. The points are kept once more, scaled and transposed
/// block by block (block q, the points `q·BLOCK..`, holds `dim × len_q` values, point-minor),
/// so that a run of points is read as short contiguous columns that stay in cache.
#[derive(Debug, Clone)]
pub(crate) struct DataRows<'a> {
    points: Points<'a>,
    scale: f64,
    semimetric: Semimetric,
    transposed: Vec<f64>,
}

/// Coordinates of at most this many values are scaled into a buffer on the stack.
const STACK_DIM: usize = 32;

impl<'a> DataRows<'a> {
    /// The rows of `points` in the frame given by `scale` and `semimetric` (that of the scaled
    /// data). Fails with [`KGroupsError::OutOfMemory`] (argument `arg`) when the transposed
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
        Ok(DataRows {
            points,
            scale,
            semimetric,
            transposed,
        })
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
        if self.scale == 1.0 {
            return simd::rho_in_frame(self, row, start, out, epilogue);
        }
        // The point in the frame, in a stack (small D) or heap buffer.
        if row.len() <= STACK_DIM {
            let mut small = [0.0f64; STACK_DIM];
            for (b, &v) in small.iter_mut().zip(row) {
                *b = v * self.scale;
            }
            simd::rho_in_frame(self, &small[..row.len()], start, out, epilogue);
        } else {
            let heap: Vec<f64> = row.iter().map(|&v| v * self.scale).collect();
            simd::rho_in_frame(self, &heap, start, out, epilogue);
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

    /// [`DataRows::rho_point_then`] for `xa` already in the frame: squared distances block by
    /// block, then ρ, then the epilogue. Compiled into the portable and the AVX2 pair kernels
    /// of [`super::simd`].
    #[inline(always)]
    pub(super) fn rho_in_frame_portable<E: RunEpilogue>(
        &self,
        xa: &[f64],
        start: usize,
        out: &mut [f64],
        epilogue: &E,
    ) {
        let (n, dim) = (self.points.n(), self.points.dim());
        let mut done = 0;
        while done < out.len() {
            let b = start + done;
            let first = b - b % BLOCK;
            let len = BLOCK.min(n - first);
            let take = (first + len - b).min(out.len() - done);
            let block = &self.transposed[first * dim..(first + len) * dim];
            simd::squared_distances_to_transposed(
                xa,
                block,
                len,
                b - first,
                &mut out[done..done + take],
            );
            done += take;
        }
        rho_from_squared_distances(self.semimetric, xa, &self.points, start, self.scale, out);
        epilogue.apply(start, out);
    }
}

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
}

/// The entry of the pair (a, b) in the upper triangle (with the diagonal) of the row-major n×n
/// matrix `m`.
#[inline(always)]
fn upper_entry(m: &[f64], n: usize, a: usize, b: usize) -> f64 {
    if a <= b {
        m[a * n + b]
    } else {
        m[b * n + a]
    }
}

/// ρ from a validated n×n semimetric matrix R (row-major) times `factor`; only its upper
/// triangle (a < b) is read, and its diagonal is taken as exactly 0.
pub(crate) struct SemimetricRows<'a> {
    pub(crate) r: &'a [f64],
    pub(crate) n: usize,
    pub(crate) factor: f64,
}

impl PairwiseRows for SemimetricRows<'_> {
    fn n(&self) -> usize {
        self.n
    }

    #[inline]
    fn values(&self, a: usize, start: usize, out: &mut [f64]) {
        let n = self.n;
        let end = start + out.len();
        let factor = self.factor;
        if a < start {
            let row = &self.r[a * n + start..a * n + end];
            if factor == 1.0 {
                out.copy_from_slice(row);
            } else {
                for (o, &v) in out.iter_mut().zip(row) {
                    *o = v * factor;
                }
            }
            return;
        }
        for (o, b) in out.iter_mut().zip(start..end) {
            let v = if a == b {
                0.0
            } else {
                upper_entry(self.r, n, a, b)
            };
            *o = v * factor; // exact for factor 1
        }
    }

    fn cost_per_value(&self) -> usize {
        2
    }
}

/// ρ from an n×n Gram matrix G (row-major): ρ(a, b) = G_aa + G_bb − 2G_ab, evaluated on G
/// times `factor` (`diagonal[b] = G_bb · factor`), reading only the upper triangle.
pub(crate) struct GramRows<'a> {
    pub(crate) g: &'a [f64],
    pub(crate) n: usize,
    pub(crate) diagonal: Vec<f64>,
    pub(crate) factor: f64,
}

impl PairwiseRows for GramRows<'_> {
    fn n(&self) -> usize {
        self.n
    }

    #[inline]
    fn values(&self, a: usize, start: usize, out: &mut [f64]) {
        let n = self.n;
        let end = start + out.len();
        let gaa = self.diagonal[a];
        let diag = &self.diagonal[start..end];
        if a < start {
            let row = &self.g[a * n + start..a * n + end];
            for ((o, &gbb), &gab) in out.iter_mut().zip(diag).zip(row) {
                *o = (gaa + gbb) - 2.0 * (gab * self.factor);
            }
            return;
        }
        for ((o, &gbb), b) in out.iter_mut().zip(diag).zip(start..end) {
            let gab = upper_entry(self.g, n, a, b);
            *o = (gaa + gbb) - 2.0 * (gab * self.factor);
        }
    }

    fn cost_per_value(&self) -> usize {
        3
    }
}

/// Turns the squared distances `d2[j]` between `xa` (a point already in the frame) and the
/// points `first + j` of `y` (multiplied by `scale` into the frame) into ρ. A square below
/// the normal range has lost its digits (a distance under ~1e-154, e.g. between two close
/// points of data that also hold values near the float limits, where it matters for a small
/// alpha): such a pair is evaluated from the distance itself, m·√Σ(Δ_k/m)² with
/// m = max_k |Δ_k| ([`Semimetric::from_distance`]). Identical points take that path too and
/// give 0.
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
        if *v < f64::MIN_POSITIVE {
            *v = f64::NAN; // marked: ρ of NaN is NaN for every semimetric
            lost = true;
        }
    }
    semimetric.apply_to_squared_distances(d2);
    if !lost {
        return;
    }
    for (j, value) in d2.iter_mut().enumerate() {
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

/// Σ_k (a_k − b_k)², summed in coordinate order.
#[inline]
pub(crate) fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (&u, &v) in a.iter().zip(b) {
        let d = u - v;
        s += d * d;
    }
    s
}

/// Checks the arguments of the single-row functions: `i < n` (argument `"i"`) and
/// `out.len() == n` (argument `"out"`).
fn check_row_arguments(x: &Points, i: usize, out: &[f64]) -> Result<()> {
    if i >= x.n() {
        return Err(KGroupsError::invalid(
            "i",
            format!(
                "point index i = {i} is out of range for n = {} points",
                x.n()
            ),
        ));
    }
    if out.len() != x.n() {
        return Err(KGroupsError::invalid(
            "out",
            format!(
                "out has length {} but must have length n = {}",
                out.len(),
                x.n()
            ),
        ));
    }
    Ok(())
}

/// Squared Euclidean distances from point `i` to every point, `out[y] = Σ_k (x_ik − x_yk)²`
/// (coordinate differences, accurate also for near-identical points). Errors when `i >= n`
/// (argument `"i"`) or `out.len() != n` (argument `"out"`).
///
/// ```
/// use kgroups::distance::{squared_distances_from, Points};
/// let x = Points::new(&[0.0, 0.0, 3.0, 4.0], 2, 2).unwrap();
/// let mut out = [0.0; 2];
/// squared_distances_from(&x, 0, &mut out).unwrap();
/// assert_eq!(out, [0.0, 25.0]);
/// assert!(squared_distances_from(&x, 2, &mut out).is_err());
/// ```
pub fn squared_distances_from(x: &Points, i: usize, out: &mut [f64]) -> Result<()> {
    check_row_arguments(x, i, out)?;
    let xi = x.row(i);
    for (y, o) in out.iter_mut().enumerate() {
        *o = squared_distance(xi, x.row(y));
    }
    Ok(())
}

/// ρ(x_i, x_y) for every point y, into `out` (length n): a kernel-row source for matrix-free
/// use. Errors as [`squared_distances_from`].
///
/// ```
/// use kgroups::distance::{semimetric_row, Points, Semimetric};
/// let x = Points::new(&[0.0, 0.0, 3.0, 4.0], 2, 2).unwrap();
/// let mut out = [0.0; 2];
/// semimetric_row(&x, Semimetric::Power { alpha: 1.0 }, 1, &mut out).unwrap();
/// assert_eq!(out, [5.0, 0.0]);
/// assert!(semimetric_row(&x, Semimetric::Power { alpha: 1.0 }, 0, &mut [0.0; 3]).is_err());
/// ```
pub fn semimetric_row(x: &Points, semimetric: Semimetric, i: usize, out: &mut [f64]) -> Result<()> {
    squared_distances_from(x, i, out)?;
    semimetric.apply_to_squared_distances(out);
    Ok(())
}
