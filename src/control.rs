//! Cancellation and progress reporting for long runs.
//!
//! The core never blocks on anything outside itself: callers (the Python binding, a CLI)
//! hand in an [`AtomicBool`] they may set from another thread, and an optional callback
//! that receives [`Progress`] events between chunks of work.

use crate::error::{KGroupsError, Result};
use std::sync::atomic::{AtomicBool, Ordering};

/// One progress event: emitted after every sweep of every start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Index of the start (restart) this event belongs to, `0..n_init`.
    pub start: usize,
    /// Sweeps (or batch iterations) completed in this start.
    pub sweep: usize,
    /// Points moved during this sweep.
    pub moves_in_sweep: usize,
    /// The objective `Q` after this sweep.
    pub objective: f64,
}

/// How a caller steers a run: a cancel flag and a progress callback, both optional.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use kgroups::Control;
/// let cancel = AtomicBool::new(false);
/// let control = Control::new().with_cancel(&cancel);
/// assert!(control.checkpoint().is_ok());
/// cancel.store(true, Ordering::Relaxed);
/// assert!(control.checkpoint().is_err());
/// ```
#[derive(Clone, Copy, Default)]
pub struct Control<'a> {
    cancel: Option<&'a AtomicBool>,
    progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
}

impl<'a> Control<'a> {
    /// No cancellation, no progress.
    pub fn new() -> Self {
        Control::default()
    }

    /// Stop with [`KGroupsError::Interrupted`] at the next checkpoint once `flag` is true.
    pub fn with_cancel(mut self, flag: &'a AtomicBool) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// Call `callback` after every sweep.
    pub fn with_progress(mut self, callback: &'a (dyn Fn(&Progress) + Sync)) -> Self {
        self.progress = Some(callback);
        self
    }

    /// The same cancellation without the progress callback: for the many small fits of a
    /// longer computation that reports its own progress.
    pub fn cancel_only(&self) -> Control<'a> {
        Control {
            cancel: self.cancel,
            progress: None,
        }
    }

    /// `Err(Interrupted)` if cancellation was requested.
    #[inline]
    pub fn checkpoint(&self) -> Result<()> {
        match self.cancel {
            Some(flag) if flag.load(Ordering::Relaxed) => Err(KGroupsError::Interrupted),
            _ => Ok(()),
        }
    }

    /// Report `event` to the callback, if any, then check for cancellation.
    pub fn report(&self, event: Progress) -> Result<()> {
        if let Some(callback) = self.progress {
            callback(&event);
        }
        self.checkpoint()
    }
}

impl std::fmt::Debug for Control<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("cancel", &self.cancel.map(|c| c.load(Ordering::Relaxed)))
            .field("progress", &self.progress.is_some())
            .finish()
    }
}
