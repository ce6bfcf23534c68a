//! Exact energy clustering of sorted one-dimensional data into `k` intervals, in
//! O(k n log n) time and O(n + k n) memory.
//!
//! For `ρ(x, y) = |x − y|` the energy within-cluster dispersion of an interval `[i, j)` of the
//! sorted data (positions `i .. j − 1`, weight `s = Σ w`) is
//!
//! ```text
//! cost(i, j) = W_[i,j) = (1 / (2 s)) Σ_{a,b ∈ [i,j)} w_a w_b |x_a − x_b|,
//! ```
//!
//! and [`optimal_cuts`] minimises `Σ cost` over all partitions of the sorted data into `k`
//! non-empty intervals. (The Python function `kgroups_rs.kgroups_1d` sorts, validates and
//! assembles the result around it.)
//!
//! # The cost in O(1)
//!
//! With exclusive prefix sums over the sorted data (`t = 0 .. n`, `u = x − x_0 ≥ 0`)
//!
//! ```text
//! P[t] = Σ_{r<t} w_r,   A[t] = Σ_{r<t} w_r u_r,   B[t] = Σ_{r<t} w_r u_r (P[r] + P[r+1]),
//! cost(i, j) = [ (B[j] − B[i]) − (P[i] + P[j]) (A[j] − A[i]) ] / (P[j] − P[i])
//! ```
//!
//! (derivation in the docstring of the Python module `kgroups_rs.one_d`; the bracket is
//! `Σ_{a<b} w_a w_b (u_b − u_a)`, which only needs `P[r+1] − P[r] = w_r`).
//!
//! # The quadrangle (Monge) inequality
//!
//! **Claim.** For `a ≤ b` and `c ≤ d` (in particular for `a ≤ b ≤ c ≤ d`),
//! `cost(a, c) + cost(b, d) ≤ cost(a, d) + cost(b, c)`, where an empty interval costs 0.
//!
//! **Proof.** Write the pair sum over the gaps between neighbours: for a sorted interval,
//! `Σ_{a<b} w_a w_b (x_b − x_a) = Σ_t (x_{t+1} − x_t) L_t R_t`, where `L_t` and `R_t` are the
//! interval's weight at or left of position `t` and right of it (every pair `a < b` spans the
//! gaps `a ≤ t < b`). Hence
//!
//! ```text
//! cost(i, j) = Σ_t g_t h(α_t(i), β_t(j)),   g_t = x_{t+1} − x_t ≥ 0,   h(L, R) = L R / (L + R),
//! α_t(i) = max(0, P[t+1] − P[i]),   β_t(j) = max(0, P[j] − P[t+1]),
//! ```
//!
//! with `h = 0` where `L + R = 0`: `α_t(i)` is the interval's weight at or left of `t` and
//! `β_t(j)` that right of `t`, and a gap outside the interval has `α = 0` or `β = 0`, so
//! `h = 0` (this also makes an empty or reversed interval cost 0). `α_t` is non-increasing in
//! `i` and `β_t` non-decreasing in `j`. For `R' ≥ R ≥ 0`,
//! `h(L, R') − h(L, R) = ∫_R^{R'} (L / (L + r))² dr` is non-decreasing in `L ≥ 0`
//! (`L / (L + r)` is), i.e. `h` is supermodular. With `L = α_t(a) ≥ L' = α_t(b)` and
//! `R' = β_t(d) ≥ R = β_t(c)` this is `h(L, R) + h(L', R') ≤ h(L, R') + h(L', R)` for every
//! gap; multiply by `g_t ≥ 0` and sum. ∎
//!
//! Nothing here needs distinct values or unit weights: equal values are gaps of length 0.
//!
//! # Divide and conquer
//!
//! The dynamic programme is `D_j(m) = min_{i<m} D_{j−1}(i) + cost(i, m)` (best W of the
//! first `m` sorted points in `j` intervals). For rows `m < m'` and columns `i < i'` the
//! claim gives `M(m, i) + M(m', i') ≤ M(m, i') + M(m', i)` for `M(m, i) = D_{j−1}(i) + cost(i, m)`
//! (the `D` terms cancel), so the smallest minimising column `opt(m)` is non-decreasing in `m`:
//! if `opt(m') = i < i' = opt(m)`, then `M(m, i) > M(m, i')` and the inequality gives
//! `M(m', i') < M(m', i)`, contradicting the choice of `i`. Each layer therefore solves the
//! middle row over its column range, then the rows above it over the columns up to its
//! optimum and the rows below over the columns from it: every level of the recursion scans
//! O(n) columns in all, O(n log n) per layer.
//!
//! Rounding makes the computed matrix only approximately Monge, but harmlessly: if the column
//! `c` chosen for row `m` is within `δ` of that row's minimum, the inequality shows that
//! restricting another row to the columns on `c`'s side loses at most `δ` there. The
//! recursion is about `log₂ n` levels deep, so the restrictions cost at most a few dozen
//! roundings of the row minima.
//!
//! **Ties.** A row's minimum over its column range is found first; the split kept for the row
//! is the smallest column of the range whose value is within a relative [`TIE_RTOL`] of it
//! (as the former O(k n²) dynamic programme did over all columns), and the recursion bounds
//! use the smallest column attaining the computed minimum itself (exact ties, such as constant
//! data, thus resolve exactly as over all columns). The last layer (`m = n` only) and `k = 2`
//! scan every column, so the last cut follows the rule exactly. A middle cut can differ from
//! the all-columns rule only through a split outside the examined range that is within
//! `1e-12` relative of the optimum (a near-tie) or within rounding of it.
//!
//! # Numerical care
//!
//! The two terms of the bracket are of size `P A ≈ P_total² · spread` while their difference is
//! of size `s² · spread_of_the_interval`: in plain double precision a short interval far into
//! a long array loses everything (`n = 2·10⁶`: `P² ≈ 4·10¹²`). Here the prefix sums are kept in
//! double-double (about 106 bits) and the bracket is evaluated in double-double before it is
//! rounded and divided:
//!
//! * the data are scaled by powers of two (exact) and measured from the smallest value,
//!   `u = x − x_0`, which one `TwoSum` represents exactly, so offsets (`x + 10⁹`) cost nothing
//!   and every term of `A` and `B` is non-negative;
//! * every term (`w u` by an error-free product, `w u (P[r] + P[r+1])` in double-double) is
//!   accurate to a few units of `u² = 2⁻¹⁰⁶`, and the running sums are accumulated error-free
//!   (a third word collects what a double-double addition would drop), so each stored prefix
//!   is its exact value rounded to double-double — the error does not grow with `n`;
//! * the bracket is evaluated with double-double additions and one product. Its absolute error
//!   is at most about `30 u² P[j] A[j]` (all terms are non-negative and non-decreasing in the
//!   position), so `cost(i, j)` is within a few ulp of its value plus `30 u² P[j] A[j] / s`.
//!   For a two-point interval at the end of `n = 2·10⁶` evenly spread unit-weight points
//!   (`P A / s ≈ 10¹² (x_max − x_min)`) this is `4·10⁻¹⁹` of the data's range; the same bound
//!   for plain double precision is `3·10⁻³`. (Tested against exact rational costs in this
//!   module's tests.)
//! * Double-double work is spent only near each row's minimum: a plain-double estimate of
//!   every candidate, with a proven error radius, discards those that cannot be the minimum
//!   or within the tie tolerance of it (`Prefix::best_split` in the source); the choice is
//!   bit for bit the one from evaluating every candidate in double-double (tested).
//! * Weights: the interval weight `s = P[j] − P[i]` must stay visible. Optimal cuts are
//!   refused (an `InvalidInput` error on `weights`) when the total weight exceeds `2⁵³` times
//!   the smallest weight; below that every `s` is accurate to a few ulp and the error term
//!   above is at most about `30 u` times `P_total (x_max − x_min)`, the scale of `W`.
//!
//! The `O(1)` formula is used only to choose the cuts; the caller recomputes the reported `W`
//! from them (the Python side does so with a sum of non-negative terms).

