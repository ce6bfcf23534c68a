//! numpy arrays as the slices the core borrows (no copies), and new numpy outputs.

use super::errors::{to_py_err, IntoPyErr};
use kgroups::error::{human_bytes, KGroupsError};
use kgroups::kernel::KernelElement;
use kgroups::{validate, Points};
use numpy::{PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

/// The data of a contiguous 1-D array.
pub(super) fn contiguous<'a, T: numpy::Element>(
    array: &'a PyReadonlyArray1<'_, T>,
    name: &'static str,
) -> PyResult<&'a [T]> {
    array
        .as_slice()
        .map_err(|_| KGroupsError::invalid(name, "the array must be contiguous").into_py_err())
}

/// Labels as the core's indices (negative ones refused by [`validate::labels_from_signed`];
/// the range and emptiness rules are the core's, once k is known).
pub(super) fn labels(
    labels: &PyReadonlyArray1<'_, i64>,
    name: &'static str,
) -> PyResult<Vec<usize>> {
    validate::labels_from_signed(contiguous(labels, name)?, name).map_err(to_py_err)
}

/// The rows of a C-contiguous (n, D) float64 array, their values not yet checked:
/// [`RawPoints::check`] makes the core's points of them inside the detached job, so that the
/// check runs off the GIL, in the call's thread pool.
#[derive(Clone, Copy)]
pub(super) struct RawPoints<'a> {
    data: &'a [f64],
    n: usize,
    dim: usize,
    name: &'static str,
}

impl<'a> RawPoints<'a> {
    /// The number of rows.
    pub(super) fn n(&self) -> usize {
        self.n
    }

    /// The points, once every value is checked finite (and the shape non-empty).
    pub(super) fn check(&self) -> kgroups::Result<Points<'a>> {
        Points::named(self.data, self.n, self.dim, self.name)
    }
}

/// The rows of a C-contiguous (n, D) float64 array, to be checked as points in the job.
pub(super) fn points<'a>(
    x: &'a PyReadonlyArray2<'_, f64>,
    name: &'static str,
) -> PyResult<RawPoints<'a>> {
    let shape = x.shape();
    let not_c = || KGroupsError::invalid(name, "the array must be C-contiguous");
    let data = x.as_slice().map_err(|_| not_c().into_py_err())?;
    // A single row or column is contiguous in either order.
    if !x.is_c_contiguous() && shape[0] > 1 && shape[1] > 1 {
        return Err(not_c().into_py_err());
    }
    Ok(RawPoints {
        data,
        n: shape[0],
        dim: shape[1],
        name,
    })
}

/// A square contiguous matrix as a slice and its size.
pub(super) fn square<'a>(
    a: &'a PyReadonlyArray2<'_, f64>,
    name: &'static str,
) -> PyResult<(&'a [f64], usize)> {
    let shape = a.shape();
    if shape[0] != shape[1] {
        return Err(KGroupsError::invalid(
            name,
            format!(
                "the matrix must be square, got shape ({}, {})",
                shape[0], shape[1]
            ),
        )
        .into_py_err());
    }
    let data = a
        .as_slice()
        .map_err(|_| KGroupsError::invalid(name, "the array must be contiguous").into_py_err())?;
    Ok((data, shape[0]))
}

/// A C-contiguous (n, m) float64 array as a row-major slice, n and m.
pub(super) fn rows<'a>(
    a: &'a PyReadonlyArray2<'_, f64>,
    name: &'static str,
) -> PyResult<(&'a [f64], usize, usize)> {
    let not_c = || KGroupsError::invalid(name, "the array must be C-contiguous");
    if !a.is_c_contiguous() {
        return Err(not_c().into_py_err());
    }
    let shape = a.shape();
    Ok((
        a.as_slice().map_err(|_| not_c().into_py_err())?,
        shape[0],
        shape[1],
    ))
}

/// A new zeroed `shape` numpy array of `T` (allocated by numpy, which asks the OS for huge
/// pages), or MemoryError naming `argument` and the size when it cannot be allocated. numpy is
/// called through Python (`numpy.zeros`) so that a failed allocation is an exception, never
/// the null pointer that makes `PyArray2::zeros` panic.
pub(super) fn new_zeros<'py, T: KernelElement + numpy::Element>(
    py: Python<'py>,
    shape: (usize, usize),
    argument: &'static str,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let dtype = if std::mem::size_of::<T>() == 4 {
        "float32"
    } else {
        "float64"
    };
    let too_large = || -> PyErr {
        let bytes = (shape.0 as f64) * (shape.1 as f64) * std::mem::size_of::<T>() as f64;
        KGroupsError::OutOfMemory {
            argument,
            message: format!(
                "the {} × {} kernel matrix of {dtype} needs {}, which cannot be allocated; use fewer points, dtype=float32, or a matrix-free method (kernel_kgroups_from_data)",
                shape.0,
                shape.1,
                human_bytes(bytes)
            ),
        }
        .into_py_err()
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
