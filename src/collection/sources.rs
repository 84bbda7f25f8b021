//! From `-i` paths to what a search reads: index files and, per file, the documents to hide.
//!
//! A path is an index file, a collection directory (its manifest says which files to open and
//! which documents are removed), or a plain directory scanned recursively for index files and
//! collections, in path order. A list file names such paths, one per line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::manifest::{check_file, subindex_path, Expected, Manifest, SearchView};
use super::manifest_file::is_collection;
use super::names::MANIFEST_NAME;
use super::CollectionError;
use crate::format::{has_index_extension, index_visit, HeaderOptions, IndexHeader};
use crate::io::FileIdentity;
use crate::query::{Index, IndexOptions, OpenError, Sources};
use crate::walk::{walk, Visit};

/// Index files to search and the documents each must not report; see the module docs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchSet {
    /// Index files, in search order.
    pub paths: Vec<PathBuf>,
    /// Per file, the document numbers hidden from results (tombstones, placeholders).
    pub hidden: Vec<Vec<u64>>,
    /// Per file, what its collection manifest records of it (`None`: not in a collection).
    expected: Vec<Option<Expected>>,
    /// The collections read, with the manifest seen.
    collections: Vec<CollectionSeen>,
    /// Per file: the collection (position in `collections`) it belongs to, if any.
    collection_of: Vec<Option<usize>>,
}

/// A collection as a [`SearchSet`] read it: what a server compares with the manifest now to
/// see a commit.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionSeen {
    /// The collection's directory, as given.
    pub directory: PathBuf,
    /// The manifest's generation.
    pub generation: u64,
    /// The manifest file's identity, taken before it was read (`None`: it could not be
    /// taken): a commit after that point replaces the file, so a later comparison sees it.
    pub manifest: Option<FileIdentity>,
    /// For a collection on a server: the version of the manifest read (its ETag and size).
    pub remote: Option<RemoteVersion>,
}

/// One version of a remote manifest: its ETag (when the server gives one) and size. A commit
/// on the origin replaces the file, which gives it another ETag (nginx: modification time and
/// size; S3: content digest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteVersion {
    /// The ETag.
    pub etag: Option<String>,
    /// The size in bytes.
    pub size: u64,
}

/// The version of the remote manifest `url` this process opened, if it opened it.
#[cfg(feature = "remote")]
fn remote_version_read(url: &Path) -> Option<RemoteVersion> {
    let object = crate::io::remote::RemoteObject::open(&url.to_string_lossy()).ok()?;
    Some(RemoteVersion {
        etag: object.etag.clone(),
        size: object.size,
    })
}

#[cfg(not(feature = "remote"))]
fn remote_version_read(_url: &Path) -> Option<RemoteVersion> {
    None
}

impl CollectionSeen {
    /// The version of a remote collection's manifest on its server now (one `HEAD`
    /// request; `None` for a local collection). A version other than the one read is
    /// forgotten by this process, so that the next open reads the new one.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn remote_version_now(&self) -> Option<std::io::Result<RemoteVersion>> {
        if !crate::io::is_remote(&self.directory) {
            return None;
        }
        #[cfg(feature = "remote")]
        {
            let url = self.directory.join(MANIFEST_NAME);
            let now = crate::io::remote::RemoteObject::stamp_now(&url.to_string_lossy());
            Some(now.map(|stamp| RemoteVersion {
                etag: stamp.etag,
                size: stamp.size,
            }))
        }
        #[cfg(not(feature = "remote"))]
        Some(Err(std::io::Error::other(
            "remote indexes are not built in",
        )))
    }

    /// Whether the manifest file is no longer the one read (a commit replaced it); always
    /// false for a remote collection, whose server is asked by [`Self::remote_version_now`].
    pub(crate) fn manifest_changed(&self) -> bool {
        let now = FileIdentity::of(&self.directory.join(MANIFEST_NAME)).ok();
        match (&self.manifest, now) {
            (Some(seen), Some(now)) => seen.difference(&now).is_some(),
            (seen, now) => seen.is_some() != now.is_some(),
        }
    }
}

/// One thing an index path names ([`find_indexes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexSource {
    /// An index file, searched on its own.
    File(PathBuf),
    /// A collection directory: its manifest says which files it holds.
    Collection(PathBuf),
}

