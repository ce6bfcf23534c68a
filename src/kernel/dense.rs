//! Dense kernel matrices: borrowed n × n buffers (f64 or f32), and the pass that builds their
//! cluster sums — reading each pair of entries once, and able to check the symmetry rule in
//! the same pass.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cluster::prefetch::prefetch_run;
use crate::control::Control;
use crate::distance::block_range;
use crate::error::{KGroupsError, Result};
use crate::gram::tiles::for_each_block_pair;
use crate::kernel::tile_sums::{add_strip_by_row_groups, add_tile, Labelled, StripSums, TiledSums};
use crate::kernel::{check_cluster_sums_args, Kernel, KernelElement};
use crate::validate::{self, symmetry};
use rayon::prelude::*;

/// When a dense kernel's symmetry rule (and finiteness) is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Already checked, or the caller vouches for it.
    Done,
    /// In the first pass over the matrix of a fit (see [`DenseKernel::with_deferred_check`]).
    Deferred,
}

/// A dense symmetric `n × n` kernel matrix, borrowed.
///
/// The slice holds the matrix in row-major (C) order; because the matrix is symmetric, a
/// column-major (Fortran) buffer is the same matrix, so both layouts are accepted as they are.
#[derive(Debug, Clone, Copy)]
pub struct DenseKernel<'a, T: KernelElement> {
    data: &'a [T],
    n: usize,
    check: Check,
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
        symmetry::check_dense(data, n, "G")?;
        Ok(kernel)
    }

    /// Like [`DenseKernel::new`] but without the O(n²) symmetry check, for a matrix the
    /// caller built symmetric (e.g. with [`crate::energy_gram`]); only the shape is checked
    /// here. Non-finite entries are still caught when the cluster sums are built, in the
    /// upper triangle they read (for a symmetric matrix, all of them; a non-finite entry
    /// below the diagonal with a finite mirror makes the matrix asymmetric). If the matrix
    /// is not symmetric the results are meaningless.
    ///
    /// ```
    /// use kgroups::DenseKernel;
    /// assert!(DenseKernel::trusting_symmetry(&[1.0, 0.5, 0.5, 1.0], 2).is_ok());
    /// assert!(DenseKernel::trusting_symmetry(&[1.0, 0.5, 0.5], 2).is_err());
    /// ```
    pub fn trusting_symmetry(data: &'a [T], n: usize) -> Result<Self> {
        validate::non_empty(n, "G")?;
        validate::square(data.len(), n, "G")?;
        Ok(DenseKernel {
            data,
            n,
            check: Check::Done,
        })
    }

    /// Checks the shape now and leaves the symmetry rule and finiteness of
    /// [`DenseKernel::new`] to the fit ([`crate::fit`]). A one-start fit checks them with
    /// the pass that builds its first cluster sums: each tile is compared with its mirror
    /// (bit for bit, then by the rule where the bits differ) in the pass itself, instead of
    /// in a separate check before it. The fit fails with the same error as [`DenseKernel::new`]
    /// (naming the same entry) when the matrix breaks the rule; with several starts it checks
    /// before they begin. Use the kernel only through a fit: its other methods do not check.
    ///
    /// ```
    /// use kgroups::{fit, Control, DenseKernel, Options};
    /// let ok = [2.0, 1.9, 0.0, 1.9, 2.0, 0.0, 0.0, 0.0, 2.0];
    /// let kernel = DenseKernel::with_deferred_check(&ok, 3)?;
    /// assert!(fit(&kernel, 2, &Options::default(), &Control::new()).is_ok());
    /// let asymmetric = [2.0, 1.9, 0.0, 1.5, 2.0, 0.0, 0.0, 0.0, 2.0];
    /// let kernel = DenseKernel::with_deferred_check(&asymmetric, 3)?; // the shape is fine
    /// let err = fit(&kernel, 2, &Options::default(), &Control::new()).unwrap_err();
    /// assert!(err.to_string().contains("not symmetric"));
    /// # Ok::<(), kgroups::KGroupsError>(())
    /// ```
    pub fn with_deferred_check(data: &'a [T], n: usize) -> Result<Self> {
        Ok(DenseKernel {
            check: Check::Deferred,
            ..Self::trusting_symmetry(data, n)?
        })
    }

    /// Row `i` as a slice.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.n..(i + 1) * self.n]
    }

    /// The cluster sums of [`Kernel::cluster_sums`], read from the upper triangle only
    /// (`G_ab` with `a ≤ b`, mirrored: each pair of entries is read once), in
    /// [`SUMS_BLOCK`]-square tiles: for few clusters by strips of tiles in row order
    /// ([`by_strips`]; without `check`, a strip's tiles right of the diagonal are read four
    /// rows at a time across several, [`add_strip_by_row_groups`], the same bits), otherwise
    /// in the thread-independent schedule of [`for_each_block_pair`]. With `check`, each
    /// tile is also compared with its mirror while both are in cache: bit for bit first, by
    /// the symmetry rule where the bits differ; a matrix that breaks the rule gets
    /// [`symmetry::check_dense`]'s error.
    fn sums_pass(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
        check: bool,
    ) -> Result<Vec<f64>> {
        let n = self.n;
        check_cluster_sums_args(n, labels, weights, k)?;
        control.checkpoint()?;
        let roots = if check {
            symmetry::root_diagonal(self.data, n)
        } else {
            Vec::new()
        };
        let broken = AtomicBool::new(false);
        let by = Labelled { labels, weights, k };
        // One tile: false once cancelled; a tile that breaks the rule stops the others.
        let visit = |masked: &mut Vec<f64>,
                     prefetch: bool,
                     rows: Range<usize>,
                     cols: Range<usize>,
                     gathered: &mut [f64],
                     scattered: Option<&mut [f64]>| {
            if control.checkpoint().is_err() {
                return false;
            }
            if broken.load(Ordering::Relaxed) {
                return true;
            }
            let tile = Tile {
                rows,
                cols,
                by,
                prefetch,
            };
            let roots = check.then_some(&roots[..]);
            if !self.tile_pass(&tile, roots, masked, gathered, scattered) {
                broken.store(true, Ordering::Relaxed);
            }
            true
        };
        let (finished, sums) = if by_strips::<T>(k) {
            let mut sums = StripSums::new(n, k, SUMS_BLOCK)?;
            let finished = sums
                .strips()
                .into_par_iter()
                .enumerate()
                .map_init(Vec::new, |masked, (p, (gathered, scattered))| {
                    let rows = block_range(p, SUMS_BLOCK, n);
                    if !check {
                        // Without the comparison with mirror tiles, the tiles right of the
                        // diagonal are read four rows at a time across several tiles (the
                        // same sums, read faster: see `add_strip_by_row_groups`).
                        return visit(masked, false, rows.clone(), rows, gathered, None)
                            && self.strip_pass(p, by, masked, gathered, scattered, control);
                    }
                    (p..n.div_ceil(SUMS_BLOCK)).all(|q| {
                        let cols = block_range(q, SUMS_BLOCK, n);
                        let part = (q > p).then(|| {
                            StripSums::tile_part(scattered, p, q, k, SUMS_BLOCK, cols.len())
                        });
                        visit(masked, false, rows.clone(), cols, gathered, part)
                    })
                })
                .reduce(|| true, |a, b| a && b);
            (finished, Sums::Strips(sums))
        } else {
            let mut sums = TiledSums::new(n, k, SUMS_BLOCK)?;
            let mut states = sums.blocks();
            let finished = for_each_block_pair(&mut states, |masked, p, (gp, _), other| {
                let rows = block_range(p, SUMS_BLOCK, n);
                let cols = other
                    .as_ref()
                    .map_or(rows.clone(), |(q, _)| block_range(*q, SUMS_BLOCK, n));
                let scattered_q = other.map(|(_, (_, sq))| &mut **sq);
                visit(masked, true, rows, cols, gp, scattered_q)
            });
            drop(states);
            (finished, Sums::Tiles(sums))
        };
        if !finished {
            control.checkpoint()?;
            return Err(KGroupsError::Interrupted); // the pass stops early only when cancelled
        }
        if broken.into_inner() {
            symmetry::check_dense(self.data, n, "G")?;
            return Err(KGroupsError::Internal(
                "a tile failed the symmetry rule but the whole matrix passed it".into(),
            ));
        }
        match sums {
            Sums::Strips(sums) => sums.into_cluster_major(),
            Sums::Tiles(sums) => sums.into_cluster_major(),
        }
    }

    /// One tile of the pass, on the widest vectors the CPU has: with `roots` (the square
    /// roots of the diagonal's magnitudes), first the symmetry rule against the tile's mirror
    /// (false, and no sums, when it fails), then its sums ([`add_tile`]).
    fn tile_pass(
        &self,
        tile: &Tile,
        roots: Option<&[f64]>,
        masked: &mut Vec<f64>,
        gathered: &mut [f64],
        scattered_cols: Option<&mut [f64]>,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if crate::distance::wide_vectors() {
            // SAFETY: `tile_pass_avx2` requires only that the CPU supports AVX2, which
            // `wide_vectors` has just detected at run time.
            return unsafe { self.tile_pass_avx2(tile, roots, masked, gathered, scattered_cols) };
        }
        self.tile_pass_portable(tile, roots, masked, gathered, scattered_cols)
    }

    /// [`DenseKernel::tile_pass_portable`] compiled with AVX2: the same IEEE operations in the
    /// same order (Rust never contracts `a * b + c` into an FMA), so the same bits, four lanes
    /// per instruction instead of two.
    ///
    /// # Safety
    /// The CPU must support AVX2 (the caller detects it first). The body is safe code; only
    /// the instruction set it is compiled for needs the check.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn tile_pass_avx2(
        &self,
        tile: &Tile,
        roots: Option<&[f64]>,
        masked: &mut Vec<f64>,
        gathered: &mut [f64],
        scattered_cols: Option<&mut [f64]>,
    ) -> bool {
        self.tile_pass_portable(tile, roots, masked, gathered, scattered_cols)
    }

    /// The tiles of strip `p` right of its diagonal tile ([`add_strip_by_row_groups`]), on
    /// the widest vectors the CPU has; false once cancelled.
    fn strip_pass(
        &self,
        p: usize,
        by: Labelled,
        masks: &mut Vec<f64>,
        gathered: &mut [f64],
        scattered: &mut [f64],
        control: &Control,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if crate::distance::wide_vectors() {
            // SAFETY: `strip_pass_avx2` requires only that the CPU supports AVX2, which
            // `wide_vectors` has just detected at run time.
            return unsafe { self.strip_pass_avx2(p, by, masks, gathered, scattered, control) };
        }
        self.strip_pass_portable(p, by, masks, gathered, scattered, control)
    }

    /// [`DenseKernel::strip_pass_portable`] compiled with AVX2 (the same bits, as
    /// [`DenseKernel::tile_pass_avx2`]).
    ///
    /// # Safety
    /// The CPU must support AVX2 (the caller detects it first). The body is safe code; only
    /// the instruction set it is compiled for needs the check.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn strip_pass_avx2(
        &self,
        p: usize,
        by: Labelled,
        masks: &mut Vec<f64>,
        gathered: &mut [f64],
        scattered: &mut [f64],
        control: &Control,
    ) -> bool {
        self.strip_pass_portable(p, by, masks, gathered, scattered, control)
    }

    /// The body of [`DenseKernel::strip_pass`], compiled into both instruction sets.
    #[inline(always)]
    fn strip_pass_portable(
        &self,
        p: usize,
        by: Labelled,
        masks: &mut Vec<f64>,
        gathered: &mut [f64],
        scattered: &mut [f64],
        control: &Control,
    ) -> bool {
        add_strip_by_row_groups(
            |a| self.row(a),
            p,
            SUMS_BLOCK,
            self.n,
            by,
            masks,
            gathered,
            scattered,
            || control.checkpoint().is_ok(),
        )
    }

    /// The body of [`DenseKernel::tile_pass`], compiled into both instruction sets.
    #[inline(always)]
    fn tile_pass_portable(
        &self,
        tile: &Tile,
        roots: Option<&[f64]>,
        masked: &mut Vec<f64>,
        gathered: &mut [f64],
        scattered_cols: Option<&mut [f64]>,
    ) -> bool {
        let (data, n) = (self.data, self.n);
        let (rows, cols) = (tile.rows.clone(), tile.cols.clone());
        if let Some(roots) = roots {
            // Bit for bit first (cheap), by the rule only where the bits differ.
            let tolerance = T::SYMMETRY_TOLERANCE;
            let passes = !symmetry::tile_differs_bitwise(data, n, rows.clone(), cols.clone())
                || !symmetry::tile_is_bad(data, n, rows.clone(), cols.clone(), tolerance, roots);
            if !passes {
                return false;
            }
        }
        let row = |a: usize| {
            if tile.prefetch && a + PREFETCH_ROWS < tile.rows.end {
                prefetch_run(&data[(a + PREFETCH_ROWS) * n + cols.start..][..cols.len()]);
            }
            &data[a * n + cols.start..a * n + cols.end]
        };
        add_tile(
            row,
            rows,
            tile.cols.clone(),
            tile.by,
            masked,
            gathered,
            scattered_cols,
        );
        true
    }
}

