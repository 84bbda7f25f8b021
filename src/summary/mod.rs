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
//! a magic, a version, a checksum, and a fingerprint of the index header that ties them to
//! one build ([`header_fingerprint`]). They are written by the builder ([`crate::builder`]) and loaded whole.
//!
//! ```no_run
//! use bitsift::format::IndexHeader;
//! use bitsift::kmer::{BaseRule, KmerHasher};
//! use bitsift::summary::BlockSummaries;
//! let path = std::path::Path::new("genomes.cobs_compact");
//! let header = IndexHeader::open(path)?;
//! if let Some(summaries) = BlockSummaries::load(path, &header)? {
//!     let mut hasher = KmerHasher::new(header.k, header.canonical, header.num_hashes, BaseRule::Cobs);
//!     let mut hashes = Vec::new();
//!     hasher.hashes_into(b"ACGTACGTACGTACGTACGTACGTACGTACGTTT", &mut hashes);
//!     let probes = summaries.prepare(&hashes, header.num_hashes as usize);
//!     let weights = vec![1; probes.len()];
//!     let bound = summaries.count(0, &probes, &weights);
//!     println!("block 0: at most {bound} positions, {} bytes of summaries", summaries.ram_bytes());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod file;
pub(crate) mod filter;

use std::path::{Path, PathBuf};

use crate::format::IndexHeader;
use file::{fingerprint, SummaryFile};
pub use filter::Probe;

/// Appended to the index file name to name its summaries.
pub const SUMMARY_SUFFIX: &str = ".bitsift-summaries";

/// The summaries file of `index`: its name with [`SUMMARY_SUFFIX`] appended.
pub fn summary_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(SUMMARY_SUFFIX);
    PathBuf::from(name)
}

/// Why summaries could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The file exists but could not be read.
    #[error("{path}: cannot read block summaries: {source}", path = path.display())]
    Io {
        /// The summaries file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is damaged or not a summaries file.
    #[error("{path}: damaged block summaries: {detail}; delete the file to search without summaries, or rebuild the index", path = path.display())]
    Damaged {
        /// The summaries file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
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
    path: PathBuf,
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
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(SummaryError::Io { path, source }),
        };
        let file = SummaryFile::decode(&bytes).map_err(|detail| SummaryError::Damaged {
            path: path.clone(),
            detail,
        })?;
        check_matches(&file, header).map_err(|detail| SummaryError::Mismatch {
            path: path.clone(),
            index: index_path.to_path_buf(),
            detail,
        })?;
        Ok(Some(BlockSummaries { path, file }))
    }

    /// The summaries file.
    pub fn path(&self) -> &Path {
        &self.path
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

    /// Filter bits per distinct k-mer of block `block` (as estimated when it was built).
    pub fn bits_per_kmer(&self, block: usize) -> f64 {
        let b = &self.file.blocks[block];
        b.filter.bits() as f64 / b.kmers_estimate.max(1) as f64
    }

    /// Estimated distinct k-mers of block `block`'s documents.
    pub fn kmers_estimate(&self, block: usize) -> u64 {
        self.file.blocks[block].kmers_estimate
    }

    /// Prepares a query's distinct k-mers for [`count`](Self::count): `hashes` holds
    /// `hashes_per_kmer` row hashes per k-mer, k-mer major, as
    /// [`crate::kmer::KmerHasher::hashes_into`] writes them; only the first (seed 0, i.e.
    /// `xxh64(term, 0)`) of each is used. One probe per k-mer, valid for every block.
    pub fn prepare(&self, hashes: &[u64], hashes_per_kmer: usize) -> Vec<Probe> {
        let mut probes = Vec::with_capacity(hashes.len() / hashes_per_kmer.max(1));
        self.prepare_into(hashes, hashes_per_kmer, &mut probes);
        probes
    }

    /// As [`prepare`](Self::prepare), into `probes` (cleared first), so that a search reuses
    /// one buffer for every query.
    pub fn prepare_into(&self, hashes: &[u64], hashes_per_kmer: usize, probes: &mut Vec<Probe>) {
        assert!(hashes_per_kmer > 0, "at least one hash per k-mer");
        assert_eq!(hashes.len() % hashes_per_kmer, 0, "whole k-mers");
        probes.clear();
        probes.extend(
            hashes
                .iter()
                .step_by(hashes_per_kmer)
                .map(|&h| Probe::new(h, self.file.hashes)),
        );
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
    pub fn possible_positions(
        &self,
        block: usize,
        hashes: &[u64],
        hashes_per_kmer: usize,
        weights: &[u32],
    ) -> u64 {
        self.count(block, &self.prepare(hashes, hashes_per_kmer), weights)
    }
}

/// The header fingerprint of an opened index: xxh64 over k, the canonical flag, the hash
/// count, the page size, every block's document and row counts, and every document name in
/// order. Summaries carry the fingerprint of the header they were built for.
pub fn header_fingerprint(header: &IndexHeader) -> u64 {
    fingerprint(
        header.k,
        header.canonical,
        header.num_hashes,
        header.page_size,
        header
            .blocks
            .iter()
            .map(|b| (b.document_count, b.row_count)),
        header.names.iter(),
    )
}

fn check_matches(file: &SummaryFile, header: &IndexHeader) -> Result<(), String> {
    let id = &file.identity;
    let differs = |what: &str, ours: String, theirs: String| {
        Err(format!(
            "{what} is {ours} in the summaries but {theirs} in the index"
        ))
    };
    if file.blocks.len() != header.blocks.len() {
        return differs(
            "the number of blocks",
            file.blocks.len().to_string(),
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
    for (number, (ours, theirs)) in file.blocks.iter().zip(&header.blocks).enumerate() {
        if (ours.first_document, ours.document_count)
            != (theirs.first_document, theirs.document_count)
        {
            return differs(
                &format!("block {number}'s documents"),
                format!("{}..+{}", ours.first_document, ours.document_count),
                format!("{}..+{}", theirs.first_document, theirs.document_count),
            );
        }
    }
    if id.fingerprint != header_fingerprint(header) {
        return Err(
            "the document names, their order or the block sizes differ (header fingerprint)".into(),
        );
    }
    Ok(())
}
