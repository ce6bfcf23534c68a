use super::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// `n` points of a Gaussian with standard deviations `sd` per axis, shifted by `offset` along
/// the first axis.
fn gaussian(n: usize, sd: &[f64], offset: f64, seed: u64) -> Vec<f64> {
    let mut data = vec![0.0; n * sd.len()];
    fill_standard_normal(&mut Rng::new(seed), &mut data);
    for row in data.chunks_exact_mut(sd.len()) {
        for (v, s) in row.iter_mut().zip(sd) {
            *v *= s;
        }
        row[0] += offset;
    }
    data
}

fn two_blobs(n_each: usize, dim: usize, separation: f64, seed: u64) -> Vec<f64> {
    let sd = vec![1.0; dim];
    let mut data = gaussian(n_each, &sd, 0.0, seed);
    data.extend(gaussian(n_each, &sd, separation, seed + 1));
    data
}

fn options(n_null: usize, seed: u64) -> SignificanceOptions<'static> {
    SignificanceOptions {
        n_null,
        fit: Options {
            seed,
            n_init: 2,
            ..Options::default()
        },
    }
}

fn run(data: &[f64], dim: usize, k: usize, options: &SignificanceOptions) -> Result<Significance> {
    let points = Points::new(data, data.len() / dim, dim)?;
    cluster_significance(points, k, options, &Control::new())
}

#[test]
fn separated_blobs_get_the_smallest_pvalue() {
    for (dim, seed) in [(2, 1), (5, 2), (30, 3)] {
        let data = two_blobs(40, dim, 8.0, seed);
        let result = run(&data, dim, 2, &options(49, seed)).unwrap();
        assert_eq!(result.pvalue, 1.0 / 50.0, "D = {dim}");
        assert!((result.pvalue_se - (0.02f64 * 0.98 / 49.0).sqrt()).abs() < 1e-15);
        let below = result
            .null_statistics
            .iter()
            .filter(|&&t| t <= result.statistic);
        assert_eq!(below.count(), 0);
        // The partition found is the two blobs.
        let labels = &result.clustering.labels;
        assert!(labels[..40].iter().all(|&l| l == labels[0]));
        assert!(labels[40..].iter().all(|&l| l != labels[0]));
        assert_eq!(result.null_statistics.len(), 49);
        assert_eq!(result.sample_eigenvalues.len(), dim);
    }
}

#[test]
fn the_statistic_is_the_energy_within_over_total() {
    let data = two_blobs(15, 3, 3.0, 4);
    let result = run(&data, 3, 2, &options(5, 4)).unwrap();
    let points = Points::new(&data, 30, 3).unwrap();
    let source = PairwiseSource::Data {
        points,
        semimetric: ENERGY,
    };
    let stats = energy_statistics(
        &source,
        &result.clustering.labels,
        2,
        None,
        false,
        &Control::new(),
    )
    .unwrap();
    assert_eq!(result.within, stats.within);
    assert_eq!(result.total, stats.total);
    assert_eq!(result.statistic, stats.within / stats.total);
    // W computed directly from the pairwise distances.
    let dist = |a: usize, b: usize| -> f64 {
        (0..3)
            .map(|j| (data[a * 3 + j] - data[b * 3 + j]).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let labels = &result.clustering.labels;
    let mut within = 0.0;
    let mut total = 0.0;
    for c in 0..2 {
        let members: Vec<usize> = (0..30).filter(|&i| labels[i] == c).collect();
        let sum: f64 = members
            .iter()
            .flat_map(|&a| members.iter().map(move |&b| (a, b)))
            .map(|(a, b)| dist(a, b))
            .sum();
        within += sum / (2.0 * members.len() as f64);
    }
    for a in 0..30 {
        for b in 0..30 {
            total += dist(a, b) / 60.0;
        }
    }
    assert!((result.within - within).abs() < 1e-10 * within);
    assert!((result.total - total).abs() < 1e-10 * total);
    // Kernel k-groups' W is the same number.
    assert!((result.clustering.within - within).abs() < 1e-9 * within);
}

/// A single Gaussian, anisotropic and rotated: the p-value is rarely small. A null that
/// ignored the anisotropy (isotropic with the mean variance) would find the data far more
/// clustered than its null data sets, and reject at nearly every seed.
#[test]
fn a_single_gaussian_is_rarely_rejected() {
    let (n, dim) = (80, 2);
    let mut small = 0;
    let mut pvalues = Vec::new();
    for seed in 0..12 {
        let mut data = gaussian(n, &[3.0, 1.0], 0.0, 100 + seed);
        // rotate by 30 degrees: the null must not depend on the axes
        let (s, c) = std::f64::consts::FRAC_PI_6.sin_cos();
        for row in data.chunks_exact_mut(dim) {
            let (x, y) = (row[0], row[1]);
            row[0] = c * x - s * y;
            row[1] = s * x + c * y;
        }
        let result = run(&data, dim, 2, &options(39, seed)).unwrap();
        pvalues.push(result.pvalue);
        if result.pvalue <= 0.05 {
            small += 1;
        }
    }
    assert!(small <= 2, "{pvalues:?}");
}

/// Uniform data in a square hold no groups, but they are not one Gaussian: the test rejects
/// them (what the documentation says a small p-value means).
#[test]
fn uniform_data_are_rejected_as_not_one_gaussian() {
    let mut rng = Rng::new(5);
    let data: Vec<f64> = (0..400).map(|_| rng.next_f64()).collect();
    let result = run(&data, 2, 2, &options(39, 0)).unwrap();
    assert_eq!(result.pvalue, 1.0 / 40.0, "{:?}", result.null_statistics);
}

#[test]
fn identical_for_any_number_of_threads() {
    let data = two_blobs(30, 3, 1.5, 7);
    let options = options(24, 11);
    let in_pool = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(&data, 3, 2, &options).unwrap())
    };
    let one = in_pool(1);
    assert_eq!(one, in_pool(3));
    assert_eq!(one, in_pool(4));
    // ... and another seed gives other null data sets.
    let other = run(
        &data,
        3,
        2,
        &SignificanceOptions {
            fit: Options {
                seed: 12,
                ..options.fit
            },
            ..options
        },
    )
    .unwrap();
    assert_ne!(one.null_statistics, other.null_statistics);
}

