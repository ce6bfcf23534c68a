//! Every rule about a caller's input, in one place.
//!
//! The algorithms take values that are already valid: each public entry point checks its
//! arguments here first — the clustering options through [`crate::Options::check`], which
//! returns [`crate::CheckedOptions`] (linfa's "parameters → `check()` → checked parameters"
//! pattern) — so that every rule is written once, with one wording.
//!
//! Errors are [`KGroupsError::InvalidInput`] naming the argument as the Python API spells it
//! (`G`, `X`, `k`, `init`, `labels`, `weights`, `n_init`, `max_iter`, `n_threads`, …), so
//! that the binding can pass them on unchanged. Where one rule serves several arguments (a
//! label vector may be `init` or `labels`, a count may be `n_components`), the caller passes
//! the name. Messages state the rule and the offending value, never an internal constant.
//!
//! The one symmetry rule for kernel matrices lives in [`symmetry`]; the rules for semimetric
//! matrices (symmetry, zero diagonal, signs) in [`semimetric`].
//!
//! ```
//! use kgroups::validate;
//! assert!(validate::k(3, 10).is_ok());
//! let err = validate::k(0, 10).unwrap_err();
//! assert_eq!(err.argument(), Some("k"));
//! assert!(err.to_string().contains("k must be between 1 and n = 10 (the number of points), got 0"));
//! ```

pub mod semimetric;
pub mod symmetry;

use crate::error::{try_filled, KGroupsError, Result};
use crate::kernel::csr::CsrIndex;
use crate::kernel::KernelElement;
use crate::scale::{binary_exponent, times_pow2};
use rayon::prelude::*;

/// The largest number of independent starts (`n_init`): each start's seed is derived up
/// front, and more starts than this are surely a mistake.
pub const MAX_N_INIT: usize = 1_000_000;

/// The largest number of threads (`n_threads`) a caller may ask for.
pub const MAX_THREADS: usize = 1024;

/// `lo <= value <= hi` for a count named `argument`; `hi_text` describes the upper bound
/// where it is not a plain number (e.g. `"n = 100 (the number of points)"`; `None`: `hi`).
/// With `hi = usize::MAX` the message says "at least `lo`".
///
/// ```
/// use kgroups::validate::count;
/// assert!(count(5, 1, 10, None, "n_components").is_ok());
/// let err = count(0, 1, 10, Some("n = 10 (the number of points)"), "n_components").unwrap_err();
/// assert!(err.to_string().contains(
///     "n_components must be between 1 and n = 10 (the number of points), got 0"
/// ));
/// assert!(count(0, 1, usize::MAX, None, "max_iter").unwrap_err().to_string()
///     .contains("max_iter must be at least 1, got 0"));
/// ```
pub fn count(
    value: usize,
    lo: usize,
    hi: usize,
    hi_text: Option<&str>,
    argument: &'static str,
) -> Result<()> {
    if (lo..=hi).contains(&value) {
        return Ok(());
    }
    let rule = if hi == usize::MAX {
        format!("at least {lo}")
    } else {
        match hi_text {
            Some(text) => format!("between {lo} and {text}"),
            None => format!("between {lo} and {hi}"),
        }
    };
    Err(KGroupsError::invalid(
        argument,
        format!("{argument} must be {rule}, got {value}"),
    ))
}

/// The number of clusters: `1 <= k <= n` (argument `k`).
///
/// ```
/// use kgroups::validate;
/// assert!(validate::k(1, 1).is_ok());
/// assert!(validate::k(4, 3).is_err());
/// ```
pub fn k(k: usize, n: usize) -> Result<()> {
    count(
        k,
        1,
        n,
        Some(&format!("n = {n} (the number of points)")),
        "k",
    )
}

/// The number of independent starts: `1 <= n_init <= MAX_N_INIT` (argument `n_init`).
///
/// ```
/// use kgroups::validate;
/// assert!(validate::n_init(10).is_ok());
/// assert!(validate::n_init(0).is_err());
/// assert!(validate::n_init(usize::MAX).is_err());
/// ```
pub fn n_init(n_init: usize) -> Result<()> {
    count(n_init, 1, MAX_N_INIT, None, "n_init")
}

