//! Tests of the dense Gram builders against naive formulas.

#![allow(clippy::needless_range_loop)] // the naive reference loops index on purpose

use super::tiles::for_each_block_pair;
use super::*;
use crate::distance::{semimetric_row, Points, Semimetric, BLOCK};
use crate::error::KGroupsError;
use crate::test_support::{
    assert_invalid, assert_out_of_memory, in_pool, naive_d2, naive_r, naive_rho, TestRng,
    SEMIMETRICS,
};

mod bandwidth;
mod magnitude;
mod matrix;

pub(super) fn naive_origin(
    sm: Semimetric,
    data: &[f64],
    n: usize,
    dim: usize,
) -> (Vec<f64>, Vec<f64>) {
    let zero = vec![0.0; dim];
    let r0: Vec<f64> = (0..n)
        .map(|a| naive_rho(sm, &data[a * dim..(a + 1) * dim], &zero))
        .collect();
    let r = naive_r(sm, data, n, dim);
    let mut g = vec![0.0; n * n];
    let mut scale = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            g[a * n + b] = 0.5 * (r0[a] + r0[b] - r[a * n + b]);
            scale[a * n + b] = r0[a].abs() + r0[b].abs() + r[a * n + b].abs();
        }
    }
    (g, scale)
}

/// −½ J R J by explicit matrix products (O(n³); for larger n by the equivalent row-mean
/// formula, itself checked against the products on small n).
pub(super) fn naive_centered(r: &[f64], n: usize) -> Vec<f64> {
    if n > 64 {
        return centered_by_means(r, n);
    }
    let j = |a: usize, b: usize| {
        if a == b {
            1.0 - 1.0 / n as f64
        } else {
            -1.0 / n as f64
        }
    };
    let mut jr = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            jr[a * n + b] = (0..n).map(|c| j(a, c) * r[c * n + b]).sum();
        }
    }
    let mut out = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            out[a * n + b] = -0.5 * (0..n).map(|c| jr[a * n + c] * j(c, b)).sum::<f64>();
        }
    }
    out
}

fn centered_by_means(r: &[f64], n: usize) -> Vec<f64> {
    let m: Vec<f64> = (0..n)
        .map(|a| r[a * n..(a + 1) * n].iter().sum::<f64>() / n as f64)
        .collect();
    let m_all = m.iter().sum::<f64>() / n as f64;
    let mut out = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            out[a * n + b] = -0.5 * (r[a * n + b] - m[a] - m[b] + m_all);
        }
    }
    out
}

#[test]
fn centering_formulas_agree() {
    let n = 30;
    let data = TestRng(20).data(n, 2, 1.0, 0.0);
    let r = naive_r(Semimetric::Power { alpha: 1.0 }, &data, n, 2);
    let (a, b) = (naive_centered(&r, n), centered_by_means(&r, n));
    for i in 0..n * n {
        assert!((a[i] - b[i]).abs() < 1e-13, "{} vs {}", a[i], b[i]);
    }
}

pub(super) fn assert_exactly_symmetric<T: KernelElement + PartialEq + std::fmt::Debug>(
    g: &[T],
    n: usize,
) {
    for a in 0..n {
        for b in 0..a {
            assert_eq!(g[a * n + b], g[b * n + a], "asymmetric at ({a}, {b})");
        }
    }
}

#[test]
fn tournament_visits_every_pair_once() {
    for nb in 0..12 {
        let mut states: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nb];
        let ok = for_each_block_pair(&mut states, |_, p, sp, other| {
            match other {
                None => sp.push((p, p)),
                Some((q, sq)) => {
                    assert!(p < q);
                    sp.push((p, q));
                    sq.push((p, q));
                }
            }
            true
        });
        assert!(ok);
        let mut seen: Vec<(usize, usize)> = states.iter().flatten().copied().collect();
        seen.sort();
        let mut want = Vec::new();
        for p in 0..nb {
            want.push((p, p));
            for q in p + 1..nb {
                want.push((p, q));
                want.push((p, q)); // recorded by both blocks
            }
        }
        want.sort();
        assert_eq!(seen, want, "nb = {nb}");
    }
    let mut states = vec![(); 5];
    assert!(!for_each_block_pair(&mut states, |_, p, _, o| !(p == 1
        && o.map(|x| x.0) == Some(3))));
}

