//! Optimal assignment (the linear sum assignment problem) of a small rectangular matrix: the
//! Hungarian method with potentials (Kuhn–Munkres as refined by Jonker and Volgenant: one
//! shortest augmenting path per row), O(r² c) for r ≤ c.
//!
//! Used for the clustering accuracy (the best one-to-one matching of predicted to true
//! clusters on their contingency table), so that it needs no scipy.

use crate::control::Control;
use crate::error::{KGroupsError, Result};

/// The one-to-one matching of rows to columns of the `rows × cols` matrix `cost` (row major)
/// with the smallest total cost (`maximize = false`) or the largest (`maximize = true`).
///
/// Every row is matched when `rows <= cols`, every column otherwise: `min(rows, cols)` pairs
/// `(row, column)` are returned, sorted by row. Among several optimal matchings one is
/// returned; which one depends only on the matrix.
///
/// Errors (argument `"cost"`): `cost.len() != rows * cols`, or an entry that is NaN or
/// infinite.
///
/// ```
/// use kgroups::assignment::linear_assignment;
/// // Rows are workers, columns tasks: the cheapest full assignment costs 1 + 2 + 2 = 5.
/// let cost = [4.0, 1.0, 3.0,
///             2.0, 0.0, 5.0,
///             3.0, 2.0, 2.0];
/// let pairs = linear_assignment(&cost, 3, 3, false).unwrap();
/// assert_eq!(pairs, vec![(0, 1), (1, 0), (2, 2)]);
/// // A rectangular matrix: each of the 2 rows gets its own column, the largest total 9 + 8.
/// let gain = [9.0, 8.0, 1.0,
///             9.0, 1.0, 1.0];
/// let pairs = linear_assignment(&gain, 2, 3, true).unwrap();
/// assert_eq!(pairs, vec![(0, 1), (1, 0)]);
/// assert!(linear_assignment(&[f64::NAN], 1, 1, false).is_err());
/// ```
pub fn linear_assignment(
    cost: &[f64],
    rows: usize,
    cols: usize,
    maximize: bool,
) -> Result<Vec<(usize, usize)>> {
    linear_assignment_with_control(cost, rows, cols, maximize, &Control::new())
}

/// [`linear_assignment`] that stops with [`KGroupsError::Interrupted`] when `control` is
/// cancelled: it checks once per row of the smaller side (O(r c) work between checks, for
/// the O(r² c) of the whole), and returns the same matching otherwise.
///
/// ```
/// use kgroups::assignment::linear_assignment_with_control;
/// use kgroups::Control;
/// use std::sync::atomic::AtomicBool;
/// let cost = [4.0, 1.0, 2.0, 0.0];
/// let pairs = linear_assignment_with_control(&cost, 2, 2, false, &Control::new()).unwrap();
/// assert_eq!(pairs, vec![(0, 1), (1, 0)]);
/// let cancelled = AtomicBool::new(true);
/// let control = Control::new().with_cancel(&cancelled);
/// assert!(linear_assignment_with_control(&cost, 2, 2, false, &control).is_err());
/// ```
pub fn linear_assignment_with_control(
    cost: &[f64],
    rows: usize,
    cols: usize,
    maximize: bool,
    control: &Control,
) -> Result<Vec<(usize, usize)>> {
    if rows.checked_mul(cols) != Some(cost.len()) {
        return Err(KGroupsError::invalid(
            "cost",
            format!(
                "cost has {} entries but the matrix is {rows} x {cols}; give rows * cols entries",
                cost.len()
            ),
        ));
    }
    if let Some(i) = cost.iter().position(|c| !c.is_finite()) {
        return Err(KGroupsError::invalid(
            "cost",
            format!(
                "cost[{}, {}] = {}; every entry must be finite",
                i / cols,
                i % cols,
                cost[i]
            ),
        ));
    }
    if rows == 0 || cols == 0 {
        return Ok(Vec::new());
    }
    // Work on an r × c minimisation with r <= c: transpose when there are more rows, negate
    // to maximise.
    let transpose = rows > cols;
    let (r, c) = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let sign = if maximize { -1.0 } else { 1.0 };
    let at = |i: usize, j: usize| -> f64 {
        let v = if transpose {
            cost[j * cols + i]
        } else {
            cost[i * cols + j]
        };
        sign * v
    };
    let matched = hungarian(r, c, at, control)?;
    let mut pairs: Vec<(usize, usize)> = matched
        .into_iter()
        .enumerate()
        .map(|(i, j)| if transpose { (j, i) } else { (i, j) })
        .collect();
    pairs.sort_unstable();
    Ok(pairs)
}

