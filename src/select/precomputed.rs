//! Choosing k for a precomputed kernel matrix, where no reference data can be drawn: the
//! most stable k.

use super::fits::energy_fits;
use super::steps::Steps;
use super::{
    check_options, log_within, stability, stable_range, SelectOptions, Selection, SelectionRule,
    SelectionTable, StructureScores,
};
use crate::error::{try_filled, Result};
use crate::rng::derive_seeds;
use crate::{Control, DenseKernel};
use std::sync::atomic::AtomicUsize;

/// Choose k for a precomputed kernel matrix `g` (dense, row-major `n × n`, symmetric), where
/// no reference data can be drawn: k is the most stable k in `max(2, k_min) … k_max` (the
/// first, if tied; `max(2, k_min)` when no subsample can hold two groups), so one group is
/// never the answer. The table holds `W_k` of each k's
/// partition, the stability, the top eigenvalues `μ_k` of `G` itself in the `eigenvalue`
/// column and `(μ_k − μ_{k+1}) / |μ_k|` in the `relative_eigengap` column (the gap columns
/// are NaN). `options.kernel` and `n_refs` are not used; the statistics use every point.
pub fn select_k_precomputed(
    g: &[f64],
    n: usize,
    options: &SelectOptions,
    control: &Control,
) -> Result<Selection> {
    check_options(options, n)?;
    let kernel = DenseKernel::new(g, n)?;
    let quiet = control.without_progress();
    let ks: Vec<usize> = (1..=options.k_max).collect();
    let seeds = derive_seeds(options.seed, 4);
    let steps = Steps {
        control,
        done: AtomicUsize::new(0),
        total: options.n_pairs.max(1).saturating_mul(2).saturating_add(2),
    };
    let fits = energy_fits(
        &kernel,
        &ks,
        options.n_init,
        options.warm_start,
        seeds[0],
        &quiet,
    )?;
    steps.step()?;
    let pairs = crate::spectral::top_eigenpairs(
        &kernel,
        None,
        (options.k_max + 1).min(n),
        seeds[1],
        &quiet,
    )?;
    steps.step()?;
    let stable_ks = stable_range(options, n);
    let values = if stable_ks.is_empty() {
        Vec::new()
    } else {
        stability::stability(
            n,
            &stable_ks,
            options.n_pairs.max(1),
            seeds[2],
            |nodes, ks, seed| {
                let m = nodes.len();
                let mut sub = try_filled(m * m, 0.0, "G", "a subsample's kernel")?;
                for (r, &i) in nodes.iter().enumerate() {
                    for (c, &j) in nodes.iter().enumerate() {
                        sub[r * m + c] = g[i * n + j];
                    }
                }
                let sub_kernel = DenseKernel::trusting_symmetry(&sub, m)?;
                let fits = energy_fits(&sub_kernel, ks, 1, options.warm_start, seed, &quiet)?;
                steps.step()?;
                Ok(fits.into_iter().map(|f| f.labels).collect())
            },
            control,
        )?
    };
    let mut best = (options.k_min.max(2), f64::NEG_INFINITY);
    for (&k, &v) in stable_ks.iter().zip(&values) {
        if v > best.1 {
            best = (k, v);
        }
    }
    let k = best.0;
    let mut table = SelectionTable::empty(&ks);
    let floor = (fits[0].within.abs() * 1e-12).max(f64::MIN_POSITIVE);
    table.within = fits.iter().map(|f| f.within).collect();
    table.log_within = log_within(&fits, floor);
    for (&k, v) in stable_ks.iter().zip(values) {
        table.stability[k - 1] = v;
    }
    for (j, mu) in pairs.values.iter().enumerate().take(options.k_max) {
        table.eigenvalue[j] = *mu;
        if let Some(next) = pairs.values.get(j + 1) {
            table.relative_eigengap[j] = (mu - next) / mu.abs().max(1e-300);
        }
    }
    Ok(Selection {
        k,
        labels: fits[k - 1].labels.clone(),
        kernel: None,
        rule: SelectionRule::Stability,
        table,
        structure: StructureScores::none(),
        at_range_end: false,
        n_statistics: n,
    })
}
