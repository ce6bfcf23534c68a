//! Stability over subsamples (Ben-Hur, Elisseeff & Guyon 2002; Lange et al. 2004): pairs of
//! subsamples of 80 % of the points are clustered independently, and the adjusted Rand
//! index of the two partitions on their common points measures how reproducible a k is.

use crate::error::{try_filled, KGroupsError, Result};
use crate::rng::{derived_seed, Rng};
use crate::Control;
use rayon::prelude::*;

/// The fraction of the points in each subsample.
pub const SUBSAMPLE_FRACTION: f64 = 0.8;

/// The adjusted Rand index (Hubert & Arabie) of two labelings of the same points (labels
/// any `usize`); 1 for identical partitions up to renaming, about 0 for independent ones.
/// Two partitions that both put every point in one group (or both in singletons) score 1.
pub fn adjusted_rand_index(a: &[usize], b: &[usize]) -> f64 {
    let n = a.len().min(b.len());
    if n < 2 {
        return 1.0;
    }
    let mut pairs: Vec<(usize, usize)> = a.iter().copied().zip(b.iter().copied()).take(n).collect();
    pairs.sort_unstable();
    let choose2 = |c: usize| (c as f64) * (c as f64 - 1.0) / 2.0;
    let mut sum_cells = 0.0;
    let mut run = 1;
    for i in 1..=n {
        if i < n && pairs[i] == pairs[i - 1] {
            run += 1;
        } else {
            sum_cells += choose2(run);
            run = 1;
        }
    }
    let marginal = |mut labels: Vec<usize>| {
        labels.sort_unstable();
        let mut total = 0.0;
        let mut run = 1;
        for i in 1..=labels.len() {
            if i < labels.len() && labels[i] == labels[i - 1] {
                run += 1;
            } else {
                total += choose2(run);
                run = 1;
            }
        }
        total
    };
    let sum_a = marginal(a[..n].to_vec());
    let sum_b = marginal(b[..n].to_vec());
    let expected = sum_a * sum_b / choose2(n);
    let max = 0.5 * (sum_a + sum_b);
    if max == expected {
        return 1.0;
    }
    (sum_cells - expected) / (max - expected)
}

/// The mean ARI over `pairs` pairs of subsamples for each `k` in `ks`: subsample `a` and
/// `b` (each ⌊0.8 n⌋ distinct points, sorted, drawn from seeds derived from `seed`) are
/// clustered by `cluster(nodes, ks, seed)`, which returns one labeling of the nodes per k
/// of `ks`; the ARI is taken on the points in both. Every subsample runs in parallel; the
/// result does not depend on the number of threads.
pub fn stability<F>(
    n: usize,
    ks: &[usize],
    pairs: usize,
    seed: u64,
    cluster: F,
    control: &Control,
) -> Result<Vec<f64>>
where
    F: Fn(&[usize], &[usize], u64) -> Result<Vec<Vec<usize>>> + Sync,
{
    let m = ((SUBSAMPLE_FRACTION * n as f64) as usize).clamp(1, n);
    // One row of ARIs per pair, summed in pair order afterwards (the same sums for any
    // number of threads); the only buffer the number of pairs sizes.
    let len = pairs.checked_mul(ks.len()).ok_or_else(|| {
        KGroupsError::invalid(
            "n_pairs",
            format!(
                "n_pairs = {pairs} is too large: {pairs} × {} scores cannot be counted",
                ks.len()
            ),
        )
    })?;
    if pairs.checked_mul(2).is_none() {
        return Err(KGroupsError::invalid(
            "n_pairs",
            format!("n_pairs = {pairs} is too large: 2 × {pairs} subsamples cannot be counted"),
        ));
    }
    let mut pair_scores = try_filled(len, 0.0, "n_pairs", "the stability scores")?;
    let subsample = |s: usize| -> Result<(Vec<usize>, Vec<Vec<usize>>)> {
        control.checkpoint()?;
        let s_seed = derived_seed(seed, s);
        let mut nodes = Rng::new(s_seed).distinct(n, m).unwrap_or_default();
        nodes.sort_unstable();
        let labels = cluster(&nodes, ks, s_seed)?;
        Ok((nodes, labels))
    };
    pair_scores
        .par_chunks_mut(ks.len().max(1))
        .enumerate()
        .try_for_each(|(p, row)| -> Result<()> {
            let (first, second) = rayon::join(|| subsample(2 * p), || subsample(2 * p + 1));
            let ((a, labels_a), (b, labels_b)) = (first?, second?);
            // Positions of the common points in each (both sorted).
            let (mut i, mut j) = (0, 0);
            let mut common = Vec::new();
            while i < a.len() && j < b.len() {
                match a[i].cmp(&b[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        common.push((i, j));
                        i += 1;
                        j += 1;
                    }
                }
            }
            for (slot, score) in row.iter_mut().enumerate() {
                let la = &labels_a[slot];
                let lb = &labels_b[slot];
                let x: Vec<usize> = common.iter().map(|&(i, _)| la[i]).collect();
                let y: Vec<usize> = common.iter().map(|&(_, j)| lb[j]).collect();
                *score = adjusted_rand_index(&x, &y);
            }
            Ok(())
        })?;
    let mut scores = vec![0.0; ks.len()];
    if !ks.is_empty() {
        for row in pair_scores.chunks_exact(ks.len()) {
            for (total, v) in scores.iter_mut().zip(row) {
                *total += v;
            }
        }
    }
    for s in &mut scores {
        *s /= pairs.max(1) as f64;
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ari_matches_hand_computed_values() {
        // sklearn: adjusted_rand_score([0,0,0,1,1,1], [0,0,1,1,2,2]) = 0.24242424...
        let v = adjusted_rand_index(&[0, 0, 0, 1, 1, 1], &[0, 0, 1, 1, 2, 2]);
        assert!((v - 0.242_424_242_424_242_4).abs() < 1e-12, "{v}");
        assert_eq!(adjusted_rand_index(&[0; 5], &[3; 5]), 1.0);
    }
}

/// The examples of the items above, run as tests (the module is private to the crate).
#[cfg(test)]
mod examples {
    #[test]
    fn adjusted_rand_index_example() {
        use crate::select::stability::adjusted_rand_index;
        assert_eq!(adjusted_rand_index(&[0, 0, 1, 1], &[5, 5, 2, 2]), 1.0);
        assert!(adjusted_rand_index(&[0, 0, 1, 1], &[0, 1, 0, 1]) < 0.0);
    }
}
