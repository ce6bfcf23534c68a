//! The one sweep loop of the local searches: Hartigan ([`crate::hartigan`]) and Lloyd
//! ([`crate::lloyd`]) differ only in what one sweep does; repeating sweeps, the objective
//! history, progress events, cancellation and the stopping rule are written here once.

use crate::control::{Control, Progress};
use crate::error::Result;
use crate::partition::Partition;
use crate::scale::times_pow2;

/// A move is made only when its computed gain exceeds this multiple of the unit roundoff
/// times the magnitude of the terms the gain is computed from (see
/// [`crate::hartigan::best_move`]): the rounding error those few operations and the
/// accumulated cluster sums can make, so that rounding can never make a pair of moves cycle,
/// while every move that truly gains more than rounding is made.
pub(crate) const GAIN_TOLERANCE: f64 = 64.0 * f64::EPSILON;

/// Check the cancel flag after this many points evaluated.
pub(crate) const CHECK_EVERY_POINTS: usize = 256;

/// Which start a run of sweeps belongs to and how its progress events report the
/// objective: the algorithms see the weights scaled by `2^-weight_exponent` (see
/// `restarts`) and the objective of `G`, the caller sees the objective of its own weights
/// on the shifted kernel, `objective_shift = k σ` more.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reporting {
    pub start: usize,
    pub weight_exponent: i32,
    pub objective_shift: f64,
}

impl Reporting {
    /// The progress event after a sweep.
    pub fn event(&self, sweep: usize, moves_in_sweep: usize, objective: f64) -> Progress {
        Progress {
            start: self.start,
            sweep,
            moves_in_sweep,
            objective: times_pow2(objective, self.weight_exponent) + self.objective_shift,
        }
    }
}

/// What a run of sweeps did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SweepStats {
    pub n_iter: usize,
    pub n_moves: usize,
    pub converged: bool,
    pub objective_history: Vec<f64>,
}

/// Runs `sweep` (one pass of a local search over `partition`, returning the points it moved)
/// until a sweep moves nothing or `max_iter` sweeps have run. After each sweep the totals are
/// recomputed from the labels (removing drift from incremental updates), the objective is
/// recorded and reported, and cancellation is checked.
pub(crate) fn run<'a>(
    partition: &mut Partition<'a>,
    weights: &[f64],
    max_iter: usize,
    control: &Control,
    reporting: Reporting,
    mut sweep: impl FnMut(&mut Partition<'a>) -> Result<usize>,
) -> Result<SweepStats> {
    let mut history = vec![partition.objective()];
    let mut n_moves = 0;
    let mut converged = false;
    let mut n_iter = 0;
    while n_iter < max_iter {
        n_iter += 1;
        let moves_in_sweep = sweep(partition)?;
        partition.refresh_totals(weights);
        n_moves += moves_in_sweep;
        let objective = partition.objective();
        history.push(objective);
        control.report(reporting.event(n_iter, moves_in_sweep, objective))?;
        if moves_in_sweep == 0 {
            converged = true;
            break;
        }
    }
    Ok(SweepStats {
        n_iter,
        n_moves,
        converged,
        objective_history: history,
    })
}
