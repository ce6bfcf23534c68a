//! Point-major cluster sums kept as small integers, when every sum a fit can reach is an
//! integer that the type holds: the same numbers as f64 sums, in an eighth (i8) or a quarter
//! (i16) of the memory. A move on a sparse kernel updates the sums of the moved point's
//! neighbours, scattered over the whole array, and waits on memory for each; smaller sums
//! take fewer cache lines (a point's k = 10 sums: 80 bytes as f64, one or two lines; 10
//! bytes as i8) and more of them stay in cache.
//!
//! The rule: integer weights, and a kernel whose entries are integers with absolute row sums
//! at most `b` ([`KernelAccess::integer_entries_row_bound`]; for a sparse kernel, the largest
//! |entry| times the most entries a row stores: the largest degree of an unweighted graph).
//! A cluster sum `m_l(y) = Σ_{j ∈ C_l} w_j G_yj` is then an integer of magnitude at most
//! `b · max w` (a sum over a subset of row y), and so is every value in between two updates
//! of a move. f64 computes each of them exactly, in any order (integers below 2⁵³), so the
//! integer sums and the f64 sums hold the same numbers at every step: the results are the
//! same bits.

use rayon::prelude::*;

use crate::error::{try_filled_huge_pages, Result};
use crate::kernel::KernelAccess;

/// Whether `v` is an integer of the rule: one of magnitude below 2⁶³ (a truncating
/// conversion, cheaper than `fract`, a library call on the baseline x86-64), and not −0.0,
/// whose sign an f64 sum can keep and an integer cannot.
#[inline(always)]
pub(crate) fn is_integer(v: f64) -> bool {
    (v as i64) as f64 == v && v.abs() < 9.2e18 && v.to_bits() != (-0.0f64).to_bits()
}

/// An integer type the sums can be kept in.
trait SumInteger: Copy + Send + Sync + 'static {
    /// `v`, an integer that the type holds (exactly).
    fn from_exact(v: f64) -> Self;
    fn widen(self) -> f64;
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
}

