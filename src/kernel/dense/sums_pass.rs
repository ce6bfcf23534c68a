//! The pass that builds a dense kernel's cluster sums: the upper triangle read once in
//! square tiles in the thread-independent pair schedule, each tile compared with its mirror in the same pass when the symmetry check is
//! deferred to it.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use super::DenseKernel;
use crate::control::Control;
use crate::distance::block_range;
use crate::error::{KGroupsError, Result};
use crate::gram::tiles::for_each_block_pair;
use crate::kernel::tile_sums::{add_tile, Labelled, TiledSums};
use crate::kernel::{check_cluster_sums_args, KernelElement};
use crate::validate::symmetry;

impl<T: KernelElement> DenseKernel<'_, T> {
    /// The cluster sums of [`crate::kernel::cluster_sums`], read from the upper triangle only
    /// (`G_ab` with `a ≤ b`, mirrored: each pair of entries is read once), in
    /// [`SUMS_BLOCK`]-square tiles in the thread-independent schedule of
    /// [`for_each_block_pair`]. With `check`, each
    /// tile is also compared with its mirror while both are in cache: bit for bit first, by
    /// the symmetry rule where the bits differ; a matrix that breaks the rule gets
    /// [`symmetry::check_dense`]'s error.
    pub(super) fn sums_pass(
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
            let tile = Tile { rows, cols, by };
            let roots = check.then_some(&roots[..]);
            if !self.tile_pass(&tile, roots, masked, gathered, scattered) {
                broken.store(true, Ordering::Relaxed);
            }
            true
        };
        let mut sums = TiledSums::new(n, k, SUMS_BLOCK)?;
        let mut states = sums.blocks();
        let finished = for_each_block_pair(&mut states, |masked, p, (gp, _), other| {
            let rows = block_range(p, SUMS_BLOCK, n);
            let cols = other
                .as_ref()
                .map_or(rows.clone(), |(q, _)| block_range(*q, SUMS_BLOCK, n));
            let scattered_q = other.map(|(_, (_, sq))| &mut **sq);
            visit(masked, rows, cols, gp, scattered_q)
        });
        drop(states);
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
        sums.into_cluster_major()
    }

    /// One tile of the pass, on the widest vectors the CPU has: its sums ([`add_tile`]) and,
    /// with `roots` (the square roots of the diagonal's magnitudes), the symmetry rule
    /// against the tile's mirror (false when it fails; the pass then discards its sums).
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
        let row = |a: usize| &data[a * n + cols.start..a * n + cols.end];
        // Each comparison is bit for bit first (cheap); the rule judges only where bits differ.
        let obeys_rule = |rows: Range<usize>, roots: &[f64]| {
            !symmetry::tile_is_bad(data, n, rows, cols.clone(), T::SYMMETRY_TOLERANCE, roots)
        };
        match (roots, scattered_cols) {
            (Some(roots), Some(scattered)) => TILE.with(|copy| {
                // Off the diagonal: the tile copied row by row (its runs read in order, as
                // memory serves them best) and its sums taken from the copy; then the mirror
                // tile read row by row against the copy's columns in L2. The copy, not the
                // matrix, is what stays in L2: where rows are a multiple of 4 KiB apart
                // (n = 16 384), the tile's rows share their cache sets and would not. Read down
                // its columns from memory instead (a line from each of 256 rows at a time,
                // too many streams for the prefetchers), the mirror cost more than the sums.
                let mut copy = copy.borrow_mut();
                copy_tile(data, n, rows.clone(), cols.clone(), &mut copy);
                let width = cols.len();
                let copied = |a: usize| {
                    let at = (a - rows.start) * width;
                    &copy[at..at + width]
                };
                let (r, c) = (rows.clone(), cols.clone());
                add_tile(copied, r, c, tile.by, masked, gathered, Some(scattered));
                !symmetry::mirror_differs_from_copy(data, n, rows.clone(), cols.clone(), &copy)
                    || obeys_rule(rows, roots)
            }),
            (roots, scattered) => {
                if let Some(roots) = roots {
                    if symmetry::tile_differs_bitwise(data, n, rows.clone(), cols.clone())
                        && !obeys_rule(rows.clone(), roots)
                    {
                        return false;
                    }
                }
                add_tile(
                    row,
                    rows,
                    cols.clone(),
                    tile.by,
                    masked,
                    gathered,
                    scattered,
                );
                true
            }
        }
    }
}

/// The tile `rows × cols` of `data`, widened, row by row into `out` (resized to
/// `rows.len() · cols.len()`). Widening is exact, so sums taken from the copy have the bits
/// of sums taken from the matrix.
fn copy_tile<T: KernelElement>(
    data: &[T],
    n: usize,
    rows: Range<usize>,
    cols: Range<usize>,
    out: &mut Vec<f64>,
) {
    let width = cols.len();
    out.clear();
    out.reserve(rows.len() * width);
    for a in rows {
        out.extend(
            data[a * n + cols.start..a * n + cols.end]
                .iter()
                .map(|v| v.widen()),
        );
    }
}

thread_local! {
    /// A worker's copy of the tile in the checked pass (SUMS_BLOCK² f64: 512 KiB, allocated
    /// once per thread).
    static TILE: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Side of the tiles of the cluster-sums pass: each tile row is read as a 2 KiB run (long
/// enough for the hardware prefetchers; 1 KiB runs left the pass waiting on memory), and the
/// copy of the tile that the checked pass compares with its mirror stays in L2. The value must not depend on the number
/// of threads (it fixes the order of the sums).
const SUMS_BLOCK: usize = 256;

/// A tile of the pass and what its sums are taken by.
struct Tile<'s> {
    rows: Range<usize>,
    cols: Range<usize>,
    by: Labelled<'s>,
}
