//! Running the core off the GIL: a worker thread (inside a cached rayon pool) does the work
//! while the calling thread forwards progress to Python and watches for Ctrl-C.

use super::errors::panicked;
use crate::control::{Control, Progress};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::Duration;

/// How often the waiting thread wakes up to check for signals.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Thread pools kept for reuse. Programs use one or two thread counts, and starting a pool
/// costs more than a small call; the bound stops a loop over many counts from keeping
/// threads of every count alive.
const CACHED_POOLS: usize = 4;

/// The cached pools by thread count, least recently used first.
static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());

/// The pool of `threads` threads, from the cache or new.
fn pool(threads: usize) -> PyResult<Arc<ThreadPool>> {
    // A panic while the lock was held cannot leave the list inconsistent: use it anyway.
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(position) = pools.iter().position(|(count, _)| *count == threads) {
        let entry = pools.remove(position);
        let pool = Arc::clone(&entry.1);
        pools.push(entry);
        return Ok(pool);
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("could not start {threads} threads: {e}")))?;
    let pool = Arc::new(pool);
    if pools.len() == CACHED_POOLS {
        // A run still using the evicted pool holds its own Arc; the threads end after it.
        pools.remove(0);
    }
    pools.push((threads, Arc::clone(&pool)));
    Ok(pool)
}

/// Run `job` on a worker thread (inside the cached rayon pool of `n_threads`, or the global
/// pool) with the GIL released. Meanwhile this thread checks for signals every 50 ms and
/// passes progress events to `progress`. Ctrl-C (or an exception in the callback) sets the
/// cancel flag; the job stops at its next checkpoint and the Python exception is raised.
pub(super) fn run_detached<T, F>(
    py: Python<'_>,
    n_threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
    job: F,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&Control) -> crate::Result<T> + Send,
{
    let pool = match n_threads {
        None => None,
        Some(0) => {
            return Err(PyValueError::new_err(
                "n_threads must be at least 1 (or None for all cores)",
            ))
        }
        Some(threads) => Some(pool(threads)?),
    };
    let cancel = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel::<Progress>();
    let want_progress = progress.is_some();
    std::thread::scope(|scope| {
        let cancel_ref = &cancel;
        let worker = scope.spawn(move || {
            let report = move |event: &Progress| {
                let _ = sender.send(*event);
            };
            let mut control = Control::new().with_cancel(cancel_ref);
            if want_progress {
                control = control.with_progress(&report);
            }
            // A panic here is a bug; it must become an exception, never abort Python.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &pool {
                Some(pool) => pool.install(|| job(&control)),
                None => job(&control),
            }))
        });
        let mut pending_error: Option<PyErr> = None;
        let mut receiver = receiver;
        loop {
            let (r, outcome) = py.detach(move || {
                let outcome = receiver.recv_timeout(SIGNAL_POLL);
                (receiver, outcome)
            });
            receiver = r;
            match outcome {
                Ok(event) => {
                    if let (Some(callback), None) = (progress, &pending_error) {
                        let call = callback.call1((
                            event.start,
                            event.sweep,
                            event.moves_in_sweep,
                            event.objective,
                        ));
                        if let Err(e) = call {
                            cancel.store(true, Ordering::Relaxed);
                            pending_error = Some(e);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if pending_error.is_none() {
                if let Err(e) = py.check_signals() {
                    cancel.store(true, Ordering::Relaxed);
                    pending_error = Some(e);
                }
            }
        }
        let result = match py.detach(move || worker.join()) {
            Ok(Ok(result)) => result,
            Ok(Err(_)) | Err(_) => return Err(panicked()),
        };
        match pending_error {
            Some(e) => Err(e),
            None => Ok(result?),
        }
    })
}

/// Internal: panic on purpose, to test that a Rust panic becomes a Python exception.
#[pyfunction]
pub(super) fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    run_detached(py, Some(1), None, |_| -> crate::Result<()> {
        panic!("deliberate test panic")
    })
}

/// Internal: sleep in checkpointed slices until cancelled (to test Ctrl-C handling).
#[pyfunction]
pub(super) fn _sleep_for_tests(py: Python<'_>, seconds: f64) -> PyResult<()> {
    run_detached(py, None, None, |control| {
        let deadline = std::time::Instant::now() + Duration::from_secs_f64(seconds);
        while std::time::Instant::now() < deadline {
            control.checkpoint()?;
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    })
}
