//! Software prefetch: asking the CPU to start loading a cache line that a later step reads,
//! where the hardware prefetchers cannot guess the address (the scattered rows of a sparse
//! kernel). A hint only: it never faults and never changes a result. A no-op off x86-64.

/// Starts loading the cache line that holds `value` into every level of the cache.
#[inline(always)]
pub(crate) fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never faults and has no effect a program can observe; the
        // address is that of a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
