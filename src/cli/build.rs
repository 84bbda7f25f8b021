//! `bitsift build`.

use std::path::PathBuf;

use anyhow::{bail, Result};
use bitsift::builder::layout::{bits_per_kmer, RowSizing};
use bitsift::builder::order::Order;
use bitsift::builder::summaries::{SummaryOptions, DEFAULT_BITS_PER_KMER, DEFAULT_MAX_RAM};
use bitsift::builder::{build, default_memory_bytes, BuildOptions, BuildReport};
use bitsift::doclist::{DocumentList, FileType};
use bitsift::format::{LayoutChoice, RowLayout};
use bitsift::units::{format_bytes, plural};
use clap::Args;

use super::{parse_memory_size, Outcome, Ui, UsageError};

#[derive(Args, Debug)]
pub(crate) struct BuildArgs {
    /// Index file to write (COBS compact format; COBS expects the .cobs_compact extension)
    #[arg(short, long, value_name = "OUT", help_heading = "Output")]
    output: PathBuf,
    /// Overwrite OUT if it exists
    #[arg(long, help_heading = "Output")]
    force: bool,

    #[command(flatten)]
    input: InputArgs,
    /// Read the inputs as COBS does, of COBS's document type TYPE (any, text, cortex,
    /// cobs_doc, fasta, fastq, list): text files, McCortex graphs, k-mer buffers and
    /// multi-FASTA records (.mfasta) too, COBS's names, bytes hashed by COBS's rule; no
    /// block summaries
    #[arg(long, value_name = "TYPE", conflicts_with_all = ["per_record", "lists"], help_heading = "Input")]
    cobs_file_type: Option<String>,

    #[command(flatten)]
    filter: FilterArgs,
    /// Hash k-mers as written instead of as canonical DNA k-mers
    #[arg(long, help_heading = "Index")]
    no_canonical: bool,
    /// Rows of a block: exact (the fewest for --fpr, as COBS) or power-of-two (up to 2x the
    /// rows, a lower rate, and blocks that `bitsift merge` can always combine)
    #[arg(long, value_enum, default_value_t = Rows::Exact, help_heading = "Index")]
    rows: Rows,

    #[command(flatten)]
    layout: LayoutArgs,
    #[command(flatten)]
    row_layout: RowLayoutArgs,

    /// Worker threads [default: all cores]
    #[arg(short = 'T', long, help_heading = "Resources")]
    threads: Option<usize>,
    /// Memory budget, e.g. 8G [default: half the available memory]
    #[arg(short, long, value_parser = parse_memory_size, value_name = "SIZE", help_heading = "Resources")]
    memory: Option<u64>,
}

/// `--rows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Rows {
    /// The fewest rows for the false-positive rate, as COBS sizes them
    Exact,
    /// The next power of two, so that merges can combine blocks
    PowerOfTwo,
}

impl From<Rows> for RowSizing {
    fn from(rows: Rows) -> RowSizing {
        match rows {
            Rows::Exact => RowSizing::Exact,
            Rows::PowerOfTwo => RowSizing::PowerOfTwo,
        }
    }
}

/// The sequence files to index: the options `build` and `add` share.
#[derive(Args, Debug)]
pub(crate) struct InputArgs {
    /// FASTA/FASTQ files (plain, .gz, .xz, .zst, .bz2) or directories scanned recursively
    #[arg(value_name = "INPUT", help_heading = "Input")]
    pub(crate) inputs: Vec<PathBuf>,
    /// File listing inputs, one path per line (# comments; relative to the list's folder;
    /// -: standard input, relative to the current folder)
    #[arg(long = "list", value_name = "FILE", help_heading = "Input")]
    pub(crate) lists: Vec<PathBuf>,
    /// One document per FASTA/FASTQ record instead of one per file
    #[arg(long, help_heading = "Input")]
    pub(crate) per_record: bool,
}

