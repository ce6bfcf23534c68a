//! The optimal assignment of a small matrix (for the clustering accuracy without scipy).

use crate::assignment::linear_assignment as solve;
use crate::error::KGroupsError;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// The optimal one-to-one matching of rows to columns of `cost` (float64, C order):
/// `(rows, cols)` as int64 arrays of `min(r, c)` pairs sorted by row, minimising the total
/// (or maximising it with `maximize`).
#[pyfunction]
#[pyo3(signature = (cost, maximize=false))]
#[allow(clippy::type_complexity)]
fn linear_assignment<'py>(
    py: Python<'py>,
    cost: PyReadonlyArray2<'py, f64>,
    maximize: bool,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)> {
    let shape = cost.shape();
    let (r, c) = (shape[0], shape[1]);
    let not_c = || KGroupsError::invalid("cost", "the array must be C-contiguous");
    if !cost.is_c_contiguous() && r > 1 && c > 1 {
        return Err(not_c().into());
    }
    let data = cost.as_slice().map_err(|_| not_c())?;
    // Small matrices (k x k): solved with the GIL held.
    let pairs = solve(data, r, c, maximize)?;
    // Indices are below the dimensions, which fit in i64.
    let rows: Vec<i64> = pairs.iter().map(|p| p.0 as i64).collect();
    let cols: Vec<i64> = pairs.iter().map(|p| p.1 as i64).collect();
    Ok((rows.into_pyarray(py), cols.into_pyarray(py)))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(linear_assignment, m)?)?;
    Ok(())
}
