//! The one symmetry rule for kernel matrices supplied by a caller (dense in either memory
//! order, CSR, and the Gram input of the statistics):
//!
//! ```text
//! |G_ab − G_ba| ≤ tol · max(|G_ab|, |G_ba|, √|G_aa| · √|G_bb|)
//! ```
//!
//! with `tol` = 1e-9 for f64 and 1e-5 for f32 matrices ([`KernelElement::SYMMETRY_TOLERANCE`]).
//! Each pair is judged on its own scale: its own entries, and the geometric mean of the two
//! diagonal entries, which bounds `|G_ab|` for a positive semi-definite kernel and sets the
//! size of its rounding errors. The rule is symmetric in `a` and `b`, so row-major and
//! column-major storage of the same matrix get the same verdict; it never overflows (a
//! difference that overflows is infinite and fails, as it should).

use crate::control::Control;
use crate::error::{KGroupsError, Result};
use crate::kernel::KernelElement;
use rayon::prelude::*;

/// Whether the pair `(upper, lower) = (G_ab, G_ba)` passes the rule, with
/// `root_a = √|G_aa|`, `root_b = √|G_bb|` (false when either entry is not finite).
///
/// ```
/// use kgroups::validate::symmetry::pair_is_symmetric;
/// assert!(pair_is_symmetric(1.0, 1.0 + 1e-12, 1.0, 1.0, 1e-9));
/// assert!(!pair_is_symmetric(1.0, 2.9, 1e5, 1.0, 1e-9)); // a huge G_aa does not excuse it
/// assert!(!pair_is_symmetric(1e308, -1e308, 1.0, 1.0, 1e-9));
/// ```
#[inline]
pub fn pair_is_symmetric(upper: f64, lower: f64, root_a: f64, root_b: f64, tolerance: f64) -> bool {
    let scale = upper.abs().max(lower.abs()).max(root_a * root_b);
    (upper - lower).abs() <= tolerance * scale
}

/// `√|G_ii|` for every `i` (the per-point scale of the rule).
pub(crate) fn root_diagonal<T: KernelElement>(data: &[T], n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| data[i * n + i].widen().abs().sqrt())
        .collect()
}

/// Checks that the dense `n × n` matrix `data` (`data.len() == n * n`) is finite and passes
/// the rule, naming `argument` and the first offending entry otherwise.
///
/// Every pair is compared with its mirror, in 128 × 128 tiles: bit for bit first
/// (cheap; exactly symmetric matrices such as those of [`crate::energy_gram`] or
/// `(G + G.T) / 2` end there), then by the rule where a tile's bits differ. A block of rows
/// that fails is searched again in 64 × 64 tiles, in order, to name the first
/// offending entry.
///
/// ```
/// use kgroups::validate::symmetry::check_dense;
/// assert!(check_dense(&[1.0, 0.5, 0.5, 1.0], 2, "G").is_ok());
/// assert!(check_dense(&[1.0, 0.5, 0.4, 1.0], 2, "G").is_err());
/// assert!(check_dense(&[1.0, f64::NAN, 0.5, 1.0], 2, "G").is_err());
/// ```
pub fn check_dense<T: KernelElement>(data: &[T], n: usize, argument: &'static str) -> Result<()> {
    check_dense_with_control(data, n, argument, &Control::new())
}

