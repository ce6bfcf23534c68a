//! Where the statistics take their semimetric values from, and rows of those values scaled so
//! that no weighted sum overflows.

use super::scaled::ScaledData;
use super::CHUNK;
use crate::control::Control;
use crate::distance::{
    DataRows, GramRows, PairwiseRows, Points, Semimetric, SemimetricRows, BLOCK,
};
use crate::error::{try_filled, Result};
use crate::scale::max_abs;
use crate::scale::{binary_exponent, times_pow2};
use crate::validate;

/// Where pairwise semimetric values ρ(x_a, x_b) come from.
///
/// ```
/// use kgroups::distance::{Points, Semimetric};
/// use kgroups::stats::PairwiseSource;
/// let x = Points::new(&[0.0, 1.0, 3.0], 3, 1).unwrap();
/// let src = PairwiseSource::Data { points: x, semimetric: Semimetric::Power { alpha: 1.0 } };
/// assert_eq!(src.n(), 3);
/// assert!(src.validate().is_ok());
/// ```
#[derive(Clone, Copy, Debug)]
pub enum PairwiseSource<'a> {
    /// ρ computed on the fly from the data (O(n·D) extra memory).
    Data {
        /// The data points.
        points: Points<'a>,
        /// The semimetric.
        semimetric: Semimetric,
    },
    /// A precomputed row-major n×n semimetric matrix R (validated as in
    /// [`crate::gram::gram_from_semimetric`]; its upper triangle is used). Errors name `"R"`.
    Semimetric {
        /// The matrix, `n * n` values.
        r: &'a [f64],
        /// Number of points.
        n: usize,
    },
    /// A row-major n×n Gram matrix G: ρ(a,b) = G_aa + G_bb − 2G_ab (must be finite and
    /// symmetric by the rule of [`crate::validate::symmetry`]; its upper triangle is used; any finite
    /// magnitude, ρ is evaluated without overflow). Errors name `"G"`.
    GramF64 {
        /// The matrix, `n * n` values.
        g: &'a [f64],
        /// Number of points.
        n: usize,
    },
}

impl PairwiseSource<'_> {
    /// Number of points.
    ///
    /// ```
    /// use kgroups::stats::PairwiseSource;
    /// let r = [0.0, 1.0, 1.0, 0.0];
    /// assert_eq!(PairwiseSource::Semimetric { r: &r, n: 2 }.n(), 2);
    /// ```
    pub fn n(&self) -> usize {
        match *self {
            PairwiseSource::Data { points, .. } => points.n(),
            PairwiseSource::Semimetric { n, .. } | PairwiseSource::GramF64 { n, .. } => n,
        }
    }

    /// Checks the source: the semimetric's parameter; R square, finite, symmetric, ≥ 0 with zero
    /// diagonal; G square, finite and symmetric.
    ///
    /// ```
    /// use kgroups::stats::PairwiseSource;
    /// let g = [2.0, 1.0, 0.0, 2.0]; // not symmetric
    /// assert!(PairwiseSource::GramF64 { g: &g, n: 2 }.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        self.validate_with(&Control::new())
    }

    /// [`PairwiseSource::validate`], stopping with [`crate::KGroupsError::Interrupted`] once
    /// `control` is cancelled.
    pub(crate) fn validate_with(&self, control: &Control) -> Result<()> {
        match *self {
            PairwiseSource::Data { semimetric, .. } => semimetric.validate(),
            PairwiseSource::Semimetric { r, n } => {
                validate::semimetric::semimetric_matrix(r, n, "R", control)
            }
            PairwiseSource::GramF64 { g, n } => {
                validate::non_empty(n, "G")?;
                validate::symmetry::check_dense_with_control(g, n, "G", control)
            }
        }
    }

    /// The argument errors about this source name.
    pub(super) fn argument(&self) -> &'static str {
        match self {
            PairwiseSource::Data { .. } => "X",
            PairwiseSource::Semimetric { .. } => "R",
            PairwiseSource::GramF64 { .. } => "G",
        }
    }
}

/// The rows of a validated source: scaled semimetric values ρ'(a, b) = ρ(a, b) · 2^-`exponent`.
/// For R and G the scale puts every |ρ'| below 2, so that no weighted sum overflows; for data
/// the exponent is 0 (data whose squared distances would leave the normal range are evaluated
/// in their frame, see [`ScaledData`]).
pub(super) struct SourceRows<'a> {
    rows: Rows<'a>,
    /// ρ = ρ' · 2^exponent.
    pub(super) exponent: i32,
}

