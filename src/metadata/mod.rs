//! Document metadata from a TSV file keyed by document name, joined to hits by `bitsift
//! query --metadata` and `bitsift serve --metadata`.
//!
//! A table is held in memory in proportion to the columns kept, not to its size as parsed
//! strings (issue 30: a 43 MB table cost 389 MB as a map of strings): each row's name and
//! kept cells as one stretch of text, one offset a row, and a hash table of row numbers
//! ([`lookup`]). A table read for one column ([`Metadata::load_column`]: `--group-by` alone,
//! `build --order group:COLUMN`) keeps only the names and that column. The file is read a
//! line at a time, never whole.
//!
//! An empty cell is no value: a document the table lists with an empty cell and one it does
//! not list at all both have no value in that column.

mod lookup;

use std::io::BufRead;
use std::path::{Path, PathBuf};

use lookup::NameLookup;

/// Why a metadata file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum MetadataError {
    /// The file cannot be read, or is not a table of one line per document.
    #[error("{path}: {detail}", path = path.display())]
    Invalid {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong, and what to do.
        detail: String,
    },
    /// The column asked for is not in the table.
    #[error("{path}: no column {column:?}; the columns after the document name are {columns:?}", path = path.display())]
    NoColumn {
        /// The metadata file.
        path: PathBuf,
        /// The column asked for.
        column: String,
        /// The columns of the table, after the document name.
        columns: Vec<String>,
    },
}

impl MetadataError {
    /// What is wrong, without the path.
    pub(crate) fn detail(&self) -> String {
        match self {
            MetadataError::Invalid { detail, .. } => detail.clone(),
            MetadataError::NoColumn {
                column, columns, ..
            } => {
                format!("no column {column:?}; the columns after the document name are {columns:?}")
            }
        }
    }
}

/// Metadata columns per document name.
#[derive(Debug, Default)]
pub struct Metadata {
    /// The names of the columns kept (without the key column).
    columns: Vec<String>,
    /// Every row: its name, then a tab and a cell for each kept column.
    text: String,
    /// Where each row starts in `text`, and one more for the end.
    starts: Vec<usize>,
    /// Row numbers by name.
    lookup: NameLookup,
}

/// The cells of one document, one per kept column.
#[derive(Clone, Copy, Debug)]
pub struct Row<'a> {
    /// The cells, separated by tabs.
    cells: &'a str,
}

impl<'a> Row<'a> {
    /// The cells in column order.
    pub(crate) fn cells(self) -> impl Iterator<Item = &'a str> {
        self.cells.split('\t')
    }

    /// The cell of column `column` (empty past the last column).
    pub(crate) fn cell(self, column: usize) -> &'a str {
        self.cells().nth(column).unwrap_or_default()
    }
}

impl Metadata {
    /// Reads a TSV whose header names the columns and whose first column holds document
    /// names (as in the index); `-` is standard input. Lines with fewer cells are padded
    /// with empty values; Windows line ends are accepted. A document listed twice with the
    /// same values is kept once; with other values it is refused, naming the line.
    pub fn load(path: &Path) -> Result<Metadata, MetadataError> {
        Metadata::read(path, None)
    }

    /// As [`Metadata::load`], keeping only column `column` (the other cells are not held,
    /// nor compared between two lines of a document). Refuses an unknown column, naming
    /// those present.
    pub fn load_column(path: &Path, column: &str) -> Result<Metadata, MetadataError> {
        Metadata::read(path, Some(column))
    }

