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
    /// Set when the run stopped on a cycle ([`CycleWatch`]): the partition after the last
    /// sweep is the one this many sweeps earlier.
    pub cycle_length: Option<usize>,
}

/// Partitions remembered by [`CycleWatch`] (by a 64-bit hash each) before it forgets them
/// and starts again: cycles longer than this many sweeps go unnoticed.
const CYCLE_MEMORY: usize = 4096;

/// Notices when a local search returns to a partition it has been in before. Lloyd's method
/// (batch or online) can cycle on a kernel that is not positive semidefinite; the partition
/// after each sweep then repeats for ever, and a run with a large `max_iter` would only
/// wait for it. Hartigan's method returns to a partition only when rounding hides the true
/// gains (each move raises the objective by more than the rounding of its computation, but
/// with weights spanning hundreds of orders of magnitude the cluster terms of the lightest
/// clusters fall below the normal range of f64 and lose their digits).
///
/// Each partition's labels are hashed. When a hash repeats after `L` sweeps, the labels are
/// kept, and a cycle of length `L` is reported only if exactly these labels come back `L`
/// sweeps later: a hash collision can delay the verdict, never make a wrong one. (The search
/// is deterministic, so a partition that recurs would recur for ever, unless the rounding of
/// sums kept by updates differs between the visits and tips a decision; the labels did
/// repeat either way.)
#[derive(Debug, Default)]
struct CycleWatch {
    /// The hash of the partition after sweep `s` → `s` (0: the start).
    seen: std::collections::HashMap<u64, usize>,
    /// A partition whose hash repeated: its labels, the sweep at which it must recur, and
    /// the length of the cycle.
    suspect: Option<(Vec<usize>, usize, usize)>,
}

impl CycleWatch {
    /// Records the partition `labels` after sweep `sweep`; the length of the cycle once the
    /// labels are known to repeat.
    fn after_sweep(&mut self, sweep: usize, labels: &[usize]) -> Option<usize> {
        if let Some((suspect, due, length)) = &self.suspect {
            if sweep < *due {
                return None;
            }
            if suspect.as_slice() == labels {
                return Some(*length);
            }
            self.suspect = None;
        }
        let hash = labels_hash(labels);
        if let Some(&earlier) = self.seen.get(&hash) {
            // Without room for the copy, cycles go unnoticed (the run goes on to max_iter).
            let mut kept = Vec::new();
            if kept.try_reserve_exact(labels.len()).is_ok() {
                kept.extend_from_slice(labels);
                let length = sweep - earlier;
                self.suspect = Some((kept, sweep + length, length));
            }
            return None;
        }
        if self.seen.len() >= CYCLE_MEMORY {
            self.seen.clear();
        }
        self.seen.insert(hash, sweep);
        None
    }
}

/// A 64-bit hash of a sequence of labels (xor, multiply and rotate, in four independent
/// lanes so that a sweep's hash costs little beside the sweep; collisions only delay
/// [`CycleWatch`]).
fn labels_hash(labels: &[usize]) -> u64 {
    let mix = |h: u64, v: u64| (h ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    let mut lanes: [u64; 4] = std::array::from_fn(|t| 0x243F_6A88_85A3_08D3 ^ t as u64);
    let chunks = labels.chunks_exact(4);
    let tail = chunks.remainder();
    for chunk in chunks {
        for t in 0..4 {
            lanes[t] = mix(lanes[t], chunk[t] as u64);
        }
    }
    let head = tail.iter().fold(lanes[0], |h, &l| mix(h, l as u64));
    lanes[1..].iter().fold(head, |h, &lane| mix(h, lane))
}

/// Runs `sweep` (one pass of a local search over `partition`, returning the points it moved)
/// until a sweep moves nothing, `max_iter` sweeps have run, or the partition repeats one of
/// an earlier sweep ([`CycleWatch`]; the run has then not converged and never would). After
/// each sweep the totals are recomputed from the labels (removing drift from incremental
/// updates), the objective is recorded and reported, and cancellation is checked.
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
    let mut cycles = CycleWatch::default();
    cycles.after_sweep(0, &partition.labels);
    let mut cycle_length = None;
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
        cycle_length = cycles.after_sweep(n_iter, &partition.labels);
        if cycle_length.is_some() {
            break;
        }
    }
    Ok(SweepStats {
        n_iter,
        n_moves,
        converged,
        objective_history: history,
        cycle_length,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cycle is reported once the labels recur after its length, and only with the
    /// length at which they recur.
    #[test]
    fn a_cycle_is_reported_when_the_labels_recur() {
        let states = [vec![0, 1, 1], vec![1, 0, 1], vec![1, 1, 0]];
        let mut watch = CycleWatch::default();
        let verdicts: Vec<Option<usize>> = (0..10)
            .map(|sweep| watch.after_sweep(sweep, &states[sweep % 3]))
            .collect();
        // Sweep 3 repeats sweep 0 by hash; sweep 6 confirms it with the labels.
        assert_eq!(verdicts[..6], [None; 6]);
        assert_eq!(verdicts[6], Some(3));
    }

    /// A hash that repeats without the labels repeating (a collision, forced here) delays
    /// the verdict and never gives a wrong one.
    #[test]
    fn a_hash_collision_gives_no_false_cycle() {
        let (a, b, c) = (vec![0usize, 1, 0], vec![1usize, 0, 0], vec![0usize, 0, 1]);
        let mut watch = CycleWatch::default();
        assert_eq!(watch.after_sweep(0, &a), None);
        // As if `b` hashed like `a`.
        watch.seen.insert(labels_hash(&b), 0);
        assert_eq!(watch.after_sweep(1, &b), None);
        // Due at sweep 2: `c` is not `b`, so no cycle, and the watch goes on.
        assert_eq!(watch.after_sweep(2, &c), None);
        assert_eq!(watch.after_sweep(3, &a), None);
        assert_eq!(watch.after_sweep(6, &a), Some(3));
    }
}
