//! Per-point cluster sums accumulated tile by tile over the upper triangle of a symmetric
//! kernel: each pair of points is read (or computed) once. The dense kernels read their tiles
//! from the matrix, the matrix-free kernel computes them; both add them here.
//!
//! For a tile `rows × cols` (rows not after cols), row `a` gathers `w_b G_ab` by the label of
//! `b` (point-major sums of block p), and row `b` receives `w_a G_ab` under the label of `a`
//! (cluster-major sums of block q: a contiguous run per row `a`, so the transpose costs no
//! scattered writes). For few clusters the gather is k dot products with weights masked by
//! label — branch-free and vectorised — instead of one read-modify-write per entry, whose
//! chains on the same label wait on each other.

use std::ops::Range;

use rayon::prelude::*;

use crate::distance::VectorPath;
use crate::error::{try_filled, Result};
use crate::kernel::KernelElement;

/// Up to this many clusters the gather uses masked dot products.
const MASKED_MAX_K: usize = 4;

/// The sums of every block of `block` points, in two parts added at the end.
pub(crate) struct TiledSums {
    /// Point-major (`n × k`): each row's sums over the columns from its own on.
    gathered: Vec<f64>,
    /// Per block, cluster-major (`k × len`): each row's sums over the rows above it.
    scattered: Vec<f64>,
    n: usize,
    k: usize,
    block: usize,
}

/// The two parts of the sums of one block, as the tile visits see them.
pub(crate) type BlockSums<'a> = (&'a mut [f64], &'a mut [f64]);

/// The labels, weights and number of clusters the sums are taken by.
#[derive(Clone, Copy)]
pub(crate) struct Labelled<'s> {
    pub(crate) labels: &'s [usize],
    pub(crate) weights: &'s [f64],
    pub(crate) k: usize,
}

impl TiledSums {
    /// Zeroed sums for `n` points, `k` clusters and blocks of `block` points (fallible).
    pub(crate) fn new(n: usize, k: usize, block: usize) -> Result<Self> {
        let what = "the n × k cluster sums";
        let len = n.saturating_mul(k);
        Ok(TiledSums {
            gathered: try_filled(len, 0.0, "k", what)?,
            scattered: try_filled(len, 0.0, "k", what)?,
            n,
            k,
            block,
        })
    }

    /// The sums of each block, for the tile visits.
    pub(crate) fn blocks(&mut self) -> Vec<BlockSums<'_>> {
        let chunk = (self.block * self.k).max(1);
        self.gathered
            .chunks_mut(chunk)
            .zip(self.scattered.chunks_mut(chunk))
            .collect()
    }

    /// The sums, cluster-major: `sums[l * n + y]`.
    pub(crate) fn into_cluster_major(self) -> Result<Vec<f64>> {
        let (n, k, block) = (self.n, self.k, self.block);
        let mut sums = try_filled(n * k, 0.0, "k", "the n × k cluster sums")?;
        sums.par_chunks_mut(n.max(1))
            .enumerate()
            .for_each(|(l, out)| {
                for (y, o) in out.iter_mut().enumerate() {
                    let (p, inside) = (y / block, y % block);
                    let len = block.min(n - p * block);
                    *o =
                        self.gathered[y * k + l] + self.scattered[p * block * k + l * len + inside];
                }
            });
        Ok(sums)
    }
}

/// Adds the tile `rows × cols` to the sums (see the module documentation): `row(a)` gives row
/// `a`'s values at the columns `cols` (all of them, also on a diagonal tile, of which only the
/// upper triangle is read). `gathered` is block p's point-major part, `scattered_cols` block
/// q's cluster-major part (`None` on a diagonal tile); `masked` is scratch.
#[inline(always)]
pub(crate) fn add_tile<'r, T: KernelElement>(
    row: impl FnMut(usize) -> &'r [T],
    rows: Range<usize>,
    cols: Range<usize>,
    by: Labelled,
    masked: &mut Vec<f64>,
    gathered: &mut [f64],
    scattered_cols: Option<&mut [f64]>,
) {
    fill_masks(by, cols.clone(), masked);
    add_tile_masked(row, rows, cols, by, masked, gathered, scattered_cols);
}

/// The masks of the tile columns `cols` for [`add_tile_masked`]: `masked[l · width + j]` is
/// the weight of point `cols.start + j` if its label is `l`, else 0 (nothing for more than
/// [`MASKED_MAX_K`] clusters, whose gather reads the labels instead).
#[inline]
fn fill_masks(by: Labelled, cols: Range<usize>, masked: &mut Vec<f64>) {
    let Labelled { labels, weights, k } = by;
    masked.clear();
    if k <= MASKED_MAX_K {
        let width = cols.len();
        masked.resize(k * width, 0.0);
        for (j, b) in cols.enumerate() {
            masked[labels[b] * width + j] = weights[b];
        }
    }
}

