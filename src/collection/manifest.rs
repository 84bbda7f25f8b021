//! `collection.json`: what a collection holds, replaced atomically by every writer.
//!
//! ```json
//! {"format": "bitsift-collection", "version": 3, "generation": 3, "next_subindex": 4,
//!  "parameters": {"k": 31, "canonical": true, "hashes": 1, "fpr": 0.3, "page_size": null},
//!  "subindexes": [{"file": "sub-000001.cobs_compact", "kind": "compact", "page_size": 8,
//!    "blocks": 1, "bytes": 70112, "document_count": 7, "names_digest": "5f0e…",
//!    "hidden": ["b"], "hidden_documents": [1], "placeholders": 0,
//!    "created": "2025-01-31T12:00:00Z",
//!    "provenance": {"bitsift_version": "0.1.0", "command": "add", "options": {...},
//!                   "inputs": ["genomes/"]}}],
//!  "checksum": "0123456789abcdef"}
//! ```
//!
//! The document names stay in each sub-index's header; `names_digest` is their digest
//! ([`crate::format::names_digest`]): a search compares it with the digest of the file's own
//! names when it opens the file, so a manifest that disagrees with the file (which would hide
//! other genomes than the removed ones) is an error, not a wrong answer. `hidden` holds the
//! tombstones of that sub-index (every document of that name is hidden); each must be one of
//! its documents, and `hidden_documents` are the numbers of the documents they hide, so a
//! search hides them without reading a name. Tombstones belong to a sub-index, so a genome
//! removed and added again later is shown once. `placeholders` counts the placeholder
//! documents (all-zero columns, named [`PADDING_NAME`]) that a merge puts into partly filled
//! blocks, because COBS's fixed stride wants every block but the last to be full; every
//! document so named is a placeholder ([`crate::format::is_placeholder`]), and a search hides
//! them by that name when it opens the file.
//!
//! The last member, `checksum`, covers every byte before it ([`super::seal`]): a manifest
//! damaged or edited after bitsift wrote it is refused. Version 2 also listed every
//! sub-index's names (`documents`) and its placeholders' numbers (`padding`), so its size
//! grew with the genomes (18 MiB at 661k);
//! version 1 had no checksum and no names digests. Both are still read (names then compared
//! through the list itself), and the next commit writes version 3.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::manifest_file::open_manifest;
use super::names::{FORMAT_NAME, FORMAT_VERSION, MANIFEST_NAME};
use super::seal::{hex_digest, seal, Digested, Head};
use super::{crash, CollectionError};
use crate::builder::layout::RowSizing;
use crate::format::{is_placeholder, IndexHeader, IndexKind, LayoutChoice, RowLayout};
use crate::tempfiles::{self, AtomicFile};

pub(crate) use crate::format::PADDING_NAME;

/// Parameters shared by every sub-index; see the module documentation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parameters {
    /// Term size.
    pub k: u32,
    /// Canonical DNA k-mers.
    pub canonical: bool,
    /// Hash functions per k-mer.
    pub hashes: u32,
    /// Target false-positive rate of new sub-indexes (`None`: unknown, e.g. only adopted
    /// indexes so far; COBS headers do not record it).
    pub fpr: Option<f64>,
    /// Bytes per row of new sub-indexes (`None`: each new sub-index gets the default for its
    /// own number of documents, so a small addition is not as wide as a large block).
    pub page_size: Option<u64>,
    /// How new sub-indexes size their blocks' rows (manifests of earlier versions, and those
    /// of collections with exact rows, leave it out).
    #[serde(default, skip_serializing_if = "is_exact")]
    pub rows: RowSizing,
    /// Where new sub-indexes put a k-mer's rows (manifests of earlier versions, and those of
    /// collections in COBS's layout, leave it out). Sub-indexes of both layouts search
    /// together; a merge combines only sub-indexes of one layout.
    #[serde(default, skip_serializing_if = "is_cobs_choice")]
    pub layout: LayoutChoice,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

fn is_cobs_choice(layout: &LayoutChoice) -> bool {
    *layout == LayoutChoice::Cobs
}

fn is_exact(rows: &RowSizing) -> bool {
    *rows == RowSizing::Exact
}

fn is_cobs(layout: &RowLayout) -> bool {
    *layout == RowLayout::Cobs
}

/// Where a sub-index came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The bitsift version that wrote it.
    pub bitsift_version: String,
    /// `add` (built from genomes), `adopt` (an existing index brought in) or `merge`.
    pub command: String,
    /// The options that shaped it (build parameters and resources, or merge limits).
    pub options: serde_json::Value,
    /// Input paths as given (add), the adopted file, or the merged sub-indexes.
    pub inputs: Vec<String>,
}

impl Provenance {
    /// What this bitsift's `command` with `options` made from `inputs`.
    pub(crate) fn now(command: &str, options: serde_json::Value, inputs: Vec<String>) -> Self {
        Provenance {
            bitsift_version: env!("CARGO_PKG_VERSION").into(),
            command: command.into(),
            options,
            inputs,
        }
    }
}

/// One sub-index of a collection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubIndex {
    /// File name inside the collection directory.
    pub file: String,
    /// Compact or classic.
    pub kind: SubIndexKind,
    /// Bytes per row.
    pub page_size: u64,
    /// Blocks.
    pub blocks: u64,
    /// Where the file puts a k-mer's rows (left out for COBS's layout, as in manifests of
    /// earlier versions); checked against the file whenever it is opened.
    #[serde(default, skip_serializing_if = "is_cobs")]
    pub layout: RowLayout,
    /// File size.
    pub bytes: u64,
    /// Documents in the file, placeholders and hidden ones included.
    pub document_count: u64,
    /// Digest of `documents` ([`crate::format::names_digest`]), checked against the file's
    /// own names whenever it is opened. `None` only in manifests of version 1.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "hex_digest")]
    pub names_digest: Option<u64>,
    /// Document names in header order. Manifests of versions 1 and 2 list them; version 3
    /// leaves them in the sub-index's own header, so a search reads a manifest whose size
    /// follows the number of sub-indexes, not of genomes. Writers read them from the files
    /// ([`Manifest::load_names`]).
    #[serde(default, skip_serializing)]
    pub documents: Vec<String>,
    /// Whether `documents` holds the names (a manifest of version 3 is read without them).
    #[serde(skip)]
    pub(crate) names_loaded: bool,
    /// Tombstones: names of this sub-index hidden from every search.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    /// Numbers of the documents the tombstones hide, sorted (version 3): what a search hides
    /// without reading any name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden_documents: Vec<u64>,
    /// Numbers of the placeholder documents: listed by versions 1 and 2; version 3 counts them
    /// in `placeholders` instead (a search finds them by name in the sub-index's header, and
    /// a merged 661k-genome collection has ~60,000), and writers fill this list from the names.
    #[serde(default, skip_serializing)]
    pub padding: Vec<u64>,
    /// Number of placeholder documents (version 3).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub placeholders: u64,
    /// When it was registered (RFC 3339, UTC).
    pub created: String,
    /// Where it came from.
    pub provenance: Provenance,
}

