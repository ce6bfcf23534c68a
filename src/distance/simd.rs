//! The pair kernel on the widest vectors the CPU has. This file holds every `unsafe` block of
//! the distance evaluation, each with the reason it is sound.
//!
//! The hot loops (squared distances, or dot products for the expanded form, of one point or of
//! a group of [`TILE_ROWS`](super::data_rows::TILE_ROWS) points to a run of points, then ρ) are
//! compiled three times: as is (SSE2, the baseline of every x86-64 wheel), with AVX2 and FMA,
//! and with AVX-512 besides, and [`wide_vectors`] and [`widest_vectors`] pick one at run time.
//! All do the same IEEE operations in the same order, so their results are bit-identical; the
//! wider copies only do four or eight lanes per instruction instead of two (and the AVX-512
//! copy takes two panels of a group's dot products at once, as many sums as its 32 registers
//! hold; each pair is still summed alone, in coordinate order):
//! - the squares of the coordinate differences, and the dot products of the expanded form,
//!   are added by fused multiply-adds (`f64::mul_add`, one rounding per term instead of
//!   two), in hardware in the wide copy and by the C library's exact `fma` in the portable
//!   one (the same bits, slowly, on the rare x86-64 CPUs without FMA); `sqrt` is correctly
//!   rounded on every path. Fused, the tile kernel is faster (`benches/PERFORMANCE.md`):
//!   a difference, a multiply and an add per coordinate keep the adders twice as busy as a
//!   difference and a fused multiply-add.

use super::data_rows::{mark_lost, DataRows};
use super::rows::RunEpilogue;
use super::semimetric::RhoOfSquared;

/// Whether the CPU runs AVX-512 (foundation) besides AVX2 and FMA (detected once, then
/// cached atomic loads). Only the pair kernel takes it: its tiles of dot products keep twice
/// as many sums in AVX-512's 32 registers as in AVX2's 16.
// Off x86-64 the callers of these switches are compiled out, and so is the vector code.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn widest_vectors() -> bool {
    cpu_runs(VectorPath::Avx512) && tests_allow(VectorPath::Avx512)
}

/// Whether the CPU runs AVX2 and FMA (detected once, then cached atomic loads).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn wide_vectors() -> bool {
    cpu_runs(VectorPath::Avx2) && tests_allow(VectorPath::Avx2)
}

/// Whether the CPU runs AVX (256-bit vectors of f64, without the integer instructions of
/// AVX2 or FMA): the copies written for it count as [`VectorPath::Avx2`] for the test switch
/// ([`with_vectors_up_to`]).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn avx_vectors() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx") && tests_allow(VectorPath::Avx2)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU runs the copy `path` (whatever the tests allow): the one place the
/// crate detects the instruction sets of its copies.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn cpu_runs(path: VectorPath) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = || {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        };
        match path {
            VectorPath::Portable => true,
            VectorPath::Avx2 => avx2(),
            VectorPath::Avx512 => avx2() && std::arch::is_x86_feature_detected!("avx512f"),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        path == VectorPath::Portable
    }
}

/// The compiled copies of the vector code, narrowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) enum VectorPath {
    Portable,
    Avx2,
    Avx512,
}

#[cfg(test)]
thread_local! {
    /// The widest copy the tests let this thread take ([`with_vectors_up_to`]).
    static WIDEST_ALLOWED: std::cell::Cell<VectorPath> =
        const { std::cell::Cell::new(VectorPath::Avx512) };
    /// How many times this thread ran each copy ([`note_taken`]), narrowest first.
    static TAKEN: std::cell::Cell<[usize; 3]> = const { std::cell::Cell::new([0; 3]) };
}

/// Outside tests every copy the CPU runs is allowed.
#[cfg(not(test))]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
fn tests_allow(_path: VectorPath) -> bool {
    true
}

#[cfg(test)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn tests_allow(path: VectorPath) -> bool {
    WIDEST_ALLOWED.with(|widest| path <= widest.get())
}

