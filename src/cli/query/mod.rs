//! `bitsift query`: arguments, then queries read and normalised ([`batch`]), searched in
//! batches, and written by [`ResultWriter`] to standard output or atomically to `-o FILE`.

mod batch;

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use bitsift::alphabet::{is_nucleotide, BaseReading};
use bitsift::answer::{Cutoff, OutputSetup, Provenance, ResultWriter};
use bitsift::format::HeaderOptions;
use bitsift::io::{EngineChoice, Warmup};
use bitsift::metadata::{Metadata, MetadataError};
use bitsift::query::{
    GroupByError, Grouping, Index, Session, SessionConfig, SIDE_MEMORY_DEFAULT, THRESHOLD_DEFAULT,
};
use bitsift::search::{Notices, SearchRequest, SearchSetup, SessionSetup, SetupError};
use bitsift::seqfile::{SeqReader, SeqRecord};
use bitsift::units::plural;
use clap::Args;

use super::choices::FormatArg;
use super::indexes::{no_index_hint, NO_INDEX_GIVEN};
use super::output_file::Sink;
use super::search_args::{EngineArgs, IndexArgs};
use super::values::BadValue;
use super::{
    parse_identity, parse_memory_size, parse_read_size, parse_threshold, Outcome, Ui, UsageError,
};
use batch::{Batch, Skips};

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("queries").required(true).args(["file", "sequence"])))]
#[command(after_help = super::exit_status_help!())]
pub(crate) struct QueryArgs {
    #[command(flatten)]
    indexes: IndexArgs,
    /// k of a pre-2019 COBS index, whose header does not record it
    #[arg(long, value_name = "K", help_heading = "Input")]
    legacy_k: Option<u32>,
    /// Whether a pre-2019 COBS index has canonical k-mers (COBS's default then: no)
    #[arg(long, value_name = "yes|no", value_parser = parse_yes_no, help_heading = "Input")]
    legacy_canonical: Option<bool>,
    /// Query sequences: FASTA or FASTQ, plain or compressed (-: standard input)
    #[arg(short, long, value_name = "QUERIES", help_heading = "Input")]
    file: Option<PathBuf>,
    /// A query sequence given on the command line
    #[arg(value_name = "SEQUENCE", help_heading = "Input")]
    sequence: Option<String>,
    /// Read bases by COBS's exact byte rule: lowercase letters, N, IUPAC codes and spaces
    /// all count as A (implied by --format cobs). Default: case does not matter, whitespace
    /// is ignored, U is T
    #[arg(long, help_heading = "Input")]
    cobs_bases: bool,
    /// With the COBS rule (--cobs-bases, --format cobs): read lowercase acgt as ACGT
    #[arg(long, help_heading = "Input")]
    fold_case: bool,
    /// TSV of document metadata (a header, then the document name and its columns), joined
    /// to the hits of TSV and JSON output (-: standard input)
    #[arg(long, value_name = "FILE.tsv", help_heading = "Input")]
    metadata: Option<PathBuf>,
    /// Count each query's hits by the values of this column of --metadata (species, say):
    /// carriers, documents searched, fraction, and the carriers' scores; TSV output then has
    /// one line per query and value, JSON a `groups` list per query
    #[arg(
        long,
        value_name = "COLUMN",
        requires = "metadata",
        help_heading = "Output"
    )]
    group_by: Option<String>,

    /// Report documents containing at least this fraction of the query's k-mers (0 to 1),
    /// once the false positives expected of each document are taken out (the containment
    /// column; see README, Corrected scores)
    #[arg(short, long, default_value_t = THRESHOLD_DEFAULT, value_parser = parse_threshold,
          allow_negative_numbers = true, help_heading = "Search")]
    threshold: f64,
    /// Report documents whose identity estimate (the corrected containment to the power 1/k:
    /// a copy with random point substitutions) is at least this (0 to 1): instead of -t
    #[arg(long, value_parser = parse_identity, value_name = "IDENTITY",
          conflicts_with = "threshold", help_heading = "Search")]
    min_identity: Option<f64>,
    /// -t and --min-identity apply to the raw fraction of k-mers found, false positives
    /// included, as `cobs query` (hits still carry their corrected scores)
    #[arg(long, help_heading = "Search")]
    raw_threshold: bool,
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
    #[arg(long, value_enum, default_value_t = FormatArg::Tsv, help_heading = "Output")]
    format: FormatArg,
    /// --format matrix: cells say 1 (a hit at the threshold) or 0 instead of the fraction
    #[arg(long, help_heading = "Output")]
    presence: bool,
    /// TSV: add a status column and a line for each query without hits: no_hit (searched,
    /// nothing reached the threshold) or skipped_too_short / skipped_not_dna (not searched)
    #[arg(long, help_heading = "Output")]
    report_misses: bool,
    /// Show where each hit matches: covered query intervals and the longest run of missing
    /// k-mers (reads the hits' rows again)
    #[arg(long, help_heading = "Output")]
    coverage: bool,
    /// Print per-query I/O and time accounting on standard error (in JSON output always)
    #[arg(long, help_heading = "Output")]
    stats: bool,
    /// Write results to FILE instead of standard output (it appears only if the run ends
    /// without error)
    #[arg(short, long, value_name = "FILE", help_heading = "Output")]
    output: Option<PathBuf>,

    /// Queries planned and read together (0: as many as memory bounds allow; 1: one at a
    /// time)
    #[arg(long, default_value_t = 0, value_name = "N", help_heading = "Search")]
    batch: usize,
    /// Read every row even when a block can no longer reach the threshold
    #[arg(long, help_heading = "Search")]
    no_prune: bool,
    /// Read every block, ignoring the block summaries beside the index: COBS's exact scores,
    /// including documents that reach the threshold only through Bloom false positives
    /// (implied by --format cobs)
    #[arg(long, help_heading = "Search")]
    no_summaries: bool,
    /// Read a query's rows in waves, waiting for pruning between them: fewer bytes, more
    /// round trips (see README, Waves)
    #[arg(long, help_heading = "Search")]
    waves: bool,
    /// Threads scoring an index held in memory: blocks, or the k-mers of a query when the
    /// index has fewer blocks than threads (0: one per core)
    #[arg(
        short = 'T',
        long,
        default_value_t = 0,
        value_name = "N",
        help_heading = "Search"
    )]
    threads: usize,

    #[command(flatten)]
    engine: EngineArgs,
    /// Merge reads separated by at most this many bytes (e.g. 16K)
    #[arg(long, value_parser = parse_read_size, value_name = "BYTES", help_heading = "I/O")]
    merge_gap: Option<u64>,
    /// Largest merged read
    #[arg(long, value_parser = parse_read_size, value_name = "BYTES", help_heading = "I/O")]
    read_max: Option<u64>,
    /// Keep up to this much of the index in a page cache for the queries of this run; a budget
    /// that holds the whole index loads it into memory in the background and scores it there
    #[arg(long, value_parser = parse_memory_size, value_name = "BYTES", help_heading = "I/O")]
    cache_size: Option<u64>,
    /// Memory for pages of the checksums and block summaries, kept between the queries of
    /// this run (they are read page by page as queries need them, never whole)
    #[arg(long, value_parser = parse_memory_size, value_name = "BYTES", default_value_t = SIDE_MEMORY_DEFAULT, help_heading = "I/O")]
    side_memory: u64,
    /// Stream the index into the cache in the background (needs --cache-size)
    #[arg(long, requires = "cache_size", help_heading = "I/O")]
    warm: bool,
    #[command(flatten)]
    remote: super::remote::RemoteArgs,
}

