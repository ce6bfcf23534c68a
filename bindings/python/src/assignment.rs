//! The optimal assignment of a matrix (for the clustering accuracy without scipy).

use super::detach::run_detached;
use super::errors::{to_py_err, IntoPyErr};
use kgroups::assignment::linear_assignment_with_control as solve;
use kgroups::error::KGroupsError;
use kgroups::Control;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// The most steps (`min(r, c)² max(r, c)`, about a millisecond) solved with the GIL held.
const INLINE_STEPS: f64 = 1e6;

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
        return Err(not_c().into_py_err());
    }
    let data = cost.as_slice().map_err(|_| not_c().into_py_err())?;
    // The method costs O(min² max) steps: a k × k contingency table of a clustering is solved
    // at once with the GIL held; a large one on a worker thread, off the GIL and stopping
    // at Ctrl-C.
    let (small, large) = (r.min(c) as f64, r.max(c) as f64);
    let pairs = if small * small * large <= INLINE_STEPS {
        solve(data, r, c, maximize, &Control::new()).map_err(to_py_err)?
    } else {
        run_detached(py, Some(1), None, |control| {
            solve(data, r, c, maximize, control)
        })?
    };
    // Indices are below the dimensions, which fit in i64.
    let rows: Vec<i64> = pairs.iter().map(|p| p.0 as i64).collect();
    let cols: Vec<i64> = pairs.iter().map(|p| p.1 as i64).collect();
    Ok((rows.into_pyarray(py), cols.into_pyarray(py)))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(linear_assignment, m)?)?;
    Ok(())
}
