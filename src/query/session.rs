//! [`Session`]: one thread's way of answering queries over a shared [`Index`].
//!
//! A session owns an I/O engine, an optional share of a process-wide row cache, and every
//! buffer a query needs, reused from batch to batch. It answers a batch of queries in short
//! named stages:
//!
//! 1. **hash** ([`super::hashing`]): distinct k-mers of each query, per index, with weights;
//! 2. **plan** ([`super::plan`]): every row lookup of every query, sorted, deduplicated,
//!    aligned and merged into reads (skipped when the index is resident in memory);
//! 3. **read and accumulate**: either the engine reads the plan and [`super::execute`] adds
//!    each arriving row into bit-sliced counters, pruning (query, block) pairs that can no
//!    longer reach their threshold; or, when the engine holds the files in memory,
//!    [`super::resident`] scores the rows in place, spreading blocks over threads;
//! 4. **rank** ([`super::rank`]): threshold, order, limit.
//!
//! Memory is bounded: a batch whose counters or lookups would exceed fixed budgets is split
//! into chunks of queries, and a single huge query (a genome) into parts of its k-mers.

use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::accumulate::AndAccumulators;
use super::correct::{Corrected, DocumentFill};
use super::counters::{Counters, Unit};
use super::coverage::{cover, CoverInput, Coverage};
use super::execute::{ExecuteCounters, Executor, FailedRead, QueryShare};
use super::fill::{fetch_ones, read_fills, FillSource};
use super::grouping::{GroupTally, Grouping};
use super::hashing::KmerArena;
use super::hit::{count_threshold, Hit};
use super::index::{Index, OpenError};
use super::plan::Plan;
use super::rank::{rank_kept, RankOptions};
use super::resident::{self, ResidentInput, ResidentScratch};
use super::screen::{Screen, ScreenInput, ScreenReads};
use super::stats::{BatchStats, QueryStats, RowSource};
use crate::format::ones::DOCUMENTS_PER_PAGE;
use crate::format::IndexHeader;
use crate::io::usage::Usage;
use crate::io::{
    IoCounters, IoError, MemoryImage, OpenedEngine, PageCache, ReadBatch, ReadEngine, ReadShape,
    ResidentFiles, RowMemory,
};
use crate::read::{with_layers, LayerScratch, PinnedPages, ReadError};

/// Upper bound on lookups planned at once (24 bytes each).
pub(crate) const LOOKUPS_PER_BATCH_MAX: usize = 1 << 22;
/// Upper bound on the bit-sliced counters of the queries of one chunk.
pub(crate) const COUNTER_BYTES_MAX: usize = 256 << 20;
/// Upper bound on AND-accumulator memory when indexes use several hash functions.
pub(crate) const AND_BYTES_MAX: usize = 256 << 20;
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
    /// Reading the index failed for the whole batch.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A read this query needed failed, or its bytes did not match the index's checksums;
    /// the other queries of the batch were answered.
    #[error(transparent)]
    ReadFailed(Arc<ReadError>),
}

/// Options of a search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Fraction of a query's k-mers a document must contain to be reported (COBS: `ceil(t·n)`).
    pub threshold: f64,
    /// Report at most this many documents (0 = all).
    pub limit: usize,
    /// Skip this many of the ranked documents first (paging through a large answer; totals
    /// and groups still count them all).
    pub offset: usize,
    /// Count the hits by group of a metadata column ([`QueryResult::groups`]).
    pub group_by: Option<Arc<Grouping>>,
    /// With `group_by`: show only the hits of this group (its value); totals and groups
    /// still count every hit.
    pub only_group: Option<String>,
    /// Reproduce COBS's quirk of leaving results unsorted when a query has a single lookup.
    pub cobs_order: bool,
    /// Stop reading blocks in which no document can reach the threshold any more.
    pub prune: bool,
    /// Compute where each hit matches ([`Coverage`]): its rows are read again.
    pub coverage: bool,
    /// Skip blocks whose summary holds too few of a query's k-mers (see [`super::screen`]);
    /// `false` reads every block and gives COBS's exact scores.
    pub summaries: bool,
    /// Read in waves: first the k-mers after which pruning can decide, then the rest only
    /// in blocks still alive (reads in flight cannot be cancelled, so one deep wave reads
    /// what pruning would have skipped). Fewer bytes, more round trips: off by default.
    pub waves: bool,
    /// Score every hit corrected for its document's false positives
    /// ([`QueryResult::corrected`], see [`super::correct`]; a sample of the rows of each block
    /// holding a hit is read once per index), and report only the documents whose corrected
    /// containment reaches the threshold and that false positives alone do not explain.
    /// Off, the threshold applies to the raw fraction, as in COBS.
    pub corrected: bool,
    /// With `corrected`: the threshold still applies to the raw fraction, as in COBS (the
    /// hits still carry their corrected scores).
    pub raw_threshold: bool,
}

impl PartialEq for SearchOptions {
    /// Equal options answer queries alike (and may share a batch): a grouping is equal to
    /// itself only.
    fn eq(&self, other: &SearchOptions) -> bool {
        let groups = match (&self.group_by, &other.group_by) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        groups
            && self.threshold == other.threshold
            && self.limit == other.limit
            && self.offset == other.offset
            && self.only_group == other.only_group
            && self.cobs_order == other.cobs_order
            && self.prune == other.prune
            && self.coverage == other.coverage
            && self.summaries == other.summaries
            && self.waves == other.waves
            && self.corrected == other.corrected
            && self.raw_threshold == other.raw_threshold
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threshold: super::THRESHOLD_DEFAULT,
            limit: 0,
            offset: 0,
            group_by: None,
            only_group: None,
            cobs_order: false,
            prune: true,
            coverage: false,
            summaries: true,
            waves: false,
            corrected: false,
            raw_threshold: false,
        }
    }
}