/// What `cobs query` asks for, in bitsift's terms (see [`super::cobs`]).
#[derive(Debug)]
pub(crate) struct CobsQuery {
    /// Index files, directories or collections.
    pub(crate) indexes: Vec<PathBuf>,
    /// Files listing index paths.
    pub(crate) index_lists: Vec<PathBuf>,
    /// Query file (FASTA or FASTQ).
    pub(crate) file: Option<PathBuf>,
    /// A query sequence from the command line; it wins over `file`, as in COBS.
    pub(crate) sequence: Option<String>,
    /// Fraction of a query's k-mers a document must contain.
    pub(crate) threshold: f64,
    /// Most documents reported per query (0: all).
    pub(crate) limit: usize,
    /// Scoring threads (0: one per core).
    pub(crate) threads: usize,
    /// `--load-complete`: hold the whole index in memory.
    pub(crate) load_complete: bool,
}

impl QueryArgs {
    /// The `bitsift query --format cobs` run that answers `query`: COBS's byte rule for
    /// bases, COBS's order, every block read; every other option at its default.
    pub(crate) fn from_cobs(query: CobsQuery) -> QueryArgs {
        QueryArgs {
            indexes: IndexArgs {
                indexes: query.indexes,
                index_list: query.index_lists,
                subindexes: Vec::new(),
            },
            legacy_k: None,
            legacy_canonical: None,
            file: query.file,
            sequence: query.sequence,
            cobs_bases: true,
            fold_case: false,
            metadata: None,
            group_by: None,
            threshold: query.threshold,
            min_identity: None,
            raw_threshold: true,
            limit: query.limit,
            format: FormatArg::Cobs,
            presence: false,
            report_misses: false,
            coverage: false,
            stats: false,
            output: None,
            batch: 0,
            no_prune: false,
            no_summaries: true,
            waves: false,
            threads: query.threads,
            engine: EngineArgs {
                engine: match query.load_complete {
                    true => EngineChoice::Ram,
                    false => EngineChoice::Auto,
                },
                ..EngineArgs::default()
            },
            merge_gap: None,
            read_max: None,
            cache_size: None,
            side_memory: SIDE_MEMORY_DEFAULT,
            warm: false,
            remote: super::remote::RemoteArgs::default(),
        }
    }
}

