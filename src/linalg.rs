//! Small dense linear algebra used across the crate: the eigen-decomposition of a small
//! symmetric matrix (cyclic Jacobi) and the orthonormalisation of a tall, thin block of
//! columns (classical Gram–Schmidt applied twice), with the products between tall blocks
//! and small matrices they need.
//!
//! Tall blocks are `n × b` matrices stored row-major (`block[i * b + j]` is row `i`, column
//! `j`), with `n` large (the points) and `b` small. The reductions over rows (`Xᵀ Y`) sum
//! fixed chunks of rows in parallel and add the chunks' partial sums in chunk order, so every
//! result is the same for any number of threads.

use crate::error::{try_filled, KGroupsError, Result};
use crate::Control;
use rayon::prelude::*;

/// Rows of a tall block summed by one task in the reductions (fixed, so that the order of the
/// additions, and with it the result, does not depend on the number of threads).
const ROWS_PER_CHUNK: usize = 512;

/// Jacobi sweeps before giving up on the last, negligible, off-diagonal entries.
const MAX_SWEEPS: usize = 80;

/// Eigenvalues and eigenvectors of the symmetric `d × d` matrix `a` (row-major), by the
/// cyclic Jacobi method: `(values, vectors)` with the values in descending order and
/// column `j` of `vectors` (row-major `d × d`, `vectors[i * d + j]`) the unit eigenvector of
/// `values[j]`. Each eigenvector's entry of largest magnitude (the first such) is positive,
/// so the result is unique where the eigenvalues are distinct. Deterministic; accurate to a
/// few units of rounding relative to the matrix's norm.
///
/// `a` is symmetrised (`(a + aᵀ) / 2`) first. Errors when `a` does not have `d × d`
/// entries, holds NaN or infinity, or is clearly not symmetric (an entry differs from its
/// mirror by more than `1e-8` of the largest entry).
///
/// ```
/// use kgroups::linalg::symmetric_eigen;
/// // [[2, 1], [1, 2]]: eigenvalues 3 and 1, eigenvectors (1, 1)/√2 and (1, −1)/√2.
/// let (values, vectors) = symmetric_eigen(&[2.0, 1.0, 1.0, 2.0], 2)?;
/// assert!((values[0] - 3.0).abs() < 1e-12 && (values[1] - 1.0).abs() < 1e-12);
/// let h = 0.5f64.sqrt();
/// assert!((vectors[0] - h).abs() < 1e-12 && (vectors[2] - h).abs() < 1e-12); // column 0
/// assert!((vectors[1].abs() - h).abs() < 1e-12);
/// assert!((vectors[1] + vectors[3]).abs() < 1e-12); // column 1: (1, −1)/√2 up to sign
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn symmetric_eigen(a: &[f64], d: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    symmetric_eigen_with(a, d, &Control::new())
}

/// [`symmetric_eigen`] that stops with [`KGroupsError::Interrupted`] when `control` is
/// cancelled: checked before every row of every Jacobi sweep (`O(d²)` work apart), so that
/// the `O(d³)` sweeps of a large matrix hear Ctrl-C at once.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use kgroups::linalg::symmetric_eigen_with;
/// use kgroups::{Control, KGroupsError};
/// let cancel = AtomicBool::new(true);
/// let control = Control::new().with_cancel(&cancel);
/// let err = symmetric_eigen_with(&[2.0, 1.0, 1.0, 2.0], 2, &control).unwrap_err();
/// assert_eq!(err, KGroupsError::Interrupted);
/// ```
pub fn symmetric_eigen_with(
    a: &[f64],
    d: usize,
    control: &Control,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let mut m = checked_symmetric(a, d)?;
    let mut v = try_filled(d * d, 0.0, "a", "the eigenvectors")?;
    for i in 0..d {
        v[i * d + i] = 1.0;
    }
    jacobi(&mut m, &mut v, d, control)?;

    let mut order: Vec<usize> = (0..d).collect();
    // Descending; a stable sort keeps equal eigenvalues in the order Jacobi left them.
    order.sort_by(|&x, &y| m[y * d + y].total_cmp(&m[x * d + x]));
    let values: Vec<f64> = order.iter().map(|&j| m[j * d + j]).collect();
    let mut vectors = try_filled(d * d, 0.0, "a", "the eigenvectors")?;
    for (new, &old) in order.iter().enumerate() {
        let column = |i: usize| v[i * d + old];
        let peak = (0..d).fold(0, |best, i| {
            if column(i).abs() > column(best).abs() {
                i
            } else {
                best
            }
        });
        let sign = if column(peak) < 0.0 { -1.0 } else { 1.0 };
        for i in 0..d {
            vectors[i * d + new] = sign * column(i);
        }
    }
    Ok((values, vectors))
}

