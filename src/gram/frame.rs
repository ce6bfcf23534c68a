//! How data points are evaluated exactly at any magnitude: the frame scaled by a power of two,
//! the base point, and the factors that turn kernel values of the scaled data into those of the
//! data.

use rayon::prelude::*;

use super::Base;
use crate::control::Control;
use crate::distance::{block_range, DataRows, Points, RunEpilogue, Semimetric};
use crate::error::{try_filled, KGroupsError, Result};
use crate::kernel::KernelElement;
use crate::scale::{binary_exponent, pow2, times_pow2};

/// Data whose spread (about the base point) lies within [2^-WINDOW, 2^(WINDOW+1)) are used as
/// they are; other data are scaled by a power of two first.
const WINDOW: i32 = 256;
/// Scaled coordinates stay below 2^(SCALED_MAX + 1), so that their differences stay finite.
const SCALED_MAX: i32 = 1000;
/// Values per chunk of the O(n·D) passes over the data: cancellation is checked per chunk, and
/// the order of every sum depends only on this and D, never on the number of threads.
pub(super) const PASS_VALUES: usize = 1 << 16;

/// Rows per chunk of the O(n·D) passes.
fn pass_rows(dim: usize) -> usize {
    (PASS_VALUES / dim.max(1)).max(1)
}

/// The largest value and the smallest normal value of `T` (f64 or f32).
fn limits<T: KernelElement>() -> (f64, f64) {
    if std::mem::size_of::<T>() == 4 {
        (f32::MAX as f64, f32::MIN_POSITIVE as f64)
    } else {
        (f64::MAX, f64::MIN_POSITIVE)
    }
}

/// 2^log2 written as "1.0e-340" (for messages about values that f64 cannot hold).
fn power_of_two_as_decimal(log2: f64) -> String {
    let l10 = log2 * std::f64::consts::LOG10_2;
    let exponent = l10.floor();
    format!("{:.1}e{}", 10f64.powf(l10 - exponent), exponent as i64)
}

/// The base point of [`Base::Mean`] in the scaled frame: x̄_k = hi_k + lo_k.
#[derive(Debug, Clone)]
struct Center {
    hi: Vec<f64>,
    lo: Vec<f64>,
}

/// How data points are evaluated exactly at any magnitude.
///
/// Coordinates are multiplied by `scale` = 2^e, with e = 0 unless the spread of the data about
/// the base point is tiny or huge (outside [2^-256, 2^257)), so that squared distances neither
/// underflow nor overflow. Multiplying by a power of two is exact, so (away from overflow and
/// underflow) every scaled distance is bit for bit 2^e times the unscaled one. The semimetric is
/// that of the scaled data (σ·2^e for the exponential and gaussian ones, whose ρ depends only on
/// d/σ), and kernel values of the scaled data are turned into those of the data by
/// [`Frame::output_factors`] (2^(−e·α) for the power semimetric, which is homogeneous:
/// ρ(sx, sy) = s^α ρ(x, y)). With e = 0 every value is bit for bit the unscaled formula.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// e of the scale 2^e.
    pub(super) exponent: i32,
    scale: f64,
    semimetric: Semimetric,
    center: Option<Center>,
    /// The largest |coordinate − base coordinate| in the scaled frame (0: every point is the
    /// base point, and the kernel is exactly 0).
    pub(super) spread: f64,
}

/// Per chunk of rows: the sums of the coordinates, their minima and maxima.
type ColumnStats = (Vec<f64>, Vec<f64>, Vec<f64>);

impl Frame {
    /// The frame for the points of `sets` (all of them are evaluated in it) with the base point
    /// of `base` computed from `reference` (for [`Base::Mean`]; [`Base::Centered`] uses the mean
    /// only to measure the spread). Errors: an invalid semimetric; data whose columns differ so
    /// much in magnitude that no common scale keeps them all (argument `"X"`); a bandwidth that
    /// cannot be scaled with the data (argument `"sigma"`); cancellation.
    pub(crate) fn new(
        sets: &[&Points],
        reference: &Points,
        semimetric: Semimetric,
        base: Base,
        control: &Control,
    ) -> Result<Frame> {
        Self::build(sets, reference, None, semimetric, base, control)
    }

