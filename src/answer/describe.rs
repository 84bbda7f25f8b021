//! What an index is, described once for every front end.
//!
//! - [`IndexFile`]: one index file as its header tells it, what `bitsift info FILE` and
//!   Python's `Index.info()` print for each file.
//! - [`IndexDescription`]: one index as answers name it, a collection (all its files, named
//!   after its directory) or an index file, with the parameters it was built with: the JSON
//!   output's `indexes`, the server's served indexes and `/api/indexes`.

use serde::Serialize;

use crate::format::{IndexHeader, IndexKind, RowLayout};
use crate::query::Index;

/// One index file as its header tells it; see the module documentation.
#[derive(Clone, Debug, Serialize)]
pub struct IndexFile {
    /// The file, as given.
    pub path: String,
    /// `compact` or `classic`.
    pub format: IndexKind,
    /// The header's version.
    pub version: u32,
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions.
    pub hashes: u32,
    /// Where a k-mer's rows lie: `{"name": "cobs"}` or `{"name": "minimizer", "range_rows",
    /// "minimizer"}`.
    pub layout: RowLayout,
    /// Documents a search may report: placeholders of merged files are not counted.
    pub documents: u64,
    /// Placeholder documents of a merged file ([`crate::format::is_placeholder`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub placeholders: u64,
    /// Blocks.
    pub blocks: usize,
    /// Bytes per row.
    pub page_size: u64,
    /// Documents a block holds (a classic index is one block of all of them).
    pub documents_per_block: u64,
    /// Rows of the smallest block.
    pub rows_min: u64,
    /// Rows of the largest block.
    pub rows_max: u64,
    /// Rows of all blocks.
    pub rows_total: u64,
    /// Rows of every block, in file order.
    pub block_rows: Vec<u64>,
    /// Where the rows start.
    pub data_offset: u64,
    /// The rows start on a 4 KiB boundary.
    pub data_offset_4k_aligned: bool,
    /// Every row starts on a multiple of its size.
    pub rows_page_aligned: bool,
    /// Bytes of the file.
    pub file_size: u64,
    /// Rows a k-mer costs under COBS's layout: one per block and hash function.
    pub reads_per_kmer: u64,
}

impl IndexFile {
    /// The description of the file `header` was read from.
    pub fn of(header: &IndexHeader) -> IndexFile {
        let rows = header.blocks.iter().map(|b| b.row_count);
        let placeholders = header.names.placeholders().len() as u64;
        IndexFile {
            path: header.path.display().to_string(),
            format: header.kind,
            version: header.version(),
            k: header.k,
            canonical: header.canonical,
            hashes: header.num_hashes,
            layout: header.rows,
            documents: header.document_count() - placeholders,
            placeholders,
            blocks: header.blocks.len(),
            page_size: header.page_size,
            documents_per_block: match header.kind {
                IndexKind::Compact => 8 * header.page_size,
                IndexKind::Classic => header.document_count(),
            },
            rows_min: rows.clone().min().unwrap_or(0),
            rows_max: rows.clone().max().unwrap_or(0),
            rows_total: rows.clone().sum(),
            block_rows: rows.collect(),
            data_offset: header.data_offset,
            data_offset_4k_aligned: header.data_offset % 4096 == 0,
            rows_page_aligned: header.rows_page_aligned(),
            file_size: header.file_size,
            reads_per_kmer: header.blocks.len() as u64 * header.num_hashes as u64,
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One index as answers name it; see the module documentation. Built from the header of
/// its first file, then each further file of the same name is [added](Self::add_file).
#[derive(Clone, Debug, Serialize)]
pub struct IndexDescription {
    /// The name hits carry in their `index` field (and requests select by).
    pub name: String,
    /// Its first file, as given (the server's listing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Its files, as given.
    pub files: Vec<String>,
    /// Whether it can be searched now: `ok`, `changed` or `damaged` (the server's listing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<&'static str>,
    /// What is wrong with it, when its status is not `ok`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The manifest generation served, for a collection (the server's listing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// `compact` or `classic`.
    pub format: &'static str,
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions.
    pub hashes: u32,
    /// Bytes per row (of its first file).
    pub page_size: u64,
    /// The row layout of its first file (the server's listing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<RowLayout>,
    /// Blocks.
    pub blocks: usize,
    /// Documents searches may report (removed documents and placeholders left out).
    pub documents: u64,
    /// Bytes of its files.
    pub file_size: u64,
}

impl IndexDescription {
    /// An index named `name` of one file, read from `header`, of which searches may report
    /// `documents`.
    pub(crate) fn new(name: &str, header: &IndexHeader, documents: u64) -> IndexDescription {
        IndexDescription {
            name: name.to_string(),
            file: None,
            files: vec![header.path.display().to_string()],
            status: None,
            error: None,
            generation: None,
            format: header.kind.as_str(),
            k: header.k,
            canonical: header.canonical,
            hashes: header.num_hashes,
            page_size: header.page_size,
            layout: None,
            blocks: header.blocks.len(),
            documents,
            file_size: header.file_size,
        }
    }

    /// Adds the files, blocks, documents and bytes of `other`, a further part of the same
    /// index.
    pub(crate) fn add(&mut self, other: &IndexDescription) {
        self.files.extend(other.files.iter().cloned());
        self.blocks += other.blocks;
        self.documents += other.documents;
        self.file_size += other.file_size;
    }

    /// The descriptions of the sources of an open index, in source order (each source's
    /// files are consecutive).
    pub(crate) fn of_sources(index: &Index) -> Vec<IndexDescription> {
        let sources = index.sources();
        let mut described: Vec<Option<IndexDescription>> = vec![None; sources.names.len()];
        assert!(
            sources.of_file.windows(2).all(|w| w[0] <= w[1]),
            "the files of a source are consecutive, so `files` listed in order number them"
        );
        for (file, header) in index.headers().iter().enumerate() {
            let source = sources.of_file[file] as usize;
            let one = IndexDescription::new(
                &sources.names[source],
                header,
                index.shown_documents(file as u32),
            );
            match &mut described[source] {
                Some(entry) => entry.add(&one),
                entry @ None => *entry = Some(one),
            }
        }
        described.into_iter().flatten().collect()
    }
}
