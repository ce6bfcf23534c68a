//! The PyO3 binding layer (compiled only with the `python` feature): converts numpy inputs
//! into kernel views without copying, runs the core with the GIL released on a worker
//! thread while this thread watches for Ctrl-C, forwards progress to a Python callback, and
//! converts errors. No algorithm lives here.

use crate::control::{Control, Progress};
use crate::error::KGroupsError;
use crate::gram::{
    bandwidth, energy_gram_cross_into, energy_gram_into, gram_from_semimetric_into, Base, Points,
    Semimetric,
};
use crate::init::kmeans_plus_plus_centres;
use crate::init::Init;
use crate::kernel::{DenseKernel, KernelElement};
use crate::lloyd::LloydVariant;
use crate::lowrank::FeatureKernel;
use crate::matrix_free::DataKernel;
use crate::restarts::{fit, Algorithm, Clustering, Options};
use crate::rng::Rng;
use crate::sparse::{CsrIndex, CsrKernel};
use crate::stats::{energy_distance, energy_statistics, PairwiseSource};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{
    PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

fn to_py_err(error: KGroupsError) -> PyErr {
    match error {
        KGroupsError::InvalidInput { .. } => PyValueError::new_err(error.to_string()),
        KGroupsError::OutOfMemory { .. } => PyMemoryError::new_err(error.to_string()),
        KGroupsError::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        KGroupsError::Internal(_) => PyRuntimeError::new_err(error.to_string()),
    }
}

/// How often the waiting thread wakes up to check for signals.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Run `job` on a worker thread (inside a rayon pool of `n_threads`, or the global pool)
/// with the GIL released. Meanwhile this thread checks for signals every 50 ms and passes
/// progress events to `progress`. Ctrl-C (or an exception in the callback) sets the cancel
/// flag; the job stops at its next checkpoint and the Python exception is raised.
fn run_detached<T, F>(
    py: Python<'_>,
    n_threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
    job: F,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&Control) -> crate::Result<T> + Send,
{
    let pool = match n_threads {
        None => None,
        Some(0) => {
            return Err(PyValueError::new_err(
                "n_threads must be at least 1 (or None for all cores)",
            ))
        }
        Some(threads) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| {
                    PyRuntimeError::new_err(format!("could not start {threads} threads: {e}"))
                })?,
        ),
    };
    let cancel = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Progress>();
    let want_progress = progress.is_some();
    std::thread::scope(|scope| {
        let cancel_ref = &cancel;
        let worker = scope.spawn(move || {
            let report = move |event: &Progress| {
                let _ = sender.send(*event);
            };
            let mut control = Control::new().with_cancel(cancel_ref);
            if want_progress {
                control = control.with_progress(&report);
            }
            // A panic here is a bug; it must become an exception, never abort Python.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &pool {
                Some(pool) => pool.install(|| job(&control)),
                None => job(&control),
            }))
        });
        let mut pending_error: Option<PyErr> = None;
        let mut receiver = receiver;
        loop {
            let (r, outcome) = py.detach(move || {
                let outcome = receiver.recv_timeout(SIGNAL_POLL);
                (receiver, outcome)
            });
            receiver = r;
            match outcome {
                Ok(event) => {
                    if let (Some(callback), None) = (progress, &pending_error) {
                        let call = callback.call1((
                            event.start,
                            event.sweep,
                            event.moves_in_sweep,
                            event.objective,
                        ));
                        if let Err(e) = call {
                            cancel.store(true, Ordering::Relaxed);
                            pending_error = Some(e);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if pending_error.is_none() {
                if let Err(e) = py.check_signals() {
                    cancel.store(true, Ordering::Relaxed);
                    pending_error = Some(e);
                }
            }
        }
        let joined = py.detach(move || worker.join());
        let result = match joined {
            Ok(Ok(result)) => result,
            Ok(Err(_)) | Err(_) => return Err(PyRuntimeError::new_err(
                "internal error: the Rust core panicked (a bug in kgroups_rs, please report it)",
            )),
        };
        match (pending_error, result) {
            (Some(e), _) => Err(e),
            (None, r) => r.map_err(to_py_err),
        }
    })
}

fn clustering_to_py<'py>(
    py: Python<'py>,
    c: Clustering,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let labels: Vec<i64> = c.labels.iter().map(|&l| l as i64).collect();
    (
        labels.into_pyarray(py),
        c.objective,
        c.within,
        c.n_iter,
        c.n_moves,
        c.converged,
        c.objective_history.into_pyarray(py),
        c.cluster_terms.into_pyarray(py),
        c.n_distinct_clusters,
    )
        .into_pyobject(py)
}

