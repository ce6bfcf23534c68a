//! Options from Python, parsed once: the fit options object and the string choices.

use super::arrays::{contiguous, labels};
use super::detach::run_detached;
use super::errors::{to_py_err, IntoPyErr};
use super::results::Clustering;
use kgroups::error::KGroupsError;
use kgroups::kernel::LandmarkMethod;
use kgroups::Control;
use kgroups::{bandwidth, fit, Algorithm, Base, Init, Kernel, Options, Points, Semimetric};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The initialisation, owned (the core's [`Init`] borrows the labels).
enum InitChoice {
    KMeansPlusPlus,
    Random,
    Spectral,
    Labels(Vec<usize>),
}

/// The options of one clustering call (everything but the kernel and k), converted from
/// Python once; every `cluster_*` function takes one. Built by `clustering.run_clustering`,
/// which has already checked types and ranges; the core checks the values again.
#[pyclass(frozen, module = "kgroups_rs._core")]
pub(super) struct FitOptions {
    algorithm: Algorithm,
    init: InitChoice,
    /// Borrowed as a slice while a fit runs, never copied.
    weights: Option<Py<PyArray1<f64>>>,
    n_init: usize,
    max_iter: usize,
    seed: u64,
    n_threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    shift: f64,
}

#[pymethods]
impl FitOptions {
    #[new]
    #[pyo3(signature = (*, algorithm="hartigan", init=None, weights=None, n_init=1, max_iter=300, seed=0, n_threads=None, progress=None, shift=0.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        algorithm: &str,
        init: Option<&Bound<'_, PyAny>>,
        weights: Option<Bound<'_, PyArray1<f64>>>,
        n_init: usize,
        max_iter: usize,
        seed: u64,
        n_threads: Option<usize>,
        progress: Option<Py<PyAny>>,
        shift: f64,
    ) -> PyResult<Self> {
        if let Some(w) = &weights {
            // Refused now rather than when the fit borrows them.
            contiguous(&w.try_readonly()?, "weights")?;
        }
        Ok(FitOptions {
            algorithm: parse_algorithm(algorithm)?,
            init: parse_init(init)?,
            weights: weights.map(Bound::unbind),
            n_init,
            max_iter,
            seed,
            n_threads,
            progress,
            shift,
        })
    }
}

impl FitOptions {
    /// Build the kernel with `make_kernel` and cluster it into `k` groups, on a worker
    /// thread that stops at Ctrl-C.
    pub(super) fn fit<K: Kernel>(
        &self,
        py: Python<'_>,
        k: usize,
        make_kernel: impl FnOnce(&Control) -> kgroups::Result<K> + Send,
    ) -> PyResult<Clustering> {
        self.run(py, |options, control| {
            let kernel = make_kernel(control)?;
            fit(&kernel, k, options, control)
        })
    }

    /// Run `search` with these options converted for the core, on a worker thread that
    /// stops at Ctrl-C (for clusterings that are more than [`fit`] on one kernel).
    pub(super) fn run(
        &self,
        py: Python<'_>,
        search: impl FnOnce(&Options, &Control) -> kgroups::Result<kgroups::Clustering> + Send,
    ) -> PyResult<Clustering> {
        let result = self.run_job(py, search)?;
        Ok(Clustering::new(py, result))
    }

    /// [`FitOptions::run`] for a job that returns anything (a significance test, …).
    pub(super) fn run_job<T: Send>(
        &self,
        py: Python<'_>,
        job: impl FnOnce(&Options, &Control) -> kgroups::Result<T> + Send,
    ) -> PyResult<T> {
        let weights = (self.weights.as_ref())
            .map(|w| w.bind(py).try_readonly())
            .transpose()?;
        let weights = (weights.as_ref())
            .map(|w| contiguous(w, "weights"))
            .transpose()?;
        let options = Options {
            algorithm: self.algorithm,
            init: match &self.init {
                InitChoice::KMeansPlusPlus => Init::KMeansPlusPlus,
                InitChoice::Random => Init::Random,
                InitChoice::Spectral => Init::Spectral,
                InitChoice::Labels(labels) => Init::Labels(labels),
            },
            weights,
            n_init: self.n_init,
            max_iter: self.max_iter,
            seed: self.seed,
            shift: self.shift,
        };
        let progress = self.progress.as_ref().map(|p| p.bind(py));
        run_detached(py, self.n_threads, progress, |control| {
            job(&options, control)
        })
    }
}

