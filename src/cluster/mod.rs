//! The clustering half of the flow: from a [`Kernel`](crate::Kernel) to a [`Clustering`].
//!
//! [`fit`] checks the [`Options`] once ([`restarts`]), then runs `n_init` independent starts:
//! each chooses a first partition ([`init`]), builds its state (the [`partition`]: labels,
//! cluster weights and terms, and the per-point cluster sums, kept compact by
//! [`compact_sums`] where they are small integers), and repeats sweeps ([`sweeps`], the one
//! loop) of Hartigan's method ([`hartigan`]) or Lloyd's ([`lloyd`]) until no point moves.
//! How a sweep applies its moves to the sums lives in [`pending_moves`] (batched and
//! prefetched, [`prefetch`]).
//! [`spectral`] computes the top eigenpairs of the weighted kernel and the spectral start.
//! [`chunk_sweep`] runs one sweep on one chunk of the points for distributed runs;
//! [`exact_rounds`] holds the pieces of the exact distributed rounds.

pub mod chunk_sweep;
pub mod exact_rounds;
pub(crate) mod hartigan;
pub mod init;
pub(crate) mod lloyd;
pub(crate) mod partition;
pub(crate) mod pending_moves;
pub(crate) mod restarts;
pub mod spectral;
pub(crate) mod sweeps;

pub use init::Init;
pub use restarts::{fit, fit_checked, Algorithm, CheckedOptions, Clustering, Options};
