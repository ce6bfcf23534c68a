//! The exact-symmetry hash: one pass over a matrix's rows (dense or sparse) that tells
//! whether it is symmetric bit for bit, without reading any entry's mirror. See
//! [`MirrorBalance`]; the symmetry rule itself, and the checks that use the hash first, are
//! in [`super::symmetry`] (dense) and [`crate::sparse`] (CSR).

use crate::kernel::KernelElement;

/// Lanes of [`MirrorBalance`]: one AVX2 register of u64.
const HASH_LANES: usize = 4;

/// The offsets `(o₀, o₁)` of the two key sets of [`MirrorBalance`].
const KEY_OFFSETS: [(u64, u64); 2] = [(0x9E37_79B9, 0x7F4A_7C15), (0xBF58_476D, 0x94D0_49BB)];

/// The key of index `i` for the key set with offsets `(o₀, o₁)`: the product of the low 32
/// bits of `i + o₀` and of `i + o₁`.
#[inline(always)]
fn index_key(i: u64, (o0, o1): (u64, u64)) -> u64 {
    (i.wrapping_add(o0) & 0xFFFF_FFFF) * (i.wrapping_add(o1) & 0xFFFF_FFFF)
}

/// Columns below this have keys that are the exact products of [`index_key`] without its
/// masks (`b + o < 2³²` for every offset), a quadratic in the column: along a row they
/// advance by additions alone ([`MirrorBalance::add_part`]).
const QUADRATIC_KEYS_BELOW: u64 = {
    let mut largest = 0;
    let mut set = 0;
    while set < KEY_OFFSETS.len() {
        let (o0, o1) = KEY_OFFSETS[set];
        largest = if o0 > largest { o0 } else { largest };
        largest = if o1 > largest { o1 } else { largest };
        set += 1;
    }
    (1 << 32) - largest
};

/// `index_key(b + HASH_LANES) − index_key(b)` (wrapping) for a column `b` below
/// [`QUADRATIC_KEYS_BELOW`]: `(b + 4 + o₀)(b + 4 + o₁) − (b + o₀)(b + o₁) = 8b + 4(o₀ + o₁) +
/// 16`, which itself grows by 32 from one column to the one four further on.
#[inline(always)]
fn key_step(b: u64, (o0, o1): (u64, u64)) -> u64 {
    const _: () = assert!(HASH_LANES == 4);
    (8 * b)
        .wrapping_add(4 * o0.wrapping_add(o1))
        .wrapping_add(16)
}

/// The keys of index `a` in both key sets.
#[inline(always)]
fn row_keys(a: usize) -> (u64, u64) {
    (
        index_key(a as u64, KEY_OFFSETS[0]),
        index_key(a as u64, KEY_OFFSETS[1]),
    )
}

/// The hash of an entry with bits `bits` at a pair with key `key`: the 64-bit product of the
/// two 32-bit halves of `bits + key` (wrapping).
#[inline(always)]
fn multiply_halves(bits: u64, key: u64) -> u64 {
    let t = bits.wrapping_add(key);
    (t & 0xFFFF_FFFF) * (t >> 32)
}

/// The exact-symmetry hash of a matrix (dense or sparse), accumulated row by row: wrapping
/// sums in two key sets, and a finiteness probe.
///
/// Entry `G_ab` (`a ≠ b`) hashes, in each key set, to the product of the two 32-bit halves of
/// `bits(G_ab) + key_a + key_b` ([`multiply_halves`], the multiply-and-add hash of UMAC and
/// VMAC, whose distinct inputs collide with probability about 2⁻³² for random keys). The key
/// of the pair is symmetric in `a` and `b`, so `G_ab` and `G_ba` hash alike exactly when their
/// bits are equal. Entries right of the diagonal add their hash, entries left of it subtract
/// it: a matrix that is symmetric bit for bit balances to 0 in both key sets, whatever the
/// order of the additions (the sums wrap, so the verdict does not depend on the threads). An
/// asymmetric one balances only through a collision in both key sets; no two pairs of
/// indices below 2³⁰ share their keys in both ([`index_key`] is then a quadratic in the index,
/// with another linear term in each set). The keys are fixed, so the verdicts are reproducible: this is a
/// hash test, not a proof, and a matrix built against these keys could pass it.
///
/// The keys are computed beside the entries, not read from a table: a table read beside each
/// row doubled the memory traffic and the time. The finiteness probe is `Σ x · 0`, exactly 0
/// for finite entries and NaN once one is NaN or infinite. All sums are kept in
/// [`HASH_LANES`] independent lanes so that the loop vectorises.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MirrorBalance {
    first: [u64; HASH_LANES],
    second: [u64; HASH_LANES],
    non_finite: [f64; HASH_LANES],
}

impl Default for MirrorBalance {
    fn default() -> Self {
        MirrorBalance {
            first: [0; HASH_LANES],
            second: [0; HASH_LANES],
            non_finite: [0.0; HASH_LANES],
        }
    }
}

