//! Small dense linear algebra of the core for the Python package: the eigen-decomposition
//! of a small symmetric matrix (the distributed path's spectral start).

use super::arrays::square;
use super::detach::run_detached;
use super::errors::IntoPyErr;
use kgroups::error::KGroupsError;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::prelude::*;

/// The eigenvalues and the eigenvectors (as columns).
type EigenOut<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<f64>>);

/// The eigenvalues (descending) and unit eigenvectors (the columns, each with its entry of
/// largest magnitude positive) of the symmetric d × d float64 matrix `a`: the core's
/// `linalg::symmetric_eigen` (faer, `O(d³)` once).
#[pyfunction]
#[pyo3(signature = (a, n_threads=None))]
fn symmetric_eigen<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'_, f64>,
    n_threads: Option<usize>,
) -> PyResult<EigenOut<'py>> {
    let (data, d) = square(&a, "a")?;
    let (values, vectors) = run_detached(py, n_threads, None, |control| {
        kgroups::linalg::symmetric_eigen(data, d, control)
    })?;
    let vectors = ndarray::Array2::from_shape_vec((d, d), vectors).map_err(|e| {
        KGroupsError::Internal(format!("eigenvectors of the wrong shape: {e}")).into_py_err()
    })?;
    Ok((values.into_pyarray(py), vectors.into_pyarray(py)))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(symmetric_eigen, m)?)?;
    Ok(())
}
