//! Building block summaries ([`crate::summary`]) during pass 2.
//!
//! A block's union of k-mers is unknown until all its documents are hashed, so its filter is
//! first sized for the worst case (every k-mer position distinct, within the memory limits),
//! filled from the seed-0 row hashes pass 2 computes anyway, and then folded to the size the
//! union needs: `bits_per_kmer` bits per distinct k-mer, estimated from the bits set, rounded
//! to a power of two (on a log scale, so within a factor √2). If the summaries of all blocks
//! exceed the RAM cap, the largest are halved until they fit.

use super::BuildError;
use crate::kmer::{BaseRule, Minimizers};
use crate::summary::file::SummaryFile;
use crate::summary::filter::{hashes_for, words_log2_near, SharedFilter, KEY_BITS, WORDS_LOG2_MAX};
use crate::summary::identity::{BlockSummary, IndexIdentity};

/// Default bits per distinct k-mer of a block summary (see BENCHMARKS.md, "block summaries":
/// at 4 bits, 3 bits per k-mer, a summary rules out nearly every block without a carrier at
/// t = 0.8, and more bits buy little).
pub const DEFAULT_BITS_PER_KMER: f64 = 4.0;
/// Default cap on the summaries of one index.
pub const DEFAULT_MAX_RAM: u64 = 1 << 30;
/// Bits per k-mer accepted.
pub(crate) const BITS_PER_KMER_RANGE: (f64, f64) = (0.1, 64.0);

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
    pub(crate) fn validate(&self) -> Result<(), BuildError> {
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

/// Slots buffered per fill task before they are inserted together.
const FEED_SLOTS: usize = 1 << 21;

/// One fill task's inserts into a block's filter, buffered and inserted in batches
/// ([`SharedFilter::insert_slots`]). Call [`flush`](Self::flush) at the end of every task.
pub(crate) struct SummaryFeed<'a> {
    filter: &'a SharedFilter,
    /// The filter is small enough to stay in cache: insert at once.
    direct: bool,
    slots: Vec<u64>,
    scratch: Vec<u64>,
    minimizers: Minimizers,
    /// The minimizer hash of every k-mer of the piece of sequence being fed.
    piece: Vec<u64>,
    /// The next k-mer of the piece.
    next: usize,
}

/// k-mer positions fed at a time: their minimizers are computed first, into a buffer of this
/// many words.
pub(crate) const FEED_PIECE_KMERS: usize = 1 << 16;

/// Filters up to this size are filled directly, without batching.
const DIRECT_BYTES: u64 = 2 << 20;

impl<'a> SummaryFeed<'a> {
    /// A feed into `filter` of the k-mers of an index of term size `k` and canonical flag
    /// `canonical`, placed by minimizers of `minimizer` bases.
    pub(crate) fn new(
        filter: &'a SharedFilter,
        k: u32,
        canonical: bool,
        minimizer: u32,
    ) -> SummaryFeed<'a> {
        SummaryFeed {
            filter,
            direct: filter.bytes() <= DIRECT_BYTES,
            slots: Vec::new(),
            scratch: Vec::new(),
            minimizers: Minimizers::new(k, minimizer, canonical, BaseRule::FoldCase),
            piece: Vec::with_capacity(FEED_PIECE_KMERS),
            next: 0,
        }
    }

    /// Starts feeding the k-mers of `sequence` (at most [`FEED_PIECE_KMERS`] of them), in
    /// order, with [`push_next`](Self::push_next).
    pub(crate) fn begin(&mut self, sequence: &[u8]) {
        self.piece.clear();
        self.next = 0;
        self.minimizers.minimizers_into(sequence, &mut self.piece);
    }

    /// Adds the next k-mer of the piece begun, whose seed-0 row hash is `hash`.
    #[inline]
    pub(crate) fn push_next(&mut self, hash: u64) {
        let minimizer = self.piece[self.next];
        self.next += 1;
        self.push(hash, minimizer);
    }

    /// Adds the k-mer whose seed-0 row hash is `hash` and minimizer hash `minimizer`.
    #[inline]
    pub(crate) fn push(&mut self, hash: u64, minimizer: u64) {
        let slot = self.filter.slot(hash, minimizer);
        if self.direct {
            self.filter.insert_slot(slot);
            return;
        }
        self.slots.push(slot);
        if self.slots.len() >= FEED_SLOTS {
            self.flush();
        }
    }

    /// Inserts everything buffered.
    pub(crate) fn flush(&mut self) {
        self.filter.insert_slots(&mut self.slots, &mut self.scratch);
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
    /// Minimizer length the filters' buckets are placed by.
    minimizer: u32,
    blocks: Vec<BlockSummary>,
}

/// `floor(log2(bytes / 8))`: the largest filter (in words) that fits `bytes`.
fn words_log2_within(bytes: u64) -> u32 {
    (bytes / 8).max(1).ilog2().min(WORDS_LOG2_MAX)
}

impl SummaryBuilder {
    /// Starts the summaries of an index whose k-mers place by minimizers of `minimizer`
    /// bases.
    pub(crate) fn new(options: SummaryOptions, minimizer: u32) -> SummaryBuilder {
        SummaryBuilder {
            hashes: hashes_for(options.bits_per_kmer),
            minimizer,
            options,
            blocks: Vec::new(),
        }
    }

    /// The minimizer length.
    pub(crate) fn minimizer(&self) -> u32 {
        self.minimizer
    }

