use super::*;
use crate::distance::{with_vectors_up_to, VectorPath};
use crate::test_support::TestRng;
use std::ops::Range;

/// A symmetric positive-diagonal n × n matrix, bit for bit symmetric.
fn symmetric(n: usize, rng: &mut TestRng) -> Vec<f64> {
    let mut g = vec![0.0; n * n];
    for a in 0..n {
        for b in a..n {
            let v = if a == b {
                2.0 + rng.next_f64()
            } else {
                rng.normal_ish()
            };
            g[a * n + b] = v;
            g[b * n + a] = v;
        }
    }
    g
}

/// The verdict of [`check_dense`] and that of the plain reference: every
/// [`BLOCK`]-square tile scanned entry by entry, in the order of the check's search.
fn verdicts<T: KernelElement>(g: &[T], n: usize) -> (Option<String>, Option<String>) {
    let text = |r: Result<()>| r.err().map(|e| e.to_string());
    let roots = root_diagonal(g, n);
    let tolerance = T::SYMMETRY_TOLERANCE;
    let first = (0..n.div_ceil(BLOCK)).find_map(|block| {
        let rows = block * BLOCK..((block + 1) * BLOCK).min(n);
        (rows.start..n).step_by(BLOCK).find_map(|col_start| {
            let cols = col_start..(col_start + BLOCK).min(n);
            first_problem_in_tile(g, n, rows.clone(), cols, tolerance, &roots)
        })
    });
    let reference = first.map(|problem| match problem {
        Problem::NotFinite(a, b) => KGroupsError::invalid(
            "G",
            format!("G contains NaN or infinity at ({a}, {b}); all entries must be finite"),
        )
        .to_string(),
        Problem::Asymmetric(a, b, upper, lower) => {
            asymmetry_error("G", a, b, upper, lower, tolerance, "(G + G.T) / 2").to_string()
        }
    });
    (text(check_dense(g, n, "G")), reference)
}

/// Defects that keep each triangle's multiset of values (values traded between pairs,
/// a pair's entries moved to another pair), antisymmetric pairs and an untransposed block
/// are refused, naming the reference's entry.
#[test]
fn defects_that_cancel_without_positions_are_refused() {
    let mut rng = TestRng(32);
    let n = 40;
    let base = symmetric(n, &mut rng);
    let pair = |rng: &mut TestRng| loop {
        let (a, b) = (rng.below(n), rng.below(n));
        if a < b {
            return (a, b);
        }
    };
    let mut refused = 0;
    for trial in 0..300 {
        let mut g = base.clone();
        match trial % 4 {
            // Two upper entries trade values: every value is still there, moved.
            0 => {
                let ((a, b), (c, d)) = (pair(&mut rng), pair(&mut rng));
                if (a, b) == (c, d) || g[a * n + b] == g[c * n + d] {
                    continue;
                }
                let (x, y) = (g[a * n + b], g[c * n + d]);
                g[a * n + b] = y;
                g[c * n + d] = x;
            }
            // An upper entry and its mirror trade places with another pair's.
            1 => {
                let ((a, b), (c, d)) = (pair(&mut rng), pair(&mut rng));
                if (a, b) == (c, d) || g[a * n + b] == g[c * n + d] {
                    continue;
                }
                let x = g[a * n + b];
                g[a * n + b] = g[c * n + d];
                g[d * n + c] = x;
            }
            // Antisymmetric pairs: the sign of two to four upper entries flipped.
            2 => {
                for _ in 0..2 + trial % 3 {
                    let (a, b) = pair(&mut rng);
                    g[a * n + b] = -g[b * n + a];
                }
            }
            // The transpose of a block, off the diagonal, put back untransposed.
            _ => {
                let (r, c, side) = (rng.below(10), 20 + rng.below(10), 2 + rng.below(8));
                for i in 0..side {
                    for j in 0..side {
                        g[(r + i) * n + c + j] = base[(c + j) * n + r + i] + 1.0;
                    }
                }
            }
        }
        let (check, reference) = verdicts(&g, n);
        assert!(check.is_some(), "trial {trial}");
        assert_eq!(check, reference, "trial {trial}");
        refused += 1;
    }
    assert!(refused > 250, "{refused}");
}

