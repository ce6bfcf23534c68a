//! Low-rank kernels `G = Φ Φᵀ` given by explicit features Φ (n × m), e.g. Nyström features.
//!
//! The algorithms keep the k weighted feature sums `S_l = Σ_{y∈C_l} w_y φ_y` instead of the
//! k × n matrix of per-point sums: evaluating a point costs O(k·m), a move O(m), memory
//! O(n·m + k·m). The results are those of the same algorithm on the dense matrix Φ Φᵀ.
//!
//! [`select_landmarks`] picks the m points whose kernel columns the Nyström features are
//! built from.

use crate::cluster::init::kmeans_plus_plus_centres;
use crate::cluster::partition::dot;
use crate::control::Control;
use crate::error::{KGroupsError, Result};
use crate::kernel::{Kernel, KernelAccess, Visit};
use crate::rng::Rng;
use crate::{Base, DataKernel, Points, Semimetric};
use rayon::prelude::*;

/// Rows shorter than this are computed on one thread.
const PARALLEL_ROW_MIN: usize = 1 << 15;

/// A borrowed feature matrix Φ (n × m, row-major) standing for the kernel `G = Φ Φᵀ`.
///
/// ```
/// use kgroups::{FeatureKernel, Kernel};
/// let features = [1.0, 0.0, 0.0, 2.0, 1.0, 1.0]; // three points, m = 2
/// let kernel = FeatureKernel::new(&features, 3, 2)?;
/// assert_eq!(kernel.diagonal(1), 4.0);
/// let mut row = vec![0.0; 3];
/// kernel.row_into(2, &mut row);
/// assert_eq!(row, vec![1.0, 2.0, 2.0]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct FeatureKernel<'a> {
    features: &'a [f64],
    n: usize,
    m: usize,
    diagonal: Vec<f64>,
}

impl<'a> FeatureKernel<'a> {
    /// Borrow `features` (length `n * m`, finite) as the kernel Φ Φᵀ.
    pub fn new(features: &'a [f64], n: usize, m: usize) -> Result<Self> {
        if n == 0 || m == 0 || n.checked_mul(m) != Some(features.len()) {
            return Err(KGroupsError::invalid(
                "features",
                format!("expected an n × m feature matrix with n, m ≥ 1 (n = {n}, m = {m}), got {} values", features.len()),
            ));
        }
        if let Some(p) = features.iter().position(|v| !v.is_finite()) {
            return Err(KGroupsError::invalid(
                "features",
                format!(
                    "the features contain NaN or infinity (row {}, column {})",
                    p / m,
                    p % m
                ),
            ));
        }
        let diagonal = features
            .par_chunks_exact(m)
            .map(|f| f.iter().map(|v| v * v).sum())
            .collect();
        Ok(FeatureKernel {
            features,
            n,
            m,
            diagonal,
        })
    }

    /// φ_i.
    #[inline]
    pub fn feature(&self, i: usize) -> &'a [f64] {
        &self.features[i * self.m..(i + 1) * self.m]
    }
}

impl Kernel for FeatureKernel<'_> {
    fn n(&self) -> usize {
        self.n
    }

    fn diagonal(&self, i: usize) -> f64 {
        self.diagonal[i]
    }

    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut visit: F) {
        let fi = self.feature(i);
        for (y, fy) in self.features.chunks_exact(self.m).enumerate() {
            visit(y, dot(fi, fy));
        }
    }

    fn row_into(&self, i: usize, out: &mut [f64]) {
        let fi = self.feature(i);
        let compute = |(o, fy): (&mut f64, &[f64])| *o = dot(fi, fy);
        if self.n >= PARALLEL_ROW_MIN {
            out.par_iter_mut()
                .zip(self.features.par_chunks_exact(self.m))
                .for_each(compute);
        } else {
            out.iter_mut()
                .zip(self.features.chunks_exact(self.m))
                .for_each(compute);
        }
    }

    fn dispatch<V: Visit>(&self, visit: V) -> V::Output {
        visit.visit(self)
    }
}

impl KernelAccess for FeatureKernel<'_> {
    fn features(&self) -> Option<(&[f64], usize)> {
        Some((self.features, self.m))
    }
}

/// How Nyström landmarks are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LandmarkMethod {
    /// D² sampling in the feature space of the energy kernel (k-means++ with one candidate
    /// per landmark, unit weights): covers small clusters better than uniform sampling.
    #[default]
    KMeansPlusPlus,
    /// m distinct points drawn uniformly (without replacement).
    Uniform,
}

