//! Graphs built from points: exact k nearest neighbours, the kNN connectivity affinity
//! (union-symmetrised, as scikit-learn's `kneighbors_graph` followed by `max(A, Aᵀ)`), the
//! self-tuning affinity of Zelnik-Manor and Perona, and the normalised-cut kernel of an
//! affinity (`G = D⁻¹ A D⁻¹` with node weights `d`, the degrees), so that kernel k-groups
//! on `G` with weights `d` maximises the normalised association `Σ_j A(C_j, C_j) / d(C_j)`.

use crate::distance::{squared_distances_from, squared_distances_to_rows_dispatch};
use crate::error::{try_filled, KGroupsError, Result};
use crate::{Control, CsrKernel, DenseKernel, Points};
use rayon::prelude::*;

/// The neighbour whose distance is the self-tuning scale `σ_i` (Zelnik-Manor & Perona).
pub const SELF_TUNING_NEIGHBOUR: usize = 7;

/// Neighbours per point of the kNN affinity (scikit-learn's default).
pub const KNN_NEIGHBOURS: usize = 10;

/// The most points [`self_tuning_affinity`] accepts: it is a dense `n × n` matrix.
pub const SELF_TUNING_MAX_POINTS: usize = 20_000;

/// The `count` nearest neighbours of every point (the point itself excluded), by exact
/// Euclidean distance, nearest first, ties to the lower index: row-major `n × count`
/// indices and their squared distances. Brute force, `O(n² D)`, parallel over rows; the
/// result does not depend on the number of threads. Errors when `count` is 0 or `≥ n`.
///
/// ```
/// use kgroups::select::neighbors::nearest_neighbours;
/// use kgroups::{Control, Points};
/// let x = Points::new(&[0.0, 1.0, 3.0, 7.0], 4, 1)?;
/// let (idx, d2) = nearest_neighbours(&x, 2, &Control::new())?;
/// assert_eq!(&idx[..2], &[1, 2]); // from 0: 1 (distance 1), then 2 (distance 3)
/// assert_eq!(&idx[2..4], &[0, 2]); // from 1: 0 and 2 (distance 1 and 2)
/// assert_eq!(d2[0], 1.0);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn nearest_neighbours(
    x: &Points,
    count: usize,
    control: &Control,
) -> Result<(Vec<usize>, Vec<f64>)> {
    let n = x.n();
    if count == 0 || count >= n {
        return Err(KGroupsError::invalid(
            "n_neighbors",
            format!("the number of neighbours must be in 1..n = {n} (exclusive of n), got {count}"),
        ));
    }
    let len = n
        .checked_mul(count)
        .ok_or_else(|| KGroupsError::invalid("X", "n × n_neighbors overflows the address space"))?;
    let mut indices = try_filled(len, 0usize, "X", "the neighbour lists")?;
    let mut distances = try_filled(len, 0.0f64, "X", "the neighbour distances")?;
    indices
        .par_chunks_mut(count)
        .zip(distances.par_chunks_mut(count))
        .enumerate()
        .try_for_each_init(
            || (vec![0.0f64; n], Vec::<(f64, usize)>::with_capacity(n)),
            |(row, order), (i, (idx, dist))| -> Result<()> {
                control.checkpoint()?;
                squared_distances_from(x, i, row)?;
                order.clear();
                order.extend(
                    row.iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(j, &d)| (d, j)),
                );
                nearest_first(order, count);
                for (slot, &(d, j)) in order[..count].iter().enumerate() {
                    idx[slot] = j;
                    dist[slot] = d;
                }
                Ok(())
            },
        )?;
    Ok((indices, distances))
}

/// Puts the `count` smallest `(distance, index)` pairs of `order` first, in increasing order
/// (ties in distance to the lower index); `1 ≤ count ≤ order.len()`.
fn nearest_first(order: &mut [(f64, usize)], count: usize) {
    let by_distance_then_index =
        |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    order.select_nth_unstable_by(count - 1, by_distance_then_index);
    order[..count].sort_unstable_by(by_distance_then_index);
}

