//! The eigen-gap of a normalised graph kernel: with `μ_1 ≥ μ_2 ≥ …` the top eigenvalues of
//! `D^-½ A D^-½` (= `W^½ G W^½` for the normalised-cut kernel `G = D⁻¹ A D⁻¹` with node
//! weights `d`), the normalised Laplacian's smallest eigenvalues are `λ_k = 1 − μ_k`, and a
//! graph of k well-separated groups has `λ_1 … λ_k` near 0 and `λ_{k+1}` clearly above.

use crate::error::Result;
use crate::spectral::{top_eigenpairs_with, EigenOptions, Eigenpairs};
use crate::{Control, Kernel};

/// How accurately the eigen-gap's eigenpairs are computed: a relative residual of 10⁻⁵ puts
/// the eigenvalues within about 10⁻¹⁰ / gap, far below the eigen-gaps that matter; the
/// restarts are capped because the normalised adjacency of a kNN graph has eigenvalues
/// crowded near 1, where the Krylov method converges slowly ([`selection_eigenpairs`] then
/// tries again with more restarts, and [`resolved_relative_eigengap`] keeps only the gaps an
/// unconverged result resolves).
pub const SELECTION_EIGEN_OPTIONS: EigenOptions = EigenOptions {
    tolerance: 1e-5,
    max_restarts: 25,
};

/// The eigenpairs behind the spectral starts of the self-tuning probe (a dense graph: each
/// product costs `n²` per vector) and of the stability subsamples: a start needs only the
/// rough span of the vectors, and Hartigan's method refines the partition.
pub const START_EIGEN_OPTIONS: EigenOptions = EigenOptions {
    tolerance: 1e-3,
    max_restarts: 3,
};

/// The top `count` eigenpairs of `W^½ G W^½` for a normalised-cut kernel `G` with node
/// weights `degrees` (the eigenvalues `μ` of `D^-½ A D^-½`, descending), computed with
/// `options` ([`SELECTION_EIGEN_OPTIONS`] or [`START_EIGEN_OPTIONS`]).
pub fn normalized_eigenpairs<K: Kernel>(
    kernel: &K,
    degrees: &[f64],
    count: usize,
    seed: u64,
    options: &EigenOptions,
    control: &Control,
) -> Result<Eigenpairs> {
    top_eigenpairs_with(
        kernel,
        Some(degrees),
        count.min(kernel.n()),
        seed,
        options,
        control,
    )
}

/// The most restarts of the second try of [`selection_eigenpairs`], when the first (with
/// [`SELECTION_EIGEN_OPTIONS`]) did not converge.
pub const RETRY_MAX_RESTARTS: usize = 100;

/// The eigen-gap's eigenpairs: [`normalized_eigenpairs`] with `options`, and when that does
/// not converge, once more with [`RETRY_MAX_RESTARTS`] restarts (the same start, so the
/// retry goes on where the first try stopped). The retry's result is returned whether it
/// converged or not: [`resolved_relative_eigengap`] reads an unconverged result.
pub fn selection_eigenpairs<K: Kernel>(
    kernel: &K,
    degrees: &[f64],
    count: usize,
    seed: u64,
    options: &EigenOptions,
    control: &Control,
) -> Result<Eigenpairs> {
    let first = normalized_eigenpairs(kernel, degrees, count, seed, options, control)?;
    if first.converged || options.max_restarts >= RETRY_MAX_RESTARTS {
        return Ok(first);
    }
    let retry = EigenOptions {
        max_restarts: RETRY_MAX_RESTARTS,
        ..*options
    };
    normalized_eigenpairs(kernel, degrees, count, seed, &retry, control)
}

/// [`relative_eigengap`] of `λ = 1 − μ` for the eigenpairs `pairs`, keeping of an
/// unconverged result only the gaps it resolves: each Ritz value `μ_j` has an eigenvalue
/// within its residual `r_j`, so a gap `λ_{k+1} − λ_k` larger than `r_k + r_{k+1}` is a gap
/// of the spectrum, and a smaller one may be an artefact of the unfinished iteration; those
/// are NaN (they never win [`relative_eigengap_k`]). A converged result is taken as it is.
pub fn resolved_relative_eigengap(pairs: &Eigenpairs) -> Vec<f64> {
    let lambda = laplacian_eigenvalues(&pairs.values);
    let mut gaps = relative_eigengap(&lambda);
    if !pairs.converged {
        for (k, gap) in gaps.iter_mut().enumerate() {
            let bound = pairs.residuals[k] + pairs.residuals[k + 1];
            if lambda[k + 1] - lambda[k] <= bound || bound.is_nan() {
                *gap = f64::NAN;
            }
        }
    }
    gaps
}

