//! The significance test of a partition: data, k, the null's options and the fit options.

use super::arrays::points;
use super::options::FitOptions;
use super::results::Clustering;
use kgroups::significance::{cluster_significance, NullCovariance, SignificanceOptions};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What `_core.cluster_significance` returns: (statistic, within, total, clustering,
/// null_statistics, pvalue, pvalue_se, sample_eigenvalues, null_eigenvalues,
/// background_variance).
type SignificanceTuple<'py> = (
    f64,
    f64,
    f64,
    Clustering,
    Bound<'py, PyArray1<f64>>,
    f64,
    f64,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    f64,
);

/// SigClust-style significance test of the k-group energy partition of X (n × D, float64,
/// C order); `covariance` is "conditional", "sample", "debiased" or "hard-threshold".
#[pyfunction(name = "cluster_significance")]
fn significance<'py>(
    x: PyReadonlyArray2<'py, f64>,
    k: usize,
    n_null: usize,
    covariance: &str,
    options: &Bound<'py, FitOptions>,
) -> PyResult<SignificanceTuple<'py>> {
    let py = x.py();
    let covariance = match covariance {
        "hard-threshold" => NullCovariance::HardThreshold,
        "conditional" => NullCovariance::Conditional,
        "sample" => NullCovariance::Sample,
        "debiased" => NullCovariance::Debiased,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown covariance {other:?}; use 'conditional', 'sample', 'debiased' or 'hard-threshold'"
            )))
        }
    };
    let raw = points(&x, "X")?;
    let result = options.get().run_job(py, |fit, control| {
        let options = SignificanceOptions {
            n_null,
            fit: *fit,
            covariance,
        };
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
        result.null_eigenvalues.into_pyarray(py),
        result.background_variance,
    ))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(significance, m)?)?;
    Ok(())
}
