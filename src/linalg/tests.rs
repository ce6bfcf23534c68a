use super::*;
use crate::test_support::{assert_invalid, in_pool, TestRng};
use proptest::prelude::*;

fn random_symmetric(d: usize, seed: u64) -> Vec<f64> {
    let mut rng = TestRng(seed);
    let mut a = vec![0.0; d * d];
    for i in 0..d {
        for j in 0..=i {
            let v = rng.normal_ish();
            a[i * d + j] = v;
            a[j * d + i] = v;
        }
    }
    a
}

/// `max |A v_j − λ_j v_j|` and `max |Vᵀ V − I|`, over all eigenpairs.
fn eigen_errors(a: &[f64], d: usize, values: &[f64], vectors: &[f64]) -> (f64, f64) {
    let mut residual = 0.0f64;
    let mut orthogonality = 0.0f64;
    for j in 0..d {
        for i in 0..d {
            let av: f64 = (0..d).map(|t| a[i * d + t] * vectors[t * d + j]).sum();
            residual = residual.max((av - values[j] * vectors[i * d + j]).abs());
        }
        for l in 0..d {
            let dot: f64 = (0..d)
                .map(|t| vectors[t * d + j] * vectors[t * d + l])
                .sum();
            let expected = if j == l { 1.0 } else { 0.0 };
            orthogonality = orthogonality.max((dot - expected).abs());
        }
    }
    (residual, orthogonality)
}

fn dense_eigen(a: &[f64], d: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    symmetric_eigen(a, d, &Control::new())
}

#[test]
fn a_cancelled_control_stops_the_decomposition() {
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let control = Control::new().with_cancel(&cancel);
    let a = random_symmetric(30, 1);
    assert_eq!(
        symmetric_eigen(&a, 30, &control).unwrap_err(),
        KGroupsError::Interrupted
    );
}

#[test]
fn diagonal_matrix_gives_sorted_coordinate_vectors() {
    let a = [1.0, 0.0, 0.0, 0.0, -3.0, 0.0, 0.0, 0.0, 5.0];
    let (values, vectors) = dense_eigen(&a, 3).unwrap();
    let expected = [5.0, 1.0, -3.0];
    assert!(values
        .iter()
        .zip(expected)
        .all(|(v, e)| (v - e).abs() < 1e-14));
    // Columns: e₂, e₀, e₁.
    let columns = [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0];
    assert!(vectors
        .iter()
        .zip(columns)
        .all(|(v, e)| (v - e).abs() < 1e-14));
}

#[test]
fn two_by_two_closed_form() {
    let (p, q, r) = (1.5, -0.7, 0.4);
    let (values, vectors) = dense_eigen(&[p, q, q, r], 2).unwrap();
    let mean = 0.5 * (p + r);
    let radius = (0.25 * (p - r) * (p - r) + q * q).sqrt();
    assert!((values[0] - (mean + radius)).abs() < 1e-14);
    assert!((values[1] - (mean - radius)).abs() < 1e-14);
    // Eigenvector of λ₁: (q, λ₁ − p), normalised, sign as returned.
    let (x, y) = (q, values[0] - p);
    let len = (x * x + y * y).sqrt();
    let cos = (vectors[0] * x + vectors[2] * y) / len;
    assert!((cos.abs() - 1.0).abs() < 1e-14);
}

#[test]
fn random_symmetric_matrices_are_decomposed() {
    for (d, seed) in [(1, 1), (2, 2), (5, 3), (17, 4), (60, 5)] {
        let a = random_symmetric(d, seed);
        let (values, vectors) = dense_eigen(&a, d).unwrap();
        let (residual, orthogonality) = eigen_errors(&a, d, &values, &vectors);
        let scale = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(residual < 1e-12 * scale * d as f64, "d = {d}: {residual}");
        assert!(orthogonality < 1e-13 * d as f64, "d = {d}: {orthogonality}");
        assert!(values.windows(2).all(|w| w[0] >= w[1]));
        // Trace is preserved.
        let trace: f64 = (0..d).map(|i| a[i * d + i]).sum();
        assert!((values.iter().sum::<f64>() - trace).abs() < 1e-12 * scale * d as f64);
    }
}

