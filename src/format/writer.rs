//! Writing COBS compact and classic headers, byte-exact to COBS's own writers.

use super::rows::{RowLayout, LAYOUT_MINIMIZER};
use super::{CLASSIC_MAGIC, COMPACT_MAGIC, MAGIC_PREFIX, VERSION, VERSION_RANGES};

/// The parameters of a compact index, everything its header records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactLayout {
    /// Term size.
    pub k: u32,
    /// Canonical DNA k-mers (1) or raw bytes (0).
    pub canonical: bool,
    /// Hash functions per term.
    pub num_hashes: u32,
    /// Bytes per row; a block holds `8 · page_size` documents.
    pub page_size: u64,
    /// Rows of each block.
    pub block_rows: Vec<u64>,
    /// Where a k-mer's rows lie: COBS's layout writes COBS's header (version 1), the
    /// minimizer ranges bitsift's version 2.
    pub rows: RowLayout,
}

impl CompactLayout {
    /// COBS's layout of canonical 31-mers with one hash, rows of `page_size` bytes and
    /// blocks of `block_rows` rows: the tests' usual index.
    #[cfg(test)]
    pub(crate) fn cobs31(page_size: u64, block_rows: Vec<u64>) -> CompactLayout {
        CompactLayout {
            k: 31,
            canonical: true,
            num_hashes: 1,
            page_size,
            block_rows,
            rows: RowLayout::Cobs,
        }
    }

    /// Documents per block.
    pub(crate) fn documents_per_block(&self) -> u64 {
        8 * self.page_size
    }

    /// Bytes of all blocks.
    pub fn data_bytes(&self) -> u64 {
        self.block_rows.iter().sum::<u64>() * self.page_size
    }
}

/// Why a header could not be encoded: the layout and the names disagree, or a name cannot
/// be stored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// A page size of 0.
    #[error("page size must be positive")]
    PageSizeZero,
    /// A compact index without documents.
    #[error("an index needs at least one document")]
    NoDocuments,
    /// The documents do not fill the blocks.
    #[error("{documents} documents need {} blocks of {per_block}, not {blocks}", documents.div_ceil(*per_block))]
    BlockCount {
        /// Documents named.
        documents: u64,
        /// Documents a block holds.
        per_block: u64,
        /// Blocks of the layout.
        blocks: usize,
    },
    /// More documents than the header can count.
    #[error("{0} documents exceed the format's limit of 2^32 - 1")]
    TooManyDocuments(u64),
    /// Rows per range the minimizer layout cannot use.
    #[error(transparent)]
    RangeRows(#[from] super::RangeRowsError),
    /// A block of no rows.
    #[error("every block needs at least one row")]
    EmptyBlock,
    /// A block whose rows are not whole ranges.
    #[error("a block of {rows} rows is not a whole number of ranges of {range_rows}")]
    PartialRange {
        /// Rows of the block.
        rows: u64,
        /// Rows per range.
        range_rows: u64,
    },
    /// A classic index without documents or rows.
    #[error("a classic index needs at least one document and one row")]
    EmptyClassic,
    /// A name the header cannot store.
    #[error("document name {0:?} contains a newline, which the COBS format cannot store")]
    NameWithNewline(String),
}

/// Encodes the header of a compact index (magic, parameters, names, padding, end magic).
/// The data section starts right after it, at a multiple of `page_size` as COBS requires.
///
/// Fails when a name contains a newline (the format has no escaping) or the number of names
/// does not fill the blocks (every block but the last holds exactly `8 · page_size`).
pub fn write_compact_header<'a>(
    layout: &CompactLayout,
    names: impl ExactSizeIterator<Item = &'a str>,
) -> Result<Vec<u8>, HeaderError> {
    let document_count = names.len() as u64;
    let per_block = layout.documents_per_block();
    if layout.page_size == 0 {
        return Err(HeaderError::PageSizeZero);
    }
    if document_count == 0 {
        return Err(HeaderError::NoDocuments);
    }
    if document_count.div_ceil(per_block) != layout.block_rows.len() as u64 {
        return Err(HeaderError::BlockCount {
            documents: document_count,
            per_block,
            blocks: layout.block_rows.len(),
        });
    }
    let document_count =
        u32::try_from(document_count).map_err(|_| HeaderError::TooManyDocuments(document_count))?;
    let mut out = Vec::with_capacity(80 + 16 * layout.block_rows.len() + 32 * names.len());
    out.extend_from_slice(MAGIC_PREFIX);
    out.extend_from_slice(COMPACT_MAGIC);
    let version = match layout.rows {
        RowLayout::Cobs => VERSION,
        RowLayout::Minimizer { .. } => VERSION_RANGES,
    };
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&layout.k.to_le_bytes());
    out.push(layout.canonical as u8);
    out.extend_from_slice(&(layout.block_rows.len() as u32).to_le_bytes());
    out.extend_from_slice(&document_count.to_le_bytes());
    out.extend_from_slice(&layout.page_size.to_le_bytes());
    if let RowLayout::Minimizer {
        range_rows,
        minimizer,
    } = layout.rows
    {
        RowLayout::check_range_rows(range_rows as u64)?;
        for field in [LAYOUT_MINIMIZER, range_rows, minimizer, 0] {
            out.extend_from_slice(&field.to_le_bytes());
        }
    }
    for &rows in &layout.block_rows {
        if rows == 0 {
            return Err(HeaderError::EmptyBlock);
        }
        if rows % layout.rows.range_rows() != 0 {
            return Err(HeaderError::PartialRange {
                rows,
                range_rows: layout.rows.range_rows(),
            });
        }
        out.extend_from_slice(&rows.to_le_bytes());
        out.extend_from_slice(&(layout.num_hashes as u64).to_le_bytes());
    }
    push_names(&mut out, names)?;
    let position = out.len() as u64;
    let padding = (layout.page_size - ((position + 13) % layout.page_size)) % layout.page_size;
    out.resize(out.len() + padding as usize, 0);
    out.extend_from_slice(COMPACT_MAGIC);
    debug_assert_eq!(out.len() as u64 % layout.page_size, 0);
    Ok(out)
}

