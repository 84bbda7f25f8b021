//! `bitsift merge-results`: the gather step of a search split over jobs. Each job searched
//! some sub-indexes of a collection (`query -i DIR --subindexes ... --format json`); merged,
//! their hits are exactly the ranking one `query -i DIR` gives: score descending, then index
//! order (the order of the inputs, then of the indexes inside each), then document order,
//! with the limit applied after the merge.

use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use bitsift::answer::identity;
use bitsift::query::fraction;
use bitsift::tsv;
use clap::Args;
use serde::Deserialize;

use super::Outcome;

#[derive(Args, Debug)]
pub(crate) struct MergeResultsArgs {
    /// Results of `bitsift query --format json`, one per job, in the order of their indexes
    #[arg(value_name = "RESULTS.json", required = true)]
    inputs: Vec<PathBuf>,
    /// Report at most N documents per query (0: all); give the jobs the same limit
    #[arg(short, long, default_value_t = 0, value_name = "N")]
    limit: usize,
    /// Write the TSV to FILE instead of standard output
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(Deserialize)]
struct Results {
    indexes: Vec<IndexEntry>,
    queries: Vec<QueryEntry>,
}

/// One index of a result: a collection or an index file, and its files in search order.
#[derive(Deserialize)]
struct IndexEntry {
    name: String,
    files: Vec<String>,
    k: u32,
}