/// Each point's label by a vote of its `count` nearest points among the labelled ones:
/// `nodes` (distinct indices into `x`) carry `labels` (below `k`); every point gets the
/// label [`vote_of_nearest`] gives it against the nodes' points (itself included when it is
/// a node). Errors when `nodes` is empty or holds an index out of range, or as
/// [`vote_of_nearest`].
pub fn vote_labels(
    x: &Points,
    nodes: &[usize],
    labels: &[usize],
    k: usize,
    count: usize,
    control: &Control,
) -> Result<Vec<usize>> {
    let n = x.n();
    if nodes.is_empty() || nodes.len() != labels.len() || nodes.iter().any(|&node| node >= n) {
        return Err(KGroupsError::invalid(
            "nodes",
            format!("the vote needs labelled nodes below n = {n} (one label each)"),
        ));
    }
    let dim = x.dim();
    let mut rows = try_filled(nodes.len() * dim, 0.0f64, "X", "the labelled points")?;
    for (row, &node) in rows.chunks_exact_mut(dim).zip(nodes) {
        row.copy_from_slice(x.row(node));
    }
    let labelled = Points::new(&rows, nodes.len(), dim)?;
    vote_of_nearest(x, &labelled, labels, k, count, control)
}

/// The 10-nearest-neighbour vote (for `count` = 10) of new points among labelled ones: each
/// row of `queries` gets the label held by most of its `count` nearest rows of `labelled`
/// (all of them when there are fewer), `labels[j]` (below `k`) being row `j`'s; a tie in
/// votes goes to the label of the nearest labelled row among the tied labels, and a tie in
/// distance to the lower row. Exact Euclidean distances, brute force in `O(m n D)` for `m`
/// queries and `n` labelled rows, parallel over the queries; the result does not depend on
/// the number of threads. Errors when `count` is 0, when `labels` does not hold one label
/// below `k` per labelled row, or when the two sets of points differ in dimension.
///
/// ```
/// use kgroups::select::neighbors::vote_of_nearest;
/// use kgroups::{Control, Points};
/// let labelled = Points::new(&[0.0, 1.0, 2.0, 10.0], 4, 1)?;
/// let queries = Points::new(&[1.4, 9.0, 6.1], 3, 1)?;
/// // Three nearest: 1.4 -> 1, 2, 0 (labels 0, 1, 0); 9 -> 10, 2, 1 (1, 1, 0);
/// // 6.1 -> 2, 10, 1 (1, 1, 0).
/// let voted = vote_of_nearest(&queries, &labelled, &[0, 0, 1, 1], 2, 3, &Control::new())?;
/// assert_eq!(voted, vec![0, 1, 1]);
/// // Two nearest of 1.4: 1 and 2, one vote each: the nearest, 1, holds label 0.
/// let voted = vote_of_nearest(&queries, &labelled, &[0, 0, 1, 1], 2, 2, &Control::new())?;
/// assert_eq!(voted[0], 0);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn vote_of_nearest(
    queries: &Points,
    labelled: &Points,
    labels: &[usize],
    k: usize,
    count: usize,
    control: &Control,
) -> Result<Vec<usize>> {
    let n = labelled.n();
    if count == 0 {
        return Err(KGroupsError::invalid(
            "n_neighbors",
            "the vote needs at least one neighbour",
        ));
    }
    if labels.len() != n {
        return Err(KGroupsError::invalid(
            "labels",
            format!(
                "one label per labelled point: {} labels for {n} points",
                labels.len()
            ),
        ));
    }
    if let Some(&bad) = labels.iter().find(|&&l| l >= k) {
        return Err(KGroupsError::invalid(
            "labels",
            format!("a label is {bad}, not below k = {k}"),
        ));
    }
    if queries.dim() != labelled.dim() {
        return Err(KGroupsError::invalid(
            "X",
            format!(
                "the points have {} features, the labelled points {}",
                queries.dim(),
                labelled.dim()
            ),
        ));
    }
    let count = count.min(n);
    let mut voted = try_filled(queries.n(), 0usize, "X", "the labels")?;
    voted.par_iter_mut().enumerate().try_for_each_init(
        || {
            (
                vec![0.0f64; n],
                Vec::<(f64, usize)>::with_capacity(n),
                vec![0usize; k],
            )
        },
        |(row, order, votes), (i, out)| -> Result<()> {
            control.checkpoint()?;
            squared_distances_to_rows_dispatch(
                queries.row(i),
                labelled.data(),
                labelled.dim(),
                row,
            );
            order.clear();
            order.extend(row.iter().enumerate().map(|(j, &d)| (d, j)));
            nearest_first(order, count);
            votes.iter_mut().for_each(|v| *v = 0);
            for &(_, j) in &order[..count] {
                votes[labels[j]] += 1;
            }
            let most = votes.iter().copied().max().unwrap_or(0);
            // The nearest labelled point whose label has the most votes.
            *out = order[..count]
                .iter()
                .map(|&(_, j)| labels[j])
                .find(|&l| votes[l] == most)
                .unwrap_or(0);
            Ok(())
        },
    )?;
    Ok(voted)
}

