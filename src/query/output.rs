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

use super::matrix::{self, Cell, MatrixCells};
use super::present::{identity, rounded, NO_NUMBER};
use super::{BatchStats, Coverage, Index, QueryResult};
use crate::metadata::Metadata;
use crate::tsv;

/// Output formats of `bitsift query` (its `--format`, src/cli/choices.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputFormat {
    /// Header line, then `query document kmers_found kmers_total fraction identity`; with
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
    /// The metadata column hits are counted by, if any.
    pub group_by: Option<String>,
}

/// One index as answers describe it: a collection (named after its directory, whatever its
/// number of sub-indexes) or an index file, with the parameters it was built with.
#[derive(Clone, Debug, Serialize)]
pub struct IndexSummary {
    /// The name hits carry in their `index` field.
    pub name: String,
    /// Its files, as given.
    pub files: Vec<String>,
    /// `compact` or `classic`.
    pub format: &'static str,
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions.
    pub hashes: u32,
    /// Bytes per row (of its first file).
    pub page_size: u64,
    /// Blocks.
    pub blocks: usize,
    /// Documents searches may report (removed documents and placeholders left out).
    pub documents: u64,
    /// Bytes of its files.
    pub file_size: u64,
}

impl IndexSummary {
    /// The summaries of the sources of an open index, in source order.
    pub fn of(index: &Index) -> Vec<IndexSummary> {
        let sources = index.sources();
        let mut summaries: Vec<Option<IndexSummary>> = vec![None; sources.names.len()];
        assert!(
            sources.of_file.windows(2).all(|w| w[0] <= w[1]),
            "the files of a source are consecutive, so `files` listed in order number them"
        );
        for (file, header) in index.headers().iter().enumerate() {
            let source = sources.of_file[file] as usize;
            let shown = index.shown_documents(file as u32);
            let entry = summaries[source].get_or_insert_with(|| IndexSummary {
                name: sources.names[source].clone(),
                files: Vec::new(),
                format: header.kind.as_str(),
                k: header.k,
                canonical: header.canonical,
                hashes: header.num_hashes,
                page_size: header.page_size,
                blocks: 0,
                documents: 0,
                file_size: 0,
            });
            entry.files.push(header.path.display().to_string());
            entry.blocks += header.blocks.len();
            entry.documents += shown;
            entry.file_size += header.file_size;
        }
        summaries.into_iter().flatten().collect()
    }
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
    /// Reused for each line.
    line: String,
}

/// One hit as every JSON answer carries it (the command line's and the server's).
#[derive(Serialize)]
pub struct JsonHit<'a> {
    /// The document's name.
    pub document: &'a str,
    /// The name of its index (a collection, or a file), when answers need it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<&'a str>,
    /// The hit's file, numbered through `indexes[].files` in order, when there are several
    /// (`merge-results` ranks by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<u32>,
    /// Query k-mers found in the document.
    pub kmers_found: u32,
    /// Query k-mers.
    pub kmers_total: u64,
    /// `kmers_found / kmers_total`, to 4 decimals.
    pub fraction: f64,
    /// The identity estimate of the fraction (see [`super::present`]), to 4 decimals.
    pub identity: f64,
    /// Where the hit matches, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<&'a Coverage>,
    /// The document's row of the metadata table, when one is given and lists it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

impl<'a> JsonHit<'a> {
    /// Hit `i` of `result`, a search of `index`, without label or metadata.
    pub fn of(index: &'a Index, result: &'a QueryResult, i: usize) -> JsonHit<'a> {
        let hit = &result.hits[i];
        let header = &index.headers()[hit.index as usize];
        let total = result.kmers_total[hit.index as usize];
        let fraction = fraction(hit.kmers_found, total);
        JsonHit {
            document: header.names.get(hit.document as usize),
            index: None,
            file: None,
            kmers_found: hit.kmers_found,
            kmers_total: total,
            fraction: rounded(fraction),
            identity: rounded(identity(fraction, header.k)),
            coverage: result.coverage.get(i),
            metadata: None,
        }
    }
}