/// The answer to one query.
#[derive(Clone, Debug)]
pub struct QueryResult {
    /// k-mer positions of the query, per index (`L − k + 1`).
    pub kmers_total: Vec<u64>,
    /// Reported documents, best first (`offset..offset + limit` of the ranking).
    pub hits: Vec<Hit>,
    /// Documents that reached the threshold, whatever the limit (removed documents and
    /// placeholders never count).
    pub total_hits: u64,
    /// Documents the query searched (removed documents and placeholders left out).
    pub documents_searched: u64,
    /// Hits by group, when asked for ([`SearchOptions::group_by`]).
    pub groups: Vec<GroupTally>,
    /// What the query cost.
    pub stats: QueryStats,
    /// What its batch did as a whole (shared by the queries of the batch).
    pub batch: Arc<BatchStats>,
    /// Where each hit matches, in the order of `hits` (empty unless asked for).
    pub coverage: Vec<Coverage>,
    /// Each hit's score corrected for false positives, in the order of `hits` (empty
    /// unless [`SearchOptions::corrected`]).
    pub corrected: Vec<Corrected>,
}

/// The answer to one query of a batch: its result, or why it was skipped.
pub type Answer = Result<QueryResult, SearchError>;

/// Answers queries over a shared [`Index`]; see the module documentation.
pub struct Session {
    index: Arc<Index>,
    engine: Box<dyn ReadEngine>,
    cache: Option<Arc<PageCache>>,
    /// The whole index in memory, shared by the process's sessions, once loaded.
    image: Option<Arc<MemoryImage>>,
    notice: Option<String>,
    shape: ReadShape,
    threads: usize,
    resident_fraction: Option<f64>,
    batches: u64,
    /// Stage 1's output: the chunk's hashed queries.
    arena: KmerArena,
    /// Everything stages 2 to 4 reuse from chunk to chunk.
    work: Scratch,
}

/// The buffers of stages 2 to 4, kept between chunks so that a query allocates only when it
/// is larger than every one before it.
#[derive(Default)]
struct Scratch {
    /// Per (query, index) of the chunk: whether the query searches that index.
    selected: Vec<bool>,
    plan: Plan,
    counters: Counters,
    and: AndAccumulators,
    /// The read path's buffers: pinned side pages, reads assembled from cached pages.
    layers: LayerScratch,
    resident: Vec<ResidentScratch>,
    /// Per query: its share of the reads, and its distinct 4 KiB pages.
    shares: Vec<QueryShare>,
    pages: Vec<u64>,
    last_read: Vec<u32>,
    charged: Vec<u32>,
    last_page: Vec<(u32, u64)>,
    failures: Vec<FailedRead>,
    screen: Screen,
    /// The pages of counts of ones the chunk's candidates need ([`super::fill`]).
    ones: PinnedPages,
}

/// What one chunk's read-and-accumulate stage produced, before ranking.
struct ChunkOutcome {
    batch: BatchStats,
    failed: Vec<Option<Arc<ReadError>>>,
}

/// How a session reads and scores, besides its index and its engine: what every front end
/// fills the same way (the `search` module above), given to the one constructor,
/// [`Session::new`].
#[derive(Clone, Default)]
pub struct SessionConfig {
    /// Row memory shared with the process's other sessions: a page cache, or the whole
    /// index (scored in place once loaded); `None` reads from storage each time.
    pub memory: Option<RowMemory>,
    /// Threads scoring blocks held in memory (0: one per core).
    pub threads: usize,
    /// Gap between reads that still merge them; `None`: the storage's default.
    pub merge_gap: Option<u64>,
    /// Largest merged read; `None`: the storage's default.
    pub read_max: Option<u64>,
}

impl Session {
    /// A session over `index` reading through `engine`, opened on the same files in the same
    /// order ([`Index::read_paths`]: the index files and their side files), set up as
    /// `config` says.
    pub fn new(
        index: Arc<Index>,
        engine: OpenedEngine,
        config: &SessionConfig,
    ) -> Result<Session, OpenError> {
        let OpenedEngine {
            engine,
            notice,
            resident_fraction,
        } = engine;
        if engine.file_count() != index.read_paths().len() {
            return Err(OpenError::EngineFiles {
                expected: index.read_paths().len(),
                found: engine.file_count(),
            });
        }
        index.check_sizes(|file| engine.file_size(file))?;
        let (cache, image) = match &config.memory {
            Some(RowMemory::Pages(cache)) => (Some(cache.clone()), None),
            Some(RowMemory::Image(image)) => (None, Some(image.clone())),
            None => (None, None),
        };
        let shape = configured_shape(&index, engine.as_ref(), cache.as_deref(), config);
        let summaries = index.summaries();
        let arena = KmerArena::new(index.headers().iter().enumerate().map(|(file, h)| {
            // The rows' minimizers, else the summaries' (the two agree: Summaries::open
            // refuses summaries placed by other minimizers than the rows).
            let minimizer = h.rows.minimizer_length().or(summaries.minimizer(file));
            (h.k, h.canonical, h.num_hashes, minimizer.unwrap_or(0))
        }));
        Ok(Session {
            index,
            engine,
            cache,
            image,
            notice,
            shape,
            threads: crate::cores::threads_or_cores(config.threads),
            resident_fraction,
            batches: 0,
            arena,
            work: Scratch::default(),
        })
    }

