//! The test of "one Gaussian" by a k-group partition: data, k, n_null and the fit options.

use super::arrays::points;
use super::options::FitOptions;
use super::results::Clustering;
use kgroups::significance::{cluster_significance, SignificanceOptions};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

/// What `_core.cluster_significance` returns: (statistic, within, total, clustering,
/// null_statistics, pvalue, pvalue_se, sample_eigenvalues).
type SignificanceTuple<'py> = (
    f64,
    f64,
    f64,
    Clustering,
    Bound<'py, PyArray1<f64>>,
    f64,
    f64,
    Bound<'py, PyArray1<f64>>,
);

/// Monte Carlo test of "X (n × D, float64, C order) is one Gaussian" by its k-group energy
/// partition, against null data sets with exactly X's sample mean and covariance.
#[pyfunction(name = "cluster_significance")]
fn significance<'py>(
    x: PyReadonlyArray2<'py, f64>,
    k: usize,
    n_null: usize,
    options: &Bound<'py, FitOptions>,
) -> PyResult<SignificanceTuple<'py>> {
    let py = x.py();
    let raw = points(&x, "X")?;
    let result = options.get().run_job(py, |fit, control| {
        let options = SignificanceOptions { n_null, fit: *fit };
        cluster_significance(raw.check()?, k, &options, control)
    })?;
    Ok((
        result.statistic,
        result.within,
        result.total,
        Clustering::new(py, result.clustering),
        result.null_statistics.into_pyarray(py),
        result.pvalue,
        result.pvalue_se,
        result.sample_eigenvalues.into_pyarray(py),
    ))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(significance, m)?)?;
    Ok(())
}
