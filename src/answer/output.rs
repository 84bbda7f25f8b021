//! Writing results: TSV for people and pandas, JSON with provenance and stats for programs,
//! and COBS's own output for scripts written against `cobs query`.
//!
//! [`ResultWriter`] writes nothing until the first query is answered or the run finishes,
//! so a run that fails on its input leaves standard output empty rather than holding a lone
//! header. With [`OutputSetup::report_misses`], TSV gets a `status` column and one line for
//! every query without hits, so that "searched, nothing found" (`no_hit`) and "not searched"
//! (`skipped_…`) can be told apart. Every text field of the tab-separated formats (names,
//! metadata values) is escaped by the one rule of [`crate::tsv`].

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

use serde::Serialize;

use super::describe::IndexDescription;
use super::json::{JsonHits, QueryJson};
use super::matrix::Matrix;
use super::scores::{HitScores, TSV_COLUMNS};
use super::status::SkipReason;
use crate::metadata::Metadata;
use crate::query::{BatchStats, Index, QueryResult};
use crate::tsv;

/// Output formats of `bitsift query` (its `--format`, src/cli/choices.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputFormat {
    /// Header line, then `query document kmers_found kmers_total fraction identity`, the
    /// corrected score's columns (`containment` … `p_false`, [`crate::query::Corrected`]); with
    /// `--group-by`, one line per query and group instead.
    #[default]
    Tsv,
    /// One JSON document: provenance, the indexes, then per query its totals, hits, groups
    /// and stats.
    Json,
    /// As `cobs query` prints: `*name<TAB>hits`, then `document<TAB>score` lines.
    Cobs,
    /// A presence matrix: a header of the queries, then one line per document that is a hit
    /// of at least one query, with the fraction of each query's k-mers it holds (empty: not
    /// a hit).
    Matrix,
}

impl OutputFormat {
    /// Lowercase name as used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            OutputFormat::Tsv => "tsv",
            OutputFormat::Json => "json",
            OutputFormat::Cobs => "cobs",
            OutputFormat::Matrix => "matrix",
        }
    }
}

/// What the TSV outputs write where a number is missing (scores of a group without carriers,
/// counts of a query not searched).
const NO_NUMBER: &str = "NA";

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
    /// The metadata column hits are counted by, if any.
    pub group_by: Option<String>,
    /// What the threshold applies to: `corrected` (the containment corrected for false
    /// positives, and hits false positives alone explain are dropped) or `raw` (COBS's
    /// fraction of k-mers found).
    pub filter: &'static str,
}

/// How to write results.
pub struct OutputSetup<'a> {
    /// The format.
    pub format: OutputFormat,
    /// The index searched: document names, sources, k.
    pub index: &'a Index,
    /// The query was given on the command line (COBS then prints no `*name` line).
    pub verbatim: bool,
    /// TSV: add a `status` column and a line for every query without hits.
    pub report_misses: bool,
    /// Metadata columns to join to hits by document name.
    pub metadata: Option<&'a Metadata>,
    /// Matrix cells say 1 (a hit) or 0 instead of the hit's fraction.
    pub presence: bool,
    /// Hits are counted by group (`--group-by`): TSV then has one line per query and group.
    pub group_by: Option<String>,
    /// The results carry where each hit matches: TSV gets `covered` (1-based intervals, `-`
    /// for none) and `longest_gap` after `identity`, JSON a `coverage` object per hit.
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
    /// Matrix: the queries, and their hits as (document, query, fraction) in one list.
    matrix: Matrix,
    /// Reused for each TSV line.
    line: String,
}

impl<'a, W: Write> ResultWriter<'a, W> {
    /// Prepares output; nothing is written before the first query or [`ResultWriter::finish`].
    pub fn new(out: W, setup: OutputSetup<'a>) -> Self {
        let matrix = Matrix::new(setup.index);
        ResultWriter {
            out,
            setup,
            started: false,
            queries_written: 0,
            batches: Vec::new(),
            matrix,
            line: String::new(),
        }
    }

    fn several_sources(&self) -> bool {
        self.setup.index.sources().names.len() > 1
    }

