//! [`Index`]: the index files a search reads, parsed and validated once.
//!
//! An `Index` holds every file's header (geometry, parameters, document names) and the blocks
//! of all files flattened into one list in (file, block) order. It never changes after
//! opening, so the sessions of every server worker or thread share one through an `Arc`;
//! each [`super::Session`] adds its own engine and buffers.

use std::path::PathBuf;
use std::sync::Arc;

use super::fill::{Fills, OnesFiles};
use super::hit::Hit;
use super::plan::PlanBlock;
use super::screen::Summaries;
use crate::format::{FormatError, HeaderOptions, IndexHeader};
use crate::io::{PageCache, WarmCheck, WarmRange};
use crate::read::Integrity;
use crate::read::{Layers, SIDE_PAGE_BYTES};

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
    /// An engine given for an index was opened on other files (a caller's mistake).
    #[error("the engine was opened on {found} files, but the index reads {expected} (its files and their side files, Index::read_paths)")]
    EngineFiles {
        /// Files the index reads.
        expected: usize,
        /// Files the engine has.
        found: usize,
    },
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

/// Default budget of the side cache ([`Index::side_cache`]): the checksum and summary pages
/// kept between queries. A one-gene query of any index needs a few hundred of them (~1 MiB);
/// the rest keeps what repeated queries share.
pub const SIDE_MEMORY_DEFAULT: u64 = 64 << 20;

/// Parsed index files; see the module documentation.
#[derive(Debug)]
pub struct Index {
    headers: Vec<IndexHeader>,
    blocks: Vec<PlanBlock>,
    integrity: Integrity,
    /// Every file an engine over this index opens: the index files, then their side files
    /// (checksum sidecars, block summaries, counts of ones).
    read_paths: Vec<PathBuf>,
    /// Pages of side files kept between queries, within the side memory budget.
    side_cache: Option<Arc<PageCache>>,
    hidden: Vec<Option<HiddenDocuments>>,
    /// Per file: the number of its first block in `blocks`.
    first_block: Vec<u32>,
    /// Block summaries: their headers, read at open.
    summaries: Summaries,
    /// What answers call each file: its source.
    sources: Sources,
    /// The side memory budget.
    side_memory: u64,
    /// The ratios of ones of the blocks read so far ([`super::fill`]).
    fills: Fills,
    /// Each file's counts of ones, if it has them ([`super::fill`]).
    ones: OnesFiles,
}

/// What answers call the files of an index: each file belongs to a source, a collection
/// (named after its directory, whatever number of sub-indexes it has now) or a file of its own
/// (named by its path as given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// Per file: its source.
    pub of_file: Vec<u32>,
    /// Per source: its name.
    pub names: Vec<String>,
}

impl Sources {
    /// Every file a source of its own, named by its path.
    pub(crate) fn of_files(paths: &[PathBuf]) -> Sources {
        Sources {
            of_file: (0..paths.len() as u32).collect(),
            names: paths.iter().map(|p| p.display().to_string()).collect(),
        }
    }
}

/// How to open an index.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    /// Parameters for pre-2019 headers.
    pub header: HeaderOptions,
    /// Side-file pages (checksums, summaries) kept between queries, in bytes.
    pub side_memory: u64,
    /// What answers call the files (`None`: each file by its path).
    pub sources: Option<Sources>,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            header: HeaderOptions::default(),
            side_memory: SIDE_MEMORY_DEFAULT,
            sources: None,
        }
    }
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
    #[cfg(test)]
    pub(crate) fn from_words(words: Vec<u64>) -> HiddenDocuments {
        let count = words.iter().map(|w| w.count_ones() as u64).sum();
        HiddenDocuments { words, count }
    }

    /// Number of hidden documents.
    pub(crate) fn len(&self) -> u64 {
        self.count
    }
}

