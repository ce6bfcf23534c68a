//! Tests of the energy statistics against naive sums, across sources, scales and threads.

#![allow(clippy::needless_range_loop)] // the naive reference loops index on purpose

use super::*;
use crate::distance::{Points, Semimetric};
use crate::gram::{energy_gram, Base};
use crate::scale::binary_exponent;
use crate::scale::max_abs;
use crate::test_support::{assert_invalid, in_pool, naive_r, TestRng};
use proptest::prelude::*;

fn stats_with_g(
    source: &PairwiseSource,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
) -> Result<EnergyStatistics> {
    energy_statistics(source, labels, k, weights, true, &Control::new())
}

fn pair_sums(
    source: &PairwiseSource,
    labels: &[usize],
    k: usize,
    weights: Option<&[f64]>,
) -> Result<(Vec<f64>, Vec<f64>)> {
    cluster_pair_sums(source, labels, k, weights, &Control::new())
}

fn distance(a: &Points, b: &Points, semimetric: Semimetric) -> Result<f64> {
    energy_distance(a, b, semimetric, &Control::new())
}

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
        let (t, s) = pair_sums(
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
            pair_sums(&PairwiseSource::Semimetric { r: &r, n }, &labels, k, None).unwrap();
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
    let e_data = stats_with_g(
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
    let e_r = stats_with_g(&PairwiseSource::Semimetric { r: &r, n }, labels, k, w).unwrap();
    let rmax = r.iter().fold(0.0f64, |m, v| m.max(*v));
    for base in [Base::Origin, Base::Centered] {
        let g: Vec<f64> = energy_gram(&x, sm, base).unwrap();
        let e_g = stats_with_g(&PairwiseSource::GramF64 { g: &g, n }, labels, k, w).unwrap();
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
    for (a, b) in e_r
        .g
        .as_ref()
        .unwrap()
        .iter()
        .zip(e_data.g.as_ref().unwrap())
    {
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
                assert!(close(
                    e.g.as_ref().unwrap()[i * k + j],
                    sum / (s[i] * s[j]),
                    1e-12
                ));
            }
        }
    }
}

