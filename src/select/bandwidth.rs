//! Choosing the bandwidth σ of the exponential and gaussian semimetrics from the data
//! (`sigma="auto"`): candidates around the median pair distance, each scored by the cut
//! its kernel k-groups partition makes in the data's kNN graph, and a table of all of them.
//!
//! # Candidates
//!
//! On a seeded uniform subsample of at most [`SigmaOptions::max_points`] points: `m · 2^j`
//! for `j` in [`GRID_EXPONENTS`] (`m` the median pair distance of the subsample), and the
//! "mean" rule's σ ([`crate::gram::bandwidth`] of all points), last.
//!
//! # The rule
//!
//! For each candidate the kernel `K_ab = 1 − ρ(x_a, x_b)/2` (`exp(−‖x_a − x_b‖²/(2σ²))` for
//! the gaussian, `exp(−‖x_a − x_b‖/(2σ))` for the exponential) on the subsample, with
//! degrees `d_a = Σ_b K_ab`, and the eigenvalues `λ = 1 − μ` (`μ` those of the normalised
//! kernel `D^-½ K D^-½`).
//!
//! The score (the `knn_cut` column): kernel k-groups' own partition of the subsample with
//! that kernel ([`SigmaOptions::n_init`] k-means++ starts), judged by the normalised cut it
//! makes in the kNN graph of the data ([`KNN_NEIGHBOURS`] neighbours, σ-free), divided by k:
//! the mean fraction of a group's graph volume that leaves it. The smallest wins.
//!
//! When k is not given, each candidate's k is the one in `2 ..= k_max` with its largest
//! relative eigen-gap `(λ_{k+1} − λ_k) / λ_{k+1}` (among the k that are not degenerate; the
//! `eigengap` column), and its score is taken at that k.
//!
//! # Degenerate candidates, ties, fall-back
//!
//! A candidate is *degenerate* when its kernel is nearly the identity — fewer than one
//! neighbour's worth of kernel mass per point on average (`mean(d) − 1 < 1`), so every
//! eigenvalue `μ` is near 1 — or when it falls apart into more than k pieces: `λ_{k+1}` below
//! [`DISCONNECTED_EIGENVALUE`] (or no `λ_{k+1}` exists, k ≥ the subsample's size). Degenerate
//! candidates are reported but never chosen. Scores within [`TIE_TOLERANCE`] of the best
//! are ties, won by the largest σ (the smoother kernel). When every candidate is
//! degenerate, or k = 1 (every σ gives the same single group), the "mean" rule's σ is
//! returned with `chosen = None`.
//!
//! Every candidate is scored in parallel with seeds derived up front: the result does not
//! depend on the number of threads.

use crate::error::{try_filled, KGroupsError, Result};
use crate::gram::bandwidth;
use crate::rng::{derive_seeds, Rng};
use crate::select::eigengap::{
    laplacian_eigenvalues, resolved_relative_eigengap, selection_eigenpairs,
    SELECTION_EIGEN_OPTIONS,
};
use crate::select::neighbors::{knn_affinity, CsrAffinity, KNN_NEIGHBOURS};
use crate::{fit, Control, DenseKernel, Options, Points, Semimetric};
use rayon::prelude::*;

/// The exponents `j` of the candidates `m · 2^j` around the median pair distance `m`.
pub const GRID_EXPONENTS: [i32; 6] = [-4, -3, -2, -1, 0, 1];

/// Below this `λ_{k+1}` the kernel has more than k (nearly) disconnected pieces.
pub const DISCONNECTED_EIGENVALUE: f64 = 1e-6;

/// Scores this close to the best (absolutely) are ties, won by the largest σ.
pub const TIE_TOLERANCE: f64 = 1e-3;

/// Which semimetric the bandwidth is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BandwidthKernel {
    /// `ρ = 2 − 2 exp(−‖x − y‖²/(2σ²))`.
    #[default]
    Gaussian,
    /// `ρ = 2 − 2 exp(−‖x − y‖/(2σ))`.
    Exponential,
}

impl BandwidthKernel {
    fn semimetric(self, sigma: f64) -> Semimetric {
        match self {
            BandwidthKernel::Gaussian => Semimetric::Gaussian { sigma },
            BandwidthKernel::Exponential => Semimetric::Exponential { sigma },
        }
    }
}