fn parse_yes_no(text: &str) -> Result<bool, BadValue> {
    match text {
        "yes" | "true" | "1" => Ok(true),
        "no" | "false" | "0" => Ok(false),
        other => Err(BadValue(format!("{other:?}: expected yes or no"))),
    }
}

/// Where the queries come from.
enum Queries {
    /// One sequence from the command line.
    Argument(String),
    /// A FASTA/FASTQ file.
    File(SeqReader),
}

/// A sequence argument that names a file (or looks like a path) is a mistake: the user meant
/// `-f`. DNA has neither `/` nor file extensions.
fn check_sequence_argument(sequence: &str) -> Result<(), UsageError> {
    let path = Path::new(sequence);
    let exists = path.exists();
    let looks_like_path = (sequence.contains('/') || sequence.contains('.'))
        && !sequence
            .bytes()
            .all(|b| is_nucleotide(b) || b == b'-' || b == b'.' || b.is_ascii_whitespace());
    if !exists && !looks_like_path {
        return Ok(());
    }
    let what = if path.is_dir() {
        "is a directory"
    } else if exists {
        "is a file"
    } else {
        "looks like a file name"
    };
    Err(UsageError(format!(
        "{sequence:?} {what}, not a sequence: did you mean -f {sequence}?{}",
        if exists { "" } else { " (no such file exists)" }
    )))
}

/// How the query bases are read: bitsift's rule, or COBS's for `--format cobs`.
fn base_reading(args: &QueryArgs) -> BaseReading {
    if args.cobs_bases || args.format == FormatArg::Cobs {
        BaseReading::Cobs {
            fold_case: args.fold_case,
        }
    } else {
        if args.fold_case {
            tracing::info!("--fold-case: lowercase bases are read as ACGT by default now");
        }
        BaseReading::Standard
    }
}

fn open_queries(args: &QueryArgs) -> Result<Queries> {
    match (&args.sequence, &args.file) {
        (Some(sequence), _) => {
            check_sequence_argument(sequence)?;
            Ok(Queries::Argument(sequence.clone()))
        }
        (None, Some(path)) if is_standard_input(path) => {
            let name = Path::new("standard input");
            Ok(Queries::File(SeqReader::from_reader(
                name,
                std::io::stdin(),
            )?))
        }
        (None, Some(path)) => Ok(Queries::File(SeqReader::open(path)?)),
        (None, None) => Err(UsageError("give a query sequence or -f QUERIES".into()).into()),
    }
}

