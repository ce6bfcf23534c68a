//! The one abstraction over "the kernel the algorithms read".
//!
//! Hartigan, Lloyd and the initialisations are written once, against [`Kernel`]: the number
//! of points, the diagonal, and row `i` visited entry by entry. Dense matrices (f64 or f32,
//! borrowed, never copied) implement it here; sparse CSR matrices and kernels computed on the
//! fly from data implement it in their own modules.

use crate::control::Control;
use crate::error::{out_of_memory, try_filled_uninit, Result};
use crate::validate;
use rayon::prelude::*;

/// Element type of a dense kernel matrix: `f64` or `f32`. Arithmetic is always done in `f64`.
pub trait KernelElement: Copy + Send + Sync + 'static {
    /// Widen to `f64` (exact).
    fn widen(self) -> f64;
    /// Round from `f64` (for matrices this crate writes).
    fn narrow(value: f64) -> Self;
    /// Relative tolerance of the symmetry rule ([`crate::validate::symmetry`]) for this precision.
    const SYMMETRY_TOLERANCE: f64;
}

impl KernelElement for f64 {
    #[inline(always)]
    fn widen(self) -> f64 {
        self
    }
    #[inline(always)]
    fn narrow(value: f64) -> Self {
        value
    }
    const SYMMETRY_TOLERANCE: f64 = 1e-9;
}

impl KernelElement for f32 {
    #[inline(always)]
    fn widen(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn narrow(value: f64) -> Self {
        value as f32
    }
    const SYMMETRY_TOLERANCE: f64 = 1e-5;
}

/// A symmetric kernel (Gram) matrix as the clustering algorithms see it.
///
/// Implementors promise symmetry: `G[i, y] == G[y, i]`. Entries not visited by
/// [`Kernel::for_each_in_row`] are zero.
///
/// ```
/// use kgroups::{DenseKernel, Kernel};
/// let g = [2.0, 1.0, 1.0, 3.0];
/// let kernel = DenseKernel::new(&g, 2).unwrap();
/// assert_eq!(kernel.n(), 2);
/// assert_eq!(kernel.diagonal(1), 3.0);
/// let mut row = vec![];
/// kernel.for_each_in_row(0, |y, v| row.push((y, v)));
/// assert_eq!(row, vec![(0, 2.0), (1, 1.0)]);
/// ```
pub trait Kernel: Sync {
    /// Number of points `n`.
    fn n(&self) -> usize;

    /// `G[i, i]`.
    fn diagonal(&self, i: usize) -> f64;

    /// Call `visit(y, G[i, y])` for every (non-zero, for sparse kernels) entry of row `i`,
    /// in increasing `y`.
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, visit: F);

    /// For a low-rank kernel `G = Φ Φᵀ`: the features Φ (n × m, row-major) and m. The
    /// algorithms then keep per-cluster feature sums instead of the k × n matrix of sums.
    fn features(&self) -> Option<(&[f64], usize)> {
        None
    }

    /// Row `i` written into `out` (`out.len() == n`).
    fn row_into(&self, i: usize, out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        self.for_each_in_row(i, |y, v| out[y] = v);
    }

    /// `out[y] += scale * G[i, y]` for every `y` (`out.len() == n`).
    fn add_scaled_row(&self, i: usize, scale: f64, out: &mut [f64]) {
        self.for_each_in_row(i, |y, v| out[y] += scale * v);
    }

    /// Apply one move of point `i` (weight `weight`) between two rows of the cluster-sum
    /// matrix: `leaving[y] -= weight * G[i, y]` and `joining[y] += weight * G[i, y]`.
    fn move_point(&self, i: usize, weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
        self.for_each_in_row(i, |y, v| {
            let delta = weight * v;
            leaving[y] -= delta;
            joining[y] += delta;
        });
    }

