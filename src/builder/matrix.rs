//! Pass 2 of a build: setting the Bloom filter bits of one group of byte columns of a block.
//!
//! A block's matrix has `rows` rows of `page_size` bytes; document `p` of the block is bit
//! `p mod 8` of byte column `p / 8`. A *group* is a range of byte columns whose sub-matrix
//! (`rows × width` bytes, row-major) fits the memory budget; a block that fits is one group.
//!
//! With one document per file, each byte column (8 documents) is one task: its documents are
//! hashed into a private column of `rows` bytes, which is then stored into the sub-matrix.
//! Tasks own disjoint columns, so the stores never race, and the random accesses go to a
//! column that is 8× smaller than the sub-matrix. With one document per record, records of
//! many columns share a file, so each file is one task that ORs bits into the sub-matrix with
//! relaxed atomic operations.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};

use rayon::prelude::*;
use xxhash_rust::xxh64::xxh64;

use super::scan::Document;
use super::summaries::{SummaryFeed, FEED_PIECE_KMERS};
use super::{BuildError, Progress};
use crate::alphabet::BaseReading;
use crate::doclist::DocumentEntry;
use crate::format::{RowLayout, RowMap};
use crate::kmer::{BaseRule, KmerHasher, Minimizers};
use crate::seqfile::{SeqReader, SeqRecord};
use crate::summary::filter::SharedFilter;

/// What the fill of one block needs to know.
pub(crate) struct BlockFill<'a> {
    /// Input files, indexed by [`Document::source`].
    pub files: &'a [PathBuf],
    /// The block's documents in block order.
    pub documents: &'a [Document],
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions.
    pub num_hashes: u32,
    /// Rows of the block.
    pub rows: u64,
    /// Where a k-mer's rows lie.
    pub layout: RowLayout,
    /// One document per record (rather than per file).
    pub per_record: bool,
    /// The block's summary filter, fed every k-mer's seed-0 row hash and minimizer.
    pub summary: Option<&'a SharedFilter>,
    /// Minimizer length of the summary's buckets.
    pub minimizer: u32,
    /// With a COBS document list: its entries, indexed by [`Document::source`], whose terms
    /// are read as COBS reads them and hashed by COBS's byte rule.
    pub entries: Option<&'a [DocumentEntry]>,
}

/// Views a byte slice as atomics so that parallel tasks may store into it.
fn as_atomic(bytes: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the size and alignment of u8, and the exclusive borrow guarantees
    // that no non-atomic access happens while the atomic view lives.
    unsafe { &*(bytes as *mut [u8] as *const [AtomicU8]) }
}

/// Where a fill sets its bits: byte columns `columns` of a matrix of rows of `stride` bytes,
/// column `c` at byte `c − columns.start` of each row, stored into by parallel tasks.
struct Target<'m> {
    columns: Range<usize>,
    stride: usize,
    matrix: &'m [AtomicU8],
}

impl Target<'_> {
    /// The byte at `local` of row `row`.
    fn cell(&self, row: usize, local: usize) -> &AtomicU8 {
        &self.matrix[row * self.stride + local]
    }
}