/// Whether `path` is `-`, standard input.
fn is_standard_input(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Standard input can be read once: `-` may stand for one of the files read.
fn check_standard_input(args: &QueryArgs) -> Result<(), UsageError> {
    let lists = args.indexes.index_list.iter();
    let given = args.file.iter().chain(args.metadata.iter()).chain(lists);
    if given.filter(|path| is_standard_input(path)).count() > 1 {
        return Err(UsageError(
            "standard input (-) can be read once: give it to one of -f, --metadata, --index-list"
                .into(),
        ));
    }
    Ok(())
}

/// The indexes and sessions `args` ask for.
fn search_setup(args: &QueryArgs) -> SearchSetup {
    SearchSetup {
        sources: args.indexes.sources(),
        header: HeaderOptions {
            legacy_k: args.legacy_k,
            legacy_canonical: args.legacy_canonical,
        },
        side_memory: args.side_memory,
        cache_bytes: args.cache_size,
        warm: args.warm,
        sessions: 1,
        session: SessionSetup {
            engine: args.remote.engine(args.engine.options()),
            config: SessionConfig {
                memory: None,
                threads: args.threads,
                merge_gap: args.merge_gap,
                read_max: args.read_max,
            },
        },
    }
}

/// What one search of `args` asks.
fn search_request(args: &QueryArgs) -> SearchRequest {
    let cobs = args.format == FormatArg::Cobs;
    SearchRequest {
        cutoff: match args.min_identity {
            Some(identity) => Cutoff::Identity(identity),
            None => Cutoff::Fraction(args.threshold),
        },
        limit: args.limit,
        reading: base_reading(args),
        prune: !args.no_prune,
        // COBS's output is COBS's answer: every block is read.
        summaries: !args.no_summaries && !cobs,
        coverage: args.coverage,
        waves: args.waves,
        cobs_order: cobs,
        group_by: args.group_by.clone(),
        // COBS's output is COBS's answer: raw scores, raw threshold.
        corrected: !cobs,
        raw_threshold: args.raw_threshold,
        ..SearchRequest::default()
    }
}

/// A setup the command line cannot express is a usage error.
fn check_setup(setup: &SearchSetup) -> Result<(), UsageError> {
    setup.check().map_err(|error| {
        UsageError(match error {
            SetupError::NoIndex => NO_INDEX_GIVEN.into(),
            SetupError::WarmWithoutCache => "--warm needs a cache: give --cache-size".into(),
        })
    })
}

fn open_searcher(
    setup: &SearchSetup,
    request: &SearchRequest,
    ui: Ui,
) -> Result<(Session, Option<Warmup>)> {
    let opened = setup.open().map_err(no_index_hint)?;
    tell(&opened.notices, request.summaries, ui);
    let searcher = opened.sessions.into_iter().next();
    let searcher = searcher.context("no session was opened")?;
    Ok((searcher, opened.warmup))
}

/// Says on standard error what the open found: an engine fallback (with `-v`), indexes
/// without checksums (unless quiet), and block summaries that cannot be used when they
/// would be.
fn tell(notices: &Notices, summaries: bool, ui: Ui) {
    if let Some(notice) = &notices.engine {
        tracing::info!("{notice}");
    }
    if !ui.quiet {
        if let Some(notice) = unchecked_notice(&notices.unchecked) {
            eprintln!("bitsift: notice: {notice}");
        }
    }
    if summaries {
        // Damaged or foreign summaries are not used: their index is read in full.
        for problem in &notices.summary_problems {
            eprintln!("bitsift: warning: {problem}");
        }
    }
    // Damaged or foreign counts of ones are not used: their rows are sampled.
    for problem in &notices.ones_problems {
        eprintln!("bitsift: warning: {problem}");
    }
}

/// Says which indexes have no checksum sidecar, whose reads are therefore not checked.
fn unchecked_notice(unchecked: &[PathBuf]) -> Option<String> {
    let first = unchecked.first()?.display();
    Some(match unchecked.len() {
        1 => format!(
            "{first} has no checksums, so its reads cannot be checked; create them with `bitsift checksum {first}`"
        ),
        n => format!(
            "{n} indexes (the first: {first}) have no checksums, so their reads cannot be checked; create them with `bitsift checksum`"
        ),
    })
}

/// Loads `--metadata` and warns when none of its names is a document of the indexes. A TSV
/// of groups shows no metadata column of its own: the table is then read for the
/// `--group-by` column alone.
fn load_metadata(path: &Path, args: &QueryArgs, searcher: &Session) -> Result<Metadata> {
    let loaded = match &args.group_by {
        Some(column) if args.format == FormatArg::Tsv => Metadata::load_column(path, column),
        _ => Metadata::load(path),
    };
    let metadata = match loaded {
        Err(MetadataError::NoColumn {
            column, columns, ..
        }) => {
            return Err(UsageError(format!(
                "--group-by: the metadata table has no column {column:?}; its columns: {}",
                columns.join(", ")
            ))
            .into())
        }
        loaded => loaded?,
    };
    let mut matched = false;
    for header in searcher.headers() {
        matched = matched
            || header
                .names
                .all()?
                .iter()
                .any(|name| metadata.get(name).is_some());
    }
    if !matched && !metadata.is_empty() {
        tracing::warn!(
            "{}: none of its {} is a document of the indexes; its first column must hold document names as the index lists them (bitsift info --documents)",
            path.display(),
            plural(metadata.len() as u64, "name")
        );
    }
    Ok(metadata)
}

/// Output options that only some formats have.
fn check_output_options(args: &QueryArgs) -> Result<(), UsageError> {
    let tabular = matches!(args.format, FormatArg::Tsv | FormatArg::Json);
    if args.presence && args.format != FormatArg::Matrix {
        return Err(UsageError("--presence applies to --format matrix".into()));
    }
    if args.group_by.is_some() && !tabular {
        return Err(UsageError("--group-by writes --format tsv or json".into()));
    }
    Ok(())
}

fn output_setup<'a>(
    args: &QueryArgs,
    index: &'a Index,
    request: &SearchRequest,
    metadata: Option<&'a Metadata>,
) -> OutputSetup<'a> {
    let shown_metadata = args.metadata.as_ref().map(|p| p.display().to_string());
    OutputSetup {
        format: args.format.into(),
        index,
        verbatim: args.sequence.is_some(),
        report_misses: args.report_misses,
        metadata,
        presence: args.presence,
        group_by: args.group_by.clone(),
        coverage: args.coverage,
        provenance: Provenance {
            version: bitsift::VERSION,
            search: request.settings(index.k_max(), shown_metadata),
        },
    }
}

