//! Progress of a selection, part by part.

use crate::error::Result;
use crate::{Control, Progress};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Progress of a selection: a [`Progress`] event after each completed part (a reference
/// set, a subsample, a kernel's own fits), with `sweep` the parts done so far and
/// `moves_in_sweep` the planned total (parts that the rule skips are never counted), `start`
/// 0 and `objective` NaN.
pub(super) struct Steps<'c, 'a> {
    pub(super) control: &'c Control<'a>,
    pub(super) done: AtomicUsize,
    pub(super) total: usize,
}

impl Steps<'_, '_> {
    pub(super) fn step(&self) -> Result<()> {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        self.report(done)
    }

    /// A step, unless every planned part is done already (for the stages of a part whose
    /// planned count may be smaller than its stages).
    pub(super) fn step_if_planned(&self) -> Result<()> {
        let taken = self
            .done
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |done| {
                (done < self.total).then_some(done + 1)
            });
        match taken {
            Ok(before) => self.report(before + 1),
            Err(_) => self.control.checkpoint(),
        }
    }

    /// The steps left of the plan (the last part's, once everything else is done).
    pub(super) fn finish(&self) -> Result<()> {
        while self.done.load(Ordering::Relaxed) < self.total {
            self.step_if_planned()?;
        }
        Ok(())
    }

    fn report(&self, done: usize) -> Result<()> {
        self.control.report(Progress {
            start: 0,
            sweep: done,
            moves_in_sweep: self.total,
            objective: f64::NAN,
        })
    }
}
