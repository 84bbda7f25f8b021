//! `bitsift demo`: the whole tool on bundled real data, in a few seconds.
//!
//! Writes the bundled genomes (`data/demo/genomes`, embedded in the binary) to a working
//! directory, builds an index of them, searches the bundled resistance genes and plasmid
//! replicons, prints the hits with each query's I/O accounting, and checks that every
//! gene/document pair the brute-force table (`data/demo/EXPECTED_HITS.md`) lists as fully
//! contained was found.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use bitsift::builder::{build, default_memory_bytes, BuildOptions};
use bitsift::io::{EngineChoice, EngineOptions};
use bitsift::query::output::fraction;
use bitsift::query::{SearchOptions, Searcher};
use bitsift::seqfile::{document_name, SeqReader, SeqRecord};
use bitsift::units::format_bytes;
use clap::Args;

use super::{parse_threshold, Outcome, Ui};

mod bundled {
    include!(concat!(env!("OUT_DIR"), "/demo_data.rs"));
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Keep the genomes and the index in DIR (default: a temporary directory, removed after)
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// I/O engine for the searches
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    engine: EngineChoice,
    /// Report documents containing at least this fraction of a query's k-mers
    #[arg(short, long, default_value_t = 0.8, value_parser = parse_threshold)]
    threshold: f64,
}

pub fn run(args: DemoArgs, ui: Ui) -> Result<Outcome> {
    if bundled::GENOMES.is_empty() || bundled::QUERIES.is_empty() {
        bail!("this binary was built without the bundled data (data/demo); build it from the bitsift repository");
    }
    let temporary;
    let dir = match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create directory", dir.display()))?;
            dir.clone()
        }
        None => {
            temporary = tempfile::Builder::new().prefix("bitsift-demo-").tempdir()?;
            temporary.path().to_path_buf()
        }
    };
    let genomes = dir.join("genomes");
    std::fs::create_dir_all(&genomes)?;
    for (name, bytes) in bundled::GENOMES {
        std::fs::write(genomes.join(name), bytes)
            .with_context(|| format!("{}: cannot write", genomes.join(name).display()))?;
    }
    let index = dir.join("demo.cobs_compact");
    println!(
        "bitsift demo: {} bundled genomes and plasmids, {} query files (sources: data/SOURCES.md)\n",
        bundled::GENOMES.len(),
        bundled::QUERIES.len()
    );

    let options = BuildOptions {
        output: index.clone(),
        inputs: vec![genomes],
        lists: vec![],
        per_record: false,
        k: 31,
        fpr: 0.3,
        num_hashes: 1,
        canonical: true,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        page_size: None,
        memory_bytes: default_memory_bytes(),
        force: true,
        progress: ui.progress,
        order: Default::default(),
        metadata: None,
        summaries: Some(Default::default()),
    };
    let report = build(&options)?;
    println!(
        "1. build   {} documents, {:.1} Mbp, {} k-mers -> {} ({}, {} block of {}-byte rows) in {:.2} s",
        report.documents,
        report.bases as f64 / 1e6,
        report.kmers,
        index.file_name().unwrap_or_default().to_string_lossy(),
        format_bytes(report.file_bytes),
        report.blocks,
        report.page_size,
        report.seconds
    );

    let engine = EngineOptions {
        choice: args.engine,
        ..EngineOptions::default()
    };
    let mut searcher = Searcher::open(std::slice::from_ref(&index), &engine)?;
    if let Some(notice) = searcher.notice() {
        println!("          {notice}");
    }
    println!(
        "2. search  engine {}, threshold {} (a document must contain {}% of a query's 31-mers)\n",
        searcher.engine_kind().as_str(),
        args.threshold,
        (args.threshold * 100.0).round()
    );
    let names = searcher
        .headers()
        .next()
        .map(|h| h.names.clone())
        .unwrap_or_default();
    let search = SearchOptions {
        threshold: args.threshold,
        ..SearchOptions::default()
    };
    let mut found: Vec<(String, String, f64)> = Vec::new();
    let queries_dir = dir.join("queries");
    std::fs::create_dir_all(&queries_dir)?;
    for (file_name, bytes) in bundled::QUERIES {
        let path = queries_dir.join(file_name);
        std::fs::write(&path, bytes)?;
        println!("   {file_name}");
        println!(
            "   {:<30} {:<46} {:>11} {:>8}",
            "query", "document", "k-mers", "fraction"
        );
        let mut reader = SeqReader::open(&path)?;
        let mut record = SeqRecord::default();
        while reader.next_into(&mut record)? {
            let result = searcher.search(&record.sequence, &search)?;
            let total = result.kmers_total[0];
            if result.hits.is_empty() {
                println!("   {:<30} {:<46}", record.name, "(no document)");
            }
            for (i, hit) in result.hits.iter().enumerate() {
                let document = names.get(hit.document as usize);
                let share = fraction(hit.kmers_found, total);
                found.push((record.name.clone(), document.to_string(), share));
                println!(
                    "   {:<30} {:<46} {:>11} {:>8.4}",
                    if i == 0 { record.name.as_str() } else { "" },
                    document,
                    format!("{}/{total}", hit.kmers_found),
                    share
                );
            }
            let stats = &result.stats;
            println!(
                "   {:<30} {} row lookups, {} reads, {} read, {} major faults, {:.2} ms (I/O wait {:.2} ms)",
                "",
                stats.row_reads_requested,
                stats.read_requests,
                format_bytes(stats.bytes_read),
                stats.major_faults,
                stats.total.as_secs_f64() * 1e3,
                stats.io_wait.as_secs_f64() * 1e3
            );
        }
        println!();
    }
    check_expected(&found, args.threshold)
}

/// Every pair the brute-force table lists at fraction 1.0 must be reported at 1.0: a Bloom
/// filter can add false positives but never lose a k-mer.
fn check_expected(found: &[(String, String, f64)], threshold: f64) -> Result<Outcome> {
    let mut expected = 0;
    let mut missing = Vec::new();
    for line in bundled::EXPECTED_HITS.lines() {
        let cells: Vec<&str> = line
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        // | query | document | fraction | found / total |
        if cells.len() < 5 || cells[3] != "1.0000" {
            continue;
        }
        expected += 1;
        let document = document_name(Path::new(cells[2]));
        let hit = found
            .iter()
            .any(|(q, d, share)| q == cells[1] && *d == document && *share >= 1.0);
        if !hit {
            missing.push(format!("{} in {}", cells[1], document));
        }
    }
    if expected == 0 {
        println!("3. check   (no expected-hits table bundled)");
        return Ok(Outcome::Success);
    }
    if missing.is_empty() {
        println!(
            "3. check   all {expected} gene/document pairs that brute force finds fully contained were reported at fraction 1.0"
        );
        return Ok(Outcome::Success);
    }
    bail!(
        "{} of {expected} expected gene/document pairs were not reported at fraction 1.0 (threshold {threshold}): {}",
        missing.len(),
        missing.join(", ")
    )
}
