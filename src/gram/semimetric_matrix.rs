//! Gram matrices from a user's precomputed semimetric matrix (its rules are
//! [`crate::validate::semimetric`]'s).

use super::tiles::{assemble, centered_base_correction, BaseCorrection};
use super::{check_out_len, new_matrix, refuse_base, Base};
use crate::control::Control;
use crate::distance::SemimetricRows;
use crate::error::{try_filled, Result};
use crate::kernel::KernelElement;
use crate::validate::semimetric::semimetric_matrix;

/// The dense Gram matrix from a precomputed n×n semimetric matrix `r` (row-major,
/// `R_ab = ρ(x_a, x_b)`).
///
/// `r` must be finite, symmetric (|R_ab − R_ba| ≤ 1e-10·max(|R_ab|, |R_ba|) + 1e-13·max|R|),
/// non-negative and zero on the diagonal (entries within 1e-10·max|R| of zero are accepted);
/// only its upper triangle (a < b) is used, and its diagonal is taken as exactly 0. Errors name
/// the argument `"R"`; a matrix too large to allocate is [`KGroupsError::OutOfMemory`](crate::KGroupsError::OutOfMemory).
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
    semimetric_matrix(r, n, "R", &Control::new())?;
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
/// is overwritten; see [`energy_gram_into`](super::energy_gram_into)), and stopping with [`KGroupsError::Interrupted`](crate::KGroupsError::Interrupted)
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
    semimetric_matrix(r, n, "R", control)?;
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
    let correction = match base {
        Base::Centered => centered_base_correction(&src, "R", control)?,
        Base::Origin | Base::Mean => {
            let mut r0 = try_filled(n, 0.0, "R", "the distances to the first point")?;
            r0.copy_from_slice(&r[..n]);
            r0[0] = 0.0;
            BaseCorrection::Base(r0)
        }
    };
    assemble(&src, &correction, (1.0, 1.0), "R", out, control)
}
