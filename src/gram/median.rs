//! The median heuristic for the bandwidth σ of the exponential and gaussian semimetrics: the
//! median Euclidean distance between pairs of points, on a deterministic subsample of large
//! data.

use rayon::prelude::*;

use crate::control::Control;
use crate::distance::Points;
use crate::error::{KGroupsError, Result};
use crate::rng::Rng;
use crate::scale::{binary_exponent, times_pow2};

/// Above this many points (of positive weight), the median is taken over the pairs of a
/// subsample of this many points, so that its cost is O(MEDIAN_SAMPLE² D) whatever n.
pub const MEDIAN_SAMPLE: usize = 2000;

/// The seed of the subsample: fixed, so that σ is a function of the data alone.
const SAMPLE_SEED: u64 = 0x006B_6772_6F75_7073; // "kgroups" in ASCII

/// The median heuristic: σ = the median of ‖x_a − x_b‖ over the pairs a < b of points
/// (the lower median for an even number of pairs; duplicate points count, at distance 0).
///
/// When n > [`MEDIAN_SAMPLE`] the pairs are those of [`MEDIAN_SAMPLE`] points drawn uniformly
/// without replacement by a generator with a fixed seed (then sorted by index), so the cost
/// is O(D · MEDIAN_SAMPLE²) at most, and σ depends only on the data, never on the number of
/// threads or a user's seed. Distances are computed from the data scaled by a power of two,
/// so any finite data work. Checks `control` for cancellation.
///
/// Errors (argument `"X"`): fewer than 2 points; the median is 0 (at least half the pairs
/// are duplicate points: pass σ explicitly); or it is not representable.
///
/// ```
/// use kgroups::gram::{bandwidth_median, Points};
/// use kgroups::Control;
/// // pairwise distances 1, 3, 4: the median is 3
/// let x = Points::new(&[0.0, 1.0, 4.0], 3, 1).unwrap();
/// assert_eq!(bandwidth_median(&x, &Control::new()).unwrap(), 3.0);
/// // 4 points, 6 pairs (1, 2, 3, 1, 2, 1): the lower median is 1
/// let y = Points::new(&[0.0, 1.0, 2.0, 3.0], 4, 1).unwrap();
/// assert_eq!(bandwidth_median(&y, &Control::new()).unwrap(), 1.0);
/// ```
pub fn bandwidth_median(x: &Points, control: &Control) -> Result<f64> {
    median_distance(x, None, control)
}

/// [`bandwidth_median`] with point weights: the weighted lower median of ‖x_a − x_b‖ over
/// the pairs a < b of points of positive weight, pair (a, b) weighing w_a·w_b — the
/// smallest distance d with Σ_{pairs at distance ≤ d} w_a w_b ≥ ½ Σ_{pairs} w_a w_b. Unit
/// weights give [`bandwidth_median`]. The subsample (above [`MEDIAN_SAMPLE`] points of
/// positive weight) is drawn from the points of positive weight.
///
/// Errors: `weights` not of length n, not finite, negative, or all 0 (argument `"weights"`);
/// otherwise as [`bandwidth_median`].
///
/// ```
/// use kgroups::gram::{bandwidth_median, bandwidth_median_weighted, Points};
/// use kgroups::Control;
/// let x = Points::new(&[0.0, 1.0, 4.0, 100.0], 4, 1).unwrap();
/// // the last point has weight 0: the median of 1, 3, 4
/// let w = bandwidth_median_weighted(&x, &[1.0, 1.0, 1.0, 0.0], &Control::new()).unwrap();
/// assert_eq!(w, 3.0);
/// ```
pub fn bandwidth_median_weighted(x: &Points, weights: &[f64], control: &Control) -> Result<f64> {
    crate::validate::sample_weights(weights, x.n(), "weights")?;
    median_distance(x, Some(weights), control)
}

