//! Tests of the points, the semimetrics and the pairwise rows.

#![allow(clippy::needless_range_loop)] // the naive reference loops index on purpose

use super::data_rows::{squared_norm, EXPANSION_MAX_DIM, EXPANSION_MIN_DIM};
use super::rows::squared_distance;
use super::*;
use crate::control::Control;
use crate::test_support::{assert_invalid, naive_d2, naive_rho, TestRng, SEMIMETRICS};

#[test]
fn points_validation() {
    assert_invalid(Points::new(&[], 0, 3), "X", "0 rows");
    assert_invalid(Points::new(&[], 3, 0), "X", "0 columns");
    assert_invalid(Points::new(&[1.0; 5], 2, 3), "X", "has 5 values");
    assert_invalid(Points::new(&[1.0; 5], usize::MAX, 3), "X", "too large");
    let mut d = vec![1.0; 12];
    d[7] = f64::NAN;
    assert_invalid(Points::new(&d, 4, 3), "X", "row 2, column 1");
    d[7] = 1.0;
    d[2] = f64::NEG_INFINITY;
    assert_invalid(Points::new(&d, 4, 3), "X", "row 0, column 2");
    d[2] = 0.5;
    let x = Points::new(&d, 4, 3).unwrap();
    assert_eq!((x.n(), x.dim(), x.row(0)), (4, 3, &[1.0, 1.0, 0.5][..]));
    assert_eq!(x.data().len(), 12);
    // beyond the first parallel chunk: the first bad value in row-major order is reported
    let mut big = vec![0.5; 3000 * 2];
    big[2500 * 2 + 1] = f64::INFINITY;
    big[2900 * 2] = f64::NAN;
    assert_invalid(
        Points::new(&big, 3000, 2),
        "X",
        "row 2500, column 1 (value inf)",
    );
}

#[test]
fn semimetric_validation_and_values() {
    for alpha in [0.0, -1.0, 2.0000001, f64::NAN, f64::INFINITY] {
        assert_invalid(
            Semimetric::Power { alpha }.validate(),
            "alpha",
            "0 < alpha <= 2",
        );
    }
    for sigma in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_invalid(
            Semimetric::Exponential { sigma }.validate(),
            "sigma",
            "finite and > 0",
        );
        assert_invalid(
            Semimetric::Gaussian { sigma }.validate(),
            "sigma",
            "finite and > 0",
        );
    }
    for sm in SEMIMETRICS {
        sm.validate().unwrap();
    }
    assert!(Semimetric::Power { alpha: 1e-9 }.validate().is_ok());
    assert_eq!(
        Semimetric::Power { alpha: 1.0 }.from_squared_distance(2.0),
        2f64.sqrt()
    );
    assert_eq!(
        Semimetric::Power { alpha: 2.0 }.from_squared_distance(0.3),
        0.3
    );
    let p = Semimetric::Power { alpha: 0.5 }.from_squared_distance(16.0);
    assert!((p - 2.0).abs() < 1e-15);
    let e = Semimetric::Exponential { sigma: 2.0 }.from_squared_distance(16.0);
    assert!((e - (2.0 - 2.0 * (-1.0f64).exp())).abs() < 1e-15);
    let g = Semimetric::Gaussian { sigma: 2.0 }.from_squared_distance(8.0);
    assert!((g - (2.0 - 2.0 * (-1.0f64).exp())).abs() < 1e-15);
    // tiny distances: relative accuracy (expm1), no 0·∞ for extreme bandwidths
    let t = Semimetric::Gaussian { sigma: 1.0 }.from_squared_distance(1e-30);
    assert!((t / 1e-30 - 1.0).abs() < 1e-14);
    for sm in [
        Semimetric::Gaussian { sigma: 1e-300 },
        Semimetric::Exponential { sigma: 1e-300 },
    ] {
        assert_eq!(sm.from_squared_distance(0.0), 0.0);
        assert_eq!(sm.from_squared_distance(1.0), 2.0);
    }
    for sm in [
        Semimetric::Gaussian { sigma: 1e300 },
        Semimetric::Exponential { sigma: 1e300 },
    ] {
        let v = sm.from_squared_distance(1.0);
        assert!((0.0..=1e-299).contains(&v), "{v}");
    }
    // the slice version is bit-identical to the scalar one
    let mut rng = TestRng(1);
    let d2: Vec<f64> = (0..100).map(|_| 10.0 * rng.next_f64()).collect();
    for sm in SEMIMETRICS {
        let mut v = d2.clone();
        sm.apply_to_squared_distances(&mut v);
        for (a, b) in v.iter().zip(&d2) {
            assert_eq!(a.to_bits(), sm.from_squared_distance(*b).to_bits());
        }
    }
}

