//! Errors of reading and writing COBS index files. Every variant carries the path, and the
//! message says what is wrong in terms a user can act on.

use crate::IoAt;
use std::path::PathBuf;

/// Why an index file could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The operating system refused an operation on a file.
    #[error(transparent)]
    Io(#[from] IoAt),
    /// The file does not start with the COBS magic.
    #[error("{path}: not a COBS index (it does not start with \"COBS:\"); pass a .cobs_compact or .cobs_classic file", path = path.display())]
    NotCobs {
        /// The file.
        path: PathBuf,
    },
    /// A COBS file, but not an index (e.g. a `.cobs_doc` k-mer buffer).
    #[error("{path}: a COBS file of type {kind:?}, not an index; pass a .cobs_compact or .cobs_classic file", path = path.display())]
    NotAnIndex {
        /// The file.
        path: PathBuf,
        /// The type word found after `COBS:`.
        kind: String,
    },
    /// A version this reader does not know.
    #[error("{path}: COBS index version {version} is not supported (only version 1 exists)", path = path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version found.
        version: u32,
    },
    /// The file ends before the header or the data it announces.
    #[error("{path}: truncated: {what} needs {expected} bytes but the file has {found}; the file is incomplete (an interrupted download or copy?)", path = path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// What was being read.
        what: &'static str,
        /// Bytes the header requires.
        expected: u64,
        /// Bytes the file has.
        found: u64,
    },
    /// The file is longer than its header says.
    #[error("{path}: size disagrees with its header: expected {expected} bytes, found {found}; the file is damaged or not what its header claims", path = path.display())]
    SizeMismatch {
        /// The file.
        path: PathBuf,
        /// Bytes the header requires.
        expected: u64,
        /// Bytes the file has.
        found: u64,
    },
    /// A pre-2019 COBS header without term size and canonical flag.
    #[error("{path}: a pre-2019 COBS {kind} index: its header does not record k or whether k-mers are canonical; pass --legacy-k K and --legacy-canonical yes|no (COBS then used k = 31, not canonical)", path = path.display())]
    Legacy {
        /// The file.
        path: PathBuf,
        /// Classic or compact.
        kind: &'static str,
    },
    /// The path is not a regular file (a directory, a named pipe, a device): reading it could
    /// block forever or mean something else entirely.
    #[error("{path}: {kind}, not a regular file; an index must be a regular file (bitsift reads it at any offset)", path = path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is ("a named pipe (FIFO)").
        kind: &'static str,
    },
    /// The checksum sidecar is damaged or not a sidecar at all.
    #[error("{path}: damaged checksum file: {detail}; if the index itself is intact (`bitsift verify` cannot tell without checksums), recreate them with `bitsift checksum`", path = path.display())]
    SidecarDamaged {
        /// The sidecar file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The index does not match its checksum sidecar: it changed, or is damaged.
    #[error("{path}: does not match its checksums: {what}; the index was changed or damaged after they were made: restore a good copy, or, if this file is known to be good, recreate its checksums with `bitsift checksum`", path = path.display())]
    ChecksumMismatch {
        /// The index file.
        path: PathBuf,
        /// What differs.
        what: String,
    },
    /// The checksum sidecar describes another build of the index: same header, other data
    /// in most of the pages sampled when it was opened.
    #[error("{sidecar}: checksums of another build of {index}: {differing} of the {sampled} data pages sampled differ from the ones checksummed; the sidecar is not used and the index is not searched: put the index's own sidecar beside it, or, if the index is known to be good, recreate its checksums with `bitsift checksum`", sidecar = sidecar.display(), index = index.display())]
    SidecarOfAnotherBuild {
        /// The sidecar.
        sidecar: PathBuf,
        /// The index.
        index: PathBuf,
        /// Pages sampled whose checksum differs.
        differing: u64,
        /// Pages sampled.
        sampled: u64,
    },
    /// A header field holds a value no valid index has.
    #[error("{path}: invalid header: {detail}", path = path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Which field and why.
        detail: String,
    },
}
