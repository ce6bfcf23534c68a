//! Energy statistics of a partition (specification, "Energy statistics"), with point weights.
//!
//! With cluster weights s_j = Σ_{i∈C_j} w_i and s = Σ_j s_j:
//!
//! - g(A,B) = (1/(s_A s_B)) Σ_{a∈A} Σ_{b∈B} w_a w_b ρ(x_a,x_b);
//! - within dispersion W = Σ_j (s_j/2)·g(C_j,C_j);
//! - between statistic S = Σ_{i<j} (s_i s_j/(2s))·[2g(C_i,C_j) − g(C_i,C_i) − g(C_j,C_j)];
//! - total = (s/2)·g(X,X) = W + S.
//!
//! All sums are accumulated in a fixed order (rows in index order, each row sequentially), so
//! results are bit for bit independent of the number of threads.

use rayon::prelude::*;

use crate::error::{KGroupsError, Result};
use crate::gram::{
    check_square, squared_distances_to_transposed, transpose_rows, validate_semimetric_matrix,
    Points, Semimetric,
};

/// Rows evaluated in parallel between two sequential combination steps.
const ROW_GROUP: usize = 1024;

/// Where pairwise semimetric values ρ(x_a, x_b) come from.
///
/// ```
/// use kgroups::gram::{Points, Semimetric};
/// use kgroups::stats::PairwiseSource;
/// let x = Points::new(&[0.0, 1.0, 3.0], 3, 1).unwrap();
/// let src = PairwiseSource::Data { points: x, semimetric: Semimetric::Power { alpha: 1.0 } };
/// assert_eq!(src.n(), 3);
/// assert!(src.validate().is_ok());
/// ```
#[derive(Clone, Copy, Debug)]
pub enum PairwiseSource<'a> {
    /// ρ computed on the fly from the data (O(n·D) extra memory).
    Data {
        /// The data points.
        points: Points<'a>,
        /// The semimetric.
        semimetric: Semimetric,
    },
    /// A precomputed row-major n×n semimetric matrix R (validated as in
    /// [`crate::gram::gram_from_semimetric`]; its upper triangle is used). Errors name `"R"`.
    Semimetric {
        /// The matrix, `n * n` values.
        r: &'a [f64],
        /// Number of points.
        n: usize,
    },
    /// A row-major n×n Gram matrix G: ρ(a,b) = G_aa + G_bb − 2G_ab (must be finite and
    /// symmetric by the rule of [`crate::symmetry`]; its upper
    /// triangle is used). Errors name `"G"`.
    GramF64 {
        /// The matrix, `n * n` values.
        g: &'a [f64],
        /// Number of points.
        n: usize,
    },
}

impl PairwiseSource<'_> {
    /// Number of points.
    ///
    /// ```
    /// use kgroups::stats::PairwiseSource;
    /// let r = [0.0, 1.0, 1.0, 0.0];
    /// assert_eq!(PairwiseSource::Semimetric { r: &r, n: 2 }.n(), 2);
    /// ```
    pub fn n(&self) -> usize {
        match *self {
            PairwiseSource::Data { points, .. } => points.n(),
            PairwiseSource::Semimetric { n, .. } | PairwiseSource::GramF64 { n, .. } => n,
        }
    }

    /// Checks the source: the semimetric's parameter; R square, finite, symmetric, ≥ 0 with zero
    /// diagonal; G square, finite and symmetric.
    ///
    /// ```
    /// use kgroups::stats::PairwiseSource;
    /// let g = [2.0, 1.0, 0.0, 2.0]; // not symmetric
    /// assert!(PairwiseSource::GramF64 { g: &g, n: 2 }.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        match *self {
            PairwiseSource::Data { semimetric, .. } => semimetric.validate(),
            PairwiseSource::Semimetric { r, n } => validate_semimetric_matrix(r, n, "R"),
            PairwiseSource::GramF64 { g, n } => {
                check_square(g.len(), n, "G")?;
                crate::symmetry::check_dense(g, n, "G")
            }
        }
    }
}

