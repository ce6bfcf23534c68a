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
fn root_diagonal<T: KernelElement>(data: &[T], n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| data[i * n + i].widen().abs().sqrt())
        .collect()
}

/// Checks that the dense `n × n` matrix `data` (`data.len() == n * n`) is finite and passes
/// the rule, naming `argument` and the first offending entry otherwise.
///
/// ```
/// use kgroups::validate::symmetry::check_dense;
/// assert!(check_dense(&[1.0, 0.5, 0.5, 1.0], 2, "G").is_ok());
/// assert!(check_dense(&[1.0, 0.5, 0.4, 1.0], 2, "G").is_err());
/// assert!(check_dense(&[1.0, f64::NAN, 0.5, 1.0], 2, "G").is_err());
/// ```
pub fn check_dense<T: KernelElement>(data: &[T], n: usize, argument: &'static str) -> Result<()> {
    super::square(data.len(), n, argument)?;
    let roots = root_diagonal(data, n);
    let tolerance = T::SYMMETRY_TOLERANCE;
    // Each task owns a block of rows and compares its upper-triangle tiles with the mirrored
    // entries, read straight from the columns (a tile's mirror is a few cache lines per row,
    // all reused within the tile). The fast test is branch-free so that it vectorises; only a
    // tile that fails it is scanned again, entry by entry, to name the first offending entry.
    let blocks = n.div_ceil(BLOCK);
    let first_problem = (0..blocks)
        .into_par_iter()
        .map(|block| {
            let rows = block * BLOCK..((block + 1) * BLOCK).min(n);
            for col_start in (rows.start..n).step_by(BLOCK) {
                let cols = col_start..(col_start + BLOCK).min(n);
                if tile_is_bad(data, n, rows.clone(), cols.clone(), tolerance, &roots) {
                    return first_problem_in_tile(data, n, rows.clone(), cols, tolerance, &roots);
                }
            }
            None
        })
        .find_first(|problem| problem.is_some())
        .flatten();
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
fn tile_is_bad<T: KernelElement>(
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
