//! The PyO3 binding layer (compiled only with the `python` feature): converts numpy inputs
//! into kernel views without copying, runs the core with the GIL released on a worker
//! thread while this thread watches for Ctrl-C, forwards progress to a Python callback, and
//! converts errors. No algorithm lives here.

use crate::control::{Control, Progress};
use crate::error::KGroupsError;
use crate::init::Init;
use crate::kernel::{DenseKernel, KernelElement};
use crate::lloyd::LloydVariant;
use crate::restarts::{fit, Algorithm, Clustering, Options};
use crate::sparse::{CsrIndex, CsrKernel};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

fn to_py_err(error: KGroupsError) -> PyErr {
    match error {
        KGroupsError::InvalidInput { .. } => PyValueError::new_err(error.to_string()),
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
    common.run_detached(py, k, progress, || DenseKernel::new(data, n))
}

/// Cluster a dense kernel matrix (float64 or float32, C- or F-contiguous, symmetric).
/// Returns (labels, objective, within, n_iter, n_moves, converged, objective_history).
#[pyfunction]
#[pyo3(signature = (g, k, algorithm, init, init_labels, weights, n_init, max_iter, seed, n_threads=None, progress=None))]
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
        dense_fit(py, g64, k, &common, progress.as_ref())
    } else if let Ok(g32) = g.cast::<PyArray2<f32>>() {
        dense_fit(py, g32, k, &common, progress.as_ref())
    } else {
        Err(PyTypeError::new_err(
            "G must be a 2-D numpy array of float64 or float32 (the Python wrapper converts other inputs)",
        ))
    }
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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cluster_dense, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_csr, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_sleep_for_tests, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
