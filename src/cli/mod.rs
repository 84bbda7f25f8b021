//! Command-line interface: argument definitions and dispatch. Each subcommand lives in its
//! own module; clap types stop here and become validated library options.

mod build;
mod checksum;
mod choices;
mod cobs;
mod collection;
mod demo;
mod indexes;
mod info;
mod iobench;
mod logging;
mod merge_results;
mod output_file;
mod query;
mod remote;
mod search_args;
mod serve;
mod synth;
mod values;
mod verify;

use bitsift::answer::Cutoff;
use bitsift::cores::threads_or_cores;
use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use values::BadValue;

const ABOUT: &str = "Search COBS genome indexes at the speed of the storage";

/// The exit statuses, shown by `bitsift --help` and `bitsift query --help`.
macro_rules! exit_status_help {
    () => {
        "\
Exit status:
  0  done: every query was searched (with or without hits)
  1  failed: a file could not be read or written, an index is damaged, a read failed
  2  usage: the command line is wrong (unknown option, bad value, a file name where a
     sequence goes); nothing was run
  3  partial: some queries were not searched (shorter than k, not DNA) and were reported
     on standard error; the others were"
    };
}
use exit_status_help;

const AFTER_HELP: &str = concat!(
    "\
Examples:
  bitsift demo                                          build and search the bundled genomes
  bitsift build -o genomes.cobs_compact assemblies/     one document per file
  bitsift query -i genomes.cobs_compact -f genes.fa     TSV of hits per gene
  bitsift query -i genomes.cobs_compact --stats ACGT... one sequence, with I/O accounting
  bitsift info genomes.cobs_compact                     geometry and alignment of an index
  bitsift add collection/ new_genomes/                  grow a collection without a rebuild

",
    exit_status_help!()
);

#[derive(Parser, Debug)]
#[command(name = "bitsift", version, about = ABOUT, after_help = AFTER_HELP, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// More log output on standard error (-v: steps, -vv: debug)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only errors on standard error (no warnings, no progress)
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Build a COBS compact index from FASTA/FASTQ files
    Build(build::BuildArgs),
    /// Search indexes for sequences
    Query(query::QueryArgs),
    /// Describe an index or a collection: parameters, geometry, alignment
    Info(info::InfoArgs),
    /// Add genomes (or an existing index) to a collection, creating it if needed
    Add(collection::AddArgs),
    /// Hide documents of a collection from every search
    Remove(collection::RemoveArgs),
    /// Combine a collection's sub-indexes and drop removed documents, without genomes
    Merge(collection::MergeArgs),
    /// Rebuild a collection's lost manifest from its sub-index files (removals lost)
    Recover(collection::RecoverArgs),
    /// Merge `query --format json` results of parts of a collection into one ranking
    MergeResults(merge_results::MergeResultsArgs),
    /// Serve searches over HTTP: JSON API, web page, metrics
    Serve(serve::ServeArgs),
    /// Build an index of the bundled genomes and search bundled genes
    Demo(demo::DemoArgs),
    /// Measure a storage device for random row reads (before deploying)
    Iobench(iobench::IobenchArgs),
    /// Write an index with the geometry of a real collection and random rows
    Synth(synth::SynthArgs),
    /// Check whole indexes against their checksums; list every damaged page
    Verify(verify::VerifyArgs),
    /// Create the checksums (and catalog, counts of ones) of indexes built without them
    Checksum(checksum::ChecksumArgs),
    /// COBS's command line (`cobs query`, `compact-construct`, …) with COBS's output; also
    /// installed as the `cobs` executable
    Cobs(cobs::CobsArgs),
}

/// How a command ended, when it did not fail. Exit status 0 or [`EXIT_PARTIAL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Everything asked was done.
    Success,
    /// Some queries were not searched and were reported; the rest was done.
    Partial,
}

/// Exit status of a run that failed (an error was printed).
pub(crate) const EXIT_FAILURE: u8 = 1;
/// Exit status of a wrong command line: clap's own usage errors and [`UsageError`].
pub(crate) const EXIT_USAGE: u8 = 2;
/// Exit status of a run that skipped some queries ([`Outcome::Partial`]).
pub(crate) const EXIT_PARTIAL: u8 = 3;

