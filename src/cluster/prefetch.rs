//! Software prefetch: asking the CPU to start loading cache lines that a later step reads,
//! where the hardware prefetchers cannot guess the addresses. A hint only: it never faults
//! and never changes a result. A no-op off x86-64.

/// Cache line size of the x86-64 CPUs the hints are tuned for.
const LINE: usize = 64;

/// Starts loading the cache line that holds `value`.
#[inline(always)]
pub(crate) fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults and has no visible effect; the address is that of
        // a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Starts loading every cache line of `run`.
#[inline(always)]
pub(crate) fn prefetch_run<T>(run: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let bytes = std::mem::size_of_val(run);
        let start = run.as_ptr().cast::<i8>();
        for offset in (0..bytes).step_by(LINE) {
            // SAFETY: a prefetch never faults and has no visible effect; the address is
            // inside `run` (offset < its size in bytes).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (run, LINE);
}
