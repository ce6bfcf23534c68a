//! The one error type of the crate.

use thiserror::Error;

/// Everything that can go wrong in `kgroups`.
///
/// Every public function returns `Result<_, KGroupsError>`. The Python binding maps
/// [`KGroupsError::InvalidInput`] to `ValueError`, [`KGroupsError::OutOfMemory`] to
/// `MemoryError`, [`KGroupsError::Interrupted`] to `KeyboardInterrupt` and
/// [`KGroupsError::Internal`] to `RuntimeError`.
///
/// ```
/// use kgroups::KGroupsError;
/// let err = KGroupsError::invalid("k", "k must be between 1 and n = 5 (the number of points), got 0");
/// assert_eq!(err.argument(), Some("k"));
/// assert!(err.to_string().starts_with("invalid `k`: k must be"));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
pub enum KGroupsError {
    /// A user-supplied argument is wrong: the message names it and says what is allowed.
    /// The rules live in [`crate::validate`].
    #[error("invalid `{argument}`: {message}")]
    InvalidInput {
        /// The argument's name, as the user wrote it.
        argument: &'static str,
        /// What was wrong and what is allowed.
        message: String,
    },
    /// A buffer whose size the caller's input decides could not be allocated. The message
    /// names the size and what to change.
    #[error("out of memory for `{argument}`: {message}")]
    OutOfMemory {
        /// The argument whose size asked for the memory.
        argument: &'static str,
        /// How much was needed, for what, and what to change.
        message: String,
    },
    /// The run was cancelled through its [`crate::Control`] (Ctrl-C in Python).
    #[error("interrupted")]
    Interrupted,
    /// A bug in this crate: please report it.
    #[error("internal error (a bug in kgroups, please report it): {0}")]
    Internal(String),
}

impl KGroupsError {
    /// Shorthand for [`KGroupsError::InvalidInput`].
    pub fn invalid(argument: &'static str, message: impl Into<String>) -> Self {
        KGroupsError::InvalidInput {
            argument,
            message: message.into(),
        }
    }

    /// The argument the error is about, spelled as in the Python API (`"k"`, `"G"`,
    /// `"weights"`, …), for [`KGroupsError::InvalidInput`] and [`KGroupsError::OutOfMemory`].
    ///
    /// ```
    /// use kgroups::KGroupsError;
    /// assert_eq!(KGroupsError::invalid("n_init", "…").argument(), Some("n_init"));
    /// assert_eq!(KGroupsError::Interrupted.argument(), None);
    /// ```
    pub fn argument(&self) -> Option<&'static str> {
        match self {
            KGroupsError::InvalidInput { argument, .. }
            | KGroupsError::OutOfMemory { argument, .. } => Some(argument),
            KGroupsError::Interrupted | KGroupsError::Internal(_) => None,
        }
    }
}

/// Allocates `len` copies of `value`, or fails with [`KGroupsError::OutOfMemory`] naming
/// `argument`, the size in bytes and `what` the buffer is for. Every buffer whose length a
/// caller's values decide goes through here, so that no input can abort the process.
///
/// ```
/// use kgroups::error::try_filled;
/// assert_eq!(try_filled(3, 0u8, "n", "counts").unwrap(), vec![0, 0, 0]);
/// let err = try_filled(usize::MAX / 2, 0.0f64, "n", "a table").unwrap_err();
/// assert!(err.to_string().contains("out of memory for `n`"));
/// ```
pub fn try_filled<T: Clone>(
    len: usize,
    value: T,
    argument: &'static str,
    what: &str,
) -> Result<Vec<T>> {
    let mut v: Vec<T> = try_filled_uninit(len, argument, what)?;
    v.resize(len, value);
    Ok(v)
}

/// [`try_filled`] for a large buffer that is read and written at random (the per-point
/// cluster sums of sparse kernels): on Linux the operating system is asked to back it with
/// 2 MiB pages (`madvise(MADV_HUGEPAGE)`, honoured where transparent huge pages are set to
/// `madvise` or `always`) before it is first written, which spares most of the address
/// translation misses of random access. A hint only: the contents are the same either way.
pub(crate) fn try_filled_huge_pages<T: Clone>(
    len: usize,
    value: T,
    argument: &'static str,
    what: &str,
) -> Result<Vec<T>> {
    let mut v: Vec<T> = try_filled_uninit(len, argument, what)?;
    advise_huge_pages(&mut v);
    v.resize(len, value);
    Ok(v)
}

/// Asks Linux to back the 2 MiB-aligned part of `v`'s reserved memory with huge pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(v: &mut Vec<T>) {
    const HUGE: usize = 2 << 20;
    let start = v.as_mut_ptr() as usize;
    let end = start.saturating_add(v.capacity().saturating_mul(std::mem::size_of::<T>()));
    let first = start.div_ceil(HUGE).saturating_mul(HUGE);
    let last = end / HUGE * HUGE;
    if last > first {
        // SAFETY: MADV_HUGEPAGE only advises how the pages of [first, last) are backed; that
        // range lies inside `v`'s allocation (its reserved capacity, owned by `v`), and the
        // advice changes neither the contents nor the validity of any memory. A failure is
        // harmless and ignored.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_HUGEPAGE,
            )
        };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_v: &mut Vec<T>) {}

/// Reserves room for `len` values of `T` without initialising them (for [`try_filled`], or a
/// probe before a large allocation made elsewhere), or fails with
/// [`KGroupsError::OutOfMemory`] as [`try_filled`] does.
pub(crate) fn try_filled_uninit<T>(
    len: usize,
    argument: &'static str,
    what: &str,
) -> Result<Vec<T>> {
    let mut v: Vec<T> = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| out_of_memory::<T>(len, argument, what))?;
    Ok(v)
}

/// The [`KGroupsError::OutOfMemory`] for `len` elements of `T`, with the size in bytes.
pub(crate) fn out_of_memory<T>(len: usize, argument: &'static str, what: &str) -> KGroupsError {
    let bytes = (len as f64) * (std::mem::size_of::<T>() as f64);
    KGroupsError::OutOfMemory {
        argument,
        message: format!(
            "{what} needs {len} values ({}), which cannot be allocated",
            human_bytes(bytes)
        ),
    }
}

/// `bytes` as "1.5 GiB" and the like: how the crate's out-of-memory messages spell a size.
/// Public so that the Python binding words its own allocation errors the same way.
pub fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, KGroupsError>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The huge-page hint leaves the buffer as `try_filled` makes it, for buffers smaller than
    /// a huge page, spanning several, and empty; and fails the same way on absurd sizes.
    #[test]
    fn huge_page_buffers_are_filled_buffers() {
        for len in [0usize, 1, 1000, 3 << 20] {
            let v = try_filled_huge_pages(len, 1.5f64, "k", "sums").unwrap();
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x == 1.5));
        }
        let err = try_filled_huge_pages(usize::MAX / 2, 0.0f64, "k", "sums").unwrap_err();
        assert_eq!(err.argument(), Some("k"));
    }
}
