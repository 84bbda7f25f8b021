//! The index files of `query` and `serve`: files, directories, collections and list files
//! expanded in order ([`SearchSet`]), with an index named twice (by any path) searched once.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use bitsift::collection::{CollectionError, SearchSet};
use bitsift::format::HeaderOptions;
use bitsift::query::Index;

/// Expands and opens, as `query` does (again if a collection changed in between).
pub fn open_index(
    paths: &[PathBuf],
    lists: &[PathBuf],
    subindexes: &[String],
    options: &HeaderOptions,
    side_memory: u64,
) -> Result<Arc<Index>> {
    let (_, index) = SearchSet::open_fresh(paths, lists, subindexes, options, side_memory)
        .map_err(no_index_hint)?;
    Ok(index)
}

/// What `query` and `serve` say when no index was given (or none was found).
pub const NO_INDEX_GIVEN: &str =
    "no index given: pass -i INDEX (a file, a directory of indexes or a collection) or --index-list FILE";

/// Adds the options to an error that says no index was given.
pub fn no_index_hint(error: CollectionError) -> anyhow::Error {
    match error {
        CollectionError::Open(bitsift::query::OpenError::NoIndex) => {
            anyhow::anyhow!(NO_INDEX_GIVEN)
        }
        other => other.into(),
    }
}
