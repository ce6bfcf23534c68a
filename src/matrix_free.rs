//! Exact, matrix-free energy kernels: rows of `G` computed from the data when needed.
//!
//! `G_ab = ½[(ρ(x_a, 0) + ρ(x_b, 0)) − ρ(x_a, x_b)]` (base point 0), bit for bit the entries
//! [`crate::energy_gram`] would store, but never stored: memory is O(n·D) for the data (kept
//! once more, transposed, so that a row is computed with vectorised loops) plus O(n·k) for
//! the cluster sums. Building the sums is one parallel pass over all pairs, each evaluated
//! once; a move computes one row, O(n·D).

use crate::control::Control;
use crate::error::{KGroupsError, Result};
use crate::gram::{
    block_range, for_each_block_pair, semimetric_to_origin, squared_distances_to_transposed,
    transpose_rows, wide_vectors, Points, Semimetric,
};
use crate::kernel::{check_cluster_sums_args, transpose_to_cluster_major, Kernel};
use rayon::prelude::*;

/// Rows are computed and consumed in chunks of this many entries (fits in L1/L2).
const CHUNK: usize = 2048;
/// Points per block of the tiled cluster sums (a 256 × 256 tile of f64 is 512 KiB, in L2).
const SUMS_BLOCK: usize = 256;
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
        #[cfg(target_arch = "x86_64")]
        if wide_vectors() {
            // SAFETY: `row_chunk_avx2` only requires AVX2, which the CPU has (checked above).
            unsafe { self.row_chunk_avx2(i, start, out) };
            return;
        }
        self.row_chunk_portable(i, start, out);
    }

    /// [`DataKernel::row_chunk_portable`] compiled with AVX2 (bit-identical results; see
    /// [`crate::gram::wide_vectors`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn row_chunk_avx2(&self, i: usize, start: usize, out: &mut [f64]) {
        self.row_chunk_portable(i, start, out);
    }

    #[inline(always)]
    fn row_chunk_portable(&self, i: usize, start: usize, out: &mut [f64]) {
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

    /// One parallel pass over all pairs, each pair evaluated once: the kernel is computed
    /// tile by tile over pairs of point blocks `(p, q)`, `p ≤ q`, and each tile feeds the
    /// sums of both blocks (`G` is symmetric). The pairs run in the fixed round-robin
    /// schedule of [`for_each_block_pair`], so the order of every addition, hence the
    /// result, does not depend on the number of threads.
    fn cluster_sums(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        let n = self.n();
        check_cluster_sums_args(n, labels, weights, k)?;
        let blocks = n.div_ceil(SUMS_BLOCK);
        // Per block, its points' sums, point-major (`len × k`).
        let mut block_sums: Vec<Vec<f64>> = (0..blocks)
            .map(|p| vec![0.0; block_range(p, SUMS_BLOCK, n).len() * k])
            .collect();
        let finished = for_each_block_pair(&mut block_sums, |tile, p, sums_p, other| {
            if control.checkpoint().is_err() {
                return false;
            }
            let rows = block_range(p, SUMS_BLOCK, n);
            let cols = match &other {
                None => rows.clone(),
                Some((q, _)) => block_range(*q, SUMS_BLOCK, n),
            };
            let width = cols.len();
            tile.resize(rows.len() * width, 0.0);
            for (a, values) in rows.clone().zip(tile.chunks_exact_mut(width)) {
                self.row_chunk(a, cols.start, values);
            }
            // Rows of block p gather the tile by the labels of block q's points ...
            let (col_labels, col_weights) = (&labels[cols.clone()], &weights[cols.clone()]);
            for (values, row_sums) in tile.chunks_exact(width).zip(sums_p.chunks_exact_mut(k)) {
                for ((&v, &label), &w) in values.iter().zip(col_labels).zip(col_weights) {
                    row_sums[label] += w * v;
                }
            }
            // ... and, off the diagonal, block q's points gather its transpose by the labels
            // of block p's points (G_ba = G_ab).
            if let Some((_, sums_q)) = other {
                for ((values, &label), &w) in tile
                    .chunks_exact(width)
                    .zip(&labels[rows.clone()])
                    .zip(&weights[rows.clone()])
                {
                    for (&v, col_sums) in values.iter().zip(sums_q.chunks_exact_mut(k)) {
                        col_sums[label] += w * v;
                    }
                }
            }
            true
        });
        if !finished {
            // The only way a tile stops early is cancellation.
            return Err(KGroupsError::Interrupted);
        }
        Ok(transpose_to_cluster_major(&block_sums.concat(), n, k))
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
    fn tiled_sums_do_not_depend_on_thread_count_and_match_rows() {
        use crate::gram::tests::in_pool;
        // Several blocks, the last one partial.
        let (n, dim, k) = (3 * SUMS_BLOCK + 37, 4, 3);
        let mut rng = crate::rng::Rng::new(9);
        let data: Vec<f64> = (0..n * dim).map(|_| rng.next_f64() * 3.0 - 1.0).collect();
        let points = Points::new(&data, n, dim).unwrap();
        let kernel = DataKernel::new(points, Semimetric::Power { alpha: 1.0 }).unwrap();
        let labels: Vec<usize> = (0..n).map(|i| (i * 5 + i / 7) % k).collect();
        let weights: Vec<f64> = (0..n).map(|i| 0.5 + (i % 4) as f64).collect();
        let sums = |threads| {
            in_pool(threads, || {
                kernel
                    .cluster_sums(&labels, &weights, k, &Control::new())
                    .unwrap()
            })
        };
        let one = sums(1);
        assert_eq!(one, sums(2));
        assert_eq!(one, sums(3));
        // Against the definition, row by row: m_l(y) = Σ_{i ∈ C_l} w_i G[y, i].
        let mut row = vec![0.0; n];
        for y in [0, 1, SUMS_BLOCK - 1, SUMS_BLOCK, 2 * SUMS_BLOCK + 5, n - 1] {
            kernel.row_into(y, &mut row);
            for l in 0..k {
                let direct: f64 = (0..n)
                    .filter(|&i| labels[i] == l)
                    .map(|i| weights[i] * row[i])
                    .sum();
                let got = one[l * n + y];
                assert!(
                    (got - direct).abs() <= 1e-11 * direct.abs().max(1.0),
                    "{got} vs {direct}"
                );
            }
        }
    }

    #[test]
    fn vector_paths_are_bit_identical() {
        // On an AVX2 machine `row_chunk` takes the AVX2 path; it must equal the portable one.
        let (n, dim) = (1000, 7);
        let mut rng = crate::rng::Rng::new(3);
        let data: Vec<f64> = (0..n * dim).map(|_| rng.next_f64() * 10.0 - 5.0).collect();
        let points = Points::new(&data, n, dim).unwrap();
        for semimetric in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Power { alpha: 1.5 },
            Semimetric::Gaussian { sigma: 2.0 },
        ] {
            let kernel = DataKernel::new(points, semimetric).unwrap();
            let (mut dispatched, mut portable) = (vec![0.0; n - 3], vec![0.0; n - 3]);
            for i in [0, 500, 999] {
                kernel.row_chunk(i, 3, &mut dispatched);
                kernel.row_chunk_portable(i, 3, &mut portable);
                assert_eq!(dispatched, portable, "{semimetric:?} row {i}");
            }
        }
    }

    #[test]
    fn cancelled_sums_are_an_interruption() {
        let data: Vec<f64> = (0..600).map(|i| i as f64).collect();
        let points = Points::new(&data, 600, 1).unwrap();
        let kernel = DataKernel::new(points, Semimetric::Power { alpha: 1.0 }).unwrap();
        let flag = std::sync::atomic::AtomicBool::new(true);
        let control = Control::new().with_cancel(&flag);
        let result = kernel.cluster_sums(&vec![0; 600], &vec![1.0; 600], 1, &control);
        assert!(matches!(result, Err(KGroupsError::Interrupted)));
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