#[test]
fn scale_changes_only_the_reported_variances() {
    let data = two_blobs(20, 2, 1.0, 9);
    let doubled: Vec<f64> = data.iter().map(|v| v * 2.0).collect();
    let a = run(&data, 2, 2, &options(9, 3)).unwrap();
    let b = run(&doubled, 2, 2, &options(9, 3)).unwrap();
    assert_eq!(a.clustering.labels, b.clustering.labels);
    assert_eq!(a.statistic, b.statistic);
    assert_eq!(a.null_statistics, b.null_statistics);
    for (x, y) in a.sample_eigenvalues.iter().zip(&b.sample_eigenvalues) {
        assert_eq!(4.0 * x, *y);
    }
}

#[test]
fn more_dimensions_than_points_use_the_small_gram_matrix() {
    let (n, dim) = (6, 9);
    let data = gaussian(n, &[1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 1.0, 0.2, 1.0], 0.0, 8);
    let points = Points::new(&data, n, dim).unwrap();
    let mut centred = data.clone();
    for j in 0..dim {
        let mean = (0..n).map(|i| data[i * dim + j]).sum::<f64>() / n as f64;
        for i in 0..n {
            centred[i * dim + j] -= mean;
        }
    }
    let by_columns = eigenvalues_from(&centred, n, dim, true, &Control::new()).unwrap();
    let by_rows = eigenvalues_from(&centred, n, dim, false, &Control::new()).unwrap();
    assert_eq!(by_rows.len(), dim);
    for (a, b) in by_columns.iter().zip(&by_rows) {
        assert!(
            (a - b).abs() < 1e-10 * by_columns[0],
            "{by_columns:?} {by_rows:?}"
        );
    }
    // rank n − 1 = 5: the last four are zero
    assert!(by_rows[5].abs() < 1e-12 * by_rows[0]);
    assert!(by_rows[6..].iter().all(|&v| v == 0.0));
    assert!(by_rows[4] > 1e-3);
    let result = cluster_significance(points, 2, &options(5, 1), &Control::new()).unwrap();
    assert_eq!(result.sample_eigenvalues.len(), dim);
    assert!(result.sample_eigenvalues[6..].iter().all(|&v| v == 0.0));
}

#[test]
fn errors_name_the_argument() {
    let data = two_blobs(5, 2, 3.0, 1);
    let arg = |result: Result<Significance>| result.unwrap_err().argument();
    assert_eq!(arg(run(&data, 2, 1, &options(5, 0))), Some("k"));
    assert_eq!(arg(run(&data, 2, 0, &options(5, 0))), Some("k"));
    assert_eq!(arg(run(&data, 2, 11, &options(5, 0))), Some("k"));
    assert_eq!(arg(run(&data, 2, 2, &options(0, 0))), Some("n_null"));
    assert_eq!(arg(run(&[1.0, 2.0], 2, 2, &options(5, 0))), Some("k"));
    assert_eq!(arg(run(&[1.0; 20], 2, 2, &options(5, 0))), Some("X"));
    let weights = [1.0; 10];
    let weighted = SignificanceOptions {
        fit: Options {
            weights: Some(&weights),
            ..Options::default()
        },
        ..options(5, 0)
    };
    assert_eq!(arg(run(&data, 2, 2, &weighted)), Some("weights"));
    let labels = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1];
    let labelled = SignificanceOptions {
        fit: Options {
            init: Init::Labels(&labels),
            ..Options::default()
        },
        ..options(5, 0)
    };
    assert_eq!(arg(run(&data, 2, 2, &labelled)), Some("init"));
    let shifted = SignificanceOptions {
        fit: Options {
            shift: 1.0,
            ..Options::default()
        },
        ..options(5, 0)
    };
    assert_eq!(arg(run(&data, 2, 2, &shifted)), Some("shift"));
    let zero_starts = SignificanceOptions {
        fit: Options {
            n_init: 0,
            ..Options::default()
        },
        ..options(5, 0)
    };
    assert_eq!(arg(run(&data, 2, 2, &zero_starts)), Some("n_init"));
}

