//! The state both algorithms keep: labels, cluster weights `s_l`, the cluster terms
//! `Q_l = Σ_{a,b ∈ C_l} w_a w_b G_ab`, and the per-point cluster sums
//! `M[l, i] = Σ_{y ∈ C_l} w_y G_iy` (SPEC, "The clustering objective").

use crate::error::{KGroupsError, Result};
use crate::kernel::Kernel;

/// A partition of the points together with the sums that make evaluating a point O(k).
#[derive(Debug, Clone)]
pub(crate) struct Partition {
    pub n: usize,
    pub k: usize,
    pub labels: Vec<usize>,
    /// Number of points in each cluster (a point alone in its cluster never moves).
    pub counts: Vec<usize>,
    /// `s_l`, the weight of each cluster.
    pub sizes: Vec<f64>,
    /// `Q_l`.
    pub terms: Vec<f64>,
    /// `M`, cluster-major: `sums[l * n + i] = m_l(i)`.
    pub sums: Vec<f64>,
}

impl Partition {
    /// Build the state for `labels` (already validated: length n, values < k, no empty
    /// cluster) with one pass over the kernel.
    pub fn new<K: Kernel>(
        kernel: &K,
        labels: Vec<usize>,
        weights: &[f64],
        k: usize,
    ) -> Result<Self> {
        let n = kernel.n();
        let sums = kernel.cluster_sums(&labels, weights, k);
        if let Some(position) = sums.iter().position(|v| !v.is_finite()) {
            return Err(KGroupsError::invalid(
                "G",
                format!(
                    "the kernel sums overflow or are not finite (row {}); check G and the weights for \
                     NaN, infinity or values too large to add up",
                    position % n
                ),
            ));
        }
        let mut partition = Partition {
            n,
            k,
            labels,
            counts: vec![0; k],
            sizes: vec![0.0; k],
            terms: vec![0.0; k],
            sums,
        };
        partition.refresh_totals(weights);
        Ok(partition)
    }

    /// Recompute counts, `s_l` and `Q_l = Σ_{i∈C_l} w_i m_l(i)` from the labels and `M`,
    /// removing any drift from incremental updates. O(n).
    pub fn refresh_totals(&mut self, weights: &[f64]) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.sizes.iter_mut().for_each(|s| *s = 0.0);
        self.terms.iter_mut().for_each(|q| *q = 0.0);
        for (i, (&label, &w)) in self.labels.iter().zip(weights).enumerate() {
            self.counts[label] += 1;
            self.sizes[label] += w;
            self.terms[label] += w * self.sums[label * self.n + i];
        }
    }

    /// `Q = Σ_l Q_l / s_l`.
    pub fn objective(&self) -> f64 {
        self.terms.iter().zip(&self.sizes).map(|(q, s)| q / s).sum()
    }

    /// `m_l(i)`.
    #[inline(always)]
    pub fn sum(&self, cluster: usize, i: usize) -> f64 {
        self.sums[cluster * self.n + i]
    }

    /// Move point `i` to cluster `to` with the exact updates of SPEC:
    /// `Q_from ← Q_from − 2 w m_from(i) + w² G_ii`, `Q_to ← Q_to + 2 w m_to(i) + w² G_ii`,
    /// `s` and counts, and `M[from, :] −= w G[i, :]`, `M[to, :] += w G[i, :]`. O(n) dense.
    pub fn move_point<K: Kernel>(
        &mut self,
        kernel: &K,
        i: usize,
        to: usize,
        weight: f64,
        diagonal: f64,
    ) {
        let from = self.labels[i];
        debug_assert_ne!(from, to);
        let self_term = weight * weight * diagonal;
        self.terms[from] += -2.0 * weight * self.sum(from, i) + self_term;
        self.terms[to] += 2.0 * weight * self.sum(to, i) + self_term;
        self.sizes[from] -= weight;
        self.sizes[to] += weight;
        self.counts[from] -= 1;
        self.counts[to] += 1;
        self.labels[i] = to;
        let n = self.n;
        let (leaving, joining) = two_rows_mut(&mut self.sums, n, from, to);
        kernel.move_point(i, weight, leaving, joining);
    }
}

/// Mutable views of rows `a` and `b` (`a != b`) of a row-major matrix with rows of `n`.
fn two_rows_mut(data: &mut [f64], n: usize, a: usize, b: usize) -> (&mut [f64], &mut [f64]) {
    if a < b {
        let (head, tail) = data.split_at_mut(b * n);
        (&mut head[a * n..(a + 1) * n], &mut tail[..n])
    } else {
        let (head, tail) = data.split_at_mut(a * n);
        let b_row = &mut head[b * n..(b + 1) * n];
        (&mut tail[..n], b_row)
    }
}