/// A symmetric affinity in CSR form (sorted column indices, no duplicates).
#[derive(Debug, Clone, PartialEq)]
pub struct CsrAffinity {
    /// Row pointers, length `n + 1`.
    pub indptr: Vec<usize>,
    /// Column indices, sorted within each row.
    pub indices: Vec<usize>,
    /// The weights.
    pub data: Vec<f64>,
    /// The number of nodes.
    pub n: usize,
}

impl CsrAffinity {
    /// The normalised cut of the partition `labels` (`0..k`) of this affinity, as
    /// [`CsrGraphKernel::normalized_cut`].
    pub(crate) fn normalized_cut(&self, labels: &[usize], k: usize) -> f64 {
        normalized_cut(&self.indptr, &self.indices, &self.data, labels, k)
    }
}

/// `Σ_c cut(c, rest) / vol(c)` for the CSR affinity (`indptr`, `indices`, `weights`) and the
/// partition `labels` (`0..k`); a cluster of volume 0 adds nothing.
fn normalized_cut(
    indptr: &[usize],
    indices: &[usize],
    weights: &[f64],
    labels: &[usize],
    k: usize,
) -> f64 {
    let (mut volume, mut inside) = (vec![0.0; k], vec![0.0; k]);
    for (i, &c) in labels.iter().enumerate().take(indptr.len() - 1) {
        for p in indptr[i]..indptr[i + 1] {
            volume[c] += weights[p];
            if labels[indices[p]] == c {
                inside[c] += weights[p];
            }
        }
    }
    volume
        .iter()
        .zip(&inside)
        .filter(|(v, _)| **v > 0.0)
        .map(|(v, a)| (v - a) / v)
        .sum()
}

/// The kNN connectivity affinity: `A_ij = 1` when `j` is one of the `count` nearest
/// neighbours of `i` or `i` one of `j`'s (union symmetrisation), else 0; zero diagonal.
/// The same graph as `kgroups_rs.knn_kernel(X, count)` (scikit-learn) up to the order of
/// tied distances. Errors as [`nearest_neighbours`].
///
/// ```
/// use kgroups::select::neighbors::knn_affinity;
/// use kgroups::{Control, Points};
/// let x = Points::new(&[0.0, 1.0, 5.0], 3, 1)?;
/// let a = knn_affinity(&x, 1, &Control::new())?;
/// // 0 ↔ 1 (mutual), 2 → 1 (so 1 ↔ 2 by the union).
/// assert_eq!(a.indptr, vec![0, 1, 3, 4]);
/// assert_eq!(a.indices, vec![1, 0, 2, 1]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn knn_affinity(x: &Points, count: usize, control: &Control) -> Result<CsrAffinity> {
    let n = x.n();
    let (neighbours, _) = nearest_neighbours(x, count, control)?;
    // Reverse lists: i is in the reverse list of j when j is a neighbour of i.
    let mut reverse_count = try_filled(n + 1, 0usize, "X", "the kNN graph")?;
    for &j in &neighbours {
        reverse_count[j + 1] += 1;
    }
    for j in 0..n {
        reverse_count[j + 1] += reverse_count[j];
    }
    let mut reverse = try_filled(neighbours.len(), 0usize, "X", "the kNN graph")?;
    let mut fill = reverse_count.clone();
    for i in 0..n {
        for &j in &neighbours[i * count..(i + 1) * count] {
            reverse[fill[j]] = i;
            fill[j] += 1;
        }
    }
    let rows: Vec<Vec<usize>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let mut row: Vec<usize> = neighbours[i * count..(i + 1) * count].to_vec();
            row.extend_from_slice(&reverse[reverse_count[i]..reverse_count[i + 1]]);
            row.sort_unstable();
            row.dedup();
            row
        })
        .collect();
    let nnz: usize = rows.iter().map(Vec::len).sum();
    let mut indptr = Vec::with_capacity(n + 1);
    let mut indices = Vec::with_capacity(nnz);
    indptr.push(0);
    for row in rows {
        indices.extend_from_slice(&row);
        indptr.push(indices.len());
    }
    Ok(CsrAffinity {
        indptr,
        indices,
        data: vec![1.0; nnz],
        n,
    })
}

