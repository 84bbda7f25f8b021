//! Collections: a directory of COBS compact sub-indexes and a manifest, `collection.json`,
//! that grows and shrinks without a rebuild.
//!
//! The principal types are [`Manifest`] (what the collection holds: parameters, sub-indexes
//! with their documents and provenance, tombstones, a generation counter) and [`SearchSet`]
//! (the index files a search reads and the documents it hides, from `-i` paths that may name
//! collections). Writers are [`add()`], [`remove()`] and [`merge()`]; each takes the directory's
//! exclusive lock ([`WriterLock`]), writes new files under names the manifest does not list
//! yet, and commits by replacing the manifest atomically (write a temporary file, fsync,
//! rename, fsync the directory). The manifest is the commit point: a reader opens it once and
//! only the files it lists, so a writer killed at any moment leaves the collection as it was
//! before or as it is after; its leftovers are removed by the next writer ([`clean`]).
//!
//! A collection is its manifest: a directory holding sub-index files but no readable
//! manifest is an error for every reader and writer ([`is_collection`],
//! [`CollectionError::ManifestLost`]), never searched as a plain directory of indexes (its
//! removed genomes would come back) nor cleaned up as a new collection; [`recover()`]
//! rebuilds a manifest from the files, and says that the removals it recorded are lost.
//!
//! Every sub-index is a plain COBS compact (or adopted classic) file that COBS itself can
//! search. Removed documents stay in their files until a merge and are hidden from results
//! ([`crate::query::Index::hide`]); a merge copies whole blocks verbatim and re-packs the bit
//! columns of the others into fewer, fuller blocks: a column tiled to a block of more rows
//! keeps its exact Bloom filter and its scores; one folded to fewer rows (only within a
//! false-positive bound) keeps every k-mer and gains false positives ([`merge()`]).
//!
//! ```no_run
//! use bitsift::search::{IndexSources, SearchSetup};
//! let setup = SearchSetup {
//!     sources: IndexSources { paths: vec!["genomes/".into()], ..Default::default() },
//!     ..Default::default()
//! };
//! let opened = setup.open()?;
//! println!("{} sub-indexes", opened.index.headers().len());
//! # Ok::<(), bitsift::collection::CollectionError>(())
//! ```

mod add;
mod bits;
mod clean;
mod crash;
mod lock;
mod manifest;
mod manifest_file;
mod merge;
mod merge_check;
mod merge_plan;
mod merge_record;
mod merge_rows;
mod merge_summaries;
mod names;
mod records;
mod recover;
mod remove;
mod seal;
mod sources;
mod verify;

use crate::IoAt;
use std::path::PathBuf;

pub use add::{add, AddOptions, AddReport, DuplicatePolicy, ExplicitParameters};
pub use manifest::{Differs, Manifest, Parameters, Provenance, SubIndex, SubIndexKind};
pub use manifest_file::is_collection;
pub use merge::{merge, MergeOptions, MergePlan, MergeReport, PlannedOutput};
pub use names::MANIFEST_NAME;
pub use records::{records, CollectionRecords};
pub use recover::{recover, RecoverReport};
pub use remove::{remove, RemoveOptions, RemoveReport};
pub use sources::{find_indexes, CollectionSeen, IndexSource, RemoteVersion, SearchSet};
pub use verify::{check, CollectionCheck, SubIndexCheck, Unlisted};

/// Suffixes bitsift appends to an index file's name for its sidecar files (page checksums,
/// block summaries, counts of ones, build record). They travel with their index when it is
/// adopted and are deleted with it.
pub(crate) const SIDECAR_SUFFIXES: &[&str] = &[
    ".bitsift-checksums",
    ".bitsift-summaries",
    ".bitsift-ones",
    ".bitsift-build",
    ".bitsift-build-documents",
];

