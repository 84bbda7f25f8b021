//! Stage 1½ of a query: blocks that cannot hold a hit are ruled out before any row is read.
//!
//! A block summary ([`crate::summary`]) is a filter of the union of the k-mers of a block's
//! documents, with no false negatives. If it holds fewer of a query's positions than the
//! threshold needs, no document of the block can reach the threshold, so the block's rows
//! are neither read nor scored: the (query, block) unit starts dead. Documents that COBS
//! would report only through Bloom false positives of such a block are not reported; every
//! document that truly holds the query at the threshold is (`--no-summaries` turns this off
//! and gives COBS's exact scores).
//!
//! Summaries are never loaded whole. Opening an index reads each summaries file's header
//! ([`Summaries::open`]); a chunk of queries then asks for the pages its k-mers' minimizer
//! buckets lie in, reads them in one batch through the session's engine (from the side cache
//! when it holds them, counted as the batch's side reads), and probes them. A page is one read
//! request per distinct minimizer of a query (~90 for a gene), as many as the rows a gene
//! needs from one block in the minimizer layout, so it goes in two rounds when the threshold
//! allows ([`sample_fraction`]): first the buckets of a sample of the query's k-mers, counting
//! the others as present (a bound, so a block ruled out then is ruled out for good: an absent
//! gene's blocks are, after ~a third of the pages); then, only for a query whose sample left a
//! block that looks short of the threshold without proving it, every bucket. A page that is
//! damaged rules nothing out (its k-mers count as present in every block), so it can only
//! cost reads, never a hit. Format-1 files of earlier versions, which only a whole read can
//! check, are read whole by the first search that uses them if they fit the side memory
//! budget, and are otherwise not used. A summaries file that is damaged or belongs to another
//! index is not used either: its index is read in full, and the problem is reported once.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use crate::format::IndexHeader;
use crate::io::{IoCounters, IoError, PageCache, ReadBatch, ReadConsumer, ReadEngine, ReadRequest};
use crate::read::{PinnedPages, PINNED_PAGES_MAX};
use crate::summary::{
    prepare_probes, summary_path, BlockSummaries, Layout, Probe, SummaryError, SummarySource,
    PAGE_BYTES,
};
use crate::units::format_bytes;

use super::hashing::KmerArena;
use super::hit::count_threshold;
use super::plan::PlanBlock;

/// One file's summaries as a search uses them.
#[derive(Debug)]
enum FileSummaries {
    /// Format 2: the header in memory, pages read per chunk from engine file `file`.
    Paged { layout: Layout, file: u32 },
    /// Format 1, of `bytes` bytes, read whole through engine file `file` at first use.
    Whole {
        file: u32,
        bytes: u64,
        loaded: OnceLock<Option<BlockSummaries>>,
    },
}

/// The block summaries of every file of an index (`None` where a file has none or they
/// cannot be used); see the module documentation.
#[derive(Debug, Default)]
pub(crate) struct Summaries {
    files: Vec<Option<FileSummaries>>,
    problems: Mutex<Vec<String>>,
}

impl Summaries {
    /// Opens the summaries beside every file (headers only). Files get engine numbers from
    /// `first_side_file` on, in file order; returns them with their paths. Format-1 files are
    /// used only if they fit `budget` bytes together; what is not used is recorded as a
    /// problem and its index searched without.
    pub(crate) fn open(
        headers: &[IndexHeader],
        first_side_file: u32,
        budget: u64,
    ) -> (Summaries, Vec<PathBuf>) {
        let mut summaries = Summaries::default();
        let mut paths = Vec::new();
        let mut whole_bytes = 0u64;
        for header in headers {
            let next = first_side_file + paths.len() as u32;
            let opened = match crate::summary::open(&header.path, header) {
                Ok(Some(SummarySource::Whole { bytes })) if whole_bytes + bytes > budget => {
                    Err(SummaryError::TooLarge {
                        path: summary_path(&header.path),
                        size: format_bytes(bytes),
                        budget: format_bytes(budget),
                    })
                }
                other => other,
            };
            let file = match opened {
                Ok(None) => None,
                Ok(Some(SummarySource::Paged(layout)))
                    if header
                        .rows
                        .minimizer_length()
                        .is_some_and(|m| m != layout.minimizer) =>
                {
                    summaries.problem(format!(
                        "{}: its block summaries place k-mers by {}-mer minimizers but the index's rows by {}-mers; the index is searched without its block summaries",
                        header.path.display(),
                        layout.minimizer,
                        header.rows.minimizer_length().unwrap_or(0)
                    ));
                    None
                }
                Ok(Some(SummarySource::Paged(layout))) => {
                    Some(FileSummaries::Paged { layout, file: next })
                }
                Ok(Some(SummarySource::Whole { bytes })) => {
                    whole_bytes += bytes;
                    Some(FileSummaries::Whole {
                        file: next,
                        bytes,
                        loaded: OnceLock::new(),
                    })
                }
                Err(error) => {
                    summaries.problem(format!(
                        "{error}; the index is searched without its block summaries"
                    ));
                    None
                }
            };
            if file.is_some() {
                paths.push(summary_path(&header.path));
            }
            summaries.files.push(file);
        }
        (summaries, paths)
    }