    fn read(path: &Path, only: Option<&str>) -> Result<Metadata, MetadataError> {
        let error = |detail: String| MetadataError::Invalid {
            path: path.to_path_buf(),
            detail,
        };
        let file = crate::walk::open_input(path)
            .map_err(|e| error(format!("cannot read the metadata table: {e}")))?;
        let mut lines = Lines::new(std::io::BufReader::new(file));
        let (_, header) = lines
            .next_line()
            .map_err(|e| error(e.to_string()))?
            .ok_or_else(|| error("the metadata table is empty; expected a header line".into()))?;
        let all: Vec<String> = header.split('\t').skip(1).map(str::to_string).collect();
        if all.is_empty() {
            return Err(error(
                "the header has one column; expected the document name then metadata columns, separated by tabs".into(),
            ));
        }
        let keep = match only {
            None => (0..all.len()).collect(),
            Some(name) => vec![all.iter().position(|c| c.trim() == name).ok_or_else(|| {
                MetadataError::NoColumn {
                    path: path.to_path_buf(),
                    column: name.to_string(),
                    columns: all.clone(),
                }
            })?],
        };
        let mut table = Metadata {
            columns: keep.iter().map(|&c| all[c].clone()).collect(),
            text: String::new(),
            starts: vec![0],
            lookup: NameLookup::default(),
        };
        while let Some((number, line)) = lines.next_line().map_err(|e| error(e.to_string()))? {
            table
                .add(line, &keep, number)
                .map_err(|e| error(e.to_string()))?;
        }
        table.text.shrink_to_fit();
        table.starts.shrink_to_fit();
        Ok(table)
    }

    /// Adds the line numbered `number` (from 1), keeping the cells `keep`; a document seen
    /// before must have the same cells.
    fn add(&mut self, line: &str, keep: &[usize], number: usize) -> Result<(), LineError> {
        let start = self.text.len();
        let mut cells = line.split('\t');
        let name = cells.next().unwrap_or_default();
        self.text.push_str(name);
        let cells: Vec<&str> = cells.collect();
        for &column in keep {
            self.text.push('\t');
            self.text
                .push_str(cells.get(column).copied().unwrap_or_default());
        }
        let text = &self.text;
        let starts = &self.starts;
        let name_of = |row: u32| name_in(text, starts, row);
        if let Some(before) = self.lookup.find(name, name_of) {
            let new = Row {
                cells: &self.text[start + name.len() + 1..],
            };
            let old = self.row(before);
            if new.cells != old.cells {
                return Err(LineError::Conflict {
                    line: number,
                    name: name.to_string(),
                    new: new.cells().map(str::to_string).collect(),
                    old: old.cells().map(str::to_string).collect(),
                });
            }
            self.text.truncate(start);
            return Ok(());
        }
        let row = u32::try_from(self.starts.len() - 1).map_err(|_| LineError::TooMany)?;
        self.starts.push(self.text.len());
        let (text, starts) = (&self.text, &self.starts);
        let name = name_in(text, starts, row);
        self.lookup
            .insert(name, row, |row| name_in(text, starts, row));
        Ok(())
    }

    fn row(&self, row: u32) -> Row<'_> {
        let text = &self.text[self.starts[row as usize]..self.starts[row as usize + 1]];
        let cells = text.split_once('\t').map_or("", |(_, cells)| cells);
        Row { cells }
    }

    /// The position of column `name` among [`Metadata::columns`].
    pub(crate) fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.trim() == name)
    }

    /// Column names (without the key column).
    pub(crate) fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The values for `document`, if listed.
    pub fn get(&self, document: &str) -> Option<Row<'_>> {
        let name_of = |row: u32| name_in(&self.text, &self.starts, row);
        self.lookup.find(document, name_of).map(|row| self.row(row))
    }

    /// Every document with its values, in the table's order.
    #[cfg(test)]
    pub(crate) fn rows(&self) -> impl Iterator<Item = (&str, Row<'_>)> {
        (0..self.len() as u32).map(|row| (name_in(&self.text, &self.starts, row), self.row(row)))
    }

    /// Documents listed.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Whether nothing is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The name of row `row`: its text up to the first tab.
fn name_in<'a>(text: &'a str, starts: &[usize], row: u32) -> &'a str {
    let row = &text[starts[row as usize]..starts[row as usize + 1]];
    row.split_once('\t').map_or(row, |(name, _)| name)
}

/// The lines of a table that hold something (blank ones skipped), without their line ends,
/// one at a time.
struct Lines<R> {
    reader: R,
    buffer: Vec<u8>,
    line: String,
    /// The number of the last line read.
    number: usize,
}

impl<R: BufRead> Lines<R> {
    fn new(reader: R) -> Lines<R> {
        Lines {
            reader,
            buffer: Vec::new(),
            line: String::new(),
            number: 0,
        }
    }

