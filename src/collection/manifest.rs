//! `collection.json`: what a collection holds, replaced atomically by every writer.
//!
//! ```json
//! {"format": "bitsift-collection", "version": 1, "generation": 3, "next_subindex": 4,
//!  "parameters": {"k": 31, "canonical": true, "hashes": 1, "fpr": 0.3, "page_size": null},
//!  "subindexes": [{"file": "sub-000001.cobs_compact", "kind": "compact", "page_size": 8,
//!    "blocks": 1, "bytes": 70112, "document_count": 7, "documents": ["a", "b", ...],
//!    "hidden": ["b"], "padding": [], "created": "2025-01-31T12:00:00Z",
//!    "provenance": {"bitsift_version": "0.1.0", "command": "add", "options": {...},
//!                   "inputs": ["genomes/"]}}]}
//! ```
//!
//! `documents` is the sub-index's name list in header order. `hidden` holds the tombstones of
//! that sub-index (every document of that name is hidden): tombstones belong to a sub-index,
//! so a genome removed and added again later is shown once. `padding` lists the placeholder
//! documents (all-zero columns, named [`PADDING_NAME`]) that a merge puts into partly filled
//! blocks, because COBS's fixed stride wants every block but the last to be full.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{crash, CollectionError};
use crate::builder::layout::RowSizing;
use crate::format::IndexKind;

/// The manifest's file name inside the collection directory.
pub const MANIFEST_NAME: &str = "collection.json";
/// The value of the manifest's `format` field.
pub const FORMAT_NAME: &str = "bitsift-collection";
/// The manifest version this bitsift writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Name of the placeholder documents a merge adds to fill a block (a `/` cannot come from a
/// file name, so no genome built from a file is called this).
pub const PADDING_NAME: &str = "bitsift/padding";

/// Whether `path` is a collection directory (it holds a manifest).
pub fn is_collection(path: &Path) -> bool {
    path.join(MANIFEST_NAME).is_file()
}

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
}

