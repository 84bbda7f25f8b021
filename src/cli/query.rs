//! `bitsift query`.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use bitsift::format::HeaderOptions;
use bitsift::io::{DirectIo, EngineChoice, EngineOptions, QUEUE_DEPTH_DEFAULT};
use bitsift::query::output::{OutputFormat, ResultWriter};
use bitsift::query::{SearchError, SearchOptions, Searcher};
use bitsift::seqfile::{SeqReader, SeqRecord};
use clap::Args;

use super::{parse_threshold, Outcome, Ui};

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("queries").required(true).args(["file", "sequence"])))]
pub struct QueryArgs {
    /// Index file (.cobs_compact or .cobs_classic, from COBS or bitsift) or a directory of
    /// them; repeat for several. All are searched in one batch and ranked together
    #[arg(short, long = "index", value_name = "INDEX", help_heading = "Input")]
    indexes: Vec<PathBuf>,
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

    /// I/O engine
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto, help_heading = "I/O")]
    engine: EngineChoice,
    /// Reads in flight (uring) or reader threads (pread)
    #[arg(long, default_value_t = QUEUE_DEPTH_DEFAULT, value_name = "N", help_heading = "I/O")]
    queue_depth: u32,
    /// Bypass the page cache with O_DIRECT (uring, pread)
    #[arg(long, value_enum, default_value_t = DirectIo::Auto, help_heading = "I/O")]
    direct_io: DirectIo,
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
    let indexes = bitsift::format::index_files(&args.indexes, &args.index_list)
        .map_err(anyhow::Error::msg)?;
    let header_options = HeaderOptions {
        legacy_k: args.legacy_k,
        legacy_canonical: args.legacy_canonical,
    };
    let mut searcher = Searcher::open_with(&indexes, &header_options, &engine)?;
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
    let options = SearchOptions {
        threshold: args.threshold,
        limit: args.limit,
        cobs_order: args.format == OutputFormat::Cobs,
    };
    let mut failures = 0u64;
    let mut lowercase_warned = false;
    let mut answer = |name: &str, sequence: &mut Vec<u8>, origin: &str| -> Result<()> {
        if args.fold_case {
            sequence.make_ascii_uppercase();
        } else if !lowercase_warned && sequence.iter().any(|b| b.is_ascii_lowercase()) {
            lowercase_warned = true;
            tracing::warn!(
                "{origin}query {name:?} has lowercase bases, which COBS v0.3.x reads as A (so they rarely match); pass --fold-case to read them as ACGT"
            );
        }
        match searcher.search(sequence, &options) {
            Ok(result) => {
                writer.write_result(name, &result)?;
                if args.stats {
                    eprintln!("# {name}\t{}", result.stats.summary());
                }
            }
            Err(SearchError::TooShort { length, k }) => {
                failures += 1;
                let message = format!(
                    "query is {length} bases, shorter than k = {k}; it has no k-mer to look up and was skipped"
                );
                tracing::warn!("{origin}query {name:?}: {message}");
                writer.write_error(name, &message)?;
            }
            Err(SearchError::Io(e)) => return Err(e.into()),
        }
        Ok(())
    };
    if let Some(sequence) = &args.sequence {
        let mut sequence = sequence.trim().as_bytes().to_vec();
        answer("query", &mut sequence, "")?;
    } else if let Some(path) = &args.file {
        let mut reader = SeqReader::open(path)?;
        let origin = format!("{}: ", path.display());
        let mut record = SeqRecord::default();
        while reader.next_into(&mut record)? {
            answer(&record.name, &mut record.sequence, &origin)?;
        }
    }
    writer.finish()?;
    Ok(if failures > 0 {
        Outcome::Partial
    } else {
        Outcome::Success
    })
}