/// The two COBS layouts a sub-index can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SubIndexKind {
    /// A compact index (every index bitsift builds).
    Compact,
    /// An adopted classic index (never merged).
    Classic,
}

impl From<IndexKind> for SubIndexKind {
    fn from(kind: IndexKind) -> Self {
        match kind {
            IndexKind::Compact => SubIndexKind::Compact,
            IndexKind::Classic => SubIndexKind::Classic,
        }
    }
}

impl SubIndex {
    /// The names, which must have been read ([`Manifest::load_names`]): an entry of a
    /// version-3 manifest read for a search has none, and answering from an empty list would
    /// be wrong, not slow.
    fn names(&self) -> &[String] {
        assert!(
            self.names_loaded,
            "the names of sub-index {} were not read from its file",
            self.file
        );
        &self.documents
    }

    /// Numbers of the documents searches must not report: tombstoned names and placeholders
    /// (without the names, a version-3 entry's tombstoned documents only).
    pub(crate) fn hidden_documents(&self) -> Vec<u64> {
        let mut hidden: Vec<u64> = match self.names_loaded {
            true => {
                let names: HashSet<&str> = self.hidden.iter().map(String::as_str).collect();
                self.documents
                    .iter()
                    .enumerate()
                    .filter(|(_, name)| names.contains(name.as_str()) || is_placeholder(name))
                    .map(|(number, _)| number as u64)
                    .collect()
            }
            // Placeholders are hidden by the index's open, which finds them by name.
            false => return self.hidden_documents.clone(),
        };
        hidden.extend(self.padding.iter().filter(|&&p| p < self.document_count));
        hidden.sort_unstable();
        hidden.dedup();
        hidden
    }

    /// Whether each document is shown (not hidden, not a placeholder), in header order (the
    /// names must have been read).
    pub(crate) fn visible_mask(&self) -> Vec<bool> {
        let mut visible = vec![true; self.names().len()];
        for number in self.hidden_documents() {
            visible[number as usize] = false;
        }
        visible
    }

    /// Names of the documents searches show (the names must have been read).
    pub fn visible_names(&self) -> impl Iterator<Item = &str> {
        let mask = self.visible_mask();
        self.names()
            .iter()
            .zip(mask)
            .filter(|(_, shown)| *shown)
            .map(|(name, _)| name.as_str())
    }

    /// Number of documents searches show.
    pub fn visible_count(&self) -> u64 {
        match self.names_loaded {
            true => self.visible_mask().iter().filter(|&&v| v).count() as u64,
            false => self.document_count - self.hidden_documents.len() as u64 - self.placeholders,
        }
    }

    /// Number of placeholder documents ([`crate::format::is_placeholder`]): by their names
    /// when read, else the placeholders the entry lists (a version-3 writer lists them all).
    pub fn placeholder_count(&self) -> u64 {
        match self.names_loaded {
            true => self.documents.iter().filter(|n| is_placeholder(n)).count() as u64,
            false => self.placeholders,
        }
    }

    /// The entry as [`check_entry`] and [`check_numbers`] check it.
    fn fields(&self) -> EntryFields<'_> {
        EntryFields {
            file: &self.file,
            document_count: self.document_count,
            hidden: &self.hidden,
            hidden_documents: &self.hidden_documents,
            padding: &self.padding,
            placeholders: self.placeholders,
            names_digest: self.names_digest,
        }
    }

    /// Fills what a version-3 manifest records from the names: the documents the tombstones
    /// hide, and the placeholders (every one in `padding`, and their count).
    fn number_hidden(&mut self) {
        let tombstones: HashSet<&str> = self.hidden.iter().map(String::as_str).collect();
        let names = self.names();
        let tombstoned: Vec<u64> = (0..names.len() as u64)
            .filter(|&n| tombstones.contains(names[n as usize].as_str()))
            .collect();
        let mut padding: Vec<u64> = (0..names.len() as u64)
            .filter(|&n| is_placeholder(&names[n as usize]))
            .collect();
        padding.extend(&self.padding);
        padding.sort_unstable();
        padding.dedup();
        self.hidden_documents = tombstoned;
        self.placeholders = padding.len() as u64;
        self.padding = padding;
    }

    /// The digest of the names this entry records: `names_digest`, or, in a manifest of
    /// version 1, the digest of `documents`.
    pub(crate) fn expected_names_digest(&self) -> u64 {
        self.names_digest
            .unwrap_or_else(|| crate::format::names_digest(self.names().iter().map(String::as_str)))
    }

    /// What this entry records of its file, in a collection of `parameters`.
    pub(crate) fn expected(&self, parameters: &Parameters) -> Expected {
        Expected {
            k: parameters.k,
            canonical: parameters.canonical,
            hashes: parameters.hashes,
            kind: self.kind,
            page_size: self.page_size,
            blocks: self.blocks,
            bytes: self.bytes,
            document_count: self.document_count,
            names_digest: self.expected_names_digest(),
            layout: self.layout,
        }
    }

    /// Checks that `header`, the sub-index's file as it is, is the file this entry of a
    /// collection of `parameters` describes: its kind, k, canonical form, hash functions, page
    /// size, blocks, documents, names, row layout and size. The text says what differs.
    pub(crate) fn check_header(
        &self,
        parameters: &Parameters,
        header: &IndexHeader,
    ) -> Result<(), Differs> {
        check_file(header, &self.expected(parameters))
    }
}