/// The self-tuning affinity (Zelnik-Manor & Perona 2004), dense row-major `n × n`:
/// `A_ab = exp(−‖x_a − x_b‖² / (σ_a σ_b))` with `σ_i` the distance from `x_i` to its
/// [`SELF_TUNING_NEIGHBOUR`]-th nearest neighbour (the `(n − 1)`-th for fewer points), and
/// `A_aa = 0`. A `σ_i` of 0 (duplicated points) is raised to 10⁻³ of the smallest positive
/// one (1 if there is none). Errors for fewer than 2 or more than
/// [`SELF_TUNING_MAX_POINTS`] points.
pub fn self_tuning_affinity(x: &Points, control: &Control) -> Result<Vec<f64>> {
    let n = x.n();
    if !(2..=SELF_TUNING_MAX_POINTS).contains(&n) {
        return Err(KGroupsError::invalid(
            "X",
            format!(
                "the self-tuning affinity needs 2 to {SELF_TUNING_MAX_POINTS} points (a dense n × n matrix), got {n}"
            ),
        ));
    }
    let nth = SELF_TUNING_NEIGHBOUR.min(n - 1);
    // Exactly symmetric squared distances, so that A is exactly symmetric too.
    let (mut a, nth_d2) = super::bandwidth::squared_distance_matrix(x, nth, control)?;
    let mut sigma: Vec<f64> = nth_d2.iter().map(|d| d.sqrt()).collect();
    let smallest = sigma
        .iter()
        .copied()
        .filter(|&s| s > 0.0)
        .fold(f64::INFINITY, f64::min);
    let floor = if smallest.is_finite() {
        smallest * 1e-3
    } else {
        1.0
    };
    for s in &mut sigma {
        *s = s.max(floor);
    }
    a.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        for (j, v) in row.iter_mut().enumerate() {
            *v = if j == i {
                0.0
            } else {
                (-*v / (sigma[i] * sigma[j])).exp()
            };
        }
    });
    control.checkpoint()?;
    Ok(a)
}

/// The degrees `d_i = Σ_j A_ij`, each raised to at least `1e-300` so that a node whose
/// weights all underflowed (self-tuning affinity of an outlier) still has a positive weight.
fn positive_degrees(row_sums: impl Iterator<Item = f64>) -> Vec<f64> {
    row_sums.map(|d| d.max(1e-300)).collect()
}

/// `a_ij / (d_i d_j)` from the inverse degrees, the same for `(i, j)` and `(j, i)` to the
/// bit. `a_ij · (1 / (d_i d_j))` where that factor is finite; where it overflows (two nodes
/// whose weights all underflowed, their degrees raised to `1e-300`) the affinity is divided
/// by one degree and then the other, the smaller inverse first: a finite value (`a_ij` is at
/// most either degree) instead of infinity, or NaN for `0 · ∞`.
fn normalised(a_ij: f64, inverse_i: f64, inverse_j: f64) -> f64 {
    let factor = inverse_i * inverse_j;
    if factor.is_finite() {
        a_ij * factor
    } else {
        a_ij * inverse_i.min(inverse_j) * inverse_i.max(inverse_j)
    }
}

