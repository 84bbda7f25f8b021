//! `bitsift query`.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use bitsift::collection::{CollectionError, SearchSet};
use bitsift::format::HeaderOptions;
use bitsift::io::{DirectIo, EngineChoice, EngineOptions, PageCache, Warmup, QUEUE_DEPTH_DEFAULT};
use bitsift::query::output::{OutputFormat, ResultWriter};
use bitsift::query::{SearchError, SearchOptions, Searcher};
use bitsift::seqfile::{SeqReader, SeqRecord};
use clap::Args;

use super::{parse_size, parse_threshold, Outcome, Ui};

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("queries").required(true).args(["file", "sequence"])))]
pub struct QueryArgs {
    /// Index file (.cobs_compact or .cobs_classic, from COBS or bitsift), a directory of
    /// them, or a collection; repeat for several. All are searched in one batch and ranked
    /// together
    #[arg(short, long = "index", value_name = "INDEX", help_heading = "Input")]
    indexes: Vec<PathBuf>,
    /// Search only these sub-indexes of the collections given (file names, comma-separated),
    /// with the collection's removed documents hidden; for searches split over jobs
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        help_heading = "Input"
    )]
    subindexes: Vec<String>,
    /// File listing index paths, one per line (e.g. the 305 Phylign batches)
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    index_list: Vec<PathBuf>,
    /// k of a pre-2019 COBS index, whose header does not record it
    #[arg(long, value_name = "K", help_heading = "Input")]
    legacy_k: Option<u32>,
    /// Whether a pre-2019 COBS index has canonical k-mers (COBS's default then: no)
    #[arg(long, value_name = "yes|no", value_parser = parse_yes_no, help_heading = "Input")]
    legacy_canonical: Option<bool>,
    /// Query sequences: FASTA or FASTQ, plain or compressed
    #[arg(short, long, value_name = "QUERIES", help_heading = "Input")]
    file: Option<PathBuf>,
    /// A query sequence given on the command line
    #[arg(value_name = "SEQUENCE", help_heading = "Input")]
    sequence: Option<String>,
    /// Read lowercase acgt as ACGT (COBS v0.3.x reads every lowercase base as A)
    #[arg(long, help_heading = "Input")]
    fold_case: bool,

    /// Report documents containing at least this fraction of the query's k-mers
    #[arg(short, long, default_value_t = 0.8, value_parser = parse_threshold, help_heading = "Search")]
    threshold: f64,
    /// Report at most N documents per query (0: all)
    #[arg(
        short,
        long,
        default_value_t = 0,
        value_name = "N",
        help_heading = "Search"
    )]
    limit: usize,

    /// Output format
    #[arg(long, value_enum, default_value_t = OutputFormat::Tsv, help_heading = "Output")]
    format: OutputFormat,
    /// Print per-query I/O and time accounting on standard error (in JSON output always)
    #[arg(long, help_heading = "Output")]
    stats: bool,
    /// Write results to FILE instead of standard output
    #[arg(short, long, value_name = "FILE", help_heading = "Output")]
    output: Option<PathBuf>,

    /// Queries planned and read together (0: as many as memory bounds allow; 1: one at a
    /// time)
    #[arg(long, default_value_t = 0, value_name = "N", help_heading = "Search")]
    batch: usize,
    /// Read every row even when a block can no longer reach the threshold
    #[arg(long, help_heading = "Search")]
    no_prune: bool,
    /// Threads scoring blocks of an index held in memory (0: one per core)
    #[arg(
        short = 'T',
        long,
        default_value_t = 0,
        value_name = "N",
        help_heading = "Search"
    )]
    threads: usize,

    /// I/O engine
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto, help_heading = "I/O")]
    engine: EngineChoice,
    /// Merge reads separated by at most this many bytes (e.g. 16K)
    #[arg(long, value_parser = parse_size, value_name = "BYTES", help_heading = "I/O")]
    merge_gap: Option<u64>,
    /// Largest merged read
    #[arg(long, value_parser = parse_size, value_name = "BYTES", help_heading = "I/O")]
    read_max: Option<u64>,
    /// Keep up to this much of the index in a page cache for the queries of this run
    #[arg(long, value_parser = parse_size, value_name = "BYTES", help_heading = "I/O")]
    cache_size: Option<u64>,
    /// Stream the index into the cache in the background (needs --cache-size)
    #[arg(long, requires = "cache_size", help_heading = "I/O")]
    warm: bool,
    /// Reads in flight (uring) or reader threads (pread)
    #[arg(long, default_value_t = QUEUE_DEPTH_DEFAULT, value_name = "N", help_heading = "I/O")]
    queue_depth: u32,
    /// Bypass the page cache with O_DIRECT (uring, pread)
    #[arg(long, value_enum, default_value_t = DirectIo::Auto, help_heading = "I/O")]
    direct_io: DirectIo,
}