pub(crate) fn run(args: QueryArgs, ui: Ui) -> Result<Outcome> {
    let setup = search_setup(&args);
    check_setup(&setup)?;
    check_output_options(&args)?;
    check_standard_input(&args)?;
    args.remote.apply(args.engine.queue_depth)?;
    let request = search_request(&args);
    let mut queries = open_queries(&args)?;
    let (mut searcher, warmup) = open_searcher(&setup, &request, ui)?;
    let metadata = match &args.metadata {
        Some(path) => Some(load_metadata(path, &args, &searcher)?),
        None => None,
    };
    let index = searcher.index().clone();
    let group_by = match (&args.group_by, &metadata) {
        (Some(column), Some(metadata)) => Some(Arc::new(
            Grouping::new(&index, metadata, column).map_err(|e| match e {
                GroupByError::NoColumn(e) => {
                    anyhow::Error::from(UsageError(format!("--group-by: {e}")))
                }
                GroupByError::Names(e) => e.into(),
            })?,
        )),
        _ => None,
    };
    let sink = Sink::open(args.output.as_deref())?;
    let output = output_setup(&args, &index, &request, metadata.as_ref());
    let mut writer = ResultWriter::new(BufWriter::with_capacity(1 << 16, sink), output);
    let options = request.options(index.k_max(), group_by);
    let batch_max = if args.batch == 0 {
        usize::MAX
    } else {
        args.batch
    };
    let mut batch = Batch::new(request.reading, &options, args.stats);
    match &mut queries {
        Queries::Argument(sequence) => {
            let record = SeqRecord {
                name: "query".into(),
                sequence: sequence.trim().as_bytes().to_vec(),
            };
            batch.push(record);
        }
        Queries::File(reader) => {
            batch.origin = format!("{}: ", reader.path().display());
            let mut record = SeqRecord::default();
            while reader.next_into(&mut record)? {
                batch.push(std::mem::take(&mut record));
                if batch.len() >= batch_max || batch.is_full() {
                    batch.run(&mut searcher, &mut writer)?;
                }
            }
        }
    }
    batch.run(&mut searcher, &mut writer)?;
    stop_warmup(warmup);
    let sink = writer
        .finish()?
        .into_inner()
        .map_err(|e| e.into_error())
        .context("cannot write the results")?;
    sink.commit()?;
    // COBS's own output has no summary: `cobs query` prints none.
    let summary = !ui.quiet && args.format != FormatArg::Cobs;
    if let Some(identity) = args.min_identity {
        warn_under_floor(
            identity,
            options.threshold,
            &batch.skips,
            args.raw_threshold,
        );
    }
    Ok(finish(&batch.skips, summary))
}