/// [`check_dense`] that stops with [`KGroupsError::Interrupted`] once `control` is
/// cancelled (checked between row blocks); the same verdict and error otherwise.
pub fn check_dense_with_control<T: KernelElement>(
    data: &[T],
    n: usize,
    argument: &'static str,
    control: &Control,
) -> Result<()> {
    super::square(data.len(), n, argument)?;
    let roots = root_diagonal(data, n);
    let tolerance = T::SYMMETRY_TOLERANCE;
    // Each task owns a block of rows and compares its upper-triangle tiles with the mirrored
    // entries, read straight from the columns (a tile's mirror is a few cache lines per row,
    // all reused within the tile). The tests are branch-free so that they vectorise; only a
    // tile that fails them is scanned again, entry by entry, to name the first offending
    // entry.
    // Once cancelled, every block left is skipped (and the result is Interrupted below).
    let first_problem_in_block = |block: usize| {
        control.checkpoint().ok()?;
        let rows = block * BLOCK..((block + 1) * BLOCK).min(n);
        for col_start in (rows.start..n).step_by(BLOCK) {
            let cols = col_start..(col_start + BLOCK).min(n);
            if tile_is_bad(data, n, rows.clone(), cols.clone(), tolerance, &roots) {
                return first_problem_in_tile(data, n, rows.clone(), cols, tolerance, &roots);
            }
        }
        None
    };
    // A block that passes has no problem at all; one that fails is searched again
    // [`BLOCK`] rows at a time, in order, so that the error names the first offending entry.
    const PER_FAST: usize = FAST_BLOCK / BLOCK;
    let first_problem = (0..n.div_ceil(FAST_BLOCK))
        .into_par_iter()
        .map(|fast_block| {
            control.checkpoint().ok()?;
            let rows = fast_block * FAST_BLOCK..((fast_block + 1) * FAST_BLOCK).min(n);
            if !block_is_bad(data, n, rows.clone(), tolerance, &roots) {
                return None;
            }
            (fast_block * PER_FAST..(fast_block + 1) * PER_FAST)
                .take_while(|block| block * BLOCK < n)
                .find_map(first_problem_in_block)
        })
        .find_first(|problem| problem.is_some())
        .flatten();
    control.checkpoint()?;
    match first_problem {
        None => Ok(()),
        Some(Problem::NotFinite(a, b)) => Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument} contains NaN or infinity at ({a}, {b}); all entries must be finite"
            ),
        )),
        Some(Problem::Asymmetric(a, b, upper, lower)) => Err(asymmetry_error(
            argument,
            a,
            b,
            upper,
            lower,
            tolerance,
            "(G + G.T) / 2",
        )),
    }
}

/// The error for a pair that fails the rule (`remedy`: how to symmetrise).
pub(crate) fn asymmetry_error(
    argument: &'static str,
    a: usize,
    b: usize,
    upper: f64,
    lower: f64,
    tolerance: f64,
    remedy: &str,
) -> KGroupsError {
    KGroupsError::invalid(
        argument,
        format!(
            "the kernel matrix {argument} is not symmetric: {argument}[{a}, {b}] = {upper:e} but \
             {argument}[{b}, {a}] = {lower:e} \
             (allowed relative difference {tolerance:e} of the larger of |G_ab|, |G_ba| and \
             sqrt(|G_aa| |G_bb|); a missing sparse entry is 0); pass a symmetric matrix, e.g. {remedy}"
        ),
    )
}

/// Row blocks of this many rows are checked by one task.
const BLOCK: usize = 64;

enum Problem {
    NotFinite(usize, usize),
    Asymmetric(usize, usize, f64, f64),
}

/// The entry-by-entry scan of a tile that failed the fast test.
fn first_problem_in_tile<T: KernelElement>(
    data: &[T],
    n: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    tolerance: f64,
    roots: &[f64],
) -> Option<Problem> {
    for a in rows.clone() {
        for b in cols.clone() {
            for (i, j) in [(a, b), (b, a)] {
                if !data[i * n + j].widen().is_finite() {
                    return Some(Problem::NotFinite(i, j));
                }
            }
        }
    }
    for a in rows {
        for b in cols.clone().filter(|&b| b > a) {
            let (upper, lower) = (data[a * n + b].widen(), data[b * n + a].widen());
            if !pair_is_symmetric(upper, lower, roots[a], roots[b], tolerance) {
                return Some(Problem::Asymmetric(a, b, upper, lower));
            }
        }
    }
    None
}

