//! [`Integrity`]: the checksum sidecars of an index's files, as the read path uses them.
//!
//! The COBS format has no checksums, so bitsift keeps its own beside each index
//! ([`crate::format::Checksums`]: one CRC-32C per 4 KiB page). Opening an index reads only each
//! sidecar's preamble ([`ChecksumTable::open`]); the page checksums stay on disk and are read
//! with the rows they cover:
//!
//! - reads from storage go through [`super::CheckedReads`], which fetches the sidecar pages a
//!   batch needs (through the same engine, counted as side reads, cached within the side
//!   memory budget) and checks every read before its consumer sees it;
//! - rows scored in place from memory are checked page by page the first time a page is used
//!   ([`Integrity::verify_resident`]), against the sidecar's bytes in the same memory (the
//!   engine that holds the index holds its sidecar too); a bitmap of verified pages, shared by
//!   every thread, makes later uses free. A page whose bytes change afterwards (a file
//!   modified in place) is what the server's file watch catches.
//!
//! A mismatch is an error naming the file, the block and the page offset (or the sidecar, when
//! it is the sidecar that is damaged); the queries that needed the page fail, and the others
//! are answered. Files without a sidecar (indexes built by COBS, until `bitsift checksum` is
//! run on them) are read unchecked.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::format::{
    sidecar_path, ChecksumError, ChecksumTable, FormatError, IndexHeader, CHECKSUM_PAGE_BYTES,
};
use crate::io::IoError;
use crate::IoAt;

/// Why a read could not be counted.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The read itself failed.
    #[error(transparent)]
    Io(IoError),
    /// The bytes do not match the index's checksums.
    #[error(transparent)]
    Checksum(#[from] ChecksumError),
}

impl From<IoError> for ReadError {
    fn from(error: IoError) -> ReadError {
        match error {
            IoError::Corrupt(error) => match error.downcast::<ChecksumError>() {
                Ok(checksum) => ReadError::Checksum(*checksum),
                Err(other) => ReadError::Io(IoError::Corrupt(other)),
            },
            other => ReadError::Io(other),
        }
    }
}

/// The checksums of one file and the pages verified in memory.
#[derive(Debug)]
pub(crate) struct FileChecks {
    pub(crate) table: ChecksumTable,
    /// Engine file number of the sidecar.
    pub(crate) sidecar_file: u32,
    /// One bit per page: verified in memory. Allocated at the first in-place check.
    verified: OnceLock<Vec<AtomicU64>>,
}

/// The checksums of the files of an index; see the module documentation.
#[derive(Debug, Default)]
pub struct Integrity {
    files: Vec<Option<FileChecks>>,
}

impl Integrity {
    /// Opens the sidecar of every file that has one (its preamble only); a sidecar that is
    /// damaged or does not match its index is an error. Sidecars get engine file numbers from
    /// `first_side_file` on, in file order; returns them with their paths.
    pub(crate) fn open(
        headers: &[IndexHeader],
        first_side_file: u32,
    ) -> Result<(Integrity, Vec<PathBuf>), FormatError> {
        let mut files = Vec::with_capacity(headers.len());
        let mut sidecars = Vec::new();
        for header in headers {
            let checks = ChecksumTable::open(&header.path, header)?.map(|table| {
                let sidecar_file = first_side_file + sidecars.len() as u32;
                sidecars.push(sidecar_path(&header.path));
                FileChecks {
                    table,
                    sidecar_file,
                    verified: OnceLock::new(),
                }
            });
            files.push(checks);
        }
        Ok((Integrity { files }, sidecars))
    }

    /// Checksums of files described by `tables` (`None`: a file without), each with its
    /// sidecar's engine file number: for tests of the read path on plain data files.
    #[cfg(test)]
    pub(crate) fn from_tables(tables: Vec<Option<(ChecksumTable, u32)>>) -> Integrity {
        let files = tables
            .into_iter()
            .map(|t| {
                t.map(|(table, sidecar_file)| FileChecks {
                    table,
                    sidecar_file,
                    verified: OnceLock::new(),
                })
            })
            .collect();
        Integrity { files }
    }

    /// Whether any file has checksums (reads must then be aligned to 4 KiB).
    pub(crate) fn any(&self) -> bool {
        self.files.iter().any(Option::is_some)
    }

    pub(crate) fn checks(&self, file: u32) -> Option<&FileChecks> {
        self.files.get(file as usize).and_then(Option::as_ref)
    }

    /// The sidecar of file `file`: its table and engine file number.
    pub(crate) fn sidecar(&self, file: u32) -> Option<(&ChecksumTable, u32)> {
        self.checks(file).map(|c| (&c.table, c.sidecar_file))
    }