use crate::control::Control;
use crate::error::{try_filled, KGroupsError, Result};
use crate::scale::{binary_exponent, times_pow2};

/// Candidates whose value is within this relative distance of the minimum count as tied; the
/// smallest split wins (rounding makes mathematically equal candidates differ in the last
/// bits).
///
/// ```
/// use kgroups::{one_d::optimal_cuts, Control};
/// // {0} | {1, 2} and {0, 1} | {2} both have W = 1/2: the smaller split wins.
/// assert_eq!(optimal_cuts(&[0.0, 1.0, 2.0], None, 2, &Control::new())?, vec![1]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub const TIE_RTOL: f64 = 1e-12;

/// The largest accepted ratio of the total weight to the smallest weight (for `k ≥ 2`): beyond
/// it, interval weights `s = P[j] − P[i]` could be lost to rounding.
///
/// ```
/// use kgroups::{one_d::optimal_cuts, Control};
/// let x = [0.0, 1.0, 2.0];
/// let fine = [2f64.powi(-50), 1.0, 1.0];
/// assert!(optimal_cuts(&x, Some(&fine), 2, &Control::new()).is_ok());
/// let too_spread = [2f64.powi(-60), 1.0, 1.0];
/// let err = optimal_cuts(&x, Some(&too_spread), 2, &Control::new()).unwrap_err();
/// assert!(err.to_string().contains("beyond the precision"));
/// ```
pub const MAX_WEIGHT_RATIO: f64 = 9_007_199_254_740_992.0; // 2^53