fn is_exact(rows: &RowSizing) -> bool {
    *rows == RowSizing::Exact
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
    /// File size.
    pub bytes: u64,
    /// Documents in the file, placeholders and hidden ones included.
    pub document_count: u64,
    /// Document names in header order.
    pub documents: Vec<String>,
    /// Tombstones: names of this sub-index hidden from every search.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    /// Numbers of the placeholder documents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub padding: Vec<u64>,
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
    /// Numbers of the documents searches must not report: tombstoned names and placeholders.
    pub fn hidden_documents(&self) -> Vec<u64> {
        let names: HashSet<&str> = self.hidden.iter().map(String::as_str).collect();
        let mut hidden: Vec<u64> = self
            .documents
            .iter()
            .enumerate()
            .filter(|(_, name)| names.contains(name.as_str()))
            .map(|(number, _)| number as u64)
            .collect();
        hidden.extend_from_slice(&self.padding);
        hidden.sort_unstable();
        hidden.dedup();
        hidden
    }

    /// Whether each document is shown (not hidden, not a placeholder), in header order.
    pub fn visible_mask(&self) -> Vec<bool> {
        let mut visible = vec![true; self.documents.len()];
        for number in self.hidden_documents() {
            visible[number as usize] = false;
        }
        visible
    }

    /// Names of the documents searches show.
    pub fn visible_names(&self) -> impl Iterator<Item = &str> {
        let mask = self.visible_mask();
        self.documents
            .iter()
            .zip(mask)
            .filter(|(_, shown)| *shown)
            .map(|(name, _)| name.as_str())
    }

    /// Number of documents searches show.
    pub fn visible_count(&self) -> u64 {
        self.visible_mask().iter().filter(|&&v| v).count() as u64
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
    pub fn new(parameters: Parameters) -> Manifest {
        Manifest {
            format: FORMAT_NAME.into(),
            version: FORMAT_VERSION,
            generation: 0,
            next_subindex: 1,
            parameters,
            subindexes: Vec::new(),
        }
    }

    /// Reads and checks the manifest of `directory`.
    pub fn load(directory: &Path) -> Result<Manifest, CollectionError> {
        let path = directory.join(MANIFEST_NAME);
        let text = std::fs::read(&path).map_err(CollectionError::io(
            &path,
            "cannot read the collection manifest",
        ))?;
        let manifest = Manifest::parse(&path, &text)?;
        Ok(manifest)
    }

    /// Parses and checks manifest bytes read from `path`.
    pub fn parse(path: &Path, text: &[u8]) -> Result<Manifest, CollectionError> {
        let invalid = |detail: String| CollectionError::Manifest {
            path: path.to_path_buf(),
            detail,
        };
        check_head(text).map_err(invalid)?;
        let manifest: Manifest =
            serde_json::from_slice(text).map_err(|e| invalid(format!("invalid manifest: {e}")))?;
        manifest.validate().map_err(invalid)?;
        Ok(manifest)
    }

    /// Checks the invariants a writer relies on; the text says what is wrong.
    fn validate(&self) -> Result<(), String> {
        let mut files = HashSet::new();
        for sub in &self.subindexes {
            if !is_plain_file_name(&sub.file) {
                return Err(format!(
                    "sub-index file name {:?} is not a plain file name inside the collection",
                    sub.file
                ));
            }
            if !files.insert(sub.file.as_str()) {
                return Err(format!("sub-index {:?} is listed twice", sub.file));
            }
            if sub.documents.len() as u64 != sub.document_count {
                return Err(format!(
                    "sub-index {:?} lists {} names for {} documents",
                    sub.file,
                    sub.documents.len(),
                    sub.document_count
                ));
            }
            if let Some(&bad) = sub.padding.iter().find(|&&p| p >= sub.document_count) {
                return Err(format!(
                    "sub-index {:?} has a placeholder at {bad}, past its {} documents",
                    sub.file, sub.document_count
                ));
            }
        }
        Ok(())
    }

    /// Writes the manifest into `directory` atomically: a temporary file, fsync, rename over
    /// the manifest, fsync of the directory. Raises the generation first.
    pub fn commit(&mut self, directory: &Path) -> Result<(), CollectionError> {
        self.generation += 1;
        // New sub-index files must be durable before the manifest that lists them.
        sync_directory(directory)?;
        let path = directory.join(MANIFEST_NAME);
        let temporary = directory.join(format!(".{MANIFEST_NAME}.tmp-{}", std::process::id()));
        let mut text = serde_json::to_vec_pretty(self).map_err(|e| {
            CollectionError::Invalid(format!("cannot encode the collection manifest: {e}"))
        })?;
        text.push(b'\n');
        let write = |file: &mut File| -> std::io::Result<()> {
            file.write_all(&text)?;
            file.sync_all()
        };
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&temporary)
            .map_err(CollectionError::io(
                &temporary,
                "cannot write the collection manifest",
            ))?;
        if let Err(e) = write(&mut file) {
            let _ = std::fs::remove_file(&temporary);
            return Err(CollectionError::io(
                &temporary,
                "cannot write the collection manifest",
            )(e));
        }
        drop(file);
        crash::point("manifest-written");
        std::fs::rename(&temporary, &path).map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            CollectionError::io(&path, "cannot replace the collection manifest")(e)
        })?;
        crash::point("manifest-renamed");
        sync_directory(directory)
    }

    /// File names of the sub-indexes.
    pub fn files(&self) -> HashSet<&str> {
        self.subindexes.iter().map(|s| s.file.as_str()).collect()
    }

    /// The file name of the next sub-index, with extension `extension`, and reserves it.
    pub fn reserve_file(&mut self, extension: &str) -> String {
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
pub fn sync_directory(directory: &Path) -> Result<(), CollectionError> {
    let dir = File::open(directory).map_err(CollectionError::io(
        directory,
        "cannot open the directory to sync it",
    ))?;
    dir.sync_all()
        .map_err(CollectionError::io(directory, "cannot sync the directory"))
}

/// The path of sub-index `file` of the collection in `directory`.
pub fn subindex_path(directory: &Path, file: &str) -> PathBuf {
    directory.join(file)
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
            bytes: 100,
            document_count: names.len() as u64,
            documents: names.iter().map(|n| n.to_string()).collect(),
            hidden: Vec::new(),
            padding: Vec::new(),
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
        }
    }

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
        assert_eq!(loaded, manifest);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec![MANIFEST_NAME.to_string()], "no temporary left");
    }

    #[test]
    fn hidden_names_and_placeholders() {
        let mut s = sub("sub-000001.cobs_compact", &["a", "b", "a", PADDING_NAME]);
        s.hidden = vec!["a".into()];
        s.padding = vec![3];
        assert_eq!(s.hidden_documents(), vec![0, 2, 3]);
        assert_eq!(s.visible_names().collect::<Vec<_>>(), vec!["b"]);
        assert_eq!(s.visible_count(), 1);
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
        manifest.version = 2;
        let text = serde_json::to_string(&manifest).unwrap();
        assert!(error(&text).contains("version 2 is not supported"));
        let mut manifest = Manifest::new(parameters());
        manifest
            .subindexes
            .push(sub("../escape.cobs_compact", &["a"]));
        let text = serde_json::to_string(&manifest).unwrap();
        assert!(error(&text).contains("not a plain file name"));
        let mut manifest = Manifest::new(parameters());
        let mut s = sub("sub-000001.cobs_compact", &["a"]);
        s.document_count = 2;
        manifest.subindexes.push(s);
        let text = serde_json::to_string(&manifest).unwrap();
        assert!(error(&text).contains("1 names for 2 documents"));
    }
}

