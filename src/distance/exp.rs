//! `1 − e^{−t}` for the exponential and gaussian semimetrics (ρ = 2·(1 − e^{−t})), in plain
//! IEEE arithmetic that the compiler vectorises: no table, no branch, no call into libm.
//!
//! libm's `exp_m1` is a scalar call, so a loop over a row of ρ runs one value at a time and the
//! call dominates the exponential and gaussian rows of the Gram builders and the matrix-free
//! kernel. [`one_minus_exp_neg`] is built from additions, multiplications, one comparison
//! clamp and integer operations on the bits, all available lane-wise on SSE2 and AVX2, and with
//! no fused multiply-add: the portable and the AVX2 pair kernels (see `simd`) give the same
//! bits, as do scalar and slice evaluation.

/// 1/ln 2 (the nearest f64).
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// ln 2 = `LN2_HI + LN2_LO` + δ with |δ| < 2^-86 (Cody–Waite): `LN2_HI` has 32 significant
/// bits (its last 21 are zero), so `k·LN2_HI` is exact for every |k| < 2^21.
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// 1.5·2^52: for |z| < 2^51, `z + ROUND_MAGIC` lies in [2^52, 2^53), where the spacing is 1,
/// so the sum is `ROUND_MAGIC + round(z)` (ties to even) and its low bits hold round(z) in two's
/// complement (the low 12 bits of `ROUND_MAGIC` itself are zero).
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;
/// The bits of 1.0: the biased exponent 1023 in bits 52..62.
const ONE_BITS: u64 = 0x3FF0_0000_0000_0000;
/// Beyond this the result is 1 exactly (e^{−t} < 2^-54 from t > 37.43 on), so t is clamped to
/// it: the scale 2^{−k} below stays a normal number.
const T_MAX: f64 = 64.0;
/// Below this (outside the semimetrics' domain t ≥ 0) t is clamped, so 2^{−k} stays finite.
const T_MIN: f64 = -708.0;

/// The Taylor coefficients 1/j! (j! is exact in f64 for j ≤ 18, so each is the correctly
/// rounded 1/j!; 1/2 is exact).
const C2: f64 = 1.0 / 2.0;
const C3: f64 = 1.0 / 6.0;
const C4: f64 = 1.0 / 24.0;
const C5: f64 = 1.0 / 120.0;
const C6: f64 = 1.0 / 720.0;
const C7: f64 = 1.0 / 5_040.0;
const C8: f64 = 1.0 / 40_320.0;
const C9: f64 = 1.0 / 362_880.0;
const C10: f64 = 1.0 / 3_628_800.0;
const C11: f64 = 1.0 / 39_916_800.0;
const C12: f64 = 1.0 / 479_001_600.0;
const C13: f64 = 1.0 / 6_227_020_800.0;

/// The documented bound on the error of [`one_minus_exp_neg`] for t ≥ 0, in units in the last
/// place of the exact result (the tests assert it).
#[cfg(test)]
pub(crate) const MAX_ULP_ERROR: f64 = 2.7;

