//! Renumbering checked against direct constructions on small graphs: the ordering is a
//! bijection covering every component, `P G Pᵀ` equals the dense permuted matrix, nothing
//! depends on the number of threads, and a renumbered clustering starts where the plain one
//! starts and ends at a local optimum of the caller's kernel with the objective of its labels.

#![allow(clippy::needless_range_loop)] // the reference loops index on purpose

use super::*;
use crate::test_support::{dense_to_csr, in_pool, TestRng};
use crate::{Algorithm, Init};
use std::sync::atomic::AtomicBool;

/// A symmetric CSR graph: `n` nodes, about `degree` neighbours each, weights in [0.5, 2)
/// (`unit`: all 1), nodes `isolated..n` only among themselves when `split` (two components),
/// the last `isolated` nodes without edges, and the diagonal stored for every third node.
struct Graph {
    n: usize,
    indptr: Vec<usize>,
    indices: Vec<usize>,
    data: Vec<f64>,
    dense: Vec<f64>,
}

fn graph(n: usize, degree: usize, isolated: usize, split: bool, unit: bool, seed: u64) -> Graph {
    let mut rng = TestRng(seed);
    let mut dense = vec![0.0; n * n];
    let connected = n - isolated;
    let half = connected / 2;
    for a in 0..connected {
        for _ in 0..degree.div_ceil(2) {
            let (low, high) = if split && a >= half {
                (half, connected)
            } else if split {
                (0, half)
            } else {
                (0, connected)
            };
            let b = low + ((high - low) as f64 * rng.next_f64()) as usize;
            let v = if unit {
                1.0
            } else {
                0.5 + 1.5 * rng.next_f64()
            };
            dense[a * n + b] = v;
            dense[b * n + a] = v;
        }
        if a % 3 == 0 {
            dense[a * n + a] = if unit { 1.0 } else { 1.0 + rng.next_f64() };
        }
    }
    let (indptr, indices, data) = dense_to_csr(&dense, n);
    Graph {
        n,
        indptr,
        indices,
        data,
        dense,
    }
}

impl Graph {
    fn kernel(&self) -> CsrKernel<'_, usize, f64> {
        CsrKernel::new(&self.indptr, &self.indices, &self.data, self.n).unwrap()
    }
}

fn graphs() -> Vec<Graph> {
    vec![
        graph(1, 0, 0, false, false, 1),
        graph(2, 1, 0, false, true, 2),
        graph(7, 2, 3, false, false, 3),
        graph(40, 3, 0, true, false, 4),
        graph(60, 4, 5, true, true, 5),
        graph(90, 6, 0, false, false, 6),
    ]
}

#[test]
fn the_breadth_first_order_is_a_bijection_that_keeps_components_contiguous() {
    for g in graphs() {
        let p = PermutedCsr::breadth_first(&g.kernel(), None, &Control::new())
            .unwrap()
            .unwrap()
            .0;
        let mut sorted = p.order().to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..g.n).collect::<Vec<_>>());
        for (new, &old) in p.order().iter().enumerate() {
            assert_eq!(p.position()[old], new);
        }
        // Every node after the first of its component was reached from an earlier one.
        for (new, &old) in p.order().iter().enumerate().skip(1) {
            let from_earlier = (0..g.n)
                .any(|y| g.dense[old * g.n + y] != 0.0 && y != old && p.position()[y] < new);
            let is_root = (0..old).all(|y| p.position()[y] < new)
                && (0..g.n)
                    .all(|y| y == old || g.dense[old * g.n + y] == 0.0 || p.position()[y] > new);
            assert!(from_earlier || is_root, "node {old} at {new}");
        }
    }
}

#[test]
fn from_order_rejects_what_is_not_a_permutation() {
    for bad in [vec![0, 0], vec![1, 2], vec![usize::MAX]] {
        let err = Permutation::from_order(bad).unwrap_err();
        assert_eq!(err.argument(), Some("order"));
    }
    assert!(Permutation::from_order(vec![]).unwrap().is_empty());
}

#[test]
fn the_permuted_csr_equals_the_directly_permuted_matrix() {
    for g in graphs() {
        let kernel = g.kernel();
        let (p, permuted) = PermutedCsr::breadth_first(&kernel, None, &Control::new())
            .unwrap()
            .unwrap();
        let (indptr, indices, data) = (permuted.indptr(), permuted.indices(), permuted.data());
        assert_eq!(indptr.len(), g.n + 1);
        assert_eq!(indptr[g.n], g.data.len());
        let mut dense = vec![0.0; g.n * g.n];
        for i in 0..g.n {
            let row = &indices[indptr[i]..indptr[i + 1]];
            assert!(row.windows(2).all(|w| w[0] < w[1]), "row {i} unsorted");
            for position in indptr[i]..indptr[i + 1] {
                dense[i * g.n + indices[position]] = data[position];
            }
        }
        let renumbered = permuted.kernel();
        assert_eq!(renumbered.n(), g.n);
        for i in 0..g.n {
            for j in 0..g.n {
                assert_eq!(
                    dense[i * g.n + j],
                    g.dense[p.order()[i] * g.n + p.order()[j]]
                );
            }
            assert_eq!(renumbered.diagonal(i), g.dense[p.order()[i] * (g.n + 1)]);
        }
    }
}

