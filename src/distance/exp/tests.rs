//! Tests of `one_minus_exp_neg`: ulp error against an independent double-double evaluation of
//! 1 − e^{−t} (about 100 correct bits), and against libm's `exp_m1`.

use super::{one_minus_exp_neg, MAX_ULP_ERROR};
use proptest::prelude::*;

/// A double-double number hi + lo, |lo| ≤ ½ ulp(hi).
#[derive(Clone, Copy, Debug)]
struct Dd(f64, f64);

fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    Dd(s, (a - (s - bb)) + (b - bb))
}

impl Dd {
    fn add(self, o: Dd) -> Dd {
        let Dd(s, e) = two_sum(self.0, o.0);
        let Dd(hi, lo) = two_sum(s, e + self.1 + o.1);
        two_sum(hi, lo)
    }
    fn neg(self) -> Dd {
        Dd(-self.0, -self.1)
    }
    fn mul(self, o: Dd) -> Dd {
        let p = self.0 * o.0;
        // the exact error of the product (fma is exact, in hardware or in software)
        let e = self.0.mul_add(o.0, -p);
        two_sum(p, e + (self.0 * o.1 + self.1 * o.0))
    }
    fn div_f64(self, d: f64) -> Dd {
        let q = self.0 / d;
        let r = self.add(Dd(q, 0.0).mul(Dd(-d, 0.0)));
        two_sum(q, r.0 / d)
    }
}

/// e^{−x} for 0 ≤ x ≤ 1 by its Taylor series in double-double (terms below 2^-110 dropped).
fn exp_neg_small(x: f64) -> Dd {
    let mut sum = Dd(1.0, 0.0);
    let mut term = Dd(1.0, 0.0);
    for j in 1..40 {
        term = term.mul(Dd(-x, 0.0)).div_f64(j as f64);
        sum = sum.add(term);
        if term.0.abs() < 1e-34 {
            break;
        }
    }
    sum
}

/// 1 − e^{−t} for t ≥ 0 in double-double, independent of the function under test: the series
/// Σ (−1)^{j+1} t^j / j! for t ≤ 1 (full relative accuracy for tiny t), else
/// 1 − e^{−1}^n · e^{−(t − n)} with n = ⌊t⌋ by repeated squaring.
fn reference(t: f64) -> Dd {
    if t <= 1.0 {
        // 1 − e^{−t} = t − t²/2 + …: the series without its leading 1.
        let mut sum = Dd(0.0, 0.0);
        let mut term = Dd(-1.0, 0.0);
        for j in 1..40 {
            term = term.mul(Dd(-t, 0.0)).div_f64(j as f64);
            sum = sum.add(term);
            if term.0.abs() <= sum.0.abs() * 1e-34 || term.0 == 0.0 {
                break;
            }
        }
        return sum;
    }
    if t > 800.0 {
        return Dd(1.0, 0.0);
    }
    let n = t.floor();
    let frac = t - n; // exact
    let mut power = Dd(1.0, 0.0);
    let mut base = exp_neg_small(1.0);
    let mut m = n as u64;
    while m > 0 {
        if m & 1 == 1 {
            power = power.mul(base);
        }
        base = base.mul(base);
        m >>= 1;
    }
    Dd(1.0, 0.0).add(power.mul(exp_neg_small(frac)).neg())
}

/// The error of `value` against the reference, in ulp of the reference.
fn ulp_error(value: f64, exact: Dd) -> f64 {
    let hi = exact.0.abs();
    let ulp = f64::from_bits(hi.to_bits() + 1) - hi;
    ((value - exact.0) - exact.1).abs() / ulp
}

fn max_error_over(ts: impl Iterator<Item = f64>) -> (f64, f64) {
    let mut worst = (0.0, f64::NAN);
    for t in ts {
        let e = ulp_error(one_minus_exp_neg(t), reference(t));
        if e > worst.0 {
            worst = (e, t);
        }
    }
    worst
}

#[test]
fn the_reference_agrees_with_libm() {
    // The double-double reference itself, against libm (≤ 1 ulp in glibc): a check that the
    // reference is right, independent of the function under test.
    for i in 0..20_000 {
        let t = 750.0 * (i as f64 + 0.5) / 20_000.0;
        let libm = -(-t).exp_m1();
        assert!(ulp_error(libm, reference(t)) <= 1.0, "t = {t}");
    }
    for t in [1e-300f64, 1e-20, 1e-8, 0.1, 0.5, 1.0, 2.0] {
        let libm = -(-t).exp_m1();
        assert!(ulp_error(libm, reference(t)) <= 1.0, "t = {t}");
    }
}