/// The indices the median is taken over: the points of positive weight, or a fixed-seed
/// uniform subsample of [`MEDIAN_SAMPLE`] of them, in increasing order.
fn sample(n: usize, weights: Option<&[f64]>) -> Vec<usize> {
    let mut pool: Vec<usize> = match weights {
        None => (0..n).collect(),
        Some(w) => (0..n).filter(|&i| w[i] > 0.0).collect(),
    };
    if pool.len() > MEDIAN_SAMPLE {
        // Partial Fisher–Yates: the first MEDIAN_SAMPLE entries are a uniform sample.
        let mut rng = Rng::new(SAMPLE_SEED);
        for i in 0..MEDIAN_SAMPLE {
            let j = i + rng.below(pool.len() - i).unwrap_or(0);
            pool.swap(i, j);
        }
        pool.truncate(MEDIAN_SAMPLE);
        pool.sort_unstable();
    }
    pool
}

fn median_distance(x: &Points, weights: Option<&[f64]>, control: &Control) -> Result<f64> {
    let chosen = sample(x.n(), weights);
    let m = chosen.len();
    if m < 2 {
        return Err(KGroupsError::invalid(
            "X",
            "the median bandwidth needs at least 2 points (of positive weight); pass sigma explicitly",
        ));
    }
    let d = x.dim();
    // The sample scaled by 2^-e, its largest |coordinate| in [1, 2): differences stay below 4,
    // so no square overflows, and tiny data keep their precision.
    let largest = chosen
        .iter()
        .flat_map(|&i| x.row(i).iter())
        .fold(0.0f64, |a, &v| a.max(v.abs()));
    if largest == 0.0 {
        return Err(identical());
    }
    let e = binary_exponent(largest);
    let scaled: Vec<f64> = chosen
        .iter()
        .flat_map(|&i| x.row(i).iter().map(move |&v| times_pow2(v, -e)))
        .collect();
    let row = |a: usize| &scaled[a * d..(a + 1) * d];
    // Every pair (a, b), a < b, in a fixed order: (distance, pair weight).
    let per_row: Vec<Vec<(f64, f64)>> = (0..m - 1)
        .into_par_iter()
        .map(|a| {
            control.checkpoint()?;
            let wa = weights.map_or(1.0, |w| w[chosen[a]]);
            Ok((a + 1..m)
                .map(|b| {
                    let s: f64 = row(a)
                        .iter()
                        .zip(row(b))
                        .map(|(&u, &v)| (u - v) * (u - v))
                        .sum();
                    let wb = weights.map_or(1.0, |w| w[chosen[b]]);
                    (s.sqrt(), wa * wb)
                })
                .collect())
        })
        .collect::<Result<_>>()?;
    let mut pairs: Vec<(f64, f64)> = per_row.into_iter().flatten().collect();
    control.checkpoint()?;
    // Stable sort: ties keep the fixed pair order, so the running sums below are deterministic.
    pairs.par_sort_by(|p, q| p.0.total_cmp(&q.0));
    let median = match weights {
        None => pairs[(pairs.len() - 1) / 2].0,
        Some(_) => {
            // Pair weights w_a w_b may underflow for tiny weights: scale by the largest.
            let top = pairs.iter().fold(0.0f64, |a, p| a.max(p.1));
            let total: f64 = pairs.iter().map(|p| p.1 / top).sum();
            let mut running = 0.0;
            let mut value = pairs[pairs.len() - 1].0;
            for &(dist, w) in &pairs {
                running += w / top;
                if running >= 0.5 * total {
                    value = dist;
                    break;
                }
            }
            value
        }
    };
    if median == 0.0 {
        return Err(identical());
    }
    let sigma = times_pow2(median, e);
    if !sigma.is_finite() || sigma == 0.0 {
        return Err(KGroupsError::invalid(
            "X",
            "the median distance of X is not representable in f64; rescale the data or pass sigma explicitly",
        ));
    }
    Ok(sigma)
}