/// Initial labels fix the start, so several starts would all be the same: `n_init` must be
/// 1 when labels are given (argument `n_init`).
///
/// ```
/// use kgroups::validate;
/// assert!(validate::one_start_for_labels(1).is_ok());
/// assert!(validate::one_start_for_labels(2).is_err());
/// ```
pub fn one_start_for_labels(n_init: usize) -> Result<()> {
    if n_init == 1 {
        return Ok(());
    }
    Err(KGroupsError::invalid(
        "n_init",
        format!(
            "n_init = {n_init} but initial labels were given; with explicit labels every start would \
             be the same, so n_init must be 1"
        ),
    ))
}

/// The sweep limit of each start: `max_iter >= 1` (argument `max_iter`).
///
/// ```
/// use kgroups::validate;
/// assert!(validate::max_iter(usize::MAX).is_ok());
/// assert!(validate::max_iter(0).is_err());
/// ```
pub fn max_iter(max_iter: usize) -> Result<()> {
    count(max_iter, 1, usize::MAX, None, "max_iter")
}

/// A thread count: `1 <= n_threads <= MAX_THREADS` (argument `n_threads`).
///
/// ```
/// use kgroups::validate;
/// assert!(validate::n_threads(8).is_ok());
/// assert!(validate::n_threads(0).unwrap_err().to_string()
///     .contains("n_threads must be between 1 and 1024, got 0"));
/// ```
pub fn n_threads(n_threads: usize) -> Result<()> {
    count(n_threads, 1, MAX_THREADS, None, "n_threads")
}

/// At least one point: `n >= 1` for the input named `argument` (`G`, `X`, …).
///
/// ```
/// use kgroups::validate;
/// assert!(validate::non_empty(3, "G").is_ok());
/// assert!(validate::non_empty(0, "G").unwrap_err().to_string().contains("G is empty"));
/// ```
pub fn non_empty(n: usize, argument: &'static str) -> Result<()> {
    if n >= 1 {
        return Ok(());
    }
    Err(KGroupsError::invalid(
        argument,
        format!("{argument} is empty (n = 0); at least one point is needed"),
    ))
}

/// `len` entries make an `n × n` matrix: `len == n²` (argument `argument`).
///
/// ```
/// use kgroups::validate;
/// assert!(validate::square(9, 3, "G").is_ok());
/// assert!(validate::square(8, 3, "G").is_err());
/// assert!(validate::square(0, 0, "G").is_ok()); // emptiness is `non_empty`'s rule
/// ```
pub fn square(len: usize, n: usize, argument: &'static str) -> Result<()> {
    match n.checked_mul(n) {
        Some(entries) if entries == len => Ok(()),
        entries => {
            let needed = match entries {
                Some(entries) => format!("n² = {entries} entries"),
                None => "n² entries".to_string(),
            };
            Err(KGroupsError::invalid(
                argument,
                format!(
                    "{argument} has {len} entries but an n × n matrix with n = {n} needs {needed}"
                ),
            ))
        }
    }
}

/// Every value finite, for a row-major matrix with rows of `row_len` values (data points,
/// features); the error names the row and column of the first NaN or infinity.
///
/// ```
/// use kgroups::validate;
/// assert!(validate::finite(&[1.0, 2.0, 3.0, 4.0], 2, "X").is_ok());
/// let err = validate::finite(&[1.0, 2.0, f64::NAN, 4.0], 2, "X").unwrap_err();
/// assert!(err.to_string().contains("X contains NaN or infinity at row 1, column 0"));
/// ```
pub fn finite(values: &[f64], row_len: usize, argument: &'static str) -> Result<()> {
    let row_len = row_len.max(1);
    // Whole rows per chunk (at least 1024 values), searched in parallel.
    let Some(position) = first_non_finite(values, row_len * 1024usize.div_ceil(row_len)) else {
        return Ok(());
    };
    Err(KGroupsError::invalid(
        argument,
        format!(
            "{argument} contains NaN or infinity at row {}, column {} (value {}); all values must be finite",
            position / row_len,
            position % row_len,
            values[position]
        ),
    ))
}

