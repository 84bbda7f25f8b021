//! What `query` and `serve` say when they are given no index (the indexes themselves are
//! expanded and opened by `bitsift::search`).

use bitsift::collection::CollectionError;

/// What `query` and `serve` say when no index was given (or none was found).
pub(crate) const NO_INDEX_GIVEN: &str =
    "no index given: pass -i INDEX (a file, a directory of indexes or a collection) or --index-list FILE";

/// Adds the options to an error that says no index was given.
pub(crate) fn no_index_hint(error: CollectionError) -> anyhow::Error {
    match error {
        CollectionError::Open(bitsift::query::OpenError::NoIndex) => {
            anyhow::anyhow!(NO_INDEX_GIVEN)
        }
        other => other.into(),
    }
}
