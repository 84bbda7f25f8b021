//! Random rows at a chosen density per document, fast.
//!
//! [`Xoshiro256PlusPlus`] is the generator (Blackman and Vigna's xoshiro256++, seeded through
//! SplitMix64). [`BlockDensity`] turns one density per document of a block into bit masks, and
//! [`BlockDensity::fill_rows`] writes rows whose bit for document `d` is set with probability
//! `threshold_d / 256`.
//!
//! How a density becomes bits: write `p = t / 256` in binary, `p = 0.b₁b₂…b₈`. Start from
//! `x = 0` and, for the bits from `b₈` (least significant) up to `b₁`, combine `x` with a fresh
//! random word `w`: `x = x | w` when the bit is 1 (density `d → (1 + d) / 2`), `x = x & w` when
//! it is 0 (`d → d / 2`). After the eight steps every bit of `x` is set with probability
//! exactly `p`. The choice between OR and AND is made per bit lane with a mask,
//! `x = (x & w) | (m & (x | w))`, so the 64 lanes of a word (64 documents) each follow their
//! own density. `t = 256` (density 1) is a separate "full" mask.
//!
//! Four independent generators run side by side, one per word of a 32-byte group, which the
//! compiler turns into vector instructions (AVX2 when the CPU has it, chosen at run time).

/// Steps of the binary expansion: densities are multiples of `1 / 2^DENSITY_BITS`.
pub(crate) const DENSITY_BITS: u32 = 8;
/// The density denominator, 256.
pub(crate) const DENSITY_ONE: u32 = 1 << DENSITY_BITS;
/// Generator lanes that run side by side (one 64-bit word each).
const LANES: usize = 4;
/// Bytes produced per step of all lanes.
const GROUP_BYTES: usize = 8 * LANES;

/// One SplitMix64 step: used to seed xoshiro and to derive independent seeds.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A seed for stream `parts` (for example block and chunk numbers) of the run seeded `seed`:
/// different parts give unrelated streams.
pub(crate) fn derive_seed(seed: u64, parts: &[u64]) -> u64 {
    let mut state = seed;
    let mut mixed = splitmix64(&mut state);
    for &part in parts {
        state ^= part.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        mixed ^= splitmix64(&mut state);
    }
    mixed
}

/// xoshiro256++: 256 bits of state, period 2^256 − 1, passes BigCrush; about a nanosecond
/// per 64-bit word.
#[derive(Clone, Debug)]
pub(crate) struct Xoshiro256PlusPlus {
    s: [u64; 4],
}

impl Xoshiro256PlusPlus {
    /// A generator whose state is four SplitMix64 outputs of `seed` (never all zero).
    pub(crate) fn seed_from(seed: u64) -> Xoshiro256PlusPlus {
        let mut state = seed;
        let s = [
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
        ];
        debug_assert!(s.iter().any(|&w| w != 0));
        Xoshiro256PlusPlus { s }
    }