/// Pairs `(a, b)` and `(c, d)` with `a + b = c + d` balance a hash keyed by index sums:
/// `G[a, b] = 1e6`, `G[b, a] = −1e6` beside a pair `(c, d)` moved by that many ulps. Every
/// such matrix, and its transpose, is refused (f64 and f32), eagerly and in a fit's
/// first pass, naming the first offending entry.
#[test]
fn forged_asymmetries_are_refused() {
    use crate::{fit, Control, DenseKernel, Options};
    let n = 40;
    let quadruples = forgery_quadruples(n);
    assert!(quadruples.len() > 100, "{}", quadruples.len());
    for (a, b, c, d) in quadruples {
        for transpose in [false, true] {
            let g = forged(n, (a, b), (c, d), transpose);
            let (check, reference) = verdicts(&g, n);
            assert!(check.is_some(), "({a}, {b}) ({c}, {d}) {transpose}");
            assert_eq!(check, reference);
            let kernel = DenseKernel::with_deferred_check(&g, n).unwrap();
            let err = fit(&kernel, 2, &Options::default(), &Control::new()).unwrap_err();
            assert_eq!(Some(err.to_string()), check);
            let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
            let (check, reference) = verdicts(&g32, n);
            assert!(check.is_some());
            assert_eq!(check, reference);
        }
    }
}

/// One-ulp differences left of the diagonal everywhere, or at one pair alone, are
/// within the tolerance.
#[test]
fn rounding_differences_pass_the_rule() {
    let n = 60;
    let mut g = symmetric(n, &mut TestRng(34));
    for a in 0..n {
        for b in 0..a {
            g[a * n + b] = f64::from_bits(g[a * n + b].to_bits() ^ 1); // one ulp, left only
        }
    }
    assert_eq!(verdicts(&g, n), (None, None));
    let mut g = symmetric(n, &mut TestRng(35));
    g[3 * n + 50] = f64::from_bits(g[3 * n + 50].to_bits() ^ 1);
    assert_eq!(verdicts(&g, n), (None, None));
}

/// Cancelled, the check stops with Interrupted, for a matrix symmetric bit for bit and
/// one symmetric within the tolerance; an idle control gives `check_dense`'s verdict.
#[test]
fn check_with_control_stops_when_cancelled() {
    let n = 300;
    let exact = symmetric(n, &mut TestRng(34));
    let mut near = exact.clone();
    near[n + 2] *= 1.0 + 1e-14; // G[1, 2] differs from G[2, 1] within the tolerance
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let cancelled = Control::new().with_cancel(&cancel);
    for g in [&exact, &near] {
        let result = check_dense_with_control(g, n, "G", &cancelled);
        assert!(matches!(result, Err(KGroupsError::Interrupted)));
        assert!(check_dense_with_control(g, n, "G", &Control::new()).is_ok());
        assert!(check_dense(g, n, "G").is_ok());
    }
}

#[test]
fn check_matches_reference() {
    let mut rng = TestRng(12);
    let mut failures = 0;
    for &n in &[1usize, 5, 64, 127, 128, 129, 200, 300] {
        let base = symmetric(n, &mut rng);
        assert_eq!(verdicts(&base, n), (None, None));
        let as_f32: Vec<f32> = base.iter().map(|&v| v as f32).collect();
        assert_eq!(verdicts(&as_f32, n), (None, None));
        for trial in 0..24 {
            let mut g = base.clone();
            let changes = 1 + trial % 3;
            for _ in 0..changes {
                let a = rng.below(n);
                let b = rng.below(n);
                let v = g[a * n + b];
                g[a * n + b] = match trial % 6 {
                    0 => v * (1.0 + 1e-12), // within tolerance
                    1 => v * (1.0 + 1e-6),  // outside for f64, inside for f32
                    2 => v + 1.0,
                    3 => f64::NAN,
                    4 => f64::INFINITY,
                    _ => {
                        g[b * n + a] = -0.0; // a signed-zero pair: passes
                        0.0
                    }
                };
            }
            let (check, reference) = verdicts(&g, n);
            failures += usize::from(check.is_some());
            assert_eq!(check, reference, "f64 n={n} trial={trial}");
            let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
            let (check, reference) = verdicts(&g32, n);
            assert_eq!(check, reference, "f32 n={n} trial={trial}");
        }
    }
    assert!(failures > 50, "too few rejected matrices: {failures}");
}