fn check_gram_against_naive(n: usize, dim: usize, shift: f64, seed: u64) {
    let mut rng = TestRng(seed);
    let data = rng.data(n, dim, 1.0, shift);
    let x = Points::new(&data, n, dim).unwrap();
    for sm in SEMIMETRICS {
        let (want, scale) = naive_origin(sm, &data, n, dim);
        let g: Vec<f64> = energy_gram(&x, sm, Base::Origin).unwrap();
        let g32: Vec<f32> = energy_gram(&x, sm, Base::Origin).unwrap();
        assert_exactly_symmetric(&g, n);
        assert_exactly_symmetric(&g32, n);
        for i in 0..n * n {
            assert!(
                (g[i] - want[i]).abs() <= 1e-12 * scale[i],
                "{sm:?} origin f64 at {i}: {} vs {}",
                g[i],
                want[i]
            );
            assert!(
                (g32[i] as f64 - want[i]).abs() <= 1e-6 * scale[i] + 1e-30,
                "{sm:?} origin f32 at {i}: {} vs {}",
                g32[i],
                want[i]
            );
        }
        let r = naive_r(sm, &data, n, dim);
        let rmax = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let want_c = naive_centered(&r, n);
        let c: Vec<f64> = energy_gram(&x, sm, Base::Centered).unwrap();
        let c32: Vec<f32> = energy_gram(&x, sm, Base::Centered).unwrap();
        assert_exactly_symmetric(&c, n);
        assert_exactly_symmetric(&c32, n);
        for i in 0..n * n {
            assert!(
                (c[i] - want_c[i]).abs() <= 1e-12 * rmax,
                "{sm:?} centered f64 at {i}: {} vs {}",
                c[i],
                want_c[i]
            );
            assert!(
                (c32[i] as f64 - want_c[i]).abs() <= 1e-6 * rmax,
                "{sm:?} centered f32 at {i}"
            );
        }
        // Origin − Centered = f(a) + f(b) + const
        for a in 0..n {
            for b in 0..n {
                let d = |i: usize, j: usize| g[i * n + j] - c[i * n + j];
                let resid = d(a, b) - d(a, 0) - d(0, b) + d(0, 0);
                let tol = 1e-11 * (scale[a * n + b] + scale[a * n] + scale[b] + rmax);
                assert!(resid.abs() <= tol, "{sm:?} structure at ({a},{b}): {resid}");
            }
        }
        // the same from the semimetric matrix
        let gr: Vec<f64> = gram_from_semimetric(&r, n, Base::Centered).unwrap();
        for i in 0..n * n {
            assert!(
                (gr[i] - want_c[i]).abs() <= 1e-12 * rmax,
                "{sm:?} R centered at {i}"
            );
        }
        let go: Vec<f64> = gram_from_semimetric(&r, n, Base::Origin).unwrap();
        let go32: Vec<f32> = gram_from_semimetric(&r, n, Base::Origin).unwrap();
        assert_exactly_symmetric(&go, n);
        for a in 0..n {
            for b in 0..n {
                let w = 0.5 * (r[a * n] + r[b * n] - r[a * n + b]);
                let v = go[a * n + b];
                assert!(
                    (v - w).abs() <= 1e-13 * rmax,
                    "{sm:?} R origin ({a},{b}): {v} vs {w}"
                );
                assert!((go32[a * n + b] as f64 - w).abs() <= 1e-6 * rmax);
            }
        }
    }
}

#[test]
fn gram_small_cases() {
    check_gram_against_naive(1, 1, 0.0, 10);
    check_gram_against_naive(2, 3, 0.5, 11);
    check_gram_against_naive(17, 2, 0.0, 12);
    check_gram_against_naive(40, 7, 3.0, 13);
}

#[test]
fn gram_several_blocks() {
    // 3 blocks, the last one partial (odd number: a bye in every round).
    check_gram_against_naive(2 * BLOCK + 13, 3, 1.0, 14);
}

#[test]
fn gram_even_blocks_against_naive_origin() {
    let (n, dim) = (4 * BLOCK - 1, 6);
    let mut rng = TestRng(15);
    let data = rng.data(n, dim, 2.0, -1.0);
    let x = Points::new(&data, n, dim).unwrap();
    let sm = Semimetric::Power { alpha: 1.0 };
    let (want, scale) = naive_origin(sm, &data, n, dim);
    let g: Vec<f64> = energy_gram(&x, sm, Base::Origin).unwrap();
    assert_exactly_symmetric(&g, n);
    for i in 0..n * n {
        assert!((g[i] - want[i]).abs() <= 1e-12 * scale[i], "at {i}");
    }
}

