//! Writes of the Gram matrix that bypass the caches. The matrix is written once, in tiles
//! visited far apart, and not read again by the builder: ordinary stores first read every
//! line they write (the hardware fetches a line before it can modify part of it) and then
//! evict it, so the n × n output crosses the memory bus twice more than its size. Streaming
//! (non-temporal) stores of whole lines skip that read. On CPUs other than x86-64, and for
//! f32 output, the values are stored as usual. The stored values are the same either way.
//! (f32 output streamed through a narrowing buffer measured slower: `benches/PERFORMANCE.md`.)

/// `dst[j] = values[j]` for every `j` both have (the callers pass runs of equal length), by
/// streaming stores where the CPU has them; [`fence`] must follow before the matrix is handed
/// to another thread.
///
/// The streaming stores need 16-byte aligned addresses, so a run that starts off that
/// alignment stores its first value as usual.
pub(crate) fn store_run(dst: &mut [f64], values: &[f64]) {
    let len = dst.len().min(values.len());
    let (dst, values) = (&mut dst[..len], &values[..len]);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_pd, _mm_stream_pd};
        // The first 16-byte aligned value (all of them when `align_offset` gives up).
        let head = dst.as_ptr().align_offset(16).min(dst.len());
        let (head_dst, body) = dst.split_at_mut(head);
        let (head_values, body_values) = values.split_at(head);
        head_dst.copy_from_slice(head_values);
        let mut pairs = body.chunks_exact_mut(2);
        let mut value_pairs = body_values.chunks_exact(2);
        for (d, v) in (&mut pairs).zip(&mut value_pairs) {
            // SAFETY: SSE2 is part of every x86-64 CPU. `d` is two f64 of `dst`, writable
            // through the exclusive borrow, and 16-byte aligned: `body` is not empty, so
            // `head` is what `align_offset(16)` returned, whose contract is that `dst` moved
            // on by that many values is 16-byte aligned, and every pair before `d` is 16
            // bytes long. `v` is two readable f64 (an unaligned load).
            unsafe { _mm_stream_pd(d.as_mut_ptr(), _mm_loadu_pd(v.as_ptr())) };
        }
        pairs
            .into_remainder()
            .copy_from_slice(value_pairs.remainder());
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(values);
}

/// Orders this thread's streaming stores before its later stores (and so before the release
/// that hands the matrix over): streaming stores are weakly ordered on x86-64.
pub(crate) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 (sfence) is part of every x86-64 CPU; the fence has no other effect.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_lands_in_place_at_any_alignment_and_length() {
        let values: Vec<f64> = (0..41).map(|j| j as f64 * 1.5 - 7.0).collect();
        for offset in 0..3 {
            for len in [0, 1, 2, 3, 4, 5, 16, 33, 38] {
                let mut out = vec![f64::NAN; 48];
                store_run(&mut out[offset..offset + len], &values[..len]);
                fence();
                for (j, &v) in out.iter().enumerate() {
                    if (offset..offset + len).contains(&j) {
                        assert_eq!(v.to_bits(), values[j - offset].to_bits());
                    } else {
                        assert!(v.is_nan(), "wrote outside the run at {j}");
                    }
                }
            }
        }
    }
}
