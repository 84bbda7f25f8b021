//! [`Searcher`]: one or more open indexes, one engine, and the reusable state of a query.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use strength_reduce::StrengthReducedU64;

use super::accumulate::{add_row, AndAccumulators};
use super::plan::{Plan, PlanBlock, ReadShape};
use super::rank::{rank, Hit, RankOptions};
use super::stats::QueryStats;
use crate::format::{FormatError, HeaderOptions, IndexHeader};
use crate::io::usage::Usage;
use crate::io::{open_engine, EngineOptions, IoCounters, IoError, ReadEngine};
use crate::kmer::{BaseRule, KmerHasher};

/// Upper bound on lookups planned at once (16 bytes each): a query with more k-mers × blocks
/// × hashes than this is read in several batches so planning memory stays bounded.
pub const LOOKUPS_PER_BATCH_MAX: usize = 1 << 22;
/// Upper bound on AND-accumulator memory when indexes use several hash functions.
pub const AND_BYTES_MAX: usize = 256 << 20;
/// Default cap on one coalesced read.
pub const READ_BYTES_MAX_DEFAULT: u64 = 256 << 10;

/// Why a query could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query has fewer bases than the largest k of the indexes.
    #[error("query is {length} bases, shorter than k = {k}; it has no k-mer to look up")]
    TooShort {
        /// Bases in the query.
        length: usize,
        /// Largest term size of the indexes searched.
        k: u32,
    },
    /// Reading the index failed.
    #[error(transparent)]
    Io(#[from] IoError),
}

/// Why a searcher could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// An index file is not a valid COBS index.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The engine could not be set up.
    #[error(transparent)]
    Io(#[from] IoError),
    /// Nothing to search.
    #[error("no index given")]
    NoIndex,
}

/// Options of one search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Fraction of a query's k-mers a document must contain to be reported (COBS: `ceil(t·n)`).
    pub threshold: f64,
    /// Report at most this many documents (0 = all).
    pub limit: usize,
    /// Reproduce COBS's quirk of leaving results unsorted when a query has a single lookup.
    pub cobs_order: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threshold: 0.8,
            limit: 0,
            cobs_order: false,
        }
    }
}

/// The answer to one query.
#[derive(Clone, Debug)]
pub struct QueryResult {
    /// k-mer positions of the query, per index (`L − k + 1`).
    pub kmers_total: Vec<u64>,
    /// Reported documents, best first.
    pub hits: Vec<Hit>,
    /// What it cost.
    pub stats: QueryStats,
}

struct IndexState {
    header: IndexHeader,
    hasher: KmerHasher,
    hashes: Vec<u64>,
    unique_hashes: Vec<u64>,
    weights: Vec<u32>,
    order: Vec<u32>,
}

/// Searches a fixed set of indexes through one engine, reusing its buffers across queries.
pub struct Searcher {
    indexes: Vec<IndexState>,
    engine: Box<dyn ReadEngine>,
    blocks: Vec<PlanBlock>,
    counters: Vec<u32>,
    shape: ReadShape,
    plan: Plan,
    and: AndAccumulators,
    notice: Option<String>,
}

impl Searcher {
    /// Opens and validates every index and an engine over them.
    pub fn open(paths: &[PathBuf], options: &EngineOptions) -> Result<Searcher, OpenError> {
        Searcher::open_with(paths, &HeaderOptions::default(), options)
    }

    /// As [`Searcher::open`], with parameters for pre-2019 headers.
    pub fn open_with(
        paths: &[PathBuf],
        header_options: &HeaderOptions,
        options: &EngineOptions,
    ) -> Result<Searcher, OpenError> {
        if paths.is_empty() {
            return Err(OpenError::NoIndex);
        }
        let headers = paths
            .iter()
            .map(|path| IndexHeader::open_with(path, header_options))
            .collect::<Result<Vec<_>, _>>()?;
        let (engine, notice) = open_engine(paths, options)?;
        let mut searcher = Searcher::with_engine(headers, engine)?;
        searcher.notice = notice;
        Ok(searcher)
    }