/// A manifest's format and version, every other field ignored and nothing held (a DOM of a
/// 661k-genome collection's names would take several times their size).
#[derive(Deserialize)]
struct Head {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

impl Head {
    fn check(&self) -> Result<(), String> {
        if self.format.as_ref().and_then(|f| f.as_str()) != Some(FORMAT_NAME) {
            return Err(format!("not a {FORMAT_NAME} manifest"));
        }
        match self.version.as_ref().and_then(|v| v.as_u64()) {
            Some(v) if v == FORMAT_VERSION as u64 => Ok(()),
            Some(v) => Err(format!(
                "manifest version {v} is not supported (this bitsift reads version {FORMAT_VERSION}); use a newer bitsift"
            )),
            None => Err("the manifest has no version".into()),
        }
    }
}

/// Checks a manifest's format and version.
fn check_head(text: &[u8]) -> Result<(), String> {
    let head: Head = serde_json::from_slice(text)
        .map_err(|e| format!("not valid JSON: {e}; the manifest is damaged"))?;
    head.check()
}

/// What a search needs of a manifest: each sub-index's file, document count and hidden
/// documents. Read without keeping every document name as a string of its own: the names of
/// a 661k-genome collection are ~10 MB of text, and ~45 MB as strings.
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
    /// Documents in the file.
    pub document_count: u64,
    /// Numbers of the documents never reported (tombstones and placeholders), sorted.
    pub hidden: Vec<u64>,
}

impl SearchView {
    /// Reads and checks the manifest of `directory` for a search.
    pub(crate) fn load(directory: &Path) -> Result<SearchView, CollectionError> {
        let path = directory.join(MANIFEST_NAME);
        let io = || CollectionError::io(&path, "cannot read the collection manifest");
        let invalid = |detail: String| CollectionError::Manifest {
            path: path.clone(),
            detail,
        };
        // Streamed twice (head, then the view), never held whole.
        let open = || std::fs::File::open(&path).map(std::io::BufReader::new);
        let head: Head = serde_json::from_reader(open().map_err(io())?)
            .map_err(|e| invalid(format!("not valid JSON: {e}; the manifest is damaged")))?;
        head.check().map_err(invalid)?;
        let raw: RawView = serde_json::from_reader(open().map_err(io())?)
            .map_err(|e| invalid(format!("invalid manifest: {e}")))?;
        let mut files = HashSet::new();
        let mut subindexes = Vec::with_capacity(raw.subindexes.len());
        for sub in raw.subindexes {
            if !is_plain_file_name(&sub.file) || !files.insert(sub.file.clone()) {
                return Err(invalid(format!(
                    "sub-index file name {:?} is not a plain file name inside the collection, or is listed twice",
                    sub.file
                )));
            }
            if sub.documents.count != sub.document_count {
                return Err(invalid(format!(
                    "sub-index {:?} lists {} names for {} documents",
                    sub.file, sub.documents.count, sub.document_count
                )));
            }
            if let Some(&bad) = sub.padding.iter().find(|&&p| p >= sub.document_count) {
                return Err(invalid(format!(
                    "sub-index {:?} has a placeholder at {bad}, past its {} documents",
                    sub.file, sub.document_count
                )));
            }
            let mut hidden = sub.documents.positions_of(&sub.hidden);
            hidden.extend_from_slice(&sub.padding);
            hidden.sort_unstable();
            hidden.dedup();
            subindexes.push(SearchEntry {
                file: sub.file,
                document_count: sub.document_count,
                hidden,
            });
        }
        Ok(SearchView {
            generation: raw.generation,
            subindexes,
        })
    }
}

