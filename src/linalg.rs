//! Dense linear algebra used across the crate, by [faer]: the eigen-decomposition of a
//! symmetric matrix, and for the Krylov method of [`crate::spectral`] the products and the
//! orthonormalisation of tall, thin blocks of columns.
//!
//! faer is built without its thread pool, so each of its routines runs on the calling thread
//! and gives the same bits every time. Tall blocks (`n × b`, `n` the points, `b` small) are
//! stored column-major, as faer stores them; the products over their rows (`Xᵀ Y`) are taken
//! in fixed chunks of rows in parallel, and the chunks' partial sums are added in chunk
//! order, so every result is the same for any number of threads.

use crate::error::{try_filled, KGroupsError, Result};
use crate::Control;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

/// Rows of a tall block in one chunk of [`transpose_times`] and [`times_small`] (fixed, so
/// that the order of the additions, and with it the result, does not depend on the number of
/// threads).
const ROWS_PER_CHUNK: usize = 1024;

/// Eigenvalues and eigenvectors of the symmetric `d × d` matrix `a` (row-major):
/// `(values, vectors)` with the values in descending order and column `j` of `vectors`
/// (row-major `d × d`, `vectors[i * d + j]`) the unit eigenvector of `values[j]`. Each
/// eigenvector's entry of largest magnitude (the first such) is positive, so the result is
/// unique where the eigenvalues are distinct. By faer's divide-and-conquer method on the
/// tridiagonal reduction (`O(d³)`, accurate to a few units of rounding relative to the
/// matrix's norm); deterministic.
///
/// `a` is symmetrised (`(a + aᵀ) / 2`) first. Errors when `a` does not have `d × d`
/// entries, holds NaN or infinity, or is clearly not symmetric (an entry differs from its
/// mirror by more than `1e-8` of the largest entry); with [`KGroupsError::Interrupted`]
/// when `control` is cancelled (checked before the decomposition and while the matrix is
/// checked).
///
/// ```
/// use kgroups::linalg::symmetric_eigen;
/// use kgroups::Control;
/// // [[2, 1], [1, 2]]: eigenvalues 3 and 1, eigenvectors (1, 1)/√2 and (1, −1)/√2.
/// let (values, vectors) = symmetric_eigen(&[2.0, 1.0, 1.0, 2.0], 2, &Control::new())?;
/// assert!((values[0] - 3.0).abs() < 1e-12 && (values[1] - 1.0).abs() < 1e-12);
/// let h = 0.5f64.sqrt();
/// assert!((vectors[0] - h).abs() < 1e-12 && (vectors[2] - h).abs() < 1e-12); // column 0
/// assert!((vectors[1].abs() - h).abs() < 1e-12);
/// assert!((vectors[1] + vectors[3]).abs() < 1e-12); // column 1: (1, −1)/√2 up to sign
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn symmetric_eigen(a: &[f64], d: usize, control: &Control) -> Result<(Vec<f64>, Vec<f64>)> {
    let (values, vectors) = decompose(a, d, true, control)?;
    Ok((values, vectors.unwrap_or_default()))
}

/// The eigenvalues of [`symmetric_eigen`] alone (the same checks), cheaper for a large
/// matrix: no eigenvectors are accumulated.
pub(crate) fn symmetric_eigenvalues(a: &[f64], d: usize, control: &Control) -> Result<Vec<f64>> {
    Ok(decompose(a, d, false, control)?.0)
}

/// [`symmetric_eigen`], with the eigenvectors only when `with_vectors`.
fn decompose(
    a: &[f64],
    d: usize,
    with_vectors: bool,
    control: &Control,
) -> Result<(Vec<f64>, Option<Vec<f64>>)> {
    let m = checked_symmetric(a, d, control)?;
    if d == 0 {
        return Ok((vec![], Some(vec![])));
    }
    control.checkpoint()?;
    let compute = if with_vectors {
        ComputeEigenvectors::Yes
    } else {
        ComputeEigenvectors::No
    };
    let mut s = try_filled(d, 0.0, "a", "the eigenvalues")?;
    let mut u = try_filled(
        if with_vectors { d * d } else { 0 },
        0.0,
        "a",
        "the eigenvectors",
    )?;
    let scratch = evd::self_adjoint_evd_scratch::<f64>(d, compute, Par::Seq, Default::default());
    let mut buffer = MemBuffer::try_new(scratch).map_err(|_| {
        crate::error::out_of_memory::<u8>(
            scratch.unaligned_bytes_required(),
            "a",
            "the eigen-decomposition's workspace",
        )
    })?;
    evd::self_adjoint_evd(
        // Symmetric: the row-major matrix read column-major is the same matrix.
        MatRef::from_column_major_slice(&m, d, d),
        faer::ColMut::from_slice_mut(&mut s).as_diagonal_mut(),
        with_vectors.then(|| MatMut::from_column_major_slice_mut(&mut u, d, d)),
        Par::Seq,
        MemStack::new(&mut buffer),
        Default::default(),
    )
    .map_err(|e| KGroupsError::Internal(format!("the eigen-decomposition failed: {e:?}")))?;
    // faer gives the values ascending and column j of `u` (column-major) for value j;
    // descending by a stable sort, so that equal values keep faer's order.
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&x, &y| s[y].total_cmp(&s[x]));
    let values = order.iter().map(|&j| s[j]).collect();
    if !with_vectors {
        return Ok((values, None));
    }
    let mut vectors = try_filled(d * d, 0.0, "a", "the eigenvectors")?;
    for (new, &old) in order.iter().enumerate() {
        let column = &u[old * d..(old + 1) * d];
        let peak = (0..d).fold(0, |best, i| {
            if column[i].abs() > column[best].abs() {
                i
            } else {
                best
            }
        });
        let sign = if column[peak] < 0.0 { -1.0 } else { 1.0 };
        for (i, &x) in column.iter().enumerate() {
            vectors[i * d + new] = sign * x;
        }
    }
    Ok((values, Some(vectors)))
}

