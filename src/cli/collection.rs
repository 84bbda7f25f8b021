//! `bitsift add`, `bitsift remove`, `bitsift merge`: collections that grow and shrink;
//! `bitsift recover`: a lost manifest rebuilt from the sub-index files.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use bitsift::builder::default_memory_bytes;
use bitsift::collection::{
    self, AddOptions, CollectionError, DuplicatePolicy, ExplicitParameters, MergeOptions,
    RecoverReport, RemoveOptions, MANIFEST_NAME,
};
use bitsift::units::{format_bytes, plural};
use clap::{Args, ValueEnum};

use super::{parse_memory_size, parse_size, Outcome, Ui};

#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  bitsift add genomes/ batch1/*.fa.gz              create genomes/ and index batch 1
  bitsift add genomes/ --list week2.txt            add more genomes as a new sub-index
  bitsift add genomes/ --adopt old.cobs_compact    bring an existing COBS index in")]
pub(crate) struct AddArgs {
    /// The collection directory (created, with these options, if it does not exist)
    #[arg(value_name = "DIR")]
    directory: PathBuf,
    #[command(flatten)]
    input: super::build::InputArgs,
    /// An existing COBS index to bring in as a sub-index (hard-linked, or copied across
    /// file systems); repeat for several
    #[arg(long, value_name = "INDEX", help_heading = "Input")]
    adopt: Vec<PathBuf>,
    /// Document names the collection already shows
    #[arg(long, value_enum, default_value_t = Duplicates::Error, help_heading = "Input")]
    duplicates: Duplicates,

    /// k-mer length [default: the collection's; 31 for a new one]
    #[arg(short, long, value_parser = super::values::k, help_heading = "Index")]
    k: Option<u32>,
    /// Target false-positive rate [default: the collection's; 0.3 for a new one]
    #[arg(long, value_parser = super::values::fpr, help_heading = "Index")]
    fpr: Option<f64>,
    /// Hash functions per k-mer [default: the collection's; 1 for a new one]
    #[arg(long = "hashes", value_parser = super::values::hashes, help_heading = "Index")]
    num_hashes: Option<u32>,
    /// Bytes per row [default: the collection's if it fixes one; else chosen for the new
    /// documents alone]
    #[arg(short, long, value_name = "BYTES", value_parser = super::values::page_size, help_heading = "Index")]
    page_size: Option<u64>,
    /// Hash k-mers as written (only for a new collection, or one that does so)
    #[arg(long, help_heading = "Index")]
    no_canonical: bool,
    /// Rows of a block: exact (as COBS) or power-of-two (up to 2x the rows, and blocks that
    /// merges always combine); kept for later additions [default: the collection's;
    /// power-of-two for a new one]
    #[arg(long, value_enum, help_heading = "Index")]
    rows: Option<super::build::Rows>,

    #[command(flatten)]
    layout: super::build::LayoutArgs,
    #[command(flatten)]
    row_layout: super::build::RowLayoutArgs,

    /// Worker threads [default: all cores]
    #[arg(short = 'T', long, help_heading = "Resources")]
    threads: Option<usize>,
    /// Memory budget, e.g. 8G [default: half the available memory]
    #[arg(short, long, value_parser = parse_memory_size, value_name = "SIZE", help_heading = "Resources")]
    memory: Option<u64>,
}

/// `--duplicates`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Duplicates {
    /// Refuse the addition
    Error,
    /// Add them and warn
    Warn,
    /// Add them silently
    Allow,
}