#[derive(Deserialize)]
struct RawView {
    generation: u64,
    subindexes: Vec<RawEntry>,
}

#[derive(Deserialize)]
struct RawEntry {
    file: String,
    document_count: u64,
    documents: PackedNames,
    #[serde(default)]
    hidden: Vec<String>,
    #[serde(default)]
    padding: Vec<u64>,
}

/// Document names read into one buffer, each followed by a newline (names never hold one).
#[derive(Default)]
struct PackedNames {
    text: String,
    count: u64,
}

impl PackedNames {
    /// The positions of `names` among these, sorted (names not found are left out).
    fn positions_of(&self, names: &[String]) -> Vec<u64> {
        if names.is_empty() {
            return Vec::new();
        }
        let wanted: HashSet<&str> = names.iter().map(String::as_str).collect();
        self.text
            .split_terminator('\n')
            .enumerate()
            .filter(|(_, name)| wanted.contains(name))
            .map(|(number, _)| number as u64)
            .collect()
    }
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
                    names.count += 1;
                }
                Ok(names)
            }
        }
        deserializer.deserialize_seq(Visit)
    }
}

#[cfg(test)]
mod search_view_tests {
    use super::*;

    #[test]
    fn a_search_reads_what_the_full_manifest_says() {
        let dir = tempfile::tempdir().unwrap();
        let mut manifest = Manifest::new(Parameters {
            k: 31,
            canonical: true,
            hashes: 1,
            fpr: Some(0.3),
            page_size: None,
            rows: RowSizing::Exact,
        });
        for (n, hidden) in [(5u64, vec!["d2", "d4"]), (3, vec![])] {
            manifest.subindexes.push(SubIndex {
                file: format!("sub-{n}.cobs_compact"),
                kind: SubIndexKind::Compact,
                page_size: 1,
                blocks: 1,
                bytes: 100,
                document_count: n,
                documents: (0..n).map(|d| format!("d{d}")).collect(),
                hidden: hidden.into_iter().map(String::from).collect(),
                padding: if n == 3 { vec![1] } else { vec![] },
                created: "2026-01-01T00:00:00Z".into(),
                provenance: Provenance {
                    bitsift_version: "0".into(),
                    command: "add".into(),
                    options: serde_json::json!({}),
                    inputs: vec![],
                },
            });
        }
        std::fs::write(
            dir.path().join(MANIFEST_NAME),
            serde_json::to_vec(&manifest).unwrap(),
        )
        .unwrap();
        let view = SearchView::load(dir.path()).unwrap();
        assert_eq!(view.generation, manifest.generation);
        for (entry, sub) in view.subindexes.iter().zip(&manifest.subindexes) {
            assert_eq!(entry.file, sub.file);
            assert_eq!(entry.document_count, sub.document_count);
            assert_eq!(entry.hidden, sub.hidden_documents());
        }
        assert_eq!(view.subindexes[0].hidden, vec![2, 4]);
        assert_eq!(view.subindexes[1].hidden, vec![1]);
    }
}
