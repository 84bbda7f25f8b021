//! COBS index files: the header, the geometry of the bit matrix, and the writer.
//!
//! [`IndexHeader::open`] parses and validates a `.cobs_compact` or `.cobs_classic` file and
//! describes where every row lives ([`Block`]); the query side needs nothing else.
//! [`write_compact_header`] writes a compact header byte-exact to COBS, so COBS reads bitsift's
//! files and the other way round. [`checksums`] is bitsift's sidecar of page checksums, which
//! the COBS format has no room for. Both layouts, the sidecar and every rule the reader checks
//! are written up in `docs/formats.md`.
//!
//! ```no_run
//! let header = bitsift::format::IndexHeader::open("genomes.cobs_compact".as_ref())?;
//! for block in &header.blocks {
//!     println!("{} documents, {} rows of {} bytes", block.document_count, block.row_count, block.row_bytes);
//! }
//! # Ok::<(), bitsift::format::FormatError>(())
//! ```

pub mod build_record;
pub(crate) mod catalog;
mod checksum_pages;
pub mod checksums;
pub mod content;
mod discover;
pub mod document_table;
mod error;
mod header;
mod names;
pub(crate) mod ones;
mod rows;
mod writer;

pub use checksum_pages::ChecksumTable;
pub(crate) use checksums::SIDECAR_DIGEST_BYTES;
pub use checksums::{sidecar_path, ChecksumError, Checksums, CHECKSUM_PAGE_BYTES};
pub(crate) use discover::has_index_extension;
pub(crate) use discover::index_visit;
pub use discover::{index_files, DiscoverError};
pub use error::FormatError;
pub(crate) use header::fingerprint;
pub use header::{HeaderOptions, IndexHeader, IndexKind};
pub(crate) use names::{check_document_name, PADDING_NAME};
pub use names::{is_placeholder, names_digest, DocumentNames, NameError, NameList};
pub(crate) use rows::RANGE_ROWS_DEFAULT;
pub use rows::{
    LayoutChoice, LayoutFitError, RangeRowsError, RowLayout, RowMap, MINIMIZER_FPR_MIN,
    MINIMIZER_K_MIN,
};
pub(crate) use writer::write_classic_header;
pub use writer::{write_compact_header, CompactLayout, HeaderError};

/// The checksums of the index of `header` and, counted in the same pass over its file, each
/// document's ones (the bits of its column in its block's rows), which [`write_ones`] writes
/// beside the index for searches to correct their scores with.
pub fn checksums_counting_ones(
    header: &IndexHeader,
) -> Result<(Checksums, Vec<u32>), ChecksumError> {
    let mut ones = ones::OnesCounter::new(&header.blocks);
    let checksums = Checksums::compute_seeing(header, |bytes| ones.update(bytes))?;
    Ok((checksums, ones.finish()))
}

/// Writes beside the index at `index` each document's count of ones, `counts` (from
/// [`checksums_counting_ones`]), bound to the index and its checksum sidecar as they
/// are now: searches then correct their scores from it rather than from a sample of rows.
pub fn write_ones(index: &std::path::Path, counts: &[u32]) -> Result<(), FormatError> {
    ones::write_beside(index, counts)
}

/// `"COBS:"`, the first five bytes of every COBS file.
pub const MAGIC_PREFIX: &[u8; 5] = b"COBS:";
/// Type word of a compact index.
pub(crate) const COMPACT_MAGIC: &[u8; 13] = b"COMPACT_INDEX";
/// Type word of a classic index.
pub(crate) const CLASSIC_MAGIC: &[u8; 13] = b"CLASSIC_INDEX";
/// The only format version COBS has written.
pub(crate) const VERSION: u32 = 1;
/// bitsift's compact format with rows in minimizer ranges ([`RowLayout::Minimizer`]): the
/// compact header of version 1 with the row layout's 16 bytes after the page size. COBS
/// refuses it (it reads version 1 only), as it must: its rows are not where COBS looks.
pub(crate) const VERSION_RANGES: u32 = 2;

/// Largest term size accepted in a header or a build. COBS indexes use k = 31 (its default,
/// and the k of every published COBS collection); DNA k-mer tools rarely go beyond 63. A
/// larger value is far more likely a damaged byte than a choice (one flipped bit of k = 31
/// gives 95 or 159), and a wrong k silently changes every answer, so it is refused.
pub const K_MAX: u32 = 64;
/// Largest number of hash functions accepted in a header or a build. A Bloom filter with the
/// best number of hashes for a false-positive rate p uses log2(1/p) of them, so 32 reach
/// p = 2^-32; more only cost time (each is one row read per k-mer and block: a header
/// claiming 513 took 7.7 s for one gene).
pub const HASHES_MAX: u64 = 32;
/// Largest compact page size (bytes per row) accepted in a header or a build. COBS's
/// automatic page size stops at 4096 and its `compact-construct-combine` defaults to 8192;
/// 1 MiB leaves room for far larger choices while keeping every row read small (a damaged
/// header claiming 2^30 made a query allocate 32 GiB).
pub const PAGE_SIZE_MAX: u64 = 1 << 20;

/// One bit matrix of an index: `row_count` rows of `row_bytes` bytes, one bit per document,
/// documents `first_document .. first_document + document_count`, LSB first within a byte.
///
/// A compact index has one block per `8 · page_size` documents; a classic index has one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Index (in the header's name list) of the block's first document.
    pub first_document: u64,
    /// Documents in this block.
    pub document_count: u64,
    /// Rows (the block's Bloom filter size in bits).
    pub row_count: u64,
    /// Bytes per row.
    pub row_bytes: u64,
    /// File offset of row 0.
    pub data_offset: u64,
}

impl Block {
    /// File offset of row `row`.
    pub(crate) fn row_offset(&self, row: u64) -> u64 {
        debug_assert!(row < self.row_count);
        self.data_offset + row * self.row_bytes
    }

    /// Bytes of the block's matrix.
    pub fn data_bytes(&self) -> u64 {
        self.row_count * self.row_bytes
    }
}
