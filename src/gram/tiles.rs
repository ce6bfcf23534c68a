//! The tile scheduler and dense assembly of symmetric n×n matrices: every pair of blocks of
//! points is visited once, in a schedule that depends only on the number of blocks (never on
//! the number of threads), its tile of ρ is evaluated once and written to its place and its
//! mirror place, so the stored matrix is exactly symmetric.

use std::ops::Range;

use rayon::prelude::*;

use crate::control::Control;
use crate::distance::{block_range, PairwiseRows, RunEpilogue, BLOCK};
use crate::error::{try_filled, KGroupsError, Result};
use crate::kernel::KernelElement;

use super::frame::BaseKernelRow;
use super::stream;

/// Runs `f` once on every unordered pair of blocks `(p, q)` with `p <= q`, giving it mutable
/// access to the state of block `p` and (for `p < q`) of block `q`. Diagonal pairs run first, in
/// parallel; then the off-diagonal pairs in the rounds of a round-robin tournament (circle
/// method), each round in parallel over disjoint pairs. The schedule depends only on the number of
/// blocks, never on the number of threads. `f` also gets a scratch vector, reused between calls
/// on the same worker. Returns the logical AND of all results of `f`.
pub(crate) fn for_each_block_pair<C, F>(states: &mut [C], f: F) -> bool
where
    C: Send,
    F: Fn(&mut Vec<f64>, usize, &mut C, Option<(usize, &mut C)>) -> bool + Sync,
{
    let nb = states.len();
    let mut ok = states
        .par_iter_mut()
        .enumerate()
        .map_init(Vec::new, |scratch, (p, c)| f(scratch, p, c, None))
        .reduce(|| true, |a, b| a && b);
    let m = nb + nb % 2;
    for r in 0..m.saturating_sub(1) {
        let mut refs: Vec<Option<&mut C>> = states.iter_mut().map(Some).collect();
        let mut tasks = Vec::with_capacity(m / 2);
        for t in 0..m / 2 {
            let (u, v) = if t == 0 {
                (r, m - 1)
            } else {
                ((r + t) % (m - 1), (r + m - 1 - t) % (m - 1))
            };
            let (p, q) = (u.min(v), u.max(v));
            if q >= nb {
                continue; // the dummy block of an odd count: a bye
            }
            let cp = refs[p].take();
            let cq = refs[q].take();
            if let (Some(cp), Some(cq)) = (cp, cq) {
                tasks.push((p, cp, q, cq));
            } else {
                debug_assert!(
                    false,
                    "round-robin schedule used a block twice in one round"
                );
            }
        }
        let round_ok = tasks
            .into_par_iter()
            .map_init(Vec::new, |scratch, (p, cp, q, cq)| {
                f(scratch, p, cp, Some((q, cq)))
            })
            .reduce(|| true, |a, b| a && b);
        ok = ok && round_ok;
    }
    ok
}

/// The base correction that turns a semimetric tile into kernel values (in the scaled frame).
pub(super) enum BaseCorrection {
    /// ½[(r0_a + r0_b) − ρ_ab], r0 = ρ(·, base point)
    Base(Vec<f64>),
    /// −½[(ρ_ab − (m_a + m_b)) + m_all]
    Centered(Vec<f64>, f64),
}

impl BaseCorrection {
    /// The largest diagonal entry, which bounds every entry (the kernels are positive
    /// semi-definite).
    pub(super) fn max_diagonal(&self) -> f64 {
        match self {
            BaseCorrection::Base(r0) => r0.iter().fold(0.0f64, |m, &v| m.max(v)),
            BaseCorrection::Centered(m, m_all) => m
                .iter()
                .map(|&ma| -0.5 * ((0.0 - (ma + ma)) + m_all))
                .fold(0.0f64, f64::max),
        }
    }
}

