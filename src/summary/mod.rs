//! Block summaries: for each block of a compact index, a small filter of the union of its
//! documents' k-mers, so that a query can rule out a block with no disk read.
//!
//! A query of `n` k-mer positions at threshold `t` needs `ceil(t · n)` positions in some
//! document of a block. [`BlockSummaries::count`] gives, for one block, the number of query
//! positions whose k-mer *may* be in some document of the block: an upper bound on the
//! brute-force score (k-mers truly present) of every document in it, because the filter has
//! no false negatives. A block whose count is below `ceil(t · n)` holds no document that truly
//! contains the query at the threshold and need not be read. Documents that the index would
//! report only through its own Bloom false positives may be skipped that way: the answer
//! moves from COBS's scores towards the exact ones.
//!
//! The summaries live beside the index in `INDEX.bitsift-summaries` ([`summary_path`]), with
//! a magic, a version, checksums, and a fingerprint of the index header that ties them to
//! one build ([`header_fingerprint`]). They are written by the builder ([`crate::builder`]) in
//! format 2, laid out by minimizer bucket ([`Layout`]) so that a search opens only their
//! header ([`open`]) and reads, per query, the few pages its k-mers' buckets lie in (see
//! [`crate::query`]'s screen). [`BlockSummaries`] holds a whole file in memory, of either
//! format: for format-1 files of earlier versions, and for tools and tests.
//!
//! ```no_run
//! use bitsift::format::IndexHeader;
//! use bitsift::kmer::{BaseRule, KmerHasher, Minimizers};
//! use bitsift::summary::BlockSummaries;
//! let path = std::path::Path::new("genomes.cobs_compact");
//! let header = IndexHeader::open(path)?;
//! if let Some(summaries) = BlockSummaries::load(path, &header)? {
//!     let query = b"ACGTACGTACGTACGTACGTACGTACGTACGTTT";
//!     let mut hasher = KmerHasher::new(header.k, header.canonical, header.num_hashes, BaseRule::Cobs);
//!     let mut hashes = Vec::new();
//!     hasher.hashes_into(query, &mut hashes);
//!     let mut minimizers = Vec::new();
//!     Minimizers::new(header.k, summaries.minimizer().max(1), header.canonical, BaseRule::Cobs)
//!         .minimizers_into(query, &mut minimizers);
//!     let probes = summaries.prepare(&hashes, header.num_hashes as usize, &minimizers);
//!     let weights = vec![1; probes.len()];
//!     let bound = summaries.count(0, &probes, &weights);
//!     println!("block 0: at most {bound} positions, {} bytes of summaries", summaries.ram_bytes());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod damage;
pub(crate) mod file;
pub(crate) mod filter;
pub(crate) mod identity;
pub(crate) mod layout;

use std::path::{Path, PathBuf};

use crate::format::IndexHeader;
use crate::io::SourceFile;
use crate::IoAt;
pub(crate) use damage::Damage;
use damage::Mismatch;
use file::SummaryFile;
pub(crate) use filter::Probe;
use identity::IndexIdentity;
pub use layout::{Layout, PAGE_BYTES};

/// Appended to the index file name to name its summaries.
pub(crate) const SUMMARY_SUFFIX: &str = ".bitsift-summaries";

/// The summaries file of `index`: its name with [`SUMMARY_SUFFIX`] appended.
pub fn summary_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(SUMMARY_SUFFIX);
    PathBuf::from(name)
}

/// What [`SummaryError::Io`] says was being done.
const READ_ACTION: &str = "cannot read block summaries";

/// What [`SummaryError::IndexIo`] says was being done.
const CHECK_ACTION: &str = "cannot read it to check the block summaries of its index";

