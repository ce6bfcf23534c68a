//! Running the core off the GIL: a worker thread (inside a cached rayon pool) does the work
//! while the calling thread forwards progress to Python and watches for Ctrl-C.

use super::errors::{panicked, to_py_err};
use kgroups::{Control, Progress};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::Duration;

/// How often the waiting thread wakes up to check for signals.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Thread pools kept for reuse. Programs use one or two thread counts, and starting a pool
/// costs more than a small call; the bound stops a loop over many counts from keeping
/// threads of every count alive.
const CACHED_POOLS: usize = 4;

/// The cache key of the pool sized by rayon's default (`RAYON_NUM_THREADS`, else every
/// available core), which `n_threads=None` gets. rayon's global pool is never used: it
/// cannot be rebuilt in a forked child.
const DEFAULT_THREADS: usize = 0;

/// The thread pools of one process, by thread count, least recently used first.
///
/// A child made by `fork()` inherits its parent's cache, but the pools' threads exist only
/// in the parent (a job sent to one waits forever), and the lock may have been held by a
/// parent thread at the fork. So the cache records the process that made it, and a process
/// that finds another's makes its own (see [`cache`]).
struct PoolCache {
    process: u32,
    pools: Mutex<Vec<(usize, Arc<ThreadPool>)>>,
}

/// This process's [`PoolCache`]: null, or a pointer from `Box::into_raw` that is never freed.
static CACHE: AtomicPtr<PoolCache> = AtomicPtr::new(std::ptr::null_mut());

/// The pool cache of this process, made on first use here (in a forked child, on its first
/// call).
fn cache() -> &'static PoolCache {
    let process = std::process::id();
    loop {
        let current = CACHE.load(Ordering::Acquire);
        // SAFETY: CACHE holds null or a pointer from Box::into_raw that is never freed, so
        // a non-null one is valid for the rest of the process.
        if let Some(cache) = unsafe { current.as_ref() } {
            if cache.process == process {
                return cache;
            }
        }
        let fresh = Box::into_raw(Box::new(PoolCache {
            process,
            pools: Mutex::new(Vec::new()),
        }));
        // The cache replaced in a forked child (the parent's) is leaked on purpose: dropping
        // its pools would signal threads that do not exist in this process.
        if CACHE
            .compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            // SAFETY: `fresh` came from Box::into_raw and is now owned by CACHE, never freed.
            return unsafe { &*fresh };
        }
        // Another thread of this process installed its cache first: free ours, use theirs.
        // SAFETY: `fresh` came from Box::into_raw above and was never shared.
        drop(unsafe { Box::from_raw(fresh) });
    }
}

/// The pool of `threads` threads ([`DEFAULT_THREADS`]: rayon's default count), from this
/// process's cache or new.
fn pool(threads: usize) -> PyResult<Arc<ThreadPool>> {
    let cache = cache();
    // A panic while the lock was held cannot leave the list inconsistent: use it anyway.
    let lock = || cache.pools.lock().unwrap_or_else(PoisonError::into_inner);
    // Each hold of the lock is a lookup or an insertion, never a pool start.
    let cached = |pools: &mut Vec<(usize, Arc<ThreadPool>)>| {
        let position = pools.iter().position(|(count, _)| *count == threads)?;
        let entry = pools.remove(position);
        let pool = Arc::clone(&entry.1);
        pools.push(entry);
        Some(pool)
    };
    if let Some(pool) = cached(&mut lock()) {
        return Ok(pool);
    }
    let built = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("kgroups-{i}"))
        .build()
        .map_err(|e| {
            let count = match threads {
                DEFAULT_THREADS => "the default number of".to_string(),
                n => n.to_string(),
            };
            PyRuntimeError::new_err(format!("could not start {count} threads: {e}"))
        })?;
    let built = Arc::new(built);
    let evicted = {
        let mut pools = lock();
        // Another thread may have started the same pool meanwhile: keep one.
        if let Some(pool) = cached(&mut pools) {
            return Ok(pool);
        }
        let evicted = (pools.len() == CACHED_POOLS).then(|| pools.remove(0));
        pools.push((threads, Arc::clone(&built)));
        evicted
    };
    // Dropped outside the lock. A run still using the evicted pool holds its own Arc; the
    // threads end after it.
    drop(evicted);
    Ok(built)
}

/// Run `job` on a worker thread inside this process's cached rayon pool of `n_threads`
/// (`None`: rayon's default count) with the GIL released. Meanwhile this thread checks for signals every 50 ms and
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
    F: FnOnce(&Control) -> kgroups::Result<T> + Send,
{
    let pool = match n_threads {
        None => pool(DEFAULT_THREADS)?,
        Some(0) => {
            return Err(PyValueError::new_err(
                "n_threads must be at least 1 (or None for all cores)",
            ))
        }
        Some(threads) => pool(threads)?,
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
            catch_panic(|| pool.install(|| job(&control)))
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
            Ok(Some(result)) => result,
            Ok(None) | Err(_) => return Err(panicked()),
        };
        match pending_error {
            Some(e) => Err(e),
            None => result.map_err(to_py_err),
        }
    })
}

/// `job()`, or `None` if it panicked (in this thread or, through `ThreadPool::install`, in a
/// pool's thread). A panic in the core is a bug: [`run_detached`] turns `None` into a
/// RuntimeError ([`panicked`]); it must never unwind into Python or abort the interpreter.
fn catch_panic<T>(job: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_a_pool_becomes_none_and_the_pool_keeps_working() {
        let pool = ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for _ in 0..2 {
            let caught = catch_panic(|| -> kgroups::Result<()> {
                pool.install(|| panic!("deliberate test panic"))
            });
            assert!(caught.is_none());
        }
        let sum = catch_panic(|| pool.install(|| (1..=10).sum::<i32>()));
        assert_eq!(sum, Some(55));
    }

    #[test]
    fn a_panicking_job_raises_runtime_error_not_panic_exception() {
        Python::attach(|py| {
            for _ in 0..2 {
                let error = run_detached(py, Some(1), None, |_| -> kgroups::Result<()> {
                    panic!("deliberate test panic")
                })
                .unwrap_err();
                assert!(error.is_instance_of::<PyRuntimeError>(py));
                assert!(!error.is_instance_of::<pyo3::panic::PanicException>(py));
                assert!(error.to_string().contains("panicked"));
            }
            let ok = run_detached(py, Some(1), None, |_| -> kgroups::Result<i32> { Ok(3) });
            assert_eq!(ok.unwrap(), 3);
        });
    }

    #[test]
    fn errors_and_values_pass_through() {
        let error =
            catch_panic(|| -> kgroups::Result<()> { Err(kgroups::KGroupsError::Interrupted) });
        assert!(matches!(
            error,
            Some(Err(kgroups::KGroupsError::Interrupted))
        ));
        assert_eq!(catch_panic(|| 7), Some(7));
    }
}