/// True when every value is finite (vectorisable: x·0 is 0 for finite x, NaN otherwise).
#[inline]
pub(crate) fn all_finite<T: KernelElement>(v: &[T]) -> bool {
    const L: usize = 8;
    let mut acc = [0.0f64; L];
    let mut chunks = v.chunks_exact(L);
    for c in &mut chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            let x = x.widen();
            *a += x * 0.0;
        }
    }
    let mut r = 0.0;
    for x in chunks.remainder() {
        let x = x.widen();
        r += x * 0.0;
    }
    acc.iter().fold(r, |a, &b| a + b) == 0.0
}

/// Position of the first non-finite value of `v`, found chunk by chunk (`chunk` values each) in
/// parallel with a vectorisable test per chunk.
pub(crate) fn first_non_finite(v: &[f64], chunk: usize) -> Option<usize> {
    let chunk = chunk.max(1);
    let c = v.par_chunks(chunk).position_first(|c| !all_finite(c))?;
    let start = c * chunk;
    v[start..]
        .iter()
        .position(|x| !x.is_finite())
        .map(|c| start + c)
}

/// Labels for `n` points and `k` clusters, with empty clusters allowed (as for cluster sums
/// of a partial partition): one label per point, each below `k`.
///
/// ```
/// use kgroups::validate;
/// assert!(validate::labels_below_k(&[0, 0, 2], 3, 3, "labels").is_ok());
/// assert!(validate::labels_below_k(&[0, 3, 1], 3, 3, "labels").is_err());
/// assert!(validate::labels_below_k(&[0, 1], 3, 3, "labels").is_err());
/// ```
pub fn labels_below_k(labels: &[usize], n: usize, k: usize, argument: &'static str) -> Result<()> {
    if labels.len() != n {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument} has length {} but there are n = {n} points; give one label per point",
                labels.len()
            ),
        ));
    }
    if let Some(i) = labels.iter().position(|&label| label >= k) {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument}[{i}] = {} is out of range: labels must be below k = {k}",
                labels[i]
            ),
        ));
    }
    Ok(())
}

/// A partition of `n` points into `k` clusters: one label per point, each below `k`, and
/// every cluster non-empty.
///
/// ```
/// use kgroups::validate;
/// assert!(validate::labels(&[0, 1, 1], 3, 2, "init").is_ok());
/// assert!(validate::labels(&[0, 0, 0], 3, 2, "init").is_err()); // cluster 1 empty
/// assert!(validate::labels(&[0, 2, 1], 3, 2, "init").is_err()); // label out of range
/// ```
pub fn labels(labels: &[usize], n: usize, k: usize, argument: &'static str) -> Result<()> {
    labels_below_k(labels, n, k, argument)?;
    // With k > n some cluster in 0..=n is surely empty, so counting the clusters below
    // n + 1 finds the first empty one without an allocation of size k.
    let tracked = k.min(n.saturating_add(1));
    let mut counts = try_filled(tracked, 0usize, argument, "the cluster sizes")?;
    for &label in labels.iter().filter(|&&label| label < tracked) {
        counts[label] += 1;
    }
    if let Some(empty) = counts.iter().position(|&c| c == 0) {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument} leaves cluster {empty} empty; every cluster 0..k-1 needs at least one \
                 point (k = {k})"
            ),
        ));
    }
    Ok(())
}

/// Labels given as signed integers (numpy's int64) converted to indices: every label `>= 0`.
/// The range and emptiness rules are [`labels`]'s, once `k` is known.
///
/// ```
/// use kgroups::validate;
/// assert_eq!(validate::labels_from_signed(&[0, 2, 1], "init")?, vec![0, 2, 1]);
/// assert!(validate::labels_from_signed(&[0, -1], "init").unwrap_err().to_string()
///     .contains("init[1] = -1 is out of range"));
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn labels_from_signed(labels: &[i64], argument: &'static str) -> Result<Vec<usize>> {
    let mut out = try_filled(labels.len(), 0usize, argument, "the labels")?;
    for (i, (o, &label)) in out.iter_mut().zip(labels).enumerate() {
        *o = usize::try_from(label).map_err(|_| {
            KGroupsError::invalid(
                argument,
                format!("{argument}[{i}] = {label} is out of range: labels must be at least 0"),
            )
        })?;
    }
    Ok(out)
}