    /// A searcher over already-parsed headers and an engine opened on the same files in the
    /// same order.
    pub fn with_engine(
        headers: Vec<IndexHeader>,
        engine: Box<dyn ReadEngine>,
    ) -> Result<Searcher, OpenError> {
        if headers.is_empty() {
            return Err(OpenError::NoIndex);
        }
        let mut blocks = Vec::new();
        let mut counter_base = 0usize;
        for (index, header) in headers.iter().enumerate() {
            let size = engine.file_size(index as u32);
            if size != header.file_size {
                return Err(OpenError::Format(FormatError::SizeMismatch {
                    path: header.path.clone(),
                    expected: header.file_size,
                    found: size,
                }));
            }
            for block in &header.blocks {
                blocks.push(PlanBlock {
                    index: index as u32,
                    file: index as u32,
                    data_offset: block.data_offset,
                    row_count: block.row_count,
                    row_bytes: block.row_bytes,
                    counter_base,
                    document_count: block.document_count,
                    first_document: block.first_document,
                    row_modulus: StrengthReducedU64::new(block.row_count),
                });
                counter_base += 8 * block.row_bytes as usize;
            }
        }
        let shape = ReadShape {
            alignment: engine.alignment(),
            gap_bytes: 0,
            read_bytes_max: READ_BYTES_MAX_DEFAULT,
        };
        let indexes = headers
            .into_iter()
            .map(|header| IndexState {
                hasher: KmerHasher::new(
                    header.k,
                    header.canonical,
                    header.num_hashes,
                    BaseRule::Cobs,
                ),
                header,
                hashes: Vec::new(),
                unique_hashes: Vec::new(),
                weights: Vec::new(),
                order: Vec::new(),
            })
            .collect();
        Ok(Searcher {
            indexes,
            engine,
            blocks,
            counters: vec![0; counter_base],
            shape,
            plan: Plan::default(),
            and: AndAccumulators::default(),
            notice: None,
        })
    }

    /// The one-line notice of an engine fallback, if one happened at open.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The headers of the open indexes, in order.
    pub fn headers(&self) -> impl ExactSizeIterator<Item = &IndexHeader> {
        self.indexes.iter().map(|s| &s.header)
    }

    /// The engine in use.
    pub fn engine_kind(&self) -> crate::io::EngineKind {
        self.engine.kind()
    }

    /// Largest term size over the indexes: queries must be at least this long.
    pub fn k_max(&self) -> u32 {
        self.indexes.iter().map(|s| s.header.k).max().unwrap_or(0)
    }

    /// Sets how neighbouring reads merge (see [`ReadShape`]); alignment stays the engine's.
    pub fn set_coalescing(&mut self, gap_bytes: u64, read_bytes_max: u64) {
        self.shape.gap_bytes = gap_bytes;
        self.shape.read_bytes_max = read_bytes_max.max(self.shape.alignment);
    }

    /// Scores every document of every index against `sequence`.
    pub fn search(
        &mut self,
        sequence: &[u8],
        options: &SearchOptions,
    ) -> Result<QueryResult, SearchError> {
        let started = Instant::now();
        let usage_before = Usage::now();
        let k_max = self.k_max();
        if sequence.len() < k_max as usize {
            return Err(SearchError::TooShort {
                length: sequence.len(),
                k: k_max,
            });
        }
        let mut stats = QueryStats::new(self.engine.kind());
        for state in &mut self.indexes {
            state.hash_and_dedupe(sequence);
            stats.kmers = stats
                .kmers
                .max(state.hashes.len() as u64 / state.header.num_hashes as u64);
            stats.unique_kmers = stats.unique_kmers.max(state.weights.len() as u64);
        }
        stats.hashing = started.elapsed();
        self.counters.fill(0);
        let chunk = self.kmers_per_batch();
        let unique_max = self
            .indexes
            .iter()
            .map(|s| s.weights.len())
            .max()
            .unwrap_or(0);
        let mut io = IoCounters::default();
        let mut chunk_start = 0usize;
        while chunk_start < unique_max {
            let chunk_end = (chunk_start + chunk).min(unique_max);
            self.read_chunk(chunk_start..chunk_end, &mut stats, &mut io)?;
            stats.batches += 1;
            chunk_start = chunk_end;
        }
        let ranked_at = Instant::now();
        let kmers_total: Vec<u64> = self
            .indexes
            .iter()
            .map(|s| s.hashes.len() as u64 / s.header.num_hashes as u64)
            .collect();
        let hits = rank(
            &self.blocks,
            &self.counters,
            &kmers_total,
            &RankOptions {
                threshold: options.threshold,
                limit: options.limit,
                unsorted: options.cobs_order
                    && self.indexes.iter().map(|s| s.hashes.len()).sum::<usize>() <= 1,
            },
        );
        stats.ranking = ranked_at.elapsed();
        stats.read_requests = io.read_requests;
        stats.bytes_read = io.bytes_read;
        stats.retries = io.retries;
        stats.io_wait = io.io_wait;
        let usage = Usage::now().since(&usage_before);
        stats.major_faults = usage.major_faults;
        stats.minor_faults = usage.minor_faults;
        stats.device_read_bytes = usage.device_read_bytes;
        stats.total = started.elapsed();
        Ok(QueryResult {
            kmers_total,
            hits,
            stats,
        })
    }

