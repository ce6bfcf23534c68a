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

pub mod assignment;
pub mod chunk_sweep;
mod compact_sums;
pub mod control;
pub mod distance;
pub mod error;
pub mod gram;
pub mod hartigan;
pub mod init;
pub mod kernel;
pub mod linalg;
pub mod lloyd;
pub mod lowrank;
pub mod matrix_free;
mod move_helper;
pub mod one_d;
mod partition;
mod pending_moves;
mod prefetch;
pub mod restarts;
pub mod rng;
mod scale;
pub mod select;
pub mod sparse;
pub mod spectral;
pub mod stats;
mod sweeps;
pub mod validate;

#[cfg(test)]
pub(crate) mod test_support;

pub use control::{Control, Progress};
pub use distance::{Points, Semimetric};
pub use error::{KGroupsError, Result};
pub use gram::{
    bandwidth, bandwidth_median, bandwidth_median_weighted, bandwidth_weighted, energy_gram,
    gram_from_semimetric, Base,
};
pub use init::Init;
pub use kernel::{DenseKernel, Kernel, KernelElement, SumsLayout};
pub use lloyd::LloydVariant;
pub use lowrank::FeatureKernel;
pub use matrix_free::DataKernel;
pub use restarts::{fit, fit_checked, Algorithm, CheckedOptions, Clustering, Options};
pub use sparse::{CsrIndex, CsrKernel};
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

/// Kernel k-means (Lloyd's method, batch or online): [`fit`] with [`Algorithm::Lloyd`].
///
/// ```
/// use kgroups::{kernel_kmeans, Control, DenseKernel, LloydVariant, Options};
/// let g = [2.0, 1.9, 0.0, 1.9, 2.0, 0.0, 0.0, 0.0, 2.0];
/// let kernel = DenseKernel::new(&g, 3)?;
/// let r = kernel_kmeans(&kernel, 2, LloydVariant::Batch, Options::default(), &Control::new())?;
/// assert_eq!(r.labels[0], r.labels[1]);
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn kernel_kmeans<K: Kernel>(
    kernel: &K,
    k: usize,
    variant: LloydVariant,
    options: Options,
    control: &Control,
) -> Result<Clustering> {
    fit(
        kernel,
        k,
        &Options {
            algorithm: Algorithm::Lloyd(variant),
            ..options
        },
        control,
    )
}

/// The README's Rust example, compiled and run by `cargo test`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
