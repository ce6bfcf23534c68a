//! The rules for a semimetric matrix `R` supplied by a caller (`R_ab = ρ(x_a, x_b)`, the
//! input of `gram_from_semimetric` and of the statistics):
//!
//! ```text
//! |R_ab − R_ba| ≤ rtol · max(|R_ab|, |R_ba|) + 10⁻³ · rtol · max|R|     (symmetric)
//! |R_aa| ≤ rtol · max|R|                                                 (zero diagonal)
//! R_ab ≥ −rtol · max|R|                                                  (non-negative)
//! ```
//!
//! with `rtol` = [`SEMIMETRIC_RTOL`] = 1e-10. Unlike a kernel matrix (whose rule in
//! [`super::symmetry`] scales each pair by `√|G_aa|·√|G_bb|`), a semimetric matrix has a zero
//! diagonal, so the scale of a pair's rounding errors is its own entries, with a floor tied
//! to the largest entry for pairs of nearly coincident points. The floor and the two sign
//! rules forgive rounding of a matrix computed in floating point; anything larger is a wrong
//! input and is refused, naming the first (or, for symmetry, the worst) offending entry.

use super::super::error::{KGroupsError, Result};
use crate::control::Control;
use crate::distance::block_range;
use crate::scale::max_abs;
use rayon::prelude::*;

/// Relative tolerance of the symmetry, zero-diagonal and sign rules for semimetric matrices.
pub const SEMIMETRIC_RTOL: f64 = 1e-10;

/// Checks `|M_ab − M_ba| <= 1e-10·max(|M_ab|, |M_ba|) + 1e-13·max|M|` for all pairs of a
/// semimetric matrix, reporting the worst pair (tile by tile, so that the transposed reads
/// stay in cache), stopping with [`KGroupsError::Interrupted`] once `control` is
/// cancelled (checked every 64 × 64 tile).
pub(crate) fn symmetric(
    m: &[f64],
    n: usize,
    argument: &'static str,
    control: &Control,
) -> Result<()> {
    // Tiles of S×S: the tile of the transposed position is first copied (row by row, contiguous
    // reads) into a local buffer, transposed, so that both sides are read as short row runs.
    const S: usize = 64;
    let floor = 1e-3 * SEMIMETRIC_RTOL * max_abs(m);
    let violates = |u: f64, v: f64| (u - v).abs() > SEMIMETRIC_RTOL * u.abs().max(v.abs()) + floor;
    let ns = n.div_ceil(S);
    // worst = (excess ratio, a, b); lowest (a, b) wins ties, so the result is deterministic.
    let worst = (0..ns)
        .into_par_iter()
        .map_init(
            || vec![0.0; S * S],
            |t, p| {
                let mut worst: Option<(f64, usize, usize)> = None;
                let rp = block_range(p, S, n);
                for q in p..ns {
                    if control.checkpoint().is_err() {
                        return None;
                    }
                    let rq = block_range(q, S, n);
                    let lq = rq.len();
                    // t[ia * S + jb] = m[b, a] for a = p0 + ia, b = q0 + jb
                    for (jb, b) in rq.clone().enumerate() {
                        for (ia, &v) in m[b * n + rp.start..b * n + rp.end].iter().enumerate() {
                            t[ia * S + jb] = v;
                        }
                    }
                    let mut any = false;
                    for (ia, a) in rp.clone().enumerate() {
                        let u_row = &m[a * n + rq.start..a * n + rq.end];
                        let v_row = &t[ia * S..ia * S + lq];
                        any |= u_row
                            .iter()
                            .zip(v_row)
                            .fold(false, |acc, (&u, &v)| acc | violates(u, v));
                    }
                    if !any {
                        continue;
                    }
                    for (ia, a) in rp.clone().enumerate() {
                        for (jb, b) in rq.clone().enumerate() {
                            let (u, v) = (m[a * n + b], t[ia * S + jb]);
                            if b <= a || !violates(u, v) {
                                continue;
                            }
                            let ratio =
                                (u - v).abs() / (SEMIMETRIC_RTOL * u.abs().max(v.abs()) + floor);
                            let better = match worst {
                                None => true,
                                Some((r, wa, wb)) => ratio > r || (ratio == r && (a, b) < (wa, wb)),
                            };
                            if better {
                                worst = Some((ratio, a, b));
                            }
                        }
                    }
                }
                worst
            },
        )
        .reduce(
            || None,
            |x, y| match (x, y) {
                (None, y) => y,
                (x, None) => x,
                (Some(x), Some(y)) => {
                    if y.0 > x.0 || (y.0 == x.0 && (y.1, y.2) < (x.1, x.2)) {
                        Some(y)
                    } else {
                        Some(x)
                    }
                }
            },
        );
    control.checkpoint()?;
    if let Some((_, a, b)) = worst {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument} must be symmetric: {argument}[{a}, {b}] = {} but {argument}[{b}, {a}] = {} (the worst pair; allowed relative difference {SEMIMETRIC_RTOL:e})",
                m[a * n + b],
                m[b * n + a]
            ),
        ));
    }
    Ok(())
}

/// A semimetric matrix R of `n` points, row-major (argument `argument`): square, finite,
/// symmetric, zero on the diagonal and non-negative, by the rules of this module, checking
/// `control` for cancellation between its passes.
///
/// ```
/// use kgroups::{validate, Control};
/// let r = [0.0, 2.0, 2.0, 0.0];
/// assert!(validate::semimetric::semimetric_matrix(&r, 2, "R", &Control::new()).is_ok());
/// let err = validate::semimetric::semimetric_matrix(&[0.0, 2.0, 3.0, 0.0], 2, "R", &Control::new());
/// assert!(err.unwrap_err().to_string().contains("R must be symmetric"));
/// ```
pub fn semimetric_matrix(
    r: &[f64],
    n: usize,
    argument: &'static str,
    control: &Control,
) -> Result<()> {
    super::non_empty(n, argument)?;
    super::square(r.len(), n, argument)?;
    super::finite(r, n, argument)?;
    control.checkpoint()?;
    let tol = SEMIMETRIC_RTOL * max_abs(r);
    if let Some(a) = (0..n)
        .into_par_iter()
        .position_first(|a| r[a * n + a].abs() > tol)
    {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument}[{a}, {a}] = {} but a semimetric matrix must have a zero diagonal (rho(x, x) = 0)",
                r[a * n + a]
            ),
        ));
    }
    control.checkpoint()?;
    let negative = r
        .par_chunks(n)
        .position_first(|row| row.iter().fold(false, |acc, &v| acc | (v < -tol)))
        .and_then(|a| {
            let row = &r[a * n..(a + 1) * n];
            row.iter().position(|&v| v < -tol).map(|b| a * n + b)
        });
    if let Some(pos) = negative {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument}[{}, {}] = {} is negative; semimetric values must be >= 0",
                pos / n,
                pos % n,
                r[pos]
            ),
        ));
    }
    symmetric(r, n, argument, control)
}