    /// The per-point cluster sums, cluster-major: `sums[l * n + y] = Σ_{i ∈ C_l} w_i G[y, i]`.
    ///
    /// One pass over the kernel, parallel over rows. The result is the same for any number
    /// of threads: each row's sums are computed by one thread in a fixed order. Stops with
    /// [`crate::KGroupsError::Interrupted`] when `control` is cancelled; errors when `labels`
    /// or `weights` do not have length n, a label is not below `k`, or the n × k sums cannot
    /// be allocated.
    fn cluster_sums(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        let n = self.n();
        check_cluster_sums_args(n, labels, weights, k)?;
        let mut point_major = vec![0.0; n * k];
        point_major
            .par_chunks_mut(k.max(1))
            .enumerate()
            .try_for_each(|(y, sums)| {
                control.checkpoint()?;
                self.for_each_in_row(y, |i, v| sums[labels[i]] += weights[i] * v);
                Ok(())
            })?;
        Ok(transpose_to_cluster_major(&point_major, n, k))
    }
}

/// The arguments of [`Kernel::cluster_sums`]: `labels` and `weights` of length `n`, every
/// label below `k` (empty clusters allowed), and room for the n × k sums (twice:
/// point-major and cluster-major).
pub(crate) fn check_cluster_sums_args(
    n: usize,
    labels: &[usize],
    weights: &[f64],
    k: usize,
) -> Result<()> {
    validate::labels_below_k(labels, n, k, "labels")?;
    validate::weights_len(weights, n, "weights")?;
    let len = n
        .checked_mul(k)
        .and_then(|len| len.checked_mul(2))
        .ok_or_else(|| out_of_memory::<f64>(usize::MAX, "k", "the n × k cluster sums"))?;
    // Probe only: untouched memory costs nothing, the callers then allocate for real.
    // `black_box` keeps the optimiser from removing the unused allocation (and with it the
    // check: a later infallible allocation would then abort the process).
    drop(std::hint::black_box(try_filled_uninit::<f64>(
        len,
        "k",
        "the n × k cluster sums",
    )?));
    Ok(())
}

/// Turn an `n × k` point-major matrix into `k × n` cluster-major.
pub(crate) fn transpose_to_cluster_major(point_major: &[f64], n: usize, k: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * k];
    for (y, sums) in point_major.chunks_exact(k.max(1)).enumerate() {
        for (l, &value) in sums.iter().enumerate() {
            out[l * n + y] = value;
        }
    }
    out
}

/// A dense symmetric `n × n` kernel matrix, borrowed.
///
/// The slice holds the matrix in row-major (C) order; because the matrix is symmetric, a
/// column-major (Fortran) buffer is the same matrix, so both layouts are accepted as they are.
#[derive(Debug, Clone, Copy)]
pub struct DenseKernel<'a, T: KernelElement> {
    data: &'a [T],
    n: usize,
}

impl<'a, T: KernelElement> DenseKernel<'a, T> {
    /// Borrow `data` (length `n * n`) as a kernel matrix after checking that it is square,
    /// finite and symmetric by the crate's one rule ([`crate::validate::symmetry`]):
    /// `|G_ab − G_ba| ≤ tol · max(|G_ab|, |G_ba|, √|G_aa|·√|G_bb|)`, tol = 1e-9 for f64 and
    /// 1e-5 for f32.
    ///
    /// ```
    /// use kgroups::DenseKernel;
    /// assert!(DenseKernel::new(&[1.0, 0.5, 0.5, 1.0], 2).is_ok());
    /// assert!(DenseKernel::new(&[1.0, 0.5, 0.4, 1.0], 2).is_err()); // not symmetric
    /// assert!(DenseKernel::new(&[1.0, 0.5, 0.5], 2).is_err());      // not n × n
    /// ```
    pub fn new(data: &'a [T], n: usize) -> Result<Self> {
        let kernel = Self::trusting_symmetry(data, n)?;
        validate::symmetry::check_dense(data, n, "G")?;
        Ok(kernel)
    }

    /// Like [`DenseKernel::new`] but without the O(n²) symmetry check, for a matrix the
    /// caller built symmetric (e.g. with [`crate::energy_gram`]); only the shape is checked
    /// here. Non-finite entries are still caught when the cluster sums are built. If the
    /// matrix is not symmetric the results are meaningless.
    ///
    /// ```
    /// use kgroups::DenseKernel;
    /// assert!(DenseKernel::trusting_symmetry(&[1.0, 0.5, 0.5, 1.0], 2).is_ok());
    /// assert!(DenseKernel::trusting_symmetry(&[1.0, 0.5, 0.5], 2).is_err());
    /// ```
    pub fn trusting_symmetry(data: &'a [T], n: usize) -> Result<Self> {
        validate::non_empty(n, "G")?;
        validate::square(data.len(), n, "G")?;
        Ok(DenseKernel { data, n })
    }

