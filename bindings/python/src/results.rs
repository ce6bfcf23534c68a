//! The core's [`kgroups::Clustering`] as a frozen Python object, converted once (the arrays
//! are moved into numpy, not copied again). Python's `ClusteringResult` is built from it.

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;

/// The outcome of one clustering call: the best of its starts.
#[pyclass(frozen, module = "kgroups_rs._core")]
pub(super) struct Clustering {
    #[pyo3(get)]
    labels: Py<PyArray1<i64>>,
    #[pyo3(get)]
    objective: f64,
    #[pyo3(get)]
    within: f64,
    #[pyo3(get)]
    n_iter: usize,
    #[pyo3(get)]
    n_moves: usize,
    #[pyo3(get)]
    converged: bool,
    #[pyo3(get)]
    cycle_length: Option<usize>,
    #[pyo3(get)]
    objective_history: Py<PyArray1<f64>>,
    #[pyo3(get)]
    cluster_terms: Py<PyArray1<f64>>,
    #[pyo3(get)]
    best_start: usize,
    #[pyo3(get)]
    n_distinct_clusters: usize,
    #[pyo3(get)]
    spectral_bound: Option<f64>,
}

impl Clustering {
    pub(super) fn new(py: Python<'_>, c: kgroups::Clustering) -> Self {
        // Labels are below k <= n, which fits in i64.
        let labels: Vec<i64> = c.labels.iter().map(|&l| l as i64).collect();
        Clustering {
            labels: labels.into_pyarray(py).unbind(),
            objective: c.objective,
            within: c.within,
            n_iter: c.n_iter,
            n_moves: c.n_moves,
            converged: c.converged,
            cycle_length: c.cycle_length,
            objective_history: c.objective_history.into_pyarray(py).unbind(),
            cluster_terms: c.cluster_terms.into_pyarray(py).unbind(),
            best_start: c.best_start,
            n_distinct_clusters: c.n_distinct_clusters,
            spectral_bound: c.spectral_bound,
        }
    }
}

#[pymethods]
impl Clustering {
    fn __repr__(&self) -> String {
        format!(
            "Clustering(objective={}, within={}, n_iter={}, n_moves={}, converged={}, best_start={})",
            self.objective, self.within, self.n_iter, self.n_moves, self.converged, self.best_start
        )
    }
}
