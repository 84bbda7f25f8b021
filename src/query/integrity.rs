//! Every row a query counts is checked against the index's checksum sidecar first.
//!
//! The COBS format has no checksums, so bitsift keeps its own beside each index
//! ([`crate::format::Checksums`]: one CRC-32C per 4 KiB page of the file). [`Integrity`]
//! holds them for the files of an [`super::Index`], loaded once at open, and checks:
//!
//! - every read from storage, before its rows are added or cached ([`Integrity::verify_read`]):
//!   reads are aligned to 4 KiB when a file has checksums, so each covers whole pages;
//! - rows scored in place from memory, page by page, the first time a page is used
//!   ([`Integrity::verify_resident`]): a bitmap of verified pages, shared by every thread,
//!   makes later uses free. A page whose bytes change afterwards (a file modified in place)
//!   is what the server's file watch catches.
//!
//! A mismatch is an error naming the file, the block and the page offset; the queries that
//! needed the page fail, and the others are answered. Files without a sidecar (indexes built
//! by COBS, until `bitsift checksum` is run on them) are read unchecked.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::format::{ChecksumError, Checksums, FormatError, IndexHeader, CHECKSUM_PAGE_BYTES};
use crate::io::IoError;

/// Why a read could not be counted.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The read itself failed.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The bytes do not match the index's checksums.
    #[error(transparent)]
    Checksum(#[from] ChecksumError),
}

/// The checksums of one file and the pages verified in memory.
#[derive(Debug)]
struct FileChecks {
    checksums: Checksums,
    /// One bit per page: verified in memory. Allocated at the first in-place check.
    verified: OnceLock<Vec<AtomicU64>>,
}

/// The checksums of the files of an index; see the module documentation.
#[derive(Debug, Default)]
pub struct Integrity {
    files: Vec<Option<FileChecks>>,
}

impl Integrity {
    /// Loads the sidecar of every file that has one; a sidecar that is damaged or does not
    /// match its index is an error.
    pub fn load(headers: &[IndexHeader]) -> Result<Integrity, FormatError> {
        let files = headers
            .iter()
            .map(|header| {
                Ok(
                    Checksums::load(&header.path, header)?.map(|checksums| FileChecks {
                        checksums,
                        verified: OnceLock::new(),
                    }),
                )
            })
            .collect::<Result<Vec<_>, FormatError>>()?;
        Ok(Integrity { files })
    }

    /// Whether any file has checksums (reads must then be aligned to 4 KiB).
    pub fn any(&self) -> bool {
        self.files.iter().any(Option::is_some)
    }

    /// Whether file `file` has checksums.
    pub fn covers(&self, file: u32) -> bool {
        self.files
            .get(file as usize)
            .is_some_and(Option::is_some)
    }

    /// Files without checksums, whose reads cannot be checked.
    pub fn unchecked<'a>(&'a self, headers: &'a [IndexHeader]) -> Vec<PathBuf> {
        headers
            .iter()
            .zip(&self.files)
            .filter(|(_, checks)| checks.is_none())
            .map(|(header, _)| header.path.clone())
            .collect()
    }

    /// Checks bytes read from storage at `offset` of file `file` (a no-op without checksums).
    #[inline]
    pub fn verify_read(&self, file: u32, offset: u64, bytes: &[u8]) -> Result<(), ChecksumError> {
        match self.files.get(file as usize) {
            Some(Some(checks)) => checks.checksums.verify(offset, bytes),
            _ => Ok(()),
        }
    }

    /// Checks, once per page, the pages of `data` (the whole file `file`, in memory) that hold
    /// bytes `offset..offset + len`.
    #[inline]
    pub fn verify_resident(
        &self,
        file: u32,
        data: &[u8],
        offset: u64,
        len: u64,
    ) -> Result<(), ChecksumError> {
        let Some(Some(checks)) = self.files.get(file as usize) else {
            return Ok(());
        };
        let first = offset / CHECKSUM_PAGE_BYTES;
        let last = (offset + len.max(1) - 1) / CHECKSUM_PAGE_BYTES;
        let verified = checks.verified.get_or_init(|| {
            let words = checks.checksums.page_count().div_ceil(64) as usize;
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
            let start = (page * CHECKSUM_PAGE_BYTES) as usize;
            let end = (start + CHECKSUM_PAGE_BYTES as usize).min(data.len());
            checks.checksums.verify_page(page, &data[start.min(end)..end])?;
            slot.fetch_or(bit, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// The integrity of an index, shared by its sessions.
pub type SharedIntegrity = Arc<Integrity>;
