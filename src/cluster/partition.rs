//! The state both algorithms keep: labels, cluster weights `s_l`, the cluster terms
//! `Q_l = Σ_{a,b ∈ C_l} w_a w_b G_ab`, and the per-point cluster sums
//! `m_l(i) = Σ_{y ∈ C_l} w_y G_iy` (SPEC, "The clustering objective").
//!
//! The sums are stored in one of two ways. For a general kernel, as the k × n matrix `M`
//! (a move updates two rows, O(n) dense or O(deg) sparse; sparse kernels keep it
//! point-major). For a low-rank kernel
//! `G = Φ Φᵀ` (Nyström features, n × m), as the k weighted feature sums
//! `S_l = Σ_{y∈C_l} w_y φ_y`, so that `m_l(i) = φ_i · S_l` costs O(m) and a move O(m).

use crate::control::Control;
use crate::error::{try_filled, KGroupsError, Result};
use crate::kernel::{check_cluster_sums_args, KernelAccess, SumsLayout};

/// A partition of the points together with the sums that make evaluating a point O(k).
/// Where `m_l(i)` comes from.
#[derive(Debug, Clone)]
pub(crate) enum ClusterSums<'a> {
    /// `M`, cluster-major: `sums[l * n + i] = m_l(i)` (dense kernels: a move updates two
    /// whole rows).
    ClusterMajor(Vec<f64>),
    /// `Mᵀ`, point-major: `sums[i * k + l] = m_l(i)` (sparse kernels, see
    /// [`crate::SumsLayout::PointMajor`]).
    PointMajor(Vec<f64>),
    /// `S_l` (k × m, row-major) over the borrowed features Φ (n × m, row-major).
    Features {
        sums: Vec<f64>,
        features: &'a [f64],
        m: usize,
    },
}

#[inline(always)]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (a_chunks, b_chunks) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for t in 0..4 {
            acc[t] += x[t] * y[t];
        }
    }
    (acc[0] + acc[2]) + (acc[1] + acc[3]) + tail
}

/// Two cluster means whose squared distance is below this times the magnitude of the terms
/// it is computed from coincide (a few thousand units of rounding).
const COINCIDENT_MEANS: f64 = 1e-12;

#[derive(Debug, Clone)]
pub(crate) struct Partition<'a> {
    pub n: usize,
    pub k: usize,
    pub labels: Vec<usize>,
    /// Number of points in each cluster (a point alone in its cluster never moves).
    pub counts: Vec<usize>,
    /// `s_l`, the weight of each cluster.
    pub cluster_weights: Vec<f64>,
    /// `Q_l`.
    pub terms: Vec<f64>,
    /// The per-point cluster sums.
    pub sums: ClusterSums<'a>,
    /// The diagonal shift of [`crate::Options::shift`] at the weights' scale (`shift·2^-e`
    /// for weights scaled by `2^-e`; infinite where that overflows): the search is on
    /// `G + shift·W⁻¹`, while `terms`, `sums` and [`Partition::objective`] are those of `G`.
    /// Lloyd's costs and the distinctness of the means add it.
    pub shift: f64,
}

impl<'a> Partition<'a> {
    /// Build the state for `labels` (already validated: length n, values < k, no empty
    /// cluster) with one pass over the kernel; with `check_kernel`, the kernel's deferred
    /// validation runs in the same pass ([`KernelAccess::cluster_sums_and_check`]).
    pub fn new<K: KernelAccess>(
        kernel: &'a K,
        labels: Vec<usize>,
        weights: &[f64],
        k: usize,
        control: &Control,
        check_kernel: bool,
    ) -> Result<Self> {
        let n = kernel.n();
        let (sums, check) = match kernel.features() {
            None if kernel.sums_layout() == SumsLayout::PointMajor => {
                if check_kernel {
                    kernel.check_deferred(control)?;
                }
                let sums = kernel.cluster_sums_point_major(&labels, weights, k, control)?;
                let check = sums.iter().position(|v| !v.is_finite()).map(|p| p / k);
                (ClusterSums::PointMajor(sums), check)
            }
            None => {
                let sums = if check_kernel {
                    kernel.cluster_sums_and_check(&labels, weights, k, control)?
                } else {
                    kernel.cluster_sums(&labels, weights, k, control)?
                };
                let check = sums.iter().position(|v| !v.is_finite()).map(|p| p % n);
                (ClusterSums::ClusterMajor(sums), check)
            }
            Some((features, m)) => {
                if check_kernel {
                    kernel.check_deferred(control)?;
                }
                check_cluster_sums_args(n, &labels, weights, k)?;
                let mut sums = try_filled(k * m, 0.0, "k", "the k cluster feature sums")?;
                for (i, (&label, &w)) in labels.iter().zip(weights).enumerate() {
                    let target = &mut sums[label * m..(label + 1) * m];
                    for (s, f) in target.iter_mut().zip(&features[i * m..(i + 1) * m]) {
                        *s += w * f;
                    }
                }
                let check = sums.iter().position(|v| !v.is_finite()).map(|p| p / m);
                (ClusterSums::Features { sums, features, m }, check)
            }
        };
        if let Some(position) = check {
            return Err(KGroupsError::invalid(
                "G",
                format!(
                    "the kernel sums overflow or are not finite (row {}); check G and the weights for \
                     NaN, infinity or values too large to add up",
                    position
                ),
            ));
        }
        let mut partition = Partition {
            n,
            k,
            labels,
            counts: vec![0; k],
            cluster_weights: vec![0.0; k],
            terms: vec![0.0; k],
            sums,
            shift: 0.0,
        };
        partition.refresh_totals(weights);
        Ok(partition)
    }

