//! Writing results: TSV for people and pandas, JSON with provenance and stats for programs,
//! and COBS's own output for scripts written against `cobs query`.
//!
//! [`ResultWriter`] writes nothing until the first query is answered or the run finishes,
//! so a run that fails on its input leaves standard output empty rather than holding a lone
//! header. With [`OutputSetup::report_misses`], TSV gets a `status` column and one line for
//! every query without hits, so that "searched, nothing found" (`no_hit`) and "not searched"
//! (`skipped_…`) can be told apart.

use std::io::{self, Write};

use serde::Serialize;

use super::{BatchStats, Coverage, QueryResult, QueryStats};
use crate::format::{DocumentNames, IndexHeader};
use crate::metadata::Metadata;

/// Output formats of `bitsift query`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Header line, then `query document kmers_found kmers_total fraction`.
    #[default]
    Tsv,
    /// One JSON document: provenance, the indexes, then per query its hits and stats.
    Json,
    /// As `cobs query` prints: `*name<TAB>hits`, then `document<TAB>score` lines.
    Cobs,
}

/// Why a query was not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// Fewer bases than k: no k-mer to look up.
    TooShort,
    /// Not a nucleotide sequence (see [`crate::alphabet`]).
    NotNucleotides,
    /// A read the query needed failed (after retries); the other queries were answered.
    ReadFailed,
}

impl SkipReason {
    /// The value of the `status` column.
    pub fn status(self) -> &'static str {
        match self {
            SkipReason::TooShort => "skipped_too_short",
            SkipReason::NotNucleotides => "skipped_not_dna",
            SkipReason::ReadFailed => "failed_read",
        }
    }
}

/// What produced the results, recorded at the top of JSON output.
#[derive(Clone, Debug, Serialize)]
pub struct Provenance {
    /// bitsift's version.
    pub version: &'static str,
    /// Search settings that decide the results.
    pub search: SearchSettings,
}

/// The settings of a run that decide which hits are reported.
#[derive(Clone, Debug, Serialize)]
pub struct SearchSettings {
    /// Fraction of a query's k-mers a document must contain.
    pub threshold: f64,
    /// Documents per query at most (0: all).
    pub limit: usize,
    /// How query bases were read: `standard` or `cobs` (see [`crate::alphabet`]).
    pub bases: &'static str,
    /// Whether lowercase letters were folded under the COBS rule.
    pub fold_case: bool,
    /// Threshold pruning (never changes the reported scores).
    pub prune: bool,
    /// Block summaries used to skip blocks (documents that reach the threshold only through
    /// Bloom false positives of a skipped block are not reported).
    pub summaries: bool,
    /// The metadata table joined to hits, if any.
    pub metadata: Option<String>,
}

/// One index as JSON output describes it: where it is and the parameters it was built with.
#[derive(Clone, Debug, Serialize)]
pub struct IndexSummary {
    /// The path as given.
    pub path: String,
    /// `compact` or `classic`.
    pub format: &'static str,
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions.
    pub hashes: u32,
    /// Bytes per row.
    pub page_size: u64,
    /// Blocks.
    pub blocks: usize,
    /// Documents.
    pub documents: u64,
    /// File size in bytes.
    pub file_size: u64,
}

impl IndexSummary {
    /// The summary of an open index.
    pub fn of(header: &IndexHeader) -> IndexSummary {
        IndexSummary {
            path: header.path.display().to_string(),
            format: header.kind.as_str(),
            k: header.k,
            canonical: header.canonical,
            hashes: header.num_hashes,
            page_size: header.page_size,
            blocks: header.blocks.len(),
            documents: header.document_count(),
            file_size: header.file_size,
        }
    }
}

/// How to write results.
pub struct OutputSetup<'a> {
    /// The format.
    pub format: OutputFormat,
    /// Document names per index, in searcher order.
    pub names: Vec<DocumentNames>,
    /// Per index, in searcher order (their paths become the `index` column).
    pub indexes: Vec<IndexSummary>,
    /// The query was given on the command line (COBS then prints no `*name` line).
    pub verbatim: bool,
    /// TSV: add a `status` column and a line for every query without hits.
    pub report_misses: bool,
    /// Metadata columns to join to hits by document name.
    pub metadata: Option<&'a Metadata>,
    /// The results carry where each hit matches: TSV gets `covered` (1-based intervals, `-`
    /// for none) and `longest_gap` after `fraction`, JSON a `coverage` object per hit.
    pub coverage: bool,
    /// Recorded at the top of JSON output.
    pub provenance: Provenance,
}

