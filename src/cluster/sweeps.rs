//! The one sweep loop of the local searches: Hartigan ([`crate::cluster::hartigan`]) and Lloyd
//! ([`crate::cluster::lloyd`]) differ only in what one sweep does; repeating sweeps, the objective
//! history, progress events, cancellation and the stopping rule are written here once.

use crate::cluster::partition::Partition;
use crate::control::{Control, Progress};
use crate::error::Result;
use crate::scale::times_pow2;

/// A move is made only when its computed gain exceeds this multiple of the unit roundoff
/// times the magnitude of the terms the gain is computed from (see
/// [`crate::cluster::hartigan::best_move`]): the rounding error those few operations and the
/// accumulated cluster sums can make, so that rounding can never make a pair of moves cycle,
/// while every move that truly gains more than rounding is made.
pub(crate) const GAIN_TOLERANCE: f64 = 64.0 * f64::EPSILON;

/// Check the cancel flag after this many points evaluated.
pub(crate) const CHECK_EVERY_POINTS: usize = 256;

/// Which start a run of sweeps belongs to and how its progress events report the
/// objective: the algorithms see the weights scaled by `2^-weight_exponent` (see
/// `restarts`) and the objective of `G`, the caller sees the objective of its own weights
/// on the shifted kernel, `objective_shift = k·shift` more.
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

/// Bytes of exact label copies [`CycleWatch`] keeps (the most recent partitions; at least
/// the last one, whatever its size).
const COPY_BUDGET_BYTES: usize = 32 << 20;

/// Notices when a local search returns to a partition it has been in before. Lloyd's method
/// (batch or online) can cycle on a kernel that is not positive semidefinite; the partition
/// after each sweep then repeats for ever, and a run with a large `max_iter` would only
/// wait for it. Hartigan's method returns to a partition only when rounding hides the true
/// gains (each move raises the objective by more than the rounding of its computation, but
/// with weights spanning hundreds of orders of magnitude the cluster terms of the lightest
/// clusters fall below the normal range of f64 and lose their digits).
///
/// Each partition's labels are hashed, and an exact copy of the most recent ones is kept
/// ([`COPY_BUDGET_BYTES`]). The hash is only a filter: a partition whose hash matches an
/// earlier one's is compared with that partition's copy, label by label, and the run stops
/// at the first sweep whose labels equal an earlier sweep's, with the true distance between
/// them as the cycle's length. When the earlier copy is no longer kept (a cycle longer
/// than the copies cover), the labels are kept and the cycle is reported when exactly
/// these labels come back: later than the first repeat, but with the true length (the
/// search is deterministic, so a partition on the cycle recurs first after one period).
#[derive(Debug)]
struct CycleWatch {
    /// Bytes per label in the copies (enough for the largest label, `k − 1`).
    width: usize,
    /// The hash of the partition after sweep `s` → every such `s` (0: the start).
    seen: std::collections::HashMap<u64, Vec<usize>>,
    /// Exact copies of the partitions after the most recent sweeps, oldest first.
    copies: std::collections::VecDeque<(usize, Vec<u8>)>,
    /// Bytes held by `copies`.
    copy_bytes: usize,
    /// A partition whose hash matched one whose copy was no longer kept: its sweep and its
    /// labels, to be confirmed when exactly they come back.
    pinned: Option<(usize, Vec<u8>)>,
}

impl CycleWatch {
    /// A watch for partitions with labels below `k`.
    fn new(k: usize) -> Self {
        let bits = usize::BITS - k.saturating_sub(1).leading_zeros();
        CycleWatch {
            width: (bits as usize).div_ceil(8).max(1),
            seen: std::collections::HashMap::new(),
            copies: std::collections::VecDeque::new(),
            copy_bytes: 0,
            pinned: None,
        }
    }

    /// The labels' exact copy (`width` little-endian bytes each), or `None` when there is
    /// no room for it.
    fn copy(&self, labels: &[usize]) -> Option<Vec<u8>> {
        let mut copy = Vec::new();
        copy.try_reserve_exact(labels.len().checked_mul(self.width)?)
            .ok()?;
        for &label in labels {
            copy.extend_from_slice(&label.to_le_bytes()[..self.width]);
        }
        Some(copy)
    }

    /// Records the partition `labels` after sweep `sweep`; the length of the cycle once the
    /// labels are known to repeat an earlier sweep's.
    fn after_sweep(&mut self, sweep: usize, labels: &[usize]) -> Option<usize> {
        // Without room for the copy, cycles go unnoticed (the run goes on to max_iter).
        let copy = self.copy(labels)?;
        if let Some((pinned_sweep, pinned)) = &self.pinned {
            if *pinned == copy {
                return Some(sweep - pinned_sweep);
            }
            if sweep - pinned_sweep > CYCLE_MEMORY {
                self.pinned = None;
            }
        }
        let hash = labels_hash(labels);
        if let Some(earlier) = self.seen.get(&hash) {
            for &e in earlier.iter().rev() {
                match self.copies.iter().find(|(s, _)| *s == e) {
                    Some((_, kept)) if *kept == copy => return Some(sweep - e),
                    Some(_) => {} // a hash collision
                    None => {
                        if self.pinned.is_none() {
                            self.pinned = Some((sweep, copy.clone()));
                        }
                    }
                }
            }
        }
        if self.seen.len() >= CYCLE_MEMORY {
            self.seen.clear();
            self.copies.clear();
            self.copy_bytes = 0;
        }
        self.seen.entry(hash).or_default().push(sweep);
        self.copy_bytes += copy.len();
        self.copies.push_back((sweep, copy));
        while self.copy_bytes > COPY_BUDGET_BYTES && self.copies.len() > 1 {
            if let Some((_, oldest)) = self.copies.pop_front() {
                self.copy_bytes -= oldest.len();
            }
        }
        None
    }
}