/// `1 − e^{−t}` (that is `−expm1(−t)`) for t ≥ 0, within 2.7 ulp of the exact value; NaN gives
/// NaN, +∞ gives 1, and every t ≥ 38 gives 1 exactly; a tiny t keeps its full relative
/// accuracy (a subnormal t gives t itself). A negative t (outside the semimetrics' domain)
/// gives a finite value, that of max(t, −708), accurate only as far as the analysis below
/// carries over.
///
/// # Algorithm and error bound (u = 2^-53; for t ≥ 0)
///
/// 1. **Range reduction.** z = fl(t/ln2) (a product by `LOG2_E`), k = round(z) by the magic
///    number, so |z − t/ln2| ≤ 2u·z and |k − t/ln2| ≤ 1/2 + 2u·93 (t ≤ 64 after the clamp).
///    s = (k·LN2_HI − t) + k·LN2_LO, so that e^{−t} = 2^{−k}·e^{s} with
///    |s| ≤ S = ln2/2 + 2^-44 < 0.3466. The product k·LN2_HI is exact (k < 2^21), and so is the
///    difference: k = 0 gives −t, and k ≥ 1 means t ≥ (ln2/2)(1 − 2u) > LN2_HI/2 and
///    t ≤ (k + 1/2 + 2^-44)·ln2 < 2k·LN2_HI, so Sterbenz's lemma applies. Hence for k = 0,
///    s = −t exactly; for k ≥ 1 the computed s differs from the exact k·ln2 − t by at most
///    u·|s| (the last rounding) + 93·2^-86 (ln 2's tail) + u·93·LN2_LO (the tail's product)
///    < u·|s| + 2^-78.
/// 2. **expm1(s)** = s + s²·P(s) with P the Taylor polynomial Σ_{j=2..13} s^{j−2}/j!, as
///    P = C2 + s·(C3 + s·(C4 + s·R)) with R = Σ_{j=5..13} s^{j−5}/j! in Estrin's form.
///    Truncation: Σ_{j≥14} |s|^j/j! ≤ S^14/14!/(1 − S/15), relative to |expm1(s)| ≥ 0.845·|s|
///    at most 0.14u. Rounding: every term that R's form adds is positive (C_j + s·C_{j+1} > 0,
///    even powers of s), so the relative errors of its parts add along its depth: R is within
///    12u. With q_j the Horner partial sums (q_2 = P) and ratios |s·q_{j+1}|/q_j ≤ 0.119, 0.089,
///    0.071 for j = 2, 3, 4 on [−S, S] (P ∈ [0.446, 0.564]), and the coefficients' own rounding
///    (≤ u relative; C2 = 1/2 exact), the relative errors are e_4 ≤ 2u + 0.071·13u ≤ 2.93u,
///    e_3 ≤ 2u + 0.089·3.93u ≤ 2.35u, e_2 ≤ u + 0.119·3.35u ≤ 1.40u. s² and the product add u
///    each, so s²·P is within 3.4u of its value, and |s²·P| ≤ 0.19·|expm1(s)| (the maximum, at
///    s = −S, is 0.183). So the computed expm1(s) is within (0.19·3.4 + 0.14)u < 0.81u
///    (relative) of the exact expm1 of the computed s, before its own final rounding (≤ u).
/// 3. **Reconstruction.** 1 − e^{−t} = (1 − 2^{−k}) − 2^{−k}·expm1(s), with 2^{−k} written into
///    the exponent bits. For k = 0 this is −expm1(s) exactly (1 − 1 = 0, and 1·x = x): the error
///    is the final rounding (½ ulp) plus 0.81u·|f| < 0.81 ulp, at most 1.31 ulp. For
///    1 ≤ k ≤ 53, 1 − 2^{−k} and the scaling by 2^{−k} are exact, and f = 1 − e^{−t} ≥
///    1 − e^{−(ln2/2)(1−2u)} > 0.2928; the error of expm1(s) (≤ 1.81u relative) enters scaled
///    by 2^{−k}·|expm1(s)|/f ≤ 0.7072 (k = 1, s = S), i.e. ≤ 1.28u·f, that of s enters as
///    e^{−t}·(u·|s| + 2^-78) ≤ 0.7072·0.3466u + 2^-78 ≤ 0.84u·f, and the last subtraction
///    rounds once (½ ulp): in all < 0.5 + 1.28 + 0.84 = 2.62 ulp (since u·f < 1 ulp of f).
///    For k ≥ 54 (t > 37.08), 1 − 2^{−k} rounds to 1 (error 2^{−k} ≤ ½ ulp of f ∈ [½, 1)),
///    and so does the whole expression (|2^{−k}·expm1(s)| < 2^-55): the result is 1, and the
///    exact value is within 2^{−k}·e^{S} ≤ 2^-54·1.42 < 0.71 ulp of it. Hence the bound 2.7 ulp
///    (`MAX_ULP_ERROR`, asserted by the tests over dense sweeps of t; the largest error found
///    there is 1.12 ulp, at t ≈ 0.36 where k = 1 and f is smallest).
/// 4. **Special values.** The clamp `t.clamp(T_MIN, T_MAX)` keeps NaN; NaN then propagates
///    through s into the result whatever bits the scale gets. t = +∞ is clamped to 64, where
///    the result is 1.
#[inline(always)]
pub(crate) fn one_minus_exp_neg(t: f64) -> f64 {
    let t = t.clamp(T_MIN, T_MAX);
    // k = round(t / ln 2), as a float (`k`) and in the low bits of `shifted`.
    let shifted = t * LOG2_E + ROUND_MAGIC;
    let k = shifted - ROUND_MAGIC;
    // e^{−t} = 2^{−k}·e^{s}, |s| ≤ ln2/2.
    let s = (k * LN2_HI - t) + k * LN2_LO;
    // P(s) = C2 + s·(C3 + s·(C4 + s·R(s))) with R = Σ_{j=5..13} Cj·s^{j−5} in Estrin's form:
    // independent products instead of one chain of 12 (measured 20 % faster). R enters P only
    // through s³·R ≤ 7.4e-4·P, so its rounding hardly matters.
    let s2 = s * s;
    let s4 = s2 * s2;
    let r = ((C5 + s * C6) + s2 * (C7 + s * C8))
        + s4 * (((C9 + s * C10) + s2 * (C11 + s * C12)) + s4 * C13);
    let p = C2 + s * (C3 + s * (C4 + s * r));
    let expm1_s = s + s2 * p;
    // 2^{−k}: the biased exponent 1023 − k; the shift keeps round(z)'s low 12 bits (two's
    // complement), which is all the wrapping subtraction needs for −1021 ≤ k ≤ 93.
    let scale = f64::from_bits(ONE_BITS.wrapping_sub(shifted.to_bits() << 52));
    (1.0 - scale) - scale * expm1_s
}

#[cfg(test)]
mod tests;