/// A number of null data sets beyond memory is an error naming `n_null`, not an abort or a
/// panic, and it comes before any clustering.
#[test]
fn n_null_beyond_memory_is_an_error_naming_it() {
    let data = two_blobs(5, 2, 3.0, 1);
    for n_null in [usize::MAX, usize::MAX / 8, 1 << 58] {
        let err = run(&data, 2, 2, &options(n_null, 0)).unwrap_err();
        assert!(
            matches!(
                err,
                KGroupsError::OutOfMemory {
                    argument: "n_null",
                    ..
                }
            ),
            "{n_null}: {err}"
        );
    }
}

#[test]
fn progress_once_per_null_data_set_and_cancellation() {
    let data = two_blobs(20, 2, 2.0, 3);
    let seen = AtomicUsize::new(0);
    let report = |event: &Progress| {
        assert_eq!(event.sweep, 1);
        assert!(event.start < 17);
        seen.fetch_add(1, Ordering::Relaxed);
    };
    let points = Points::new(&data, 40, 2).unwrap();
    let control = Control::new().with_progress(&report);
    cluster_significance(points, 2, &options(17, 0), &control).unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), 17);

    let cancel = AtomicBool::new(false);
    let stop = |_: &Progress| cancel.store(true, Ordering::Relaxed);
    let control = Control::new().with_cancel(&cancel).with_progress(&stop);
    let err = cluster_significance(points, 2, &options(500, 0), &control).unwrap_err();
    assert_eq!(err, KGroupsError::Interrupted);
}

#[test]
fn box_muller_moments() {
    let mut z = vec![0.0; 40_001];
    fill_standard_normal(&mut Rng::new(1), &mut z);
    let n = z.len() as f64;
    let mean = z.iter().sum::<f64>() / n;
    let var = z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let kurt = z.iter().map(|v| (v - mean).powi(4)).sum::<f64>() / n / (var * var);
    assert!(mean.abs() < 0.02 && (var - 1.0).abs() < 0.03 && (kurt - 3.0).abs() < 0.1);
}

/// Every conditional null data set has exactly the data's sample covariance eigenvalues
/// (and mean zero), in min(D, n − 1) columns.
#[test]
fn conditional_null_data_sets_keep_the_sample_covariance() {
    for (n, dim) in [(30, 3), (8, 12)] {
        let data = gaussian(n, &vec![1.5; dim], 0.0, 21);
        let points = Points::new(&data, n, dim).unwrap();
        let control = Control::new();
        let null = NullModel::fit(points, &control).unwrap();
        let (replicate, width) = null.draw(n, &mut Rng::new(4)).unwrap();
        assert_eq!(width, dim.min(n - 1));
        for j in 0..width {
            let mean = (0..n).map(|i| replicate[i * width + j]).sum::<f64>() / n as f64;
            assert!(mean.abs() < 1e-12, "{mean}");
        }
        let drawn = covariance_eigenvalues(&replicate, n, width, &Control::new()).unwrap();
        // the null's values are in the data's units, the draw in the scaled units
        let scale = data.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (d, s) in drawn.iter().zip(&null.sample_eigenvalues) {
            assert!(
                (d * scale * scale - s).abs() < 1e-9 * null.sample_eigenvalues[0],
                "{drawn:?}"
            );
        }
    }
}

/// The test is exact: over many single Gaussians (isotropic and elongated), its p-values are
/// uniform on the multiples of 1/(n_null + 1).
#[test]
fn conditional_pvalues_are_uniform_under_the_null() {
    let (n, dim, sets) = (40, 4, 120);
    let mut conditional = Vec::new();
    for i in 0..sets {
        let sd = if i % 2 == 0 {
            [1.0; 4]
        } else {
            [3.0, 1.0, 0.5, 0.2]
        };
        let data = gaussian(n, &sd, 0.0, 1000 + i);
        let opts = SignificanceOptions {
            fit: Options {
                seed: i,
                ..Options::default()
            },
            ..options(19, i)
        };
        conditional.push(run(&data, dim, 2, &opts).unwrap().pvalue);
    }
    let fraction_at_most = |ps: &[f64], level: f64| {
        ps.iter().filter(|&&p| p <= level + 1e-12).count() as f64 / ps.len() as f64
    };
    // Uniform on {0.05, 0.10, ..., 1}: P(p ≤ 0.25) = 0.25, P(p ≤ 0.5) = 0.5; binomial sd for
    // 120 sets ≈ 0.04 and 0.046, so ±0.13 is about three sd.
    for level in [0.25, 0.5] {
        let f = fraction_at_most(&conditional, level);
        assert!(
            (f - level).abs() < 0.13,
            "P(p <= {level}) = {f}: {conditional:?}"
        );
    }
}
