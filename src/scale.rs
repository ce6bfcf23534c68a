//! Exact scaling by powers of two, which keeps extreme but finite inputs (weights, data
//! coordinates) away from overflow and underflow without changing any rounding.

/// `e` with `2^e <= |x| < 2^(e+1)` for finite `x ≠ 0` (subnormals included).
pub(crate) fn binary_exponent(x: f64) -> i32 {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: 2^-1074 times the mantissa.
        let mantissa = bits & ((1u64 << 52) - 1);
        -1074 + 63 - mantissa.leading_zeros() as i32
    } else {
        biased - 1023
    }
}

/// `x · 2^e`, exact unless the result is subnormal (then rounded once), without intermediate
/// overflow or underflow for any `e` (as C's `scalbn`).
pub(crate) fn times_pow2(x: f64, e: i32) -> f64 {
    // 2^e for -1022 <= e <= 1023
    let pow2 = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    let (mut y, mut e) = (x, e);
    if e > 1023 {
        y *= pow2(1023);
        e -= 1023;
        if e > 1023 {
            y *= pow2(1023);
            e = (e - 1023).min(1023);
        }
    } else if e < -1022 {
        // 2^-1022 · 2^53 keeps the intermediate normal, so that only the last product rounds.
        y *= pow2(-1022 + 53);
        e += 1022 - 53;
        if e < -1022 {
            y *= pow2(-1022 + 53);
            e = (e + 1022 - 53).max(-1022);
        }
    }
    y * pow2(e)
}

/// `2^e` exactly, for −1074 ≤ e ≤ 1023 (subnormal powers included).
#[inline]
pub(crate) fn pow2(e: i32) -> f64 {
    times_pow2(1.0, e)
}

/// Data whose largest magnitude reaches `2^LARGE_DATA_EXPONENT` (about 1e77) are divided by a
/// power of two before their squares and sums of squares are formed.
const LARGE_DATA_EXPONENT: i32 = 256;

/// `Some(e)` when the largest `|x|` of `data` is at least `2^LARGE_DATA_EXPONENT`, with
/// `2^e <= max |x| < 2^(e+1)`: the data divided by `2^e` lie within ±2, and nothing formed
/// from them overflows. `None` for data of ordinary size. Dividing by a power of two is exact
/// (short of subnormal results), so distances, and every partition and ratio formed from
/// them, scale exactly.
pub(crate) fn large_data_exponent(data: &[f64]) -> Option<i32> {
    let largest = max_abs(data);
    (largest.is_finite() && largest > 0.0)
        .then(|| binary_exponent(largest))
        .filter(|&e| e >= LARGE_DATA_EXPONENT)
}

/// `data · 2^-e` in a new buffer (fallible, naming `argument`).
pub(crate) fn scaled_copy(
    data: &[f64],
    e: i32,
    argument: &'static str,
) -> crate::error::Result<Vec<f64>> {
    let mut scaled: Vec<f64> =
        crate::error::try_filled_uninit(data.len(), argument, "the scaled data")?;
    scaled.extend(data.iter().map(|&v| times_pow2(v, -e)));
    Ok(scaled)
}

/// The largest `|entry|` of `m` (0 for an empty slice), in parallel.
pub(crate) fn max_abs(m: &[f64]) -> f64 {
    use rayon::prelude::*;
    m.par_chunks(4096)
        .map(|c| c.iter().fold(0.0, |a: f64, v| a.max(v.abs())))
        .reduce(|| 0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_pow2_is_exact_for_any_exponent() {
        for (x, e) in [
            (1.5, 0),
            (1.0, 1023),
            (3.0, -1074),
            (f64::MAX, -2098),
            (1e-310, 2000),
        ] {
            let want = x * 2f64.powi(e.clamp(-1022, 1023)) * 2f64.powi(e - e.clamp(-1022, 1023));
            if want.is_finite() && want >= f64::MIN_POSITIVE {
                assert_eq!(times_pow2(x, e), want, "{x} {e}");
            }
        }
        assert_eq!(
            times_pow2(f64::MAX, -2046),
            f64::MAX * 2f64.powi(-1023) * 2f64.powi(-1023)
        );
        assert_eq!(times_pow2(1.0, -1074), f64::from_bits(1));
        assert_eq!(times_pow2(1.0, 1024), f64::INFINITY);
        assert_eq!(times_pow2(1.0, -1075), 0.0);
    }

    #[test]
    fn pow2_is_every_power_of_two() {
        assert_eq!(pow2(-1074), f64::from_bits(1));
        assert_eq!(pow2(-1023), f64::from_bits(1 << 51));
        assert_eq!(pow2(-1022), f64::MIN_POSITIVE);
        for e in -1022..=1023 {
            assert_eq!(pow2(e), f64::from_bits(((e + 1023) as u64) << 52), "2^{e}");
        }
    }

    #[test]
    fn binary_exponent_of_either_sign() {
        for x in [1.0, 1.5, 3.0, f64::MAX, f64::MIN_POSITIVE, 5e-324, 1e-310] {
            let e = binary_exponent(x);
            assert!(pow2(e) <= x && (e == 1023 || x < pow2(e + 1)), "{x}");
            assert_eq!(binary_exponent(-x), e);
        }
    }
}
