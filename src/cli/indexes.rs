//! The index files of `query` and `serve`: files, directories and list files expanded in
//! order, with an index named twice (by any path) searched once.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Result;

/// Expands `paths` and `lists` into index files, dropping repeats of the same file (same
/// canonical path) with a warning: searching an index twice would report every hit twice.
pub fn index_paths(paths: &[PathBuf], lists: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let files = bitsift::format::index_files(paths, lists).map_err(anyhow::Error::msg)?;
    let mut seen: HashMap<PathBuf, usize> = HashMap::with_capacity(files.len());
    let mut unique: Vec<PathBuf> = Vec::with_capacity(files.len());
    for file in files {
        // A missing file keeps its own path; opening it reports the problem.
        let key = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if let Some(&first) = seen.get(&key) {
            tracing::warn!(
                "{}: the same index as {}; it is searched once",
                file.display(),
                unique[first].display()
            );
            continue;
        }
        seen.insert(key, unique.len());
        unique.push(file);
    }
    Ok(unique)
}