impl Index {
    /// The paths, in the order given.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.headers.iter().map(|h| h.path.clone()).collect()
    }

    /// Total size of the files.
    pub fn bytes(&self) -> u64 {
        self.headers.iter().map(|h| h.file_size).sum()
    }

    /// Opens and validates every file.
    pub fn open(paths: &[PathBuf], options: &HeaderOptions) -> Result<Arc<Index>, OpenError> {
        Index::open_hiding(paths, &[], options)
    }

    /// As [`Index::open`], hiding documents from every result: `hidden[i]` lists document
    /// numbers of `paths[i]` (a missing or empty list hides nothing).
    pub(crate) fn open_hiding(
        paths: &[PathBuf],
        hidden: &[Vec<u64>],
        options: &HeaderOptions,
    ) -> Result<Arc<Index>, OpenError> {
        let options = IndexOptions {
            header: *options,
            ..IndexOptions::default()
        };
        Index::open_with(paths, hidden, &options)
    }

    /// As [`Index::open_hiding`], as `options` say: at most `side_memory` bytes of side-file
    /// pages (checksums, summaries) kept between queries (0: none; every query reads what it
    /// needs), and the files named by their sources.
    pub(crate) fn open_with(
        paths: &[PathBuf],
        hidden: &[Vec<u64>],
        options: &IndexOptions,
    ) -> Result<Arc<Index>, OpenError> {
        let side_memory = options.side_memory;
        crate::io::source::prefetch(&with_side_files(paths));
        let headers = paths
            .iter()
            .map(|path| IndexHeader::open_with(path, &options.header))
            .collect::<Result<Vec<_>, _>>()?;
        let (integrity, sidecars) = Integrity::open(&headers, headers.len() as u32)?;
        let first_summary = (headers.len() + sidecars.len()) as u32;
        let (summaries, summary_files) = Summaries::open(&headers, first_summary, side_memory);
        let first_ones = first_summary + summary_files.len() as u32;
        let (ones, ones_files) = OnesFiles::open(&headers, first_ones);
        let mut index = Index::from_headers(headers)?;
        index.integrity = integrity;
        index.read_paths.extend(sidecars);
        index.read_paths.extend(summary_files);
        index.read_paths.extend(ones_files);
        index.ones = ones;
        // Format-1 summaries read whole take their share of the budget; pages take the rest.
        let pages_budget = side_memory.saturating_sub(summaries.whole_bytes());
        index.side_cache = (pages_budget > 0)
            .then(|| Arc::new(PageCache::new(pages_budget, SIDE_PAGE_BYTES as usize)));
        index.summaries = summaries;
        index.side_memory = side_memory;
        if let Some(sources) = &options.sources {
            assert_eq!(sources.of_file.len(), paths.len(), "a source per file");
            index.sources = sources.clone();
        }
        for (file, documents) in hidden.iter().enumerate().take(paths.len()) {
            index.hide(file, documents)?;
        }
        Ok(Arc::new(index))
    }

    /// An index over already-parsed headers, without checksums (see [`Index::open`], which
    /// loads each file's checksum sidecar). Placeholder documents ([`crate::format::is_placeholder`])
    /// are hidden from the start.
    pub(crate) fn from_headers(headers: Vec<IndexHeader>) -> Result<Index, OpenError> {
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
                    rows: crate::format::RowMap::new(header.rows, block.row_count),
                });
            }
        }
        let hidden = vec![None; headers.len()];
        let read_paths: Vec<PathBuf> = headers.iter().map(|h| h.path.clone()).collect();
        let sources = Sources::of_files(&read_paths);
        let mut index = Index {
            headers,
            blocks,
            hidden,
            integrity: Integrity::default(),
            read_paths,
            side_cache: None,
            first_block,
            summaries: Summaries::default(),
            side_memory: 0,
            sources,
            fills: Fills::default(),
            ones: OnesFiles::default(),
        };
        // Placeholders are hidden wherever a file comes from (`format::is_placeholder`).
        for file in 0..index.headers.len() {
            let placeholders = index.headers[file].names.placeholders().to_vec();
            index.hide(file, &placeholders)?;
        }
        Ok(index)
    }

    /// Hides `documents` (numbers in file `file`'s name list) from every result. Ranking
    /// drops them before thresholds and limits apply, so `limit` still counts visible
    /// documents only.
    pub(crate) fn hide(&mut self, file: usize, documents: &[u64]) -> Result<(), OpenError> {
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
    pub(crate) fn integrity(&self) -> &Integrity {
        &self.integrity
    }

    /// Per file: the number of its first block in [`Index::blocks`].
    pub(crate) fn first_blocks(&self) -> &[u32] {
        &self.first_block
    }

    /// The files' block summaries (their headers; pages are read by each search).
    pub(crate) fn summaries(&self) -> &Summaries {
        &self.summaries
    }

    /// The side memory budget: side-file pages kept between queries (see
    /// [`Index::open_with`]).
    pub fn side_memory(&self) -> u64 {
        self.side_memory
    }

    /// Memory held now for side data, outside the budget's cache: block summary headers and
    /// format-1 summaries, checksum bitmaps of in-memory scoring.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn side_resident_bytes(&self) -> u64 {
        self.summaries.resident_bytes() + self.integrity.resident_bytes()
    }

    /// What answers call the files.
    pub(crate) fn sources(&self) -> &Sources {
        &self.sources
    }

    /// The name answers give file `file`: its source's.
    pub fn source_name(&self, file: u32) -> &str {
        &self.sources.names[self.sources.of_file[file as usize] as usize]
    }

    /// Documents of file `file` that searches may report: all but the hidden ones (a
    /// collection's removed documents and merge placeholders).
    pub(crate) fn shown_documents(&self, file: u32) -> u64 {
        let all = self.headers[file as usize].document_count();
        all - self.hidden[file as usize]
            .as_ref()
            .map_or(0, HiddenDocuments::len)
    }

    /// The hidden documents of every file, in file order (`None`: nothing hidden).
    pub fn hidden(&self) -> &[Option<HiddenDocuments>] {
        &self.hidden
    }

    /// The headers, in the order given.
    pub fn headers(&self) -> &[IndexHeader] {
        &self.headers
    }

    /// Reads, a few reads per file, the name pages of the documents `hits` report, for files
    /// whose names are read by page (through their catalog): an answer then asks for its
    /// names in one go, not one read (one round trip, remotely) per page.
    pub fn prefetch_names(&self, hits: &[Hit]) -> Result<(), FormatError> {
        if !self.headers.iter().any(|h| h.names.is_paged()) {
            return Ok(());
        }
        // One pass over the hits, however many files: an answer of 600k hits over a
        // collection of many sub-indexes is not scanned once per file.
        let mut documents: Vec<Vec<u64>> = vec![Vec::new(); self.headers.len()];
        for hit in hits {
            if self.headers[hit.index as usize].names.is_paged() {
                documents[hit.index as usize].push(hit.document);
            }
        }
        for (header, documents) in self.headers.iter().zip(documents) {
            if !documents.is_empty() {
                header.names.prefetch(documents.into_iter())?;
            }
        }
        Ok(())
    }

    /// The name of document `document` of file `file` (its page read the first time).
    pub fn document_name(&self, file: u32, document: u64) -> Result<&str, FormatError> {
        self.headers[file as usize].names.get(document as usize)
    }

    /// Every file an engine over this index must open, in engine order: the index files (as
    /// [`Index::paths`]), then their side files.
    pub fn read_paths(&self) -> &[PathBuf] {
        &self.read_paths
    }

    /// Path and size of every file an engine opens, in engine order (what an image of the
    /// whole index holds).
    pub(crate) fn read_files(&self) -> Vec<(PathBuf, u64)> {
        self.read_paths
            .iter()
            .enumerate()
            .map(|(file, path)| (path.clone(), self.expected_size(file as u32)))
            .collect()
    }

    /// The size engine file `file` must have.
    fn expected_size(&self, file: u32) -> u64 {
        if let Some(header) = self.headers.get(file as usize) {
            return header.file_size;
        }
        let sidecar = self
            .integrity
            .sidecars()
            .find(|&(_, _, sidecar)| sidecar == file)
            .map(|(_, table, _)| table.sidecar_bytes());
        let summaries = || {
            (0..self.headers.len())
                .filter_map(|f| self.summaries.file_of(f))
                .find(|&(engine_file, _)| engine_file == file)
                .map(|(_, bytes)| bytes)
        };
        sidecar
            .or_else(summaries)
            .or_else(|| self.ones.size_of(file))
            .unwrap_or(0)
    }

    /// The read path's layers over this index's files ([`crate::read::with_layers`]): its
    /// checksums and side cache, and the row cache `rows` if any.
    pub fn layers<'a>(&'a self, rows: Option<&'a PageCache>) -> Layers<'a> {
        Layers {
            integrity: &self.integrity,
            side_cache: self.side_cache.as_deref(),
            row_cache: rows,
            index_files: self.headers.len() as u32,
            paths: &self.read_paths,
        }
    }

    /// The shared cache of side-file pages, if the side memory budget allows one.
    pub(crate) fn side_cache(&self) -> Option<&Arc<PageCache>> {
        self.side_cache.as_ref()
    }

    /// The number of the block (in [`Index::blocks`]) that holds `hit`'s document.
    pub(crate) fn block_of(&self, hit: &Hit) -> u32 {
        let first = self.first_block[hit.index as usize] as usize;
        let count = self.headers[hit.index as usize].blocks.len();
        let blocks = &self.blocks[first..first + count];
        let within = blocks.partition_point(|b| b.first_document <= hit.document);
        (first + within.saturating_sub(1)) as u32
    }

    /// The ratios of ones of the blocks read so far ([`super::fill`]).
    pub(crate) fn fills(&self) -> &Fills {
        &self.fills
    }

    /// Each file's counts of ones, if it has them ([`super::fill`]).
    pub(crate) fn ones(&self) -> &OnesFiles {
        &self.ones
    }

    /// Every block of every file, in (file, block) order.
    pub(crate) fn blocks(&self) -> &[PlanBlock] {
        &self.blocks
    }

    /// Number of index files.
    pub(crate) fn file_count(&self) -> usize {
        self.headers.len()
    }

    /// Largest term size over the files: a query must be at least this long.
    pub fn k_max(&self) -> u32 {
        self.headers.iter().map(|h| h.k).max().unwrap_or(0)
    }

    /// The data sections, as ranges for a cache warm-up ([`crate::io::Warmup`]).
    pub(crate) fn warm_ranges(&self) -> Vec<WarmRange> {
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

    /// The check a warm-up of the row cache runs on every chunk it reads: the chunk's pages
    /// against the file's checksums (damaged chunks never enter the cache; the first is
    /// reported).
    pub(crate) fn warm_check(self: &Arc<Index>) -> WarmCheck {
        let index = self.clone();
        let reported = std::sync::atomic::AtomicBool::new(false);
        Arc::new(move |file, offset, bytes| {
            match index.integrity.verify_direct(file, offset, bytes) {
                Ok(()) => true,
                Err(error) => {
                    if !reported.swap(true, std::sync::atomic::Ordering::Relaxed) {
                        tracing::warn!("warm-up: {error}; that part of the index is not cached");
                    }
                    false
                }
            }
        })
    }

    /// Checks that an engine sees every file at the size its header (or, for a side file,
    /// its preamble) promises.
    pub(crate) fn check_sizes(&self, size_of: impl Fn(u32) -> u64) -> Result<(), OpenError> {
        for (file, path) in self.read_paths.iter().enumerate() {
            let expected = self.expected_size(file as u32);
            let found = size_of(file as u32);
            if found != expected {
                return Err(OpenError::Format(FormatError::SizeMismatch {
                    path: path.clone(),
                    expected,
                    found,
                }));
            }
        }
        Ok(())
    }
}

/// `paths` and the side files that may lie beside each (catalog, checksums, summaries,
/// counts of ones), with the last bytes each open reads (the checksums' digest, to which the
/// summaries and the counts of ones are bound): a remote open asks for all of them at once.
pub(crate) fn with_side_files(paths: &[PathBuf]) -> Vec<(PathBuf, u64)> {
    paths
        .iter()
        .flat_map(|path| {
            [
                (path.clone(), 0),
                (crate::format::catalog::catalog_path(path), 0),
                (
                    crate::format::sidecar_path(path),
                    crate::format::SIDECAR_DIGEST_BYTES,
                ),
                (crate::summary::summary_path(path), 0),
                (crate::format::ones::ones_path(path), 0),
            ]
        })
        .collect()
}
