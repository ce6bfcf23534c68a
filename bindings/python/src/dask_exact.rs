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
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
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
    sums_array(py, sums, n, k)
}

fn sums_array(
    py: Python<'_>,
    sums: Vec<f64>,
    n: usize,
    k: usize,
) -> PyResult<Bound<'_, PyArray2<f64>>> {
    let array = ndarray::Array2::from_shape_vec((n, k), sums).map_err(|e| {
        KGroupsError::Internal(format!("sums of the wrong shape: {e}")).into_py_err()
    })?;
    Ok(array.into_pyarray(py))
}

/// `sums` (n × k) with the moves applied, as a new array: for move j (point `moved[j]`, weight
/// `weights[j]`) from cluster `from_[j]` to `to[j]`, `−w·G(x_i, y_j)` under the one and
/// `+w·G(x_i, y_j)` under the other, for every row `x_i`.
#[pyfunction]
#[pyo3(signature = (x, sums, moved, weights, from_, to, semimetric, alpha, sigma, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn exact_apply_moves<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    sums: PyReadonlyArray2<'py, f64>,
    moved: PyReadonlyArray2<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    from_: PyReadonlyArray1<'py, i64>,
    to: PyReadonlyArray1<'py, i64>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let semimetric = given_semimetric(semimetric, alpha, sigma)?;
    let x = points(&x, "X")?;
    let moved = points(&moved, "moved")?;
    let weights = contiguous(&weights, "weights")?;
    let from = labels(&from_, "from_")?;
    let to = labels(&to, "to")?;
    let (start, n, k) = rows(&sums, "sums")?;
    if n != x.n() {
        return Err(KGroupsError::invalid(
            "sums",
            format!("sums has {n} rows but X has {}", x.n()),
        )
        .into_py_err());
    }
    let sums = run_detached(py, n_threads, None, |control| {
        let x = x.check()?;
        let moved = moved.check()?;
        let mut out =
            kgroups::error::try_filled(start.len(), 0.0, "sums", "the n × k cluster sums")?;
        out.copy_from_slice(start);
        exact_rounds::apply_moves(
            &x, &mut out, &moved, weights, &from, &to, k, semimetric, control,
        )?;
        Ok(out)
    })?;
    sums_array(py, sums, n, k)
}

/// The kernel sums of a block of points against itself by its labels (n × k), each pair
/// computed once.
#[pyfunction]
#[pyo3(signature = (x, labels, weights, k, semimetric, alpha, sigma, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn exact_within_sums<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    labels: PyReadonlyArray1<'py, i64>,
    weights: PyReadonlyArray1<'py, f64>,
    k: usize,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let semimetric = given_semimetric(semimetric, alpha, sigma)?;
    let x = points(&x, "X")?;
    let labels = self::labels(&labels, "labels")?;
    let weights = contiguous(&weights, "weights")?;
    let n = x.n();
    let sums = run_detached(py, n_threads, None, |control| {
        exact_rounds::within_sums(&x.check()?, &labels, weights, k, semimetric, control)
    })?;
    sums_array(py, sums, n, k)
}

/// Two blocks' sums against each other.
type SumsPair<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>);

/// The kernel sums between two blocks of points, each pair computed once: a's against b by
/// b's labels (n_a × k) and b's against a by a's labels (n_b × k).
#[pyfunction]
#[pyo3(signature = (a, labels_a, weights_a, b, labels_b, weights_b, k, semimetric, alpha, sigma))]
#[allow(clippy::too_many_arguments)]
fn exact_cross_sums<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, f64>,
    labels_a: PyReadonlyArray1<'py, i64>,
    weights_a: PyReadonlyArray1<'py, f64>,
    b: PyReadonlyArray2<'py, f64>,
    labels_b: PyReadonlyArray1<'py, i64>,
    weights_b: PyReadonlyArray1<'py, f64>,
    k: usize,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
) -> PyResult<SumsPair<'py>> {
    let semimetric = given_semimetric(semimetric, alpha, sigma)?;
    let a = points(&a, "a")?;
    let b = points(&b, "b")?;
    let labels_a = labels(&labels_a, "labels_a")?;
    let labels_b = labels(&labels_b, "labels_b")?;
    let weights_a = contiguous(&weights_a, "weights_a")?;
    let weights_b = contiguous(&weights_b, "weights_b")?;
    let (na, nb) = (a.n(), b.n());
    let (sums_a, sums_b) = run_detached(py, Some(1), None, |control| {
        exact_rounds::cross_sums(
            &a.check()?,
            &b.check()?,
            &labels_a,
            weights_a,
            &labels_b,
            weights_b,
            k,
            semimetric,
            control,
        )
    })?;
    Ok((
        sums_array(py, sums_a, na, k)?,
        sums_array(py, sums_b, nb, k)?,
    ))
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

/// The accepted candidates (positions, from, to) and the totals after the last of them
/// (counts, cluster weights, terms).
type AcceptOut<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
);

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
    Ok((
        to_i64(accepted.iter().map(|a| a.candidate)).into_pyarray(py),
        to_i64(accepted.iter().map(|a| a.from)).into_pyarray(py),
        to_i64(accepted.iter().map(|a| a.to)).into_pyarray(py),
        to_i64(totals.counts).into_pyarray(py),
        totals.cluster_weights.into_pyarray(py),
        totals.terms.into_pyarray(py),
    ))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(exact_cluster_sums, m)?)?;
    m.add_function(wrap_pyfunction!(exact_within_sums, m)?)?;
    m.add_function(wrap_pyfunction!(exact_cross_sums, m)?)?;
    m.add_function(wrap_pyfunction!(exact_diagonal, m)?)?;
    m.add_function(wrap_pyfunction!(exact_propose, m)?)?;
    m.add_function(wrap_pyfunction!(exact_accept, m)?)?;
    m.add_function(wrap_pyfunction!(exact_apply_moves, m)?)?;
    Ok(())
}