    /// The next line that is not blank, with its number (from 1), or `None` at the end.
    fn next_line(&mut self) -> Result<Option<(usize, &str)>, LineError> {
        loop {
            self.buffer.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut self.buffer)
                .map_err(LineError::Read)?;
            if read == 0 {
                return Ok(None);
            }
            self.number += 1;
            let text = std::str::from_utf8(&self.buffer)
                .map_err(|_| LineError::NotUtf8 { line: self.number })?;
            let text = text.strip_suffix('\n').unwrap_or(text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            if !text.trim().is_empty() {
                self.line.clear();
                self.line.push_str(text);
                return Ok(Some((self.number, &self.line)));
            }
        }
    }
}

/// What is wrong with a line of the table (said after the table's path).
#[derive(Debug, thiserror::Error)]
enum LineError {
    /// The table could not be read.
    #[error("cannot read the metadata table: {0}")]
    Read(std::io::Error),
    /// A line that is not UTF-8.
    #[error("line {line}: not UTF-8 text; save the table as UTF-8")]
    NotUtf8 {
        /// Its number, from 1.
        line: usize,
    },
    /// A document listed twice with different cells.
    #[error("line {line}: document {name:?} is listed again with other values ({new:?}, before: {old:?})")]
    Conflict {
        /// The line listing it again.
        line: usize,
        /// The document.
        name: String,
        /// Its cells on that line.
        new: Vec<String>,
        /// Its cells before.
        old: Vec<String>,
    },
    /// More documents than rows can be numbered.
    #[error("the metadata table lists more than 4,294,967,295 documents")]
    TooMany,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(row: Option<Row<'_>>) -> Vec<&str> {
        row.unwrap().cells().collect()
    }

    #[test]
    fn loads_and_looks_up() {
        let (_dir, path) = crate::testing::file_with(
            "m.tsv",
            "document\tspecies\tcountry\r\nA\tE. coli\tUK\n\nB\tK. pneumoniae\nA\tE. coli\tUK\n",
        );
        let metadata = Metadata::load(&path).unwrap();
        assert_eq!(metadata.columns(), ["species", "country"]);
        assert_eq!(cells(metadata.get("A")), ["E. coli", "UK"]);
        assert_eq!(cells(metadata.get("B")), ["K. pneumoniae", ""]);
        assert_eq!(metadata.get("B").unwrap().cell(1), "");
        assert!(metadata.get("C").is_none());
        assert_eq!(metadata.len(), 2, "a line repeated is kept once");
        let names: Vec<&str> = metadata.rows().map(|(name, _)| name).collect();
        assert_eq!(names, ["A", "B"]);

        let country = Metadata::load_column(&path, "country").unwrap();
        assert_eq!(country.columns(), ["country"]);
        assert_eq!(cells(country.get("A")), ["UK"]);
        assert_eq!(cells(country.get("B")), [""]);
        let unknown = Metadata::load_column(&path, "host")
            .unwrap_err()
            .to_string();
        assert!(
            unknown.contains("no column \"host\"") && unknown.contains("\"country\""),
            "{unknown}"
        );

        std::fs::write(&path, "").unwrap();
        let empty = Metadata::load(&path).unwrap_err().to_string();
        assert!(empty.ends_with("m.tsv: the metadata table is empty; expected a header line"));
        std::fs::write(&path, "document\n").unwrap();
        let one = Metadata::load(&path).unwrap_err().to_string();
        assert!(one.contains("m.tsv: the header has one column"), "{one}");
    }

    #[test]
    fn a_document_listed_again_must_keep_its_values_in_the_columns_kept() {
        let (_dir, path) = crate::testing::file_with(
            "m.tsv",
            "document\tspecies\tclade\nA\tsp1\tc1\nA\tsp1\tc2\n",
        );
        let twice = Metadata::load(&path).unwrap_err().to_string();
        assert!(
            twice.contains("line 3: document \"A\" is listed again with other values ([\"sp1\", \"c2\"], before: [\"sp1\", \"c1\"])"),
            "{twice}"
        );
        let species = Metadata::load_column(&path, "species").unwrap();
        assert_eq!(cells(species.get("A")), ["sp1"]);
        std::fs::write(&path, b"document\tspecies\nA\t\xff\n").unwrap();
        let bytes = Metadata::load(&path).unwrap_err().to_string();
        assert!(bytes.contains("line 2: not UTF-8"), "{bytes}");
    }
}
