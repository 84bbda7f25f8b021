//! The block summary filter: a word-blocked Bloom filter of a block's union of k-mers, laid
//! out by minimizer.
//!
//! Every k-mer sets (and is tested on) `h` bits within one 64-bit word, so an insert or a
//! probe is one memory access whatever `h`. A filter has `2^w` words in *fine buckets* of
//! `2^e` words ([`KEY_BITS`]): the top `w − e` bits of the k-mer's minimizer hash pick its
//! fine bucket, the low `e` bits of its key the word within it. So the k-mers of one gene,
//! which share few minimizers ([`crate::kmer::Minimizers`]), fall into few buckets, and a
//! summaries file that stores bucket `j` of every block side by side
//! ([`super::layout`]) answers a gene in a few pages. A filter with `e = w` has one bucket and
//! is the plain word-blocked filter of format 1 (the word is the key's low bits).
//!
//! A filter folds to half its size exactly: by OR-ing pairs of neighbouring fine buckets
//! (one minimizer bit fewer) while it has more than one, then by OR-ing the halves of its one
//! bucket (one key bit fewer). The result is exactly the filter that would have been built at
//! the smaller size, so the builder fills a generous filter and folds it to the size the
//! block's union needs once the union is known.
//!
//! The key of a k-mer is derived from its seed-0 row hash (`xxh64(term, 0)`, the first hash
//! [`crate::kmer::KmerHasher`] computes), remixed so that summary positions are independent of
//! the index's row positions (`hash mod rows`).

use std::sync::atomic::{AtomicU64, Ordering};

/// Most bits a k-mer sets in its word.
pub(crate) const HASHES_MAX: u32 = 6;
/// Most words of one block's filter (`2^WORDS_LOG2_MAX`): a filter position fits below the
/// top `6 · HASHES_MAX` bits of the key, which pick the bits within a word.
pub(crate) const WORDS_LOG2_MAX: u32 = 64 - 6 * HASHES_MAX;
/// Key bits of a position in a format-2 filter: fine buckets of `2^KEY_BITS` words (512
/// bits, ~128 k-mers at 4 bits each, ~12 minimizers: enough that the uneven sizes of
/// super-k-mers average out).
pub(crate) const KEY_BITS: u32 = 3;

const POSITION_MASK: u64 = (1 << WORDS_LOG2_MAX) - 1;

/// A prepared k-mer: its key, its minimizer and the bits it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    key: u64,
    minimizer: u64,
    mask: u64,
}

impl Probe {
    /// The probe of the k-mer whose seed-0 row hash is `hash` and whose minimizer hash is
    /// `minimizer` (any value for one-bucket filters), for filters of `hashes` bits per k-mer.
    pub(crate) fn new(hash: u64, minimizer: u64, hashes: u32) -> Probe {
        Probe::from_key(key_of(hash), minimizer, hashes)
    }

    /// The probe of a k-mer whose key (its remixed seed-0 row hash) is `key`.
    #[inline]
    pub(crate) fn from_key(key: u64, minimizer: u64, hashes: u32) -> Probe {
        debug_assert!((1..=HASHES_MAX).contains(&hashes));
        let mut mask = 0u64;
        for i in 0..hashes {
            mask |= 1 << ((key >> (58 - 6 * i)) & 63);
        }
        Probe {
            key,
            minimizer,
            mask,
        }
    }

    /// The word of this k-mer in a filter of `2^words_log2` words in fine buckets of
    /// `2^key_bits` words (`key_bits <= words_log2`).
    #[inline]
    pub(crate) fn position(&self, words_log2: u32, key_bits: u32) -> u64 {
        debug_assert!(key_bits <= words_log2 && words_log2 <= WORDS_LOG2_MAX);
        (self.bucket(words_log2 - key_bits) << key_bits) | (self.key & ((1u64 << key_bits) - 1))
    }

