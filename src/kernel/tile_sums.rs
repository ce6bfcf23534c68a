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
    mut row: impl FnMut(usize) -> &'r [T],
    rows: Range<usize>,
    cols: Range<usize>,
    by: Labelled,
    masked: &mut Vec<f64>,
    gathered: &mut [f64],
    scattered_cols: Option<&mut [f64]>,
) {
    let Labelled { labels, weights, k } = by;
    let width = cols.len();
    let diagonal = scattered_cols.is_none();
    if k <= MASKED_MAX_K {
        masked.clear();
        masked.resize(k * width, 0.0);
        for (j, b) in cols.clone().enumerate() {
            masked[labels[b] * width + j] = weights[b];
        }
    }
    let mut own_scattered = Vec::new();
    let scattered = match scattered_cols {
        Some(s) => s,
        None => {
            own_scattered.resize(k * width, 0.0);
            &mut own_scattered[..]
        }
    };
    for (i, a) in rows.clone().enumerate() {
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