pub(crate) fn add(args: AddArgs, ui: Ui) -> Result<Outcome> {
    let (order, metadata, summaries) = args.layout.resolve()?;
    let options = AddOptions {
        directory: args.directory.clone(),
        inputs: args.input.inputs,
        lists: args.input.lists,
        per_record: args.input.per_record,
        adopt: args.adopt,
        explicit: ExplicitParameters {
            k: args.k,
            fpr: args.fpr,
            hashes: args.num_hashes,
            canonical: args.no_canonical.then_some(false),
            page_size: args.page_size,
            rows: args.rows.map(Into::into),
            layout: args.row_layout.explicit()?,
        },
        threads: super::threads_or_cores(args.threads.unwrap_or(0)),
        memory_bytes: args.memory.unwrap_or_else(default_memory_bytes),
        progress: ui.progress,
        order,
        metadata,
        summaries,
        duplicates: match args.duplicates {
            Duplicates::Error => DuplicatePolicy::Error,
            Duplicates::Warn => DuplicatePolicy::Warn,
            Duplicates::Allow => DuplicatePolicy::Allow,
        },
    };
    let report = collection::add(&options).map_err(|error| match error {
        CollectionError::Duplicates { .. } => anyhow!(
            "{error}\nhint: pass --duplicates warn (or allow) to add them anyway, or `bitsift remove` the old ones first"
        ),
        CollectionError::UnknownFpr { .. } => anyhow!(
            "{error}\nhint: pass --fpr, best the rate the adopted indexes were built at (bitsift and COBS build at 0.3 unless told otherwise)"
        ),
        CollectionError::Mismatch { .. } => anyhow!(
            "{error}\nhint: omit -k, --fpr, --hashes, --page-size and --no-canonical to use the collection's"
        ),
        other => other.into(),
    })?;
    if !ui.quiet {
        for sub in &report.added {
            eprintln!(
                "bitsift: {} {}: {} {} documents ({}, {})",
                if report.created {
                    "created"
                } else {
                    "added to"
                },
                args.directory.display(),
                sub.file,
                sub.document_count,
                format_bytes(sub.bytes),
                sub.provenance.command
            );
        }
        if let Some(build) = &report.build {
            eprintln!(
                "bitsift: built {} k-mers in {:.1} s ({:.1} M k-mers/s); collection generation {}",
                build.kmers,
                build.seconds,
                build.kmers as f64 / build.seconds.max(1e-9) / 1e6,
                report.generation
            );
        }
    }
    Ok(Outcome::Success)
}

#[derive(Args, Debug)]
pub(crate) struct RemoveArgs {
    /// The collection directory
    #[arg(value_name = "DIR")]
    directory: PathBuf,
    /// Names of the documents to hide, one per line (# comments; - for standard input)
    #[arg(long, value_name = "FILE", required = true)]
    documents: PathBuf,
    /// Skip names the collection does not show instead of refusing
    #[arg(long)]
    ignore_missing: bool,
}

pub(crate) fn remove(args: RemoveArgs, ui: Ui) -> Result<Outcome> {
    let text = if args.documents.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("standard input: cannot read document names")?;
        text
    } else {
        std::fs::read_to_string(&args.documents)
            .with_context(|| format!("{}: cannot read document names", args.documents.display()))?
    };
    let names: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect();
    if names.is_empty() {
        anyhow::bail!(
            "{}: names no document (one name per line)",
            args.documents.display()
        );
    }
    let options = RemoveOptions {
        directory: args.directory.clone(),
        names,
        ignore_missing: args.ignore_missing,
    };
    let report = collection::remove(&options).map_err(|error| match error {
        CollectionError::UnknownDocuments { .. } => anyhow!(
            "{error}\nhint: pass --ignore-missing to remove the others; `bitsift info --documents {}` lists the names",
            args.directory.display()
        ),
        other => other.into(),
    })?;
    if !ui.quiet {
        if !report.missing.is_empty() {
            eprintln!(
                "bitsift: {} name(s) not in the collection were skipped",
                report.missing.len()
            );
        }
        eprintln!(
            "bitsift: {}: {} document(s) hidden; `bitsift merge` drops them from the files (collection generation {})",
            args.directory.display(),
            report.removed,
            report.generation
        );
    }
    Ok(Outcome::Success)
}

#[derive(Args, Debug)]
pub(crate) struct MergeArgs {
    /// The collection directory
    #[arg(value_name = "DIR")]
    directory: PathBuf,
    /// Documents per merged sub-index at most
    #[arg(long, default_value_t = u32::MAX as u64, value_name = "N")]
    max_documents: u64,
    /// Print the plan and change nothing
    #[arg(long)]
    dry_run: bool,
    /// Memory for re-packed rows
    #[arg(short, long, value_parser = parse_size, default_value = "256M", value_name = "SIZE")]
    memory: u64,
    /// Fold a document's filter (to share a block with filters of another row count) only
    /// while its false-positive rate stays at or below FPR; 0 never folds [default: the
    /// collection's --fpr]
    #[arg(long, value_name = "FPR")]
    max_fpr: Option<f64>,
    /// Print the plan (and what was done) as JSON on standard output
    #[arg(long)]
    json: bool,
}