/// Encodes the header of a classic index: magic, k, canonical flag, document count,
/// `row_count` (the signature size), hash count, names, end magic. Its rows follow, each
/// `ceil(D/8)` bytes, with no padding (docs: cobs-format §2.2).
pub(crate) fn write_classic_header<'a>(
    k: u32,
    canonical: bool,
    num_hashes: u32,
    row_count: u64,
    names: impl ExactSizeIterator<Item = &'a str>,
) -> Result<Vec<u8>, HeaderError> {
    let document_count = names.len() as u64;
    if document_count == 0 || row_count == 0 {
        return Err(HeaderError::EmptyClassic);
    }
    let document_count =
        u32::try_from(document_count).map_err(|_| HeaderError::TooManyDocuments(document_count))?;
    let mut out = Vec::with_capacity(64 + 32 * names.len());
    out.extend_from_slice(MAGIC_PREFIX);
    out.extend_from_slice(CLASSIC_MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&k.to_le_bytes());
    out.push(canonical as u8);
    out.extend_from_slice(&document_count.to_le_bytes());
    out.extend_from_slice(&row_count.to_le_bytes());
    out.extend_from_slice(&(num_hashes as u64).to_le_bytes());
    push_names(&mut out, names)?;
    out.extend_from_slice(CLASSIC_MAGIC);
    Ok(out)
}

/// Appends the document names, one per line, as both COBS headers store them.
fn push_names<'a>(
    out: &mut Vec<u8>,
    names: impl Iterator<Item = &'a str>,
) -> Result<(), HeaderError> {
    for name in names {
        if name.contains('\n') {
            return Err(HeaderError::NameWithNewline(name.to_string()));
        }
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_documents_page_eight_matches_cobs_worked_example() {
        // docs/formats.md, compact index example: 7 documents, P=8, one block of 8748 rows.
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        let layout = CompactLayout::cobs31(8, vec![8748]);
        let header = write_compact_header(&layout, names.iter().copied()).unwrap();
        assert_eq!(&header[..18], b"COBS:COMPACT_INDEX");
        assert_eq!(header.len() % 8, 0);
        // 43 + 16 + 14 name bytes = 73; padding to (73 + 13) -> 88.
        assert_eq!(header.len(), 88);
    }

    /// COBS's worked example (docs: cobs-format §2.2): k=31, canonical, one document
    /// `genome`, 83547 rows, one hash; the data starts at byte 67.
    #[test]
    fn classic_header_matches_cobs_worked_example() {
        let header = write_classic_header(31, true, 1, 83547, ["genome"].into_iter()).unwrap();
        assert_eq!(header.len(), 67);
        assert_eq!(&header[..18], b"COBS:CLASSIC_INDEX");
        assert_eq!(&header[22..27], &[0x1f, 0, 0, 0, 1]);
        assert_eq!(&header[31..39], &[0x5b, 0x46, 0x01, 0, 0, 0, 0, 0]);
        assert_eq!(&header[47..54], b"genome\n");
        assert!(write_classic_header(31, true, 1, 10, ["a\nb"].into_iter()).is_err());
    }

    /// The minimizer layout: COBS's compact header with version 2 and the layout's 16 bytes
    /// after the page size; everything after them is as in version 1.
    #[test]
    fn minimizer_layout_header_is_version_2_with_the_layout_after_the_page_size() {
        let mut layout = CompactLayout {
            rows: RowLayout::minimizer(31, 16),
            ..CompactLayout::cobs31(8, vec![8752])
        };
        let header = write_compact_header(&layout, ["a", "b"].into_iter()).unwrap();
        assert_eq!(&header[..18], b"COBS:COMPACT_INDEX");
        assert_eq!(&header[18..22], &2u32.to_le_bytes());
        assert_eq!(&header[43..47], &1u32.to_le_bytes());
        assert_eq!(&header[47..51], &16u32.to_le_bytes());
        assert_eq!(&header[51..55], &13u32.to_le_bytes());
        assert_eq!(&header[55..59], &0u32.to_le_bytes());
        assert_eq!(&header[59..67], &8752u64.to_le_bytes());
        assert_eq!(header.len() % 8, 0);
        layout.block_rows = vec![8748];
        let error = write_compact_header(&layout, ["a"].into_iter())
            .unwrap_err()
            .to_string();
        assert!(error.contains("whole number of ranges"), "{error}");
    }

    #[test]
    fn refuses_newlines_and_wrong_block_counts() {
        let layout = CompactLayout::cobs31(8, vec![10]);
        assert!(write_compact_header(&layout, ["a\nb"].into_iter()).is_err());
        let names: Vec<String> = (0..65).map(|i| i.to_string()).collect();
        assert!(write_compact_header(&layout, names.iter().map(String::as_str)).is_err());
    }
}
