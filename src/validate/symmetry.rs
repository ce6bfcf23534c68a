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

use super::mirror_hash::MirrorBalance;
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
/// First one pass in row order adds a hash of each entry and its position (the same for
/// `G_ab` and `G_ba`) right of the diagonal and subtracts it left of it: a matrix symmetric
/// bit for bit (such as those of [`crate::energy_gram`] or `(G + G.T) / 2`) balances and
/// passes there, at the speed of one read of the matrix. Any other is judged pair by pair
/// against the rule, tile by tile.
///
/// ```
/// use kgroups::validate::symmetry::check_dense;
/// assert!(check_dense(&[1.0, 0.5, 0.5, 1.0], 2, "G").is_ok());
/// assert!(check_dense(&[1.0, 0.5, 0.4, 1.0], 2, "G").is_err());
/// assert!(check_dense(&[1.0, f64::NAN, 0.5, 1.0], 2, "G").is_err());
/// ```
pub fn check_dense<T: KernelElement>(data: &[T], n: usize, argument: &'static str) -> Result<()> {
    check_dense_with(data, n, argument, true, &Control::new())
}

/// [`check_dense`] that stops with [`KGroupsError::Interrupted`] once `control` is
/// cancelled (checked between row blocks); the same verdict and error otherwise.
pub fn check_dense_with_control<T: KernelElement>(
    data: &[T],
    n: usize,
    argument: &'static str,
    control: &Control,
) -> Result<()> {
    check_dense_with(data, n, argument, true, control)
}

/// [`check_dense`] by the previous procedure ([`BLOCK`]-square tiles, each judged by the rule
/// in [`tile_is_bad`]; no bitwise test), kept so that `benches/bench_symmetry.py` can compare
/// the two in one run; same verdict and same error.
#[doc(hidden)]
pub fn check_dense_reference<T: KernelElement>(
    data: &[T],
    n: usize,
    argument: &'static str,
) -> Result<()> {
    check_dense_with(data, n, argument, false, &Control::new())
}

