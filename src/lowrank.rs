//! Low-rank kernels `G = Φ Φᵀ` given by explicit features Φ (n × m), e.g. Nyström features.
//!
//! The algorithms keep the k weighted feature sums `S_l = Σ_{y∈C_l} w_y φ_y` instead of the
//! k × n matrix of per-point sums: evaluating a point costs O(k·m), a move O(m), memory
//! O(n·m + k·m). The results are those of the same algorithm on the dense matrix Φ Φᵀ.

use crate::error::{KGroupsError, Result};
use crate::kernel::Kernel;
use crate::partition::dot;
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

    fn features(&self) -> Option<(&[f64], usize)> {
        Some((self.features, self.m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{fit, Algorithm, Control, DenseKernel, Init, LloydVariant, Options};

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
            Algorithm::Lloyd(LloydVariant::Batch),
            Algorithm::Lloyd(LloydVariant::Online),
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
}
