//! Criterion benchmarks of the core on the paper's eq. 56 data (two Gaussians in D = 10,
//! μ₂ = 0.7·1), energy kernel ρ = ‖x − y‖ with base point 0: the algorithms on a dense
//! kernel, and every path that evaluates pairs of points from data (the dense and cross Gram
//! builders, matrix-free rows and cluster sums, the energy statistics and distance); the
//! symmetry check beside its former version; the first pass of a dense fit at n = 10⁴ (cluster
//! sums, with and without the fused symmetry check); and the sparse path (CSR cluster sums and one
//! Hartigan sweep on a stochastic block model); and ρ of the exponential and gaussian
//! semimetrics (their expm1 against libm's).
//!
//! Run: `cargo bench --bench core` (one group: `cargo bench --bench core -- pairwise`; the
//! two routines of squared distances side by side: `cargo bench --bench core -- gram_tile`).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kgroups::distance::{semimetric_row, squared_distances_from};
use kgroups::gram::energy_gram_cross;
use kgroups::kernel::cluster_sums;
use kgroups::kernel::csr::reorder::PermutedCsr;
use kgroups::rng::Rng;
use kgroups::stats::PairwiseSource;
use kgroups::{
    bandwidth, energy_distance, energy_gram, energy_statistics, fit, Algorithm, Base, Control,
    CsrKernel, DataKernel, DenseKernel, Init, Kernel, Options, Points, Semimetric,
};

fn gaussian(rng: &mut Rng) -> f64 {
    // Box–Muller; 1 − u keeps the logarithm finite.
    let (u, v) = (1.0 - rng.next_f64(), rng.next_f64());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// `n` points of eq. 56 in `dim` dimensions (odd points shifted by 0.7), row-major.
fn eq56_data(n: usize, dim: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n * dim)
        .map(|p| {
            let shift = if (p / dim) % 2 == 1 { 0.7 } else { 0.0 };
            gaussian(&mut rng) + shift
        })
        .collect()
}

/// The energy Gram matrix of `n` points from eq. 56, built naively (not what is measured).
fn eq56_gram(n: usize, seed: u64) -> Vec<f64> {
    const D: usize = 10;
    let mut rng = Rng::new(seed);
    let points: Vec<[f64; D]> = (0..n)
        .map(|i| {
            let shift = if i % 2 == 1 { 0.7 } else { 0.0 };
            std::array::from_fn(|_| gaussian(&mut rng) + shift)
        })
        .collect();
    let norm = |p: &[f64; D]| p.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            let d: f64 = (0..D)
                .map(|t| (points[a][t] - points[b][t]).powi(2))
                .sum::<f64>()
                .sqrt();
            g[a * n + b] = 0.5 * (norm(&points[a]) + norm(&points[b]) - d);
        }
    }
    g
}

fn bench_algorithms(c: &mut Criterion) {
    let n = 2000;
    let g = eq56_gram(n, 1);
    let kernel = DenseKernel::new(&g, n).expect("valid kernel");
    let mut group = c.benchmark_group("fit_n2000");
    group.sample_size(20);
    for k in [2usize, 10] {
        for (name, algorithm) in [
            ("hartigan", Algorithm::Hartigan),
            ("lloyd_batch", Algorithm::Lloyd),
        ] {
            let options = Options {
                algorithm,
                init: Init::KMeansPlusPlus,
                seed: 3,
                ..Options::default()
            };
            group.bench_with_input(BenchmarkId::new(name, k), &k, |b, &k| {
                b.iter(|| fit(&kernel, k, &options, &Control::new()).expect("fit"))
            });
        }
    }
    group.finish();

    let labels: Vec<usize> = (0..n).map(|i| i % 10).collect();
    let weights = vec![1.0; n];
    c.bench_function("cluster_sums_n2000_k10", |b| {
        b.iter(|| cluster_sums(&kernel, &labels, &weights, 10, &Control::new()).expect("sums"))
    });
    c.bench_function("symmetry_check_n2000", |b| {
        b.iter(|| DenseKernel::new(&g, n).expect("valid kernel"))
    });
}