/// A mistake on the command line found after parsing (a file name where a sequence goes);
/// exits with [`EXIT_USAGE`], as clap's own usage errors do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub String);

/// How to talk to the user.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ui {
    /// Draw progress bars (standard error is a terminal and not --quiet).
    pub(crate) progress: bool,
    /// Print only errors.
    pub(crate) quiet: bool,
    /// `-v`: say what the engine did (the demo's per-query accounting).
    pub(crate) verbose: bool,
}

/// Runs the command line and returns the process exit status. Under the name `cobs` (the
/// `cobs` executable, or a link so named) the command line is COBS's ([`cobs`]).
pub(crate) fn main() -> ExitCode {
    if cobs::invoked_as_cobs() {
        return cobs::main();
    }
    let cli = Cli::parse();
    logging::init(cli.verbose, cli.quiet);
    let ui = Ui {
        progress: !cli.quiet && std::io::stderr().is_terminal(),
        quiet: cli.quiet,
        verbose: cli.verbose > 0 && !cli.quiet,
    };
    if matches!(
        cli.command,
        Command::Info(_) | Command::Demo(_) | Command::Verify(_) | Command::Checksum(_)
    ) {
        // These print line by line: a reader that stops (`bitsift info … | head`) ends the
        // process quietly, as it ends `cat`, instead of a panic on the closed pipe. (The
        // commands that write through their own writers stop on the error and exit 0; the
        // server keeps Rust's default, which ignores the signal.)
        // SAFETY: restoring a signal's default disposition before any thread starts.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    let result = match cli.command {
        Command::Build(args) => build::run(args, ui),
        Command::Query(args) => query::run(args, ui),
        Command::Info(args) => info::run(args),
        Command::Add(args) => collection::add(args, ui),
        Command::Remove(args) => collection::remove(args, ui),
        Command::Merge(args) => collection::merge(args, ui),
        Command::Recover(args) => collection::recover(args, ui),
        Command::MergeResults(args) => merge_results::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Demo(args) => demo::run(args, ui),
        Command::Iobench(args) => iobench::run(args, ui),
        Command::Synth(args) => synth::run(args, ui),
        Command::Verify(args) => verify::run(args),
        Command::Checksum(args) => checksum::run(args),
        Command::Cobs(args) => cobs::run_args(args, ui),
    };
    finish(result)
}

/// The exit status of a finished command, after printing its error if it failed.
fn finish(result: anyhow::Result<Outcome>) -> ExitCode {
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Partial) => ExitCode::from(EXIT_PARTIAL),
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bitsift: {}", error_text(&error));
            if error.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_FAILURE)
            }
        }
    }
}