    /// Every sidecar: (index file, its table, the sidecar's engine file number).
    pub(crate) fn sidecars(&self) -> impl Iterator<Item = (u32, &ChecksumTable, u32)> {
        self.files
            .iter()
            .enumerate()
            .filter_map(|(f, c)| c.as_ref().map(|c| (f as u32, &c.table, c.sidecar_file)))
    }

    /// Files without checksums, whose reads cannot be checked.
    pub(crate) fn unchecked<'a>(&'a self, headers: &'a [IndexHeader]) -> Vec<PathBuf> {
        headers
            .iter()
            .zip(&self.files)
            .filter(|(_, checks)| checks.is_none())
            .map(|(header, _)| header.path.clone())
            .collect()
    }

    /// Checks `bytes`, read at `offset` of file `file`, reading the checksums they need from
    /// the sidecar file itself: for readers outside a query's batches (a background warm-up
    /// of the row cache), which read long runs of pages and need one small read of the
    /// sidecar per run.
    pub(crate) fn verify_direct(
        &self,
        file: u32,
        offset: u64,
        bytes: &[u8],
    ) -> Result<(), ChecksumError> {
        let Some(checks) = self.checks(file) else {
            return Ok(());
        };
        let table = &checks.table;
        if bytes.is_empty() || offset >= table.file_size() {
            return table.verify(offset, bytes, |_| None);
        }
        let first = offset / CHECKSUM_PAGE_BYTES;
        let end = (offset + bytes.len() as u64).min(table.file_size());
        let pages = (end - 1) / CHECKSUM_PAGE_BYTES + 1 - first;
        let sidecar = sidecar_path(table.index_path());
        let mut entries = vec![0u8; 4 * pages as usize];
        crate::io::SourceFile::open(&sidecar)
            .and_then(|f| f.read_exact_at(&mut entries, table.entry_offset(first)))
            .map_err(|source| {
                ChecksumError::Io(IoAt::new(sidecar.clone(), "cannot read checksums", source))
            })?;
        table.verify(offset, bytes, |page| {
            let at = 4 * (page - first) as usize;
            entries
                .get(at..at + 4)
                .map(|e| u32::from_le_bytes([e[0], e[1], e[2], e[3]]))
        })
    }

    /// Memory held for in-place checks (the bitmaps of verified pages).
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn resident_bytes(&self) -> u64 {
        self.files
            .iter()
            .flatten()
            .filter_map(|c| c.verified.get())
            .map(|bits| 8 * bits.len() as u64)
            .sum()
    }

    /// Checks, once per page, the pages of `data` (the whole file `file`, in memory) that hold
    /// bytes `offset..offset + len`, against `sidecar` (the whole sidecar, in memory).
    #[inline]
    pub(crate) fn verify_resident(
        &self,
        file: u32,
        data: &[u8],
        offset: u64,
        len: u64,
        sidecar: &[u8],
    ) -> Result<(), ChecksumError> {
        let Some(checks) = self.checks(file) else {
            return Ok(());
        };
        let first = offset / CHECKSUM_PAGE_BYTES;
        let last = (offset + len.max(1) - 1) / CHECKSUM_PAGE_BYTES;
        let verified = checks.verified.get_or_init(|| {
            let words = checks.table.page_count().div_ceil(64) as usize;
            (0..words).map(|_| AtomicU64::new(0)).collect()
        });
        for page in first..=last {
            let (word, bit) = ((page / 64) as usize, 1u64 << (page % 64));
            let Some(slot) = verified.get(word) else {
                break;
            };
            if slot.load(Ordering::Relaxed) & bit != 0 {
                continue;
            }
            self.verify_page_in_memory(checks, page, data, sidecar)?;
            slot.fetch_or(bit, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Checks page `page` of `data` against `sidecar`, both whole files in memory.
    #[cold]
    fn verify_page_in_memory(
        &self,
        checks: &FileChecks,
        page: u64,
        data: &[u8],
        sidecar: &[u8],
    ) -> Result<(), ChecksumError> {
        if let Some(detail) = checks.table.sidecar_damage_in(sidecar) {
            return Err(ChecksumError::SidecarDamaged {
                path: sidecar_path(checks.table.index_path()),
                detail,
            });
        }
        let start = (page * CHECKSUM_PAGE_BYTES) as usize;
        let end = (start + CHECKSUM_PAGE_BYTES as usize).min(data.len());
        let bytes = &data[start.min(end)..end];
        checks.table.verify(start as u64, bytes, |p| {
            checks.table.expected(p, sidecar, true)
        })
    }
}
