//! Building block summaries ([`crate::summary`]) during pass 2.
//!
//! A block's union of k-mers is unknown until all its documents are hashed, so its filter is
//! first sized for the worst case (every k-mer position distinct, within the memory limits),
//! filled from the seed-0 row hashes pass 2 computes anyway, and then folded to the size the
//! union needs: `bits_per_kmer` bits per distinct k-mer, estimated from the bits set, rounded
//! to a power of two (on a log scale, so within a factor √2). If the summaries of all blocks
//! exceed the RAM cap, the largest are halved until they fit.

use super::BuildError;
use crate::summary::file::{BlockSummary, IndexIdentity, SummaryFile};
use crate::summary::filter::{hashes_for, key_of, words_log2_near, SharedFilter, WORDS_LOG2_MAX};

/// Default bits per distinct k-mer of a block summary (see BENCHMARKS.md, "block summaries":
/// at 4 bits, 3 bits per k-mer, a summary rules out nearly every block without a carrier at
/// t = 0.8, and more bits buy little).
pub const DEFAULT_BITS_PER_KMER: f64 = 4.0;
/// Default cap on the summaries of one index.
pub const DEFAULT_MAX_RAM: u64 = 1 << 30;
/// Bits per k-mer accepted.
pub const BITS_PER_KMER_RANGE: (f64, f64) = (0.1, 64.0);

/// How block summaries are sized.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SummaryOptions {
    /// Filter bits per distinct k-mer of a block.
    pub bits_per_kmer: f64,
    /// Most bytes the summaries of the index may take (in memory and on disk).
    pub max_ram_bytes: u64,
}

impl Default for SummaryOptions {
    fn default() -> Self {
        SummaryOptions {
            bits_per_kmer: DEFAULT_BITS_PER_KMER,
            max_ram_bytes: DEFAULT_MAX_RAM,
        }
    }
}

impl SummaryOptions {
    /// Checks the ranges.
    pub fn validate(&self) -> Result<(), BuildError> {
        let (lo, hi) = BITS_PER_KMER_RANGE;
        if !(lo..=hi).contains(&self.bits_per_kmer) {
            return Err(BuildError::Invalid(format!(
                "summary bits per k-mer {} is out of range ({lo} to {hi})",
                self.bits_per_kmer
            )));
        }
        if self.max_ram_bytes < 8 {
            return Err(BuildError::Invalid(
                "the summaries' memory cap must be at least 8 bytes".into(),
            ));
        }
        Ok(())
    }
}

/// Keys buffered per fill task before they are inserted together.
const FEED_KEYS: usize = 1 << 21;

/// One fill task's inserts into a block's filter, buffered and inserted in batches
/// ([`SharedFilter::insert_keys`]). Call [`flush`](Self::flush) at the end of every task.
pub(crate) struct SummaryFeed<'a> {
    filter: &'a SharedFilter,
    /// The filter is small enough to stay in cache: insert at once.
    direct: bool,
    keys: Vec<u64>,
    scratch: Vec<u64>,
}

/// Filters up to this size are filled directly, without batching.
const DIRECT_BYTES: u64 = 2 << 20;

