//! Building a COBS compact index from FASTA/FASTQ files, in bounded memory.
//!
//! [`build`] runs two passes over the inputs:
//! 1. [`scan`] reads every file once to count k-mer positions (which size each block's Bloom
//!    filters, as COBS does) and rejects malformed input before anything is written; for the
//!    similarity order, and to size the summaries, it also sketches every document;
//! 2. documents are ordered ([`order`]: by size as COBS does, as given, by a metadata column,
//!    or by similarity) and cut into blocks of `8 · page_size`; each block's matrix is filled
//!    ([`matrix`]) and written in order, and its k-mers feed the block's summary filter
//!    ([`summaries`]), written beside the index as `INDEX.bitsift-summaries`.
//!
//! Memory: a block whose matrix fits the budget is built in memory and written directly.
//! A larger block is built in groups of byte columns, each spilled to an unnamed temporary
//! file, and then interleaved into rows; so any block can be built with any budget that holds
//! one byte column (`rows` bytes) per thread.
//!
//! The output is written under a temporary name and renamed when complete ([`output`]); the
//! block summaries are written and synced first, and renamed into place right after the index.
//! [`build_observed`] reports the progress of pass 2 to a [`BuildObserver`] (the Python
//! package's progress callback) and lets it stop the build.
//! Sequences are read with [`crate::alphabet`]'s standard rule: soft-masked (lowercase) bases
//! count as uppercase, whitespace is dropped, `U` is `T`, and a record that is not a
//! nucleotide sequence (a protein, say) fails the build, naming the file and the record.
//! `N` and the IUPAC codes follow COBS (they become `A`), see [`crate::kmer`].

pub mod classic;
mod cluster;
pub(crate) mod inputs;
pub mod layout;
pub(crate) mod matrix;
mod metadata;
pub mod order;
pub(crate) mod output;
mod per_record;
mod record;
pub(crate) mod scan;
mod sketch;
pub mod summaries;

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use crate::doclist::{DocListError, DocumentList};
use crate::format::fingerprint;
use crate::format::ones::OnesCounter;
use crate::format::{
    write_compact_header, CompactLayout, LayoutChoice, RowLayout, HASHES_MAX, K_MAX, PAGE_SIZE_MAX,
};
use crate::seqfile::SeqFileError;
use crate::summary::file::SummaryFile;
use crate::summary::filter::SharedFilter;
use crate::summary::identity::IndexIdentity;
use crate::summary::summary_path;
use crate::units::format_bytes;
use layout::BlockPlan;
use matrix::BlockFill;
use order::Order;
use output::{parent_directory, write_error, PendingFile};
use scan::Document;
use summaries::{SummaryBuilder, SummaryOptions};