/// A 64-bit hash of a sequence of labels (xor, multiply and rotate, in four independent
/// lanes so that a sweep's hash costs little beside the sweep). Each label is spread over
/// the word by a multiplication before it meets the lane, so that small labels cannot
/// cancel the lanes' different seeds. Only a filter: [`CycleWatch`] compares the labels.
fn labels_hash(labels: &[usize]) -> u64 {
    const SPREAD: u64 = 0xD6E8_FEB8_6659_FD93;
    let mix = |h: u64, v: u64| {
        (h ^ (v.wrapping_add(1)).wrapping_mul(SPREAD))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29)
    };
    let mut lanes: [u64; 4] = [
        0x243F_6A88_85A3_08D3,
        0x1319_8A2E_0370_7344,
        0xA409_3822_299F_31D0,
        0x082E_FA98_EC4E_6C89,
    ];
    let chunks = labels.chunks_exact(4);
    let tail = chunks.remainder();
    for chunk in chunks {
        for t in 0..4 {
            lanes[t] = mix(lanes[t], chunk[t] as u64);
        }
    }
    let head = tail.iter().fold(lanes[0], |h, &l| mix(h, l as u64));
    let lengths = mix(head, labels.len() as u64);
    lanes[1..].iter().fold(lengths, |h, &lane| mix(h, lane))
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
    let mut cycles = CycleWatch::new(partition.k);
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

    /// A cycle is reported at the first sweep whose labels equal an earlier sweep's, with
    /// the distance between them as its length.
    #[test]
    fn a_cycle_is_reported_at_the_first_repeat() {
        let states = [vec![0, 1, 1], vec![1, 0, 1], vec![1, 1, 0]];
        let mut watch = CycleWatch::new(2);
        let verdicts: Vec<Option<usize>> = (0..10)
            .map(|sweep| watch.after_sweep(sweep, &states[sweep % 3]))
            .collect();
        assert_eq!(verdicts[..3], [None; 3]);
        assert_eq!(verdicts[3], Some(3));
    }

    /// `[0, 1, 1, 1]` and `[1, 0, 1, 1]` hash alike; a period-2 cycle between them (entered
    /// after two sweeps) is reported as 2 sweeps long at sweep 4, its first repeat, not as a
    /// longer cycle found later.
    #[test]
    fn a_period_two_cycle_between_formerly_colliding_labels() {
        let (a, b) = (vec![0usize, 1, 1, 1], vec![1usize, 0, 1, 1]);
        let states = [
            vec![0usize, 0, 1, 1],
            vec![1, 1, 0, 0],
            a.clone(),
            b.clone(),
        ];
        assert_ne!(labels_hash(&a), labels_hash(&b));
        let mut watch = CycleWatch::new(2);
        let sequence = (0..20).map(|s| {
            if s < 2 {
                &states[s]
            } else {
                &states[2 + s % 2]
            }
        });
        let first = sequence
            .enumerate()
            .find_map(|(sweep, labels)| watch.after_sweep(sweep, labels).map(|l| (sweep, l)));
        assert_eq!(first, Some((4, 2)));
    }

    /// A hash that repeats without the labels repeating (a collision, forced here) gives no
    /// cycle; the true first repeat is still found.
    #[test]
    fn a_hash_collision_gives_no_false_cycle() {
        let (a, b, c) = (vec![0usize, 1, 0], vec![1usize, 0, 0], vec![0usize, 0, 1]);
        let mut watch = CycleWatch::new(2);
        assert_eq!(watch.after_sweep(0, &a), None);
        // As if `b` and `c` hashed like `a`.
        watch.seen.entry(labels_hash(&b)).or_default().push(0);
        watch.seen.entry(labels_hash(&c)).or_default().push(0);
        assert_eq!(watch.after_sweep(1, &b), None);
        assert_eq!(watch.after_sweep(2, &c), None);
        assert_eq!(watch.after_sweep(3, &b), Some(2));
    }

    /// A cycle longer than the copies kept is confirmed when the labels of its first
    /// repeat come back: the true length, one period after the first repeat.
    #[test]
    fn a_cycle_beyond_the_copies_has_its_true_length() {
        let mut watch = CycleWatch::new(3);
        let state = |s: usize| -> Vec<usize> { (0..5).map(|i| (s + i) % 3).collect() };
        let mut verdict = None;
        for sweep in 0..40 {
            // Keep only the newest copy, as if each were larger than the budget.
            while watch.copies.len() > 1 {
                let (_, oldest) = watch.copies.pop_front().unwrap();
                watch.copy_bytes -= oldest.len();
            }
            if let Some(length) = watch.after_sweep(sweep, &state(sweep)) {
                verdict = Some((sweep, length));
                break;
            }
        }
        // The states repeat with period 3 (labels (s + i) mod 3 depend on s mod 3).
        assert_eq!(verdict, Some((6, 3)));
    }

    /// Labels are copied exactly whatever their width.
    #[test]
    fn copies_keep_every_label() {
        for k in [1usize, 2, 255, 256, 257, 70_000, usize::MAX] {
            let watch = CycleWatch::new(k);
            let labels = [0, k - 1, (k - 1) / 2];
            let copy = watch.copy(&labels).unwrap();
            let back: Vec<usize> = copy
                .chunks(watch.width)
                .map(|c| {
                    let mut bytes = [0u8; 8];
                    bytes[..c.len()].copy_from_slice(c);
                    usize::from_le_bytes(bytes)
                })
                .collect();
            assert_eq!(back, labels, "k = {k}");
        }
    }
}