/// Implicit QL iterations on one unreduced block before giving up on an eigenvalue (a
/// handful suffice in practice: the shifts converge cubically).
const MAX_QL_ITERATIONS: usize = 60;

/// [`symmetric_eigen_with`]'s result (the same checks on `a`, the same order and sign
/// convention) by Householder reduction to tridiagonal form and the implicit QL method with
/// Wilkinson-type shifts (the EISPACK `tred2`/`tql2` pair): about `9 d³` operations in all
/// instead of the Jacobi method's `~4 d³` per sweep over several sweeps, for the larger
/// matrices where that matters. Accurate to a few units of rounding relative to the
/// matrix's norm (not relative to each eigenvalue, as Jacobi can be for tiny ones). Checks
/// `control` before every Householder step and every QL iteration (each `O(d²)`). Errors
/// with [`KGroupsError::Internal`] if an eigenvalue does not converge within 60 iterations
/// (not seen in practice).
///
/// ```
/// use kgroups::linalg::symmetric_eigen_tridiagonal_with;
/// use kgroups::Control;
/// // [[2, 1], [1, 2]]: eigenvalues 3 and 1, eigenvectors (1, 1)/√2 and (1, −1)/√2.
/// let (values, vectors) =
///     symmetric_eigen_tridiagonal_with(&[2.0, 1.0, 1.0, 2.0], 2, &Control::new())?;
/// assert!((values[0] - 3.0).abs() < 1e-12 && (values[1] - 1.0).abs() < 1e-12);
/// let h = 0.5f64.sqrt();
/// assert!((vectors[0] - h).abs() < 1e-12 && (vectors[2] - h).abs() < 1e-12); // column 0
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn symmetric_eigen_tridiagonal_with(
    a: &[f64],
    d: usize,
    control: &Control,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let mut v = checked_symmetric(a, d)?;
    let mut values = try_filled(d, 0.0, "a", "the eigenvalues")?;
    let mut off = try_filled(d, 0.0, "a", "the tridiagonal form")?;
    if d == 0 {
        return Ok((values, v));
    }
    householder_tridiagonal(&mut v, &mut values, &mut off, d, control)?;
    // The QL rotations act on the columns of V: on rows of its transpose, contiguously.
    let mut vt = try_filled(d * d, 0.0, "a", "the eigenvectors")?;
    for i in 0..d {
        for j in 0..d {
            vt[j * d + i] = v[i * d + j];
        }
    }
    drop(v);
    tridiagonal_ql(&mut values, &mut off, &mut vt, d, control)?;
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&x, &y| values[y].total_cmp(&values[x]));
    let sorted: Vec<f64> = order.iter().map(|&j| values[j]).collect();
    let mut vectors = try_filled(d * d, 0.0, "a", "the eigenvectors")?;
    for (new, &old) in order.iter().enumerate() {
        let row = &vt[old * d..(old + 1) * d];
        let peak = (0..d).fold(0, |best, i| {
            if row[i].abs() > row[best].abs() {
                i
            } else {
                best
            }
        });
        let sign = if row[peak] < 0.0 { -1.0 } else { 1.0 };
        for (i, x) in row.iter().enumerate() {
            vectors[i * d + new] = sign * x;
        }
    }
    Ok((sorted, vectors))
}

/// `a` (`d × d`, row-major) checked as [`symmetric_eigen_with`] checks it and symmetrised.
fn checked_symmetric(a: &[f64], d: usize) -> Result<Vec<f64>> {
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
        for j in 0..d {
            let (x, y) = (a[i * d + j], a[j * d + i]);
            if (x - y).abs() > 1e-8 * largest {
                return Err(KGroupsError::invalid(
                    "a",
                    format!("the matrix is not symmetric: a[{i}, {j}] = {x} but a[{j}, {i}] = {y}"),
                ));
            }
            m[i * d + j] = 0.5 * (x + y);
        }
    }
    Ok(m)
}