    fn problem(&self, text: String) {
        let mut problems = self.problems.lock().unwrap_or_else(|p| p.into_inner());
        if !problems.contains(&text) {
            tracing::warn!("{text}");
            problems.push(text);
        }
    }

    /// Whether any file has usable summaries.
    pub(crate) fn any(&self) -> bool {
        self.files.iter().any(Option::is_some)
    }

    /// Minimizer length of file `index`'s summaries, when they place k-mers by minimizer.
    pub(crate) fn minimizer(&self, index: usize) -> Option<u32> {
        match self.files.get(index)? {
            Some(FileSummaries::Paged { layout, .. }) => Some(layout.minimizer),
            _ => None,
        }
    }

    /// The engine file and size of file `index`'s summaries file.
    pub(crate) fn file_of(&self, index: usize) -> Option<(u32, u64)> {
        match self.files.get(index)? {
            Some(FileSummaries::Paged { layout, file }) => Some((*file, layout.file_bytes())),
            Some(FileSummaries::Whole { file, bytes, .. }) => Some((*file, *bytes)),
            None => None,
        }
    }

    /// Bytes of the format-1 files, which are read whole.
    pub(crate) fn whole_bytes(&self) -> u64 {
        self.files
            .iter()
            .flatten()
            .map(|f| match f {
                FileSummaries::Whole { bytes, .. } => *bytes,
                FileSummaries::Paged { .. } => 0,
            })
            .sum()
    }

    /// Bytes of the summaries files on disk.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn file_bytes(&self) -> u64 {
        (0..self.files.len())
            .filter_map(|f| self.file_of(f))
            .map(|(_, b)| b)
            .sum()
    }

    /// Memory held for all queries: headers of paged files, format-1 files read whole.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn resident_bytes(&self) -> u64 {
        self.files
            .iter()
            .flatten()
            .map(|f| match f {
                FileSummaries::Paged { layout, .. } => layout.header_pages * PAGE_BYTES,
                FileSummaries::Whole { loaded, bytes, .. } => {
                    loaded.get().map_or(0, |l| l.as_ref().map_or(0, |_| *bytes))
                }
            })
            .sum()
    }

    /// Summaries files that exist but could not be used, with why.
    pub(crate) fn problems(&self) -> Vec<String> {
        self.problems
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// Reused buffers of the screen.
#[derive(Default)]
pub(crate) struct Screen {
    probes: Vec<Probe>,
    /// Per probe of the query being screened: the first page of its bucket.
    pages: Vec<u64>,
    /// Per probe of the query being screened: whether the first round probes it.
    sampled: Vec<bool>,
    /// Per query of the chunk: whether its sample left a block for the second round.
    more: Vec<bool>,
    /// Probe numbers in bucket order (scratch).
    order: Vec<u32>,
    /// Per (block, query) of the chunk, block-major: ruled out by its block's summary.
    ruled_out: Vec<bool>,
    /// Per query of the chunk: blocks ruled out.
    per_query: Vec<u64>,
    /// Per query of the chunk: its share of the summary pages read.
    side: Vec<(u64, u64)>,
    /// Bytes of summary pages the chunk used.
    used_bytes: u64,
    pins: PinnedPages,
}

/// What the screen needs of a chunk.
pub(crate) struct ScreenInput<'a> {
    /// The headers of the index's files.
    pub headers: &'a [IndexHeader],
    /// The flattened blocks of the index.
    pub blocks: &'a [PlanBlock],
    /// Per file: the number of its first block in `blocks`.
    pub first_block: &'a [u32],
    /// The summaries.
    pub summaries: &'a Summaries,
    /// The chunk's hashed queries.
    pub arena: &'a KmerArena,
    /// Per (query, index): whether the query searches that index.
    pub selected: &'a [bool],
    /// Queries in the chunk.
    pub queries: usize,
    /// The fraction of positions a document needs.
    pub threshold: f64,
}

