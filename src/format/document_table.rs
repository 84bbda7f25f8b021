//! `INDEX.bitsift-build-documents`: the bases and k-mers each document of an index was built
//! from, one fixed-size record per document in header order, read page by page (a 661k-genome
//! index's table is 10 MiB, and `bitsift info --document NAME` reads 4 KiB of it).
//!
//! It belongs to the build record ([`super::build_record`]), which holds the index-wide part;
//! the COBS format records neither. Layout (little-endian):
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 16 | `\x89bitsift-doc\r\n\x1a\n` |
//! | 16 | 4 | version, 1 |
//! | 20 | 4 | bytes per record, 16 |
//! | 24 | 8 | documents `N` |
//! | 32 | 8 | header fingerprint of the index ([`super::IndexHeader::fingerprint`]) |
//! | 40 | 8 | xxh64 (seed 0) of bytes 0..40 |
//! | 48 | 16·N | per document: bases, k-mer positions (`u64::MAX` bases: a placeholder) |
//! | 48 + 16·N | 8·P | xxh64 (seed 0) of each page of [`RECORDS_PER_PAGE`] records (the last shorter) |
//!
//! A reader checks the preamble, the length the counts give and the fingerprint once, then
//! each page it reads against its digest.

use std::io::Write;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh64::xxh64;

use crate::io::SourceFile;
use crate::io_at::IoAt;

/// Why a build record cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be read or written.
    #[error(transparent)]
    Io(#[from] IoAt),
    /// The file is not a record bitsift can read.
    #[error("{path}: {detail}", path = path.display())]
    Invalid {
        /// The record (or its document table).
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The record describes another index than the one beside it.
    #[error("{path}: a build record of another index: {detail}; it is ignored", path = path.display())]
    Stale {
        /// The record (or its document table).
        path: PathBuf,
        /// What differs.
        detail: String,
    },
}

/// Suffix of the table beside an index.
pub(crate) const DOCUMENTS_SUFFIX: &str = ".bitsift-build-documents";
/// Records a page holds: 4 KiB, one read each.
pub(crate) const RECORDS_PER_PAGE: u64 = 256;
const MAGIC: &[u8; 16] = b"\x89bitsift-doc\r\n\x1a\n";
const VERSION: u32 = 1;
const RECORD_BYTES: u64 = 16;
const PREAMBLE_BYTES: u64 = 48;
/// The bases of a placeholder's record: it was built from nothing.
const PLACEHOLDER: u64 = u64::MAX;

/// What one document was built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DocumentFacts {
    /// Bases read (after the alphabet's rule: whitespace dropped).
    pub bases: u64,
    /// k-mer positions (`Σ max(0, length − k + 1)` over its records), which size the rows.
    pub kmers: u64,
}

/// The table path of `index`: its file name plus [`DOCUMENTS_SUFFIX`].
pub(crate) fn table_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_os_string();
    name.push(DOCUMENTS_SUFFIX);
    PathBuf::from(name)
}