/// Records that this thread ran the copy `path` of some vector code (test builds only), so
/// that a test can see which copy it compared ([`with_vectors_up_to`]).
#[inline(always)]
pub(crate) fn note_taken(_path: VectorPath) {
    #[cfg(test)]
    TAKEN.with(|taken| {
        let mut counts = taken.get();
        counts[_path as usize] += 1;
        taken.set(counts);
    });
}

/// Runs `f` on this thread with the vector code no wider than `widest` (and than the CPU
/// runs), so that tests can compare every compiled copy on one machine; also returns how
/// many times `f` ran each copy on this thread ([`note_taken`]), narrowest first.
#[cfg(test)]
pub(crate) fn with_vectors_up_to<R>(widest: VectorPath, f: impl FnOnce() -> R) -> (R, [usize; 3]) {
    let before = WIDEST_ALLOWED.with(|w| w.replace(widest));
    let taken_before = TAKEN.with(|t| t.replace([0; 3]));
    let result = f();
    let taken = TAKEN.with(|t| t.replace(taken_before));
    WIDEST_ALLOWED.with(|w| w.set(before));
    (result, taken)
}

/// The widest copy the CPU runs that is no wider than `widest`: the one code dispatched
/// under [`with_vectors_up_to`]`(widest, ..)` must take.
#[cfg(test)]
pub(crate) fn expected_path(widest: VectorPath) -> VectorPath {
    [VectorPath::Avx512, VectorPath::Avx2, VectorPath::Portable]
        .into_iter()
        .find(|&path| path <= widest && cpu_runs(path))
        .unwrap_or(VectorPath::Portable)
}

/// `out[j] = ρ(xa, y_{start + j})` for the points y of `rows`, `xa` already in their frame
/// (`norm_a` its squared norm when expanded), then `epilogue` (see
/// [`DataRows::rho_in_frame_portable`]), on the widest vectors the CPU has.
#[inline]
pub(super) fn rho_in_frame<E: RunEpilogue>(
    rows: &DataRows,
    xa: &[f64],
    norm_a: f64,
    start: usize,
    out: &mut [f64],
    epilogue: &E,
) {
    #[cfg(target_arch = "x86_64")]
    if widest_vectors() {
        // SAFETY: `rho_in_frame_avx512` requires only that the CPU supports AVX-512F, AVX2
        // and FMA, which `widest_vectors` has just detected at run time.
        unsafe { rho_in_frame_avx512(rows, xa, norm_a, start, out, epilogue) };
        note_taken(VectorPath::Avx512);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if wide_vectors() {
        // SAFETY: `rho_in_frame_avx2` requires only that the CPU supports AVX2 and FMA,
        // which `wide_vectors` has just detected at run time.
        unsafe { rho_in_frame_avx2(rows, xa, norm_a, start, out, epilogue) };
        note_taken(VectorPath::Avx2);
        return;
    }
    rows.rho_in_frame_portable(xa, norm_a, start, out, epilogue);
    note_taken(VectorPath::Portable);
}

/// [`DataRows::rho_in_frame_portable`] compiled with AVX2 and FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA (the caller checks [`wide_vectors`] first). The body is
/// safe code; only the instruction set it is compiled for needs the check.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn rho_in_frame_avx2<E: RunEpilogue>(
    rows: &DataRows,
    xa: &[f64],
    norm_a: f64,
    start: usize,
    out: &mut [f64],
    epilogue: &E,
) {
    rows.rho_in_frame_portable(xa, norm_a, start, out, epilogue);
}

/// [`super::rows::squared_distances_to_rows_portable`] on the widest copy the CPU runs (the
/// same bits on every copy).
#[inline]
pub(crate) fn squared_distances_to_rows_dispatch(
    xi: &[f64],
    data: &[f64],
    dim: usize,
    out: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if wide_vectors() {
        // SAFETY: `squared_distances_to_rows_avx2` requires only that the CPU supports AVX2
        // and FMA, which `wide_vectors` has just detected at run time.
        unsafe { squared_distances_to_rows_avx2(xi, data, dim, out) };
        return;
    }
    super::rows::squared_distances_to_rows_portable(xi, data, dim, out);
}