fn parse_algorithm(algorithm: &str) -> PyResult<Algorithm> {
    match algorithm {
        "hartigan" => Ok(Algorithm::Hartigan),
        "lloyd-batch" => Ok(Algorithm::Lloyd(LloydVariant::Batch)),
        "lloyd-online" => Ok(Algorithm::Lloyd(LloydVariant::Online)),
        other => Err(PyValueError::new_err(format!(
            "unknown algorithm {other:?}; use 'hartigan', 'lloyd-batch' or 'lloyd-online'"
        ))),
    }
}

/// Options shared by every kernel kind, already converted from Python, plus how to run.
struct CommonArgs<'a> {
    n_threads: Option<usize>,
    algorithm: Algorithm,
    init: Init<'a>,
    weights: Option<&'a [f64]>,
    n_init: usize,
    max_iter: usize,
    seed: u64,
}

impl CommonArgs<'_> {
    fn run_detached<'py, K: crate::Kernel>(
        &self,
        py: Python<'py>,
        k: usize,
        progress: Option<&Bound<'py, PyAny>>,
        make_kernel: impl FnOnce() -> crate::Result<K> + Send,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        let result = run_detached(py, self.n_threads, progress, |control| {
            let kernel = make_kernel()?;
            self.run(&kernel, k, control)
        })?;
        clustering_to_py(py, result)
    }

    fn run<K: crate::Kernel>(
        &self,
        kernel: &K,
        k: usize,
        control: &Control,
    ) -> crate::Result<Clustering> {
        let options = Options {
            algorithm: self.algorithm,
            init: self.init,
            weights: self.weights,
            n_init: self.n_init,
            max_iter: self.max_iter,
            seed: self.seed,
        };
        fit(kernel, k, &options, control)
    }
}

fn parse_init<'a>(init: &str, labels: Option<&'a [usize]>) -> PyResult<Init<'a>> {
    match (init, labels) {
        (_, Some(labels)) => Ok(Init::Labels(labels)),
        ("k-means++", None) => Ok(Init::KMeansPlusPlus),
        ("random", None) => Ok(Init::Random),
        (other, None) => Err(PyValueError::new_err(format!(
            "invalid `init`: unknown init {other:?}; use 'k-means++', 'random' or an array of n labels"
        ))),
    }
}

fn slice_of<'a>(
    array: &'a Option<PyReadonlyArray1<'_, f64>>,
    name: &str,
) -> PyResult<Option<&'a [f64]>> {
    match array {
        None => Ok(None),
        Some(a) => a.as_slice().map(Some).map_err(|_| {
            PyValueError::new_err(format!("invalid `{name}`: the array must be contiguous"))
        }),
    }
}

fn labels_from_py(labels: Option<PyReadonlyArray1<'_, i64>>) -> PyResult<Option<Vec<usize>>> {
    let Some(labels) = labels else {
        return Ok(None);
    };
    let view = labels.as_array();
    let mut out = Vec::with_capacity(view.len());
    for (i, &label) in view.iter().enumerate() {
        if label < 0 {
            return Err(PyValueError::new_err(format!(
                "invalid `init`: initial label {label} at position {i} is negative; labels must be in 0..k"
            )));
        }
        out.push(label as usize);
    }
    Ok(Some(out))
}

fn dense_fit<'py, T: KernelElement + numpy::Element>(
    py: Python<'py>,
    g: &Bound<'py, PyArray2<T>>,
    k: usize,
    common: &CommonArgs<'_>,
    progress: Option<&Bound<'py, PyAny>>,
    check_symmetry: bool,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let shape = g.shape();
    if shape[0] != shape[1] {
        return Err(PyValueError::new_err(format!(
            "invalid `G`: the kernel matrix must be square, got shape ({}, {})",
            shape[0], shape[1]
        )));
    }
    let n = shape[0];
    let readonly = g.readonly();
    let data = readonly.as_slice().map_err(|_| {
        PyValueError::new_err(
            "invalid `G`: the kernel matrix must be C- or F-contiguous (use np.ascontiguousarray)",
        )
    })?;
    if check_symmetry {
        common.run_detached(py, k, progress, || DenseKernel::new(data, n))
    } else {
        common.run_detached(py, k, progress, || DenseKernel::trusting_symmetry(data, n))
    }
}

