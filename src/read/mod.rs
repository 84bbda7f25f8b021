//! The read path: what stands between a query and the I/O engine.
//!
//! An engine ([`crate::io::ReadEngine`]) reads byte ranges. Everything a search adds to that is
//! a layer that wraps an engine and is itself an engine, the way the fault-injecting engine
//! is, so every reader of index bytes (search, coverage, merge, verify) gets the same checks
//! and caching by going through it:
//!
//! ```text
//! session ─ block summaries (screen: summary pages, fetched like any side page)
//!         ─ CachedReads   row cache: reads served from / stored in the process's page cache
//!         ─ CheckedReads  checksums: every read of a file with a sidecar checked before use
//!         ─ [FaultEngine] (tests)
//!         ─ engine        uring, pread, mmap, ram
//! ```
//!
//! Side files (checksum sidecars, block summaries) grow with the index, so they are never
//! loaded whole: they are opened with the index files in one engine, their pages are read
//! when a batch needs them, through the same engine and counted as the batch's side reads,
//! checked, held for the batch ([`PinnedPages`]) and kept within a fixed budget in a shared
//! side cache ([`crate::io::PageCache`] of [`SIDE_PAGE_BYTES`] pages). [`with_layers`]
//! assembles the stack for one call.

mod cached;
mod checked;
mod integrity;
mod pins;
mod range;

use std::path::PathBuf;

pub(crate) use cached::CachedReads;
pub(crate) use checked::CheckedReads;
pub use integrity::{Integrity, ReadError};
pub(crate) use pins::{PinnedPages, PINNED_PAGES_MAX, SIDE_PAGE_BYTES};
pub(crate) use range::read_range;

use crate::io::{PageCache, ReadEngine};

/// What the layers of one call share: the index's checksums, the caches, and how engine
/// files are named.
pub struct Layers<'a> {
    /// Checksums every read of a covered file is checked against.
    pub integrity: &'a Integrity,
    /// The shared cache of side-file pages (checksums, summaries), if any.
    pub side_cache: Option<&'a PageCache>,
    /// The shared row cache of index files, if any.
    pub row_cache: Option<&'a PageCache>,
    /// Engine files `0..index_files` are index files (cached in the row cache); the others
    /// are side files.
    pub index_files: u32,
    /// The path of every engine file, for errors.
    pub paths: &'a [PathBuf],
}

/// Buffers the layers reuse from call to call.
#[derive(Default)]
pub struct LayerScratch {
    /// Sidecar pages pinned for the batch being checked.
    pub pins: PinnedPages,
    /// Reads assembled from several cached pages.
    pub assembled: Vec<u8>,
}

/// Runs `f` with `engine` wrapped in the layers `layers` asks for: checksums, then the row
/// cache above them.
pub fn with_layers<R>(
    engine: &mut dyn ReadEngine,
    layers: &Layers<'_>,
    scratch: &mut LayerScratch,
    f: impl FnOnce(&mut dyn ReadEngine) -> R,
) -> R {
    let mut checked = CheckedReads::new(
        engine,
        layers.integrity,
        layers.side_cache,
        &mut scratch.pins,
        layers.paths,
    );
    match layers.row_cache {
        Some(cache) => {
            let mut cached = CachedReads::new(
                &mut checked,
                cache,
                layers.index_files,
                &mut scratch.assembled,
            );
            f(&mut cached)
        }
        None => f(&mut checked),
    }
}

#[cfg(test)]
pub(crate) mod conformance;
#[cfg(test)]
pub(crate) mod testing;