/// `if a > b { a } else { b }`: compiles to a vector max (unlike `f64::max`, whose NaN rule
/// blocks vectorisation); NaN is tracked separately by the caller.
#[inline(always)]
fn greater(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

/// The fast test of one tile `rows × cols` of the upper triangle against its mirror: true when
/// some pair is not finite or fails [`pair_is_symmetric`]. Exactly the rule of the scan
/// (`x − y > 0` iff `x > y` in IEEE arithmetic, and the scale is the same maximum), over four
/// independent lanes so that the loop vectorises.
#[inline]
pub(crate) fn tile_is_bad<T: KernelElement>(
    data: &[T],
    n: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    tolerance: f64,
    roots: &[f64],
) -> bool {
    const LANES: usize = 4;
    // excess: the largest |u − l| − allowed; non_finite: Σ (u·0 + l·0), which is exactly 0
    // for finite pairs (however large) and NaN as soon as either entry is NaN or infinite.
    let mut excess = [f64::NEG_INFINITY; LANES];
    let mut non_finite = [0.0f64; LANES];
    let mut check = |lane: usize, u: f64, l: f64, root_product: f64| {
        non_finite[lane] += u * 0.0 + l * 0.0;
        let allowed = tolerance * greater(greater(u.abs(), l.abs()), root_product);
        excess[lane] = greater(excess[lane], (u - l).abs() - allowed);
    };
    for a in rows {
        let upper = &data[a * n + cols.start..a * n + cols.end];
        let root_a = roots[a];
        let mut chunks = upper.chunks_exact(LANES);
        let mut b = cols.start;
        for u in &mut chunks {
            // The mirror entries G[b.., a]: one cache line per row b, reused for the next a.
            let l: [f64; LANES] = std::array::from_fn(|t| data[(b + t) * n + a].widen());
            for t in 0..LANES {
                check(t, u[t].widen(), l[t], root_a * roots[b + t]);
            }
            b += LANES;
        }
        for u in chunks.remainder() {
            check(0, u.widen(), data[b * n + a].widen(), root_a * roots[b]);
            b += 1;
        }
    }
    let worst = excess.iter().fold(f64::NEG_INFINITY, |a, &b| greater(a, b));
    non_finite.iter().any(|&v| v != 0.0) || worst > 0.0
}

/// Rows (and columns) of the tiles of the fast test of [`check_dense`]: a 128 × 128 mirror tile
/// (128 KiB in f64) stays in a 512 KiB L2 cache while the tile is read, and each mirror row is
/// read in segments of 1 KiB — long enough for the hardware prefetchers, unlike the 512 B
/// segments of [`BLOCK`]-sized tiles. Measured in `benches/bench_symmetry.py`.
const FAST_BLOCK: usize = 128;

/// True when some pair of the tile `rows × cols` differs from its mirror in its bits or is not
/// finite. A tile for which this is false passes [`pair_is_symmetric`] in every pair (a
/// difference of 0 is within any tolerance). Widening is exact and one-to-one on finite values,
/// so the test is the same for f32 and f64.
#[inline(always)]
pub(crate) fn tile_differs_bitwise<T: KernelElement>(
    data: &[T],
    n: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(data) = T::as_f64(data) {
        if crate::distance::wide_vectors() {
            // SAFETY: `f64_tile_differs_bitwise_avx2` requires only AVX2, which
            // `wide_vectors` has just detected at run time.
            return unsafe { f64_tile_differs_bitwise_avx2(data, n, rows, cols) };
        }
    }
    const M: usize = 4;
    // differ: OR of u ^ l over the bits; non_finite: Σ u·0 (0 unless some u is NaN or
    // infinite; where u and l have the same bits, l is finite exactly when u is).
    let mut differ = [0u64; M];
    let mut non_finite = [0.0f64; M];
    // M × M blocks: M contiguous runs of the tile against M contiguous runs of its mirror
    // (rows b.. at columns a..), so every load is a short vector instead of a strided scalar.
    let full_rows = rows.start + (rows.len() - rows.len() % M);
    let full_cols = cols.start + (cols.len() - cols.len() % M);
    for a in (rows.start..full_rows).step_by(M) {
        for b in (cols.start..full_cols).step_by(M) {
            let upper: [[f64; M]; M] = std::array::from_fn(|t| {
                let run = &data[(a + t) * n + b..(a + t) * n + b + M];
                std::array::from_fn(|s| run[s].widen())
            });
            let mirror: [[f64; M]; M] = std::array::from_fn(|s| {
                let run = &data[(b + s) * n + a..(b + s) * n + a + M];
                std::array::from_fn(|t| run[t].widen())
            });
            for t in 0..M {
                for s in 0..M {
                    differ[s] |= upper[t][s].to_bits() ^ mirror[s][t].to_bits();
                    non_finite[s] += upper[t][s] * 0.0;
                }
            }
        }
    }
    // The edges: the last rows (all columns) and the last columns (the full rows).
    let mut scalar = |a: usize, b: usize| {
        let u = data[a * n + b].widen();
        differ[0] |= u.to_bits() ^ data[b * n + a].widen().to_bits();
        non_finite[0] += u * 0.0;
    };
    for a in full_rows..rows.end {
        cols.clone().for_each(|b| scalar(a, b));
    }
    for a in rows.start..full_rows {
        (full_cols..cols.end).for_each(|b| scalar(a, b));
    }
    differ.iter().any(|&v| v != 0) || non_finite.iter().any(|&v| v != 0.0)
}

/// The 4 × 4 block of f64 held in four rows, transposed: `out[t][s] = rows[s][t]`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn transpose_4x4(rows: [std::arch::x86_64::__m256d; 4]) -> [std::arch::x86_64::__m256d; 4] {
    use std::arch::x86_64::*;
    let [m0, m1, m2, m3] = rows;
    let (t0, t1) = (_mm256_unpacklo_pd(m0, m1), _mm256_unpackhi_pd(m0, m1));
    let (t2, t3) = (_mm256_unpacklo_pd(m2, m3), _mm256_unpackhi_pd(m2, m3));
    [
        _mm256_permute2f128_pd::<0x20>(t0, t2),
        _mm256_permute2f128_pd::<0x20>(t1, t3),
        _mm256_permute2f128_pd::<0x31>(t0, t2),
        _mm256_permute2f128_pd::<0x31>(t1, t3),
    ]
}