/// The first pass of a dense fit over an n = 10⁴ matrix (763 MiB), where memory order
/// decides the speed: the cluster sums alone (upper triangle), and with the deferred
/// symmetry check fused in (every entry read once), for k = 2 (masked sums) and k = 10
/// (gathered by label).
fn bench_dense_pass(c: &mut Criterion) {
    let n = 10_000;
    let g = eq56_gram(n, 5);
    let weights = vec![1.0; n];
    let mut group = c.benchmark_group("dense_pass_n10000");
    group.sample_size(10);
    for k in [2usize, 10] {
        let labels: Vec<usize> = (0..n).map(|i| (i * 7 + i / 3) % k).collect();
        group.bench_with_input(BenchmarkId::new("sums", k), &k, |b, &k| {
            let kernel = DenseKernel::trusting_symmetry(&g, n).expect("valid kernel");
            b.iter(|| cluster_sums(&kernel, &labels, &weights, k, &Control::new()).expect("sums"))
        });
        group.bench_with_input(BenchmarkId::new("sums_and_check", k), &k, |b, &k| {
            let kernel = DenseKernel::with_deferred_check(&g, n).expect("valid kernel");
            b.iter(|| cluster_sums(&kernel, &labels, &weights, k, &Control::new()).expect("sums"))
        });
    }
    group.finish();
}

/// A randomly numbered stochastic block model in CSR (i32 indices, unit weights): `n` nodes,
/// `k` planted blocks (node `i` in block `i % k`), average degree about `degree`, 80 % of the
/// edges inside blocks.
fn sbm_csr(n: usize, k: usize, degree: usize, seed: u64) -> (Vec<i32>, Vec<i32>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let mut neighbours: Vec<Vec<i32>> = vec![Vec::new(); n];
    let draw =
        |rng: &mut Rng, bound: usize| ((rng.next_f64() * bound as f64) as usize).min(bound - 1);
    for _ in 0..n * degree / 2 {
        let a = draw(&mut rng, n);
        let block = if rng.next_f64() < 0.8 {
            a % k
        } else {
            draw(&mut rng, k)
        };
        let b = (draw(&mut rng, n / k) * k + block).min(n - 1);
        if a != b {
            neighbours[a].push(b as i32);
            neighbours[b].push(a as i32);
        }
    }
    let mut indptr = vec![0i32];
    let mut indices = Vec::new();
    for row in &mut neighbours {
        row.sort_unstable();
        row.dedup();
        indices.extend_from_slice(row);
        indptr.push(indices.len() as i32);
    }
    let data = vec![1.0; indices.len()];
    (indptr, indices, data)
}

/// The sparse path: cluster sums and one Hartigan sweep from random labels on an SBM with
/// n = 100 000, average degree 20, k = 10 (ratio association: the adjacency is the kernel).
fn bench_sparse(c: &mut Criterion) {
    let (n, k) = (100_000, 10);
    let (indptr, indices, data) = sbm_csr(n, k, 20, 5);
    let kernel = CsrKernel::new(&indptr, &indices, &data, n).expect("valid CSR kernel");
    let mut group = c.benchmark_group("sparse_sbm_n100000_k10");
    group.sample_size(10);
    let labels: Vec<usize> = (0..n).map(|i| (i * 7 + i / 3) % k).collect();
    let weights = vec![1.0; n];
    group.bench_function("cluster_sums", |b| {
        b.iter(|| cluster_sums(&kernel, &labels, &weights, k, &Control::new()).expect("sums"))
    });
    let options = Options {
        algorithm: Algorithm::Hartigan,
        init: Init::Random,
        max_iter: 1,
        seed: 3,
        ..Options::default()
    };
    group.bench_function("hartigan_one_sweep", |b| {
        b.iter(|| fit(&kernel, k, &options, &Control::new()).expect("fit"))
    });
    // The breadth-first renumbering (order and P G Pᵀ in one pass), and the same sweep on the
    // renumbered kernel: what `reorder` costs and what it saves on a graph without locality.
    group.bench_function("renumbering", |b| {
        b.iter(|| PermutedCsr::breadth_first(&kernel, None, &Control::new()).expect("renumbering"))
    });
    let (_, renumbered) = PermutedCsr::breadth_first(&kernel, None, &Control::new())
        .expect("renumbering")
        .expect("no probe");
    let renumbered = renumbered.kernel();
    group.bench_function("hartigan_one_sweep_renumbered", |b| {
        b.iter(|| fit(&renumbered, k, &options, &Control::new()).expect("fit"))
    });
    group.finish();
}

