//! Choosing k and the kernel: `select_k` over points or a precomputed kernel, the kNN
//! affinity it builds (exposed for tests against scikit-learn), and its 10-nearest-neighbour
//! vote (the estimators' `predict` after the kNN graph).

use super::arrays::{points, square};
use super::detach::run_detached;
use kgroups::select::{self, KernelChoice, SelectOptions, Selection};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The outcome of `select_k`, converted once.
#[pyclass(frozen, module = "kgroups_rs._core")]
pub(super) struct SelectionResult {
    #[pyo3(get)]
    k: usize,
    #[pyo3(get)]
    labels: Py<PyArray1<i64>>,
    #[pyo3(get)]
    kernel: Option<&'static str>,
    #[pyo3(get)]
    rule: &'static str,
    /// Column name → float64 array (k as int64).
    #[pyo3(get)]
    table: Py<PyDict>,
    #[pyo3(get)]
    energy_structure: f64,
    #[pyo3(get)]
    self_tuning_structure: Option<f64>,
    #[pyo3(get)]
    cut_ratio: Option<f64>,
    #[pyo3(get)]
    at_range_end: bool,
    #[pyo3(get)]
    n_statistics: usize,
}

impl SelectionResult {
    fn new(py: Python<'_>, s: Selection) -> PyResult<Self> {
        let t = s.table;
        let table = PyDict::new(py);
        let ks: Vec<i64> = t.k.iter().map(|&k| k as i64).collect();
        table.set_item("k", ks.into_pyarray(py))?;
        for (name, column) in [
            ("within", t.within),
            ("log_within", t.log_within),
            ("expected_log_within_pc", t.expected_log_within_pc),
            ("gap_pc", t.gap_pc),
            ("se_pc", t.se_pc),
            ("stability", t.stability),
            ("eigenvalue", t.eigenvalue),
            ("relative_eigengap", t.relative_eigengap),
        ] {
            table.set_item(name, column.into_pyarray(py))?;
        }
        // Labels are below k <= n, which fits in i64.
        let labels: Vec<i64> = s.labels.iter().map(|&l| l as i64).collect();
        Ok(SelectionResult {
            k: s.k,
            labels: labels.into_pyarray(py).unbind(),
            kernel: s.kernel.map(|k| k.name()),
            rule: s.rule.name(),
            table: table.unbind(),
            energy_structure: s.structure.energy,
            self_tuning_structure: s.structure.self_tuning,
            cut_ratio: s.structure.cut_ratio,
            at_range_end: s.at_range_end,
            n_statistics: s.n_statistics,
        })
    }
}

#[allow(clippy::too_many_arguments)]
fn options(
    k_min: usize,
    k_max: usize,
    kernel: &str,
    n_refs: usize,
    n_init: usize,
    n_pairs: usize,
    max_statistics_points: usize,
    warm_start: bool,
    seed: u64,
) -> PyResult<SelectOptions> {
    let kernel = match kernel {
        "auto" => KernelChoice::Auto,
        "energy" => KernelChoice::Energy,
        "knn" => KernelChoice::Knn,
        other => {
            return Err(PyValueError::new_err(format!(
                "kernel must be 'auto', 'energy' or 'knn', got {other:?}"
            )))
        }
    };
    Ok(SelectOptions {
        k_min,
        k_max,
        kernel,
        n_refs,
        n_init,
        n_pairs,
        max_statistics_points,
        warm_start,
        seed,
    })
}

/// Choose k and the kernel for the points X (n × D, float64, C order).
#[pyfunction]
#[pyo3(signature = (x, k_min, k_max, kernel, n_refs, n_init, n_pairs, max_statistics_points, seed, n_threads=None, progress=None, warm_start=true))]
#[allow(clippy::too_many_arguments)]
fn select_k(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    k_min: usize,
    k_max: usize,
    kernel: &str,
    n_refs: usize,
    n_init: usize,
    n_pairs: usize,
    max_statistics_points: usize,
    seed: u64,
    n_threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    warm_start: bool,
) -> PyResult<SelectionResult> {
    let raw = points(&x, "X")?;
    let options = options(
        k_min,
        k_max,
        kernel,
        n_refs,
        n_init,
        n_pairs,
        max_statistics_points,
        warm_start,
        seed,
    )?;
    let progress = progress.map(|p| p.into_bound(py));
    let selection = run_detached(py, n_threads, progress.as_ref(), |control| {
        select::select_k(&raw.check()?, &options, control)
    })?;
    SelectionResult::new(py, selection)
}

/// Choose k for a precomputed kernel matrix G (n × n, float64, symmetric) by stability.
#[pyfunction]
#[pyo3(signature = (g, k_min, k_max, n_init, n_pairs, seed, n_threads=None, progress=None, warm_start=true))]
#[allow(clippy::too_many_arguments)]
fn select_k_precomputed(
    py: Python<'_>,
    g: PyReadonlyArray2<'_, f64>,
    k_min: usize,
    k_max: usize,
    n_init: usize,
    n_pairs: usize,
    seed: u64,
    n_threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    warm_start: bool,
) -> PyResult<SelectionResult> {
    let (data, n) = square(&g, "G")?;
    let options = options(
        k_min, k_max, "auto", 1, n_init, n_pairs, 2, warm_start, seed,
    )?;
    let progress = progress.map(|p| p.into_bound(py));
    let selection = run_detached(py, n_threads, progress.as_ref(), |control| {
        select::select_k_precomputed(data, n, &options, control)
    })?;
    SelectionResult::new(py, selection)
}