/// A dense normalised-cut kernel `G = D⁻¹ A D⁻¹` and its node weights `d`.
#[derive(Debug, Clone)]
pub struct DenseGraphKernel {
    /// `G`, row-major `n × n`.
    pub g: Vec<f64>,
    /// The degrees of `A`, the node weights.
    pub degrees: Vec<f64>,
    /// The number of nodes.
    pub n: usize,
}

impl DenseGraphKernel {
    /// The normalised-cut kernel of the dense symmetric affinity `a` (`n × n`, consumed).
    pub fn from_affinity(mut a: Vec<f64>, n: usize) -> Result<Self> {
        if n.checked_mul(n) != Some(a.len()) || n == 0 {
            return Err(KGroupsError::invalid(
                "A",
                "expected a non-empty n × n affinity",
            ));
        }
        let degrees = positive_degrees(a.chunks(n).map(|row| row.iter().sum::<f64>()));
        let inverse: Vec<f64> = degrees.iter().map(|d| 1.0 / d).collect();
        a.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            for (v, &inv_j) in row.iter_mut().zip(&inverse) {
                *v = normalised(*v, inverse[i], inv_j);
            }
        });
        Ok(DenseGraphKernel { g: a, degrees, n })
    }

    /// The kernel view of `G` (symmetric by construction).
    pub fn kernel(&self) -> Result<DenseKernel<'_, f64>> {
        DenseKernel::trusting_symmetry(&self.g, self.n)
    }

    /// The kernel of the subgraph induced by `nodes`, renormalised by its own degrees.
    pub fn induced(&self, nodes: &[usize]) -> Result<Self> {
        let m = nodes.len();
        let mut a = try_filled(m * m, 0.0, "X", "a subgraph")?;
        for (r, &i) in nodes.iter().enumerate() {
            for (c, &j) in nodes.iter().enumerate() {
                // Back to the affinity: A_ij = G_ij d_i d_j.
                a[r * m + c] = self.g[i * self.n + j] * (self.degrees[i] * self.degrees[j]);
            }
        }
        for r in 0..m {
            for c in 0..r {
                let v = a[r * m + c];
                a[c * m + r] = v;
            }
        }
        DenseGraphKernel::from_affinity(a, m)
    }
}

/// A sparse normalised-cut kernel `G = D⁻¹ A D⁻¹` and its node weights `d`.
#[derive(Debug, Clone)]
pub struct CsrGraphKernel {
    /// `G` in CSR form (the affinity's structure).
    pub g: CsrAffinity,
    /// The affinity's values.
    pub affinity: Vec<f64>,
    /// The degrees of `A`, the node weights.
    pub degrees: Vec<f64>,
}

impl CsrGraphKernel {
    /// The normalised-cut kernel of the symmetric CSR affinity `a`: entries
    /// `a_ij · (1 / (d_i d_j))`, so a symmetric `A` gives a bitwise-symmetric `G` (as
    /// `graph_kernel(A, "normalized_cut")` in Python).
    pub fn from_affinity(a: CsrAffinity) -> Self {
        let CsrAffinity {
            indptr,
            indices,
            data: affinity,
            n,
        } = a;
        let degrees =
            positive_degrees((0..n).map(|i| affinity[indptr[i]..indptr[i + 1]].iter().sum()));
        let inverse: Vec<f64> = degrees.iter().map(|d| 1.0 / d).collect();
        let mut data = affinity.clone();
        for i in 0..n {
            for p in indptr[i]..indptr[i + 1] {
                data[p] = normalised(data[p], inverse[i], inverse[indices[p]]);
            }
        }
        CsrGraphKernel {
            g: CsrAffinity {
                indptr,
                indices,
                data,
                n,
            },
            affinity,
            degrees,
        }
    }