    /// The frame of the squared Euclidean distance (ρ = ‖x − y‖²) of the points `x` with the
    /// base point their mean weighted by `weights` (finite, ≥ 0, at least one > 0; points of
    /// weight 0 do not move the mean). Errors as [`Frame::new`].
    pub(crate) fn weighted_mean(x: &Points, weights: &[f64], control: &Control) -> Result<Frame> {
        Self::build(
            &[x],
            x,
            Some(weights),
            Semimetric::Power { alpha: 2.0 },
            Base::Mean,
            control,
        )
    }

    /// [`Frame::new`], with the mean of [`Base::Mean`] weighted by `weights` when given.
    fn build(
        sets: &[&Points],
        reference: &Points,
        weights: Option<&[f64]>,
        semimetric: Semimetric,
        base: Base,
        control: &Control,
    ) -> Result<Frame> {
        semimetric.validate()?;
        let dim = reference.dim();
        // The largest |coordinate| of every column, over all the sets.
        let mut a_col = vec![0.0f64; dim];
        for p in sets {
            for (a, m) in a_col.iter_mut().zip(column_max_abs(p, control)?) {
                *a = a.max(m);
            }
        }
        let a_max = a_col.iter().fold(0.0f64, |m, &v| m.max(v));
        if a_max == 0.0 {
            let center = (base == Base::Mean).then(|| Center {
                hi: vec![0.0; dim],
                lo: vec![0.0; dim],
            });
            return Ok(Frame {
                exponent: 0,
                scale: 1.0,
                semimetric,
                center,
                spread: 0.0,
            });
        }
        let ea = binary_exponent(a_max);
        // The base point and the spread about it. Column k is handled in the frame where it is
        // multiplied by t_k = 2^te_k, which makes its largest |coordinate| about 1: its sums
        // cannot overflow, and its values cannot underflow whatever the other columns hold.
        // `spread` is, per column, the largest |coordinate − base coordinate| in that frame.
        let (center_t, spread_t, te) = match base {
            Base::Origin => (None, a_col, vec![0; dim]),
            Base::Mean | Base::Centered => {
                let te: Vec<i32> = a_col
                    .iter()
                    .map(|&a| {
                        if a == 0.0 {
                            0
                        } else {
                            (-binary_exponent(a)).clamp(-1022, 1023)
                        }
                    })
                    .collect();
                let t: Vec<f64> = te.iter().map(|&e| pow2(e)).collect();
                let c = mean_of(reference, &t, weights, control)?;
                let mut r = vec![0.0f64; dim];
                for p in sets {
                    for (r, m) in r.iter_mut().zip(max_residual(p, &t, &c, control)?) {
                        *r = r.max(m);
                    }
                }
                (Some(c), r, te)
            }
        };
        // ⌊log2⌋ of the spread of the data (the largest over the columns), if not 0.
        let er = spread_t
            .iter()
            .zip(&te)
            .filter(|(&r, _)| r > 0.0)
            .map(|(&r, &t)| binary_exponent(r) - t)
            .max();
        let exponent = match er {
            None => 0,
            Some(er) => {
                let e = if er.abs() <= WINDOW { 0 } else { -er };
                let e = e.clamp(-1022, 1023).min(SCALED_MAX - ea);
                if er + e < -WINDOW {
                    return Err(KGroupsError::invalid(
                        "X",
                        format!(
                            "X mixes coordinates of very different magnitudes (values up to {a_max:e}, but a spread of only about {} about the base point), beyond what one f64 scale can hold; rescale its columns to comparable ranges",
                            power_of_two_as_decimal(er as f64)
                        ),
                    ));
                }
                e
            }
        };
        // From the frame of column k to the common scaled frame: times 2^(exponent − te_k).
        let to_scaled = |v: f64, k: usize| times_pow2(v, exponent - te[k]);
        let center = match (base, center_t) {
            (Base::Mean, Some(c)) => Some(Center {
                hi: c
                    .hi
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| to_scaled(v, k))
                    .collect(),
                lo: c
                    .lo
                    .iter()
                    .enumerate()
                    .map(|(k, &v)| to_scaled(v, k))
                    .collect(),
            }),
            _ => None,
        };
        let spread = spread_t
            .iter()
            .enumerate()
            .fold(0.0f64, |m, (k, &r)| m.max(to_scaled(r, k)));
        let spread_log2 = er.unwrap_or(0) as f64;
        let semimetric = match semimetric {
            Semimetric::Power { .. } => semimetric,
            Semimetric::Exponential { sigma } | Semimetric::Gaussian { sigma } => {
                let scaled = times_pow2(sigma, exponent);
                if !(scaled.is_normal() && (2.0 * scaled).is_finite()) {
                    return Err(KGroupsError::invalid(
                        "sigma",
                        format!(
                            "sigma = {sigma:e} is too {} for the spread of X (about {}): the kernel entries are not representable in f64; rescale X or choose sigma closer to the spread",
                            if scaled.is_finite() && scaled < 1.0 { "small" } else { "large" },
                            power_of_two_as_decimal(spread_log2)
                        ),
                    ));
                }
                match semimetric {
                    Semimetric::Exponential { .. } => Semimetric::Exponential { sigma: scaled },
                    _ => Semimetric::Gaussian { sigma: scaled },
                }
            }
        };
        Ok(Frame {
            exponent,
            scale: pow2(exponent),
            semimetric,
            center,
            spread,
        })
    }

    /// The semimetric of the scaled data.
    pub(crate) fn semimetric(&self) -> Semimetric {
        self.semimetric
    }

    /// Whether coordinates are used as they are (scale 1).
    #[inline(always)]
    pub(crate) fn unscaled(&self) -> bool {
        self.scale == 1.0
    }

    /// The coordinate multiplier 2^e.
    #[inline(always)]
    pub(crate) fn scale(&self) -> f64 {
        self.scale
    }

    /// Pairwise rows of the points `x` in this frame (see [`DataRows`]). Fails with
    /// [`KGroupsError::OutOfMemory`] (argument `arg`) when their transposed copy cannot be had.
    pub(crate) fn rows<'a>(&self, x: Points<'a>, arg: &'static str) -> Result<DataRows<'a>> {
        DataRows::new(x, self.scale, self.semimetric, arg)
    }

    /// ρ(x_a, base point) in the scaled frame for every point of `x`: from the coordinates
    /// x·2^e (base point 0) or from ((x·2^e − hi) − lo) ([`Base::Mean`]), squared and summed in
    /// coordinate order.
    pub(crate) fn rho_to_base(
        &self,
        x: &Points,
        arg: &'static str,
        control: &Control,
    ) -> Result<Vec<f64>> {
        let mut out = try_filled(x.n(), 0.0, arg, "the distances to the base point")?;
        let rows = pass_rows(x.dim());
        let s = self.scale;
        out.par_chunks_mut(rows)
            .enumerate()
            .try_for_each(|(c, chunk)| -> Result<()> {
                control.checkpoint()?;
                for (j, r) in chunk.iter_mut().enumerate() {
                    let row = x.row(c * rows + j);
                    let d2 = match &self.center {
                        None => row.iter().fold(0.0, |acc, &v| {
                            let u = v * s;
                            acc + u * u
                        }),
                        Some(center) => row.iter().zip(&center.hi).zip(&center.lo).fold(
                            0.0,
                            |acc, ((&v, &hi), &lo)| {
                                let d = (v * s - hi) - lo;
                                acc + d * d
                            },
                        ),
                    };
                    *r = if d2 >= f64::MIN_POSITIVE {
                        self.semimetric.from_squared_distance(d2)
                    } else {
                        // The square lost its digits below the normal range (a point very near
                        // the base point in data that also hold huge values): use the distance.
                        self.semimetric.from_distance(self.distance_to_base(row))
                    };
                }
                Ok(())
            })?;
        Ok(out)
    }

    /// ‖x·2^e − base‖ computed as m·√Σ(Δ_k/m)², m = max_k |Δ_k| (no underflow of the squares).
    fn distance_to_base(&self, row: &[f64]) -> f64 {
        let s = self.scale;
        let delta = |k: usize, v: f64| match &self.center {
            None => v * s,
            Some(center) => (v * s - center.hi[k]) - center.lo[k],
        };
        let m = row
            .iter()
            .enumerate()
            .fold(0.0f64, |m, (k, &v)| m.max(delta(k, v).abs()));
        if m == 0.0 {
            return 0.0;
        }
        let sum: f64 = row
            .iter()
            .enumerate()
            .map(|(k, &v)| (delta(k, v) / m).powi(2))
            .sum();
        m * sum.sqrt()
    }

    /// The factors (f1, f2) that turn kernel values K' of the scaled data into those of the
    /// data, K = (K'·f1)·f2, after checking that the largest entry — `max_entry` in the scaled
    /// frame (the largest diagonal entry: the kernels are positive semi-definite) — can be held
    /// by `T`: it must neither overflow nor fall below `T`'s smallest normal number (then every
    /// entry would lose its precision). Errors name `arg`.
    pub(crate) fn output_factors<T: KernelElement>(
        &self,
        max_entry: f64,
        arg: &'static str,
    ) -> Result<(f64, f64)> {
        let g = match self.semimetric {
            Semimetric::Power { alpha } => -(self.exponent as f64) * alpha,
            _ => 0.0,
        };
        let (t_max, t_min) = limits::<T>();
        let name = std::any::type_name::<T>();
        let rescale = match self.semimetric {
            Semimetric::Power { .. } => "rescale X (multiply it by a constant)",
            _ => "rescale X (multiply it by a constant) or choose sigma closer to its spread",
        };
        if max_entry == 0.0 || !max_entry.is_finite() {
            if self.spread == 0.0 && max_entry == 0.0 {
                return Ok((1.0, 1.0)); // every point is the base point: the kernel is 0
            }
            return Err(KGroupsError::invalid(
                arg,
                format!(
                    "the kernel entries of X are too small to be represented in {name} (they underflow to 0); {rescale}"
                ),
            ));
        }
        let log2_max = max_entry.log2() + g;
        if log2_max >= t_max.log2() {
            return Err(KGroupsError::invalid(
                arg,
                format!(
                    "the kernel has entries that overflow {name} (about {}; the largest {name} is {t_max:.1e}); rescale X (divide it by a constant)",
                    power_of_two_as_decimal(log2_max)
                ),
            ));
        }
        if log2_max < t_min.log2() {
            let hint = if name == "f32" {
                "; use float64 output, or"
            } else {
                ";"
            };
            return Err(KGroupsError::invalid(
                arg,
                format!(
                    "the kernel entries of X are at most about {}, below the smallest normal {name} ({t_min:.1e}): they cannot be represented accurately{hint} {rescale}",
                    power_of_two_as_decimal(log2_max)
                ),
            ));
        }
        if g == 0.0 {
            return Ok((1.0, 1.0));
        }
        let h = (g / 2.0).trunc();
        let rest = g - h;
        let f1 = if rest.fract() == 0.0 {
            pow2(rest as i32)
        } else {
            rest.exp2()
        };
        Ok((f1, pow2(h as i32)))
    }
}