/// The kNN connectivity affinity of X (union-symmetrised, zero diagonal) as CSR arrays
/// `(indptr, indices, data)` (int64, int64, float64).
#[pyfunction]
#[pyo3(signature = (x, n_neighbors, n_threads=None))]
#[allow(clippy::type_complexity)]
fn knn_affinity<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    n_neighbors: usize,
    n_threads: Option<usize>,
) -> PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
)> {
    let raw = points(&x, "X")?;
    let a = run_detached(py, n_threads, None, |control| {
        select::neighbors::knn_affinity(&raw.check()?, n_neighbors, control)
    })?;
    let to_i64 = |v: Vec<usize>| v.into_iter().map(|i| i as i64).collect::<Vec<i64>>();
    Ok((
        to_i64(a.indptr).into_pyarray(py),
        to_i64(a.indices).into_pyarray(py),
        a.data.into_pyarray(py),
    ))
}

/// The label of each row of `x` by the vote of its `n_neighbors` nearest rows of
/// `labelled` (whose labels are `labels`, int64 below `k`): the core's `vote_of_nearest`.
#[pyfunction]
#[pyo3(signature = (x, labelled, labels, k, n_neighbors, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn knn_vote<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    labelled: PyReadonlyArray2<'_, f64>,
    labels: PyReadonlyArray1<'_, i64>,
    k: usize,
    n_neighbors: usize,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let raw_queries = points(&x, "X")?;
    let raw_points = points(&labelled, "labelled")?;
    let labels = super::arrays::labels(&labels, "labels")?;
    let voted = run_detached(py, n_threads, None, |control| {
        select::neighbors::vote_of_nearest(
            &raw_queries.check()?,
            &raw_points.check()?,
            &labels,
            k,
            n_neighbors,
            control,
        )
    })?;
    // Labels are below k, which the caller gave as a Python int that fits in i64.
    Ok(voted
        .into_iter()
        .map(|l| l as i64)
        .collect::<Vec<i64>>()
        .into_pyarray(py))
}

/// The outcome of `choose_sigma`, converted once.
#[pyclass(frozen, module = "kgroups_rs._core")]
pub(super) struct SigmaSelectionResult {
    #[pyo3(get)]
    sigma: f64,
    #[pyo3(get)]
    k: usize,
    /// The table row chosen; None when falling back to the "mean" rule.
    #[pyo3(get)]
    chosen: Option<usize>,
    /// Column name → array (sigma, statistics: float64; k: int64; degenerate: bool; source:
    /// a list of str).
    #[pyo3(get)]
    table: Py<PyDict>,
    #[pyo3(get)]
    n_points: usize,
}

/// Choose the bandwidth σ for the points X (n × D, float64, C order).
#[pyfunction]
#[pyo3(signature = (x, k, k_max, semimetric, max_points, n_init, seed, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn choose_sigma(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    k: Option<usize>,
    k_max: usize,
    semimetric: &str,
    max_points: usize,
    n_init: usize,
    seed: u64,
    n_threads: Option<usize>,
) -> PyResult<SigmaSelectionResult> {
    use select::bandwidth::{BandwidthKernel, SigmaOptions};
    let raw = points(&x, "X")?;
    let kernel = match semimetric {
        "gaussian" => BandwidthKernel::Gaussian,
        "exponential" => BandwidthKernel::Exponential,
        other => {
            return Err(PyValueError::new_err(format!(
                "semimetric must be 'gaussian' or 'exponential', got {other:?}"
            )))
        }
    };
    let options = SigmaOptions {
        k,
        k_max,
        kernel,
        max_points,
        n_init,
        seed,
    };
    let s = run_detached(py, n_threads, None, |control| {
        select::bandwidth::choose_sigma(&raw.check()?, &options, control)
    })?;
    let t = s.table;
    let table = PyDict::new(py);
    table.set_item("sigma", t.sigma.into_pyarray(py))?;
    table.set_item("source", t.source)?;
    let ks: Vec<i64> = t.k.iter().map(|&k| k as i64).collect();
    table.set_item("k", ks.into_pyarray(py))?;
    for (name, column) in [
        ("neighbour_mass", t.neighbour_mass),
        ("next_eigenvalue", t.next_eigenvalue),
        ("eigengap", t.eigengap),
        ("knn_cut", t.knn_cut),
    ] {
        table.set_item(name, column.into_pyarray(py))?;
    }
    table.set_item("degenerate", t.degenerate.into_pyarray(py))?;
    Ok(SigmaSelectionResult {
        sigma: s.sigma,
        k: s.k,
        chosen: s.chosen,
        table: table.unbind(),
        n_points: s.n_points,
    })
}

/// The core's selection defaults, read by every Python caller: `k_max` (of the default
/// range 1 … k_max), `max_statistics_points`, `n_neighbors` (of the kNN graph and its vote),
/// `n_refs`, `n_init`, `n_pairs`.
#[pyfunction]
fn select_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = SelectOptions::default();
    let out = PyDict::new(py);
    out.set_item("k_max", d.k_max)?;
    out.set_item("max_statistics_points", d.max_statistics_points)?;
    out.set_item("n_neighbors", select::neighbors::KNN_NEIGHBOURS)?;
    out.set_item("n_refs", d.n_refs)?;
    out.set_item("n_init", d.n_init)?;
    out.set_item("n_pairs", d.n_pairs)?;
    Ok(out)
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SelectionResult>()?;
    m.add_function(wrap_pyfunction!(select_defaults, m)?)?;
    m.add_class::<SigmaSelectionResult>()?;
    m.add_function(wrap_pyfunction!(choose_sigma, m)?)?;
    m.add_function(wrap_pyfunction!(select_k, m)?)?;
    m.add_function(wrap_pyfunction!(select_k_precomputed, m)?)?;
    m.add_function(wrap_pyfunction!(knn_affinity, m)?)?;
    m.add_function(wrap_pyfunction!(knn_vote, m)?)?;
    Ok(())
}