/// The options of [`choose_sigma`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SigmaOptions {
    /// The number of groups, when known (1 ≤ k ≤ n); `None`: chosen per candidate in
    /// `2 ..= k_max` by the eigen-gap.
    pub k: Option<usize>,
    /// The largest k considered when `k` is `None` (≥ 2).
    pub k_max: usize,
    /// The semimetric the bandwidth is for.
    pub kernel: BandwidthKernel,
    /// The candidates are scored on a seeded subsample of this many points when n is
    /// larger (≥ 2).
    pub max_points: usize,
    /// k-means++ starts of kernel k-groups per candidate (≥ 1).
    pub n_init: usize,
    /// The seed of the subsample, the eigenvector starts and the fits.
    pub seed: u64,
}

impl Default for SigmaOptions {
    fn default() -> Self {
        SigmaOptions {
            k: None,
            k_max: 10,
            kernel: BandwidthKernel::Gaussian,
            max_points: 2000,
            n_init: 10,
            seed: 0,
        }
    }
}

/// One row per candidate σ (NaN where a statistic could not be computed).
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaTable {
    /// The candidate σ.
    pub sigma: Vec<f64>,
    /// Where it comes from: `"median*2^j"` or `"mean"`.
    pub source: Vec<String>,
    /// The k its statistics are taken at (the given k, or its own eigen-gap k).
    pub k: Vec<usize>,
    /// `mean(d) − 1`: the average kernel mass of a point's other points.
    pub neighbour_mass: Vec<f64>,
    /// `λ_{k+1}` of `D^-½ K D^-½`.
    pub next_eigenvalue: Vec<f64>,
    /// The relative eigen-gap at k (what chooses k when it is not given).
    pub eigengap: Vec<f64>,
    /// The kNN-graph normalised cut per group of kernel k-groups' partition at k (the
    /// score: the smallest wins).
    pub knn_cut: Vec<f64>,
    /// Degenerate (never chosen).
    pub degenerate: Vec<bool>,
}

/// The outcome of [`choose_sigma`].
#[derive(Debug, Clone, PartialEq)]
pub struct SigmaSelection {
    /// The chosen σ.
    pub sigma: f64,
    /// The k it was chosen for (the given k, or the chosen candidate's eigen-gap k; the
    /// given k, or 2, when falling back).
    pub k: usize,
    /// The row of the table chosen; `None` when falling back to the "mean" rule (k = 1 or
    /// every candidate degenerate).
    pub chosen: Option<usize>,
    /// Every candidate.
    pub table: SigmaTable,
    /// The number of points the candidates were scored on.
    pub n_points: usize,
}

/// One candidate's statistics.
struct Scored {
    k: usize,
    neighbour_mass: f64,
    next_eigenvalue: f64,
    eigengap: f64,
    knn_cut: f64,
    degenerate: bool,
}