/// [`tile_differs_bitwise`] of an f64 matrix with AVX2: 8 × 8 blocks of the tile against
/// their mirrors, as four 4 × 4 blocks each transposed in registers (rows of four loaded as
/// vectors, no strided reads); non-finite values found as `u − u`, whose bits are 0 exactly
/// when `u` is finite. A block reads whole 64-byte lines of eight rows and eight mirror rows
/// and is done with them: where the row stride is a power of two (n = 16 384), the mirror
/// rows all fall in the same cache sets, and a line left for a later block would be evicted
/// and read from memory again. The same verdict as the portable loop (a test compares them).
///
/// # Safety
/// The CPU must support AVX2 (the caller detects it first). Every load reads four values
/// of a slice of `data` taken with bounds checks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn f64_tile_differs_bitwise_avx2(
    data: &[f64],
    n: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> bool {
    use std::arch::x86_64::*;
    const M: usize = 4;
    const BLOCK: usize = 2 * M;
    let load = |r: usize, c: usize| -> __m256d {
        let run = &data[r * n + c..r * n + c + M];
        // SAFETY: `run` holds M = 4 f64 values (the slice above is bounds-checked), which
        // is what an unaligned 256-bit load reads.
        unsafe { _mm256_loadu_pd(run.as_ptr()) }
    };
    let mut differ = _mm256_setzero_pd();
    let mut non_finite = _mm256_setzero_pd();
    // The 4 × 4 block at (a, b) against its mirror at (b, a).
    let mut four = |a: usize, b: usize| {
        let upper = [load(a, b), load(a + 1, b), load(a + 2, b), load(a + 3, b)];
        // column t of the mirror block: G[b.., a + t].
        let mirror = transpose_4x4([load(b, a), load(b + 1, a), load(b + 2, a), load(b + 3, a)]);
        for t in 0..M {
            differ = _mm256_or_pd(differ, _mm256_xor_pd(upper[t], mirror[t]));
            non_finite = _mm256_or_pd(non_finite, _mm256_sub_pd(upper[t], upper[t]));
        }
    };
    let full_rows = rows.start + (rows.len() - rows.len() % BLOCK);
    let full_cols = cols.start + (cols.len() - cols.len() % BLOCK);
    for a in (rows.start..full_rows).step_by(BLOCK) {
        for b in (cols.start..full_cols).step_by(BLOCK) {
            for (da, db) in [(0, 0), (0, M), (M, 0), (M, M)] {
                four(a + da, b + db);
            }
        }
    }
    let mut lanes = [0.0f64; 8];
    // SAFETY: `lanes` holds 8 f64 values, two unaligned 256-bit stores of 4 each.
    unsafe {
        _mm256_storeu_pd(lanes.as_mut_ptr(), differ);
        _mm256_storeu_pd(lanes.as_mut_ptr().add(M), non_finite);
    }
    let mut any = lanes.iter().any(|v| v.to_bits() != 0);
    // The edges: the last rows (all columns) and the last columns (the full rows).
    let mut scalar = |a: usize, b: usize| {
        let u = data[a * n + b];
        any |= u.to_bits() != data[b * n + a].to_bits() || !u.is_finite();
    };
    for a in full_rows..rows.end {
        cols.clone().for_each(|b| scalar(a, b));
    }
    for a in rows.start..full_rows {
        (full_cols..cols.end).for_each(|b| scalar(a, b));
    }
    any
}