    /// The one-line notice of an engine fallback, if one happened at open.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// The shared index.
    pub fn index(&self) -> &Arc<Index> {
        &self.index
    }

    /// The headers of the open indexes, in order.
    pub fn headers(&self) -> impl ExactSizeIterator<Item = &IndexHeader> {
        self.index.headers().iter()
    }

    /// The engine in use.
    pub fn engine_kind(&self) -> crate::io::EngineKind {
        self.engine.kind()
    }

    /// Where rows come from now: read, or scored in place.
    pub fn source(&self) -> RowSource {
        self.in_memory()
            .map_or(RowSource::Reads, |(_, source)| source)
    }

    /// The files' bytes in memory, when the engine holds them there or the process's image
    /// of the index is loaded, with what that source is called in the statistics.
    fn in_memory(&self) -> Option<(&dyn ResidentFiles, RowSource)> {
        in_memory(self.engine.as_ref(), self.image.as_deref())
    }

    /// Scores every document of every index against `sequence`.
    pub fn search(&mut self, sequence: &[u8], options: &SearchOptions) -> Answer {
        let mut answers = self.search_batch(&[sequence], options)?;
        answers.pop().expect("one answer per query")
    }

    /// Answers `queries` with shared reads; one answer per query, in order. A query shorter
    /// than k, or one whose reads failed, gets its own error and does not stop the others.
    pub fn search_batch(
        &mut self,
        queries: &[&[u8]],
        options: &SearchOptions,
    ) -> Result<Vec<Answer>, SearchError> {
        self.search_selected(queries, &[], options)
    }