/// The three sources of rows (one type, so that the passes over the rows are compiled once).
enum Rows<'a> {
    Data(DataRows<'a>),
    Semimetric(SemimetricRows<'a>),
    Gram(GramRows<'a>),
}

impl<'a> SourceRows<'a> {
    /// For a validated source; data in the frame of `scaled` when given.
    pub(super) fn new(source: PairwiseSource<'a>, scaled: Option<&ScaledData>) -> Result<Self> {
        // Exponents within ±1020 keep the factor representable; a matrix whose largest entry is
        // below 2^-1020 keeps its scale (its values are then already tiny, nothing overflows).
        let exponent_for =
            |m: &[f64], headroom: i32| (binary_exponent(max_abs(m)) + headroom).clamp(-1020, 1030);
        Ok(match source {
            PairwiseSource::Data { points, semimetric } => {
                let rows = match scaled {
                    None => DataRows::new(points, 1.0, semimetric, "X")?,
                    Some(frame) => DataRows::new(points, frame.scale, frame.semimetric, "X")?,
                };
                SourceRows {
                    rows: Rows::Data(rows),
                    exponent: 0,
                }
            }
            // ρ' = R·2^-e < 2
            PairwiseSource::Semimetric { r, n } => {
                let exponent = exponent_for(r, 0);
                SourceRows {
                    rows: Rows::Semimetric(SemimetricRows {
                        r,
                        n,
                        factor: times_pow2(1.0, -exponent),
                    }),
                    exponent,
                }
            }
            // |G'| < 2^-1, so |ρ'| = |G'_aa + G'_bb − 2G'_ab| < 2
            PairwiseSource::GramF64 { g, n } => {
                let exponent = exponent_for(g, 2);
                let factor = times_pow2(1.0, -exponent);
                let mut diagonal = try_filled(n, 0.0, "G", "the diagonal of G")?;
                for (b, d) in diagonal.iter_mut().enumerate() {
                    *d = g[b * n + b] * factor;
                }
                SourceRows {
                    rows: Rows::Gram(GramRows {
                        g,
                        n,
                        diagonal,
                        factor,
                    }),
                    exponent,
                }
            }
        })
    }

    /// For row `a` of the upper triangle (b > a): (Σ_{b in a's cluster} w_b ρ'_ab,
    /// Σ_{b in other clusters} w_b ρ'_ab), each summed in order of b; with `acc`, also
    /// `acc[l_b] += w_b ρ'_ab` in order of b (so `acc[l_a]` equals the first sum).
    pub(super) fn upper_row_sums(
        &self,
        a: usize,
        labels: &[usize],
        w: &[f64],
        mut acc: Option<&mut [f64]>,
    ) -> (f64, f64) {
        let n = labels.len();
        let la = labels[a];
        let mut buf = [0.0; CHUNK];
        let (mut same, mut other) = (0.0, 0.0);
        let mut start = a + 1;
        while start < n {
            let len = chunk_len(start, n);
            let values = &mut buf[..len];
            self.values(a, start, values);
            let (lbs, wbs) = (&labels[start..start + len], &w[start..start + len]);
            for ((&rho, &lb), &wb) in values.iter().zip(lbs).zip(wbs) {
                let v = wb * rho;
                let in_cluster = lb == la;
                same += if in_cluster { v } else { 0.0 };
                other += if in_cluster { 0.0 } else { v };
            }
            if let Some(acc) = acc.as_deref_mut() {
                for ((&rho, &lb), &wb) in values.iter().zip(lbs).zip(wbs) {
                    acc[lb] += wb * rho;
                }
            }
            start += len;
        }
        (same, other)
    }
}

impl PairwiseRows for SourceRows<'_> {
    fn n(&self) -> usize {
        match &self.rows {
            Rows::Data(rows) => rows.n(),
            Rows::Semimetric(rows) => rows.n(),
            Rows::Gram(rows) => rows.n(),
        }
    }

    #[inline]
    fn values(&self, a: usize, start: usize, out: &mut [f64]) {
        match &self.rows {
            Rows::Data(rows) => rows.values(a, start, out),
            Rows::Semimetric(rows) => rows.values(a, start, out),
            Rows::Gram(rows) => rows.values(a, start, out),
        }
    }

    fn cost_per_value(&self) -> usize {
        match &self.rows {
            Rows::Data(rows) => rows.cost_per_value(),
            Rows::Semimetric(rows) => rows.cost_per_value(),
            Rows::Gram(rows) => rows.cost_per_value(),
        }
    }
}

/// The length of the run of a row from `start` (of `n` points) evaluated at once: up to
/// [`CHUNK`] values, ending on a block of the transposed data, so that the runs after the first
/// are whole blocks (vectorised without remainders). The sums run in order of b whatever the
/// runs, so the results do not depend on them.
#[inline]
pub(super) fn chunk_len(start: usize, n: usize) -> usize {
    (CHUNK - start % BLOCK).min(n - start)
}