/// Why summaries could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The file exists but could not be read ([`READ_ACTION`]).
    #[error(transparent)]
    Io(#[from] IoAt),
    /// The file is damaged or not a summaries file.
    #[error("{path}: damaged block summaries: {detail}; delete the file to search without summaries, or rebuild the index", path = path.display())]
    Damaged {
        /// The summaries file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The index or its checksum file could not be read to check that the summaries
    /// describe its data.
    #[error(transparent)]
    IndexIo(IoAt),
    /// Format-1 summaries (read whole) larger than the memory a search may give them.
    #[error("{path}: block summaries in format 1 ({size}) do not fit the side memory budget ({budget}); searches read every block of the index. Raise --side-memory, or rebuild the index: summaries in format 2 are read page by page", path = path.display())]
    TooLarge {
        /// The summaries file.
        path: PathBuf,
        /// Its size, in words.
        size: String,
        /// The budget, in words.
        budget: String,
    },
    /// The file is sound but belongs to another index or build.
    #[error("{path}: block summaries do not match the index {index}: {detail}; they come from another build; delete the file or rebuild the index", path = path.display(), index = index.display())]
    Mismatch {
        /// The summaries file.
        path: PathBuf,
        /// The index.
        index: PathBuf,
        /// Which field differs.
        detail: String,
    },
}

/// The summaries of one index, in memory.
#[derive(Clone, Debug)]
pub struct BlockSummaries {
    file: SummaryFile,
}

impl BlockSummaries {
    /// Loads the summaries beside `index_path`, checked against `header`: `None` when there
    /// is no summaries file, an error when it is damaged or belongs to another index (another
    /// number of blocks, k, canonical flag, document counts, names or order).
    pub fn load(
        index_path: &Path,
        header: &IndexHeader,
    ) -> Result<Option<BlockSummaries>, SummaryError> {
        let path = summary_path(index_path);
        let bytes = match crate::io::source::read_whole(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(IoAt::new(path, READ_ACTION, source).into()),
        };
        BlockSummaries::from_bytes(index_path, header, &bytes).map(Some)
    }

    /// The summaries of `index_path` from the bytes of its summaries file, checked against
    /// `header`.
    pub(crate) fn from_bytes(
        index_path: &Path,
        header: &IndexHeader,
        bytes: &[u8],
    ) -> Result<BlockSummaries, SummaryError> {
        let path = summary_path(index_path);
        let file = SummaryFile::decode(bytes).map_err(|detail| SummaryError::Damaged {
            path: path.clone(),
            detail: detail.0,
        })?;
        let blocks = file
            .blocks
            .iter()
            .map(|b| (b.first_document, b.document_count));
        check_matches(&file.identity, blocks, header).map_err(|detail| SummaryError::Mismatch {
            path: path.clone(),
            index: index_path.to_path_buf(),
            detail: detail.0,
        })?;
        check_content(index_path, header, &file.identity)?;
        Ok(BlockSummaries { file })
    }

    /// Minimizer length of the filters' buckets (0: format 1, whose filters have none).
    pub fn minimizer(&self) -> u32 {
        self.file.minimizer
    }

    /// Blocks summarised (those of the index).
    pub fn block_count(&self) -> usize {
        self.file.blocks.len()
    }

    /// Memory the filters take.
    pub fn ram_bytes(&self) -> u64 {
        self.file
            .blocks
            .iter()
            .map(|b| 8 * b.filter.words().len() as u64)
            .sum()
    }

    /// Bits each k-mer sets in a filter.
    pub fn hashes(&self) -> u32 {
        self.file.hashes
    }

    /// The filter of block `block`.
    pub(crate) fn filter(&self, block: usize) -> &filter::Filter {
        &self.file.blocks[block].filter
    }

    /// Estimated distinct k-mers of block `block`'s documents.
    pub fn kmers_estimate(&self, block: usize) -> u64 {
        self.file.blocks[block].kmers_estimate
    }

    /// Prepares a query's distinct k-mers for [`count`](Self::count): `hashes` holds
    /// `hashes_per_kmer` row hashes per k-mer, k-mer major, as
    /// [`crate::kmer::KmerHasher::hashes_into`] writes them; only the first (seed 0, i.e.
    /// `xxh64(term, 0)`) of each is used. `minimizers` holds each k-mer's minimizer hash
    /// ([`crate::kmer::Minimizers`] of [`minimizer`](Self::minimizer) bases; ignored by
    /// format-1 summaries). One probe per k-mer, valid for every block.
    pub fn prepare(
        &self,
        hashes: &[u64],
        hashes_per_kmer: usize,
        minimizers: &[u64],
    ) -> Vec<Probe> {
        let mut probes = Vec::with_capacity(hashes.len() / hashes_per_kmer.max(1));
        prepare_probes(
            hashes,
            hashes_per_kmer,
            minimizers,
            self.file.hashes,
            &mut probes,
        );
        probes
    }

    /// The number of query positions whose k-mer may be in some document of block `block`:
    /// `Σ weights[i]` over the k-mers `i` of `probes` that the block's filter may hold. Every
    /// k-mer present in a document of the block is counted, so no document of the block has a
    /// brute-force score above this. `weights[i]` is the number of query positions of k-mer
    /// `i`.
    pub fn count(&self, block: usize, probes: &[Probe], weights: &[u32]) -> u64 {
        assert_eq!(probes.len(), weights.len(), "one weight per k-mer");
        let filter = &self.file.blocks[block].filter;
        probes
            .iter()
            .zip(weights)
            .filter(|(p, _)| filter.contains(p))
            .map(|(_, &w)| w as u64)
            .sum()
    }

    /// Whether block `block`'s [`count`](Self::count) reaches `needed`, stopping as soon as
    /// the answer is known: `needed` reached, or too few positions left to reach it.
    pub fn reaches(&self, block: usize, probes: &[Probe], weights: &[u32], needed: u64) -> bool {
        assert_eq!(probes.len(), weights.len(), "one weight per k-mer");
        let filter = &self.file.blocks[block].filter;
        let mut left: u64 = weights.iter().map(|&w| w as u64).sum();
        let mut found = 0u64;
        for (probe, &w) in probes.iter().zip(weights) {
            if found >= needed {
                return true;
            }
            if found + left < needed {
                return false;
            }
            left -= w as u64;
            if filter.contains(probe) {
                found += w as u64;
            }
        }
        found >= needed
    }

    /// Convenience: [`prepare`](Self::prepare) then [`count`](Self::count).
    #[cfg(test)]
    pub(crate) fn possible_positions(
        &self,
        block: usize,
        hashes: &[u64],
        hashes_per_kmer: usize,
        minimizers: &[u64],
        weights: &[u32],
    ) -> u64 {
        let probes = self.prepare(hashes, hashes_per_kmer, minimizers);
        self.count(block, &probes, weights)
    }
}

/// Probes of k-mers for summaries of `bits` bits per k-mer, into `probes` (cleared first):
/// one per k-mer of `hashes` (`hashes_per_kmer` each, the first used), with its minimizer
/// hash from `minimizers` (0 where `minimizers` is empty: format-1 filters ignore it).
pub(crate) fn prepare_probes(
    hashes: &[u64],
    hashes_per_kmer: usize,
    minimizers: &[u64],
    bits: u32,
    probes: &mut Vec<Probe>,
) {
    assert!(hashes_per_kmer > 0, "at least one hash per k-mer");
    assert_eq!(hashes.len() % hashes_per_kmer, 0, "whole k-mers");
    let kmers = hashes.len() / hashes_per_kmer;
    assert!(
        minimizers.is_empty() || minimizers.len() == kmers,
        "one minimizer per k-mer"
    );
    probes.clear();
    probes.extend((0..kmers).map(|i| {
        let minimizer = minimizers.get(i).copied().unwrap_or(0);
        Probe::new(hashes[i * hashes_per_kmer], minimizer, bits)
    }));
}

/// What a search finds beside an index: format-2 summaries, read page by page, or a
/// format-1 file, which only a whole read can check.
#[derive(Clone, Debug)]
pub enum SummarySource {
    /// Format 2: the header, checked against the index.
    Paged(Layout),
    /// Format 1: a file of this many bytes, checked when it is read.
    Whole {
        /// Bytes of the file.
        bytes: u64,
    },
}

/// Opens the summaries beside `index_path` for a search: reads and checks the header of a
/// format-2 file (its first pages only), or notes the size of a format-1 file. `None` when
/// there is no summaries file.
pub fn open(
    index_path: &Path,
    header: &IndexHeader,
) -> Result<Option<SummarySource>, SummaryError> {
    use std::io::Read;
    let path = summary_path(index_path);
    let io = |source| SummaryError::from(IoAt::new(path.clone(), READ_ACTION, source));
    let mut file = match SourceFile::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(io(source)),
    };
    let length = file.len().map_err(io)?;
    let mut first = vec![0u8; PAGE_BYTES as usize];
    let read = read_up_to(&mut file, &mut first).map_err(io)?;
    if read < 8 || &first[..8] != layout::MAGIC {
        return Ok(Some(SummarySource::Whole { bytes: length }));
    }
    let damaged = |detail: Damage| SummaryError::Damaged {
        path: path.clone(),
        detail: detail.0,
    };
    let pages = Layout::header_pages_of(&first[..read]).map_err(damaged)?;
    let mut bytes = first;
    bytes.resize((pages * PAGE_BYTES) as usize, 0);
    file.read_exact(&mut bytes[read..]).map_err(io)?;
    let layout = Layout::decode_header(&bytes, length).map_err(damaged)?;
    let blocks = layout
        .blocks
        .iter()
        .map(|b| (b.first_document, b.document_count));
    check_matches(&layout.identity, blocks, header).map_err(|detail| SummaryError::Mismatch {
        path: path.clone(),
        index: index_path.to_path_buf(),
        detail: detail.0,
    })?;
    check_content(index_path, header, &layout.identity)?;
    Ok(Some(SummarySource::Paged(layout)))
}

