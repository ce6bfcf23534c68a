//! The public Rust API returns errors for a caller's values instead of panicking.

use kgroups::init::{kmeans_plus_plus_centres, random_labels};
use kgroups::kernel::cluster_sums;
use kgroups::rng::Rng;
use kgroups::{Control, DenseKernel, KGroupsError};

fn kernel() -> Vec<f64> {
    vec![2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 2.0]
}

#[test]
fn below_zero_is_none_not_a_panic() {
    let mut rng = Rng::new(0);
    assert_eq!(rng.below(0), None);
    assert!(rng.below(1) == Some(0));
    assert!(rng.distinct(2, 3).is_none());
    assert_eq!(rng.distinct(0, 0), Some(vec![]));
}

#[test]
fn random_labels_with_k_out_of_range_is_an_error() {
    for (n, k) in [(3, 4), (3, 0), (0, 1)] {
        match random_labels(n, k, &mut Rng::new(1)) {
            Err(KGroupsError::InvalidInput { argument, .. }) => assert_eq!(argument, "k"),
            other => panic!("n = {n}, k = {k}: expected an error, got {other:?}"),
        }
    }
}

#[test]
fn kmeans_plus_plus_centres_with_k_above_n_is_an_error() {
    let g = kernel();
    let kernel = DenseKernel::new(&g, 3).unwrap();
    let result =
        kmeans_plus_plus_centres(&kernel, 4, &[1.0; 3], 1, &mut Rng::new(0), &Control::new());
    assert!(matches!(
        result,
        Err(KGroupsError::InvalidInput { argument: "k", .. })
    ));
    let result =
        kmeans_plus_plus_centres(&kernel, 2, &[1.0; 2], 1, &mut Rng::new(0), &Control::new());
    assert!(matches!(
        result,
        Err(KGroupsError::InvalidInput {
            argument: "weights",
            ..
        })
    ));
}

#[test]
fn cluster_sums_with_a_label_not_below_k_is_an_error() {
    let g = kernel();
    let kernel = DenseKernel::new(&g, 3).unwrap();
    let result = cluster_sums(&kernel, &[0, 1, 2], &[1.0; 3], 2, &Control::new());
    assert!(matches!(
        result,
        Err(KGroupsError::InvalidInput {
            argument: "labels",
            ..
        })
    ));
    let result = cluster_sums(&kernel, &[0, 1], &[1.0; 3], 2, &Control::new());
    assert!(matches!(
        result,
        Err(KGroupsError::InvalidInput {
            argument: "labels",
            ..
        })
    ));
    let ok = cluster_sums(&kernel, &[0, 1, 1], &[1.0; 3], 2, &Control::new()).unwrap();
    assert_eq!(ok, vec![2.0, 1.0, 0.0, 1.0, 2.0, 2.0]);
}

/// A kernel whose symmetry check was deferred is checked by `cluster_sums` in its pass, with
/// the error `DenseKernel::new` gives; a symmetric one gives the eager kernel's sums.
#[test]
fn cluster_sums_checks_a_deferred_kernel() {
    let asymmetric = [2.0, 1.9, 0.0, 1.5, 2.0, 0.0, 0.0, 0.0, 2.0];
    let eager = DenseKernel::new(&asymmetric, 3).unwrap_err();
    let deferred = DenseKernel::with_deferred_check(&asymmetric, 3).unwrap();
    let result = cluster_sums(&deferred, &[0, 1, 1], &[1.0; 3], 2, &Control::new());
    assert_eq!(result.unwrap_err().to_string(), eager.to_string());
    let g = kernel();
    let deferred = DenseKernel::with_deferred_check(&g, 3).unwrap();
    let eager = DenseKernel::new(&g, 3).unwrap();
    assert_eq!(
        cluster_sums(&deferred, &[0, 1, 1], &[1.0; 3], 2, &Control::new()).unwrap(),
        cluster_sums(&eager, &[0, 1, 1], &[1.0; 3], 2, &Control::new()).unwrap()
    );
}

#[test]
fn cluster_sums_too_large_to_allocate_is_out_of_memory() {
    let g = kernel();
    let kernel = DenseKernel::new(&g, 3).unwrap();
    let result = cluster_sums(
        &kernel,
        &[0, 1, 1],
        &[1.0; 3],
        usize::MAX / 2,
        &Control::new(),
    );
    assert!(matches!(
        result,
        Err(KGroupsError::OutOfMemory { argument: "k", .. })
    ));
}