fn check_dense_with<T: KernelElement>(
    data: &[T],
    n: usize,
    argument: &'static str,
    fast: bool,
    control: &Control,
) -> Result<()> {
    super::square(data.len(), n, argument)?;
    if fast && is_finite_and_exactly_symmetric(data, n, control)? {
        return Ok(());
    }
    let roots = root_diagonal(data, n);
    let tolerance = T::SYMMETRY_TOLERANCE;
    // Each task owns a block of rows and compares its upper-triangle tiles with the mirrored
    // entries, read straight from the columns (a tile's mirror is a few cache lines per row,
    // all reused within the tile). The fast tests are branch-free so that they vectorise; only
    // a tile that fails them is scanned again, entry by entry, to name the first offending
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
    let first_problem = if fast {
        // A fast block that passes has no problem at all; one that fails is searched again by
        // the reference procedure, [`BLOCK`] rows at a time in order, so the error names the
        // same entry as the reference.
        const PER_FAST: usize = FAST_BLOCK / BLOCK;
        (0..n.div_ceil(FAST_BLOCK))
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
            .flatten()
    } else {
        (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .map(first_problem_in_block)
            .find_first(|problem| problem.is_some())
            .flatten()
    };
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

/// One pass over the matrix in row order: every entry finite, and the matrix symmetric bit
/// for bit (up to a collision of the hash of [`MirrorBalance`]). False says only that the
/// tile-by-tile procedure must judge the matrix (symmetric within the tolerance, or not).
/// Reading rows only, it runs at the speed of one pass over the matrix; comparing each entry
/// with its mirror reads the mirror by columns, short strided runs, and took twice as long.
/// Stops with [`KGroupsError::Interrupted`] when `control` is cancelled.
pub(crate) fn is_finite_and_exactly_symmetric<T: KernelElement>(
    data: &[T],
    n: usize,
    control: &Control,
) -> Result<bool> {
    if !(0..n).all(|i| data[i * n + i].widen().is_finite()) || sampled_pair_differs(data, n) {
        return Ok(false);
    }
    let balance = (0..n.div_ceil(HASH_ROWS))
        .into_par_iter()
        .map(|block| {
            control.checkpoint()?;
            let mut balance = MirrorBalance::default();
            for a in block * HASH_ROWS..((block + 1) * HASH_ROWS).min(n) {
                balance.add_row(a, &data[a * n..(a + 1) * n]);
            }
            Ok(balance)
        })
        .try_reduce(MirrorBalance::default, |a, b| Ok(a.combine(b)))?;
    Ok(balance.is_balanced_and_finite())
}

/// Whether one of [`SAMPLED_PAIRS`] pairs spread over the matrix differs from its mirror in
/// its bits: a matrix symmetric only within the tolerance (computed in two orders, say)
/// usually differs in most pairs, and is then sent to the comparison with the mirrors
/// without paying for the hash first (a few hundred cache misses instead of a pass).
fn sampled_pair_differs<T: KernelElement>(data: &[T], n: usize) -> bool {
    let mut state = 0x5EED_u64;
    (0..if n > 1 { SAMPLED_PAIRS } else { 0 }).any(|_| {
        let a = (crate::rng::splitmix64(&mut state) % n as u64) as usize;
        let b = (crate::rng::splitmix64(&mut state) % n as u64) as usize;
        data[a * n + b].widen().to_bits() != data[b * n + a].widen().to_bits()
    })
}

/// Pairs compared by [`sampled_pair_differs`].
const SAMPLED_PAIRS: usize = 256;

/// Rows hashed by one task of [`is_finite_and_exactly_symmetric`].
const HASH_ROWS: usize = 32;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestRng;
    use std::ops::Range;

    /// A symmetric positive-diagonal n × n matrix, bit for bit symmetric.
    fn symmetric(n: usize, rng: &mut TestRng) -> Vec<f64> {
        let mut g = vec![0.0; n * n];
        for a in 0..n {
            for b in a..n {
                let v = if a == b {
                    2.0 + rng.next_f64()
                } else {
                    rng.normal_ish()
                };
                g[a * n + b] = v;
                g[b * n + a] = v;
            }
        }
        g
    }

    fn verdicts<T: KernelElement>(g: &[T], n: usize) -> (Option<String>, Option<String>) {
        let text = |r: Result<()>| r.err().map(|e| e.to_string());
        (
            text(check_dense(g, n, "G")),
            text(check_dense_reference(g, n, "G")),
        )
    }

    /// The fast test (bitwise, then the rule on 128-square tiles) gives the reference's
    /// verdict and names the same entry, across the tile boundaries, for f64 and f32, with
    /// asymmetries inside and outside the tolerance, signed zeros and non-finite entries.
    /// The hash test's verdict for `g` as f64 and as f32.
    fn hash_verdicts(g: &[f64], n: usize) -> (bool, bool) {
        let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
        let control = Control::new();
        (
            is_finite_and_exactly_symmetric(g, n, &control).unwrap(),
            is_finite_and_exactly_symmetric(&g32, n, &control).unwrap(),
        )
    }

    #[test]
    fn hash_test_passes_exactly_the_bitwise_symmetric() {
        let mut rng = TestRng(31);
        for n in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 17, 33, 64, 100] {
            let base = symmetric(n, &mut rng);
            assert_eq!(hash_verdicts(&base, n), (true, true), "n = {n}");
            // A symmetric change (both entries of a pair, or the diagonal) keeps it symmetric.
            if n >= 2 {
                let mut g = base.clone();
                let (a, b) = (n - 1, n / 3);
                g[a * n + b] = 123.25;
                g[b * n + a] = 123.25;
                g[a * n + a] = -7.5;
                assert_eq!(hash_verdicts(&g, n), (true, true), "n = {n}");
            }
            // Each off-diagonal entry on its own: one ulp off, the sign flipped, the value of
            // another pair; and NaN or infinity at any entry, also in both entries of a pair
            // (the same bits, so only the finiteness probe sees it).
            let positions: Vec<(usize, usize)> = if n <= 17 {
                (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).collect()
            } else {
                (0..200).map(|_| (rng.below(n), rng.below(n))).collect()
            };
            for &(a, b) in &positions {
                let v = base[a * n + b];
                let mut changes = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
                if a != b {
                    changes.extend([f64::from_bits(v.to_bits() + 1), -v, v + 1.0, 0.0]);
                }
                for new in changes {
                    if new.to_bits() == v.to_bits() {
                        continue;
                    }
                    let mut g = base.clone();
                    g[a * n + b] = new;
                    let f32_differs = (new as f32).to_bits() != (v as f32).to_bits();
                    let expected = (false, !f32_differs && new.is_finite());
                    assert_eq!(
                        hash_verdicts(&g, n),
                        expected,
                        "n = {n} ({a}, {b}) {v} -> {new}"
                    );
                    if !new.is_finite() {
                        g[b * n + a] = new;
                        assert_eq!(hash_verdicts(&g, n), (false, false), "n = {n} ({a}, {b})");
                    }
                }
            }
        }
    }

    #[test]
    fn hash_test_sees_defects_that_cancel_without_positions() {
        let mut rng = TestRng(32);
        let n = 40;
        let base = symmetric(n, &mut rng);
        let pair = |rng: &mut TestRng| loop {
            let (a, b) = (rng.below(n), rng.below(n));
            if a < b {
                return (a, b);
            }
        };
        for trial in 0..300 {
            let mut g = base.clone();
            match trial % 4 {
                // Two upper entries trade values: every value is still there, moved.
                0 => {
                    let ((a, b), (c, d)) = (pair(&mut rng), pair(&mut rng));
                    if (a, b) == (c, d) || g[a * n + b] == g[c * n + d] {
                        continue;
                    }
                    let (x, y) = (g[a * n + b], g[c * n + d]);
                    g[a * n + b] = y;
                    g[c * n + d] = x;
                }
                // An upper entry and its mirror trade places with another pair's.
                1 => {
                    let ((a, b), (c, d)) = (pair(&mut rng), pair(&mut rng));
                    if (a, b) == (c, d) || g[a * n + b] == g[c * n + d] {
                        continue;
                    }
                    let x = g[a * n + b];
                    g[a * n + b] = g[c * n + d];
                    g[d * n + c] = x;
                }
                // Antisymmetric pairs: the sign of two to four upper entries flipped.
                2 => {
                    for _ in 0..2 + trial % 3 {
                        let (a, b) = pair(&mut rng);
                        g[a * n + b] = -g[b * n + a];
                    }
                }
                // The transpose of a block, off the diagonal, put back untransposed.
                _ => {
                    let (r, c, side) = (rng.below(10), 20 + rng.below(10), 2 + rng.below(8));
                    for i in 0..side {
                        for j in 0..side {
                            g[(r + i) * n + c + j] = base[(c + j) * n + r + i] + 1.0;
                        }
                    }
                }
            }
            let asymmetric = (0..n).any(|a| (0..n).any(|b| g[a * n + b] != g[b * n + a]));
            assert!(asymmetric, "trial {trial} made no defect");
            assert!(!hash_verdicts(&g, n).0, "trial {trial}");
        }
    }

    #[test]
    fn rounding_differences_everywhere_skip_the_hash_and_pass_the_rule() {
        let n = 60;
        let mut g = symmetric(n, &mut TestRng(34));
        for a in 0..n {
            for b in 0..a {
                g[a * n + b] = f64::from_bits(g[a * n + b].to_bits() ^ 1); // one ulp, left only
            }
        }
        assert!(sampled_pair_differs(&g, n));
        assert!(!is_finite_and_exactly_symmetric(&g, n, &Control::new()).unwrap());
        assert!(check_dense(&g, n, "G").is_ok());
        // One pair alone is rarely sampled: the hash finds it.
        let mut g = symmetric(n, &mut TestRng(35));
        g[3 * n + 50] = f64::from_bits(g[3 * n + 50].to_bits() ^ 1);
        assert!(!sampled_pair_differs(&g, n));
        assert!(!is_finite_and_exactly_symmetric(&g, n, &Control::new()).unwrap());
        assert!(check_dense(&g, n, "G").is_ok());
    }

    #[test]
    fn hash_test_stops_when_cancelled() {
        let g = symmetric(50, &mut TestRng(33));
        let cancel = std::sync::atomic::AtomicBool::new(true);
        let control = Control::new().with_cancel(&cancel);
        let result = is_finite_and_exactly_symmetric(&g, 50, &control);
        assert!(matches!(result, Err(KGroupsError::Interrupted)));
    }

    /// Cancelled, the check stops with Interrupted, for a matrix symmetric bit for bit and
    /// one symmetric within the tolerance; an idle control gives `check_dense`'s verdict.
    #[test]
    fn check_with_control_stops_when_cancelled() {
        let n = 300;
        let exact = symmetric(n, &mut TestRng(34));
        let mut near = exact.clone();
        near[n + 2] *= 1.0 + 1e-14; // G[1, 2] differs from G[2, 1] within the tolerance
        let cancel = std::sync::atomic::AtomicBool::new(true);
        let cancelled = Control::new().with_cancel(&cancel);
        for g in [&exact, &near] {
            let result = check_dense_with_control(g, n, "G", &cancelled);
            assert!(matches!(result, Err(KGroupsError::Interrupted)));
            assert!(check_dense_with_control(g, n, "G", &Control::new()).is_ok());
            assert!(check_dense(g, n, "G").is_ok());
        }
    }

    #[test]
    fn fast_check_matches_reference() {
        let mut rng = TestRng(12);
        let mut failures = 0;
        for &n in &[1usize, 5, 64, 127, 128, 129, 200, 300] {
            let base = symmetric(n, &mut rng);
            assert_eq!(verdicts(&base, n), (None, None));
            let as_f32: Vec<f32> = base.iter().map(|&v| v as f32).collect();
            assert_eq!(verdicts(&as_f32, n), (None, None));
            for trial in 0..24 {
                let mut g = base.clone();
                let changes = 1 + trial % 3;
                for _ in 0..changes {
                    let a = rng.below(n);
                    let b = rng.below(n);
                    let v = g[a * n + b];
                    g[a * n + b] = match trial % 6 {
                        0 => v * (1.0 + 1e-12), // within tolerance
                        1 => v * (1.0 + 1e-6),  // outside for f64, inside for f32
                        2 => v + 1.0,
                        3 => f64::NAN,
                        4 => f64::INFINITY,
                        _ => {
                            g[b * n + a] = -0.0; // a signed-zero pair: passes
                            0.0
                        }
                    };
                }
                let (fast, reference) = verdicts(&g, n);
                failures += usize::from(fast.is_some());
                assert_eq!(fast, reference, "f64 n={n} trial={trial}");
                let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                let (fast, reference) = verdicts(&g32, n);
                assert_eq!(fast, reference, "f32 n={n} trial={trial}");
            }
        }
        assert!(failures > 50, "too few rejected matrices: {failures}");
    }

    /// The bitwise tile test agrees with a pair-by-pair comparison on tiles of every shape and
    /// offset, with one entry changed anywhere (one bit, a signed zero, NaN, infinity) or none.
    #[test]
    fn bitwise_tile_test_is_the_pairwise_comparison() {
        let mut rng = TestRng(31);
        let n = 23;
        let base = symmetric(n, &mut rng);
        fn naive<T: KernelElement>(
            g: &[T],
            n: usize,
            rows: Range<usize>,
            cols: Range<usize>,
        ) -> bool {
            rows.clone().any(|a| {
                cols.clone().any(|b| {
                    let u = g[a * n + b].widen();
                    u.to_bits() != g[b * n + a].widen().to_bits() || !u.is_finite()
                })
            })
        }
        let tiles = [
            (0..23, 0..23),
            (0..8, 8..16),
            (1..10, 12..23),
            (4..7, 5..22),
            (3..3, 0..5),
        ];
        let mut differing = 0;
        for (rows, cols) in tiles {
            for change in 0..5 {
                for at in [0, 5, 4 * n + 9, 9 * n + 14, 13 * n + 2, n * n - 1] {
                    let mut g = base.clone();
                    g[at] = match change {
                        0 => g[at],
                        1 => f64::from_bits(g[at].to_bits() ^ 1),
                        2 => -g[at],
                        3 => f64::NAN,
                        _ => f64::INFINITY,
                    };
                    let want = naive(&g, n, rows.clone(), cols.clone());
                    differing += usize::from(want);
                    let (r, c) = (rows.clone(), cols.clone());
                    assert_eq!(tile_differs_bitwise(&g, n, r.clone(), c.clone()), want);
                    let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                    let want32 = naive(&g32, n, r.clone(), c.clone());
                    assert_eq!(tile_differs_bitwise(&g32, n, r, c), want32);
                }
            }
        }
        assert!(differing > 20, "too few differing tiles: {differing}");
    }

    /// Signed zeros differ in their bits but pass the rule.
    #[test]
    fn signed_zeros_pass() {
        let g = [1.0, 0.0, -0.0, 1.0];
        assert!(check_dense(&g, 2, "G").is_ok());
    }
}