/// Evaluates ρ(a, b) for b = a+1..n (upper triangle of row a) into `buf[..n-a-1]`.
struct RowEvaluator<'a> {
    source: PairwiseSource<'a>,
    /// For `Data`: all points transposed (dim × n); for `GramF64`: the diagonal of G.
    aux: Vec<f64>,
}

impl<'a> RowEvaluator<'a> {
    fn new(source: PairwiseSource<'a>) -> Self {
        let aux = match source {
            PairwiseSource::Data { points, .. } => transpose_rows(&points, 0..points.n()),
            PairwiseSource::Semimetric { .. } => Vec::new(),
            PairwiseSource::GramF64 { g, n } => (0..n).map(|b| g[b * n + b]).collect(),
        };
        RowEvaluator { source, aux }
    }

    fn upper_row(&self, a: usize, out: &mut [f64]) {
        match self.source {
            PairwiseSource::Data { points, semimetric } => {
                let n = points.n();
                squared_distances_to_transposed(points.row(a), &self.aux, n, a + 1, out);
                semimetric.apply_to_squared_distances(out);
            }
            PairwiseSource::Semimetric { r, n } => {
                out.copy_from_slice(&r[a * n + a + 1..a * n + n]);
            }
            PairwiseSource::GramF64 { g, n } => {
                let gaa = self.aux[a];
                let row = &g[a * n + a + 1..a * n + n];
                for ((o, &gbb), &gab) in out.iter_mut().zip(&self.aux[a + 1..]).zip(row) {
                    *o = (gaa + gbb) - 2.0 * gab;
                }
            }
        }
    }
}

/// Validates `k`, `labels` and `weights` for `n` points; returns the weights (ones if `None`)
/// and the cluster weights s_j.
fn validate_partition(
    n: usize,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
) -> Result<(Vec<f64>, Vec<f64>)> {
    if k == 0 {
        return Err(KGroupsError::invalid(
            "k",
            "k = 0 is not allowed; the number of clusters must be >= 1",
        ));
    }
    if labels.len() != n {
        return Err(KGroupsError::invalid(
            "labels",
            format!(
                "labels has length {} but the data have n = {n} points; give one label per point",
                labels.len()
            ),
        ));
    }
    if let Some((i, &l)) = labels.iter().enumerate().find(|(_, &l)| l >= k) {
        return Err(KGroupsError::invalid(
            "labels",
            format!(
                "labels[{i}] = {l} but k = {k}; labels must be in 0..k (0 to {})",
                k - 1
            ),
        ));
    }
    let w: Vec<f64> = match weights {
        None => vec![1.0; n],
        Some(w) => {
            if w.len() != n {
                return Err(KGroupsError::invalid(
                    "weights",
                    format!(
                        "weights has length {} but the data have n = {n} points; give one weight per point",
                        w.len()
                    ),
                ));
            }
            if let Some((i, &v)) = w
                .iter()
                .enumerate()
                .find(|(_, &v)| !(v.is_finite() && v > 0.0))
            {
                return Err(KGroupsError::invalid(
                    "weights",
                    format!("weights[{i}] = {v}; every weight must be finite and > 0"),
                ));
            }
            w.to_vec()
        }
    };
    let mut s = vec![0.0; k];
    let mut count = vec![0usize; k];
    for (&l, &wi) in labels.iter().zip(&w) {
        s[l] += wi;
        count[l] += 1;
    }
    if let Some(j) = count.iter().position(|&c| c == 0) {
        return Err(KGroupsError::invalid(
            "labels",
            format!(
                "cluster {j} is empty (no label equals {j}); every cluster 0..k-1 needs at least one point for its energy statistics to be defined"
            ),
        ));
    }
    if let Some(j) = s.iter().position(|v| !v.is_finite()) {
        return Err(KGroupsError::invalid(
            "weights",
            format!("the weights of cluster {j} add up to infinity; rescale the weights"),
        ));
    }
    Ok((w, s))
}