fn identical() -> KGroupsError {
    KGroupsError::invalid(
        "X",
        "at least half of the pairs of points of X coincide, so the median bandwidth is 0; pass sigma explicitly or use the mean rule",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lower median of all pairwise distances, by the definition.
    fn direct(data: &[f64], n: usize, d: usize) -> f64 {
        let mut all = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let s: f64 = (0..d)
                    .map(|k| (data[a * d + k] - data[b * d + k]).powi(2))
                    .sum();
                all.push(s.sqrt());
            }
        }
        all.sort_by(f64::total_cmp);
        all[(all.len() - 1) / 2]
    }

    #[test]
    fn matches_the_definition_and_is_scale_equivariant() {
        let mut rng = Rng::new(5);
        for &(n, d) in &[(2usize, 1usize), (7, 3), (50, 2), (301, 4)] {
            let data: Vec<f64> = (0..n * d).map(|_| rng.next_f64() * 10.0 - 3.0).collect();
            let x = Points::new(&data, n, d).unwrap();
            let got = bandwidth_median(&x, &Control::new()).unwrap();
            let want = direct(&data, n, d);
            assert!((got - want).abs() <= 1e-14 * want, "{got} vs {want}");
            // Unit weights give the same bits.
            let w = vec![1.0; n];
            assert_eq!(
                bandwidth_median_weighted(&x, &w, &Control::new()).unwrap(),
                got
            );
            // Scaling the data by 2^-1000 or 2^900 scales σ exactly.
            for e in [-900, 900] {
                let s: Vec<f64> = data.iter().map(|&v| times_pow2(v, e)).collect();
                let xs = Points::new(&s, n, d).unwrap();
                let gs = bandwidth_median(&xs, &Control::new()).unwrap();
                assert_eq!(gs, times_pow2(got, e));
            }
        }
    }

    #[test]
    fn weighted_median_by_hand() {
        let x = Points::new(&[0.0, 1.0, 4.0, 9.0], 4, 1).unwrap();
        // pairs (distance, weight): (0,1) 1 w2, (0,2) 4 w2, (0,3) 9 w2, (1,2) 3 w1, (1,3) 8 w1,
        // (2,3) 5 w1; sorted 1(2) 3(1) 4(2) 5(1) 8(1) 9(2): total 9, half 4.5, running 2, 3, 5
        // -> 4 (unweighted: 1 3 4 5 8 9, lower median 4 as well)
        let w = bandwidth_median_weighted(&x, &[2.0, 1.0, 1.0, 1.0], &Control::new()).unwrap();
        assert_eq!(w, 4.0);
        // weight 5 on point 3: pairs with it weigh 5: 1(1) 3(1) 4(1) 5(5) 8(5) 9(5): total 18,
        // half 9, running 1, 2, 3, 8, 13 -> 8
        let w = bandwidth_median_weighted(&x, &[1.0, 1.0, 1.0, 5.0], &Control::new()).unwrap();
        assert_eq!(w, 8.0);
    }

    #[test]
    fn large_data_use_a_fixed_subsample() {
        let n = MEDIAN_SAMPLE + 500;
        let mut rng = Rng::new(9);
        let data: Vec<f64> = (0..n).map(|_| rng.next_f64()).collect();
        let x = Points::new(&data, n, 1).unwrap();
        let a = bandwidth_median(&x, &Control::new()).unwrap();
        let b = bandwidth_median(&x, &Control::new()).unwrap();
        assert_eq!(a, b);
        // Uniform on [0, 1): |U - V| has median 1 - 1/sqrt(2) ≈ 0.293.
        assert!((a - (1.0 - 0.5f64.sqrt())).abs() < 0.02, "{a}");
        let chosen = sample(n, None);
        assert_eq!(chosen.len(), MEDIAN_SAMPLE);
        assert!(chosen.windows(2).all(|p| p[0] < p[1]));
    }

    #[test]
    fn degenerate_inputs_are_refused() {
        let one = Points::new(&[1.0, 2.0], 1, 2).unwrap();
        assert_eq!(
            bandwidth_median(&one, &Control::new())
                .unwrap_err()
                .argument(),
            Some("X")
        );
        let dup = Points::new(&[1.0, 1.0, 1.0, 5.0], 4, 1).unwrap();
        let err = bandwidth_median(&dup, &Control::new()).unwrap_err();
        assert!(err.to_string().contains("pass sigma"), "{err}");
        let x = Points::new(&[0.0, 1.0], 2, 1).unwrap();
        for bad in [&[1.0][..], &[1.0, -1.0], &[0.0, 0.0], &[1.0, f64::NAN]] {
            let err = bandwidth_median_weighted(&x, bad, &Control::new()).unwrap_err();
            assert_eq!(err.argument(), Some("weights"));
        }
    }
}