    /// The next 64 random bits.
    #[inline(always)]
    pub(crate) fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal deviate (Box–Muller).
    pub(crate) fn next_normal(&mut self) -> f64 {
        // 1 − u is in (0, 1], so the logarithm is finite.
        let u = 1.0 - self.next_f64();
        let v = self.next_f64();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Four xoshiro256++ generators, one per 64-bit word of a 32-byte group.
#[derive(Clone, Debug)]
struct Lanes {
    generators: [Xoshiro256PlusPlus; LANES],
}

impl Lanes {
    fn seed_from(seed: u64) -> Lanes {
        Lanes {
            generators: std::array::from_fn(|lane| {
                Xoshiro256PlusPlus::seed_from(derive_seed(seed, &[lane as u64]))
            }),
        }
    }

    /// The state word by word (`[word][lane]`), as vector registers hold it.
    #[cfg(target_arch = "x86_64")]
    fn word_major(&self) -> [[u64; LANES]; 4] {
        std::array::from_fn(|word| std::array::from_fn(|lane| self.generators[lane].s[word]))
    }

    /// Sets the state from [`Lanes::word_major`] form.
    #[cfg(target_arch = "x86_64")]
    fn set_word_major(&mut self, words: &[[u64; LANES]; 4]) {
        for (lane, generator) in self.generators.iter_mut().enumerate() {
            generator.s = std::array::from_fn(|word| words[word][lane]);
        }
    }
}

/// The masks of one 32-byte group of a row (256 documents): for each step of the binary
/// expansion, which lanes OR (1) and which AND (0); and which lanes are always set.
#[derive(Clone, Debug, Default)]
struct GroupMasks {
    steps: [[u64; LANES]; DENSITY_BITS as usize],
    full: [u64; LANES],
    /// No document of the group has a nonzero density: the bytes are zero.
    empty: bool,
}

/// The per-document densities of one block, ready to generate rows of `row_bytes` bytes.
#[derive(Clone, Debug)]
pub(crate) struct BlockDensity {
    row_bytes: usize,
    groups: Vec<GroupMasks>,
    /// Steps before this one leave `x = 0` for every lane and are skipped.
    first_step: u32,
}

impl BlockDensity {
    /// Densities `thresholds[d] / 256` for the documents (columns) of a block whose rows are
    /// `row_bytes` bytes; documents beyond `thresholds` (the unused columns of a last block)
    /// get density 0, so their bits stay zero as the format requires.
    ///
    /// Panics if there are more thresholds than columns or one exceeds 256 (bugs of ours).
    pub(crate) fn new(row_bytes: usize, thresholds: &[u32]) -> BlockDensity {
        assert!(
            thresholds.len() <= 8 * row_bytes,
            "more documents than columns"
        );
        assert!(thresholds.iter().all(|&t| t <= DENSITY_ONE));
        let group_count = row_bytes.div_ceil(GROUP_BYTES);
        let mut groups = vec![GroupMasks::default(); group_count];
        let mut low_bits = 0u32;
        for (document, &threshold) in thresholds.iter().enumerate() {
            let group = &mut groups[document / (8 * GROUP_BYTES)];
            let lane = document % (8 * GROUP_BYTES) / 64;
            let bit = 1u64 << (document % 64);
            if threshold == DENSITY_ONE {
                group.full[lane] |= bit;
                continue;
            }
            low_bits |= threshold;
            for step in 0..DENSITY_BITS {
                if threshold >> step & 1 == 1 {
                    group.steps[step as usize][lane] |= bit;
                }
            }
        }
        for group in &mut groups {
            group.empty = group.full == [0; LANES] && group.steps.iter().all(|s| *s == [0; LANES]);
        }
        BlockDensity {
            row_bytes,
            groups,
            first_step: if low_bits == 0 {
                DENSITY_BITS
            } else {
                low_bits.trailing_zeros()
            },
        }
    }

    /// Fills `out` (whole rows) with random bits, the stream given by `seed`.
    ///
    /// Panics if `out` is not a whole number of rows (a bug of ours).
    pub(crate) fn fill_rows(&self, seed: u64, out: &mut [u8]) {
        assert_eq!(out.len() % self.row_bytes, 0, "partial row");
        let mut lanes = Lanes::seed_from(seed);
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of
                // a `#[target_feature(enable = "avx2")]` function.
                unsafe { fill_rows_avx2(self, &mut lanes, out) };
                return;
            }
        }
        fill_rows_portable(self, &mut lanes, out);
    }
}