/// How the screen reads summary pages: the session's engine and the index's side cache.
pub(crate) struct ScreenReads<'a> {
    /// The engine (with every side file among its files).
    pub engine: &'a mut dyn ReadEngine,
    /// The side cache, if any.
    pub side_cache: Option<&'a PageCache>,
    /// Every engine file's path, for errors.
    pub paths: &'a [PathBuf],
    /// The batch's counters; summary reads are added as side reads.
    pub counters: &'a mut IoCounters,
}

impl Screen {
    /// Forgets the previous chunk: nothing is ruled out.
    pub(crate) fn clear(&mut self, blocks: usize, queries: usize) {
        self.ruled_out.clear();
        self.ruled_out.resize(blocks * queries, false);
        self.per_query.clear();
        self.per_query.resize(queries, 0);
        self.side.clear();
        self.side.resize(queries, (0, 0));
        self.used_bytes = 0;
    }

    /// Rules out every (query, block) whose summary cannot reach the query's threshold.
    pub(crate) fn run(
        &mut self,
        input: &ScreenInput,
        reads: &mut ScreenReads,
    ) -> Result<(), IoError> {
        self.clear(input.blocks.len(), input.queries);
        for file in 0..input.first_block.len() {
            match input.summaries.files.get(file).and_then(Option::as_ref) {
                Some(FileSummaries::Paged {
                    layout,
                    file: engine_file,
                }) => self.screen_paged(input, reads, file, layout, *engine_file)?,
                Some(FileSummaries::Whole {
                    file: engine_file,
                    bytes,
                    loaded,
                }) => {
                    let whole =
                        loaded.get_or_init(|| load_whole(input, reads, file, *engine_file, *bytes));
                    if let Some(whole) = whole {
                        self.screen_whole(input, file, whole);
                    }
                }
                None => {}
            }
        }
        Ok(())
    }