/// The k×k matrix (row-major) of sums `T[i][j]` = Σ_{a∈C_i} Σ_{b∈C_j} w_a w_b ρ(x_a, x_b), and the
/// cluster weights s_j = Σ_{a∈C_j} w_a.
///
/// Each pair is evaluated once (ρ(a,a) = 0); rows are processed in parallel and their
/// contributions combined in index order, so the result is exactly symmetric and independent of
/// the number of threads. `weights = None` means unit weights.
///
/// Errors: `k = 0`; `labels` not of length n, a label ≥ k, or an empty cluster; `weights` not of
/// length n or not finite and > 0; an invalid source (see [`PairwiseSource::validate`]).
///
/// ```
/// use kgroups::gram::{Points, Semimetric};
/// use kgroups::stats::{cluster_pair_sums, PairwiseSource};
/// let x = Points::new(&[0.0, 1.0, 3.0], 3, 1).unwrap();
/// let src = PairwiseSource::Data { points: x, semimetric: Semimetric::Power { alpha: 1.0 } };
/// let (t, s) = cluster_pair_sums(&src, &[0, 0, 1], 2, None).unwrap();
/// assert_eq!(t, vec![2.0, 5.0, 5.0, 0.0]);
/// assert_eq!(s, vec![2.0, 1.0]);
/// ```
pub fn cluster_pair_sums(
    source: &PairwiseSource,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let n = source.n();
    // The shape of the source and the O(n) checks first, then the (possibly O(n²)) validation.
    match *source {
        PairwiseSource::Data { .. } => {}
        PairwiseSource::Semimetric { r, n } => check_square(r.len(), n, "R")?,
        PairwiseSource::GramF64 { g, n } => check_square(g.len(), n, "G")?,
    }
    let (w, s) = validate_partition(n, labels, k, weights)?;
    source.validate()?;
    let eval = RowEvaluator::new(*source);
    // u[i*k + j] = Σ_{a∈C_i} Σ_{b∈C_j, b>a} w_a w_b ρ_ab
    let mut u = vec![0.0; k * k];
    let mut accs = vec![0.0; ROW_GROUP.min(n) * k];
    let mut start = 0;
    while start < n {
        let end = (start + ROW_GROUP).min(n);
        let group = &mut accs[..(end - start) * k];
        group.par_chunks_mut(k).zip(start..end).for_each_init(
            || vec![0.0; n],
            |buf, (acc, a)| {
                let row = &mut buf[..n - a - 1];
                eval.upper_row(a, row);
                acc.fill(0.0);
                for ((&rho, &lb), &wb) in row.iter().zip(&labels[a + 1..]).zip(&w[a + 1..]) {
                    acc[lb] += wb * rho;
                }
            },
        );
        for (acc, a) in group.chunks_exact(k).zip(start..end) {
            let (ca, wa) = (labels[a], w[a]);
            for (t, &v) in u[ca * k..(ca + 1) * k].iter_mut().zip(acc) {
                *t += wa * v;
            }
        }
        start = end;
    }
    let mut t = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..k {
            t[i * k + j] = u[i * k + j] + u[j * k + i];
        }
    }
    if t.iter().any(|v| !v.is_finite()) {
        let arg = match source {
            PairwiseSource::Data { .. } => "X",
            PairwiseSource::Semimetric { .. } => "R",
            PairwiseSource::GramF64 { .. } => "G",
        };
        return Err(KGroupsError::invalid(
            arg,
            format!(
                "the weighted sums of semimetric values overflow f64; rescale {arg} or the weights"
            ),
        ));
    }
    Ok((t, s))
}

/// The energy statistics of a partition (see the module documentation).
///
/// ```
/// use kgroups::stats::EnergyStatistics;
/// fn show(e: &EnergyStatistics) -> String { format!("W = {}, S = {}", e.within, e.between) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct EnergyStatistics {
    /// Within dispersion W = Σ_j (s_j/2)·g(C_j,C_j).
    pub within: f64,
    /// Between statistic S = Σ_{i<j} (s_i s_j/(2s))·[2g(C_i,C_j) − g(C_i,C_i) − g(C_j,C_j)].
    pub between: f64,
    /// total = (s/2)·g(X,X) (= W + S up to rounding).
    pub total: f64,
    /// The cluster weights s_j (cluster sizes for unit weights).
    pub cluster_weights: Vec<f64>,
    /// The k×k matrix g(C_i, C_j), row-major.
    pub g: Vec<f64>,
}

