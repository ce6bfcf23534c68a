//! The one error type of the crate.

use thiserror::Error;

/// Everything that can go wrong in `kgroups`.
///
/// Every public function returns `Result<_, KGroupsError>`. The Python binding maps
/// [`KGroupsError::InvalidInput`] to `ValueError`, [`KGroupsError::Interrupted`] to
/// `KeyboardInterrupt` and [`KGroupsError::Internal`] to `RuntimeError`.
///
/// ```
/// use kgroups::KGroupsError;
/// let err = KGroupsError::invalid("k", "k = 0 is not allowed; use 1 <= k <= n");
/// assert!(err.to_string().contains("k = 0"));
/// ```
#[derive(Debug, Clone, PartialEq, Error)]
pub enum KGroupsError {
    /// A user-supplied argument is wrong: the message names it and says what is allowed.
    #[error("invalid `{argument}`: {message}")]
    InvalidInput {
        /// The argument's name, as the user wrote it.
        argument: &'static str,
        /// What was wrong and what is allowed.
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
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, KGroupsError>;
