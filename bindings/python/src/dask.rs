//! The per-chunk kernels of the distributed path (`kgroups_rs.dask`): a chunk's partial
//! cluster state, one Hartigan or Lloyd round on a chunk, and the objective of a state.
//! Workers call them inside dask tasks; the GIL is released while they run.

use super::arrays::{contiguous, labels, rows};
use super::detach::run_detached;
use super::errors::{to_py_err, IntoPyErr};
use kgroups::chunk_sweep::{self, ChunkAlgorithm, GlobalState};
use kgroups::error::KGroupsError;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

/// The partial feature sums, cluster weights, counts and weighted trace of one chunk.
type SumsOut<'py> = (
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    f64,
);

/// What one round returns: labels, moves, the chunk's copy of the sums after its moves,
/// partial weights before and after, partial counts before and after.
type RoundOut<'py> = (
    Bound<'py, PyArray1<i64>>,
    usize,
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

fn counts_out(py: Python<'_>, counts: Vec<usize>) -> Bound<'_, PyArray1<i64>> {
    // Counts are at most n, which fits in i64.
    counts
        .into_iter()
        .map(|c| c as i64)
        .collect::<Vec<i64>>()
        .into_pyarray(py)
}

fn matrix_out(
    py: Python<'_>,
    data: Vec<f64>,
    k: usize,
    m: usize,
) -> PyResult<Bound<'_, PyArray2<f64>>> {
    let array = ndarray::Array2::from_shape_vec((k, m), data).map_err(|e| {
        KGroupsError::Internal(format!("feature sums of the wrong shape: {e}")).into_py_err()
    })?;
    Ok(array.into_pyarray(py))
}

/// The partial cluster state of one chunk (features n × m float64 C order, labels int64,
/// optional weights).
#[pyfunction]
#[pyo3(signature = (features, labels, weights, k, n_threads=None))]
fn dask_chunk_sums<'py>(
    py: Python<'py>,
    features: PyReadonlyArray2<'py, f64>,
    labels: PyReadonlyArray1<'py, i64>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    k: usize,
    n_threads: Option<usize>,
) -> PyResult<SumsOut<'py>> {
    let (phi, _, m) = rows(&features, "features")?;
    let labels = self::labels(&labels, "init")?;
    let weights = match &weights {
        Some(w) => Some(contiguous(w, "weights")?),
        None => None,
    };
    let part = run_detached(py, n_threads, None, |_| {
        chunk_sweep::chunk_sums(phi, m, &labels, weights, k)
    })?;
    Ok((
        matrix_out(py, part.sums, k, m)?,
        part.cluster_weights.into_pyarray(py),
        counts_out(py, part.counts),
        part.trace,
    ))
}

/// One Hartigan sweep ("hartigan") or batch Lloyd assignment ("lloyd") over one chunk
/// against the broadcast global state (sums k × m, cluster weights k, counts k).
#[pyfunction]
#[pyo3(signature = (features, labels, weights, sums, cluster_weights, counts, algorithm, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn dask_chunk_round<'py>(
    py: Python<'py>,
    features: PyReadonlyArray2<'py, f64>,
    labels: PyReadonlyArray1<'py, i64>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    sums: PyReadonlyArray2<'py, f64>,
    cluster_weights: PyReadonlyArray1<'py, f64>,
    counts: PyReadonlyArray1<'py, i64>,
    algorithm: &str,
    n_threads: Option<usize>,
) -> PyResult<RoundOut<'py>> {
    let algorithm = match algorithm {
        "hartigan" => ChunkAlgorithm::Hartigan,
        "lloyd" => ChunkAlgorithm::Lloyd,
        other => {
            return Err(KGroupsError::invalid(
                "algorithm",
                format!("must be 'hartigan' or 'lloyd', got {other:?}"),
            )
            .into_py_err())
        }
    };
    let (phi, _, m) = rows(&features, "features")?;
    let (global, k, m_sums) = rows(&sums, "sums")?;
    if m_sums != m {
        return Err(KGroupsError::invalid(
            "sums",
            format!("the sums have {m_sums} columns but the features {m}"),
        )
        .into_py_err());
    }
    let labels = self::labels(&labels, "init")?;
    let counts = self::labels(&counts, "counts")?;
    let cluster_weights = contiguous(&cluster_weights, "cluster_weights")?;
    let weights = match &weights {
        Some(w) => Some(contiguous(w, "weights")?),
        None => None,
    };
    let state = GlobalState {
        sums: global,
        cluster_weights,
        counts: &counts,
    };
    let round = run_detached(py, n_threads, None, |control| {
        chunk_sweep::chunk_round(phi, m, &labels, weights, state, algorithm, control)
    })?;
    let new_labels: Vec<i64> = round.labels.into_iter().map(|l| l as i64).collect();
    Ok((
        new_labels.into_pyarray(py),
        round.moves,
        matrix_out(py, round.sums, k, m)?,
        round.weights_before.into_pyarray(py),
        round.weights_after.into_pyarray(py),
        counts_out(py, round.counts_before),
        counts_out(py, round.counts_after),
    ))
}

/// `Q = Σ_l ‖S_l‖² / s_l` of feature sums (k × m) and cluster weights (k).
#[pyfunction]
fn dask_feature_objective(
    sums: PyReadonlyArray2<'_, f64>,
    cluster_weights: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    let (data, _, _) = rows(&sums, "sums")?;
    chunk_sweep::feature_objective(data, contiguous(&cluster_weights, "cluster_weights")?)
        .map_err(to_py_err)
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dask_chunk_sums, m)?)?;
    m.add_function(wrap_pyfunction!(dask_chunk_round, m)?)?;
    m.add_function(wrap_pyfunction!(dask_feature_objective, m)?)?;
    Ok(())
}