/// What [`verify`] found in a summaries file that opened: its format, its size, and the
/// data pages (file page numbers) whose checksum does not match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryCheck {
    /// 1 or 2.
    pub format: u32,
    /// Bytes of the file.
    pub bytes: u64,
    /// Format 2: damaged data pages, in order (a search counts their k-mers as present in
    /// every block: more reads, never a lost hit). Format 1 is checked whole: a damaged file
    /// is an error instead.
    pub damaged_pages: Vec<u64>,
}

/// Reads the whole summaries file beside `index_path` and checks it: the header (its
/// checksum, and that it belongs to `header`'s index), then every data page against its own
/// checksum, a few pages at a time (format 2); a format-1 file is read whole and checked by
/// its one checksum. `None` when there is no summaries file.
pub fn verify(
    index_path: &Path,
    header: &IndexHeader,
) -> Result<Option<SummaryCheck>, SummaryError> {
    let path = summary_path(index_path);
    let layout = match open(index_path, header)? {
        None => return Ok(None),
        Some(SummarySource::Whole { bytes }) => {
            return BlockSummaries::load(index_path, header).map(|_| {
                Some(SummaryCheck {
                    format: 1,
                    bytes,
                    damaged_pages: Vec::new(),
                })
            })
        }
        Some(SummarySource::Paged(layout)) => layout,
    };
    let io = |source| SummaryError::from(IoAt::new(path.clone(), READ_ACTION, source));
    let file = SourceFile::open(&path).map_err(io)?;
    let mut damaged_pages = Vec::new();
    let mut chunk = vec![0u8; (PAGES_PER_READ * PAGE_BYTES) as usize];
    let mut page = layout.header_pages;
    let end = layout.header_pages + layout.data_pages;
    while page < end {
        let count = PAGES_PER_READ.min(end - page);
        let bytes = &mut chunk[..(count * PAGE_BYTES) as usize];
        file.read_exact_at(bytes, page * PAGE_BYTES).map_err(io)?;
        for (number, bytes) in (page..).zip(bytes.chunks(PAGE_BYTES as usize)) {
            if layout.check_page(number, bytes).is_err() {
                damaged_pages.push(number);
            }
        }
        page += count;
    }
    let bytes = file.len().map_err(io)?;
    Ok(Some(SummaryCheck {
        format: 2,
        bytes,
        damaged_pages,
    }))
}

