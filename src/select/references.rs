//! Reference data sets for the gap statistic (Tibshirani, Walther & Hastie 2001): points
//! drawn uniformly on the data's bounding box, or on the box of its principal components
//! (the data rotated onto the eigenvectors of its covariance, boxed there, and rotated back).

use crate::error::{try_filled, Result};
use crate::linalg::symmetric_eigen_with;
use crate::rng::Rng;
use crate::{Control, Points};

/// Where the reference points are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceBox {
    /// Uniform on `[min_j, max_j]` of every coordinate `j` of the data.
    Data,
    /// Uniform on the box of the data's principal-component scores, rotated back to the data's
    /// coordinates (Tibshirani et al.'s recommended reference: it follows the data's shape).
    Principal,
}

/// A frame in which to draw uniform points: `x = mean + R u`, `u` uniform on `[low, high]`
/// coordinate-wise (`R` the identity for [`ReferenceBox::Data`], the principal axes for
/// [`ReferenceBox::Principal`]).
#[derive(Debug, Clone)]
pub struct ReferenceFrame {
    dim: usize,
    mean: Vec<f64>,
    /// Row-major `dim × dim`; column `j` is axis `j` (`None`: the identity).
    rotation: Option<Vec<f64>>,
    low: Vec<f64>,
    high: Vec<f64>,
}

impl ReferenceFrame {
    /// The frame of `x` for the reference `kind`.
    ///
    /// ```
    /// use kgroups::select::references::{ReferenceBox, ReferenceFrame};
    /// use kgroups::Points;
    /// // Points on the line y = x: the principal box is a thin segment along it.
    /// let x = Points::new(&[0.0, 0.0, 1.0, 1.0, 2.0, 2.0], 3, 2)?;
    /// let frame = ReferenceFrame::new(&x, ReferenceBox::Principal)?;
    /// let r = frame.draw(3, 5)?;
    /// assert!(r.chunks(2).all(|p| (p[0] - p[1]).abs() < 1e-9));
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    pub fn new(x: &Points, kind: ReferenceBox) -> Result<Self> {
        ReferenceFrame::new_with(x, kind, &Control::new())
    }

    /// [`ReferenceFrame::new`], checking `control` for cancellation after every row of the
    /// covariance and of the projection (each `O(D²)` for the principal box) and during the
    /// eigen-decomposition.
    pub fn new_with(x: &Points, kind: ReferenceBox, control: &Control) -> Result<Self> {
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
        let rotation = match kind {
            ReferenceBox::Data => None,
            ReferenceBox::Principal => {
                let mut covariance = try_filled(dim * dim, 0.0, "X", "the data's covariance")?;
                let mut centred = vec![0.0; dim];
                for row in data.chunks_exact(dim) {
                    control.checkpoint()?;
                    for ((c, v), m) in centred.iter_mut().zip(row).zip(&mean) {
                        *c = v - m;
                    }
                    for a in 0..dim {
                        for b in a..dim {
                            covariance[a * dim + b] += centred[a] * centred[b];
                        }
                    }
                }
                for a in 0..dim {
                    for b in 0..a {
                        covariance[a * dim + b] = covariance[b * dim + a];
                    }
                }
                Some(symmetric_eigen_with(&covariance, dim, control)?.1)
            }
        };
        let mut low = vec![f64::INFINITY; dim];
        let mut high = vec![f64::NEG_INFINITY; dim];
        let mut scores = vec![0.0; dim];
        for row in data.chunks_exact(dim) {
            control.checkpoint()?;
            project(row, &mean, rotation.as_deref(), &mut scores);
            for j in 0..dim {
                low[j] = low[j].min(scores[j]);
                high[j] = high[j].max(scores[j]);
            }
        }
        Ok(ReferenceFrame {
            dim,
            mean,
            rotation,
            low,
            high,
        })
    }

    /// `n` points drawn uniformly in the frame's box from `seed`, row-major `n × dim`.
    pub fn draw(&self, n: usize, seed: u64) -> Result<Vec<f64>> {
        self.draw_with(n, seed, &Control::new())
    }

    /// [`ReferenceFrame::draw`], checking `control` for cancellation after every point (each
    /// `O(D²)` in the principal box).
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
            match &self.rotation {
                None => {
                    for j in 0..dim {
                        row[j] = self.mean[j] + u[j];
                    }
                }
                Some(r) => {
                    for (a, value) in row.iter_mut().enumerate() {
                        let axes = &r[a * dim..(a + 1) * dim];
                        *value =
                            self.mean[a] + axes.iter().zip(&u).map(|(r, u)| r * u).sum::<f64>();
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The coordinates of `row − mean` along the frame's axes.
fn project(row: &[f64], mean: &[f64], rotation: Option<&[f64]>, out: &mut [f64]) {
    let dim = row.len();
    match rotation {
        None => {
            for j in 0..dim {
                out[j] = row[j] - mean[j];
            }
        }
        Some(r) => {
            for (j, o) in out.iter_mut().enumerate() {
                *o = (0..dim).map(|a| (row[a] - mean[a]) * r[a * dim + j]).sum();
            }
        }
    }
}