/// [`super::rows::squared_distances_to_rows_portable`] compiled with AVX2 and FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA (the caller checks [`wide_vectors`] first). The body is
/// safe code; only the instruction set it is compiled for needs the check.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn squared_distances_to_rows_avx2(xi: &[f64], data: &[f64], dim: usize, out: &mut [f64]) {
    super::rows::squared_distances_to_rows_portable(xi, data, dim, out);
}

/// [`DataRows::rho_in_frame_portable`] compiled with AVX-512F, AVX2 and FMA.
///
/// # Safety
/// The CPU must support AVX-512F, AVX2 and FMA (the caller checks [`widest_vectors`]
/// first). The body is safe code; only the instruction set it is compiled for needs the
/// check.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn rho_in_frame_avx512<E: RunEpilogue>(
    rows: &DataRows,
    xa: &[f64],
    norm_a: f64,
    start: usize,
    out: &mut [f64],
    epilogue: &E,
) {
    rows.rho_in_frame_portable(xa, norm_a, start, out, epilogue);
}

/// ρ of a group of [`TILE_ROWS`](super::data_rows::TILE_ROWS) points of `rows` against a run, each row then its epilogue
/// (see [`DataRows::rho_group_in_frame_portable`]), on the widest vectors the CPU has.
#[inline]
pub(super) fn rho_group_in_frame<E: RunEpilogue, F: Fn(usize) -> E>(
    rows: &DataRows,
    group: (&[f64], &[f64], &[f64]),
    first_row: usize,
    start: usize,
    out: &mut [f64],
    epilogue_for: &F,
) {
    #[cfg(target_arch = "x86_64")]
    if widest_vectors() {
        // SAFETY: `rho_group_in_frame_avx512` requires only that the CPU supports AVX-512F,
        // AVX2 and FMA, which `widest_vectors` has just detected at run time.
        unsafe { rho_group_in_frame_avx512(rows, group, first_row, start, out, epilogue_for) };
        note_taken(VectorPath::Avx512);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if wide_vectors() {
        // SAFETY: `rho_group_in_frame_avx2` requires only that the CPU supports AVX2 and
        // FMA, which `wide_vectors` has just detected at run time.
        unsafe { rho_group_in_frame_avx2(rows, group, first_row, start, out, epilogue_for) };
        note_taken(VectorPath::Avx2);
        return;
    }
    rows.rho_group_in_frame_portable::<1, _, _>(group, first_row, start, out, epilogue_for);
    note_taken(VectorPath::Portable);
}

/// [`DataRows::rho_group_in_frame_portable`] compiled with AVX2 and FMA.
///
/// # Safety
/// The CPU must support AVX2 and FMA (the caller checks [`wide_vectors`] first). The body is
/// safe code; only the instruction set it is compiled for needs the check.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn rho_group_in_frame_avx2<E: RunEpilogue, F: Fn(usize) -> E>(
    rows: &DataRows,
    group: (&[f64], &[f64], &[f64]),
    first_row: usize,
    start: usize,
    out: &mut [f64],
    epilogue_for: &F,
) {
    rows.rho_group_in_frame_portable::<1, _, _>(group, first_row, start, out, epilogue_for);
}

/// [`DataRows::rho_group_in_frame_portable`] compiled with AVX-512F, AVX2 and FMA.
///
/// # Safety
/// The CPU must support AVX-512F, AVX2 and FMA (the caller checks [`widest_vectors`]
/// first). The body is safe code; only the instruction set it is compiled for needs the
/// check.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn rho_group_in_frame_avx512<E: RunEpilogue, F: Fn(usize) -> E>(
    rows: &DataRows,
    group: (&[f64], &[f64], &[f64]),
    first_row: usize,
    start: usize,
    out: &mut [f64],
    epilogue_for: &F,
) {
    rows.rho_group_in_frame_portable::<2, _, _>(group, first_row, start, out, epilogue_for);
}

