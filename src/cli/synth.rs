//! `bitsift synth`.

use std::path::PathBuf;

use anyhow::Result;
use bitsift::synth::{synth, validate, SynthOptions, SynthPlan, SynthReport};
use bitsift::units::{format_bytes, plural, span};
use clap::Args;

use super::values::BadValue;
use super::{Outcome, Ui};

/// Bases of the gene whose query cost is reported.
const GENE_BASES: u64 = 1000;

#[derive(Args, Debug)]
pub(crate) struct SynthArgs {
    /// Index file to write (COBS compact format)
    #[arg(short, long, value_name = "OUT", help_heading = "Output")]
    output: PathBuf,
    /// Overwrite OUT if it exists
    #[arg(long, help_heading = "Output")]
    force: bool,
    /// Print the geometry and size, write nothing
    #[arg(long, help_heading = "Output")]
    dry_run: bool,

    /// Documents (genomes) in the collection
    #[arg(long, value_name = "N", help_heading = "Collection")]
    documents: u64,
    /// Median genome size in bases, e.g. 5000000, 5M, 4.6e6
    #[arg(long, value_name = "BASES", value_parser = parse_bases, help_heading = "Collection")]
    genome_size: u64,
    /// Log-normal shape of the genome sizes (0.2: about ±20 %)
    #[arg(long, default_value_t = 0.2, help_heading = "Collection")]
    spread: f64,
    /// Multiply genome sizes (so rows and file size) by S, in (0, 1]; blocks stay
    #[arg(
        long,
        value_name = "S",
        default_value_t = 1.0,
        help_heading = "Collection"
    )]
    scale: f64,
    /// Seed of the genome sizes and the random rows
    #[arg(long, default_value_t = 1, help_heading = "Collection")]
    seed: u64,

    #[command(flatten)]
    filter: super::build::FilterArgs,
    #[command(flatten)]
    row_layout: super::build::RowLayoutArgs,
}

pub(crate) fn run(args: SynthArgs, ui: Ui) -> Result<Outcome> {
    let options = SynthOptions {
        output: args.output,
        documents: args.documents,
        genome_size: args.genome_size,
        spread: args.spread,
        page_size: args.filter.page_size,
        fpr: args.filter.fpr,
        num_hashes: args.filter.num_hashes,
        k: args.filter.k,
        scale: args.scale,
        seed: args.seed,
        force: args.force,
        progress: ui.progress,
        layout: args.row_layout.resolve(args.filter.fpr, args.filter.k)?.0,
    };
    if args.dry_run {
        validate(&options)?;
        let plan = SynthPlan::new(&options)?;
        print_plan(&options, &plan);
        let blocks = plan.blocks.len() as u64;
        print_query_cost(blocks, options.num_hashes, plan.layout.page_size, options.k);
        return Ok(Outcome::Success);
    }
    let report = synth(&options, |plan| {
        if !ui.quiet {
            print_plan(&options, plan);
        }
    })?;
    if !ui.quiet {
        print_report(&options, &report);
        print_query_cost(
            report.blocks,
            options.num_hashes,
            report.page_size,
            options.k,
        );
    }
    Ok(Outcome::Success)
}

/// The geometry, before anything is written.
fn print_plan(options: &SynthOptions, plan: &SynthPlan) {
    let sizes = &plan.genome_sizes;
    let (rows_min, rows_max) = plan.rows_range();
    let page_size = plan.layout.page_size;
    eprintln!(
        "bitsift: synth {}: {} of {} to {} (median {}{}), k={}, {}, fpr {}",
        options.output.display(),
        plural(options.documents, "document"),
        format_bases(sizes[0]),
        format_bases(sizes[sizes.len() - 1]),
        format_bases(sizes[sizes.len() / 2]),
        if options.scale < 1.0 {
            format!(", scale {}", options.scale)
        } else {
            String::new()
        },
        options.k,
        plural(options.num_hashes as u64, "hash"),
        options.fpr
    );
    eprintln!(
        "bitsift: {} of {} documents, {page_size}-byte rows, {} rows per block; file {} ({} bytes), data at {}{}",
        plural(plan.blocks.len() as u64, "block"),
        8 * page_size,
        span(rows_min, rows_max),
        format_bytes(plan.file_bytes),
        plan.file_bytes,
        plan.data_offset(),
        if plan.data_offset() % 4096 == 0 {
            " (4 KiB-aligned)"
        } else {
            ""
        }
    );
}