#[test]
fn near_duplicates_are_accurate() {
    let (n, dim) = (6, 50);
    let mut rng = TestRng(16);
    let mut data = rng.data(n, dim, 1.4, 0.0); // norms around 10
    let base: Vec<f64> = data[..dim].to_vec();
    let norm = naive_d2(&base, &vec![0.0; dim]).sqrt();
    assert!(norm > 5.0, "{norm}");
    data[dim..2 * dim].copy_from_slice(&base);
    data[dim] += 1e-9;
    data[2 * dim..3 * dim].copy_from_slice(&base);
    data[2 * dim + 7] -= 3e-12;
    let x = Points::new(&data, n, dim).unwrap();
    let sm = Semimetric::Power { alpha: 1.0 };
    let mut row = vec![0.0; n];
    semimetric_row(&x, sm, 0, &mut row).unwrap();
    for (j, want) in [
        (1, (base[0] + 1e-9) - base[0]),
        (2, base[7] - (base[7] - 3e-12)),
    ] {
        let want = want.abs(); // the exact difference of the stored coordinates
        assert!(
            (row[j] - want).abs() <= 1e-12 * want,
            "{} vs {want}",
            row[j]
        );
        assert!(row[j] > 0.0);
    }
    for sm in SEMIMETRICS {
        let (want, scale) = naive_origin(sm, &data, n, dim);
        let g: Vec<f64> = energy_gram(&x, sm, Base::Origin).unwrap();
        for i in 0..n * n {
            assert!((g[i] - want[i]).abs() <= 1e-12 * scale[i], "{sm:?} at {i}");
        }
        // the semimetric between the near-duplicates, from the tile code
        let r = naive_r(sm, &data, n, dim);
        let mut row = vec![0.0; n];
        semimetric_row(&x, sm, 0, &mut row).unwrap();
        for j in 1..3 {
            assert!(
                (row[j] - r[j]).abs() <= 1e-12 * r[j],
                "{sm:?} rho(0,{j}): {} vs {}",
                row[j],
                r[j]
            );
        }
    }
    // The centred Gram entries of the near-duplicates: ρ(0,1) recovered from the data path
    // tiles (G_aa + G_bb − 2G_ab) is accurate to rounding of the kernel entries.
    let c: Vec<f64> = energy_gram(&x, Semimetric::Power { alpha: 2.0 }, Base::Centered).unwrap();
    let rho01 = c[0] + c[n + 1] - 2.0 * c[1];
    assert!(rho01.abs() < 1e-12 * c[0].abs().max(1.0));
}

#[test]
fn gram_overflow_is_an_error() {
    // Squared distances of 1e400 are out of range, but ‖x‖ = 1e200 is not: computed in a
    // scaled frame. With α = 2 the entries themselves (1e400) overflow: refused.
    let data = [1e200, 0.0, -1e200, 1.0];
    let x = Points::new(&data, 2, 2).unwrap();
    for base in [Base::Origin, Base::Mean, Base::Centered] {
        let g: Vec<f64> = energy_gram(&x, Semimetric::Power { alpha: 1.0 }, base).unwrap();
        assert!(
            g.iter().all(|v| v.is_finite()) && g[0] > 0.4e200,
            "{base:?} {g:?}"
        );
        assert_invalid(
            energy_gram::<f64>(&x, Semimetric::Power { alpha: 2.0 }, base),
            "X",
            "overflow f64",
        );
    }
    // fits f64 but not f32
    let data = [1e20, 0.0, -1e20, 1.0];
    let x = Points::new(&data, 2, 2).unwrap();
    assert!(energy_gram::<f64>(&x, Semimetric::Power { alpha: 2.0 }, Base::Origin).is_ok());
    assert_invalid(
        energy_gram::<f32>(&x, Semimetric::Power { alpha: 2.0 }, Base::Origin),
        "X",
        "overflow f32",
    );
    assert_invalid(
        gram_from_semimetric::<f64>(&[0.0, f64::MAX, f64::MAX, 0.0], 2, Base::Origin),
        "R",
        "overflow",
    );
}