#[test]
fn rows_match_naive() {
    let mut rng = TestRng(3);
    let (n, dim) = (23, 5);
    let data = rng.data(n, dim, 1.0, 0.0);
    let x = Points::new(&data, n, dim).unwrap();
    let mut out = vec![0.0; n];
    for i in [0, 7, n - 1] {
        squared_distances_from(&x, i, &mut out).unwrap();
        for b in 0..n {
            assert_eq!(out[b], naive_d2(x.row(i), x.row(b)));
        }
        for sm in SEMIMETRICS {
            semimetric_row(&x, sm, i, &mut out).unwrap();
            for b in 0..n {
                let want = naive_rho(sm, x.row(i), x.row(b));
                assert!(
                    (out[b] - want).abs() <= 1e-14 * want.abs(),
                    "{sm:?} {} vs {want}",
                    out[b]
                );
            }
        }
    }
}

#[test]
fn row_arguments_are_checked() {
    let x = Points::new(&[1.0, 2.0], 2, 1).unwrap();
    assert_invalid(
        squared_distances_from(&x, 0, &mut [0.0; 3]),
        "out",
        "out has length 3 but must have length n = 2",
    );
    assert_invalid(
        semimetric_row(&x, SEMIMETRICS[0], 2, &mut [0.0; 2]),
        "i",
        "i = 2 is out of range for n = 2",
    );
    assert_eq!(x.get(1), Some(&[2.0][..]));
    assert_eq!(x.get(2), None);
}

/// The squared distance of `xa` and `yb` as the rows compute it, written out pair by pair:
/// differences, or (`expanded`) ‖x‖² + ‖y‖² − 2⟨x, y⟩ (the dot product by fused
/// multiply-adds) kept where the documented guard c = (2D + 4)·2^-13 trusts it.
fn reference_squared_distance(xa: &[f64], yb: &[f64], expanded: bool) -> f64 {
    let exact = squared_distance(xa, yb);
    if !expanded {
        return exact;
    }
    let (mut na, mut nb, mut dot) = (0.0, 0.0, 0.0);
    for k in 0..xa.len() {
        na += xa[k] * xa[k];
        nb += yb[k] * yb[k];
        dot = xa[k].mul_add(yb[k], dot);
    }
    let s = na + nb;
    let e = s - 2.0 * dot;
    let guard = (2 * xa.len() + 4) as f64 / 8192.0;
    if e >= guard * s && e >= 1.1e-271 && s <= f64::MAX {
        e
    } else {
        exact
    }
}

/// ρ(x_a, y_b) of the points in the frame `scale`, pair by pair from the formula.
fn rho_of_pair(sm: Semimetric, scale: f64, a: &[f64], b: &[f64]) -> f64 {
    let xa: Vec<f64> = a.iter().map(|v| v * scale).collect();
    let yb: Vec<f64> = b.iter().map(|v| v * scale).collect();
    let expanded = (EXPANSION_MIN_DIM..=EXPANSION_MAX_DIM).contains(&a.len());
    let d2 = reference_squared_distance(&xa, &yb, expanded);
    if d2 == 0.0 {
        0.0
    } else {
        sm.from_squared_distance(d2)
    }
}

/// Runs of a row that start and end anywhere: inside a block, on its edges, across several
/// blocks, with remainders of every lane width.
fn runs(n: usize) -> Vec<(usize, usize)> {
    let mut runs = vec![(0, n), (n - 1, 1), (0, 1)];
    for start in [1, 3, 17, BLOCK - 5, BLOCK, BLOCK + 9, 2 * BLOCK - 1] {
        for len in [1, 2, 4, 5, 15, 16, 21, 64, BLOCK, BLOCK + 7, 3 * BLOCK] {
            if start + len <= n {
                runs.push((start, len));
            }
        }
    }
    runs
}

