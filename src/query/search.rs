//! [`Searcher`]: one or more open indexes, one engine, an optional shared page cache, and the
//! reusable state of query batches.
//!
//! [`Searcher::search_batch`] answers many queries with one sweep: their k-mers are hashed
//! and deduplicated per query, the lookups of all of them are planned together (rows shared
//! by several queries are read once), and the batch is executed by an [`Executor`] that adds
//! rows into per-query counters as reads complete and prunes (query, block) pairs that can no
//! longer reach their threshold. Memory is bounded: a batch whose counters or lookups would
//! exceed fixed budgets is split into chunks of queries, and a single huge query (a genome)
//! into parts of its k-mers.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strength_reduce::StrengthReducedU64;

use super::accumulate::AndAccumulators;
use super::execute::{ExecuteCounters, Executor, Unit};
use super::plan::{Plan, PlanBlock, ReadShape};
use super::rank::{count_threshold, rank, Hit, RankOptions};
use super::stats::QueryStats;
use crate::format::{FormatError, HeaderOptions, IndexHeader};
use crate::io::usage::Usage;
use crate::io::{
    open_engine, storage_kind, EngineOptions, IoCounters, IoError, PageCache, ReadEngine,
    StorageKind, WarmRange,
};
use crate::kmer::{BaseRule, KmerHasher};

/// Upper bound on lookups planned at once (24 bytes each).
pub const LOOKUPS_PER_BATCH_MAX: usize = 1 << 22;
/// Upper bound on the counters of the queries of one chunk (4 bytes per document per query).
pub const COUNTER_BYTES_MAX: usize = 256 << 20;
/// Upper bound on AND-accumulator memory when indexes use several hash functions.
pub const AND_BYTES_MAX: usize = 256 << 20;
/// Default cap on one coalesced read.
pub const READ_BYTES_MAX_DEFAULT: u64 = 256 << 10;
/// Default gap up to which neighbouring reads merge on local storage. Merging pays when
/// reading the gap costs less device time than one more request: gap ≈ bandwidth / IOPS.
/// The disks measured here (BENCHMARKS.md: ~60k random 4 KiB reads/s at depth 32, over
/// 1 GB/s sequential) put that near 16–32 KiB; a 30-gene batch on the simulated collection
/// ran 2.8× faster with 16 KiB than without merging. A single gene's rows are rarely that
/// close, so it costs sparse queries nothing.
pub const MERGE_GAP_DEFAULT: u64 = 16 << 10;
/// Merge gap on network and parallel file systems, where every request is a round trip.
pub const MERGE_GAP_NETWORK: u64 = 256 << 10;
/// Largest merged read on network and parallel file systems.
pub const READ_BYTES_MAX_NETWORK: u64 = 4 << 20;

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

/// Options of a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Fraction of a query's k-mers a document must contain to be reported (COBS: `ceil(t·n)`).
    pub threshold: f64,
    /// Report at most this many documents (0 = all).
    pub limit: usize,
    /// Reproduce COBS's quirk of leaving results unsorted when a query has a single lookup.
    pub cobs_order: bool,
    /// Stop reading blocks in which no document can reach the threshold any more.
    pub prune: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threshold: 0.8,
            limit: 0,
            cobs_order: false,
            prune: true,
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

/// The answer to one query of a batch: its result, or why it was skipped.
pub type Answer = Result<QueryResult, SearchError>;

/// One query's k-mers in one index: entries `start..start + count` of the index's arenas,
/// `positions` in all.
#[derive(Clone, Copy, Debug, Default)]
struct QueryKmers {
    start: u32,
    count: u32,
    positions: u64,
}

struct IndexState {
    header: IndexHeader,
    hasher: KmerHasher,
}

