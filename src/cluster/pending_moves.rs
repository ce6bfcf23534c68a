//! How the moves of the sequential searches (Hartigan, online Lloyd) reach the cluster sums
//! ([`MoveUpdates`]). A move's totals (labels, `s_l`, `Q_l`) always change at once. Its
//! updates of the other points' sums are made at once too, except for the kernels below,
//! where they wait.
//!
//! **Kernels that batch their moves** ([`KernelAccess::move_batch`],
//! [`PendingMoves`]). A move of point p (weight w) from cluster a to cluster b updates every
//! point's sums: `m_a(y) −= w·G(p, y)` and `m_b(y) += w·G(p, y)`. Applied at once, each move
//! computes row p over all n points, reading all the data (O(n·D)); once the data outgrow
//! the caches every move streams them from memory. Here the moves are logged instead, and:
//!
//! - before a point is evaluated, the logged moves it has not received are applied to its own
//!   sums, from single entries `G(p, y)`;
//! - every batch of moves (and at the end of the sweep) the log is applied to all the other
//!   points in one pass over the data, chunk of points by chunk of points, each chunk's data
//!   read once for the whole batch.
//!
//! Every sum receives the same updates (`delta = w·G(p, y)`, then `m_a −= delta`,
//! `m_b += delta`) in the order of the moves, with `G(p, y)` computed as in row p, exactly
//! as the immediate updates make them, and every point is evaluated from sums that hold
//! every earlier move: the sums, and the search, are the same bits.

use rayon::prelude::*;

use crate::cluster::partition::{ClusterSums, Partition};
use crate::error::{try_filled, Result};
use crate::kernel::KernelAccess;

/// The matrix-free kernel's batch: moves logged before they are applied to all points. Each
/// point evaluated meanwhile computes up to this many single entries to catch up; each
/// batch reads the data once.
pub(crate) const BATCH: usize = 32;

/// Points per chunk of a batch's pass (a chunk's data, 512·D values, stay in L1/L2 across
/// the batch's rows).
const CHUNK: usize = 512;

/// One move: `point` (of weight `weight`) went from cluster `from` to `to`.
#[derive(Debug, Clone, Copy)]
struct Move {
    point: usize,
    from: usize,
    to: usize,
    weight: f64,
}

/// The moves of a sweep not yet applied to every point's sums (see the module doc).
#[derive(Debug)]
pub(crate) struct PendingMoves {
    moves: Vec<Move>,
    /// The moves logged before the log is applied.
    batch: usize,
    /// For each point, how many of `moves` (the first ones) its sums already hold.
    applied: Vec<u8>,
}

impl PendingMoves {
    /// An empty log for `n` points, applied every `batch` moves (at most 255). Fails
    /// (argument `"X"`) when n bytes cannot be had.
    pub(crate) fn new(n: usize, batch: usize) -> Result<Self> {
        debug_assert!((1..256).contains(&batch));
        Ok(PendingMoves {
            moves: Vec::with_capacity(batch),
            batch,
            applied: try_filled(n, 0u8, "X", "the pending moves of each point")?,
        })
    }

    /// Applies to point `i`'s own sums the logged moves they do not hold yet, in order.
    pub(crate) fn catch_up<K: KernelAccess>(
        &mut self,
        kernel: &K,
        partition: &mut Partition,
        i: usize,
    ) {
        let done = usize::from(self.applied[i]);
        if done == self.moves.len() {
            return;
        }
        let n = partition.n;
        let sums = partition
            .cluster_major_sums_mut()
            .expect("pending moves are kept only over cluster-major sums");
        for m in &self.moves[done..] {
            let entry = match kernel.stored_row(m.point) {
                Some(row) => row[i],
                None => {
                    let mut entry = [0.0];
                    kernel.row_run(m.point, i, &mut entry);
                    entry[0]
                }
            };
            let delta = m.weight * entry;
            sums[m.from * n + i] -= delta;
            sums[m.to * n + i] += delta;
        }
        self.applied[i] = self.moves.len() as u8; // ≤ batch < 256
    }