/// The public names of the searches (Python's `_algorithm.ALGORITHMS`).
fn parse_algorithm(algorithm: &str) -> PyResult<Algorithm> {
    match algorithm {
        "hartigan" => Ok(Algorithm::Hartigan),
        "lloyd" => Ok(Algorithm::Lloyd),
        "lloyd-online" => Ok(Algorithm::LloydOnline),
        other => Err(PyValueError::new_err(format!(
            "unknown algorithm {other:?}; use 'hartigan', 'lloyd' or 'lloyd-online'"
        ))),
    }
}

/// `init`: "k-means++" (also when absent), "random", "spectral", or an int64 array of labels.
fn parse_init(init: Option<&Bound<'_, PyAny>>) -> PyResult<InitChoice> {
    let Some(init) = init else {
        return Ok(InitChoice::KMeansPlusPlus);
    };
    if let Ok(name) = init.cast::<PyString>() {
        return match &*name.to_cow()? {
            "k-means++" => Ok(InitChoice::KMeansPlusPlus),
            "random" => Ok(InitChoice::Random),
            "spectral" => Ok(InitChoice::Spectral),
            other => Err(KGroupsError::invalid(
                "init",
                format!(
                    "unknown init {other:?}; use 'k-means++', 'random', 'spectral' or an array \
                     of n labels"
                ),
            )
            .into_py_err()),
        };
    }
    let array: PyReadonlyArray1<'_, i64> = init.extract()?;
    Ok(InitChoice::Labels(labels(&array, "init")?))
}

/// A semimetric as parsed from its name: complete, or with its bandwidth still to be
/// computed from the data (in the detached job, by [`SemimetricChoice::resolve`]).
#[derive(Clone, Copy)]
pub(super) enum SemimetricChoice {
    /// Power, or a bandwidth given: checked when parsed.
    Given(Semimetric),
    /// Exponential (`gaussian` false) or Gaussian with σ the bandwidth of the data.
    DataBandwidth { gaussian: bool },
}

impl SemimetricChoice {
    /// The semimetric, its bandwidth computed from `data` when it was not given.
    pub(super) fn resolve(self, data: &Points, control: &Control) -> kgroups::Result<Semimetric> {
        match self {
            SemimetricChoice::Given(semimetric) => Ok(semimetric),
            SemimetricChoice::DataBandwidth { gaussian } => {
                let sigma = bandwidth(data, control)?;
                let semimetric = if gaussian {
                    Semimetric::Gaussian { sigma }
                } else {
                    Semimetric::Exponential { sigma }
                };
                semimetric.validate()?;
                Ok(semimetric)
            }
        }
    }
}

/// A semimetric by name; `sigma` `None` is the bandwidth of the data (see
/// [`SemimetricChoice::resolve`]).
pub(super) fn parse_semimetric(
    name: &str,
    alpha: f64,
    sigma: Option<f64>,
) -> PyResult<SemimetricChoice> {
    let with_sigma = |gaussian: bool| match sigma {
        None => SemimetricChoice::DataBandwidth { gaussian },
        Some(sigma) if gaussian => SemimetricChoice::Given(Semimetric::Gaussian { sigma }),
        Some(sigma) => SemimetricChoice::Given(Semimetric::Exponential { sigma }),
    };
    let choice = match name {
        "power" => SemimetricChoice::Given(Semimetric::Power { alpha }),
        "exponential" => with_sigma(false),
        "gaussian" => with_sigma(true),
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown semimetric {other:?}; use 'power', 'exponential' or 'gaussian'"
            )))
        }
    };
    if let SemimetricChoice::Given(semimetric) = choice {
        semimetric.validate().map_err(to_py_err)?;
    }
    Ok(choice)
}

pub(super) fn parse_base(base: &str) -> PyResult<Base> {
    match base {
        "origin" => Ok(Base::Origin),
        "mean" => Ok(Base::Mean),
        "centered" => Ok(Base::Centered),
        other => Err(KGroupsError::invalid(
            "base",
            format!("unknown base {other:?}; use 'mean', 'origin' or 'centered'"),
        )
        .into_py_err()),
    }
}

pub(super) fn parse_landmarks(method: &str) -> PyResult<LandmarkMethod> {
    match method {
        "k-means++" => Ok(LandmarkMethod::KMeansPlusPlus),
        "uniform" => Ok(LandmarkMethod::Uniform),
        other => Err(PyValueError::new_err(format!(
            "unknown landmarks method {other:?}; use 'k-means++' or 'uniform'"
        ))),
    }
}