/// A manifest that breaks the rules of the module documentation; the text says which.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Broken(pub String);

/// A sub-index file that is not the one its manifest records; the text says the first thing
/// that differs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Differs(pub String);

/// What a collection's manifest records of one sub-index's file, to compare with the file's
/// header whenever it is opened: the collection's k, canonical form and hash functions, and
/// the entry's kind, geometry, size, documents and row layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Expected {
    /// Term size (the collection's).
    pub k: u32,
    /// Canonical k-mers (the collection's).
    pub canonical: bool,
    /// Hash functions per k-mer (the collection's).
    pub hashes: u32,
    /// Compact or classic.
    pub kind: SubIndexKind,
    /// Bytes per row.
    pub page_size: u64,
    /// Blocks.
    pub blocks: u64,
    /// File size.
    pub bytes: u64,
    /// Documents in the file.
    pub document_count: u64,
    /// The digest of their names ([`crate::format::names_digest`]).
    pub names_digest: u64,
    /// Where the file puts a k-mer's rows.
    pub layout: RowLayout,
}

/// Checks an opened sub-index file against what its manifest records; the text says the
/// first thing that differs.
pub(crate) fn check_file(header: &IndexHeader, expected: &Expected) -> Result<(), Differs> {
    if let Some((has, records)) = parameter_mismatch(header, expected) {
        return Err(Differs(format!(
            "has {has} but the collection manifest records {records}; the sub-index was replaced or changed outside bitsift, or the manifest is damaged"
        )));
    }
    if header.document_count() != expected.document_count {
        return Err(Differs(format!(
            "has {} documents but the collection manifest records {}; the sub-index was changed outside bitsift",
            header.document_count(),
            expected.document_count
        )));
    }
    if header.names.digest() != expected.names_digest {
        return Err(Differs(String::from("its document names are not the ones the collection manifest records for it (their digests differ); the sub-index was replaced or changed outside bitsift, or the manifest is damaged")));
    }
    if header.rows != expected.layout {
        return Err(Differs(format!(
            "lays its rows out as {} but the collection manifest records {}; the sub-index was replaced outside bitsift",
            header.rows, expected.layout
        )));
    }
    if header.file_size != expected.bytes {
        return Err(Differs(format!(
            "has {} bytes but the collection manifest records {} bytes; the sub-index was replaced or changed outside bitsift, or the manifest is damaged",
            header.file_size, expected.bytes
        )));
    }
    Ok(())
}

/// The first of the kind, k, canonical form, hash functions, page size and number of blocks
/// that differ between `header` and `expected`: what the file has and what is recorded.
fn parameter_mismatch(header: &IndexHeader, expected: &Expected) -> Option<(String, String)> {
    let kind = |kind: SubIndexKind| match kind {
        SubIndexKind::Compact => "kind compact".to_string(),
        SubIndexKind::Classic => "kind classic".to_string(),
    };
    let canonical = |c: bool| match c {
        true => "canonical k-mers".to_string(),
        false => "non-canonical k-mers".to_string(),
    };
    let pairs = [
        (kind(header.kind.into()), kind(expected.kind)),
        (format!("k = {}", header.k), format!("k = {}", expected.k)),
        (canonical(header.canonical), canonical(expected.canonical)),
        (
            format!("hash functions = {}", header.num_hashes),
            format!("hash functions = {}", expected.hashes),
        ),
        (
            format!("page size {}", header.page_size),
            format!("page size {}", expected.page_size),
        ),
        (
            format!("{} blocks", header.blocks.len()),
            format!("{} blocks", expected.blocks),
        ),
    ];
    pairs.into_iter().find(|(has, records)| has != records)
}

/// One sub-index entry of a manifest, as [`check_entry`] checks it.
struct EntryFields<'a> {
    file: &'a str,
    document_count: u64,
    hidden: &'a [String],
    hidden_documents: &'a [u64],
    padding: &'a [u64],
    placeholders: u64,
    names_digest: Option<u64>,
}

/// Checks the numbers of one entry read without its names (version 3), as far as they can be
/// checked without them. Returns the numbers of the documents its tombstones hide, sorted
/// (placeholders are hidden by the index's open, which finds them by name). Each tombstone hides at least one document, so fewer numbers than
/// tombstones mean a damaged entry, which would show a removed genome again.
fn check_numbers(entry: &EntryFields<'_>) -> Result<Vec<u64>, Broken> {
    let file = entry.file;
    if entry.names_digest.is_none() {
        return Err(Broken(format!("sub-index {file:?} has no names digest")));
    }
    if !entry.hidden_documents.windows(2).all(|w| w[0] < w[1]) {
        return Err(Broken(format!(
            "the hidden documents of sub-index {file:?} are not sorted"
        )));
    }
    if let Some(&bad) = entry.hidden_documents.last() {
        if bad >= entry.document_count {
            return Err(Broken(format!(
                "sub-index {file:?} hides document {bad}, past its {} documents",
                entry.document_count
            )));
        }
    }
    if entry.hidden_documents.len() as u64 + entry.placeholders > entry.document_count {
        return Err(Broken(format!(
            "sub-index {file:?} hides more documents than its {}",
            entry.document_count
        )));
    }
    if entry.hidden.len() > entry.hidden_documents.len() {
        let name = &entry.hidden[entry.hidden_documents.len()];
        return Err(Broken(format!(
            "sub-index {file:?} hides {name:?} but records fewer hidden documents than tombstones (a damaged removal would show a removed genome again)"
        )));
    }
    Ok(entry.hidden_documents.to_vec())
}

