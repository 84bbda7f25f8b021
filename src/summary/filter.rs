//! The block summary filter: a word-blocked Bloom filter of a block's union of k-mers.
//!
//! Every k-mer sets (and is tested on) `h` bits within one 64-bit word, so an insert or a
//! probe is one memory access whatever `h`. The filter has a power-of-two number of words and
//! the word of a k-mer is the low bits of its key, so a filter folds to half its size by
//! OR-ing its two halves: the result is exactly the filter that would have been built at the
//! smaller size. The builder therefore fills a generous filter and folds it to the size the
//! block's union needs once the union is known.
//!
//! The key of a k-mer is derived from its seed-0 row hash (`xxh64(term, 0)`, the first hash
//! [`crate::kmer::KmerHasher`] computes), remixed so that summary positions are independent of
//! the index's row positions (`hash mod rows`).

use std::sync::atomic::{AtomicU64, Ordering};

/// Most bits a k-mer sets in its word.
pub const HASHES_MAX: u32 = 6;
/// Most words of one block's filter (`2^WORDS_LOG2_MAX`): the key's low bits pick the word,
/// its top `6 · HASHES_MAX` bits the bits within it.
pub const WORDS_LOG2_MAX: u32 = 64 - 6 * HASHES_MAX;

/// A prepared k-mer: the word key and the bits it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    key: u64,
    mask: u64,
}

impl Probe {
    /// The probe of the k-mer whose seed-0 row hash is `hash`, for filters of `hashes` bits
    /// per k-mer.
    pub fn new(hash: u64, hashes: u32) -> Probe {
        Probe::from_key(key_of(hash), hashes)
    }

    /// The probe of a k-mer whose key (its remixed seed-0 row hash) is `key`.
    #[inline]
    pub fn from_key(key: u64, hashes: u32) -> Probe {
        debug_assert!((1..=HASHES_MAX).contains(&hashes));
        let mut mask = 0u64;
        for i in 0..hashes {
            mask |= 1 << ((key >> (58 - 6 * i)) & 63);
        }
        Probe { key, mask }
    }

    /// The word of this k-mer in a filter of `2^words_log2` words.
    #[inline]
    pub fn word(&self, words_log2: u32) -> usize {
        (self.key & ((1u64 << words_log2) - 1)) as usize
    }

    /// The bits of its word this k-mer sets.
    #[inline]
    pub fn mask(&self) -> u64 {
        self.mask
    }
}

/// The summary key of the k-mer whose seed-0 row hash is `hash`: SplitMix64's finaliser,
/// which decorrelates summary positions from the row positions of the same hash.
#[inline]
pub fn key_of(hash: u64) -> u64 {
    let mut z = hash ^ 0x5bd1_e995_9e37_79b9;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A filter being filled by several threads at once.
pub struct SharedFilter {
    words: Vec<AtomicU64>,
    words_log2: u32,
    hashes: u32,
}

impl SharedFilter {
    /// An empty filter of `2^words_log2` words, `hashes` bits per k-mer.
    pub fn new(words_log2: u32, hashes: u32) -> SharedFilter {
        assert!(words_log2 <= WORDS_LOG2_MAX, "filter too large");
        assert!(
            (1..=HASHES_MAX).contains(&hashes),
            "hash count out of range"
        );
        SharedFilter {
            words: (0..1usize << words_log2)
                .map(|_| AtomicU64::new(0))
                .collect(),
            words_log2,
            hashes,
        }
    }

    /// Adds the k-mer whose seed-0 row hash is `hash`.
    #[inline]
    pub fn insert(&self, hash: u64) {
        self.insert_key(key_of(hash));
    }

    /// Adds the k-mer whose key ([`key_of`]) is `key`. Reads first and writes only missing
    /// bits: in a block of related genomes most k-mers are already there, and a plain read
    /// does not serialise the way an atomic read-modify-write does.
    #[inline]
    pub fn insert_key(&self, key: u64) {
        let probe = Probe::from_key(key, self.hashes);
        let word = &self.words[probe.word(self.words_log2)];
        if word.load(Ordering::Relaxed) & probe.mask != probe.mask {
            word.fetch_or(probe.mask, Ordering::Relaxed);
        }
    }

    /// Adds the k-mers of `keys`, grouped by the region of the filter they fall in so that
    /// each region is visited once while it is in cache (a random insert into a filter far
    /// larger than the cache costs a memory round trip). `scratch` is reused between calls;
    /// `keys` is left empty.
    pub fn insert_keys(&self, keys: &mut Vec<u64>, scratch: &mut Vec<u64>) {
        // Regions of 32 KiB (4096 words, within a core's L2), at most 4096 of them (the
        // scatter below then writes to at most 4096 places at once).
        let region_bits = self.words_log2.saturating_sub(12).min(12);
        let shift = self.words_log2 - region_bits;
        let region = |key: u64| ((key & ((1u64 << self.words_log2) - 1)) >> shift) as usize;
        let mut starts = vec![0usize; (1 << region_bits) + 1];
        for &key in keys.iter() {
            starts[region(key) + 1] += 1;
        }
        for r in 0..1 << region_bits {
            starts[r + 1] += starts[r];
        }
        scratch.clear();
        scratch.resize(keys.len(), 0);
        for &key in keys.iter() {
            let slot = &mut starts[region(key)];
            scratch[*slot] = key;
            *slot += 1;
        }
        for &key in scratch.iter() {
            self.insert_key(key);
        }
        keys.clear();
    }

    /// Memory it takes.
    pub fn bytes(&self) -> u64 {
        8 << self.words_log2
    }

    /// The filled filter, for folding and writing.
    pub fn into_filter(self) -> Filter {
        Filter {
            words: self.words.into_iter().map(AtomicU64::into_inner).collect(),
            words_log2: self.words_log2,
            hashes: self.hashes,
        }
    }
}

/// A filter owned by one thread: folded, written, loaded and probed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    words: Vec<u64>,
    words_log2: u32,
    hashes: u32,
}