/// Why a build failed. Nothing is left at the output path when it does.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// An input could not be read or is malformed.
    #[error("{path}: {detail}", path = path.display())]
    Input {
        /// The input.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// No inputs were given.
    #[error("no input files; give FASTA/FASTQ files, directories, or --list FILE")]
    NoInputs,
    /// The output exists and `--force` was not given.
    #[error("{path}: already exists; pass --force to overwrite it", path = path.display())]
    OutputExists {
        /// The output.
        path: PathBuf,
    },
    /// Writing the output failed.
    #[error("{path}: {detail}", path = path.display())]
    Output {
        /// The output (or temporary) file.
        path: PathBuf,
        /// What went wrong and what to do.
        detail: String,
    },
    /// A block cannot be built within the memory budget.
    #[error("block {block} needs at least {needed} of memory (one {rows}-byte column per thread plus sequence buffers) but --memory is {budget}; raise --memory, lower --threads, or use a higher --fpr")]
    Memory {
        /// Block number.
        block: usize,
        /// Rows of the block.
        rows: u64,
        /// Smallest workable budget.
        needed: String,
        /// The budget given.
        budget: String,
    },
    /// An option is out of range.
    #[error("{0}")]
    Invalid(String),
    /// The header could not be encoded.
    #[error(transparent)]
    Header(#[from] crate::format::HeaderError),
    /// The rows per range asked for cannot be used.
    #[error(transparent)]
    RangeRows(#[from] crate::format::RangeRowsError),
    /// The row layout asked for cannot spread the index's rows.
    #[error(transparent)]
    Layout(#[from] crate::format::LayoutFitError),
    /// The [`BuildObserver`] asked the build to stop.
    #[error("{path}: build cancelled; nothing was written", path = path.display())]
    Cancelled {
        /// The output that was not written.
        path: PathBuf,
    },
}

impl From<DocListError> for BuildError {
    fn from(e: DocListError) -> Self {
        match e {
            DocListError::File { path, detail } => BuildError::Input { path, detail },
            other => BuildError::Invalid(other.to_string()),
        }
    }
}

impl From<SeqFileError> for BuildError {
    fn from(e: SeqFileError) -> Self {
        BuildError::Input {
            path: e.path,
            detail: e.detail,
        }
    }
}

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The index file to write.
    pub output: PathBuf,
    /// Sequence files and directories.
    pub inputs: Vec<PathBuf>,
    /// Files listing inputs, one per line.
    pub lists: Vec<PathBuf>,
    /// One document per record instead of per file.
    pub per_record: bool,
    /// Term size.
    pub k: u32,
    /// Target false-positive rate per k-mer lookup.
    pub fpr: f64,
    /// Hash functions.
    pub num_hashes: u32,
    /// Canonical k-mers (DNA); false hashes the bytes as they are.
    pub canonical: bool,
    /// Worker threads.
    pub threads: usize,
    /// Bytes per row; `None` picks [`layout::default_page_size`].
    pub page_size: Option<u64>,
    /// Memory budget for matrices and buffers.
    pub memory_bytes: u64,
    /// Overwrite an existing output.
    pub force: bool,
    /// Show progress bars.
    pub progress: bool,
    /// Which documents share blocks.
    pub order: Order,
    /// The metadata table a group order reads.
    pub metadata: Option<PathBuf>,
    /// Block summaries to write beside the index (`None`: none, and a stale one is removed).
    pub summaries: Option<SummaryOptions>,
    /// How each block's row count follows from its largest document.
    pub rows: layout::RowSizing,
    /// Where a k-mer's rows lie: COBS's layout (a row per hash, readable by COBS) or bitsift's
    /// minimizer ranges (a read per super-k-mer; see [`RowLayout`]), resolved with the page
    /// size ([`LayoutChoice::resolve`]).
    pub layout: LayoutChoice,
    /// A COBS document list ([`crate::doclist`]): when given, these are the documents, with
    /// their COBS names, term counts and COBS's reading of their terms (bytes hashed by COBS's
    /// rule, so soft-masked bases count as `A`, as in COBS); `inputs`, `lists` and
    /// `per_record` are then not used.
    pub documents: Option<DocumentList>,
}

/// What a build produced.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BuildReport {
    /// Documents in the index.
    pub documents: u64,
    /// Documents with no k-mer (shorter than k); listed but never matching.
    pub documents_without_kmers: u64,
    /// Blocks.
    pub blocks: u64,
    /// Bytes per row.
    pub page_size: u64,
    /// Size of the index file.
    pub file_bytes: u64,
    /// k-mer positions indexed.
    pub kmers: u64,
    /// k-mer positions of the largest document (which sizes the rows of its block).
    pub kmers_largest_document: u64,
    /// Bases read.
    pub bases: u64,
    /// Blocks that did not fit the memory budget and were built in column groups.
    pub blocks_spilled: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// The document order.
    pub order: String,
    /// Bytes of the block summaries (0 without them).
    pub summary_bytes: u64,
    /// Summary bits per distinct k-mer, over all blocks (0 without summaries).
    pub summary_bits_per_kmer: f64,
    /// Where the index puts a k-mer's rows.
    pub layout: RowLayout,
}

/// Follows a build from another thread (a progress display, the Python package's callback)
/// and may stop it. Called from the build's worker threads, so it must be cheap and `Sync`.
pub trait BuildObserver: Sync {
    /// Pass 2 starts: `documents_total` documents with `kmers_total` k-mer positions will be
    /// added to the index.
    fn started(&self, documents_total: u64, kmers_total: u64) {
        let _ = (documents_total, kmers_total);
    }

    /// Another document was added: `documents_done` of them so far, with `kmers_done` k-mer
    /// positions. Calls come from several threads; the counts only grow.
    fn document_done(&self, documents_done: u64, kmers_done: u64) {
        let _ = (documents_done, kmers_done);
    }

    /// Whether to stop. Asked before pass 2 and before every document of it; a stopped build
    /// fails with [`BuildError::Cancelled`] and leaves nothing at the output path.
    fn cancelled(&self) -> bool {
        false
    }
}

/// The observer of a build nobody watches.
struct Unobserved;

impl BuildObserver for Unobserved {}

/// Builds the index described by `options`.
pub fn build(options: &BuildOptions) -> Result<BuildReport, BuildError> {
    build_observed(options, &Unobserved)
}

/// As [`build`], reporting progress to `observer`, which may stop the build.
pub fn build_observed(
    options: &BuildOptions,
    observer: &dyn BuildObserver,
) -> Result<BuildReport, BuildError> {
    let started = Instant::now();
    validate(options)?;
    if options.output.exists() && !options.force {
        return Err(BuildError::OutputExists {
            path: options.output.clone(),
        });
    }
    let files = input_files(options)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.max(1))
        .thread_name(|i| format!("bitsift-build-{i}"))
        .build()
        .map_err(|e| {
            BuildError::Invalid(format!("cannot start {} threads: {e}", options.threads))
        })?;
    pool.install(|| build_in_pool(options, &files, started, observer))
}