/// The kernel value ½[(r_a + r_b) − ρ_ab] of the scaled frame, turned into that of the data.
#[inline(always)]
pub(crate) fn base_kernel_value(ra: f64, rb: f64, rho: f64, factors: (f64, f64)) -> f64 {
    0.5 * ((ra + rb) - rho) * factors.0 * factors.1
}

/// Row `a` of ρ turned into kernel values with a base point ([`base_kernel_value`]) inside the
/// vectorised pair kernel, for the dense builders and the matrix-free rows alike.
pub(crate) struct BaseKernelRow<'k> {
    /// ρ(x_a, base point).
    pub(crate) r_a: f64,
    /// ρ(x_y, base point) for every point y.
    pub(crate) to_base: &'k [f64],
    pub(crate) factors: (f64, f64),
}

impl RunEpilogue for BaseKernelRow<'_> {
    #[inline(always)]
    fn apply(&self, start: usize, values: &mut [f64]) {
        for (v, &r_y) in values.iter_mut().zip(&self.to_base[start..]) {
            *v = base_kernel_value(self.r_a, r_y, *v, self.factors);
        }
    }
}

/// The largest |coordinate| of every column of `p`, in parallel chunks of rows, checking for
/// cancellation.
fn column_max_abs(p: &Points, control: &Control) -> Result<Vec<f64>> {
    column_max(p, control, |m, row| {
        for (m, &v) in m.iter_mut().zip(row) {
            *m = m.max(v.abs());
        }
    })
}