/// Evaluations between two cancellation checks (a few milliseconds of work).
const POLL_EVALUATIONS: usize = 1 << 18;

/// The cut indices `0 < c_1 < … < c_{k−1} < n` of an optimal partition of sorted data into
/// `k` intervals under the energy within-dispersion (see the [module docs](self)).
///
/// Interval `j` is the sorted positions `c_j .. c_{j+1}` (with `c_0 = 0`, `c_k = n`). The
/// result is the global optimum over interval partitions up to rounding between near-equal
/// candidates; ties within a relative [`TIE_RTOL`] go to the smallest split (module docs,
/// "Ties"). Time O(n log n) per cluster beyond the second (`k ≤ 2`: O(n)); memory
/// [`memory_bytes`].
///
/// * `x`: the values, finite and sorted ascending (ties allowed), `n ≥ 1`, `n < 2³²`;
/// * `weights`: positive finite weights, `n` of them (`None`: all 1);
/// * `k`: `1 ≤ k ≤ n`;
/// * `control`: polled every few milliseconds; cancellation returns
///   [`KGroupsError::Interrupted`].
///
/// # Errors
/// [`KGroupsError::InvalidInput`] for unsorted or non-finite values, bad weights or `k`, and
/// for weights so spread that the total weight exceeds [`MAX_WEIGHT_RATIO`] times the
/// smallest (`k ≥ 2`); [`KGroupsError::OutOfMemory`] when the working arrays
/// ([`memory_bytes`]) cannot be allocated; [`KGroupsError::Interrupted`].
///
/// ```
/// use kgroups::one_d::optimal_cuts;
/// use kgroups::Control;
/// let x = [0.0, 0.2, 0.3, 5.0, 5.1, 9.0, 9.4];
/// assert_eq!(optimal_cuts(&x, None, 3, &Control::new())?, vec![3, 5]);
/// let w = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 50.0];
/// assert_eq!(optimal_cuts(&x, Some(&w), 2, &Control::new())?, vec![5]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn optimal_cuts(
    x: &[f64],
    weights: Option<&[f64]>,
    k: usize,
    control: &Control,
) -> Result<Vec<usize>> {
    validate(x, weights, k)?;
    if k == 1 {
        return Ok(Vec::new());
    }
    let prefix = Prefix::new(x, weights, control)?;
    solve(&prefix, k, control)
}

/// Bytes that [`optimal_cuts`] allocates for `n` points and `k` clusters (`None` if the
/// figure overflows `u64`): for `k ≥ 2`, nine vectors of `n + 1` doubles (six prefix-sum
/// words, two layers of the programme, one row of candidate values), the candidates' `n + 1`
/// four-byte column indices, and the back-pointers,
/// `(k − 2) (n − k + 1)` four-byte indices; 0 for `k ≤ 1` or `k > n`.
///
/// ```
/// use kgroups::one_d::memory_bytes;
/// assert_eq!(memory_bytes(1000, 1), Some(0));
/// assert_eq!(memory_bytes(1000, 2), Some(76 * 1001));
/// assert_eq!(memory_bytes(1000, 5), Some(76 * 1001 + 4 * 3 * 996));
/// ```
pub fn memory_bytes(n: usize, k: usize) -> Option<u64> {
    if k <= 1 || k > n {
        return Some(0);
    }
    let (n, k) = (n as u64, k as u64);
    let vectors = 76u64.checked_mul(n.checked_add(1)?)?;
    let back = 4u64.checked_mul(k - 2)?.checked_mul(n - k + 1)?;
    vectors.checked_add(back)
}