#[test]
fn repeated_eigenvalues_and_zero_matrix() {
    // J₄ (all ones): eigenvalues 4, 0, 0, 0.
    let a = [1.0; 16];
    let (values, vectors) = dense_eigen(&a, 4).unwrap();
    assert!((values[0] - 4.0).abs() < 1e-14);
    assert!(values[1..].iter().all(|v| v.abs() < 1e-14), "{values:?}");
    let (residual, orthogonality) = eigen_errors(&a, 4, &values, &vectors);
    assert!(residual < 1e-14 && orthogonality < 1e-14);
    let (values, vectors) = dense_eigen(&[0.0; 9], 3).unwrap();
    assert_eq!(values, vec![0.0; 3]);
    assert_eq!(vectors, vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    assert_eq!(dense_eigen(&[], 0).unwrap(), (vec![], vec![]));
}

#[test]
fn widely_scaled_eigenvalues_keep_relative_accuracy() {
    // diag(1e10, 1, 1e-10) rotated by a fixed orthogonal matrix.
    let d = 3;
    let diagonal = [1e10, 1.0, 1e-10];
    let (_, q) = dense_eigen(&random_symmetric(d, 9), d).unwrap();
    let mut a = vec![0.0; d * d];
    for i in 0..d {
        for j in 0..d {
            a[i * d + j] = (0..d)
                .map(|t| q[i * d + t] * diagonal[t] * q[j * d + t])
                .sum();
        }
    }
    let (values, _) = dense_eigen(&a, d).unwrap();
    assert!((values[0] / 1e10 - 1.0).abs() < 1e-14);
    assert!((values[1] - 1.0).abs() < 1e-5);
}

#[test]
fn bad_matrices_are_rejected() {
    assert_invalid(dense_eigen(&[1.0, 2.0, 3.0], 2), "a", "2 × 2");
    assert_invalid(dense_eigen(&[1.0, f64::NAN, 0.0, 1.0], 2), "a", "NaN");
    assert_invalid(dense_eigen(&[1.0, 2.0, 0.0, 1.0], 2), "a", "not symmetric");
    assert_invalid(dense_eigen(&[1.0], usize::MAX), "a", "values");
}

fn view(block: &[f64], n: usize, b: usize) -> MatRef<'_, f64> {
    MatRef::from_column_major_slice(block, n, b)
}

fn orthonormalize_columns(block: &mut [f64], n: usize, b: usize) -> Result<usize> {
    orthonormalize_against(view(&[], n, 0), block, b)
}

fn assert_orthonormal(block: &[f64], n: usize, b: usize) {
    let gram = transpose_times(view(block, n, b), view(block, n, b)).unwrap();
    for j in 0..b {
        for l in 0..b {
            let expected = if j == l { 1.0 } else { 0.0 };
            assert!(
                (gram[j * b + l] - expected).abs() < 1e-13,
                "({j}, {l}): {}",
                gram[j * b + l]
            );
        }
    }
}

/// `Xᵀ Y` and `X C` against the sums written out.
#[test]
fn block_products_match_the_sums() {
    let (n, bx, by) = (2500, 3, 4);
    let x = TestRng(1).data(n, bx, 1.0, 0.0);
    let y = TestRng(2).data(n, by, 1.0, 0.5);
    let xty = transpose_times(view(&x, n, bx), view(&y, n, by)).unwrap();
    for a in 0..bx {
        for c in 0..by {
            let direct: f64 = (0..n).map(|i| x[a * n + i] * y[c * n + i]).sum();
            assert!((xty[c * bx + a] - direct).abs() < 1e-10, "({a}, {c})");
        }
    }
    let small = TestRng(3).data(bx, by, 1.0, 0.0);
    let xc = times_small(view(&x, n, bx), view(&small, bx, by)).unwrap();
    for i in 0..n {
        for c in 0..by {
            let direct: f64 = (0..bx).map(|a| x[a * n + i] * small[c * bx + a]).sum();
            assert!((xc[c * n + i] - direct).abs() < 1e-12);
        }
    }
}

#[test]
fn orthonormalisation_keeps_the_span_and_is_orthonormal() {
    let (n, b) = (2000, 6);
    let original = TestRng(4).data(n, b, 1.0, 0.0);
    let mut block = original.clone();
    assert_eq!(orthonormalize_columns(&mut block, n, b).unwrap(), 0);
    assert_orthonormal(&block, n, b);
    // Each original column lies in the span of the first columns up to its own, with a
    // positive coefficient on its own (R's diagonal is positive).
    let coefficients = transpose_times(view(&block, n, b), view(&original, n, b)).unwrap();
    let rebuilt = times_small(view(&block, n, b), view(&coefficients, b, b)).unwrap();
    for (x, y) in rebuilt.iter().zip(&original) {
        assert!((x - y).abs() < 1e-12);
    }
    for j in 0..b {
        assert!(coefficients[j * b + j] > 0.0);
        for l in j + 1..b {
            assert!(coefficients[j * b + l].abs() < 1e-12, "not triangular");
        }
    }
}

#[test]
fn dependent_and_zero_columns_are_replaced() {
    let n = 50;
    let mut block = vec![0.0; n * 4];
    for i in 0..n {
        block[i] = i as f64;
        block[n + i] = 2.0 * i as f64; // depends on column 0
        block[2 * n + i] = 0.0; // zero
        block[3 * n + i] = 1.0;
    }
    assert_eq!(orthonormalize_columns(&mut block, n, 4).unwrap(), 2);
    assert_orthonormal(&block, n, 4);
    // A full basis of a small space.
    let mut square = vec![1.0; 9];
    assert_eq!(orthonormalize_columns(&mut square, 3, 3).unwrap(), 2);
    assert_orthonormal(&square, 3, 3);
}