/// `λ_k = 1 − μ_k`.
pub fn laplacian_eigenvalues(mu: &[f64]) -> Vec<f64> {
    mu.iter().map(|m| 1.0 - m).collect()
}

/// The relative eigen-gap `(λ_{k+1} − λ_k) / λ_{k+1}` at index `k − 1` for `k = 1 … K`
/// (`K = λ.len() − 1`), with `λ_{k+1}` floored at 10⁻¹² (a graph with more than k
/// components); NaN at `k = 1`, where it is always 1 (`λ_1 = 0`) and says nothing.
pub fn relative_eigengap(lambda: &[f64]) -> Vec<f64> {
    let count = lambda.len().saturating_sub(1);
    (0..count)
        .map(|i| {
            if i == 0 {
                f64::NAN
            } else {
                (lambda[i + 1] - lambda[i]) / lambda[i + 1].max(1e-12)
            }
        })
        .collect()
}

/// The k in `k_min.max(2) ..= k_max` with the largest relative eigen-gap (the first, if
/// tied; NaN gaps never win); `k_min.max(2)` when none is finite.
pub fn relative_eigengap_k(gaps: &[f64], k_min: usize, k_max: usize) -> usize {
    let first = k_min.max(2);
    let mut best: Option<(usize, f64)> = None;
    for k in first..=k_max.min(gaps.len()) {
        let g = gaps[k - 1];
        if g.is_finite() && best.is_none_or(|(_, b)| g > b) {
            best = Some((k, g));
        }
    }
    best.map_or(first, |(k, _)| k)
}

/// The examples of the items above, run as tests (the module is private to the crate).
#[cfg(test)]
mod examples {
    #[test]
    fn selection_eigenpairs_example() -> crate::error::Result<()> {
        use crate::select::eigengap::{selection_eigenpairs, SELECTION_EIGEN_OPTIONS};
        use crate::{Control, DenseKernel};
        // Two disconnected pairs: A = [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]],
        // degrees 1, G = D⁻¹ A D⁻¹ = A: eigenvalues 1, 1, −1, −1.
        let a = [
            0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0,
        ];
        let kernel = DenseKernel::new(&a, 4)?;
        let pairs = selection_eigenpairs(
            &kernel,
            &[1.0; 4],
            3,
            0,
            &SELECTION_EIGEN_OPTIONS,
            &Control::new(),
        )?;
        assert!(pairs.converged);
        assert!((pairs.values[0] - 1.0).abs() < 1e-9 && (pairs.values[2] + 1.0).abs() < 1e-9);
        Ok(())
    }

    #[test]
    fn resolved_relative_eigengap_example() {
        use crate::select::eigengap::resolved_relative_eigengap;
        use crate::spectral::Eigenpairs;
        let mut pairs = Eigenpairs {
            values: vec![1.0, 0.99, 0.5, 0.45],
            vectors: vec![0.0; 16],
            n: 4,
            count: 4,
            residuals: vec![1e-3, 1e-3, 0.1, 0.1],
            converged: false,
            n_restarts: 25,
            n_products: 25,
        };
        let gaps = resolved_relative_eigengap(&pairs);
        assert!(gaps[0].is_nan()); // k = 1 says nothing
        assert!((gaps[1] - 0.98).abs() < 1e-12); // 0.49 > 0.001 + 0.1: resolved
        assert!(gaps[2].is_nan()); // 0.05 < 0.1 + 0.1: not resolved
        pairs.converged = true;
        assert!(resolved_relative_eigengap(&pairs)[2].is_finite());
    }

    #[test]
    fn relative_eigengap_example() {
        use crate::select::eigengap::relative_eigengap;
        let gaps = relative_eigengap(&[0.0, 0.01, 0.5, 0.6]);
        assert!(gaps[0].is_nan());
        assert!((gaps[1] - 0.98).abs() < 1e-12);
        assert_eq!(gaps.len(), 3);
    }
}