// ------------------------------------------------------------------------------ validation

fn validate(x: &[f64], weights: Option<&[f64]>, k: usize) -> Result<()> {
    let n = x.len();
    if n == 0 {
        return Err(KGroupsError::invalid(
            "x",
            "x is empty: need at least one value",
        ));
    }
    if n >= u32::MAX as usize {
        return Err(KGroupsError::invalid(
            "x",
            format!("n = {n} values; at most 2^32 - 2 are supported"),
        ));
    }
    if k == 0 || k > n {
        return Err(KGroupsError::invalid(
            "k",
            format!("k = {k} clusters for n = {n} values; use 1 <= k <= n"),
        ));
    }
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        return Err(KGroupsError::invalid(
            "x",
            format!("x contains NaN or infinite values (x[{i}] = {})", x[i]),
        ));
    }
    if let Some(i) = x.windows(2).position(|p| p[0] > p[1]) {
        return Err(KGroupsError::invalid(
            "x",
            format!(
                "x must be sorted ascending, but x[{i}] = {} > x[{}] = {}",
                x[i],
                i + 1,
                x[i + 1]
            ),
        ));
    }
    if let Some(w) = weights {
        if w.len() != n {
            return Err(KGroupsError::invalid(
                "weights",
                format!("{} weights for n = {n} values", w.len()),
            ));
        }
        if let Some(i) = w.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
            return Err(KGroupsError::invalid(
                "weights",
                format!(
                    "weights must be positive and finite, got weights[{i}] = {}",
                    w[i]
                ),
            ));
        }
    }
    Ok(())
}

// --------------------------------------------------------------------- double-double kernel

/// `s + e = a + b` exactly, `s = fl(a + b)` (Knuth's TwoSum).
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `p + e = a · b` exactly, `p = fl(a · b)` (barring underflow): one fused multiply-add where
/// the target has it, else Dekker's splitting. Both are exact, so both give the same bits.
#[inline(always)]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    #[cfg(target_feature = "fma")]
    {
        (p, a.mul_add(b, -p))
    }
    #[cfg(not(target_feature = "fma"))]
    {
        const SPLIT: f64 = 134_217_729.0; // 2^27 + 1
        let split = |v: f64| {
            let c = SPLIT * v;
            let hi = c - (c - v);
            (hi, v - hi)
        };
        let (ah, al) = split(a);
        let (bh, bl) = split(b);
        (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
    }
}

/// Double-double `a + b`; absolute error about `2 u² (|a| + |b|)` whatever the cancellation,
/// and the result is normalised (`|lo| ≤ ulp(hi) / 2`).
#[inline(always)]
fn dd_add(ah: f64, al: f64, bh: f64, bl: f64) -> (f64, f64) {
    let (s, e) = two_sum(ah, bh);
    two_sum(s, e + (al + bl))
}

/// Double-double `a · b` for normalised inputs; relative error about `4 u²`.
#[inline(always)]
fn dd_mul(ah: f64, al: f64, bh: f64, bl: f64) -> (f64, f64) {
    let (p, e) = two_prod(ah, bh);
    two_sum(p, e + (ah * bl + al * bh))
}

/// `cost(i, m)` from the prefix sums at `i` and at `m > i` (module docs, "Numerical care").
#[inline(always)]
fn cost(i: [f64; 6], m: [f64; 6]) -> f64 {
    let [pih, pil, aih, ail, bih, bil] = i;
    let [pmh, pml, amh, aml, bmh, bml] = m;
    let (dbh, dbl) = dd_add(bmh, bml, -bih, -bil);
    let (dah, dal) = dd_add(amh, aml, -aih, -ail);
    let (sph, spl) = dd_add(pih, pil, pmh, pml);
    let (prh, prl) = dd_mul(sph, spl, dah, dal);
    let (num, _) = dd_add(dbh, dbl, -prh, -prl);
    // P is strictly increasing (checked), so the interval weight is positive; the bracket is a
    // sum of non-negative terms, so a negative rounding residue is 0.
    let s = (pmh - pih) + (pml - pil);
    num.max(0.0) / s
}

