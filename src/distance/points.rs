//! Data points, checked once on the way in.

use crate::error::{KGroupsError, Result};
use crate::validate;

/// Data points: a borrowed row-major `n × dim` matrix of finite `f64` values.
///
/// ```
/// use kgroups::distance::Points;
/// let data = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
/// let x = Points::new(&data, 3, 2).unwrap();
/// assert_eq!((x.n(), x.dim()), (3, 2));
/// assert_eq!(x.get(1), Some(&[2.0, 3.0][..]));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Points<'a> {
    data: &'a [f64],
    n: usize,
    dim: usize,
}

impl<'a> Points<'a> {
    /// Wraps `data` (row-major, `n` rows of `dim` values) after checking that
    /// `n >= 1`, `dim >= 1`, `data.len() == n * dim` and that every value is finite.
    /// Errors name the argument `"X"`; [`Points::named`] names another.
    ///
    /// ```
    /// use kgroups::distance::Points;
    /// assert!(Points::new(&[1.0, 2.0], 1, 2).is_ok());
    /// assert!(Points::new(&[1.0, f64::NAN], 1, 2).is_err());
    /// assert!(Points::new(&[1.0, 2.0, 3.0], 2, 2).is_err());
    /// ```
    pub fn new(data: &'a [f64], n: usize, dim: usize) -> Result<Self> {
        Self::named(data, n, dim, "X")
    }

    /// [`Points::new`] for the argument `argument` (say `"Y"`, or the landmarks), which the
    /// errors name.
    ///
    /// ```
    /// use kgroups::distance::Points;
    /// let err = Points::named(&[1.0, f64::INFINITY], 2, 1, "Y").unwrap_err();
    /// assert_eq!(err.argument(), Some("Y"));
    /// assert!(err.to_string().contains("Y contains NaN or infinity at row 1, column 0"));
    /// ```
    pub fn named(data: &'a [f64], n: usize, dim: usize, argument: &'static str) -> Result<Self> {
        if n == 0 {
            return Err(KGroupsError::invalid(
                argument,
                format!("{argument} has 0 rows; at least one data point is needed"),
            ));
        }
        if dim == 0 {
            return Err(KGroupsError::invalid(
                argument,
                format!("{argument} has 0 columns; each data point needs at least one coordinate"),
            ));
        }
        let expected = n.checked_mul(dim).ok_or_else(|| {
            KGroupsError::invalid(
                argument,
                format!("{argument} with n = {n} rows and D = {dim} columns is too large"),
            )
        })?;
        if data.len() != expected {
            return Err(KGroupsError::invalid(
                argument,
                format!(
                    "{argument} has {} values but n = {n} rows times D = {dim} columns needs {expected}",
                    data.len()
                ),
            ));
        }
        validate::finite(data, dim, argument)?;
        Ok(Points { data, n, dim })
    }

    /// Number of points (rows).
    ///
    /// ```
    /// use kgroups::distance::Points;
    /// assert_eq!(Points::new(&[1.0, 2.0], 2, 1).unwrap().n(), 2);
    /// ```
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of coordinates of each point (columns).
    ///
    /// ```
    /// use kgroups::distance::Points;
    /// assert_eq!(Points::new(&[1.0, 2.0], 1, 2).unwrap().dim(), 2);
    /// ```
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The coordinates of point `i`, or `None` when `i >= n`.
    ///
    /// ```
    /// use kgroups::distance::Points;
    /// let x = Points::new(&[1.0, 2.0, 3.0, 4.0], 2, 2).unwrap();
    /// assert_eq!(x.get(0), Some(&[1.0, 2.0][..]));
    /// assert_eq!(x.get(2), None);
    /// ```
    pub fn get(&self, i: usize) -> Option<&'a [f64]> {
        (i < self.n).then(|| self.row(i))
    }

    /// The coordinates of point `i < n` (the crate's own loops, which stay in range).
    #[inline(always)]
    pub(crate) fn row(&self, i: usize) -> &'a [f64] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// The whole row-major data slice (`n * dim` values).
    ///
    /// ```
    /// use kgroups::distance::Points;
    /// let x = Points::new(&[1.0, 2.0], 2, 1).unwrap();
    /// assert_eq!(x.data(), &[1.0, 2.0]);
    /// ```
    pub fn data(&self) -> &'a [f64] {
        self.data
    }
}