/// Query bases collected before a batch is searched: bounds the memory of a huge query file.
const BATCH_BYTES_MAX: usize = 64 << 20;

/// Query records waiting to be searched together.
struct Batch {
    origin: String,
    names: Vec<String>,
    sequences: Vec<Vec<u8>>,
    bytes: usize,
    failures: u64,
    lowercase_warned: bool,
    /// The last batch whose stats were printed.
    batch_reported: u64,
}

impl Batch {
    fn push(&mut self, name: &str, sequence: &[u8], fold_case: bool) {
        let mut sequence = sequence.to_vec();
        if fold_case {
            sequence.make_ascii_uppercase();
        } else if !self.lowercase_warned && sequence.iter().any(|b| b.is_ascii_lowercase()) {
            self.lowercase_warned = true;
            tracing::warn!(
                "{}query {name:?} has lowercase bases, which COBS v0.3.x reads as A (so they rarely match); pass --fold-case to read them as ACGT",
                self.origin
            );
        }
        self.bytes += sequence.len();
        self.names.push(name.to_string());
        self.sequences.push(sequence);
    }

    /// Searches the collected queries together and writes their results in order.
    fn run<W: Write>(
        &mut self,
        searcher: &mut Searcher,
        options: &SearchOptions,
        writer: &mut ResultWriter<W>,
        stats: bool,
    ) -> Result<()> {
        if self.names.is_empty() {
            return Ok(());
        }
        let queries: Vec<&[u8]> = self.sequences.iter().map(Vec::as_slice).collect();
        let answers = searcher.search_batch(&queries, options)?;
        for (name, answer) in self.names.iter().zip(answers) {
            match answer {
                Ok(result) => {
                    writer.write_result(name, &result)?;
                    if stats {
                        if result.batch.batch != self.batch_reported {
                            self.batch_reported = result.batch.batch;
                            eprintln!("# batch\t{}", result.batch.summary());
                        }
                        eprintln!("# {name}\t{}", result.stats.summary());
                    }
                }
                Err(SearchError::ReadFailed(e)) => {
                    self.failures += 1;
                    let message =
                        format!("reading the index failed: {e}; the query was not answered");
                    tracing::error!("{}query {name:?}: {message}", self.origin);
                    writer.write_error(name, &message)?;
                }
                Err(SearchError::TooShort { length, k }) => {
                    self.failures += 1;
                    let message = format!(
                        "query is {length} bases, shorter than k = {k}; it has no k-mer to look up and was skipped"
                    );
                    tracing::warn!("{}query {name:?}: {message}", self.origin);
                    writer.write_error(name, &message)?;
                }
                Err(SearchError::Io(e)) => return Err(e.into()),
            }
        }
        self.names.clear();
        self.sequences.clear();
        self.bytes = 0;
        Ok(())
    }
}

/// The files and hidden documents of `-i`/`--index-list` arguments (collections expanded).
pub fn search_set(
    indexes: &[PathBuf],
    lists: &[PathBuf],
    subindexes: &[String],
) -> Result<SearchSet> {
    SearchSet::expand(indexes, lists, subindexes).map_err(no_index_hint)
}

