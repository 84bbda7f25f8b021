//! Finding index files: files as given, directories scanned recursively for `.cobs_compact`
//! and `.cobs_classic` files (sorted by path, so zero-padded batch names keep their order),
//! and list files with one path per line.

use std::path::{Path, PathBuf};

use crate::walk::{read_list, walk, Visit};

/// File name extensions of COBS indexes.
pub const INDEX_EXTENSIONS: &[&str] = &["cobs_compact", "cobs_classic"];

/// Expands `paths` and the paths listed in `lists` into index files, in order. A list's lines
/// are paths relative to the list's folder; empty lines and `#` comments are skipped.
pub fn index_files(paths: &[PathBuf], lists: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for path in paths {
        add(path, &mut files)?;
    }
    for list in lists {
        let listed = read_list(list)
            .map_err(|e| format!("{}: cannot read index list: {e}", list.display()))?;
        let before = files.len();
        for entry in &listed {
            add(entry, &mut files)?;
        }
        if files.len() == before {
            return Err(format!("{}: the index list names no index", list.display()));
        }
    }
    if files.is_empty() {
        return Err(
            "no index given: pass -i INDEX (a file or a directory of indexes) or --index-list FILE"
                .into(),
        );
    }
    Ok(files)
}

/// Whether `path` has an index file's extension.
pub fn has_index_extension(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| INDEX_EXTENSIONS.contains(&e.to_string_lossy().as_ref()))
}

fn add(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), String> {
    if !path.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let found = walk(path, &mut |entry, _| {
        if entry.is_dir() {
            Visit::Descend
        } else if has_index_extension(entry) {
            Visit::Take
        } else {
            Visit::Skip
        }
    })
    .map_err(|e| format!("{}: cannot list directory: {}", e.path.display(), e.source))?;
    if found.is_empty() {
        return Err(format!(
            "{}: directory holds no .cobs_compact or .cobs_classic files",
            path.display()
        ));
    }
    files.extend(found);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_and_lists() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("batches")).unwrap();
        for name in [
            "batch_002.cobs_classic",
            "batch_001.cobs_classic",
            "notes.txt",
        ] {
            std::fs::write(root.join("batches").join(name), b"").unwrap();
        }
        let found = index_files(&[root.join("batches")], &[]).unwrap();
        assert_eq!(
            found,
            vec![
                root.join("batches/batch_001.cobs_classic"),
                root.join("batches/batch_002.cobs_classic")
            ]
        );
        std::fs::write(
            root.join("list.txt"),
            "# two\nbatches/batch_002.cobs_classic\n\nbatches/batch_001.cobs_classic\n",
        )
        .unwrap();
        let listed = index_files(&[], &[root.join("list.txt")]).unwrap();
        assert_eq!(
            listed,
            vec![
                root.join("batches/batch_002.cobs_classic"),
                root.join("batches/batch_001.cobs_classic")
            ]
        );
        assert!(index_files(&[], &[])
            .unwrap_err()
            .contains("no index given"));
        std::fs::create_dir(root.join("empty")).unwrap();
        assert!(index_files(&[root.join("empty")], &[])
            .unwrap_err()
            .contains("holds no .cobs_compact"));
    }
}
