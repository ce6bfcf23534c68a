//! Statistics of data whose squared distances would leave the normal range of f64.

use crate::control::Control;
use crate::distance::{Points, Semimetric};
use crate::error::{KGroupsError, Result};
use crate::gram::{Base, Frame};

/// Data whose spread would make squared distances underflow or overflow (below 2^-256 or
/// beyond 2^257), in the frame of the Gram builders ([`Frame`]): the coordinates times
/// `scale` = 2^e (applied as the pairs are evaluated: nothing is copied), the semimetric of the
/// scaled data (σ·2^e for the exponential and gaussian ones), and the factor 2^(−e·α) that turns
/// the power semimetric's values back (1 for the others). Every statistic is linear in ρ, so it
/// is computed on the scaled data and multiplied by the factor.
pub(super) struct ScaledData {
    pub(super) scale: f64,
    pub(super) semimetric: Semimetric,
    factor: f64,
}

impl ScaledData {
    /// `None` when the data need no scaling (the common case).
    pub(super) fn new(
        sets: &[&Points],
        semimetric: Semimetric,
        control: &Control,
    ) -> Result<Option<Self>> {
        let frame = Frame::new(sets, sets[0], semimetric, Base::Centered, control)?;
        if frame.unscaled() {
            return Ok(None);
        }
        let scale = frame.scale();
        let factor = match semimetric {
            Semimetric::Power { alpha } => (-scale.log2() * alpha).exp2(),
            _ => 1.0,
        };
        Ok(Some(ScaledData {
            scale,
            semimetric: frame.semimetric(),
            factor,
        }))
    }

    /// `value` (computed on the scaled data) for the data, or an error when f64 cannot hold it.
    pub(super) fn unscale(&self, value: f64, what: &str) -> Result<f64> {
        let out = value * self.factor;
        if !out.is_finite() || (value != 0.0 && !out.is_normal()) {
            return Err(KGroupsError::invalid(
                "X",
                format!(
                    "{what} of X is beyond the range of f64 (it would overflow or underflow: about \
                     {value:e} × {:e}); rescale X",
                    self.factor
                ),
            ));
        }
        Ok(out)
    }
}