/// [`fill_rows_portable`] with the four lanes in one 256-bit AVX2 register: the same
/// streams, the same bytes, about three times as fast.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_rows_avx2(density: &BlockDensity, lanes: &mut Lanes, out: &mut [u8]) {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_loadu_si256, _mm256_or_si256,
        _mm256_setzero_si256, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256,
        _mm256_xor_si256,
    };
    // Every load and store below goes through a `[u64; 4]` or a 32-byte slice: in bounds, and
    // the unaligned forms need no alignment.
    let mut state = lanes.word_major();
    let mut s0 = _mm256_loadu_si256(state[0].as_ptr().cast::<__m256i>());
    let mut s1 = _mm256_loadu_si256(state[1].as_ptr().cast::<__m256i>());
    let mut s2 = _mm256_loadu_si256(state[2].as_ptr().cast::<__m256i>());
    let mut s3 = _mm256_loadu_si256(state[3].as_ptr().cast::<__m256i>());
    let first_step = density.first_step as usize;
    for row in out.chunks_exact_mut(density.row_bytes) {
        for (bytes, group) in row.chunks_mut(GROUP_BYTES).zip(&density.groups) {
            if group.empty {
                bytes.fill(0);
                continue;
            }
            let mut x = _mm256_setzero_si256();
            for masks in &group.steps[first_step..] {
                // xoshiro256++: result = rotl(s0 + s3, 23) + s0, then the state update.
                let sum = _mm256_add_epi64(s0, s3);
                let rotated =
                    _mm256_or_si256(_mm256_slli_epi64::<23>(sum), _mm256_srli_epi64::<41>(sum));
                let w = _mm256_add_epi64(rotated, s0);
                let t = _mm256_slli_epi64::<17>(s1);
                s2 = _mm256_xor_si256(s2, s0);
                s3 = _mm256_xor_si256(s3, s1);
                s1 = _mm256_xor_si256(s1, s2);
                s0 = _mm256_xor_si256(s0, s3);
                s2 = _mm256_xor_si256(s2, t);
                s3 = _mm256_or_si256(_mm256_slli_epi64::<45>(s3), _mm256_srli_epi64::<19>(s3));
                // x = (x & w) | (m & (x | w)): OR where the density bit is 1, AND where 0.
                let m = _mm256_loadu_si256(masks.as_ptr().cast::<__m256i>());
                x = _mm256_or_si256(
                    _mm256_and_si256(x, w),
                    _mm256_and_si256(m, _mm256_or_si256(x, w)),
                );
            }
            let full = _mm256_loadu_si256(group.full.as_ptr().cast::<__m256i>());
            x = _mm256_or_si256(x, full);
            if bytes.len() == GROUP_BYTES {
                _mm256_storeu_si256(bytes.as_mut_ptr().cast::<__m256i>(), x);
            } else {
                let mut all = [0u8; GROUP_BYTES];
                _mm256_storeu_si256(all.as_mut_ptr().cast::<__m256i>(), x);
                let length = bytes.len();
                bytes.copy_from_slice(&all[..length]);
            }
        }
    }
    for (words, vector) in state.iter_mut().zip([s0, s1, s2, s3]) {
        _mm256_storeu_si256(words.as_mut_ptr().cast::<__m256i>(), vector);
    }
    lanes.set_word_major(&state);
}

/// The reference implementation: four scalar generators, one word each.
#[inline(always)]
fn fill_rows_portable(density: &BlockDensity, lanes: &mut Lanes, out: &mut [u8]) {
    let first_step = density.first_step as usize;
    for row in out.chunks_exact_mut(density.row_bytes) {
        for (bytes, group) in row.chunks_mut(GROUP_BYTES).zip(&density.groups) {
            if group.empty {
                bytes.fill(0);
                continue;
            }
            let mut x = [0u64; LANES];
            for masks in &group.steps[first_step..] {
                for ((x, generator), m) in x.iter_mut().zip(&mut lanes.generators).zip(masks) {
                    let w = generator.next_u64();
                    *x = (*x & w) | (m & (*x | w));
                }
            }
            for (x, full) in x.iter_mut().zip(group.full) {
                *x |= full;
            }
            store_group(x, bytes);
        }
    }
}

/// Stores four words little-endian into `bytes` (32 bytes, or fewer at the end of a row).
#[inline(always)]
fn store_group(x: [u64; LANES], bytes: &mut [u8]) {
    let mut all = [0u8; GROUP_BYTES];
    for (chunk, word) in all.chunks_exact_mut(8).zip(x) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    let length = bytes.len();
    bytes.copy_from_slice(&all[..length]);
}

