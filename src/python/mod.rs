//! The PyO3 binding layer, `kgroups_rs._core` (compiled only with the `python` feature). It
//! is thin: it borrows numpy / CSR arrays as the core's kernel views without copying
//! ([`arrays`]), parses options once ([`options`]), runs the core with the GIL released on a
//! worker thread while watching for Ctrl-C ([`detach`], thread pools cached per thread
//! count), converts errors (`impl From<KGroupsError> for PyErr`, [`errors`]) and returns
//! numpy arrays and frozen result objects ([`results`]). No algorithm lives here.
//!
//! Layout decision: the binding stays in the core crate behind the `python` cargo feature
//! (tiktoken's layout), not in a binding crate beside it (tokenizers, polars). There is one
//! binding, about a thousand lines; one Cargo.toml gives the crate and the wheel one version
//! and one lockfile (pyproject.toml reads Cargo's version); pyo3, numpy and ndarray are
//! optional, so Rust users never build them. What a split would enforce — the binding sees
//! only the core's public API — holds here by convention: it calls `pub` items only (bar
//! `error::human_bytes`). Split when a second binding or a separately released core appears.

mod arrays;
mod assignment;
mod cluster;
mod dask;
mod detach;
mod errors;
mod kernels;
mod one_d;
mod options;
mod results;
mod stats;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<options::FitOptions>()?;
    m.add_class::<results::Clustering>()?;
    cluster::register(m)?;
    kernels::register(m)?;
    stats::register(m)?;
    one_d::register(m)?;
    dask::register(m)?;
    assignment::register(m)?;
    m.add_function(wrap_pyfunction!(detach::_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(detach::_sleep_for_tests, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