    /// As [`Session::search_batch`], each query searching only the indexes its selection
    /// marks (`selections[q][index]`; a missing or `None` selection means all). Blocks of
    /// unselected indexes are never read for that query.
    pub(crate) fn search_selected(
        &mut self,
        queries: &[&[u8]],
        selections: &[Option<Vec<bool>>],
        options: &SearchOptions,
    ) -> Result<Vec<Answer>, SearchError> {
        let index_count = self.index.file_count();
        let selected = |q: usize, index: usize| -> bool {
            selections
                .get(q)
                .and_then(Option::as_ref)
                .is_none_or(|mask| mask.get(index).copied().unwrap_or(false))
        };
        let mut answers: Vec<Option<Answer>> = (0..queries.len()).map(|_| None).collect();
        let mut runnable = Vec::with_capacity(queries.len());
        for (q, sequence) in queries.iter().enumerate() {
            let k_max = (0..index_count)
                .filter(|&x| selected(q, x))
                .map(|x| self.index.headers()[x].k)
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
        let mut next = 0;
        while next < runnable.len() {
            let chunk_start = next;
            let hashing = self.hash_chunk(queries, &runnable, &mut next, &selected);
            let chunk = &runnable[chunk_start..next];
            for (&q, answer) in chunk.iter().zip(self.run_chunk(&hashing, options)?) {
                answers[q] = Some(answer);
            }
        }
        Ok(answers
            .into_iter()
            .map(|a| a.expect("every query answered"))
            .collect())
    }

    /// Stage 1 for the next chunk: hashes queries from `runnable[*next..]` until a counter or
    /// lookup budget is reached (at least one); returns each one's hashing time.
    fn hash_chunk(
        &mut self,
        queries: &[&[u8]],
        runnable: &[usize],
        next: &mut usize,
        selected: &impl Fn(usize, usize) -> bool,
    ) -> Vec<Duration> {
        let index_count = self.index.file_count();
        self.arena.clear();
        self.work.selected.clear();
        let (mut lookups, mut counter_bytes) = (0usize, 0usize);
        let mut hashing = Vec::new();
        let start = *next;
        while *next < runnable.len() {
            let q = runnable[*next];
            // A query that would push the chunk past a budget starts the next chunk (where,
            // alone, it may be split into parts).
            let length = queries[q].len();
            let lookups_estimate = self.lookups_upper_bound(length);
            let counters_estimate = Counters::bytes_for(self.index.blocks(), length as u64);
            let over = lookups + lookups_estimate > LOOKUPS_PER_BATCH_MAX
                || counter_bytes + counters_estimate > COUNTER_BYTES_MAX;
            if *next > start && over {
                break;
            }
            let started = Instant::now();
            self.work
                .selected
                .extend((0..index_count).map(|x| selected(q, x)));
            let blocks_of = |x: usize| self.index.headers()[x].blocks.len();
            lookups += self.arena.add_query(queries[q], blocks_of);
            counter_bytes += counters_estimate;
            hashing.push(started.elapsed());
            *next += 1;
        }
        hashing
    }

    /// Most lookups a query of `length` bases can need (every position distinct).
    fn lookups_upper_bound(&self, length: usize) -> usize {
        self.index
            .headers()
            .iter()
            .map(|h| {
                crate::kmer::kmer_count(length, h.k as usize)
                    * h.num_hashes as usize
                    * h.blocks.len()
            })
            .sum()
    }

    /// Stages 2 to 4 for the queries in the arena.
    fn run_chunk(
        &mut self,
        hashing: &[Duration],
        options: &SearchOptions,
    ) -> Result<Vec<Answer>, SearchError> {
        let chunk_len = hashing.len();
        let started = Instant::now();
        let usage_before = Usage::now();
        let screened = self.screen(chunk_len, options)?;
        self.reset_counters(chunk_len, options);
        self.work.shares.clear();
        self.work.shares.resize(chunk_len, QueryShare::default());
        self.work.pages.clear();
        self.work.pages.resize(chunk_len, 0);
        self.batches += 1;
        let mut outcome = if self.in_memory().is_some() {
            self.score_resident(chunk_len)?
        } else {
            self.read_and_score(chunk_len, options)?
        };
        outcome.batch.summary_bytes = self.work.screen.used_bytes();
        outcome.batch.read_requests += screened.read_requests;
        outcome.batch.bytes_read += screened.bytes_read;
        outcome.batch.side_read_requests += screened.side_read_requests;
        outcome.batch.side_bytes_read += screened.side_bytes_read;
        outcome.batch.add_remote(&screened);
        for (q, share) in self.work.shares.iter_mut().enumerate() {
            let (reads, bytes) = self.work.screen.side_reads(q);
            share.reads += reads;
            share.bytes += bytes;
            share.side_bytes += bytes;
        }
        outcome.batch.units_ruled_out = (0..chunk_len)
            .map(|q| self.work.screen.blocks_ruled_out(q))
            .sum();
        let usage = Usage::now().since(&usage_before);
        outcome.batch.queries = chunk_len as u32;
        outcome.batch.major_faults = usage.major_faults;
        outcome.batch.minor_faults = usage.minor_faults;
        outcome.batch.device_read_bytes = usage.device_read_bytes;
        outcome.batch.resident_fraction = self.resident_fraction;
        let filled = match options.corrected {
            true => self.fill(chunk_len, options),
            false => Ok(IoCounters::default()),
        };
        if let Ok(io) = &filled {
            add_fill_reads(&mut outcome.batch, &mut self.work.shares, io);
        }
        let filled = filled.map(|_| ());
        outcome.batch.total = started.elapsed();
        let batch = Arc::new(outcome.batch);
        let mut answers: Vec<Answer> = (0..chunk_len)
            .map(
                |q| match outcome.failed[q].take().or(filled.clone().err()) {
                    Some(error) => Err(SearchError::ReadFailed(error)),
                    None => Ok(self.result(q, hashing[q], &batch, options)),
                },
            )
            .collect();
        if options.coverage {
            self.cover(&mut answers)?;
        }
        Ok(answers)
    }

    /// Learns the fills ([`super::fill`]) of the documents the chunk's queries may report
    /// (those at their threshold): the pages of their counts of ones, or, for an index without
    /// them, a sample of the rows of each block holding one whose fill the index does not know
    /// yet. Returns the reads' counters.
    fn fill(
        &mut self,
        chunk_len: usize,
        options: &SearchOptions,
    ) -> Result<IoCounters, Arc<ReadError>> {
        let blocks = self.index.blocks();
        let candidates = |b: u32| self.candidate_queries(chunk_len, options, b);
        let mut documents = Vec::new();
        let mut sampled = Vec::new();
        for (b, block) in blocks.iter().enumerate() {
            let b = b as u32;
            if self.index.ones().file(block.index as usize).is_some() {
                for (q, needed) in candidates(b) {
                    let view = self.work.counters.view(self.work.counters.unit_index(q, b));
                    // One document a page: the page is what is read.
                    view.for_each_at_least(needed, block.document_count, |local, _| {
                        let page = (block.first_document + local) / DOCUMENTS_PER_PAGE;
                        let first = (block.index, page * DOCUMENTS_PER_PAGE);
                        if documents.last() != Some(&first) {
                            documents.push(first);
                        }
                    });
                }
            } else if self.index.fills().get(b).is_none() && candidates(b).next().is_some() {
                sampled.push(b);
            }
        }
        let mut io = IoCounters::default();
        if !documents.is_empty() {
            documents.sort_unstable();
            documents.dedup();
            let (index, pins) = (&self.index, &mut self.work.ones);
            let image = self.image.as_deref().and_then(MemoryImage::resident);
            let documents = documents.into_iter();
            fetch_ones(index, self.engine.as_mut(), image, pins, documents, &mut io)
                .map_err(Arc::new)?;
        }
        if sampled.is_empty() {
            return Ok(io);
        }
        let layers = self.index.layers(self.cache.as_deref());
        let (index, plan, shape) = (&self.index, &mut self.work.plan, &self.shape);
        let rows = with_layers(
            self.engine.as_mut(),
            &layers,
            &mut self.work.layers,
            |engine| read_fills(index, engine, plan, shape, &sampled),
        )
        .map_err(Arc::new)?;
        io.add(&rows);
        Ok(io)
    }

    /// The queries of the chunk that search block `block` and have a document of it at their
    /// threshold, each with the count it needs.
    fn candidate_queries<'a>(
        &'a self,
        chunk_len: usize,
        options: &'a SearchOptions,
        block: u32,
    ) -> impl Iterator<Item = (u32, u64)> + 'a {
        let index_count = self.index.file_count();
        let plan_block = &self.index.blocks()[block as usize];
        let counters = &self.work.counters;
        (0..chunk_len).filter_map(move |q| {
            let total = self.arena.query(q, plan_block.index as usize).positions;
            let needed = count_threshold(options.threshold, total);
            let searched = self.work.selected[q * index_count + plan_block.index as usize];
            let view = counters.view(counters.unit_index(q as u32, block));
            (searched && view.any_at_least(needed, plan_block.document_count))
                .then_some((q as u32, needed))
        })
    }

    /// Coverage of every hit (see [`super::coverage`]); its cost goes into the queries' totals.
    fn cover(&mut self, answers: &mut [Answer]) -> Result<(), SearchError> {
        let started = Instant::now();
        let input = CoverInput {
            index: &self.index,
            arena: &self.arena,
            shape: &self.shape,
        };
        self.work.plan.clear();
        let layers = self.index.layers(self.cache.as_deref());
        let plan = &mut self.work.plan;
        let hits: Vec<&[Hit]> = answers
            .iter()
            .map(|answer| answer.as_ref().map_or(&[][..], |result| &result.hits[..]))
            .collect();
        let covered = with_layers(
            self.engine.as_mut(),
            &layers,
            &mut self.work.layers,
            |engine| cover(&input, engine, plan, &hits),
        );
        match covered {
            Ok(coverages) => {
                for (answer, coverage) in answers.iter_mut().zip(coverages) {
                    if let Ok(result) = answer {
                        result.coverage = coverage;
                    }
                }
            }
            // Where the hits match could not be read: no query of the chunk is answered
            // without what it asked for.
            Err(error) => {
                let error = Arc::new(error);
                for answer in answers.iter_mut().filter(|answer| answer.is_ok()) {
                    *answer = Err(SearchError::ReadFailed(error.clone()));
                }
            }
        }
        let spent = started.elapsed();
        for result in answers.iter_mut().flatten() {
            result.stats.coverage = spent;
            result.stats.total += spent;
        }
        Ok(())
    }

    /// Stage 1½: rules out the (query, block) pairs whose block summary cannot reach the
    /// threshold, reading the summary pages the chunk's k-mers need; returns what those reads
    /// cost.
    fn screen(
        &mut self,
        chunk_len: usize,
        options: &SearchOptions,
    ) -> Result<IoCounters, SearchError> {
        let blocks = self.index.blocks();
        let mut side = IoCounters::default();
        if !options.summaries || !self.index.summaries().any() {
            self.work.screen.clear(blocks.len(), chunk_len);
            return Ok(side);
        }
        let input = ScreenInput {
            headers: self.index.headers(),
            blocks,
            first_block: self.index.first_blocks(),
            summaries: self.index.summaries(),
            arena: &self.arena,
            selected: &self.work.selected,
            queries: chunk_len,
            threshold: options.threshold,
        };
        let mut reads = ScreenReads {
            engine: self.engine.as_mut(),
            side_cache: self.index.side_cache().map(|c| &**c),
            paths: self.index.read_paths(),
            counters: &mut side,
        };
        self.work.screen.run(&input, &mut reads)?;
        Ok(side)
    }

    /// Sizes and zeroes the counters and pruning states of the chunk's units; units not
    /// searched or ruled out by the screen start dead, with no counters.
    fn reset_counters(&mut self, chunk_len: usize, options: &SearchOptions) {
        let index_count = self.index.file_count();
        let (arena, selected, screen) = (&self.arena, &self.work.selected, &self.work.screen);
        self.work
            .counters
            .reset(self.index.blocks(), chunk_len, |number, block, query| {
                let kmers = arena.query(query, block.index as usize);
                let needed = count_threshold(options.threshold, kmers.positions);
                let unit = Unit::new(kmers.positions, needed, options.prune);
                let searched = selected[query * index_count + block.index as usize]
                    && !screen.ruled_out(number, query, chunk_len);
                (unit, searched)
            });
    }

    /// Stage 3 from memory: scores every unit where its rows lie.
    fn score_resident(&mut self, chunk_len: usize) -> Result<ChunkOutcome, SearchError> {
        let (files, source) =
            in_memory(self.engine.as_ref(), self.image.as_deref()).expect("rows in memory");
        let paths = self.index.read_paths();
        let bytes: Vec<&[u8]> = (0..paths.len() as u32).map(|f| files.bytes(f)).collect();
        let input = ResidentInput {
            blocks: self.index.blocks(),
            files: &bytes,
            source: files,
            integrity: self.index.integrity(),
            paths,
            arena: &self.arena,
            queries: chunk_len,
        };
        let threads = self.threads.max(1);
        let mut rows = vec![0u64; chunk_len];
        let done = resident::score(
            &input,
            &mut self.work.counters,
            &mut self.work.resident,
            threads,
            &mut rows,
        );
        let mut failed = vec![None; chunk_len];
        for (q, error) in done.failures {
            failed[q].get_or_insert_with(|| Arc::new(error));
        }
        for (share, rows) in self.work.shares.iter_mut().zip(rows) {
            share.rows = rows;
        }
        let mut batch = BatchStats::new(self.batches, self.engine.kind(), source);
        batch.threads = threads as u32;
        batch.parts = 1;
        batch.row_reads_requested = self.lookups_of_chunk(chunk_len);
        batch.units_pruned = done.units_pruned;
        batch.accumulate = done.accumulate;
        Ok(ChunkOutcome { batch, failed })
    }

    /// Row lookups of every query of the chunk (all of its distinct k-mers, every block).
    fn lookups_of_chunk(&self, chunk_len: usize) -> u64 {
        (0..chunk_len).map(|q| self.lookups_of_query(q)).sum()
    }

    /// Row lookups of query `q` of the chunk.
    fn lookups_of_query(&self, q: usize) -> u64 {
        let index_count = self.index.file_count();
        self.index
            .headers()
            .iter()
            .enumerate()
            .filter(|&(x, _)| self.work.selected[q * index_count + x])
            .map(|(x, h)| {
                self.arena.query(q, x).count as u64 * h.num_hashes as u64 * h.blocks.len() as u64
            })
            .sum()
    }

    /// Unique k-mers planned per part of a single query too large for one batch.
    fn kmers_per_part(&self) -> usize {
        let blocks = self.index.blocks();
        let lookups_per_kmer: usize = blocks
            .iter()
            .map(|b| b.num_hashes as usize)
            .sum::<usize>()
            .max(1);
        let mut part = (LOOKUPS_PER_BATCH_MAX / lookups_per_kmer).max(1);
        if blocks.iter().any(|b| b.num_hashes > 1) {
            let row_bytes_max = blocks.iter().map(|b| b.row_bytes).max().unwrap_or(1) as usize;
            part = part.min((AND_BYTES_MAX / (2 * row_bytes_max)).max(1));
        }
        part
    }

    /// Stages 2 and 3 through the engine: plans and reads the chunk in waves of its k-mers
    /// (see [`waves`]), each in parts when a single query is too large to plan at once.
    fn read_and_score(
        &mut self,
        chunk_len: usize,
        options: &SearchOptions,
    ) -> Result<ChunkOutcome, SearchError> {
        let part = if chunk_len == 1 {
            self.kmers_per_part()
        } else {
            usize::MAX
        };
        let mut batch = BatchStats::new(self.batches, self.engine.kind(), RowSource::Reads);
        let mut io = IoCounters::default();
        let mut executed = ExecuteCounters::default();
        let cache_before = self.cache.as_ref().map(|c| c.stats());
        self.work.failures.clear();
        let bounds = waves(options);
        for wave in bounds.windows(2) {
            let span = self.largest_wave(chunk_len, wave[0], wave[1]);
            let mut offset = 0usize;
            while offset < span {
                let planned_at = Instant::now();
                self.plan_part(chunk_len, |len| {
                    let range = wave_range(len, wave[0], wave[1]);
                    let start = range.start.saturating_add(offset).min(range.end);
                    start..start.saturating_add(part).min(range.end)
                });
                batch.planning += planned_at.elapsed();
                batch.row_reads_requested += self.work.plan.lookups.len() as u64;
                batch.unique_rows += self.work.plan.rows.len() as u64;
                batch.unique_pages_4k += self.work.plan.pages_4k;
                let done = self.execute_part(chunk_len, &mut io)?;
                executed.reads_pruned += done.reads_pruned;
                executed.units_pruned += done.units_pruned;
                executed.accumulate += done.accumulate;
                batch.parts += 1;
                offset = offset.saturating_add(part);
            }
        }
        if let (Some(before), Some(cache)) = (cache_before, self.cache.as_ref()) {
            let after = cache.stats();
            batch.cache_hits = after.hits - before.hits;
            batch.cache_misses = after.misses - before.misses;
        }
        batch.read_requests = io.read_requests;
        batch.bytes_read = io.bytes_read;
        batch.side_read_requests = io.side_read_requests;
        batch.side_bytes_read = io.side_bytes_read;
        share_side_reads(&mut self.work.shares, &io);
        batch.retries = io.retries;
        batch.add_remote(&io);
        batch.io_wait = io.io_wait;
        batch.reads_pruned = executed.reads_pruned;
        batch.reads_from_cache = io.cached;
        batch.units_pruned = executed.units_pruned;
        batch.accumulate = executed.accumulate;
        let mut failed = vec![None; chunk_len];
        for failure in self.work.failures.drain(..) {
            let error = Arc::new(failure.error);
            for q in failure.queries {
                failed[q as usize].get_or_insert_with(|| error.clone());
            }
        }
        Ok(ChunkOutcome { batch, failed })
    }

    /// The most distinct k-mers any (query, index) of the chunk has in the wave `from..to`.
    fn largest_wave(&self, chunk_len: usize, from: f64, to: f64) -> usize {
        let index_count = self.index.file_count();
        (0..chunk_len * index_count)
            .map(|i| {
                let len = self.arena.query(i / index_count, i % index_count).count as usize;
                wave_range(len, from, to).len()
            })
            .max()
            .unwrap_or(0)
    }

    /// Stage 2: plans the lookups of k-mers `kmers` (positions within each query's distinct
    /// k-mers) of every query of the chunk.
    fn plan_part(&mut self, chunk_len: usize, kmers: impl Fn(usize) -> Range<usize>) {
        self.work.plan.clear();
        for (number, block) in self.index.blocks().iter().enumerate() {
            let hashes = self.arena.hashes(block.index as usize);
            let minimizers = self.arena.minimizers(block.index as usize);
            let h = block.num_hashes as usize;
            for q in 0..chunk_len {
                // Not searched, ruled out by its summary, or pruned in an earlier part.
                let unit = self.work.counters.unit_index(q as u32, number as u32);
                if self.work.counters.unit(unit).dead {
                    continue;
                }
                let range = self.arena.query(q, block.index as usize).range();
                let part = kmers(range.len());
                let (from, to) = (range.start + part.start, range.start + part.end);
                if from < to {
                    self.work.plan.add_block_lookups(
                        number as u32,
                        block,
                        q as u32,
                        &hashes[..to * h],
                        minimizers,
                        from as u32..to as u32,
                    );
                }
            }
        }
        self.work.plan.finish(self.index.blocks(), &self.shape);
        self.work.plan.count_query_pages(
            self.index.blocks(),
            &mut self.work.pages,
            &mut self.work.last_page,
        );
    }

    /// Stage 3: reads the plan and adds every row as it arrives.
    fn execute_part(
        &mut self,
        chunk_len: usize,
        io: &mut IoCounters,
    ) -> Result<ExecuteCounters, SearchError> {
        if self.work.plan.pair_count > 0 {
            let blocks = self.index.blocks();
            let row_bytes_max = blocks.iter().map(|b| b.row_bytes).max().unwrap_or(1);
            self.work
                .and
                .reset(self.work.plan.pair_count as usize, row_bytes_max as usize);
        }
        self.work.last_read.clear();
        self.work.last_read.resize(chunk_len, u32::MAX);
        let layers = self.index.layers(self.cache.as_deref());
        let mut executor = Executor {
            plan: &self.work.plan,
            blocks: self.index.blocks(),
            weights: self.arena.all_weights(),
            counters: self.work.counters.slice_mut(),
            queries: chunk_len,
            and: &mut self.work.and,
            shares: &mut self.work.shares,
            last_read: &mut self.work.last_read,
            charged: &mut self.work.charged,
            failures: &mut self.work.failures,
            counters_out: ExecuteCounters::default(),
        };
        let reads = &self.work.plan.reads;
        with_layers(
            self.engine.as_mut(),
            &layers,
            &mut self.work.layers,
            |engine| engine.read_batch(ReadBatch::new(reads, &mut executor, io)),
        )?;
        Ok(executor.counters_out)
    }

    /// Stage 4 for query `q` of the chunk: its hits and stats.
    fn result(
        &self,
        q: usize,
        hashing: Duration,
        batch: &Arc<BatchStats>,
        options: &SearchOptions,
    ) -> QueryResult {
        let ranked_at = Instant::now();
        let index_count = self.index.file_count();
        let kmers_total: Vec<u64> = (0..index_count)
            .map(|x| self.arena.query(q, x).positions)
            .collect();
        let lookups_single: u64 = (0..index_count)
            .map(|x| self.arena.query(q, x).positions * self.index.headers()[x].num_hashes as u64)
            .sum();
        let selected = &self.work.selected[q * index_count..(q + 1) * index_count];
        let blocks = self.index.blocks();
        let fills = self.fills();
        let threshold = options.threshold;
        let keep = |block: u32, local: u64, count: u64| {
            if !options.corrected || options.raw_threshold {
                return true;
            }
            let total = kmers_total[blocks[block as usize].index as usize];
            fills
                .document(block, local)
                .is_none_or(|fill| Corrected::of(count, total, fill, threshold).reported(threshold))
        };
        let ranked = rank_kept(
            blocks,
            &self.work.counters,
            q,
            &kmers_total,
            &RankOptions {
                threshold: options.threshold,
                limit: options.limit,
                offset: options.offset,
                unsorted: options.cobs_order && lookups_single <= 1,
            },
            (|index| selected[index as usize], keep),
            self.index.hidden(),
            options.group_by.as_deref().map(|grouping| {
                let only = options.only_group.as_deref();
                (grouping, only.map(|value| grouping.group_number(value)))
            }),
        );
        let documents_searched = (0..index_count)
            .filter(|&x| selected[x])
            .map(|x| self.index.shown_documents(x as u32))
            .sum();
        let mut stats = QueryStats::new(batch.engine, batch.source);
        stats.batch = batch.batch;
        stats.batch_queries = batch.queries;
        stats.kmers = kmers_total.iter().copied().max().unwrap_or(0);
        stats.unique_kmers = (0..index_count)
            .map(|x| self.arena.query(q, x).count as u64)
            .max()
            .unwrap_or(0);
        stats.row_reads_requested = self.lookups_of_query(q);
        let share = self.work.shares[q];
        stats.rows_added = share.rows;
        stats.read_requests = share.reads;
        stats.bytes_read = share.bytes;
        stats.side_bytes_read = share.side_bytes;
        stats.unique_pages_4k = self.work.pages[q];
        stats.blocks_ruled_out = self.work.screen.blocks_ruled_out(q);
        stats.blocks_pruned = (0..self.index.blocks().len())
            .filter(|&b| {
                let unit = self.work.counters.unit_index(q as u32, b as u32);
                self.work.counters.unit(unit).pruned
            })
            .count() as u64;
        let corrected = match options.corrected {
            true => self.corrected(&ranked.hits, &kmers_total, threshold),
            false => Vec::new(),
        };
        stats.hashing = hashing;
        stats.ranking = ranked_at.elapsed();
        stats.total = hashing + batch.total + stats.ranking;
        QueryResult {
            kmers_total,
            hits: ranked.hits,
            total_hits: ranked.total,
            documents_searched,
            groups: ranked.groups,
            stats,
            batch: batch.clone(),
            coverage: Vec::new(),
            corrected,
        }
    }
}