/// Writes the table of the index `index` (header fingerprint `fingerprint`) atomically: one
/// record per document of `documents` (`None`: a placeholder).
pub(crate) fn write(
    index: &Path,
    fingerprint: u64,
    documents: &[Option<DocumentFacts>],
) -> Result<(), RecordError> {
    let path = table_path(index);
    let io = |e| {
        RecordError::Io(IoAt::new(
            path.clone(),
            "cannot write the document table",
            e,
        ))
    };
    let mut file = crate::tempfiles::AtomicFile::create(&path).map_err(io)?;
    let mut preamble = Vec::with_capacity(PREAMBLE_BYTES as usize);
    preamble.extend_from_slice(MAGIC);
    preamble.extend_from_slice(&VERSION.to_le_bytes());
    preamble.extend_from_slice(&(RECORD_BYTES as u32).to_le_bytes());
    preamble.extend_from_slice(&(documents.len() as u64).to_le_bytes());
    preamble.extend_from_slice(&fingerprint.to_le_bytes());
    let digest = xxh64(&preamble, 0);
    preamble.extend_from_slice(&digest.to_le_bytes());
    file.write_all(&preamble).map_err(io)?;
    let mut digests = Vec::new();
    let mut page = Vec::with_capacity((RECORDS_PER_PAGE * RECORD_BYTES) as usize);
    for chunk in documents.chunks(RECORDS_PER_PAGE as usize) {
        page.clear();
        for facts in chunk {
            let (bases, kmers) = facts.map_or((PLACEHOLDER, 0), |f| (f.bases, f.kmers));
            page.extend_from_slice(&bases.to_le_bytes());
            page.extend_from_slice(&kmers.to_le_bytes());
        }
        digests.extend_from_slice(&xxh64(&page, 0).to_le_bytes());
        file.write_all(&page).map_err(io)?;
    }
    file.write_all(&digests).map_err(io)?;
    file.commit().map_err(io)
}

/// An opened table; see the module documentation.
pub struct DocumentTable {
    path: PathBuf,
    file: SourceFile,
    documents: u64,
}

impl DocumentTable {
    /// Opens the table beside `index`, checking it describes the `documents` documents of the
    /// header with fingerprint `fingerprint`. `Ok(None)` when there is none.
    pub(crate) fn open(
        index: &Path,
        fingerprint: u64,
        documents: u64,
    ) -> Result<Option<DocumentTable>, RecordError> {
        let path = table_path(index);
        let file = match SourceFile::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(IoAt::new(path, "cannot open the document table", e).into()),
        };
        let read_error =
            |e| RecordError::Io(IoAt::new(path.clone(), "cannot read the document table", e));
        let len = file.len().map_err(read_error)?;
        let invalid = |detail: &str| RecordError::Invalid {
            path: path.clone(),
            detail: format!("not a valid document table: {detail}"),
        };
        if len < PREAMBLE_BYTES {
            return Err(invalid("it is shorter than its preamble"));
        }
        let mut preamble = [0u8; PREAMBLE_BYTES as usize];
        file.read_exact_at(&mut preamble, 0).map_err(read_error)?;
        let u64_at = |at: usize| u64::from_le_bytes(preamble[at..at + 8].try_into().expect("8"));
        if &preamble[..16] != MAGIC || xxh64(&preamble[..40], 0) != u64_at(40) {
            return Err(invalid("its preamble is damaged or not a table's"));
        }
        let version = u32::from_le_bytes(preamble[16..20].try_into().expect("4 bytes"));
        let record_bytes = u32::from_le_bytes(preamble[20..24].try_into().expect("4 bytes"));
        if version != VERSION || record_bytes as u64 != RECORD_BYTES {
            return Err(invalid(&format!("version {version} is not supported")));
        }
        if u64_at(32) != fingerprint || u64_at(24) != documents {
            return Err(RecordError::Stale {
                path: path.clone(),
                detail: format!(
                    "it lists {} documents of another index (this one has {documents})",
                    u64_at(24)
                ),
            });
        }
        if Some(len) != expected_len(documents) {
            return Err(invalid("its length disagrees with its count of documents"));
        }
        Ok(Some(DocumentTable {
            path,
            file,
            documents,
        }))
    }

    /// The records of page `page` (documents `256·page ..`), checked against its digest.
    fn page(&self, page: u64, records: &mut Vec<u8>) -> Result<(), RecordError> {
        let first = page * RECORDS_PER_PAGE;
        let count = RECORDS_PER_PAGE.min(self.documents - first);
        records.resize((count * RECORD_BYTES) as usize, 0);
        let read_error = |e| {
            RecordError::Io(IoAt::new(
                self.path.clone(),
                "cannot read the document table",
                e,
            ))
        };
        self.file
            .read_exact_at(records, PREAMBLE_BYTES + first * RECORD_BYTES)
            .map_err(read_error)?;
        let mut digest = [0u8; 8];
        let digests_at = PREAMBLE_BYTES + self.documents * RECORD_BYTES;
        self.file
            .read_exact_at(&mut digest, digests_at + 8 * page)
            .map_err(read_error)?;
        if xxh64(records, 0) != u64::from_le_bytes(digest) {
            return Err(RecordError::Invalid {
                path: self.path.clone(),
                detail: format!("damaged: page {page} does not match its digest"),
            });
        }
        Ok(())
    }

    /// What document `document` was built from (`None`: a placeholder).
    pub fn get(&self, document: u64) -> Result<Option<DocumentFacts>, RecordError> {
        assert!(
            document < self.documents,
            "document {document} is in the table"
        );
        let mut records = Vec::new();
        self.page(document / RECORDS_PER_PAGE, &mut records)?;
        let at = ((document % RECORDS_PER_PAGE) * RECORD_BYTES) as usize;
        Ok(decode(&records[at..at + RECORD_BYTES as usize]))
    }

    /// Calls `each` with every document's number and facts, in order, reading a page at a
    /// time.
    pub fn for_each(
        &self,
        mut each: impl FnMut(u64, Option<DocumentFacts>),
    ) -> Result<(), RecordError> {
        let mut records = Vec::new();
        for page in 0..self.documents.div_ceil(RECORDS_PER_PAGE) {
            self.page(page, &mut records)?;
            let first = page * RECORDS_PER_PAGE;
            for (at, record) in records.chunks_exact(RECORD_BYTES as usize).enumerate() {
                each(first + at as u64, decode(record));
            }
        }
        Ok(())
    }
}