impl<'a> SummaryFeed<'a> {
    /// A feed into `filter`.
    pub fn new(filter: &'a SharedFilter) -> SummaryFeed<'a> {
        SummaryFeed {
            filter,
            direct: filter.bytes() <= DIRECT_BYTES,
            keys: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Adds the k-mer whose seed-0 row hash is `hash`.
    #[inline]
    pub fn push(&mut self, hash: u64) {
        if self.direct {
            self.filter.insert(hash);
            return;
        }
        self.keys.push(key_of(hash));
        if self.keys.len() >= FEED_KEYS {
            self.flush();
        }
    }

    /// Inserts everything buffered.
    pub fn flush(&mut self) {
        self.filter.insert_keys(&mut self.keys, &mut self.scratch);
    }
}

impl Drop for SummaryFeed<'_> {
    fn drop(&mut self) {
        // Tasks flush as they end; this only guards against a key being left behind (a k-mer
        // missing from its summary). The filter outlives every feed borrowing it.
        self.flush();
    }
}

/// Summaries of the blocks built so far.
pub(crate) struct SummaryBuilder {
    options: SummaryOptions,
    hashes: u32,
    blocks: Vec<BlockSummary>,
}

/// `floor(log2(bytes / 8))`: the largest filter (in words) that fits `bytes`.
fn words_log2_within(bytes: u64) -> u32 {
    (bytes / 8).max(1).ilog2().min(WORDS_LOG2_MAX)
}

impl SummaryBuilder {
    /// Starts the summaries of an index.
    pub fn new(options: SummaryOptions) -> SummaryBuilder {
        SummaryBuilder {
            hashes: hashes_for(options.bits_per_kmer),
            options,
            blocks: Vec::new(),
        }
    }

    /// An empty filter for a block whose documents have `kmers` k-mer positions in all (at
    /// least its distinct k-mers), taking at most `memory_bytes`.
    pub fn start_block(&self, kmers: u64, memory_bytes: u64) -> SharedFilter {
        SharedFilter::new(self.start_words_log2(kmers, memory_bytes), self.hashes)
    }

    fn start_words_log2(&self, kmers: u64, memory_bytes: u64) -> u32 {
        let worst = (kmers as f64 * self.options.bits_per_kmer / 64.0).max(1.0);
        (worst.log2().ceil() as u32)
            .min(words_log2_within(self.options.max_ram_bytes))
            .min(words_log2_within(memory_bytes))
    }

    /// Folds a filled block filter to its size and keeps it.
    pub fn finish_block(&mut self, filter: SharedFilter, first_document: u64, document_count: u64) {
        let mut filter = filter.into_filter();
        let kmers = filter.estimated_kmers();
        let wanted = words_log2_near(kmers * self.options.bits_per_kmer);
        filter.fold(filter.words_log2().saturating_sub(wanted));
        self.blocks.push(BlockSummary {
            first_document,
            document_count,
            kmers_estimate: kmers.round() as u64,
            filter,
        });
    }

    /// The summaries file, the largest filters halved until all fit the RAM cap.
    pub fn finish(mut self, identity: IndexIdentity) -> SummaryFile {
        let total = |blocks: &[BlockSummary]| -> u64 {
            blocks
                .iter()
                .map(|b| 8 * b.filter.words().len() as u64)
                .sum()
        };
        while total(&self.blocks) > self.options.max_ram_bytes {
            let Some(largest) = self
                .blocks
                .iter_mut()
                .filter(|b| b.filter.words_log2() > 0)
                .max_by_key(|b| b.filter.words_log2())
            else {
                break;
            };
            largest.filter.fold(1);
        }
        SummaryFile {
            identity,
            hashes: self.hashes,
            blocks: self.blocks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::filter::Probe;

    fn identity() -> IndexIdentity {
        IndexIdentity {
            k: 31,
            canonical: true,
            num_hashes: 1,
            documents: 3,
            fingerprint: 7,
        }
    }

    #[test]
    fn the_feed_inserts_every_k_mer() {
        let hashes: Vec<u64> = (0..300_000u64)
            .map(|i| xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 9))
            .collect();
        // A small filter is filled directly, a large one in batches.
        for words_log2 in [10, 22] {
            let filter = SharedFilter::new(words_log2, 2);
            for n in [0, 1, 1000, hashes.len()] {
                let mut feed = SummaryFeed::new(&filter);
                assert_eq!(feed.direct, words_log2 == 10);
                for &h in &hashes[..n] {
                    feed.push(h);
                }
                feed.flush();
            }
            // A feed dropped without a flush inserts what it holds.
            let other = SharedFilter::new(words_log2, 2);
            {
                let mut feed = SummaryFeed::new(&other);
                for &h in &hashes[..500] {
                    feed.push(h);
                }
            }
            let filter = filter.into_filter();
            let other = other.into_filter();
            assert!(hashes.iter().all(|&h| filter.contains(&Probe::new(h, 2))));
            assert!(hashes[..500]
                .iter()
                .all(|&h| other.contains(&Probe::new(h, 2))));
        }
    }

    #[test]
    fn filters_fold_to_the_union_and_fit_the_cap() {
        let options = SummaryOptions {
            bits_per_kmer: 4.0,
            max_ram_bytes: 1 << 20,
        };
        let mut builder = SummaryBuilder::new(options);
        // 100,000 positions, of which 10,000 distinct: sized for 100,000, folded to ~10,000.
        let filter = builder.start_block(100_000, u64::MAX);
        assert_eq!(filter.bytes(), 8 << 13);
        let hashes: Vec<u64> = (0..10_000u64)
            .map(|i| xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), 0))
            .collect();
        for _ in 0..10 {
            for &h in &hashes {
                filter.insert(h);
            }
        }
        builder.finish_block(filter, 0, 2);
        // Memory limits bound the starting size.
        assert_eq!(builder.start_block(100_000, 4096).bytes(), 4096);
        let small = builder.start_block(10, u64::MAX);
        builder.finish_block(small, 2, 1);
        let file = builder.finish(identity());
        let block = &file.blocks[0];
        assert!(
            (9_000..11_000).contains(&block.kmers_estimate),
            "{}",
            block.kmers_estimate
        );
        let bits = block.filter.bits() as f64 / 10_000.0;
        assert!((4.0 / 1.5..=4.0 * 1.5).contains(&bits), "{bits}");
        assert!(hashes
            .iter()
            .all(|&h| block.filter.contains(&Probe::new(h, file.hashes))));
        assert_eq!(file.blocks[1].filter.words().len(), 1);

        // A cap of 1 KiB halves the largest filters, keeping every k-mer.
        let mut builder = SummaryBuilder::new(SummaryOptions {
            bits_per_kmer: 4.0,
            max_ram_bytes: 1024,
        });
        let filter = builder.start_block(100_000, u64::MAX);
        assert_eq!(filter.into_filter().words().len(), 128);
        let filter = builder.start_block(100_000, u64::MAX);
        for &h in &hashes {
            filter.insert(h);
        }
        builder.finish_block(filter, 0, 3);
        let file = builder.finish(identity());
        assert!(file.blocks[0].filter.words().len() * 8 <= 1024);
        assert!(hashes
            .iter()
            .all(|&h| file.blocks[0].filter.contains(&Probe::new(h, file.hashes))));
    }

    #[test]
    fn options_are_checked() {
        assert!(SummaryOptions::default().validate().is_ok());
        for bits in [0.0, 0.05, 65.0, f64::NAN] {
            let o = SummaryOptions {
                bits_per_kmer: bits,
                ..SummaryOptions::default()
            };
            assert!(o.validate().is_err(), "{bits}");
        }
    }
}