/// Why a collection could not be read or changed. Nothing is changed when a writer fails.
#[derive(Debug, thiserror::Error)]
pub enum CollectionError {
    /// The operating system refused an operation on a file.
    #[error(transparent)]
    Io(#[from] IoAt),
    /// The manifest cannot be used.
    #[error("{path}: {detail}", path = path.display())]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// A collection directory (it holds sub-index files, or something named like its
    /// manifest) whose manifest cannot be read: which files and documents belong to it is
    /// unknown, so it is neither searched nor changed.
    #[error("{path}: {problem}; without it, which files and documents belong to the collection is unknown (a search of the files would find removed genomes again), so nothing was searched or changed; restore collection.json from a backup, or `bitsift recover {path}` rebuilds it from the sub-index files there (documents removed since those files were written are then found again, until they are removed again)", path = path.display())]
    ManifestLost {
        /// The collection's directory.
        path: PathBuf,
        /// What is wrong with the manifest.
        problem: String,
    },
    /// A collection's manifest cannot be rebuilt from its files ([`recover()`]).
    #[error("{path}: {detail}; nothing was changed", path = path.display())]
    Unrecoverable {
        /// The directory, or the sub-index file in the way.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// A directory that holds other files but no manifest.
    #[error("{path}: not a bitsift collection (no collection.json) and not empty; give a new or empty directory", path = path.display())]
    NotACollection {
        /// The directory.
        path: PathBuf,
    },
    /// New documents or an index do not fit the collection's parameters.
    #[error("{path}: {detail}", path = path.display())]
    Mismatch {
        /// The collection (or the index being adopted).
        path: PathBuf,
        /// Which parameter differs, and how.
        detail: String,
    },
    /// New genomes to build into a collection whose false-positive rate is unknown (only
    /// adopted sub-indexes so far: COBS headers do not record it).
    #[error("{path}: the collection's false-positive rate is unknown (its sub-indexes were adopted, and COBS headers do not record it), so new genomes cannot be built to match it; give the false-positive rate to build them with, and the collection records it", path = path.display())]
    UnknownFpr {
        /// The collection.
        path: PathBuf,
    },
    /// An index to adopt does not have the collection's parameters.
    #[error("{path}: {detail}", path = path.display())]
    AdoptMismatch {
        /// The index.
        path: PathBuf,
        /// Which parameter differs, and how.
        detail: String,
    },
    /// Document names that the collection already shows.
    #[error("{path}: {count} document name(s) already in the collection or repeated: {shown}; nothing was added", path = path.display(), shown = names.join(", "))]
    Duplicates {
        /// The collection.
        path: PathBuf,
        /// The first few names.
        names: Vec<String>,
        /// How many.
        count: usize,
    },
    /// Names to remove that the collection does not show.
    #[error("{path}: {count} document name(s) not in the collection (or already removed): {shown}; nothing was removed", path = path.display(), shown = names.join(", "))]
    UnknownDocuments {
        /// The collection.
        path: PathBuf,
        /// The first few names.
        names: Vec<String>,
        /// How many.
        count: usize,
    },
    /// A sub-index name that the collection does not list.
    #[error("{path}: no sub-index named {name:?}; the collection lists {listed}", path = path.display())]
    UnknownSubIndex {
        /// The collection.
        path: PathBuf,
        /// The name asked for.
        name: String,
        /// The names it has.
        listed: String,
    },
    /// An index file is not valid.
    #[error(transparent)]
    Format(#[from] crate::format::FormatError),
    /// Opening the index files for searching failed.
    #[error(transparent)]
    Open(#[from] crate::query::OpenError),
    /// Building the new sub-index failed.
    #[error(transparent)]
    Build(#[from] crate::builder::BuildError),
    /// A sub-index's bytes could not be read, or do not match its checksums.
    #[error("{0}; the collection was not changed")]
    Read(#[from] crate::read::ReadError),
    /// A sub-index to merge has no checksums, so damage in it cannot be told from data.
    #[error("{path}: has no checksums, so damage in it cannot be told from data, and the merged sub-index's checksums would vouch for bytes nobody checked; nothing was merged", path = path.display())]
    Unverified {
        /// The sub-index.
        path: PathBuf,
    },
    /// A merged sub-index failed the check it must pass before the manifest names it.
    #[error("{path}: the merged sub-index failed verification: {detail}; it was deleted and the collection was not changed", path = path.display())]
    MergedDamaged {
        /// The merged file.
        path: PathBuf,
        /// What failed.
        detail: String,
    },
    /// Something asked of the collection cannot be done.
    #[error("{0}")]
    Invalid(String),
}

impl From<crate::io::IoError> for CollectionError {
    fn from(error: crate::io::IoError) -> CollectionError {
        CollectionError::Read(error.into())
    }
}

impl CollectionError {
    pub(crate) fn io(
        path: impl Into<PathBuf>,
        action: &'static str,
    ) -> impl FnOnce(std::io::Error) -> CollectionError {
        let path = path.into();
        move |source| CollectionError::Io(IoAt::new(path, action, source))
    }
}

/// Names shown in an error: the first few of a longer list.
pub(crate) const NAMES_SHOWN_MAX: usize = 5;