/// Choose σ for the points `x` (see the [module documentation](self)).
///
/// Errors (each naming its argument): fewer than 2 points (`X`); `k` of 0 or above n (`k`);
/// `k_max` below 2 (`k_max`); `max_points` below 2 (`max_points`); `n_init` of 0
/// (`n_init`); every point the same (`X`: any σ gives the same kernel); and
/// [`KGroupsError::Interrupted`] when `control` is cancelled.
///
/// ```
/// use kgroups::select::bandwidth::{choose_sigma, SigmaOptions};
/// use kgroups::{Control, Points};
/// // two tight pairs far apart
/// let x = Points::new(&[0.0, 0.1, 10.0, 10.1], 4, 1)?;
/// let options = SigmaOptions { k: Some(2), ..SigmaOptions::default() };
/// let s = choose_sigma(&x, &options, &Control::new())?;
/// assert_eq!(s.table.sigma.len(), 7);
/// assert!(s.sigma > 0.0);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn choose_sigma(
    x: &Points,
    options: &SigmaOptions,
    control: &Control,
) -> Result<SigmaSelection> {
    let (n, dim) = (x.n(), x.dim());
    check_options(options, n)?;
    let mean_sigma = bandwidth(x, control).map_err(|_| {
        KGroupsError::invalid(
            "X",
            "every point is the same, so every σ gives the same kernel: pass sigma explicitly",
        )
    })?;
    let seeds = derive_seeds(options.seed, 2);
    let (sample, m) = if n > options.max_points {
        let mut nodes = Rng::new(seeds[0])
            .distinct(n, options.max_points)
            .unwrap_or_default();
        nodes.sort_unstable();
        let mut rows = Vec::with_capacity(nodes.len() * dim);
        for &i in &nodes {
            rows.extend_from_slice(&x.data()[i * dim..(i + 1) * dim]);
        }
        (rows, nodes.len())
    } else {
        (x.data().to_vec(), n)
    };
    let points = Points::new(&sample, m, dim)?;
    let (d2, _) = squared_distance_matrix(&points, 0, control)?;
    let median = median_distance(&d2, m);
    let mut sigma: Vec<f64> = Vec::with_capacity(GRID_EXPONENTS.len() + 1);
    let mut source: Vec<String> = Vec::with_capacity(GRID_EXPONENTS.len() + 1);
    if median > 0.0 && median.is_finite() {
        for j in GRID_EXPONENTS {
            sigma.push(median * 2f64.powi(j));
            source.push(format!("median*2^{j}"));
        }
    }
    sigma.push(mean_sigma);
    source.push("mean".to_string());

    if options.k == Some(1) {
        let table = table_of(sigma, source, &[], 1);
        return Ok(fallback(mean_sigma, 1, table, m));
    }
    let graph = knn_affinity(&points, KNN_NEIGHBOURS.min(m - 1), control)?;
    let quiet = control.without_progress();
    let candidate_seeds = derive_seeds(seeds[1], sigma.len());
    let scored: Vec<Scored> = sigma
        .par_iter()
        .zip(candidate_seeds)
        .map(|(&s, seed)| score(&d2, m, s, options, &graph, seed, &quiet))
        .collect::<Result<_>>()?;
    let k_default = options.k.unwrap_or(2);
    let table = table_of(sigma, source, &scored, k_default);
    match best(&table) {
        Some(row) => Ok(SigmaSelection {
            sigma: table.sigma[row],
            k: table.k[row],
            chosen: Some(row),
            table,
            n_points: m,
        }),
        None => Ok(fallback(mean_sigma, k_default, table, m)),
    }
}

fn check_options(options: &SigmaOptions, n: usize) -> Result<()> {
    if n < 2 {
        return Err(KGroupsError::invalid(
            "X",
            format!("choosing sigma needs at least 2 points, got {n}"),
        ));
    }
    if let Some(k) = options.k {
        if k == 0 || k > n {
            return Err(KGroupsError::invalid(
                "k",
                format!("k must be in 1 … n = {n}, got {k}"),
            ));
        }
    }
    if options.k_max < 2 {
        return Err(KGroupsError::invalid(
            "k_max",
            format!("k_max must be at least 2, got {}", options.k_max),
        ));
    }
    if options.max_points < 2 {
        return Err(KGroupsError::invalid(
            "max_points",
            format!("max_points must be at least 2, got {}", options.max_points),
        ));
    }
    if options.n_init == 0 {
        return Err(KGroupsError::invalid("n_init", "n_init must be at least 1"));
    }
    Ok(())
}

fn fallback(sigma: f64, k: usize, table: SigmaTable, n_points: usize) -> SigmaSelection {
    SigmaSelection {
        sigma,
        k,
        chosen: None,
        table,
        n_points,
    }
}

/// The table, with NaN statistics (and not degenerate) where `scored` is empty.
fn table_of(sigma: Vec<f64>, source: Vec<String>, scored: &[Scored], k: usize) -> SigmaTable {
    let rows = sigma.len();
    let column = |f: &dyn Fn(&Scored) -> f64| -> Vec<f64> {
        if scored.is_empty() {
            vec![f64::NAN; rows]
        } else {
            scored.iter().map(f).collect()
        }
    };
    SigmaTable {
        k: if scored.is_empty() {
            vec![k; rows]
        } else {
            scored.iter().map(|s| s.k).collect()
        },
        neighbour_mass: column(&|s| s.neighbour_mass),
        next_eigenvalue: column(&|s| s.next_eigenvalue),
        eigengap: column(&|s| s.eigengap),
        knn_cut: column(&|s| s.knn_cut),
        degenerate: if scored.is_empty() {
            vec![false; rows]
        } else {
            scored.iter().map(|s| s.degenerate).collect()
        },
        sigma,
        source,
    }
}

