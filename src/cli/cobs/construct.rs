//! `cobs compact-construct` and `cobs classic-construct` on bitsift's builder, with COBS's
//! parameters (k = 31, canonical k-mers, one hash function, false-positive rate 0.3, and for
//! the compact index COBS's automatic page size) and COBS's documents: every type COBS reads,
//! named, counted and read as COBS does ([`bitsift::doclist`]), in COBS's order.

use std::path::PathBuf;

use anyhow::{bail, Result};
use bitsift::builder::classic::build_classic;
use bitsift::builder::layout::RowSizing;
use bitsift::builder::order::Order;
use bitsift::builder::{build, default_memory_bytes, BuildOptions};
use bitsift::doclist::{cobs_page_size, DocumentList, FileType};
use clap::Args;

use super::super::build::print_report;
use super::super::{parse_size, threads_or_cores, Outcome, Ui, UsageError};
use super::{
    ignored, parse_false_positive_rate, parse_num_hashes, parse_page_size, parse_term_size, report,
};

/// The options both constructions take.
#[derive(Args, Debug)]
pub(crate) struct ConstructArgs {
    /// path to the input directory or file
    #[arg(value_name = "INPUT")]
    input: PathBuf,
    /// path to the output index file
    #[arg(value_name = "OUT_FILE")]
    out_file: PathBuf,
    /// "list" to read a file list, or filter documents by file type (any, text, cortex,
    /// cobs_doc, fasta, fastq)
    #[arg(long, default_value = "any", value_name = "TYPE")]
    file_type: String,
    /// memory in bytes to use [default: half the available memory]
    #[arg(short, long, value_parser = parse_size, value_name = "BYTES")]
    memory: Option<u64>,
    /// number of hash functions
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = parse_num_hashes)]
    num_hashes: u32,
    /// false positive rate
    #[arg(short, long, default_value_t = 0.3, value_name = "RATE",
          value_parser = parse_false_positive_rate)]
    false_positive_rate: f64,
    /// term size (k-mer size)
    #[arg(short = 'k', long, default_value_t = 31, value_name = "K", value_parser = parse_term_size)]
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
pub(crate) struct CompactArgs {
    #[command(flatten)]
    common: ConstructArgs,
    /// the page size (bytes per row) of the compact index, default: COBS's, from the number
    /// of documents
    #[arg(short, long, default_value_t = 0, value_name = "BYTES", value_parser = parse_page_size)]
    page_size: u64,
}

/// `classic-construct`.
#[derive(Args, Debug)]
pub(crate) struct ClassicArgs {
    #[command(flatten)]
    common: ConstructArgs,
    /// signature size (ignored: rows follow from the false positive rate)
    #[arg(short, long, default_value_t = 0, value_name = "ROWS")]
    sig_size: u64,
}

pub(crate) fn compact(args: CompactArgs, ui: Ui) -> Result<Outcome> {
    let list = prepare(&args.common, ".cobs_compact")?;
    let page_size = match args.page_size {
        0 => cobs_page_size(list.len() as u64),
        bytes => bytes,
    };
    let per_block = usize::try_from(8 * page_size)
        .map_err(|_| UsageError(format!("--page-size {page_size} is too large")))?;
    // COBS's layout: by size, blocks of 8·P documents each in path order, blocks without a
    // k-mer left out.
    let (ordered, _) = list.compact_order(per_block, args.common.term_size.into())?;
    let mut options = options(&args.common, ordered, ui);
    options.page_size = Some(page_size);
    let report = build(&options)?;
    if !ui.quiet {
        print_report(&options, &report);
    }
    Ok(Outcome::Success)
}

/// A classic index: every document in one matrix, in the list's order (by path)
/// ([`bitsift::builder::classic`]).
pub(crate) fn classic(args: ClassicArgs, ui: Ui) -> Result<Outcome> {
    if args.sig_size != 0 {
        ignored(
            "--sig-size",
            "rows follow from the false positive rate and the largest document",
        );
    }
    let list = prepare(&args.common, ".cobs_classic")?;
    let terms = list.classic_terms(args.common.term_size.into())?;
    let mut options = options(&args.common, list, ui);
    options.rows = RowSizing::Terms(terms);
    let report = build_classic(&options)?;
    if !ui.quiet {
        print_report(&options, &report);
    }
    Ok(Outcome::Success)
}

/// Checks the output as COBS does, reads the document list and prints it.
fn prepare(args: &ConstructArgs, extension: &str) -> Result<DocumentList> {
    note_ignored(args);
    if !args
        .out_file
        .as_os_str()
        .as_encoded_bytes()
        .ends_with(extension.as_bytes())
    {
        return Err(UsageError(format!(
            "{}: the index file's name must end with {extension}, as COBS requires",
            args.out_file.display()
        ))
        .into());
    }
    if args.out_file.exists() && !args.clobber {
        // Before the document list is read and printed, which takes a pass over the inputs.
        bail!(
            "{}: already exists; pass -C (--clobber) to overwrite it",
            args.out_file.display()
        );
    }
    let filter =
        FileType::parse(&args.file_type).map_err(|e| UsageError(format!("--file-type: {e}")))?;
    let list = DocumentList::scan(&args.input, filter)?;
    report::print_document_list(&list, args.term_size)?;
    if list.is_empty() {
        bail!(
            "{}: no documents of type {filter} found",
            args.input.display()
        );
    }
    Ok(list)
}

/// The build that COBS's options ask for, of the documents of `list` in its order (page size
/// still to be chosen).
fn options(args: &ConstructArgs, list: DocumentList, ui: Ui) -> BuildOptions {
    BuildOptions {
        output: args.out_file.clone(),
        inputs: Vec::new(),
        lists: Vec::new(),
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
        order: Order::Input,
        metadata: None,
        summaries: None,
        rows: RowSizing::Exact,
        layout: bitsift::format::LayoutChoice::Cobs,
        documents: Some(list),
    }
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
}