impl BlockFill<'_> {
    /// Sets the bits of byte columns `columns` into `matrix`: `rows` rows of `stride` bytes
    /// (zeroed by the caller), column `c` at byte `c − columns.start` of each row.
    pub(crate) fn fill(
        &self,
        columns: Range<usize>,
        stride: usize,
        matrix: &mut [u8],
        progress: &Progress,
    ) -> Result<(), BuildError> {
        assert!(
            columns.len() <= stride,
            "the columns must fit the row stride"
        );
        assert_eq!(
            matrix.len() as u64,
            self.rows * stride as u64,
            "matrix size"
        );
        let target = Target {
            columns,
            stride,
            matrix: as_atomic(matrix),
        };
        if self.per_record && self.entries.is_none() {
            self.fill_by_file(target, progress)
        } else {
            self.fill_by_column(target, progress)
        }
    }

    fn rule(&self) -> BaseRule {
        match self.entries {
            Some(_) => BaseRule::Cobs,
            None => BaseRule::FoldCase,
        }
    }

    fn hasher(&self) -> KmerHasher {
        KmerHasher::new(self.k, self.canonical, self.num_hashes, self.rule())
    }

    /// Where this task puts k-mers: the block's row map and, for the minimizer layout, the
    /// minimizers of the terms as the hasher forms them.
    fn placer(&self) -> Placer {
        let map = RowMap::new(self.layout, self.rows);
        let minimizers = self
            .layout
            .minimizer_length()
            .map(|m| Minimizers::new(self.k, m, self.canonical, self.rule()));
        let shared = self.summary.is_some()
            && self.entries.is_none()
            && self.layout.minimizer_length() == Some(self.minimizer);
        Placer {
            map,
            minimizers,
            piece: Vec::new(),
            shared,
        }
    }

    fn feed<'f>(&self, filter: &'f SharedFilter) -> SummaryFeed<'f> {
        SummaryFeed::new(filter, self.k, self.canonical, self.minimizer)
    }

    fn fill_by_column(&self, target: Target<'_>, progress: &Progress) -> Result<(), BuildError> {
        let first_column = target.columns.start;
        target.columns.clone().into_par_iter().try_for_each_init(
            || {
                (
                    vec![0u8; self.rows as usize],
                    (self.hasher(), self.placer()),
                    SeqRecord::default(),
                    self.summary.map(|f| self.feed(f)),
                )
            },
            |(column, kmers, record, feed), byte_column| {
                column.fill(0);
                let base = column.as_ptr();
                let first = byte_column * 8;
                let last = (first + 8).min(self.documents.len());
                for (bit, document) in self.documents[first..last].iter().enumerate() {
                    let mut add =
                        |kmers: &mut (KmerHasher, Placer), run: &[u8], feed: Option<&mut _>| {
                            set_bits(
                                kmers,
                                run,
                                1 << bit,
                                feed,
                                |row| prefetch_byte(base.wrapping_add(row)),
                                |row, bit| column[row] |= bit,
                            )
                        };
                    if let Some(entries) = self.entries {
                        // A COBS document: its terms as COBS reads them.
                        entries[document.source as usize]
                            .for_each_run(self.k as usize, &mut |run| {
                                add(kmers, run, feed.as_mut())
                            })?;
                    } else {
                        let path = &self.files[document.source as usize];
                        let mut reader = SeqReader::open(path)?;
                        while reader.next_bases_into(record, BaseReading::Standard)? {
                            add(kmers, &record.sequence, feed.as_mut());
                        }
                    }
                    progress.document_done(document.kmers)?;
                }
                if let Some(feed) = feed {
                    feed.flush();
                }
                let local = byte_column - first_column;
                for (row, &byte) in column.iter().enumerate() {
                    if byte != 0 {
                        target.cell(row, local).store(byte, Ordering::Relaxed);
                    }
                }
                Ok(())
            },
        )
    }

    fn fill_by_file(&self, target: Target<'_>, progress: &Progress) -> Result<(), BuildError> {
        let columns = &target.columns;
        // Per source file: (record, local byte column, bit), sorted by record.
        let mut wanted: Vec<(u32, u64, usize, u8)> = Vec::new();
        let first = columns.start * 8;
        let last = (columns.end * 8).min(self.documents.len());
        for (position, document) in self.documents[first..last].iter().enumerate() {
            let slot = first + position;
            wanted.push((
                document.source,
                document.record.unwrap_or(0),
                slot / 8 - columns.start,
                1 << (slot % 8),
            ));
        }
        wanted.sort_unstable();
        let by_file: Vec<&[(u32, u64, usize, u8)]> = wanted.chunk_by(|a, b| a.0 == b.0).collect();
        by_file.into_par_iter().try_for_each_init(
            || {
                (
                    (self.hasher(), self.placer()),
                    SeqRecord::default(),
                    self.summary.map(|f| self.feed(f)),
                )
            },
            |(kmers, record, feed), entries| {
                let path = &self.files[entries[0].0 as usize];
                let mut reader = SeqReader::open(path)?;
                let base = target.matrix.as_ptr();
                let mut next = entries.iter().peekable();
                let mut index = 0u64;
                while let Some(&&(_, wanted_record, local, bit)) = next.peek() {
                    if !reader.next_bases_into(record, BaseReading::Standard)? {
                        return Err(BuildError::Input {
                            path: path.clone(),
                            detail: format!(
                                "has fewer records than when it was first read (record {wanted_record} is gone); was it modified during the build?"
                            ),
                        });
                    }
                    if index == wanted_record {
                        set_bits(
                            kmers,
                            &record.sequence,
                            bit,
                            feed.as_mut(),
                            |row| prefetch_byte(base.wrapping_add(row * target.stride + local)),
                            |row, bit| {
                                target.cell(row, local).fetch_or(bit, Ordering::Relaxed);
                            },
                        );
                        progress.document_done(crate::kmer::kmer_count(
                            record.sequence.len(),
                            self.k as usize,
                        ) as u64)?;
                        next.next();
                    }
                    index += 1;
                }
                if let Some(feed) = feed {
                    feed.flush();
                }
                Ok(())
            },
        )
    }
}