/// `d + cost(i, m)` in plain double precision from the high words (and the low words of `P`,
/// for the weight), and a radius that bounds its distance from the double-double value
/// `d + cost(...)` ([`Prefix::best_split`] derives it); `i = [P_hi, P_lo, A_hi, B_hi]` at `i`.
#[inline(always)]
fn estimate(i: [f64; 4], m: [f64; 6], d: f64) -> (f64, f64) {
    let [pih, pil, aih, bih] = i;
    let [pmh, pml, amh, _, bmh, _] = m;
    let num = ((bmh - bih) - (pih + pmh) * (amh - aih)).max(0.0);
    let inv_s = 1.0 / ((pmh - pih) + (pml - pil));
    let v = d + num * inv_s;
    (v, 64.0 * U * pmh * amh * inv_s + 32.0 * U * v)
}

/// A running sum `hi + lo + c`, updated error-free except for the rounding of `c` (which holds
/// what a double-double addition would drop, ~`u²` of the sum), so that [`Acc::value`] is the
/// exact sum rounded to double-double however many terms were added.
#[derive(Default)]
struct Acc {
    hi: f64,
    lo: f64,
    c: f64,
}

impl Acc {
    #[inline(always)]
    fn add(&mut self, th: f64, tl: f64) {
        let (s, e1) = two_sum(self.hi, th);
        let (l, e2) = two_sum(self.lo, tl);
        let (l, e3) = two_sum(l, e1);
        let (h, l) = two_sum(s, l);
        self.hi = h;
        self.lo = l;
        self.c += e2 + e3;
    }

    #[inline(always)]
    fn value(&self) -> (f64, f64) {
        two_sum(self.hi, self.lo + self.c)
    }
}

// --------------------------------------------------------------------------- prefix sums

/// The prefix sums `P`, `A`, `B` in double-double, one vector per word (the row scans read
/// them sequentially and vectorise), for the data scaled by powers of two.
struct Prefix {
    /// The scaling: the sums are of `x · 2^x_exp` and `w · 2^w_exp`, so costs are the true
    /// ones times `2^(x_exp + w_exp)`. (Read by the tests.)
    #[cfg_attr(not(test), allow(dead_code))]
    x_exp: i32,
    #[cfg_attr(not(test), allow(dead_code))]
    w_exp: i32,
    ph: Vec<f64>,
    pl: Vec<f64>,
    ah: Vec<f64>,
    al: Vec<f64>,
    bh: Vec<f64>,
    bl: Vec<f64>,
}

