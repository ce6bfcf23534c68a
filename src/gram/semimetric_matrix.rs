//! Gram matrices from a user's precomputed semimetric matrix, and the checks of user-supplied
//! square matrices (shape, finiteness, symmetry, zero diagonal, signs).

use rayon::prelude::*;

use super::tiles::{assemble, centered_shift, Shift};
use super::{check_out_len, new_matrix, refuse_base, Base};
use crate::control::Control;
use crate::distance::{block_range, first_non_finite, SemimetricRows};
use crate::error::{try_filled, KGroupsError, Result};
use crate::kernel::KernelElement;

/// Relative tolerance for symmetry, zero diagonal and non-negativity of user matrices.
pub(crate) const SYMMETRY_RTOL: f64 = 1e-10;

/// Checks `len == n*n`, `n >= 1`.
pub(crate) fn check_square(len: usize, n: usize, arg: &'static str) -> Result<()> {
    if n == 0 {
        return Err(KGroupsError::invalid(
            arg,
            format!("{arg} has 0 rows; at least one point is needed"),
        ));
    }
    match n.checked_mul(n) {
        Some(nn) if nn == len => Ok(()),
        _ => Err(KGroupsError::invalid(
            arg,
            format!("{arg} has {len} entries but an n × n matrix with n = {n} needs n² entries"),
        )),
    }
}

/// First non-finite entry (row-major order), as an error.
pub(crate) fn check_finite_matrix(m: &[f64], n: usize, arg: &'static str) -> Result<()> {
    if let Some(pos) = first_non_finite(m, n) {
        return Err(KGroupsError::invalid(
            arg,
            format!(
                "{arg} contains NaN or infinity at ({}, {}) (value {}); all entries must be finite",
                pos / n,
                pos % n,
                m[pos]
            ),
        ));
    }
    Ok(())
}

/// Largest |entry|.
pub(crate) fn max_abs(m: &[f64]) -> f64 {
    m.par_chunks(4096)
        .map(|c| c.iter().fold(0.0, |a: f64, v| a.max(v.abs())))
        .reduce(|| 0.0, f64::max)
}

/// Checks `|M_ab − M_ba| <= 1e-10·max(|M_ab|, |M_ba|) + 1e-13·max|M|` for all pairs of a
/// semimetric matrix, reporting the worst pair (tile by tile, so that the transposed reads
/// stay in cache), stopping with [`KGroupsError::Interrupted`] once `control` is
/// cancelled (checked every 64 × 64 tile).
pub(super) fn check_symmetric_with(
    m: &[f64],
    n: usize,
    arg: &'static str,
    control: &Control,
) -> Result<()> {
    // Tiles of S×S: the tile of the transposed position is first copied (row by row, contiguous
    // reads) into a local buffer, transposed, so that both sides are read as short row runs.
    const S: usize = 64;
    let floor = 1e-3 * SYMMETRY_RTOL * max_abs(m);
    let violates = |u: f64, v: f64| (u - v).abs() > SYMMETRY_RTOL * u.abs().max(v.abs()) + floor;
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
                                (u - v).abs() / (SYMMETRY_RTOL * u.abs().max(v.abs()) + floor);
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
            arg,
            format!(
                "{arg} must be symmetric: {arg}[{a}, {b}] = {} but {arg}[{b}, {a}] = {} (the worst pair; allowed relative difference {SYMMETRY_RTOL:e})",
                m[a * n + b],
                m[b * n + a]
            ),
        ));
    }
    Ok(())
}

/// Full validation of a semimetric matrix R: square, finite, symmetric (within tolerance),
/// non-negative and zero on the diagonal (both within 1e-10·max|R|).
pub(crate) fn validate_semimetric_matrix(r: &[f64], n: usize, arg: &'static str) -> Result<()> {
    validate_semimetric_matrix_with(r, n, arg, &Control::new())
}