/// Adds the options to an error that says no index was given.
fn no_index_hint(error: CollectionError) -> anyhow::Error {
    match error {
        CollectionError::Open(bitsift::query::OpenError::NoIndex) => anyhow::anyhow!(
            "no index given: pass -i INDEX (a file, a directory of indexes or a collection) or --index-list FILE"
        ),
        other => other.into(),
    }
}

fn parse_yes_no(text: &str) -> Result<bool, String> {
    match text {
        "yes" | "true" | "1" => Ok(true),
        "no" | "false" | "0" => Ok(false),
        other => Err(format!("{other:?}: expected yes or no")),
    }
}

pub fn run(args: QueryArgs, ui: Ui) -> Result<Outcome> {
    let engine = EngineOptions {
        choice: args.engine,
        queue_depth: args.queue_depth,
        direct: args.direct_io,
    };
    let header_options = HeaderOptions {
        legacy_k: args.legacy_k,
        legacy_canonical: args.legacy_canonical,
    };
    let (_, index) = SearchSet::open_fresh(
        &args.indexes,
        &args.index_list,
        &args.subindexes,
        &header_options,
    )
    .map_err(no_index_hint)?;
    let mut searcher = Searcher::with_options(index, &engine)?;
    if let Some(notice) = searcher.notice() {
        if !ui.quiet {
            eprintln!("bitsift: {notice}");
        }
    }
    let out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("{}: cannot create output file", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let names = searcher.headers().map(|h| h.names.clone()).collect();
    let labels = searcher
        .headers()
        .map(|h| h.path.display().to_string())
        .collect();
    let mut writer = ResultWriter::new(
        BufWriter::with_capacity(1 << 16, out),
        args.format,
        names,
        labels,
        args.sequence.is_some(),
    )?;
    if let Some(bytes) = args.cache_size {
        searcher.set_cache(Some(Arc::new(PageCache::new(bytes, 4096))));
    }
    let warmup = match (args.warm, searcher.cache()) {
        (true, Some(cache)) => Some(Warmup::start(searcher.warm_ranges(), cache.clone())),
        _ => None,
    };
    searcher.set_threads(super::threads_or_cores(args.threads));
    let shape = searcher.read_shape();
    searcher.set_coalescing(
        args.merge_gap.unwrap_or(shape.gap_bytes),
        args.read_max.unwrap_or(shape.read_bytes_max),
    );
    let options = SearchOptions {
        threshold: args.threshold,
        limit: args.limit,
        cobs_order: args.format == OutputFormat::Cobs,
        prune: !args.no_prune,
    };
    let mut batch = Batch {
        origin: String::new(),
        names: Vec::new(),
        sequences: Vec::new(),
        bytes: 0,
        failures: 0,
        lowercase_warned: false,
        batch_reported: 0,
    };
    let batch_max = if args.batch == 0 {
        usize::MAX
    } else {
        args.batch
    };
    if let Some(sequence) = &args.sequence {
        batch.push("query", sequence.trim().as_bytes(), args.fold_case);
        batch.run(&mut searcher, &options, &mut writer, args.stats)?;
    } else if let Some(path) = &args.file {
        let mut reader = SeqReader::open(path)?;
        batch.origin = format!("{}: ", path.display());
        let mut record = SeqRecord::default();
        while reader.next_into(&mut record)? {
            batch.push(&record.name, &record.sequence, args.fold_case);
            if batch.names.len() >= batch_max || batch.bytes >= BATCH_BYTES_MAX {
                batch.run(&mut searcher, &options, &mut writer, args.stats)?;
            }
        }
        batch.run(&mut searcher, &options, &mut writer, args.stats)?;
    }
    let failures = batch.failures;
    if let Some(warmup) = warmup {
        let report = warmup.stop();
        tracing::info!(
            "warm-up read {} into the cache ({} pages)",
            bitsift::units::format_bytes(report.bytes_read),
            report.pages_inserted
        );
    }
    writer.finish()?;
    Ok(if failures > 0 {
        Outcome::Partial
    } else {
        Outcome::Success
    })
}