/// Whether some mirror entry `G[b, a]` of the tile `rows × cols` (a in `rows`, b in `cols`)
/// is not finite or differs in its bits from the tile's entry `G[a, b]` as `copy` holds it
/// (the tile row by row, widened: `copy[(a − rows.start)·width + (b − cols.start)]`). The
/// mirror is read row by row, eight rows at a time along their runs, so that memory serves it
/// as it serves the tile; the copy (in L2) is read down its columns.
#[inline(always)]
pub(crate) fn mirror_differs_from_copy<T: KernelElement>(
    data: &[T],
    n: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    copy: &[f64],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some(data) = T::as_f64(data) {
        if crate::distance::wide_vectors() {
            // SAFETY: `f64_mirror_differs_from_copy_avx2` requires only AVX2, which
            // `wide_vectors` has just detected at run time.
            return unsafe { f64_mirror_differs_from_copy_avx2(data, n, rows, cols, copy) };
        }
    }
    let width = cols.len();
    let mut differ = 0u64;
    let mut non_finite = false;
    for b in cols.clone() {
        for (i, mirror) in data[b * n + rows.start..b * n + rows.end]
            .iter()
            .enumerate()
        {
            let mirror = mirror.widen();
            differ |= mirror.to_bits() ^ copy[i * width + (b - cols.start)].to_bits();
            non_finite |= !mirror.is_finite();
        }
    }
    differ != 0 || non_finite
}

/// [`mirror_differs_from_copy`] of an f64 matrix with AVX2: 8 × 8 blocks of the mirror, as
/// four 4 × 4 blocks each transposed in registers and compared with four runs of the copy;
/// non-finite values found as `m − m`, whose bits are 0 exactly when `m` is finite. The same
/// verdict as the portable loop (a test compares them).
///
/// # Safety
/// The CPU must support AVX2 (the caller detects it first). Every load reads four values
/// of a slice taken with bounds checks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn f64_mirror_differs_from_copy_avx2(
    data: &[f64],
    n: usize,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    copy: &[f64],
) -> bool {
    use std::arch::x86_64::*;
    const M: usize = 4;
    const BLOCK: usize = 2 * M;
    let width = cols.len();
    let load = |values: &[f64], at: usize| -> __m256d {
        let run = &values[at..at + M];
        // SAFETY: `run` holds M = 4 f64 values (the slice above is bounds-checked), which
        // is what an unaligned 256-bit load reads.
        unsafe { _mm256_loadu_pd(run.as_ptr()) }
    };
    let mut differ = _mm256_setzero_pd();
    let mut non_finite = _mm256_setzero_pd();
    // The mirror's 4 × 4 block at (b, a) against the copy's rows a.. at columns b..
    let mut four = |b: usize, a: usize| {
        let mirror = [0, 1, 2, 3].map(|s| load(data, (b + s) * n + a));
        let columns = transpose_4x4(mirror);
        for t in 0..M {
            let upper = load(copy, (a + t - rows.start) * width + (b - cols.start));
            differ = _mm256_or_pd(differ, _mm256_xor_pd(upper, columns[t]));
            non_finite = _mm256_or_pd(non_finite, _mm256_sub_pd(mirror[t], mirror[t]));
        }
    };
    let full_rows = rows.start + (rows.len() - rows.len() % BLOCK);
    let full_cols = cols.start + (cols.len() - cols.len() % BLOCK);
    for b in (cols.start..full_cols).step_by(BLOCK) {
        for a in (rows.start..full_rows).step_by(BLOCK) {
            for (db, da) in [(0, 0), (0, M), (M, 0), (M, M)] {
                four(b + db, a + da);
            }
        }
    }
    let mut lanes = [0.0f64; 8];
    // SAFETY: `lanes` holds 8 f64 values, two unaligned 256-bit stores of 4 each.
    unsafe {
        _mm256_storeu_pd(lanes.as_mut_ptr(), differ);
        _mm256_storeu_pd(lanes.as_mut_ptr().add(M), non_finite);
    }
    let mut any = lanes.iter().any(|v| v.to_bits() != 0);
    // The edges: the last mirror rows (all columns) and the last columns of the full rows.
    let mut scalar = |b: usize, a: usize| {
        let mirror = data[b * n + a];
        let upper = copy[(a - rows.start) * width + (b - cols.start)];
        any |= mirror.to_bits() != upper.to_bits() || !mirror.is_finite();
    };
    for b in full_cols..cols.end {
        rows.clone().for_each(|a| scalar(b, a));
    }
    for b in cols.start..full_cols {
        (full_rows..rows.end).for_each(|a| scalar(b, a));
    }
    any
}