/// The row with the smallest `knn_cut` among the rows that are not degenerate and have a
/// finite one (ties within [`TIE_TOLERANCE`] to the largest σ); `None` when there is none.
fn best(table: &SigmaTable) -> Option<usize> {
    // Oriented so that larger is better.
    let score = |row: usize| -table.knn_cut[row];
    let eligible: Vec<usize> = (0..table.sigma.len())
        .filter(|&row| !table.degenerate[row] && score(row).is_finite())
        .collect();
    let top = eligible
        .iter()
        .map(|&row| score(row))
        .fold(f64::NEG_INFINITY, f64::max);
    eligible
        .into_iter()
        .filter(|&row| score(row) >= top - TIE_TOLERANCE)
        .max_by(|&a, &b| table.sigma[a].total_cmp(&table.sigma[b]).then(b.cmp(&a)))
}

/// The symmetric `m × m` squared distances, and each point's squared distance to its `nth`
/// nearest other point (`1 ≤ nth < m`; zeros for `nth = 0`), taken from the point's own row
/// before the matrix is made symmetric: the value [`super::neighbors::nearest_neighbours`]
/// gives, with one pass over the pairs instead of two.
pub(crate) fn squared_distance_matrix(
    points: &Points,
    nth: usize,
    control: &Control,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let m = points.n();
    let len = m
        .checked_mul(m)
        .ok_or_else(|| KGroupsError::invalid("X", "n² overflows the address space"))?;
    let mut d2 = try_filled(len, 0.0f64, "X", "the distances of the subsample")?;
    let mut nth_nearest = try_filled(m, 0.0, "X", "the distances of the subsample")?;
    d2.par_chunks_mut(m)
        .enumerate()
        .zip(nth_nearest.par_iter_mut())
        .try_for_each_init(Vec::new, |others, ((i, row), out)| -> Result<()> {
            control.checkpoint()?;
            crate::distance::squared_distances_from(points, i, row)?;
            if nth > 0 {
                others.clear();
                others.extend((0..m).filter(|&j| j != i).map(|j| row[j]));
                *out = *others.select_nth_unstable_by(nth - 1, f64::total_cmp).1;
            }
            Ok(())
        })?;
    // Exactly symmetric, whatever the order the distance was summed in.
    for i in 0..m {
        for j in 0..i {
            d2[j * m + i] = d2[i * m + j];
        }
    }
    Ok((d2, nth_nearest))
}

/// The lower median of the pair distances (the upper triangle of `d2`).
fn median_distance(d2: &[f64], m: usize) -> f64 {
    let mut pairs: Vec<f64> = (0..m)
        .flat_map(|i| d2[i * m + i + 1..(i + 1) * m].iter().copied())
        .collect();
    if pairs.is_empty() {
        return 0.0;
    }
    let mid = (pairs.len() - 1) / 2;
    let (_, median, _) = pairs.select_nth_unstable_by(mid, f64::total_cmp);
    median.sqrt()
}