/// Pages [`verify`] reads at a time.
const PAGES_PER_READ: u64 = 256;

/// Reads into `buffer` until it is full or the file ends; returns the bytes read.
fn read_up_to(file: &mut SourceFile, buffer: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read;
    let mut total = 0;
    while total < buffer.len() {
        match file.read(&mut buffer[total..]) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}

/// The header fingerprint of an opened index ([`IndexHeader::fingerprint`]): summaries carry
/// the fingerprint of the header they were built for.
pub(crate) fn header_fingerprint(header: &IndexHeader) -> u64 {
    header.fingerprint()
}

/// Checks that summaries were made for the bytes of this very build of the index at
/// `index_path`, not of another build with the same header (`identity`: what they recorded;
/// files of earlier versions recorded nothing and are bound by the header alone).
///
/// With a checksum sidecar beside the index, its digest (4 bytes read, one request for a
/// remote index) must be the one recorded: it covers every page of the index, and the
/// sidecar is itself checked against the index at open (sampled pages) and at every read.
/// Without one, a digest of a few sampled data pages is compared instead (local indexes
/// only: each page would cost a request at every open of a remote one).
fn check_content(
    index_path: &Path,
    header: &IndexHeader,
    identity: &IndexIdentity,
) -> Result<(), SummaryError> {
    let io_error =
        |path: PathBuf| move |source| SummaryError::IndexIo(IoAt::new(path, CHECK_ACTION, source));
    let mismatch = |detail: &str| SummaryError::Mismatch {
        path: summary_path(index_path),
        index: index_path.to_path_buf(),
        detail: detail.into(),
    };
    let sidecar = crate::format::checksums::sidecar_digest(index_path)
        .map_err(io_error(crate::format::checksums::sidecar_path(index_path)))?;
    match sidecar {
        Some(digest) if identity.checksums != 0 => {
            if digest != identity.checksums {
                return Err(mismatch("they were made with another build of the index (its checksum file differs from the one they record)"));
            }
            return Ok(());
        }
        _ => {}
    }
    if identity.content == 0 || crate::io::is_remote(index_path) {
        return Ok(());
    }
    let digest = crate::format::content::content_digest_of(index_path, header.data_offset)
        .map_err(io_error(index_path.to_path_buf()))?;
    if digest != identity.content {
        return Err(mismatch("the index's data differ from those they were made for (a digest of sampled data pages)"));
    }
    Ok(())
}

fn check_matches(
    id: &IndexIdentity,
    blocks: impl ExactSizeIterator<Item = (u64, u64)>,
    header: &IndexHeader,
) -> Result<(), Mismatch> {
    let differs = |what: &str, ours: String, theirs: String| {
        Err(Mismatch(format!(
            "{what} is {ours} in the summaries but {theirs} in the index"
        )))
    };
    if blocks.len() != header.blocks.len() {
        return differs(
            "the number of blocks",
            blocks.len().to_string(),
            header.blocks.len().to_string(),
        );
    }
    if id.k != header.k {
        return differs("k", id.k.to_string(), header.k.to_string());
    }
    if id.canonical != header.canonical {
        return differs(
            "the canonical flag",
            id.canonical.to_string(),
            header.canonical.to_string(),
        );
    }
    if id.num_hashes != header.num_hashes {
        return differs(
            "the number of hash functions",
            id.num_hashes.to_string(),
            header.num_hashes.to_string(),
        );
    }
    if id.documents != header.document_count() {
        return differs(
            "the number of documents",
            id.documents.to_string(),
            header.document_count().to_string(),
        );
    }
    for (number, (ours, theirs)) in blocks.zip(&header.blocks).enumerate() {
        if ours != (theirs.first_document, theirs.document_count) {
            return differs(
                &format!("block {number}'s documents"),
                format!("{}..+{}", ours.0, ours.1),
                format!("{}..+{}", theirs.first_document, theirs.document_count),
            );
        }
    }
    if id.fingerprint != header_fingerprint(header) {
        return Err(Mismatch(String::from(
            "the document names, their order or the block sizes differ (header fingerprint)",
        )));
    }
    Ok(())
}