/// The column of each row of the minimum-cost matching of an `r × c` matrix, `r <= c`,
/// `at(i, j)` finite. Shortest augmenting paths with row potentials `u` and column
/// potentials `v` (reduced costs `at(i, j) − u_i − v_j >= 0` throughout); 1-based internally,
/// with column 0 a virtual column holding the row being inserted. Checks `control` before
/// each row.
fn hungarian(
    r: usize,
    c: usize,
    at: impl Fn(usize, usize) -> f64,
    control: &Control,
) -> Result<Vec<usize>> {
    let mut u = vec![0.0f64; r + 1];
    let mut v = vec![0.0f64; c + 1];
    // owner[j]: the row (1-based) matched to column j, 0 for none.
    let mut owner = vec![0usize; c + 1];
    let mut way = vec![0usize; c + 1];
    let mut min_to = vec![0.0f64; c + 1];
    let mut used = vec![false; c + 1];
    for row in 1..=r {
        control.checkpoint()?;
        owner[0] = row;
        let mut j0 = 0usize;
        min_to.iter_mut().for_each(|m| *m = f64::INFINITY);
        used.iter_mut().for_each(|b| *b = false);
        loop {
            used[j0] = true;
            let i0 = owner[j0];
            let mut delta = f64::INFINITY;
            let mut j1 = 0usize;
            for j in 1..=c {
                if used[j] {
                    continue;
                }
                let reduced = at(i0 - 1, j - 1) - u[i0] - v[j];
                if reduced < min_to[j] {
                    min_to[j] = reduced;
                    way[j] = j0;
                }
                if min_to[j] < delta {
                    delta = min_to[j];
                    j1 = j;
                }
            }
            // r <= c, so an unused column is always left: j1 is set and delta is finite.
            for j in 0..=c {
                if used[j] {
                    u[owner[j]] += delta;
                    v[j] -= delta;
                } else {
                    min_to[j] -= delta;
                }
            }
            j0 = j1;
            if owner[j0] == 0 {
                break;
            }
        }
        // Augment along the path back to the virtual column.
        loop {
            let j1 = way[j0];
            owner[j0] = owner[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut column_of = vec![0usize; r];
    for j in 1..=c {
        if owner[j] != 0 {
            column_of[owner[j] - 1] = j - 1;
        }
    }
    Ok(column_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The best total over every injective map of the smaller side into the larger, by
    /// enumeration.
    fn brute_force(cost: &[f64], rows: usize, cols: usize, maximize: bool) -> f64 {
        fn go(
            i: usize,
            rows: usize,
            cols: usize,
            used: &mut Vec<bool>,
            value: &dyn Fn(usize, usize) -> f64,
            better: &dyn Fn(f64, f64) -> bool,
        ) -> f64 {
            if i == rows {
                return 0.0;
            }
            let mut best: Option<f64> = None;
            for j in 0..cols {
                if used[j] {
                    continue;
                }
                used[j] = true;
                let total = value(i, j) + go(i + 1, rows, cols, used, value, better);
                used[j] = false;
                if best.is_none_or(|b| better(total, b)) {
                    best = Some(total);
                }
            }
            best.unwrap_or(0.0)
        }
        let (r, c, transpose) = if rows <= cols {
            (rows, cols, false)
        } else {
            (cols, rows, true)
        };
        let value = |i: usize, j: usize| {
            if transpose {
                cost[j * cols + i]
            } else {
                cost[i * cols + j]
            }
        };
        let better = |a: f64, b: f64| if maximize { a > b } else { a < b };
        go(0, r, c, &mut vec![false; c], &value, &better)
    }

    fn total(cost: &[f64], cols: usize, pairs: &[(usize, usize)]) -> f64 {
        pairs.iter().map(|&(i, j)| cost[i * cols + j]).sum()
    }

    proptest! {
        #[test]
        fn optimal_against_every_permutation(
            rows in 1usize..=6,
            cols in 1usize..=6,
            maximize in any::<bool>(),
            seed in any::<u64>(),
            integers in any::<bool>(),
        ) {
            let mut rng = crate::rng::Rng::new(seed);
            let cost: Vec<f64> = (0..rows * cols)
                .map(|_| {
                    if integers {
                        rng.below(5).unwrap() as f64 // many ties
                    } else {
                        rng.next_f64() * 200.0 - 100.0
                    }
                })
                .collect();
            let pairs = linear_assignment(&cost, rows, cols, maximize).unwrap();
            prop_assert_eq!(pairs.len(), rows.min(cols));
            let mut seen_rows = vec![false; rows];
            let mut seen_cols = vec![false; cols];
            for &(i, j) in &pairs {
                prop_assert!(i < rows && j < cols);
                prop_assert!(!seen_rows[i] && !seen_cols[j], "not one-to-one: {:?}", pairs);
                seen_rows[i] = true;
                seen_cols[j] = true;
            }
            let best = brute_force(&cost, rows, cols, maximize);
            let got = total(&cost, cols, &pairs);
            prop_assert!((got - best).abs() <= 1e-9 * (1.0 + best.abs()), "{} vs {}", got, best);
        }
    }

    #[test]
    fn empty_and_bad_shapes() {
        assert_eq!(linear_assignment(&[], 0, 3, false).unwrap(), vec![]);
        let err = linear_assignment(&[1.0, 2.0], 2, 2, false).unwrap_err();
        assert_eq!(err.argument(), Some("cost"));
        let err = linear_assignment(&[1.0, f64::INFINITY], 1, 2, true).unwrap_err();
        assert!(err.to_string().contains("cost[0, 1]"), "{err}");
    }

    #[test]
    fn tall_matrix_matches_every_column() {
        // 3 rows, 2 columns: each column gets the row that serves it best overall.
        let cost = [1.0, 10.0, 10.0, 1.0, 0.0, 0.0];
        let pairs = linear_assignment(&cost, 3, 2, true).unwrap();
        assert_eq!(pairs, vec![(0, 1), (1, 0)]);
    }

    /// A uniform random `n × n` matrix of a fixed seed.
    fn random_square(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = crate::rng::Rng::new(seed);
        (0..n * n).map(|_| rng.next_f64()).collect()
    }

    #[test]
    fn an_idle_control_gives_the_same_matching() {
        let cost = random_square(60, 3);
        let control = Control::new();
        for maximize in [false, true] {
            assert_eq!(
                linear_assignment_with_control(&cost, 60, 60, maximize, &control).unwrap(),
                linear_assignment(&cost, 60, 60, maximize).unwrap()
            );
        }
    }

    /// Cancelled mid-run, a large matrix stops at its next row: well before the whole run.
    #[test]
    fn cancellation_stops_a_large_matrix_within_a_row() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::time::{Duration, Instant};
        let n = 700;
        let cost = random_square(n, 5);
        let cancel = AtomicBool::new(false);
        let control = Control::new().with_cancel(&cancel);
        let (result, latency) = std::thread::scope(|scope| {
            let solver = scope.spawn(|| {
                let result = linear_assignment_with_control(&cost, n, n, false, &control);
                (result, Instant::now())
            });
            std::thread::sleep(Duration::from_millis(30));
            let sent = Instant::now();
            cancel.store(true, Ordering::Relaxed);
            let (result, ended) = solver.join().unwrap();
            (result, ended.saturating_duration_since(sent))
        });
        assert!(
            matches!(result, Err(KGroupsError::Interrupted)),
            "the run was not interrupted (it ended before the flag?)"
        );
        assert!(
            latency < Duration::from_millis(500),
            "stopped {latency:?} after the flag"
        );
    }
}
