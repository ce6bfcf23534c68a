//! The public Rust API returns errors for a caller's values instead of panicking.

use kgroups::init::{kmeans_plus_plus_centres, random_labels};
use kgroups::rng::Rng;
use kgroups::{Control, DenseKernel, KGroupsError, Kernel};

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
    let result = kernel.cluster_sums(&[0, 1, 2], &[1.0; 3], 2, &Control::new());
    assert!(matches!(
        result,
        Err(KGroupsError::InvalidInput {
            argument: "labels",
            ..
        })
    ));
    let result = kernel.cluster_sums(&[0, 1], &[1.0; 3], 2, &Control::new());
    assert!(matches!(
        result,
        Err(KGroupsError::InvalidInput {
            argument: "labels",
            ..
        })
    ));
    let ok = kernel
        .cluster_sums(&[0, 1, 1], &[1.0; 3], 2, &Control::new())
        .unwrap();
    assert_eq!(ok, vec![2.0, 1.0, 0.0, 1.0, 2.0, 2.0]);
}

#[test]
fn cluster_sums_too_large_to_allocate_is_out_of_memory() {
    let g = kernel();
    let kernel = DenseKernel::new(&g, 3).unwrap();
    let result = kernel.cluster_sums(&[0, 1, 1], &[1.0; 3], usize::MAX / 2, &Control::new());
    assert!(matches!(
        result,
        Err(KGroupsError::OutOfMemory { argument: "k", .. })
    ));
}