/// The row of `document` in `metadata` as a JSON object, if the table lists it.
pub fn metadata_json(
    metadata: &Metadata,
    document: &str,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    let row = metadata.get(document)?;
    Some(
        metadata
            .columns()
            .iter()
            .zip(row.cells())
            .map(|(c, v)| (c.clone(), serde_json::Value::String(v.to_string())))
            .collect(),
    )
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

/// The hits of a matrix, gathered until the run ends.
struct Matrix {
    queries: Vec<String>,
    /// The first document number of each file (documents are numbered across files).
    first: Vec<u64>,
    cells: Option<MatrixCells>,
}

impl Matrix {
    fn new(index: &Index) -> Matrix {
        let mut first = Vec::with_capacity(index.headers().len());
        let mut next = 0;
        for header in index.headers() {
            first.push(next);
            next += header.document_count();
        }
        Matrix {
            queries: Vec::new(),
            first,
            cells: Some(MatrixCells::new(matrix::BUDGET_DEFAULT)),
        }
    }

    /// A new column for `query`.
    fn column(&mut self, query: &str) -> io::Result<u32> {
        let column = self.queries.len() as u32;
        if column > matrix::COLUMNS_MAX {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a matrix holds at most {} queries; split the query file",
                    matrix::COLUMNS_MAX + 1
                ),
            ));
        }
        self.queries.push(query.to_string());
        Ok(column)
    }

    /// The (file, document) of document number `number`.
    fn locate(&self, number: u32) -> (u32, u64) {
        let file = self.first.partition_point(|&f| f <= u64::from(number)) - 1;
        (file as u32, u64::from(number) - self.first[file])
    }
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

    fn document(&self, file: u32, document: u64) -> &'a str {
        let index: &'a Index = self.setup.index;
        index.headers()[file as usize].names.get(document as usize)
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
                serde_json::to_writer(&mut self.out, &IndexSummary::of(self.setup.index))?;
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
        match self.setup.format {
            OutputFormat::Tsv if self.setup.group_by.is_some() => self.tsv_groups(query, result)?,
            OutputFormat::Tsv => self.tsv_result(query, result)?,
            OutputFormat::Json => self.json_result(query, result)?,
            OutputFormat::Matrix => self.matrix_result(query, result)?,
            OutputFormat::Cobs => {
                if !self.setup.verbatim {
                    let query = tsv::field(query);
                    writeln!(self.out, "*{query}\t{}", result.hits.len())?;
                }
                for hit in &result.hits {
                    let document = tsv::field(self.document(hit.index, hit.document));
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
            let document = self.document(hit.index, hit.document);
            let fraction = fraction(hit.kmers_found, total);
            line.clear();
            tsv::push_field(&mut line, query);
            line.push('\t');
            if let Some(label) = self.label(hit.index) {
                tsv::push_field(&mut line, label);
                line.push('\t');
            }
            let identity = identity(fraction, self.k(hit.index));
            tsv::push_field(&mut line, document);
            let _ = write!(
                line,
                "\t{}\t{total}\t{fraction:.4}\t{identity:.4}",
                hit.kmers_found
            );
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
        let status = if result.hits.is_empty() {
            "no_hit"
        } else {
            "hit"
        };
        write!(self.out, "{{\"query\":")?;
        serde_json::to_writer(&mut self.out, query)?;
        write!(
            self.out,
            ",\"status\":\"{status}\",\"kmers_total\":{},\"total_hits\":{},\"documents_searched\":{}",
            result.kmers_total.iter().copied().max().unwrap_or(0),
            result.total_hits,
            result.documents_searched
        )?;
        if self.setup.group_by.is_some() {
            write!(self.out, ",\"groups\":")?;
            serde_json::to_writer(&mut self.out, &result.groups)?;
        }
        write!(self.out, ",\"hits\":[")?;
        for (i, hit) in result.hits.iter().enumerate() {
            if i > 0 {
                write!(self.out, ",")?;
            }
            let mut entry = JsonHit::of(self.setup.index, result, i);
            entry.index = self.label(hit.index);
            entry.file = (self.setup.index.headers().len() > 1).then_some(hit.index);
            entry.metadata = self
                .setup
                .metadata
                .and_then(|m| metadata_json(m, entry.document));
            serde_json::to_writer(&mut self.out, &entry)?;
        }
        write!(self.out, "],\"stats\":")?;
        serde_json::to_writer(&mut self.out, &result.stats)?;
        write!(self.out, "}}")?;
        if self.batches.last().map(|b| b.batch) != Some(result.batch.batch) {
            self.batches.push(result.batch.clone());
        }
        Ok(())
    }

    /// Gathers the hits of one query for the matrix written at the end.
    fn matrix_result(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        let column = self.matrix.column(query)?;
        let Some(cells) = self.matrix.cells.as_mut() else {
            return Ok(());
        };
        for hit in &result.hits {
            let total = result.kmers_total[hit.index as usize];
            let number = self.matrix.first[hit.index as usize] + hit.document;
            cells.push(Cell {
                document: u32::try_from(number).expect("fewer than 2^32 documents"),
                column,
                value: (fraction(hit.kmers_found, total) * 1e4).round() as u16,
            })?;
        }
        Ok(())
    }

    /// Writes the matrix: documents in index order, one column per query; a cell is the
    /// fraction of a hit (empty: not a hit), or with `presence` 1 and 0.
    fn write_matrix(&mut self) -> io::Result<()> {
        let mut header = String::from("document");
        if self.several_sources() {
            header.push_str("\tindex");
        }
        for query in &self.matrix.queries {
            header.push('\t');
            tsv::push_field(&mut header, query);
        }
        writeln!(self.out, "{header}")?;
        let Some(cells) = self.matrix.cells.take() else {
            return Ok(());
        };
        let mut sorted = cells.finish()?;
        let mut row: Vec<Option<u16>> = vec![None; self.matrix.queries.len()];
        let mut next = sorted.next_cell()?;
        while let Some(first) = next {
            row.iter_mut().for_each(|c| *c = None);
            let document = first.document;
            next = Some(first);
            while let Some(cell) = next.filter(|c| c.document == document) {
                row[cell.column as usize] = Some(cell.value);
                next = sorted.next_cell()?;
            }
            self.matrix_line(document, &row)?;
        }
        Ok(())
    }

    fn matrix_line(&mut self, number: u32, row: &[Option<u16>]) -> io::Result<()> {
        let (file, document) = self.matrix.locate(number);
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        tsv::push_field(&mut line, self.document(file, document));
        if let Some(label) = self.label(file) {
            line.push('\t');
            tsv::push_field(&mut line, label);
        }
        for cell in row {
            line.push('\t');
            match (cell, self.setup.presence) {
                (Some(_), true) => line.push('1'),
                (None, true) => line.push('0'),
                (Some(value), false) => {
                    let _ = write!(line, "{:.4}", f64::from(*value) / 1e4);
                }
                (None, false) => {}
            }
        }
        line.push('\n');
        let written = self.out.write_all(line.as_bytes());
        self.line = line;
        written
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
            OutputFormat::Matrix => {
                self.matrix.column(query)?;
            }
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
            OutputFormat::Matrix => self.write_matrix()?,
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

    /// An index of one block holding documents `a` and `b`.
    fn index() -> Index {
        let layout = CompactLayout {
            k: 31,
            canonical: true,
            num_hashes: 1,
            page_size: 8,
            block_rows: vec![1],
            rows: crate::format::RowLayout::Cobs,
        };
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
            "query\tdocument\tkmers_found\tkmers_total\tfraction\tidentity\tstatus\nq\tb\t9\t10\t0.9000\t0.9966\thit\n"
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
                "found\ta\t10\t10\t1.0000\t1.0000\thit",
                "absent\tNA\tNA\t10\tNA\tNA\tno_hit",
                "tiny\tNA\tNA\t0\tNA\tNA\tskipped_too_short",
                "protein\tNA\tNA\tNA\tNA\tNA\tskipped_not_dna",
            ]
        );
    }

    #[test]
    fn json_records_provenance_status_and_metadata() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tsv");
        std::fs::write(&path, "document\tspecies\nb\tE. coli\n").unwrap();
        let metadata = Metadata::load(&path).unwrap();
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
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tsv");
        std::fs::write(&path, "document\tspecies\tcountry\nb\tE. coli\tUK\n").unwrap();
        let metadata = Metadata::load(&path).unwrap();
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
            "query\tdocument\tkmers_found\tkmers_total\tfraction\tidentity\tstatus\tspecies\tcountry\n\
             q\tb\t9\t10\t0.9000\t0.9966\thit\tE. coli\tUK\n\
             q\ta\t8\t10\t0.8000\t0.9928\thit\t\t\n\
             r\tNA\tNA\t10\tNA\tNA\tno_hit\t\t\n"
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
