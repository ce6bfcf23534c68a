//! The per-k table of a selection.

/// The statistics of a selection, one entry per k = 1 … K (NaN where not computed).
#[derive(Debug, Clone, PartialEq)]
pub struct SelectionTable {
    /// k.
    pub k: Vec<usize>,
    /// `W_k`: the energy within-cluster dispersion of the energy kernel's partition (of the
    /// given kernel's, for a precomputed kernel).
    pub within: Vec<f64>,
    /// `log W_k`.
    pub log_within: Vec<f64>,
    /// `E*[log W_k]` over the references uniform on the data's box.
    pub expected_log_within_box: Vec<f64>,
    /// `E*[log W_k]` over the references uniform on the principal-component box.
    pub expected_log_within_pc: Vec<f64>,
    /// `Gap(k)`, data's box.
    pub gap_box: Vec<f64>,
    /// `s_k`, data's box.
    pub se_box: Vec<f64>,
    /// `Gap(k)`, principal-component box (the one the rule uses).
    pub gap_pc: Vec<f64>,
    /// `s_k`, principal-component box.
    pub se_pc: Vec<f64>,
    /// The mean ARI over subsample pairs of the chosen kernel (the energy kernel for one
    /// group), k ≥ 2.
    pub stability: Vec<f64>,
    /// `λ_k = 1 − μ_k` of the kNN graph (for a precomputed kernel: `μ_k` of `G`).
    pub eigenvalue: Vec<f64>,
    /// `(λ_{k+1} − λ_k) / λ_{k+1}` (precomputed: `(μ_k − μ_{k+1}) / |μ_k|`); NaN where the
    /// eigen-solver did not converge and its residuals do not resolve the gap.
    pub relative_eigengap: Vec<f64>,
}

impl SelectionTable {
    /// A table for `ks` with every statistic NaN.
    pub fn empty(ks: &[usize]) -> Self {
        let nan = vec![f64::NAN; ks.len()];
        SelectionTable {
            k: ks.to_vec(),
            within: nan.clone(),
            log_within: nan.clone(),
            expected_log_within_box: nan.clone(),
            expected_log_within_pc: nan.clone(),
            gap_box: nan.clone(),
            se_box: nan.clone(),
            gap_pc: nan.clone(),
            se_pc: nan.clone(),
            stability: nan.clone(),
            eigenvalue: nan.clone(),
            relative_eigengap: nan,
        }
    }
}

/// The structure scores `Gap(2) − s_2 − Gap(1)` (principal-component box) of the kernels
/// tested: positive means the kernel sees more than one group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StructureScores {
    /// The energy kernel's (NaN when not computed).
    pub energy: f64,
    /// The self-tuning probe's, when it was run (only when the energy kernel saw none).
    pub self_tuning: Option<f64>,
}

/// The k that each of R's `cluster::maxSE` rules
/// ([`GapRule::ALL`](super::gap::GapRule::ALL), in that order) picks from the energy
/// kernel's gap over `k_min … k_max`, on each reference box.
///
/// ```
/// use kgroups::select::{select_k, SelectOptions, SelectionRule};
/// use kgroups::{Control, Points};
/// // Two tight groups of 20 points, far apart, in 1-D.
/// let data: Vec<f64> = (0..40)
///     .map(|i| (i / 20) as f64 * 10.0 + (i % 20) as f64 * 0.01)
///     .collect();
/// let options = SelectOptions { k_max: 4, n_refs: 3, n_init: 2, ..SelectOptions::default() };
/// let s = select_k(&Points::new(&data, 40, 1)?, &options, &Control::new())?;
/// let rules = s.gap_rules.expect("the energy gap was computed");
/// assert_eq!(s.rule, SelectionRule::EnergyGap);
/// assert_eq!(rules.principal[0], s.k); // Tibs2001SEmax on the principal-component box
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GapRuleChoices {
    /// References uniform on the data's box.
    pub data_box: [usize; 5],
    /// References uniform on the principal-component box (the rule of
    /// [`select_k`](super::select_k) is its `Tibs2001SEmax`, the first entry).
    pub principal: [usize; 5],
}