    /// The bucket of this k-mer among `2^bits` (the top bits of its minimizer hash).
    #[inline]
    pub(crate) fn bucket(&self, bits: u32) -> u64 {
        self.minimizer.checked_shr(64 - bits).unwrap_or(0)
    }

    /// The bits of its word this k-mer sets.
    #[inline]
    pub(crate) fn mask(&self) -> u64 {
        self.mask
    }

    /// The probe packed into one word for a filter of the given geometry: its position in
    /// the low bits, the key's top bits (which give the mask) above them.
    #[inline]
    fn slot(&self, words_log2: u32, key_bits: u32) -> u64 {
        (self.key & !POSITION_MASK) | self.position(words_log2, key_bits)
    }
}

/// The summary key of the k-mer whose seed-0 row hash is `hash`: SplitMix64's finaliser,
/// which decorrelates summary positions from the row positions of the same hash.
#[inline]
pub(crate) fn key_of(hash: u64) -> u64 {
    let mut z = hash ^ 0x5bd1_e995_9e37_79b9;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A filter being filled by several threads at once.
pub(crate) struct SharedFilter {
    words: Vec<AtomicU64>,
    words_log2: u32,
    key_bits: u32,
    hashes: u32,
}

impl SharedFilter {
    /// An empty filter of `2^words_log2` words in fine buckets of `2^min(key_bits,
    /// words_log2)` words, `hashes` bits per k-mer.
    pub(crate) fn new(words_log2: u32, key_bits: u32, hashes: u32) -> SharedFilter {
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
            key_bits: key_bits.min(words_log2),
            hashes,
        }
    }

    /// The probe of the k-mer with seed-0 row hash `hash` and minimizer hash `minimizer`,
    /// packed for [`insert_slot`](Self::insert_slot).
    #[inline]
    pub(crate) fn slot(&self, hash: u64, minimizer: u64) -> u64 {
        Probe::new(hash, minimizer, self.hashes).slot(self.words_log2, self.key_bits)
    }

    /// Adds the k-mer with seed-0 row hash `hash` and minimizer hash `minimizer`.
    #[inline]
    #[cfg(test)]
    pub(crate) fn insert(&self, hash: u64, minimizer: u64) {
        self.insert_slot(self.slot(hash, minimizer));
    }

    /// Adds the k-mer of `slot` ([`slot`](Self::slot)). Reads first and writes only missing
    /// bits: in a block of related genomes most k-mers are already there, and a plain read
    /// does not serialise the way an atomic read-modify-write does.
    #[inline]
    pub(crate) fn insert_slot(&self, slot: u64) {
        let mask = Probe::from_key(slot, 0, self.hashes).mask;
        let word = &self.words[(slot & POSITION_MASK) as usize];
        if word.load(Ordering::Relaxed) & mask != mask {
            word.fetch_or(mask, Ordering::Relaxed);
        }
    }

    /// Adds the k-mers of `slots`, grouped by the region of the filter they fall in so that
    /// each region is visited once while it is in cache (a random insert into a filter far
    /// larger than the cache costs a memory round trip). `scratch` is reused between calls;
    /// `slots` is left empty.
    pub(crate) fn insert_slots(&self, slots: &mut Vec<u64>, scratch: &mut Vec<u64>) {
        // Regions of 32 KiB (4096 words, within a core's L2), at most 4096 of them (the
        // scatter below then writes to at most 4096 places at once).
        let region_bits = self.words_log2.saturating_sub(12).min(12);
        let shift = self.words_log2 - region_bits;
        let region = |slot: u64| ((slot & POSITION_MASK) >> shift) as usize;
        let mut starts = vec![0usize; (1 << region_bits) + 1];
        for &slot in slots.iter() {
            starts[region(slot) + 1] += 1;
        }
        for r in 0..1 << region_bits {
            starts[r + 1] += starts[r];
        }
        scratch.clear();
        scratch.resize(slots.len(), 0);
        for &slot in slots.iter() {
            let at = &mut starts[region(slot)];
            scratch[*at] = slot;
            *at += 1;
        }
        for &slot in scratch.iter() {
            self.insert_slot(slot);
        }
        slots.clear();
    }

    /// Memory it takes.
    pub(crate) fn bytes(&self) -> u64 {
        8 << self.words_log2
    }

    /// The filled filter, for folding and writing.
    pub(crate) fn into_filter(self) -> Filter {
        Filter {
            words: self.words.into_iter().map(AtomicU64::into_inner).collect(),
            words_log2: self.words_log2,
            key_bits: self.key_bits,
            hashes: self.hashes,
        }
    }
}