/// Warns when `--min-identity identity` asks for a fraction of k-mers (`fraction`) under the
/// false-positive rate of the documents reported: COBS's raw fraction cannot tell such an
/// identity from chance (issue 33), and the warning says what was filtered on instead.
fn warn_under_floor(identity: f64, fraction: f64, skips: &Skips, raw_threshold: bool) {
    if fraction >= skips.fpr_max {
        return;
    }
    let consequence = match raw_threshold {
        true => "with --raw-threshold, documents holding none of a query's k-mers qualify by false positives alone",
        false => "the hits are the documents whose corrected containment reaches it and that false positives alone do not explain (p_false under 1e-6), not those estimated at that identity from COBS's raw fraction",
    };
    tracing::warn!(
        "--min-identity {identity} asks for {:.1} % of a query's k-mers, under the false-positive rate of the documents reported (up to {:.1} % per k-mer); {consequence}",
        100.0 * fraction,
        100.0 * skips.fpr_max
    );
}

fn stop_warmup(warmup: Option<Warmup>) {
    if let Some(warmup) = warmup {
        let report = warmup.stop();
        tracing::info!(
            "warm-up read {} into the cache ({})",
            bitsift::units::format_bytes(report.bytes_read),
            plural(report.pages_inserted, "page")
        );
    }
}

/// The closing summary (when `summary`), the warning when queries were skipped, and the
/// outcome.
fn finish(skips: &Skips, summary: bool) -> Outcome {
    if summary {
        eprintln!("bitsift: {}", skips.closing());
    }
    if skips.total() == 0 {
        return Outcome::Success;
    }
    tracing::warn!("{}", skips.summary());
    Outcome::Partial
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: QueryArgs,
    }

    /// `cobs query` runs exactly `bitsift query --format cobs --cobs-bases --no-summaries
    /// --raw-threshold` with the same values: every other option keeps its command-line
    /// default.
    #[test]
    fn cobs_queries_are_query_defaults() {
        let parsed = Wrapper::parse_from([
            "q",
            "-i",
            "x.cobs_compact",
            "--index-list",
            "l.txt",
            "-f",
            "q.fa",
            "-t",
            "0.33",
            "-l",
            "5",
            "-T",
            "2",
            "--engine",
            "ram",
            "--format",
            "cobs",
            "--cobs-bases",
            "--no-summaries",
            "--raw-threshold",
        ]);
        let built = QueryArgs::from_cobs(CobsQuery {
            indexes: vec!["x.cobs_compact".into()],
            index_lists: vec!["l.txt".into()],
            file: Some("q.fa".into()),
            sequence: None,
            threshold: 0.33,
            limit: 5,
            threads: 2,
            load_complete: true,
        });
        assert_eq!(format!("{:?}", parsed.args), format!("{built:?}"));
    }

    #[test]
    fn file_names_given_as_sequences_get_a_hint() {
        assert!(check_sequence_argument("ACGTACGTNNRY").is_ok());
        assert!(check_sequence_argument("acgt acgt").is_ok());
        let error = check_sequence_argument("genes.fa").unwrap_err().to_string();
        assert_eq!(
            error,
            "\"genes.fa\" looks like a file name, not a sequence: did you mean -f genes.fa? (no such file exists)"
        );
        let error = check_sequence_argument("data/x").unwrap_err().to_string();
        assert!(error.contains("did you mean -f data/x?"), "{error}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ACGT");
        std::fs::write(&file, ">q\nACGT\n").unwrap();
        let name = file.display().to_string();
        let error = check_sequence_argument(&name).unwrap_err().to_string();
        assert!(error.contains("is a file, not a sequence"), "{error}");
    }
}