/// The files a build reads: those of its document list (one per document), or its inputs
/// and lists discovered ([`inputs::discover`]).
pub(crate) fn input_files(options: &BuildOptions) -> Result<Vec<PathBuf>, BuildError> {
    match &options.documents {
        Some(list) if list.is_empty() => Err(BuildError::NoInputs),
        Some(list) => Ok(list.entries.iter().map(|e| e.path.clone()).collect()),
        None => inputs::discover(&options.inputs, &options.lists),
    }
}

fn validate(options: &BuildOptions) -> Result<(), BuildError> {
    if options.k == 0 || options.k > K_MAX {
        return Err(BuildError::Invalid(format!(
            "-k {} is out of range: k is from 1 to {K_MAX}",
            options.k
        )));
    }
    if !(options.fpr > 0.0 && options.fpr < 1.0) {
        return Err(BuildError::Invalid(format!(
            "--fpr {} is out of range: the false-positive rate is between 0 and 1 (e.g. 0.3)",
            options.fpr
        )));
    }
    if options.num_hashes == 0 || options.num_hashes as u64 > HASHES_MAX {
        return Err(BuildError::Invalid(format!(
            "--hashes {} is out of range: from 1 to {HASHES_MAX} hash functions",
            options.num_hashes
        )));
    }
    if let Some(page_size) = options.page_size {
        if page_size == 0 || page_size > PAGE_SIZE_MAX {
            return Err(BuildError::Invalid(format!(
                "--page-size {page_size} is out of range: from 1 to 1048576 bytes per row"
            )));
        }
    }
    if let Some(summaries) = &options.summaries {
        summaries.validate()?;
    }
    if let LayoutChoice::Minimizer { .. } = options.layout {
        options.layout.check()?;
        if options.documents.is_some() {
            return Err(BuildError::Invalid(
                "a COBS document list builds COBS's layout only".into(),
            ));
        }
    }
    Ok(())
}

