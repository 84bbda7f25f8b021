//! Finding index files: files as given, directories scanned recursively for `.cobs_compact`
//! and `.cobs_classic` files (sorted by path, so zero-padded batch names keep their order),
//! and list files with one path per line.

use std::path::{Path, PathBuf};

use crate::walk::{read_list, walk, Visit};
use crate::IoAt;

/// File name extensions of COBS indexes.
pub(crate) const INDEX_EXTENSIONS: &[&str] = &["cobs_compact", "cobs_classic"];

/// Expands `paths` and the paths listed in `lists` into index files, in order. A list's lines
/// are paths relative to the list's folder; empty lines and `#` comments are skipped.
pub fn index_files(paths: &[PathBuf], lists: &[PathBuf]) -> Result<Vec<PathBuf>, DiscoverError> {
    let mut files = Vec::new();
    for path in paths {
        add(path, &mut files)?;
    }
    for list in lists {
        let listed = read_list(list).map_err(IoAt::with(list, "cannot read index list"))?;
        let before = files.len();
        for entry in &listed {
            add(entry, &mut files)?;
        }
        if files.len() == before {
            return Err(DiscoverError::EmptyList(list.clone()));
        }
    }
    if files.is_empty() {
        return Err(DiscoverError::NoIndex);
    }
    Ok(files)
}

/// Why index files could not be found.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// A list or a directory could not be read.
    #[error(transparent)]
    Io(#[from] IoAt),
    /// A list file that names no index.
    #[error("{}: the index list names no index", .0.display())]
    EmptyList(PathBuf),
    /// A directory that holds no index file.
    #[error("{}: directory holds no .cobs_compact or .cobs_classic files", .0.display())]
    EmptyDirectory(PathBuf),
    /// Neither a path nor a list was given.
    #[error("no index given: name an index file, a directory of indexes or a list of them")]
    NoIndex,
}

/// What a search of a directory for index files does with `entry`: descends into
/// directories, takes index files, skips anything else.
pub(crate) fn index_visit(entry: &Path) -> Visit {
    if entry.is_dir() {
        Visit::Descend
    } else if has_index_extension(entry) {
        Visit::Take
    } else {
        Visit::Skip
    }
}

/// Whether `path` has an index file's extension.
pub(crate) fn has_index_extension(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| INDEX_EXTENSIONS.contains(&e.to_string_lossy().as_ref()))
}

fn add(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), DiscoverError> {
    if !path.is_dir() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let found = walk(path, &mut |entry, _| index_visit(entry))?;
    if found.is_empty() {
        return Err(DiscoverError::EmptyDirectory(path.to_path_buf()));
    }
    files.extend(found);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_and_lists() {
        let files = [
            "batches/batch_002.cobs_classic",
            "batches/batch_001.cobs_classic",
            "batches/notes.txt",
        ];
        let dir = crate::testing::tree(&files, b"");
        let root = dir.path();
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
            .to_string()
            .contains("no index given"));
        std::fs::create_dir(root.join("empty")).unwrap();
        assert!(index_files(&[root.join("empty")], &[])
            .unwrap_err()
            .to_string()
            .contains("holds no .cobs_compact"));
    }
}