/// A filter owned by one thread: folded, written, loaded and probed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Filter {
    words: Vec<u64>,
    words_log2: u32,
    key_bits: u32,
    hashes: u32,
}

impl Filter {
    /// A filter from its words (a power of two of them) in fine buckets of
    /// `2^min(key_bits, log2(words))` words (`key_bits >= log2(words)`: one bucket, the
    /// format-1 filter).
    pub(crate) fn from_words(words: Vec<u64>, key_bits: u32, hashes: u32) -> Filter {
        assert!(words.len().is_power_of_two(), "a filter has 2^n words");
        assert!(
            (1..=HASHES_MAX).contains(&hashes),
            "hash count out of range"
        );
        let words_log2 = words.len().trailing_zeros();
        Filter {
            words_log2,
            key_bits: key_bits.min(words_log2),
            words,
            hashes,
        }
    }

    /// `log2` of the words of a fine bucket.
    pub(crate) fn key_bits(&self) -> u32 {
        self.key_bits
    }

    /// The words.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// `log2` of the number of words.
    pub(crate) fn words_log2(&self) -> u32 {
        self.words_log2
    }

    /// Size in bits.
    #[cfg(test)]
    pub(crate) fn bits(&self) -> u64 {
        64 << self.words_log2
    }

    /// Halves the filter `times` times (see the module documentation); stops at one word.
    pub(crate) fn fold(&mut self, times: u32) {
        for _ in 0..times.min(self.words_log2) {
            if self.words_log2 > self.key_bits {
                self.fold_buckets();
            } else {
                let half = self.words.len() / 2;
                let (low, high) = self.words.split_at_mut(half);
                for (a, b) in low.iter_mut().zip(high.iter()) {
                    *a |= *b;
                }
                self.words.truncate(half);
                self.key_bits -= 1;
            }
            self.words_log2 -= 1;
        }
    }

    /// ORs each pair of neighbouring fine buckets into one (one minimizer bit fewer).
    fn fold_buckets(&mut self) {
        let bucket = 1usize << self.key_bits;
        for pair in 0..self.words.len() / (2 * bucket) {
            for x in 0..bucket {
                let (from, to) = (2 * pair * bucket + x, pair * bucket + x);
                self.words[to] = self.words[from] | self.words[from + bucket];
            }
        }
        self.words.truncate(self.words.len() / 2);
    }

    /// Whether the k-mer of `probe` may have been inserted (never false if it was).
    #[inline]
    pub(crate) fn contains(&self, probe: &Probe) -> bool {
        let position = probe.position(self.words_log2, self.key_bits);
        self.words[position as usize] & probe.mask == probe.mask
    }

    /// Estimated number of distinct k-mers inserted, from the fraction of bits set
    /// (`−(m/h) · ln(1 − set/m)`, Swamidass and Baldi), summed over fine buckets: k-mers
    /// arrive in buckets by minimizer, so some buckets hold several runs of k-mers and others
    /// none, and one estimate over the whole filter would count too few.
    pub(crate) fn estimated_kmers(&self) -> f64 {
        let bucket = 1usize << self.key_bits;
        let bits = (64 * bucket) as f64;
        self.words
            .chunks(bucket)
            .map(|words| {
                let set: u64 = words.iter().map(|w| w.count_ones() as u64).sum();
                let fraction = (set as f64 / bits).min(1.0 - 1.0 / bits);
                -(bits / self.hashes as f64) * (1.0 - fraction).ln()
            })
            .sum()
    }
}