/// Expands `paths` and the paths listed in `lists` into index files and collections, in
/// order: a collection directory stands for itself; any other directory is walked for index
/// files and collections, in path order (a collection found there is not walked into). A
/// list's lines are paths relative to its folder (`#` comments and empty lines skipped).
pub fn find_indexes(
    paths: &[PathBuf],
    lists: &[PathBuf],
) -> Result<Vec<IndexSource>, CollectionError> {
    let mut units = Vec::new();
    for path in paths {
        expand_path(path, &mut units)?;
    }
    for list in lists {
        let before = units.len();
        for path in read_list(list)? {
            expand_path(&path, &mut units)?;
        }
        if units.len() == before {
            return Err(CollectionError::Invalid(format!(
                "{}: the index list names no index",
                list.display()
            )));
        }
    }
    if units.is_empty() {
        return Err(OpenError::NoIndex.into());
    }
    Ok(units)
}

impl SearchSet {
    /// Expands `paths` and the paths listed in `lists` (relative to the list's folder; `#`
    /// comments and empty lines skipped). `subindexes`, when not empty, keeps only the
    /// sub-indexes of that file name in the collections given (each name must exist).
    pub(crate) fn expand(
        paths: &[PathBuf],
        lists: &[PathBuf],
        subindexes: &[String],
    ) -> Result<SearchSet, CollectionError> {
        let units = find_indexes(paths, lists)?;
        let mut set = SearchSet::default();
        let mut matched = vec![false; subindexes.len()];
        for unit in units {
            match unit {
                IndexSource::File(path) => set.push(path, Vec::new(), None),
                IndexSource::Collection(directory) => {
                    set.add_collection(&directory, subindexes, &mut matched)?
                }
            }
        }
        if !subindexes.is_empty() && set.collections.is_empty() {
            return Err(CollectionError::Invalid(
                "sub-indexes were selected but no collection was given".into(),
            ));
        }
        if let Some(missing) = matched.iter().position(|m| !m) {
            let directory = &set.collections[0].directory;
            let manifest = Manifest::load(directory)?;
            return Err(CollectionError::UnknownSubIndex {
                path: directory.clone(),
                name: subindexes[missing].clone(),
                listed: listed_names(&manifest),
            });
        }
        if set.paths.is_empty() {
            return Err(OpenError::NoIndex.into());
        }
        set.drop_repeats();
        Ok(set)
    }

    /// Keeps the first of several paths to the same file (same canonical path), with a
    /// warning: searching an index twice would report every hit twice.
    fn drop_repeats(&mut self) {
        let mut seen: HashMap<PathBuf, usize> = HashMap::with_capacity(self.paths.len());
        let mut keep = Vec::with_capacity(self.paths.len());
        for (position, path) in self.paths.iter().enumerate() {
            // A missing file keeps its own path; opening it reports the problem.
            let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            if let Some(&first) = seen.get(&key) {
                tracing::warn!(
                    "{}: the same index as {}; it is searched once",
                    path.display(),
                    self.paths[first].display()
                );
                keep.push(false);
            } else {
                seen.insert(key, position);
                keep.push(true);
            }
        }
        self.retain(&keep);
    }

    /// Keeps the files `keep` marks (a file past its end is kept), with what is known of
    /// each; the collections read stay listed.
    pub(crate) fn retain(&mut self, keep: &[bool]) {
        let mut flags = keep.iter();
        self.paths.retain(|_| *flags.next().unwrap_or(&true));
        let mut flags = keep.iter();
        self.hidden.retain(|_| *flags.next().unwrap_or(&true));
        let mut flags = keep.iter();
        self.expected.retain(|_| *flags.next().unwrap_or(&true));
        let mut flags = keep.iter();
        self.collection_of
            .retain(|_| *flags.next().unwrap_or(&true));
    }

    fn push(&mut self, path: PathBuf, hidden: Vec<u64>, expected: Option<Expected>) {
        self.paths.push(path);
        self.hidden.push(hidden);
        self.expected.push(expected);
        let collection = expected.map(|_| self.collections.len());
        self.collection_of.push(collection);
    }