impl MirrorBalance {
    /// The balance of both parts.
    pub(crate) fn combine(mut self, other: MirrorBalance) -> MirrorBalance {
        for t in 0..HASH_LANES {
            self.first[t] = self.first[t].wrapping_add(other.first[t]);
            self.second[t] = self.second[t].wrapping_add(other.second[t]);
            self.non_finite[t] += other.non_finite[t];
        }
        self
    }

    /// Whether the hashed entries were all finite and (up to a hash collision) every entry
    /// was hashed with the same bits as its mirror.
    pub(crate) fn is_balanced_and_finite(&self) -> bool {
        let total = |lanes: &[u64; HASH_LANES]| lanes.iter().fold(0u64, |s, &v| s.wrapping_add(v));
        total(&self.first) == 0
            && total(&self.second) == 0
            && self.non_finite.iter().all(|&v| v == 0.0)
    }

    /// Adds row `a` of the matrix (`row`, columns from 0) but its diagonal entry: the entries
    /// left of column `a` are subtracted, those right of it added.
    pub(crate) fn add_row<T: KernelElement>(&mut self, a: usize, row: &[T]) {
        let (left, rest) = row.split_at(a.min(row.len()));
        self.add_part::<T, true>(a, 0, left);
        self.add_part::<T, false>(a, a + 1, rest.get(1..).unwrap_or(&[]));
    }

    /// Adds the stored entries of row `a` of a sparse matrix, `(column, value)`: each hashed
    /// as in [`MirrorBalance::add_row`] (a missing entry hashes as nothing, so an entry
    /// whose mirror is missing unbalances the sums), the diagonal only probed for
    /// finiteness.
    pub(crate) fn add_sparse_row<T: KernelElement>(
        &mut self,
        a: usize,
        entries: impl Iterator<Item = (usize, T)>,
    ) {
        let keys_a = row_keys(a);
        for (b, value) in entries {
            if b == a {
                self.non_finite[0] += value.widen() * 0.0;
            } else {
                self.add_entry(0, keys_a, b as u64, value, b < a);
            }
        }
    }

    /// Adds (or, `subtract`, subtracts) in lane `t` the hashes of `value` at column `b` of
    /// the row whose keys are `keys_a`, and probes it for finiteness.
    #[inline(always)]
    fn add_entry<T: KernelElement>(
        &mut self,
        t: usize,
        (first_a, second_a): (u64, u64),
        b: u64,
        value: T,
        subtract: bool,
    ) {
        let pair_keys = (
            first_a.wrapping_add(index_key(b, KEY_OFFSETS[0])),
            second_a.wrapping_add(index_key(b, KEY_OFFSETS[1])),
        );
        self.add_hashes(t, pair_keys, value, subtract);
    }

    /// Adds (or, `subtract`, subtracts) in lane `t` the hashes of `value` with the keys of
    /// its pair in both sets (`key_a + key_b`), and probes it for finiteness.
    #[inline(always)]
    fn add_hashes<T: KernelElement>(
        &mut self,
        t: usize,
        (first_key, second_key): (u64, u64),
        value: T,
        subtract: bool,
    ) {
        let x = value.widen();
        self.non_finite[t] += x * 0.0;
        let bits = x.to_bits();
        let h1 = multiply_halves(bits, first_key);
        let h2 = multiply_halves(bits, second_key);
        if subtract {
            self.first[t] = self.first[t].wrapping_sub(h1);
            self.second[t] = self.second[t].wrapping_sub(h2);
        } else {
            self.first[t] = self.first[t].wrapping_add(h1);
            self.second[t] = self.second[t].wrapping_add(h2);
        }
    }

    /// Adds (or, `SUBTRACT`, subtracts) the hashes of row `a`'s entries `run`, at the columns
    /// from `start` on, on the widest vectors the CPU has.
    #[inline]
    fn add_part<T: KernelElement, const SUBTRACT: bool>(
        &mut self,
        a: usize,
        start: usize,
        run: &[T],
    ) {
        #[cfg(target_arch = "x86_64")]
        if crate::distance::wide_vectors() {
            // SAFETY: `add_part_avx2` requires only that the CPU supports AVX2, which
            // `wide_vectors` has just detected at run time.
            return unsafe { self.add_part_avx2::<T, SUBTRACT>(a, start, run) };
        }
        self.add_part_portable::<T, SUBTRACT>(a, start, run)
    }

