//! # kgroups — kernel k-groups and kernel k-means
//!
//! Energy-statistics clustering (França, Rizzo & Vogelstein): partition n points into k
//! groups maximising `Q = Σ_j Q_j / s_j`, `Q_j = Σ_{a,b ∈ C_j} w_a w_b G_ab`, over a
//! kernel (Gram) matrix `G`, by Hartigan's method ("kernel k-groups") or Lloyd's
//! ("kernel k-means"). Equivalently, minimise the energy within-cluster dispersion
//! `W = Σ_i w_i G_ii − Q`.
//!
//! The algorithms are written once against the [`Kernel`] trait; dense matrices (f64 or
//! f32, borrowed) implement it in [`kernel`].
//!
//! ```
//! use kgroups::{fit, Control, DenseKernel, Options};
//! let x = [0.0, 0.2, 0.1, 9.0, 9.3];
//! // Energy kernel for ρ(x, y) = |x − y| with base point 0: G_ab = ½(|a| + |b| − |a − b|).
//! let g: Vec<f64> = x
//!     .iter()
//!     .flat_map(|a: &f64| x.iter().map(move |b: &f64| 0.5 * (a.abs() + b.abs() - (a - b).abs())))
//!     .collect();
//! let kernel = DenseKernel::new(&g, x.len())?;
//! let result = fit(&kernel, 2, &Options::default(), &Control::new())?;
//! assert_eq!(result.labels[0], result.labels[2]);
//! assert_ne!(result.labels[0], result.labels[3]);
//! # Ok::<(), kgroups::KGroupsError>(())
//! ```

//! # The flow, and where it lives
//!
//! points ([`Points`], [`distance`]) → semimetric rows ([`Semimetric`], [`distance`]) → a
//! kernel: a stored Gram matrix ([`gram`], [`DenseKernel`]), a sparse one ([`CsrKernel`]),
//! one computed on the fly from the points ([`DataKernel`]) or a low-rank one from features
//! ([`FeatureKernel`]), all behind the [`Kernel`] trait ([`kernel`]) → the clustering
//! (`src/cluster/`: initialisation [`init`], Hartigan or Lloyd sweeps, `n_init` restarts) →
//! a [`Clustering`]. `docs/dev/architecture.md` in the repository maps every module.
//!
//! # The public API
//!
//! Everything a caller needs is re-exported here, at the crate root. The modules that stay
//! public are namespaces a Rust user reaches into for more than the root offers: [`kernel`]
//! (the trait, the four kinds, the CSR renumbering [`kernel::csr::reorder`], Nyström
//! landmarks), [`distance`] and [`gram`] (semimetric rows and Gram matrices, written into
//! caller-owned buffers too), [`stats`] (energy statistics), [`one_d`] (the exact 1-D
//! solver), [`assignment`] (matching labels), [`init`] (initial labels on their own), [`spectral`] (top eigenpairs of `W^½ G W^½` and the
//! spectral start), [`linalg`] (the symmetric eigen-decomposition, by faer),
//! [`chunk_sweep`] (one round of a distributed run), [`exact_rounds`] (the exact distributed
//! rounds), [`rng`] (the seeded generator whose
//! streams the results depend on), [`error`] and [`validate`] (the argument checks, shared
//! with the Python binding so that both refuse a value with the same message). The clustering
//! internals (`cluster`: the partition and its sums, the sweep loop, how moves are applied)
//! and the control and scaling helpers are private: they change with every optimisation.

pub mod assignment;
mod cluster;
mod control;
pub mod distance;
pub mod error;
pub mod gram;
pub mod kernel;
pub mod linalg;
pub mod one_d;
pub mod rng;
mod scale;
pub mod select;
pub mod significance;
pub mod stats;
pub mod validate;

#[cfg(test)]
pub(crate) mod test_support;

pub use cluster::{chunk_sweep, exact_rounds, init, spectral};
pub use cluster::{fit, fit_checked, Algorithm, CheckedOptions, Clustering, Init, Options};
pub use control::{Control, Progress};
pub use distance::{Points, Semimetric};
pub use error::{KGroupsError, Result};
pub use gram::{
    bandwidth, bandwidth_median, bandwidth_median_weighted, bandwidth_weighted, energy_gram,
    gram_from_semimetric, Base,
};
pub use kernel::{
    CsrIndex, CsrKernel, DataKernel, DenseKernel, FeatureKernel, Kernel, KernelElement,
};
pub use stats::{energy_distance, energy_statistics, EnergyStatistics, PairwiseSource};

/// Kernel k-groups (Hartigan's method): [`fit`] with [`Algorithm::Hartigan`].
///
/// ```
/// use kgroups::{kernel_kgroups, Control, DenseKernel, Options};
/// let g = [2.0, 1.9, 0.0, 1.9, 2.0, 0.0, 0.0, 0.0, 2.0];
/// let kernel = DenseKernel::new(&g, 3)?;
/// let r = kernel_kgroups(&kernel, 2, Options::default(), &Control::new())?;
/// assert_eq!(r.labels[0], r.labels[1]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn kernel_kgroups<K: Kernel>(
    kernel: &K,
    k: usize,
    options: Options,
    control: &Control,
) -> Result<Clustering> {
    fit(
        kernel,
        k,
        &Options {
            algorithm: Algorithm::Hartigan,
            ..options
        },
        control,
    )
}

/// Kernel k-means (batch Lloyd): [`fit`] with [`Algorithm::Lloyd`]. For online Lloyd, call
/// [`fit`] with [`Algorithm::LloydOnline`].
///
/// ```
/// use kgroups::{kernel_kmeans, Control, DenseKernel, Options};
/// let g = [2.0, 1.9, 0.0, 1.9, 2.0, 0.0, 0.0, 0.0, 2.0];
/// let kernel = DenseKernel::new(&g, 3)?;
/// let r = kernel_kmeans(&kernel, 2, Options::default(), &Control::new())?;
/// assert_eq!(r.labels[0], r.labels[1]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn kernel_kmeans<K: Kernel>(
    kernel: &K,
    k: usize,
    options: Options,
    control: &Control,
) -> Result<Clustering> {
    fit(
        kernel,
        k,
        &Options {
            algorithm: Algorithm::Lloyd,
            ..options
        },
        control,
    )
}

/// The README's Rust example, compiled and run by `cargo test`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
