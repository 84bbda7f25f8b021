//! `recover`: a new manifest for a collection whose manifest is lost (missing, not a file,
//! unreadable or damaged), rebuilt from the sub-index files in its directory.
//!
//! What only the lost manifest knew is gone: its removals (every document of every file is
//! shown again), the false-positive rate new genomes are built at, and a page size or row
//! sizing it fixed for new sub-indexes. What the files' headers say is kept: each file's
//! documents, kind, geometry and row layout, and the k, canonical form and hash functions
//! they must share. A file that cannot be read as an index, or whose parameters differ from
//! the others', stops the recovery with nothing changed: leaving it out would make it a
//! leftover that the next writer deletes. A readable manifest is never replaced; anything
//! else in its place is renamed aside (`collection.json.lost-TIME`), never deleted.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::add::entry;
use super::lock::WriterLock;
use super::manifest::{Manifest, Parameters, Provenance, SubIndex};
use super::names::{is_subindex_index, subindex_number, MANIFEST_NAME};
use super::{CollectionError, NAMES_SHOWN_MAX};
use crate::builder::layout::RowSizing;
use crate::format::{IndexHeader, LayoutChoice};
use crate::timestamp;

/// What [`recover`] did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RecoverReport {
    /// The new manifest's generation.
    pub generation: u64,
    /// The sub-indexes the new manifest lists, in search order, every document shown.
    pub adopted: Vec<SubIndex>,
    /// Where what stood in the manifest's place was moved, if anything did.
    pub set_aside: Option<PathBuf>,
    /// Visible document names found in more than one sub-index (the first few), as an
    /// interrupted merge leaves them (its output and its members); see `repeated_count`.
    pub repeated: Vec<String>,
    /// How many names are in more than one sub-index.
    pub repeated_count: usize,
}

/// Rebuilds the manifest of the collection in `directory` from its sub-index files; see the
/// module documentation. Refuses a directory whose manifest is readable.
pub fn recover(directory: &Path) -> Result<RecoverReport, CollectionError> {
    if !directory.is_dir() {
        return Err(refused(directory, "is not a directory"));
    }
    refuse_readable(directory)?;
    if subindex_files(directory)?.is_empty() {
        return Err(refused(
            directory,
            "holds no sub-index file (sub-NNNNNN.cobs_compact or .cobs_classic) to rebuild a manifest from",
        ));
    }
    let _lock = WriterLock::acquire(directory)?;
    refuse_readable(directory)?;
    let files = subindex_files(directory)?;
    let mut headers = Vec::with_capacity(files.len());
    for (_, name) in &files {
        headers.push(open_subindex(&directory.join(name))?);
    }
    let mut manifest = Manifest::new(shared_parameters(&headers)?);
    manifest.next_subindex = files
        .iter()
        .map(|(n, _)| n.saturating_add(1))
        .max()
        .unwrap_or(1);
    for ((_, name), header) in files.iter().zip(&headers) {
        let provenance = Provenance::now("recover", serde_json::json!({}), vec![name.clone()]);
        manifest
            .subindexes
            .push(entry(name.clone(), header, provenance)?);
    }
    let set_aside = set_aside(directory)?;
    manifest.commit(directory)?;
    let (repeated, repeated_count) = repeated_names(&manifest.subindexes);
    Ok(RecoverReport {
        generation: manifest.generation,
        adopted: manifest.subindexes,
        set_aside,
        repeated,
        repeated_count,
    })
}