/// Streams results of many queries in one format.
pub struct ResultWriter<'a, W: Write> {
    out: W,
    setup: OutputSetup<'a>,
    started: bool,
    queries_written: usize,
    /// JSON: the stats of every batch seen, written once at the end.
    batches: Vec<std::sync::Arc<BatchStats>>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Serialize)]
struct JsonQuery<'a> {
    query: &'a str,
    status: &'static str,
    kmers_total: u64,
    hits: Vec<JsonHit<'a>>,
    stats: &'a QueryStats,
}

#[derive(Serialize)]
struct JsonSkipped<'a> {
    query: &'a str,
    status: &'static str,
    error: &'a str,
}

/// `found / total`; 0 for an empty query.
pub fn fraction(found: u32, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        found as f64 / total as f64
    }
}

/// `found / total` rounded to 4 decimals, as JSON carries it.
fn fraction_rounded(found: u32, total: u64) -> f64 {
    (fraction(found, total) * 1e4).round() / 1e4
}

impl<'a, W: Write> ResultWriter<'a, W> {
    /// Prepares output; nothing is written before the first query or [`ResultWriter::finish`].
    pub fn new(out: W, setup: OutputSetup<'a>) -> Self {
        assert_eq!(
            setup.names.len(),
            setup.indexes.len(),
            "one summary per index"
        );
        ResultWriter {
            out,
            setup,
            started: false,
            queries_written: 0,
            batches: Vec::new(),
        }
    }

    fn several_indexes(&self) -> bool {
        self.setup.names.len() > 1
    }

    /// The `index` column of a hit: the index's path when several indexes are searched.
    fn label(&self, index: u32) -> Option<&str> {
        self.several_indexes()
            .then(|| self.setup.indexes[index as usize].path.as_str())
    }