macro_rules! sum_integer {
    ($($t:ty),*) => {$(
        impl SumInteger for $t {
            #[inline(always)]
            fn from_exact(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn widen(self) -> f64 {
                f64::from(self)
            }
            // Wrapping: never reached by the rule (the bound excludes overflow), and no
            // panic path in debug builds.
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
        }
    )*};
}

sum_integer!(i8, i16);

/// Point-major sums `sums[i * k + l] = m_l(i)` in the smallest integer type that holds them.
#[derive(Debug, Clone)]
pub(crate) enum CompactSums {
    I8(Vec<i8>),
    I16(Vec<i16>),
}

impl CompactSums {
    /// The f64 point-major `sums` as integers, when the rule of the module holds for
    /// `kernel` and `weights`; `None` otherwise (or when the memory cannot be had: the f64
    /// sums then stay).
    pub(crate) fn new<K: KernelAccess>(kernel: &K, weights: &[f64], sums: &[f64]) -> Option<Self> {
        let bound = kernel.integer_entries_row_bound()?;
        let mut max_weight = 0.0f64;
        for &w in weights {
            if !is_integer(w) || w <= 0.0 {
                return None;
            }
            max_weight = max_weight.max(w.abs());
        }
        let reach = bound * max_weight;
        if reach <= f64::from(i8::MAX) {
            convert(sums).map(CompactSums::I8).ok()
        } else if reach <= f64::from(i16::MAX) {
            convert(sums).map(CompactSums::I16).ok()
        } else {
            None
        }
    }

    /// `m_l(i)` at `index = i * k + l`.
    #[inline(always)]
    pub(crate) fn get(&self, index: usize) -> f64 {
        match self {
            CompactSums::I8(s) => s[index].widen(),
            CompactSums::I16(s) => s[index].widen(),
        }
    }

    /// Point `i`'s k sums into `out` (length k).
    #[inline(always)]
    pub(crate) fn point_into(&self, i: usize, out: &mut [f64]) {
        #[inline(always)]
        fn widen_into<T: SumInteger>(s: &[T], out: &mut [f64]) {
            for (o, &v) in out.iter_mut().zip(s) {
                *o = v.widen();
            }
        }
        let range = i * out.len()..(i + 1) * out.len();
        match self {
            CompactSums::I8(s) => widen_into(&s[range], out),
            CompactSums::I16(s) => widen_into(&s[range], out),
        }
    }

    /// The move of point `i` (weight `weight`) from cluster `from` to `to`:
    /// `m_from(y) −= weight · G_iy`, `m_to(y) += weight · G_iy` for the y of row i.
    #[inline]
    pub(crate) fn move_point<K: KernelAccess>(
        &mut self,
        kernel: &K,
        i: usize,
        weight: f64,
        k: usize,
        from: usize,
        to: usize,
    ) {
        #[inline(always)]
        fn apply<K: KernelAccess, T: SumInteger>(
            sums: &mut [T],
            kernel: &K,
            i: usize,
            weight: f64,
            k: usize,
            (from, to): (usize, usize),
        ) {
            kernel.for_each_in_row(i, |y, v| {
                let delta = T::from_exact(weight * v);
                let point = &mut sums[y * k..(y + 1) * k];
                point[from] = point[from].sub(delta);
                point[to] = point[to].add(delta);
            });
        }
        match self {
            CompactSums::I8(s) => apply(s, kernel, i, weight, k, (from, to)),
            CompactSums::I16(s) => apply(s, kernel, i, weight, k, (from, to)),
        }
    }
}

/// The integers of `sums` (each one that `T` holds, by the rule), on huge pages like the f64
/// sums.
fn convert<T: SumInteger>(sums: &[f64]) -> Result<Vec<T>> {
    let mut out = try_filled_huge_pages(
        sums.len(),
        T::from_exact(0.0),
        "k",
        "the n × k cluster sums",
    )?;
    out.par_iter_mut()
        .zip(sums.par_iter())
        .for_each(|(o, &v)| *o = T::from_exact(v));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Control;
    use crate::CsrKernel;

    /// Two nodes joined by an edge of value `v`, node 0 with the diagonal entry `d`.
    fn edge(v: f64, d: f64) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        (vec![0, 2, 3], vec![0, 1, 0], vec![d, v, v])
    }

    fn kind(v: f64, d: f64, weights: &[f64]) -> Option<&'static str> {
        let (indptr, indices, data) = edge(v, d);
        let kernel = CsrKernel::new(&indptr, &indices, &data, 2).unwrap();
        let sums = kernel
            .cluster_sums_point_major(&[0, 1], weights, 2, &Control::new())
            .unwrap();
        CompactSums::new(&kernel, weights, &sums).map(|c| match c {
            CompactSums::I8(_) => "i8",
            CompactSums::I16(_) => "i16",
        })
    }

    #[test]
    fn integers_of_the_rule() {
        for v in [
            0.0,
            3.0,
            -3.0,
            127.0,
            -32_768.0,
            2f64.powi(62),
            -2f64.powi(62),
        ] {
            assert!(is_integer(v), "{v}");
        }
        for v in [
            -0.0,
            0.5,
            -1.25,
            1e-300,
            2f64.powi(63),
            1e19,
            f64::INFINITY,
            f64::NAN,
        ] {
            assert!(!is_integer(v), "{v}");
        }
    }

    #[test]
    fn the_smallest_type_that_holds_every_reachable_sum() {
        let one = [1.0, 1.0];
        // The bound: the largest |entry| times the longest row (two entries, row 0).
        assert_eq!(kind(63.0, -1.0, &one), Some("i8"));
        assert_eq!(kind(-64.0, 1.0, &one), Some("i16"));
        assert_eq!(kind(1.0, 64.0, &one), Some("i16"));
        assert_eq!(kind(16_383.0, 0.0, &one), Some("i16"));
        assert_eq!(kind(16_384.0, 0.0, &one), None);
        // Times the largest weight.
        assert_eq!(kind(31.0, 0.0, &[2.0, 1.0]), Some("i8"));
        assert_eq!(kind(32.0, 0.0, &[1.0, 2.0]), Some("i16"));
        assert_eq!(kind(32.0, 0.0, &one), Some("i8"));
        // Only integers.
        assert_eq!(kind(1.0, 0.0, &[1.0, 0.5]), None);
        assert_eq!(kind(1.5, 0.0, &one), None);
    }

    #[test]
    fn the_integers_are_the_f64_sums() {
        let (indptr, indices, data) = edge(-7.0, 3.0);
        let kernel = CsrKernel::new(&indptr, &indices, &data, 2).unwrap();
        let weights = [1.0, 1.0];
        let mut f64_sums = kernel
            .cluster_sums_point_major(&[0, 0], &weights, 2, &Control::new())
            .unwrap();
        let mut compact = CompactSums::new(&kernel, &weights, &f64_sums).unwrap();
        // Point 1 moves from cluster 0 to 1 in both.
        kernel.move_point_point_major(1, 1.0, &mut f64_sums, 2, 0, 1);
        compact.move_point(&kernel, 1, 1.0, 2, 0, 1);
        let mut point = [0.0; 2];
        for i in 0..2 {
            compact.point_into(i, &mut point);
            assert_eq!(point, [f64_sums[2 * i], f64_sums[2 * i + 1]]);
            assert_eq!(compact.get(2 * i + 1), f64_sums[2 * i + 1]);
        }
        assert_eq!(f64_sums, [3.0, -7.0, -7.0, 0.0]);
    }

    #[test]
    fn csr_bound_is_the_largest_entry_times_the_longest_row() {
        let bound = |data: [f64; 3]| {
            let (indptr, indices, _) = edge(0.0, 0.0);
            let kernel = CsrKernel::new(&indptr, &indices, &data, 2).unwrap();
            kernel.integer_entries_row_bound()
        };
        assert_eq!(bound([-2.0, 5.0, 5.0]), Some(10.0));
        assert_eq!(bound([-7.0, 5.0, 5.0]), Some(14.0));
        assert_eq!(bound([0.0, -5.0, -5.0]), Some(10.0));
        assert_eq!(bound([0.5, 5.0, 5.0]), None);
        // −0.0 is not taken for an integer: an f64 sum keeps its sign, an integer cannot.
        assert_eq!(bound([-0.0, 5.0, 5.0]), None);
    }
}