pub(crate) fn merge(args: MergeArgs, ui: Ui) -> Result<Outcome> {
    let options = MergeOptions {
        directory: args.directory.clone(),
        max_documents: args.max_documents,
        dry_run: args.dry_run,
        memory_bytes: args.memory,
        max_fpr: args.max_fpr,
    };
    let report = collection::merge(&options).map_err(|error| match error {
        CollectionError::Unverified { ref path } => anyhow!(
            "{error}\nhint: check the index (search it for genomes you know it holds), then `bitsift checksum {}` makes checksums of it as it is",
            path.display()
        ),
        other => other.into(),
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(Outcome::Success);
    }
    if ui.quiet && !args.dry_run {
        return Ok(Outcome::Success);
    }
    if report.plan.outputs.is_empty() {
        println!("nothing to merge: no sub-index has removed documents or another to merge with");
        return Ok(Outcome::Success);
    }
    let verb = if args.dry_run { "would write" } else { "wrote" };
    for (number, output) in report.plan.outputs.iter().enumerate() {
        let name = report.written.get(number).map_or("", String::as_str);
        println!(
            "{verb} {name}{}{} documents from {} ({} removed dropped; {} blocks -> {}: {} copied, {} re-packed, {} placeholders, {}-byte rows): {} (was {})",
            if name.is_empty() { "" } else { ": " },
            output.documents,
            output.members.join(", "),
            output.documents_dropped,
            output.blocks_before,
            output.blocks,
            output.blocks_copied,
            output.blocks_repacked,
            output.placeholders,
            output.page_size,
            format_bytes(output.bytes),
            format_bytes(output.bytes_before)
        );
        if let Some(fpr) = output.fpr_folded_max {
            println!(
                "  {} document filters folded to share blocks; the highest false-positive rate now {fpr:.3}",
                output.documents_folded
            );
        }
        if output.blocks > output.blocks_minimum {
            println!(
                "  {} blocks where one row count would need {}: their row counts neither divide one another nor fold within the false-positive bound; only a rebuild from the genomes can combine them (sub-indexes added with --rows power-of-two always can)",
                output.blocks, output.blocks_minimum
            );
        }
    }
    println!(
        "blocks of the collection (row reads per k-mer hash): {} {} {}",
        report.plan.blocks_before,
        if args.dry_run { "would become" } else { "->" },
        report.plan.blocks_after
    );
    Ok(Outcome::Success)
}

#[derive(Args, Debug)]
#[command(after_help = "\
Rebuilds collection.json from the sub-index files (sub-NNNNNN.cobs_compact, .cobs_classic)
when it is missing, not a file, unreadable or damaged; refuses a readable one. The removals
the lost manifest recorded are lost: every document of the files is found again until it is
removed again. What stood in the manifest's place is kept as collection.json.lost-TIME.")]
pub(crate) struct RecoverArgs {
    /// The collection directory
    #[arg(value_name = "DIR")]
    directory: PathBuf,
}

pub(crate) fn recover(args: RecoverArgs, ui: Ui) -> Result<Outcome> {
    let report = collection::recover(&args.directory)?;
    let directory = args.directory.display();
    println!(
        "{directory}: rebuilt {MANIFEST_NAME} from {} (generation {}):",
        plural(report.adopted.len() as u64, "sub-index file"),
        report.generation
    );
    for sub in &report.adopted {
        println!(
            "  {}\t{}\t{}",
            sub.file,
            plural(sub.visible_count(), "document"),
            format_bytes(sub.bytes)
        );
    }
    if !ui.quiet {
        recover_notes(&args.directory, &report);
    }
    Ok(Outcome::Success)
}

/// What a recovery lost or found, on standard error.
fn recover_notes(directory: &std::path::Path, report: &RecoverReport) {
    let directory = directory.display();
    eprintln!(
        "bitsift: warning: the removals the lost manifest recorded are lost: every document of these files is found again; `bitsift remove {directory} --documents FILE` hides the removed ones again"
    );
    eprintln!(
        "bitsift: the false-positive rate of the collection was recorded only in the lost manifest: the next add that builds genomes needs --fpr (best the rate it was built at; 0.3 unless told otherwise)"
    );
    if let Some(aside) = &report.set_aside {
        eprintln!(
            "bitsift: what stood in place of {MANIFEST_NAME} was kept as {}",
            aside.display()
        );
    }
    if report.repeated_count > 0 {
        eprintln!(
            "bitsift: warning: {} document name(s) are in more than one sub-index: {}; an add of genomes already there, or a merge interrupted before its commit (its output beside its members), leaves them so; `bitsift info --documents {directory}` lists them",
            report.repeated_count,
            report.repeated.join(", ")
        );
    }
}
