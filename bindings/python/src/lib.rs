//! The PyO3 binding layer, `kgroups_rs._core`: its own crate (`kgroups-python`), built by
//! maturin (see pyproject.toml). It is thin: it borrows numpy / CSR arrays as the core's
//! kernel views without copying ([`arrays`]), parses options once ([`options`]), runs the
//! core with the GIL released on a worker thread while watching for Ctrl-C ([`detach`],
//! thread pools cached per thread count), converts errors ([`errors`]) and returns numpy
//! arrays and frozen result objects ([`results`]). No algorithm lives here.
//!
//! Layout decision: the binding is a crate beside the core (tokenizers', polars' layout), in
//! one cargo workspace that shares the version and the lockfile. It was first a `python`
//! feature of the core crate; the split means cargo users build no pyo3 and link no unused
//! cdylib, and the compiler now enforces that the binding reaches only the core's public API
//! (what the binding needs is made public deliberately, e.g. `error::human_bytes`).

mod arrays;
mod assignment;
mod cluster;
mod dask;
mod dask_exact;
mod detach;
mod errors;
mod kernels;
mod linalg;
mod one_d;
mod options;
mod results;
mod select;
mod significance;
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
    dask_exact::register(m)?;
    assignment::register(m)?;
    significance::register(m)?;
    select::register(m)?;
    linalg::register(m)?;
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
