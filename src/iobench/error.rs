//! Why a benchmark could not run or stopped: one variant per failure, each naming the file.

use std::path::PathBuf;

/// A benchmark failure. Every message is one line that starts with the file.
#[derive(Debug, thiserror::Error)]
pub enum IobenchError {
    /// The options cannot be run (checked before any I/O).
    #[error("{0}")]
    Options(String),
    /// The benchmark file cannot be created, opened or used.
    #[error("{path}: {detail}", path = path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong and, when the user can act, what to do.
        detail: String,
    },
    /// A read returned bytes that are not the pattern the file was written with.
    #[error(
        "{path}: data mismatch at offset {offset} (sector {sector}, byte {byte_in_sector}): expected {expected:#04x}, read {found:#04x} during the {run} run; the storage returned wrong data",
        path = path.display(),
        sector = offset / super::pattern::SECTOR_BYTES as u64,
        byte_in_sector = offset % super::pattern::SECTOR_BYTES as u64
    )]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// Offset in the file of the first wrong byte.
        offset: u64,
        /// The byte the pattern has there.
        expected: u8,
        /// The byte that was read.
        found: u8,
        /// Which run read it (variant and depth).
        run: String,
    },
    /// A read failed, or ended before its block did.
    #[error("{path}: read of {len} bytes at offset {offset} failed during the {run} run: {source}", path = path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Offset of the failed part of the read.
        offset: u64,
        /// Bytes that were still to be read.
        len: u64,
        /// Which run (variant and depth).
        run: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// io_uring failed after the probe had succeeded.
    #[error("{path}: io_uring failed during the {run} run: {detail}", path = path.display())]
    Uring {
        /// The file.
        path: PathBuf,
        /// Which run.
        run: String,
        /// What failed.
        detail: String,
    },
}

impl IobenchError {
    /// A problem with the file, in words.
    pub(crate) fn file(path: &std::path::Path, detail: impl Into<String>) -> IobenchError {
        IobenchError::File {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }
}