impl Session {
    /// Where the fills of the chunk's documents come from ([`super::fill`]).
    fn fills(&self) -> FillSource<'_> {
        FillSource {
            index: &self.index,
            pins: &self.work.ones,
        }
    }

    /// The corrected score of each of `hits` (a hit whose fill is unknown, which
    /// [`Session::fill`] prevents, counts as a document with no bit set).
    fn corrected(&self, hits: &[Hit], kmers_total: &[u64], threshold: f64) -> Vec<Corrected> {
        let blocks = self.index.blocks();
        let fills = self.fills();
        hits.iter()
            .map(|hit| {
                let block = self.index.block_of(hit);
                let plan_block = &blocks[block as usize];
                let local = hit.document - plan_block.first_document;
                let fill = fills.document(block, local).unwrap_or(DocumentFill {
                    ones: 0,
                    sampled: 1,
                    row_count: 1,
                    hashes: plan_block.num_hashes,
                });
                let total = kmers_total[hit.index as usize];
                Corrected::of(hit.kmers_found as u64, total, fill, threshold)
            })
            .collect()
    }
}

/// Adds the reads that learnt the chunk's fills (`io`: pages of counts of ones as side
/// reads, sampled rows as reads) to the batch's stats, and to its queries in equal shares.
fn add_fill_reads(batch: &mut BatchStats, shares: &mut [QueryShare], io: &IoCounters) {
    batch.read_requests += io.read_requests;
    batch.bytes_read += io.bytes_read;
    batch.side_read_requests += io.side_read_requests;
    batch.side_bytes_read += io.side_bytes_read;
    batch.add_remote(io);
    let queries = shares.len() as u64;
    if queries == 0 {
        return;
    }
    let (reads, bytes) = (io.read_requests, io.bytes_read);
    let side = io.side_bytes_read;
    for (i, share) in shares.iter_mut().enumerate() {
        let i = i as u64;
        share.reads += reads / queries + u64::from(i < reads % queries);
        share.bytes += bytes / queries + u64::from(i < bytes % queries);
        share.side_bytes += side / queries + u64::from(i < side % queries);
    }
}

