//! Data points, semimetrics of negative type, and the evaluation of pairs of points.
//!
//! The formulas are those of the specification ("Semimetrics and kernels"):
//!
//! - power:        ρ_α(x,y) = ‖x−y‖^α, 0 < α ≤ 2;
//! - exponential:  ρ(x,y) = 2 − 2·exp(−‖x−y‖ / (2σ)), σ > 0;
//! - gaussian:     ρ(x,y) = 2 − 2·exp(−‖x−y‖² / (2σ²)), σ > 0.
//!
//! Squared distances of D < 20 coordinates (and D > 1024) are computed from coordinate
//! differences, Σ_k (x_k − y_k)², summed in the order k = 0, 1, …, D−1, so they are exact to
//! rounding even for near-identical points and agree bit for bit with the naive formula. For
//! 20 ≤ D ≤ 1024 the pair kernel expands them, ‖x‖² + ‖y‖² − 2⟨x, y⟩ (half the arithmetic, and
//! the dense builders evaluate four points against each load of the others), and recomputes
//! from differences every pair where the expansion may have cancelled, so that the relative
//! error stays below 1e-12 (the bound is derived at `data_rows::expansion_guard`). Either way a
//! pair's value depends only on the two points, never on the vector width, the thread count or
//! whether it is computed in a row or in a tile. The dense Gram builders
//! ([`crate::gram`]), the matrix-free kernel ([`crate::DataKernel`]) and the statistics
//! ([`crate::stats`]) all evaluate pairs through one abstraction, rows of ρ along runs of
//! points (`rows::PairwiseRows`), whose vectorised pair kernel lives in `simd`, with every
//! `unsafe` block of the distance code.
//!
//! ```
//! use kgroups::distance::{semimetric_row, Points, Semimetric};
//! let x = Points::new(&[0.0, 0.0, 3.0, 4.0], 2, 2)?;
//! let mut row = [0.0; 2];
//! semimetric_row(&x, Semimetric::Power { alpha: 2.0 }, 0, &mut row)?;
//! assert_eq!(row, [0.0, 25.0]);
//! # Ok::<(), kgroups::KGroupsError>(())
//! ```

mod data_rows;
mod exp;
mod points;
mod rows;
mod semimetric;
mod simd;
#[cfg(test)]
mod tests;

pub use points::Points;
pub use rows::{semimetric_row, squared_distances_from};
pub use semimetric::Semimetric;

pub(crate) use data_rows::DataRows;
pub(crate) use rows::{block_range, GramRows, PairwiseRows, RunEpilogue, SemimetricRows, BLOCK};
pub(crate) use simd::squared_distances_to_rows_dispatch;
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_imports))]
pub(crate) use simd::{avx_vectors, note_taken, wide_vectors, VectorPath};
#[cfg(test)]
pub(crate) use simd::{cpu_runs, expected_path, with_vectors_up_to};