/// Per column, the largest of values ≥ 0 computed from the points of `p`: `update(m, row)`
/// raises the running maxima `m` by the values of one point. In parallel chunks of rows,
/// checking for cancellation.
fn column_max(
    p: &Points,
    control: &Control,
    update: impl Fn(&mut [f64], &[f64]) + Sync,
) -> Result<Vec<f64>> {
    let (n, dim) = (p.n(), p.dim());
    let rows = pass_rows(dim);
    (0..n.div_ceil(rows))
        .into_par_iter()
        .map(|c| -> Result<Vec<f64>> {
            control.checkpoint()?;
            let mut m = vec![0.0f64; dim];
            for i in block_range(c, rows, n) {
                update(&mut m, p.row(i));
            }
            Ok(m)
        })
        .try_reduce(
            || vec![0.0; dim],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a = a.max(b));
                Ok(a)
            },
        )
}

/// The mean of the points of `p` (weighted by `weights` when given: finite, ≥ 0, not all 0),
/// column k taken in the frame where it is multiplied by `t[k]`, as hi + lo per column: hi the
/// mean, lo the mean of the residuals x·t − hi. A column whose values (at the points of
/// positive weight) are all equal gets exactly that value (and lo = 0), so that its residuals
/// are 0. The order of every sum depends only on n and D. Unit weights (`None`) multiply by 1,
/// which is exact: the same bits as all-ones weights.
fn mean_of(p: &Points, t: &[f64], weights: Option<&[f64]>, control: &Control) -> Result<Center> {
    // One loop, compiled for each kind of weights (x·1 is folded to x).
    match weights {
        None => mean_with(p, t, |_| 1.0, true, control),
        Some(w) => mean_with(p, t, |i| w[i], false, control),
    }
}