#[test]
fn data_rows_are_the_pairwise_formula_for_any_run() {
    let mut rng = TestRng(40);
    for (n, dim) in [
        (1, 1),
        (15, 3),
        (BLOCK + 37, 2),
        (3 * BLOCK + 5, 7),
        (300, 40),
        (BLOCK + 37, EXPANSION_MIN_DIM),
        (2 * BLOCK + 3, 100),
    ] {
        let data = rng.data(n, dim, 1.0, 0.5);
        let x = Points::new(&data, n, dim).unwrap();
        for scale in [1.0, 0.5, 2f64.powi(600)] {
            for sm in SEMIMETRICS {
                let rows = DataRows::new(x, scale, sm, "X").unwrap();
                assert_eq!(rows.n(), n);
                for a in [0, n / 2, n - 1] {
                    for (start, len) in runs(n) {
                        let mut out = vec![f64::NAN; len];
                        rows.values(a, start, &mut out);
                        for (j, &v) in out.iter().enumerate() {
                            let want = rho_of_pair(sm, scale, x.row(a), x.row(start + j));
                            assert_eq!(
                                v.to_bits(),
                                want.to_bits(),
                                "n {n} D {dim} scale {scale} {sm:?} a {a} b {}",
                                start + j
                            );
                        }
                    }
                }
                // Tiles (groups of rows that start anywhere, runs across blocks) hold the
                // values of the rows, bit for bit.
                for (first, count) in [(0, 5.min(n)), (n / 3, 7.min(n - n / 3)), (n - 1, 1)] {
                    for (start, len) in [(0, n), (n / 2, n - n / 2), (n - 1, 1)] {
                        let mut tile = vec![f64::NAN; count * len];
                        assert!(rows.tile_then(
                            first..first + count,
                            start,
                            &mut tile,
                            &Control::new(),
                            |_| ()
                        ));
                        for (a, got) in (first..first + count).zip(tile.chunks_exact(len)) {
                            let mut want = vec![0.0; len];
                            rows.values(a, start, &mut want);
                            let bits =
                                |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                            assert_eq!(bits(got), bits(&want), "n {n} D {dim} {sm:?} tile row {a}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn vector_paths_are_bit_identical() {
    // On an AVX2 machine `rho_point` takes the AVX2 pair kernel; it must equal the portable one,
    // for scaled and unscaled frames and runs that start off the blocks.
    let (n, dim) = (1000, 7);
    let mut rng = TestRng(41);
    let unit = rng.data(n, dim, 3.0, -1.0);
    for factor in [1.0, 1e-170, 1e200] {
        let data: Vec<f64> = unit.iter().map(|v| v * factor).collect();
        let x = Points::new(&data, n, dim).unwrap();
        for (sm, scale) in [
            (Semimetric::Power { alpha: 1.0 }, 1.0),
            (Semimetric::Power { alpha: 1.5 }, 1.0 / factor),
            (Semimetric::Gaussian { sigma: 2.0 }, 1.0),
        ] {
            let scale = if scale == 1.0 {
                1.0
            } else {
                crate::scale::pow2(-crate::scale::binary_exponent(factor))
            };
            let rows = DataRows::new(x, scale, sm, "X").unwrap();
            for i in [0, 500, 999] {
                let xa: Vec<f64> = x.row(i).iter().map(|v| v * scale).collect();
                for (start, len) in runs(n) {
                    let (mut dispatched, mut portable) = (vec![0.0; len], vec![0.0; len]);
                    rows.rho_point(x.row(i), start, &mut dispatched);
                    let norm = squared_norm(&xa);
                    rows.rho_in_frame_portable(&xa, norm, start, &mut portable, &());
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(&dispatched),
                        bits(&portable),
                        "{sm:?} row {i} {start}+{len}"
                    );
                }
            }
        }
    }
}

/// Every compiled copy of the pair kernel the CPU runs (portable, AVX2 with FMA, AVX-512)
/// gives the same bits, rows one by one and in tiles of rows (whose expanded form takes
/// several panels of dot products at once on AVX-512), for coordinates below and above the
/// expansion's threshold. Each tile is seen to take the copy asked for; a copy the CPU lacks
/// is not compared (the test says so).
#[test]
fn every_vector_path_gives_the_same_bits() {
    let n = 700;
    let mut rng = TestRng(47);
    let paths: Vec<VectorPath> = [VectorPath::Portable, VectorPath::Avx2, VectorPath::Avx512]
        .into_iter()
        .filter(|&path| {
            let runs = cpu_runs(path);
            if !runs {
                eprintln!("skipped: this CPU lacks {path:?}; that copy is not compared");
            }
            runs
        })
        .collect();
    assert!(paths.contains(&VectorPath::Portable));
    for dim in [7, EXPANSION_MIN_DIM, 33, 100] {
        let data = rng.data(n, dim, 2.0, -1.0);
        let x = Points::new(&data, n, dim).unwrap();
        for sm in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Power { alpha: 0.5 },
            Semimetric::Exponential { sigma: 1.5 },
        ] {
            let rows = DataRows::new(x, 1.0, sm, "X").unwrap();
            // Tiles of 1 to 11 rows (groups of four and the rows left over), runs across blocks.
            for (first, count) in [(0, 1), (3, 4), (5, 11), (n - 9, 9)] {
                for (start, len) in [(0, n), (1, 37), (BLOCK - 5, 300), (n - 21, 21)] {
                    let tiles: Vec<Vec<u64>> = paths
                        .iter()
                        .map(|&path| {
                            let mut out = vec![0.0; count * len];
                            let ((), taken) = with_vectors_up_to(path, || {
                                let rows_range = first..first + count;
                                assert!(rows.rho_tile_then(
                                    rows_range,
                                    start,
                                    &mut out,
                                    &Control::new(),
                                    |_| ()
                                ));
                            });
                            assert_eq!(expected_path(path), path);
                            assert!(taken[path as usize] > 0, "{path:?} did not run: {taken:?}");
                            assert_eq!(
                                taken.iter().sum::<usize>(),
                                taken[path as usize],
                                "{path:?}: other copies ran too: {taken:?}"
                            );
                            out.iter().map(|v| v.to_bits()).collect()
                        })
                        .collect();
                    for (path, tile) in paths.iter().zip(&tiles).skip(1) {
                        assert!(
                            tile == &tiles[0],
                            "{path:?} against portable: D = {dim}, {sm:?}, rows {first}+{count}, \
                             run {start}+{len}"
                        );
                    }
                    let mut one_by_one = vec![0.0; len];
                    for (r, a) in (first..first + count).enumerate() {
                        let ((), taken) = with_vectors_up_to(VectorPath::Portable, || {
                            rows.rho_row_then(a, start, &mut one_by_one, &())
                        });
                        assert_eq!(taken[0], taken.iter().sum::<usize>(), "{taken:?}");
                        let row_bits: Vec<u64> = one_by_one.iter().map(|v| v.to_bits()).collect();
                        assert_eq!(
                            row_bits[..],
                            tiles[0][r * len..(r + 1) * len],
                            "tile row {a} against the row alone: D = {dim}, {sm:?}"
                        );
                    }
                }
            }
        }
    }
}

/// Dot products taken several panels at once are those of each panel alone (each pair
/// summed in coordinate order whatever the number of panels).
#[test]
fn dot_products_do_not_depend_on_the_panels_taken_at_once() {
    const R: usize = 4;
    const L: usize = 8;
    let mut rng = TestRng(53);
    for dim in [1, 2, 20, 37] {
        let xa: Vec<f64> = (0..R * dim).map(|_| rng.normal_ish()).collect();
        let panels: Vec<f64> = (0..3 * L * dim).map(|_| rng.normal_ish() * 1e3).collect();
        let alone: Vec<[[f64; L]; R]> = panels
            .chunks_exact(L * dim)
            .map(|panel| super::simd::dot_panels::<R, L, 1>(&xa, panel)[0])
            .collect();
        let bits = |d: &[[f64; L]; R]| d.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>();
        let two = super::simd::dot_panels::<R, L, 2>(&xa, &panels[..2 * L * dim]);
        let three = super::simd::dot_panels::<R, L, 3>(&xa, &panels);
        for p in 0..2 {
            assert_eq!(bits(&two[p]), bits(&alone[p]), "D = {dim}, panel {p} of 2");
        }
        for p in 0..3 {
            assert_eq!(
                bits(&three[p]),
                bits(&alone[p]),
                "D = {dim}, panel {p} of 3"
            );
        }
    }
}

#[test]
fn matrix_rows_read_the_upper_triangle() {
    // Deliberately asymmetric: the strict lower triangle must never be read, nor the diagonal
    // of R (taken as exactly 0).
    let n = 5;
    let m: Vec<f64> = (0..n * n)
        .map(|p| if p / n <= p % n { (p + 1) as f64 } else { -1e9 })
        .collect();
    let upper = |a: usize, b: usize| m[a.min(b) * n + a.max(b)];
    for factor in [1.0, 0.25] {
        let r = SemimetricRows { r: &m, n, factor };
        let g = GramRows {
            g: &m,
            n,
            diagonal: (0..n).map(|b| m[b * n + b] * factor).collect(),
            factor,
        };
        assert_eq!((r.n(), g.n()), (n, n));
        for a in 0..n {
            for start in 0..n {
                let len = n - start;
                let (mut from_r, mut from_g) = (vec![0.0; len], vec![0.0; len]);
                r.values(a, start, &mut from_r);
                g.values(a, start, &mut from_g);
                for (j, b) in (start..n).enumerate() {
                    let want_r = if a == b { 0.0 } else { upper(a, b) * factor };
                    assert_eq!(from_r[j], want_r, "R ({a}, {b})");
                    let want_g = (upper(a, a) * factor + upper(b, b) * factor)
                        - 2.0 * (upper(a, b) * factor);
                    assert_eq!(from_g[j], want_g, "G ({a}, {b})");
                    if a == b {
                        assert_eq!(from_g[j], 0.0);
                    }
                }
            }
        }
    }
}

/// Relative error of `got` against the exact-difference squared distance `want`.
fn relative_error(got: f64, want: f64) -> f64 {
    if want == 0.0 {
        got.abs()
    } else {
        ((got - want) / want).abs()
    }
}

/// Squared distances (ρ = ‖x − y‖², α = 2) of every pair of `data` through the rows and
/// through their tiles, each checked against the exact differences: relative error ≤ 1e-12
/// (the guard's bound is 2^-40 ≈ 9.1e-13, the differences themselves are within (D + 2)u).
/// Returns the largest relative error seen.
fn check_squared_distances(data: &[f64], n: usize, dim: usize) -> f64 {
    let x = Points::new(data, n, dim).unwrap();
    let rows = DataRows::new(x, 1.0, Semimetric::Power { alpha: 2.0 }, "X").unwrap();
    let mut tile = vec![0.0; n * n];
    assert!(rows.tile_then(0..n, 0, &mut tile, &Control::new(), |_| ()));
    let mut worst = 0.0f64;
    let mut row = vec![0.0; n];
    for a in 0..n {
        rows.values(a, 0, &mut row);
        assert_eq!(row, tile[a * n..(a + 1) * n], "D {dim} row {a}");
        for b in 0..n {
            let want = squared_distance(x.row(a), x.row(b));
            let err = relative_error(row[b], want);
            assert!(err <= 1e-12, "D {dim} ({a}, {b}): {} vs {want}", row[b]);
            worst = worst.max(err);
        }
    }
    worst
}

#[test]
fn expanded_squared_distances_are_accurate_on_every_dimension() {
    // Around the thresholds and beyond: random data, centred and off the origin (the rows
    // themselves do not centre; the guard sends the cancelling pairs to the differences).
    let mut rng = TestRng(50);
    let mut dims: Vec<usize> = (1..=40).collect();
    dims.extend([63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300]);
    for dim in dims {
        let n = 37;
        for offset in [0.0, 3.0, 1e3] {
            let data = rng.data(n, dim, 2.0, offset);
            check_squared_distances(&data, n, dim);
        }
    }
}

#[test]
fn cancelling_expansions_are_recomputed_from_differences() {
    // Near-duplicates in D = 100, far from the origin: ‖x − y‖² ≪ ‖x‖² + ‖y‖², where the
    // expansion alone cancels (the check below shows that it does); the guard must catch every
    // such pair, so the rows stay within 1e-12 of the differences.
    let (n, dim) = (24, 100);
    assert!((EXPANSION_MIN_DIM..=EXPANSION_MAX_DIM).contains(&dim));
    let mut rng = TestRng(51);
    let centre = rng.data(1, dim, 1.0, 10.0);
    let mut data = Vec::with_capacity(n * dim);
    for i in 0..n {
        // distances from 1e-14 to 1e-1 relative to the norms
        let spread = 10f64.powi(-(i as i32 % 14));
        data.extend(centre.iter().map(|&c| c + spread * (rng.next_f64() - 0.5)));
    }
    let mut unguarded_worst = 0.0f64;
    for a in 0..n {
        for b in 0..n {
            let (x, y) = (&data[a * dim..(a + 1) * dim], &data[b * dim..(b + 1) * dim]);
            let (mut na, mut nb, mut dot) = (0.0, 0.0, 0.0);
            for k in 0..dim {
                na += x[k] * x[k];
                nb += y[k] * y[k];
                dot += x[k] * y[k];
            }
            let unguarded = (na + nb) - 2.0 * dot;
            unguarded_worst =
                unguarded_worst.max(relative_error(unguarded, squared_distance(x, y)));
        }
    }
    assert!(
        unguarded_worst > 1e-3,
        "the data must cancel: {unguarded_worst}"
    );
    check_squared_distances(&data, n, dim);
    // The same through the energy kernel of the dense builder and the matrix-free rows.
    let x = Points::new(&data, n, dim).unwrap();
    let sm = Semimetric::Power { alpha: 1.0 };
    let g: Vec<f64> = crate::energy_gram(&x, sm, crate::Base::Mean).unwrap();
    let kernel = crate::DataKernel::new(x, sm, crate::Base::Mean).unwrap();
    let mut row = vec![0.0; n];
    for a in 0..n {
        crate::Kernel::row_into(&kernel, a, &mut row);
        assert_eq!(row, g[a * n..(a + 1) * n]);
        for b in 0..n {
            // ρ(a, b) = G_aa + G_bb − 2G_ab, against the distance from differences
            let rho = g[a * n + a] + g[b * n + b] - 2.0 * g[a * n + b];
            let want = squared_distance(x.row(a), x.row(b)).sqrt();
            let scale = g[a * n + a] + g[b * n + b];
            assert!(
                (rho - want).abs() <= 1e-12 * scale.max(want),
                "({a}, {b}): {rho} vs {want}"
            );
        }
    }
}

#[test]
fn a_squared_distance_below_the_normal_range_is_taken_from_the_distance() {
    // Every fifth point lies within ~1e-170 of the origin, the others about 1 away: the
    // squared distances between two close points leave the normal range (or underflow to 0)
    // while the frame stays at scale 1, so their ρ must come from the distance itself. The
    // reference scales the differences by 2^600 (exactly) before squaring.
    let (n, dim) = (BLOCK + 40, 3);
    let mut rng = TestRng(9);
    let mut data = rng.data(n, dim, 1.0, 0.5);
    for i in (0..n).step_by(5) {
        for (k, v) in data[i * dim..(i + 1) * dim].iter_mut().enumerate() {
            *v = (i as f64 - 100.0) * (k as f64 + 1.0) * 1e-172;
        }
    }
    let x = Points::new(&data, n, dim).unwrap();
    let up = 2f64.powi(600);
    let distance = |a: &[f64], b: &[f64]| {
        let s: f64 = a.iter().zip(b).map(|(u, v)| ((u - v) * up).powi(2)).sum();
        s.sqrt() / up
    };
    for sm in SEMIMETRICS {
        let rows = DataRows::new(x, 1.0, sm, "X").unwrap();
        for a in [0, 5, 15, 280] {
            let mut out = vec![f64::NAN; n];
            rows.values(a, 0, &mut out);
            for (b, &got) in out.iter().enumerate().step_by(5) {
                let want = sm.from_distance(distance(x.row(a), x.row(b)));
                assert!(
                    (got - want).abs() <= 1e-14 * want.abs(),
                    "{sm:?} a {a} b {b}: {got:e} vs {want:e}"
                );
            }
        }
    }
}

#[test]
fn distance_rows_are_the_pairwise_squared_distances_bit_for_bit() {
    let mut rng = TestRng(78);
    for (n, dim) in [(1, 3), (5, 1), (7, 600), (9, 13), (12, 2)] {
        let data: Vec<f64> = (0..n * dim).map(|_| 10.0 * rng.normal_ish()).collect();
        let x = Points::new(&data, n, dim).unwrap();
        for path in [VectorPath::Portable, VectorPath::Avx2] {
            for i in 0..n {
                let mut out = vec![f64::NAN; n];
                let (result, _) =
                    with_vectors_up_to(path, || squared_distances_from(&x, i, &mut out));
                result.unwrap();
                for (y, got) in out.iter().enumerate() {
                    let want = squared_distance(x.row(i), x.row(y));
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "n = {n}, dim = {dim}, {path:?}"
                    );
                }
            }
        }
    }
}
