//! Writing results: TSV for people and pandas, JSON with stats for programs, and COBS's own
//! output for scripts written against `cobs query`.

use std::io::{self, Write};

use serde::Serialize;

use super::{BatchStats, Coverage, QueryResult, QueryStats};
use crate::format::DocumentNames;

/// Output formats of `bitsift query`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Header line, then `query document kmers_found kmers_total fraction`.
    #[default]
    Tsv,
    /// One JSON document: the indexes, per query its hits and own stats, then the stats of
    /// each batch the queries were answered in.
    Json,
    /// As `cobs query` prints: `*name<TAB>hits`, then `document<TAB>score` lines.
    Cobs,
}

/// Streams results of many queries in one format.
pub struct ResultWriter<W: Write> {
    out: W,
    format: OutputFormat,
    names: Vec<DocumentNames>,
    index_labels: Vec<String>,
    queries_written: usize,
    verbatim: bool,
    /// JSON: the stats of every batch seen, written once at the end.
    batches: Vec<std::sync::Arc<BatchStats>>,
    /// The results carry coverage (TSV: `covered`, `longest_gap` columns).
    coverage: bool,
    /// TSV: the header line is out.
    header_written: bool,
}

#[derive(Serialize)]
struct JsonHit<'a> {
    document: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<&'a str>,
    kmers_found: u32,
    kmers_total: u64,
    fraction: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<&'a Coverage>,
}

#[derive(Serialize)]
struct JsonQuery<'a> {
    query: &'a str,
    kmers_total: u64,
    hits: Vec<JsonHit<'a>>,
    stats: &'a QueryStats,
}

#[derive(Serialize)]
struct JsonError<'a> {
    query: &'a str,
    error: &'a str,
}

#[derive(Serialize)]
struct JsonIndex<'a> {
    path: &'a str,
    documents: usize,
}

/// The `index` column of a hit: the index's label when several indexes are searched.
fn label<'a>(names: &[DocumentNames], labels: &'a [String], index: u32) -> Option<&'a str> {
    (names.len() > 1).then(|| labels[index as usize].as_str())
}

/// `found / total` rounded to 4 decimals; 0 for an empty query.
pub fn fraction(found: u32, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        found as f64 / total as f64
    }
}

impl<W: Write> ResultWriter<W> {
    /// Starts output. `names[i]` and `index_labels[i]` describe index `i`; with more than one
    /// index, TSV gets an `index` column. `verbatim` marks a query given on the command line
    /// (COBS then prints hits without the `*name` line).
    pub fn new(
        mut out: W,
        format: OutputFormat,
        names: Vec<DocumentNames>,
        index_labels: Vec<String>,
        verbatim: bool,
    ) -> io::Result<Self> {
        assert_eq!(names.len(), index_labels.len(), "one label per index");
        match format {
            OutputFormat::Tsv => {}
            OutputFormat::Json => {
                let indexes: Vec<JsonIndex> = index_labels
                    .iter()
                    .zip(&names)
                    .map(|(path, names)| JsonIndex {
                        path,
                        documents: names.len(),
                    })
                    .collect();
                write!(out, "{{\"indexes\":")?;
                serde_json::to_writer(&mut out, &indexes)?;
                write!(out, ",\"queries\":[")?;
            }
            OutputFormat::Cobs => {}
        }
        Ok(ResultWriter {
            out,
            format,
            names,
            index_labels,
            queries_written: 0,
            verbatim,
            batches: Vec::new(),
            coverage: false,
            header_written: false,
        })
    }

    /// Adds where each hit matches to the output (results must carry coverage): in TSV the
    /// columns `covered` (1-based intervals, `-` for none) and `longest_gap`; in JSON a
    /// `coverage` object per hit. Call before the first result.
    pub fn enable_coverage(&mut self) {
        debug_assert!(!self.header_written, "coverage enabled after output began");
        self.coverage = true;
    }