/// One candidate's statistics.
fn score(
    d2: &[f64],
    m: usize,
    sigma: f64,
    options: &SigmaOptions,
    graph: &CsrAffinity,
    seed: u64,
    control: &Control,
) -> Result<Scored> {
    control.checkpoint()?;
    let semimetric = options.kernel.semimetric(sigma);
    let mut kernel = try_filled(m * m, 0.0f64, "X", "a candidate's kernel")?;
    kernel
        .par_chunks_mut(m)
        .zip(d2.par_chunks(m))
        .for_each(|(row, distances)| {
            for (k, &d) in row.iter_mut().zip(distances) {
                *k = 1.0 - 0.5 * semimetric.from_squared_distance(d);
            }
        });
    let degrees: Vec<f64> = kernel.chunks(m).map(|row| row.iter().sum()).collect();
    let neighbour_mass = degrees.iter().sum::<f64>() / m as f64 - 1.0;
    let flat = neighbour_mass < 1.0;
    // The eigenvectors' start is the candidate's derived seed 0 and the fits' is seed 2
    // (seed 1 is unused; the indices stay so that a seed keeps giving the same σ).
    let seeds = derive_seeds(seed, 3);

    // Kernel k-groups' partitions need K itself; the eigenpairs need G = D⁻¹ K D⁻¹ with node
    // weights d (so that W^½ G W^½ = D^-½ K D^-½): the fits run first, then K is rescaled.
    let count = match options.k {
        Some(k) => (k + 1).min(m),
        None => (options.k_max + 1).min(m),
    };
    let normalised = {
        let mut g = kernel.clone();
        g.par_chunks_mut(m).enumerate().for_each(|(i, row)| {
            for (v, dj) in row.iter_mut().zip(&degrees) {
                *v /= degrees[i] * dj;
            }
        });
        g
    };
    let pairs = selection_eigenpairs(
        &DenseKernel::trusting_symmetry(&normalised, m)?,
        &degrees,
        count,
        seeds[0],
        &SELECTION_EIGEN_OPTIONS,
        control,
    )?;
    drop(normalised);
    let lambda = laplacian_eigenvalues(&pairs.values);
    let gaps = resolved_relative_eigengap(&pairs);
    let next = |k: usize| lambda.get(k).copied().unwrap_or(f64::NAN);
    let usable = |k: usize| next(k) >= DISCONNECTED_EIGENVALUE;
    let k = match options.k {
        Some(k) => k,
        None => (2..=options.k_max.min(gaps.len()))
            .filter(|&k| usable(k) && gaps[k - 1].is_finite())
            .fold(None, |best: Option<usize>, k| match best {
                Some(b) if gaps[b - 1] >= gaps[k - 1] => Some(b),
                _ => Some(k),
            })
            .unwrap_or(2),
    };
    let degenerate = flat || !usable(k) || k >= m;
    let eigengap = gaps.get(k - 1).copied().unwrap_or(f64::NAN);

    let knn_cut = if k < m {
        let fit_options = Options {
            n_init: options.n_init,
            seed: seeds[2],
            ..Options::default()
        };
        let clustering = fit(
            &DenseKernel::trusting_symmetry(&kernel, m)?,
            k,
            &fit_options,
            control,
        )?;
        graph.normalized_cut(&clustering.labels, k) / k as f64
    } else {
        f64::NAN
    };
    Ok(Scored {
        k,
        neighbour_mass,
        next_eigenvalue: next(k),
        eigengap,
        knn_cut,
        degenerate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rings(n_per: usize, seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let mut data = Vec::with_capacity(4 * n_per);
        for radius in [1.0, 3.0] {
            for _ in 0..n_per {
                let t = rng.next_f64() * std::f64::consts::TAU;
                let r = radius + 0.05 * (rng.next_f64() - 0.5);
                data.push(r * t.cos());
                data.push(r * t.sin());
            }
        }
        data
    }

    #[test]
    fn rings_get_a_sigma_that_separates_them() {
        let data = rings(150, 3);
        let x = Points::new(&data, 300, 2).unwrap();
        let options = SigmaOptions {
            k: Some(2),
            ..SigmaOptions::default()
        };
        let s = choose_sigma(&x, &options, &Control::new()).unwrap();
        assert!(s.chosen.is_some());
        assert_eq!(s.table.sigma.len(), GRID_EXPONENTS.len() + 1);
        let row = s.chosen.unwrap();
        assert!(s.table.knn_cut[row] < 1e-9, "{:?}", s.table);
    }

    #[test]
    fn the_result_does_not_depend_on_the_thread_count() {
        let data = rings(100, 5);
        let x = Points::new(&data, 200, 2).unwrap();
        let options = SigmaOptions {
            max_points: 150,
            seed: 9,
            ..SigmaOptions::default()
        };
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| choose_sigma(&x, &options, &Control::new()).unwrap())
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one.n_points, 150);
    }

    #[test]
    fn the_smallest_cut_wins_and_ties_go_to_the_largest_sigma() {
        let data = rings(80, 7);
        let x = Points::new(&data, 160, 2).unwrap();
        let s = choose_sigma(&x, &SigmaOptions::default(), &Control::new()).unwrap();
        let t = &s.table;
        let row = s.chosen.unwrap();
        let eligible: Vec<usize> = (0..t.sigma.len())
            .filter(|&r| !t.degenerate[r] && t.knn_cut[r].is_finite())
            .collect();
        let least = eligible
            .iter()
            .map(|&r| t.knn_cut[r])
            .fold(f64::INFINITY, f64::min);
        assert!(!t.degenerate[row]);
        assert!(t.knn_cut[row] <= least + TIE_TOLERANCE, "{t:?}");
        for &r in &eligible {
            if t.knn_cut[r] <= least + TIE_TOLERANCE {
                assert!(t.sigma[r] <= t.sigma[row], "{t:?}");
            }
        }
        assert_eq!((s.sigma, s.k), (t.sigma[row], t.k[row]));
    }

    #[test]
    fn without_k_each_candidate_takes_its_largest_eigengap_k() {
        // Three tight clusters far apart on a line: k = 3 has the largest relative gap.
        let mut rng = Rng::new(11);
        let data: Vec<f64> = [0.0, 10.0, 20.0]
            .iter()
            .flat_map(|&c| {
                (0..30)
                    .map(|_| c + 0.1 * rng.next_f64())
                    .collect::<Vec<_>>()
            })
            .collect();
        let x = Points::new(&data, 90, 1).unwrap();
        let s = choose_sigma(&x, &SigmaOptions::default(), &Control::new()).unwrap();
        let t = &s.table;
        // The smallest σ sees three clusters with gap ≈ 1 after the third eigenvalue.
        assert_eq!(t.k[0], 3, "{t:?}");
        assert!(t.eigengap[0] > 0.9, "{t:?}");
        assert!(t.k.iter().all(|k| (2..=10).contains(k)), "{t:?}");
        assert_eq!(s.k, t.k[s.chosen.unwrap()]);
        // With k given, every candidate is taken at it.
        let given = SigmaOptions {
            k: Some(3),
            ..SigmaOptions::default()
        };
        let s = choose_sigma(&x, &given, &Control::new()).unwrap();
        assert!(
            s.table.k.iter().all(|&k| k == 3) && s.k == 3,
            "{:?}",
            s.table
        );
    }

    #[test]
    fn bad_arguments_are_named() {
        let one = Points::new(&[1.0, 2.0], 1, 2).unwrap();
        let err = choose_sigma(&one, &SigmaOptions::default(), &Control::new()).unwrap_err();
        assert!(err.to_string().contains("X"), "{err}");
        let x = Points::new(&[0.0, 1.0, 2.0], 3, 1).unwrap();
        for k in [0, 4] {
            let options = SigmaOptions {
                k: Some(k),
                ..SigmaOptions::default()
            };
            let err = choose_sigma(&x, &options, &Control::new()).unwrap_err();
            assert!(err.to_string().contains('k'), "{err}");
        }
        let same = Points::new(&[1.0, 1.0, 1.0], 3, 1).unwrap();
        assert!(choose_sigma(&same, &SigmaOptions::default(), &Control::new()).is_err());
    }

    #[test]
    fn one_group_and_k_equal_to_n_fall_back_to_the_mean_rule() {
        let x = Points::new(&[0.0, 1.0, 2.0, 5.0], 4, 1).unwrap();
        let mean = bandwidth(&x, &Control::new()).unwrap();
        for k in [1, 4] {
            let options = SigmaOptions {
                k: Some(k),
                ..SigmaOptions::default()
            };
            let s = choose_sigma(&x, &options, &Control::new()).unwrap();
            assert_eq!((s.sigma, s.chosen, s.k), (mean, None, k));
        }
    }

    #[test]
    fn cut_of_a_known_partition() {
        let graph = CsrAffinity {
            indptr: vec![0, 1, 3, 4],
            indices: vec![1, 0, 2, 1],
            data: vec![1.0; 4],
            n: 3,
        };
        // {0, 1} | {2}: the edge 1-2 leaves both; volumes 3 and 1.
        assert!((graph.normalized_cut(&[0, 0, 1], 2) - (1.0 / 3.0 + 1.0)).abs() < 1e-12);
    }
}