/// Cluster a dense kernel matrix (float64 or float32, C- or F-contiguous, symmetric).
/// Returns (labels, objective, within, n_iter, n_moves, converged, objective_history,
/// cluster_terms).
#[pyfunction]
#[pyo3(signature = (g, k, algorithm, init, init_labels, weights, n_init, max_iter, seed, n_threads=None, progress=None, check_symmetry=true))]
#[allow(clippy::too_many_arguments)]
fn cluster_dense<'py>(
    py: Python<'py>,
    g: &Bound<'py, PyAny>,
    k: usize,
    algorithm: &str,
    init: &str,
    init_labels: Option<PyReadonlyArray1<'py, i64>>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    n_init: usize,
    max_iter: usize,
    seed: u64,
    n_threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
    check_symmetry: bool,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let init_labels = labels_from_py(init_labels)?;
    let common = CommonArgs {
        n_threads,
        algorithm: parse_algorithm(algorithm)?,
        init: parse_init(init, init_labels.as_deref())?,
        weights: slice_of(&weights, "weights")?,
        n_init,
        max_iter,
        seed,
    };
    if let Ok(g64) = g.cast::<PyArray2<f64>>() {
        dense_fit(py, g64, k, &common, progress.as_ref(), check_symmetry)
    } else if let Ok(g32) = g.cast::<PyArray2<f32>>() {
        dense_fit(py, g32, k, &common, progress.as_ref(), check_symmetry)
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
    let (data, n) = square_slice(&g, "G")?;
    run_detached(py, n_threads, None, |_| {
        crate::symmetry::check_dense(data, n, "G")
    })
}

/// The three CSR arrays of one index type `I` and one value type `T`.
struct CsrArrays<'a, 'py, I: numpy::Element, T: numpy::Element> {
    indptr: &'a Bound<'py, PyArray1<I>>,
    indices: &'a Bound<'py, PyArray1<I>>,
    data: &'a Bound<'py, PyArray1<T>>,
}

fn csr_fit<'py, I: CsrIndex + numpy::Element, T: KernelElement + numpy::Element>(
    py: Python<'py>,
    arrays: CsrArrays<'_, 'py, I, T>,
    n: usize,
    k: usize,
    common: &CommonArgs<'_>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let (indptr, indices, data) = (
        arrays.indptr.readonly(),
        arrays.indices.readonly(),
        arrays.data.readonly(),
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
    common.run_detached(py, k, progress, || CsrKernel::new(indptr, indices, data, n))
}

fn csr_fit_any_data<'py, I: CsrIndex + numpy::Element>(
    py: Python<'py>,
    indptr: &Bound<'py, PyArray1<I>>,
    (indices, data): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
    (n, k): (usize, usize),
    common: &CommonArgs<'_>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let indices = indices.cast::<PyArray1<I>>().map_err(|_| {
        PyTypeError::new_err("CSR indices must have the same integer dtype as indptr")
    })?;
    if let Ok(data) = data.cast::<PyArray1<f64>>() {
        csr_fit(
            py,
            CsrArrays {
                indptr,
                indices,
                data,
            },
            n,
            k,
            common,
            progress,
        )
    } else if let Ok(data) = data.cast::<PyArray1<f32>>() {
        csr_fit(
            py,
            CsrArrays {
                indptr,
                indices,
                data,
            },
            n,
            k,
            common,
            progress,
        )
    } else {
        Err(PyTypeError::new_err("CSR data must be float64 or float32"))
    }
}

/// Cluster a sparse symmetric kernel given as CSR arrays (indptr and indices int32 or
/// int64, data float64 or float32; sorted unique column indices per row).
/// Returns the same tuple as `cluster_dense`.
#[pyfunction]
#[pyo3(signature = (indptr, indices, data, n, k, algorithm, init, init_labels, weights, n_init, max_iter, seed, n_threads=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn cluster_csr<'py>(
    py: Python<'py>,
    indptr: &Bound<'py, PyAny>,
    indices: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    n: usize,
    k: usize,
    algorithm: &str,
    init: &str,
    init_labels: Option<PyReadonlyArray1<'py, i64>>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    n_init: usize,
    max_iter: usize,
    seed: u64,
    n_threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let init_labels = labels_from_py(init_labels)?;
    let common = CommonArgs {
        n_threads,
        algorithm: parse_algorithm(algorithm)?,
        init: parse_init(init, init_labels.as_deref())?,
        weights: slice_of(&weights, "weights")?,
        n_init,
        max_iter,
        seed,
    };
    let progress = progress.as_ref();
    if let Ok(p) = indptr.cast::<PyArray1<i32>>() {
        csr_fit_any_data(py, p, (indices, data), (n, k), &common, progress)
    } else if let Ok(p) = indptr.cast::<PyArray1<i64>>() {
        csr_fit_any_data(py, p, (indices, data), (n, k), &common, progress)
    } else {
        Err(PyTypeError::new_err("CSR indptr must be int32 or int64"))
    }
}

