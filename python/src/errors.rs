//! Rust errors as Python exceptions, with the command line's words.
//!
//! The text of every exception is what `bitsift` prints after `bitsift: `: an error and its
//! causes on one line, each said once. The type says what kind of problem it is:
//!
//! - a file that does not exist: `FileNotFoundError` (and `PermissionError` when access is
//!   denied, `TimeoutError` when the system says it timed out, `OSError` for other failures
//!   of the operating system). A remote file answers the same way: HTTP 404 (or S3's
//!   NoSuchKey) is `FileNotFoundError`, 403 `PermissionError`, a server that does not answer
//!   within the timeout and its retries `OSError`, each naming the URL;
//! - a file that is not a valid COBS index, or whose bytes do not match its checksums, or a
//!   remote file that changed on the server since it was opened: [`IndexError`]
//!   (`bitsift.IndexError`);
//! - bad input or a bad option: `ValueError`;
//! - an output that exists and may not be replaced: `FileExistsError`.

use bitsift::builder::BuildError;
use bitsift::collection::CollectionError;
use bitsift::format::FormatError;
use bitsift::io::IoError;
use bitsift::query::{OpenError, ReadError, SearchError};
use bitsift::seqfile::SeqFileError;
use bitsift::IoAt;
use pyo3::exceptions::{
    PyException, PyFileExistsError, PyFileNotFoundError, PyOSError, PyPermissionError,
    PyTimeoutError, PyValueError,
};
use pyo3::prelude::*;

use crate::text::{error_text, io_kind};

pyo3::create_exception!(
    bitsift,
    IndexError,
    PyException,
    "A file is not a valid COBS index, or is damaged (bad magic, version, header fields, or a \
     size that disagrees with its header), or a remote index changed on the server since it \
     was opened (open it again). Not the builtin IndexError, which it shadows inside the \
     bitsift namespace."
);

/// What the library says of a remote file whose ETag or size changed since it was opened
/// (src/io/remote/client.rs); the index opened on it is no longer the file there.
const CHANGED_ON_SERVER: &str = "changed on the server since it was opened";

/// An `OSError` of the right subclass for `kind`, with `message` as its text; a remote file
/// changed on the server is a [`IndexError`] (the open index no longer matches it).
fn os_error(kind: Option<std::io::ErrorKind>, message: String) -> PyErr {
    if message.contains(CHANGED_ON_SERVER) {
        return IndexError::new_err(message);
    }
    match kind {
        Some(std::io::ErrorKind::NotFound) => PyFileNotFoundError::new_err(message),
        Some(std::io::ErrorKind::PermissionDenied) => PyPermissionError::new_err(message),
        Some(std::io::ErrorKind::TimedOut) => PyTimeoutError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

/// Why index files could not be opened.
pub fn open_error(error: &OpenError) -> PyErr {
    let message = error_text(error);
    match error {
        OpenError::Format(FormatError::Io(IoAt { source, .. })) => {
            os_error(Some(source.kind()), message)
        }
        OpenError::Format(_) => IndexError::new_err(message),
        OpenError::Io(io) => io_error(io, message),
        OpenError::NoIndex => PyValueError::new_err(message),
        // A collection manifest that disagrees with its sub-index: a damaged collection.
        OpenError::HiddenOutOfRange { .. } => IndexError::new_err(message),
        OpenError::EngineFiles { .. } => PyValueError::new_err(message),
    }
}

/// Why the document names of an index read by page could not be read.
pub fn names_error(error: FormatError) -> PyErr {
    open_error(&OpenError::Format(error))
}

fn io_error(error: &IoError, message: String) -> PyErr {
    match error {
        IoError::Open { source, .. }
        | IoError::Read { source, .. }
        | IoError::Changed { source, .. } => os_error(Some(source.kind()), message),
        // A file that ends too soon, or bytes that do not match: a damaged index.
        IoError::UnexpectedEnd { .. } | IoError::Corrupt(_) | IoError::Invalid { .. } => {
            IndexError::new_err(message)
        }
        IoError::Unavailable { .. } => PyOSError::new_err(message),
        IoError::Shared(inner) => io_error(inner, message),
    }
}

/// Why a search failed as a whole (a failed read; a query too short is reported per query).
pub fn search_error(error: &SearchError) -> PyErr {
    let message = error_text(error);
    match error {
        SearchError::Io(io) => io_error(io, message),
        SearchError::ReadFailed(failed) => match failed.as_ref() {
            ReadError::Io(io) => io_error(io, message),
            // The bytes read do not match the index's checksums: a damaged index.
            ReadError::Checksum(_) => IndexError::new_err(message),
        },
        SearchError::TooShort { .. } => PyValueError::new_err(message),
    }
}

/// Why the index files of the paths (files, directories of indexes, collections) could not
/// be found or opened.
pub fn collection_error(error: &CollectionError) -> PyErr {
    let message = error_text(error);
    match error {
        CollectionError::Open(open) => open_error(open),
        CollectionError::Format(FormatError::Io(IoAt { source, .. }))
        | CollectionError::Io(IoAt { source, .. }) => os_error(Some(source.kind()), message),
        CollectionError::Invalid(text) if text.contains("holds no") => IndexError::new_err(message),
        // A path that names nothing, or a damaged manifest or sub-index.
        CollectionError::Invalid(_) => PyFileNotFoundError::new_err(message),
        _ => IndexError::new_err(message),
    }
}

/// Why a query file could not be read: missing, unreadable, or not FASTA/FASTQ.
pub fn seqfile_error(error: &SeqFileError) -> PyErr {
    let message = error_text(error);
    if !error.path.exists() {
        return PyFileNotFoundError::new_err(message);
    }
    if error.detail.starts_with("cannot open") || error.detail.starts_with("read error") {
        return PyOSError::new_err(message);
    }
    PyValueError::new_err(message)
}

/// Why a build failed. [`BuildError::Cancelled`] is handled by the caller, which knows why.
pub fn build_error(error: &BuildError) -> PyErr {
    let message = error_text(error);
    match error {
        BuildError::Input { path, .. } if !path.exists() => PyFileNotFoundError::new_err(message),
        BuildError::Input { .. } => PyValueError::new_err(message),
        BuildError::OutputExists { .. } => PyFileExistsError::new_err(message),
        BuildError::Output { .. } => os_error(io_kind(error), message),
        BuildError::NoInputs
        | BuildError::Memory { .. }
        | BuildError::Invalid(_)
        | BuildError::Header(_)
        | BuildError::RangeRows(_)
        | BuildError::Layout(_) => PyValueError::new_err(message),
        BuildError::Cancelled { .. } => PyOSError::new_err(message),
    }
}