/// Every path that evaluates ρ(x_a, x_b) from data, at D = 2 (the semimetric dominates) and
/// D = 10.
fn bench_pairwise(c: &mut Criterion) {
    let mut group = c.benchmark_group("pairwise");
    group.sample_size(20);
    let power = Semimetric::Power { alpha: 1.0 };
    for dim in [2usize, 10] {
        let n = 2000;
        let data = eq56_data(n, dim, 7);
        let x = Points::new(&data, n, dim).expect("points");
        for (name, base) in [("origin", Base::Origin), ("centered", Base::Centered)] {
            group.bench_function(
                BenchmarkId::new(format!("energy_gram_{name}_n2000"), dim),
                |b| b.iter(|| energy_gram::<f64>(&x, power, base).expect("gram")),
            );
        }
        group.bench_function(BenchmarkId::new("energy_gram_cross_n2000", dim), |b| {
            b.iter(|| energy_gram_cross::<f64>(&x, &x, power, Base::Mean).expect("cross"))
        });
        let kernel = DataKernel::new(x, power, Base::Mean).expect("kernel");
        let labels: Vec<usize> = (0..n).map(|i| i % 10).collect();
        let weights = vec![1.0; n];
        group.bench_function(BenchmarkId::new("matrix_free_sums_n2000_k10", dim), |b| {
            b.iter(|| cluster_sums(&kernel, &labels, &weights, 10, &Control::new()).expect("sums"))
        });
        let source = PairwiseSource::Data {
            points: x,
            semimetric: power,
        };
        group.bench_function(BenchmarkId::new("energy_statistics_n2000_k10", dim), |b| {
            b.iter(|| {
                energy_statistics(&source, &labels, 10, None, true, &Control::new()).expect("stats")
            })
        });
        let (a, rest) = data.split_at(n / 2 * dim);
        let (a, rest) = (
            Points::new(a, n / 2, dim).expect("a"),
            Points::new(rest, n / 2, dim).expect("b"),
        );
        group.bench_function(BenchmarkId::new("energy_distance_1000x1000", dim), |b| {
            b.iter(|| energy_distance(&a, &rest, power, &Control::new()).expect("distance"))
        });
        // Matrix-free rows of a larger set: parallel chunks (n >= 2^14).
        let n = 20_000;
        let data = eq56_data(n, dim, 8);
        let x = Points::new(&data, n, dim).expect("points");
        let kernel = DataKernel::new(x, power, Base::Mean).expect("kernel");
        let mut row = vec![0.0; n];
        group.bench_function(BenchmarkId::new("matrix_free_100_rows_n20000", dim), |b| {
            b.iter(|| {
                for i in 0..100 {
                    kernel.row_into(i * 37, &mut row);
                }
            })
        });
        group.bench_function(BenchmarkId::new("bandwidth_n20000", dim), |b| {
            b.iter(|| bandwidth(&x, &Control::new()).expect("bandwidth"))
        });
    }
    group.finish();
}

