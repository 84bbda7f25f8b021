//! `bitsift merge-results`: the gather step of a search split over jobs. Each job searched
//! some sub-indexes of a collection (`query -i DIR --subindexes ... --format json`); merged,
//! their hits are exactly the ranking one `query -i DIR` gives: score descending, then index
//! order (the order of the inputs, then of the indexes inside each), then document order,
//! with the limit applied after the merge.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use bitsift::query::output::fraction;
use clap::Args;
use serde::Deserialize;

use super::Outcome;

#[derive(Args, Debug)]
pub struct MergeResultsArgs {
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

#[derive(Deserialize)]
struct IndexEntry {
    path: String,
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
    index: Option<String>,
    kmers_found: u32,
    kmers_total: u64,
}

/// A hit placed in the merged index order.
struct Merged {
    index: usize,
    document: String,
    kmers_found: u32,
    kmers_total: u64,
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

pub fn run(args: MergeResultsArgs) -> Result<Outcome> {
    let results: Vec<Results> = args.inputs.iter().map(load).collect::<Result<_>>()?;
    let mut labels: Vec<String> = Vec::new();
    let mut positions: Vec<HashMap<String, usize>> = Vec::new();
    for (path, result) in args.inputs.iter().zip(&results) {
        let mut local = HashMap::new();
        for entry in &result.indexes {
            if labels.contains(&entry.path) {
                bail!(
                    "{}: index {} is also in an earlier result; give each job's result once",
                    path.display(),
                    entry.path
                );
            }
            local.insert(entry.path.clone(), labels.len());
            labels.push(entry.path.clone());
        }
        positions.push(local);
    }
    let first = &results[0];
    for (path, result) in args.inputs.iter().zip(&results) {
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
                args.inputs[0].display()
            );
        }
    }
    let out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .with_context(|| format!("{}: cannot create output file", path.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::new(out);
    let several = labels.len() > 1;
    if several {
        writeln!(
            out,
            "query\tindex\tdocument\tkmers_found\tkmers_total\tfraction"
        )?;
    } else {
        writeln!(out, "query\tdocument\tkmers_found\tkmers_total\tfraction")?;
    }
    let mut failures = 0;
    for (number, query) in first.queries.iter().enumerate() {
        let hits = match merge_query(&args, &results, &positions, number) {
            Ok(hits) => hits,
            Err(error) => {
                failures += 1;
                eprintln!("bitsift: query {:?}: {error}", query.query);
                continue;
            }
        };
        for hit in hits {
            write!(out, "{}\t", query.query)?;
            if several {
                write!(out, "{}\t", labels[hit.index])?;
            }
            writeln!(
                out,
                "{}\t{}\t{}\t{:.4}",
                hit.document,
                hit.kmers_found,
                hit.kmers_total,
                fraction(hit.kmers_found, hit.kmers_total)
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

/// The merged, ranked hits of query `number`, or the error a job reported for it.
fn merge_query(
    args: &MergeResultsArgs,
    results: &[Results],
    positions: &[HashMap<String, usize>],
    number: usize,
) -> Result<Vec<Merged>> {
    let mut hits = Vec::new();
    for ((path, result), local) in args.inputs.iter().zip(results).zip(positions) {
        let query = &result.queries[number];
        if let Some(error) = &query.error {
            bail!("{error} (in {})", path.display());
        }
        for hit in &query.hits {
            let index = match &hit.index {
                Some(label) => *local.get(label).with_context(|| {
                    format!(
                        "{}: a hit names index {label}, which the result does not list",
                        path.display()
                    )
                })?,
                None if result.indexes.len() == 1 => local[&result.indexes[0].path],
                None => bail!(
                    "{}: a hit does not say which index it is from",
                    path.display()
                ),
            };
            hits.push(Merged {
                index,
                document: hit.document.clone(),
                kmers_found: hit.kmers_found,
                kmers_total: hit.kmers_total,
            });
        }
    }
    // Each job's hits of one index are in document order among equal scores; a stable sort
    // by (score, index) keeps that order, which is the single search's tie-break.
    hits.sort_by(|a, b| {
        b.kmers_found
            .cmp(&a.kmers_found)
            .then(a.index.cmp(&b.index))
    });
    if args.limit > 0 {
        hits.truncate(args.limit);
    }
    Ok(hits)
}