#[test]
fn dense_sweep_within_the_documented_bound() {
    // [0, 750] uniformly (the clamp at 64 and the region where the result is 1 included), and
    // [2^-60, 64] log-uniformly (k = 0 and the first reductions, tiny t).
    let n = 200_000;
    let uniform = (0..=n).map(|i| 750.0 * i as f64 / n as f64);
    let (worst, at) = max_error_over(uniform);
    assert!(worst <= MAX_ULP_ERROR, "{worst} ulp at t = {at}");
    let log_uniform = (0..=n).map(|i| (2f64).powf(-60.0 + 66.0 * i as f64 / n as f64));
    let (worst, at) = max_error_over(log_uniform);
    assert!(worst <= MAX_ULP_ERROR, "{worst} ulp at t = {at}");
}

#[test]
fn special_points() {
    assert_eq!(one_minus_exp_neg(0.0).to_bits(), 0.0f64.to_bits());
    assert_eq!(one_minus_exp_neg(-0.0), 0.0);
    assert!(one_minus_exp_neg(f64::NAN).is_nan());
    assert!(one_minus_exp_neg(-f64::NAN).is_nan());
    assert_eq!(one_minus_exp_neg(f64::INFINITY), 1.0);
    for t in [38.0, 40.0, 63.9, 64.0, 64.1, 100.0, 745.2, 1e300, f64::MAX] {
        assert_eq!(one_minus_exp_neg(t), 1.0, "t = {t}");
    }
    // subnormal and tiny t: 1 − e^{−t} rounds to t
    for t in [
        f64::from_bits(1),
        1e-310,
        f64::MIN_POSITIVE,
        1e-300,
        1e-200,
        1e-30,
        1e-17,
    ] {
        assert_eq!(one_minus_exp_neg(t), t, "t = {t:e}");
    }
    let mut points = vec![1e-8, 1e-5, 0.1, 0.5, 1.0, 2.0];
    // multiples of ln 2 and halfway points (where the reduction changes k), ± 1 and 2 ulp,
    // up to and across the underflow edge of e^{−t} (t ≈ 37.4), the clamp at 64 and beyond
    for j in 1..=200 {
        for centre in [
            j as f64 * std::f64::consts::LN_2,
            (j as f64 - 0.5) * std::f64::consts::LN_2,
        ] {
            let bits = centre.to_bits();
            points.extend([bits - 2, bits - 1, bits, bits + 1, bits + 2].map(f64::from_bits));
        }
    }
    // the edge where the result becomes 1: 54·ln 2 and 37.43…
    for i in 0..2000 {
        points.push(37.0 + i as f64 * 0.0005);
    }
    for t in points {
        let e = ulp_error(one_minus_exp_neg(t), reference(t));
        assert!(e <= MAX_ULP_ERROR, "{e} ulp at t = {t:e}");
    }
}

#[test]
fn negative_arguments_stay_finite() {
    // Outside the domain: finite, never a panic, and close to 1 − e^{−t} where that is finite.
    for t in [
        -0.1,
        -1.0,
        -10.0,
        -700.0,
        -708.0,
        -709.5,
        -1e300,
        f64::NEG_INFINITY,
    ] {
        assert!(one_minus_exp_neg(t).is_finite(), "t = {t}");
    }
    for i in 1..=7000 {
        let t = -0.1 * i as f64;
        let (ours, libm) = (one_minus_exp_neg(t), -(-t).exp_m1());
        assert!(((ours - libm) / libm).abs() < 1e-15, "t = {t}");
    }
}

#[test]
fn agrees_with_libm_expm1() {
    // libm's own error is below 1 ulp, so the two differ by less than the bound plus 1 ulp.
    let mut rng = crate::test_support::TestRng(5);
    for _ in 0..200_000 {
        let t = 45.0 * rng.next_f64();
        let (ours, libm) = (one_minus_exp_neg(t), -(-t).exp_m1());
        let ulp = f64::from_bits(libm.to_bits() + 1) - libm;
        assert!(
            (ours - libm).abs() <= (MAX_ULP_ERROR + 1.0) * ulp,
            "t = {t}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn within_the_bound_anywhere(bits in 0u64..0x7FF0_0000_0000_0000) {
        // every non-negative finite f64, uniform in its bits (so mostly tiny or huge values)
        let t = f64::from_bits(bits);
        let e = ulp_error(one_minus_exp_neg(t), reference(t));
        prop_assert!(e <= MAX_ULP_ERROR, "{} ulp at t = {:e}", e, t);
    }

    #[test]
    fn within_the_bound_on_the_working_range(t in 0.0f64..80.0) {
        let e = ulp_error(one_minus_exp_neg(t), reference(t));
        prop_assert!(e <= MAX_ULP_ERROR, "{} ulp at t = {}", e, t);
    }
}
