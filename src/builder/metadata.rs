//! The metadata table of `--order group:COLUMN`: a TSV file whose header names the columns
//! and whose first column holds document names as the index will store them.

use std::path::{Path, PathBuf};

use super::BuildError;
use crate::metadata::Metadata;

/// One column of a metadata table, by document name.
#[derive(Debug)]
pub(crate) struct GroupColumn {
    /// The table.
    pub path: PathBuf,
    /// The table, read for that column alone.
    table: Metadata,
}

impl GroupColumn {
    /// Reads column `column` of the TSV at `path` (see [`Metadata::load_column`]). Refuses
    /// an unknown column, naming those present.
    pub(crate) fn load(path: &Path, column: &str) -> Result<GroupColumn, BuildError> {
        let table = Metadata::load_column(path, column).map_err(|e| BuildError::Input {
            path: path.to_path_buf(),
            detail: e.detail(),
        })?;
        Ok(GroupColumn {
            path: path.to_path_buf(),
            table,
        })
    }

    /// The value of `document`, if listed.
    pub(crate) fn get(&self, document: &str) -> Option<&str> {
        self.table.get(document).map(|row| row.cell(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_one_column_and_refuses_what_is_ambiguous() {
        let (dir, path) = crate::testing::file_with(
            "m.tsv",
            "document\tspecies\tclade\r\nA\tsp1\tc1\r\nB\tsp2\n\nC\tsp1\tc2\nA\tsp1\tc1\n",
        );
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
            twice.contains("line 3: document \"A\" is listed again with other values"),
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