// ---------------------------------------------------------------------------------------
// Gram matrices and energy statistics.

fn points<'a>(x: &'a PyReadonlyArray2<'_, f64>, name: &str) -> PyResult<Points<'a>> {
    let shape = x.shape();
    let data = x.as_slice().map_err(|_| {
        PyValueError::new_err(format!("invalid `{name}`: the array must be C-contiguous"))
    })?;
    if !x.is_c_contiguous() && shape[0] > 1 && shape[1] > 1 {
        return Err(PyValueError::new_err(format!(
            "invalid `{name}`: the array must be C-contiguous"
        )));
    }
    let points = Points::new(data, shape[0], shape[1]).map_err(to_py_err)?;
    Ok(points)
}

fn parse_semimetric(
    name: &str,
    alpha: f64,
    sigma: Option<f64>,
    data: Option<&Points>,
) -> PyResult<Semimetric> {
    let sigma = || -> PyResult<f64> {
        match (sigma, data) {
            (Some(sigma), _) => Ok(sigma),
            (None, Some(points)) => bandwidth(points, &Control::new()).map_err(to_py_err),
            (None, None) => Err(PyValueError::new_err(
                "sigma is required for this semimetric",
            )),
        }
    };
    let semimetric = match name {
        "power" => Semimetric::Power { alpha },
        "exponential" => Semimetric::Exponential { sigma: sigma()? },
        "gaussian" => Semimetric::Gaussian { sigma: sigma()? },
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown semimetric {other:?}; use 'power', 'exponential' or 'gaussian'"
            )))
        }
    };
    semimetric.validate().map_err(to_py_err)?;
    Ok(semimetric)
}

fn parse_base(base: &str) -> PyResult<Base> {
    match base {
        "origin" => Ok(Base::Origin),
        "mean" => Ok(Base::Mean),
        "centered" => Ok(Base::Centered),
        other => Err(PyValueError::new_err(format!(
            "invalid `base`: unknown base {other:?}; use 'mean', 'origin' or 'centered'"
        ))),
    }
}

/// A new zeroed `shape` numpy array of `T` (allocated by numpy, which asks the OS for huge
/// pages), or MemoryError naming `argument` and the size when it cannot be allocated. numpy is
/// called through Python (`numpy.zeros`) so that a failed allocation is an exception, never
/// the null pointer that makes `PyArray2::zeros` panic.
fn new_zeros<'py, T: KernelElement + numpy::Element>(
    py: Python<'py>,
    shape: (usize, usize),
    argument: &'static str,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let dtype = if std::mem::size_of::<T>() == 4 {
        "float32"
    } else {
        "float64"
    };
    let too_large = || {
        let bytes = (shape.0 as f64) * (shape.1 as f64) * std::mem::size_of::<T>() as f64;
        to_py_err(KGroupsError::OutOfMemory {
            argument,
            message: format!(
                "the {} × {} kernel matrix of {dtype} needs {}, which cannot be allocated; use fewer points, dtype=float32, or a matrix-free method (kernel_kgroups_from_data)",
                shape.0,
                shape.1,
                crate::error::human_bytes(bytes)
            ),
        })
    };
    if shape.0.checked_mul(shape.1).is_none() {
        return Err(too_large());
    }
    let zeros = py
        .import("numpy")?
        .getattr("zeros")?
        .call1(((shape.0, shape.1), dtype));
    match zeros {
        Ok(array) => Ok(array.cast_into::<PyArray2<T>>()?),
        Err(e) if e.is_instance_of::<PyMemoryError>(py) || e.is_instance_of::<PyValueError>(py) => {
            Err(too_large())
        }
        Err(e) => Err(e),
    }
}

