//! Command-line interface: argument definitions and dispatch. Each subcommand lives in its
//! own module; clap types stop here and become validated library options.

mod build;
mod collection;
mod demo;
mod info;
mod iobench;
mod logging;
mod merge_results;
mod query;
mod serve;
mod synth;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

const ABOUT: &str = "Search COBS genome indexes at the speed of the storage";

const EXAMPLES: &str = "\
Examples:
  bitsift demo                                          build and search the bundled genomes
  bitsift build -o genomes.cobs_compact assemblies/     one document per file
  bitsift query -i genomes.cobs_compact -f genes.fa     TSV of hits per gene
  bitsift query -i genomes.cobs_compact --stats ACGT... one sequence, with I/O accounting
  bitsift info genomes.cobs_compact                     geometry and alignment of an index
  bitsift add collection/ new_genomes/                  grow a collection without a rebuild";

#[derive(Parser, Debug)]
#[command(name = "bitsift", version, about = ABOUT, after_help = EXAMPLES, propagate_version = true)]
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
}

/// Exit status: 0 success, 1 failure, 2 finished with some inputs reported and skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Everything asked was done.
    Success,
    /// Some records or files failed and were skipped; the rest was done.
    Partial,
}

/// How to talk to the user.
#[derive(Clone, Copy, Debug)]
pub struct Ui {
    /// Draw progress bars (standard error is a terminal and not --quiet).
    pub progress: bool,
    /// Print only errors.
    pub quiet: bool,
}

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    logging::init(cli.verbose, cli.quiet);
    let ui = Ui {
        progress: !cli.quiet && std::io::stderr().is_terminal(),
        quiet: cli.quiet,
    };
    let result = match cli.command {
        Command::Build(args) => build::run(args, ui),
        Command::Query(args) => query::run(args, ui),
        Command::Info(args) => info::run(args),
        Command::Add(args) => collection::add(args, ui),
        Command::Remove(args) => collection::remove(args, ui),
        Command::Merge(args) => collection::merge(args, ui),
        Command::MergeResults(args) => merge_results::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Demo(args) => demo::run(args, ui),
        Command::Iobench(args) => iobench::run(args, ui),
        Command::Synth(args) => synth::run(args, ui),
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Partial) => ExitCode::from(2),
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bitsift: {error:#}");
            ExitCode::FAILURE
        }
    }
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
fn parse_size(text: &str) -> Result<u64, String> {
    bitsift::units::parse_bytes(text)
}

/// `threads`, or one per core when 0.
fn threads_or_cores(threads: usize) -> usize {
    if threads > 0 {
        return threads;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Parses a threshold in 0..=1 for clap.
fn parse_threshold(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if !(0.0..=1.0).contains(&value) {
        return Err(format!(
            "{value} is out of range: the threshold is the fraction of a query's k-mers a document must contain, from 0 to 1"
        ));
    }
    Ok(value)
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
        assert!(parse_threshold("1.5").is_err());
        assert!(parse_threshold("x").is_err());
    }
}
