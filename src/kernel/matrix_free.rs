//! Exact, matrix-free energy kernels: rows of `G` computed from the data when needed.
//!
//! `G_ab = ½[(ρ(x_a, x0) + ρ(x_b, x0)) − ρ(x_a, x_b)]` with base point x0 = 0
//! ([`Base::Origin`]) or the mean of the points ([`Base::Mean`]), bit for bit the entries
//! [`crate::energy_gram`] would store with the same base, but never stored: memory is O(n·D)
//! for the data (kept once more, transposed, so that a row is computed with vectorised loops)
//! plus O(n·k) for the cluster sums. Building the sums is one parallel pass over all pairs,
//! each evaluated once; a move computes one row, O(n·D), and from
//! n = 16 384 points on a Hartigan sweep computes the rows of a batch of moves in
//! one pass over the data ([`KernelAccess::move_batch`]).

use crate::control::Control;
use crate::distance::{DataRows, PairwiseRows, Points, RunEpilogue, Semimetric, BLOCK};
use crate::error::{try_filled, KGroupsError, Result};
use crate::gram::{base_kernel_value, for_each_tile, refuse_base, Base, BaseKernelRow, Frame};
use crate::kernel::tile_sums::{add_tile, Labelled, TiledSums};
use crate::kernel::{check_cluster_sums_args, Kernel, KernelAccess, Visit};
use rayon::prelude::*;
use std::ops::Range;

/// Rows are computed and consumed in chunks of at most this many entries (fits in L1/L2).
const CHUNK: usize = 2048;
/// A move computes its row into a buffer on the stack in runs of this many entries (zeroing
/// a buffer of a whole chunk on every call showed in profiles). Also the smallest chunk of a
/// row computed in parallel: about 2.5 µs of work at D = 10, well above what rayon takes to
/// hand a chunk to another thread.
const RUN: usize = 512;
/// Points per block of the tiled cluster sums (a 256 × 256 tile of f64 is 512 KiB, in L2).
const SUMS_BLOCK: usize = 256;
/// From this n on, a Hartigan sweep batches the moves ([`KernelAccess::move_batch`]): the data
/// (n·D values) and two rows of sums stop staying in the caches from one move to the next
/// (`benches/PERFORMANCE.md`).
const BATCHED_MOVES_MIN: usize = 1 << 14;
/// Below this n a row is computed on one thread.
const PARALLEL_ROW_MIN: usize = 1 << 12;

/// The chunk length of a row of `n` entries computed in parallel, or `None` for one thread
/// (`n` below [`PARALLEL_ROW_MIN`], or one thread in the pool): about 16 chunks, so that the
/// threads share a row evenly, each between [`RUN`] and [`CHUNK`] entries and a multiple of
/// the transposed data's blocks (a chunk that starts inside a block leaves short runs,
/// evaluated in narrow lanes). Every entry is computed alone, so the chunks do not change any
/// value.
fn parallel_chunk(n: usize) -> Option<usize> {
    (n >= PARALLEL_ROW_MIN && rayon::current_num_threads() > 1)
        .then(|| (n / 16).clamp(RUN, CHUNK) / BLOCK * BLOCK)
}

/// The energy kernel of a data set, rows computed on the fly.
///
/// ```
/// use kgroups::{energy_gram, Base, DataKernel, Kernel, Points, Semimetric};
/// let data = [0.0, 1.0, 3.0, 7.0]; // four points in one dimension
/// let points = Points::new(&data, 4, 1)?;
/// let power = Semimetric::Power { alpha: 1.0 };
/// let kernel = DataKernel::new(points, power, Base::Mean)?;
/// let dense: Vec<f64> = energy_gram(&points, power, Base::Mean)?;
/// let mut row = vec![0.0; 4];
/// kernel.row_into(2, &mut row);
/// assert_eq!(row, dense[8..12].to_vec());
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone)]
pub struct DataKernel<'a> {
    points: Points<'a>,
    /// How the data are evaluated (the power-of-two scale, the base point).
    frame: Frame,
    /// ρ(x_a, base point) in the frame.
    to_base: Vec<f64>,
    /// ρ(x_a, x_b) in the frame, from the data kept once more, scaled and transposed.
    rows: DataRows<'a>,
    /// Kernel values of the frame times these are those of the data.
    factors: (f64, f64),
}