/// Checks one sub-index entry against the rules of the module documentation, reading its
/// names (`names`, in header order) once. Returns the numbers of the documents a search hides
/// (tombstoned names and placeholders, sorted) and the digest of the names.
fn check_entry<'a>(
    entry: &EntryFields<'_>,
    version: u32,
    names: impl Iterator<Item = &'a str>,
) -> Result<(Vec<u64>, u64), Broken> {
    let file = entry.file;
    let tombstones: HashSet<&str> = entry.hidden.iter().map(String::as_str).collect();
    let mut matched: HashSet<&str> = HashSet::with_capacity(tombstones.len());
    let mut hasher = xxhash_rust::xxh64::Xxh64::new(0);
    let (mut hidden, mut placeholders, mut tombstoned) = (Vec::new(), Vec::new(), Vec::new());
    let mut count = 0u64;
    for name in names {
        hasher.update(name.as_bytes());
        hasher.update(b"\n");
        let tombstone = tombstones.get(name);
        if let Some(&tombstone) = tombstone {
            matched.insert(tombstone);
        }
        if tombstone.is_some() {
            tombstoned.push(count);
        }
        if is_placeholder(name) {
            placeholders.push(count);
        }
        if tombstone.is_some() || is_placeholder(name) {
            hidden.push(count);
        }
        count += 1;
    }
    if count != entry.document_count {
        return Err(Broken(format!(
            "sub-index {file:?} lists {count} names for {} documents",
            entry.document_count
        )));
    }
    if let Some(name) = entry.hidden.iter().find(|n| !matched.contains(n.as_str())) {
        return Err(Broken(format!(
            "sub-index {file:?} hides {name:?}, which is not one of its documents (a damaged removal would show a removed genome again)"
        )));
    }
    if let Some(&bad) = entry.padding.iter().find(|&&p| p >= count) {
        return Err(Broken(format!(
            "sub-index {file:?} has a placeholder at {bad}, past its {count} documents"
        )));
    }
    if let Some(&bad) = entry
        .padding
        .iter()
        .find(|p| placeholders.binary_search(p).is_err())
    {
        return Err(Broken(format!(
            "sub-index {file:?} lists document {bad} as a placeholder, but it is not named {PADDING_NAME:?} (a damaged placeholder would hide a genome)"
        )));
    }
    if version >= 3 && entry.placeholders != placeholders.len() as u64 {
        return Err(Broken(format!(
            "sub-index {file:?} records {} placeholders but has {}",
            entry.placeholders,
            placeholders.len()
        )));
    }
    if version >= 3 && tombstoned != entry.hidden_documents {
        return Err(Broken(format!(
            "the hidden documents sub-index {file:?} records are not those its tombstones name (a damaged removal would show a removed genome, or hide another)"
        )));
    }
    let digest = hasher.digest();
    match entry.names_digest {
        Some(recorded) if recorded != digest => Err(Broken(format!(
            "the names digest of sub-index {file:?} does not match its list of documents"
        ))),
        None if version >= 2 => Err(Broken(format!("sub-index {file:?} has no names digest"))),
        _ => Ok((hidden, digest)),
    }
}

/// The manifest; see the module documentation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub version: u32,
    /// Raised by one at every commit.
    pub generation: u64,
    /// Number of the next sub-index file (`sub-NNNNNN`); never reused.
    pub next_subindex: u64,
    /// Shared parameters.
    pub parameters: Parameters,
    /// Sub-indexes in search order (ties in score are ranked in this order).
    pub subindexes: Vec<SubIndex>,
}

impl Manifest {
    /// An empty manifest (generation 0: nothing committed yet).
    pub(crate) fn new(parameters: Parameters) -> Manifest {
        Manifest {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            generation: 0,
            next_subindex: 1,
            parameters,
            subindexes: Vec::new(),
        }
    }

    /// Reads and checks the manifest of `directory`, without the document names a version-3
    /// manifest leaves in the sub-indexes' headers (a writer then reads them with
    /// [`Manifest::load_names`]). A local manifest that is missing or not a regular file is
    /// [`CollectionError::ManifestLost`].
    pub fn load(directory: &Path) -> Result<Manifest, CollectionError> {
        let path = directory.join(MANIFEST_NAME);
        let io = || CollectionError::io(&path, "cannot read the collection manifest");
        let text = if crate::io::is_remote(&path) {
            crate::io::source::read_whole(&path).map_err(io())?
        } else {
            let mut text = Vec::new();
            open_manifest(directory)?
                .read_to_end(&mut text)
                .map_err(io())?;
            text
        };
        let manifest = Manifest::parse(&path, &text)?;
        Ok(manifest)
    }

    /// Parses and checks manifest bytes read from `path`: format, version, checksum, and the
    /// rules of the module documentation.
    pub(crate) fn parse(path: &Path, text: &[u8]) -> Result<Manifest, CollectionError> {
        let (version, mut manifest) = checked_parse::<Manifest>(path, text)?;
        if version < 3 {
            for sub in &mut manifest.subindexes {
                sub.names_loaded = true;
            }
        }
        manifest
            .validate()
            .map_err(|detail| CollectionError::Manifest {
                path: path.to_path_buf(),
                detail: detail.to_string(),
            })?;
        Ok(manifest)
    }

    /// Checks the invariants a writer relies on; the text says what is wrong.
    fn validate(&self) -> Result<(), Broken> {
        let mut files = HashSet::new();
        for sub in &self.subindexes {
            if !is_plain_file_name(&sub.file) {
                return Err(Broken(format!(
                    "sub-index file name {:?} is not a plain file name inside the collection",
                    sub.file
                )));
            }
            if !files.insert(sub.file.as_str()) {
                return Err(Broken(format!("sub-index {:?} is listed twice", sub.file)));
            }
            let fields = sub.fields();
            match sub.names_loaded {
                true => check_entry(
                    &fields,
                    self.version,
                    sub.documents.iter().map(String::as_str),
                )
                .map(drop)?,
                false => check_numbers(&fields).map(drop)?,
            }
        }
        Ok(())
    }

    /// Reads the document names of every sub-index whose names the manifest does not hold
    /// (version 3) from its file's header, and checks them against the entry: their digest,
    /// their count, and the documents its tombstones hide. Writers call it after
    /// [`Manifest::load`]; a sub-index that cannot be read is an error here, not in `load`,
    /// so that checking and recovering a damaged collection still read its manifest.
    pub fn load_names(&mut self, directory: &Path) -> Result<(), CollectionError> {
        for sub in self.subindexes.iter_mut().filter(|s| !s.names_loaded) {
            let header = IndexHeader::open(&subindex_path(directory, &sub.file))?;
            let names: Vec<String> = header.names.all()?.iter().map(str::to_string).collect();
            let fields = sub.fields();
            check_entry(&fields, self.version, names.iter().map(String::as_str)).map_err(
                |detail| CollectionError::Manifest {
                    path: header.path.clone(),
                    detail: format!("{detail}; the sub-index was replaced or changed outside bitsift, or the manifest is damaged"),
                },
            )?;
            sub.documents = names;
            sub.names_loaded = true;
            sub.number_hidden();
        }
        Ok(())
    }