/// Side of the tiles of the cluster-sums pass: each tile row is read as a 2 KiB run (long
/// enough for the hardware prefetchers; 1 KiB runs left the pass waiting on memory), and the
/// mirror rows a tile's comparison reads stay in L2. The value must not depend on the number
/// of threads (it fixes the order of the sums).
const SUMS_BLOCK: usize = 256;

/// Whether the pass runs by strips ([`StripSums`]): when their per-tile parts, `k / (2 ·
/// SUMS_BLOCK)` f64 per matrix entry, take at most 1/32 of the matrix's own memory (k ≤ 16
/// for f64, k ≤ 8 for f32). Strips read the matrix in row order: at n = 10⁴, k = 10, the
/// sums took 0.103 s against 0.129 s by the pair schedule (`cargo bench --bench core --
/// dense_pass`), which needs no memory beyond the n × k sums.
fn by_strips<T>(k: usize) -> bool {
    let part_bytes = k * std::mem::size_of::<f64>();
    part_bytes * 32 <= 2 * SUMS_BLOCK * std::mem::size_of::<T>()
}

/// The sums of the pass: by strips for few clusters ([`by_strips`]), by the pair schedule
/// otherwise.
enum Sums {
    Strips(StripSums),
    Tiles(TiledSums),
}

/// A tile of the pass and what its sums are taken by.
struct Tile<'s> {
    rows: Range<usize>,
    cols: Range<usize>,
    by: Labelled<'s>,
    /// Prefetch each row's run ahead: for tiles visited far apart, whose short runs start
    /// cold; a strip's tiles continue their rows, which the hardware streams faster alone.
    prefetch: bool,
}

