//! The semimetrics of negative type and their values ρ from distances.

use super::exp::one_minus_exp_neg;
use crate::error::{KGroupsError, Result};

/// A semimetric of negative type on R^D (see [the module documentation](crate::distance) for
/// the formulas).
///
/// ```
/// use kgroups::distance::Semimetric;
/// let rho = Semimetric::Power { alpha: 1.0 };
/// assert!(rho.validate().is_ok());
/// assert_eq!(rho.from_squared_distance(9.0), 3.0);
/// assert!(Semimetric::Gaussian { sigma: 0.0 }.validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Semimetric {
    /// ρ(x,y) = ‖x−y‖^α with 0 < α ≤ 2 (α = 1: the standard energy distance).
    Power {
        /// The exponent α, in (0, 2].
        alpha: f64,
    },
    /// ρ(x,y) = 2 − 2·exp(−‖x−y‖ / (2σ)) with σ > 0.
    Exponential {
        /// The bandwidth σ, finite and > 0.
        sigma: f64,
    },
    /// ρ(x,y) = 2 − 2·exp(−‖x−y‖² / (2σ²)) with σ > 0.
    Gaussian {
        /// The bandwidth σ, finite and > 0.
        sigma: f64,
    },
}

/// ρ = 2 − 2e^{−t} = 2·(1 − e^{−t}) of the exponential and gaussian semimetrics, through the
/// vectorisable [`one_minus_exp_neg`] (within 2.7 ulp, full relative accuracy for tiny t;
/// NaN stays NaN, which the rows rely on). The one place these two semimetrics exponentiate.
#[inline(always)]
fn rho_of_exponent(t: f64) -> f64 {
    2.0 * one_minus_exp_neg(t)
}

#[inline(always)]
fn exponential_rho(d2: f64, sigma: f64) -> f64 {
    rho_of_exponent(d2.sqrt() / (2.0 * sigma))
}

#[inline(always)]
fn gaussian_rho(d2: f64, sigma: f64) -> f64 {
    // d2 / (2σ²) written so that neither σ² nor 1/σ can overflow or underflow to give 0·∞.
    rho_of_exponent(0.5 * (d2 / sigma / sigma))
}

