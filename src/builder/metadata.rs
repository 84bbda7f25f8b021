//! The metadata table of `--order group:COLUMN`: a TSV file whose header names the columns
//! and whose first column holds document names as the index will store them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::BuildError;

/// One column of a metadata table, by document name.
#[derive(Debug)]
pub struct GroupColumn {
    /// The table.
    pub path: PathBuf,
    values: HashMap<String, String>,
}

impl GroupColumn {
    /// Reads column `column` of the TSV at `path`. Refuses an unknown column (naming those
    /// present) and a document listed twice with different values.
    pub fn load(path: &Path, column: &str) -> Result<GroupColumn, BuildError> {
        let input = |detail: String| BuildError::Input {
            path: path.to_path_buf(),
            detail,
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| input(format!("cannot read the metadata table: {e}")))?;
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, header) = lines
            .next()
            .ok_or_else(|| input("the metadata table is empty; expected a header line".into()))?;
        let columns: Vec<&str> = header.split('\t').map(str::trim).collect();
        let at = columns
            .iter()
            .skip(1)
            .position(|c| *c == column)
            .map(|i| i + 1)
            .ok_or_else(|| {
                input(format!(
                    "no column {column:?}; the columns after the document name are {:?}",
                    &columns[1.min(columns.len())..]
                ))
            })?;
        let mut values = HashMap::new();
        for (number, line) in lines {
            let cells: Vec<&str> = line.split('\t').collect();
            let name = cells[0].trim_end_matches('\r').to_string();
            let value = cells.get(at).map_or("", |v| v.trim_end_matches('\r'));
            if let Some(before) = values.insert(name.clone(), value.to_string()) {
                if before != value {
                    return Err(input(format!(
                        "line {}: document {name:?} is listed again with {column} {value:?} (before: {before:?})",
                        number + 1
                    )));
                }
            }
        }
        Ok(GroupColumn {
            path: path.to_path_buf(),
            values,
        })
    }

    /// The value of `document`, if listed.
    pub fn get(&self, document: &str) -> Option<&str> {
        self.values.get(document).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_one_column_and_refuses_what_is_ambiguous() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tsv");
        std::fs::write(
            &path,
            "document\tspecies\tclade\r\nA\tsp1\tc1\r\nB\tsp2\n\nC\tsp1\tc2\nA\tsp1\tc1\n",
        )
        .unwrap();
        let species = GroupColumn::load(&path, "species").unwrap();
        assert_eq!(species.get("A"), Some("sp1"));
        assert_eq!(species.get("C"), Some("sp1"));
        assert_eq!(species.get("D"), None);
        let clade = GroupColumn::load(&path, "clade").unwrap();
        assert_eq!(clade.get("A"), Some("c1"));
        assert_eq!(clade.get("B"), Some(""));
        let unknown = GroupColumn::load(&path, "country").unwrap_err().to_string();
        assert!(
            unknown.contains("no column \"country\"") && unknown.contains("\"species\""),
            "{unknown}"
        );
        let document = GroupColumn::load(&path, "document")
            .unwrap_err()
            .to_string();
        assert!(document.contains("no column"), "{document}");
        std::fs::write(&path, "document\tspecies\nA\tsp1\nA\tsp2\n").unwrap();
        let twice = GroupColumn::load(&path, "species").unwrap_err().to_string();
        assert!(
            twice.contains("line 3: document \"A\" is listed again"),
            "{twice}"
        );
        std::fs::write(&path, "").unwrap();
        assert!(GroupColumn::load(&path, "species")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        let missing = GroupColumn::load(&dir.path().join("nope.tsv"), "species")
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("nope.tsv: cannot read the metadata table"),
            "{missing}"
        );
    }
}