impl Prefix {
    /// `x` and `weights` validated.
    fn new(x: &[f64], weights: Option<&[f64]>, control: &Control) -> Result<Self> {
        let n = x.len();
        // Exact power-of-two scaling: |x| < 1 (so u = x - x_0 < 2) and weights < 2. Costs are
        // homogeneous in x and w, so this changes no comparison, and no sum can overflow.
        let x_max = x[0].abs().max(x[n - 1].abs());
        let x_exp = if x_max > 0.0 {
            -(binary_exponent(x_max) + 1)
        } else {
            0
        };
        let w_max = weights.map_or(1.0, |w| w.iter().fold(0.0, |a: f64, &b| a.max(b)));
        let w_min = weights.map_or(1.0, |w| w.iter().fold(f64::INFINITY, |a: f64, &b| a.min(b)));
        let w_exp = -binary_exponent(w_max);
        let weight = |r: usize| weights.map_or(1.0, |w| times_pow2(w[r], w_exp));
        // The total weight relative to the smallest, before anything is allocated.
        let total_max = weights.map_or(n as f64, |w| w.iter().map(|&v| v / w_max).sum::<f64>());
        let ratio = total_max / (w_min / w_max);
        if ratio > MAX_WEIGHT_RATIO {
            return Err(KGroupsError::invalid(
                "weights",
                format!(
                    "weights span {:.1e} (largest / smallest) and their total is {ratio:.1e} \
                     times the smallest weight, beyond the precision of the interval dynamic \
                     programme (at most 2^53 = 9.0e15): merge or drop points of negligible \
                     weight, or use kernel_kgroups",
                    w_max / w_min
                ),
            ));
        }

        let len = n + 1;
        let what = "the prefix sums of the 1-D dynamic programme";
        let mut p = Prefix {
            x_exp,
            w_exp,
            ph: try_filled(len, 0.0, "x", what)?,
            pl: try_filled(len, 0.0, "x", what)?,
            ah: try_filled(len, 0.0, "x", what)?,
            al: try_filled(len, 0.0, "x", what)?,
            bh: try_filled(len, 0.0, "x", what)?,
            bl: try_filled(len, 0.0, "x", what)?,
        };
        let x0 = times_pow2(x[0], x_exp);
        let (mut acc_p, mut acc_a, mut acc_b) = (Acc::default(), Acc::default(), Acc::default());
        for (r, &xr) in x.iter().enumerate() {
            if r % POLL_EVALUATIONS == 0 {
                control.checkpoint()?;
            }
            let w = weight(r);
            // u = x_r - x_0 >= 0 exactly, as uh + ul.
            let (uh, ul) = two_sum(times_pow2(xr, x_exp), -x0);
            let (wuh, wue) = two_prod(w, uh);
            let (wuh, wul) = two_sum(wuh, wue + w * ul);
            acc_p.add(w, 0.0);
            let (p1h, p1l) = acc_p.value();
            let (sph, spl) = dd_add(p.ph[r], p.pl[r], p1h, p1l);
            let (th, tl) = dd_mul(wuh, wul, sph, spl);
            acc_a.add(wuh, wul);
            acc_b.add(th, tl);
            let (ah, al) = acc_a.value();
            let (bh, bl) = acc_b.value();
            (p.ph[r + 1], p.pl[r + 1]) = (p1h, p1l);
            (p.ah[r + 1], p.al[r + 1]) = (ah, al);
            (p.bh[r + 1], p.bl[r + 1]) = (bh, bl);
        }
        Ok(p)
    }

    #[inline(always)]
    fn at(&self, t: usize) -> [f64; 6] {
        [
            self.ph[t], self.pl[t], self.ah[t], self.al[t], self.bh[t], self.bl[t],
        ]
    }

    /// `cost(i, m)`, `i < m`.
    #[cfg(test)]
    fn cost(&self, i: usize, m: usize) -> f64 {
        cost(self.at(i), self.at(m))
    }

    /// `out[m] = cost(0, m)` for `m` in `1 .. out.len()` (`out[0]` is left alone).
    fn first_layer(&self, out: &mut [f64]) {
        let len = out.len();
        let (ph, pl) = (&self.ph[..len], &self.pl[..len]);
        let (ah, al) = (&self.ah[..len], &self.al[..len]);
        let (bh, bl) = (&self.bh[..len], &self.bl[..len]);
        let at_0 = self.at(0);
        for m in 1..len {
            out[m] = cost(at_0, [ph[m], pl[m], ah[m], al[m], bh[m], bl[m]]);
        }
    }