/// The filters' k-mer length, false-positive rate, hash functions and row size: the options
/// `build` and `synth` share.
#[derive(Args, Debug)]
pub(crate) struct FilterArgs {
    /// k-mer length
    #[arg(short, long, default_value_t = 31, value_parser = super::values::k, help_heading = "Index")]
    pub(crate) k: u32,
    /// Target false-positive rate of one k-mer lookup
    #[arg(
        long,
        default_value_t = 0.3,
        allow_negative_numbers = true,
        value_parser = super::values::fpr,
        help_heading = "Index"
    )]
    pub(crate) fpr: f64,
    /// Hash functions per k-mer
    #[arg(long = "hashes", default_value_t = 1, value_parser = super::values::hashes, help_heading = "Index")]
    pub(crate) num_hashes: u32,
    /// Bytes per row [default: smallest power of two >= documents/8, in 8..=4096]
    #[arg(short, long, value_name = "BYTES", value_parser = super::values::page_size, help_heading = "Index")]
    pub(crate) page_size: Option<u64>,
}

/// Where a k-mer's rows lie: the options `build`, `add` and `synth` share.
#[derive(Args, Debug, Clone)]
pub(crate) struct RowLayoutArgs {
    /// Where a k-mer's rows lie: minimizer (bitsift's: the k-mers of a super-k-mer in one
    /// range of rows, one read per range, for request-bound disks; COBS cannot read it) or
    /// cobs (a row per k-mer, COBS's own layout, which COBS searches) [default: minimizer,
    /// or cobs for --fpr below 0.1 or -k below 19; for `add`, the collection's]
    #[arg(
        long = "layout",
        value_enum,
        value_name = "LAYOUT",
        help_heading = "Layout"
    )]
    name: Option<LayoutName>,
    /// Rows of a range of the minimizer layout: a power of two from 8 to 1024; more keeps
    /// the false positives of related genomes nearer the rate, fewer reads fewer bytes
    /// [default: 16, or a 4 KiB page of narrower rows]
    #[arg(long, value_name = "ROWS", help_heading = "Layout")]
    range_rows: Option<u32>,
}

/// Why an index of term size `k` built at `fpr` gets COBS's layout when no layout is asked
/// for.
fn cobs_layout_note(fpr: f64, k: u32) -> String {
    if k < bitsift::format::MINIMIZER_K_MIN {
        return format!(
            "-k {k} is below {}: COBS's row layout, as short terms have too few minimizers to spread a genome's rows over small ranges (--layout minimizer tries larger ranges)",
            bitsift::format::MINIMIZER_K_MIN
        );
    }
    format!(
        "--fpr {fpr} is below {}: COBS's row layout, which keeps that rate for genomes a few SNPs from a gene's carrier; --layout minimizer reads ~8x fewer requests per gene, for many more such false positives (43x at 0.01 with ranges of 16 rows, BENCHMARKS.md)",
        bitsift::format::MINIMIZER_FPR_MIN
    )
}

/// `--layout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LayoutName {
    /// Rows in minimizer ranges (bitsift's format version 2)
    Minimizer,
    /// A row per hash, as COBS (COBS's format)
    Cobs,
}

impl RowLayoutArgs {
    /// The row layout of a new index of term size `k` built at false-positive rate `fpr`: as
    /// given, else [`LayoutChoice::default_for`]; with the note that says why when it is
    /// COBS's.
    pub(crate) fn resolve(&self, fpr: f64, k: u32) -> Result<(LayoutChoice, Option<String>)> {
        if let Some(given) = self.explicit()? {
            return Ok((given, None));
        }
        let choice = LayoutChoice::default_for(fpr, k);
        let note = (choice == LayoutChoice::Cobs).then(|| cobs_layout_note(fpr, k));
        Ok((choice, note))
    }