impl<'a> DataKernel<'a> {
    /// The kernel of `points` under `semimetric` (validated) with base point 0
    /// ([`Base::Origin`]) or the mean of the points ([`Base::Mean`]: translation invariant, the
    /// better choice for data far from the origin; the labels and the within-cluster
    /// dispersion W do not depend on the base, the objective Q does). Data of any finite
    /// magnitude are evaluated exactly, as by [`crate::energy_gram`].
    ///
    /// Errors: an invalid semimetric; [`Base::Centered`] (argument `"base"`: it needs the row
    /// sums of the whole semimetric matrix); kernel entries that f64 cannot hold (argument
    /// `"X"`); [`KGroupsError::OutOfMemory`] when the transposed copy of the data (n·D values)
    /// cannot be allocated.
    ///
    /// ```
    /// use kgroups::{Base, DataKernel, Kernel, Points, Semimetric};
    /// let points = Points::new(&[1e9, 1e9 + 2.0], 2, 1)?;
    /// let kernel = DataKernel::new(points, Semimetric::Power { alpha: 1.0 }, Base::Mean)?;
    /// assert_eq!(kernel.diagonal(0), 1.0); // |x − x̄|, not |x|
    /// assert!(DataKernel::new(points, Semimetric::Power { alpha: 1.0 }, Base::Centered).is_err());
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    pub fn new(points: Points<'a>, semimetric: Semimetric, base: Base) -> Result<Self> {
        semimetric.validate()?;
        refuse_base(
            base,
            Base::Centered,
            "Base::Centered is not available matrix-free (it needs the row sums of the whole semimetric matrix); use Base::Mean, which gives the same labels",
        )?;
        let control = Control::new();
        let frame = Frame::new(&[&points], &points, semimetric, base, &control)?;
        let to_base = frame.rho_to_base(&points, "X", &control)?;
        let max_entry = to_base.iter().fold(0.0f64, |m, &v| m.max(v));
        let factors = frame.output_factors::<f64>(max_entry, "X")?;
        let rows = frame.rows(points, "X")?;
        Ok(DataKernel {
            points,
            frame,
            to_base,
            rows,
            factors,
        })
    }

    /// The epilogue that turns ρ(x_i, ·) into row i of G.
    #[inline]
    fn to_kernel(&self, i: usize) -> BaseKernelRow<'_> {
        BaseKernelRow {
            r_a: self.to_base[i],
            to_base: &self.to_base,
            factors: self.factors,
        }
    }

    /// `out[j] = G[i, start + j]`.
    #[inline]
    fn row_chunk(&self, i: usize, start: usize, out: &mut [f64]) {
        self.rows.rho_row_then(i, start, out, &self.to_kernel(i));
    }
}

impl DataKernel<'_> {
    /// The kernel sums across a split of the points, each pair of points on either side
    /// computed once: with A the points before `split` and B those from it on, returns A's
    /// sums against B by B's labels (`|A| × k`, point-major: `Σ_{b∈B, l_b = l} w_b G_ab`) and
    /// B's against A by A's labels (`|B| × k`). `labels` and `weights` cover all the points.
    /// Tiles of [`SUMS_BLOCK`] points in a fixed order on the calling thread (the work of a
    /// task that a scheduler runs beside others), so the sums are the same on every run.
    pub(crate) fn cross_cluster_sums(
        &self,
        split: usize,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        let n = self.n();
        check_cluster_sums_args(n, labels, weights, k)?;
        let split = split.min(n);
        let what = "the n × k cluster sums";
        let mut gathered = try_filled(split * k, 0.0, "k", what)?;
        // B's sums cluster-major per block of B (k × len), as the tiles scatter them.
        let mut scattered = try_filled((n - split) * k, 0.0, "k", what)?;
        let mut tile = try_filled(SUMS_BLOCK * SUMS_BLOCK, 0.0, "X", "a tile of the kernel")?;
        let mut masked = Vec::new();
        let by = Labelled { labels, weights, k };
        let rows_of = KernelRows(self);
        for rows in (0..split)
            .step_by(SUMS_BLOCK)
            .map(|a| a..(a + SUMS_BLOCK).min(split))
        {
            let gathered = &mut gathered[rows.start * k..rows.end * k];
            for cols in (split..n)
                .step_by(SUMS_BLOCK)
                .map(|b| b..(b + SUMS_BLOCK).min(n))
            {
                let width = cols.len();
                let tile = &mut tile[..rows.len() * width];
                if !rows_of.tile_then(rows.clone(), cols.start, tile, control, |_| ()) {
                    return Err(KGroupsError::Interrupted);
                }
                let first = rows.start;
                let row = |a: usize| &tile[(a - first) * width..(a - first + 1) * width];
                let block = &mut scattered[(cols.start - split) * k..(cols.end - split) * k];
                add_tile(
                    row,
                    rows.clone(),
                    cols,
                    by,
                    &mut masked,
                    gathered,
                    Some(block),
                );
            }
        }
        // Cluster-major blocks to point-major rows.
        let mut other = try_filled((n - split) * k, 0.0, "k", what)?;
        for (block, out) in scattered
            .chunks(SUMS_BLOCK * k)
            .zip(other.chunks_mut(SUMS_BLOCK * k))
        {
            let len = block.len() / k.max(1);
            for (l, run) in block.chunks_exact(len.max(1)).enumerate() {
                for (y, &v) in run.iter().enumerate() {
                    out[y * k + l] = v;
                }
            }
        }
        Ok((gathered, other))
    }
}

