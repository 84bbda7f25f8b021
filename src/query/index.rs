//! [`Index`]: the index files a search reads, parsed and validated once.
//!
//! An `Index` holds every file's header (geometry, parameters, document names) and the blocks
//! of all files flattened into one list in (file, block) order. It never changes after
//! opening, so the sessions of every server worker or thread share one through an `Arc`;
//! each [`super::Session`] adds its own engine and buffers.

use std::path::PathBuf;
use std::sync::Arc;

use strength_reduce::StrengthReducedU64;

use super::integrity::Integrity;
use super::plan::PlanBlock;
use crate::format::{FormatError, HeaderOptions, IndexHeader};
use crate::io::WarmRange;

/// Why indexes could not be opened for searching.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// An index file is not a valid COBS index.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The engine could not be set up.
    #[error(transparent)]
    Io(#[from] crate::io::IoError),
    /// Nothing to search.
    #[error("no index given")]
    NoIndex,
}

/// Parsed index files; see the module documentation.
#[derive(Debug)]
pub struct Index {
    headers: Vec<IndexHeader>,
    blocks: Vec<PlanBlock>,
    integrity: Integrity,
}

impl Index {
    /// Opens and validates every file.
    pub fn open(paths: &[PathBuf], options: &HeaderOptions) -> Result<Arc<Index>, OpenError> {
        let headers = paths
            .iter()
            .map(|path| IndexHeader::open_with(path, options))
            .collect::<Result<Vec<_>, _>>()?;
        let integrity = Integrity::load(&headers)?;
        let mut index = Index::from_headers(headers)?;
        index.integrity = integrity;
        Ok(Arc::new(index))
    }

    /// An index over already-parsed headers, without checksums (see [`Index::open`], which
    /// loads each file's checksum sidecar).
    pub fn from_headers(headers: Vec<IndexHeader>) -> Result<Index, OpenError> {
        if headers.is_empty() {
            return Err(OpenError::NoIndex);
        }
        let mut blocks = Vec::new();
        for (index, header) in headers.iter().enumerate() {
            for block in &header.blocks {
                blocks.push(PlanBlock {
                    index: index as u32,
                    file: index as u32,
                    data_offset: block.data_offset,
                    row_count: block.row_count,
                    row_bytes: block.row_bytes,
                    used_bytes: block.document_count.div_ceil(8).min(block.row_bytes),
                    num_hashes: header.num_hashes,
                    document_count: block.document_count,
                    first_document: block.first_document,
                    row_modulus: StrengthReducedU64::new(block.row_count),
                });
            }
        }
        Ok(Index {
            headers,
            blocks,
            integrity: Integrity::default(),
        })
    }

    /// The files' checksums: what every read is checked against.
    pub fn integrity(&self) -> &Integrity {
        &self.integrity
    }

    /// The headers, in the order given.
    pub fn headers(&self) -> &[IndexHeader] {
        &self.headers
    }

    /// The paths, in the order given.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.headers.iter().map(|h| h.path.clone()).collect()
    }

    /// Every block of every file, in (file, block) order.
    pub fn blocks(&self) -> &[PlanBlock] {
        &self.blocks
    }

    /// Number of index files.
    pub fn file_count(&self) -> usize {
        self.headers.len()
    }

    /// Largest term size over the files: a query must be at least this long.
    pub fn k_max(&self) -> u32 {
        self.headers.iter().map(|h| h.k).max().unwrap_or(0)
    }

    /// Total size of the files.
    pub fn bytes(&self) -> u64 {
        self.headers.iter().map(|h| h.file_size).sum()
    }

    /// The data sections, as ranges for a cache warm-up ([`crate::io::Warmup`]).
    pub fn warm_ranges(&self) -> Vec<WarmRange> {
        self.headers
            .iter()
            .enumerate()
            .map(|(file, header)| WarmRange {
                path: header.path.clone(),
                file: file as u32,
                start: header.data_offset,
                end: header.file_size,
            })
            .collect()
    }

    /// Checks that an engine sees every file at the size its header promises.
    pub fn check_sizes(&self, size_of: impl Fn(u32) -> u64) -> Result<(), OpenError> {
        for (file, header) in self.headers.iter().enumerate() {
            let found = size_of(file as u32);
            if found != header.file_size {
                return Err(OpenError::Format(FormatError::SizeMismatch {
                    path: header.path.clone(),
                    expected: header.file_size,
                    found,
                }));
            }
        }
        Ok(())
    }
}