    /// The row layout given (`None` when neither option was).
    pub(crate) fn explicit(&self) -> Result<Option<LayoutChoice>> {
        match (self.name, self.range_rows) {
            (None, None) => Ok(None),
            (Some(LayoutName::Cobs), Some(_)) => {
                Err(UsageError("--range-rows is for --layout minimizer".into()).into())
            }
            (Some(LayoutName::Cobs), None) => Ok(Some(LayoutChoice::Cobs)),
            (Some(LayoutName::Minimizer) | None, range_rows) => {
                if let Some(rows) = range_rows {
                    RowLayout::check_range_rows(rows as u64)
                        .map_err(|e| UsageError(format!("--range-rows: {e}")))?;
                }
                Ok(Some(LayoutChoice::Minimizer { range_rows }))
            }
        }
    }

    /// Whether `--layout minimizer` was asked for explicitly.
    pub(crate) fn names_minimizer(&self) -> bool {
        self.name == Some(LayoutName::Minimizer) || self.range_rows.is_some()
    }
}

/// Block order and summaries: the options `build` and `add` share.
#[derive(Args, Debug)]
pub(crate) struct LayoutArgs {
    /// Which documents share blocks: size (COBS's order), input (as given), similarity
    /// (clusters of similar k-mer content) or group:COLUMN (equal values of COLUMN in
    /// --metadata share blocks)
    #[arg(long, value_name = "ORDER", default_value = "size", value_parser = parse_order, help_heading = "Layout")]
    order: Order,
    /// TSV of the documents for --order group:COLUMN: a header line, then the document name
    /// (as the index stores it) and its columns, tab-separated
    #[arg(long, value_name = "TSV", help_heading = "Layout")]
    metadata: Option<PathBuf>,

    /// Do not write block summaries (INDEX.bitsift-summaries), and remove a stale one
    #[arg(long, help_heading = "Block summaries")]
    no_summaries: bool,
    /// Filter bits per distinct k-mer of a block's summary
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_BITS_PER_KMER, conflicts_with = "no_summaries", help_heading = "Block summaries")]
    summary_bits_per_kmer: f64,
    /// Most memory all block summaries of the index may take; larger ones are halved
    #[arg(long, value_name = "SIZE", default_value_t = DEFAULT_MAX_RAM, value_parser = parse_memory_size, conflicts_with = "no_summaries", help_heading = "Block summaries")]
    summary_max_ram: u64,
}

impl LayoutArgs {
    /// The order, its metadata table and the summaries to write; refuses an order and a
    /// metadata table that do not go together.
    pub(crate) fn resolve(self) -> Result<(Order, Option<PathBuf>, Option<SummaryOptions>)> {
        match (&self.order, &self.metadata) {
            (Order::Group(column), None) => {
                bail!("--order group:{column} needs --metadata TSV, a table whose first column names the documents")
            }
            (Order::Group(_), Some(_)) | (_, None) => {}
            (order, Some(_)) => {
                bail!("--metadata is read only by --order group:COLUMN (the order is {order})")
            }
        }
        let summaries = (!self.no_summaries).then_some(SummaryOptions {
            bits_per_kmer: self.summary_bits_per_kmer,
            max_ram_bytes: self.summary_max_ram,
        });
        Ok((self.order, self.metadata, summaries))
    }
}

fn parse_order(text: &str) -> Result<Order, bitsift::builder::order::UnknownOrder> {
    text.parse()
}

/// The COBS document list of `--cobs-file-type`: every input as COBS's `add_recursive`
/// reads it with that filter.
fn cobs_documents(args: &BuildArgs) -> Result<Option<DocumentList>> {
    let Some(name) = &args.cobs_file_type else {
        return Ok(None);
    };
    let filter = FileType::parse(name).map_err(|e| UsageError(format!("--cobs-file-type: {e}")))?;
    let mut list = DocumentList::default();
    for input in &args.input.inputs {
        list.add_recursive(input, filter)?;
    }
    if list.is_empty() {
        bail!("no documents of COBS's type {filter} in the inputs");
    }
    Ok(Some(list))
}