/// Householder reduction of the symmetric `v` (row-major `d × d`, `d ≥ 1`) to tridiagonal
/// form (EISPACK `tred2`): on return `diagonal` and `off` (`off[i]` the entry at
/// `(i, i − 1)`, `off[0] = 0`) hold the tridiagonal matrix and `v` the orthogonal `Q` with
/// `a = Q T Qᵀ`.
#[allow(clippy::needless_range_loop)] // the reflections index rows and columns together
fn householder_tridiagonal(
    v: &mut [f64],
    diagonal: &mut [f64],
    off: &mut [f64],
    d: usize,
    control: &Control,
) -> Result<()> {
    let at = |i: usize, j: usize| i * d + j;
    for j in 0..d {
        diagonal[j] = v[at(d - 1, j)];
    }
    for i in (1..d).rev() {
        control.checkpoint()?;
        let scale: f64 = diagonal[..i].iter().map(|x| x.abs()).sum();
        let mut h = 0.0;
        if scale == 0.0 {
            off[i] = diagonal[i - 1];
            for j in 0..i {
                diagonal[j] = v[at(i - 1, j)];
                v[at(i, j)] = 0.0;
                v[at(j, i)] = 0.0;
            }
        } else {
            for k in 0..i {
                diagonal[k] /= scale;
                h += diagonal[k] * diagonal[k];
            }
            let f = diagonal[i - 1];
            let g = if f > 0.0 { -h.sqrt() } else { h.sqrt() };
            off[i] = scale * g;
            h -= f * g;
            diagonal[i - 1] = f - g;
            off[..i].fill(0.0);
            for j in 0..i {
                let f = diagonal[j];
                v[at(j, i)] = f;
                let mut g = off[j] + v[at(j, j)] * f;
                for k in j + 1..i {
                    g += v[at(k, j)] * diagonal[k];
                    off[k] += v[at(k, j)] * f;
                }
                off[j] = g;
            }
            let mut f = 0.0;
            for j in 0..i {
                off[j] /= h;
                f += off[j] * diagonal[j];
            }
            let hh = f / (h + h);
            for j in 0..i {
                off[j] -= hh * diagonal[j];
            }
            for j in 0..i {
                let (f, g) = (diagonal[j], off[j]);
                for k in j..i {
                    v[at(k, j)] -= f * off[k] + g * diagonal[k];
                }
                diagonal[j] = v[at(i - 1, j)];
                v[at(i, j)] = 0.0;
            }
        }
        diagonal[i] = h;
    }
    // Accumulate the transformations.
    for i in 0..d - 1 {
        control.checkpoint()?;
        v[at(d - 1, i)] = v[at(i, i)];
        v[at(i, i)] = 1.0;
        let h = diagonal[i + 1];
        if h != 0.0 {
            for k in 0..=i {
                diagonal[k] = v[at(k, i + 1)] / h;
            }
            for j in 0..=i {
                let mut g = 0.0;
                for k in 0..=i {
                    g += v[at(k, i + 1)] * v[at(k, j)];
                }
                for k in 0..=i {
                    v[at(k, j)] -= g * diagonal[k];
                }
            }
        }
        for k in 0..=i {
            v[at(k, i + 1)] = 0.0;
        }
    }
    for j in 0..d {
        diagonal[j] = v[at(d - 1, j)];
        v[at(d - 1, j)] = 0.0;
    }
    v[at(d - 1, d - 1)] = 1.0;
    off[0] = 0.0;
    Ok(())
}