fn decode(record: &[u8]) -> Option<DocumentFacts> {
    let bases = u64::from_le_bytes(record[..8].try_into().expect("8 bytes"));
    let kmers = u64::from_le_bytes(record[8..16].try_into().expect("8 bytes"));
    (bases != PLACEHOLDER).then_some(DocumentFacts { bases, kmers })
}

/// Bytes of the table of `documents` documents (`None` when that overflows).
fn expected_len(documents: u64) -> Option<u64> {
    let pages = documents.div_ceil(RECORDS_PER_PAGE);
    documents
        .checked_mul(RECORD_BYTES)?
        .checked_add(pages.checked_mul(8)?)?
        .checked_add(PREAMBLE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_round_trips_page_by_page_and_catches_damage() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("x.cobs_compact");
        let documents: Vec<Option<DocumentFacts>> = (0..600u64)
            .map(|d| {
                (d % 7 != 3).then_some(DocumentFacts {
                    bases: 1000 + d,
                    kmers: 970 + d,
                })
            })
            .collect();
        write(&index, 42, &documents).unwrap();
        let table = DocumentTable::open(&index, 42, 600).unwrap().unwrap();
        assert_eq!(table.get(599).unwrap(), documents[599]);
        assert_eq!(table.get(3).unwrap(), None, "a placeholder");
        let mut seen = Vec::new();
        table.for_each(|d, facts| seen.push((d, facts))).unwrap();
        assert_eq!(seen.len(), 600);
        assert!(seen.iter().all(|(d, f)| documents[*d as usize] == *f));
        let stale = DocumentTable::open(&index, 43, 600).err().unwrap();
        assert!(matches!(stale, RecordError::Stale { .. }), "{stale}");
        let mut bytes = std::fs::read(table_path(&index)).unwrap();
        bytes[48 + 16 * 300] ^= 1;
        std::fs::write(table_path(&index), &bytes).unwrap();
        let table = DocumentTable::open(&index, 42, 600).unwrap().unwrap();
        assert!(table.get(0).is_ok(), "page 0 is intact");
        let damaged = table.get(300).unwrap_err().to_string();
        assert!(damaged.contains("page 1 does not match"), "{damaged}");
        assert!(DocumentTable::open(&dir.path().join("y"), 42, 600)
            .unwrap()
            .is_none());
    }
}
