//! Exact scaling by powers of two, which keeps extreme but finite inputs (weights, data
//! coordinates) away from overflow and underflow without changing any rounding.

/// `e` with `2^e <= x < 2^(e+1)` for finite `x > 0` (subnormals included).
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

/// `x · 2^e`, exact unless the result overflows or falls below the normal range (two
/// steps, so that `2^e` itself need not be representable).
pub(crate) fn times_pow2(x: f64, e: i32) -> f64 {
    let pow2 = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    let half = (e / 2).clamp(-1022, 1023);
    let rest = (e - half).clamp(-1022, 1023);
    x * pow2(half) * pow2(rest)
}
