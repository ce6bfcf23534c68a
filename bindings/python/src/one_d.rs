//! The exact 1-D solver: optimal interval cuts of sorted data.

use super::arrays::contiguous;
use super::detach::run_detached;
use kgroups::one_d::optimal_cuts;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

/// Cut indices of an optimal partition of sorted 1-D data into k intervals (`kgroups_1d`).
#[pyfunction]
fn optimal_cuts_1d<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    k: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let x = contiguous(&x, "x")?;
    let weights = (weights.as_ref())
        .map(|w| contiguous(w, "weights"))
        .transpose()?;
    let cuts = run_detached(py, None, None, |control| {
        optimal_cuts(x, weights, k, control)
    })?;
    // Cut indices are < n <= isize::MAX, so they fit an i64.
    let cuts: Vec<i64> = cuts.into_iter().map(|c| c as i64).collect();
    Ok(cuts.into_pyarray(py))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(optimal_cuts_1d, m)?)?;
    Ok(())
}