#[test]
fn orthonormalising_against_a_basis() {
    let n = 300;
    let mut basis = TestRng(1).data(n, 3, 1.0, 0.0);
    orthonormalize_columns(&mut basis, n, 3).unwrap();
    let mut block = TestRng(2).data(n, 2, 1.0, 0.0);
    // Make the block's first column lie mostly in the basis.
    for i in 0..n {
        block[i] = basis[i] + 1e-3 * block[i];
    }
    orthonormalize_against(view(&basis, n, 3), &mut block, 2).unwrap();
    assert_orthonormal(&block, n, 2);
    let cross = transpose_times(view(&basis, n, 3), view(&block, n, 2)).unwrap();
    assert!(cross.iter().all(|c| c.abs() < 1e-13), "{cross:?}");
    assert_invalid(
        orthonormalize_columns(&mut [1.0, f64::NAN], 2, 1),
        "block",
        "NaN",
    );
    assert_invalid(
        orthonormalize_columns(&mut [0.0; 6], 2, 3),
        "block",
        "cannot be orthonormal",
    );
}

/// The cases where rounding can leave a new column with components along the basis: a
/// block almost inside the basis's span, and a block whose columns nearly cancel each other
/// (the second is the first plus 10⁻⁹ of noise).
#[test]
fn nearly_dependent_blocks_stay_orthogonal_to_the_basis() {
    let n = 400;
    let mut basis = TestRng(3).data(n, 6, 1.0, 0.0);
    orthonormalize_columns(&mut basis, n, 6).unwrap();
    let noise = TestRng(4).data(n, 3, 1.0, 0.0);
    for (inside, tiny) in [(1.0, 1e-12), (1.0, 1e-6), (0.0, 1.0)] {
        let mut block = vec![0.0; n * 3];
        for i in 0..n {
            let in_span = basis[i] + 0.5 * basis[3 * n + i];
            block[i] = inside * in_span + tiny * noise[i];
            block[n + i] = block[i] + 1e-9 * noise[n + i];
            block[2 * n + i] = inside * basis[5 * n + i] + noise[2 * n + i];
        }
        orthonormalize_against(view(&basis, n, 6), &mut block, 3).unwrap();
        assert_orthonormal(&block, n, 3);
        let cross = transpose_times(view(&basis, n, 6), view(&block, n, 3)).unwrap();
        assert!(
            cross.iter().all(|c| c.abs() < 1e-12),
            "inside {inside}, noise {tiny}: {cross:?}"
        );
    }
}

#[test]
fn block_products_do_not_depend_on_the_thread_count() {
    let n = 5000;
    let x = TestRng(11).data(n, 5, 1.0, 0.3);
    let y = TestRng(12).data(n, 3, 1.0, -0.2);
    let small = TestRng(13).data(5, 2, 1.0, 0.0);
    let run = || {
        let mut q = x.clone();
        orthonormalize_columns(&mut q, n, 5).unwrap();
        (
            transpose_times(view(&x, n, 5), view(&y, n, 3)).unwrap(),
            times_small(view(&x, n, 5), view(&small, 5, 2)).unwrap(),
            q,
        )
    };
    let one = in_pool(1, run);
    let three = in_pool(3, run);
    assert_eq!(one, three);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random symmetric matrices: A V = V Λ, Vᵀ V = I, values descending.
    #[test]
    fn any_symmetric_matrix_is_decomposed(d in 1usize..12, seed in any::<u64>(), scale in -6i32..6) {
        let factor = 10f64.powi(scale);
        let a: Vec<f64> = random_symmetric(d, seed).iter().map(|v| v * factor).collect();
        let (values, vectors) = dense_eigen(&a, d).unwrap();
        let (residual, orthogonality) = eigen_errors(&a, d, &values, &vectors);
        let norm = a.iter().map(|v| v * v).sum::<f64>().sqrt();
        prop_assert!(residual <= 1e-13 * norm * d as f64);
        prop_assert!(orthogonality <= 1e-13 * d as f64);
        prop_assert!(values.windows(2).all(|w| w[0] >= w[1]));
    }
}

#[test]
fn eigenvalues_alone_equal_those_with_the_vectors() {
    for d in [1, 2, 7, 40, 130] {
        let a = random_symmetric(d, 40 + d as u64);
        let (values, _) = dense_eigen(&a, d).unwrap();
        let alone = symmetric_eigenvalues(&a, d, &Control::new()).unwrap();
        let scale = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert_eq!(alone.len(), d);
        for (x, y) in values.iter().zip(&alone) {
            assert!((x - y).abs() <= 1e-12 * scale, "d = {d}: {x} vs {y}");
        }
    }
    assert_invalid(
        symmetric_eigenvalues(&[1.0, 2.0, 0.0, 1.0], 2, &Control::new()),
        "a",
        "not symmetric",
    );
}