    /// Row `i` as a slice.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.n..(i + 1) * self.n]
    }
}

/// Rows interleaved by the gathering cluster sums.
const GATHER_ROWS: usize = 4;

impl<T: KernelElement> Kernel for DenseKernel<'_, T> {
    #[inline]
    fn n(&self) -> usize {
        self.n
    }

    #[inline]
    fn diagonal(&self, i: usize) -> f64 {
        self.data[i * self.n + i].widen()
    }

    #[inline]
    fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, mut visit: F) {
        for (y, value) in self.row(i).iter().enumerate() {
            visit(y, value.widen());
        }
    }

    #[inline]
    fn add_scaled_row(&self, i: usize, scale: f64, out: &mut [f64]) {
        for (o, v) in out.iter_mut().zip(self.row(i)) {
            *o += scale * v.widen();
        }
    }

    fn move_point(&self, i: usize, weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
        const PARALLEL_MIN_N: usize = 1 << 16;
        const CHUNK: usize = 1 << 14;
        let row = self.row(i);
        let update = |(row, (leaving, joining)): (&[T], (&mut [f64], &mut [f64]))| {
            for ((v, l), j) in row.iter().zip(leaving.iter_mut()).zip(joining.iter_mut()) {
                let delta = weight * v.widen();
                *l -= delta;
                *j += delta;
            }
        };
        if self.n >= PARALLEL_MIN_N {
            row.par_chunks(CHUNK)
                .zip(
                    leaving
                        .par_chunks_mut(CHUNK)
                        .zip(joining.par_chunks_mut(CHUNK)),
                )
                .for_each(update);
        } else {
            update((row, (leaving, joining)));
        }
    }

    fn cluster_sums(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        let n = self.n;
        check_cluster_sums_args(n, labels, weights, k)?;
        control.checkpoint()?;
        // Gather by label, GATHER_ROWS rows at a time: the rows' accumulator chains are
        // independent, so the adds overlap instead of waiting on each other.
        let mut point_major = vec![0.0; n * k];
        point_major
            .par_chunks_mut(GATHER_ROWS * k)
            .enumerate()
            .for_each(|(block, sums)| {
                let first = block * GATHER_ROWS;
                let rows = sums.len() / k;
                if rows < GATHER_ROWS {
                    for (r, row_sums) in sums.chunks_exact_mut(k).enumerate() {
                        for ((v, &label), &w) in self.row(first + r).iter().zip(labels).zip(weights)
                        {
                            row_sums[label] += w * v.widen();
                        }
                    }
                    return;
                }
                let block_rows: [&[T]; GATHER_ROWS] = std::array::from_fn(|r| self.row(first + r));
                let (s0, rest) = sums.split_at_mut(k);
                let (s1, rest) = rest.split_at_mut(k);
                let (s2, s3) = rest.split_at_mut(k);
                for (i, (&label, &w)) in labels.iter().zip(weights).enumerate() {
                    s0[label] += w * block_rows[0][i].widen();
                    s1[label] += w * block_rows[1][i].widen();
                    s2[label] += w * block_rows[2][i].widen();
                    s3[label] += w * block_rows[3][i].widen();
                }
            });
        Ok(transpose_to_cluster_major(&point_major, n, k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_matrices() {
        let nan = [1.0, f64::NAN, f64::NAN, 1.0];
        let err = DenseKernel::new(&nan, 2).unwrap_err().to_string();
        assert!(err.contains("NaN"), "{err}");
        let asym = [1.0, 0.5, 0.6, 1.0];
        let err = DenseKernel::new(&asym, 2).unwrap_err().to_string();
        assert!(err.contains("not symmetric"), "{err}");
        assert!(DenseKernel::<f64>::new(&[], 0).is_err());
        assert!(DenseKernel::new(&[1.0, 2.0, 3.0], 2).is_err());
    }

    #[test]
    fn asymmetry_far_from_the_first_block_is_found() {
        let n = 200;
        let mut g = vec![0.0; n * n];
        for i in 0..n {
            g[i * n + i] = 1.0;
        }
        g[150 * n + 199] = 0.25;
        assert!(DenseKernel::new(&g, n).is_err());
        g[199 * n + 150] = 0.25;
        assert!(DenseKernel::new(&g, n).is_ok());
    }

    #[test]
    fn every_defect_is_found_wherever_it_is() {
        // n not a multiple of the tile, so edge tiles and remainders are exercised.
        let n = 150;
        let base: Vec<f64> = (0..n * n)
            .map(|p| {
                let (a, b) = (p / n, p % n);
                ((a.min(b) * 7 + a.max(b) * 3) % 11) as f64 - 5.0 + if a == b { 20.0 } else { 0.0 }
            })
            .collect();
        assert!(DenseKernel::new(&base, n).is_ok());
        let max_diagonal = (0..n).map(|i| base[i * n + i].abs()).fold(0.0, f64::max);
        for &(a, b) in &[
            (0, 1),
            (1, 0),
            (3, 3),
            (10, 140),
            (140, 10),
            (149, 148),
            (63, 64),
            (64, 63),
            (149, 0),
        ] {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut g = base.clone();
                g[a * n + b] = bad;
                let err = DenseKernel::new(&g, n).unwrap_err().to_string();
                assert!(err.contains("NaN or infinity"), "({a}, {b}) = {bad}: {err}");
            }
            if a == b {
                continue;
            }
            let value = base[a * n + b];
            let allowed = 1e-9 * (2.0 * value.abs() + max_diagonal);
            let mut g = base.clone();
            g[a * n + b] = value + 2.0 * allowed;
            let err = DenseKernel::new(&g, n).unwrap_err().to_string();
            assert!(
                err.contains(&format!("G[{}, {}]", a.min(b), a.max(b))),
                "{err}"
            );
            g[a * n + b] = value + 0.25 * allowed;
            assert!(
                DenseKernel::new(&g, n).is_ok(),
                "({a}, {b}) within the tolerance"
            );
        }
        // Huge but finite (u + l would overflow): accepted.
        let mut huge = base.clone();
        huge[10 * n + 140] = 1.5e308;
        huge[140 * n + 10] = 1.5e308;
        assert!(DenseKernel::new(&huge, n).is_ok());
        let single: Vec<f32> = base.iter().map(|&v| v as f32).collect();
        assert!(DenseKernel::new(&single, n).is_ok());
        let mut single_bad = single.clone();
        single_bad[140 * n + 10] += 1e-3;
        assert!(DenseKernel::new(&single_bad, n).is_err());
    }

    fn naive_sums(g: &[f64], n: usize, labels: &[usize], weights: &[f64], k: usize) -> Vec<f64> {
        let mut out = vec![0.0; k * n];
        for y in 0..n {
            for i in 0..n {
                out[labels[i] * n + y] += weights[i] * g[y * n + i];
            }
        }
        out
    }

    #[test]
    fn cluster_sums_match_naive_for_small_and_large_k() {
        let n = 37;
        let mut g = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..=a {
                let v = ((a * 31 + b * 17) % 13) as f64 / 7.0 - 0.5;
                g[a * n + b] = v;
                g[b * n + a] = v;
            }
        }
        let weights: Vec<f64> = (0..n).map(|i| 0.5 + (i % 5) as f64).collect();
        for k in [1, 3, 20] {
            let labels: Vec<usize> = (0..n).map(|i| (i * 7) % k).collect();
            let kernel = DenseKernel::new(&g, n).unwrap();
            let fast = kernel
                .cluster_sums(&labels, &weights, k, &Control::new())
                .unwrap();
            let slow = naive_sums(&g, n, &labels, &weights, k);
            for (a, b) in fast.iter().zip(&slow) {
                assert!((a - b).abs() < 1e-12, "k = {k}: {a} vs {b}");
            }
        }
    }
}