#[test]
fn the_probe_gives_up_on_wide_levels_only() {
    // A path of 70 000 nodes, numbered at random, has levels of width 1 or 2: renumbered
    // under any limit. Every limit is judged after AUTO_PROBE_NODES nodes.
    let n = AUTO_PROBE_NODES + 4464;
    let mut rng = TestRng(3);
    let mut label: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        label.swap(i, (rng.next_f64() * (i + 1) as f64) as usize);
    }
    let mut rows = vec![vec![]; n];
    for i in 1..n {
        rows[label[i - 1]].push(label[i]);
        rows[label[i]].push(label[i - 1]);
    }
    let (mut indptr, mut indices) = (vec![0usize], vec![]);
    for row in rows.iter_mut() {
        row.sort_unstable();
        indices.extend_from_slice(row);
        indptr.push(indices.len());
    }
    let data = vec![1.0; indices.len()];
    let path = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
    assert!(PermutedCsr::breadth_first(&path, Some(2), &Control::new())
        .unwrap()
        .is_some());
    // A star with n - 1 leaves: one level of n - 1 nodes.
    let (mut indptr, mut indices) = (vec![0usize, n - 1], (1..n).collect::<Vec<_>>());
    for i in 1..n {
        indices.push(0);
        indptr.push(n - 1 + i);
    }
    let data = vec![1.0; indices.len()];
    let star = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
    assert!(
        PermutedCsr::breadth_first(&star, Some(1000), &Control::new())
            .unwrap()
            .is_none()
    );
    assert!(PermutedCsr::breadth_first(&star, None, &Control::new())
        .unwrap()
        .is_some());
}

#[test]
fn ordering_permutation_and_fit_do_not_depend_on_the_thread_count() {
    let g = graph(300, 5, 7, true, false, 9);
    let options = Options {
        init: Init::Random,
        n_init: 3,
        seed: 4,
        ..Options::default()
    };
    let run = || {
        let kernel = g.kernel();
        let (p, permuted) = PermutedCsr::breadth_first(&kernel, None, &Control::new())
            .unwrap()
            .unwrap();
        let r = fit(&kernel, 4, &options, Reorder::Always, &Control::new()).unwrap();
        (p, permuted.indices().to_vec(), permuted.data().to_vec(), r)
    };
    let one = in_pool(1, run);
    let two = in_pool(2, run);
    assert_eq!(one.0, two.0);
    assert_eq!(one.1, two.1);
    assert_eq!(one.2, two.2);
    assert_eq!(one.3, two.3);
}

#[test]
fn never_is_exactly_the_plain_fit_and_auto_is_never_for_small_graphs() {
    for g in graphs().into_iter().filter(|g| g.n >= 3) {
        let kernel = g.kernel();
        for algorithm in [Algorithm::Hartigan, Algorithm::LloydOnline] {
            let options = Options {
                algorithm,
                init: Init::Random,
                n_init: 2,
                seed: 3,
                ..Options::default()
            };
            let plain = crate::fit(&kernel, 3, &options, &Control::new()).unwrap();
            for reorder in [Reorder::Never, Reorder::Auto] {
                assert_eq!(
                    fit(&kernel, 3, &options, reorder, &Control::new()).unwrap(),
                    plain
                );
            }
        }
    }
}

#[test]
fn a_renumbered_run_starts_where_the_plain_run_starts() {
    // Batch Lloyd reassigns every point from the same means, so the visiting order does not
    // matter; on a 0/1 graph with unit weights every sum is an exact integer, so the
    // renumbered run must repeat the plain run bit for bit — from the same start only.
    for g in graphs()
        .into_iter()
        .filter(|g| g.n >= 3 && g.data.iter().all(|&v| v == 1.0))
    {
        let kernel = g.kernel();
        for init in [Init::Random, Init::KMeansPlusPlus] {
            for seed in 0..5 {
                let options = Options {
                    algorithm: Algorithm::Lloyd,
                    init,
                    n_init: 2,
                    seed,
                    ..Options::default()
                };
                let plain = crate::fit(&kernel, 3, &options, &Control::new()).unwrap();
                let renumbered =
                    fit(&kernel, 3, &options, Reorder::Always, &Control::new()).unwrap();
                assert_eq!(renumbered, plain, "{init:?}, seed {seed}");
            }
        }
    }
    // With k = n no point can move: the result is the start, mapped back.
    let g = graph(12, 3, 2, false, false, 12);
    for init in [Init::Random, Init::KMeansPlusPlus] {
        let options = Options {
            init,
            seed: 8,
            ..Options::default()
        };
        let plain = crate::fit(&g.kernel(), 12, &options, &Control::new()).unwrap();
        let renumbered = fit(&g.kernel(), 12, &options, Reorder::Always, &Control::new()).unwrap();
        assert_eq!(renumbered.labels, plain.labels);
        assert_eq!(renumbered.n_moves, 0);
    }
}

