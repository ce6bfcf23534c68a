//! Data of any finite magnitude: exact scaling, refusal of unrepresentable kernels, and the
//! translation invariance of the mean base point.

#![allow(clippy::needless_range_loop)] // the naive reference loops index on purpose

use super::super::*;
use crate::distance::{Points, Semimetric, BLOCK};
use crate::test_support::{assert_invalid, naive_rho, TestRng, SEMIMETRICS};
use crate::DataKernel;

fn max_abs_of(v: &[f64]) -> f64 {
    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

#[test]
fn tiny_and_huge_data_are_exact() {
    // G(X·f) = f^α G(X) for the power semimetric (homogeneous); the exponential and gaussian
    // ones with σ·f give G(X) itself. Before scaling, squared distances of X·1e-170
    // underflowed to 0 (relative error 1) and those of X·1e200 overflowed.
    let (n, dim) = (BLOCK + 9, 3);
    let data = TestRng(30).data(n, dim, 1.0, 0.3);
    let x = Points::new(&data, n, dim).unwrap();
    for f in [1e-170, 1e-300, 1e-310, 1e150, 1e200, 1e300] {
        let scaled: Vec<f64> = data.iter().map(|v| v * f).collect();
        let xs = Points::new(&scaled, n, dim).unwrap();
        for (sm, sm_scaled, power) in [
            (
                Semimetric::Power { alpha: 1.0 },
                Semimetric::Power { alpha: 1.0 },
                1.0,
            ),
            (
                Semimetric::Power { alpha: 0.5 },
                Semimetric::Power { alpha: 0.5 },
                0.5,
            ),
            (
                Semimetric::Power { alpha: 1.7 },
                Semimetric::Power { alpha: 1.7 },
                1.7,
            ),
            (
                Semimetric::Exponential { sigma: 0.8 },
                Semimetric::Exponential { sigma: 0.8 * f },
                0.0,
            ),
            (
                Semimetric::Gaussian { sigma: 1.3 },
                Semimetric::Gaussian { sigma: 1.3 * f },
                0.0,
            ),
        ] {
            let magnitude = f.powf(power); // of the kernel entries
            if !(magnitude > 1e-300 && magnitude < 1e300) {
                continue; // not representable: see unrepresentable_kernels_are_refused
            }
            for base in [Base::Origin, Base::Mean, Base::Centered] {
                let want: Vec<f64> = energy_gram(&x, sm, base).unwrap();
                let got: Vec<f64> = energy_gram(&xs, sm_scaled, base).unwrap();
                let tol = 1e-12 * max_abs_of(&want);
                for i in 0..n * n {
                    assert!(
                        (got[i] / magnitude - want[i]).abs() <= tol,
                        "f = {f:e} {sm:?} {base:?} at {i}: {} vs {}",
                        got[i] / magnitude,
                        want[i]
                    );
                }
                if base != Base::Centered {
                    let cross: Vec<f64> = energy_gram_cross(&xs, &xs, sm_scaled, base).unwrap();
                    assert_eq!(cross, got, "cross f = {f:e} {sm:?} {base:?}");
                }
            }
        }
        let b = bandwidth(&xs, &Control::new()).unwrap();
        let b1 = bandwidth(&x, &Control::new()).unwrap();
        assert!(
            (b / f - b1).abs() <= 1e-13 * b1,
            "bandwidth at {f:e}: {b} vs {b1}"
        );
    }
}

#[test]
fn unrepresentable_kernels_are_refused() {
    let data = TestRng(31).data(20, 2, 1.0, 0.0);
    let at = |f: f64| data.iter().map(|v| v * f).collect::<Vec<f64>>();
    let (tiny, huge, small) = (at(1e-170), at(1e200), at(1e-25));
    let tiny = Points::new(&tiny, 20, 2).unwrap();
    let huge = Points::new(&huge, 20, 2).unwrap();
    let small = Points::new(&small, 20, 2).unwrap();
    let square = Semimetric::Power { alpha: 2.0 };
    for base in [Base::Origin, Base::Mean, Base::Centered] {
        // entries ~1e-340: below the smallest normal f64
        assert_invalid(
            energy_gram::<f64>(&tiny, square, base),
            "X",
            "below the smallest normal f64",
        );
        // entries ~1e400
        assert_invalid(energy_gram::<f64>(&huge, square, base), "X", "overflow f64");
        // entries ~1e-50: fine in f64, not in f32
        assert!(energy_gram::<f64>(&small, square, base).is_ok());
        assert_invalid(
            energy_gram::<f32>(&small, square, base),
            "X",
            "below the smallest normal f32 (1.2e-38): they cannot be represented accurately; use float64",
        );
    }
    // the gaussian of X·1e-170 with σ = 1: entries ~1e-340
    assert_invalid(
        energy_gram::<f64>(&tiny, Semimetric::Gaussian { sigma: 1.0 }, Base::Mean),
        "X",
        "too small",
    );
    // σ that cannot be scaled with the data
    assert_invalid(
        energy_gram::<f64>(&tiny, Semimetric::Exponential { sigma: 1e300 }, Base::Mean),
        "sigma",
        "sigma = 1e300 is too large",
    );
    assert_invalid(
        energy_gram_cross::<f64>(&tiny, &tiny, square, Base::Mean),
        "X",
        "below the smallest normal f64",
    );
    assert_invalid(
        DataKernel::new(tiny, square, Base::Mean),
        "X",
        "below the smallest normal f64",
    );
    // Coordinates far apart in magnitude: one constant column at 1e300, a spread of 1e-300
    // in the other.
    let mixed = [1e300, 1e-300, 1e300, -1e-300, 1e300, 3e-300];
    let mixed = Points::new(&mixed, 3, 2).unwrap();
    assert_invalid(
        energy_gram::<f64>(&mixed, Semimetric::Power { alpha: 1.0 }, Base::Mean),
        "X",
        "very different magnitudes",
    );
    // identical points: the kernel is exactly 0, in f32 too
    let same = Points::new(&[0.1; 6], 3, 2).unwrap();
    for base in [Base::Origin, Base::Mean, Base::Centered] {
        let g: Vec<f32> = energy_gram(&same, square, base).unwrap();
        if base != Base::Origin {
            assert!(g.iter().all(|&v| v == 0.0), "{base:?} {g:?}");
        }
    }
    let zero = Points::new(&[0.0; 6], 3, 2).unwrap();
    let g: Vec<f32> = energy_gram(&zero, square, Base::Mean).unwrap();
    assert!(g.iter().all(|&v| v == 0.0));
}

#[test]
fn mean_base_is_translation_invariant() {
    // Z and Z + c are exact translates (Z = (X + c) − c, then Z + c is exact): their
    // kernels with the mean as base point agree to rounding of the spread, however far c.
    let (n, dim) = (BLOCK + 40, 3);
    let data = TestRng(32).data(n, dim, 1.0, 0.0);
    for c in [0.0, 1e3, 1.7e9, 1e12] {
        let z: Vec<f64> = data.iter().map(|v| (v + c) - c).collect();
        let zc: Vec<f64> = z.iter().map(|v| v + c).collect();
        assert!(zc.iter().zip(&z).all(|(a, b)| a - c == *b));
        let (z, zc) = (
            Points::new(&z, n, dim).unwrap(),
            Points::new(&zc, n, dim).unwrap(),
        );
        for sm in SEMIMETRICS {
            let want: Vec<f64> = energy_gram(&z, sm, Base::Mean).unwrap();
            let got: Vec<f64> = energy_gram(&zc, sm, Base::Mean).unwrap();
            let tol = 1e-12 * max_abs_of(&want);
            for i in 0..n * n {
                assert!(
                    (got[i] - want[i]).abs() <= tol,
                    "c = {c} {sm:?} at {i}: {} vs {}",
                    got[i],
                    want[i]
                );
            }
            // against the definition, with the mean taken exactly (it is of Z: near 0)
            let mean: Vec<f64> = (0..dim)
                .map(|k| (0..n).map(|a| z.row(a)[k]).sum::<f64>() / n as f64)
                .collect();
            for (a, b) in [(0, 0), (0, 1), (5, n - 1)] {
                let w = 0.5
                    * (naive_rho(sm, z.row(a), &mean) + naive_rho(sm, z.row(b), &mean)
                        - naive_rho(sm, z.row(a), z.row(b)));
                assert!(
                    (got[a * n + b] - w).abs() <= tol,
                    "c = {c} {sm:?} ({a},{b})"
                );
            }
        }
    }
    // with base 0 the entries of Z + c are about c in size, and cancel in the clustering
    let far: Vec<f64> = energy_gram(
        &Points::new(&[1.7e9, 1.7e9 + 1.0], 2, 1).unwrap(),
        Semimetric::Power { alpha: 1.0 },
        Base::Origin,
    )
    .unwrap();
    assert!(far[0] > 1e9);
}