    /// Reads and checks the manifest of `directory` with every document name: what a writer
    /// needs ([`Manifest::load`], then [`Manifest::load_names`]).
    pub(crate) fn load_for_writing(directory: &Path) -> Result<Manifest, CollectionError> {
        let mut manifest = Manifest::load(directory)?;
        manifest.load_names(directory)?;
        Ok(manifest)
    }

    /// The manifest's bytes as written, in the current version: pretty-printed JSON ending
    /// with its checksum. Fills the numbers version 3 records from the names first.
    pub(crate) fn encode(&mut self) -> Result<Vec<u8>, CollectionError> {
        for sub in &mut self.subindexes {
            sub.number_hidden();
        }
        let text = serde_json::to_vec_pretty(self).map_err(|e| {
            CollectionError::Invalid(format!("cannot encode the collection manifest: {e}"))
        })?;
        Ok(seal(text))
    }

    /// Writes the manifest into `directory` atomically ([`crate::AtomicFile`]: a temporary
    /// file, fsync, rename over the manifest, fsync of the directory), in the current version
    /// with its checksum. Raises the generation first. Entries of a version-1 manifest get
    /// their names digest here, once their names are checked against their files.
    pub(crate) fn commit(&mut self, directory: &Path) -> Result<(), CollectionError> {
        self.seal_entries(directory)?;
        for sub in &mut self.subindexes {
            sub.number_hidden();
        }
        self.version = FORMAT_VERSION;
        self.generation += 1;
        let path = directory.join(MANIFEST_NAME);
        self.validate()
            .map_err(|detail| CollectionError::Manifest {
                path: path.clone(),
                detail: format!("not written: {detail}"),
            })?;
        let text = self.encode()?;
        // New sub-index files must be durable before the manifest that lists them.
        sync_directory(directory)?;
        let write_error = CollectionError::io(&path, "cannot write the collection manifest");
        let mut file = AtomicFile::with_buffer(&path, 0).map_err(write_error)?;
        let write_error = CollectionError::io(&path, "cannot write the collection manifest");
        file.write_all(&text)
            .and_then(|()| file.sync())
            .map_err(write_error)?;
        crash::point("manifest-written");
        file.commit().map_err(CollectionError::io(
            &path,
            "cannot replace the collection manifest",
        ))?;
        crash::point("manifest-renamed");
        Ok(())
    }

    /// Gives every entry without a names digest (those of a version-1 manifest) the digest of
    /// its file's names, after checking them against the entry's list.
    fn seal_entries(&mut self, directory: &Path) -> Result<(), CollectionError> {
        for sub in self
            .subindexes
            .iter_mut()
            .filter(|s| s.names_digest.is_none())
        {
            let header = IndexHeader::open(&subindex_path(directory, &sub.file))?;
            let names = header.names.all()?;
            let same = names.len() == sub.documents.len()
                && names.iter().eq(sub.documents.iter().map(String::as_str));
            if !same {
                return Err(CollectionError::Manifest {
                    path: header.path.clone(),
                    detail: "its document names are not the ones the collection manifest lists for it; the sub-index was changed outside bitsift, or the manifest is damaged".into(),
                });
            }
            sub.names_digest = Some(header.names.digest());
        }
        Ok(())
    }

    /// File names of the sub-indexes.
    pub(crate) fn files(&self) -> HashSet<&str> {
        self.subindexes.iter().map(|s| s.file.as_str()).collect()
    }

    /// The file name of the next sub-index, with extension `extension`, and reserves it.
    pub(crate) fn reserve_file(&mut self, extension: &str) -> String {
        let name = format!("sub-{:06}.{extension}", self.next_subindex);
        self.next_subindex += 1;
        name
    }
}

/// A file name without directories, not hidden, not `.`/`..`.
fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains('/') && !name.contains('\0')
}

/// fsyncs a directory, so renames and new entries in it are durable.
pub(crate) fn sync_directory(directory: &Path) -> Result<(), CollectionError> {
    tempfiles::sync_directory_itself(directory)
        .map_err(CollectionError::io(directory, "cannot sync the directory"))
}

/// The path of sub-index `file` of the collection in `directory`.
pub(crate) fn subindex_path(directory: &Path, file: &str) -> PathBuf {
    directory.join(file)
}

/// What a search needs of a manifest: each sub-index's file, document count, names digest
/// and hidden documents. Read without keeping every document name as a string of its own:
/// the names of a 661k-genome collection are ~10 MB of text, and ~45 MB as strings.
#[derive(Debug)]
pub(crate) struct SearchView {
    /// The manifest's generation.
    pub generation: u64,
    /// Sub-indexes in search order.
    pub subindexes: Vec<SearchEntry>,
}

/// One sub-index as a search sees it.
#[derive(Debug)]
pub(crate) struct SearchEntry {
    /// File name inside the collection directory.
    pub file: String,
    /// What the file must be: its documents and the digest of their names.
    pub expected: Expected,
    /// Numbers of the documents never reported (tombstones and placeholders), sorted.
    pub hidden: Vec<u64>,
}