    /// The `index` column of a hit: its source's name when several sources are searched.
    fn label(&self, file: u32) -> Option<&'a str> {
        let index: &'a Index = self.setup.index;
        self.several_sources().then(|| index.source_name(file))
    }

    fn document(&self, file: u32, document: u64) -> io::Result<&'a str> {
        let index: &'a Index = self.setup.index;
        index
            .document_name(file, document)
            .map_err(io::Error::other)
    }

    fn k(&self, file: u32) -> u32 {
        self.setup.index.headers()[file as usize].k
    }

    /// Writes the TSV header or the JSON head, once.
    fn start(&mut self) -> io::Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        match self.setup.format {
            OutputFormat::Tsv => {
                let header = self.tsv_header();
                writeln!(self.out, "{header}")
            }
            OutputFormat::Json => {
                write!(self.out, "{{\"bitsift\":")?;
                serde_json::to_writer(&mut self.out, &self.setup.provenance)?;
                write!(self.out, ",\"indexes\":")?;
                serde_json::to_writer(
                    &mut self.out,
                    &IndexDescription::of_sources(self.setup.index),
                )?;
                write!(self.out, ",\"queries\":[")
            }
            OutputFormat::Cobs | OutputFormat::Matrix => Ok(()),
        }
    }

    fn tsv_header(&self) -> String {
        if let Some(column) = &self.setup.group_by {
            let column = tsv::field(column);
            return format!(
                "query\t{column}\tcarriers\tsearched\tfraction\tscore_min\tscore_median\tscore_max"
            );
        }
        let mut columns: Vec<Cow<str>> = vec!["query".into()];
        if self.several_sources() {
            columns.push("index".into());
        }
        columns.extend(
            [
                "document",
                "kmers_found",
                "kmers_total",
                "fraction",
                "identity",
            ]
            .map(Cow::from),
        );
        columns.extend(TSV_COLUMNS.map(Cow::from));
        if self.setup.coverage {
            columns.extend(["covered", "longest_gap"].map(Cow::from));
        }
        if self.setup.report_misses {
            columns.push("status".into());
        }
        if let Some(metadata) = self.setup.metadata {
            columns.extend(metadata.columns().iter().map(|c| tsv::field(c)));
        }
        columns.join("\t")
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
        self.setup
            .index
            .prefetch_names(&result.hits)
            .map_err(io::Error::other)?;
        match self.setup.format {
            OutputFormat::Tsv if self.setup.group_by.is_some() => self.tsv_groups(query, result)?,
            OutputFormat::Tsv => self.tsv_result(query, result)?,
            OutputFormat::Json => self.json_result(query, result)?,
            OutputFormat::Matrix => self.matrix.add(query, result)?,
            OutputFormat::Cobs => {
                if !self.setup.verbatim {
                    let query = tsv::field(query);
                    writeln!(self.out, "*{query}\t{}", result.hits.len())?;
                }
                for hit in &result.hits {
                    let document = tsv::field(self.document(hit.index, hit.document)?);
                    writeln!(self.out, "{document}\t{}", hit.kmers_found)?;
                }
            }
        }
        self.queries_written += 1;
        Ok(())
    }

    fn tsv_result(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        let mut line = std::mem::take(&mut self.line);
        for (i, hit) in result.hits.iter().enumerate() {
            let total = result.kmers_total[hit.index as usize];
            let document = self.document(hit.index, hit.document)?;
            let scores = HitScores::of(result, i, self.k(hit.index));
            let (fraction, identity) = (scores.fraction, scores.identity);
            line.clear();
            tsv::push_field(&mut line, query);
            line.push('\t');
            if let Some(label) = self.label(hit.index) {
                tsv::push_field(&mut line, label);
                line.push('\t');
            }
            tsv::push_field(&mut line, document);
            let _ = write!(
                line,
                "\t{}\t{total}\t{fraction:.4}\t{identity:.4}",
                hit.kmers_found
            );
            scores.push_tsv(&mut line);
            if self.setup.coverage {
                let coverage = result.coverage.get(i).cloned().unwrap_or_default();
                let _ = write!(
                    line,
                    "\t{}\t{}",
                    coverage.intervals_text(),
                    coverage.longest_gap
                );
            }
            if self.setup.report_misses {
                line.push_str("\thit");
            }
            self.push_metadata(&mut line, Some(document));
            line.push('\n');
            self.out.write_all(line.as_bytes())?;
        }
        self.line = line;
        if result.hits.is_empty() && self.setup.report_misses {
            let total = result.kmers_total.iter().copied().max().unwrap_or(0);
            self.tsv_miss(query, &total.to_string(), "no_hit")?;
        }
        Ok(())
    }

    fn tsv_groups(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        let score = |s: Option<f64>| s.map_or_else(|| NO_NUMBER.to_string(), |s| format!("{s:.4}"));
        let query = tsv::field(query);
        for g in &result.groups {
            writeln!(
                self.out,
                "{query}\t{}\t{}\t{}\t{:.4}\t{}\t{}\t{}",
                tsv::field(&g.value),
                g.carriers,
                g.searched,
                g.fraction,
                score(g.score_min),
                score(g.score_median),
                score(g.score_max)
            )?;
        }
        Ok(())
    }

    /// One line for a query without hits: `NA` where there is no document.
    fn tsv_miss(&mut self, query: &str, total: &str, status: &str) -> io::Result<()> {
        if self.setup.group_by.is_some() {
            return Ok(());
        }
        let mut line = format!("{}\t", tsv::field(query));
        if self.several_sources() {
            line += "NA\t";
        }
        line += &format!("NA\tNA\t{total}\tNA\tNA");
        TSV_COLUMNS.iter().for_each(|_| line.push_str("\tNA"));
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
        match document.and_then(|d| metadata.get(d)) {
            Some(row) => {
                for cell in row.cells() {
                    line.push('\t');
                    tsv::push_field(line, cell);
                }
            }
            None => (0..metadata.columns().len()).for_each(|_| line.push('\t')),
        }
    }

    /// One query as JSON, its hits written one at a time (an answer of 600,000 hits never
    /// exists as one string).
    fn json_result(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        self.json_separator()?;
        let hits = JsonHits {
            index: self.setup.index,
            result: Some(result),
            named: self.several_sources(),
            numbered_files: self.setup.index.headers().len() > 1,
            metadata: self.setup.metadata,
        };
        let mut answer = QueryJson::answered(query, result, hits);
        answer.groups = self.setup.group_by.is_some().then_some(&result.groups[..]);
        answer.stats = Some(&result.stats);
        serde_json::to_writer(&mut self.out, &answer)?;
        if self.batches.last().map(|b| b.batch) != Some(result.batch.batch) {
            self.batches.push(result.batch.clone());
        }
        Ok(())
    }

    /// Records a query that was not searched. JSON lists it with its status and error; TSV
    /// gets a line only with [`OutputSetup::report_misses`]; COBS output has none (COBS ends
    /// the run instead); a matrix gets an empty column. Standard error is the caller's
    /// business.
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
                let entry = QueryJson::skipped(query, reason, error);
                serde_json::to_writer(&mut self.out, &entry)?;
            }
            OutputFormat::Tsv if self.setup.report_misses => {
                let total = match reason {
                    SkipReason::TooShort => "0",
                    SkipReason::NotNucleotides | SkipReason::ReadFailed => "NA",
                };
                self.tsv_miss(query, total, reason.status())?;
            }
            OutputFormat::Matrix => self.matrix.skip(query)?,
            OutputFormat::Tsv | OutputFormat::Cobs => return Ok(()),
        }
        self.queries_written += 1;
        Ok(())
    }

    /// Ends the output, flushes it and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.start()?;
        match self.setup.format {
            OutputFormat::Json => {
                write!(self.out, "\n],\"batches\":")?;
                let batches: Vec<&BatchStats> = self.batches.iter().map(|b| b.as_ref()).collect();
                serde_json::to_writer(&mut self.out, &batches)?;
                writeln!(self.out, "}}")?;
            }
            OutputFormat::Matrix => {
                let labelled = self.several_sources();
                let (index, presence) = (self.setup.index, self.setup.presence);
                self.matrix
                    .write(&mut self.out, index, labelled, presence)?;
            }
            OutputFormat::Tsv | OutputFormat::Cobs => {}
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{write_compact_header, CompactLayout, HeaderOptions, IndexHeader};
    use crate::query::{Hit, QueryStats, RowSource};

    /// The metadata table `tsv`, loaded from a file.
    fn metadata_of(tsv: &str) -> Metadata {
        let (_dir, path) = crate::testing::file_with("m.tsv", tsv);
        Metadata::load(&path).unwrap()
    }

    /// An index of one block holding documents `a` and `b`.
    fn index() -> Index {
        let layout = CompactLayout::cobs31(8, vec![1]);
        let mut bytes = write_compact_header(&layout, ["a", "b"].into_iter()).unwrap();
        bytes.resize(bytes.len() + layout.data_bytes() as usize, 0);
        let path = std::path::Path::new("x.cobs_compact");
        let header = IndexHeader::from_bytes(path, &bytes, &HeaderOptions::default()).unwrap();
        Index::from_headers(vec![header]).unwrap()
    }

    fn setup<'a>(
        format: OutputFormat,
        index: &'a Index,
        metadata: Option<&'a Metadata>,
    ) -> OutputSetup<'a> {
        OutputSetup {
            format,
            index,
            verbatim: false,
            report_misses: true,
            metadata,
            presence: false,
            group_by: None,
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
                    group_by: None,
                    filter: "corrected",
                },
            },
        }
    }

    fn result(hits: &[(u64, u32)]) -> QueryResult {
        QueryResult {
            total_hits: hits.len() as u64,
            documents_searched: 2,
            groups: Vec::new(),
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
            corrected: Vec::new(),
        }
    }

    #[test]
    fn nothing_is_written_before_the_first_query() {
        let index = index();
        let writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Tsv, &index, None));
        drop(writer);
        let mut writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Tsv, &index, None));
        writer.write_result("q", &result(&[(1, 9)])).unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "query\tdocument\tkmers_found\tkmers_total\tfraction\tidentity\tcontainment\tcontainment_low\tcontainment_high\tborderline\tfpr\tfp_expected\tp_false\tstatus\nq\tb\t9\t10\t0.9000\t0.9966\tNA\tNA\tNA\tNA\tNA\tNA\tNA\thit\n"
        );
    }

    #[test]
    fn misses_and_skipped_queries_have_a_status() {
        let index = index();
        let mut writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Tsv, &index, None));
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
                "found\ta\t10\t10\t1.0000\t1.0000\tNA\tNA\tNA\tNA\tNA\tNA\tNA\thit",
                "absent\tNA\tNA\t10\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tno_hit",
                "tiny\tNA\tNA\t0\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tskipped_too_short",
                "protein\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tskipped_not_dna",
            ]
        );
    }

    #[test]
    fn json_records_provenance_status_and_metadata() {
        let metadata = metadata_of("document\tspecies\nb\tE. coli\n");
        let index = index();
        let mut writer = ResultWriter::new(
            Vec::new(),
            setup(OutputFormat::Json, &index, Some(&metadata)),
        );
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
        assert_eq!(value["indexes"][0]["name"], "x.cobs_compact");
        let queries = value["queries"].as_array().unwrap();
        assert_eq!(queries[0]["status"], "hit");
        assert_eq!(queries[0]["total_hits"], 2);
        assert_eq!(queries[0]["documents_searched"], 2);
        assert_eq!(queries[0]["hits"][0]["identity"], 0.9966);
        assert_eq!(queries[0]["hits"][0]["metadata"]["species"], "E. coli");
        assert!(queries[0]["hits"][1].get("metadata").is_none());
        assert_eq!(queries[1]["status"], "skipped_not_dna");
    }

    #[test]
    fn tsv_metadata_columns_follow_the_status() {
        let metadata = metadata_of("document\tspecies\tcountry\nb\tE. coli\tUK\n");
        let index = index();
        let mut writer = ResultWriter::new(
            Vec::new(),
            setup(OutputFormat::Tsv, &index, Some(&metadata)),
        );
        writer
            .write_result("q", &result(&[(1, 9), (0, 8)]))
            .unwrap();
        writer.write_result("r", &result(&[])).unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "query\tdocument\tkmers_found\tkmers_total\tfraction\tidentity\tcontainment\tcontainment_low\tcontainment_high\tborderline\tfpr\tfp_expected\tp_false\tstatus\tspecies\tcountry\n\
             q\tb\t9\t10\t0.9000\t0.9966\tNA\tNA\tNA\tNA\tNA\tNA\tNA\thit\tE. coli\tUK\n\
             q\ta\t8\t10\t0.8000\t0.9928\tNA\tNA\tNA\tNA\tNA\tNA\tNA\thit\t\t\n\
             r\tNA\tNA\t10\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tno_hit\t\t\n"
        );
    }

    #[test]
    fn a_matrix_has_a_column_per_query_and_a_line_per_hit_document() {
        let index = index();
        let mut writer = ResultWriter::new(Vec::new(), setup(OutputFormat::Matrix, &index, None));
        writer.write_result("q1", &result(&[(1, 9)])).unwrap();
        writer
            .write_skipped("p", SkipReason::NotNucleotides, "not DNA")
            .unwrap();
        writer
            .write_result("q2", &result(&[(0, 10), (1, 8)]))
            .unwrap();
        writer.write_result("q3", &result(&[])).unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "document\tq1\tp\tq2\tq3\na\t\t\t1.0000\t\nb\t0.9000\t\t0.8000\t\n"
        );
    }
}
