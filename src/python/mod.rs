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
    m.add("__version__", pep440_version(env!("CARGO_PKG_VERSION")))?;
    Ok(())
}

/// The crate's version as the wheel's metadata spells it: PEP 440, normalised as maturin
/// normalises it (`0.2.0-dev.0` -> `0.2.0.dev0`, `0.2.0-alpha.1` -> `0.2.0a1`, `-beta.N` ->
/// `bN`, `-rc.N` -> `rcN`), so that `kgroups_rs.__version__` equals
/// `importlib.metadata.version("kgroups_rs")`. A release version is returned as it is, and so
/// is any other form (docs/dev/releasing.md uses only these).
fn pep440_version(cargo_version: &str) -> String {
    let Some((release, pre)) = cargo_version.split_once('-') else {
        return cargo_version.to_owned();
    };
    let (tag, number) = pre.split_once('.').unwrap_or((pre, "0"));
    let pep440_tag = match tag {
        "dev" => ".dev",
        "alpha" | "a" => "a",
        "beta" | "b" => "b",
        "rc" => "rc",
        _ => return cargo_version.to_owned(),
    };
    match number.parse::<u64>() {
        Ok(number) => format!("{release}{pep440_tag}{number}"),
        Err(_) => cargo_version.to_owned(),
    }
}
