//! Helpers shared by the unit tests of several modules: reproducible data, naive reference
//! formulas, error assertions and fixed-size thread pools.

#![allow(clippy::needless_range_loop)] // the naive reference loops index on purpose

use crate::distance::Semimetric;
use crate::error::{KGroupsError, Result};

/// SplitMix64-based uniform numbers in [0, 1), for reproducible test data.
pub(crate) struct TestRng(pub u64);

impl TestRng {
    pub(crate) fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A uniform index below `n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_f64() * n as f64) as usize % n
    }
    pub(crate) fn normal_ish(&mut self) -> f64 {
        (0..4).map(|_| self.next_f64()).sum::<f64>() - 2.0
    }
    pub(crate) fn data(&mut self, n: usize, dim: usize, scale: f64, shift: f64) -> Vec<f64> {
        (0..n * dim)
            .map(|_| shift + scale * self.normal_ish())
            .collect()
    }
}

pub(crate) fn assert_out_of_memory<T: std::fmt::Debug>(r: Result<T>, arg: &str, needle: &str) {
    match r {
        Err(KGroupsError::OutOfMemory { argument, message }) => {
            assert_eq!(argument, arg, "wrong argument name; message: {message}");
            assert!(
                message.contains(needle),
                "message {message:?} does not contain {needle:?}"
            );
        }
        other => panic!("expected OutOfMemory({arg}), got {other:?}"),
    }
}

pub(crate) fn assert_invalid<T: std::fmt::Debug>(r: Result<T>, arg: &str, needle: &str) {
    match r {
        Err(KGroupsError::InvalidInput { argument, message }) => {
            assert_eq!(argument, arg, "wrong argument name; message: {message}");
            assert!(
                message.contains(needle),
                "message {message:?} does not contain {needle:?}"
            );
        }
        other => panic!("expected InvalidInput({arg}), got {other:?}"),
    }
}

/// Σ_k (a_k − b_k)² by the textbook loop, each square added with one rounding (a fused
/// multiply-add), as the library adds them: equal bit for bit to its squared distances.
pub(crate) fn naive_d2(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..a.len() {
        let d = a[k] - b[k];
        s = d.mul_add(d, s);
    }
    s
}

/// ρ straight from the definitions (not through `from_squared_distance`).
pub(crate) fn naive_rho(sm: Semimetric, a: &[f64], b: &[f64]) -> f64 {
    let d2 = naive_d2(a, b);
    match sm {
        Semimetric::Power { alpha } => d2.sqrt().powf(alpha),
        Semimetric::Exponential { sigma } => -2.0 * (-d2.sqrt() / (2.0 * sigma)).exp_m1(),
        Semimetric::Gaussian { sigma } => -2.0 * (-d2 / (2.0 * sigma * sigma)).exp_m1(),
    }
}

pub(crate) fn naive_r(sm: Semimetric, data: &[f64], n: usize, dim: usize) -> Vec<f64> {
    let mut r = vec![0.0; n * n];
    for a in 0..n {
        for b in 0..n {
            r[a * n + b] = naive_rho(
                sm,
                &data[a * dim..(a + 1) * dim],
                &data[b * dim..(b + 1) * dim],
            );
        }
    }
    r
}

pub(crate) const SEMIMETRICS: [Semimetric; 5] = [
    Semimetric::Power { alpha: 1.0 },
    Semimetric::Power { alpha: 2.0 },
    Semimetric::Power { alpha: 0.7 },
    Semimetric::Exponential { sigma: 0.8 },
    Semimetric::Gaussian { sigma: 1.3 },
];

pub(crate) fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The CSR arrays (usize indices) of a dense row-major `n × n` matrix: its non-zero entries.
pub(crate) fn dense_to_csr(dense: &[f64], n: usize) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
    let (mut indptr, mut indices, mut data) = (vec![0usize], vec![], vec![]);
    for a in 0..n {
        for b in 0..n {
            if dense[a * n + b] != 0.0 {
                indices.push(b);
                data.push(dense[a * n + b]);
            }
        }
        indptr.push(indices.len());
    }
    (indptr, indices, data)
}