    /// The queries of the chunk that search file `file` and can be ruled out at all.
    fn screened_queries<'a>(
        &self,
        input: &'a ScreenInput,
        file: usize,
    ) -> impl Iterator<Item = (usize, u64)> + 'a {
        let files = input.first_block.len();
        (0..input.queries).filter_map(move |q| {
            let needed = count_threshold(input.threshold, input.arena.query(q, file).positions);
            (input.selected[q * files + file] && needed > 0).then_some((q, needed))
        })
    }

    /// Screens file `file` against its format-2 summaries: the queries in windows whose
    /// pages fit [`PINNED_PAGES_MAX`], each window's pages read in one batch.
    fn screen_paged(
        &mut self,
        input: &ScreenInput,
        reads: &mut ScreenReads,
        file: usize,
        layout: &Layout,
        engine_file: u32,
    ) -> Result<(), IoError> {
        let mut queries: Vec<(usize, u64)> = self.screened_queries(input, file).collect();
        let fraction = sample_fraction(input.threshold);
        if fraction < 1.0 {
            self.more.clear();
            self.more.resize(input.queries, false);
            let file = (file, layout, engine_file);
            self.screen_round(input, reads, file, &queries, Some(fraction))?;
            queries.retain(|&(q, _)| self.more[q]);
        }
        self.screen_round(input, reads, (file, layout, engine_file), &queries, None)
    }

    /// One round of [`Screen::screen_paged`] over `queries`: each window's pages read in one
    /// batch, then probed; with `sample`, only the buckets of that fraction of each query's
    /// positions.
    fn screen_round(
        &mut self,
        input: &ScreenInput,
        reads: &mut ScreenReads,
        (file, layout, engine_file): (usize, &Layout, u32),
        queries: &[(usize, u64)],
        sample: Option<f64>,
    ) -> Result<(), IoError> {
        let mut start = 0;
        while start < queries.len() {
            self.pins.clear();
            let mut end = start;
            while end < queries.len() {
                self.want_pages(input, layout, engine_file, file, queries[end].0, sample);
                if end > start && self.pins.distinct() > PINNED_PAGES_MAX {
                    // This query's pages do not fit: the window ends before it.
                    self.pins.clear();
                    for &(q, _) in &queries[start..end] {
                        self.want_pages(input, layout, engine_file, file, q, sample);
                    }
                    break;
                }
                end += 1;
            }
            let mut side = IoCounters::default();
            self.pins.fetch(
                &mut *reads.engine,
                reads.side_cache,
                &|_, page, bytes| Ok(layout.check_page(page, bytes)?),
                reads.paths,
                &mut side,
            )?;
            self.used_bytes += self.pins.distinct() as u64 * PAGE_BYTES;
            self.charge(&queries[start..end], &side);
            reads.counters.add(&side);
            for &(q, needed) in &queries[start..end] {
                let target = (file, engine_file, q, needed);
                match sample {
                    Some(fraction) => self.probe_sample(input, layout, target, fraction),
                    None => self.probe_paged(input, layout, target),
                }
            }
            start = end;
        }
        Ok(())
    }

    /// Asks for the bucket pages of query `q`'s k-mers in file `file` (with `sample`, of
    /// those [`Screen::select_sample`] picks).
    fn want_pages(
        &mut self,
        input: &ScreenInput,
        layout: &Layout,
        engine_file: u32,
        file: usize,
        q: usize,
        sample: Option<f64>,
    ) {
        self.prepare(input, layout.hashes, file, q);
        if let Some(fraction) = sample {
            self.select_sample(input, layout, file, q, fraction);
        }
        for (i, probe) in self.probes.iter().enumerate() {
            if sample.is_some() && !self.sampled[i] {
                continue;
            }
            let first = layout.bucket_page(layout.bucket(probe));
            for page in first..first + layout.pages_per_bucket() {
                self.pins.want(engine_file, page);
            }
        }
    }

    /// Probes of query `q`'s distinct k-mers in file `file`, for filters of `bits` bits.
    fn prepare(&mut self, input: &ScreenInput, bits: u32, file: usize, q: usize) {
        let h = input.blocks[input.first_block[file] as usize].num_hashes as usize;
        let range = input.arena.query(q, file).range();
        let minimizers = input.arena.minimizers(file);
        let minimizers = if minimizers.is_empty() {
            &[][..]
        } else {
            &minimizers[range.clone()]
        };
        prepare_probes(
            &input.arena.hashes(file)[range.start * h..range.end * h],
            h,
            minimizers,
            bits,
            &mut self.probes,
        );
    }

    /// [`Self::prepare`] for the paged summaries of `layout`, and in `pages` the first page of
    /// each probe's bucket.
    fn prepare_paged(&mut self, input: &ScreenInput, layout: &Layout, file: usize, q: usize) {
        self.prepare(input, layout.hashes, file, q);
        self.pages.clear();
        self.pages.extend(
            self.probes
                .iter()
                .map(|p| layout.bucket_page(layout.bucket(p))),
        );
    }

    /// Marks in `sampled` the probes of whole buckets, in bucket order, until they hold
    /// `fraction` of query `q`'s positions: a sample the same whichever round asks for it.
    fn select_sample(
        &mut self,
        input: &ScreenInput,
        layout: &Layout,
        file: usize,
        q: usize,
        fraction: f64,
    ) {
        let weights = &input.arena.weights(file)[input.arena.query(q, file).range()];
        debug_assert_eq!(weights.len(), self.probes.len());
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        let wanted = (fraction * total as f64).ceil() as u64;
        self.order.clear();
        self.order.extend(0..self.probes.len() as u32);
        let probes = &self.probes;
        self.order
            .sort_unstable_by_key(|&i| (layout.bucket(&probes[i as usize]), i));
        self.sampled.clear();
        self.sampled.resize(self.probes.len(), false);
        let (mut covered, mut last) = (0u64, None);
        for &i in &self.order {
            let bucket = layout.bucket(&self.probes[i as usize]);
            if covered >= wanted && last != Some(bucket) {
                break;
            }
            self.sampled[i as usize] = true;
            covered += weights[i as usize] as u64;
            last = Some(bucket);
        }
    }

    /// The first round for query `q`: rules out the blocks of file `file` that cannot reach
    /// `needed` even if every k-mer outside the sample is present, and notes whether a block
    /// left looks short of the threshold in the sample (the second round may rule it out).
    fn probe_sample(
        &mut self,
        input: &ScreenInput,
        layout: &Layout,
        (file, engine_file, q, needed): (usize, u32, usize, u64),
        fraction: f64,
    ) {
        self.prepare_paged(input, layout, file, q);
        self.select_sample(input, layout, file, q, fraction);
        let weights = &input.arena.weights(file)[input.arena.query(q, file).range()];
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        let first = input.first_block[file] as usize;
        let mut damaged = None;
        for local in 0..layout.blocks.len() {
            let (mut sampled, mut found) = (0u64, 0u64);
            for (i, &weight) in weights.iter().enumerate() {
                if !self.sampled[i] {
                    continue;
                }
                sampled += weight as u64;
                let probe = &self.probes[i];
                let (page, at) = layout.word_at(layout.bucket(probe), local, probe);
                // A missing or damaged page rules nothing out.
                let present = match self.pins.page(engine_file, self.pages[i] + page) {
                    Some(Ok(bytes)) => bytes[at..at + 8]
                        .try_into()
                        .map(u64::from_le_bytes)
                        .map_or(true, |word| word & probe.mask() == probe.mask()),
                    _ => {
                        damaged.get_or_insert(self.pages[i]);
                        true
                    }
                };
                found += if present { weight as u64 } else { 0 };
            }
            if found + (total - sampled) < needed {
                self.ruled_out[(first + local) * input.queries + q] = true;
                self.per_query[q] += 1;
            } else if (found as f64) < input.threshold * sampled as f64 {
                self.more[q] = true;
            }
        }
        if let Some(page) = damaged {
            self.report_damage(input, engine_file, page);
        }
    }

    /// Says once that page `page` of a summaries file could not be used.
    fn report_damage(&self, input: &ScreenInput, engine_file: u32, page: u64) {
        let error = self
            .pins
            .page(engine_file, page)
            .and_then(|p| p.err().map(|e| e.to_string()));
        input.summaries.problem(format!(
            "{}; its blocks are read for the k-mers it holds",
            error.unwrap_or_else(|| format!("page {page} of the block summaries is missing"))
        ));
    }

    /// Rules out the blocks of file `file` that query `q` cannot reach, from the pinned pages
    /// (blocks a first round ruled out stay so).
    fn probe_paged(
        &mut self,
        input: &ScreenInput,
        layout: &Layout,
        (file, engine_file, q, needed): (usize, u32, usize, u64),
    ) {
        self.prepare_paged(input, layout, file, q);
        let weights = &input.arena.weights(file)[input.arena.query(q, file).range()];
        let first = input.first_block[file] as usize;
        let mut damaged = None;
        for local in 0..layout.blocks.len() {
            if self.ruled_out[(first + local) * input.queries + q] {
                continue;
            }
            let word = |i: usize| -> Option<u64> {
                let (page, at) =
                    layout.word_at(layout.bucket(&self.probes[i]), local, &self.probes[i]);
                match self.pins.page(engine_file, self.pages[i] + page)? {
                    Ok(bytes) => Some(u64::from_le_bytes(bytes[at..at + 8].try_into().ok()?)),
                    Err(_) => None,
                }
            };
            let reached = reaches(weights, needed, |i| match word(i) {
                Some(word) => word & self.probes[i].mask() == self.probes[i].mask(),
                None => {
                    damaged.get_or_insert(self.pages[i]);
                    true
                }
            });
            if !reached {
                self.ruled_out[(first + local) * input.queries + q] = true;
                self.per_query[q] += 1;
            }
        }
        if let Some(page) = damaged {
            self.report_damage(input, engine_file, page);
        }
    }

    /// Screens file `file` against its format-1 summaries, held whole.
    fn screen_whole(&mut self, input: &ScreenInput, file: usize, summaries: &BlockSummaries) {
        let first = input.first_block[file] as usize;
        let queries: Vec<(usize, u64)> = self.screened_queries(input, file).collect();
        for (q, needed) in queries {
            self.prepare(input, summaries.hashes(), file, q);
            let weights = &input.arena.weights(file)[input.arena.query(q, file).range()];
            for local in 0..summaries.block_count() {
                if !summaries.reaches(local, &self.probes, weights, needed) {
                    self.ruled_out[(first + local) * input.queries + q] = true;
                    self.per_query[q] += 1;
                }
            }
        }
    }

    /// Charges the side reads of a window to its queries in equal shares.
    fn charge(&mut self, window: &[(usize, u64)], side: &IoCounters) {
        let n = window.len().max(1) as u64;
        for (i, &(q, _)) in window.iter().enumerate() {
            let i = i as u64;
            self.side[q].0 += side.read_requests / n + u64::from(i < side.read_requests % n);
            self.side[q].1 += side.bytes_read / n + u64::from(i < side.bytes_read % n);
        }
    }

    /// Whether `block` is ruled out for `query`.
    pub(crate) fn ruled_out(&self, block: usize, query: usize, queries: usize) -> bool {
        self.ruled_out
            .get(block * queries + query)
            .copied()
            .unwrap_or(false)
    }

    /// Blocks ruled out for `query`.
    pub(crate) fn blocks_ruled_out(&self, query: usize) -> u64 {
        self.per_query.get(query).copied().unwrap_or(0)
    }

    /// Query `query`'s share of the summary pages read: (read requests, bytes).
    pub(crate) fn side_reads(&self, query: usize) -> (u64, u64) {
        self.side.get(query).copied().unwrap_or((0, 0))
    }

    /// Bytes of summary pages the chunk used (read, or found in the side cache).
    pub(crate) fn used_bytes(&self) -> u64 {
        self.used_bytes
    }
}

