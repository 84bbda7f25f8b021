//! `bitsift demo`: the whole tool on bundled real data, in a few seconds.
//!
//! Writes the bundled genomes (`data/demo/genomes`, embedded in the binary) to a working
//! directory, builds an index of them, searches the bundled resistance genes and plasmid
//! replicons, prints the hits (with `-v`, each query's I/O accounting too), and checks that
//! every gene/document pair the brute-force table (`data/demo/EXPECTED_HITS.md`) lists as
//! fully contained was found.

use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bitsift::alphabet::BaseReading;
use bitsift::builder::{build, default_memory_bytes, BuildOptions};
use bitsift::format::{HeaderOptions, NameList};
use bitsift::io::{EngineChoice, EngineOptions};
use bitsift::query::fraction;
use bitsift::query::{Index, QueryResult, RowSource, SearchOptions, Session, SessionConfig};
use bitsift::search::SessionSetup;
use bitsift::seqfile::{document_name, SeqReader, SeqRecord};
use bitsift::units::{format_bytes, plural};
use clap::Args;

use super::search_args::engine_names;
use super::{parse_threshold, Outcome, Ui};

mod bundled {
    include!(concat!(env!("OUT_DIR"), "/demo_data.rs"));
}

#[derive(Args, Debug)]
pub(crate) struct DemoArgs {
    /// Keep the genomes and the index in DIR (default: a temporary directory, removed after)
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// I/O engine for the searches
    #[arg(long, value_parser = engine_names(), default_value_t = EngineChoice::Auto)]
    engine: EngineChoice,
    /// Report documents containing at least this fraction of a query's k-mers
    #[arg(short, long, default_value_t = bitsift::query::THRESHOLD_DEFAULT, value_parser = parse_threshold, allow_negative_numbers = true)]
    threshold: f64,
}

pub(crate) fn run(args: DemoArgs, ui: Ui) -> Result<Outcome> {
    if bundled::GENOMES.is_empty() || bundled::QUERIES.is_empty() {
        bail!("this binary was built without the bundled data (data/demo); build it from the bitsift repository");
    }
    let started = Instant::now();
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
    println!(
        "bitsift demo: {} bundled genomes and plasmids, {} (sources: data/SOURCES.md)\n",
        bundled::GENOMES.len(),
        plural(bundled::QUERIES.len() as u64, "query file")
    );
    let index = build_index(&dir, ui)?;
    let engine = EngineOptions {
        choice: args.engine,
        ..EngineOptions::default()
    };
    let index = Index::open(std::slice::from_ref(&index), &HeaderOptions::default())?;
    let setup = SessionSetup {
        engine,
        config: SessionConfig {
            threads: 1,
            ..SessionConfig::default()
        },
    };
    let mut searcher = setup.open(&index)?;
    if let Some(notice) = searcher.notice() {
        println!("          {notice}");
    }
    println!(
        "2. search  engine {}, threshold {} (a document must contain {}% of a query's 31-mers)\n",
        searcher.engine_kind().as_str(),
        args.threshold,
        (args.threshold * 100.0).round()
    );
    let files = read_queries(&dir)?;
    let search = SearchOptions {
        threshold: args.threshold,
        ..SearchOptions::default()
    };
    let mut tally = Tally::default();
    let table = Table::new(&files, &searcher, ui.verbose)?;
    for (file_name, records) in &files {
        println!("   {file_name}");
        table.header();
        for record in records {
            let result = searcher.search(&record.sequence, &search)?;
            table.query(&record.name, &result, &mut tally);
        }
        println!();
    }
    let outcome = check_expected(&tally.found, args.threshold)?;
    tally.print(started);
    Ok(outcome)
}

/// Writes the bundled genomes to `dir` and builds `demo.cobs_compact` from them.
fn build_index(dir: &Path, ui: Ui) -> Result<PathBuf> {
    let genomes = dir.join("genomes");
    std::fs::create_dir_all(&genomes)
        .with_context(|| format!("{}: cannot create directory", genomes.display()))?;
    for (name, bytes) in bundled::GENOMES {
        std::fs::write(genomes.join(name), bytes)
            .with_context(|| format!("{}: cannot write", genomes.join(name).display()))?;
    }
    let index = dir.join("demo.cobs_compact");
    let options = BuildOptions {
        output: index.clone(),
        inputs: vec![genomes],
        lists: vec![],
        per_record: false,
        k: 31,
        fpr: 0.3,
        num_hashes: 1,
        canonical: true,
        threads: bitsift::cores::threads_or_cores(0),
        page_size: None,
        memory_bytes: default_memory_bytes(),
        force: true,
        progress: ui.progress,
        order: Default::default(),
        metadata: None,
        summaries: Some(Default::default()),
        rows: Default::default(),
        layout: bitsift::format::LayoutChoice::MINIMIZER,
        documents: None,
    };
    let report = build(&options)?;
    println!(
        "1. build   {}, {:.1} Mbp, {:.1} M k-mers -> {} ({}, {} of {}-byte rows) in {:.2} s",
        plural(report.documents, "document"),
        report.bases as f64 / 1e6,
        report.kmers as f64 / 1e6,
        index.file_name().unwrap_or_default().to_string_lossy(),
        format_bytes(report.file_bytes),
        plural(report.blocks, "block"),
        report.page_size,
        report.seconds
    );
    Ok(index)
}

