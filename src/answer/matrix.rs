//! The presence matrix (`--format matrix`): a header of the queries, then one line per
//! document that is a hit of at least one query, in index order, with the fraction of each
//! query's k-mers it holds (corrected for false positives when the search corrected it;
//! empty: not a hit), or with `presence` 1 and 0. Queries answer in
//! query order and the matrix is written in document order, so the cells are gathered in
//! bounded memory until the run ends ([`super::cells`]).

use std::fmt::Write as _;
use std::io::{self, Write};

use super::cells::{self, Cell, MatrixCells};
use crate::query::{fraction, Index, QueryResult};
use crate::tsv;

/// The hits of a matrix, gathered until the run ends.
pub(super) struct Matrix {
    queries: Vec<String>,
    /// The first document number of each file (documents are numbered across files).
    first: Vec<u64>,
    cells: Option<MatrixCells>,
}

impl Matrix {
    /// An empty matrix of the documents of `index`.
    pub(super) fn new(index: &Index) -> Matrix {
        let mut first = Vec::with_capacity(index.headers().len());
        let mut next = 0;
        for header in index.headers() {
            first.push(next);
            next += header.document_count();
        }
        Matrix {
            queries: Vec::new(),
            first,
            cells: Some(MatrixCells::new(cells::BUDGET_DEFAULT)),
        }
    }

    /// A new column for `query`.
    fn column(&mut self, query: &str) -> io::Result<u32> {
        let column = self.queries.len() as u32;
        if column > cells::COLUMNS_MAX {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a matrix holds at most {} queries; split the query file",
                    cells::COLUMNS_MAX + 1
                ),
            ));
        }
        self.queries.push(query.to_string());
        Ok(column)
    }

    /// An empty column for `query`, which was not searched.
    pub(super) fn skip(&mut self, query: &str) -> io::Result<()> {
        self.column(query).map(|_| ())
    }

    /// Gathers the hits of `query`, answered by `result`, in a column of its own.
    pub(super) fn add(&mut self, query: &str, result: &QueryResult) -> io::Result<()> {
        let column = self.column(query)?;
        let Some(cells) = self.cells.as_mut() else {
            return Ok(());
        };
        for (i, hit) in result.hits.iter().enumerate() {
            let total = result.kmers_total[hit.index as usize];
            let number = self.first[hit.index as usize] + hit.document;
            let value = result
                .corrected
                .get(i)
                .map_or_else(|| fraction(hit.kmers_found, total), |c| c.containment);
            cells.push(Cell {
                document: u32::try_from(number).expect("fewer than 2^32 documents"),
                column,
                value: (value * 1e4).round() as u16,
            })?;
        }
        Ok(())
    }

    /// The (file, document) of document number `number`.
    fn locate(&self, number: u32) -> (u32, u64) {
        let file = self.first.partition_point(|&f| f <= u64::from(number)) - 1;
        (file as u32, u64::from(number) - self.first[file])
    }

    /// Writes the matrix to `out`: documents of `index` in index order (each with its
    /// index's name when `labelled`), one column per query; a cell is the fraction of a hit
    /// (empty: not a hit), or with `presence` 1 and 0.
    pub(super) fn write(
        &mut self,
        out: &mut impl Write,
        index: &Index,
        labelled: bool,
        presence: bool,
    ) -> io::Result<()> {
        let mut header = String::from("document");
        if labelled {
            header.push_str("\tindex");
        }
        for query in &self.queries {
            header.push('\t');
            tsv::push_field(&mut header, query);
        }
        writeln!(out, "{header}")?;
        let Some(cells) = self.cells.take() else {
            return Ok(());
        };
        let mut sorted = cells.finish()?;
        let mut row: Vec<Option<u16>> = vec![None; self.queries.len()];
        let mut line = String::new();
        let mut next = sorted.next_cell()?;
        while let Some(first) = next {
            row.iter_mut().for_each(|c| *c = None);
            let document = first.document;
            next = Some(first);
            while let Some(cell) = next.filter(|c| c.document == document) {
                row[cell.column as usize] = Some(cell.value);
                next = sorted.next_cell()?;
            }
            let (file, document) = self.locate(document);
            line.clear();
            let name = index
                .document_name(file, document)
                .map_err(io::Error::other)?;
            tsv::push_field(&mut line, name);
            if labelled {
                line.push('\t');
                tsv::push_field(&mut line, index.source_name(file));
            }
            push_cells(&mut line, &row, presence);
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }
}

/// Appends the cells of a line and its end.
fn push_cells(line: &mut String, row: &[Option<u16>], presence: bool) {
    for cell in row {
        line.push('\t');
        match (cell, presence) {
            (Some(_), true) => line.push('1'),
            (None, true) => line.push('0'),
            (Some(value), false) => {
                let _ = write!(line, "{:.4}", f64::from(*value) / 1e4);
            }
            (None, false) => {}
        }
    }
    line.push('\n');
}
