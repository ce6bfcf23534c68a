//! Warm starts between consecutive k: a start for k groups made from the best partition
//! into k − 1 by splitting its most dispersed cluster in two.
//!
//! The cold starts of each k are independent, so nothing makes the best `W_k` found fall
//! as k grows; on data with many groups and few starts it sometimes rises. A start that
//! keeps the k − 1 partition and splits one cluster begins at a `W` below `W_{k−1}`, and the
//! local search (the same Hartigan sweeps as the cold starts) can only lower it further.

use crate::error::Result;
use crate::rng::Rng;
use crate::{Control, Kernel};
use rayon::prelude::*;

/// Lloyd iterations of the split inside its cluster (it stops earlier when no point moves).
const SPLIT_ITERATIONS: usize = 10;

/// Labels for `k_prev + 1` groups: `labels` (`0..k_prev`) with the cluster of largest
/// dispersion split in two, its second part labelled `k_prev`. `None` when no cluster can
/// be split (every cluster is one point, or its points coincide in feature space).
///
/// The dispersion of cluster `l` is `W_l = Σ_{a ∈ C_l} w_a ‖φ(a) − μ_l‖²
/// = Σ_{a ∈ C_l} w_a G_aa − Q_l / s_l`, with `Q_l = Σ_{a,b ∈ C_l} w_a w_b G_ab` (`terms[l]`,
/// as [`crate::Clustering::cluster_terms`]) and `s_l` its weight (ties: the lower label).
/// The split is a weighted 2-means in feature space restricted to that cluster: the first
/// centre a point drawn by weight, the second drawn with probability proportional to
/// `w_a ‖φ(a) − φ(c)‖²` (k-means++), then at most `SPLIT_ITERATIONS` (10) Lloyd steps, each
/// point of the cluster to the nearer of the two parts' means. `weights` of `None` are
/// ones.
pub fn split_most_dispersed<K: Kernel>(
    kernel: &K,
    labels: &[usize],
    k_prev: usize,
    terms: &[f64],
    weights: Option<&[f64]>,
    seed: u64,
    control: &Control,
) -> Result<Option<Vec<usize>>> {
    let n = kernel.n();
    let weight = |a: usize| weights.map_or(1.0, |w| w[a]);
    let mut mass = vec![0.0; k_prev];
    let mut diagonal = vec![0.0; k_prev];
    let mut count = vec![0usize; k_prev];
    for (a, &l) in labels.iter().enumerate() {
        mass[l] += weight(a);
        diagonal[l] += weight(a) * kernel.diagonal(a);
        count[l] += 1;
    }
    let mut best: Option<(usize, f64)> = None;
    for l in 0..k_prev {
        if count[l] < 2 || mass[l] <= 0.0 {
            continue;
        }
        let dispersion = diagonal[l] - terms[l] / mass[l];
        if best.is_none_or(|(_, d)| dispersion > d) {
            best = Some((l, dispersion));
        }
    }
    let Some((chosen, _)) = best else {
        return Ok(None);
    };
    let members: Vec<usize> = (0..n).filter(|&a| labels[a] == chosen).collect();
    let member_weights: Vec<f64> = members.iter().map(|&a| weight(a)).collect();

    // k-means++ centres among the members.
    let mut rng = Rng::new(seed);
    let Some(first) = rng.weighted_index(&member_weights) else {
        return Ok(None);
    };
    let first = members[first];
    let mut row = vec![0.0; n];
    kernel.row_into(first, &mut row);
    let g_first = kernel.diagonal(first);
    let d2: Vec<f64> = members
        .iter()
        .zip(&member_weights)
        .map(|(&a, &w)| w * (kernel.diagonal(a) + g_first - 2.0 * row[a]).max(0.0))
        .collect();
    let Some(second) = rng.weighted_index(&d2) else {
        return Ok(None); // the cluster's points coincide in feature space
    };
    let second = members[second];
    let mut in_second: Vec<bool> = {
        let mut row_second = vec![0.0; n];
        kernel.row_into(second, &mut row_second);
        let g_second = kernel.diagonal(second);
        members
            .iter()
            .map(|&a| g_second - 2.0 * row_second[a] < g_first - 2.0 * row[a])
            .collect()
    };

    // Lloyd steps inside the cluster: each member to the nearer part's mean, by
    // ‖φ(a) − μ_j‖² = G_aa − 2 S_j(a) / s_j + T_j / s_j² (S_j(a) = Σ_{b ∈ j} w_b G_ab,
    // T_j = Σ_{a ∈ j} w_a S_j(a)); G_aa is the same for both parts and left out. The sums
    // S_j are computed in full once, then updated by the rows of the members that change
    // part: after the first steps few do, so a step costs far less than a full pass.
    let mut sums: Vec<[f64; 2]> = members
        .par_iter()
        .map_init(
            || vec![0.0; n],
            |row, &a| {
                kernel.row_into(a, row);
                let mut s = [0.0; 2];
                for ((&b, &w), &second) in members.iter().zip(&member_weights).zip(&in_second) {
                    s[usize::from(second)] += w * row[b];
                }
                s
            },
        )
        .collect();
    for _ in 0..SPLIT_ITERATIONS {
        control.checkpoint()?;
        let mut part_mass = [0.0; 2];
        let mut part_terms = [0.0; 2];
        for ((s, &w), &second) in sums.iter().zip(&member_weights).zip(&in_second) {
            let j = usize::from(second);
            part_mass[j] += w;
            part_terms[j] += w * s[j];
        }
        if part_mass[0] <= 0.0 || part_mass[1] <= 0.0 {
            break;
        }
        let next: Vec<bool> = sums
            .iter()
            .map(|s| {
                let cost = |j: usize| {
                    -2.0 * s[j] / part_mass[j] + part_terms[j] / (part_mass[j] * part_mass[j])
                };
                cost(1) < cost(0)
            })
            .collect();
        let both = next.iter().any(|&x| x) && next.iter().any(|&x| !x);
        let changed: Vec<usize> = (0..members.len())
            .filter(|&c| next[c] != in_second[c])
            .collect();
        if changed.is_empty() || !both {
            break;
        }
        for &c in &changed {
            control.checkpoint()?;
            kernel.row_into(members[c], &mut row);
            let (from, to) = (usize::from(in_second[c]), usize::from(next[c]));
            let w = member_weights[c];
            for (s, &a) in sums.iter_mut().zip(&members) {
                s[from] -= w * row[a];
                s[to] += w * row[a];
            }
        }
        in_second = next;
    }
    let mut split = labels.to_vec();
    for (&a, &second) in members.iter().zip(&in_second) {
        if second {
            split[a] = k_prev;
        }
    }
    Ok(Some(split))
}