/// One weight per point: `weights.len() == n`.
///
/// ```
/// use kgroups::validate;
/// assert!(validate::weights_len(&[1.0, 2.0], 2, "weights").is_ok());
/// assert!(validate::weights_len(&[1.0], 2, "weights").is_err());
/// ```
pub fn weights_len(weights: &[f64], n: usize, argument: &'static str) -> Result<()> {
    if weights.len() == n {
        return Ok(());
    }
    Err(KGroupsError::invalid(
        argument,
        format!(
            "{argument} has length {} but there are n = {n} points; give one weight per point",
            weights.len()
        ),
    ))
}

/// Point weights of a clustering: one per point, each finite and `> 0`.
///
/// ```
/// use kgroups::validate;
/// assert!(validate::weights(&[1.0, 0.5], 2, "weights").is_ok());
/// assert!(validate::weights(&[1.0, 0.0], 2, "weights").is_err());
/// assert!(validate::weights(&[1.0, f64::NAN], 2, "weights").is_err());
/// ```
pub fn weights(weights: &[f64], n: usize, argument: &'static str) -> Result<()> {
    weights_len(weights, n, argument)?;
    if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument}[{i}] = {} but every weight must be finite and > 0",
                weights[i]
            ),
        ));
    }
    Ok(())
}

/// Sample weights as scikit-learn takes them: one per point, each finite and `>= 0`, and not
/// all zero (points of weight 0 take no part).
///
/// ```
/// use kgroups::validate;
/// assert!(validate::sample_weights(&[1.0, 0.0], 2, "sample_weight").is_ok());
/// assert!(validate::sample_weights(&[0.0, 0.0], 2, "sample_weight").is_err());
/// assert!(validate::sample_weights(&[1.0, -1.0], 2, "sample_weight").is_err());
/// ```
pub fn sample_weights(weights: &[f64], n: usize, argument: &'static str) -> Result<()> {
    weights_len(weights, n, argument)?;
    if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument}[{i}] = {} but every weight must be finite and >= 0",
                weights[i]
            ),
        ));
    }
    if weights.iter().all(|&w| w == 0.0) {
        return Err(KGroupsError::invalid(
            argument,
            format!("{argument} is zero for every point; at least one weight must be positive"),
        ));
    }
    Ok(())
}

/// Checked point weights ([`weights`]) times an exact power of two `2^-e` that brings the
/// largest into `[1, 2)`, and `e`. The partition does not depend on a common scale of the
/// weights, while `w_a w_b` and the sums built from them would overflow or underflow for
/// extreme scales; results are scaled back by `2^e`. Errors when the smallest weight is so
/// far below the largest that their ratio leaves the normal range of f64.
///
/// ```
/// use kgroups::validate;
/// let (scaled, e) = validate::scaled_weights(&[4.0, 6.0], 2, "weights")?;
/// assert_eq!((scaled, e), (vec![1.0, 1.5], 2));
/// assert!(validate::scaled_weights(&[1e300, 1e-300], 2, "weights").is_err());
/// # Ok::<(), kgroups::KGroupsError>(())
/// ```
pub fn scaled_weights(
    weights: &[f64],
    n: usize,
    argument: &'static str,
) -> Result<(Vec<f64>, i32)> {
    self::weights(weights, n, argument)?;
    let largest = weights.iter().fold(0.0f64, |m, &w| m.max(w));
    let e = binary_exponent(largest);
    let mut scaled = try_filled(weights.len(), 0.0, argument, "the point weights")?;
    for (s, &w) in scaled.iter_mut().zip(weights) {
        *s = times_pow2(w, -e);
    }
    if let Some(i) = scaled.iter().position(|w| !w.is_normal()) {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "{argument}[{i}] = {:e} is too small beside the largest weight {largest:e}: their \
                 ratio is beyond the range of f64; drop such points or give them a larger weight",
                weights[i]
            ),
        ));
    }
    Ok((scaled, e))
}

/// The diagonal shift of [`crate::Options::shift`] (argument `shift`): finite.
///
/// ```
/// use kgroups::validate;
/// assert!(validate::shift(-2.5).is_ok());
/// assert!(validate::shift(f64::NAN).is_err());
/// assert!(validate::shift(f64::INFINITY).is_err());
/// ```
pub fn shift(shift: f64) -> Result<()> {
    if shift.is_finite() {
        return Ok(());
    }
    Err(KGroupsError::invalid(
        "shift",
        format!("shift must be finite, got {shift}"),
    ))
}

