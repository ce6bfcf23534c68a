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
    /// `E*[log W_k]` over the references uniform on the principal-component box.
    pub expected_log_within_pc: Vec<f64>,
    /// `Gap(k)`, references uniform on the principal-component box.
    pub gap_pc: Vec<f64>,
    /// `s_k`, the standard error of `Gap(k)`.
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
            expected_log_within_pc: nan.clone(),
            gap_pc: nan.clone(),
            se_pc: nan.clone(),
            stability: nan.clone(),
            eigenvalue: nan.clone(),
            relative_eigengap: nan,
        }
    }
}

/// The scores the rule of [`select_k`](super::select_k) read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StructureScores {
    /// The energy kernel's structure score, `Gap(k) − Gap(1) − max(0.1, 3 s_k)` maximised
    /// over k ≥ 2: positive when it sees more than one group (NaN when not computed).
    pub energy: f64,
    /// The self-tuning probe's `Gap(2) − s_2 − Gap(1)`, when it was run.
    pub self_tuning: Option<f64>,
    /// The normalised cut of the kNN graph's partition over the energy kernel's, at the k
    /// where the two kernels were compared (NaN when both cuts are 0).
    pub cut_ratio: Option<f64>,
}

impl StructureScores {
    /// No score computed.
    pub fn none() -> Self {
        StructureScores {
            energy: f64::NAN,
            self_tuning: None,
            cut_ratio: None,
        }
    }
}