/// The implicit QL method on the symmetric tridiagonal matrix (`diagonal`, `off` as
/// [`householder_tridiagonal`] leaves them; EISPACK `tql2`), accumulating the rotations into
/// the rows of `vt` (the transpose of the `Q` that reduced the matrix): on return
/// `diagonal` holds the eigenvalues (unsorted) and row `j` of `vt` the unit eigenvector of
/// `diagonal[j]`.
fn tridiagonal_ql(
    diagonal: &mut [f64],
    off: &mut [f64],
    vt: &mut [f64],
    d: usize,
    control: &Control,
) -> Result<()> {
    for i in 1..d {
        off[i - 1] = off[i];
    }
    off[d - 1] = 0.0;
    let mut shift_total = 0.0;
    let mut largest = 0.0f64;
    for l in 0..d {
        largest = largest.max(diagonal[l].abs() + off[l].abs());
        // The first negligible off-diagonal entry at or after l (off[d − 1] = 0 always is).
        let mut m = l;
        while m < d - 1 && off[m].abs() > f64::EPSILON * largest {
            m += 1;
        }
        // m > l: the block l..=m is unreduced; iterate until off[l] is negligible.
        let mut converged = m == l;
        for _ in 0..MAX_QL_ITERATIONS {
            if converged {
                break;
            }
            control.checkpoint()?;
            // The shift: the eigenvalue of the leading 2 × 2 block nearer diagonal[l].
            let g = diagonal[l];
            let mut p = (diagonal[l + 1] - g) / (2.0 * off[l]);
            let mut r = p.hypot(1.0);
            if p < 0.0 {
                r = -r;
            }
            diagonal[l] = off[l] / (p + r);
            diagonal[l + 1] = off[l] * (p + r);
            let next = diagonal[l + 1];
            let mut h = g - diagonal[l];
            for x in &mut diagonal[l + 2..] {
                *x -= h;
            }
            shift_total += h;
            // The implicit QL step, rotations from the bottom of the block up.
            p = diagonal[m];
            let (mut c, mut c2, mut c3) = (1.0, 1.0, 1.0);
            let first_off = off[l + 1];
            let (mut s, mut s2) = (0.0, 0.0);
            for i in (l..m).rev() {
                c3 = c2;
                c2 = c;
                s2 = s;
                let g = c * off[i];
                h = c * p;
                r = p.hypot(off[i]);
                off[i + 1] = s * r;
                s = off[i] / r;
                c = p / r;
                p = c * diagonal[i] - s * g;
                diagonal[i + 1] = h + s * (c * g + s * diagonal[i]);
                let (upper, lower) = vt.split_at_mut((i + 1) * d);
                let row_i = &mut upper[i * d..];
                let row_next = &mut lower[..d];
                for (x, y) in row_i.iter_mut().zip(row_next.iter_mut()) {
                    let (vi, vn) = (*x, *y);
                    *y = s * vi + c * vn;
                    *x = c * vi - s * vn;
                }
            }
            p = -s * s2 * c3 * first_off * off[l] / next;
            off[l] = s * p;
            diagonal[l] = c * p;
            converged = off[l].abs() <= f64::EPSILON * largest;
        }
        if !converged {
            return Err(KGroupsError::Internal(format!(
                "the QL iteration for eigenvalue {l} of a {d} × {d} matrix did not converge"
            )));
        }
        diagonal[l] += shift_total;
        off[l] = 0.0;
    }
    Ok(())
}

/// Cyclic Jacobi rotations on the symmetric `m` (row-major `d × d`) until its off-diagonal
/// entries are negligible, accumulating the rotations into `v`'s columns: on return `m` is
/// (numerically) diagonal and `a = v m vᵀ` for the `m` given. Checks `control` before every
/// row of a sweep.
#[allow(clippy::needless_range_loop)] // rotations index two rows and two columns at once
fn jacobi(m: &mut [f64], v: &mut [f64], d: usize, control: &Control) -> Result<()> {
    // The Frobenius norm is invariant under the rotations: entries below `floor` are zero
    // for every purpose (their total effect on any eigenvalue is below d · floor).
    let frobenius = m.iter().map(|x| x * x).sum::<f64>().sqrt();
    let floor = frobenius * f64::EPSILON * 1e-3;
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..d {
            control.checkpoint()?;
            for q in p + 1..d {
                let apq = m[p * d + q];
                let (app, aqq) = (m[p * d + p], m[q * d + q]);
                // Negligible beside both diagonal entries (relative accuracy) or below the
                // absolute floor: leave it.
                if apq.abs() <= floor
                    || apq.abs() <= 0.5 * f64::EPSILON * (app.abs() * aqq.abs()).sqrt()
                {
                    m[p * d + q] = 0.0;
                    m[q * d + p] = 0.0;
                    continue;
                }
                rotated = true;
                // The rotation (c, s) with t = s / c the smaller root of
                // t² + 2θt − 1 = 0, θ = (a_qq − a_pp) / (2 a_pq), zeroes a_pq.
                let theta = (aqq - app) / (2.0 * apq);
                let t = if theta.abs() > 1e150 {
                    0.5 / theta
                } else {
                    theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt())
                };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // m ← Jᵀ m J with J the identity but J_pp = J_qq = c, J_pq = s, J_qp = −s.
                for k in 0..d {
                    let (mkp, mkq) = (m[k * d + p], m[k * d + q]);
                    m[k * d + p] = c * mkp - s * mkq;
                    m[k * d + q] = s * mkp + c * mkq;
                }
                for k in 0..d {
                    let (mpk, mqk) = (m[p * d + k], m[q * d + k]);
                    m[p * d + k] = c * mpk - s * mqk;
                    m[q * d + k] = s * mpk + c * mqk;
                }
                m[p * d + q] = 0.0;
                m[q * d + p] = 0.0;
                for k in 0..d {
                    let (vkp, vkq) = (v[k * d + p], v[k * d + q]);
                    v[k * d + p] = c * vkp - s * vkq;
                    v[k * d + q] = s * vkp + c * vkq;
                }
            }
        }
        if !rotated {
            return Ok(());
        }
    }
    Ok(())
}