    /// An empty filter for a block whose documents have `kmers` k-mer positions in all (at
    /// least its distinct k-mers), taking at most `memory_bytes`.
    pub(crate) fn start_block(&self, kmers: u64, memory_bytes: u64) -> SharedFilter {
        SharedFilter::new(
            self.start_words_log2(kmers, memory_bytes),
            KEY_BITS,
            self.hashes,
        )
    }

    fn start_words_log2(&self, kmers: u64, memory_bytes: u64) -> u32 {
        let worst = (kmers as f64 * self.options.bits_per_kmer / 64.0).max(1.0);
        (worst.log2().ceil() as u32)
            .min(words_log2_within(self.options.max_ram_bytes))
            .min(words_log2_within(memory_bytes))
    }

    /// Folds a filled block filter to its size and keeps it.
    pub(crate) fn finish_block(
        &mut self,
        filter: SharedFilter,
        first_document: u64,
        document_count: u64,
    ) {
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
    pub(crate) fn finish(mut self, identity: IndexIdentity) -> SummaryFile {
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
            minimizer: self.minimizer,
            blocks: self.blocks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kmer::{BaseRule, Minimizers};
    use crate::summary::filter::Probe;

    fn identity() -> IndexIdentity {
        IndexIdentity {
            k: 31,
            canonical: true,
            num_hashes: 1,
            documents: 3,
            fingerprint: 7,
            content: 0,
            checksums: 0,
        }
    }

    /// A DNA sequence of `len` bases (deterministic).
    fn genome(len: usize, seed: u64) -> Vec<u8> {
        (0..len as u64)
            .map(|i| b"ACGT"[(xxhash_rust::xxh64::xxh64(&i.to_le_bytes(), seed) % 4) as usize])
            .collect()
    }

    /// The seed-0 hash and minimizer of every k-mer of `sequence` (k = 31, canonical).
    fn kmers(sequence: &[u8]) -> Vec<(u64, u64)> {
        let mut hasher = crate::kmer::KmerHasher::new(31, true, 1, BaseRule::FoldCase);
        let mut hashes = Vec::new();
        hasher.hashes_into(sequence, &mut hashes);
        let mut minimizers = Vec::new();
        Minimizers::new(31, 13, true, BaseRule::FoldCase)
            .minimizers_into(sequence, &mut minimizers);
        hashes.into_iter().zip(minimizers).collect()
    }

    #[test]
    fn the_feed_inserts_every_k_mer() {
        let sequence = genome(200_000, 9);
        let all = kmers(&sequence);
        // A small filter is filled directly, a large one in batches.
        for words_log2 in [10, 22] {
            let filter = SharedFilter::new(words_log2, KEY_BITS, 2);
            for n in [0, 1, 1000, sequence.len()] {
                let mut feed = SummaryFeed::new(&filter, 31, true, 13);
                assert_eq!(feed.direct, words_log2 == 10);
                // In pieces, as the builder feeds a long sequence.
                let piece = &sequence[..n.min(sequence.len())];
                for chunk_start in (0..crate::kmer::kmer_count(piece.len(), 31)).step_by(777) {
                    let end = (chunk_start + 777).min(crate::kmer::kmer_count(piece.len(), 31));
                    feed.begin(&piece[chunk_start..end + 30]);
                    for &(hash, _) in &all[chunk_start..end] {
                        feed.push_next(hash);
                    }
                }
                feed.flush();
            }
            // A feed dropped without a flush inserts what it holds.
            let other = SharedFilter::new(words_log2, KEY_BITS, 2);
            {
                let mut feed = SummaryFeed::new(&other, 31, true, 13);
                for &(hash, minimizer) in &all[..500] {
                    feed.push(hash, minimizer);
                }
            }
            let filter = filter.into_filter();
            let other = other.into_filter();
            assert!(all
                .iter()
                .all(|&(h, m)| filter.contains(&Probe::new(h, m, 2))));
            assert!(all[..500]
                .iter()
                .all(|&(h, m)| other.contains(&Probe::new(h, m, 2))));
        }
    }

    #[test]
    fn filters_fold_to_the_union_and_fit_the_cap() {
        let options = SummaryOptions {
            bits_per_kmer: 4.0,
            max_ram_bytes: 1 << 20,
        };
        let mut builder = SummaryBuilder::new(options, 13);
        // 100,000 positions, of which 10,000 distinct: sized for 100,000, folded to ~10,000.
        let filter = builder.start_block(100_000, u64::MAX);
        assert_eq!(filter.bytes(), 8 << 13);
        let all = kmers(&genome(10_030, 0));
        for _ in 0..10 {
            for &(h, m) in &all {
                filter.insert(h, m);
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
        assert!(all
            .iter()
            .all(|&(h, m)| block.filter.contains(&Probe::new(h, m, file.hashes))));
        assert_eq!(file.blocks[1].filter.words().len(), 1);
        assert_eq!(file.minimizer, 13);

        // A cap of 1 KiB halves the largest filters, keeping every k-mer.
        let mut builder = SummaryBuilder::new(
            SummaryOptions {
                bits_per_kmer: 4.0,
                max_ram_bytes: 1024,
            },
            13,
        );
        let filter = builder.start_block(100_000, u64::MAX);
        assert_eq!(filter.into_filter().words().len(), 128);
        let filter = builder.start_block(100_000, u64::MAX);
        for &(h, m) in &all {
            filter.insert(h, m);
        }
        builder.finish_block(filter, 0, 3);
        let file = builder.finish(identity());
        assert!(file.blocks[0].filter.words().len() * 8 <= 1024);
        assert!(all
            .iter()
            .all(|&(h, m)| file.blocks[0]
                .filter
                .contains(&Probe::new(h, m, file.hashes))));
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