    /// Unique k-mers planned per batch, bounding planning and AND-accumulator memory.
    fn kmers_per_batch(&self) -> usize {
        let lookups_per_kmer: usize = self
            .blocks
            .iter()
            .map(|b| self.indexes[b.index as usize].header.num_hashes as usize)
            .sum::<usize>()
            .max(1);
        let mut chunk = (LOOKUPS_PER_BATCH_MAX / lookups_per_kmer).max(1);
        if self.indexes.iter().any(|s| s.header.num_hashes > 1) {
            let row_bytes_max = self.blocks.iter().map(|b| b.row_bytes).max().unwrap_or(1) as usize;
            chunk = chunk.min((AND_BYTES_MAX / (2 * row_bytes_max)).max(1));
        }
        chunk
    }

    fn read_chunk(
        &mut self,
        kmers: std::ops::Range<usize>,
        stats: &mut QueryStats,
        io: &mut IoCounters,
    ) -> Result<(), SearchError> {
        let planned_at = Instant::now();
        let Searcher {
            indexes,
            engine,
            blocks,
            counters,
            shape,
            plan,
            and,
            ..
        } = self;
        plan.clear();
        for (number, block) in blocks.iter().enumerate() {
            let state = &indexes[block.index as usize];
            let end = kmers.end.min(state.weights.len());
            if kmers.start >= end {
                continue;
            }
            plan.add_block_lookups(
                number as u32,
                block,
                &state.unique_hashes,
                state.header.num_hashes as usize,
                kmers.start as u32..end as u32,
            );
        }
        plan.finish(blocks, shape);
        stats.row_reads_requested += plan.lookups.len() as u64;
        stats.unique_rows += plan.rows.len() as u64;
        stats.planning += planned_at.elapsed();
        if indexes.iter().any(|s| s.header.num_hashes > 1) {
            let row_bytes_max = blocks.iter().map(|b| b.row_bytes).max().unwrap_or(1) as usize;
            and.reset(blocks.len(), kmers.len(), row_bytes_max);
        }
        let mut accumulate = Duration::ZERO;
        let plan = &*plan;
        let result = engine.read_batch(
            &plan.reads,
            &mut |read: usize, bytes: &[u8]| {
                let began = Instant::now();
                let read_offset = plan.reads[read].offset;
                for row in plan.rows_of_read(read) {
                    let block = &blocks[row.block as usize];
                    let state = &indexes[block.index as usize];
                    let start = (row.offset - read_offset) as usize;
                    let slice = &bytes[start..start + block.row_bytes as usize];
                    let block_counters = &mut counters[block.counter_base..];
                    let lookups = plan.lookups_of_row(row);
                    if state.header.num_hashes == 1 {
                        let weight = lookups.iter().map(|l| state.weights[l.kmer as usize]).sum();
                        add_row(block_counters, slice, weight);
                    } else {
                        for lookup in lookups {
                            let local = lookup.kmer as usize - kmers.start;
                            let hashes = state.header.num_hashes as u16;
                            if let Some(all) = and.and_row(row.block as usize, local, slice, hashes)
                            {
                                add_row(block_counters, all, state.weights[lookup.kmer as usize]);
                            }
                        }
                    }
                }
                accumulate += began.elapsed();
            },
            io,
        );
        stats.accumulate += accumulate;
        result.map_err(SearchError::from)
    }
}

impl IndexState {
    /// Hashes `sequence` and groups equal k-mers: `unique_hashes` holds each distinct k-mer's
    /// hashes once and `weights` how many positions it occupies.
    fn hash_and_dedupe(&mut self, sequence: &[u8]) {
        let h = self.header.num_hashes as usize;
        self.hashes.clear();
        self.hasher.hashes_into(sequence, &mut self.hashes);
        let n = self.hashes.len() / h;
        self.order.clear();
        self.order.extend(0..n as u32);
        let hashes = &self.hashes;
        self.order.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize * h, b as usize * h);
            hashes[a..a + h].cmp(&hashes[b..b + h])
        });
        self.unique_hashes.clear();
        self.weights.clear();
        let mut previous: Option<usize> = None;
        for &position in &self.order {
            let start = position as usize * h;
            let current = &hashes[start..start + h];
            if let Some(prev) = previous {
                if &hashes[prev..prev + h] == current {
                    *self.weights.last_mut().expect("a previous k-mer exists") += 1;
                    continue;
                }
            }
            self.unique_hashes.extend_from_slice(current);
            self.weights.push(1);
            previous = Some(start);
        }
    }
}