/// The summary line, after the index is in place.
fn print_report(options: &SynthOptions, report: &SynthReport) {
    eprintln!(
        "bitsift: synthesized {}: {} in {}, {}-byte rows, {} rows per block, {} in {:.1} s ({:.0} MB/s)",
        options.output.display(),
        plural(report.documents, "document"),
        plural(report.blocks, "block"),
        report.page_size,
        span(report.rows_min, report.rows_max),
        format_bytes(report.file_bytes),
        report.seconds,
        report.bytes_per_second() / 1e6
    );
}

/// What a query costs on the index: reads per k-mer and the bytes of a 1 kb gene.
fn print_query_cost(blocks: u64, num_hashes: u32, page_size: u64, k: u32) {
    let reads_per_kmer = blocks * num_hashes as u64;
    let kmers = (GENE_BASES + 1).saturating_sub(k as u64);
    let reads = kmers * reads_per_kmer;
    eprintln!(
        "bitsift: a query reads {} per k-mer ({} × {}); a {GENE_BASES}-base gene: {kmers} k-mers, {reads} row reads, {} ({} bytes)",
        plural(reads_per_kmer, "row"),
        plural(blocks, "block"),
        plural(num_hashes as u64, "hash"),
        format_bytes(reads * page_size),
        reads * page_size
    );
}

/// Bases with a decimal unit: `950 b`, `100 kb`, `5.00 Mb`.
fn format_bases(bases: u64) -> String {
    let value = bases as f64;
    match bases {
        0..1_000 => format!("{bases} b"),
        1_000..1_000_000 => format!("{:.3} kb", value / 1e3),
        1_000_000..1_000_000_000 => format!("{:.3} Mb", value / 1e6),
        _ => format!("{:.3} Gb", value / 1e9),
    }
    .replace(".000 ", " ")
}

/// Parses a number of bases: an integer, a decimal with an exponent (`4.6e6`), or a number
/// with a decimal suffix k, M, G, T (`5M` = 5,000,000).
fn parse_bases(text: &str) -> Result<u64, BadValue> {
    let trimmed = text.trim();
    let (number, multiplier) = match trimmed.char_indices().last() {
        Some((at, 'k' | 'K')) => (&trimmed[..at], 1e3),
        Some((at, 'm' | 'M')) => (&trimmed[..at], 1e6),
        Some((at, 'g' | 'G')) => (&trimmed[..at], 1e9),
        Some((at, 't' | 'T')) => (&trimmed[..at], 1e12),
        _ => (trimmed, 1.0),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of bases (e.g. 5000000, 5M, 4.6e6)"))?;
    let bases = value * multiplier;
    if !bases.is_finite() || bases < 1.0 || bases > u64::MAX as f64 {
        return Err(BadValue(format!("{text:?} is out of range")));
    }
    Ok(bases.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_parse_with_decimal_suffixes() {
        assert_eq!(parse_bases("5000000").unwrap(), 5_000_000);
        assert_eq!(parse_bases("5M").unwrap(), 5_000_000);
        assert_eq!(parse_bases("4.6e6").unwrap(), 4_600_000);
        assert_eq!(parse_bases("250k").unwrap(), 250_000);
        assert_eq!(parse_bases("1T").unwrap(), 1_000_000_000_000);
        assert!(parse_bases("0").is_err());
        assert!(parse_bases("lots").is_err());
    }

    #[test]
    fn bases_format() {
        assert_eq!(format_bases(950), "950 b");
        assert_eq!(format_bases(100_000), "100 kb");
        assert_eq!(format_bases(5_012_345), "5.012 Mb");
    }
}