/// [`add_tile`] with the masks of `cols` already in `masked` ([`fill_masks`]).
#[inline(always)]
fn add_tile_masked<'r, T: KernelElement>(
    mut row: impl FnMut(usize) -> &'r [T],
    rows: Range<usize>,
    cols: Range<usize>,
    by: Labelled,
    masked: &[f64],
    gathered: &mut [f64],
    scattered_cols: Option<&mut [f64]>,
) {
    let Labelled { labels, weights, k } = by;
    let width = cols.len();
    let diagonal = scattered_cols.is_none();
    let mut own_scattered = Vec::new();
    let scattered = match scattered_cols {
        Some(s) => s,
        None => {
            own_scattered.resize(k * width, 0.0);
            &mut own_scattered[..]
        }
    };
    // Off the diagonal every row's run starts at the tile's first column: the masked dots of
    // two rows (four for k ≤ 2) against all k masks run in one loop (see `masked_dots`).
    let paired = if k <= MASKED_MAX_K && !diagonal {
        rows.len() - rows.len() % 2
    } else {
        0
    };
    let mut scatter_pair = |pair: [&[T]; 2], a: usize| {
        // The scatter, row a then row a + 1 (in one pass when they share a label).
        let (la, lb, wa, wb) = (labels[a], labels[a + 1], weights[a], weights[a + 1]);
        if la == lb {
            let target = &mut scattered[la * width..(la + 1) * width];
            for ((t, u), v) in target
                .iter_mut()
                .zip(&pair[0][..width])
                .zip(&pair[1][..width])
            {
                *t = (*t + wa * u.widen()) + wb * v.widen();
            }
        } else {
            for (values, l, w) in [(pair[0], la, wa), (pair[1], lb, wb)] {
                let target = &mut scattered[l * width..(l + 1) * width];
                for (t, v) in target.iter_mut().zip(&values[..width]) {
                    *t += w * v.widen();
                }
            }
        }
    };
    let mut add_dots = |i: usize, dots: &[[f64; MASKED_MAX_K]]| {
        for (r, dots_r) in dots.iter().enumerate() {
            let sums_a = &mut gathered[(i + r) * k..(i + r + 1) * k];
            for (s, d) in sums_a.iter_mut().zip(dots_r) {
                *s += d;
            }
        }
    };
    let mut i = 0;
    while i < paired {
        let a = rows.start + i;
        if k <= 2 && i + 4 <= paired {
            // Two pairs' dots in one loop (eight chains for k = 2), then their scatters in
            // turn: the same operations in the same order as pair by pair.
            let quad = [row(a), row(a + 1), row(a + 2), row(a + 3)];
            let dots = match k {
                1 => masked_dots::<T, 1, 4>(quad, masked, width).map(spread),
                _ => masked_dots::<T, 2, 4>(quad, masked, width).map(spread),
            };
            add_dots(i, &dots);
            scatter_pair([quad[0], quad[1]], a);
            scatter_pair([quad[2], quad[3]], a + 2);
            i += 4;
            continue;
        }
        let pair = [row(a), row(a + 1)];
        let dots = match k {
            1 => masked_dots::<T, 1, 2>(pair, masked, width).map(spread),
            2 => masked_dots::<T, 2, 2>(pair, masked, width).map(spread),
            3 => masked_dots::<T, 3, 2>(pair, masked, width).map(spread),
            _ => masked_dots::<T, 4, 2>(pair, masked, width),
        };
        add_dots(i, &dots);
        scatter_pair(pair, a);
        i += 2;
    }
    for (i, a) in rows.clone().enumerate().skip(paired) {
        // On the diagonal tile, row a's upper part starts at a itself.
        let from = if diagonal { i } else { 0 };
        let values = &row(a)[from..width];
        let sums_a = &mut gathered[i * k..(i + 1) * k];
        if k <= MASKED_MAX_K {
            for (l, s) in sums_a.iter_mut().enumerate() {
                *s += masked_dot(values, &masked[l * width + from..(l + 1) * width]);
            }
        } else {
            for ((v, &label), &w) in values
                .iter()
                .zip(&labels[cols.start + from..cols.end])
                .zip(&weights[cols.start + from..cols.end])
            {
                sums_a[label] += w * v.widen();
            }
        }
        // Row b of cols receives G_ab = G_ba; on the diagonal tile only for b > a.
        let skip = usize::from(diagonal).min(values.len());
        let target = &mut scattered[labels[a] * width + from + skip..(labels[a] + 1) * width];
        let w = weights[a];
        for (t, v) in target.iter_mut().zip(&values[skip..]) {
            *t += w * v.widen();
        }
    }
    if diagonal {
        // The diagonal tile's "rows above" are its own rows: fold them into `gathered`.
        for (i, sums_a) in gathered.chunks_exact_mut(k).enumerate().take(rows.len()) {
            for (l, s) in sums_a.iter_mut().enumerate() {
                *s += own_scattered[l * width + i];
            }
        }
    }
}