/// W, S, total and g for a partition given by `labels` (values in 0..k) with optional point
/// weights. Errors as [`cluster_pair_sums`].
///
/// ```
/// use kgroups::gram::{Points, Semimetric};
/// use kgroups::stats::{energy_statistics, PairwiseSource};
/// let x = Points::new(&[0.0, 1.0, 3.0], 3, 1).unwrap();
/// let src = PairwiseSource::Data { points: x, semimetric: Semimetric::Power { alpha: 1.0 } };
/// let e = energy_statistics(&src, &[0, 0, 1], 2, None).unwrap();
/// assert_eq!(e.within, 0.5); // (2/2)·g(C_0,C_0) = 2/4
/// assert!((e.within + e.between - e.total).abs() < 1e-12);
/// ```
pub fn energy_statistics(
    source: &PairwiseSource,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
) -> Result<EnergyStatistics> {
    let (t, s) = cluster_pair_sums(source, labels, k, weights)?;
    let s_all: f64 = s.iter().sum();
    let mut g = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..k {
            g[i * k + j] = t[i * k + j] / (s[i] * s[j]);
        }
    }
    let within: f64 = (0..k).map(|j| 0.5 * s[j] * g[j * k + j]).sum();
    let mut between = 0.0;
    for i in 0..k {
        for j in i + 1..k {
            between +=
                s[i] * s[j] / (2.0 * s_all) * (2.0 * g[i * k + j] - g[i * k + i] - g[j * k + j]);
        }
    }
    let total = t.iter().sum::<f64>() / (2.0 * s_all);
    Ok(EnergyStatistics {
        within,
        between,
        total,
        cluster_weights: s,
        g,
    })
}

/// Σ over rows a of x of Σ_b ρ(x_a, y_b), with b over all of y (`upper = false`) or, when y is
/// x itself, over b > a (`upper = true`). Row sums are combined in row order.
fn rho_sum(x: &Points, y: &Points, semimetric: Semimetric, upper: bool) -> f64 {
    let ny = y.n();
    let yt = transpose_rows(y, 0..ny);
    let rows: Vec<f64> = (0..x.n())
        .into_par_iter()
        .map_init(
            || vec![0.0; ny],
            |buf, a| {
                let start = if upper { a + 1 } else { 0 };
                let out = &mut buf[..ny - start];
                squared_distances_to_transposed(x.row(a), &yt, ny, start, out);
                semimetric.apply_to_squared_distances(out);
                out.iter().sum::<f64>()
            },
        )
        .collect();
    rows.iter().sum()
}