/// `Xᵀ Y` (`bx × by`, row-major) for the tall blocks `x` (`n × bx`) and `y` (`n × by`),
/// both row-major. Parallel over fixed chunks of rows, the chunks' sums added in order: the
/// same result for any number of threads. Errors when a block's length is not `n` times its
/// width.
///
/// ```
/// use kgroups::linalg::transpose_times;
/// // x = [[1, 0], [1, 1], [0, 2]] (3 × 2), y = [[1], [2], [3]] (3 × 1): xᵀ y = [3, 8].
/// let xty = transpose_times(&[1.0, 0.0, 1.0, 1.0, 0.0, 2.0], 2, &[1.0, 2.0, 3.0], 1, 3)?;
/// assert_eq!(xty, vec![3.0, 8.0]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn transpose_times(x: &[f64], bx: usize, y: &[f64], by: usize, n: usize) -> Result<Vec<f64>> {
    check_block(x, n, bx, "x")?;
    check_block(y, n, by, "y")?;
    let size = bx * by;
    let mut total = try_filled(size, 0.0, "x", "the product xᵀ y")?;
    if size == 0 || n == 0 {
        return Ok(total);
    }
    let partials: Vec<Vec<f64>> = x
        .par_chunks(ROWS_PER_CHUNK * bx)
        .zip(y.par_chunks(ROWS_PER_CHUNK * by))
        .map(|(xc, yc)| {
            let mut acc = vec![0.0; size];
            for (xr, yr) in xc.chunks_exact(bx).zip(yc.chunks_exact(by)) {
                for (a, &xa) in xr.iter().enumerate() {
                    let row = &mut acc[a * by..(a + 1) * by];
                    for (o, &yb) in row.iter_mut().zip(yr) {
                        *o += xa * yb;
                    }
                }
            }
            acc
        })
        .collect();
    for partial in &partials {
        for (t, p) in total.iter_mut().zip(partial) {
            *t += p;
        }
    }
    Ok(total)
}

/// `X C` (`n × bc`, row-major) for the tall block `x` (`n × bx`) and the small `c`
/// (`bx × bc`), both row-major; each output row is computed by one task (the same result
/// for any number of threads). Errors when a length does not match.
///
/// ```
/// use kgroups::linalg::times_small;
/// // [[1, 2], [3, 4]] · [[1], [1]] = [[3], [7]].
/// assert_eq!(times_small(&[1.0, 2.0, 3.0, 4.0], 2, 2, &[1.0, 1.0], 1)?, vec![3.0, 7.0]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn times_small(x: &[f64], n: usize, bx: usize, c: &[f64], bc: usize) -> Result<Vec<f64>> {
    check_block(x, n, bx, "x")?;
    check_block(c, bx, bc, "c")?;
    let len = n
        .checked_mul(bc)
        .ok_or_else(|| KGroupsError::invalid("c", "the product X C has too many entries"))?;
    let mut out = try_filled(len, 0.0, "x", "the product X C")?;
    if bc == 0 || bx == 0 {
        return Ok(out);
    }
    out.par_chunks_mut(bc)
        .zip(x.par_chunks(bx))
        .for_each(|(o, xr)| {
            for (a, &xa) in xr.iter().enumerate() {
                for (ov, &cv) in o.iter_mut().zip(&c[a * bc..(a + 1) * bc]) {
                    *ov += xa * cv;
                }
            }
        });
    Ok(out)
}