fn refused(path: &Path, detail: impl Into<String>) -> CollectionError {
    CollectionError::Unrecoverable {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

/// An error when the manifest of `directory` is readable and sound: recovering would forget
/// its removals.
fn refuse_readable(directory: &Path) -> Result<(), CollectionError> {
    match Manifest::load(directory) {
        Ok(_) => Err(refused(
            directory,
            "its manifest collection.json is readable and sound, so there is nothing to recover (a new manifest would forget the removals it records)",
        )),
        Err(CollectionError::ManifestLost { .. } | CollectionError::Manifest { .. }) => Ok(()),
        Err(other) => Err(other),
    }
}

/// The sub-index files of `directory` (not sidecars, not temporaries), by number.
fn subindex_files(directory: &Path) -> Result<Vec<(u64, String)>, CollectionError> {
    let listing = CollectionError::io(directory, "cannot list the collection directory");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(directory).map_err(listing)? {
        let entry = entry.map_err(CollectionError::io(
            directory,
            "cannot list the collection directory",
        ))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_subindex_index(&name) {
            // Past u64 (by hand): last, and the next number stays at the largest.
            files.push((subindex_number(&name).unwrap_or(u64::MAX), name));
        }
    }
    files.sort();
    Ok(files)
}

/// The header of sub-index file `path`, which must be a regular file that reads as an index.
fn open_subindex(path: &Path) -> Result<IndexHeader, CollectionError> {
    let keep_out = "; move it out of the directory to recover without it (the next add, remove or merge would delete it as a leftover)";
    let metadata = std::fs::metadata(path)
        .map_err(CollectionError::io(path, "cannot read the sub-index file"))?;
    if !metadata.is_file() {
        return Err(refused(path, format!("is not a regular file{keep_out}")));
    }
    IndexHeader::open(path).map_err(|error| {
        refused(
            path,
            format!("cannot be read as an index ({error}){keep_out}"),
        )
    })
}

/// The collection's parameters, from the headers: the k, canonical form and hash functions
/// they must share, the row layout of the newest for new sub-indexes; the rest unknown.
fn shared_parameters(headers: &[IndexHeader]) -> Result<Parameters, CollectionError> {
    let (first, newest) = match (headers.first(), headers.last()) {
        (Some(first), Some(newest)) => (first, newest),
        _ => return Err(CollectionError::Invalid("no sub-index to recover".into())),
    };
    let shared = |h: &IndexHeader| (h.k, h.canonical, h.num_hashes);
    if let Some(other) = headers.iter().find(|h| shared(h) != shared(first)) {
        let describe = |h: &IndexHeader| {
            format!(
                "k = {}, {}canonical k-mers, {} hash function(s)",
                h.k,
                if h.canonical { "" } else { "non-" },
                h.num_hashes
            )
        };
        return Err(refused(
            &other.path,
            format!(
                "has {} but {} has {}: the files are not of one collection; move those that do not belong out of the directory",
                describe(other),
                first.path.display(),
                describe(first)
            ),
        ));
    }
    Ok(Parameters {
        k: first.k,
        canonical: first.canonical,
        hashes: first.num_hashes,
        fpr: None,
        page_size: None,
        rows: RowSizing::Exact,
        layout: LayoutChoice::of(newest.rows),
    })
}

/// Renames whatever stands in the manifest's place (a damaged file, a directory, a pipe) to
/// `collection.json.lost-TIME`, which no writer deletes; returns the new name.
fn set_aside(directory: &Path) -> Result<Option<PathBuf>, CollectionError> {
    let manifest = directory.join(MANIFEST_NAME);
    if manifest.symlink_metadata().is_err() {
        return Ok(None);
    }
    let stamp: String = timestamp::now_rfc3339()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let mut target = directory.join(format!("{MANIFEST_NAME}.lost-{stamp}"));
    let mut attempt = 1;
    while target.symlink_metadata().is_ok() {
        attempt += 1;
        target = directory.join(format!("{MANIFEST_NAME}.lost-{stamp}-{attempt}"));
    }
    std::fs::rename(&manifest, &target).map_err(CollectionError::io(
        &manifest,
        "cannot move the lost manifest aside",
    ))?;
    Ok(Some(target))
}

/// Visible names in more than one sub-index: the first few, sorted, and how many.
fn repeated_names(subindexes: &[SubIndex]) -> (Vec<String>, usize) {
    let mut seen_in: HashMap<&str, usize> = HashMap::new();
    for sub in subindexes {
        let names: HashSet<&str> = sub.visible_names().collect();
        for name in names {
            *seen_in.entry(name).or_default() += 1;
        }
    }
    let mut repeated: Vec<String> = seen_in
        .into_iter()
        .filter(|&(_, count)| count > 1)
        .map(|(name, _)| name.to_string())
        .collect();
    repeated.sort();
    let count = repeated.len();
    repeated.truncate(NAMES_SHOWN_MAX);
    (repeated, count)
}
