//! Reference data sets for the gap statistic (Tibshirani, Walther & Hastie 2001): points
//! drawn uniformly on the box of the data's principal components (the data rotated onto the
//! eigenvectors of its covariance, boxed there, and rotated back: Tibshirani et al.'s
//! recommended reference, which follows the data's shape).

use crate::error::{try_filled, Result};
use crate::linalg::symmetric_eigen;
use crate::rng::Rng;
use crate::{Control, Points};

/// A frame in which to draw uniform points: `x = mean + R u`, `u` uniform on `[low, high]`
/// coordinate-wise, `R` the principal axes.
#[derive(Debug, Clone)]
pub struct ReferenceFrame {
    dim: usize,
    mean: Vec<f64>,
    /// Row-major `dim × axes`; column `j` is axis `j` (`None`: the identity).
    rotation: Vec<f64>,
    /// The number of axes: `dim`, or fewer for the principal box of data with fewer points
    /// than dimensions (the data spans at most `n` of them; `low = high = 0` past `axes`).
    axes: usize,
    low: Vec<f64>,
    high: Vec<f64>,
}

impl ReferenceFrame {
    /// The principal box of `x`, checking `control` for cancellation after every row of the
    /// covariance and of the projection (each `O(D · min(n, D))` for the principal box) and
    /// during the eigen-decomposition.
    ///
    /// The principal axes come from the `D × D` covariance when `n ≥ D`, and from the
    /// `n × n` Gram matrix of the centred data when `n < D` (the same nonzero eigenvalues,
    /// the axes recovered from its eigenvectors; `O(n² D)` instead of `O(D³)`).
    pub fn new_with(x: &Points, control: &Control) -> Result<Self> {
        let (n, dim) = (x.n(), x.dim());
        let data = x.data();
        let mut mean = try_filled(dim, 0.0, "X", "the data's mean")?;
        for row in data.chunks_exact(dim) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        for m in &mut mean {
            *m /= n as f64;
        }
        let gram = n < dim && !scatter_forced();
        let (_, rotation, axes) = principal_axes(data, &mean, n, dim, gram, control)?;
        // Coordinates past `axes` (the Gram form's null directions) have an empty range:
        // the data has no extent along them.
        let mut low = vec![0.0; dim];
        let mut high = vec![0.0; dim];
        low[..axes].fill(f64::INFINITY);
        high[..axes].fill(f64::NEG_INFINITY);
        let mut scores = vec![0.0; axes];
        for row in data.chunks_exact(dim) {
            control.checkpoint()?;
            project(row, &mean, &rotation, &mut scores);
            for j in 0..axes {
                low[j] = low[j].min(scores[j]);
                high[j] = high[j].max(scores[j]);
            }
        }
        Ok(ReferenceFrame {
            dim,
            mean,
            rotation,
            axes,
            low,
            high,
        })
    }

    /// `n` points drawn uniformly in the frame's box from `seed`, row-major `n × dim`,
    /// checking `control` for cancellation after every point (each
    /// `O(D · min(n, D))` in the principal box).
    pub fn draw_with(&self, n: usize, seed: u64, control: &Control) -> Result<Vec<f64>> {
        let dim = self.dim;
        let mut out = try_filled(n * dim, 0.0, "X", "a reference data set")?;
        let mut rng = Rng::new(seed);
        let mut u = vec![0.0; dim];
        for row in out.chunks_exact_mut(dim) {
            control.checkpoint()?;
            for ((u, low), high) in u.iter_mut().zip(&self.low).zip(&self.high) {
                *u = low + (high - low) * rng.next_f64();
            }
            // All `dim` uniforms are drawn (the same stream for any number of axes); those
            // past `axes` are 0 (an empty range).
            let axes = self.axes;
            for (a, value) in row.iter_mut().enumerate() {
                let along = &self.rotation[a * axes..(a + 1) * axes];
                *value = self.mean[a]
                    + along
                        .iter()
                        .zip(&u[..axes])
                        .map(|(r, u)| r * u)
                        .sum::<f64>();
            }
        }
        Ok(out)
    }

    /// `n` points drawn as [`ReferenceFrame::draw_with`] draws them, given by coordinates
    /// that keep their pairwise distances: when the frame has fewer axes than the data has
    /// dimensions (the principal box of data with fewer points than dimensions), their
    /// coordinates along the axes (`n × axes`: the points are `mean + R u` with orthonormal
    /// axes `R`, so the distances are those of the `u`), else the points themselves.
    /// Returns the coordinates, row-major, and their number per point. For statistics of
    /// the distances alone (the gap statistic's `W_k`), at `O(axes)` per point instead of
    /// `O(D · axes)`.
    pub fn draw_compact_with(
        &self,
        n: usize,
        seed: u64,
        control: &Control,
    ) -> Result<(Vec<f64>, usize)> {
        let (dim, axes) = (self.dim, self.axes);
        if axes == 0 || axes == dim {
            return Ok((self.draw_with(n, seed, control)?, dim));
        }
        let mut out = try_filled(n * axes, 0.0, "X", "a reference data set")?;
        let mut rng = Rng::new(seed);
        for row in out.chunks_exact_mut(axes) {
            control.checkpoint()?;
            // The same stream as `draw_with`: `dim` uniforms a point.
            for ((u, low), high) in row.iter_mut().zip(&self.low).zip(&self.high) {
                *u = low + (high - low) * rng.next_f64();
            }
            for _ in axes..dim {
                rng.next_f64();
            }
        }
        Ok((out, axes))
    }
}