    /// Writes the TSV header or the JSON head, once.
    fn start(&mut self) -> io::Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        match self.setup.format {
            OutputFormat::Tsv => {
                let mut columns = vec!["query"];
                if self.several_indexes() {
                    columns.push("index");
                }
                columns.extend(["document", "kmers_found", "kmers_total", "fraction"]);
                if self.setup.coverage {
                    columns.extend(["covered", "longest_gap"]);
                }
                if self.setup.report_misses {
                    columns.push("status");
                }
                if let Some(metadata) = self.setup.metadata {
                    columns.extend(metadata.columns().iter().map(String::as_str));
                }
                writeln!(self.out, "{}", columns.join("\t"))
            }
            OutputFormat::Json => {
                write!(self.out, "{{\"bitsift\":")?;
                serde_json::to_writer(&mut self.out, &self.setup.provenance)?;
                write!(self.out, ",\"indexes\":")?;
                serde_json::to_writer(&mut self.out, &self.setup.indexes)?;
                write!(self.out, ",\"queries\":[")
            }
            OutputFormat::Cobs => Ok(()),
        }
    }

    fn json_separator(&mut self) -> io::Result<()> {
        if self.queries_written > 0 {
            writeln!(self.out, ",")
        } else {
            writeln!(self.out)
        }
    }

    /// Writes the hits of one query.
    pub fn write_result(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        self.start()?;
        match self.setup.format {
            OutputFormat::Tsv => self.tsv_result(query, result)?,
            OutputFormat::Json => self.json_result(query, result)?,
            OutputFormat::Cobs => {
                if !self.setup.verbatim {
                    writeln!(self.out, "*{query}\t{}", result.hits.len())?;
                }
                for hit in &result.hits {
                    let document = self.setup.names[hit.index as usize].get(hit.document as usize);
                    writeln!(self.out, "{document}\t{}", hit.kmers_found)?;
                }
            }
        }
        self.queries_written += 1;
        Ok(())
    }

    fn tsv_result(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        for (i, hit) in result.hits.iter().enumerate() {
            let total = result.kmers_total[hit.index as usize];
            let document = self.setup.names[hit.index as usize].get(hit.document as usize);
            let mut line = format!("{query}\t");
            if let Some(label) = self.label(hit.index) {
                line += label;
                line.push('\t');
            }
            line += &format!(
                "{document}\t{}\t{total}\t{:.4}",
                hit.kmers_found,
                fraction(hit.kmers_found, total)
            );
            if self.setup.coverage {
                let coverage = result.coverage.get(i).cloned().unwrap_or_default();
                line += &format!("\t{}\t{}", coverage.intervals_text(), coverage.longest_gap);
            }
            if self.setup.report_misses {
                line += "\thit";
            }
            self.push_metadata(&mut line, Some(document));
            writeln!(self.out, "{line}")?;
        }
        if result.hits.is_empty() && self.setup.report_misses {
            let total = result.kmers_total.iter().copied().max().unwrap_or(0);
            self.tsv_miss(query, &total.to_string(), "no_hit")?;
        }
        Ok(())
    }

    /// One line for a query without hits: `NA` where there is no document.
    fn tsv_miss(&mut self, query: &str, total: &str, status: &str) -> io::Result<()> {
        let mut line = format!("{query}\t");
        if self.several_indexes() {
            line += "NA\t";
        }
        line += &format!("NA\tNA\t{total}\tNA");
        if self.setup.coverage {
            line += "\tNA\tNA";
        }
        line += &format!("\t{status}");
        self.push_metadata(&mut line, None);
        writeln!(self.out, "{line}")
    }

    /// Appends the metadata cells of `document` (empty when it is not listed).
    fn push_metadata(&self, line: &mut String, document: Option<&str>) {
        let Some(metadata) = self.setup.metadata else {
            return;
        };
        let values = document.and_then(|d| metadata.get(d));
        for column in 0..metadata.columns().len() {
            line.push('\t');
            if let Some(values) = values {
                line.push_str(&values[column]);
            }
        }
    }

    fn json_metadata(&self, document: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
        let metadata = self.setup.metadata?;
        let values = metadata.get(document)?;
        Some(
            metadata
                .columns()
                .iter()
                .zip(values)
                .map(|(c, v)| (c.clone(), serde_json::Value::String(v.clone())))
                .collect(),
        )
    }

    fn json_result(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        self.json_separator()?;
        let hits = result
            .hits
            .iter()
            .enumerate()
            .map(|(i, hit)| {
                let total = result.kmers_total[hit.index as usize];
                let document = self.setup.names[hit.index as usize].get(hit.document as usize);
                JsonHit {
                    document,
                    index: self.label(hit.index),
                    kmers_found: hit.kmers_found,
                    kmers_total: total,
                    fraction: fraction_rounded(hit.kmers_found, total),
                    coverage: result.coverage.get(i),
                    metadata: self.json_metadata(document),
                }
            })
            .collect();
        let entry = JsonQuery {
            query,
            status: if result.hits.is_empty() {
                "no_hit"
            } else {
                "hit"
            },
            kmers_total: result.kmers_total.iter().copied().max().unwrap_or(0),
            hits,
            stats: &result.stats,
        };
        let text = serde_json::to_string(&entry)?;
        if self.batches.last().map(|b| b.batch) != Some(result.batch.batch) {
            self.batches.push(result.batch.clone());
        }
        self.out.write_all(text.as_bytes())
    }

    /// Records a query that was not searched. JSON lists it with its status and error; TSV
    /// gets a line only with [`OutputSetup::report_misses`]; COBS output has none (COBS ends
    /// the run instead). Standard error is the caller's business.
    pub fn write_skipped(
        &mut self,
        query: &str,
        reason: SkipReason,
        error: &str,
    ) -> io::Result<()> {
        self.start()?;
        match self.setup.format {
            OutputFormat::Json => {
                self.json_separator()?;
                let entry = JsonSkipped {
                    query,
                    status: reason.status(),
                    error,
                };
                serde_json::to_writer(&mut self.out, &entry)?;
            }
            OutputFormat::Tsv if self.setup.report_misses => {
                let total = match reason {
                    SkipReason::TooShort => "0",
                    SkipReason::NotNucleotides | SkipReason::ReadFailed => "NA",
                };
                self.tsv_miss(query, total, reason.status())?;
            }
            OutputFormat::Tsv | OutputFormat::Cobs => return Ok(()),
        }
        self.queries_written += 1;
        Ok(())
    }

    /// Ends the output, flushes it and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.start()?;
        if self.setup.format == OutputFormat::Json {
            write!(self.out, "\n],\"batches\":")?;
            let batches: Vec<&BatchStats> = self.batches.iter().map(|b| b.as_ref()).collect();
            serde_json::to_writer(&mut self.out, &batches)?;
            writeln!(self.out, "}}")?;
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{Hit, RowSource};

    fn names(list: &[&str]) -> DocumentNames {
        let mut names = DocumentNames::with_capacity(list.len());
        for name in list {
            names.push(name);
        }
        names
    }

    fn summary(path: &str, documents: u64) -> IndexSummary {
        IndexSummary {
            path: path.into(),
            format: "compact",
            k: 31,
            canonical: true,
            hashes: 1,
            page_size: 8,
            blocks: 1,
            documents,
            file_size: 1000,
        }
    }

    fn setup<'a>(format: OutputFormat, metadata: Option<&'a Metadata>) -> OutputSetup<'a> {
        OutputSetup {
            format,
            names: vec![names(&["a", "b"])],
            indexes: vec![summary("x.cobs_compact", 2)],
            verbatim: false,
            report_misses: true,
            metadata,
            coverage: false,
            provenance: Provenance {
                version: crate::VERSION,
                search: SearchSettings {
                    threshold: 0.8,
                    limit: 0,
                    bases: "standard",
                    fold_case: false,
                    prune: true,
                    summaries: true,
                    metadata: None,
                },
            },
        }
    }

    fn result(hits: &[(u64, u32)]) -> QueryResult {
        QueryResult {
            kmers_total: vec![10],
            hits: hits
                .iter()
                .map(|&(document, kmers_found)| Hit {
                    index: 0,
                    document,
                    kmers_found,
                })
                .collect(),
            stats: QueryStats::new(crate::io::EngineKind::Ram, RowSource::Resident),
            batch: std::sync::Arc::new(BatchStats::new(
                1,
                crate::io::EngineKind::Ram,
                RowSource::Resident,
            )),
            coverage: Vec::new(),
        }
    }

    #[test]
    fn nothing_is_written_before_the_first_query() {
        let writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Tsv, None));
        drop(writer);
        let mut writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Tsv, None));
        writer.write_result("q", &result(&[(1, 9)])).unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "query\tdocument\tkmers_found\tkmers_total\tfraction\tstatus\nq\tb\t9\t10\t0.9000\thit\n"
        );
    }

    #[test]
    fn misses_and_skipped_queries_have_a_status() {
        let mut writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Tsv, None));
        writer.write_result("found", &result(&[(0, 10)])).unwrap();
        writer.write_result("absent", &result(&[])).unwrap();
        writer
            .write_skipped("tiny", SkipReason::TooShort, "too short")
            .unwrap();
        writer
            .write_skipped("protein", SkipReason::NotNucleotides, "not DNA")
            .unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "found\ta\t10\t10\t1.0000\thit",
                "absent\tNA\tNA\t10\tNA\tno_hit",
                "tiny\tNA\tNA\t0\tNA\tskipped_too_short",
                "protein\tNA\tNA\tNA\tNA\tskipped_not_dna",
            ]
        );
    }

    #[test]
    fn json_records_provenance_status_and_metadata() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tsv");
        std::fs::write(&path, "document\tspecies\nb\tE. coli\n").unwrap();
        let metadata = Metadata::load(&path).unwrap();
        let mut writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Json, Some(&metadata)));
        writer
            .write_result("q", &result(&[(1, 9), (0, 8)]))
            .unwrap();
        writer
            .write_skipped("p", SkipReason::NotNucleotides, "not DNA")
            .unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["bitsift"]["version"], crate::VERSION);
        assert_eq!(value["bitsift"]["search"]["threshold"], 0.8);
        assert_eq!(value["indexes"][0]["k"], 31);
        let queries = value["queries"].as_array().unwrap();
        assert_eq!(queries[0]["status"], "hit");
        assert_eq!(queries[0]["hits"][0]["metadata"]["species"], "E. coli");
        assert!(queries[0]["hits"][1].get("metadata").is_none());
        assert_eq!(queries[1]["status"], "skipped_not_dna");
    }

    #[test]
    fn tsv_metadata_columns_follow_the_status() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tsv");
        std::fs::write(&path, "document\tspecies\tcountry\nb\tE. coli\tUK\n").unwrap();
        let metadata = Metadata::load(&path).unwrap();
        let mut writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Tsv, Some(&metadata)));
        writer
            .write_result("q", &result(&[(1, 9), (0, 8)]))
            .unwrap();
        writer.write_result("r", &result(&[])).unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "query\tdocument\tkmers_found\tkmers_total\tfraction\tstatus\tspecies\tcountry\n\
             q\tb\t9\t10\t0.9000\thit\tE. coli\tUK\n\
             q\ta\t8\t10\t0.8000\thit\t\t\n\
             r\tNA\tNA\t10\tNA\tno_hit\t\t\n"
        );
    }
}
