//! `remove`: hides documents at once by recording tombstones in the manifest. The files are
//! not touched; a later merge drops the documents from them.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use super::clean::clean;
use super::lock::WriterLock;
use super::manifest::Manifest;
use super::{crash, CollectionError, NAMES_SHOWN_MAX};

/// What to remove.
#[derive(Clone, Debug)]
pub struct RemoveOptions {
    /// The collection.
    pub directory: PathBuf,
    /// Document names.
    pub names: Vec<String>,
    /// Skip names the collection does not show instead of refusing.
    pub ignore_missing: bool,
}

/// What `remove` did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RemoveReport {
    /// Documents hidden (a name shown by several sub-indexes counts for each).
    pub removed: u64,
    /// Names not found (with `ignore_missing`).
    pub missing: Vec<String>,
    /// The manifest's generation after the commit.
    pub generation: u64,
}

/// Hides `options.names`; every document of such a name that the collection shows is hidden.
pub fn remove(options: &RemoveOptions) -> Result<RemoveReport, CollectionError> {
    let directory = &options.directory;
    super::manifest_file::require_manifest(directory)?;
    let _lock = WriterLock::acquire(directory)?;
    let mut manifest = Manifest::load_for_writing(directory)?;
    clean(directory, Some(&manifest))?;
    let wanted: HashSet<&str> = options.names.iter().map(String::as_str).collect();
    let mut found: HashMap<&str, u64> = HashMap::new();
    let mut additions: Vec<Vec<String>> = Vec::with_capacity(manifest.subindexes.len());
    for sub in &manifest.subindexes {
        let mut hide = Vec::new();
        let shown: HashSet<&str> = sub.visible_names().collect();
        for name in shown {
            if wanted.contains(name) {
                let count = sub
                    .documents
                    .iter()
                    .filter(|document| document.as_str() == name)
                    .count() as u64;
                *found.entry(name).or_default() += count;
                hide.push(name.to_string());
            }
        }
        hide.sort();
        additions.push(hide);
    }
    let mut missing: Vec<String> = options
        .names
        .iter()
        .filter(|name| !found.contains_key(name.as_str()))
        .cloned()
        .collect();
    missing.sort();
    missing.dedup();
    if !missing.is_empty() && !options.ignore_missing {
        return Err(CollectionError::UnknownDocuments {
            path: directory.clone(),
            count: missing.len(),
            names: missing.into_iter().take(NAMES_SHOWN_MAX).collect(),
        });
    }
    let removed = found.values().sum();
    if removed == 0 {
        return Ok(RemoveReport {
            removed,
            missing,
            generation: manifest.generation,
        });
    }
    for (sub, hide) in manifest.subindexes.iter_mut().zip(additions) {
        sub.hidden.extend(hide);
        sub.hidden.sort();
        sub.hidden.dedup();
    }
    crash::point("remove-registering");
    manifest.commit(directory)?;
    Ok(RemoveReport {
        removed,
        missing,
        generation: manifest.generation,
    })
}
