//! The default bandwidth σ of the exponential and gaussian semimetrics: the root mean squared
//! distance between pairs of points, optionally weighted.

use rayon::prelude::*;

use super::frame::{Frame, PASS_VALUES};
use super::Base;
use crate::control::Control;
use crate::distance::{Points, Semimetric};
use crate::error::{try_filled, KGroupsError, Result};
use crate::scale::{binary_exponent, times_pow2};

/// The bandwidth σ with σ² = (1/n²) Σ_ab ‖x_a − x_b‖² = 2·mean ‖x − x̄‖², computed in O(nD)
/// from deviations about the mean (no cancellation), in a frame scaled by a power of two so that
/// neither tiny nor huge data underflow or overflow. The order of every sum depends only on n
/// and D, so the result does not depend on the number of threads. Checks `control` for
/// cancellation between chunks of the data.
///
/// Errors (argument `"X"`) when σ = 0, i.e. all points are identical: pass σ explicitly then;
/// or when σ overflows f64.
///
/// ```
/// use kgroups::gram::{bandwidth, Points};
/// use kgroups::Control;
/// let x = Points::new(&[0.0, 2.0], 2, 1).unwrap();
/// // pairs: 0, 4, 4, 0 → mean 2 → σ = √2
/// assert!((bandwidth(&x, &Control::new()).unwrap() - 2f64.sqrt()).abs() < 1e-15);
/// // the same relative to the data's scale, however tiny
/// let tiny = Points::new(&[0.0, 2e-300], 2, 1).unwrap();
/// let s = bandwidth(&tiny, &Control::new()).unwrap();
/// assert!((s / 1e-300 - 2f64.sqrt()).abs() < 1e-14);
/// ```
pub fn bandwidth(x: &Points, control: &Control) -> Result<f64> {
    spread(x, None, control)
}

/// [`bandwidth`] with point weights: σ² = Σ_ab w_a w_b ‖x_a − x_b‖² / s² = 2 Σ_a w_a ‖x_a − m‖² / s,
/// with s = Σ_a w_a and m the weighted mean, computed with the same care (deviations about m,
/// kept as two doubles per coordinate; the weights divided by a power of two near the largest,
/// which changes no rounding and lets them take any finite scale). Points of weight 0 count
/// as absent. Unit weights give the bits of [`bandwidth`].
///
/// Errors: `weights` not of length n, not finite, negative, or all 0 (argument `"weights"`);
/// the points of positive weight all identical (σ = 0: pass σ explicitly), or σ beyond the
/// range of f64 (argument `"X"`).
///
/// ```
/// use kgroups::gram::{bandwidth, bandwidth_weighted, Points};
/// use kgroups::Control;
/// let x = Points::new(&[0.0, 2.0, 7.0], 3, 1).unwrap();
/// // the third point does not count: the bandwidth of the first two
/// let w = bandwidth_weighted(&x, &[1.0, 1.0, 0.0], &Control::new()).unwrap();
/// assert!((w - 2f64.sqrt()).abs() < 1e-15);
/// // weight 2 is the point taken twice
/// let twice = Points::new(&[0.0, 2.0, 2.0], 3, 1).unwrap();
/// let a = bandwidth_weighted(&x, &[1.0, 2.0, 0.0], &Control::new()).unwrap();
/// let b = bandwidth(&twice, &Control::new()).unwrap();
/// assert!((a - b).abs() < 1e-15);
/// assert!(bandwidth_weighted(&x, &[1.0, -1.0, 0.0], &Control::new()).is_err());
/// ```
pub fn bandwidth_weighted(x: &Points, weights: &[f64], control: &Control) -> Result<f64> {
    let scaled = scaled_weights(weights, x.n())?;
    spread(x, Some(&scaled), control)
}

/// The weights checked (one per point, finite, ≥ 0, not all 0) and divided by the power of
/// two 2^e ≤ max w < 2^(e+1), so that no weighted sum overflows.
fn scaled_weights(weights: &[f64], n: usize) -> Result<Vec<f64>> {
    crate::validate::sample_weights(weights, n, "weights")?;
    let largest = weights.iter().fold(0.0f64, |m, &w| m.max(w));
    let e = binary_exponent(largest);
    let mut scaled = try_filled(n, 0.0, "weights", "the point weights")?;
    for (s, &w) in scaled.iter_mut().zip(weights) {
        *s = times_pow2(w, -e);
    }
    Ok(scaled)
}

/// σ from the (scaled) weights, or unit weights (`None`, multiplied as 1: the same bits as
/// all-ones weights).
fn spread(x: &Points, weights: Option<&[f64]>, control: &Control) -> Result<f64> {
    let frame = match weights {
        None => Frame::new(
            &[x],
            x,
            Semimetric::Power { alpha: 2.0 },
            Base::Mean,
            control,
        )?,
        Some(w) => Frame::weighted_mean(x, w, control)?,
    };
    let identical = || {
        KGroupsError::invalid(
            "X",
            if weights.is_none() {
                "all points of X are identical, so the default bandwidth is 0; pass sigma explicitly"
            } else {
                "all points of X with a positive weight are identical, so the default bandwidth is 0; pass sigma explicitly"
            },
        )
    };
    if frame.spread == 0.0 {
        return Err(identical());
    }
    let r0 = frame.rho_to_base(x, "X", control)?; // ‖x·2^e − mean‖² per point
    let ss = match weights {
        None => weighted_sum(&r0, |_| 1.0),
        Some(w) => weighted_sum(&r0, |i| w[i]),
    };
    if ss == 0.0 {
        // Only weights can get here: points of weight 0 spread the data, the others coincide.
        return Err(identical());
    }
    let s = match weights {
        None => x.n() as f64,
        Some(w) => {
            let partial: Vec<f64> = w.par_chunks(PASS_VALUES).map(|c| c.iter().sum()).collect();
            partial.iter().sum()
        }
    };
    let sigma = times_pow2((2.0 * ss / s).sqrt(), -frame.exponent);
    if !sigma.is_finite() {
        return Err(KGroupsError::invalid(
            "X",
            "the spread of X overflows f64 when computing the default bandwidth; rescale the data or pass sigma explicitly",
        ));
    }
    if sigma == 0.0 {
        return Err(KGroupsError::invalid(
            "X",
            "the spread of X is too small for its bandwidth to be represented in f64; rescale the data or pass sigma explicitly",
        ));
    }
    Ok(sigma)
}

/// Σ_i weight(i)·v_i, in chunks whose order depends only on the length (compiled for each kind
/// of weights: x·1 is folded to x).
fn weighted_sum(v: &[f64], weight: impl Fn(usize) -> f64 + Sync) -> f64 {
    let partial: Vec<f64> = v
        .par_chunks(PASS_VALUES)
        .enumerate()
        .map(|(c, chunk)| {
            let first = c * PASS_VALUES;
            chunk
                .iter()
                .enumerate()
                .map(|(j, &r)| weight(first + j) * r)
                .sum()
        })
        .collect();
    partial.iter().sum()
}