/// [`mean_of`] with the weight of point i `weight(i)`; `unit`: all weights are 1.
fn mean_with(
    p: &Points,
    t: &[f64],
    weight: impl Fn(usize) -> f64 + Sync,
    unit: bool,
    control: &Control,
) -> Result<Center> {
    let (n, dim) = (p.n(), p.dim());
    let rows = pass_rows(dim);
    let chunks = n.div_ceil(rows);
    let stats: Vec<(ColumnStats, f64)> = (0..chunks)
        .into_par_iter()
        .map(|c| -> Result<(ColumnStats, f64)> {
            control.checkpoint()?;
            let mut sum = vec![0.0; dim];
            let mut min = vec![f64::INFINITY; dim];
            let mut max = vec![f64::NEG_INFINITY; dim];
            let mut total = 0.0;
            for i in block_range(c, rows, n) {
                let w = weight(i);
                if w == 0.0 {
                    continue; // a point of weight 0 does not move the mean
                }
                total += w;
                for (k, (&v, &t)) in p.row(i).iter().zip(t).enumerate() {
                    let v = v * t;
                    sum[k] += w * v;
                    min[k] = min[k].min(v);
                    max[k] = max[k].max(v);
                }
            }
            Ok(((sum, min, max), total))
        })
        .collect::<Result<_>>()?;
    let mut hi = vec![0.0; dim];
    let mut min = vec![f64::INFINITY; dim];
    let mut max = vec![f64::NEG_INFINITY; dim];
    let mut total = 0.0;
    for ((sum, lo, up), w) in &stats {
        total += w;
        for k in 0..dim {
            hi[k] += sum[k];
            min[k] = min[k].min(lo[k]);
            max[k] = max[k].max(up[k]);
        }
    }
    // Unit weights add up to n exactly.
    let s = if unit { n as f64 } else { total };
    let constant: Vec<bool> = min.iter().zip(&max).map(|(a, b)| a == b).collect();
    for k in 0..dim {
        hi[k] = if constant[k] { min[k] } else { hi[k] / s };
    }
    let partial: Vec<Vec<f64>> = (0..chunks)
        .into_par_iter()
        .map(|c| -> Result<Vec<f64>> {
            control.checkpoint()?;
            let mut sum = vec![0.0; dim];
            for i in block_range(c, rows, n) {
                let w = weight(i);
                if w == 0.0 {
                    continue;
                }
                for (((s, &v), &h), &t) in sum.iter_mut().zip(p.row(i)).zip(&hi).zip(t) {
                    *s += w * (v * t - h);
                }
            }
            Ok(sum)
        })
        .collect::<Result<_>>()?;
    let mut lo = vec![0.0; dim];
    for sum in &partial {
        for (l, s) in lo.iter_mut().zip(sum) {
            *l += s;
        }
    }
    for k in 0..dim {
        lo[k] = if constant[k] { 0.0 } else { lo[k] / s };
    }
    Ok(Center { hi, lo })
}

/// The largest |(x·t − hi) − lo| of every column of `p` (column k multiplied by `t[k]`).
fn max_residual(p: &Points, t: &[f64], c: &Center, control: &Control) -> Result<Vec<f64>> {
    column_max(p, control, |m, row| {
        for ((((m, &v), &hi), &lo), &t) in m.iter_mut().zip(row).zip(&c.hi).zip(&c.lo).zip(t) {
            *m = m.max(((v * t - hi) - lo).abs());
        }
    })
}