/// The coordinates of `row − mean` along the frame's `out.len()` axes (`rotation` row-major
/// `dim × out.len()`).
fn project(row: &[f64], mean: &[f64], rotation: &[f64], out: &mut [f64]) {
    let axes = out.len();
    out.fill(0.0);
    for ((v, m), along) in row.iter().zip(mean).zip(rotation.chunks_exact(axes.max(1))) {
        let c = v - m;
        for (o, a) in out.iter_mut().zip(along) {
            *o += c * a;
        }
    }
}

/// Gram-form eigenvalues below this fraction of the largest are treated as 0: their
/// eigenvectors are swamped by rounding (an error of about `ε ‖G‖ / μ` in the vector),
/// while the data's extent along them is below `10⁻⁶` of its largest.
const GRAM_NEGLIGIBLE: f64 = 1e-12;

/// The principal axes of the `n × dim` data (row-major) with mean `mean`: the eigenvalues
/// `μ` (descending) of the scatter matrix `S = Xcᵀ Xc` (`Xc` the centred data) and its unit
/// eigenvectors as the columns of a row-major `dim × axes` matrix, each with its entry of
/// largest magnitude positive; returns `(μ, axes matrix, axes)`.
///
/// `gram = false`: `S` itself (`dim × dim`, `O(n dim²)` to build, `O(dim³)` to decompose),
/// all `dim` axes. `gram = true`: the `n × n` Gram matrix `G = Xc Xcᵀ`, which has the same
/// nonzero eigenvalues, and for each `μ > 10⁻¹² μ_max` the axis
/// `v = Xcᵀ u / √μ` (`G u = μ u`; then `S v = μ v` and `‖v‖ = 1`); the other eigenvalues
/// are returned as they are and their axes left out (the data's extent along them is
/// negligible). The cheaper form when `n < dim`. Checks `control` for cancellation after
/// every row of each product and before the eigen-decomposition.
fn principal_axes(
    data: &[f64],
    mean: &[f64],
    n: usize,
    dim: usize,
    gram: bool,
    control: &Control,
) -> Result<(Vec<f64>, Vec<f64>, usize)> {
    let mut centred = try_filled(data.len(), 0.0, "X", "the centred data")?;
    for (out, row) in centred.chunks_exact_mut(dim).zip(data.chunks_exact(dim)) {
        for ((c, v), m) in out.iter_mut().zip(row).zip(mean) {
            *c = v - m;
        }
    }
    if !gram {
        let mut scatter = try_filled(dim * dim, 0.0, "X", "the data's covariance")?;
        for row in centred.chunks_exact(dim) {
            control.checkpoint()?;
            for a in 0..dim {
                for b in a..dim {
                    scatter[a * dim + b] += row[a] * row[b];
                }
            }
        }
        for a in 0..dim {
            for b in 0..a {
                scatter[a * dim + b] = scatter[b * dim + a];
            }
        }
        let (values, vectors) = symmetric_eigen(&scatter, dim, control)?;
        return Ok((values, vectors, dim));
    }
    let mut product = try_filled(n * n, 0.0, "X", "the data's Gram matrix")?;
    for a in 0..n {
        control.checkpoint()?;
        let row_a = &centred[a * dim..(a + 1) * dim];
        for b in a..n {
            let row_b = &centred[b * dim..(b + 1) * dim];
            let dot: f64 = row_a.iter().zip(row_b).map(|(x, y)| x * y).sum();
            product[a * n + b] = dot;
            product[b * n + a] = dot;
        }
    }
    let (values, u) = symmetric_eigen(&product, n, control)?;
    drop(product);
    let largest = values.first().copied().unwrap_or(0.0);
    let axes = values
        .iter()
        .take_while(|&&mu| mu > GRAM_NEGLIGIBLE * largest && mu > 0.0)
        .count();
    // V = Xcᵀ U[:, ..axes] diag(1/√μ), accumulated row of Xc by row.
    let mut vectors = try_filled(dim * axes, 0.0, "X", "the principal axes")?;
    if axes > 0 {
        for (a, row) in centred.chunks_exact(dim).enumerate() {
            control.checkpoint()?;
            let weights = &u[a * n..a * n + axes];
            for (out, &x) in vectors.chunks_exact_mut(axes).zip(row) {
                for (o, w) in out.iter_mut().zip(weights) {
                    *o += x * w;
                }
            }
        }
    }
    for j in 0..axes {
        let scale = 1.0 / values[j].sqrt();
        let column = |i: usize| vectors[i * axes + j];
        let peak = (0..dim).fold(0, |best, i| {
            if column(i).abs() > column(best).abs() {
                i
            } else {
                best
            }
        });
        let sign = if column(peak) < 0.0 { -scale } else { scale };
        for i in 0..dim {
            vectors[i * axes + j] *= sign;
        }
    }
    Ok((values, vectors, axes))
}

/// Whether the principal box must come from the `D × D` covariance even when `n < D`: only
/// where a test asks for it (to compare the two forms); otherwise never.
fn scatter_forced() -> bool {
    #[cfg(test)]
    {
        tests::scatter_forced()
    }
    #[cfg(not(test))]
    {
        false
    }
}

#[cfg(test)]
pub(crate) mod tests;
