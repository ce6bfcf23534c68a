//! The two-sample energy distance.

use rayon::prelude::*;

use super::scaled::ScaledData;
use super::source::chunk_len;
use super::sums::group_end;
use super::{CHUNK, MAX_GROUP_ROWS};
use crate::control::Control;
use crate::distance::{DataRows, PairwiseRows, Points, Semimetric};
use crate::error::{try_filled, KGroupsError, Result};

/// Σ over rows a of x of Σ_b ρ(x_a, y_b) for the points y of `y`, with b over all of y
/// (`upper = false`) or, when y is x itself, over b > a (`upper = true`). Each row is summed in
/// order of b, rows in row order; rows run in parallel within groups of a few milliseconds,
/// `control` checked between groups.
fn rho_sum(
    x: &Points,
    y: &DataRows,
    y_argument: &'static str,
    upper: bool,
    control: &Control,
) -> Result<f64> {
    let (nx, ny) = (x.n(), y.n());
    let max_rows = MAX_GROUP_ROWS.min(nx);
    let mut rows = try_filled(max_rows, 0.0, y_argument, "the per-row sums")?;
    let cost = y.cost_per_value();
    let first = |a: usize| if upper { a + 1 } else { 0 };
    let mut total = 0.0;
    let mut start = 0;
    while start < nx {
        let end = group_end(start, nx, max_rows, |a| {
            (ny - first(a).min(ny)).saturating_mul(cost)
        });
        let group = &mut rows[..end - start];
        group.par_iter_mut().zip(start..end).for_each(|(out, a)| {
            let mut buf = [0.0; CHUNK];
            let mut sum = 0.0;
            let mut b = first(a);
            while b < ny {
                let len = chunk_len(b, ny);
                let values = &mut buf[..len];
                y.rho_point(x.row(a), b, values);
                for &v in values.iter() {
                    sum += v;
                }
                b += len;
            }
            *out = sum;
        });
        control.checkpoint()?;
        for &v in group.iter() {
            total += v;
        }
        start = end;
    }
    Ok(total)
}

/// Two-sample energy distance E(A,B) = 2·mean ρ(a,b) − mean ρ(a,a') − mean ρ(b,b') (unit
/// weights; means over all ordered pairs, a = a' included). Mathematically ≥ 0; a result that
/// rounding makes negative is returned as 0. Checks `control` every few milliseconds.
///
/// Errors: an invalid semimetric parameter; `b` with a different number of columns than `a`
/// (argument `"Y"`); semimetric values that overflow f64 (argument `"X"`);
/// [`KGroupsError::Interrupted`] when `control` is cancelled.
///
/// ```
/// use kgroups::distance::{Points, Semimetric};
/// use kgroups::stats::energy_distance;
/// use kgroups::Control;
/// let a = Points::new(&[0.0], 1, 1).unwrap();
/// let b = Points::new(&[2.0], 1, 1).unwrap();
/// let e = energy_distance(&a, &b, Semimetric::Power { alpha: 1.0 }, &Control::new()).unwrap();
/// assert_eq!(e, 4.0); // 2·2 − 0 − 0
/// ```
pub fn energy_distance(
    a: &Points,
    b: &Points,
    semimetric: Semimetric,
    control: &Control,
) -> Result<f64> {
    semimetric.validate()?;
    if a.dim() != b.dim() {
        return Err(KGroupsError::invalid(
            "Y",
            format!(
                "X has D={} columns but Y has D={}; both samples need the same number of columns",
                a.dim(),
                b.dim()
            ),
        ));
    }
    let scaled = ScaledData::new(&[a, b], semimetric, control)?;
    let (scale, semimetric) = match &scaled {
        None => (1.0, semimetric),
        Some(frame) => (frame.scale, frame.semimetric),
    };
    let (na, nb) = (a.n() as f64, b.n() as f64);
    // One transposed copy at a time: B's for the cross and B's own sums, then A's.
    let rows_b = DataRows::new(*b, scale, semimetric, "Y")?;
    let cross = rho_sum(a, &rows_b, "Y", false, control)? / (na * nb);
    let within_b = 2.0 * rho_sum(b, &rows_b, "Y", true, control)? / (nb * nb);
    drop(rows_b);
    let rows_a = DataRows::new(*a, scale, semimetric, "X")?;
    let within_a = 2.0 * rho_sum(a, &rows_a, "X", true, control)? / (na * na);
    let e = 2.0 * cross - within_a - within_b;
    if !e.is_finite() {
        return Err(KGroupsError::invalid(
            "X",
            "the semimetric values overflow f64; rescale X and Y",
        ));
    }
    let e = if e > 0.0 { e } else { 0.0 };
    match scaled {
        None => Ok(e),
        Some(frame) => frame.unscale(e, "the energy distance"),
    }
}
