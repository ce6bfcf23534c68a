//! With k given, the kernel alone: the energy kernel's partition and the kNN graph's, both
//! into k groups, compared by their normalised cuts on the graph
//! ([`kernel_by_cut`](super::cut::kernel_by_cut)), with no gap statistic and no reference
//! data.

use super::cut::{kernel_by_cut, GraphPartitions};
use super::every_point::{best_of_starts, knn_partition_of_all};
use super::neighbors::{knn_affinity, CsrGraphKernel, KNN_NEIGHBOURS};
use super::steps::Steps;
use super::{
    check_sample_options, eigengap, energy_log_w, one_group, statistics_sample, KernelChoice,
    SelectOptions, SelectedKernel, Selection, SelectionRule, SelectionTable, StructureScores,
};
use crate::error::{KGroupsError, Result};
use crate::rng::derive_seeds;
use crate::{Base, Control, DataKernel, Points, Semimetric};
use std::sync::atomic::AtomicUsize;

/// Partition the points `x` into `k` groups with the better of the two kernels of
/// [`select_k`](super::select_k): the kNN graph's partition (normalised cut of the
/// 10-neighbour connectivity graph, spectral start and one k-means++ start) when its cut is
/// below [`GRAPH_CUT_RATIO`](super::GRAPH_CUT_RATIO) times the cut of the energy kernel's
/// partition (the best of `options.n_init` k-means++ starts), else the energy kernel's.
///
/// Both partitions are computed on at most `options.max_statistics_points` points (a seeded
/// subsample beyond that); the chosen kernel's partition then covers every point, as in
/// [`select_k`](super::select_k). The result's `rule` is [`SelectionRule::GivenK`], its
/// table one row (k, with `W_k` of the energy partition), `structure.cut_ratio` the ratio
/// compared. `options.k_min`, `k_max`, `kernel`, `n_refs` and `n_pairs` are not used.
///
/// With [`KernelChoice::Energy`] or [`KernelChoice::Knn`] there is nothing to choose: that
/// kernel's partition alone (the kNN graph's beyond the sample by the same vote and
/// refinement), with no cut ratio.
///
/// Errors: `k` outside `1 … n` (naming `k`), `n_init` of 0, fewer than 2 points, identical
/// points for k ≥ 2; [`KGroupsError::Interrupted`] when `control` is cancelled.
pub(super) fn select_kernel(
    x: &Points,
    k: usize,
    options: &SelectOptions,
    control: &Control,
) -> Result<Selection> {
    let n = x.n();
    if k < 1 || k > n {
        return Err(KGroupsError::invalid(
            "k",
            format!("k must be within 1 … n = {n}, got {k}"),
        ));
    }
    check_sample_options(options, n)?;
    let dim = x.dim();
    let first = &x.data()[..dim];
    if k == 1 || x.data().chunks_exact(dim).all(|row| row == first) {
        let mut given = one_group(n, SelectionTable::empty(&[k]));
        given.rule = SelectionRule::GivenK;
        given.k = k;
        return if k == 1 {
            Ok(given)
        } else {
            Err(KGroupsError::invalid(
                "X",
                format!("the points are all identical: they cannot form k = {k} groups"),
            ))
        };
    }
    // Data of huge magnitude are divided by a power of two first (exact: both partitions
    // are invariant to a common scale); W_k is reported in the scaled units' place as NaN
    // beyond f64's range.
    if let Some(e) = crate::scale::large_data_exponent(x.data()) {
        let scaled = crate::scale::scaled_copy(x.data(), e, "X")?;
        let mut s = select_kernel(&Points::new(&scaled, n, dim)?, k, options, control)?;
        s.table
            .within
            .iter_mut()
            .for_each(|w| *w = crate::scale::times_pow2(*w, e));
        s.table
            .log_within
            .iter_mut()
            .for_each(|v| *v += f64::from(e) * std::f64::consts::LN_2);
        return Ok(s);
    }
    let seeds = derive_seeds(options.seed, 4);
    let quiet = control.without_progress();
    let limit = options.max_statistics_points.max(k + 1);
    let (sample, m, sample_nodes) = statistics_sample(x, limit, seeds[0]);
    let points = Points::new(&sample, m, dim)?;
    let steps = Steps {
        control,
        done: AtomicUsize::new(0),
        total: 2 + if m == n { 1 } else { options.n_init },
    };

    let choice = options.kernel;
    let energy = match choice {
        KernelChoice::Knn => None,
        _ => Some(energy_log_w(
            &points,
            &[k],
            options.n_init,
            false,
            seeds[1],
            &quiet,
        )?),
    };
    steps.step()?;
    let knn = match choice {
        KernelChoice::Energy => None,
        _ => Some(CsrGraphKernel::from_affinity(knn_affinity(
            &points,
            KNN_NEIGHBOURS.min(m - 1),
            &quiet,
        )?)),
    };
    let knn_kernel = knn.as_ref().map(|g| g.kernel()).transpose()?;
    // Only the spectral start reads the eigenvectors: their rough span is enough.
    let pairs = match (&knn, &knn_kernel) {
        (Some(g), Some(kernel)) => Some(eigengap::normalized_eigenpairs(
            kernel,
            &g.degrees,
            k.min(m),
            seeds[2],
            &eigengap::START_EIGEN_OPTIONS,
            &quiet,
        )?),
        _ => None,
    };
    let mut graph = match (&knn, &knn_kernel, &pairs) {
        (Some(graph), Some(kernel), Some(pairs)) => Some(GraphPartitions {
            graph,
            kernel,
            pairs,
            seed: seeds[3],
            fits: Vec::new(),
        }),
        _ => None,
    };
    let (kernel, ratio) = match (&energy, graph.as_mut()) {
        (Some((fits, _)), Some(graph)) => {
            let ratio = graph.cut_ratio(k, &fits[0].labels, &quiet)?;
            (kernel_by_cut(ratio), Some(ratio))
        }
        (Some(_), None) => (SelectedKernel::Energy, None),
        _ => (SelectedKernel::Knn, None),
    };
    steps.step()?;

    let labels = match (kernel, &energy, graph.as_mut(), &sample_nodes) {
        (SelectedKernel::Energy, Some((fits, _)), _, None) => fits[0].labels.clone(),
        (SelectedKernel::Energy, _, _, _) => {
            let full = DataKernel::new(*x, Semimetric::Power { alpha: 1.0 }, Base::Mean)?;
            best_of_starts(&full, k, options.n_init, seeds[3], &steps, &quiet)?
        }
        (SelectedKernel::Knn, _, Some(graph), nodes) => {
            let labels = graph.fit(k, &quiet)?.labels.clone();
            match nodes {
                None => labels,
                Some(nodes) => {
                    let stage = || steps.step_if_planned();
                    knn_partition_of_all(x, nodes, &labels, k, seeds[3], &stage, &quiet)?
                }
            }
        }
        (SelectedKernel::Knn, _, None, _) => {
            return Err(KGroupsError::Internal(
                "no graph for the kNN partition".into(),
            ))
        }
    };
    steps.finish()?;

    let mut table = SelectionTable::empty(&[k]);
    if let Some((fits, log_w)) = energy {
        table.within = vec![fits[0].within];
        table.log_within = log_w;
    }
    Ok(Selection {
        k,
        labels,
        kernel: Some(kernel),
        rule: SelectionRule::GivenK,
        table,
        structure: StructureScores {
            cut_ratio: ratio,
            ..StructureScores::none()
        },
        at_range_end: false,
        n_statistics: m,
    })
}
