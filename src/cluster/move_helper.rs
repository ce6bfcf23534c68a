//! A helper thread that takes half of each dense move during one sweep of a single search
//! ([`KernelAccess::splits_moves`]). A dense move reads one row of G from memory (80 KB at
//! n = 10⁴) and updates two rows of sums; one core reading the row alone is limited by how
//! many misses it can keep in flight, so a second core reading the other half nearly halves
//! the wait. Waking a sleeping thread for each move costs more than the move, so the helper
//! spins for the length of one sweep, waiting for work.
//!
//! The hand-off is one atomic state word. The search posts the second half of a move
//! (`POSTED`), updates the first half itself, then either takes the second half back (the
//! helper had not claimed it: `POSTED → IDLE`) or waits for the helper to finish it
//! (`CLAIMED → DONE`). So the search never waits for a helper that has not started (for
//! example when no other worker is free), and every entry receives the same operations as
//! in an unsplit move: the results are the same bits.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::kernel::KernelAccess;

const IDLE: usize = 0;
const POSTED: usize = 1;
const CLAIMED: usize = 2;
const DONE: usize = 3;
const STOP: usize = 4;

/// The mailbox of one helper (see the module doc). The fields describe the posted half:
/// written before `POSTED` is published (release) and read after it is claimed (acquire).
#[derive(Debug, Default)]
pub(crate) struct MoveHelper {
    state: AtomicUsize,
    point: AtomicUsize,
    start: AtomicUsize,
    len: AtomicUsize,
    weight: AtomicU64,
    leaving: AtomicUsize,
    joining: AtomicUsize,
    /// Halves the helper finished (tests only: they must see that it took work).
    #[cfg(test)]
    served: AtomicUsize,
    /// Halves posted and taken back by the search (tests only).
    #[cfg(test)]
    taken_back: AtomicUsize,
}

impl MoveHelper {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The helper's side: takes posted halves until stopped ([`MoveHelper::stop_on_drop`]).
    pub(crate) fn serve<K: KernelAccess>(&self, kernel: &K) {
        loop {
            match self.state.load(Ordering::Acquire) {
                STOP => return,
                POSTED => {
                    if self
                        .state
                        .compare_exchange(POSTED, CLAIMED, Ordering::Acquire, Ordering::Relaxed)
                        .is_ok()
                    {
                        let len = self.len.load(Ordering::Relaxed);
                        let leaving = self.leaving.load(Ordering::Relaxed) as *mut f64;
                        let joining = self.joining.load(Ordering::Relaxed) as *mut f64;
                        // SAFETY: the search posted two disjoint runs of `len` sums it holds
                        // exclusively (split off with `split_at_mut`) and touches neither
                        // until it sees `DONE`, which is stored below after the last write
                        // through these slices; `CLAIMED` lets no one else take them.
                        let (leaving, joining) = unsafe {
                            (
                                std::slice::from_raw_parts_mut(leaving, len),
                                std::slice::from_raw_parts_mut(joining, len),
                            )
                        };
                        kernel.move_point_part(
                            self.point.load(Ordering::Relaxed),
                            self.start.load(Ordering::Relaxed),
                            f64::from_bits(self.weight.load(Ordering::Relaxed)),
                            leaving,
                            joining,
                        );
                        #[cfg(test)]
                        self.served.fetch_add(1, Ordering::Relaxed);
                        // CLAIMED → DONE, unless the sweep was abandoned meanwhile (STOP).
                        if self
                            .state
                            .compare_exchange(CLAIMED, DONE, Ordering::Release, Ordering::Relaxed)
                            .is_err()
                        {
                            return;
                        }
                    }
                }
                _ => std::hint::spin_loop(),
            }
        }
    }

    /// Ends [`MoveHelper::serve`] (between moves) when the guard is dropped.
    pub(crate) fn stop_on_drop(&self) -> StopOnDrop<'_> {
        StopOnDrop(self)
    }

    /// [`KernelAccess::move_point`] of point `i`, its second half offered to the helper.
    pub(crate) fn move_point<K: KernelAccess>(
        &self,
        kernel: &K,
        i: usize,
        weight: f64,
        leaving: &mut [f64],
        joining: &mut [f64],
    ) {
        // Halves of whole cache lines (8 f64): where the rows start on a line, the two
        // threads never write to the same one.
        let half = (leaving.len() / 2) & !7;
        let (leaving_first, leaving_second) = leaving.split_at_mut(half);
        let (joining_first, joining_second) = joining.split_at_mut(half);
        self.point.store(i, Ordering::Relaxed);
        self.start.store(half, Ordering::Relaxed);
        self.len.store(leaving_second.len(), Ordering::Relaxed);
        self.weight.store(weight.to_bits(), Ordering::Relaxed);
        self.leaving
            .store(leaving_second.as_mut_ptr() as usize, Ordering::Relaxed);
        self.joining
            .store(joining_second.as_mut_ptr() as usize, Ordering::Relaxed);
        self.state.store(POSTED, Ordering::Release);
        kernel.move_point_part(i, 0, weight, leaving_first, joining_first);
        if self
            .state
            .compare_exchange(POSTED, IDLE, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            // Not claimed: the helper will never see this half.
            kernel.move_point_part(i, half, weight, leaving_second, joining_second);
            #[cfg(test)]
            self.taken_back.fetch_add(1, Ordering::Relaxed);
        } else {
            while self.state.load(Ordering::Acquire) != DONE {
                std::hint::spin_loop();
            }
            self.state.store(IDLE, Ordering::Relaxed);
        }
    }
}