    /// Writes the TSV header line once, before the first line of data: an input error found
    /// before any result leaves standard output empty.
    fn ensure_header(&mut self) -> io::Result<()> {
        if self.header_written || self.format != OutputFormat::Tsv {
            return Ok(());
        }
        self.header_written = true;
        let index = if self.names.len() > 1 { "index\t" } else { "" };
        let coverage = if self.coverage {
            "\tcovered\tlongest_gap"
        } else {
            ""
        };
        writeln!(
            self.out,
            "query\t{index}document\tkmers_found\tkmers_total\tfraction{coverage}"
        )
    }

    fn json_separator(&mut self) -> io::Result<()> {
        if self.queries_written > 0 {
            writeln!(self.out, ",")?;
        } else {
            writeln!(self.out)?;
        }
        Ok(())
    }

    /// Writes the hits of one query.
    pub fn write_result(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        match self.format {
            OutputFormat::Tsv => {
                self.ensure_header()?;
                for (i, hit) in result.hits.iter().enumerate() {
                    let total = result.kmers_total[hit.index as usize];
                    let document = self.names[hit.index as usize].get(hit.document as usize);
                    write!(self.out, "{query}\t")?;
                    if let Some(label) = label(&self.names, &self.index_labels, hit.index) {
                        write!(self.out, "{label}\t")?;
                    }
                    write!(
                        self.out,
                        "{document}\t{}\t{total}\t{:.4}",
                        hit.kmers_found,
                        fraction(hit.kmers_found, total)
                    )?;
                    if self.coverage {
                        let coverage = result.coverage.get(i).cloned().unwrap_or_default();
                        write!(
                            self.out,
                            "\t{}\t{}",
                            coverage.intervals_text(),
                            coverage.longest_gap
                        )?;
                    }
                    writeln!(self.out)?;
                }
            }
            OutputFormat::Json => {
                self.json_separator()?;
                let (names, labels) = (&self.names, &self.index_labels);
                let hits = result
                    .hits
                    .iter()
                    .enumerate()
                    .map(|(i, hit)| {
                        let total = result.kmers_total[hit.index as usize];
                        JsonHit {
                            document: names[hit.index as usize].get(hit.document as usize),
                            index: label(names, labels, hit.index),
                            kmers_found: hit.kmers_found,
                            kmers_total: total,
                            fraction: (fraction(hit.kmers_found, total) * 1e4).round() / 1e4,
                            coverage: result.coverage.get(i),
                        }
                    })
                    .collect();
                let entry = JsonQuery {
                    query,
                    kmers_total: result.kmers_total.iter().copied().max().unwrap_or(0),
                    hits,
                    stats: &result.stats,
                };
                serde_json::to_writer(&mut self.out, &entry)?;
                if self.batches.last().map(|b| b.batch) != Some(result.batch.batch) {
                    self.batches.push(result.batch.clone());
                }
            }
            OutputFormat::Cobs => {
                if !self.verbatim {
                    writeln!(self.out, "*{query}\t{}", result.hits.len())?;
                }
                for hit in &result.hits {
                    let document = self.names[hit.index as usize].get(hit.document as usize);
                    writeln!(self.out, "{document}\t{}", hit.kmers_found)?;
                }
            }
        }
        self.queries_written += 1;
        Ok(())
    }

    /// Records a query that could not be answered (JSON only; other formats report it on
    /// standard error).
    pub fn write_error(&mut self, query: &str, error: &str) -> io::Result<()> {
        if self.format == OutputFormat::Json {
            self.json_separator()?;
            serde_json::to_writer(&mut self.out, &JsonError { query, error })?;
            self.queries_written += 1;
        }
        Ok(())
    }

    /// Ends the output and flushes it.
    pub fn finish(mut self) -> io::Result<W> {
        self.ensure_header()?;
        if self.format == OutputFormat::Json {
            write!(self.out, "\n],\"batches\":")?;
            let batches: Vec<&BatchStats> = self.batches.iter().map(|b| b.as_ref()).collect();
            serde_json::to_writer(&mut self.out, &batches)?;
            writeln!(self.out, "}}")?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}
