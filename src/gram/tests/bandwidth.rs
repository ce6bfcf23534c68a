//! The default bandwidth, unweighted and weighted, against the definition.

use super::super::*;
use crate::distance::Points;
use crate::test_support::{assert_invalid, naive_d2, TestRng};

#[test]
fn bandwidth_matches_definition() {
    let mut rng = TestRng(2);
    let (n, dim) = (57, 4);
    let data = rng.data(n, dim, 3.0, 100.0);
    let x = Points::new(&data, n, dim).unwrap();
    let mut s = 0.0;
    for a in 0..n {
        for b in 0..n {
            s += naive_d2(x.row(a), x.row(b));
        }
    }
    let want = (s / (n * n) as f64).sqrt();
    let got = bandwidth(&x, &Control::new()).unwrap();
    assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
    let none = Control::new();
    assert_invalid(
        bandwidth(&Points::new(&[3.0; 6], 3, 2).unwrap(), &none),
        "X",
        "pass sigma explicitly",
    );
    // Huge and tiny data: σ in their own scale (the squares would overflow or underflow).
    let huge = bandwidth(&Points::new(&[-1e300, 1e300], 2, 1).unwrap(), &none).unwrap();
    assert!((huge / 1e300 - 2f64.sqrt()).abs() < 1e-15, "{huge}");
    let tiny = bandwidth(&Points::new(&[-3e-200, 3e-200], 2, 1).unwrap(), &none).unwrap();
    assert!((tiny / 3e-200 - 2f64.sqrt()).abs() < 1e-15, "{tiny}");
    assert_invalid(
        bandwidth(&Points::new(&[-1.7e308, 1.7e308], 2, 1).unwrap(), &none),
        "X",
        "overflows",
    );
}

/// σ from the definition σ² = Σ_ab w_a w_b ‖x_a − x_b‖² / (Σ w)², O(n²).
fn naive_weighted(x: &Points, w: &[f64]) -> f64 {
    let (mut s2, mut s) = (0.0, 0.0);
    for a in 0..x.n() {
        s += w[a];
        for b in 0..x.n() {
            s2 += w[a] * w[b] * naive_d2(x.row(a), x.row(b));
        }
    }
    (s2 / (s * s)).sqrt()
}

#[test]
fn weighted_bandwidth_matches_definition() {
    let mut rng = TestRng(50);
    let none = Control::new();
    for (n, dim, shift) in [(3, 1, 0.0), (57, 4, 100.0), (300, 3, -1e6)] {
        let data = rng.data(n, dim, 3.0, shift);
        let x = Points::new(&data, n, dim).unwrap();
        let mut w: Vec<f64> = (0..n).map(|_| 3.0 * rng.next_f64()).collect();
        w[0] = 0.0; // a point of weight 0 is absent
        w[n - 1] = 2.5;
        let want = naive_weighted(&x, &w);
        let got = bandwidth_weighted(&x, &w, &none).unwrap();
        // the direct sum cancels: its own error grows with the offset of the data
        let tol = 1e-12 * (1.0 + shift.abs() / 3.0).powi(2);
        assert!(
            (got - want).abs() <= tol * want,
            "{n} {dim}: {got} vs {want}"
        );
        // any common scale of the weights: powers of two change no bit
        for e in [-1000, -3, 700] {
            let we: Vec<f64> = w.iter().map(|&v| crate::scale::times_pow2(v, e)).collect();
            assert_eq!(bandwidth_weighted(&x, &we, &none).unwrap(), got, "2^{e}");
        }
        let w3: Vec<f64> = w.iter().map(|&v| v * 3.0).collect();
        let got3 = bandwidth_weighted(&x, &w3, &none).unwrap();
        assert!((got3 - got).abs() <= 1e-14 * got);
    }
}

#[test]
fn unit_weights_are_the_unweighted_bandwidth_bit_for_bit() {
    let mut rng = TestRng(51);
    // the last case takes several chunks of the O(nD) passes
    for (n, dim, scale, shift) in [
        (1, 3, 1.0, 0.0),
        (40, 3, 1.0, 5.0),
        (40, 2, 1e-200, 3e-199),
        (40, 2, 1e250, 0.0),
        (70_000, 2, 1.0, 7.0),
    ] {
        let data = rng.data(n, dim, scale, shift);
        let x = Points::new(&data, n, dim).unwrap();
        let ones = vec![1.0; n];
        let plain = bandwidth(&x, &Control::new());
        let weighted = bandwidth_weighted(&x, &ones, &Control::new());
        match (plain, weighted) {
            (Ok(a), Ok(b)) => assert_eq!(a.to_bits(), b.to_bits(), "n = {n}, scale {scale:e}"),
            (a, b) => assert_eq!(a, b.map_err(|_| a.clone().unwrap_err())),
        }
    }
}

