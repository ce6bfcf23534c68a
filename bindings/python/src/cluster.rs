//! The clustering entry points: a kernel (dense, CSR, data or features), k and the options.

use super::arrays::{points, rows, square};
use super::detach::run_detached;
use super::options::{parse_base, parse_semimetric, FitOptions};
use super::results::Clustering;
use kgroups::kernel::csr::reorder::{self, Reorder};
use kgroups::{CsrIndex, CsrKernel, DataKernel, DenseKernel, FeatureKernel, KernelElement};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

fn dense_fit<T: KernelElement + numpy::Element>(
    g: &Bound<'_, PyArray2<T>>,
    k: usize,
    options: &FitOptions,
    check_symmetry: bool,
) -> PyResult<Clustering> {
    let shape = g.shape();
    if shape[0] != shape[1] {
        return Err(PyValueError::new_err(format!(
            "invalid `G`: the kernel matrix must be square, got shape ({}, {})",
            shape[0], shape[1]
        )));
    }
    let n = shape[0];
    // try_: an array borrowed for writing elsewhere is an error, not a panic.
    let readonly = g.try_readonly()?;
    // C or F order: a symmetric matrix is its own transpose.
    let data = readonly.as_slice().map_err(|_| {
        PyValueError::new_err(
            "invalid `G`: the kernel matrix must be C- or F-contiguous (use np.ascontiguousarray)",
        )
    })?;
    if check_symmetry {
        // Checked in the fit's first pass over G, fused with the cluster sums.
        options.fit(g.py(), k, |_| DenseKernel::with_deferred_check(data, n))
    } else {
        options.fit(g.py(), k, |_| DenseKernel::trusting_symmetry(data, n))
    }
}

/// Cluster a dense kernel matrix (float64 or float32, C- or F-contiguous, symmetric).
#[pyfunction]
#[pyo3(signature = (g, k, options, check_symmetry=true))]
fn cluster_dense(
    g: &Bound<'_, PyAny>,
    k: usize,
    options: &Bound<'_, FitOptions>,
    check_symmetry: bool,
) -> PyResult<Clustering> {
    let options = options.get();
    if let Ok(g64) = g.cast::<PyArray2<f64>>() {
        dense_fit(g64, k, options, check_symmetry)
    } else if let Ok(g32) = g.cast::<PyArray2<f32>>() {
        dense_fit(g32, k, options, check_symmetry)
    } else {
        Err(PyTypeError::new_err(
            "G must be a 2-D numpy array of float64 or float32 (the Python wrapper converts other inputs)",
        ))
    }
}

/// Checks a dense float64 kernel matrix by the crate's one symmetry rule (and finiteness),
/// without clustering: for callers that use only part of it in a clustering.
#[pyfunction]
#[pyo3(signature = (g, n_threads=None))]
fn check_kernel(
    py: Python<'_>,
    g: PyReadonlyArray2<'_, f64>,
    n_threads: Option<usize>,
) -> PyResult<()> {
    let (data, n) = square(&g, "G")?;
    run_detached(py, n_threads, None, |control| {
        kgroups::validate::symmetry::check_dense_with_control(data, n, "G", control)
    })
}

/// What to do with a CSR kernel once its arrays are borrowed with their types.
#[derive(Clone, Copy)]
enum CsrCall<'a> {
    /// Cluster it into `k` groups, renumbered first as `reorder` says.
    Fit {
        k: usize,
        options: &'a FitOptions,
        reorder: Reorder,
    },
    /// Check it (structure, finiteness, symmetry) and nothing more.
    Check { n_threads: Option<usize> },
}

/// Run `call` on CSR arrays of one index type `I` and one value type `T`.
fn csr_run<I: CsrIndex + numpy::Element, T: KernelElement + numpy::Element>(
    indptr: &Bound<'_, PyArray1<I>>,
    indices: &Bound<'_, PyArray1<I>>,
    data: &Bound<'_, PyArray1<T>>,
    n: usize,
    call: CsrCall<'_>,
) -> PyResult<Option<Clustering>> {
    let py = indptr.py();
    let (indptr, indices, data) = (
        indptr.try_readonly()?,
        indices.try_readonly()?,
        data.try_readonly()?,
    );
    let contiguous = |name: &str| {
        PyValueError::new_err(format!(
            "invalid `G`: the CSR {name} array must be contiguous"
        ))
    };
    let (indptr, indices, data) = (
        indptr.as_slice().map_err(|_| contiguous("indptr"))?,
        indices.as_slice().map_err(|_| contiguous("indices"))?,
        data.as_slice().map_err(|_| contiguous("data"))?,
    );
    match call {
        CsrCall::Fit {
            k,
            options,
            reorder,
        } => options
            .run(py, |options, control| {
                let kernel = CsrKernel::new(indptr, indices, data, n)?;
                reorder::fit(&kernel, k, options, reorder, control)
            })
            .map(Some),
        CsrCall::Check { n_threads } => run_detached(py, n_threads, None, |_| {
            CsrKernel::new(indptr, indices, data, n).map(|_| None)
        }),
    }
}