/// Runs `f` once on the tile of every unordered pair of blocks of `bs` points, in the schedule
/// of [`for_each_block_pair`]: `f(tile, rows, cols, state_p, state_q)` gets the values of `src`
/// for the points `rows` (block p) against `cols` (block q), row-major, the state of block p
/// and, for p < q, that of block q. Returns false once `control` is cancelled (checked between
/// tiles and rows) or `f` returned false.
pub(crate) fn for_each_tile<S, C, F>(
    src: &S,
    bs: usize,
    states: &mut [C],
    control: &Control,
    f: F,
) -> bool
where
    S: PairwiseRows,
    C: Send,
    F: Fn(&mut [f64], Range<usize>, Range<usize>, &mut C, Option<&mut C>) -> bool + Sync,
{
    for_each_tile_then(src, bs, states, control, |_| (), f)
}

/// [`for_each_tile`] with each row `a` of every tile transformed by `epilogue_for(a)` as it is
/// evaluated ([`PairwiseRows::tile_then`]).
fn for_each_tile_then<S, C, E, G, F>(
    src: &S,
    bs: usize,
    states: &mut [C],
    control: &Control,
    epilogue_for: G,
    f: F,
) -> bool
where
    S: PairwiseRows,
    C: Send,
    E: RunEpilogue,
    G: Fn(usize) -> E + Sync,
    F: Fn(&mut [f64], Range<usize>, Range<usize>, &mut C, Option<&mut C>) -> bool + Sync,
{
    let n = src.n();
    for_each_block_pair(states, |tile, p, state_p, other| {
        if control.checkpoint().is_err() {
            return false;
        }
        let rows = block_range(p, bs, n);
        let (cols, state_q) = match other {
            None => (rows.clone(), None),
            Some((q, state_q)) => (block_range(q, bs, n), Some(state_q)),
        };
        tile.resize(rows.len() * cols.len(), 0.0);
        src.tile_then(rows.clone(), cols.start, tile, control, &epilogue_for)
            && f(tile, rows, cols, state_p, state_q)
    })
}

/// Row sums Σ_b ρ(a, b) of the full symmetric matrix, each pair evaluated once.
fn row_sums<S: PairwiseRows>(
    src: &S,
    bs: usize,
    arg: &'static str,
    control: &Control,
) -> Result<Vec<f64>> {
    let mut all = try_filled(src.n(), 0.0, arg, "the row sums of the semimetric matrix")?;
    let mut sums: Vec<&mut [f64]> = all.chunks_mut(bs).collect();
    let finished = for_each_tile(src, bs, &mut sums, control, |tile, _, cols, sp, sq| {
        let lq = cols.len();
        match sq {
            None => {
                for (s, row) in sp.iter_mut().zip(tile.chunks_exact(lq)) {
                    *s += row.iter().sum::<f64>();
                }
            }
            Some(sq) => {
                let mut col = vec![0.0; lq];
                for (s, row) in sp.iter_mut().zip(tile.chunks_exact(lq)) {
                    *s += row.iter().sum::<f64>();
                    for (c, &v) in col.iter_mut().zip(row) {
                        *c += v;
                    }
                }
                for (s, c) in sq.iter_mut().zip(col) {
                    *s += c;
                }
            }
        }
        true
    });
    drop(sums);
    if !finished {
        return Err(KGroupsError::Interrupted); // tiles stop early only when cancelled
    }
    Ok(all)
}

/// The base correction of the double-centred kernel: m_a = mean_b ρ(a, b), m_all = mean_a m_a.
pub(super) fn centered_base_correction<S: PairwiseRows>(
    src: &S,
    arg: &'static str,
    control: &Control,
) -> Result<BaseCorrection> {
    let n = src.n() as f64;
    let mut m = row_sums(src, BLOCK, arg, control)?;
    m.iter_mut().for_each(|v| *v /= n);
    let m_all = m.iter().sum::<f64>() / n;
    Ok(BaseCorrection::Centered(m, m_all))
}

/// Row `a` of ρ turned into double-centred kernel values, scaled by `factors`, inside the pair
/// kernel: −½[(ρ_ab − (m_a + m_b)) + m_all].
struct CenteredRow<'s> {
    m_a: f64,
    m: &'s [f64],
    m_all: f64,
    factors: (f64, f64),
}