#[test]
fn integer_weights_repeat_points() {
    let data = [0.0, 1.0, 4.0, 4.5, -2.0, 3.0];
    let x = Points::new(&data, 3, 2).unwrap();
    let repeated = [
        0.0, 1.0, 4.0, 4.5, 4.0, 4.5, -2.0, 3.0, -2.0, 3.0, -2.0, 3.0,
    ];
    let xr = Points::new(&repeated, 6, 2).unwrap();
    let a = bandwidth_weighted(&x, &[1.0, 2.0, 3.0], &Control::new()).unwrap();
    let b = bandwidth(&xr, &Control::new()).unwrap();
    assert!((a - b).abs() <= 1e-15 * b, "{a} vs {b}");
    // weight 0: as if the point were not there
    let c = bandwidth_weighted(&x, &[1.0, 0.0, 1.0], &Control::new()).unwrap();
    let first_last = Points::new(&[0.0, 1.0, -2.0, 3.0], 2, 2).unwrap();
    let d = bandwidth(&first_last, &Control::new()).unwrap();
    assert!((c - d).abs() <= 1e-15 * d, "{c} vs {d}");
}

#[test]
fn weighted_bandwidth_of_extreme_data() {
    let none = Control::new();
    let w = [0.5, 2.0, 1.0];
    let unit = Points::new(&[-1.0, 1.0, 3.0], 3, 1).unwrap();
    let want = bandwidth_weighted(&unit, &w, &none).unwrap();
    for f in [1e-300, 1e-200, 1e200, 1e300] {
        let data = [-f, f, 3.0 * f];
        let x = Points::new(&data, 3, 1).unwrap();
        let got = bandwidth_weighted(&x, &w, &none).unwrap();
        assert!(
            (got / f - want).abs() <= 1e-14 * want,
            "{f:e}: {got} vs {want}"
        );
    }
    // weights of any finite scale, and a ratio down to the subnormals
    let wide = [1e-300, 1e300, 2e300];
    let got = bandwidth_weighted(&unit, &wide, &none).unwrap();
    let near = bandwidth_weighted(&unit, &[0.0, 1.0, 2.0], &none).unwrap();
    assert!((got - near).abs() <= 1e-14 * near);
}

#[test]
fn weighted_bandwidth_errors() {
    let none = Control::new();
    let x = Points::new(&[0.0, 1.0, 5.0], 3, 1).unwrap();
    assert_invalid(
        bandwidth_weighted(&x, &[1.0, 1.0], &none),
        "weights",
        "weights has length 2 but there are n = 3 points",
    );
    for bad in [-1.0, f64::NAN, f64::INFINITY, -0.0 - 1e-300] {
        assert_invalid(
            bandwidth_weighted(&x, &[1.0, bad, 1.0], &none),
            "weights",
            "weights[1] = ",
        );
    }
    assert_invalid(
        bandwidth_weighted(&x, &[0.0; 3], &none),
        "weights",
        "weights is zero for every point",
    );
    // only one point has weight: σ = 0
    assert_invalid(
        bandwidth_weighted(&x, &[0.0, 2.0, 0.0], &none),
        "X",
        "all points of X with a positive weight are identical",
    );
    let same = Points::new(&[3.0, 3.0, 7.0], 3, 1).unwrap();
    assert_invalid(
        bandwidth_weighted(&same, &[1.0, 4.0, 0.0], &none),
        "X",
        "pass sigma explicitly",
    );
    assert_invalid(
        bandwidth_weighted(&Points::new(&[4.0; 3], 3, 1).unwrap(), &[1.0; 3], &none),
        "X",
        "all points of X with a positive weight are identical",
    );
    let huge = Points::new(&[-1.7e308, 1.7e308], 2, 1).unwrap();
    assert_invalid(
        bandwidth_weighted(&huge, &[1.0, 1.0], &none),
        "X",
        "overflows",
    );
    let flag = std::sync::atomic::AtomicBool::new(true);
    assert_eq!(
        bandwidth_weighted(&x, &[1.0; 3], &Control::new().with_cancel(&flag)),
        Err(crate::KGroupsError::Interrupted)
    );
}

#[test]
fn weighted_bandwidth_does_not_depend_on_thread_count() {
    let (n, dim) = (70_000, 3);
    let mut rng = TestRng(52);
    let data = rng.data(n, dim, 1e-3, 1e4);
    let w: Vec<f64> = (0..n).map(|_| rng.next_f64()).collect();
    let x = Points::new(&data, n, dim).unwrap();
    let run = || bandwidth_weighted(&x, &w, &Control::new()).unwrap();
    let one = crate::test_support::in_pool(1, run);
    assert_eq!(one, crate::test_support::in_pool(2, run));
    assert_eq!(one, crate::test_support::in_pool(3, run));
}