/// [`csr_run`] for the value type of `data`, once the index type is known.
fn csr_run_any_data<I: CsrIndex + numpy::Element>(
    indptr: &Bound<'_, PyArray1<I>>,
    indices: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    n: usize,
    call: CsrCall<'_>,
) -> PyResult<Option<Clustering>> {
    let indices = indices.cast::<PyArray1<I>>().map_err(|_| {
        PyTypeError::new_err("CSR indices must have the same integer dtype as indptr")
    })?;
    if let Ok(data) = data.cast::<PyArray1<f64>>() {
        csr_run(indptr, indices, data, n, call)
    } else if let Ok(data) = data.cast::<PyArray1<f32>>() {
        csr_run(indptr, indices, data, n, call)
    } else {
        Err(PyTypeError::new_err("CSR data must be float64 or float32"))
    }
}

/// [`csr_run`] for CSR arrays of any supported types (indptr and indices int32 or int64, data
/// float64 or float32).
fn csr_run_any(
    indptr: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    n: usize,
    call: CsrCall<'_>,
) -> PyResult<Option<Clustering>> {
    if let Ok(p) = indptr.cast::<PyArray1<i32>>() {
        csr_run_any_data(p, indices, data, n, call)
    } else if let Ok(p) = indptr.cast::<PyArray1<i64>>() {
        csr_run_any_data(p, indices, data, n, call)
    } else {
        Err(PyTypeError::new_err("CSR indptr must be int32 or int64"))
    }
}

/// `reorder`: "auto", "always" or "never" (see [`Reorder`]).
fn parse_reorder(reorder: &str) -> PyResult<Reorder> {
    match reorder {
        "auto" => Ok(Reorder::Auto),
        "always" => Ok(Reorder::Always),
        "never" => Ok(Reorder::Never),
        other => Err(PyValueError::new_err(format!(
            "invalid `reorder`: unknown value {other:?}; use 'auto', 'always' or 'never'"
        ))),
    }
}

/// Cluster a sparse symmetric n × n kernel given as CSR arrays (indptr and indices int32 or
/// int64, data float64 or float32; sorted unique column indices per row), renumbered for
/// the local search as `reorder` ("auto", "always", "never") says.
#[pyfunction]
#[pyo3(signature = (indptr, indices, data, n, k, options, reorder="auto"))]
fn cluster_csr(
    indptr: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    n: usize,
    k: usize,
    options: &Bound<'_, FitOptions>,
    reorder: &str,
) -> PyResult<Clustering> {
    let call = CsrCall::Fit {
        k,
        options: options.get(),
        reorder: parse_reorder(reorder)?,
    };
    csr_run_any(indptr, indices, data, n, call)?
        .ok_or_else(|| PyRuntimeError::new_err("internal error: a fit returned no clustering"))
}

/// Checks a sparse n × n kernel given as CSR arrays (as [`cluster_csr`] takes them) by the
/// crate's rules (structure, finiteness, the one symmetry rule), without clustering.
#[pyfunction]
#[pyo3(signature = (indptr, indices, data, n, n_threads=None))]
fn check_csr_kernel(
    indptr: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    n: usize,
    n_threads: Option<usize>,
) -> PyResult<()> {
    csr_run_any(indptr, indices, data, n, CsrCall::Check { n_threads }).map(|_| ())
}

/// Exact matrix-free clustering of data X (n × D, float64, C order) with the energy kernel
/// of `semimetric` and `base` ('mean' or 'origin'); rows of G are computed when needed.
#[pyfunction]
fn cluster_data(
    x: PyReadonlyArray2<'_, f64>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    base: &str,
    k: usize,
    options: &Bound<'_, FitOptions>,
) -> PyResult<Clustering> {
    let points = points(&x, "X")?;
    let semimetric = parse_semimetric(semimetric, alpha, sigma)?;
    let base = parse_base(base)?;
    options.get().fit(x.py(), k, |control| {
        let points = points.check()?;
        let semimetric = semimetric.resolve(&points, control)?;
        DataKernel::new(points, semimetric, base)
    })
}

/// Clustering with the low-rank kernel Φ Φᵀ of explicit features Φ (n × m, float64, C order).
#[pyfunction]
fn cluster_features(
    features: PyReadonlyArray2<'_, f64>,
    k: usize,
    options: &Bound<'_, FitOptions>,
) -> PyResult<Clustering> {
    let (data, n, m) = rows(&features, "features")?;
    options
        .get()
        .fit(features.py(), k, |_| FeatureKernel::new(data, n, m))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cluster_dense, m)?)?;
    m.add_function(wrap_pyfunction!(check_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_csr, m)?)?;
    m.add_function(wrap_pyfunction!(check_csr_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_data, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_features, m)?)?;
    Ok(())
}