impl SearchView {
    /// Reads and checks the manifest of `directory` for a search: format, version, checksum
    /// and the rules of the module documentation, as [`Manifest::load`] does.
    pub(crate) fn load(directory: &Path) -> Result<SearchView, CollectionError> {
        let path = directory.join(MANIFEST_NAME);
        let invalid = |detail: String| CollectionError::Manifest {
            path: path.clone(),
            detail,
        };
        let (version, raw) = read_view(directory)?;
        let mut files = HashSet::new();
        let mut subindexes = Vec::with_capacity(raw.subindexes.len());
        for sub in raw.subindexes {
            if !is_plain_file_name(&sub.file) || !files.insert(sub.file.clone()) {
                return Err(invalid(format!(
                    "sub-index file name {:?} is not a plain file name inside the collection, or is listed twice",
                    sub.file
                )));
            }
            let fields = EntryFields {
                file: &sub.file,
                document_count: sub.document_count,
                hidden: &sub.hidden,
                hidden_documents: &sub.hidden_documents,
                padding: &sub.padding,
                placeholders: sub.placeholders,
                names_digest: sub.names_digest,
            };
            let checked = match version {
                3.. => check_numbers(&fields).map(|hidden| (hidden, sub.names_digest.unwrap_or(0))),
                _ => check_entry(&fields, version, sub.documents.text.split_terminator('\n')),
            };
            let (hidden, names_digest) = checked.map_err(|e| invalid(e.to_string()))?;
            subindexes.push(SearchEntry {
                file: sub.file,
                expected: Expected {
                    k: raw.parameters.k,
                    canonical: raw.parameters.canonical,
                    hashes: raw.parameters.hashes,
                    kind: sub.kind,
                    page_size: sub.page_size,
                    blocks: sub.blocks,
                    bytes: sub.bytes,
                    document_count: sub.document_count,
                    names_digest,
                    layout: sub.layout,
                },
                hidden,
            });
        }
        Ok(SearchView {
            generation: raw.generation,
            subindexes,
        })
    }
}

/// Reads the manifest of `directory` for a search, checking its format, version and
/// checksum: its version and what a search needs of it. One open file is streamed three times
/// (checksum, head, view), never held whole; a writer that replaces the manifest meanwhile
/// replaces another file.
fn read_view(directory: &Path) -> Result<(u32, RawView), CollectionError> {
    let path = &directory.join(MANIFEST_NAME);
    let io = || CollectionError::io(path, "cannot read the collection manifest");
    if crate::io::is_remote(path) {
        // A remote manifest is read once, whole: streaming it three times would cost three
        // round trips per megabyte.
        open_early(directory, path);
        let bytes = crate::io::source::read_whole(path).map_err(io())?;
        return checked_parse(path, &bytes);
    }
    let file = open_manifest(directory)?;
    view_of(path, || {
        use std::io::Seek;
        (&file)
            .rewind()
            .map(|()| std::io::BufReader::new(&file))
            .map_err(io())
    })
}

/// Opens the remote manifest `path` of `directory` together with the sub-indexes (and their
/// side files) that the version of it in the local cache of remote files names, all in one
/// round trip: with that cache, a search of an unchanged collection checks every file's
/// version at once instead of the manifest's first. A guess only: the manifest is read
/// again (from the cache when unchanged) and decides what is searched; a file the guess
/// opened for nothing costs one request.
fn open_early(directory: &Path, path: &Path) {
    let Some(bytes) = crate::io::source::last_held(path) else {
        return;
    };
    let Ok((_, view)) = checked_parse::<RawView>(path, &bytes) else {
        return;
    };
    let indexes: Vec<PathBuf> = view
        .subindexes
        .iter()
        .filter(|sub| is_plain_file_name(&sub.file))
        .map(|sub| subindex_path(directory, &sub.file))
        .collect();
    let mut files = vec![(path.to_path_buf(), 0)];
    files.extend(crate::query::with_side_files(&indexes));
    crate::io::source::prefetch(&files);
}

/// [`read_view`] of a manifest that `rewound` gives from its start, as often as needed.
fn view_of<R: std::io::BufRead>(
    path: &Path,
    rewound: impl Fn() -> Result<R, CollectionError>,
) -> Result<(u32, RawView), CollectionError> {
    let io = || CollectionError::io(path, "cannot read the collection manifest");
    let invalid = |detail: String| CollectionError::Manifest {
        path: path.to_path_buf(),
        detail,
    };
    let digested = Digested::of_reader(&mut rewound()?).map_err(io())?;
    let head = Head::of_reader(rewound()?).map_err(|e| invalid(e.to_string()))?;
    head.check(&digested).map_err(|e| invalid(e.to_string()))?;
    let raw: RawView = serde_json::from_reader(rewound()?)
        .map_err(|e| invalid(format!("invalid manifest: {e}")))?;
    Ok((head.version(), raw))
}

/// Manifest bytes held whole (a remote manifest, or one to edit), their head and checksum
/// checked, parsed as `T` (from the slice, several times faster than through a reader); with
/// the format version.
fn checked_parse<T: serde::de::DeserializeOwned>(
    path: &Path,
    bytes: &[u8],
) -> Result<(u32, T), CollectionError> {
    let invalid = |detail: String| CollectionError::Manifest {
        path: path.to_path_buf(),
        detail,
    };
    let head = Head::of_bytes(bytes).map_err(|e| invalid(e.to_string()))?;
    head.check(&Digested::of_bytes(bytes))
        .map_err(|e| invalid(e.to_string()))?;
    let parsed =
        serde_json::from_slice(bytes).map_err(|e| invalid(format!("invalid manifest: {e}")))?;
    Ok((head.version(), parsed))
}

#[derive(Deserialize)]
struct RawView {
    generation: u64,
    parameters: RawParameters,
    subindexes: Vec<RawEntry>,
}

/// The parameters every sub-index's header must have.
#[derive(Deserialize)]
struct RawParameters {
    k: u32,
    canonical: bool,
    hashes: u32,
}

#[derive(Deserialize)]
struct RawEntry {
    file: String,
    kind: SubIndexKind,
    page_size: u64,
    blocks: u64,
    bytes: u64,
    document_count: u64,
    #[serde(default)]
    layout: RowLayout,
    #[serde(default, with = "hex_digest")]
    names_digest: Option<u64>,
    #[serde(default)]
    documents: PackedNames,
    #[serde(default)]
    hidden: Vec<String>,
    #[serde(default)]
    hidden_documents: Vec<u64>,
    #[serde(default)]
    placeholders: u64,
    #[serde(default)]
    padding: Vec<u64>,
}

/// Document names read into one buffer, each followed by a newline (names never hold one).
#[derive(Default)]
struct PackedNames {
    text: String,
}