    /// Logs the move `m`, whose totals ([`Partition::move_totals`]) are already made;
    /// applies the batch once it is full.
    fn push<K: KernelAccess>(&mut self, kernel: &K, partition: &mut Partition, m: Move) {
        self.moves.push(m);
        if self.moves.len() == self.batch {
            self.apply(kernel, partition);
        }
    }

    /// Applies every logged move to every point's sums (each point from the first move it
    /// does not hold), then empties the log.
    pub(crate) fn apply<K: KernelAccess>(&mut self, kernel: &K, partition: &mut Partition) {
        if self.moves.is_empty() {
            return;
        }
        let n = partition.n;
        let moves = &self.moves;
        let applied = &self.applied;
        let sums = partition
            .cluster_major_sums_mut()
            .expect("pending moves are kept only over cluster-major sums");
        // The k rows of sums cut into chunks of points: chunk c holds its piece of each row.
        let mut rows: Vec<std::slice::ChunksMut<'_, f64>> = sums
            .chunks_mut(n)
            .map(|row| row.chunks_mut(CHUNK))
            .collect();
        let chunks: Vec<Vec<&mut [f64]>> = (0..n.div_ceil(CHUNK))
            .map(|_| rows.iter_mut().filter_map(Iterator::next).collect())
            .collect();
        chunks
            .into_par_iter()
            .enumerate()
            .for_each(|(c, mut pieces)| {
                let start = c * CHUNK;
                let len = pieces[0].len();
                let held = &applied[start..start + len];
                // From this move on, no point of the chunk holds any (most chunks: all).
                let held_by_none = held.iter().copied().max().map_or(0, usize::from);
                let mut copy = [0.0; CHUNK];
                for (index, m) in moves.iter().enumerate() {
                    let row = match kernel.stored_row(m.point) {
                        Some(row) => &row[start..start + len],
                        None => {
                            kernel.row_run(m.point, start, &mut copy[..len]);
                            &copy[..len]
                        }
                    };
                    let (leaving, joining) = two_pieces_mut(&mut pieces, m.from, m.to);
                    let update = |(l, j): (&mut f64, &mut f64), v: f64| {
                        let delta = m.weight * v;
                        *l -= delta;
                        *j += delta;
                    };
                    let pairs = leaving.iter_mut().zip(joining.iter_mut());
                    if index >= held_by_none {
                        pairs.zip(row.iter()).for_each(|(p, &v)| update(p, v));
                    } else {
                        for ((p, &v), &held) in pairs.zip(row.iter()).zip(held) {
                            if usize::from(held) <= index {
                                update(p, v);
                            }
                        }
                    }
                }
            });
        self.moves.clear();
        self.applied.iter_mut().for_each(|a| *a = 0);
    }
}

/// How one sweep's moves reach the cluster sums (see the module doc).
#[derive(Debug)]
pub(crate) enum MoveUpdates {
    /// Each move updates the sums at once.
    Immediate,
    Batched(PendingMoves),
}

impl MoveUpdates {
    /// The way for a sweep of `kernel` over `partition`'s layout of the sums.
    pub(crate) fn for_sweep<K: KernelAccess>(kernel: &K, partition: &Partition) -> Result<Self> {
        Ok(match &partition.sums {
            ClusterSums::ClusterMajor(_) => match kernel.move_batch() {
                Some(batch) => MoveUpdates::Batched(PendingMoves::new(kernel.n(), batch)?),
                None => MoveUpdates::Immediate,
            },
            _ => MoveUpdates::Immediate,
        })
    }

    /// Before point `i` is evaluated (points in increasing order): makes the updates its own
    /// sums wait for.
    #[inline]
    pub(crate) fn catch_up<K: KernelAccess>(
        &mut self,
        kernel: &K,
        partition: &mut Partition,
        i: usize,
    ) {
        match self {
            MoveUpdates::Immediate => {}
            MoveUpdates::Batched(pending) => pending.catch_up(kernel, partition, i),
        }
    }