/// Rows located before their bits are set: a random byte of a column of millions of rows
/// misses the caches, and locating a batch first (with a prefetch of each row) keeps that
/// many loads in flight instead of one.
const SET_BATCH: usize = 32;

/// Where a task puts k-mers: the block's row map, and for the minimizer layout the
/// minimizers of the piece of sequence being set (shared with the summary feed when it
/// places k-mers by the same minimizers).
struct Placer {
    map: RowMap,
    minimizers: Option<Minimizers>,
    /// The minimizer hash of every k-mer of the piece.
    piece: Vec<u64>,
    /// The summary feed takes its minimizers from `piece` instead of computing them again.
    shared: bool,
}

/// Calls `set(row, bit)` for every hash of every k-mer of `sequence`, and feeds every k-mer
/// to the block's summary (by its seed-0 hash and minimizer). Rows are located in batches of
/// [`SET_BATCH`], each announced to `prefetch` before any of them is set. When rows or the
/// summary need minimizers, the sequence goes in pieces of [`FEED_PIECE_KMERS`] k-mers, the
/// minimizers of each computed first.
#[inline]
fn set_bits(
    (hasher, placer): &mut (KmerHasher, Placer),
    sequence: &[u8],
    bit: u8,
    mut summary: Option<&mut SummaryFeed>,
    prefetch: impl Fn(usize),
    mut set: impl FnMut(usize, u8),
) {
    if summary.is_none() && placer.minimizers.is_none() {
        return set_rows(hasher, placer, sequence, bit, None, &prefetch, &mut set);
    }
    let k = hasher.k();
    let kmers = crate::kmer::kmer_count(sequence.len(), k);
    let mut start = 0;
    while start < kmers {
        let end = (start + FEED_PIECE_KMERS).min(kmers);
        let piece = &sequence[start..end + k - 1];
        placer.piece.clear();
        if let Some(minimizers) = placer.minimizers.as_mut() {
            minimizers.minimizers_into(piece, &mut placer.piece);
        }
        if let Some(feed) = summary.as_mut().filter(|_| !placer.shared) {
            feed.begin(piece);
        }
        set_rows(
            hasher,
            placer,
            piece,
            bit,
            summary.as_deref_mut(),
            &prefetch,
            &mut set,
        );
        start = end;
    }
}

/// [`set_bits`] for one piece of sequence, its minimizers computed.
#[inline]
fn set_rows(
    hasher: &mut KmerHasher,
    placer: &Placer,
    sequence: &[u8],
    bit: u8,
    mut summary: Option<&mut SummaryFeed>,
    prefetch: &impl Fn(usize),
    set: &mut impl FnMut(usize, u8),
) {
    let num_hashes = hasher.num_hashes() as u64;
    let mut pending = [0usize; SET_BATCH];
    let mut count = 0;
    let mut position = 0;
    hasher.for_each_term(sequence, |term| {
        let first = xxh64(term, 0);
        // Indexed, not defaulted, whenever rows or the summary use it: a missing minimizer
        // would put the k-mer where no query looks.
        let minimizer = match placer.minimizers.is_some() || placer.shared {
            true => placer.piece[position],
            false => 0,
        };
        position += 1;
        if let Some(summary) = summary.as_mut() {
            match placer.shared {
                true => summary.push(first, minimizer),
                false => summary.push_next(first),
            }
        }
        for seed in 0..num_hashes {
            let hash = if seed == 0 { first } else { xxh64(term, seed) };
            let row = placer.map.row(hash, minimizer) as usize;
            prefetch(row);
            pending[count] = row;
            count += 1;
            if count == SET_BATCH {
                pending.iter().for_each(|&row| set(row, bit));
                count = 0;
            }
        }
    });
    pending[..count].iter().for_each(|&row| set(row, bit));
}

/// Asks the CPU to start loading the cache line at `address` (no effect elsewhere).
#[inline(always)]
fn prefetch_byte<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address, and has no architectural effect.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch(address.cast(), _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