    /// [`choose`] over `d[i] + cost(i, m)` for the columns `i` in `lo ..= hi` (`hi < m`),
    /// as column indices and the value kept, computing few of those values in double-double.
    ///
    /// Double-double is needed only near the minimum. A first pass evaluates every column in
    /// plain double precision and stores a lower bound of its double-double value; the column
    /// with the smallest lower bound is evaluated in double-double, which bounds the minimum
    /// from above; then only the columns whose lower bound does not exceed that value plus the
    /// tie tolerance (every column [`choose`] could pick, or that could be smaller) are
    /// evaluated in double-double, and [`choose`] runs on them. The result is what [`choose`]
    /// gives on all columns evaluated in double-double.
    ///
    /// The bound: every prefix sum is non-negative and non-decreasing in the position, so the
    /// bracket from the high words alone is within `22 u P[m] A[m]` of its double-double value
    /// (the dropped low words are `≤ u` of each sum; one rounding per operation; `B ≤ 2 P A`),
    /// and the weight `s` (with its low words) is within `3 u s`; so the cost is within
    /// `23 u P[m] A[m] / s + 6 u cost`. The radius used doubles that, which also covers the
    /// double-double evaluation's own error (`30 u² P[m] A[m] / s + 5 u cost`) and the rounding
    /// of the sums with `d`.
    fn best_split(
        &self,
        m: usize,
        lo: usize,
        hi: usize,
        d: &[f64],
        scan: &mut Scan,
    ) -> Option<Choice> {
        let len = (hi + 1).checked_sub(lo)?;
        let end = lo + len;
        let (ph, pl) = (&self.ph[lo..end], &self.pl[lo..end]);
        let (ah, bh) = (&self.ah[lo..end], &self.bh[lo..end]);
        let d = &d[lo..end];
        let lower = &mut scan.values[..len];
        let cols = &mut scan.cols[..len];
        let at_m = self.at(m);
        if len <= SHORT_ROW {
            // Few columns: the filter would cost more than it saves.
            for t in 0..len {
                lower[t] = d[t] + cost(self.at(lo + t), at_m);
            }
            let (tie, arg) = choose(lower)?;
            return Some(Choice {
                split: lo + tie,
                arg: lo + arg,
                value: lower[tie],
            });
        }
        for t in 0..len {
            let (v, radius) = estimate([ph[t], pl[t], ah[t], bh[t]], at_m, d[t]);
            lower[t] = v - radius;
        }
        let (mut probe, mut probe_lower) = (0, lower[0]);
        for (t, &v) in lower.iter().enumerate().skip(1) {
            if v < probe_lower {
                (probe, probe_lower) = (t, v);
            }
        }
        let upper = d[probe] + cost(self.at(lo + probe), at_m);
        // Rounding is monotone, so this is at least choose's threshold for the true minimum.
        let limit = upper + TIE_RTOL * upper.abs();
        // Compact the candidates to the front (position `count <= t` was read already).
        let mut count = 0;
        for t in 0..len {
            if lower[t] <= limit {
                lower[count] = d[t] + cost(self.at(lo + t), at_m);
                cols[count] = t as u32;
                count += 1;
            }
        }
        let (tie, arg) = choose(&lower[..count])?;
        Some(Choice {
            split: lo + cols[tie] as usize,
            arg: lo + cols[arg] as usize,
            value: lower[tie],
        })
    }
}

/// Rows with at most this many columns are evaluated in double-double throughout.
const SHORT_ROW: usize = 6;

/// The unit roundoff of `f64`.
const U: f64 = f64::EPSILON / 2.0;

/// Work space of [`Prefix::best_split`]: one value and one column index per column.
struct Scan {
    values: Vec<f64>,
    cols: Vec<u32>,
}

/// What [`Prefix::best_split`] found for one row.
struct Choice {
    /// The split kept: the smallest column within [`TIE_RTOL`] of the minimum.
    split: usize,
    /// The smallest column attaining the minimum (the recursion's bound).
    arg: usize,
    /// The value at `split`.
    value: f64,
}

// ------------------------------------------------------------------------ the programme

/// The smallest index within [`TIE_RTOL`] of the minimum (the split kept) and the smallest
/// index attaining the minimum (the recursion bound); `None` for an empty slice.
fn choose(vals: &[f64]) -> Option<(usize, usize)> {
    let first = *vals.first()?;
    let (mut best, mut arg) = (first, 0);
    for (t, &v) in vals.iter().enumerate().skip(1) {
        if v < best {
            best = v;
            arg = t;
        }
    }
    let threshold = best + TIE_RTOL * best.abs();
    let tie = vals[..arg]
        .iter()
        .position(|&v| v <= threshold)
        .unwrap_or(arg);
    Some((tie, arg))
}

fn empty_range() -> KGroupsError {
    KGroupsError::Internal("an empty column range in the 1-D dynamic programme".into())
}

