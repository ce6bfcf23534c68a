//! The kernels of the exact distributed path (`kgroups_rs.dask`, `method="exact"`): a chunk's
//! point-to-cluster kernel sums, its proposed moves, and the coordinator's acceptance pass.
//! Workers and the client call them inside dask tasks; the GIL is released while they run.

use super::arrays::{contiguous, labels, points, rows};
use super::detach::run_detached;
use super::errors::IntoPyErr;
use super::options::{parse_semimetric, SemimetricChoice};
use kgroups::error::KGroupsError;
use kgroups::exact_rounds::{self, ClusterTotals};
use kgroups::Semimetric;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

/// A semimetric whose bandwidth is given (the client resolves it once for all chunks).
fn given_semimetric(name: &str, alpha: f64, sigma: Option<f64>) -> PyResult<Semimetric> {
    match parse_semimetric(name, alpha, sigma)? {
        SemimetricChoice::Given(semimetric) => Ok(semimetric),
        SemimetricChoice::DataBandwidth { .. } => Err(KGroupsError::invalid(
            "sigma",
            "the exact distributed path needs sigma resolved on the client",
        )
        .into_py_err()),
    }
}

fn to_i64(values: impl IntoIterator<Item = usize>) -> Vec<i64> {
    // Indices and counts are at most n, which fits in i64.
    values.into_iter().map(|v| v as i64).collect()
}

fn totals_of(
    counts: &PyReadonlyArray1<'_, i64>,
    cluster_weights: &PyReadonlyArray1<'_, f64>,
    terms: &PyReadonlyArray1<'_, f64>,
) -> PyResult<ClusterTotals> {
    Ok(ClusterTotals {
        counts: labels(counts, "counts")?,
        cluster_weights: contiguous(cluster_weights, "cluster_weights")?.to_vec(),
        terms: contiguous(terms, "terms")?.to_vec(),
    })
}

/// `start + Σ_j weights[j]·G(x_i, y_j)` by the labels of the other points `y`, for every row
/// `x_i` (n × k, float64), added in the order of `other`; `start` (n × k) defaults to zeros.
#[pyfunction]
#[pyo3(signature = (x, other, labels, weights, k, semimetric, alpha, sigma, start=None, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn exact_cluster_sums<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    other: PyReadonlyArray2<'py, f64>,
    labels: PyReadonlyArray1<'py, i64>,
    weights: PyReadonlyArray1<'py, f64>,
    k: usize,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    start: Option<PyReadonlyArray2<'py, f64>>,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let semimetric = given_semimetric(semimetric, alpha, sigma)?;
    let x = points(&x, "X")?;
    let other = points(&other, "other")?;
    let labels = self::labels(&labels, "labels")?;
    let weights = contiguous(&weights, "weights")?;
    let n = x.n();
    let start = match &start {
        Some(s) => {
            let (data, rows_n, cols) = rows(s, "start")?;
            if rows_n != n || cols != k {
                return Err(KGroupsError::invalid(
                    "start",
                    format!("start has shape ({rows_n}, {cols}) but the sums are ({n}, {k})"),
                )
                .into_py_err());
            }
            Some(data)
        }
        None => None,
    };
    let sums = run_detached(py, n_threads, None, |control| {
        let x = x.check()?;
        let other = other.check()?;
        let len = n.saturating_mul(k);
        let mut out = kgroups::error::try_filled(len, 0.0, "k", "the n × k cluster sums")?;
        if let Some(start) = start {
            out.copy_from_slice(start);
        }
        exact_rounds::add_cluster_sums(
            &x, &other, &labels, weights, k, semimetric, &mut out, control,
        )?;
        Ok(out)
    })?;
    let array = ndarray::Array2::from_shape_vec((n, k), sums).map_err(|e| {
        KGroupsError::Internal(format!("sums of the wrong shape: {e}")).into_py_err()
    })?;
    Ok(array.into_pyarray(py))
}

/// The kernel diagonal `G_ii = ρ(x_i, 0)` of the rows of `x`.
#[pyfunction]
#[pyo3(signature = (x, semimetric, alpha, sigma))]
fn exact_diagonal<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let semimetric = given_semimetric(semimetric, alpha, sigma)?;
    let x = points(&x, "X")?;
    let diagonal = run_detached(py, Some(1), None, |_| {
        exact_rounds::diagonal(&x.check()?, semimetric)
    })?;
    Ok(diagonal.into_pyarray(py))
}

/// Rows, target clusters, gains and tolerances of the improving moves of a chunk's rows.
type ProposalsOut<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
);