/// `acc[j] = Σ_k (xa[k] − xt[k·stride + start + j])²` for `j < acc.len()`, summed in coordinate
/// order (the same operations as [`squared_distance`](super::rows::squared_distance) for every pair), vectorised over
/// `j`: lanes of 16 points, then of 4, then single points are accumulated in registers over all
/// coordinates. `xt` holds points transposed with row stride `stride`.
#[inline(always)]
pub(super) fn squared_distances_to_transposed(
    xa: &[f64],
    xt: &[f64],
    stride: usize,
    start: usize,
    acc: &mut [f64],
) {
    for_lanes(xa, xt, stride, start, acc, |s, out| out.copy_from_slice(s));
}

/// `out[j] = ρ(marked(d2_j))` with `d2_j` the squared distance of
/// [`squared_distances_to_transposed`] and `marked` turning one below the normal range into
/// NaN ([`mark_lost`]): the squared distances and ρ in one pass, ρ
/// taken while the sums are still in registers (so that ρ's latency, a square root for the
/// standard energy distance, overlaps the next lanes' sums). The same values as the squared
/// distances followed by a separate pass of ρ.
#[inline(always)]
pub(super) fn rho_of_differences_to_transposed<R: RhoOfSquared>(
    xa: &[f64],
    xt: &[f64],
    stride: usize,
    start: usize,
    out: &mut [f64],
    rho: R,
) {
    let finish = |s: &[f64], out: &mut [f64]| {
        for (o, &v) in out.iter_mut().zip(s) {
            *o = rho.rho(mark_lost(v));
        }
    };
    // Software pipelined over groups of 16 points: ρ of the previous group is taken a
    // quarter at a time between quarters of the coordinates of the next group's sums, so
    // that a slow ρ (the square root unit takes several cycles per vector) runs beside the
    // sums instead of after them. Each sum is still taken in coordinate order.
    let dim = xa.len();
    let groups = out.len() / 16;
    let (grouped, rest) = out.split_at_mut(groups * 16);
    let mut chunks = grouped.chunks_exact_mut(16);
    if let Some(mut pending_out) = chunks.next() {
        let mut pending = lanes::<16>(xa, xt, stride, start);
        let mut j = start + 16;
        for next_out in chunks {
            let mut s = [0.0f64; 16];
            for q in 0..4 {
                add_squares(&mut s, xa, xt, stride, j, q * dim / 4..(q + 1) * dim / 4);
                finish(
                    &pending[4 * q..4 * q + 4],
                    &mut pending_out[4 * q..4 * q + 4],
                );
            }
            pending = s;
            pending_out = next_out;
            j += 16;
        }
        finish(&pending, pending_out);
    }
    for_lanes(xa, xt, stride, start + groups * 16, rest, finish);
}

/// `s[l] += Σ_{k ∈ coordinates} (xa[k] − xt[k·stride + j + l])²`, in coordinate order, each
/// square added by a fused multiply-add.
#[inline(always)]
fn add_squares<const L: usize>(
    s: &mut [f64; L],
    xa: &[f64],
    xt: &[f64],
    stride: usize,
    j: usize,
    coordinates: std::ops::Range<usize>,
) {
    for k in coordinates {
        let u = xa[k];
        let col = &xt[k * stride + j..k * stride + j + L];
        for (sl, &v) in s.iter_mut().zip(col) {
            let d = u - v;
            *sl = d.mul_add(d, *sl);
        }
    }
}

/// The squared distances of [`squared_distances_to_transposed`] in lanes of 16, then 4, then
/// single points, each lane's sums handed to `finish(sums, out)` with the run's `out` for
/// those points.
#[inline(always)]
fn for_lanes<F: FnMut(&[f64], &mut [f64])>(
    xa: &[f64],
    xt: &[f64],
    stride: usize,
    start: usize,
    out: &mut [f64],
    mut finish: F,
) {
    let mut wide = out.chunks_exact_mut(16);
    let mut j = start;
    for out in &mut wide {
        finish(&lanes::<16>(xa, xt, stride, j), out);
        j += 16;
    }
    let mut narrow = wide.into_remainder().chunks_exact_mut(4);
    for out in &mut narrow {
        finish(&lanes::<4>(xa, xt, stride, j), out);
        j += 4;
    }
    for out in narrow.into_remainder().chunks_exact_mut(1) {
        finish(&lanes::<1>(xa, xt, stride, j), out);
        j += 1;
    }
}