/// The fast test of the block row `rows × [rows.start, n)` of the upper triangle against its
/// mirror, by [`FAST_BLOCK`]-square tiles: true when some pair is not finite or fails the rule.
/// Each tile is first compared bit for bit (cheap; exactly symmetric matrices such as those of
/// [`crate::energy_gram`] or `(G + G.T) / 2` end here); a tile that differs, and every later
/// tile of the block, is judged by the rule in [`tile_is_bad`].
fn block_is_bad<T: KernelElement>(
    data: &[T],
    n: usize,
    rows: std::ops::Range<usize>,
    tolerance: f64,
    roots: &[f64],
) -> bool {
    // Once a tile differs, the matrix is likely symmetric only within the tolerance: the rest
    // of the block goes straight to the rule rather than paying for both tests.
    let mut exact_so_far = true;
    (rows.start..n).step_by(FAST_BLOCK).any(|col_start| {
        let cols = col_start..(col_start + FAST_BLOCK).min(n);
        if exact_so_far && !tile_differs_bitwise(data, n, rows.clone(), cols.clone()) {
            return false;
        }
        exact_so_far = false;
        tile_is_bad(data, n, rows.clone(), cols, tolerance, roots)
    })
}

/// Index quadruples `(a, b, c, d)` below `n` with `a < b`, `c < d`, `a + b = c + d` and
/// `(a, b) ≠ (c, d)`: the pairs whose keys in the former exact-symmetry hash differed by the
/// same integer in both key sets, spread over the matrix.
#[cfg(test)]
pub(crate) fn forgery_quadruples(n: usize) -> Vec<(usize, usize, usize, usize)> {
    let mut out = Vec::new();
    for a in (0..n).step_by(3) {
        for b in (a + 1..n).step_by(5) {
            for c in (a + 1..b).step_by(4) {
                let d = a + b - c;
                if c < d && d < n {
                    out.push((a, b, c, d));
                }
            }
        }
    }
    out
}

/// An `n × n` matrix exactly symmetric (diagonal 2, small entries elsewhere) but for
/// `G[a, b] = 1e6`, `G[b, a] = −1e6` and, at `(c, d)` and `(d, c)`, those two values swapped
/// and moved by `a² + b² − c² − d²` ulps: the forgery that balanced the former hash, whose
/// pair keys differed by that integer when `a + b = c + d`. `transpose`: its transpose
/// (which balanced it too).
#[cfg(test)]
pub(crate) fn forged(
    n: usize,
    (a, b): (usize, usize),
    (c, d): (usize, usize),
    transpose: bool,
) -> Vec<f64> {
    let mut g = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let v = if i == j {
                2.0
            } else {
                ((i * 7 + j * 3) % 11) as f64 / 1000.0
            };
            g[i * n + j] = v;
            g[j * n + i] = v;
        }
    }
    let square = |i: usize| (i * i) as u64;
    let delta = (square(a) + square(b)).wrapping_sub(square(c) + square(d));
    let moved = |v: f64| f64::from_bits(v.to_bits().wrapping_add(delta));
    let (x, y) = (1e6, -1e6);
    let (upper_ab, lower_ab, upper_cd, lower_cd) = (x, y, moved(y), moved(x));
    let (upper_ab, lower_ab, upper_cd, lower_cd) = if transpose {
        (lower_ab, upper_ab, lower_cd, upper_cd)
    } else {
        (upper_ab, lower_ab, upper_cd, lower_cd)
    };
    g[a * n + b] = upper_ab;
    g[b * n + a] = lower_ab;
    g[c * n + d] = upper_cd;
    g[d * n + c] = lower_cd;
    g
}

#[cfg(test)]
mod tests;