/// The bitwise tile test agrees with a pair-by-pair comparison on tiles of every shape and
/// offset, with one entry changed anywhere (one bit, a signed zero, NaN, infinity) or none.
#[test]
fn bitwise_tile_test_is_the_pairwise_comparison() {
    let mut rng = TestRng(31);
    let n = 23;
    let base = symmetric(n, &mut rng);
    fn naive<T: KernelElement>(g: &[T], n: usize, rows: Range<usize>, cols: Range<usize>) -> bool {
        rows.clone().any(|a| {
            cols.clone().any(|b| {
                let u = g[a * n + b].widen();
                u.to_bits() != g[b * n + a].widen().to_bits() || !u.is_finite()
            })
        })
    }
    let tiles = [
        (0..23, 0..23),
        (0..8, 8..16),
        (1..10, 12..23),
        (4..7, 5..22),
        (3..3, 0..5),
    ];
    let mut differing = 0;
    for (rows, cols) in tiles {
        for change in 0..5 {
            for at in [0, 5, 4 * n + 9, 9 * n + 14, 13 * n + 2, n * n - 1] {
                let mut g = base.clone();
                g[at] = match change {
                    0 => g[at],
                    1 => f64::from_bits(g[at].to_bits() ^ 1),
                    2 => -g[at],
                    3 => f64::NAN,
                    _ => f64::INFINITY,
                };
                let want = naive(&g, n, rows.clone(), cols.clone());
                differing += usize::from(want);
                let (r, c) = (rows.clone(), cols.clone());
                for path in [VectorPath::Portable, VectorPath::Avx2] {
                    let (got, _) = with_vectors_up_to(path, || {
                        tile_differs_bitwise(&g, n, r.clone(), c.clone())
                    });
                    assert_eq!(got, want, "{path:?}");
                }
                let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                let want32 = naive(&g32, n, r.clone(), c.clone());
                assert_eq!(tile_differs_bitwise(&g32, n, r, c), want32);
            }
        }
    }
    assert!(differing > 20, "too few differing tiles: {differing}");
}

/// The mirror compared with a copy of the tile differs exactly where the pairwise
/// comparison does, wherever the changed entry is (tile, mirror, edges of the 8 × 8 blocks),
/// on both copies of the comparison and f64 and f32.
#[test]
fn mirror_against_a_copy_of_the_tile_is_the_pairwise_comparison() {
    let mut rng = TestRng(37);
    let n = 29;
    let base = symmetric(n, &mut rng);
    let copy_of = |g: &[f64], rows: std::ops::Range<usize>, cols: std::ops::Range<usize>| {
        rows.flat_map(|a| cols.clone().map(move |b| g[a * n + b]))
            .collect::<Vec<f64>>()
    };
    let tiles = [
        (2..13, 14..29),
        (0..8, 8..16),
        (0..11, 11..29),
        (3..4, 20..21),
    ];
    let mut differing = 0;
    for (rows, cols) in tiles {
        for change in 0..4 {
            for at in [
                2 * n + 14,
                5 * n + 20,
                12 * n + 28,
                20 * n + 7,
                28 * n + 12,
                8 * n + 3,
            ] {
                let mut g = base.clone();
                g[at] = match change {
                    0 => g[at],
                    1 => f64::from_bits(g[at].to_bits() ^ 1),
                    2 => f64::NAN,
                    _ => f64::INFINITY,
                };
                let want = tile_differs_bitwise(&g, n, rows.clone(), cols.clone());
                let copy = copy_of(&g, rows.clone(), cols.clone());
                for path in [VectorPath::Portable, VectorPath::Avx2] {
                    let (got, _) = with_vectors_up_to(path, || {
                        mirror_differs_from_copy(&g, n, rows.clone(), cols.clone(), &copy)
                    });
                    assert_eq!(got, want, "{path:?} change {change} at {at}");
                }
                differing += usize::from(want);
                let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
                let wide32: Vec<f64> = g32.iter().map(|&v| f64::from(v)).collect();
                let copy32 = copy_of(&wide32, rows.clone(), cols.clone());
                let want = tile_differs_bitwise(&g32, n, rows.clone(), cols.clone());
                let got = mirror_differs_from_copy(&g32, n, rows.clone(), cols.clone(), &copy32);
                assert_eq!(got, want);
            }
        }
    }
    assert!(differing > 20, "too few differing tiles: {differing}");
}

/// Signed zeros differ in their bits but pass the rule.
#[test]
fn signed_zeros_pass() {
    let g = [1.0, 0.0, -0.0, 1.0];
    assert!(check_dense(&g, 2, "G").is_ok());
}