/// The density of document `d` as a threshold out of 256: `fill` rounded to the nearest
/// multiple of 1/256 (so a density below 1/512 becomes 0 and one above 511/512 becomes 1).
pub(crate) fn threshold_for(fill: f64) -> u32 {
    (fill.clamp(0.0, 1.0) * DENSITY_ONE as f64).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bit(row: &[u8], document: usize) -> bool {
        row[document / 8] >> (document % 8) & 1 == 1
    }

    #[test]
    fn xoshiro_matches_the_reference_sequence() {
        // Reference: xoshiro256plusplus.c with s = {1, 2, 3, 4}.
        let mut g = Xoshiro256PlusPlus { s: [1, 2, 3, 4] };
        let first: Vec<u64> = (0..3).map(|_| g.next_u64()).collect();
        assert_eq!(first, [41943041, 58720359, 3588806011781223]);
    }

    #[test]
    fn every_threshold_gives_its_density() {
        // One document per threshold 0..=256 (257 columns in a 40-byte row), 20,000 rows:
        // each column's fraction of set bits is within 5 standard deviations of t/256.
        let thresholds: Vec<u32> = (0..=DENSITY_ONE).collect();
        let density = BlockDensity::new(40, &thresholds);
        let rows = 20_000;
        let mut out = vec![0u8; 40 * rows];
        density.fill_rows(7, &mut out);
        for (document, &t) in thresholds.iter().enumerate() {
            let set = out.chunks_exact(40).filter(|r| bit(r, document)).count();
            let p = t as f64 / 256.0;
            let measured = set as f64 / rows as f64;
            let sigma = (p * (1.0 - p) / rows as f64).sqrt();
            assert!(
                (measured - p).abs() <= 5.0 * sigma + 1e-12,
                "threshold {t}: measured {measured}, expected {p}"
            );
        }
        // Columns 257..320 have no document: always zero.
        for row in out.chunks_exact(40) {
            assert!((257..320).all(|d| !bit(row, d)));
        }
    }

    #[test]
    fn zero_and_full_blocks_are_exact() {
        let zero = BlockDensity::new(16, &[0; 100]);
        let mut out = vec![0xAAu8; 16 * 100];
        zero.fill_rows(1, &mut out);
        assert!(out.iter().all(|&b| b == 0));
        let full = BlockDensity::new(3, &[256; 24]);
        let mut out = vec![0u8; 3 * 100];
        full.fill_rows(1, &mut out);
        assert!(out.iter().all(|&b| b == 0xFF));
    }

    #[test]
    fn odd_row_sizes_and_partial_last_byte() {
        // 5-byte rows, 37 documents: bits 37..40 of every row stay zero.
        let density = BlockDensity::new(5, &[128; 37]);
        let mut out = vec![0u8; 5 * 1000];
        density.fill_rows(3, &mut out);
        for row in out.chunks_exact(5) {
            assert_eq!(row[4] & 0b1110_0000, 0);
        }
        let ones: u32 = out.iter().map(|b| b.count_ones()).sum();
        let fraction = ones as f64 / (37.0 * 1000.0);
        assert!((fraction - 0.5).abs() < 0.02, "{fraction}");
    }

    #[test]
    fn streams_are_deterministic_and_distinct() {
        let density = BlockDensity::new(64, &[77; 512]);
        let fill = |seed| {
            let mut out = vec![0u8; 64 * 64];
            density.fill_rows(seed, &mut out);
            out
        };
        assert_eq!(fill(5), fill(5));
        assert_ne!(fill(5), fill(6));
        assert_ne!(derive_seed(1, &[0, 1]), derive_seed(1, &[1, 0]));
    }

    #[test]
    fn portable_and_vector_paths_agree() {
        let thresholds: Vec<u32> = (0..1000).map(|d| (d * 37 % 257) as u32).collect();
        let density = BlockDensity::new(128, &thresholds);
        let mut dispatched = vec![0u8; 128 * 50];
        density.fill_rows(9, &mut dispatched);
        let mut portable = vec![0u8; 128 * 50];
        fill_rows_portable(&density, &mut Lanes::seed_from(9), &mut portable);
        assert_eq!(dispatched, portable);
    }

    #[test]
    fn log_normal_inputs_are_sane() {
        let mut g = Xoshiro256PlusPlus::seed_from(11);
        let n = 100_000;
        let values: Vec<f64> = (0..n).map(|_| g.next_normal()).collect();
        let mean = values.iter().sum::<f64>() / n as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.02, "{mean}");
        assert!((variance - 1.0).abs() < 0.03, "{variance}");
    }
}