/// One middle layer: `d_next[m] = min_i d_prev[i] + cost(i, m)` for the rows `m` of the layer,
/// by divide and conquer over the rows.
struct Layer<'a> {
    prefix: &'a Prefix,
    d_prev: &'a [f64],
    d_next: &'a mut [f64],
    /// Back-pointers of this layer's rows, `back[m - first_row]`.
    back: &'a mut [u32],
    first_row: usize,
    scan: &'a mut Scan,
    control: &'a Control<'a>,
    work: usize,
}

impl Layer<'_> {
    /// Rows `r_lo ..= r_hi`, whose optimal splits lie in `c_lo ..= c_hi` (`c_lo < r_lo`).
    fn rows(&mut self, r_lo: usize, r_hi: usize, c_lo: usize, c_hi: usize) -> Result<()> {
        if r_lo > r_hi {
            return Ok(());
        }
        let mid = r_lo + (r_hi - r_lo) / 2;
        let hi = c_hi.min(mid - 1);
        let choice = self
            .prefix
            .best_split(mid, c_lo, hi, self.d_prev, self.scan)
            .ok_or_else(empty_range)?;
        self.d_next[mid] = choice.value;
        self.back[mid - self.first_row] = choice.split as u32;
        self.work += hi + 1 - c_lo;
        if self.work >= POLL_EVALUATIONS {
            self.work = 0;
            self.control.checkpoint()?;
        }
        if mid > r_lo {
            self.rows(r_lo, mid - 1, c_lo, choice.arg)?;
        }
        self.rows(mid + 1, r_hi, choice.arg, c_hi)
    }
}

/// The programme's buffers beside the prefix sums (their sizes are what [`memory_bytes`]
/// counts).
struct Buffers {
    d_prev: Vec<f64>,
    d_next: Vec<f64>,
    scan: Scan,
    back: Vec<u32>,
}

impl Buffers {
    fn new(n: usize, k: usize) -> Result<Self> {
        let what = "the 1-D dynamic programme";
        let back_len = (k - 2)
            .checked_mul(n - k + 1)
            .ok_or_else(|| KGroupsError::OutOfMemory {
                argument: "k",
                message: format!(
                    "the back-pointers of the 1-D dynamic programme for n = {n}, k = {k} \
                     exceed the address space"
                ),
            })?;
        Ok(Buffers {
            d_prev: try_filled(n + 1, f64::INFINITY, "x", what)?,
            d_next: try_filled(n + 1, f64::INFINITY, "x", what)?,
            scan: Scan {
                values: try_filled(n + 1, 0.0, "x", what)?,
                cols: try_filled(n + 1, 0u32, "x", what)?,
            },
            back: try_filled(
                back_len,
                0u32,
                "k",
                "the back-pointers of the 1-D dynamic programme",
            )?,
        })
    }
}

/// The layers `1 .. k` and the backtracking; `k >= 2`.
fn solve(prefix: &Prefix, k: usize, control: &Control) -> Result<Vec<usize>> {
    let n = prefix.ph.len() - 1;
    // Layer j needs right ends m in j ..= n - k + j (each later interval needs a point).
    let rows = n - k + 1;
    let Buffers {
        mut d_prev,
        mut d_next,
        mut scan,
        mut back,
    } = Buffers::new(n, k)?;

    // Layer 1: D_1(m) = cost(0, m).
    prefix.first_layer(&mut d_prev[..=rows]);
    for (j, back_j) in (2..k).zip(back.chunks_exact_mut(rows.max(1))) {
        control.checkpoint()?;
        let mut layer = Layer {
            prefix,
            d_prev: &d_prev,
            d_next: &mut d_next,
            back: back_j,
            first_row: j,
            scan: &mut scan,
            control,
            work: 0,
        };
        layer.rows(j, n - k + j, j - 1, n - k + j - 1)?;
        std::mem::swap(&mut d_prev, &mut d_next);
    }
    // Layer k: only m = n, over every split.
    control.checkpoint()?;
    let last = prefix
        .best_split(n, k - 1, n - 1, &d_prev, &mut scan)
        .ok_or_else(empty_range)?;
    let mut cuts = vec![0usize; k - 1];
    let mut end = last.split;
    cuts[k - 2] = end;
    for j in (2..k).rev() {
        end = back[(j - 2) * rows + (end - j)] as usize;
        cuts[j - 2] = end;
    }
    Ok(cuts)
}

#[cfg(test)]
mod tests;