#[derive(Deserialize)]
struct QueryEntry {
    query: String,
    #[serde(default)]
    hits: Vec<HitEntry>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct HitEntry {
    document: String,
    /// The hit's file: its position in the result's `indexes[].files`, listed in order
    /// (absent when the result searched one file).
    file: Option<usize>,
    kmers_found: u32,
    kmers_total: u64,
    /// The identity the query wrote (of its corrected containment), if any.
    identity: Option<f64>,
    #[serde(flatten)]
    corrected: CorrectedFields,
}

/// The corrected score of a hit as `bitsift query --format json` writes it (absent from
/// answers of earlier versions: the merged TSV then says `NA`).
#[derive(Clone, Default, Deserialize)]
struct CorrectedFields {
    containment: Option<f64>,
    containment_low: Option<f64>,
    containment_high: Option<f64>,
    borderline: Option<bool>,
    fpr: Option<f64>,
    fp_expected: Option<f64>,
    p_false: Option<f64>,
}

impl CorrectedFields {
    /// The TSV cells of `bitsift query`'s corrected columns, each after a tab.
    fn cells(&self) -> String {
        let number = |value: Option<f64>, decimals: usize| {
            value.map_or_else(|| "NA".to_string(), |v| format!("{v:.decimals$}"))
        };
        let p_false = match self.p_false {
            None => "NA".to_string(),
            Some(0.0) => "0".to_string(),
            Some(p) => format!("{p:.2e}"),
        };
        let borderline = self.borderline.map_or("NA".to_string(), |b| b.to_string());
        format!(
            "\t{}\t{}\t{}\t{borderline}\t{}\t{}\t{p_false}",
            number(self.containment, 4),
            number(self.containment_low, 4),
            number(self.containment_high, 4),
            number(self.fpr, 4),
            number(self.fp_expected, 1),
        )
    }
}

/// A file of the merged search, in merged order.
struct File {
    /// The name of the index it belongs to.
    name: String,
    k: u32,
}

/// A hit placed in the merged file order.
struct Merged {
    file: usize,
    document: String,
    kmers_found: u32,
    kmers_total: u64,
    identity: Option<f64>,
    corrected: CorrectedFields,
}

fn load(path: &PathBuf) -> Result<Results> {
    let text = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    serde_json::from_slice(&text).with_context(|| {
        format!(
            "{}: not the JSON output of `bitsift query --format json`",
            path.display()
        )
    })
}

pub(crate) fn run(args: MergeResultsArgs) -> Result<Outcome> {
    let results: Vec<Results> = args.inputs.iter().map(load).collect::<Result<_>>()?;
    let (files, offsets) = merged_files(&args.inputs, &results)?;
    same_queries(&args.inputs, &results)?;
    let out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("{}: cannot create output file", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::new(out);
    let several = files.iter().any(|f| f.name != files[0].name);
    let index_column = if several { "index\t" } else { "" };
    writeln!(
        out,
        "query\t{index_column}document\tkmers_found\tkmers_total\tfraction\tidentity\tcontainment\tcontainment_low\tcontainment_high\tborderline\tfpr\tfp_expected\tp_false"
    )?;
    let mut failures = 0;
    for (number, query) in results[0].queries.iter().enumerate() {
        let hits = match merge_query(&args, &results, &offsets, number) {
            Ok(hits) => hits,
            Err(error) => {
                failures += 1;
                eprintln!("bitsift: query {:?}: {error}", query.query);
                continue;
            }
        };
        for hit in hits {
            let file = &files[hit.file];
            write!(out, "{}\t", tsv::field(&query.query))?;
            if several {
                write!(out, "{}\t", tsv::field(&file.name))?;
            }
            let fraction = fraction(hit.kmers_found, hit.kmers_total);
            writeln!(
                out,
                "{}\t{}\t{}\t{fraction:.4}\t{:.4}{}",
                tsv::field(&hit.document),
                hit.kmers_found,
                hit.kmers_total,
                hit.identity.unwrap_or_else(|| identity(fraction, file.k)),
                hit.corrected.cells()
            )?;
        }
    }
    out.flush()?;
    Ok(if failures > 0 {
        Outcome::Partial
    } else {
        Outcome::Success
    })
}

/// The files of all results in merged order, and where each result's files start; a file
/// in two results is refused (its hits would count twice).
fn merged_files(inputs: &[PathBuf], results: &[Results]) -> Result<(Vec<File>, Vec<usize>)> {
    let mut files = Vec::new();
    let mut offsets = Vec::new();
    let mut seen = HashSet::new();
    for (path, result) in inputs.iter().zip(results) {
        offsets.push(files.len());
        for entry in &result.indexes {
            for file in &entry.files {
                if !seen.insert(file.as_str()) {
                    bail!(
                        "{}: index file {file} is also in an earlier result; give each job's result once",
                        path.display()
                    );
                }
                files.push(File {
                    name: entry.name.clone(),
                    k: entry.k,
                });
            }
        }
    }
    Ok((files, offsets))
}

fn same_queries(inputs: &[PathBuf], results: &[Results]) -> Result<()> {
    let first = &results[0];
    for (path, result) in inputs.iter().zip(results) {
        let same = result.queries.len() == first.queries.len()
            && result
                .queries
                .iter()
                .zip(&first.queries)
                .all(|(a, b)| a.query == b.query);
        if !same {
            bail!(
                "{}: its queries differ from those of {}; every job must search the same query file",
                path.display(),
                inputs[0].display()
            );
        }
    }
    Ok(())
}

/// The merged, ranked hits of query `number`, or the error a job reported for it.
fn merge_query(
    args: &MergeResultsArgs,
    results: &[Results],
    offsets: &[usize],
    number: usize,
) -> Result<Vec<Merged>> {
    let mut hits = Vec::new();
    for ((path, result), &offset) in args.inputs.iter().zip(results).zip(offsets) {
        let query = &result.queries[number];
        if let Some(error) = &query.error {
            bail!("{error} (in {})", path.display());
        }
        let count: usize = result.indexes.iter().map(|e| e.files.len()).sum();
        for hit in &query.hits {
            let file = match hit.file {
                Some(file) if file < count => file,
                Some(file) => bail!(
                    "{}: a hit names file {file}, but the result lists {count}",
                    path.display()
                ),
                None if count == 1 => 0,
                None => bail!(
                    "{}: a hit does not say which index file it is from",
                    path.display()
                ),
            };
            hits.push(Merged {
                file: offset + file,
                document: hit.document.clone(),
                kmers_found: hit.kmers_found,
                kmers_total: hit.kmers_total,
                identity: hit.identity,
                corrected: hit.corrected.clone(),
            });
        }
    }
    // Each job's hits of one file are in document order among equal scores; a stable sort
    // by (score, file) keeps that order, which is the single search's tie-break.
    hits.sort_by(|a, b| b.kmers_found.cmp(&a.kmers_found).then(a.file.cmp(&b.file)));
    if args.limit > 0 {
        hits.truncate(args.limit);
    }
    Ok(hits)
}
