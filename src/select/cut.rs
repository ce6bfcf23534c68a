//! The comparison of the two kernels at one k: the normalised cut, on the kNN graph, of the
//! graph's own partition over that of the energy kernel's partition into as many groups.

use super::fits::{graph_fits, KFit};
use super::neighbors::CsrGraphKernel;
use super::SelectedKernel;
use crate::error::{KGroupsError, Result};
use crate::spectral::Eigenpairs;
use crate::{Control, CsrKernel};

/// Where the energy kernel sees no groups (or its gap still rises at `k_max`), the kNN
/// graph is chosen only when its partition's normalised cut is below this fraction of the
/// energy partition's into as many groups: a cut the energy kernel cannot make. On the
/// development data the graph's shapes scored 0.06 or less, structureless sets 0.07 (one,
/// which the probe refused) and 0.19 or more.
pub const GRAPH_ONLY_CUT_RATIO: f64 = 0.1;

/// At a k chosen by the energy gap (or given), the kNN graph's partition is preferred when
/// its normalised cut is below this fraction of the energy partition's: the two partitions
/// differ where the graph finds groups the energy kernel splits or merges. On the
/// development data, ratios at or above 0.8 were sets where the energy partition scored as
/// well or better.
pub const GRAPH_CUT_RATIO: f64 = 0.8;

/// The kernel at a k both were fitted at: the kNN graph when its partition's normalised cut
/// is below [`GRAPH_CUT_RATIO`] times the energy partition's, else the energy kernel.
pub(super) fn kernel_by_cut(ratio: f64) -> SelectedKernel {
    if ratio < GRAPH_CUT_RATIO {
        SelectedKernel::Knn
    } else {
        SelectedKernel::Energy
    }
}

/// The kNN graph of the statistics' points, its spectrum, and its partitions at the k asked
/// (each computed once).
pub(super) struct GraphPartitions<'g> {
    pub(super) graph: &'g CsrGraphKernel,
    pub(super) kernel: &'g CsrKernel<'g, usize, f64>,
    pub(super) pairs: &'g Eigenpairs,
    pub(super) seed: u64,
    pub(super) fits: Vec<(usize, KFit)>,
}

impl GraphPartitions<'_> {
    /// The graph's partition into `k` groups: its spectral start and one k-means++ start.
    pub(super) fn fit(&mut self, k: usize, control: &Control) -> Result<&KFit> {
        let position = match self.fits.iter().position(|(j, _)| *j == k) {
            Some(p) => p,
            None => {
                let fit = graph_fits(
                    self.kernel,
                    &self.graph.degrees,
                    self.pairs,
                    &[k],
                    1,
                    false,
                    self.seed,
                    control,
                )?
                .pop()
                .ok_or_else(|| KGroupsError::Internal("no graph partition".into()))?;
                self.fits.push((k, fit));
                self.fits.len() - 1
            }
        };
        Ok(&self.fits[position].1)
    }

    /// The normalised cut of the graph's partition into `k` groups over that of `labels`
    /// (the energy kernel's partition into as many), on the same graph; NaN when both are 0
    /// (nothing to choose between).
    pub(super) fn cut_ratio(
        &mut self,
        k: usize,
        labels: &[usize],
        control: &Control,
    ) -> Result<f64> {
        let own = self
            .graph
            .normalized_cut(&self.fit(k, control)?.labels.clone(), k);
        let other = self.graph.normalized_cut(labels, k);
        Ok(if other > 0.0 { own / other } else { f64::NAN })
    }
}