#[test]
fn gram_argument_errors() {
    let x = Points::new(&[0.0, 1.0, 2.0], 3, 1).unwrap();
    assert_invalid(
        energy_gram::<f64>(&x, Semimetric::Power { alpha: 3.0 }, Base::Origin),
        "alpha",
        "alpha = 3",
    );
    assert_invalid(
        energy_gram::<f32>(&x, Semimetric::Gaussian { sigma: -1.0 }, Base::Centered),
        "sigma",
        "sigma = -1",
    );
    let mut out = vec![0.0f64; 8];
    assert_invalid(
        energy_gram_into(
            &x,
            Semimetric::Power { alpha: 1.0 },
            Base::Origin,
            &mut out,
            &Control::new(),
        ),
        "out",
        "length 8",
    );
    let mut out = vec![7.0f64; 9];
    let power = Semimetric::Power { alpha: 1.0 };
    energy_gram_into(&x, power, Base::Origin, &mut out, &Control::new()).unwrap();
    assert_eq!(out, vec![0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 2.0]);
    assert_out_of_memory(
        new_matrix::<f64>(1 << 31, 1 << 31, "X", |_| Ok(())),
        "X",
        "32.0 EiB",
    );
    assert_out_of_memory(
        new_matrix::<f32>(1 << 33, 1 << 33, "X", |_| Ok(())),
        "X",
        "cannot be allocated",
    );
    assert_out_of_memory(
        new_matrix::<f64>(1 << 20, 1 << 30, "R", |_| Ok(())),
        "R",
        "8.0 PiB",
    );
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let (n, dim) = (3 * BLOCK + 7, 3);
    let mut rng = TestRng(18);
    let data = rng.data(n, dim, 1.0, 5.0);
    let x = Points::new(&data, n, dim).unwrap();
    let sm = Semimetric::Exponential { sigma: 0.9 };
    let run = || {
        let c: Vec<f64> = energy_gram(&x, sm, Base::Centered).unwrap();
        let o: Vec<f32> = energy_gram(&x, sm, Base::Origin).unwrap();
        let r = naive_r(sm, &data, n, dim);
        let cr: Vec<f64> = gram_from_semimetric(&r, n, Base::Centered).unwrap();
        (c, o, cr, bandwidth(&x, &Control::new()).unwrap())
    };
    let one = in_pool(1, run);
    let two = in_pool(2, run);
    let three = in_pool(3, run);
    assert!(one == two && two == three);
    let bits = |v: &Vec<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&one.0), bits(&two.0));
}

#[test]
fn cross_gram_matches_naive_and_square() {
    let mut rng = TestRng(21);
    let (nx, ny, dim) = (37, 1100, 3);
    let xd = rng.data(nx, dim, 1.0, 0.5);
    let yd = rng.data(ny, dim, 1.0, -0.5);
    let (x, y) = (
        Points::new(&xd, nx, dim).unwrap(),
        Points::new(&yd, ny, dim).unwrap(),
    );
    let zero = vec![0.0; dim];
    for sm in SEMIMETRICS {
        let k: Vec<f64> = energy_gram_cross(&x, &y, sm, Base::Origin).unwrap();
        let k32: Vec<f32> = energy_gram_cross(&x, &y, sm, Base::Origin).unwrap();
        for a in 0..nx {
            for b in 0..ny {
                let (ra, rb) = (
                    naive_rho(sm, x.row(a), &zero),
                    naive_rho(sm, y.row(b), &zero),
                );
                let r = naive_rho(sm, x.row(a), y.row(b));
                let want = 0.5 * (ra + rb - r);
                let scale = ra.abs() + rb.abs() + r.abs();
                assert!(
                    (k[a * ny + b] - want).abs() <= 1e-12 * scale,
                    "{sm:?} ({a},{b})"
                );
                assert!((k32[a * ny + b] as f64 - want).abs() <= 1e-6 * scale);
            }
        }
        let g: Vec<f64> = energy_gram(&x, sm, Base::Origin).unwrap();
        let kxx: Vec<f64> = energy_gram_cross(&x, &x, sm, Base::Origin).unwrap();
        assert_eq!(g, kxx);
        let g: Vec<f64> = energy_gram(&y, sm, Base::Mean).unwrap();
        let kyy: Vec<f64> = energy_gram_cross(&y, &y, sm, Base::Mean).unwrap();
        assert_eq!(g, kyy);
    }
    let z = Points::new(&xd[..nx * 2], nx, 2).unwrap();
    let sm = Semimetric::Power { alpha: 1.0 };
    assert_invalid(
        energy_gram_cross::<f64>(&x, &z, sm, Base::Origin),
        "Y",
        "X has D=3 columns but Y has D=2",
    );
    assert_invalid(
        energy_gram_cross::<f64>(&x, &y, Semimetric::Power { alpha: 0.0 }, Base::Mean),
        "alpha",
        "alpha = 0",
    );
    assert_invalid(
        energy_gram_cross::<f64>(&x, &y, sm, Base::Centered),
        "base",
        "not Base::Centered",
    );
    let big = Points::new(&[1e200, -1e200], 2, 1).unwrap();
    assert_invalid(
        energy_gram_cross::<f64>(&big, &big, Semimetric::Power { alpha: 2.0 }, Base::Mean),
        "X",
        "overflow f64",
    );
    // 2^21 × 2^22 entries: 64 TiB
    let (many_x, many_y) = (vec![0.5; 1 << 21], vec![0.25; 1 << 22]);
    let (many_x, many_y) = (
        Points::new(&many_x, 1 << 21, 1).unwrap(),
        Points::new(&many_y, 1 << 22, 1).unwrap(),
    );
    assert_out_of_memory(
        energy_gram_cross::<f64>(&many_x, &many_y, sm, Base::Mean),
        "X",
        "64.0 TiB",
    );
    let run = || energy_gram_cross::<f64>(&x, &y, sm, Base::Mean).unwrap();
    assert_eq!(in_pool(1, run), in_pool(2, run));
}