/// Fill a new `shape` numpy array (see [`new_zeros`]) in place, on a worker thread that stops
/// at Ctrl-C.
fn new_filled<'py, T: KernelElement + numpy::Element>(
    py: Python<'py>,
    shape: (usize, usize),
    argument: &'static str,
    n_threads: Option<usize>,
    fill: impl FnOnce(&mut [T], &Control) -> crate::Result<()> + Send,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let out = new_zeros::<T>(py, shape, argument)?;
    {
        let mut writable = out.readwrite();
        let slice = writable
            .as_slice_mut()
            .map_err(|_| PyRuntimeError::new_err("internal error: new array is not contiguous"))?;
        run_detached(py, n_threads, None, |control| fill(slice, control))?;
    }
    Ok(out)
}

/// The energy Gram matrix of X (n × D, float64, C order) in float64 or float32, or the
/// cross kernel against Y.
#[pyfunction]
#[pyo3(signature = (x, y, semimetric, alpha, sigma, base, single_precision, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn energy_gram_py<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: Option<PyReadonlyArray2<'py, f64>>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    base: &str,
    single_precision: bool,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let points_x = points(&x, "X")?;
    let base = parse_base(base)?;
    let points_y = match &y {
        Some(y) => Some(points(y, "Y")?),
        None => None,
    };
    let semimetric = parse_semimetric(semimetric, alpha, sigma, Some(&points_x))?;
    match &points_y {
        None => {
            let n = points_x.n();
            if single_precision {
                Ok(
                    new_filled::<f32>(py, (n, n), "X", n_threads, |out, control| {
                        energy_gram_into(&points_x, semimetric, base, out, control)
                    })?
                    .into_any(),
                )
            } else {
                Ok(
                    new_filled::<f64>(py, (n, n), "X", n_threads, |out, control| {
                        energy_gram_into(&points_x, semimetric, base, out, control)
                    })?
                    .into_any(),
                )
            }
        }
        Some(points_y) => {
            if base == Base::Centered {
                return Err(PyValueError::new_err(
                    "invalid `base`: a cross kernel (Y given) is defined for base='mean' (the mean of Y) or base='origin', not 'centered'",
                ));
            }
            let shape = (points_x.n(), points_y.n());
            if single_precision {
                Ok(
                    new_filled::<f32>(py, shape, "X", n_threads, |out, control| {
                        energy_gram_cross_into(&points_x, points_y, semimetric, base, out, control)
                    })?
                    .into_any(),
                )
            } else {
                Ok(
                    new_filled::<f64>(py, shape, "X", n_threads, |out, control| {
                        energy_gram_cross_into(&points_x, points_y, semimetric, base, out, control)
                    })?
                    .into_any(),
                )
            }
        }
    }
}

/// The Gram matrix generated by a precomputed semimetric matrix R (float64, C order).
#[pyfunction]
#[pyo3(signature = (r, base, single_precision, n_threads=None))]
fn gram_from_semimetric_py<'py>(
    py: Python<'py>,
    r: PyReadonlyArray2<'py, f64>,
    base: &str,
    single_precision: bool,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let (data, n) = square_slice(&r, "R")?;
    let base = parse_base(base)?;
    if single_precision {
        Ok(
            new_filled::<f32>(py, (n, n), "R", n_threads, |out, control| {
                gram_from_semimetric_into(data, n, base, out, control)
            })?
            .into_any(),
        )
    } else {
        Ok(
            new_filled::<f64>(py, (n, n), "R", n_threads, |out, control| {
                gram_from_semimetric_into(data, n, base, out, control)
            })?
            .into_any(),
        )
    }
}

/// σ with σ² = mean over pairs of ‖x_a − x_b‖².
#[pyfunction]
fn bandwidth_py(py: Python<'_>, x: PyReadonlyArray2<'_, f64>) -> PyResult<f64> {
    let points = points(&x, "X")?;
    run_detached(py, None, None, |control| bandwidth(&points, control))
}

/// A square matrix as a contiguous slice and its size.
fn square_slice<'a>(a: &'a PyReadonlyArray2<'_, f64>, name: &str) -> PyResult<(&'a [f64], usize)> {
    let shape = a.shape();
    if shape[0] != shape[1] {
        return Err(PyValueError::new_err(format!(
            "invalid `{name}`: the matrix must be square, got shape ({}, {})",
            shape[0], shape[1]
        )));
    }
    let data = a.as_slice().map_err(|_| {
        PyValueError::new_err(format!("invalid `{name}`: the array must be contiguous"))
    })?;
    Ok((data, shape[0]))
}