/// [`validate_semimetric_matrix`], checking `control` for cancellation between its passes.
fn validate_semimetric_matrix_with(
    r: &[f64],
    n: usize,
    arg: &'static str,
    control: &Control,
) -> Result<()> {
    check_square(r.len(), n, arg)?;
    check_finite_matrix(r, n, arg)?;
    control.checkpoint()?;
    let tol = SYMMETRY_RTOL * max_abs(r);
    if let Some(a) = (0..n)
        .into_par_iter()
        .position_first(|a| r[a * n + a].abs() > tol)
    {
        return Err(KGroupsError::invalid(
            arg,
            format!(
                "{arg}[{a}, {a}] = {} but a semimetric matrix must have a zero diagonal (rho(x, x) = 0)",
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
            arg,
            format!(
                "{arg}[{}, {}] = {} is negative; semimetric values must be >= 0",
                pos / n,
                pos % n,
                r[pos]
            ),
        ));
    }
    check_symmetric_with(r, n, arg, control)
}

/// The dense Gram matrix from a precomputed n×n semimetric matrix `r` (row-major,
/// `R_ab = ρ(x_a, x_b)`).
///
/// `r` must be finite, symmetric (|R_ab − R_ba| ≤ 1e-10·max(|R_ab|, |R_ba|) + 1e-13·max|R|),
/// non-negative and zero on the diagonal (entries within 1e-10·max|R| of zero are accepted);
/// only its upper triangle (a < b) is used, and its diagonal is taken as exactly 0. Errors name
/// the argument `"R"`; a matrix too large to allocate is [`KGroupsError::OutOfMemory`].
///
/// - [`Base::Origin`]: there are no coordinates, so the base point is the first point:
///   K(a,b) = ½[R_a0 + R_b0 − R_ab]. Any base point gives the same clustering (the objective
///   changes by a constant; see the specification).
/// - [`Base::Centered`]: G_c = −½·J R J as in [`energy_gram`](super::energy_gram).
/// - [`Base::Mean`] needs coordinates and is refused (argument `"base"`): use
///   [`Base::Centered`], the kernel whose base point is the mean in feature space.
///
/// ```
/// use kgroups::gram::{gram_from_semimetric, Base};
/// let r = [0.0, 3.0, 3.0, 0.0];
/// let g: Vec<f64> = gram_from_semimetric(&r, 2, Base::Origin).unwrap();
/// assert_eq!(g, vec![0.0, 0.0, 0.0, 3.0]);
/// let c: Vec<f64> = gram_from_semimetric(&r, 2, Base::Centered).unwrap();
/// assert_eq!(c, vec![0.75, -0.75, -0.75, 0.75]);
/// assert!(gram_from_semimetric::<f64>(&[0.0, 1.0, 2.0, 0.0], 2, Base::Origin).is_err());
/// assert!(gram_from_semimetric::<f64>(&r, 2, Base::Mean).is_err());
/// ```
pub fn gram_from_semimetric<T: KernelElement>(r: &[f64], n: usize, base: Base) -> Result<Vec<T>> {
    check_semimetric_base(base)?;
    validate_semimetric_matrix(r, n, "R")?;
    new_matrix(n, n, "R", |g| {
        fill_from_validated(r, n, base, g, &Control::new())
    })
}

fn check_semimetric_base(base: Base) -> Result<()> {
    refuse_base(
        base,
        Base::Mean,
        "Base::Mean needs the coordinates of the points, which a semimetric matrix does not have; use Base::Centered (the base point is then the mean in feature space) or Base::Origin (the first point)",
    )
}

/// [`gram_from_semimetric`] writing into a caller-provided buffer `out` of length n² (every entry
/// is overwritten; see [`energy_gram_into`](super::energy_gram_into)), and stopping with [`KGroupsError::Interrupted`]
/// once `control` is cancelled (checked between the validation passes and between tiles).
/// Errors as [`gram_from_semimetric`], and (argument `"out"`) when `out.len() != n²`.
///
/// ```
/// use kgroups::gram::{gram_from_semimetric_into, Base};
/// use kgroups::Control;
/// let mut g = vec![0.0f32; 4];
/// let r = [0.0, 3.0, 3.0, 0.0];
/// gram_from_semimetric_into(&r, 2, Base::Origin, &mut g, &Control::new()).unwrap();
/// assert_eq!(g, vec![0.0, 0.0, 0.0, 3.0]);
/// ```
pub fn gram_from_semimetric_into<T: KernelElement>(
    r: &[f64],
    n: usize,
    base: Base,
    out: &mut [T],
    control: &Control,
) -> Result<()> {
    check_semimetric_base(base)?;
    validate_semimetric_matrix_with(r, n, "R", control)?;
    check_out_len(out.len(), n)?;
    fill_from_validated(r, n, base, out, control)
}

fn fill_from_validated<T: KernelElement>(
    r: &[f64],
    n: usize,
    base: Base,
    out: &mut [T],
    control: &Control,
) -> Result<()> {
    let src = SemimetricRows { r, n, factor: 1.0 };
    let shift = match base {
        Base::Centered => centered_shift(&src, "R", control)?,
        Base::Origin | Base::Mean => {
            let mut r0 = try_filled(n, 0.0, "R", "the distances to the first point")?;
            r0.copy_from_slice(&r[..n]);
            r0[0] = 0.0;
            Shift::Base(r0)
        }
    };
    assemble(&src, &shift, (1.0, 1.0), "R", out, control)
}