impl Filter {
    /// A filter from its words (a power of two of them).
    pub fn from_words(words: Vec<u64>, hashes: u32) -> Filter {
        assert!(words.len().is_power_of_two(), "a filter has 2^n words");
        assert!(
            (1..=HASHES_MAX).contains(&hashes),
            "hash count out of range"
        );
        Filter {
            words_log2: words.len().trailing_zeros(),
            words,
            hashes,
        }
    }

    /// The words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// `log2` of the number of words.
    pub fn words_log2(&self) -> u32 {
        self.words_log2
    }

    /// Bits set per k-mer.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// Size in bits.
    pub fn bits(&self) -> u64 {
        64 << self.words_log2
    }

    /// Halves the filter `times` times (OR of halves); stops at one word.
    pub fn fold(&mut self, times: u32) {
        for _ in 0..times.min(self.words_log2) {
            let half = self.words.len() / 2;
            let (low, high) = self.words.split_at_mut(half);
            for (a, b) in low.iter_mut().zip(high.iter()) {
                *a |= *b;
            }
            self.words.truncate(half);
            self.words_log2 -= 1;
        }
    }

    /// Whether the k-mer of `probe` may have been inserted (never false if it was).
    #[inline]
    pub fn contains(&self, probe: &Probe) -> bool {
        self.words[probe.word(self.words_log2)] & probe.mask == probe.mask
    }

    /// Estimated number of distinct k-mers inserted, from the fraction of bits set
    /// (`−(m/h) · ln(1 − set/m)`, Swamidass and Baldi).
    pub fn estimated_kmers(&self) -> f64 {
        let set: u64 = self.words.iter().map(|w| w.count_ones() as u64).sum();
        let bits = self.bits() as f64;
        let fraction = (set as f64 / bits).min(1.0 - 1.0 / bits);
        -(bits / self.hashes as f64) * (1.0 - fraction).ln()
    }
}

/// Bits per k-mer set for a filter of `bits_per_kmer` bits per k-mer: `round(b · ln 2)`,
/// the Bloom optimum, within 1..=[`HASHES_MAX`].
pub fn hashes_for(bits_per_kmer: f64) -> u32 {
    ((bits_per_kmer * std::f64::consts::LN_2).round() as u32).clamp(1, HASHES_MAX)
}

/// `log2` of the number of 64-bit words nearest (on a log scale) to `bits` bits, at least 0.
pub fn words_log2_near(bits: f64) -> u32 {
    let words = (bits / 64.0).max(1.0);
    (words.log2().round() as u32).min(WORDS_LOG2_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes(n: u64, seed: u64) -> Vec<u64> {
        (0..n)
            .map(|i| xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), seed))
            .collect()
    }

    #[test]
    fn no_false_negatives_before_and_after_folding() {
        let shared = SharedFilter::new(12, 3);
        let inserted = hashes(20_000, 1);
        for &h in &inserted[..5_000] {
            shared.insert(h);
        }
        let mut keys: Vec<u64> = inserted[5_000..].iter().map(|&h| key_of(h)).collect();
        shared.insert_keys(&mut keys, &mut Vec::new());
        assert!(keys.is_empty());
        let mut filter = shared.into_filter();
        for times in 0..13 {
            let mut folded = filter.clone();
            folded.fold(times);
            assert_eq!(folded.words_log2(), 12 - times);
            assert!(inserted.iter().all(|&h| folded.contains(&Probe::new(h, 3))));
        }
        // Folding equals building at the smaller size.
        let small = SharedFilter::new(9, 3);
        for &h in &inserted {
            small.insert(h);
        }
        filter.fold(3);
        assert_eq!(filter, small.into_filter());
    }

    #[test]
    fn false_positive_rate_and_estimate_follow_bits_per_kmer() {
        let n = 50_000u64;
        for (bits_per_kmer, fpr_max) in [(1.0, 0.70), (2.0, 0.45), (4.0, 0.20), (8.0, 0.05)] {
            let h = hashes_for(bits_per_kmer);
            let log2 = words_log2_near(n as f64 * bits_per_kmer);
            let shared = SharedFilter::new(log2, h);
            for x in hashes(n, 2) {
                shared.insert(x);
            }
            let filter = shared.into_filter();
            let absent = hashes(100_000, 3);
            let fp = absent
                .iter()
                .filter(|&&x| filter.contains(&Probe::new(x, h)))
                .count() as f64
                / absent.len() as f64;
            let actual_bits = filter.bits() as f64 / n as f64;
            assert!(
                fp < fpr_max,
                "{bits_per_kmer} bits ({actual_bits:.2}): fpr {fp}"
            );
            assert!(fp > 0.0);
            let estimate = filter.estimated_kmers();
            assert!(
                (estimate / n as f64 - 1.0).abs() < 0.15,
                "{bits_per_kmer}: estimate {estimate}"
            );
        }
    }

    #[test]
    fn sizes_and_hash_counts() {
        assert_eq!(hashes_for(0.5), 1);
        assert_eq!(hashes_for(2.0), 1);
        assert_eq!(hashes_for(4.0), 3);
        assert_eq!(hashes_for(100.0), HASHES_MAX);
        assert_eq!(words_log2_near(64.0), 0);
        assert_eq!(words_log2_near(1.0), 0);
        assert_eq!(words_log2_near(64.0 * 1024.0), 10);
        assert_eq!(words_log2_near(64.0 * 1400.0), 10);
        assert_eq!(words_log2_near(64.0 * 1500.0), 11);
    }
}