#[test]
fn one_cluster_has_no_between() {
    let data = [0.0, 1.0, 5.0];
    let x = Points::new(&data, 3, 1).unwrap();
    let e = stats_with_g(
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
        let got = distance(&pa, &pb, sm).unwrap();
        assert!(close(got, want, 1e-12), "{sm:?}: {got} vs {want}");
        assert!(got > 0.0);
        // E(A,B) = 2s/(s_A s_B)·S for the two-cluster partition of A ∪ B
        let labels: Vec<usize> = (0..n).map(|i| usize::from(i >= na)).collect();
        let e = stats_with_g(&PairwiseSource::Semimetric { r: &r, n }, &labels, 2, None).unwrap();
        assert!(close(
            got,
            e.between * 2.0 * n as f64 / (na * nb) as f64,
            1e-12
        ));
        let self_distance = distance(&pa, &pa, sm).unwrap();
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
    assert!(stats_with_g(&src, &labels, 3, None).is_ok());
    assert_invalid(
        stats_with_g(&src, &labels, 0, None),
        "k",
        "k must be between 1 and n = 6 (the number of points), got 0",
    );
    assert_invalid(
        stats_with_g(&src, &labels[..5], 3, None),
        "labels",
        "labels has length 5 but there are n = 6 points",
    );
    assert_invalid(
        stats_with_g(&src, &[0, 0, 1, 1, 2, 3], 3, None),
        "labels",
        "labels[5] = 3 is out of range: labels must be below k = 3",
    );
    assert_invalid(
        stats_with_g(&src, &[0, 0, 2, 2, 2, 2], 3, None),
        "labels",
        "labels leaves cluster 1 empty",
    );
    assert_invalid(
        stats_with_g(&src, &labels, 3, Some(&[1.0; 5])),
        "weights",
        "length 5",
    );
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let mut w = [1.0; 6];
        w[4] = bad;
        assert_invalid(
            pair_sums(&src, &labels, 3, Some(&w)),
            "weights",
            "weights[4]",
        );
    }
    assert_invalid(
        pair_sums(
            &src,
            &labels,
            3,
            Some(&[1e308, 1e308, 1e300, 1e300, 1e300, 1e300]),
        ),
        "weights",
        "cluster 0",
    );
    let bad_sm = PairwiseSource::Data {
        points: x,
        semimetric: Semimetric::Exponential { sigma: 0.0 },
    };
    assert_invalid(
        stats_with_g(&bad_sm, &labels, 3, None),
        "sigma",
        "sigma = 0",
    );
    let r = [0.0, 1.0, 1.5, 0.0];
    assert_invalid(
        stats_with_g(
            &PairwiseSource::Semimetric { r: &r, n: 2 },
            &[0, 1],
            2,
            None,
        ),
        "R",
        "R must be symmetric",
    );
    assert_invalid(
        stats_with_g(
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
        stats_with_g(&PairwiseSource::GramF64 { g: &g, n: 2 }, &[0, 1], 2, None),
        "G",
        "NaN or infinity at (0, 1)",
    );
    let g = [1.0, 0.5, 0.7, 1.0];
    assert_invalid(
        stats_with_g(&PairwiseSource::GramF64 { g: &g, n: 2 }, &[0, 1], 2, None),
        "G",
        "G is not symmetric",
    );
    assert_invalid(
        stats_with_g(&PairwiseSource::GramF64 { g: &g, n: 0 }, &[], 2, None),
        "G",
        "G is empty (n = 0)",
    );
    // overflow of the sums
    let big = [0.0, 1e300, -1e300];
    let xb = Points::new(&big, 3, 1).unwrap();
    assert_invalid(
        stats_with_g(
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
    assert_invalid(distance(&z, &y, sm), "Y", "X has D=3 columns but Y has D=2");
    assert_invalid(
        distance(&y, &y, Semimetric::Power { alpha: 0.0 }),
        "alpha",
        "alpha = 0",
    );
    assert_invalid(
        distance(&xb, &x, Semimetric::Power { alpha: 2.0 }),
        "X",
        "overflow",
    );
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let (n, dim, k) = (1324, 2, 5); // several row groups (of WORK_PER_THREAD) on 1 to 4 threads
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
        let e = stats_with_g(&src, &labels, k, Some(&w)).unwrap();
        let d = distance(&x, &y, Semimetric::Gaussian { sigma: 0.5 }).unwrap();
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

fn unit_data(n: usize, dim: usize, seed: u64) -> Vec<f64> {
    TestRng(seed).data(n, dim, 1.0, 0.0)
}

#[test]
fn every_point_its_own_cluster_without_g() {
    // k = n: W = 0 (no pair in a cluster), S = total, in O(n) memory
    let n = 2500;
    let data = unit_data(n, 2, 110);
    let x = Points::new(&data, n, 2).unwrap();
    let src = PairwiseSource::Data {
        points: x,
        semimetric: Semimetric::Power { alpha: 1.0 },
    };
    let labels: Vec<usize> = (0..n).collect();
    let e = energy_statistics(&src, &labels, n, None, false, &Control::new()).unwrap();
    assert_eq!(e.g, None);
    assert_eq!(e.within, 0.0);
    assert_eq!(e.cluster_weights, vec![1.0; n]);
    let one = energy_statistics(&src, &vec![0; n], 1, None, false, &Control::new()).unwrap();
    assert_eq!(one.between, 0.0);
    assert!(
        close(e.between, one.total, 1e-12),
        "{} vs {}",
        e.between,
        one.total
    );
    assert!(close(e.total, one.total, 1e-12));
    // small n against the k × k path and the naive sums
    let (n, k) = (40, 40);
    let data = unit_data(n, 3, 111);
    let labels: Vec<usize> = (0..n).rev().collect();
    let r = naive_r(Semimetric::Power { alpha: 1.0 }, &data, n, 3);
    let src = PairwiseSource::Semimetric { r: &r, n };
    let with = stats_with_g(&src, &labels, k, None).unwrap();
    let without = energy_statistics(&src, &labels, k, None, false, &Control::new()).unwrap();
    assert_eq!(
        (with.within, with.between, with.total),
        (without.within, without.between, without.total)
    );
    let g = with.g.unwrap();
    for a in 0..n {
        for b in 0..n {
            assert_eq!(g[labels[a] * k + labels[b]], r[a * n + b]);
        }
    }
}

#[test]
fn labels_and_k_are_checked_against_n_before_allocating() {
    let data = [0.0, 1.0, 3.0];
    let x = Points::new(&data, 3, 1).unwrap();
    let src = PairwiseSource::Data {
        points: x,
        semimetric: Semimetric::Power { alpha: 1.0 },
    };
    let huge = 1_000_000_000_000usize;
    for with_g in [false, true] {
        assert_invalid(
            energy_statistics(&src, &[0, 1, huge], huge + 1, None, with_g, &Control::new()),
            "labels",
            "labels[2] = 1000000000000 but the data have only n = 3 points",
        );
        assert_invalid(
            energy_statistics(&src, &[0, 1, 2], usize::MAX, None, with_g, &Control::new()),
            "k",
            "k must be between 1 and n = 3 (the number of points)",
        );
    }
    assert_invalid(
        cluster_pair_sums(&src, &[0, 1, 2], 4, None, &Control::new()),
        "k",
        "k must be between 1 and n = 3 (the number of points), got 4",
    );
}

#[test]
fn weights_of_any_scale() {
    let (n, dim, k) = (60, 2, 3);
    let mut rng = TestRng(112);
    let data = rng.data(n, dim, 1.0, 0.0);
    let labels = labels_for(n, k, &mut rng);
    let w: Vec<f64> = (0..n).map(|_| 0.5 + rng.next_f64()).collect();
    let x = Points::new(&data, n, dim).unwrap();
    let src = PairwiseSource::Data {
        points: x,
        semimetric: Semimetric::Power { alpha: 1.0 },
    };
    let unit = stats_with_g(&src, &labels, k, Some(&w)).unwrap();
    // powers of two: exactly scaled
    for e in [-1000, -700, 700, 900] {
        let we: Vec<f64> = w.iter().map(|&v| times_pow2(v, e)).collect();
        let got = stats_with_g(&src, &labels, k, Some(&we)).unwrap();
        assert_eq!(got.within, times_pow2(unit.within, e), "2^{e}");
        assert_eq!(got.between, times_pow2(unit.between, e));
        assert_eq!(got.total, times_pow2(unit.total, e));
        assert_eq!(got.g, unit.g);
        let s: Vec<f64> = unit
            .cluster_weights
            .iter()
            .map(|&v| times_pow2(v, e))
            .collect();
        assert_eq!(got.cluster_weights, s);
    }
    for c in [1e200, 1e-200, 1e300, 1e-300] {
        let wc: Vec<f64> = w.iter().map(|&v| v * c).collect();
        let got = stats_with_g(&src, &labels, k, Some(&wc)).unwrap();
        for (a, b) in [
            (got.within, unit.within),
            (got.between, unit.between),
            (got.total, unit.total),
        ] {
            assert!(
                a.is_finite() && close(a, b * c, 1e-12),
                "{c}: {a} vs {}",
                b * c
            );
        }
    }
    // T scales with c²: 1e200² is beyond f64, and the error says so
    let wc: Vec<f64> = w.iter().map(|&v| v * 1e200).collect();
    assert_invalid(
        pair_sums(&src, &labels, k, Some(&wc)),
        "weights",
        "exceeds the largest f64",
    );
    // results beyond f64
    let wc: Vec<f64> = w.iter().map(|&v| v * 1e306).collect();
    let wide: Vec<f64> = data.iter().map(|v| 1000.0 * v).collect();
    let wide_src = PairwiseSource::Data {
        points: Points::new(&wide, n, dim).unwrap(),
        semimetric: Semimetric::Power { alpha: 1.0 },
    };
    assert!(stats_with_g(&wide_src, &labels, k, Some(&w)).is_ok());
    assert_invalid(
        stats_with_g(&wide_src, &labels, k, Some(&wc)),
        "weights",
        "exceeds the largest f64",
    );
    // a ratio of weights that f64 cannot hold
    let mut wr = w.clone();
    wr[0] = 1e300;
    wr[5] = 1e-300;
    assert_invalid(
        stats_with_g(&src, &labels, k, Some(&wr)),
        "weights",
        "weights[5] = 1e-300 is too small beside the largest weight 1e300",
    );
}

#[test]
fn gram_and_semimetric_matrices_of_any_finite_scale() {
    let (n, dim, k) = (50, 3, 3);
    let mut rng = TestRng(113);
    let data = rng.data(n, dim, 1.0, 2.0);
    let labels = labels_for(n, k, &mut rng);
    let x = Points::new(&data, n, dim).unwrap();
    let sm = Semimetric::Power { alpha: 1.0 };
    let g0: Vec<f64> = energy_gram(&x, sm, Base::Origin).unwrap();
    let r0 = naive_r(sm, &data, n, dim);
    let ones = vec![1.0; n];
    // the largest entries just below f64::MAX: G_aa + G_bb and sums of R overflow unscaled
    let top = |m: &[f64]| 1023 - binary_exponent(max_abs(m));
    let (pg, pr) = (top(&g0), top(&r0));
    let g: Vec<f64> = g0.iter().map(|&v| times_pow2(v, pg)).collect();
    let r: Vec<f64> = r0.iter().map(|&v| times_pow2(v, pr)).collect();
    assert!(g.iter().fold(0.0f64, |m, v| m.max(v.abs())) > 8e307);
    let small: Vec<f64> = ones.iter().map(|&v| times_pow2(v, -40)).collect();
    for (big, base, p) in [
        (
            PairwiseSource::GramF64 { g: &g, n },
            PairwiseSource::GramF64 { g: &g0, n },
            pg,
        ),
        (
            PairwiseSource::Semimetric { r: &r, n },
            PairwiseSource::Semimetric { r: &r0, n },
            pr,
        ),
    ] {
        let unit = stats_with_g(&base, &labels, k, None).unwrap();
        let got = stats_with_g(&big, &labels, k, Some(&small)).unwrap();
        assert_eq!(got.within, times_pow2(unit.within, p - 40));
        assert_eq!(got.between, times_pow2(unit.between, p - 40));
        assert_eq!(got.total, times_pow2(unit.total, p - 40));
        let gs: Vec<f64> = unit.g.unwrap().iter().map(|&v| times_pow2(v, p)).collect();
        assert_eq!(got.g.unwrap(), gs);
        // with unit weights W exceeds f64: an error naming the matrix
        let arg = big.argument();
        assert_invalid(
            stats_with_g(&big, &labels, k, None),
            arg,
            "exceeds the largest f64",
        );
    }
}

#[test]
fn cancelled_runs_stop_with_interrupted() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let data = unit_data(200, 2, 114);
    let x = Points::new(&data, 200, 2).unwrap();
    let src = PairwiseSource::Data {
        points: x,
        semimetric: Semimetric::Power { alpha: 1.0 },
    };
    let labels: Vec<usize> = (0..200).map(|i| i % 3).collect();
    let flag = AtomicBool::new(true);
    let cancelled = Control::new().with_cancel(&flag);
    for with_g in [false, true] {
        assert_eq!(
            energy_statistics(&src, &labels, 3, None, with_g, &cancelled),
            Err(KGroupsError::Interrupted)
        );
    }
    assert_eq!(
        cluster_pair_sums(&src, &labels, 3, None, &cancelled),
        Err(KGroupsError::Interrupted)
    );
    assert_eq!(
        energy_distance(&x, &x, Semimetric::Power { alpha: 1.0 }, &cancelled),
        Err(KGroupsError::Interrupted)
    );
    // a long run notices a cancellation soon: powf over 40 000² / 2 pairs takes seconds
    let n = 40_000;
    let data = unit_data(n, 2, 115);
    let x = Points::new(&data, n, 2).unwrap();
    let sm = Semimetric::Power { alpha: 1.5 };
    let src = PairwiseSource::Data {
        points: x,
        semimetric: sm,
    };
    let labels: Vec<usize> = (0..n).map(|i| i % 7).collect();
    for run in 0..2 {
        let flag = AtomicBool::new(false);
        let control = Control::new().with_cancel(&flag);
        let (result, latency) = std::thread::scope(|scope| {
            let job = scope.spawn(|| {
                let r = if run == 0 {
                    energy_statistics(&src, &labels, 7, None, false, &control).map(|_| ())
                } else {
                    energy_distance(&x, &x, sm, &control).map(|_| ())
                };
                (r, std::time::Instant::now())
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            let sent = std::time::Instant::now();
            flag.store(true, Ordering::Relaxed);
            let (r, done) = job.join().unwrap();
            (r, done.saturating_duration_since(sent))
        });
        assert_eq!(result, Err(KGroupsError::Interrupted), "run {run}");
        assert!(latency.as_secs_f64() < 1.0, "run {run}: {latency:?}");
    }
}