impl Semimetric {
    /// Checks the parameter: `alpha` in (0, 2] (argument `"alpha"`), `sigma` finite and > 0
    /// (argument `"sigma"`).
    ///
    /// ```
    /// use kgroups::distance::Semimetric;
    /// assert!(Semimetric::Power { alpha: 2.0 }.validate().is_ok());
    /// assert!(Semimetric::Power { alpha: 2.5 }.validate().is_err());
    /// assert!(Semimetric::Exponential { sigma: f64::INFINITY }.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        match *self {
            Semimetric::Power { alpha } => {
                if !(alpha > 0.0 && alpha <= 2.0) {
                    return Err(KGroupsError::invalid(
                        "alpha",
                        format!(
                            "alpha = {alpha} is not allowed; the power semimetric ‖x−y‖^alpha is of negative type only for 0 < alpha <= 2"
                        ),
                    ));
                }
                // ρ = (d²)^(alpha/2): a subnormal alpha would make alpha/2 round to 0, and
                // then ρ(x, x) = 0⁰ = 1.
                if alpha < f64::MIN_POSITIVE {
                    return Err(KGroupsError::invalid(
                        "alpha",
                        format!(
                            "alpha = {alpha:e} is below the smallest normal float64 ({:e}); use 0 < alpha <= 2 with a normal number",
                            f64::MIN_POSITIVE
                        ),
                    ));
                }
            }
            Semimetric::Exponential { sigma } | Semimetric::Gaussian { sigma } => {
                if !(sigma.is_finite() && sigma > 0.0) {
                    return Err(KGroupsError::invalid(
                        "sigma",
                        format!(
                            "sigma = {sigma} is not allowed; the bandwidth must be finite and > 0"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// ρ from the squared Euclidean distance `d2 >= 0`: power: `d2^(alpha/2)` (`alpha == 1`:
    /// `sqrt(d2)`, `alpha == 2`: `d2` exactly); exponential: `2 − 2 exp(−sqrt(d2)/(2σ))`;
    /// gaussian: `2 − 2 exp(−d2/(2σ²))` (both as `2·(1 − e^{−t})` by a vectorisable expm1,
    /// within 2.7 ulp, with full relative accuracy for tiny distances; ρ = 2 exactly once
    /// e^{−t} < 2^-54). The parameter is assumed valid (see [`Semimetric::validate`]).
    ///
    /// ```
    /// use kgroups::distance::Semimetric;
    /// assert_eq!(Semimetric::Power { alpha: 2.0 }.from_squared_distance(2.5), 2.5);
    /// let g = Semimetric::Gaussian { sigma: 1.0 }.from_squared_distance(2.0);
    /// assert!((g - (2.0 - 2.0 * (-1.0f64).exp())).abs() < 1e-15);
    /// ```
    #[inline]
    pub fn from_squared_distance(&self, d2: f64) -> f64 {
        /// ρ of one squared distance.
        struct One(f64);
        impl WithRho for One {
            type Output = f64;
            #[inline(always)]
            fn run<R: RhoOfSquared>(self, rho: R) -> f64 {
                rho.rho(self.0)
            }
        }
        self.with_rho(One(d2))
    }

    /// ρ from the distance `d >= 0` itself, for a distance whose square would leave the
    /// normal range: power `d^alpha`, exponential `2·(1 − e^{−d/(2σ)})`, gaussian
    /// `2·(1 − e^{−(d/σ)²/2})` (the same functions, and the same expm1, as
    /// [`Semimetric::from_squared_distance`], which may round differently in the last place).
    ///
    /// ```
    /// use kgroups::distance::Semimetric;
    /// let tiny = 1e-200_f64;
    /// assert_eq!(Semimetric::Power { alpha: 1.0 }.from_distance(tiny), tiny);
    /// assert!(Semimetric::Power { alpha: 1.0 }.from_squared_distance(tiny * tiny) == 0.0);
    /// ```
    #[inline]
    pub fn from_distance(&self, d: f64) -> f64 {
        match *self {
            Semimetric::Power { alpha } => d.powf(alpha),
            Semimetric::Exponential { sigma } => rho_of_exponent(d / (2.0 * sigma)),
            Semimetric::Gaussian { sigma } => {
                let r = d / sigma;
                rho_of_exponent(0.5 * r * r)
            }
        }
    }

    /// Replaces every squared distance in `d2` by ρ, exactly as
    /// [`Semimetric::from_squared_distance`] would, but with the dispatch on the kind of
    /// semimetric hoisted out of the loop.
    ///
    /// ```
    /// use kgroups::distance::Semimetric;
    /// let mut v = [0.0, 4.0, 9.0];
    /// Semimetric::Power { alpha: 1.0 }.apply_to_squared_distances(&mut v);
    /// assert_eq!(v, [0.0, 2.0, 3.0]);
    /// ```
    #[inline(always)]
    pub fn apply_to_squared_distances(&self, d2: &mut [f64]) {
        /// ρ of every squared distance of a slice, in place.
        struct Each<'a>(&'a mut [f64]);
        impl WithRho for Each<'_> {
            type Output = ();
            #[inline(always)]
            fn run<R: RhoOfSquared>(self, rho: R) {
                // A loop in the caller's body, not a call to `for_each`: the compiler may
                // leave that call out of line, compiled for the baseline instruction set
                // instead of the wide kernel's (measured: exponential Gram rows 0.9×).
                for v in self.0.iter_mut() {
                    *v = rho.rho(*v);
                }
            }
        }
        self.with_rho(Each(d2))
    }

    /// Runs `work` with ρ as a function of the squared distance of its own type, so that a
    /// loop over pairs is compiled once per kind of semimetric with ρ inlined (and
    /// vectorised where it can be). The one place that says which function of d² each
    /// semimetric is: power `d2^(alpha/2)` (`alpha == 1`: `sqrt(d2)`, `alpha == 2`: `d2`),
    /// exponential `2·(1 − e^{−√d2/(2σ)})`, gaussian `2·(1 − e^{−d2/(2σ²)})`.
    #[inline(always)]
    pub(crate) fn with_rho<W: WithRho>(&self, work: W) -> W::Output {
        match *self {
            Semimetric::Power { alpha } => {
                if alpha == 1.0 {
                    work.run(SquareRoot)
                } else if alpha == 2.0 {
                    work.run(Identity)
                } else {
                    work.run(HalfPower(0.5 * alpha))
                }
            }
            Semimetric::Exponential { sigma } => work.run(ExponentialRho(sigma)),
            Semimetric::Gaussian { sigma } => work.run(GaussianRho(sigma)),
        }
    }
}

/// ρ as a function of the squared distance d² (see [`Semimetric::with_rho`]).
pub(crate) trait RhoOfSquared: Copy {
    /// Whether ρ is best taken in the same pass as the squared distances, its latency hidden
    /// behind the next points' sums: true for the square root (one vector per several cycles
    /// on the divide unit, which the sums do not use), false where ρ is arithmetic that
    /// competes with the sums for registers and ports (the exponentials, measured slower
    /// fused) or a library call (general alpha).
    const OVERLAPS: bool = false;
    /// ρ of the squared distance `d2` (NaN stays NaN).
    fn rho(self, d2: f64) -> f64;
}

/// Work over pairs compiled for one [`RhoOfSquared`] (see [`Semimetric::with_rho`]).
pub(crate) trait WithRho {
    /// What the work returns.
    type Output;
    /// Does the work with `rho`. Implementations mark it `#[inline(always)]`, so that it is
    /// compiled for the vector width of its caller.
    fn run<R: RhoOfSquared>(self, rho: R) -> Self::Output;
}

/// The power semimetric with alpha = 1: ρ = √d².
#[derive(Clone, Copy)]
struct SquareRoot;

impl RhoOfSquared for SquareRoot {
    const OVERLAPS: bool = true;
    #[inline(always)]
    fn rho(self, d2: f64) -> f64 {
        d2.sqrt()
    }
}

/// The power semimetric with alpha = 2: ρ = d², exactly.
#[derive(Clone, Copy)]
struct Identity;

impl RhoOfSquared for Identity {
    #[inline(always)]
    fn rho(self, d2: f64) -> f64 {
        d2
    }
}

/// The power semimetric with another alpha: ρ = (d²)^h, h = alpha/2.
#[derive(Clone, Copy)]
struct HalfPower(f64);

impl RhoOfSquared for HalfPower {
    #[inline(always)]
    fn rho(self, d2: f64) -> f64 {
        d2.powf(self.0)
    }
}

/// The exponential semimetric of bandwidth σ.
#[derive(Clone, Copy)]
struct ExponentialRho(f64);

impl RhoOfSquared for ExponentialRho {
    #[inline(always)]
    fn rho(self, d2: f64) -> f64 {
        exponential_rho(d2, self.0)
    }
}

/// The gaussian semimetric of bandwidth σ.
#[derive(Clone, Copy)]
struct GaussianRho(f64);

impl RhoOfSquared for GaussianRho {
    #[inline(always)]
    fn rho(self, d2: f64) -> f64 {
        gaussian_rho(d2, self.0)
    }
}