/// Energy statistics of a labelled sample: (W, S, total, cluster weights, g as k × k, or
/// None without `with_g`). Exactly one of x, r, g is given.
#[pyfunction]
#[pyo3(signature = (labels, k, x, r, g, weights, semimetric, alpha, sigma, with_g=true, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn energy_statistics_py<'py>(
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
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let labels = labels_from_py(Some(labels))?.unwrap_or_default();
    let weights_slice = slice_of(&weights, "weights")?;
    let source = match (&x, &r, &g) {
        (Some(x), None, None) => {
            let points = points(x, "X")?;
            PairwiseSource::Data {
                points,
                semimetric: parse_semimetric(semimetric, alpha, sigma, Some(&points))?,
            }
        }
        (None, Some(r), None) => {
            let (r, n) = square_slice(r, "R")?;
            PairwiseSource::Semimetric { r, n }
        }
        (None, None, Some(g)) => {
            let (g, n) = square_slice(g, "G")?;
            PairwiseSource::GramF64 { g, n }
        }
        _ => return Err(PyValueError::new_err("give exactly one of X, R or G")),
    };
    let stats = run_detached(py, n_threads, None, |control| {
        energy_statistics(&source, &labels, k, weights_slice, with_g, control)
    })?;
    let g_matrix = match stats.g {
        Some(g) => Some(
            ndarray::Array2::from_shape_vec((k, k), g)
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?
                .into_pyarray(py),
        ),
        None => None,
    };
    (
        stats.within,
        stats.between,
        stats.total,
        stats.cluster_weights.into_pyarray(py),
        g_matrix,
    )
        .into_pyobject(py)
}

/// Two-sample energy distance E(X, Y).
#[pyfunction]
#[pyo3(signature = (x, y, semimetric, alpha, sigma, n_threads=None))]
fn energy_distance_py(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray2<'_, f64>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    n_threads: Option<usize>,
) -> PyResult<f64> {
    let (a, b) = (points(&x, "X")?, points(&y, "Y")?);
    let semimetric = parse_semimetric(semimetric, alpha, sigma, Some(&a))?;
    run_detached(py, n_threads, None, |control| {
        energy_distance(&a, &b, semimetric, control)
    })
}

// ---------------------------------------------------------------------------------------
// Beyond the n × n matrix: kernels from data on the fly, and explicit low-rank features.

/// Exact matrix-free clustering of data X (n × D, float64, C order) with the energy kernel
/// of `semimetric` and `base` ('mean' or 'origin'); rows of G are computed when needed.
#[pyfunction]
#[pyo3(signature = (x, semimetric, alpha, sigma, base, k, algorithm, init, init_labels, weights, n_init, max_iter, seed, n_threads=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn cluster_data<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    base: &str,
    k: usize,
    algorithm: &str,
    init: &str,
    init_labels: Option<PyReadonlyArray1<'py, i64>>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    n_init: usize,
    max_iter: usize,
    seed: u64,
    n_threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let points = points(&x, "X")?;
    let semimetric = parse_semimetric(semimetric, alpha, sigma, Some(&points))?;
    let base = parse_base(base)?;
    let init_labels = labels_from_py(init_labels)?;
    let common = CommonArgs {
        n_threads,
        algorithm: parse_algorithm(algorithm)?,
        init: parse_init(init, init_labels.as_deref())?,
        weights: slice_of(&weights, "weights")?,
        n_init,
        max_iter,
        seed,
    };
    common.run_detached(py, k, progress.as_ref(), || {
        DataKernel::new(points, semimetric, base)
    })
}

/// Clustering with the low-rank kernel Φ Φᵀ of explicit features Φ (n × m, float64, C order).
#[pyfunction]
#[pyo3(signature = (features, k, algorithm, init, init_labels, weights, n_init, max_iter, seed, n_threads=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn cluster_features<'py>(
    py: Python<'py>,
    features: PyReadonlyArray2<'py, f64>,
    k: usize,
    algorithm: &str,
    init: &str,
    init_labels: Option<PyReadonlyArray1<'py, i64>>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    n_init: usize,
    max_iter: usize,
    seed: u64,
    n_threads: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let shape = features.shape();
    let (n, m) = (shape[0], shape[1]);
    if !features.is_c_contiguous() {
        return Err(PyValueError::new_err(
            "invalid `features`: the array must be C-contiguous",
        ));
    }
    let data = features
        .as_slice()
        .map_err(|_| PyValueError::new_err("invalid `features`: the array must be C-contiguous"))?;
    let init_labels = labels_from_py(init_labels)?;
    let common = CommonArgs {
        n_threads,
        algorithm: parse_algorithm(algorithm)?,
        init: parse_init(init, init_labels.as_deref())?,
        weights: slice_of(&weights, "weights")?,
        n_init,
        max_iter,
        seed,
    };
    common.run_detached(py, k, progress.as_ref(), || FeatureKernel::new(data, n, m))
}