/// The message of an [`KGroupsError::InvalidInput`] naming `argument`.
fn message_for<T: std::fmt::Debug>(result: Result<T, KGroupsError>, argument: &str) -> String {
    match result {
        Err(KGroupsError::InvalidInput {
            argument: named,
            message,
        }) => {
            assert_eq!(named, argument, "{message}");
            message
        }
        other => panic!("expected InvalidInput naming {argument}, got {other:?}"),
    }
}

#[test]
fn fit_errors_state_the_rule_in_the_python_spelling() {
    use kgroups::{fit, Init, Options};
    let g = kernel();
    let kernel = DenseKernel::new(&g, 3).unwrap();
    let run = |k: usize, options: Options| fit(&kernel, k, &options, &Control::new());
    let d = Options::default;
    let cases: Vec<(Result<_, _>, &str, &str)> = vec![
        (
            run(0, d()),
            "k",
            "k must be between 1 and n = 3 (the number of points), got 0",
        ),
        (
            run(4, d()),
            "k",
            "k must be between 1 and n = 3 (the number of points), got 4",
        ),
        (
            run(2, Options { n_init: 0, ..d() }),
            "n_init",
            "n_init must be between 1 and 1000000, got 0",
        ),
        (
            run(2, Options { max_iter: 0, ..d() }),
            "max_iter",
            "max_iter must be at least 1, got 0",
        ),
        (
            run(
                2,
                Options {
                    init: Init::Labels(&[0, 1]),
                    ..d()
                },
            ),
            "init",
            "init has length 2 but there are n = 3 points; give one label per point",
        ),
        (
            run(
                2,
                Options {
                    init: Init::Labels(&[0, 1, 2]),
                    ..d()
                },
            ),
            "init",
            "init[2] = 2 is out of range: labels must be below k = 2",
        ),
        (
            run(
                2,
                Options {
                    init: Init::Labels(&[1, 1, 1]),
                    ..d()
                },
            ),
            "init",
            "init leaves cluster 0 empty",
        ),
        (
            run(
                2,
                Options {
                    init: Init::Labels(&[0, 1, 1]),
                    n_init: 3,
                    ..d()
                },
            ),
            "n_init",
            "n_init = 3 but initial labels were given",
        ),
        (
            run(
                2,
                Options {
                    weights: Some(&[1.0, 1.0]),
                    ..d()
                },
            ),
            "weights",
            "weights has length 2 but there are n = 3 points; give one weight per point",
        ),
        (
            run(
                2,
                Options {
                    weights: Some(&[1.0, -2.0, 1.0]),
                    ..d()
                },
            ),
            "weights",
            "weights[1] = -2 but every weight must be finite and > 0",
        ),
    ];
    for (result, argument, expected) in cases {
        let message = message_for(result, argument);
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
        // The internal bound of the Python layer (2**62) must never show.
        assert!(!message.contains("4611686018427387904"), "{message}");
    }
}

#[test]
fn checked_options_run_only_on_the_kernel_they_were_checked_for() {
    use kgroups::{fit_checked, Options};
    let g = kernel();
    let kernel = DenseKernel::new(&g, 3).unwrap();
    let checked = Options::default().check(4, 2).unwrap();
    let message = message_for(fit_checked(&kernel, &checked, &Control::new()), "G");
    assert!(message.contains("checked for n = 4"), "{message}");
    let checked = Options::default().check(3, 2).unwrap();
    assert!(fit_checked(&kernel, &checked, &Control::new()).is_ok());
    // Absurd values are refused by the check, not turned into allocations or panics.
    for (n, k) in [(0, 1), (3, usize::MAX), (usize::MAX, 0), (usize::MAX, 2)] {
        assert!(Options::default().check(n, k).is_err(), "n = {n}, k = {k}");
    }
}

#[test]
fn shape_errors_name_the_matrix() {
    let message = message_for(DenseKernel::<f64>::new(&[], 0), "G");
    assert!(
        message.contains("G is empty (n = 0); at least one point is needed"),
        "{message}"
    );
    let message = message_for(DenseKernel::new(&[1.0; 8], 3), "G");
    assert!(
        message.contains("G has 8 entries but an n × n matrix with n = 3 needs n² = 9 entries"),
        "{message}"
    );
}