/// `Σ_k (xa[k] − xt[k·stride + j + l])²` for the `L` points `l < L` from `j`.
#[inline(always)]
fn lanes<const L: usize>(xa: &[f64], xt: &[f64], stride: usize, j: usize) -> [f64; L] {
    let mut s = [0.0f64; L];
    add_squares(&mut s, xa, xt, stride, j, 0..xa.len());
    s
}

/// `out[r·out_stride + j] = Σ_k xa[k·R + r] · xt[k·stride + start + j]` for `r < R`,
/// `j < len`: the dot products of `R` points (`xa`, interleaved coordinate-major) with a run of
/// transposed points, each summed in coordinate order with one accumulator per pair (so a pair
/// gets the same bits for any `R` and lane width). Lanes of `L` points, then of 4, then single
/// points are accumulated in registers over all coordinates; every load of `xt` serves `R`
/// points.
#[allow(clippy::too_many_arguments)] // a run of a transposed block into rows of a tile
#[inline(always)]
pub(super) fn dots_to_transposed<const R: usize, const L: usize>(
    xa: &[f64],
    xt: &[f64],
    stride: usize,
    start: usize,
    len: usize,
    out: &mut [f64],
    out_stride: usize,
) {
    let mut j = 0;
    while j + L <= len {
        dot_lanes::<R, L>(xa, xt, stride, start + j, out, out_stride, j);
        j += L;
    }
    while j + 4 <= len {
        dot_lanes::<R, 4>(xa, xt, stride, start + j, out, out_stride, j);
        j += 4;
    }
    while j < len {
        dot_lanes::<R, 1>(xa, xt, stride, start + j, out, out_stride, j);
        j += 1;
    }
}

/// `out[r·out_stride + at + l] = Σ_k xa[k·R + r] · xt[k·stride + j + l]` for `r < R`, `l < L`.
#[allow(clippy::too_many_arguments)] // see `dots_to_transposed`
#[inline(always)]
fn dot_lanes<const R: usize, const L: usize>(
    xa: &[f64],
    xt: &[f64],
    stride: usize,
    j: usize,
    out: &mut [f64],
    out_stride: usize,
    at: usize,
) {
    let mut s = [[0.0f64; L]; R];
    for (k, u) in xa.chunks_exact(R).enumerate() {
        let col = &xt[k * stride + j..k * stride + j + L];
        for (sr, &ur) in s.iter_mut().zip(u) {
            for (sl, &v) in sr.iter_mut().zip(col) {
                *sl = ur.mul_add(v, *sl);
            }
        }
    }
    for (r, sr) in s.iter().enumerate() {
        out[r * out_stride + at..r * out_stride + at + L].copy_from_slice(sr);
    }
}

/// `dots[p][r][l] = Σ_k xa[k·R + r] · panels[p·L·D + k·L + l]`: the dot products of `R` points
/// (`xa`, interleaved coordinate-major, D coordinates) with the `L` points of each of `P`
/// consecutive panels (each coordinate-major), each summed in coordinate order with one
/// accumulator per pair, as [`dots_to_transposed`] sums it (so the values do not depend on
/// `P`).
#[inline(always)]
pub(super) fn dot_panels<const R: usize, const L: usize, const P: usize>(
    xa: &[f64],
    panels: &[f64],
) -> [[[f64; L]; R]; P] {
    let mut s = [[[0.0f64; L]; R]; P];
    let panel_len = panels.len() / P;
    for (k, u) in xa.chunks_exact(R).enumerate() {
        for (sp, panel) in s.iter_mut().zip(panels.chunks_exact(panel_len)) {
            let col = &panel[k * L..(k + 1) * L];
            for (sr, &ur) in sp.iter_mut().zip(u) {
                for (sl, &v) in sr.iter_mut().zip(col) {
                    *sl = ur.mul_add(v, *sl);
                }
            }
        }
    }
    s
}