/// The improving moves of a chunk's rows (sums n × k, labels, weights, diagonal) against the
/// global totals (counts, cluster weights, terms), in row order.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn exact_propose<'py>(
    py: Python<'py>,
    sums: PyReadonlyArray2<'py, f64>,
    labels: PyReadonlyArray1<'py, i64>,
    weights: PyReadonlyArray1<'py, f64>,
    diagonal: PyReadonlyArray1<'py, f64>,
    counts: PyReadonlyArray1<'py, i64>,
    cluster_weights: PyReadonlyArray1<'py, f64>,
    terms: PyReadonlyArray1<'py, f64>,
) -> PyResult<ProposalsOut<'py>> {
    let (sums, _, _) = rows(&sums, "sums")?;
    let labels = self::labels(&labels, "labels")?;
    let weights = contiguous(&weights, "weights")?;
    let diagonal = contiguous(&diagonal, "diagonal")?;
    let totals = totals_of(&counts, &cluster_weights, &terms)?;
    let proposals = run_detached(py, Some(1), None, |_| {
        exact_rounds::propose(sums, &labels, weights, diagonal, &totals)
    })?;
    Ok((
        to_i64(proposals.iter().map(|p| p.row)).into_pyarray(py),
        to_i64(proposals.iter().map(|p| p.to)).into_pyarray(py),
        proposals
            .iter()
            .map(|p| p.gain)
            .collect::<Vec<f64>>()
            .into_pyarray(py),
        proposals
            .iter()
            .map(|p| p.tolerance)
            .collect::<Vec<f64>>()
            .into_pyarray(py),
    ))
}

/// The accepted candidates (positions, from, to) and the totals after each of them
/// (counts, cluster weights and terms, m × k).
type AcceptOut<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray2<f64>>,
);

fn stacked<T: numpy::Element + Clone>(
    py: Python<'_>,
    values: Vec<T>,
    m: usize,
    k: usize,
) -> PyResult<Bound<'_, PyArray2<T>>> {
    let array = ndarray::Array2::from_shape_vec((m, k), values).map_err(|e| {
        KGroupsError::Internal(format!("totals of the wrong shape: {e}")).into_py_err()
    })?;
    Ok(array.into_pyarray(py))
}

/// One sequential Hartigan pass over the candidates in the order given (coordinates C × D,
/// weights, diagonal, labels, sums C × k) against the totals; returns the accepted moves and
/// the new totals.
#[pyfunction]
#[pyo3(signature = (candidates, weights, diagonal, labels, sums, semimetric, alpha, sigma, counts, cluster_weights, terms, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn exact_accept<'py>(
    py: Python<'py>,
    candidates: PyReadonlyArray2<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    diagonal: PyReadonlyArray1<'py, f64>,
    labels: PyReadonlyArray1<'py, i64>,
    sums: PyReadonlyArray2<'py, f64>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    counts: PyReadonlyArray1<'py, i64>,
    cluster_weights: PyReadonlyArray1<'py, f64>,
    terms: PyReadonlyArray1<'py, f64>,
    n_threads: Option<usize>,
) -> PyResult<AcceptOut<'py>> {
    let semimetric = given_semimetric(semimetric, alpha, sigma)?;
    let candidates = points(&candidates, "candidates")?;
    let weights = contiguous(&weights, "weights")?;
    let diagonal = contiguous(&diagonal, "diagonal")?;
    let labels = self::labels(&labels, "labels")?;
    let (sums, _, _) = rows(&sums, "sums")?;
    let mut totals = totals_of(&counts, &cluster_weights, &terms)?;
    let k = totals.counts.len();
    let accepted = run_detached(py, n_threads, None, |control| {
        let candidates = candidates.check()?;
        exact_rounds::accept(
            &candidates,
            weights,
            diagonal,
            &labels,
            sums,
            semimetric,
            &mut totals,
            control,
        )
    })?;
    let m = accepted.len();
    let after = |f: &dyn Fn(&ClusterTotals) -> Vec<f64>| -> Vec<f64> {
        accepted.iter().flat_map(|a| f(&a.totals_after)).collect()
    };
    let counts: Vec<i64> = accepted
        .iter()
        .flat_map(|a| to_i64(a.totals_after.counts.iter().copied()))
        .collect();
    Ok((
        to_i64(accepted.iter().map(|a| a.candidate)).into_pyarray(py),
        to_i64(accepted.iter().map(|a| a.from)).into_pyarray(py),
        to_i64(accepted.iter().map(|a| a.to)).into_pyarray(py),
        stacked(py, counts, m, k)?,
        stacked(py, after(&|t| t.cluster_weights.clone()), m, k)?,
        stacked(py, after(&|t| t.terms.clone()), m, k)?,
    ))
}

/// The row, position, target, gain, tolerance and sums of the earliest row a sweep would
/// have moved.
type ViolationOut<'py> = (usize, usize, usize, f64, f64, Bound<'py, PyArray1<f64>>);