fn bar(visible: bool, length: u64, template: &str) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(length);
    if let Ok(style) = ProgressStyle::with_template(template) {
        // `{rate}`: the k-mers of pass 2 per second, with its unit (`{per_sec}` is bare).
        let style = style.with_key("rate", |state: &ProgressState, out: &mut dyn fmt::Write| {
            let _ = write!(out, "{:.1} M k-mers/s", state.per_sec() / 1e6);
        });
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn build_in_pool(
    options: &BuildOptions,
    files: &[PathBuf],
    started: Instant,
    observer: &dyn BuildObserver,
) -> Result<BuildReport, BuildError> {
    let Planned {
        documents,
        sketches,
        page_size,
        blocks,
        rows,
    } = plan(options, files)?;
    // From here on the layout is the fitted one, whatever was asked for.
    let fitted = BuildOptions {
        layout: LayoutChoice::of(rows),
        ..options.clone()
    };
    let options = &fitted;
    let layout = CompactLayout {
        k: options.k,
        canonical: options.canonical,
        num_hashes: options.num_hashes,
        page_size,
        block_rows: blocks.iter().map(|b| b.rows).collect(),
        rows,
    };
    let header = write_compact_header(&layout, documents.iter().map(|d| d.name.as_str()))?;
    let expected_bytes = header.len() as u64 + layout.data_bytes();
    tracing::info!(
        "{} in {} order, {} of {} documents, {}-byte rows, index size {}",
        crate::units::plural(documents.len() as u64, "document"),
        options.order,
        crate::units::plural(blocks.len() as u64, "block"),
        8 * page_size,
        page_size,
        format_bytes(expected_bytes)
    );
    if options.per_record {
        let warning =
            per_record::warning(&documents, expected_bytes, options.num_hashes, options.fpr);
        if let Some(warning) = warning {
            tracing::warn!("{warning}");
        }
    }
    let kmers: u64 = documents.iter().map(|d| d.kmers).sum();
    let progress = Progress {
        bar: bar(
            options.progress,
            kmers,
            "building  [{bar:30}] {percent:>3}%  {msg}  {rate}  ETA {eta}",
        ),
        documents_done: AtomicU64::new(0),
        documents_total: documents.len() as u64,
        kmers_done: AtomicU64::new(0),
        observer,
        output: &options.output,
    };
    progress.check()?;
    let header_bytes = header.len() as u64;
    let mut pending = PendingFile::create_index(&options.output, options.force, header_bytes)?;
    pending.count_ones(OnesCounter::compact(
        header_bytes,
        page_size,
        &layout.block_rows,
        documents.len() as u64,
    ));
    pending.write_all(&header)?;
    observer.started(progress.documents_total, kmers);
    let minimizer = crate::kmer::minimizer_length(options.k);
    let mut summaries = options.summaries.map(|s| SummaryBuilder::new(s, minimizer));
    let mut blocks_spilled = 0;
    for (number, block) in blocks.iter().enumerate() {
        let spilled = write_block(
            options,
            files,
            &documents,
            number,
            block,
            page_size,
            &mut pending,
            &progress,
            summaries
                .as_mut()
                .map(|s| (s, block_kmers_bound(&documents, &sketches, block))),
        )?;
        blocks_spilled += spilled as u64;
    }
    progress.bar.finish_and_clear();
    debug_assert_eq!(pending.written(), expected_bytes);
    if pending.written() != expected_bytes {
        return Err(BuildError::Output {
            path: options.output.clone(),
            detail: format!(
                "internal error: wrote {} bytes but the layout needs {expected_bytes}; nothing was kept",
                pending.written()
            ),
        });
    }
    let mut summaries = summaries.map(|s| s.finish(identity(&layout, &blocks, &documents)));
    if let Some(file) = &mut summaries {
        file.identity.content = pending.content_digest(header_bytes)?;
        file.identity.checksums = pending.sidecar_digest();
    }
    commit(options, pending, summaries.as_ref())?;
    record::write(options, files, &documents);
    let (summary_bytes, summary_bits_per_kmer) = summaries.as_ref().map_or((0, 0.0), |file| {
        let words: u64 = file
            .blocks
            .iter()
            .map(|b| b.filter.words().len() as u64)
            .sum();
        let kmers: u64 = file.blocks.iter().map(|b| b.kmers_estimate).sum();
        (8 * words, 64.0 * words as f64 / kmers.max(1) as f64)
    });
    Ok(BuildReport {
        documents: documents.len() as u64,
        documents_without_kmers: documents.iter().filter(|d| d.kmers == 0).count() as u64,
        blocks: blocks.len() as u64,
        page_size,
        file_bytes: expected_bytes,
        kmers,
        kmers_largest_document: documents.iter().map(|d| d.kmers).max().unwrap_or(0),
        bases: documents.iter().map(|d| d.bases).sum(),
        blocks_spilled,
        seconds: started.elapsed().as_secs_f64(),
        order: options.order.to_string(),
        summary_bytes,
        summary_bits_per_kmer,
        layout: layout.rows,
    })
}

/// The result of pass 1 and the order.
struct Planned {
    /// Documents in index order.
    documents: Vec<Document>,
    /// Their sketches, when the order or the summaries need them (else empty).
    sketches: Vec<sketch::Sketch>,
    page_size: u64,
    blocks: Vec<BlockPlan>,
    /// The row layout, fitted to the blocks' rows ([`crate::format::LayoutChoice::fit`]).
    rows: RowLayout,
}

/// Pass 1 and the order: the documents in index order, the page size and the blocks.
fn plan(options: &BuildOptions, files: &[PathBuf]) -> Result<Planned, BuildError> {
    if options.metadata.is_some() && !matches!(options.order, Order::Group(_)) {
        return Err(BuildError::Invalid(format!(
            "a metadata table was given, but only a group order reads one (the order is {})",
            options.order
        )));
    }
    let scanning = bar(
        options.progress,
        files.len() as u64,
        "reading   [{bar:30}] {pos}/{len} files  {elapsed_precise}",
    );
    // Sketches order by similarity and, where cheap, size each block's summary filter.
    let sketch = options.order.needs_sketches()
        || (options.summaries.is_some() && sketch::cheap(options.k, options.canonical));
    let (mut documents, mut sketches) = match &options.documents {
        Some(list) => {
            if options.order.needs_sketches() {
                return Err(BuildError::Invalid(format!(
                    "the order {} is not available for a COBS document list",
                    options.order
                )));
            }
            (scan::scan_entries(&list.entries, options.k)?, Vec::new())
        }
        None => scan::scan(
            files,
            options.k,
            options.per_record,
            sketch.then_some(options.canonical),
            &scanning,
        )?,
    };
    scanning.finish_and_clear();
    if documents.is_empty() {
        return Err(BuildError::NoInputs);
    }
    if documents.len() as u64 > u32::MAX as u64 {
        return Err(BuildError::Invalid(format!(
            "{} documents exceed the COBS format's limit of {}",
            documents.len(),
            u32::MAX
        )));
    }
    report_suspicious_documents(&documents, files, options.k);
    let page_size = options
        .page_size
        .unwrap_or_else(|| layout::default_page_size(documents.len() as u64));
    let per_block = usize::try_from(8 * page_size).expect("a block size fits memory");
    order::arrange(
        &mut documents,
        &mut sketches,
        &options.order,
        options.metadata.as_deref(),
        files,
        per_block,
    )?;
    let (blocks, rows) = layout::plan_blocks(
        &documents,
        page_size,
        options.num_hashes,
        options.fpr,
        options.rows,
        |rows| {
            options
                .layout
                .fit(options.k, options.canonical, page_size, rows)
                .map_err(BuildError::from)
        },
    )?;
    Ok(Planned {
        documents,
        sketches,
        page_size,
        blocks,
        rows,
    })
}

/// An upper bound of the distinct k-mers of `block`, which sizes its summary filter before it
/// is filled: its k-mer positions, or twice the union estimated from its documents' sketches
/// when there are sketches (the estimate is within ~13 %; folding trims the rest).
fn block_kmers_bound(
    documents: &[Document],
    sketches: &[sketch::Sketch],
    block: &BlockPlan,
) -> u64 {
    let range = block.first..block.first + block.count;
    let positions: u64 = documents[range.clone()].iter().map(|d| d.kmers).sum();
    if sketches.is_empty() {
        return positions;
    }
    let mut union = sketch::Sketch::default();
    for s in &sketches[range] {
        union.merge(s);
    }
    positions.min((2.0 * union.estimated_kmers()).ceil() as u64)
}

/// What the summaries are tied to: the header the index gets.
fn identity(layout: &CompactLayout, blocks: &[BlockPlan], documents: &[Document]) -> IndexIdentity {
    IndexIdentity {
        k: layout.k,
        canonical: layout.canonical,
        num_hashes: layout.num_hashes,
        documents: documents.len() as u64,
        content: 0,
        checksums: 0,
        fingerprint: fingerprint(
            layout.k,
            layout.canonical,
            layout.num_hashes,
            layout.page_size,
            blocks.iter().map(|b| (b.count as u64, b.rows)),
            documents.iter().map(|d| d.name.as_str()),
        ),
    }
}

/// Puts the index and its summaries in place. The summaries are written and synced before
/// the index is renamed (a full disk fails the build with nothing in place), a summaries file
/// left from an earlier index at this path is removed, then both are renamed.
fn commit(
    options: &BuildOptions,
    index: PendingFile,
    summaries: Option<&SummaryFile>,
) -> Result<(), BuildError> {
    let sidecar = summary_path(&options.output);
    let pending = match summaries {
        Some(file) => {
            let mut pending = PendingFile::create(&sidecar, true)?;
            pending.write_all(&file.encode())?;
            pending.sync()?;
            Some(pending)
        }
        None => None,
    };
    match std::fs::remove_file(&sidecar) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(BuildError::Output {
                path: sidecar,
                detail: format!(
                    "cannot remove the block summaries of the index being replaced: {e}; nothing was changed"
                ),
            })
        }
    }
    index.commit()?;
    if let Some(pending) = pending {
        pending.commit().map_err(|e| BuildError::Output {
            path: sidecar,
            detail: format!(
                "the index is complete, but its block summaries could not be put in place ({e}); searches will read every block"
            ),
        })?;
    }
    Ok(())
}

