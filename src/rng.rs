//! A small, fast, seedable random generator (xoshiro256** seeded by SplitMix64).
//!
//! Written here rather than taken from `rand` because the algorithms need only uniform
//! integers and floats, and the exact stream must never change under us: results are
//! promised identical for a given seed across versions of dependencies.

/// SplitMix64's increment of its state, `2^64 / φ`.
const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64 step: used to expand a single `u64` seed into generator state and into
/// independent per-restart seeds.
///
/// ```
/// let mut state = 42u64;
/// let a = kgroups::rng::splitmix64(&mut state);
/// let b = kgroups::rng::splitmix64(&mut state);
/// assert_ne!(a, b);
/// ```
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GOLDEN_GAMMA);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derive `count` independent seeds from one seed, up front, so that what each restart
/// sees does not depend on how restarts are scheduled on threads.
///
/// ```
/// let seeds = kgroups::rng::derive_seeds(7, 3);
/// assert_eq!(seeds, kgroups::rng::derive_seeds(7, 3));
/// assert_eq!(seeds.len(), 3);
/// ```
pub fn derive_seeds(seed: u64, count: usize) -> Vec<u64> {
    let mut state = seed;
    (0..count).map(|_| splitmix64(&mut state)).collect()
}

/// The seed at `index` of [`derive_seeds`]`(seed, …)`, computed directly (SplitMix64's state
/// after `index + 1` steps is `seed + (index + 1) · γ`): for loops over a count a caller
/// chooses, which then need no buffer of seeds.
///
/// ```
/// use kgroups::rng::{derive_seeds, derived_seed};
/// let seeds = derive_seeds(7, 5);
/// assert!((0..5).all(|i| derived_seed(7, i) == seeds[i]));
/// ```
pub fn derived_seed(seed: u64, index: usize) -> u64 {
    let mut state = seed.wrapping_add(GOLDEN_GAMMA.wrapping_mul(index as u64));
    splitmix64(&mut state)
}

/// xoshiro256** generator.
///
/// ```
/// use kgroups::rng::Rng;
/// let mut rng = Rng::new(1);
/// let x = rng.next_f64();
/// assert!((0.0..1.0).contains(&x));
/// assert!(rng.below(10).unwrap() < 10);
/// assert_eq!(rng.below(0), None);
/// ```
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator seeded from one `u64`.
    pub fn new(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in `0..bound` without modulo bias (Lemire's method); `None` when
    /// `bound = 0` (the range is empty).
    pub fn below(&mut self, bound: usize) -> Option<usize> {
        if bound == 0 {
            return None;
        }
        let bound = bound as u64;
        loop {
            let m = (self.next_u64() as u128) * (bound as u128);
            let low = m as u64;
            if low >= bound.wrapping_neg() % bound {
                return Some((m >> 64) as usize);
            }
        }
    }

    /// `m` distinct indices drawn uniformly from `0..n`, in the order drawn (a partial
    /// Fisher–Yates shuffle); `None` when `m > n`. O(n) memory.
    ///
    /// ```
    /// use kgroups::rng::Rng;
    /// let mut picked = Rng::new(5).distinct(10, 4).unwrap();
    /// picked.sort();
    /// picked.dedup();
    /// assert_eq!(picked.len(), 4);
    /// assert!(Rng::new(5).distinct(3, 4).is_none());
    /// ```
    pub fn distinct(&mut self, n: usize, m: usize) -> Option<Vec<usize>> {
        if m > n {
            return None;
        }
        let mut order: Vec<usize> = (0..n).collect();
        for position in 0..m {
            let pick = position + self.below(n - position)?;
            order.swap(position, pick);
        }
        order.truncate(m);
        Some(order)
    }

    /// Index drawn with probability proportional to `weights[i]` (non-negative, finite).
    /// Returns `None` when all weights are zero.
    pub fn weighted_index(&mut self, weights: &[f64]) -> Option<usize> {
        let total: f64 = weights.iter().sum();
        if total <= 0.0 || !total.is_finite() {
            return None;
        }
        let target = self.next_f64() * total;
        let mut cumulative = 0.0;
        let mut last_positive = None;
        for (i, &w) in weights.iter().enumerate() {
            if w > 0.0 {
                cumulative += w;
                last_positive = Some(i);
                if target < cumulative {
                    return Some(i);
                }
            }
        }
        // Rounding can leave `target` a hair above the running sum: take the last candidate.
        last_positive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_roughly_uniform() {
        let mut rng = Rng::new(3);
        let mut counts = [0usize; 5];
        for _ in 0..50_000 {
            counts[rng.below(5).unwrap()] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn weighted_index_respects_zeros() {
        let mut rng = Rng::new(9);
        for _ in 0..1000 {
            let i = rng.weighted_index(&[0.0, 1.0, 0.0, 3.0]).unwrap();
            assert!(i == 1 || i == 3);
        }
        assert_eq!(rng.weighted_index(&[0.0, 0.0]), None);
    }
}
