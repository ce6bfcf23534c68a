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
use crate::kernel::tile_sums::{add_tile, add_tile_masked, fill_masks, Labelled, TiledSums};
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
            (Some(roots), Some(scattered)) if !aliased_rows::<T>(n) => {
                // Off the diagonal: the tile's sums first, which leave the tile in L2; then
                // the mirror tile read row by row (runs in order, as memory serves the tile
                // itself) against the tile's columns in L2. Read down its columns from memory
                // instead (a line from each of 256 rows at a time, too many streams for the
                // prefetchers), the mirror cost more than the sums.
                add_tile(
                    row,
                    rows.clone(),
                    cols.clone(),
                    tile.by,
                    masked,
                    gathered,
                    Some(scattered),
                );
                !symmetry::tile_differs_bitwise(data, n, cols.clone(), rows.clone())
                    || obeys_rule(rows, roots)
            }
            (Some(roots), Some(scattered)) => MIRROR.with(|mirror| {
                // Where rows are a multiple of 4 KiB apart, the tile's rows share their cache
                // sets and do not stay in L2: the mirror is read row by row into a transposed
                // copy (in L2) first, and the tile is compared with it and added to the sums
                // by strips of rows while each strip is in the nearest cache; the strips add
                // the same products in the same order as the whole tile.
                let mut mirror = mirror.borrow_mut();
                symmetry::transposed_mirror(data, n, rows.clone(), cols.clone(), &mut mirror);
                fill_masks(tile.by, cols.clone(), masked);
                for start in rows.clone().step_by(STRIP) {
                    let strip = start..(start + STRIP).min(rows.end);
                    let (within, columns) = (strip.clone(), cols.clone());
                    let first = rows.start;
                    if symmetry::strip_differs_from_mirror(data, n, within, columns, &mirror, first)
                        && !obeys_rule(strip.clone(), roots)
                    {
                        return false;
                    }
                    let gathered = &mut gathered[(start - rows.start) * tile.by.k..];
                    let scattered = Some(&mut *scattered);
                    add_tile_masked(
                        row,
                        strip,
                        cols.clone(),
                        tile.by,
                        masked,
                        gathered,
                        scattered,
                    );
                }
                true
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

/// Whether rows of `n` entries of `T` are a multiple of 4 KiB apart: then the lines of one
/// column of a tile share a cache set (and, at large powers of two, a memory bank), and a
/// mirror read down its columns comes at half the speed (measured at n = 16 384 against the
/// copy; at n = 10 000 the copy costs more than it saves).
fn aliased_rows<T>(n: usize) -> bool {
    (n * std::mem::size_of::<T>()).is_multiple_of(4096)
}

thread_local! {
    /// A worker's transposed copy of the mirror tile in the checked pass (SUMS_BLOCK² f64:
    /// 512 KiB, allocated once per thread).
    static MIRROR: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Rows of a strip of an off-diagonal tile in the checked pass through a transposed copy of
/// the mirror: eight rows and their eight copied rows are 16 lines of each column run, which
/// the nearest cache holds whatever the row stride. A multiple of 4, so that the strips pair and group rows as the whole tile does.
const STRIP: usize = 8;

/// Side of the tiles of the cluster-sums pass: each tile row is read as a 2 KiB run (long
/// enough for the hardware prefetchers; 1 KiB runs left the pass waiting on memory), and the
/// mirror rows a tile's comparison reads stay in L2. The value must not depend on the number
/// of threads (it fixes the order of the sums).
const SUMS_BLOCK: usize = 256;

/// A tile of the pass and what its sums are taken by.
struct Tile<'s> {
    rows: Range<usize>,
    cols: Range<usize>,
    by: Labelled<'s>,
}