/// Two-sample energy distance E(A,B) = 2·mean ρ(a,b) − mean ρ(a,a') − mean ρ(b,b') (unit
/// weights; means over all ordered pairs, a = a' included). Mathematically ≥ 0; a result that
/// rounding makes negative is returned as 0.
///
/// Errors: an invalid semimetric parameter; `b` with a different number of columns than `a`
/// (argument `"Y"`).
///
/// ```
/// use kgroups::gram::{Points, Semimetric};
/// use kgroups::stats::energy_distance;
/// let a = Points::new(&[0.0], 1, 1).unwrap();
/// let b = Points::new(&[2.0], 1, 1).unwrap();
/// let e = energy_distance(&a, &b, Semimetric::Power { alpha: 1.0 }).unwrap();
/// assert_eq!(e, 4.0); // 2·2 − 0 − 0
/// ```
pub fn energy_distance(a: &Points, b: &Points, semimetric: Semimetric) -> Result<f64> {
    semimetric.validate()?;
    if a.dim() != b.dim() {
        return Err(KGroupsError::invalid(
            "Y",
            format!(
                "X has D={} columns but Y has D={}; both samples need the same number of columns",
                a.dim(),
                b.dim()
            ),
        ));
    }
    let (na, nb) = (a.n() as f64, b.n() as f64);
    let cross = rho_sum(a, b, semimetric, false) / (na * nb);
    let within_a = 2.0 * rho_sum(a, a, semimetric, true) / (na * na);
    let within_b = 2.0 * rho_sum(b, b, semimetric, true) / (nb * nb);
    let e = 2.0 * cross - within_a - within_b;
    if !e.is_finite() {
        return Err(KGroupsError::invalid(
            "X",
            "the semimetric values overflow f64; rescale X and Y",
        ));
    }
    Ok(if e > 0.0 { e } else { 0.0 })
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // the naive reference loops index on purpose
mod tests {
    use super::*;
    use crate::gram::tests::{assert_invalid, in_pool, naive_r, TestRng};
    use crate::gram::{energy_gram, Base};
    use proptest::prelude::*;

    fn labels_for(n: usize, k: usize, rng: &mut TestRng) -> Vec<usize> {
        (0..n)
            .map(|i| {
                if i < k {
                    i
                } else {
                    (rng.next_f64() * k as f64) as usize % k
                }
            })
            .collect()
    }

    fn naive_pair_sums(r: &[f64], n: usize, labels: &[usize], k: usize, w: &[f64]) -> Vec<f64> {
        let mut t = vec![0.0; k * k];
        for a in 0..n {
            for b in 0..n {
                t[labels[a] * k + labels[b]] += w[a] * w[b] * r[a * n + b];
            }
        }
        t
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
    }

    #[test]
    fn pair_sums_match_naive() {
        let (n, dim, k) = (90, 3, 4);
        let mut rng = TestRng(100);
        let data = rng.data(n, dim, 1.0, 2.0);
        let labels = labels_for(n, k, &mut rng);
        let w: Vec<f64> = (0..n).map(|_| 0.1 + 3.0 * rng.next_f64()).collect();
        let x = Points::new(&data, n, dim).unwrap();
        for sm in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Power { alpha: 1.5 },
            Semimetric::Gaussian { sigma: 0.7 },
        ] {
            let r = naive_r(sm, &data, n, dim);
            let want = naive_pair_sums(&r, n, &labels, k, &w);
            let (t, s) = cluster_pair_sums(
                &PairwiseSource::Data {
                    points: x,
                    semimetric: sm,
                },
                &labels,
                k,
                Some(&w),
            )
            .unwrap();
            for i in 0..k * k {
                assert!(
                    close(t[i], want[i], 1e-12),
                    "{sm:?} T[{i}]: {} vs {}",
                    t[i],
                    want[i]
                );
            }
            for i in 0..k {
                for j in 0..k {
                    assert_eq!(t[i * k + j], t[j * k + i]);
                }
                let sj: f64 = (0..n).filter(|&a| labels[a] == i).map(|a| w[a]).sum();
                assert!(close(s[i], sj, 1e-14));
            }
            // unit weights by default
            let ones = vec![1.0; n];
            let (t1, s1) =
                cluster_pair_sums(&PairwiseSource::Semimetric { r: &r, n }, &labels, k, None)
                    .unwrap();
            let want1 = naive_pair_sums(&r, n, &labels, k, &ones);
            for i in 0..k * k {
                assert!(close(t1[i], want1[i], 1e-12));
            }
            assert_eq!(s1.iter().sum::<f64>(), n as f64);
        }
    }

    fn all_sources_agree(
        data: &[f64],
        n: usize,
        dim: usize,
        sm: Semimetric,
        labels: &[usize],
        k: usize,
        w: Option<&[f64]>,
    ) -> EnergyStatistics {
        let x = Points::new(data, n, dim).unwrap();
        let e_data = energy_statistics(
            &PairwiseSource::Data {
                points: x,
                semimetric: sm,
            },
            labels,
            k,
            w,
        )
        .unwrap();
        let r = naive_r(sm, data, n, dim);
        let e_r =
            energy_statistics(&PairwiseSource::Semimetric { r: &r, n }, labels, k, w).unwrap();
        let rmax = r.iter().fold(0.0f64, |m, v| m.max(*v));
        for base in [Base::Origin, Base::Centered] {
            let g: Vec<f64> = energy_gram(&x, sm, base).unwrap();
            let e_g =
                energy_statistics(&PairwiseSource::GramF64 { g: &g, n }, labels, k, w).unwrap();
            // ρ recovered from G carries absolute error ~ eps·|G|
            let gmax = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let abs = 1e-12 * (gmax + rmax) * e_data.cluster_weights.iter().sum::<f64>();
            for (a, b) in [
                (e_g.within, e_data.within),
                (e_g.between, e_data.between),
                (e_g.total, e_data.total),
            ] {
                assert!((a - b).abs() <= abs, "{base:?}: {a} vs {b}");
            }
        }
        for (a, b) in [
            (e_r.within, e_data.within),
            (e_r.between, e_data.between),
            (e_r.total, e_data.total),
        ] {
            assert!(close(a, b, 1e-12), "R vs data: {a} vs {b}");
        }
        for (a, b) in e_r.g.iter().zip(&e_data.g) {
            assert!(close(*a, *b, 1e-12));
        }
        assert_eq!(e_r.cluster_weights, e_data.cluster_weights);
        e_data
    }

    #[test]
    fn statistics_identities_weighted() {
        let (n, dim, k) = (150, 4, 3);
        let mut rng = TestRng(101);
        let data = rng.data(n, dim, 1.0, 10.0);
        let labels = labels_for(n, k, &mut rng);
        let w: Vec<f64> = (0..n).map(|_| 0.2 + 2.0 * rng.next_f64()).collect();
        for sm in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Exponential { sigma: 2.0 },
        ] {
            let e = all_sources_agree(&data, n, dim, sm, &labels, k, Some(&w));
            assert!(close(e.within + e.between, e.total, 1e-12), "{e:?}");
            assert!(e.within > 0.0 && e.between > 0.0);
            // W = Σ_i w_i G_ii − Σ_j Q_j/s_j from the Origin Gram matrix
            let x = Points::new(&data, n, dim).unwrap();
            let g: Vec<f64> = energy_gram(&x, sm, Base::Origin).unwrap();
            let diag: f64 = (0..n).map(|i| w[i] * g[i * n + i]).sum();
            let mut q = vec![0.0; k];
            for a in 0..n {
                for b in 0..n {
                    if labels[a] == labels[b] {
                        q[labels[a]] += w[a] * w[b] * g[a * n + b];
                    }
                }
            }
            let w_from_g = diag - (0..k).map(|j| q[j] / e.cluster_weights[j]).sum::<f64>();
            assert!(
                (w_from_g - e.within).abs() <= 1e-10 * diag,
                "{w_from_g} vs {}",
                e.within
            );
            // g by definition
            let r = naive_r(sm, &data, n, dim);
            let s = &e.cluster_weights;
            for i in 0..k {
                for j in 0..k {
                    let mut sum = 0.0;
                    for a in (0..n).filter(|&a| labels[a] == i) {
                        for b in (0..n).filter(|&b| labels[b] == j) {
                            sum += w[a] * w[b] * r[a * n + b];
                        }
                    }
                    assert!(close(e.g[i * k + j], sum / (s[i] * s[j]), 1e-12));
                }
            }
        }
    }

    #[test]
    fn one_cluster_has_no_between() {
        let data = [0.0, 1.0, 5.0];
        let x = Points::new(&data, 3, 1).unwrap();
        let e = energy_statistics(
            &PairwiseSource::Data {
                points: x,
                semimetric: Semimetric::Power { alpha: 1.0 },
            },
            &[0, 0, 0],
            1,
            None,
        )
        .unwrap();
        assert_eq!(e.between, 0.0);
        // Σ_ab |x_a − x_b| = 2·(1 + 5 + 4) = 20; g = 20/9; W = (3/2)·20/9
        assert!(close(e.within, 1.5 * 20.0 / 9.0, 1e-15));
        assert_eq!(e.within, e.total);
    }

    #[test]
    fn energy_distance_matches_direct_loop() {
        let mut rng = TestRng(102);
        let (na, nb, dim) = (70, 45, 3);
        let a = rng.data(na, dim, 1.0, 0.0);
        let b = rng.data(nb, dim, 1.5, 0.3);
        let (pa, pb) = (
            Points::new(&a, na, dim).unwrap(),
            Points::new(&b, nb, dim).unwrap(),
        );
        for sm in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Power { alpha: 0.5 },
            Semimetric::Gaussian { sigma: 1.0 },
        ] {
            let mut ab = vec![0.0; (na + nb) * dim];
            ab[..na * dim].copy_from_slice(&a);
            ab[na * dim..].copy_from_slice(&b);
            let r = naive_r(sm, &ab, na + nb, dim);
            let n = na + nb;
            let mean = |rows: std::ops::Range<usize>, cols: std::ops::Range<usize>| {
                let mut s = 0.0;
                for i in rows.clone() {
                    for j in cols.clone() {
                        s += r[i * n + j];
                    }
                }
                s / (rows.len() * cols.len()) as f64
            };
            let want = 2.0 * mean(0..na, na..n) - mean(0..na, 0..na) - mean(na..n, na..n);
            let got = energy_distance(&pa, &pb, sm).unwrap();
            assert!(close(got, want, 1e-12), "{sm:?}: {got} vs {want}");
            assert!(got > 0.0);
            // E(A,B) = 2s/(s_A s_B)·S for the two-cluster partition of A ∪ B
            let labels: Vec<usize> = (0..n).map(|i| usize::from(i >= na)).collect();
            let e = energy_statistics(&PairwiseSource::Semimetric { r: &r, n }, &labels, 2, None)
                .unwrap();
            assert!(close(
                got,
                e.between * 2.0 * n as f64 / (na * nb) as f64,
                1e-12
            ));
            let self_distance = energy_distance(&pa, &pa, sm).unwrap();
            assert!(
                (0.0..=1e-14 * want).contains(&self_distance),
                "{self_distance}"
            );
        }
    }

    #[test]
    fn argument_errors() {
        let data = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let x = Points::new(&data, 6, 1).unwrap();
        let sm = Semimetric::Power { alpha: 1.0 };
        let src = PairwiseSource::Data {
            points: x,
            semimetric: sm,
        };
        let labels = [0, 0, 1, 1, 2, 2];
        assert!(energy_statistics(&src, &labels, 3, None).is_ok());
        assert_invalid(energy_statistics(&src, &labels, 0, None), "k", "k = 0");
        assert_invalid(
            energy_statistics(&src, &labels[..5], 3, None),
            "labels",
            "labels has length 5 but the data have n = 6 points",
        );
        assert_invalid(
            energy_statistics(&src, &[0, 0, 1, 1, 2, 3], 3, None),
            "labels",
            "labels[5] = 3 but k = 3",
        );
        assert_invalid(
            energy_statistics(&src, &[0, 0, 2, 2, 2, 2], 3, None),
            "labels",
            "cluster 1 is empty",
        );
        assert_invalid(
            energy_statistics(&src, &labels, 3, Some(&[1.0; 5])),
            "weights",
            "length 5",
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let mut w = [1.0; 6];
            w[4] = bad;
            assert_invalid(
                cluster_pair_sums(&src, &labels, 3, Some(&w)),
                "weights",
                "weights[4]",
            );
        }
        assert_invalid(
            cluster_pair_sums(&src, &labels, 3, Some(&[1e308, 1e308, 1.0, 1.0, 1.0, 1.0])),
            "weights",
            "cluster 0",
        );
        let bad_sm = PairwiseSource::Data {
            points: x,
            semimetric: Semimetric::Exponential { sigma: 0.0 },
        };
        assert_invalid(
            energy_statistics(&bad_sm, &labels, 3, None),
            "sigma",
            "sigma = 0",
        );
        let r = [0.0, 1.0, 1.5, 0.0];
        assert_invalid(
            energy_statistics(
                &PairwiseSource::Semimetric { r: &r, n: 2 },
                &[0, 1],
                2,
                None,
            ),
            "R",
            "R must be symmetric",
        );
        assert_invalid(
            energy_statistics(
                &PairwiseSource::Semimetric { r: &r[..3], n: 2 },
                &[0, 1],
                2,
                None,
            ),
            "R",
            "has 3 entries",
        );
        let g = [1.0, f64::NAN, f64::NAN, 1.0];
        assert_invalid(
            energy_statistics(&PairwiseSource::GramF64 { g: &g, n: 2 }, &[0, 1], 2, None),
            "G",
            "NaN or infinity at (0, 1)",
        );
        let g = [1.0, 0.5, 0.7, 1.0];
        assert_invalid(
            energy_statistics(&PairwiseSource::GramF64 { g: &g, n: 2 }, &[0, 1], 2, None),
            "G",
            "G is not symmetric",
        );
        assert_invalid(
            energy_statistics(&PairwiseSource::GramF64 { g: &g, n: 0 }, &[], 2, None),
            "G",
            "0 rows",
        );
        // overflow of the sums
        let big = [0.0, 1e300, -1e300];
        let xb = Points::new(&big, 3, 1).unwrap();
        assert_invalid(
            energy_statistics(
                &PairwiseSource::Data {
                    points: xb,
                    semimetric: Semimetric::Power { alpha: 2.0 },
                },
                &[0, 1, 1],
                2,
                None,
            ),
            "X",
            "overflow",
        );
        // energy distance
        let y = Points::new(&data, 3, 2).unwrap();
        let z = Points::new(&data, 2, 3).unwrap();
        assert_invalid(
            energy_distance(&z, &y, sm),
            "Y",
            "X has D=3 columns but Y has D=2",
        );
        assert_invalid(
            energy_distance(&y, &y, Semimetric::Power { alpha: 0.0 }),
            "alpha",
            "alpha = 0",
        );
        assert_invalid(
            energy_distance(&xb, &x, Semimetric::Power { alpha: 2.0 }),
            "X",
            "overflow",
        );
    }

    #[test]
    fn results_do_not_depend_on_thread_count() {
        let (n, dim, k) = (ROW_GROUP + 300, 2, 5);
        let mut rng = TestRng(103);
        let data = rng.data(n, dim, 1.0, 1.0);
        let labels = labels_for(n, k, &mut rng);
        let w: Vec<f64> = (0..n).map(|_| 0.5 + rng.next_f64()).collect();
        let x = Points::new(&data, n, dim).unwrap();
        let y = Points::new(&data[..600], 300, dim).unwrap();
        let run = || {
            let src = PairwiseSource::Data {
                points: x,
                semimetric: Semimetric::Power { alpha: 1.0 },
            };
            let e = energy_statistics(&src, &labels, k, Some(&w)).unwrap();
            let d = energy_distance(&x, &y, Semimetric::Gaussian { sigma: 0.5 }).unwrap();
            (e, d)
        };
        let one = in_pool(1, run);
        let two = in_pool(2, run);
        let four = in_pool(4, run);
        assert_eq!(one, two);
        assert_eq!(two, four);
        assert_eq!(one.0.within.to_bits(), two.0.within.to_bits());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn prop_identity_and_sources(
            n in 2usize..30,
            dim in 1usize..4,
            k in 1usize..5,
            seed in any::<u64>(),
            weighted in any::<bool>(),
            alpha in 0.2f64..2.0,
            shift in -50.0f64..50.0,
        ) {
            let k = k.min(n);
            let mut rng = TestRng(seed);
            let data = rng.data(n, dim, 1.0, shift);
            let labels = labels_for(n, k, &mut rng);
            let w: Vec<f64> = (0..n).map(|_| 0.1 + 5.0 * rng.next_f64()).collect();
            let w = if weighted { Some(&w[..]) } else { None };
            let e = all_sources_agree(&data, n, dim, Semimetric::Power { alpha }, &labels, k, w);
            prop_assert!(close(e.within + e.between, e.total, 1e-11), "{:?}", e);
            prop_assert!(e.between >= -1e-12 * e.total);
        }
    }
}