/// Orthonormalises the columns of the tall block `block` (`n × b`, row-major) in place, in
/// order, by classical Gram–Schmidt applied twice (which leaves them orthonormal to
/// rounding). A column that depends (numerically) on those before it is replaced by a unit
/// vector orthogonal to them (from a fixed sequence of pseudo-random vectors, then the
/// coordinate vectors), so the result always has `b` orthonormal columns; returns how many
/// were replaced. Errors when `block.len() != n * b`, `b > n` (no `b` orthonormal columns
/// exist) or the block holds NaN or infinity.
///
/// ```
/// use kgroups::linalg::orthonormalize_columns;
/// // Columns (1, 1, 0) and (2, 2, 0): the second depends on the first and is replaced.
/// let mut block = [1.0, 2.0, 1.0, 2.0, 0.0, 0.0];
/// let replaced = orthonormalize_columns(&mut block, 3, 2)?;
/// assert_eq!(replaced, 1);
/// let dot: f64 = (0..3).map(|i| block[2 * i] * block[2 * i + 1]).sum();
/// assert!(dot.abs() < 1e-12);
/// assert!((block[0] - 0.5f64.sqrt()).abs() < 1e-12);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn orthonormalize_columns(block: &mut [f64], n: usize, b: usize) -> Result<usize> {
    orthonormalize_against(&[], block, n, b)
}