/// An error and its causes on one line, each said once: a cause whose text the message
/// already holds (`{path}: cannot open: {source}` and then `source` itself) is not repeated.
fn error_text(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if part.is_empty() || text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// A closed standard output (`bitsift query … | head`) ends the run quietly.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Parses a byte size for clap.
fn parse_size(text: &str) -> Result<u64, bitsift::units::SizeError> {
    bitsift::units::parse_bytes(text)
}

/// Parses an amount of memory to allocate (a cache, a build budget): more than the machine
/// has cannot be honoured, so it is an error rather than an abort when allocating.
fn parse_memory_size(text: &str) -> Result<u64, BadValue> {
    let bytes = parse_size(text)?;
    match bitsift::units::memory_total_bytes() {
        Some(total) if bytes > total => Err(BadValue(format!(
            "{text} is more than this machine's memory ({}); choose a smaller size",
            bitsift::units::format_bytes(total)
        ))),
        _ => Ok(bytes),
    }
}

/// Largest read or gap between merged reads (reads are at most 4 GiB, and each needs a
/// buffer of its size).
const READ_BYTES_MAX: u64 = 64 << 20;

/// Parses a read size or gap, at most [`READ_BYTES_MAX`].
fn parse_read_size(text: &str) -> Result<u64, BadValue> {
    let bytes = parse_size(text)?;
    if bytes > READ_BYTES_MAX {
        return Err(BadValue(format!(
            "{text} is too large: reads and gaps between merged reads are at most {}",
            bitsift::units::format_bytes(READ_BYTES_MAX)
        )));
    }
    Ok(bytes)
}

/// Parses a threshold in 0..=1 for clap (which must let negative numbers through to it,
/// `allow_negative_numbers`, so that `-t -1` gets this message).
fn parse_threshold(text: &str) -> Result<f64, BadValue> {
    parse_cutoff(text, Cutoff::Fraction)
}

/// Parses an identity in 0..=1 for clap.
pub(crate) fn parse_identity(text: &str) -> Result<f64, BadValue> {
    parse_cutoff(text, Cutoff::Identity)
}

fn parse_cutoff(text: &str, cutoff: fn(f64) -> Cutoff) -> Result<f64, BadValue> {
    match text.trim().parse::<f64>() {
        Ok(value) => cutoff(value)
            .checked()
            .map(|_| value)
            .map_err(|e| BadValue(e.to_string())),
        Err(_) => Err(BadValue(format!(
            "{text:?} is not a number; {}",
            cutoff(0.0).meaning()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn thresholds_are_checked() {
        assert_eq!(parse_threshold("0.8").unwrap(), 0.8);
        assert_eq!(parse_threshold("0").unwrap(), 0.0);
        assert!(parse_threshold("1.5")
            .unwrap_err()
            .to_string()
            .starts_with("1.5 is out of range"));
        assert!(parse_threshold("-1")
            .unwrap_err()
            .to_string()
            .starts_with("-1 is out of range"));
        assert!(parse_threshold("NaN")
            .unwrap_err()
            .to_string()
            .contains("is not a number"));
        assert!(parse_threshold("inf")
            .unwrap_err()
            .to_string()
            .contains("out of range"));
        assert!(parse_threshold("x")
            .unwrap_err()
            .to_string()
            .contains("is not a number"));
    }

    #[test]
    fn repeated_causes_are_printed_once() {
        let source = std::io::Error::from(std::io::ErrorKind::NotFound);
        let error = anyhow::Error::new(source).context(format!(
            "x.cobs: cannot open: {}",
            std::io::Error::from(std::io::ErrorKind::NotFound)
        ));
        assert_eq!(error_text(&error), "x.cobs: cannot open: entity not found");
        let chained = anyhow::anyhow!("disk full").context("out.tsv: cannot write");
        assert_eq!(error_text(&chained), "out.tsv: cannot write: disk full");
    }

    /// A short option means the same long option in every command that has it.
    #[test]
    fn short_options_mean_the_same_everywhere() {
        let mut meaning: std::collections::HashMap<char, (String, String)> = Default::default();
        let top = Cli::command();
        for command in top.get_subcommands() {
            for arg in command.get_arguments() {
                let (Some(short), Some(long)) = (arg.get_short(), arg.get_long()) else {
                    continue;
                };
                let name = command.get_name().to_string();
                let (first, long_there) = meaning
                    .entry(short)
                    .or_insert_with(|| (name.clone(), long.to_string()));
                assert_eq!(
                    long_there, long,
                    "-{short} is --{long_there} in {first} but --{long} in {name}"
                );
            }
        }
        assert_eq!(meaning[&'t'].1, "threshold");
        assert_eq!(meaning[&'l'].1, "limit");
        assert_eq!(meaning[&'f'].1, "file");
    }

    #[test]
    fn values_that_cannot_be_honoured_are_errors() {
        assert_eq!(parse_memory_size("1M").unwrap(), 1 << 20);
        let error = parse_memory_size("100000T").unwrap_err().to_string();
        assert!(error.contains("more than this machine's memory"), "{error}");
        assert_eq!(parse_read_size("256K").unwrap(), 256 << 10);
        assert!(parse_read_size("5G").is_err());
        assert!(parse_size("1e30").is_err());
    }
}
