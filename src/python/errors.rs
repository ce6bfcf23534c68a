//! The one conversion of the core's errors into Python exceptions, so that `?` works on
//! every core call. The core's message already names the argument in its Python spelling,
//! so it is passed through unchanged.

use crate::error::KGroupsError;
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::PyErr;

impl From<KGroupsError> for PyErr {
    fn from(error: KGroupsError) -> PyErr {
        match error {
            KGroupsError::InvalidInput { .. } => PyValueError::new_err(error.to_string()),
            KGroupsError::OutOfMemory { .. } => PyMemoryError::new_err(error.to_string()),
            KGroupsError::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
            KGroupsError::Internal(_) => PyRuntimeError::new_err(error.to_string()),
        }
    }
}

/// What a panic in the core becomes: a bug report, never an abort of the interpreter.
pub(super) fn panicked() -> PyErr {
    PyRuntimeError::new_err(
        "internal error: the Rust core panicked (a bug in kgroups_rs, please report it)",
    )
}