/// Charges the side reads of a chunk (the checksum pages its row reads needed) to its
/// queries in equal shares, so that the queries' shares still add up to the batch's reads.
fn share_side_reads(shares: &mut [QueryShare], io: &IoCounters) {
    let queries = shares.len() as u64;
    if queries == 0 {
        return;
    }
    let (reads, bytes) = (io.side_read_requests, io.side_bytes_read);
    for (i, share) in shares.iter_mut().enumerate() {
        let i = i as u64;
        let side = bytes / queries + u64::from(i < bytes % queries);
        share.reads += reads / queries + u64::from(i < reads % queries);
        share.bytes += side;
        share.side_bytes += side;
    }
}

/// Where the waves of a chunk's reads end, as fractions of each query's distinct k-mers: a
/// unit can die only once more than `n − T` of its `n` positions are in (about `1 − t` of
/// them), and blocks without a carrier die a little later (their Bloom false positives keep
/// some documents' counts up), so the first wave ends 0.1 past `1 − t` and the second
/// halfway to the end. Without pruning, or at threshold 0, one wave.
fn waves(options: &SearchOptions) -> Vec<f64> {
    let first = 1.0 - options.threshold + 0.1;
    if !options.waves || !options.prune || options.threshold <= 0.0 || first >= 0.9 {
        return vec![0.0, 1.0];
    }
    vec![0.0, first, first + (1.0 - first) / 2.0, 1.0]
}

