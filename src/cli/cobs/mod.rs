//! COBS's command line on bitsift's library: `bitsift cobs <verb> …`, and the same verbs when
//! the program runs under the name `cobs` (the `cobs` executable installed beside `bitsift`,
//! or a link named `cobs`), so a pipeline written for COBS v0.3 runs unchanged.
//!
//! The verbs take COBS's options ([`Verb`]) and print what COBS prints on standard output:
//! `query` through `bitsift query --format cobs` ([`query`]), the constructions through
//! bitsift's builder with COBS's parameters ([`construct`]), `doc-list`, `print-parameters`
//! and `print-kmers` in COBS's exact text ([`report`]). Options that mean nothing to bitsift
//! are accepted and said to be ignored on standard error ([`ignored`]).

mod construct;
mod query;
mod report;

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

use super::values::BadValue;
use super::{Outcome, Ui};

const ABOUT: &str = "(Co)mpact (B)it-Sliced (S)ignature Index for Genome Search: COBS's command \
line, run by bitsift (see the README, \"Drop-in for COBS\")";

/// The `cobs` executable's command line.
#[derive(Parser, Debug)]
#[command(name = "cobs", version, about = ABOUT)]
struct CobsCli {
    #[command(subcommand)]
    verb: Verb,
}

/// `bitsift cobs`: the same verbs under bitsift's name.
#[derive(Args, Debug)]
pub(crate) struct CobsArgs {
    #[command(subcommand)]
    verb: Verb,
}

/// COBS's verbs, with COBS's own descriptions where they are right.
#[derive(Subcommand, Debug)]
enum Verb {
    /// read a list of documents and print the list
    DocList(report::DocListArgs),
    /// constructs a classic index from the documents in <input>
    ClassicConstruct(construct::ClassicArgs),
    /// constructs a compact index from the documents in <input>
    CompactConstruct(construct::CompactArgs),
    /// query an index
    Query(query::CobsQueryArgs),
    /// calculates index parameters
    PrintParameters(report::ParametersArgs),
    /// print all canonical kmers from <query>
    PrintKmers(report::KmersArgs),
    /// prints version and exit
    Version,
}

/// Whether this process was started under the name `cobs`.
pub(crate) fn invoked_as_cobs() -> bool {
    std::env::args_os().next().is_some_and(|arg0| {
        Path::new(&arg0)
            .file_stem()
            .is_some_and(|stem| stem == "cobs")
    })
}

/// The `cobs` executable: parses COBS's command line and runs the verb.
pub(crate) fn main() -> ExitCode {
    let cli = CobsCli::parse();
    super::logging::init(0, false);
    super::finish(run(cli.verb, ui()))
}

/// `bitsift cobs <verb>`.
pub(crate) fn run_args(args: CobsArgs, ui: Ui) -> Result<Outcome> {
    run(args.verb, ui)
}

fn ui() -> Ui {
    use std::io::IsTerminal;
    Ui {
        progress: std::io::stderr().is_terminal(),
        quiet: false,
        verbose: false,
    }
}

fn run(verb: Verb, ui: Ui) -> Result<Outcome> {
    // COBS's verbs print line by line: a reader that stops (`cobs query … | head`) ends the
    // process quietly, as it ends `cat`.
    // SAFETY: restoring a signal's default disposition before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match verb {
        Verb::DocList(args) => report::doc_list(args),
        Verb::ClassicConstruct(args) => construct::classic(args, ui),
        Verb::CompactConstruct(args) => construct::compact(args, ui),
        Verb::Query(args) => query::run(args, ui),
        Verb::PrintParameters(args) => report::print_parameters(args),
        Verb::PrintKmers(args) => report::print_kmers(args),
        Verb::Version => {
            println!(
                "bitsift {} (COBS-compatible command line)",
                bitsift::VERSION
            );
            Ok(Outcome::Success)
        }
    }
}

/// `-k`/`--term-size`: from 1 to [`bitsift::format::K_MAX`]; a value out of range is a usage
/// error (exit 2) naming COBS's option, as a value that is not a number is.
fn parse_term_size(text: &str) -> Result<u32, BadValue> {
    let k: u32 = text.parse().map_err(|e| format!("{e}"))?;
    if k == 0 || k > bitsift::format::K_MAX {
        return Err(BadValue(format!(
            "{k} is out of range: the term size is from 1 to {}",
            bitsift::format::K_MAX
        )));
    }
    Ok(k)
}

/// `--num-hashes`: from 1 to [`bitsift::format::HASHES_MAX`].
fn parse_num_hashes(text: &str) -> Result<u32, BadValue> {
    let hashes: u32 = text.parse().map_err(|e| format!("{e}"))?;
    if hashes == 0 || u64::from(hashes) > bitsift::format::HASHES_MAX {
        return Err(BadValue(format!(
            "{hashes} is out of range: from 1 to {} hash functions",
            bitsift::format::HASHES_MAX
        )));
    }
    Ok(hashes)
}

/// `-f`/`--false-positive-rate`: strictly between 0 and 1.
fn parse_false_positive_rate(text: &str) -> Result<f64, BadValue> {
    let rate: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if !(rate > 0.0 && rate < 1.0) {
        return Err(BadValue(format!(
            "{text} is out of range: the false positive rate is between 0 and 1 (e.g. 0.3)"
        )));
    }
    Ok(rate)
}

/// `-p`/`--page-size`: 0 (COBS's, from the number of documents) or from 1 to
/// [`bitsift::format::PAGE_SIZE_MAX`].
fn parse_page_size(text: &str) -> Result<u64, BadValue> {
    let bytes: u64 = text.parse().map_err(|e| format!("{e}"))?;
    if bytes > bitsift::format::PAGE_SIZE_MAX {
        return Err(BadValue(format!(
            "{bytes} is out of range: from 1 to {} bytes per row (0: COBS's page size)",
            bitsift::format::PAGE_SIZE_MAX
        )));
    }
    Ok(bytes)
}

/// Says on standard error that `option` was accepted but means nothing to bitsift, and why.
fn ignored(option: &str, why: &str) {
    eprintln!("bitsift: note: {option} is ignored: {why}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cobs_definition_is_consistent() {
        CobsCli::command().debug_assert();
    }

    /// Phylign's call parses as COBS reads it.
    #[test]
    fn phylign_query_parses() {
        let cli = CobsCli::try_parse_from([
            "cobs",
            "query",
            "--load-complete",
            "-t",
            "0.33",
            "-T",
            "2",
            "-i",
            "batch.cobs_classic",
            "-f",
            "q.fa",
        ])
        .unwrap();
        assert!(matches!(cli.verb, Verb::Query(_)), "{cli:?}");
    }
}