pub(crate) fn run(args: BuildArgs, ui: Ui) -> Result<Outcome> {
    let documents = cobs_documents(&args)?;
    let (order, metadata, mut summaries) = args.layout.resolve()?;
    let layout = match documents {
        // COBS's document types are read as COBS reads them, into COBS's layout.
        Some(_) if args.row_layout.names_minimizer() => {
            bail!("--cobs-file-type builds COBS's layout (the documents are read as COBS reads them); leave out --layout minimizer and --range-rows")
        }
        Some(_) => LayoutChoice::Cobs,
        None => {
            let (choice, note) = args.row_layout.resolve(args.filter.fpr, args.filter.k)?;
            if let Some(note) = note.filter(|_| !ui.quiet) {
                eprintln!("bitsift: note: {note}");
            }
            choice
        }
    };
    if documents.is_some() && summaries.take().is_some() {
        tracing::info!("no block summaries: the documents are read as COBS reads them");
    }
    let options = BuildOptions {
        output: args.output,
        inputs: args.input.inputs,
        lists: args.input.lists,
        per_record: args.input.per_record,
        k: args.filter.k,
        fpr: args.filter.fpr,
        num_hashes: args.filter.num_hashes,
        canonical: !args.no_canonical,
        threads: bitsift::cores::threads_or_cores(args.threads.unwrap_or(0)),
        page_size: args.filter.page_size,
        memory_bytes: args.memory.unwrap_or_else(default_memory_bytes),
        force: args.force,
        progress: ui.progress,
        order,
        metadata,
        summaries,
        rows: args.rows.into(),
        layout,
        documents,
    };
    let report = build(&options)?;
    if !ui.quiet {
        print_report(&options, &report);
    }
    Ok(Outcome::Success)
}

/// One summary line on standard error, as every build ends, and a note when the index is
/// much larger than its k-mers need.
pub(crate) fn print_report(options: &BuildOptions, report: &BuildReport) {
    let peak = bitsift::io::usage::Usage::now().peak_rss_bytes;
    let summaries = if options.summaries.is_some() {
        format!(
            ", block summaries {} ({:.1} bits per k-mer)",
            format_bytes(report.summary_bytes),
            report.summary_bits_per_kmer
        )
    } else {
        String::new()
    };
    let layout = match report.layout {
        RowLayout::Cobs => "COBS's layout".to_string(),
        RowLayout::Minimizer { range_rows, .. } => format!("ranges of {range_rows} rows"),
    };
    eprintln!(
        "bitsift: built {}: {} in {} ({} order), {}-byte rows in {layout}, {}{summaries} in {:.1} s ({:.1} M k-mers/s, peak memory {})",
        options.output.display(),
        plural(report.documents, "document"),
        plural(report.blocks, "block"),
        report.order,
        report.page_size,
        format_bytes(report.file_bytes),
        report.seconds,
        report.kmers as f64 / report.seconds.max(1e-9) / 1e6,
        format_bytes(peak)
    );
    if let Some(note) = size_note(options, report) {
        eprintln!("bitsift: {note}");
    }
}

/// How many times the size its k-mers need an index may be before the build explains why.
const OVERSIZE_NOTE_RATIO: f64 = 4.0;

/// Why a small or uneven collection gives a large index, when it does: every document of a
/// block gets a Bloom filter sized for the block's largest document, and a row has room for
/// at least 64 documents (8 bytes), used or not.
fn size_note(options: &BuildOptions, report: &BuildReport) -> Option<String> {
    let bits = bits_per_kmer(options.num_hashes, options.fpr);
    let needed = (report.kmers as f64 * bits / 8.0).max(1.0);
    let ratio = report.file_bytes as f64 / needed;
    if ratio < OVERSIZE_NOTE_RATIO {
        return None;
    }
    let slots = report.blocks * 8 * report.page_size;
    Some(format!(
        "note: the index is {ratio:.0}× the {} its k-mers need: every document of a block gets a Bloom filter sized for the block's largest document ({:.2} M k-mers here), and each {}-byte row{} has room for {}, {} of them used; many genomes of similar size fill blocks evenly",
        format_bytes(needed as u64),
        report.kmers_largest_document as f64 / 1e6,
        report.page_size,
        if report.page_size == 8 { " (the smallest)" } else { "" },
        plural(slots, "document"),
        report.documents,
    ))
}