#[test]
fn cancelled_builders_stop() {
    let (n, dim) = (BLOCK + 3, 2);
    let data = TestRng(33).data(n, dim, 1.0, 0.0);
    let x = Points::new(&data, n, dim).unwrap();
    let flag = std::sync::atomic::AtomicBool::new(true);
    let cancelled = Control::new().with_cancel(&flag);
    let sm = Semimetric::Power { alpha: 1.0 };
    let mut out = vec![0.0f64; n * n];
    for base in [Base::Origin, Base::Mean, Base::Centered] {
        let r = energy_gram_into(&x, sm, base, &mut out, &cancelled);
        assert_eq!(r, Err(KGroupsError::Interrupted), "{base:?}");
    }
    let r = energy_gram_cross_into(&x, &x, sm, Base::Mean, &mut out, &cancelled);
    assert_eq!(r, Err(KGroupsError::Interrupted));
    let rm = naive_r(sm, &data, n, dim);
    for base in [Base::Origin, Base::Centered] {
        let r = gram_from_semimetric_into(&rm, n, base, &mut out, &cancelled);
        assert_eq!(r, Err(KGroupsError::Interrupted), "{base:?}");
    }
    assert_eq!(bandwidth(&x, &cancelled), Err(KGroupsError::Interrupted));
    // Cancelled midway (from another thread): stops long before the end. The full build
    // takes seconds (n = 4096, D = 256); the flag is set after 50 ms.
    let (n, dim) = (4096, 256);
    let data = TestRng(34).data(n, dim, 1.0, 0.0);
    let x = Points::new(&data, n, dim).unwrap();
    let flag = std::sync::atomic::AtomicBool::new(false);
    let control = Control::new().with_cancel(&flag);
    let mut out = vec![0.0f32; n * n];
    let started = std::time::Instant::now();
    let (result, stopped_after) = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(50));
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let r = energy_gram_into(&x, sm, Base::Mean, &mut out, &control);
        (r, started.elapsed())
    });
    assert_eq!(result, Err(KGroupsError::Interrupted));
    assert!(
        stopped_after < std::time::Duration::from_millis(1000),
        "{stopped_after:?}"
    );
}

#[test]
fn mean_and_scaled_results_do_not_depend_on_thread_count() {
    let (n, dim) = (2 * BLOCK + 7, 3);
    let data: Vec<f64> = TestRng(35).data(n, dim, 1e-200, 3e-199);
    let x = Points::new(&data, n, dim).unwrap();
    let run = || {
        let m: Vec<f64> = energy_gram(&x, Semimetric::Power { alpha: 0.7 }, Base::Mean).unwrap();
        let c: Vec<f64> =
            energy_gram(&x, Semimetric::Power { alpha: 1.0 }, Base::Centered).unwrap();
        (m, c, bandwidth(&x, &Control::new()).unwrap())
    };
    let one = in_pool(1, run);
    assert_eq!(one, in_pool(2, run));
    assert_eq!(one, in_pool(3, run));
}
