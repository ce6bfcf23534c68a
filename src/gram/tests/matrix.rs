//! Gram matrices from a user's semimetric matrix, and the checks of such matrices.

use super::super::*;
use super::assert_exactly_symmetric;
use crate::distance::{Semimetric, BLOCK};
use crate::test_support::{assert_invalid, naive_r, TestRng};
use crate::validate::finite as check_finite_matrix;
use crate::validate::semimetric::{semimetric_matrix, symmetric as check_symmetric_with};

#[test]
fn semimetric_matrix_checks_report_the_first_bad_entry() {
    let n = 1100;
    let mut r = vec![0.0; n * n];
    r[1050 * n + 3] = -1.0;
    r[1070 * n + 2] = f64::NAN;
    assert_invalid(
        check_finite_matrix(&r, n, "R"),
        "R",
        "at row 1070, column 2 (value NaN)",
    );
    r[1070 * n + 2] = -2.0;
    assert_invalid(
        semimetric_matrix(&r, n, "R", &Control::new()),
        "R",
        "R[1050, 3] = -1 is negative",
    );
    r[1050 * n + 3] = 0.0;
    r[1070 * n + 2] = 0.0;
    r[1099 * n + 1099] = 1.0;
    assert_invalid(
        semimetric_matrix(&r, n, "R", &Control::new()),
        "R",
        "R[1099, 1099] = 1",
    );
}

#[test]
fn semimetric_matrix_errors() {
    let ok = [0.0, 1.0, 2.0, 1.0, 0.0, 3.0, 2.0, 3.0, 0.0];
    assert!(gram_from_semimetric::<f64>(&ok, 3, Base::Origin).is_ok());
    assert_invalid(
        gram_from_semimetric::<f64>(&[], 0, Base::Origin),
        "R",
        "R is empty (n = 0)",
    );
    assert_invalid(
        gram_from_semimetric::<f64>(&ok[..8], 3, Base::Origin),
        "R",
        "has 8 entries",
    );
    assert_invalid(
        gram_from_semimetric::<f64>(&ok, usize::MAX, Base::Origin),
        "R",
        "n × n",
    );
    let mut bad = ok;
    bad[5] = f64::NAN;
    assert_invalid(
        gram_from_semimetric::<f64>(&bad, 3, Base::Origin),
        "R",
        "NaN or infinity at row 1, column 2",
    );
    let mut bad = ok;
    bad[4] = 0.5;
    assert_invalid(
        gram_from_semimetric::<f64>(&bad, 3, Base::Origin),
        "R",
        "R[1, 1] = 0.5",
    );
    let mut bad = ok;
    bad[1] = -1.0;
    bad[3] = -1.0;
    assert_invalid(
        gram_from_semimetric::<f64>(&bad, 3, Base::Centered),
        "R",
        "R[0, 1] = -1 is negative",
    );
    let mut bad = ok;
    bad[1] = 1.1; // R[0,1] = 1.1 vs R[1,0] = 1
    bad[6] = 2.0000001; // smaller relative violation
    assert_invalid(
        gram_from_semimetric::<f64>(&bad, 3, Base::Origin),
        "R",
        "R must be symmetric: R[0, 1] = 1.1 but R[1, 0] = 1 (the worst pair",
    );
    let mut bad = ok;
    bad[7] = 3.0 + 1e-6;
    assert_invalid(
        gram_from_semimetric::<f64>(&bad, 3, Base::Origin),
        "R",
        "R[1, 2] = 3 but R[2, 1] = 3.000001",
    );
    // within tolerance: accepted; the upper triangle is used; output exactly symmetric
    let mut near = ok;
    near[3] = 1.0 + 1e-13;
    near[4] = 1e-12;
    let g: Vec<f64> = gram_from_semimetric(&near, 3, Base::Centered).unwrap();
    let g0: Vec<f64> = gram_from_semimetric(&ok, 3, Base::Centered).unwrap();
    assert_eq!(g, g0);
    assert_exactly_symmetric(&g, 3);
    let mut out = vec![0.0f32; 3];
    assert_invalid(
        gram_from_semimetric_into(&ok, 3, Base::Origin, &mut out, &Control::new()),
        "out",
        "length 3",
    );
}

#[test]
fn symmetry_check_on_large_matrix_finds_worst_pair() {
    let n = 2 * BLOCK + 5;
    let mut rng = TestRng(17);
    let data = rng.data(n, 2, 1.0, 0.0);
    let mut r = naive_r(Semimetric::Power { alpha: 1.0 }, &data, n, 2);
    check_symmetric_with(&r, n, "R", &Control::new()).unwrap();
    r[3 * n + 200] *= 1.0 + 1e-6;
    r[250 * n + 130] *= 1.0 + 1e-3;
    r[130 * n + 255] *= 1.0 + 1e-4;
    assert_invalid(
        check_symmetric_with(&r, n, "R", &Control::new()),
        "R",
        "R[130, 250]",
    );
}