/// Indices of m landmarks: "uniform" (without replacement) or "k-means++" (weighted D²
/// sampling in the feature space of the energy kernel, one candidate per landmark).
#[pyfunction]
#[pyo3(signature = (x, m, method, semimetric, alpha, sigma, seed, n_threads=None))]
#[allow(clippy::too_many_arguments)]
fn select_landmarks<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    m: usize,
    method: &str,
    semimetric: &str,
    alpha: f64,
    sigma: Option<f64>,
    seed: u64,
    n_threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let points = points(&x, "X")?;
    let n = points.n();
    if m < 1 || m > n {
        return Err(PyValueError::new_err(format!(
            "invalid `n_components`: {m} landmarks requested but 1 <= n_components <= n = {n} is required"
        )));
    }
    let semimetric = parse_semimetric(semimetric, alpha, sigma, Some(&points))?;
    let mut rng = Rng::new(seed);
    let chosen: Vec<usize> = match method {
        // m <= n was checked above.
        "uniform" => rng.distinct(n, m).unwrap_or_default(),
        "k-means++" => run_detached(py, n_threads, None, |control| {
            // The caller (Nyström) centres the data itself; base 0 keeps its results.
            let kernel = DataKernel::new(points, semimetric, Base::Origin)?;
            control.checkpoint()?;
            kmeans_plus_plus_centres(&kernel, m, &vec![1.0; n], 1, &mut rng, control)
        })?,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown landmarks method {other:?}; use 'k-means++' or 'uniform'"
            )))
        }
    };
    Ok(chosen
        .into_iter()
        .map(|i| i as i64)
        .collect::<Vec<_>>()
        .into_pyarray(py))
}

/// Internal: panic on purpose, to test that a Rust panic becomes a Python exception.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    run_detached(py, Some(1), None, |_| -> crate::Result<()> {
        panic!("deliberate test panic")
    })
}

/// Internal: sleep in checkpointed slices until cancelled (to test Ctrl-C handling).
#[pyfunction]
fn _sleep_for_tests(py: Python<'_>, seconds: f64) -> PyResult<()> {
    run_detached(py, None, None, |control| {
        let deadline = std::time::Instant::now() + Duration::from_secs_f64(seconds);
        while std::time::Instant::now() < deadline {
            control.checkpoint()?;
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    })
}

/// Cut indices of an optimal partition of sorted 1-D data into k intervals (`kgroups_1d`).
#[pyfunction]
fn optimal_cuts_1d<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    k: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let x = x
        .as_slice()
        .map_err(|_| PyValueError::new_err("invalid `x`: the array must be contiguous"))?;
    let weights = slice_of(&weights, "weights")?;
    let cuts = run_detached(py, None, None, |control| {
        crate::one_d::optimal_cuts(x, weights, k, control)
    })?;
    Ok(cuts
        .into_iter()
        .map(|c| c as i64)
        .collect::<Vec<_>>()
        .into_pyarray(py))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cluster_dense, m)?)?;
    m.add_function(wrap_pyfunction!(check_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_csr, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_data, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_features, m)?)?;
    m.add_function(wrap_pyfunction!(select_landmarks, m)?)?;
    m.add("energy_gram", wrap_pyfunction!(energy_gram_py, m)?)?;
    m.add(
        "gram_from_semimetric",
        wrap_pyfunction!(gram_from_semimetric_py, m)?,
    )?;
    m.add("bandwidth", wrap_pyfunction!(bandwidth_py, m)?)?;
    m.add(
        "energy_statistics",
        wrap_pyfunction!(energy_statistics_py, m)?,
    )?;
    m.add("energy_distance", wrap_pyfunction!(energy_distance_py, m)?)?;
    m.add_function(wrap_pyfunction!(optimal_cuts_1d, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_sleep_for_tests, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