    /// Per file: whether it belongs to a collection.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn collection_files(&self) -> Vec<bool> {
        self.collection_of.iter().map(Option::is_some).collect()
    }

    /// What answers call the files: a collection's files by the collection (its directory
    /// as given), other files by their path as given.
    pub(crate) fn sources(&self) -> Sources {
        let mut sources = Sources::default();
        let mut source_of_collection: HashMap<usize, u32> = HashMap::new();
        for (path, collection) in self.paths.iter().zip(&self.collection_of) {
            let source = match collection {
                Some(c) => *source_of_collection.entry(*c).or_insert_with(|| {
                    // Its directory as given, as a file is named by its path.
                    sources
                        .names
                        .push(self.collections[*c].directory.display().to_string());
                    (sources.names.len() - 1) as u32
                }),
                None => {
                    sources.names.push(path.display().to_string());
                    (sources.names.len() - 1) as u32
                }
            };
            sources.of_file.push(source);
        }
        sources
    }

    fn add_collection(
        &mut self,
        directory: &Path,
        subindexes: &[String],
        matched: &mut [bool],
    ) -> Result<(), CollectionError> {
        // Its identity before its bytes: a commit from here on is seen by the next comparison.
        let identity = FileIdentity::of(&directory.join(MANIFEST_NAME)).ok();
        let manifest = SearchView::load(directory)?;
        if manifest.subindexes.is_empty() {
            return Err(CollectionError::Invalid(format!(
                "{}: the collection holds no sub-index (every document was removed and merged away)",
                directory.display()
            )));
        }
        for sub in &manifest.subindexes {
            if !subindexes.is_empty() {
                let Some(position) = subindexes.iter().position(|s| *s == sub.file) else {
                    continue;
                };
                matched[position] = true;
            }
            self.push(
                subindex_path(directory, &sub.file),
                sub.hidden.clone(),
                Some(sub.expected),
            );
        }
        let remote = crate::io::is_remote(directory)
            .then(|| remote_version_read(&directory.join(MANIFEST_NAME)))
            .flatten();
        self.collections.push(CollectionSeen {
            directory: directory.to_path_buf(),
            generation: manifest.generation,
            manifest: identity,
            remote,
        });
        Ok(())
    }

    /// As [`SearchSet::open`], keeping at most `side_memory` bytes of side-file pages
    /// (checksums, block summaries) between queries ([`Index::open_with`]), the files named
    /// in answers by `sources`.
    pub(crate) fn open_named(
        &self,
        options: &HeaderOptions,
        side_memory: u64,
        sources: Sources,
    ) -> Result<Arc<Index>, CollectionError> {
        let options = IndexOptions {
            header: *options,
            side_memory,
            sources: Some(sources),
        };
        let index = Index::open_with(&self.paths, &self.hidden, &options)?;
        for (position, header) in index.headers().iter().enumerate() {
            self.check_header(position, header)?;
        }
        Ok(index)
    }

    /// Checks that file `position`'s header agrees with what its collection's manifest
    /// records of it (nothing to check for a file of its own).
    pub(crate) fn check_header(
        &self,
        position: usize,
        header: &IndexHeader,
    ) -> Result<(), CollectionError> {
        let Some(Some(expected)) = self.expected.get(position) else {
            return Ok(());
        };
        check_file(header, expected).map_err(|detail| CollectionError::Manifest {
            path: header.path.clone(),
            detail: detail.to_string(),
        })
    }

    /// Whether a collection's manifest was replaced since this set was expanded.
    pub(crate) fn changed_since(&self) -> bool {
        self.collections
            .iter()
            .any(CollectionSeen::manifest_changed)
    }

    /// The collections read, in the order their files come.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn collections(&self) -> &[CollectionSeen] {
        &self.collections
    }

    /// Per file: the collection (position in [`SearchSet::collections`]) it belongs to.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn collection_of(&self) -> &[Option<usize>] {
        &self.collection_of
    }
}

fn listed_names(manifest: &Manifest) -> String {
    let names: Vec<&str> = manifest
        .subindexes
        .iter()
        .map(|s| s.file.as_str())
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn expand_path(path: &Path, units: &mut Vec<IndexSource>) -> Result<(), CollectionError> {
    if crate::io::is_remote(path) {
        units.push(remote_source(path));
    } else if is_collection(path) {
        units.push(IndexSource::Collection(path.to_path_buf()));
    } else if path.is_dir() {
        let found = walk(path, &mut |entry, _| match is_collection(entry) {
            true => Visit::Take,
            false => index_visit(entry),
        })?;
        if found.is_empty() {
            return Err(CollectionError::Invalid(format!(
                "{}: directory holds no .cobs_compact or .cobs_classic files and no collection",
                path.display()
            )));
        }
        units.extend(found.into_iter().map(|found| match is_collection(&found) {
            true => IndexSource::Collection(found),
            false => IndexSource::File(found),
        }));
    } else {
        units.push(IndexSource::File(path.to_path_buf()));
    }
    Ok(())
}

/// What a URL names, without a request (a server cannot list a directory): an index file by
/// its extension, a collection by its manifest's URL or by its directory's (any other URL).
fn remote_source(url: &Path) -> IndexSource {
    if has_index_extension(url) {
        return IndexSource::File(url.to_path_buf());
    }
    if url.file_name().is_some_and(|name| name == MANIFEST_NAME) {
        if let Some(directory) = url.parent() {
            return IndexSource::Collection(directory.to_path_buf());
        }
    }
    let text = url.to_string_lossy();
    IndexSource::Collection(PathBuf::from(text.trim_end_matches('/')))
}

fn read_list(list: &Path) -> Result<Vec<PathBuf>, CollectionError> {
    crate::walk::read_list(list).map_err(CollectionError::io(list, "cannot read index list"))
}