/// Stops a [`MoveHelper`] when dropped (also when the sweep returns an error or unwinds, so
/// that the scope waiting for the helper never waits forever).
pub(crate) struct StopOnDrop<'h>(&'h MoveHelper);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.state.store(STOP, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DenseKernel;
    use std::time::{Duration, Instant};

    fn symmetric(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = crate::rng::Rng::new(seed);
        let mut g = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..=a {
                let v = rng.next_f64() - 0.4;
                g[a * n + b] = v;
                g[b * n + a] = v;
            }
        }
        g
    }

    /// Moves made with a helper serving on another thread, and with none (every half taken
    /// back), give the same sums bit for bit as whole moves, for row lengths around the
    /// cache-line rounding of the halves. The helper is seen to take halves (the moves are
    /// repeated until it has, a few rounds at most on a busy machine) and, alone, none.
    /// Applies `moves` to `sums` (leaving sums, then joining sums, `n` each) `rounds` times
    /// by `one`.
    fn apply(
        sums: &mut [f64],
        n: usize,
        moves: &[(usize, f64)],
        rounds: usize,
        mut one: impl FnMut(usize, f64, &mut [f64], &mut [f64]),
    ) {
        for _ in 0..rounds {
            for &(i, w) in moves {
                let (leaving, joining) = sums.split_at_mut(n);
                one(i, w, leaving, joining);
            }
        }
    }

    #[test]
    fn split_moves_give_the_same_sums() {
        for n in [1, 2, 7, 8, 9, 16, 17, 100, 333, 5000] {
            let g = symmetric(n, n as u64);
            let kernel = DenseKernel::new(&g, n).unwrap();
            let moves: Vec<(usize, f64)> = (0..3 * n.min(400))
                .map(|t| ((t * 7 + 3) % n, 0.5 + (t % 5) as f64))
                .collect();
            let start: Vec<f64> = (0..2 * n).map(|y| y as f64 * 0.125 - 3.0).collect();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            // The helper takes a half only while it is running: on a busy machine (the other
            // tests, other processes) it may not be scheduled for a while, so the moves are
            // repeated, with more rounds each time, until it has taken one (or 60 s passed).
            let deadline = Instant::now() + Duration::from_secs(60);
            let mut rounds = 1;
            loop {
                let mut whole = start.clone();
                apply(&mut whole, n, &moves, rounds, |i, w, l, j| {
                    kernel.move_point(i, w, l, j)
                });
                let helper = MoveHelper::new();
                let mut served = start.clone();
                std::thread::scope(|scope| {
                    scope.spawn(|| helper.serve(&kernel));
                    let _stop = helper.stop_on_drop();
                    apply(&mut served, n, &moves, rounds, |i, w, l, j| {
                        helper.move_point(&kernel, i, w, l, j)
                    });
                });
                assert_eq!(bits(&served), bits(&whole), "n = {n}, served");
                let halves = helper.served.load(Ordering::Relaxed);
                let taken_back = helper.taken_back.load(Ordering::Relaxed);
                assert_eq!(halves + taken_back, rounds * moves.len(), "n = {n}");
                let alone = MoveHelper::new();
                let mut unserved = start.clone();
                apply(&mut unserved, n, &moves, rounds, |i, w, l, j| {
                    alone.move_point(&kernel, i, w, l, j)
                });
                assert_eq!(bits(&unserved), bits(&whole), "n = {n}, no helper");
                assert_eq!(alone.served.load(Ordering::Relaxed), 0);
                assert_eq!(
                    alone.taken_back.load(Ordering::Relaxed),
                    rounds * moves.len()
                );
                if halves > 0 || n < 100 {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "n = {n}: the helper never took a half in 60 s"
                );
                rounds = (rounds * 2).min(32);
            }
        }
    }
}