/// The kernel values of a [`DataKernel`], as pairwise rows for the tile scheduler.
struct KernelRows<'k, 'a>(&'k DataKernel<'a>);

impl PairwiseRows for KernelRows<'_, '_> {
    fn n(&self) -> usize {
        self.0.points.n()
    }

    #[inline]
    fn values(&self, a: usize, start: usize, out: &mut [f64]) {
        self.0.row_chunk(a, start, out);
    }

    fn cost_per_value(&self) -> usize {
        3 * self.0.points.dim() + 20
    }

    fn tile_then<E: RunEpilogue, F: Fn(usize) -> E>(
        &self,
        rows: Range<usize>,
        start: usize,
        out: &mut [f64],
        control: &Control,
        epilogue_for: F,
    ) -> bool {
        let kernel = self.0;
        kernel.rows.rho_tile_then(rows, start, out, control, |i| {
            (kernel.to_kernel(i), epilogue_for(i))
        })
    }
}

impl Kernel for DataKernel<'_> {
    fn n(&self) -> usize {
        self.points.n()
    }

    fn diagonal(&self, i: usize) -> f64 {
        // ½[(r + r) − ρ(x, x)] with ρ(x, x) = 0, as the rows compute it.
        let r = self.to_base[i];
        base_kernel_value(
            r,
            r,
            self.frame.semimetric().from_squared_distance(0.0),
            self.factors,
        )
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
        if let Some(len) = parallel_chunk(self.n()) {
            out.par_chunks_mut(len)
                .enumerate()
                .for_each(|(c, chunk)| self.row_chunk(i, c * len, chunk));
        } else {
            for (c, chunk) in out.chunks_mut(CHUNK).enumerate() {
                self.row_chunk(i, c * CHUNK, chunk);
            }
        }
    }

    fn dispatch<V: Visit>(&self, visit: V) -> V::Output {
        visit.visit(self)
    }
}

