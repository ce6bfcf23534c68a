//! Energy statistics of a labelled sample, and the two-sample energy distance.

use super::arrays::{contiguous, labels as label_indices, points, square, RawPoints};
use super::detach::run_detached;
use super::options::{parse_semimetric, SemimetricChoice};
use kgroups::{energy_distance, energy_statistics, PairwiseSource};
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// W, S, the total, the cluster weights and g (k × k, or None without `with_g`).
type Statistics<'py> = (
    f64,
    f64,
    f64,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyArray2<f64>>>,
);

/// Where the pairwise semimetric of [`statistics`] comes from, before the job checks it.
enum Source<'a> {
    /// Data, with a semimetric whose bandwidth may still be computed from them.
    Data(RawPoints<'a>, SemimetricChoice),
    /// A semimetric or Gram matrix, as given.
    Ready(PairwiseSource<'a>),
}

/// Energy statistics of a labelled sample: (W, S, total, cluster weights, g as k × k, or
/// None without `with_g`). Exactly one of x, r, g is given.
#[pyfunction(name = "energy_statistics")]
#[pyo3(signature = (labels, k, x, r, g, weights, semimetric, alpha, sigma, with_g=true, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn statistics<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray1<'py, i64>,
    k: usize,
    x: Option<PyReadonlyArray2<'py, f64>>,
    r: Option<PyReadonlyArray2<'py, f64>>,
    g: Option<PyReadonlyArray2<'py, f64>>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    with_g: bool,
    n_threads: Option<usize>,
) -> PyResult<Statistics<'py>> {
    let labels = label_indices(&labels, "labels")?;
    let weights = (weights.as_ref())
        .map(|w| contiguous(w, "weights"))
        .transpose()?;
    // The data are checked, and a bandwidth computed, in the job (off the GIL).
    let source = match (&x, &r, &g) {
        (Some(x), None, None) => {
            Source::Data(points(x, "X")?, parse_semimetric(semimetric, alpha, sigma)?)
        }
        (None, Some(r), None) => {
            let (r, n) = square(r, "R")?;
            Source::Ready(PairwiseSource::Semimetric { r, n })
        }
        (None, None, Some(g)) => {
            let (g, n) = square(g, "G")?;
            Source::Ready(PairwiseSource::GramF64 { g, n })
        }
        _ => return Err(PyValueError::new_err("give exactly one of X, R or G")),
    };
    let stats = run_detached(py, n_threads, None, |control| {
        let source = match source {
            Source::Ready(source) => source,
            Source::Data(points, semimetric) => {
                let points = points.check()?;
                let semimetric = semimetric.resolve(&points, control)?;
                PairwiseSource::Data { points, semimetric }
            }
        };
        energy_statistics(&source, &labels, k, weights, with_g, control)
    })?;
    let g_matrix = match stats.g {
        Some(g) => Some(
            ndarray::Array2::from_shape_vec((k, k), g)
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?
                .into_pyarray(py),
        ),
        None => None,
    };
    Ok((
        stats.within,
        stats.between,
        stats.total,
        stats.cluster_weights.into_pyarray(py).into_any(),
        g_matrix,
    ))
}

/// Two-sample energy distance E(X, Y).
#[pyfunction(name = "energy_distance")]
#[pyo3(signature = (x, y, semimetric, alpha, sigma, n_threads=None))]
fn distance(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray2<'_, f64>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    n_threads: Option<usize>,
) -> PyResult<f64> {
    let (a, b) = (points(&x, "X")?, points(&y, "Y")?);
    let semimetric = parse_semimetric(semimetric, alpha, sigma)?;
    run_detached(py, n_threads, None, |control| {
        let (a, b) = (a.check()?, b.check()?);
        let semimetric = semimetric.resolve(&a, control)?;
        energy_distance(&a, &b, semimetric, control)
    })
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(statistics, m)?)?;
    m.add_function(wrap_pyfunction!(distance, m)?)?;
    Ok(())
}