/// The distinct k-mers of a query with `len` of them in the wave `from..to` (fractions; the
/// waves of [`waves`] cover `0..len` exactly once).
fn wave_range(len: usize, from: f64, to: f64) -> Range<usize> {
    let at = |f: f64| {
        if f >= 1.0 {
            len
        } else {
            ((f * len as f64).floor() as usize).min(len)
        }
    };
    at(from)..at(to)
}

/// The read shape of a session: the engine's ([`ReadEngine::read_shape`]), whole pages of
/// `cache` when there is one, and the merge gap and largest read `config` asks for.
fn configured_shape(
    index: &Index,
    engine: &dyn ReadEngine,
    cache: Option<&PageCache>,
    config: &SessionConfig,
) -> ReadShape {
    // The engine says how it wants to be read; checksum pages and a cache only widen alignment.
    let alignment = read_alignment(index, engine.alignment());
    let mut shape = ReadShape {
        alignment,
        ..engine.read_shape()
    };
    if let Some(cache) = cache {
        shape.alignment = alignment.max(cache.page_size() as u64);
    }
    shape.gap_bytes = config.merge_gap.unwrap_or(shape.gap_bytes);
    shape.read_bytes_max = config
        .read_max
        .unwrap_or(shape.read_bytes_max)
        .max(shape.alignment);
    shape
}

/// Offsets and lengths of reads: the engine's alignment, and whole 4 KiB pages when a file
/// has checksums (a page is the unit they are checked in).
fn read_alignment(index: &Index, engine_alignment: u64) -> u64 {
    if index.integrity().any() {
        engine_alignment.max(crate::format::CHECKSUM_PAGE_BYTES)
    } else {
        engine_alignment
    }
}

/// See [`Session::in_memory`]; apart so that the bytes can be borrowed beside the scratch.
fn in_memory<'a>(
    engine: &'a dyn ReadEngine,
    image: Option<&'a MemoryImage>,
) -> Option<(&'a dyn ResidentFiles, RowSource)> {
    if let Some(files) = engine.resident() {
        return Some((files, RowSource::Resident));
    }
    Some((image?.resident()?, RowSource::Image))
}