/// [`masked_dot`] of each of the `R` runs `values[r]` (each at least `width` long) against
/// each of the `K` masks `masked[l·width..(l+1)·width]` (`R·K ≤ 8`): the same products
/// added in the same order, so the same bits, but the R·K sums advance together. One dot is
/// a chain of dependent additions (each lane adds once per four entries), so alone it waits
/// on the adder's latency; R·K independent chains keep the adders busy, and each mask is
/// loaded once for R rows.
#[inline(always)]
fn masked_dots<T: KernelElement, const K: usize, const R: usize>(
    values: [&[T]; R],
    masked: &[f64],
    width: usize,
) -> [[f64; K]; R] {
    let values = values.map(|v| &v[..width]);
    let masked = &masked[..K * width];
    #[cfg(target_arch = "x86_64")]
    if crate::distance::avx_vectors() {
        // SAFETY: `masked_dots_avx` requires only that the CPU supports AVX, which
        // `avx_vectors` has just detected at run time.
        let out = unsafe { masked_dots_avx(values, masked, width) };
        crate::distance::note_taken(VectorPath::Avx2);
        return out;
    }
    crate::distance::note_taken(VectorPath::Portable);
    let mut out = [[0.0; K]; R];
    for (out_r, values_r) in out.iter_mut().zip(values) {
        for (o, mask) in out_r.iter_mut().zip(masked.chunks_exact(width.max(1))) {
            *o = masked_dot(values_r, mask);
        }
    }
    out
}

/// [`masked_dots`] with four lanes per AVX register: lane `t` of chain `(r, l)` adds
/// `values[r][j] · mask_l[j]` for `j ≡ t (mod 4)` in increasing `j` (a multiply, then an
/// add: no fused multiply-add), then the lanes and the tail are added as in [`masked_dot`].
/// Written with intrinsics because the compiler's own vectorisation of these chains
/// shuffled lanes across registers and ran slower than scalar code.
///
/// # Safety
/// The CPU must support AVX. Every load reads four values inside a slice bounds-checked
/// just before it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn masked_dots_avx<T: KernelElement, const K: usize, const R: usize>(
    values: [&[T]; R],
    masked: &[f64],
    width: usize,
) -> [[f64; K]; R] {
    use std::arch::x86_64::{__m256d, _mm256_storeu_pd};
    use std::arch::x86_64::{_mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_setzero_pd};
    const LANES: usize = 4;
    let mut acc = [[_mm256_setzero_pd(); K]; R];
    let full = width - width % LANES;
    let mut j = 0;
    while j < full {
        let mut v = [_mm256_setzero_pd(); R];
        for r in 0..R {
            let run = &values[r][j..j + LANES];
            let wide = [
                run[0].widen(),
                run[1].widen(),
                run[2].widen(),
                run[3].widen(),
            ];
            // SAFETY: `wide` holds four f64 (an unaligned load).
            v[r] = unsafe { _mm256_loadu_pd(wide.as_ptr()) };
        }
        for l in 0..K {
            let run = &masked[l * width + j..l * width + j + LANES];
            // SAFETY: `run` holds four f64 (an unaligned load).
            let m = unsafe { _mm256_loadu_pd(run.as_ptr()) };
            for r in 0..R {
                acc[r][l] = _mm256_add_pd(acc[r][l], _mm256_mul_pd(v[r], m));
            }
        }
        j += LANES;
    }
    let mut out = [[0.0f64; K]; R];
    for r in 0..R {
        for l in 0..K {
            let mut lanes = [0.0f64; LANES];
            let chain: __m256d = acc[r][l];
            // SAFETY: `lanes` has room for four f64 (an unaligned store).
            unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), chain) };
            let mut rest = 0.0;
            for c in full..width {
                rest += values[r][c].widen() * masked[l * width + c];
            }
            out[r][l] = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + rest;
        }
    }
    out
}

/// `K` sums widened to four, the rest zero (only the first `k` are used).
#[inline(always)]
fn spread<const K: usize>(sums: [f64; K]) -> [f64; MASKED_MAX_K] {
    std::array::from_fn(|l| if l < K { sums[l] } else { 0.0 })
}