/// The fraction of a query's positions the first round of a summary screen probes at
/// threshold `threshold`: enough for a block that holds none of the query to be ruled out by
/// the sample alone (its absent k-mers, of which the summary's own false positives hide ~20 %,
/// must outweigh the `1 − threshold` a document may miss: 1.5 times that, plus 5 %), or 1 (one
/// round of every bucket) when that is most of them anyway.
pub(crate) fn sample_fraction(threshold: f64) -> f64 {
    let fraction = 1.5 * (1.0 - threshold) + 0.05;
    if fraction > 0.6 {
        1.0
    } else {
        fraction.max(0.05)
    }
}

/// Whether the positions whose k-mers `present(i)` says may be in a block reach `needed`,
/// stopping as soon as the answer is known.
#[inline]
fn reaches(weights: &[u32], needed: u64, mut present: impl FnMut(usize) -> bool) -> bool {
    let mut left: u64 = weights.iter().map(|&w| w as u64).sum();
    let mut found = 0u64;
    for (i, &w) in weights.iter().enumerate() {
        if found >= needed {
            return true;
        }
        if found + left < needed {
            return false;
        }
        left -= w as u64;
        if present(i) {
            found += w as u64;
        }
    }
    found >= needed
}

/// Reads a format-1 summaries file whole through the engine and checks it; `None` (and a
/// problem) when it cannot be used.
fn load_whole(
    input: &ScreenInput,
    reads: &mut ScreenReads,
    file: usize,
    engine_file: u32,
    bytes: u64,
) -> Option<BlockSummaries> {
    let header = &input.headers[file];
    let loaded = read_whole(reads, engine_file, bytes)
        .map_err(|e| e.to_string())
        .and_then(|data| {
            BlockSummaries::from_bytes(&header.path, header, &data).map_err(|e| e.to_string())
        });
    match loaded {
        Ok(whole) => Some(whole),
        Err(error) => {
            input.summaries.problem(format!(
                "{error}; the index is searched without its block summaries"
            ));
            None
        }
    }
}

/// Reads engine file `file` (`bytes` long) whole, in reads of 256 KiB, counted as side reads.
fn read_whole(reads: &mut ScreenReads, file: u32, bytes: u64) -> Result<Vec<u8>, IoError> {
    const CHUNK: u64 = 256 << 10;
    let align = reads.engine.alignment().max(1);
    let requests: Vec<ReadRequest> = (0..bytes.div_ceil(CHUNK))
        .map(|i| {
            let offset = i * CHUNK;
            let len = (bytes - offset).min(CHUNK).div_ceil(align) * align;
            ReadRequest {
                file,
                offset,
                len: len as u32,
            }
        })
        .collect();
    let mut data = vec![0u8; bytes as usize];
    let mut copy = |i: usize, got: &[u8]| {
        let start = (i as u64 * CHUNK) as usize;
        let take = got.len().min(data.len() - start);
        data[start..start + take].copy_from_slice(&got[..take]);
    };
    let mut side = IoCounters::default();
    let outcome = reads.engine.read_batch(ReadBatch::new(
        &requests,
        &mut copy as &mut dyn ReadConsumer,
        &mut side,
    ));
    reads.counters.add_side(&side);
    outcome.map(|()| data)
}