/// `a` (`d × d`, row-major) checked as [`symmetric_eigen`] checks it and symmetrised.
fn checked_symmetric(a: &[f64], d: usize, control: &Control) -> Result<Vec<f64>> {
    let len = d.checked_mul(d).filter(|&len| len == a.len());
    if len.is_none() {
        return Err(KGroupsError::invalid(
            "a",
            format!(
                "expected a {d} × {d} matrix ({} values), got {} values",
                d.saturating_mul(d),
                a.len()
            ),
        ));
    }
    if let Some(p) = a.iter().position(|v| !v.is_finite()) {
        return Err(KGroupsError::invalid(
            "a",
            format!(
                "the matrix contains NaN or infinity (row {}, column {})",
                p / d,
                p % d
            ),
        ));
    }
    let largest = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut m = try_filled(d * d, 0.0, "a", "the work matrix")?;
    for i in 0..d {
        control.checkpoint()?;
        for j in 0..d {
            let (x, y) = (a[i * d + j], a[j * d + i]);
            if (x - y).abs() > 1e-8 * largest {
                return Err(KGroupsError::invalid(
                    "a",
                    format!("the matrix is not symmetric: a[{i}, {j}] = {x} but a[{j}, {i}] = {y}"),
                ));
            }
            m[i * d + j] = 0.5 * x + 0.5 * y;
        }
    }
    Ok(m)
}

/// `Xᵀ Y` (`bx × by`, column-major) for the tall blocks `x` (`n × bx`) and `y` (`n × by`),
/// both column-major: fixed chunks of rows in parallel, their partial products added in
/// chunk order (the same result for any number of threads).
pub(crate) fn transpose_times(x: MatRef<'_, f64>, y: MatRef<'_, f64>) -> Result<Vec<f64>> {
    let (n, bx, by) = (x.nrows(), x.ncols(), y.ncols());
    debug_assert_eq!(y.nrows(), n);
    let mut total = try_filled(bx * by, 0.0, "count", "a block product")?;
    if n == 0 || bx == 0 || by == 0 {
        return Ok(total);
    }
    let starts: Vec<usize> = (0..n).step_by(ROWS_PER_CHUNK).collect();
    let partials: Vec<Vec<f64>> = starts
        .par_iter()
        .map(|&start| {
            let rows = ROWS_PER_CHUNK.min(n - start);
            let mut part = vec![0.0; bx * by];
            matmul(
                MatMut::from_column_major_slice_mut(&mut part, bx, by),
                Accum::Replace,
                x.subrows(start, rows).transpose(),
                y.subrows(start, rows),
                1.0,
                Par::Seq,
            );
            part
        })
        .collect();
    for part in &partials {
        total.iter_mut().zip(part).for_each(|(t, p)| *t += p);
    }
    Ok(total)
}

/// `X C` (`n × bc`, column-major) for the tall block `x` (`n × bx`) and the small `c`
/// (`bx × bc`), both column-major; each chunk of rows by one task (each entry is computed
/// the same way whatever the number of threads).
pub(crate) fn times_small(x: MatRef<'_, f64>, c: MatRef<'_, f64>) -> Result<Vec<f64>> {
    let (n, bc) = (x.nrows(), c.ncols());
    debug_assert_eq!(x.ncols(), c.nrows());
    let mut out = try_filled(n.saturating_mul(bc), 0.0, "count", "a block product")?;
    if n == 0 || bc == 0 {
        return Ok(out);
    }
    let mut view = MatMut::from_column_major_slice_mut(&mut out, n, bc);
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < n {
        let rows = ROWS_PER_CHUNK.min(n - start);
        let (chunk, rest) = view.split_at_row_mut(rows);
        chunks.push((start, chunk));
        view = rest;
        start += rows;
    }
    chunks.into_par_iter().for_each(|(start, chunk)| {
        let rows = chunk.nrows();
        matmul(
            chunk,
            Accum::Replace,
            x.subrows(start, rows),
            c,
            1.0,
            Par::Seq,
        );
    });
    Ok(out)
}