/// Bits per k-mer set for a filter of `bits_per_kmer` bits per k-mer: `round(b · ln 2)`,
/// the Bloom optimum, within 1..=[`HASHES_MAX`].
pub(crate) fn hashes_for(bits_per_kmer: f64) -> u32 {
    ((bits_per_kmer * std::f64::consts::LN_2).round() as u32).clamp(1, HASHES_MAX)
}

/// `log2` of the number of 64-bit words nearest (on a log scale) to `bits` bits, at least 0.
pub(crate) fn words_log2_near(bits: f64) -> u32 {
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

    /// A minimizer hash for k-mer `i`: runs of ten k-mers share one, as in a sequence.
    fn minimizer(i: usize, seed: u64) -> u64 {
        xxhash_rust::xxh64::xxh64(&((i / 10) as u64).to_le_bytes(), seed + 100)
    }

    #[test]
    fn no_false_negatives_before_and_after_folding() {
        for key_bits in [KEY_BITS, 12] {
            let shared = SharedFilter::new(12, key_bits, 3);
            let inserted = hashes(20_000, 1);
            let probe = |i: usize| Probe::new(inserted[i], minimizer(i, 1), 3);
            for (i, &h) in inserted[..5_000].iter().enumerate() {
                shared.insert(h, minimizer(i, 1));
            }
            let mut slots: Vec<u64> = (5_000..inserted.len())
                .map(|i| shared.slot(inserted[i], minimizer(i, 1)))
                .collect();
            shared.insert_slots(&mut slots, &mut Vec::new());
            assert!(slots.is_empty());
            let mut filter = shared.into_filter();
            for times in 0..13 {
                let mut folded = filter.clone();
                folded.fold(times);
                assert_eq!(folded.words_log2(), 12 - times);
                assert!(folded.key_bits() <= folded.words_log2());
                assert!((0..inserted.len()).all(|i| folded.contains(&probe(i))));
            }
            // Folding equals building at the smaller size, for every fold.
            for times in [1, 3, 9, 10, 12] {
                let small = SharedFilter::new(12 - times, key_bits, 3);
                for (i, &h) in inserted.iter().enumerate() {
                    small.insert(h, minimizer(i, 1));
                }
                let mut folded = filter.clone();
                folded.fold(times);
                assert_eq!(
                    folded,
                    small.into_filter(),
                    "key bits {key_bits}, {times} folds"
                );
            }
            filter.fold(3);
        }
    }

    #[test]
    fn k_mers_sharing_a_minimizer_share_a_fine_bucket() {
        let filter = Filter::from_words(vec![0; 1 << 16], KEY_BITS, 3);
        let buckets = |n: usize| {
            let mut seen: Vec<u64> = (0..n)
                .map(|i| {
                    let probe = Probe::new(i as u64 * 77, minimizer(i, 5), 3);
                    probe.position(filter.words_log2(), filter.key_bits()) >> KEY_BITS
                })
                .collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len()
        };
        // 100 minimizers; a few may share a bucket of the 8,192.
        assert!((95..=100).contains(&buckets(1000)), "{}", buckets(1000));
    }

    #[test]
    fn false_positive_rate_and_estimate_follow_bits_per_kmer() {
        let n = 50_000u64;
        for (bits_per_kmer, fpr_max) in [(1.0, 0.70), (2.0, 0.45), (4.0, 0.20), (8.0, 0.05)] {
            let h = hashes_for(bits_per_kmer);
            let log2 = words_log2_near(n as f64 * bits_per_kmer);
            let shared = SharedFilter::new(log2, KEY_BITS, h);
            for (i, x) in hashes(n, 2).into_iter().enumerate() {
                shared.insert(x, minimizer(i, 2));
            }
            let filter = shared.into_filter();
            let absent = hashes(100_000, 3);
            let fp = absent
                .iter()
                .enumerate()
                .filter(|&(i, &x)| filter.contains(&Probe::new(x, minimizer(i, 3), h)))
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