/// Progress of pass 2: k-mers on the bar, documents in its message, both to the observer.
pub(crate) struct Progress<'a> {
    bar: ProgressBar,
    documents_done: AtomicU64,
    documents_total: u64,
    kmers_done: AtomicU64,
    observer: &'a dyn BuildObserver,
    output: &'a std::path::Path,
}

impl Progress<'_> {
    /// Records one finished document of `kmers` k-mers; fails if the observer has asked the
    /// build to stop.
    pub(crate) fn document_done(&self, kmers: u64) -> Result<(), BuildError> {
        let done = self.documents_done.fetch_add(1, Ordering::Relaxed) + 1;
        let kmers_done = self.kmers_done.fetch_add(kmers, Ordering::Relaxed) + kmers;
        self.bar.inc(kmers);
        if !self.bar.is_hidden() {
            self.bar
                .set_message(format!("{done}/{} documents", self.documents_total));
        }
        self.observer.document_done(done, kmers_done);
        self.check()
    }

    /// Fails if the observer has asked the build to stop.
    pub(crate) fn check(&self) -> Result<(), BuildError> {
        if self.observer.cancelled() {
            return Err(BuildError::Cancelled {
                path: self.output.to_path_buf(),
            });
        }
        Ok(())
    }
}

fn report_suspicious_documents(documents: &[Document], files: &[PathBuf], k: u32) {
    for document in documents.iter().filter(|d| d.kmers == 0) {
        tracing::warn!(
            "{}: document {:?} has {} bases, fewer than k = {k}: it is listed in the index but can match nothing",
            files[document.source as usize].display(),
            document.name,
            document.bases
        );
    }
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(documents.len());
    for (position, document) in documents.iter().enumerate() {
        if let Some(&first) = seen.get(document.name.as_str()) {
            tracing::warn!(
                "document name {:?} is used by both {} and {}; results will not tell them apart",
                document.name,
                files[documents[first].source as usize].display(),
                files[document.source as usize].display()
            );
        } else {
            seen.insert(&document.name, position);
        }
    }
}

