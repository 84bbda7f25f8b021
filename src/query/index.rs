//! [`Index`]: the index files a search reads, parsed and validated once.
//!
//! An `Index` holds every file's header (geometry, parameters, document names) and the blocks
//! of all files flattened into one list in (file, block) order. It never changes after
//! opening, so the sessions of every server worker or thread share one through an `Arc`;
//! each [`super::Session`] adds its own engine and buffers.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use strength_reduce::StrengthReducedU64;

use super::integrity::Integrity;
use super::plan::PlanBlock;
use super::screen::Summaries;
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
    /// A document to hide does not exist in its file (a collection manifest that disagrees
    /// with its sub-index).
    #[error("{path}: cannot hide document {document}: the index has {document_count} documents", path = path.display())]
    HiddenOutOfRange {
        /// The index file.
        path: PathBuf,
        /// The document number asked for.
        document: u64,
        /// Documents in the file.
        document_count: u64,
    },
}

/// Parsed index files; see the module documentation.
#[derive(Debug)]
pub struct Index {
    headers: Vec<IndexHeader>,
    blocks: Vec<PlanBlock>,
    integrity: Integrity,
    hidden: Vec<Option<HiddenDocuments>>,
    /// Per file: the number of its first block in `blocks`.
    first_block: Vec<u32>,
    /// Loaded by the first search that uses them.
    summaries: OnceLock<Summaries>,
}

/// Documents of one index file that searches never report: a collection's removed documents
/// (tombstones) and the placeholders that pad merged blocks. One bit per document, so the
/// check costs a load per reported document and nothing for files without hidden documents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HiddenDocuments {
    words: Vec<u64>,
    count: u64,
}

impl HiddenDocuments {
    /// Whether document `document` is hidden.
    #[inline]
    pub fn contains(&self, document: u64) -> bool {
        self.words
            .get((document / 64) as usize)
            .is_some_and(|word| word >> (document % 64) & 1 == 1)
    }

    /// A set from its bit words (bit `d % 64` of word `d / 64` hides document `d`).
    pub fn from_words(words: Vec<u64>) -> HiddenDocuments {
        let count = words.iter().map(|w| w.count_ones() as u64).sum();
        HiddenDocuments { words, count }
    }

    /// Number of hidden documents.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// True when no document is hidden.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl Index {
    /// Opens and validates every file.
    pub fn open(paths: &[PathBuf], options: &HeaderOptions) -> Result<Arc<Index>, OpenError> {
        Index::open_hiding(paths, &[], options)
    }

    /// As [`Index::open`], hiding documents from every result: `hidden[i]` lists document
    /// numbers of `paths[i]` (a missing or empty list hides nothing).
    pub fn open_hiding(
        paths: &[PathBuf],
        hidden: &[Vec<u64>],
        options: &HeaderOptions,
    ) -> Result<Arc<Index>, OpenError> {
        let headers = paths
            .iter()
            .map(|path| IndexHeader::open_with(path, options))
            .collect::<Result<Vec<_>, _>>()?;
        let integrity = Integrity::load(&headers)?;
        let mut index = Index::from_headers(headers)?;
        index.integrity = integrity;
        for (file, documents) in hidden.iter().enumerate().take(paths.len()) {
            index.hide(file, documents)?;
        }
        Ok(Arc::new(index))
    }

    /// An index over already-parsed headers, without checksums (see [`Index::open`], which
    /// loads each file's checksum sidecar).
    pub fn from_headers(headers: Vec<IndexHeader>) -> Result<Index, OpenError> {
        if headers.is_empty() {
            return Err(OpenError::NoIndex);
        }
        let mut blocks = Vec::new();
        let mut first_block = Vec::with_capacity(headers.len());
        for (index, header) in headers.iter().enumerate() {
            first_block.push(blocks.len() as u32);
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
        let hidden = vec![None; headers.len()];
        Ok(Index {
            headers,
            blocks,
            hidden,
            integrity: Integrity::default(),
            first_block,
            summaries: OnceLock::new(),
        })
    }

    /// Hides `documents` (numbers in file `file`'s name list) from every result. Ranking
    /// drops them before thresholds and limits apply, so `limit` still counts visible
    /// documents only.
    pub fn hide(&mut self, file: usize, documents: &[u64]) -> Result<(), OpenError> {
        assert!(file < self.headers.len(), "file {file} out of range");
        if documents.is_empty() {
            return Ok(());
        }
        let header = &self.headers[file];
        let document_count = header.document_count();
        let set = self.hidden[file].get_or_insert_with(|| HiddenDocuments {
            words: vec![0; document_count.div_ceil(64) as usize],
            count: 0,
        });
        for &document in documents {
            if document >= document_count {
                return Err(OpenError::HiddenOutOfRange {
                    path: header.path.clone(),
                    document,
                    document_count,
                });
            }
            let word = &mut set.words[(document / 64) as usize];
            let bit = 1u64 << (document % 64);
            if *word & bit == 0 {
                *word |= bit;
                set.count += 1;
            }
        }
        Ok(())
    }

    /// The files' checksums: what every read is checked against.
    pub fn integrity(&self) -> &Integrity {
        &self.integrity
    }

    /// Per file: the number of its first block in [`Index::blocks`].
    pub fn first_blocks(&self) -> &[u32] {
        &self.first_block
    }

    /// The files' block summaries, loaded (once, for every session) at the first call.
    pub fn summaries(&self) -> &Summaries {
        self.summaries
            .get_or_init(|| Summaries::load(&self.headers))
    }

    /// The hidden documents of every file, in file order (`None`: nothing hidden).
    pub fn hidden(&self) -> &[Option<HiddenDocuments>] {
        &self.hidden
    }

    /// The headers, in the order given.
    pub fn headers(&self) -> &[IndexHeader] {
        &self.headers
    }

    /// The paths, in the order given.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.headers.iter().map(|h| h.path.clone()).collect()
    }

    /// Path and size of every index file, in order.
    pub fn file_sizes(&self) -> Vec<(PathBuf, u64)> {
        self.headers
            .iter()
            .map(|h| (h.path.clone(), h.file_size))
            .collect()
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