    /// [`MirrorBalance::add_part_portable`] compiled with AVX2 (four u64 lanes per
    /// instruction).
    ///
    /// # Safety
    /// The CPU must support AVX2 (the caller detects it first). The body is safe code; only
    /// the instruction set it is compiled for needs the check.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn add_part_avx2<T: KernelElement, const SUBTRACT: bool>(
        &mut self,
        a: usize,
        start: usize,
        run: &[T],
    ) {
        self.add_part_portable::<T, SUBTRACT>(a, start, run)
    }

    /// The body of [`MirrorBalance::add_part`], compiled into both instruction sets.
    #[inline(always)]
    fn add_part_portable<T: KernelElement, const SUBTRACT: bool>(
        &mut self,
        a: usize,
        start: usize,
        run: &[T],
    ) {
        let keys_a = row_keys(a);
        let chunks = run.chunks_exact(HASH_LANES);
        let tail = chunks.remainder();
        if ((start + run.len()) as u64) < QUADRATIC_KEYS_BELOW {
            // The pairs' keys `key_a + key_b` advance along the row by their differences
            // (`key_step`, which grows by 32): the same keys as `add_entry` computes, with two
            // additions instead of a multiplication and four more operations per key set.
            let lanes =
                |key_a: u64, offsets: (u64, u64)| -> ([u64; HASH_LANES], [u64; HASH_LANES]) {
                    let b = |t: usize| (start + t) as u64;
                    (
                        std::array::from_fn(|t| key_a.wrapping_add(index_key(b(t), offsets))),
                        std::array::from_fn(|t| key_step(b(t), offsets)),
                    )
                };
            let (mut first_keys, mut first_steps) = lanes(keys_a.0, KEY_OFFSETS[0]);
            let (mut second_keys, mut second_steps) = lanes(keys_a.1, KEY_OFFSETS[1]);
            for values in chunks {
                for t in 0..HASH_LANES {
                    self.add_hashes(t, (first_keys[t], second_keys[t]), values[t], SUBTRACT);
                    first_keys[t] = first_keys[t].wrapping_add(first_steps[t]);
                    first_steps[t] = first_steps[t].wrapping_add(32);
                    second_keys[t] = second_keys[t].wrapping_add(second_steps[t]);
                    second_steps[t] = second_steps[t].wrapping_add(32);
                }
            }
        } else {
            // The lanes' columns, advanced together: a column computed from a scalar index
            // in each iteration left the keys' arithmetic scalar.
            let mut columns: [u64; HASH_LANES] = std::array::from_fn(|t| (start + t) as u64);
            for values in chunks {
                for t in 0..HASH_LANES {
                    self.add_entry(t, keys_a, columns[t], values[t], SUBTRACT);
                    columns[t] += HASH_LANES as u64;
                }
            }
        }
        let done = run.len() - tail.len();
        for (i, &value) in tail.iter().enumerate() {
            self.add_entry(0, keys_a, (start + done + i) as u64, value, SUBTRACT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestRng;

    /// Keys advanced by their differences are the keys: a run hashed by `add_part` (whose
    /// keys advance along the run below `QUADRATIC_KEYS_BELOW`, and are computed from each
    /// column above it) gives the sums of its entries hashed one by one, for runs ending just
    /// below, at and past that bound, of every length around the lanes, added and
    /// subtracted.
    #[test]
    fn keys_advanced_along_a_run_are_the_keys_of_its_columns() {
        let limit = QUADRATIC_KEYS_BELOW as usize;
        let total = |b: &MirrorBalance| {
            let fold = |l: &[u64; HASH_LANES]| l.iter().fold(0u64, |s, &v| s.wrapping_add(v));
            (fold(&b.first), fold(&b.second))
        };
        let mut rng = TestRng(43);
        for start in [
            1usize,
            1000,
            limit - 40,
            limit - 13,
            limit - 9,
            limit - 1,
            limit + 7,
        ] {
            for len in 0..14 {
                let run: Vec<f64> = (0..len).map(|_| rng.normal_ish()).collect();
                for a in [0usize, start + len + 3] {
                    let mut by_run = MirrorBalance::default();
                    let mut one_by_one = MirrorBalance::default();
                    let subtract = a > start;
                    if subtract {
                        by_run.add_part::<f64, true>(a, start, &run);
                    } else {
                        by_run.add_part::<f64, false>(a, start, &run);
                    }
                    for (j, &v) in run.iter().enumerate() {
                        one_by_one.add_entry(0, row_keys(a), (start + j) as u64, v, subtract);
                    }
                    assert_eq!(
                        total(&by_run),
                        total(&one_by_one),
                        "start {start}, length {len}, row {a}"
                    );
                }
            }
        }
    }

    /// The dense and the sparse way of adding a row are one hash: on a matrix with every
    /// entry stored they give the same sums, row by row (any row lengths around the lanes).
    #[test]
    fn dense_and_sparse_rows_hash_alike() {
        let mut rng = TestRng(41);
        for n in [1usize, 2, 3, 4, 5, 8, 9, 13] {
            let g: Vec<f64> = (0..n * n).map(|_| rng.normal_ish()).collect();
            for a in 0..n {
                let row = &g[a * n..(a + 1) * n];
                let mut dense = MirrorBalance::default();
                dense.add_row(a, row);
                let mut sparse = MirrorBalance::default();
                sparse.add_sparse_row(a, row.iter().copied().enumerate());
                let total = |b: &MirrorBalance| {
                    let fold =
                        |l: &[u64; HASH_LANES]| l.iter().fold(0u64, |s, &v| s.wrapping_add(v));
                    (fold(&b.first), fold(&b.second))
                };
                assert_eq!(total(&dense), total(&sparse), "n = {n}, row {a}");
                if n > 1 {
                    assert_ne!(
                        total(&dense),
                        (0, 0),
                        "n = {n}, row {a}: a lone row balances"
                    );
                }
            }
        }
    }
}
