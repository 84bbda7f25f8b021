//! Removing what a killed writer left behind: files named like sub-indexes (and their sidecars
//! and temporaries) that the manifest does not list. Readers never open them; the next writer,
//! holding the lock, deletes them.

use std::collections::HashSet;
use std::path::Path;

use super::manifest::Manifest;
use super::names::{classify, is_subindex_file, Entry};
use super::CollectionError;

/// Deletes sub-index files, sidecars and temporaries in `directory` that `manifest` does not
/// list. Call it holding the writer lock. Without a manifest (a new collection) it deletes
/// only temporaries, and refuses a directory that holds sub-index files: they belong to a
/// collection whose manifest is lost ([`CollectionError::ManifestLost`]), and deleting them
/// would lose its genomes. Returns the names removed.
pub(crate) fn clean(
    directory: &Path,
    manifest: Option<&Manifest>,
) -> Result<Vec<String>, CollectionError> {
    let names = entry_names(directory)?;
    if manifest.is_none() && names.iter().any(|name| is_subindex_file(name)) {
        return Err(super::manifest_file::missing(directory));
    }
    let listed: HashSet<&str> = manifest.map(Manifest::files).unwrap_or_default();
    let mut removed = Vec::new();
    for name in names {
        let stale = match classify(&name) {
            Entry::Temporary => true,
            Entry::SubIndex { base } => !listed.contains(base),
            Entry::Own | Entry::Foreign => false,
        };
        if stale {
            let path = directory.join(&name);
            std::fs::remove_file(&path)
                .map_err(CollectionError::io(&path, "cannot remove a leftover file"))?;
            tracing::info!(
                "{}: removed {name}, left by an interrupted writer",
                directory.display()
            );
            removed.push(name);
        }
    }
    Ok(removed)
}

/// Files in `directory` that `manifest` does not account for (not the manifest, the lock, a
/// listed sub-index or a sidecar of one), in name order, each with whether it is what an
/// interrupted writer leaves (which the next writer removes) rather than someone else's file.
pub(crate) fn unlisted(
    directory: &Path,
    manifest: &Manifest,
) -> Result<Vec<(String, bool)>, CollectionError> {
    let listed = manifest.files();
    Ok(entry_names(directory)?
        .into_iter()
        .filter_map(|name| {
            let leftover = match classify(&name) {
                Entry::Own => return None,
                Entry::SubIndex { base } if listed.contains(base) => return None,
                Entry::SubIndex { .. } | Entry::Temporary => true,
                Entry::Foreign => false,
            };
            Some((name, leftover))
        })
        .collect())
}

/// Whether `directory` (which has no manifest) holds only what a collection writer makes, so
/// a new collection may be started in it.
pub(crate) fn only_leftovers(directory: &Path) -> Result<bool, CollectionError> {
    Ok(entry_names(directory)?
        .iter()
        .all(|name| classify(name) != Entry::Foreign))
}

/// Deletes the sidecars of sub-index `file` (`file.bitsift-*`).
pub(crate) fn remove_sidecars(directory: &Path, file: &str) -> Result<(), CollectionError> {
    let prefix = format!("{file}.bitsift-");
    for name in entry_names(directory)? {
        if name.starts_with(&prefix) {
            let path = directory.join(&name);
            std::fs::remove_file(&path)
                .map_err(CollectionError::io(&path, "cannot remove a sidecar"))?;
        }
    }
    Ok(())
}

fn entry_names(directory: &Path) -> Result<Vec<String>, CollectionError> {
    let entries = std::fs::read_dir(directory).map_err(CollectionError::io(
        directory,
        "cannot list the collection directory",
    ))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(CollectionError::io(
            directory,
            "cannot list the collection directory",
        ))?;
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unlisted_files_go_and_everything_else_stays() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "collection.json",
            "sub-000001.cobs_compact",
            "sub-000001.cobs_compact.bitsift-checksums",
            "sub-000002.cobs_compact",
            "sub-000002.cobs_compact.bitsift-summaries",
            ".sub-000003.cobs_compact.bitsift-tmp-77",
            ".collection.json.tmp-5",
            "README.txt",
        ] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let mut manifest = Manifest::new(super::super::Parameters {
            k: 31,
            canonical: true,
            hashes: 1,
            fpr: None,
            page_size: None,
            rows: Default::default(),
            layout: Default::default(),
        });
        manifest.subindexes.push(super::super::SubIndex {
            file: "sub-000001.cobs_compact".into(),
            kind: super::super::manifest::SubIndexKind::Compact,
            page_size: 8,
            blocks: 1,
            layout: Default::default(),
            bytes: 1,
            document_count: 0,
            names_digest: None,
            documents: vec![],
            names_loaded: true,
            hidden: vec![],
            hidden_documents: vec![],
            padding: vec![],
            placeholders: 0,
            created: String::new(),
            provenance: super::super::Provenance {
                bitsift_version: String::new(),
                command: String::new(),
                options: serde_json::Value::Null,
                inputs: vec![],
            },
        });
        assert_eq!(
            unlisted(dir.path(), &manifest).unwrap(),
            vec![
                (".collection.json.tmp-5".to_string(), true),
                (".sub-000003.cobs_compact.bitsift-tmp-77".to_string(), true),
                ("README.txt".to_string(), false),
                ("sub-000002.cobs_compact".to_string(), true),
                (
                    "sub-000002.cobs_compact.bitsift-summaries".to_string(),
                    true
                ),
            ]
        );
        let removed = clean(dir.path(), Some(&manifest)).unwrap();
        assert_eq!(
            removed,
            vec![
                ".collection.json.tmp-5",
                ".sub-000003.cobs_compact.bitsift-tmp-77",
                "sub-000002.cobs_compact",
                "sub-000002.cobs_compact.bitsift-summaries"
            ]
        );
        assert!(
            !only_leftovers(dir.path()).unwrap(),
            "README.txt is foreign"
        );
        std::fs::remove_file(dir.path().join("README.txt")).unwrap();
        assert!(only_leftovers(dir.path()).unwrap());
    }

    #[test]
    fn without_a_manifest_only_temporaries_go_and_sub_indexes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let temporary = ".sub-000001.cobs_compact.bitsift-tmp-7";
        std::fs::write(dir.path().join(temporary), b"x").unwrap();
        assert_eq!(clean(dir.path(), None).unwrap(), vec![temporary]);
        std::fs::write(dir.path().join(temporary), b"x").unwrap();
        std::fs::write(dir.path().join("sub-000001.cobs_compact"), b"x").unwrap();
        let error = clean(dir.path(), None).unwrap_err();
        assert!(
            matches!(error, CollectionError::ManifestLost { .. }),
            "{error}"
        );
        assert_eq!(entry_names(dir.path()).unwrap().len(), 2, "nothing removed");
    }
}
