//! The one conversion of the core's errors into Python exceptions. The core's message
//! already names the argument in its Python spelling, so it is passed through unchanged.
//! `KGroupsError` and `PyErr` both belong to other crates, so the orphan rule forbids
//! `impl From<KGroupsError> for PyErr` here: core results are converted with
//! `.map_err(to_py_err)?` and single errors with `.into_py_err()`.

use kgroups::error::KGroupsError;
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::PyErr;

/// The Python exception a core error becomes.
pub(super) fn to_py_err(error: KGroupsError) -> PyErr {
    match error {
        KGroupsError::InvalidInput { .. } => PyValueError::new_err(error.to_string()),
        KGroupsError::OutOfMemory { .. } => PyMemoryError::new_err(error.to_string()),
        KGroupsError::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        KGroupsError::Internal(_) => PyRuntimeError::new_err(error.to_string()),
    }
}

/// `error.into_py_err()`: [`to_py_err`] as a method, for an error built in place.
pub(super) trait IntoPyErr {
    fn into_py_err(self) -> PyErr;
}

impl IntoPyErr for KGroupsError {
    fn into_py_err(self) -> PyErr {
        to_py_err(self)
    }
}

/// What a panic in the core becomes: a bug report, never an abort of the interpreter.
pub(super) fn panicked() -> PyErr {
    PyRuntimeError::new_err(
        "internal error: the Rust core panicked (a bug in kgroups_rs, please report it)",
    )
}