/// Builds and writes one block; returns whether it had to be built in column groups.
#[allow(clippy::too_many_arguments)]
fn write_block(
    options: &BuildOptions,
    files: &[PathBuf],
    documents: &[Document],
    number: usize,
    block: &BlockPlan,
    page_size: u64,
    pending: &mut PendingFile,
    progress: &Progress,
    summaries: Option<(&mut SummaryBuilder, u64)>,
) -> Result<bool, BuildError> {
    let rows = block.rows;
    let block_documents = &documents[block.first..block.first + block.count];
    let threads = rayon::current_num_threads() as u64;
    // Per thread: one column of `rows` bytes plus the sequence, its forward and reverse maps.
    let largest = block_documents.iter().map(|d| d.bases).max().unwrap_or(0);
    let per_thread = rows + 3 * largest + (1 << 20);
    let scratch = threads * per_thread;
    let needed = scratch + rows;
    if options.memory_bytes < needed {
        return Err(BuildError::Memory {
            block: number,
            rows,
            needed: format_bytes(needed),
            budget: format_bytes(options.memory_bytes),
        });
    }
    // The summary filter may take a quarter of what is left after the smallest workable fill.
    let filter: Option<SharedFilter> = summaries
        .as_ref()
        .map(|(s, kmers)| s.start_block(*kmers, (options.memory_bytes - needed) / 4));
    let filter_bytes = filter.as_ref().map_or(0, SharedFilter::bytes);
    let columns_fitting = ((options.memory_bytes - scratch - filter_bytes) / rows) as usize;
    let fill = BlockFill {
        files,
        documents: block_documents,
        k: options.k,
        canonical: options.canonical,
        num_hashes: options.num_hashes,
        rows,
        layout: options.layout.resolve(options.k, page_size),
        per_record: options.per_record,
        summary: filter.as_ref(),
        minimizer: summaries.as_ref().map_or(0, |(s, _)| s.minimizer()),
        entries: options.documents.as_ref().map(|l| l.entries.as_slice()),
    };
    let spilled = fill_block(
        options,
        &fill,
        number,
        page_size,
        columns_fitting,
        pending,
        progress,
    )?;
    if let (Some((summaries, _)), Some(filter)) = (summaries, filter) {
        summaries.finish_block(filter, block.first as u64, block.count as u64);
    }
    Ok(spilled)
}