    /// The normalised cut of the partition `labels` (`0..k`) of the affinity:
    /// `Σ_c cut(c, rest) / vol(c)`, with `vol(c)` the degrees of c summed and `cut(c, rest)`
    /// the weight of the edges leaving c (a cluster of volume 0 adds nothing).
    ///
    /// ```
    /// use kgroups::select::neighbors::{CsrAffinity, CsrGraphKernel};
    /// // A path 0 – 1 – 2 – 3 of unit edges, cut in the middle.
    /// let a = CsrAffinity {
    ///     indptr: vec![0, 1, 3, 5, 6],
    ///     indices: vec![1, 0, 2, 1, 3, 2],
    ///     data: vec![1.0; 6],
    ///     n: 4,
    /// };
    /// let graph = CsrGraphKernel::from_affinity(a);
    /// // Each half has volume 3 and one edge leaving it.
    /// assert!((graph.normalized_cut(&[0, 0, 1, 1], 2) - 2.0 / 3.0).abs() < 1e-12);
    /// ```
    pub fn normalized_cut(&self, labels: &[usize], k: usize) -> f64 {
        normalized_cut(&self.g.indptr, &self.g.indices, &self.affinity, labels, k)
    }

    /// The kernel view of `G`.
    pub fn kernel(&self) -> Result<CsrKernel<'_, usize, f64>> {
        CsrKernel::new(&self.g.indptr, &self.g.indices, &self.g.data, self.g.n)
    }

    /// The kernel of the subgraph induced by `nodes` (sorted, distinct), renormalised by its
    /// own degrees.
    pub fn induced(&self, nodes: &[usize]) -> Self {
        let mut position = vec![usize::MAX; self.g.n];
        for (r, &i) in nodes.iter().enumerate() {
            position[i] = r;
        }
        let mut indptr = Vec::with_capacity(nodes.len() + 1);
        let mut indices = Vec::new();
        let mut data = Vec::new();
        indptr.push(0);
        for &i in nodes {
            for p in self.g.indptr[i]..self.g.indptr[i + 1] {
                let j = self.g.indices[p];
                if position[j] != usize::MAX {
                    indices.push(position[j]);
                    data.push(self.affinity[p]);
                }
            }
            indptr.push(indices.len());
        }
        CsrGraphKernel::from_affinity(CsrAffinity {
            indptr,
            indices,
            data,
            n: nodes.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vote against a direct transcription: for each point, sort the labelled nodes by
    /// (distance, index), count the labels of the first `count`, and take the most frequent,
    /// the nearest such on a tie.
    #[test]
    fn vote_labels_is_the_majority_of_the_nearest_nodes() {
        let mut rng = crate::rng::Rng::new(4);
        let n = 60;
        let coords: Vec<f64> = (0..2 * n).map(|_| (rng.next_f64() * 8.0).round()).collect();
        let x = Points::new(&coords, n, 2).unwrap();
        let nodes: Vec<usize> = (0..n).step_by(3).collect();
        let k = 3;
        let labels: Vec<usize> = nodes.iter().map(|&a| (a * 7 + a / 5) % k).collect();
        for count in [1, 4, 5, 10] {
            let voted = vote_labels(&x, &nodes, &labels, k, count, &Control::new()).unwrap();
            for i in 0..n {
                let d2 = |a: usize| {
                    (coords[2 * i] - coords[2 * a]).powi(2)
                        + (coords[2 * i + 1] - coords[2 * a + 1]).powi(2)
                };
                let mut order: Vec<usize> = (0..nodes.len()).collect();
                order.sort_by(|&p, &q| d2(nodes[p]).total_cmp(&d2(nodes[q])).then(p.cmp(&q)));
                let near = &order[..count];
                let votes = |l: usize| near.iter().filter(|&&j| labels[j] == l).count();
                let most = (0..k).map(votes).max().unwrap();
                let expected = near
                    .iter()
                    .map(|&j| labels[j])
                    .find(|&l| votes(l) == most)
                    .unwrap();
                assert_eq!(voted[i], expected, "point {i}, count {count}");
            }
        }
        let bad = vote_labels(&x, &nodes, &vec![k; nodes.len()], k, 3, &Control::new());
        assert!(bad.is_err());
        assert!(vote_labels(&x, &[], &[], k, 3, &Control::new()).is_err());
        assert!(vote_labels(&x, &[0, n], &[0, 0], k, 3, &Control::new()).is_err());
    }

    /// The vote of new points against a direct transcription, on coordinates rounded to a
    /// grid (many ties in distance and in votes), for counts below, at and above the number
    /// of labelled points; and its errors.
    #[test]
    fn vote_of_nearest_is_the_majority_of_the_nearest_labelled_points() {
        let mut rng = crate::rng::Rng::new(9);
        let (m, n, k) = (40, 12, 3);
        let grid = |rng: &mut crate::rng::Rng, len: usize| -> Vec<f64> {
            (0..len).map(|_| (rng.next_f64() * 5.0).round()).collect()
        };
        let (q, p) = (grid(&mut rng, 2 * m), grid(&mut rng, 2 * n));
        let queries = Points::new(&q, m, 2).unwrap();
        let labelled = Points::new(&p, n, 2).unwrap();
        let labels: Vec<usize> = (0..n).map(|j| (j * 5 + j / 4) % k).collect();
        for count in [1, 2, 5, 10, 12, 30] {
            let voted =
                vote_of_nearest(&queries, &labelled, &labels, k, count, &Control::new()).unwrap();
            for i in 0..m {
                let d2 = |j: usize| {
                    (q[2 * i] - p[2 * j]).powi(2) + (q[2 * i + 1] - p[2 * j + 1]).powi(2)
                };
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by(|&a, &b| d2(a).total_cmp(&d2(b)).then(a.cmp(&b)));
                let near = &order[..count.min(n)];
                let votes = |l: usize| near.iter().filter(|&&j| labels[j] == l).count();
                let most = (0..k).map(votes).max().unwrap();
                let expected = near.iter().map(|&j| labels[j]).find(|&l| votes(l) == most);
                assert_eq!(Some(voted[i]), expected, "query {i}, count {count}");
            }
        }
        let c = Control::new();
        assert!(vote_of_nearest(&queries, &labelled, &labels, k, 0, &c).is_err());
        assert!(vote_of_nearest(&queries, &labelled, &labels[1..], k, 3, &c).is_err());
        assert!(vote_of_nearest(&queries, &labelled, &vec![k; n], k, 3, &c).is_err());
        let flat = Points::new(&p[..n], n, 1).unwrap();
        assert!(vote_of_nearest(&queries, &flat, &labels, k, 3, &c).is_err());
    }

    /// The affinity against its formula computed directly, pair by pair, on a tiny input
    /// with a duplicated point: exactly symmetric, a zero diagonal, and every entry
    /// `exp(−‖x_a − x_b‖² / (σ_a σ_b))`.
    #[test]
    fn self_tuning_affinity_is_its_formula() {
        let coords = [
            0.0, 0.0, 1.0, 0.5, 3.0, -1.0, 0.2, 2.0, 5.0, 5.0, 4.0, 4.5, 0.0, 0.0, -2.0, 1.0, 2.5,
            2.5, 6.0, 0.0, -1.0, -1.0,
        ];
        let n = coords.len() / 2;
        let x = Points::new(&coords, n, 2).unwrap();
        let a = self_tuning_affinity(&x, &Control::new()).unwrap();
        let d2 = |i: usize, j: usize| {
            (coords[2 * i] - coords[2 * j]).powi(2)
                + (coords[2 * i + 1] - coords[2 * j + 1]).powi(2)
        };
        let nth = SELF_TUNING_NEIGHBOUR.min(n - 1);
        let mut sigma: Vec<f64> = (0..n)
            .map(|i| {
                let mut others: Vec<f64> = (0..n).filter(|&j| j != i).map(|j| d2(i, j)).collect();
                others.sort_by(f64::total_cmp);
                others[nth - 1].sqrt()
            })
            .collect();
        let floor = sigma
            .iter()
            .copied()
            .filter(|&s| s > 0.0)
            .fold(f64::INFINITY, f64::min)
            * 1e-3;
        sigma.iter_mut().for_each(|s| *s = s.max(floor));
        for i in 0..n {
            for j in 0..n {
                assert_eq!(a[i * n + j].to_bits(), a[j * n + i].to_bits(), "({i}, {j})");
                let direct = if i == j {
                    0.0
                } else {
                    (-d2(i, j) / (sigma[i] * sigma[j])).exp()
                };
                assert!(
                    (a[i * n + j] - direct).abs() <= 1e-14,
                    "({i}, {j}): {} vs {direct}",
                    a[i * n + j]
                );
            }
        }
    }
}
