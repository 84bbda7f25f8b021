//! Document metadata from a TSV file keyed by document name, joined to hits by `bitsift
//! query --metadata` and `bitsift serve --metadata`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Why a metadata file could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {detail}", path = path.display())]
pub struct MetadataError {
    /// The metadata file.
    pub path: PathBuf,
    /// What is wrong, and what to do.
    pub detail: String,
}

/// Metadata columns per document name.
#[derive(Debug, Default)]
pub struct Metadata {
    columns: Vec<String>,
    rows: HashMap<String, Vec<String>>,
}

impl Metadata {
    /// Reads a TSV whose header names the columns and whose first column holds document
    /// names (as in the index). Lines with fewer cells are padded with empty values; Windows
    /// line ends are accepted. A document listed twice with the same values is kept once;
    /// with other values it is refused, naming the line.
    pub fn load(path: &Path) -> Result<Metadata, MetadataError> {
        let error = |detail: String| MetadataError {
            path: path.to_path_buf(),
            detail,
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| error(format!("cannot read the metadata table: {e}")))?;
        let mut lines = text
            .lines()
            .map(|l| l.trim_end_matches('\r'))
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines
            .next()
            .ok_or_else(|| error("the metadata table is empty; expected a header line".into()))?;
        let columns: Vec<String> = header.split('\t').skip(1).map(str::to_string).collect();
        if columns.is_empty() {
            return Err(error(
                "the header has one column; expected the document name then metadata columns, separated by tabs".into(),
            ));
        }
        let mut rows: HashMap<String, Vec<String>> = HashMap::new();
        for (number, line) in lines {
            let mut cells = line.split('\t');
            let name = cells.next().unwrap_or_default().to_string();
            let mut values: Vec<String> = cells.map(str::to_string).collect();
            values.resize(columns.len(), String::new());
            match rows.get(&name) {
                Some(before) if *before != values => {
                    return Err(error(format!(
                        "line {}: document {name:?} is listed again with other values ({:?}, before: {:?})",
                        number + 1,
                        values,
                        before
                    )));
                }
                Some(_) => {}
                None => {
                    rows.insert(name, values);
                }
            }
        }
        Ok(Metadata { columns, rows })
    }

    /// The position of column `name` among [`Metadata::columns`].
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.trim() == name)
    }

    /// Column names (without the key column).
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The values for `document`, if listed.
    pub fn get(&self, document: &str) -> Option<&[String]> {
        self.rows.get(document).map(Vec::as_slice)
    }

    /// Every document with its values, in no particular order.
    pub fn rows(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.rows.iter().map(|(n, v)| (n.as_str(), v.as_slice()))
    }

    /// Documents listed.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether nothing is listed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_looks_up() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tsv");
        std::fs::write(
            &path,
            "document\tspecies\tcountry\nA\tE. coli\tUK\nB\tK. pneumoniae\n",
        )
        .unwrap();
        let metadata = Metadata::load(&path).unwrap();
        assert_eq!(metadata.columns(), ["species", "country"]);
        assert_eq!(metadata.get("A").unwrap(), ["E. coli", "UK"]);
        assert_eq!(metadata.get("B").unwrap(), ["K. pneumoniae", ""]);
        assert!(metadata.get("C").is_none());
        std::fs::write(&path, "").unwrap();
        let empty = Metadata::load(&path).unwrap_err().to_string();
        assert!(empty.ends_with("m.tsv: the metadata table is empty; expected a header line"));
        std::fs::write(&path, "document\n").unwrap();
        let one = Metadata::load(&path).unwrap_err().to_string();
        assert!(one.contains("m.tsv: the header has one column"), "{one}");
    }
}