impl<'de> Deserialize<'de> for PackedNames {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = PackedNames;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of document names")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<PackedNames, A::Error> {
                let mut names = PackedNames::default();
                while let Some(name) = seq.next_element::<String>()? {
                    if name.contains('\n') {
                        return Err(serde::de::Error::custom(
                            "a document name holds a line break",
                        ));
                    }
                    names.text.push_str(&name);
                    names.text.push('\n');
                }
                Ok(names)
            }
        }
        deserializer.deserialize_seq(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(file: &str, names: &[&str]) -> SubIndex {
        SubIndex {
            file: file.into(),
            kind: SubIndexKind::Compact,
            page_size: 8,
            blocks: 1,
            layout: RowLayout::Cobs,
            bytes: 100,
            document_count: names.len() as u64,
            names_digest: Some(crate::format::names_digest(names.iter().copied())),
            documents: names.iter().map(|n| n.to_string()).collect(),
            names_loaded: true,
            hidden: Vec::new(),
            hidden_documents: Vec::new(),
            padding: Vec::new(),
            placeholders: names.iter().filter(|n| is_placeholder(n)).count() as u64,
            created: "2025-01-01T00:00:00Z".into(),
            provenance: Provenance {
                bitsift_version: "0".into(),
                command: "add".into(),
                options: serde_json::json!({}),
                inputs: vec![],
            },
        }
    }

    fn parameters() -> Parameters {
        Parameters {
            k: 31,
            canonical: true,
            hashes: 1,
            fpr: Some(0.3),
            page_size: None,
            rows: RowSizing::Exact,
            layout: LayoutChoice::Cobs,
        }
    }

    /// The fixture written by bitsift before manifests had checksums (version 1).
    const VERSION_1: &str = include_str!("../../tests/fixtures/manifest-v1/collection.json");

    #[test]
    fn commit_round_trips_and_raises_the_generation() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Manifest::new(parameters());
        manifest
            .subindexes
            .push(sub("sub-000001.cobs_compact", &["a", "b"]));
        manifest.commit(dir.path()).unwrap();
        manifest.commit(dir.path()).unwrap();
        let loaded = Manifest::load(dir.path()).unwrap();
        assert_eq!(loaded.generation, 2);
        let mut without_names = manifest.clone();
        without_names.subindexes[0].documents.clear();
        without_names.subindexes[0].names_loaded = false;
        assert_eq!(
            loaded, without_names,
            "all but the names, which stay in the sub-index"
        );
        let text = std::fs::read(dir.path().join(MANIFEST_NAME)).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(json["version"], 3);
        assert_eq!(json["checksum"].as_str().unwrap().len(), 16);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec![MANIFEST_NAME.to_string()], "no temporary left");
    }

    #[test]
    fn hidden_names_and_placeholders() {
        let mut s = sub(
            "sub-000001.cobs_compact",
            &["a", "b", "a", PADDING_NAME, PADDING_NAME],
        );
        s.hidden = vec!["a".into()];
        s.padding = vec![3];
        assert_eq!(
            s.hidden_documents(),
            vec![0, 2, 3, 4],
            "a placeholder is hidden whether listed or not"
        );
        assert_eq!(s.visible_names().collect::<Vec<_>>(), vec!["b"]);
        assert_eq!(s.visible_count(), 1);
        assert_eq!(s.placeholder_count(), 2);
    }

    /// The error of parsing `manifest` as written (checksum and all).
    fn refusal(manifest: &Manifest) -> String {
        let text = manifest.clone().encode().unwrap();
        let path = Path::new("c/collection.json");
        let error = Manifest::parse(path, &text).unwrap_err().to_string();
        assert!(error.starts_with("c/collection.json: "), "{error}");
        error
    }

    #[test]
    fn damaged_and_foreign_manifests_are_refused() {
        let path = Path::new("c/collection.json");
        let error = |text: &str| {
            Manifest::parse(path, text.as_bytes())
                .unwrap_err()
                .to_string()
        };
        assert!(error("{").contains("not valid JSON"));
        assert!(error("{\"format\": \"other\"}").contains("not a bitsift-collection"));
        let mut manifest = Manifest::new(parameters());
        manifest.version = 4;
        assert!(refusal(&manifest).contains("version 4 is not supported"));
        let mut manifest = Manifest::new(parameters());
        manifest
            .subindexes
            .push(sub("../escape.cobs_compact", &["a"]));
        assert!(refusal(&manifest).contains("not a plain file name"));
        let mut manifest = Manifest::new(parameters());
        let mut s = sub("sub-000001.cobs_compact", &["a"]);
        s.document_count = 2;
        manifest.subindexes.push(s);
        assert!(writer_refusal(&manifest).contains("1 names for 2 documents"));
    }

    /// What a writer, which holds every name, refuses to commit of `manifest`.
    fn writer_refusal(manifest: &Manifest) -> String {
        manifest.validate().unwrap_err().to_string()
    }

    #[test]
    fn a_manifest_of_version_3_lists_no_names_and_a_search_hides_by_number() {
        let mut manifest = Manifest::new(parameters());
        let mut s = sub("sub-000001.cobs_compact", &["a", "b", "a", PADDING_NAME]);
        s.hidden = vec!["a".into()];
        manifest.subindexes.push(s);
        let text = manifest.encode().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&text).unwrap();
        let entry = &json["subindexes"][0];
        assert_eq!(json["version"], 3);
        assert!(entry.get("documents").is_none(), "{entry}");
        assert_eq!(entry["hidden_documents"], serde_json::json!([0, 2]));
        assert!(entry.get("padding").is_none(), "{entry}");
        assert_eq!(entry["placeholders"], 1);
        let read = Manifest::parse(Path::new("c"), &text).unwrap();
        let entry = &read.subindexes[0];
        assert!(!entry.names_loaded);
        assert_eq!(
            entry.hidden_documents(),
            vec![0, 2],
            "placeholders: by the index's open"
        );
        assert_eq!(entry.visible_count(), 1);
        assert_eq!(entry.placeholder_count(), 1);
        assert_eq!(
            entry.expected_names_digest(),
            manifest.subindexes[0].expected_names_digest()
        );
        let dir = collection_with(&text);
        let view = SearchView::load(dir.path()).unwrap();
        assert_eq!(view.subindexes[0].hidden, vec![0, 2]);

        // A tombstone without the numbers of what it hides would show a removed genome.
        let damaged = String::from_utf8(text).unwrap().replace(
            "\"hidden_documents\": [\n        0,\n        2\n      ],\n",
            "",
        );
        let body = &damaged[..damaged.rfind(",\n  \"checksum\"").unwrap()];
        let damaged = seal(format!("{body}\n}}").into_bytes());
        let error = Manifest::parse(Path::new("c"), &damaged)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("records fewer hidden documents than tombstones"),
            "{error}"
        );
        let dir = collection_with(&damaged);
        let error = SearchView::load(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("records fewer hidden documents than tombstones"),
            "{error}"
        );
    }

    #[test]
    fn entries_that_would_hide_or_show_the_wrong_genomes_are_refused() {
        let with = |change: &dyn Fn(&mut SubIndex)| {
            let mut manifest = Manifest::new(parameters());
            let mut s = sub("sub-000001.cobs_compact", &["a", "b", PADDING_NAME]);
            change(&mut s);
            manifest.subindexes.push(s);
            manifest
        };
        let fine = with(&|s| {
            s.hidden = vec!["a".into()];
            s.padding = vec![2];
        });
        let mut fine = fine;
        Manifest::parse(Path::new("c"), &fine.encode().unwrap()).unwrap();
        fine.validate().unwrap();
        let error = writer_refusal(&with(&|s| s.hidden = vec!["c".into()]));
        assert!(
            error.contains("hides \"c\", which is not one of its documents"),
            "{error}"
        );
        let error = writer_refusal(&with(&|s| s.padding = vec![1]));
        assert!(
            error.contains("lists document 1 as a placeholder"),
            "{error}"
        );
        let error = writer_refusal(&with(&|s| s.documents.swap(0, 1)));
        assert!(error.contains("names digest of sub-index"), "{error}");
        let error = writer_refusal(&with(&|s| s.names_digest = None));
        assert!(error.contains("has no names digest"), "{error}");
    }

    #[test]
    fn a_changed_byte_fails_the_checksum() {
        let mut manifest = Manifest::new(parameters());
        manifest
            .subindexes
            .push(sub("sub-000001.cobs_compact", &["a", "b"]));
        let text = manifest.encode().unwrap();
        let at = text.windows(10).position(|w| w == b"sub-000001").unwrap() + 9;
        let mut damaged = text.clone();
        damaged[at] = b'2';
        let error = Manifest::parse(Path::new("c/collection.json"), &damaged)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("c/collection.json: checksum mismatch"),
            "{error}"
        );
    }

    #[test]
    fn a_manifest_of_version_1_is_read_as_it_is() {
        let manifest = Manifest::parse(Path::new("c"), VERSION_1.as_bytes()).unwrap();
        assert_eq!(manifest.version, 1);
        let sub = &manifest.subindexes[0];
        assert_eq!(sub.names_digest, None);
        assert_eq!(sub.hidden_documents(), vec![2, 7]);
        assert_eq!(
            sub.expected_names_digest(),
            crate::format::names_digest(sub.documents.iter().map(String::as_str))
        );
        let damaged = VERSION_1.replace(
            "\"g02\"\n      ],\n      \"padding",
            "\"g2\"\n      ],\n      \"padding",
        );
        let error = Manifest::parse(Path::new("c"), damaged.as_bytes()).unwrap_err();
        assert!(error.to_string().contains("hides \"g2\""), "{error}");
    }

    /// Writes `text` as the manifest of a new directory.
    fn collection_with(text: &[u8]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST_NAME), text).unwrap();
        dir
    }

    #[test]
    fn a_search_reads_what_the_full_manifest_says() {
        let mut manifest = Manifest::new(parameters());
        for (n, hidden) in [(5u64, vec!["d2", "d4"]), (3, vec![])] {
            let mut names: Vec<String> = (0..n).map(|d| format!("d{d}")).collect();
            if n == 3 {
                names[1] = PADDING_NAME.into();
            }
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut entry = sub(&format!("sub-{n}.cobs_compact"), &names);
            entry.hidden = hidden.into_iter().map(String::from).collect();
            manifest.subindexes.push(entry);
        }
        let dir = collection_with(&manifest.encode().unwrap());
        let view = SearchView::load(dir.path()).unwrap();
        assert_eq!(view.generation, manifest.generation);
        for (entry, sub) in view.subindexes.iter().zip(&manifest.subindexes) {
            assert_eq!(entry.file, sub.file);
            assert_eq!(entry.expected.document_count, sub.document_count);
            assert_eq!(entry.expected.names_digest, sub.expected_names_digest());
            assert_eq!(
                entry.hidden, sub.hidden_documents,
                "the tombstoned documents"
            );
        }
        assert_eq!(view.subindexes[0].hidden, vec![2, 4]);
        assert_eq!(
            view.subindexes[1].hidden,
            Vec::<u64>::new(),
            "placeholders are hidden by name when the file is opened"
        );
        assert_eq!(manifest.subindexes[1].placeholders, 1);

        let legacy = collection_with(VERSION_1.as_bytes());
        let view = SearchView::load(legacy.path()).unwrap();
        let full = Manifest::parse(Path::new("c"), VERSION_1.as_bytes()).unwrap();
        assert_eq!(
            view.subindexes[0].hidden,
            full.subindexes[0].hidden_documents()
        );
        assert_eq!(
            view.subindexes[0].expected.names_digest,
            full.subindexes[0].expected_names_digest()
        );
    }

    #[test]
    fn a_search_refuses_what_the_full_manifest_refuses() {
        let mut manifest = Manifest::new(parameters());
        let mut entry = sub("sub-1.cobs_compact", &["a", "b"]);
        entry.hidden = vec!["c".into()];
        manifest.subindexes.push(entry);
        let dir = collection_with(&manifest.encode().unwrap());
        let error = SearchView::load(dir.path()).unwrap_err().to_string();
        assert!(error.contains("hides \"c\""), "{error}");
        manifest.subindexes[0].hidden.clear();
        let mut text = manifest.encode().unwrap();
        let at = text.len() - 10;
        text[at] ^= 1;
        let dir = collection_with(&text);
        let error = SearchView::load(dir.path()).unwrap_err().to_string();
        assert!(error.contains("checksum"), "{error}");
    }
}