impl KernelAccess for DataKernel<'_> {
    fn row_run(&self, i: usize, start: usize, out: &mut [f64]) {
        self.row_chunk(i, start, out);
    }

    fn move_batch(&self) -> Option<usize> {
        (self.n() >= BATCHED_MOVES_MIN).then_some(crate::cluster::pending_moves::BATCH)
    }

    fn move_point(&self, i: usize, weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
        let update = |start: usize, leaving: &mut [f64], joining: &mut [f64]| {
            let mut row = [0.0; RUN];
            let runs = leaving.chunks_mut(RUN).zip(joining.chunks_mut(RUN));
            for (r, (leaving, joining)) in runs.enumerate() {
                let row = &mut row[..leaving.len()];
                self.row_chunk(i, start + r * RUN, row);
                for ((l, j), v) in leaving.iter_mut().zip(joining.iter_mut()).zip(row.iter()) {
                    let delta = weight * v;
                    *l -= delta;
                    *j += delta;
                }
            }
        };
        match parallel_chunk(self.n()) {
            Some(len) => leaving
                .par_chunks_mut(len)
                .zip(joining.par_chunks_mut(len))
                .enumerate()
                .for_each(|(c, (leaving, joining))| update(c * len, leaving, joining)),
            None => update(0, leaving, joining),
        }
    }

    /// One parallel pass over all pairs, each pair evaluated once: the kernel is computed
    /// tile by tile over pairs of point blocks `(p, q)`, `p ≤ q`, and each tile feeds the
    /// sums of both blocks (`G` is symmetric). The pairs run in the fixed round-robin
    /// schedule of `for_each_tile`, so the order of every addition, hence the
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
        let mut sums = TiledSums::new(n, k, SUMS_BLOCK)?;
        let mut blocks = sums.blocks();
        let by = Labelled { labels, weights, k };
        let rows = KernelRows(self);
        let finished = for_each_tile(
            &rows,
            SUMS_BLOCK,
            &mut blocks,
            control,
            |tile, rows, cols, (gathered, _), other| {
                let width = cols.len();
                let first = rows.start;
                let row = |a: usize| &tile[(a - first) * width..(a - first + 1) * width];
                let mut masked = Vec::new();
                let scattered_cols = other.map(|(_, scattered)| &mut **scattered);
                add_tile(row, rows, cols, by, &mut masked, gathered, scattered_cols);
                true
            },
        );
        drop(blocks);
        if !finished {
            // The only way a tile stops early is cancellation.
            return Err(KGroupsError::Interrupted);
        }
        sums.into_cluster_major()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{energy_gram, fit, Algorithm, Base, Control, DenseKernel, Init, Options};

    #[test]
    fn matrix_free_equals_dense_bit_for_bit() {
        // D = 3: differences; D = 24: expanded squared distances (tiles of four rows in the
        // dense builder, single rows here).
        for dim in [3, 24] {
            matrix_free_equals_dense_bit_for_bit_in(dim);
        }
    }

    fn matrix_free_equals_dense_bit_for_bit_in(dim: usize) {
        // More than one chunk of a row at D = 3; at D = 24 (slow in debug builds) three
        // blocks, a partial one last, are enough for the tiles.
        let n = if dim < 20 { 2100 } else { 600 };
        let mut rng = crate::rng::Rng::new(2);
        let data: Vec<f64> = (0..n * dim).map(|_| rng.next_f64() * 4.0).collect();
        let points = Points::new(&data, n, dim).unwrap();
        for semimetric in [
            Semimetric::Power { alpha: 1.0 },
            Semimetric::Power { alpha: 0.5 },
            Semimetric::Exponential { sigma: 2.0 },
            Semimetric::Gaussian { sigma: 1.0 },
        ] {
            for base in [Base::Origin, Base::Mean] {
                let dense: Vec<f64> = energy_gram(&points, semimetric, base).unwrap();
                let kernel = DataKernel::new(points, semimetric, base).unwrap();
                let mut row = vec![0.0; n];
                for i in [0, 1, 377, n - 1] {
                    kernel.row_into(i, &mut row);
                    assert_eq!(row, dense[i * n..(i + 1) * n], "{semimetric:?} row {i}");
                    assert_eq!(kernel.diagonal(i), dense[i * n + i]);
                }
            }
            let dense: Vec<f64> = energy_gram(&points, semimetric, Base::Origin).unwrap();
            let kernel = DataKernel::new(points, semimetric, Base::Origin).unwrap();
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
        // Several blocks, the last one partial; differences and expanded squared distances.
        for dim in [4, 20] {
            tiled_sums_do_not_depend_on_thread_count_and_match_rows_in(dim);
        }
    }

    fn tiled_sums_do_not_depend_on_thread_count_and_match_rows_in(dim: usize) {
        use crate::test_support::in_pool;
        let (n, k) = (3 * SUMS_BLOCK + 37, 3);
        let mut rng = crate::rng::Rng::new(9);
        let data: Vec<f64> = (0..n * dim).map(|_| rng.next_f64() * 3.0 - 1.0).collect();
        let points = Points::new(&data, n, dim).unwrap();
        let kernel = DataKernel::new(points, Semimetric::Power { alpha: 1.0 }, Base::Mean).unwrap();
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
        // The tiles of the sums hold the values of the rows, bit for bit, for groups of rows
        // that start anywhere and runs across blocks.
        let rows = KernelRows(&kernel);
        for (first, count, start, width) in
            [(0, 9, 0, n), (5, 6, SUMS_BLOCK - 3, 40), (n - 7, 7, 1, 300)]
        {
            let mut tile = vec![f64::NAN; count * width];
            assert!(rows.tile_then(
                first..first + count,
                start,
                &mut tile,
                &Control::new(),
                |_| ()
            ));
            for (a, values) in (first..first + count).zip(tile.chunks_exact(width)) {
                let mut want = vec![0.0; width];
                kernel.row_chunk(a, start, &mut want);
                assert_eq!(values, want, "dim {dim} row {a}");
            }
        }
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
    fn cancelled_sums_are_an_interruption() {
        let data: Vec<f64> = (0..600).map(|i| i as f64).collect();
        let points = Points::new(&data, 600, 1).unwrap();
        let kernel =
            DataKernel::new(points, Semimetric::Power { alpha: 1.0 }, Base::Origin).unwrap();
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
        let dense: Vec<f64> = energy_gram(&points, semimetric, Base::Mean).unwrap();
        let dense = DenseKernel::new(&dense, n).unwrap();
        let kernel = DataKernel::new(points, semimetric, Base::Mean).unwrap();
        for algorithm in [Algorithm::Hartigan, Algorithm::Lloyd] {
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

    #[test]
    fn matrix_free_equals_dense_at_any_magnitude_and_offset() {
        // Tiny, huge and far-from-the-origin data: the scaled frame and the mean base point
        // are the same for rows and the dense matrix, so the bits are too (the AVX2 and
        // portable pair kernels agree bit for bit: see the tests of `distance`).
        for dim in [4, 20] {
            matrix_free_equals_dense_at_any_magnitude_and_offset_in(dim);
        }
    }

    fn matrix_free_equals_dense_at_any_magnitude_and_offset_in(dim: usize) {
        let n = 300;
        let mut rng = crate::rng::Rng::new(8);
        let unit: Vec<f64> = (0..n * dim).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
        for (factor, offset) in [
            (1e-170, 0.0),
            (1e-300, 0.0),
            (1e200, 0.0),
            (1.0, 1.7e9),
            (1e-3, 1e6),
        ] {
            let data: Vec<f64> = unit.iter().map(|v| v * factor + offset).collect();
            let points = Points::new(&data, n, dim).unwrap();
            for semimetric in [
                Semimetric::Power { alpha: 1.0 },
                Semimetric::Power { alpha: 0.5 },
                Semimetric::Exponential {
                    sigma: 0.7 * factor,
                },
                Semimetric::Gaussian {
                    sigma: 1.3 * factor,
                },
            ] {
                for base in [Base::Origin, Base::Mean] {
                    let (Ok(dense), Ok(kernel)) = (
                        energy_gram::<f64>(&points, semimetric, base),
                        DataKernel::new(points, semimetric, base),
                    ) else {
                        // both refuse (the same frame check) or both succeed
                        assert!(energy_gram::<f64>(&points, semimetric, base).is_err());
                        assert!(DataKernel::new(points, semimetric, base).is_err());
                        continue;
                    };
                    let mut row = vec![0.0; n];
                    for i in [0, 17, n - 1] {
                        kernel.row_into(i, &mut row);
                        assert_eq!(
                            row,
                            dense[i * n..(i + 1) * n],
                            "{factor} {offset} {semimetric:?} {base:?}"
                        );
                        assert_eq!(kernel.diagonal(i), dense[i * n + i]);
                        // a chunk that starts off the blocks of the transposed data
                        let mut chunk = vec![0.0; n - 5];
                        kernel.row_chunk(i, 5, &mut chunk);
                        assert_eq!(chunk, dense[i * n + 5..(i + 1) * n]);
                    }
                }
            }
        }
    }

    #[test]
    fn centered_base_is_refused() {
        let points = Points::new(&[0.0, 1.0, 2.0], 3, 1).unwrap();
        match DataKernel::new(points, Semimetric::Power { alpha: 1.0 }, Base::Centered) {
            Err(KGroupsError::InvalidInput { argument, message }) => {
                assert_eq!(argument, "base");
                assert!(message.contains("use Base::Mean"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
