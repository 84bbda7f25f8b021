//! SplitMix64: the generator of both the file pattern and the random offsets. It is tiny,
//! fast (a few ns per number) and its stream is fully specified by one line of arithmetic, so
//! anyone can check an iobench file without bitsift.

/// The SplitMix64 generator (Steele, Lea and Flood, 2014).
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose first output is the mix of `seed + 0x9E3779B97F4A7C15`.
    pub(crate) fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0), by Lemire's multiply-shift: no division, and a bias of at
    /// most `n / 2^64`, far below anything a benchmark can see.
    #[inline]
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// The seed of stream `stream` (a thread or a run) derived from the user's seed, so that
/// streams do not overlap in any way that matters.
pub(crate) fn stream_seed(seed: u64, stream: u64) -> u64 {
    SplitMix64::new(seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93)).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_first_output() {
        // The reference implementation's first output for seed 0.
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = SplitMix64::new(7);
        let mut seen = [false; 10];
        for _ in 0..1000 {
            let value = rng.below(10);
            assert!(value < 10);
            seen[value as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_ne!(stream_seed(1, 0), stream_seed(1, 1));
    }
}