    /// Recompute counts, `s_l` and `Q_l = Σ_{i∈C_l} w_i m_l(i)` from the labels and `M`,
    /// removing any drift from incremental updates. O(n).
    pub fn refresh_totals(&mut self, weights: &[f64]) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.cluster_weights.iter_mut().for_each(|s| *s = 0.0);
        self.terms.iter_mut().for_each(|q| *q = 0.0);
        for (&label, &w) in self.labels.iter().zip(weights) {
            self.counts[label] += 1;
            self.cluster_weights[label] += w;
        }
        match &self.sums {
            ClusterSums::ClusterMajor(_) | ClusterSums::PointMajor(_) => {
                for (i, (&label, &w)) in self.labels.iter().zip(weights).enumerate() {
                    self.terms[label] += w * self.sum(label, i);
                }
            }
            // Q_l = Σ_{a,b∈C_l} w_a w_b φ_a·φ_b = ‖S_l‖².
            ClusterSums::Features { sums, m, .. } => {
                for (term, s) in self.terms.iter_mut().zip(sums.chunks_exact(*m)) {
                    *term = dot(s, s);
                }
            }
        }
    }

    /// `Q = Σ_l Q_l / s_l` (of `G`: the shift's `k·shift` is added to the reported figures).
    pub fn objective(&self) -> f64 {
        self.terms
            .iter()
            .zip(&self.cluster_weights)
            .map(|(q, s)| q / s)
            .sum()
    }

    /// The number of distinct cluster means: `‖μ_a − μ_b‖² = Q_a/s_a² + Q_b/s_b² − 2 C_ab/(s_a s_b)`
    /// with `C_ab = Σ_{i∈C_a} w_i m_b(i)` (plus `shift/s_a + shift/s_b` for the shifted kernel): two
    /// means coincide when its size is within the rounding of its terms. On a kernel that is
    /// not positive semi-definite (an adjacency matrix) it can be clearly negative, and the
    /// means are then distinct, not coincident. O(n·k) (O(k²·m) for features).
    pub fn distinct_means(&self, weights: &[f64]) -> Result<usize> {
        let k = self.k;
        let mut cross = try_filled(k * k, 0.0, "k", "the k × k products of the cluster means")?;
        match &self.sums {
            ClusterSums::ClusterMajor(_) | ClusterSums::PointMajor(_) => {
                for (i, (&a, &w)) in self.labels.iter().zip(weights).enumerate() {
                    for b in 0..k {
                        cross[a * k + b] += w * self.sum(b, i);
                    }
                }
            }
            ClusterSums::Features { sums, m, .. } => {
                for a in 0..k {
                    for b in 0..k {
                        cross[a * k + b] =
                            dot(&sums[a * m..(a + 1) * m], &sums[b * m..(b + 1) * m]);
                    }
                }
            }
        }
        // Cluster b is a new mean unless it coincides with an earlier one.
        let norm = |a: usize| self.terms[a] / (self.cluster_weights[a] * self.cluster_weights[a]);
        // The shift's part of ‖μ_a − μ_b‖²: C_ab does not change, each Q_l/s_l² gains shift/s_l.
        let shift = |a: usize| self.shift / self.cluster_weights[a];
        Ok((0..k)
            .filter(|&b| {
                (0..b).all(|a| {
                    let c = 2.0 * cross[a * k + b]
                        / (self.cluster_weights[a] * self.cluster_weights[b]);
                    let distance = norm(a) + norm(b) - c + (shift(a) + shift(b));
                    if distance.is_infinite() {
                        return distance > 0.0; // a shift beyond the range of f64
                    }
                    let magnitude =
                        norm(a).abs() + norm(b).abs() + c.abs() + (shift(a).abs() + shift(b).abs());
                    distance.abs() > COINCIDENT_MEANS * magnitude
                })
            })
            .count())
    }

    /// `m_l(i)`.
    #[inline(always)]
    pub fn sum(&self, cluster: usize, i: usize) -> f64 {
        match &self.sums {
            ClusterSums::ClusterMajor(sums) => sums[cluster * self.n + i],
            ClusterSums::PointMajor(sums) => sums[i * self.k + cluster],
            ClusterSums::Features { sums, features, m } => dot(
                &features[i * m..(i + 1) * m],
                &sums[cluster * m..(cluster + 1) * m],
            ),
        }
    }

    /// `m_0(i), …, m_{k−1}(i)`: the kept row of point-major sums, or the sums written into
    /// `buffer` (length at least k). The same numbers as [`Partition::sum`].
    #[inline(always)]
    pub fn point_sums<'s>(&'s self, i: usize, buffer: &'s mut [f64]) -> &'s [f64] {
        let k = self.k;
        let buffer = &mut buffer[..k];
        if let ClusterSums::PointMajor(sums) = &self.sums {
            return &sums[i * k..(i + 1) * k];
        }
        for (l, sum) in buffer.iter_mut().enumerate() {
            *sum = self.sum(l, i);
        }
        buffer
    }

    /// Move point `i` to cluster `to` with the exact updates of SPEC:
    /// `Q_from ← Q_from − 2 w m_from(i) + w² G_ii`, `Q_to ← Q_to + 2 w m_to(i) + w² G_ii`,
    /// `s` and counts, and `M[from, :] −= w G[i, :]`, `M[to, :] += w G[i, :]`. O(n) dense.
    pub fn move_point<K: KernelAccess>(
        &mut self,
        kernel: &K,
        i: usize,
        to: usize,
        weight: f64,
        diagonal: f64,
    ) {
        let from = self.move_totals(i, to, weight, diagonal);
        self.move_sums(kernel, i, from, to, weight);
    }

    /// The sums' part of [`Partition::move_point`]: point `i` (weight `weight`) went from
    /// `from` to `to`.
    #[inline]
    pub fn move_sums<K: KernelAccess>(
        &mut self,
        kernel: &K,
        i: usize,
        from: usize,
        to: usize,
        weight: f64,
    ) {
        match &mut self.sums {
            ClusterSums::ClusterMajor(sums) => {
                let (leaving, joining) = two_rows_mut(sums, self.n, from, to);
                kernel.move_point(i, weight, leaving, joining);
            }
            ClusterSums::PointMajor(sums) => {
                kernel.move_point_point_major(i, weight, sums, self.k, from, to);
            }
            ClusterSums::Features { sums, features, m } => {
                let m = *m;
                let (leaving, joining) = two_rows_mut(sums, m, from, to);
                for ((l, j), f) in leaving
                    .iter_mut()
                    .zip(joining.iter_mut())
                    .zip(&features[i * m..(i + 1) * m])
                {
                    *l -= weight * f;
                    *j += weight * f;
                }
            }
        }
    }

    /// The part of [`Partition::move_point`] that is not the sums: `Q_from`, `Q_to`, `s`,
    /// the counts and the label of point `i`, moved to `to`. Returns the cluster it left.
    /// The sums must then receive the move ([`Partition::move_sums`], at once or through
    /// [`crate::cluster::pending_moves::MoveUpdates`]).
    pub fn move_totals(&mut self, i: usize, to: usize, weight: f64, diagonal: f64) -> usize {
        let from = self.labels[i];
        debug_assert_ne!(from, to);
        let self_term = weight * weight * diagonal;
        self.terms[from] += -2.0 * weight * self.sum(from, i) + self_term;
        self.terms[to] += 2.0 * weight * self.sum(to, i) + self_term;
        self.cluster_weights[from] -= weight;
        self.cluster_weights[to] += weight;
        self.counts[from] -= 1;
        self.counts[to] += 1;
        self.labels[i] = to;
        from
    }

    /// The cluster-major sums `M` (`m_l(i)` at `l * n + i`), if that is how they are kept.
    pub fn cluster_major_sums_mut(&mut self) -> Option<&mut [f64]> {
        match &mut self.sums {
            ClusterSums::ClusterMajor(sums) => Some(sums),
            _ => None,
        }
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