/// The bundled query files, written to `dir/queries` and read back: (file name, records).
fn read_queries(dir: &Path) -> Result<Vec<(String, Vec<SeqRecord>)>> {
    let queries_dir = dir.join("queries");
    std::fs::create_dir_all(&queries_dir)
        .with_context(|| format!("{}: cannot create directory", queries_dir.display()))?;
    let mut files = Vec::new();
    for (file_name, bytes) in bundled::QUERIES {
        let path = queries_dir.join(file_name);
        std::fs::write(&path, bytes)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        let mut reader = SeqReader::open(&path)?;
        let mut records = Vec::new();
        let mut record = SeqRecord::default();
        while reader.next_bases_into(&mut record, BaseReading::Standard)? {
            records.push(std::mem::take(&mut record));
        }
        files.push((file_name.to_string(), records));
    }
    Ok(files)
}

/// The result table, its columns as wide as the longest query and document names.
struct Table {
    names: NameList,
    query_width: usize,
    document_width: usize,
    /// `-v`: each query's accounting under its hits.
    verbose: bool,
}

impl Table {
    fn new(files: &[(String, Vec<SeqRecord>)], searcher: &Session, verbose: bool) -> Result<Table> {
        let names = match searcher.headers().next() {
            Some(header) => header.names.all()?.into_owned(),
            None => NameList::default(),
        };
        let longest_query = files
            .iter()
            .flat_map(|(_, records)| records.iter().map(|r| r.name.chars().count()))
            .max()
            .unwrap_or(0);
        let longest_document = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        Ok(Table {
            names,
            query_width: longest_query.max("query".len()),
            document_width: longest_document.max("document".len()),
            verbose,
        })
    }

    /// Prints a line without trailing spaces.
    fn line(&self, query: &str, document: &str, score: &str, fraction: &str) {
        let text = format!(
            "   {query:<qw$}  {document:<dw$}  {score:>11}  {fraction:>8}",
            qw = self.query_width,
            dw = self.document_width
        );
        println!("{}", text.trim_end());
    }

    fn header(&self) {
        self.line("query", "document", "k-mers", "fraction");
    }

    fn query(&self, name: &str, result: &QueryResult, tally: &mut Tally) {
        let total = result.kmers_total[0];
        tally.queries += 1;
        if result.hits.is_empty() {
            tally.without_hits += 1;
            self.line(name, "(no document reaches the threshold)", "", "");
        }
        for (i, hit) in result.hits.iter().enumerate() {
            let document = self.names.get(hit.document as usize);
            let share = fraction(hit.kmers_found, total);
            tally
                .found
                .push((name.to_string(), document.to_string(), share));
            self.line(
                if i == 0 { name } else { "" },
                document,
                &format!("{}/{total}", hit.kmers_found),
                &format!("{share:.4}"),
            );
        }
        tally.search_time += result.stats.total;
        if !self.verbose {
            return;
        }
        println!(
            "   {:qw$}  {}",
            "",
            plain_stats(result),
            qw = self.query_width
        );
    }
}

/// What a query cost, in words.
fn plain_stats(result: &QueryResult) -> String {
    let (stats, batch) = (&result.stats, &result.batch);
    let mut text = match batch.source {
        RowSource::Resident | RowSource::Image => format!(
            "scored {} in memory in {:.1} ms",
            plural(stats.rows_added, "row"),
            stats.total.as_secs_f64() * 1e3
        ),
        RowSource::Reads => format!(
            "read {} with {} ({}) in {:.1} ms, {:.1} ms of it waiting for reads",
            plural(stats.row_reads_requested, "row"),
            plural(stats.read_requests, "request"),
            format_bytes(stats.bytes_read),
            stats.total.as_secs_f64() * 1e3,
            batch.io_wait.as_secs_f64() * 1e3
        ),
    };
    if batch.major_faults > 0 {
        text += &format!(
            "; {} waited for the disk",
            plural(batch.major_faults, "page fault")
        );
    }
    text
}

/// Counts for the closing summary.
#[derive(Default)]
struct Tally {
    queries: u64,
    without_hits: u64,
    search_time: Duration,
    /// (query, document, fraction) of every hit.
    found: Vec<(String, String, f64)>,
}

impl Tally {
    fn print(&self, started: Instant) {
        let whole = self.found.iter().filter(|f| f.2 >= 1.0).count() as u64;
        println!(
            "4. summary {}, {} ({} covering the whole query), {} without a hit; searching took {:.2} s, the whole demo {:.1} s",
            plural(self.queries, "query"),
            plural(self.found.len() as u64, "hit"),
            whole,
            self.without_hits,
            self.search_time.as_secs_f64(),
            started.elapsed().as_secs_f64()
        );
    }
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
