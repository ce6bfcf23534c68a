//! Rows of pairwise values: the one abstraction through which the dense Gram builders, the
//! matrix-free kernel and the statistics evaluate pairs of points.
//!
//! A [`PairwiseRows`] gives `v(a, b)` for one point `a` and a run of consecutive points `b`.
//! Its sources: data ([`DataRows`](super::data_rows::DataRows), in its own module: ρ of
//! coordinates in a frame scaled by a power of two, transposed block by block so that a run
//! is evaluated with vectorised loops), a user's
//! semimetric matrix ([`SemimetricRows`]) and a user's Gram matrix ([`GramRows`]); the
//! matrix-free kernel turns the data rows into kernel values inside the vectorised loop (a
//! [`RunEpilogue`]). The tile scheduler of the dense builders and the row passes of the
//! statistics read any of them.

use std::ops::Range;

use super::{Points, Semimetric};
use crate::control::Control;
use crate::error::{KGroupsError, Result};

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

    /// `out[i·w + j] = v(rows.start + i, start + j)` with `w = out.len() / rows.len()`: the
    /// rows of a tile, each value computed exactly as [`PairwiseRows::values`] computes it (a
    /// source may evaluate several rows at once to share its loads), each row `a` then
    /// transformed by the epilogue `epilogue_for(a)` (sources that evaluate runs in vector
    /// registers apply it there, before the values are stored; `|_| ()` for none). Returns
    /// false (leaving `out` partly filled) once `control` is cancelled; it is checked between
    /// rows or small groups of rows.
    fn tile_then<E: RunEpilogue, F: Fn(usize) -> E>(
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
        for (a, out) in rows.zip(out.chunks_exact_mut(width)) {
            if control.checkpoint().is_err() {
                return false;
            }
            self.values(a, start, out);
            epilogue_for(a).apply(start, out);
        }
        true
    }
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

/// One epilogue, then the other.
impl<A: RunEpilogue, B: RunEpilogue> RunEpilogue for (A, B) {
    #[inline(always)]
    fn apply(&self, start: usize, values: &mut [f64]) {
        self.0.apply(start, values);
        self.1.apply(start, values);
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

/// Σ_k (a_k − b_k)², summed in coordinate order, each square added by a fused multiply-add
/// (as the vectorised pair kernel adds it).
#[inline]
pub(crate) fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (&u, &v) in a.iter().zip(b) {
        let d = u - v;
        s = d.mul_add(d, s);
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
    super::simd::squared_distances_to_rows_dispatch(x.row(i), x.data(), x.dim(), out);
    Ok(())
}

/// `out[y] = ` [`squared_distance`]`(xi, row y of data)` (`data` row-major with `dim`
/// columns, `out.len()` rows), four rows at a time: four independent sums, each still in
/// coordinate order (the same bits as one at a time), so that the adds of one sum do not
/// wait on each other's latency.
#[inline(always)]
pub(crate) fn squared_distances_to_rows_portable(
    xi: &[f64],
    data: &[f64],
    dim: usize,
    out: &mut [f64],
) {
    let xi = &xi[..dim];
    let mut blocks = out.chunks_exact_mut(4);
    let mut rows = data.chunks_exact(dim.max(1));
    for o in blocks.by_ref() {
        let (Some(r0), Some(r1), Some(r2), Some(r3)) =
            (rows.next(), rows.next(), rows.next(), rows.next())
        else {
            return;
        };
        let (r0, r1, r2, r3) = (&r0[..dim], &r1[..dim], &r2[..dim], &r3[..dim]);
        let mut s = [0.0f64; 4];
        for k in 0..dim {
            let u = xi[k];
            let d = [u - r0[k], u - r1[k], u - r2[k], u - r3[k]];
            for (s, d) in s.iter_mut().zip(d) {
                *s = d.mul_add(d, *s);
            }
        }
        o.copy_from_slice(&s);
    }
    for (o, row) in blocks.into_remainder().iter_mut().zip(rows) {
        *o = squared_distance(xi, row);
    }
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
