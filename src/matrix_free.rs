//! Exact, matrix-free energy kernels: rows of `G` computed from the data when needed.
//!
//! `G_ab = ½[(ρ(x_a, 0) + ρ(x_b, 0)) − ρ(x_a, x_b)]` (base point 0), bit for bit the entries
//! [`crate::energy_gram`] would store, but never stored: memory is O(n·D) for the data (kept
//! once more, transposed, so that a row is computed with vectorised loops) plus O(n·k) for
//! the cluster sums. Building the sums is one parallel pass over all pairs; a move computes
//! one row, O(n·D).

use crate::control::Control;
use crate::error::Result;
use crate::gram::{
    semimetric_to_origin, squared_distances_to_transposed, transpose_rows, Points, Semimetric,
};
use crate::kernel::{transpose_to_cluster_major, Kernel};
use rayon::prelude::*;

/// Rows are computed and consumed in chunks of this many entries (fits in L1/L2).
const CHUNK: usize = 2048;
/// Below this n a row is computed on one thread.
const PARALLEL_ROW_MIN: usize = 1 << 14;

/// The energy kernel of a data set with base point 0, rows computed on the fly.
///
/// ```
/// use kgroups::{energy_gram, Base, DataKernel, Kernel, Points, Semimetric};
/// let data = [0.0, 1.0, 3.0, 7.0]; // four points in one dimension
/// let points = Points::new(&data, 4, 1)?;
/// let power = Semimetric::Power { alpha: 1.0 };
/// let kernel = DataKernel::new(points, power)?;
/// let dense: Vec<f64> = energy_gram(&points, power, Base::Origin)?;
/// let mut row = vec![0.0; 4];
/// kernel.row_into(2, &mut row);
/// assert_eq!(row, dense[8..12].to_vec());
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct DataKernel<'a> {
    points: Points<'a>,
    semimetric: Semimetric,
    to_origin: Vec<f64>,
    /// The data transposed (D × n), for vectorised distance loops.
    transposed: Vec<f64>,
}

impl<'a> DataKernel<'a> {
    /// The kernel of `points` under `semimetric` (validated).
    pub fn new(points: Points<'a>, semimetric: Semimetric) -> Result<Self> {
        semimetric.validate()?;
        Ok(DataKernel {
            points,
            semimetric,
            to_origin: semimetric_to_origin(&points, semimetric),
            transposed: transpose_rows(&points, 0..points.n()),
        })
    }

    /// `out[j] = G[i, start + j]`.
    #[inline]
    fn row_chunk(&self, i: usize, start: usize, out: &mut [f64]) {
        squared_distances_to_transposed(
            self.points.row(i),
            &self.transposed,
            self.points.n(),
            start,
            out,
        );
        self.semimetric.apply_to_squared_distances(out);
        let r_i = self.to_origin[i];
        for (v, &r_y) in out.iter_mut().zip(&self.to_origin[start..]) {
            *v = 0.5 * ((r_i + r_y) - *v);
        }
    }
}