/// Fills block `number` and writes it: in memory when `columns_fitting` holds a row,
/// otherwise in spilled groups of columns. Returns whether it spilled.
fn fill_block(
    options: &BuildOptions,
    fill: &BlockFill,
    number: usize,
    page_size: u64,
    columns_fitting: usize,
    pending: &mut PendingFile,
    progress: &Progress,
) -> Result<bool, BuildError> {
    let rows = fill.rows;
    let columns_used = fill.documents.len().div_ceil(8);
    if columns_fitting >= page_size as usize {
        let mut matrix = vec![0u8; (rows * page_size) as usize];
        fill.fill(0..columns_used, page_size as usize, &mut matrix, progress)?;
        pending.write_all(&matrix)?;
        return Ok(false);
    }
    tracing::info!(
        "block {number}: {} does not fit --memory {}; building it in groups of {columns_fitting} byte columns",
        format_bytes(rows * page_size),
        format_bytes(options.memory_bytes)
    );
    let spill_directory = parent_directory(&options.output);
    let mut groups: Vec<(usize, File)> = Vec::new();
    let mut start = 0;
    while start < columns_used {
        let end = (start + columns_fitting).min(columns_used);
        let width = end - start;
        let mut matrix = vec![0u8; rows as usize * width];
        fill.fill(start..end, width, &mut matrix, progress)?;
        let file = tempfile::tempfile_in(&spill_directory)
            .map_err(|e| write_error(&spill_directory, e))?;
        let mut writer = BufWriter::with_capacity(8 << 20, file);
        writer
            .write_all(&matrix)
            .map_err(|e| write_error(&spill_directory, e))?;
        let mut file = writer
            .into_inner()
            .map_err(|e| write_error(&spill_directory, e.into_error()))?;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| write_error(&spill_directory, e))?;
        groups.push((width, file));
        start = end;
    }
    interleave_groups(
        groups,
        rows,
        page_size as usize,
        options.memory_bytes,
        pending,
    )?;
    Ok(true)
}

/// Writes `rows` rows of `page_size` bytes, each the concatenation of the groups' slices of
/// that row (zero beyond the last group), reading the group files sequentially in chunks.
fn interleave_groups(
    groups: Vec<(usize, File)>,
    rows: u64,
    page_size: usize,
    memory_bytes: u64,
    pending: &mut PendingFile,
) -> Result<(), BuildError> {
    let chunk_rows = ((memory_bytes / 2 / page_size as u64).clamp(1, 1 << 16)) as usize;
    let mut readers: Vec<(usize, BufReader<File>, Vec<u8>)> = groups
        .into_iter()
        .map(|(width, file)| (width, BufReader::with_capacity(1 << 20, file), Vec::new()))
        .collect();
    let mut out = Vec::with_capacity(chunk_rows * page_size);
    let mut row = 0u64;
    while row < rows {
        let count = chunk_rows.min((rows - row) as usize);
        for (width, reader, buffer) in &mut readers {
            buffer.resize(count * *width, 0);
            reader.read_exact(buffer).map_err(|e| BuildError::Output {
                path: PathBuf::from("(temporary column group)"),
                detail: format!("cannot read back a spilled column group: {e}"),
            })?;
        }
        out.clear();
        out.resize(count * page_size, 0);
        for r in 0..count {
            let mut column = 0;
            for (width, _, buffer) in &readers {
                out[r * page_size + column..][..*width]
                    .copy_from_slice(&buffer[r * *width..][..*width]);
                column += *width;
            }
        }
        pending.write_all(&out)?;
        row += count as u64;
    }
    Ok(())
}

/// Default memory budget: half of what the system has available, at least 256 MiB.
pub fn default_memory_bytes() -> u64 {
    crate::io::usage::memory_available_bytes()
        .map(|available| available / 2)
        .unwrap_or(4 << 30)
        .max(256 << 20)
}