/// Searches a fixed set of indexes through one engine, reusing its buffers across batches.
pub struct Searcher {
    indexes: Vec<IndexState>,
    engine: Box<dyn ReadEngine>,
    blocks: Vec<PlanBlock>,
    counter_slots: usize,
    shape: ReadShape,
    cache: Option<Arc<PageCache>>,
    notice: Option<String>,
    // Scratch kept between batches. Per index, the unique k-mers of every query of the
    // current chunk, back to back: their hashes (H each) and weights (positions each).
    arena_hashes: Vec<Vec<u64>>,
    arena_weights: Vec<Vec<u32>>,
    query_kmers: Vec<QueryKmers>,
    hashes: Vec<u64>,
    order: Vec<u32>,
    plan: Plan,
    counters: Vec<u32>,
    units: Vec<Unit>,
    /// Per (chunk query, index): whether the query searches that index.
    selected: Vec<bool>,
    and: AndAccumulators,
    scratch: Vec<u8>,
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
                    used_bytes: block.document_count.div_ceil(8).min(block.row_bytes),
                    num_hashes: header.num_hashes,
                    counter_base,
                    document_count: block.document_count,
                    first_document: block.first_document,
                    row_modulus: StrengthReducedU64::new(block.row_count),
                });
                counter_base += 8 * block.row_bytes as usize;
            }
        }
        let network = headers.iter().find_map(|h| match storage_kind(&h.path) {
            StorageKind::Network(name) => Some(name),
            StorageKind::Local => None,
        });
        let shape = match network {
            Some(name) => {
                tracing::info!(
                    "{name} detected: merging reads up to {MERGE_GAP_NETWORK} bytes apart"
                );
                ReadShape {
                    alignment: engine.alignment(),
                    gap_bytes: MERGE_GAP_NETWORK,
                    read_bytes_max: READ_BYTES_MAX_NETWORK,
                }
            }
            None => ReadShape {
                alignment: engine.alignment(),
                gap_bytes: MERGE_GAP_DEFAULT,
                read_bytes_max: READ_BYTES_MAX_DEFAULT,
            },
        };
        let indexes: Vec<IndexState> = headers
            .into_iter()
            .map(|header| IndexState {
                hasher: KmerHasher::new(
                    header.k,
                    header.canonical,
                    header.num_hashes,
                    BaseRule::Cobs,
                ),
                header,
            })
            .collect();
        let arena_hashes = indexes.iter().map(|_| Vec::new()).collect();
        let arena_weights = indexes.iter().map(|_| Vec::new()).collect();
        Ok(Searcher {
            indexes,
            engine,
            blocks,
            counter_slots: counter_base,
            shape,
            cache: None,
            notice: None,
            arena_hashes,
            arena_weights,
            query_kmers: Vec::new(),
            hashes: Vec::new(),
            order: Vec::new(),
            plan: Plan::default(),
            counters: Vec::new(),
            units: Vec::new(),
            selected: Vec::new(),
            and: AndAccumulators::default(),
            scratch: Vec::new(),
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

    /// Sets how neighbouring reads merge (see [`ReadShape`]); alignment stays the engine's
    /// (or the cache page's, with a cache).
    pub fn set_coalescing(&mut self, gap_bytes: u64, read_bytes_max: u64) {
        self.shape.gap_bytes = gap_bytes;
        self.shape.read_bytes_max = read_bytes_max.max(self.shape.alignment);
    }

    /// How reads are currently shaped.
    pub fn read_shape(&self) -> ReadShape {
        self.shape
    }

    /// Shares `cache` with this searcher: reads are then whole cache pages, served from the
    /// cache when all their pages are there, and stored in it when read.
    pub fn set_cache(&mut self, cache: Option<Arc<PageCache>>) {
        let alignment = self.engine.alignment();
        self.shape.alignment = match &cache {
            Some(cache) => alignment.max(cache.page_size() as u64),
            None => alignment,
        };
        self.shape.read_bytes_max = self.shape.read_bytes_max.max(self.shape.alignment);
        self.cache = cache;
    }

    /// The shared cache, if any.
    pub fn cache(&self) -> Option<&Arc<PageCache>> {
        self.cache.as_ref()
    }

    /// The data sections of the open indexes, as ranges for a cache warm-up
    /// ([`crate::io::Warmup`]), in file order.
    pub fn warm_ranges(&self) -> Vec<WarmRange> {
        self.indexes
            .iter()
            .enumerate()
            .map(|(file, state)| WarmRange {
                path: state.header.path.clone(),
                file: file as u32,
                start: state.header.data_offset,
                end: state.header.file_size,
            })
            .collect()
    }

    /// Scores every document of every index against `sequence`.
    pub fn search(&mut self, sequence: &[u8], options: &SearchOptions) -> Answer {
        let mut answers = self.search_batch(&[sequence], options)?;
        answers.pop().expect("one answer per query")
    }

    /// Answers `queries` with shared reads; one answer per query, in order. A query shorter
    /// than k gets its own error and does not stop the others; an I/O error fails the batch.
    pub fn search_batch(
        &mut self,
        queries: &[&[u8]],
        options: &SearchOptions,
    ) -> Result<Vec<Answer>, SearchError> {
        self.search_selected(queries, &[], options)
    }

    /// As [`Searcher::search_batch`], each query searching only the indexes its selection
    /// marks (`selections[q][index]`; a missing or `None` selection means all). Blocks of
    /// unselected indexes are never read for that query.
    pub fn search_selected(
        &mut self,
        queries: &[&[u8]],
        selections: &[Option<Vec<bool>>],
        options: &SearchOptions,
    ) -> Result<Vec<Answer>, SearchError> {
        let mut answers: Vec<Option<Answer>> = (0..queries.len()).map(|_| None).collect();
        let index_count = self.indexes.len();
        let selected = |q: usize, index: usize| -> bool {
            selections
                .get(q)
                .and_then(Option::as_ref)
                .is_none_or(|mask| mask.get(index).copied().unwrap_or(false))
        };
        let mut runnable = Vec::with_capacity(queries.len());
        for (q, sequence) in queries.iter().enumerate() {
            let k_max = (0..index_count)
                .filter(|&x| selected(q, x))
                .map(|x| self.indexes[x].header.k)
                .max()
                .unwrap_or(0);
            if sequence.len() < k_max as usize {
                answers[q] = Some(Err(SearchError::TooShort {
                    length: sequence.len(),
                    k: k_max,
                }));
            } else {
                runnable.push(q);
            }
        }
        let queries_per_chunk = (COUNTER_BYTES_MAX / (4 * self.counter_slots.max(1))).max(1);
        let mut next = 0;
        while next < runnable.len() {
            // Hash queries until a budget is reached.
            let chunk_start = next;
            self.clear_arenas();
            self.selected.clear();
            let mut lookups = 0usize;
            let mut hashing = Vec::new();
            while next < runnable.len() && next - chunk_start < queries_per_chunk {
                let q = runnable[next];
                // A query that would push the chunk past the lookup budget starts the next
                // chunk (where, alone, it may be split into parts).
                let estimate = self.lookups_upper_bound(queries[q].len());
                if next > chunk_start && lookups + estimate > LOOKUPS_PER_BATCH_MAX {
                    break;
                }
                let started = Instant::now();
                self.selected
                    .extend((0..index_count).map(|x| selected(q, x)));
                lookups += self.prepare_query(queries[q]);
                hashing.push(started.elapsed());
                next += 1;
            }
            let chunk = &runnable[chunk_start..next];
            let results = self.run_chunk(chunk.len(), &hashing, options)?;
            for (&q, result) in chunk.iter().zip(results) {
                answers[q] = Some(Ok(result));
            }
        }
        Ok(answers
            .into_iter()
            .map(|a| a.expect("every query answered"))
            .collect())
    }

    fn clear_arenas(&mut self) {
        self.arena_hashes.iter_mut().for_each(Vec::clear);
        self.arena_weights.iter_mut().for_each(Vec::clear);
        self.query_kmers.clear();
    }

    /// Hashes a query into the arenas (one entry per index in `query_kmers`) and returns its
    /// number of lookups.
    fn prepare_query(&mut self, sequence: &[u8]) -> usize {
        let mut lookups = 0;
        for (x, state) in self.indexes.iter_mut().enumerate() {
            let h = state.header.num_hashes as usize;
            self.hashes.clear();
            state.hasher.hashes_into(sequence, &mut self.hashes);
            let positions = self.hashes.len() / h;
            // Group equal k-mers: each distinct k-mer is looked up once, weighted by its count.
            self.order.clear();
            self.order.extend(0..positions as u32);
            let hashes = &self.hashes;
            self.order.sort_unstable_by(|&a, &b| {
                let (a, b) = (a as usize * h, b as usize * h);
                hashes[a..a + h].cmp(&hashes[b..b + h])
            });
            let (arena_hashes, weights) = (&mut self.arena_hashes[x], &mut self.arena_weights[x]);
            let start = weights.len();
            let mut previous: Option<usize> = None;
            for &position in &self.order {
                let at = position as usize * h;
                let current = &hashes[at..at + h];
                if let Some(p) = previous {
                    if &hashes[p..p + h] == current {
                        *weights.last_mut().expect("a previous k-mer") += 1;
                        continue;
                    }
                }
                arena_hashes.extend_from_slice(current);
                weights.push(1);
                previous = Some(at);
            }
            let count = weights.len() - start;
            let blocks = state.header.blocks.len();
            lookups += count * h * blocks;
            self.query_kmers.push(QueryKmers {
                start: start as u32,
                count: count as u32,
                positions: positions as u64,
            });
        }
        lookups
    }

    /// Most lookups a query of `length` bases can need (every position distinct).
    fn lookups_upper_bound(&self, length: usize) -> usize {
        self.indexes
            .iter()
            .map(|s| {
                crate::kmer::kmer_count(length, s.header.k as usize)
                    * s.header.num_hashes as usize
                    * s.header.blocks.len()
            })
            .sum()
    }

    /// Unique k-mers planned per part of a single query too large for one batch.
    fn kmers_per_part(&self) -> usize {
        let lookups_per_kmer: usize = self
            .blocks
            .iter()
            .map(|b| b.num_hashes as usize)
            .sum::<usize>()
            .max(1);
        let mut part = (LOOKUPS_PER_BATCH_MAX / lookups_per_kmer).max(1);
        if self.blocks.iter().any(|b| b.num_hashes > 1) {
            let row_bytes_max = self.blocks.iter().map(|b| b.row_bytes).max().unwrap_or(1) as usize;
            part = part.min((AND_BYTES_MAX / (2 * row_bytes_max)).max(1));
        }
        part
    }

    /// Reads and scores the queries in the arenas (`chunk_len` of them).
    fn run_chunk(
        &mut self,
        chunk_len: usize,
        hashing: &[Duration],
        options: &SearchOptions,
    ) -> Result<Vec<QueryResult>, SearchError> {
        let started = Instant::now();
        let usage_before = Usage::now();
        let cache_before = self.cache.as_ref().map(|c| c.stats());
        let index_count = self.indexes.len();
        self.counters.clear();
        self.counters.resize(chunk_len * self.counter_slots, 0);
        self.units.clear();
        for q in 0..chunk_len {
            for block in &self.blocks {
                let at = q * index_count + block.index as usize;
                let kmers = self.query_kmers[at];
                let needed = count_threshold(options.threshold, kmers.positions);
                let mut unit = Unit::new(kmers.positions, needed, options.prune);
                unit.dead = !self.selected[at];
                self.units.push(unit);
            }
        }
        // A single query too large to plan at once is read in parts of its k-mers.
        let largest = (0..chunk_len * index_count)
            .map(|i| self.query_kmers[i].count as usize)
            .max()
            .unwrap_or(0);
        let part = if chunk_len == 1 {
            self.kmers_per_part()
        } else {
            usize::MAX
        };
        let mut io = IoCounters::default();
        let mut executed = ExecuteCounters::default();
        let mut planning = Duration::ZERO;
        let (mut lookups_total, mut rows_total, mut batches) = (0u64, 0u64, 0u32);
        let mut pages_total = 0u64;
        let mut per_query_lookups = vec![0u64; chunk_len];
        let mut part_start = 0usize;
        while part_start < largest.max(1) {
            let part_end = part_start.saturating_add(part).min(largest.max(1));
            let planned_at = Instant::now();
            self.plan.clear();
            for (number, block) in self.blocks.iter().enumerate() {
                let hashes = &self.arena_hashes[block.index as usize];
                let h = block.num_hashes as usize;
                for (q, lookups) in per_query_lookups.iter_mut().enumerate() {
                    let at = q * index_count + block.index as usize;
                    if !self.selected[at] {
                        continue;
                    }
                    let kmers = self.query_kmers[at];
                    let from = kmers.start as usize + part_start.min(kmers.count as usize);
                    let to = kmers.start as usize + part_end.min(kmers.count as usize);
                    if from >= to {
                        continue;
                    }
                    *lookups += ((to - from) * h) as u64;
                    self.plan.add_block_lookups(
                        number as u32,
                        block,
                        q as u32,
                        &hashes[..to * h],
                        from as u32..to as u32,
                    );
                }
            }
            self.plan.finish(&self.blocks, &self.shape);
            planning += planned_at.elapsed();
            lookups_total += self.plan.lookups.len() as u64;
            rows_total += self.plan.rows.len() as u64;
            pages_total += self.plan.pages_4k;
            if self.plan.pair_count > 0 {
                let row_bytes_max = self.blocks.iter().map(|b| b.row_bytes).max().unwrap_or(1);
                self.and
                    .reset(self.plan.pair_count as usize, row_bytes_max as usize);
            }
            let mut executor = Executor {
                plan: &self.plan,
                blocks: &self.blocks,
                weights: &self.arena_weights,
                counters: &mut self.counters,
                counter_slots: self.counter_slots,
                units: &mut self.units,
                and: &mut self.and,
                cache: self.cache.as_deref(),
                scratch: &mut self.scratch,
                counters_out: ExecuteCounters::default(),
            };
            self.engine
                .read_batch(&self.plan.reads, &mut executor, &mut io)?;
            let done = executor.counters_out;
            executed.reads_pruned += done.reads_pruned;
            executed.reads_cached += done.reads_cached;
            executed.units_pruned += done.units_pruned;
            executed.accumulate += done.accumulate;
            batches += 1;
            part_start = part_end;
        }
        let usage = Usage::now().since(&usage_before);
        let cache_after = self.cache.as_ref().map(|c| c.stats());
        let elapsed = started.elapsed();
        let mut results = Vec::with_capacity(chunk_len);
        for (q, &hashed) in hashing.iter().enumerate().take(chunk_len) {
            let ranked_at = Instant::now();
            let kmers_total: Vec<u64> = (0..index_count)
                .map(|x| self.query_kmers[q * index_count + x].positions)
                .collect();
            let counters = &self.counters[q * self.counter_slots..(q + 1) * self.counter_slots];
            let lookups_single: u64 = (0..index_count)
                .map(|x| {
                    let kmers = self.query_kmers[q * index_count + x];
                    kmers.positions * self.indexes[x].header.num_hashes as u64
                })
                .sum();
            let selected = &self.selected[q * index_count..(q + 1) * index_count];
            let hits = rank(
                &self.blocks,
                counters,
                &kmers_total,
                &RankOptions {
                    threshold: options.threshold,
                    limit: options.limit,
                    unsorted: options.cobs_order && lookups_single <= 1,
                },
                |index| selected[index as usize],
            );
            let mut stats = QueryStats::new(self.engine.kind());
            stats.kmers = kmers_total.iter().copied().max().unwrap_or(0);
            stats.unique_kmers = (0..index_count)
                .map(|x| self.query_kmers[q * index_count + x].count as u64)
                .max()
                .unwrap_or(0);
            stats.row_reads_requested = per_query_lookups[q];
            stats.batch_queries = chunk_len as u32;
            stats.batch_row_reads_requested = lookups_total;
            stats.unique_rows = rows_total;
            stats.unique_pages_4k = pages_total;
            stats.read_requests = io.read_requests;
            stats.bytes_read = io.bytes_read;
            stats.retries = io.retries;
            stats.reads_pruned = executed.reads_pruned;
            stats.reads_from_cache = executed.reads_cached;
            stats.blocks_pruned = (0..self.blocks.len())
                .filter(|&b| {
                    self.units[q * self.blocks.len() + b].dead
                        && selected[self.blocks[b].index as usize]
                })
                .count() as u64;
            if let (Some(before), Some(after)) = (cache_before, cache_after) {
                stats.cache_hits = after.hits - before.hits;
                stats.cache_misses = after.misses - before.misses;
            }
            stats.batches = batches;
            stats.major_faults = usage.major_faults;
            stats.minor_faults = usage.minor_faults;
            stats.device_read_bytes = usage.device_read_bytes;
            stats.hashing = hashed;
            stats.planning = planning;
            stats.io_wait = io.io_wait;
            stats.accumulate = executed.accumulate;
            stats.ranking = ranked_at.elapsed();
            stats.total = hashed + elapsed + stats.ranking;
            results.push(QueryResult {
                kmers_total,
                hits,
                stats,
            });
        }
        Ok(results)
    }
}