/// ρ of the exponential and gaussian semimetrics: the vectorisable expm1 the library uses
/// against libm's scalar `exp_m1` (the former evaluation, written out here as the reference),
/// on a slice of 4096 squared distances (t in [0, 8]) and on a full row of n = 20 000 points in
/// D = 10 (squared distances + ρ: `semimetric_row` against the same squared distances then
/// libm); then whole rows through the matrix-free kernel (the AVX2 path) and `energy_gram` at
/// n = 10 000, D = 10, each beside the power semimetric (α = 1, a square root per pair: the
/// floor these rows can reach).
fn bench_exp(c: &mut Criterion) {
    let mut group = c.benchmark_group("exp");
    group.sample_size(20);
    let sigma = 1.0;
    let libm_rho = |sm: Semimetric, d2: f64| match sm {
        Semimetric::Exponential { sigma } => -2.0 * (-(d2.sqrt() / (2.0 * sigma))).exp_m1(),
        Semimetric::Gaussian { sigma } => -2.0 * (-(0.5 * (d2 / sigma / sigma))).exp_m1(),
        Semimetric::Power { .. } => unreachable!("only the exponential semimetrics"),
    };
    let mut rng = Rng::new(11);
    let d2: Vec<f64> = (0..4096).map(|_| 16.0 * rng.next_f64()).collect();
    let mut out = d2.clone();
    for (name, sm) in [
        ("exponential", Semimetric::Exponential { sigma }),
        ("gaussian", Semimetric::Gaussian { sigma }),
    ] {
        group.bench_function(BenchmarkId::new("slice4096_libm", name), |b| {
            b.iter(|| {
                for (o, &v) in out.iter_mut().zip(&d2) {
                    *o = libm_rho(sm, std::hint::black_box(v));
                }
            })
        });
        group.bench_function(BenchmarkId::new("slice4096_vectorised", name), |b| {
            b.iter(|| {
                out.copy_from_slice(std::hint::black_box(&d2));
                sm.apply_to_squared_distances(&mut out);
            })
        });
    }
    let (n, dim) = (20_000, 10);
    let data = eq56_data(n, dim, 12);
    let x = Points::new(&data, n, dim).expect("points");
    let mut row = vec![0.0; n];
    let exponential = Semimetric::Exponential { sigma: 2.0 };
    group.bench_function("row_n20000_exponential_libm", |b| {
        b.iter(|| {
            squared_distances_from(&x, 7, &mut row).expect("row");
            row.iter_mut().for_each(|v| *v = libm_rho(exponential, *v));
        })
    });
    group.bench_function("row_n20000_exponential_vectorised", |b| {
        b.iter(|| semimetric_row(&x, exponential, 7, &mut row).expect("row"))
    });
    for (name, sm) in [
        ("power", Semimetric::Power { alpha: 1.0 }),
        ("exponential", exponential),
        ("gaussian", Semimetric::Gaussian { sigma: 2.0 }),
    ] {
        let kernel = DataKernel::new(x, sm, Base::Mean).expect("kernel");
        group.bench_function(BenchmarkId::new("matrix_free_100_rows_n20000", name), |b| {
            b.iter(|| {
                for i in 0..100 {
                    kernel.row_into(i * 37, &mut row);
                }
            })
        });
    }
    group.sample_size(10);
    let n = 10_000;
    let data = eq56_data(n, dim, 13);
    let x = Points::new(&data, n, dim).expect("points");
    for (name, sm) in [
        ("power", Semimetric::Power { alpha: 1.0 }),
        ("exponential", exponential),
        ("gaussian", Semimetric::Gaussian { sigma: 2.0 }),
    ] {
        group.bench_function(BenchmarkId::new("energy_gram_n10000", name), |b| {
            b.iter(|| energy_gram::<f64>(&x, sm, Base::Mean).expect("gram"))
        });
    }
    group.finish();
}

/// Squared distances around the threshold where they switch from coordinate differences
/// (D = 10) to the expanded ‖x‖² + ‖y‖² − 2⟨x, y⟩ with its cancellation guard (D = 24, 100),
/// in the dense builder (tiles of four rows) and the matrix-free cluster sums (the same tiles
/// turned into kernel values).
fn bench_gram_tile(c: &mut Criterion) {
    let mut group = c.benchmark_group("gram_tile");
    group.sample_size(10);
    let power = Semimetric::Power { alpha: 1.0 };
    let n = 2000;
    for dim in [10usize, 24, 100] {
        let data = eq56_data(n, dim, 11);
        let x = Points::new(&data, n, dim).expect("points");
        let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let weights = vec![1.0; n];
        group.bench_function(BenchmarkId::new("energy_gram_n2000", dim), |b| {
            b.iter(|| energy_gram::<f64>(&x, power, Base::Mean).expect("gram"))
        });
        group.bench_function(BenchmarkId::new("matrix_free_sums_n2000_k2", dim), |b| {
            let kernel = DataKernel::new(x, power, Base::Mean).expect("kernel");
            b.iter(|| cluster_sums(&kernel, &labels, &weights, 2, &Control::new()).expect("sums"))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_algorithms,
    bench_dense_pass,
    bench_pairwise,
    bench_gram_tile,
    bench_sparse,
    bench_exp
);
criterion_main!(benches);