/// The structure of an `n × n` CSR matrix named `argument` with `nnz` stored values: at
/// least one row, `n + 1` row pointers non-decreasing from 0 to nnz, `nnz` column indices,
/// each in `0..n`, sorted and unique within each row. (Its values are checked by
/// [`crate::CsrKernel::new`]: finite, and symmetric by the rule of [`symmetry`].)
///
/// ```
/// use kgroups::validate;
/// // The path graph 0 — 1 — 2.
/// assert!(validate::csr_structure(&[0usize, 1, 3, 4], &[1usize, 0, 2, 1], 4, 3, "G").is_ok());
/// // Row 1 lists column 0 twice.
/// assert!(validate::csr_structure(&[0usize, 1, 3, 4], &[1usize, 0, 0, 1], 4, 3, "G").is_err());
/// ```
pub fn csr_structure<I: CsrIndex>(
    indptr: &[I],
    indices: &[I],
    nnz: usize,
    n: usize,
    argument: &'static str,
) -> Result<()> {
    non_empty(n, argument)?;
    if n.checked_add(1) != Some(indptr.len()) {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "indptr has length {} but an n × n CSR matrix with n = {n} needs n + 1",
                indptr.len()
            ),
        ));
    }
    if indices.len() != nnz {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "indices has length {} but data has length {nnz}",
                indices.len()
            ),
        ));
    }
    if indptr[0].index() != 0 || indptr[n].index() != nnz {
        return Err(KGroupsError::invalid(
            argument,
            format!("indptr must start at 0 and end at nnz = {nnz}"),
        ));
    }
    if let Some(i) = (0..n).find(|&i| indptr[i].index() > indptr[i + 1].index()) {
        return Err(KGroupsError::invalid(
            argument,
            format!("indptr decreases between rows {i} and {}", i + 1),
        ));
    }
    let bad_row = (0..n).into_par_iter().find_first(|&i| {
        let row = &indices[indptr[i].index()..indptr[i + 1].index()];
        row.iter().any(|c| c.index() >= n) || row.windows(2).any(|w| w[0].index() >= w[1].index())
    });
    if let Some(i) = bad_row {
        return Err(KGroupsError::invalid(
            argument,
            format!(
                "row {i} of the CSR matrix has a column index out of range 0..{n}, or unsorted or duplicate \
                 column indices; column indices must be sorted and unique in each row (scipy: \
                 {argument}.sum_duplicates(); {argument}.sort_indices())"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_names_the_first_bad_value_in_any_chunk() {
        for row_len in [1, 3, 1000, 1025] {
            let n = 2500 / row_len + 2;
            for position in [0, 1023, 1024, 1025, n * row_len - 1] {
                let mut values = vec![1.0; n * row_len];
                values[position] = f64::INFINITY;
                values[n * row_len - 1] = f64::NAN;
                let message = finite(&values, row_len, "X").unwrap_err().to_string();
                let expected = format!(
                    "at row {}, column {}",
                    position / row_len,
                    position % row_len
                );
                assert!(message.contains(&expected), "{message} / {expected}");
            }
        }
        assert!(finite(&[], 0, "X").is_ok());
    }

    #[test]
    fn labels_with_more_clusters_than_points_name_the_first_empty_cluster() {
        let message = labels(&[0, 2, 1], 3, usize::MAX, "init")
            .unwrap_err()
            .to_string();
        assert!(message.contains("init leaves cluster 3 empty"), "{message}");
        let message = labels(&[0, 3, 1], 3, 5, "init").unwrap_err().to_string();
        assert!(message.contains("init leaves cluster 2 empty"), "{message}");
    }

    #[test]
    fn scaled_weights_keep_the_ratios_exactly() {
        let w = [3.0e-200, 1.0e-200, 2.5e-200];
        let (scaled, e) = scaled_weights(&w, 3, "weights").unwrap();
        assert!((1.0..2.0).contains(&scaled[0]));
        for (s, &w) in scaled.iter().zip(&w) {
            assert_eq!(times_pow2(*s, e), w);
        }
    }
}