/// Rows ahead whose run of the tile is prefetched: the runs are too short for the hardware
/// prefetchers to reach full speed on their own.
const PREFETCH_ROWS: usize = 4;

/// Entries of the row a dense move reads between two prefetches, and how many such runs
/// ahead the row is prefetched (4 KiB for f64). A moved point's row is read once, from
/// memory, and the hardware prefetchers alone left a move waiting on it: the 3734 moves of
/// `kernel_kgroups(G, 2)` at n = 10⁴ (the paper's eq. 56 data) took about 0.047 s, prefetched
/// 0.033 s (AMD Zen 4).
const MOVE_RUN: usize = 64;
const MOVE_RUNS_AHEAD: usize = 8;

/// From this n a dense move's row is updated in parallel chunks by rayon (a row of 512 KiB
/// and more).
const PARALLEL_MOVE_MIN_N: usize = 1 << 16;

/// From this n (a row of 32 KiB) up to [`PARALLEL_MOVE_MIN_N`], a single search splits each
/// move's row with a helper thread ([`Kernel::splits_moves`]).
const SPLIT_MOVE_MIN_N: usize = 1 << 12;

/// `leaving[y] -= weight * row[y]`, `joining[y] += weight * row[y]` over `leaving.len()`
/// entries, the row prefetched [`MOVE_RUNS_AHEAD`] runs ahead.
#[inline]
fn move_run<T: KernelElement>(row: &[T], weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
    let row = &row[..leaving.len().min(row.len())];
    let runs = row.chunks(MOVE_RUN);
    let mut ahead = row.chunks(MOVE_RUN).skip(MOVE_RUNS_AHEAD);
    let sums = leaving
        .chunks_mut(MOVE_RUN)
        .zip(joining.chunks_mut(MOVE_RUN));
    for (run, (leaving, joining)) in runs.zip(sums) {
        if let Some(ahead) = ahead.next() {
            prefetch_run(ahead);
        }
        for ((v, l), j) in run.iter().zip(leaving.iter_mut()).zip(joining.iter_mut()) {
            let delta = weight * v.widen();
            *l -= delta;
            *j += delta;
        }
    }
}

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
    fn row_run(&self, i: usize, start: usize, out: &mut [f64]) {
        for (o, v) in out.iter_mut().zip(&self.row(i)[start..]) {
            *o = v.widen();
        }
    }

    #[inline]
    fn add_scaled_row(&self, i: usize, scale: f64, out: &mut [f64]) {
        for (o, v) in out.iter_mut().zip(self.row(i)) {
            *o += scale * v.widen();
        }
    }

    fn move_point(&self, i: usize, weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
        let row = self.row(i);
        if self.n >= PARALLEL_MOVE_MIN_N {
            const CHUNK: usize = 1 << 14;
            row.par_chunks(CHUNK)
                .zip(
                    leaving
                        .par_chunks_mut(CHUNK)
                        .zip(joining.par_chunks_mut(CHUNK)),
                )
                .for_each(|(row, (leaving, joining))| move_run(row, weight, leaving, joining));
        } else {
            move_run(row, weight, leaving, joining);
        }
    }

    fn move_point_part(
        &self,
        i: usize,
        start: usize,
        weight: f64,
        leaving: &mut [f64],
        joining: &mut [f64],
    ) {
        // Columns past n have no entries to add (as in the default implementation).
        let row = self.row(i).get(start..).unwrap_or_default();
        move_run(row, weight, leaving, joining);
    }

    fn splits_moves(&self) -> bool {
        (SPLIT_MOVE_MIN_N..PARALLEL_MOVE_MIN_N).contains(&self.n)
    }

    fn cluster_sums(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        self.sums_pass(labels, weights, k, control, false)
    }

    fn has_deferred_check(&self) -> bool {
        self.check == Check::Deferred
    }

    fn check_deferred(&self, _control: &Control) -> Result<()> {
        if self.check == Check::Deferred {
            symmetry::check_dense(self.data, self.n, "G")?;
        }
        Ok(())
    }

    fn cluster_sums_and_check(
        &self,
        labels: &[usize],
        weights: &[f64],
        k: usize,
        control: &Control,
    ) -> Result<Vec<f64>> {
        // Every tile is compared with its mirror in the pass that reads it for the sums.
        let check = self.check == Check::Deferred;
        self.sums_pass(labels, weights, k, control, check)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestRng;

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

    /// A symmetric n × n matrix (bit for bit) with a positive diagonal.
    fn symmetric(n: usize, rng: &mut TestRng) -> Vec<f64> {
        let mut g = vec![0.0; n * n];
        for a in 0..n {
            for b in a..n {
                let v = if a == b {
                    3.0 + rng.next_f64()
                } else {
                    rng.normal_ish()
                };
                g[a * n + b] = v;
                g[b * n + a] = v;
            }
        }
        g
    }

    /// The tiled pass against the naive sums, across tile boundaries (n not a multiple of
    /// the tile, several blocks), for the masked (k ≤ 4) and gathering (k > 4) kernels, with
    /// and without the fused check, in f64 and f32, on 1 and 2 threads (same bits).
    #[test]
    fn tiled_sums_match_naive_and_do_not_depend_on_threads_or_check() {
        let mut rng = TestRng(5);
        for &n in &[1usize, 2, 127, 128, 129, 300, 515] {
            let g = symmetric(n, &mut rng);
            let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
            let g32_wide: Vec<f64> = g32.iter().map(|&v| v as f64).collect();
            let weights: Vec<f64> = (0..n).map(|_| 0.25 + rng.next_f64()).collect();
            // k ≤ 16: by strips (f64), k = 20: by the pair schedule (f32 from k = 9).
            for k in [1usize, 2, 4, 5, 9, 20] {
                let k = k.min(n);
                let labels: Vec<usize> = (0..n).map(|i| (i * 7 + i / 3) % k).collect();
                let control = Control::new();
                let slow = naive_sums(&g, n, &labels, &weights, k);
                let kernel = DenseKernel::new(&g, n).unwrap();
                let deferred = DenseKernel::with_deferred_check(&g, n).unwrap();
                let runs: Vec<Vec<f64>> = [1, 2]
                    .iter()
                    .flat_map(|&threads| {
                        crate::test_support::in_pool(threads, || {
                            vec![
                                kernel.cluster_sums(&labels, &weights, k, &control).unwrap(),
                                deferred
                                    .cluster_sums_and_check(&labels, &weights, k, &control)
                                    .unwrap(),
                            ]
                        })
                    })
                    .collect();
                for run in &runs {
                    assert_eq!(run, &runs[0], "n = {n}, k = {k}");
                }
                for (a, b) in runs[0].iter().zip(&slow) {
                    assert!(
                        (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                        "n = {n}, k = {k}: {a} vs {b}"
                    );
                }
                let single = DenseKernel::new(&g32, n).unwrap();
                let fast = single.cluster_sums(&labels, &weights, k, &control).unwrap();
                let slow = naive_sums(&g32_wide, n, &labels, &weights, k);
                for (a, b) in fast.iter().zip(&slow) {
                    assert!(
                        (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                        "f32 n = {n}, k = {k}: {a} vs {b}"
                    );
                }
            }
        }
    }

    /// The unchecked pass reads the tiles right of each strip's diagonal four rows at a time
    /// across several tiles (`add_strip_by_row_groups`), the checked pass tile by tile: the
    /// same bits, across chunks of tiles (n = 2601: 11 blocks, a last block of 41 rows), odd
    /// last rows, masked and gathering k, f64 and f32.
    #[test]
    fn strips_read_by_row_groups_give_the_bits_of_tile_order() {
        fn check<T: KernelElement>(g: &[T], n: usize, weights: &[f64]) {
            let kernel = DenseKernel::new(g, n).unwrap();
            let control = Control::new();
            for k in [1usize, 2, 3, 4, 5, 8, 16] {
                if !by_strips::<T>(k) {
                    continue;
                }
                let labels: Vec<usize> = (0..n).map(|i| (i * 7 + i / 3) % k).collect();
                let by_rows = kernel
                    .sums_pass(&labels, weights, k, &control, false)
                    .unwrap();
                let by_tiles = kernel
                    .sums_pass(&labels, weights, k, &control, true)
                    .unwrap();
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&by_rows), bits(&by_tiles), "n = {n}, k = {k}");
            }
        }
        let mut rng = TestRng(17);
        for &n in &[257usize, 515, 2601] {
            let g = symmetric(n, &mut rng);
            let weights: Vec<f64> = (0..n).map(|_| 0.25 + rng.next_f64()).collect();
            check(&g, n, &weights);
            let g32: Vec<f32> = g.iter().map(|&v| v as f32).collect();
            check(&g32, n, &weights);
        }
    }

    /// Strips take at most 1/32 of the matrix's memory: k ≤ 16 in f64, k ≤ 8 in f32.
    #[test]
    fn strips_are_for_few_clusters() {
        assert!(by_strips::<f64>(16) && !by_strips::<f64>(17));
        assert!(by_strips::<f32>(8) && !by_strips::<f32>(9));
    }

    /// The check fused into the first pass gives the eager check's verdict and error (the
    /// same first offending entry), wherever the defect is and whatever it is.
    #[test]
    fn fused_check_reports_what_the_eager_check_reports() {
        let mut rng = TestRng(9);
        let n = 300;
        let base = symmetric(n, &mut rng);
        let labels: Vec<usize> = (0..n).map(|i| i % 3).collect();
        let weights = vec![1.0; n];
        let control = Control::new();
        let mut rejected = 0;
        for trial in 0..40 {
            let mut g = base.clone();
            let a = rng.below(n);
            let b = rng.below(n);
            let v = g[a * n + b];
            g[a * n + b] = match trial % 5 {
                0 => v * (1.0 + 1e-12), // within the tolerance: accepted
                1 => v * (1.0 + 1e-6),
                2 => v + 1.0,
                3 => f64::NAN,
                _ => f64::NEG_INFINITY,
            };
            let eager = DenseKernel::new(&g, n).err().map(|e| e.to_string());
            let kernel = DenseKernel::with_deferred_check(&g, n).unwrap();
            // k = 3 by strips, k = 20 by the pair schedule.
            for k in [3, 20] {
                let labels: Vec<usize> = labels.iter().map(|&l| l * 7 % k).collect();
                let fused = kernel
                    .cluster_sums_and_check(&labels, &weights, k, &control)
                    .err()
                    .map(|e| e.to_string());
                assert_eq!(fused, eager, "trial {trial}: ({a}, {b}), k = {k}");
            }
            let separate = kernel.check_deferred(&control).err().map(|e| e.to_string());
            assert_eq!(separate, eager, "trial {trial}");
            rejected += usize::from(eager.is_some());
        }
        assert!(rejected >= 20, "too few defects rejected: {rejected}");
    }

    /// A fit on a kernel with a deferred check fails as the eager constructor does (one
    /// start: in the first pass; several starts: before them), and otherwise gives the same
    /// result as on the eagerly checked kernel.
    #[test]
    fn fit_with_deferred_check_matches_eager() {
        use crate::{fit, Init, Options};
        let mut rng = TestRng(3);
        let n = 260;
        let g = symmetric(n, &mut rng);
        let control = Control::new();
        for n_init in [1, 3] {
            for init in [Init::KMeansPlusPlus, Init::Random] {
                let options = Options {
                    n_init,
                    init,
                    ..Options::default()
                };
                let eager = fit(&DenseKernel::new(&g, n).unwrap(), 3, &options, &control);
                let deferred = DenseKernel::with_deferred_check(&g, n).unwrap();
                assert_eq!(
                    fit(&deferred, 3, &options, &control).unwrap(),
                    eager.unwrap()
                );
                let mut bad = g.clone();
                bad[7 * n + 250] += 1e-3;
                let expected = DenseKernel::new(&bad, n).unwrap_err().to_string();
                let deferred = DenseKernel::with_deferred_check(&bad, n).unwrap();
                let err = fit(&deferred, 3, &options, &control)
                    .unwrap_err()
                    .to_string();
                assert_eq!(err, expected);
                bad[7 * n + 250] = f64::NAN;
                let expected = DenseKernel::new(&bad, n).unwrap_err().to_string();
                let deferred = DenseKernel::with_deferred_check(&bad, n).unwrap();
                let err = fit(&deferred, 3, &options, &control)
                    .unwrap_err()
                    .to_string();
                assert_eq!(err, expected);
            }
        }
    }
}