    /// Moves point `i` (weight `weight`, diagonal entry `diagonal`) to cluster `to`.
    #[inline]
    pub(crate) fn make_move<K: KernelAccess>(
        &mut self,
        kernel: &K,
        partition: &mut Partition,
        i: usize,
        to: usize,
        weight: f64,
        diagonal: f64,
    ) {
        let from = partition.move_totals(i, to, weight, diagonal);
        let m = Move {
            point: i,
            from,
            to,
            weight,
        };
        match self {
            MoveUpdates::Immediate => partition.move_sums(kernel, i, from, to, weight),
            MoveUpdates::Batched(pending) => pending.push(kernel, partition, m),
        }
    }

    /// Makes every update still waiting (at the end of a sweep, also an interrupted one).
    pub(crate) fn finish<K: KernelAccess>(&mut self, kernel: &K, partition: &mut Partition) {
        match self {
            MoveUpdates::Immediate => {}
            MoveUpdates::Batched(pending) => pending.apply(kernel, partition),
        }
    }
}

/// The pieces `a` and `b` (`a != b`) of `pieces`, both mutable.
fn two_pieces_mut<'p>(
    pieces: &'p mut [&mut [f64]],
    a: usize,
    b: usize,
) -> (&'p mut [f64], &'p mut [f64]) {
    if a < b {
        let (head, tail) = pieces.split_at_mut(b);
        (&mut *head[a], &mut *tail[0])
    } else {
        let (head, tail) = pieces.split_at_mut(a);
        (&mut *tail[0], &mut *head[b])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Control;
    use crate::kernel::SumsLayout;
    use crate::Kernel;
    use crate::{
        energy_gram, fit, Algorithm, Base, DataKernel, DenseKernel, Init, Options, Points,
        Semimetric,
    };
    use proptest::prelude::*;

    /// A kernel exactly like `K`, except that its moves are batched whatever n.
    struct Batched<'k, K> {
        kernel: &'k K,
    }

    impl<K: KernelAccess> crate::Kernel for Batched<'_, K> {
        fn n(&self) -> usize {
            self.kernel.n()
        }
        fn diagonal(&self, i: usize) -> f64 {
            self.kernel.diagonal(i)
        }
        fn for_each_in_row<F: FnMut(usize, f64)>(&self, i: usize, visit: F) {
            self.kernel.for_each_in_row(i, visit)
        }
        fn row_into(&self, i: usize, out: &mut [f64]) {
            self.kernel.row_into(i, out)
        }
        fn dispatch<V: crate::kernel::Visit>(&self, visit: V) -> V::Output {
            visit.visit(self)
        }
    }

    /// The wrapped kernel's strategies, with the moves batched.
    impl<K: KernelAccess> KernelAccess for Batched<'_, K> {
        fn row_run(&self, i: usize, start: usize, out: &mut [f64]) {
            self.kernel.row_run(i, start, out)
        }
        fn move_batch(&self) -> Option<usize> {
            Some(BATCH)
        }
        fn move_point(&self, i: usize, weight: f64, leaving: &mut [f64], joining: &mut [f64]) {
            self.kernel.move_point(i, weight, leaving, joining)
        }
        fn sums_layout(&self) -> SumsLayout {
            self.kernel.sums_layout()
        }
        fn cluster_sums(
            &self,
            labels: &[usize],
            weights: &[f64],
            k: usize,
            control: &Control,
        ) -> Result<Vec<f64>> {
            self.kernel.cluster_sums(labels, weights, k, control)
        }
    }

    /// `kernel`, its moves batched.
    fn batched<K: KernelAccess>(kernel: &K) -> Batched<'_, K> {
        Batched { kernel }
    }

    fn data(n: usize, dim: usize, seed: u64) -> Vec<f64> {
        let mut rng = crate::rng::Rng::new(seed);
        (0..n * dim)
            .map(|p| rng.next_f64() + if p / dim < n / 3 { 1.5 } else { 0.0 })
            .collect()
    }

    /// The whole run (labels, objective and its history, moves, sweeps) is the same bits with
    /// the moves batched as with each move applied at once.
    fn assert_same_runs<K: KernelAccess>(kernel: &K, k: usize, options: &Options) {
        let at_once = fit(kernel, k, options, &Control::new()).unwrap();
        let batched = fit(&batched(kernel), k, options, &Control::new()).unwrap();
        assert_same_result(&batched, &at_once);
    }

    fn assert_same_result(batched: &crate::Clustering, at_once: &crate::Clustering) {
        assert_eq!(batched.labels, at_once.labels);
        assert_eq!(batched.objective.to_bits(), at_once.objective.to_bits());
        let bits = |h: &[f64]| h.iter().map(|q| q.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&batched.objective_history),
            bits(&at_once.objective_history)
        );
        assert_eq!(batched.n_moves, at_once.n_moves);
        assert_eq!(batched.n_iter, at_once.n_iter);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Matrix-free and dense kernels, Hartigan and online Lloyd, random data and starts,
        /// weights or not, k from 2 to 5: from a random start many points move in the first sweep (several batches,
        /// and points evaluated between them), few in the last ones (a partial batch).
        #[test]
        fn batched_moves_give_the_same_run(
            n in 40usize..700,
            dim in 1usize..4,
            k in 2usize..6,
            seed in 0u64..1000,
            weighted in any::<bool>(),
        ) {
            let x = data(n, dim, seed);
            let points = Points::new(&x, n, dim).unwrap();
            let mut rng = crate::rng::Rng::new(seed + 1);
            let weights: Vec<f64> = (0..n).map(|_| 0.5 + rng.next_f64()).collect();
            let options = Options {
                init: Init::Random,
                seed,
                weights: weighted.then_some(&weights[..]),
                ..Options::default()
            };
            let power = Semimetric::Power { alpha: 1.0 };
            let kernel = DataKernel::new(points, power, Base::Mean).unwrap();
            let g: Vec<f64> = energy_gram(&points, power, Base::Mean).unwrap();
            let dense = DenseKernel::new(&g, n).unwrap();
            let online = Algorithm::LloydOnline;
            for algorithm in [Algorithm::Hartigan, online] {
                let options = Options { algorithm, ..options };
                assert_same_runs(&kernel, k, &options);
                assert_same_runs(&dense, k, &options);
            }
        }
    }

    #[test]
    fn a_point_catches_up_in_the_order_of_the_moves() {
        // Three moves logged, point 2 caught up after the first and point 5 after all three:
        // each holds the sums of the moves applied at once so far, and after the batch every
        // point does (point 2 receiving only the two moves it missed).
        let (n, dim) = (12, 2);
        let x = data(n, dim, 7);
        let points = Points::new(&x, n, dim).unwrap();
        let kernel = DataKernel::new(points, Semimetric::Power { alpha: 1.0 }, Base::Mean).unwrap();
        let weights = vec![1.0; n];
        let labels: Vec<usize> = (0..n).map(|i| i % 3).collect();
        let control = Control::new();
        let mut eager =
            Partition::new(&kernel, labels.clone(), &weights, 3, &control, false).unwrap();
        let mut lazy = eager.clone();
        let mut pending = PendingMoves::new(n, BATCH).unwrap();
        let moves = [(0, 1), (4, 2), (9, 1)];
        for (step, &(point, to)) in moves.iter().enumerate() {
            let diagonal = kernel.diagonal(point);
            pending.catch_up(&kernel, &mut lazy, point);
            let from = lazy.move_totals(point, to, 1.0, diagonal);
            let m = Move {
                point,
                from,
                to,
                weight: 1.0,
            };
            pending.push(&kernel, &mut lazy, m);
            eager.move_point(&kernel, point, to, 1.0, diagonal);
            if step == 0 {
                pending.catch_up(&kernel, &mut lazy, 2);
                for l in 0..3 {
                    assert_eq!(lazy.sum(l, 2).to_bits(), eager.sum(l, 2).to_bits());
                }
            }
        }
        pending.catch_up(&kernel, &mut lazy, 5);
        for l in 0..3 {
            assert_eq!(lazy.sum(l, 5).to_bits(), eager.sum(l, 5).to_bits());
        }
        pending.apply(&kernel, &mut lazy);
        assert_eq!(lazy.labels, eager.labels);
        for i in 0..n {
            for l in 0..3 {
                assert_eq!(
                    lazy.sum(l, i).to_bits(),
                    eager.sum(l, i).to_bits(),
                    "m_{l}({i})"
                );
            }
        }
    }
}