/// [`orthonormalize_columns`], with the columns also made orthogonal to every column of the
/// blocks in `basis` (each `(block, width)`, `n × width` row-major, whose columns together
/// must already be orthonormal): the step that extends an orthonormal basis by a new block.
/// Errors when a length does not match or the basis and the block together have more than
/// `n` columns.
///
/// ```
/// use kgroups::linalg::orthonormalize_against;
/// let basis = [1.0, 0.0, 0.0]; // e₀ as a 3 × 1 block
/// let mut block = [1.0, 1.0, 0.0]; // (1, 1, 0) as a 3 × 1 block
/// orthonormalize_against(&[(&basis, 1)], &mut block, 3, 1)?;
/// assert!(block[0].abs() < 1e-15 && (block[1] - 1.0).abs() < 1e-15);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn orthonormalize_against(
    basis: &[(&[f64], usize)],
    block: &mut [f64],
    n: usize,
    b: usize,
) -> Result<usize> {
    check_block(block, n, b, "block")?;
    let mut prior_columns = 0usize;
    for &(q, width) in basis {
        check_block(q, n, width, "basis")?;
        prior_columns += width;
    }
    if prior_columns + b > n {
        return Err(KGroupsError::invalid(
            "block",
            format!(
                "{} columns cannot be orthonormal in dimension n = {n}",
                prior_columns + b
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
    // Against the given basis, block by block, twice.
    for _ in 0..2 {
        for &(q, width) in basis {
            project_out(q, width, block, b, n)?;
        }
    }
    let mut replaced = 0;
    let mut column = vec![0.0; n];
    let mut replacement_seed = 0u64;
    for j in 0..b {
        for (i, c) in column.iter_mut().enumerate() {
            *c = block[i * b + j];
        }
        let before = norm(&column);
        // The whole block is already orthogonal to the basis; a column needs projecting
        // against the basis again only when the block's own columns cancelled much of it,
        // which magnifies what rounding left of the basis in it (the DGKS criterion).
        let mut after = orthogonalize_column(&[], block, b, j, &mut column)?;
        if after < REORTHOGONALIZE_BELOW * before {
            after = orthogonalize_column(basis, block, b, j, &mut column)?;
        }
        if after <= 1e-10 * before || before == 0.0 {
            replaced += 1;
            let mut candidate = 0usize;
            loop {
                // Eight pseudo-random directions, then the coordinate vectors in order: one
                // of the latter always has a component outside a subspace of dimension < n.
                if candidate < 8 {
                    let mut rng = crate::rng::Rng::new(replacement_seed);
                    replacement_seed += 1;
                    column.iter_mut().for_each(|c| *c = rng.next_f64() - 0.5);
                } else if candidate - 8 < n {
                    column.iter_mut().for_each(|c| *c = 0.0);
                    column[candidate - 8] = 1.0;
                } else {
                    return Err(KGroupsError::Internal(
                        "no direction orthogonal to the basis was found".into(),
                    ));
                }
                candidate += 1;
                let before = norm(&column);
                after = orthogonalize_column(basis, block, b, j, &mut column)?;
                if after > 1e-6 * before {
                    break;
                }
            }
        }
        for (i, c) in column.iter().enumerate() {
            block[i * b + j] = c / after;
        }
    }
    Ok(replaced)
}

/// A column of the new block whose norm falls below this fraction of its norm (after the
/// block was projected against the basis) is projected against the basis again.
const REORTHOGONALIZE_BELOW: f64 = 0.5;

/// `column` made orthogonal (Gram–Schmidt twice) to the basis blocks and to the first `j`
/// (already orthonormal) columns of `block`; returns its norm afterwards.
fn orthogonalize_column(
    basis: &[(&[f64], usize)],
    block: &[f64],
    b: usize,
    j: usize,
    column: &mut [f64],
) -> Result<f64> {
    let n = column.len();
    for _ in 0..2 {
        for &(q, width) in basis {
            project_out(q, width, column, 1, n)?;
        }
        if j > 0 {
            let coefficients = transpose_times_prefix(block, b, j, column, n);
            for (i, c) in column.iter_mut().enumerate() {
                let row = &block[i * b..i * b + j];
                *c -= row
                    .iter()
                    .zip(&coefficients)
                    .map(|(q, a)| q * a)
                    .sum::<f64>();
            }
        }
    }
    Ok(norm(column))
}

/// `(Q[:, ..j])ᵀ v` for the tall `q` (`n × b`) and the vector `v`, chunked as
/// [`transpose_times`].
fn transpose_times_prefix(q: &[f64], b: usize, j: usize, v: &[f64], n: usize) -> Vec<f64> {
    let partials: Vec<Vec<f64>> = q[..n * b]
        .par_chunks(ROWS_PER_CHUNK * b)
        .zip(v.par_chunks(ROWS_PER_CHUNK))
        .map(|(qc, vc)| {
            let mut acc = vec![0.0; j];
            for (qr, &vi) in qc.chunks_exact(b).zip(vc) {
                for (a, &qa) in acc.iter_mut().zip(&qr[..j]) {
                    *a += qa * vi;
                }
            }
            acc
        })
        .collect();
    let mut total = vec![0.0; j];
    for partial in &partials {
        for (t, p) in total.iter_mut().zip(partial) {
            *t += p;
        }
    }
    total
}

/// `y ← y − Q (Qᵀ y)` for the tall `q` (`n × width`) and `y` (`n × by`).
fn project_out(q: &[f64], width: usize, y: &mut [f64], by: usize, n: usize) -> Result<()> {
    let coefficients = transpose_times(q, width, y, by, n)?;
    y.par_chunks_mut(by.max(1))
        .zip(q.par_chunks(width.max(1)))
        .for_each(|(yr, qr)| {
            for (a, &qa) in qr.iter().enumerate() {
                for (yv, &c) in yr.iter_mut().zip(&coefficients[a * by..(a + 1) * by]) {
                    *yv -= qa * c;
                }
            }
        });
    Ok(())
}

/// Euclidean norm, scaled so that no square overflows or underflows needlessly.
fn norm(v: &[f64]) -> f64 {
    let scale = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return scale;
    }
    scale * v.iter().map(|x| (x / scale).powi(2)).sum::<f64>().sqrt()
}

/// `block.len() == n * width`, or an error naming `argument`.
fn check_block(block: &[f64], n: usize, width: usize, argument: &'static str) -> Result<()> {
    if n.checked_mul(width) == Some(block.len()) {
        return Ok(());
    }
    Err(KGroupsError::invalid(
        argument,
        format!(
            "expected an {n} × {width} block ({} values), got {} values",
            n.saturating_mul(width),
            block.len()
        ),
    ))
}

#[cfg(test)]
mod tests;