impl Kernel for DataKernel<'_> {
    fn n(&self) -> usize {
        self.points.n()
    }

    fn diagonal(&self, i: usize) -> f64 {
        // ½[(r + r) − ρ(x, x)] with ρ(x, x) = 0: exactly r.
        0.5 * ((self.to_origin[i] + self.to_origin[i]) - self.semimetric.from_squared_distance(0.0))
    }

    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut visit: F) {
        let mut buffer = vec![0.0; CHUNK];
        for start in (0..self.n()).step_by(CHUNK) {
            let chunk = &mut buffer[..CHUNK.min(self.n() - start)];
            self.row_chunk(i, start, chunk);
            for (j, &v) in chunk.iter().enumerate() {
                visit(start + j, v);
            }
        }
    }

    fn row_into(&self, i: usize, out: &mut [f64]) {
        if self.n() >= PARALLEL_ROW_MIN {
            out.par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(c, chunk)| self.row_chunk(i, c * CHUNK, chunk));
        } else {
            for (c, chunk) in out.chunks_mut(CHUNK).enumerate() {
                self.row_chunk(i, c * CHUNK, chunk);
            }
        }
    }

    fn move_point(&self, i: usize, weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
        let update = |(c, (leaving, joining)): (usize, (&mut [f64], &mut [f64]))| {
            let mut row = [0.0; CHUNK];
            let row = &mut row[..leaving.len()];
            self.row_chunk(i, c * CHUNK, row);
            for ((l, j), v) in leaving.iter_mut().zip(joining.iter_mut()).zip(row.iter()) {
                let delta = weight * v;
                *l -= delta;
                *j += delta;
            }
        };
        if self.n() >= PARALLEL_ROW_MIN {
            leaving
                .par_chunks_mut(CHUNK)
                .zip(joining.par_chunks_mut(CHUNK))
                .enumerate()
                .for_each(update);
        } else {
            leaving
                .chunks_mut(CHUNK)
                .zip(joining.chunks_mut(CHUNK))
                .enumerate()
                .for_each(update);
        }
    }

    /// One parallel pass over all pairs: each task computes its rows chunk by chunk and
    /// gathers them by label.
    fn cluster_sums(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        let n = self.n();
        let mut point_major = vec![0.0; n * k];
        point_major
            .par_chunks_mut(k)
            .enumerate()
            .try_for_each_init(
                || vec![0.0; CHUNK],
                |buffer, (y, sums)| {
                    control.checkpoint()?;
                    for start in (0..n).step_by(CHUNK) {
                        let chunk = &mut buffer[..CHUNK.min(n - start)];
                        self.row_chunk(y, start, chunk);
                        for ((v, &label), &w) in
                            chunk.iter().zip(&labels[start..]).zip(&weights[start..])
                        {
                            sums[label] += w * v;
                        }
                    }
                    Ok(())
                },
            )?;
        Ok(transpose_to_cluster_major(&point_major, n, k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        energy_gram, fit, Algorithm, Base, Control, DenseKernel, Init, LloydVariant, Options,
    };

    #[test]
    fn matrix_free_equals_dense_bit_for_bit() {
        let (n, dim) = (2100, 3); // more than one chunk
        let mut rng = crate::rng::Rng::new(2);
        let data: Vec<f64> = (0..n * dim).map(|_| rng.next_f64() * 4.0).collect();
        let points = Points::new(&data, n, dim).unwrap();
        for semimetric in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Power { alpha: 0.5 },
            Semimetric::Exponential { sigma: 2.0 },
            Semimetric::Gaussian { sigma: 1.0 },
        ] {
            let dense: Vec<f64> = energy_gram(&points, semimetric, Base::Origin).unwrap();
            let kernel = DataKernel::new(points, semimetric).unwrap();
            let mut row = vec![0.0; n];
            for i in [0, 1, 777, n - 1] {
                kernel.row_into(i, &mut row);
                assert_eq!(row, dense[i * n..(i + 1) * n], "{semimetric:?} row {i}");
                assert_eq!(kernel.diagonal(i), dense[i * n + i]);
            }
            let dense_kernel = DenseKernel::new(&dense, n).unwrap();
            let labels: Vec<usize> = (0..n).map(|i| i % 3).collect();
            let weights: Vec<f64> = (0..n).map(|i| 1.0 + (i % 2) as f64).collect();
            let a = kernel
                .cluster_sums(&labels, &weights, 3, &Control::new())
                .unwrap();
            let b = dense_kernel
                .cluster_sums(&labels, &weights, 3, &Control::new())
                .unwrap();
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() <= 1e-10 * y.abs().max(1.0));
            }
        }
    }

    #[test]
    fn clustering_matches_dense() {
        let (n, dim) = (300, 2);
        let mut rng = crate::rng::Rng::new(5);
        let data: Vec<f64> = (0..n * dim)
            .map(|p| rng.next_f64() + if p / dim < n / 2 { 3.0 } else { 0.0 })
            .collect();
        let points = Points::new(&data, n, dim).unwrap();
        let semimetric = Semimetric::Power { alpha: 1.0 };
        let dense: Vec<f64> = energy_gram(&points, semimetric, Base::Origin).unwrap();
        let dense = DenseKernel::new(&dense, n).unwrap();
        let kernel = DataKernel::new(points, semimetric).unwrap();
        for algorithm in [Algorithm::Hartigan, Algorithm::Lloyd(LloydVariant::Batch)] {
            let options = Options {
                algorithm,
                init: Init::KMeansPlusPlus,
                seed: 4,
                n_init: 2,
                ..Options::default()
            };
            let a = fit(&kernel, 2, &options, &Control::new()).unwrap();
            let b = fit(&dense, 2, &options, &Control::new()).unwrap();
            assert_eq!(a.labels, b.labels);
            assert!((a.objective - b.objective).abs() <= 1e-10 * b.objective.abs());
        }
    }
}