/// `Σ_j values[j] · masked[j]` over four independent lanes (so that it vectorises), added in
/// a fixed order.
#[inline(always)]
fn masked_dot<T: KernelElement>(values: &[T], masked: &[f64]) -> f64 {
    const LANES: usize = 4;
    let mut acc = [0.0f64; LANES];
    let mut chunks = values.chunks_exact(LANES).zip(masked.chunks_exact(LANES));
    for (v, m) in &mut chunks {
        for t in 0..LANES {
            acc[t] += v[t].widen() * m[t];
        }
    }
    let tail = values.len() - values.len() % LANES;
    let mut rest = 0.0;
    for (v, m) in values[tail..].iter().zip(&masked[tail..]) {
        rest += v.widen() * m;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + rest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::with_vectors_up_to;
    use crate::test_support::TestRng;

    /// Whether the CPU runs the AVX copy of [`masked_dots`].
    fn cpu_has_avx() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// The fused dots of two rows against k masks, and of four rows against one or two, are,
    /// bit for bit, the dots taken one at a time, for every k of the masked kernel, widths
    /// with and without a tail, f64 and f32, by each copy the CPU runs (portable, and AVX
    /// where the CPU has it): each call is seen to take the copy asked for.
    #[test]
    fn fused_masked_dots_are_the_single_dots() {
        fn check<T: KernelElement, const K: usize, const R: usize>(
            rows: [&[T]; R],
            masked: &[f64],
            width: usize,
        ) {
            for path in [VectorPath::Portable, VectorPath::Avx2] {
                let ((fused, single), taken) = with_vectors_up_to(path, || {
                    (
                        masked_dots::<T, K, R>(rows, masked, width),
                        masked_dots::<T, K, 1>([rows[R - 1]], masked, width),
                    )
                });
                // The AVX copy runs on every CPU with AVX (the switch counts it as AVX2).
                let expected = if path == VectorPath::Avx2 && cpu_has_avx() {
                    VectorPath::Avx2
                } else {
                    VectorPath::Portable
                };
                let mut want = [0; 3];
                want[expected as usize] = 2;
                assert_eq!(taken, want, "{path:?}: the copies taken");
                compare::<T, K, R>(rows, masked, width, fused, single);
            }
        }
        fn compare<T: KernelElement, const K: usize, const R: usize>(
            rows: [&[T]; R],
            masked: &[f64],
            width: usize,
            fused: [[f64; K]; R],
            single: [[f64; K]; 1],
        ) {
            for (r, row) in rows.iter().enumerate() {
                for l in 0..K {
                    let mask = &masked[l * width..(l + 1) * width];
                    let want = masked_dot(&row[..width], mask);
                    assert_eq!(
                        fused[r][l].to_bits(),
                        want.to_bits(),
                        "K {K} R {R} width {width}"
                    );
                }
            }
            for l in 0..K {
                assert_eq!(single[0][l].to_bits(), fused[R - 1][l].to_bits());
            }
        }
        if !cpu_has_avx() {
            eprintln!(
                "skipped: this CPU lacks AVX; only the portable copy of masked_dots is compared"
            );
        }
        let mut rng = TestRng(17);
        for width in [0usize, 1, 3, 4, 5, 8, 13, 256] {
            // Rows one longer than the tile, as a matrix row is longer than its run.
            let rows: Vec<Vec<f64>> = (0..4)
                .map(|_| (0..=width).map(|_| 1e3 * rng.normal_ish()).collect())
                .collect();
            let rows32: Vec<Vec<f32>> = rows
                .iter()
                .map(|r| r.iter().map(|&v| v as f32).collect())
                .collect();
            // Masks as the tile builds them: a weight where the label matches, zero elsewhere.
            let labels: Vec<usize> = (0..width)
                .map(|_| (rng.next_f64() * 4.0) as usize)
                .collect();
            let mut masked = vec![0.0; 4 * width];
            for (j, &label) in labels.iter().enumerate() {
                masked[label * width + j] = 0.1 + rng.next_f64();
            }
            let (r64, r32) = (
                [&rows[0][..], &rows[1][..]],
                [&rows32[0][..], &rows32[1][..]],
            );
            let quad64: [&[f64]; 4] = std::array::from_fn(|r| &rows[r][..]);
            let quad32: [&[f32]; 4] = std::array::from_fn(|r| &rows32[r][..]);
            check::<f64, 1, 2>(r64, &masked, width);
            check::<f64, 2, 2>(r64, &masked, width);
            check::<f64, 3, 2>(r64, &masked, width);
            check::<f64, 4, 2>(r64, &masked, width);
            check::<f32, 2, 2>(r32, &masked, width);
            check::<f32, 4, 2>(r32, &masked, width);
            check::<f64, 1, 4>(quad64, &masked, width);
            check::<f64, 2, 4>(quad64, &masked, width);
            check::<f32, 1, 4>(quad32, &masked, width);
            check::<f32, 2, 4>(quad32, &masked, width);
        }
    }
}