#[test]
fn one_point_and_k_one() {
    for (g, k) in [
        (graph(1, 0, 0, false, false, 1), 1),
        (graph(30, 3, 4, true, false, 30), 1),
    ] {
        let options = Options::default();
        let r = fit(&g.kernel(), k, &options, Reorder::Always, &Control::new()).unwrap();
        assert_eq!(r.labels, vec![0; g.n]);
    }
}

#[test]
fn a_cancelled_control_stops_the_renumbering_and_the_fit() {
    let g = graph(50, 3, 0, false, false, 50);
    let kernel = g.kernel();
    let cancel = AtomicBool::new(true);
    let control = Control::new().with_cancel(&cancel);
    assert_eq!(
        PermutedCsr::breadth_first(&kernel, None, &control).unwrap_err(),
        KGroupsError::Interrupted
    );
    let r = fit(&kernel, 2, &Options::default(), Reorder::Always, &control);
    assert_eq!(r.unwrap_err(), KGroupsError::Interrupted);
}

/// The number of breadth-first levels started when the `count`-th node is dequeued, by a
/// plain search with [`PermutedCsr::breadth_first`]'s rules (neighbours in increasing index,
/// a new component from its lowest unreached node, starting a level of its own).
fn levels_started_at(indptr: &[usize], indices: &[usize], count: usize) -> usize {
    let n = indptr.len() - 1;
    let mut level = vec![usize::MAX; n];
    let mut order = Vec::with_capacity(n);
    let mut next_level = 0;
    for root in 0..n {
        if level[root] != usize::MAX {
            continue;
        }
        level[root] = next_level;
        order.push(root);
        let mut head = order.len() - 1;
        while head < order.len() {
            let node = order[head];
            head += 1;
            for &y in &indices[indptr[node]..indptr[node + 1]] {
                if level[y] == usize::MAX {
                    level[y] = level[node] + 1;
                    order.push(y);
                }
            }
        }
        next_level = level[*order.last().unwrap()] + 1;
    }
    level[order[count - 1]] + 1
}

#[test]
fn the_probe_gives_the_verdict_of_the_whole_probe_however_early() {
    // Random graphs whose levels grow at different rates (about `degree` times per level),
    // including several components: with limits on both sides of each graph's threshold
    // (the average width over the probe), renumbering is given up exactly when the average
    // over the whole probe is wider than the limit, although a wide graph is now judged
    // within a few levels.
    let n = AUTO_PROBE_NODES + 5000;
    for (degree, components, seed) in [
        (2usize, 1usize, 1u64),
        (3, 1, 2),
        (6, 3, 3),
        (20, 1, 4),
        (40, 2, 5),
    ] {
        let mut rng = TestRng(seed);
        let mut rows = vec![vec![]; n];
        let size = n / components;
        for a in 0..n {
            let low = (a / size).min(components - 1) * size;
            let high = if low / size == components - 1 {
                n
            } else {
                low + size
            };
            for _ in 0..degree.div_ceil(2) {
                let b = low + ((high - low) as f64 * rng.next_f64()) as usize;
                if b != a {
                    rows[a].push(b);
                    rows[b].push(a);
                }
            }
        }
        let (mut indptr, mut indices) = (vec![0usize], vec![]);
        for row in rows.iter_mut() {
            row.sort_unstable();
            row.dedup();
            indices.extend_from_slice(row);
            indptr.push(indices.len());
        }
        let data = vec![1.0; indices.len()];
        let kernel = CsrKernel::new(&indptr, &indices, &data, n).unwrap();
        let levels = levels_started_at(&indptr, &indices, AUTO_PROBE_NODES);
        let threshold = AUTO_PROBE_NODES.div_ceil(levels);
        for width in [1, threshold - 1, threshold, threshold + 1, AUTO_PROBE_NODES] {
            let gives_up = AUTO_PROBE_NODES > width * levels;
            let result = PermutedCsr::breadth_first(&kernel, Some(width), &Control::new());
            assert_eq!(
                result.unwrap().is_none(),
                gives_up,
                "degree {degree}, {components} components, {levels} levels, limit {width}"
            );
        }
    }
}
