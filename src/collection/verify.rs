//! Checking a collection without searching it ([`check`]): its manifest (checksum, version
//! and rules), that every sub-index file is the one the manifest describes (its documents and
//! the digest of their names), and which files of the directory the manifest does not list.
//! Reading every page of the files and their side files is the caller's, file by file
//! (`bitsift verify`).

use std::path::PathBuf;

use super::clean::unlisted;
use super::manifest::{subindex_path, Manifest};
use super::CollectionError;
use crate::format::IndexHeader;

/// What [`check`] found.
#[derive(Debug)]
pub struct CollectionCheck {
    /// The manifest, checked.
    pub manifest: Manifest,
    /// Every sub-index the manifest lists, in search order.
    pub subindexes: Vec<SubIndexCheck>,
    /// Files of the directory the manifest does not list: not part of the collection, and
    /// not checked.
    pub unlisted: Vec<Unlisted>,
}

/// One sub-index file as [`check`] found it.
#[derive(Debug)]
pub struct SubIndexCheck {
    /// The file.
    pub path: PathBuf,
    /// What is wrong (naming the file), unless its header opens and is the file the
    /// manifest describes.
    pub problem: Option<String>,
}

/// A file in a collection directory that its manifest does not list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unlisted {
    /// The file.
    pub path: PathBuf,
    /// Whether it is what an interrupted writer leaves (a sub-index, sidecar or temporary
    /// file not listed), which the next add, remove or merge removes; else someone else's.
    pub leftover: bool,
}

/// Checks the collection in `directory`: an error when its manifest cannot be read or breaks
/// a rule (the collection cannot be trusted at all); otherwise each sub-index file's header
/// against its entry, and the files not listed.
pub fn check(directory: &std::path::Path) -> Result<CollectionCheck, CollectionError> {
    let manifest = Manifest::load(directory)?;
    let subindexes = manifest
        .subindexes
        .iter()
        .map(|sub| {
            let path = subindex_path(directory, &sub.file);
            let problem = match IndexHeader::open_whole(&path, &Default::default()) {
                Ok(header) => sub
                    .check_header(&manifest.parameters, &header)
                    .err()
                    .map(|detail| format!("{}: {detail}", path.display())),
                Err(error) => Some(error.to_string()),
            };
            SubIndexCheck { path, problem }
        })
        .collect();
    let unlisted = unlisted(directory, &manifest)?
        .into_iter()
        .map(|(name, leftover)| Unlisted {
            path: directory.join(name),
            leftover,
        })
        .collect();
    Ok(CollectionCheck {
        manifest,
        subindexes,
        unlisted,
    })
}