/// `y ← y − Q (Qᵀ y)` for the tall `q` and `y` (column-major, `n` rows each).
fn project_out(q: MatRef<'_, f64>, y: &mut [f64], by: usize) -> Result<()> {
    let n = q.nrows();
    if q.ncols() == 0 || by == 0 {
        return Ok(());
    }
    let coefficients = transpose_times(q, MatRef::from_column_major_slice(y, n, by))?;
    let correction = times_small(
        q,
        MatRef::from_column_major_slice(&coefficients, q.ncols(), by),
    )?;
    y.par_iter_mut()
        .zip(correction.par_iter())
        .for_each(|(v, c)| *v -= c);
    Ok(())
}

/// Orthonormalises the columns of the tall block `block` (`n × b`, column-major) in place,
/// keeping the span of each leading set of columns (as Gram–Schmidt would), and makes them
/// orthogonal to the `n × m` `basis` (column-major, orthonormal columns): the block is
/// projected against the basis and factored by Householder QR, twice (which leaves it
/// orthonormal and orthogonal to the basis to rounding), the signs chosen so that `R` has a
/// non-negative diagonal. A column that depends (numerically) on the basis and the columns
/// before it (its part outside their span is at most 10⁻¹⁰ of its norm) is replaced by
/// another direction (from a fixed sequence of pseudo-random vectors), so the result always
/// has `b` orthonormal columns; returns how many were replaced. Errors when the block holds NaN or infinity or the basis and the
/// block together have more than `n` columns.
pub(crate) fn orthonormalize_against(
    basis: MatRef<'_, f64>,
    block: &mut [f64],
    b: usize,
) -> Result<usize> {
    let n = basis.nrows();
    debug_assert_eq!(block.len(), n * b);
    if basis.ncols() + b > n {
        return Err(KGroupsError::invalid(
            "block",
            format!(
                "{} columns cannot be orthonormal in dimension n = {n}",
                basis.ncols() + b
            ),
        ));
    }
    if b == 0 {
        return Ok(0);
    }
    if block.iter().any(|v| !v.is_finite()) {
        return Err(KGroupsError::invalid(
            "block",
            "the block contains NaN or infinity",
        ));
    }
    let mut replaced = 0;
    let mut replacement_seed = 0u64;
    loop {
        let norms: Vec<f64> = block.chunks_exact(n).map(norm).collect();
        let mut work = try_filled(n * b, 0.0, "count", "the orthonormalised block")?;
        work.copy_from_slice(block);
        project_out(basis, &mut work, b)?;
        let r_diagonal = qr_in_place(&mut work, n, b);
        // The first column whose part outside the span of the basis and the columns before
        // it is rounding-sized depends on them: it is replaced by another direction and the
        // block factored again (the columns after it are read only then).
        let dependent = (0..b).find(|&j| norms[j] == 0.0 || r_diagonal[j] <= 1e-10 * norms[j]);
        let Some(j) = dependent else {
            project_out(basis, &mut work, b)?;
            qr_in_place(&mut work, n, b);
            block.copy_from_slice(&work);
            return Ok(replaced);
        };
        if replacement_seed > 64 + b as u64 {
            return Err(KGroupsError::Internal(
                "no direction orthogonal to the basis was found".into(),
            ));
        }
        let mut rng = crate::rng::Rng::new(replacement_seed);
        replacement_seed += 1;
        block[j * n..(j + 1) * n]
            .iter_mut()
            .for_each(|c| *c = rng.next_f64() - 0.5);
        replaced += 1;
    }
}

/// Replaces the `n × b` column-major `block` by the `Q` of its thin Householder QR, signed
/// so that `R` has a non-negative diagonal, and returns `|R_jj|`.
fn qr_in_place(block: &mut [f64], n: usize, b: usize) -> Vec<f64> {
    let qr = MatRef::from_column_major_slice(block, n, b).qr();
    let r = qr.thin_R();
    let diagonal: Vec<f64> = (0..b).map(|j| r[(j, j)]).collect();
    let q = qr.compute_thin_Q();
    for (j, &rjj) in diagonal.iter().enumerate() {
        let sign = if rjj < 0.0 { -1.0 } else { 1.0 };
        for (i, out) in block[j * n..(j + 1) * n].iter_mut().enumerate() {
            *out = sign * q[(i, j)];
        }
    }
    diagonal.iter().map(|d| d.abs()).collect()
}

/// Euclidean norm, scaled so that no square overflows or underflows needlessly.
pub(crate) fn norm(v: &[f64]) -> f64 {
    let scale = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return scale;
    }
    scale * v.iter().map(|x| (x / scale).powi(2)).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests;