impl RunEpilogue for CenteredRow<'_> {
    #[inline(always)]
    fn apply(&self, start: usize, values: &mut [f64]) {
        let (ma, m_all, factors) = (self.m_a, self.m_all, self.factors);
        for (v, &mb) in values.iter_mut().zip(&self.m[start..]) {
            *v = -0.5 * ((*v - (ma + mb)) + m_all) * factors.0 * factors.1;
        }
    }
}

/// Builds the symmetric n×n kernel matrix: every tile of ρ is filled once, turned into kernel
/// values by the base correction, scaled by `factors` (see
/// [`Frame::output_factors`](super::Frame::output_factors)), converted and written to its place
/// and (off the diagonal) to its mirror place. Checks `control` between tiles and rows.
pub(super) fn assemble<T: KernelElement, S: PairwiseRows>(
    src: &S,
    correction: &BaseCorrection,
    factors: (f64, f64),
    arg: &'static str,
    g: &mut [T],
    control: &Control,
) -> Result<()> {
    // Each row of a tile is corrected into kernel values as it is evaluated.
    match correction {
        BaseCorrection::Base(r0) => {
            let corrected = |a: usize| BaseKernelRow {
                r_a: r0[a],
                to_base: r0,
                factors,
            };
            write_tiles(src, corrected, arg, g, control)
        }
        BaseCorrection::Centered(m, m_all) => {
            let corrected = |a: usize| CenteredRow {
                m_a: m[a],
                m,
                m_all: *m_all,
                factors,
            };
            write_tiles(src, corrected, arg, g, control)
        }
    }
}

/// The tiles of [`assemble`], each row transformed by `epilogue_for(a)`, written to their
/// places.
fn write_tiles<T, S, E, G>(
    src: &S,
    epilogue_for: G,
    arg: &'static str,
    g: &mut [T],
    control: &Control,
) -> Result<()>
where
    T: KernelElement,
    S: PairwiseRows,
    E: RunEpilogue,
    G: Fn(usize) -> E + Sync,
{
    let n = src.n();
    let bs = BLOCK;
    let mut chunks: Vec<&mut [T]> = g.chunks_mut(bs * n).collect();
    let ok = for_each_tile_then(
        src,
        bs,
        &mut chunks,
        control,
        epilogue_for,
        |buf, rp, rq, cp, cq| {
            let lq = rq.len();
            let mut ok = true;
            // Both places are written by `write_once` (streaming stores for f64: the matrix is
            // too large to stay in cache until it is read), in whole runs of destination rows.
            for (ia, row) in buf.chunks_exact(lq).enumerate() {
                let dst = &mut cp[ia * n + rq.start..ia * n + rq.end];
                ok &= T::write_once(dst, row);
            }
            if let Some(cq) = cq {
                // The mirror place, STRIP columns of the tile at a time, transposed through a
                // buffer in L1 (each row of the strip is one cache line of the tile) into STRIP
                // runs, one per destination row. Their values were checked at their own place.
                const STRIP: usize = 8;
                let la = rp.len();
                let mut strip = vec![0.0; STRIP * la];
                for j0 in (0..lq).step_by(STRIP) {
                    let m = STRIP.min(lq - j0);
                    for (ia, row) in buf.chunks_exact(lq).enumerate() {
                        for (jj, &v) in row[j0..j0 + m].iter().enumerate() {
                            strip[jj * la + ia] = v;
                        }
                    }
                    for (jj, run) in strip.chunks_exact(la).take(m).enumerate() {
                        let jb = j0 + jj;
                        T::write_once(&mut cq[jb * n + rp.start..jb * n + rp.end], run);
                    }
                }
            }
            stream::fence();
            ok
        },
    );
    drop(chunks);
    if !ok {
        control.checkpoint()?;
        return Err(KGroupsError::invalid(
            arg,
            format!(
                "the Gram matrix has entries that overflow {} (the data or semimetric values are too large); rescale the data",
                std::any::type_name::<T>()
            ),
        ));
    }
    Ok(())
}