/// The indices of `m` distinct landmarks among the points, in the order chosen.
///
/// [`LandmarkMethod::KMeansPlusPlus`] measures distances in the feature space of the
/// energy kernel of `semimetric` with base point 0 (the Nyström caller centres the data
/// first); the kernel's rows are computed on the fly, O(n·m·D) time and O(n) memory.
/// Errors unless `1 <= m <= n` (reported as `n_components`, the Python name); stops with
/// [`KGroupsError::Interrupted`] when `control` is cancelled.
///
/// ```
/// use kgroups::kernel::{select_landmarks, LandmarkMethod};
/// use kgroups::{Control, Points, Semimetric};
/// let data = [0.0, 0.1, 0.2, 10.0, 10.1];
/// let points = Points::new(&data, 5, 1)?;
/// let power = Semimetric::Power { alpha: 1.0 };
/// for method in [LandmarkMethod::KMeansPlusPlus, LandmarkMethod::Uniform] {
///     let mut chosen = select_landmarks(points, power, 3, method, 7, &Control::new())?;
///     chosen.sort();
///     chosen.dedup();
///     assert_eq!(chosen.len(), 3);
/// }
/// assert!(select_landmarks(points, power, 6, LandmarkMethod::Uniform, 7, &Control::new()).is_err());
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn select_landmarks(
    points: Points,
    semimetric: Semimetric,
    m: usize,
    method: LandmarkMethod,
    seed: u64,
    control: &Control,
) -> Result<Vec<usize>> {
    let n = points.n();
    if m < 1 || m > n {
        return Err(KGroupsError::invalid(
            "n_components",
            format!("{m} landmarks requested but 1 <= n_components <= n = {n} is required"),
        ));
    }
    let mut rng = Rng::new(seed);
    match method {
        LandmarkMethod::Uniform => rng
            .distinct(n, m)
            .ok_or_else(|| KGroupsError::Internal(format!("no {m} distinct of {n} points"))),
        LandmarkMethod::KMeansPlusPlus => {
            let kernel = DataKernel::new(points, semimetric, Base::Origin)?;
            control.checkpoint()?;
            let weights = crate::error::try_filled(n, 1.0, "X", "the landmark weights")?;
            kmeans_plus_plus_centres(&kernel, m, &weights, 1, &mut rng, control)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{fit, Algorithm, Control, DenseKernel, Init, Options};

    #[test]
    fn features_give_the_dense_result() {
        let (n, m) = (60, 3);
        let mut rng = crate::rng::Rng::new(4);
        let features: Vec<f64> = (0..n * m)
            .map(|p| rng.next_f64() + if (p / m) % 3 == 0 { 2.0 } else { 0.0 })
            .collect();
        let kernel = FeatureKernel::new(&features, n, m).unwrap();
        let mut dense = vec![0.0; n * n];
        for i in 0..n {
            kernel.row_into(i, &mut dense[i * n..(i + 1) * n]);
        }
        let dense = DenseKernel::new(&dense, n).unwrap();
        let weights: Vec<f64> = (0..n).map(|i| 1.0 + (i % 4) as f64).collect();
        for algorithm in [
            Algorithm::Hartigan,
            Algorithm::Lloyd,
            Algorithm::LloydOnline,
        ] {
            let options = Options {
                algorithm,
                init: Init::Random,
                weights: Some(&weights),
                seed: 9,
                n_init: 2,
                ..Options::default()
            };
            let a = fit(&kernel, 3, &options, &Control::new()).unwrap();
            let b = fit(&dense, 3, &options, &Control::new()).unwrap();
            assert_eq!(a.labels, b.labels, "{algorithm:?}");
            assert!((a.objective - b.objective).abs() < 1e-9 * b.objective.abs());
        }
    }

    #[test]
    fn rejects_bad_features() {
        assert!(FeatureKernel::new(&[1.0, f64::NAN], 1, 2).is_err());
        assert!(FeatureKernel::new(&[1.0, 2.0, 3.0], 2, 2).is_err());
    }

    #[test]
    fn landmarks_are_distinct_seeded_and_cover_far_groups() {
        // Two far groups of 20 points: three k-means++ landmarks never all fall in one.
        let data: Vec<f64> = (0..40)
            .map(|i| {
                if i < 20 {
                    i as f64 * 0.01
                } else {
                    100.0 + i as f64 * 0.01
                }
            })
            .collect();
        let points = Points::new(&data, 40, 1).unwrap();
        let power = Semimetric::Power { alpha: 1.0 };
        let control = Control::new();
        for seed in 0..10 {
            for method in [LandmarkMethod::KMeansPlusPlus, LandmarkMethod::Uniform] {
                let chosen = select_landmarks(points, power, 3, method, seed, &control).unwrap();
                let again = select_landmarks(points, power, 3, method, seed, &control).unwrap();
                assert_eq!(chosen, again, "the same seed gives the same landmarks");
                let mut unique = chosen.clone();
                unique.sort();
                unique.dedup();
                assert_eq!(unique.len(), 3, "{chosen:?}");
                if method == LandmarkMethod::KMeansPlusPlus {
                    assert!(chosen.iter().any(|&i| i < 20) && chosen.iter().any(|&i| i >= 20));
                }
            }
        }
        // Uniform is the generator's own partial shuffle.
        let uniform = select_landmarks(points, power, 5, LandmarkMethod::Uniform, 3, &control);
        assert_eq!(uniform.unwrap(), Rng::new(3).distinct(40, 5).unwrap());
        for m in [0, 41] {
            let err = select_landmarks(points, power, m, LandmarkMethod::Uniform, 0, &control);
            assert!(err.unwrap_err().to_string().contains("n_components"));
        }
    }
}
