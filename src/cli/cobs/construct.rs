//! `cobs compact-construct` and `cobs classic-construct` on bitsift's builder, with COBS's
//! parameters: k = 31, canonical k-mers, one hash function, false-positive rate 0.3, and for
//! the compact index COBS's automatic page size.

use std::path::PathBuf;

use anyhow::{bail, Result};
use bitsift::builder::classic::build_classic;
use bitsift::builder::layout::RowSizing;
use bitsift::builder::order::Order;
use bitsift::builder::{build, default_memory_bytes, inputs, BuildOptions};
use clap::Args;

use super::super::build::print_report;
use super::super::{parse_size, threads_or_cores, Outcome, Ui, UsageError};
use super::{ignored, report};

/// The options both constructions take.
#[derive(Args, Debug)]
pub struct ConstructArgs {
    /// path to the input directory or file
    #[arg(value_name = "INPUT")]
    input: PathBuf,
    /// path to the output index file
    #[arg(value_name = "OUT_FILE")]
    out_file: PathBuf,
    /// "list" to read a file list, or filter documents by file type (any, fasta, fastq)
    #[arg(long, default_value = "any", value_name = "TYPE")]
    file_type: String,
    /// memory in bytes to use [default: half the available memory]
    #[arg(short, long, value_parser = parse_size, value_name = "BYTES")]
    memory: Option<u64>,
    /// number of hash functions
    #[arg(long, default_value_t = 1, value_name = "N")]
    num_hashes: u32,
    /// false positive rate
    #[arg(short, long, default_value_t = 0.3, value_name = "RATE")]
    false_positive_rate: f64,
    /// term size (k-mer size)
    #[arg(short = 'k', long, default_value_t = 31, value_name = "K")]
    term_size: u32,
    /// don't canonicalize DNA k-mers
    #[arg(long)]
    no_canonicalize: bool,
    /// erase output file if it exists
    #[arg(short = 'C', long)]
    clobber: bool,
    /// continue in existing output directory (ignored)
    #[arg(long = "continue")]
    continue_build: bool,
    /// number of threads to use (0: one per core)
    #[arg(short = 'T', long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// keep temporary files during construction (ignored)
    #[arg(long)]
    keep_temporary: bool,
    /// directory for intermediate index files (ignored)
    #[arg(long, value_name = "DIR")]
    tmp_path: Option<PathBuf>,
}

/// `compact-construct`.
#[derive(Args, Debug)]
pub struct CompactArgs {
    #[command(flatten)]
    common: ConstructArgs,
    /// the page size (bytes per row) of the compact index, default: COBS's, from the number
    /// of documents
    #[arg(short, long, default_value_t = 0, value_name = "BYTES")]
    page_size: u64,
}

/// `classic-construct`.
#[derive(Args, Debug)]
pub struct ClassicArgs {
    #[command(flatten)]
    common: ConstructArgs,
    /// signature size (ignored: rows follow from the false positive rate)
    #[arg(short, long, default_value_t = 0, value_name = "ROWS")]
    sig_size: u64,
}

/// COBS's automatic page size for `documents` documents (`compact_construct` in
/// `cobs/construction/compact_index.cpp`): sqrt(D/8) rounded up to a power of two, in
/// 8..=4096.
pub fn cobs_page_size(documents: u64) -> u64 {
    let root = ((documents / 8) as f64).sqrt() as u64;
    root.next_power_of_two().clamp(8, 4096)
}

pub fn compact(args: CompactArgs, ui: Ui) -> Result<Outcome> {
    let mut options = options(&args.common, Order::Size, ui)?;
    let documents = report::print_inputs(&options, args.common.term_size)?;
    options.page_size = Some(match args.page_size {
        0 => cobs_page_size(documents),
        bytes => bytes,
    });
    run(&options, ui)
}

/// A classic index: every document in one matrix, in path order
/// ([`bitsift::builder::classic`]).
pub fn classic(args: ClassicArgs, ui: Ui) -> Result<Outcome> {
    if args.sig_size != 0 {
        ignored(
            "--sig-size",
            "rows follow from the false positive rate and the largest document",
        );
    }
    let options = options(&args.common, Order::Input, ui)?;
    report::print_inputs(&options, args.common.term_size)?;
    let report = build_classic(&options)?;
    if !ui.quiet {
        print_report(&options, &report);
    }
    Ok(Outcome::Success)
}

fn run(options: &BuildOptions, ui: Ui) -> Result<Outcome> {
    let report = build(options)?;
    if !ui.quiet {
        print_report(options, &report);
    }
    Ok(Outcome::Success)
}

/// The build that COBS's options ask for (page size still to be chosen).
fn options(args: &ConstructArgs, order: Order, ui: Ui) -> Result<BuildOptions> {
    note_ignored(args);
    if args.out_file.exists() && !args.clobber {
        // Before the document list is read and printed, which takes a pass over the inputs.
        bail!(
            "{}: already exists; pass -C (--clobber) to overwrite it",
            args.out_file.display()
        );
    }
    let (inputs, lists) = match args.file_type.as_str() {
        "any" | "*" | "fasta" | "fastq" => (vec![args.input.clone()], Vec::new()),
        "list" => (Vec::new(), vec![args.input.clone()]),
        other => {
            return Err(UsageError(format!(
                "--file-type {other}: bitsift builds from FASTA and FASTQ files (plain or compressed), or a list of them (--file-type list)"
            ))
            .into())
        }
    };
    Ok(BuildOptions {
        output: args.out_file.clone(),
        inputs,
        lists,
        per_record: false,
        k: args.term_size,
        fpr: args.false_positive_rate,
        num_hashes: args.num_hashes,
        canonical: !args.no_canonicalize,
        threads: threads_or_cores(args.threads),
        page_size: None,
        memory_bytes: args.memory.unwrap_or_else(default_memory_bytes),
        force: args.clobber,
        progress: ui.progress,
        order,
        metadata: None,
        summaries: None,
        rows: RowSizing::Exact,
    })
}

fn note_ignored(args: &ConstructArgs) {
    if args.continue_build {
        ignored(
            "--continue",
            "bitsift builds in one pass, without a temporary directory",
        );
    }
    if args.keep_temporary {
        ignored("--keep-temporary", "bitsift keeps no temporary index files");
    }
    if args.tmp_path.is_some() {
        ignored("--tmp-path", "bitsift keeps no temporary index files");
    }
    if matches!(args.file_type.as_str(), "fasta" | "fastq") {
        ignored(
            "--file-type's filter",
            "every FASTA and FASTQ file of the input is read",
        );
    }
}

/// The documents a build of `options` will read, for COBS's page size and document list.
pub fn input_files(options: &BuildOptions) -> Result<Vec<PathBuf>> {
    Ok(inputs::discover(&options.inputs, &options.lists)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of COBS's automatic page sizes (docs: cobs-format §3.5).
    #[test]
    fn page_size_follows_cobs() {
        for (documents, page_size) in [
            (12, 8),
            (511, 8),
            (1_000, 16),
            (10_000, 64),
            (100_000, 128),
            (661_405, 512),
            (1_000_000, 512),
        ] {
            assert_eq!(cobs_page_size(documents), page_size, "{documents}");
        }
    }
}