/// Applies a round's moves to a chunk's sums (returned as a new n × k array) and finds the
/// earliest row (by position; position -1: not checked) that a sequential sweep would have
/// moved. Moves: points m × D, weights, from, to, positions; totals before each move and
/// after the last: counts, cluster weights, terms, each (m + 1) × k.
#[pyfunction]
#[pyo3(signature = (x, sums, labels, weights, diagonal, positions, move_points, move_weights, move_from, move_to, move_positions, counts, cluster_weights, terms, semimetric, alpha, sigma, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn exact_apply_and_check<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    sums: PyReadonlyArray2<'py, f64>,
    labels: PyReadonlyArray1<'py, i64>,
    weights: PyReadonlyArray1<'py, f64>,
    diagonal: PyReadonlyArray1<'py, f64>,
    positions: PyReadonlyArray1<'py, i64>,
    move_points: PyReadonlyArray2<'py, f64>,
    move_weights: PyReadonlyArray1<'py, f64>,
    move_from: PyReadonlyArray1<'py, i64>,
    move_to: PyReadonlyArray1<'py, i64>,
    move_positions: PyReadonlyArray1<'py, i64>,
    counts: PyReadonlyArray2<'py, i64>,
    cluster_weights: PyReadonlyArray2<'py, f64>,
    terms: PyReadonlyArray2<'py, f64>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    n_threads: Option<usize>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Option<ViolationOut<'py>>)> {
    let semimetric = given_semimetric(semimetric, alpha, sigma)?;
    let x = points(&x, "X")?;
    let (start, n, k) = rows(&sums, "sums")?;
    let labels = self::labels(&labels, "labels")?;
    let weights = contiguous(&weights, "weights")?;
    let diagonal = contiguous(&diagonal, "diagonal")?;
    let positions: Vec<usize> = contiguous(&positions, "positions")?
        .iter()
        .map(|&p| usize::try_from(p).unwrap_or(usize::MAX))
        .collect();
    let (move_data, m, dim) = rows(&move_points, "move_points")?;
    let move_weights = contiguous(&move_weights, "move_weights")?;
    let move_from = self::labels(&move_from, "move_from")?;
    let move_to = self::labels(&move_to, "move_to")?;
    let move_positions = self::labels(&move_positions, "move_positions")?;
    let (counts, rows_c, k_c) = {
        let (data, r, c) = (
            counts.as_slice().map_err(|_| {
                KGroupsError::invalid("counts", "the array must be contiguous").into_py_err()
            })?,
            counts.shape()[0],
            counts.shape()[1],
        );
        (
            kgroups::validate::labels_from_signed(data, "counts")
                .map_err(super::errors::to_py_err)?,
            r,
            c,
        )
    };
    let (weight_data, rows_w, k_w) = rows(&cluster_weights, "cluster_weights")?;
    let (term_data, rows_t, k_t) = rows(&terms, "terms")?;
    if rows_c != m + 1 || rows_w != m + 1 || rows_t != m + 1 || k_c != k || k_w != k || k_t != k {
        return Err(KGroupsError::invalid(
            "totals",
            format!("the totals need shape ({}, {k})", m + 1),
        )
        .into_py_err());
    }
    let totals: Vec<ClusterTotals> = (0..=m)
        .map(|p| ClusterTotals {
            counts: counts[p * k..(p + 1) * k].to_vec(),
            cluster_weights: weight_data[p * k..(p + 1) * k].to_vec(),
            terms: term_data[p * k..(p + 1) * k].to_vec(),
        })
        .collect();
    let (out, found) = run_detached(py, n_threads, None, |control| {
        let x = x.check()?;
        let placeholder = [0.0; 1];
        let moved = if m == 0 {
            kgroups::Points::new(&placeholder, 1, 1)?
        } else {
            kgroups::Points::named(move_data, m, dim, "move_points")?
        };
        let moves = exact_rounds::RoundMoves {
            points: moved,
            weights: move_weights,
            from: &move_from,
            to: &move_to,
            positions: &move_positions,
            totals: &totals,
        };
        let mut out = kgroups::error::try_filled(start.len(), 0.0, "k", "the n × k cluster sums")?;
        out.copy_from_slice(start);
        let found = exact_rounds::apply_and_check(
            &x, &mut out, &labels, weights, diagonal, &positions, &moves, semimetric, control,
        )?;
        Ok((out, found))
    })?;
    let array = ndarray::Array2::from_shape_vec((n, k), out).map_err(|e| {
        KGroupsError::Internal(format!("sums of the wrong shape: {e}")).into_py_err()
    })?;
    let found = found.map(|v| {
        (
            v.row,
            v.position,
            v.to,
            v.gain,
            v.tolerance,
            v.sums.into_pyarray(py),
        )
    });
    Ok((array.into_pyarray(py), found))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(exact_cluster_sums, m)?)?;
    m.add_function(wrap_pyfunction!(exact_diagonal, m)?)?;
    m.add_function(wrap_pyfunction!(exact_propose, m)?)?;
    m.add_function(wrap_pyfunction!(exact_accept, m)?)?;
    m.add_function(wrap_pyfunction!(exact_apply_and_check, m)?)?;
    Ok(())
}
