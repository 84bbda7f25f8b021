//! Where a file lies: a local path, or a URL (`http://`, `https://`, `s3://`) read through
//! [`crate::io::remote`]. Locations travel as `PathBuf`s either way, so every error keeps naming
//! the file as the user gave it, and side files are found beside an index by the same
//! names (a URL's last segment is replaced as a path's file name is).
//!
//! [`SourceFile`] is what the format readers open instead of a `File`: the header and names,
//! a side file's preamble, a manifest. It reads a local file, or a remote one by range
//! requests, through one `Read + Seek` interface.
// Without the `remote` feature the remote shapes and errors are unused.
#![cfg_attr(not(feature = "remote"), allow(dead_code))]

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The schemes of remote locations.
pub(crate) const REMOTE_SCHEMES: &[&str] = &["http://", "https://", "s3://"];

/// The error of a remote location in a build without the `remote` feature.
#[cfg(not(feature = "remote"))]
pub const REMOTE_DISABLED: &str =
    "this bitsift was built without remote access (cargo feature `remote`); rebuild with it";

/// The start of the error of a remote file replaced on its server since it was opened (a
/// server reopens its view when a search meets it).
pub(crate) const REMOTE_CHANGED: &str = "the file changed on the server since it was opened";

/// The error of a remote file replaced on its server since it was opened, with what was
/// seen at open. It travels inside the `std::io::Error` of the read that met it, so that
/// whoever must react (a server reopens what it serves) matches its type, never its text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{REMOTE_CHANGED} (ETag {etag}, {size} bytes at open); open it again")]
pub(crate) struct RemoteChanged {
    /// The ETag at open ("none" when the server gave none).
    pub etag: String,
    /// The size at open.
    pub size: u64,
}

impl RemoteChanged {
    /// The [`RemoteChanged`] that `error` carries, if it carries one.
    pub(crate) fn of(error: &io::Error) -> Option<&RemoteChanged> {
        error.get_ref()?.downcast_ref::<RemoteChanged>()
    }

    /// Whether `error`, or an error it was caused by, is a [`RemoteChanged`]: a search's
    /// error says this way, by its causes' types, that a remote file changed.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn within(error: &(dyn std::error::Error + 'static)) -> bool {
        let mut cause = Some(error);
        while let Some(error) = cause {
            let carried = error
                .downcast_ref::<io::Error>()
                .and_then(RemoteChanged::of);
            if error.is::<RemoteChanged>() || carried.is_some() {
                return true;
            }
            cause = error.source();
        }
        false
    }

    /// A copy of `error` (which `std::io::Error` cannot clone) that keeps a
    /// [`RemoteChanged`] as such; any other error keeps its kind and text.
    pub(crate) fn copy(error: &io::Error) -> io::Error {
        match RemoteChanged::of(error) {
            Some(changed) => io::Error::other(changed.clone()),
            None => io::Error::new(error.kind(), error.to_string()),
        }
    }
}

/// Whether `path` is a URL of a remote file rather than a local path.
pub fn is_remote(path: &Path) -> bool {
    let bytes = path.as_os_str().as_bytes();
    REMOTE_SCHEMES
        .iter()
        .any(|scheme| bytes.len() > scheme.len() && bytes.starts_with(scheme.as_bytes()))
}

/// A file opened for reading, local or remote.
pub enum SourceFile {
    /// A local file.
    Local(File),
    /// A remote file.
    #[cfg(feature = "remote")]
    Remote(crate::io::remote::RemoteReader),
}

impl SourceFile {
    /// Opens `path`: a local file, or a URL (one request for its size and ETag, the first
    /// time the process opens it). A missing file fails with [`io::ErrorKind::NotFound`]
    /// either way; a local path that is not a regular file (a FIFO, a device, a directory)
    /// with [`super::NotRegularFile`], before it is opened for reading.
    pub(crate) fn open(path: &Path) -> io::Result<SourceFile> {
        if !is_remote(path) {
            return super::open_regular(path).map(SourceFile::Local);
        }
        #[cfg(feature = "remote")]
        {
            let object = crate::io::remote::RemoteObject::open(&path.to_string_lossy())?;
            Ok(SourceFile::Remote(crate::io::remote::RemoteReader::new(
                object,
            )))
        }
        #[cfg(not(feature = "remote"))]
        Err(io::Error::new(io::ErrorKind::Unsupported, REMOTE_DISABLED))
    }

    /// The file's size (at open, for a remote file).
    pub(crate) fn len(&self) -> io::Result<u64> {
        match self {
            SourceFile::Local(file) => Ok(file.metadata()?.len()),
            #[cfg(feature = "remote")]
            SourceFile::Remote(reader) => Ok(reader.len()),
        }
    }

    /// Reads exactly `buf.len()` bytes at `offset`.
    pub(crate) fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        match self {
            SourceFile::Local(file) => std::os::unix::fs::FileExt::read_exact_at(file, buf, offset),
            #[cfg(feature = "remote")]
            SourceFile::Remote(reader) => reader.read_exact_at(buf, offset),
        }
    }

    /// Says that about `bytes` more will be read from the current position on (a remote file
    /// fetches them at once; a local file ignores it).
    pub(crate) fn will_read(&mut self, bytes: u64) {
        match self {
            SourceFile::Local(_) => {}
            #[cfg(feature = "remote")]
            SourceFile::Remote(reader) => reader.will_read(bytes),
        }
        let _ = bytes;
    }

    /// The local file, if it is one.
    pub(crate) fn local(&self) -> Option<&File> {
        match self {
            SourceFile::Local(file) => Some(file),
            #[cfg(feature = "remote")]
            SourceFile::Remote(_) => None,
        }
    }
}

impl Read for SourceFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            SourceFile::Local(file) => file.read(buf),
            #[cfg(feature = "remote")]
            SourceFile::Remote(reader) => reader.read(buf),
        }
    }
}

impl Seek for SourceFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            SourceFile::Local(file) => file.seek(to),
            #[cfg(feature = "remote")]
            SourceFile::Remote(reader) => reader.seek(to),
        }
    }
}

/// Opens the remote files among `paths` all at once, each with its last bytes when the
/// number beside it is not 0 (one round trip for all their opens, not one each; see
/// `remote::RemoteObject::open_all`), so that the opens and reads that follow find them.
/// Local paths are skipped, and failures are left for those opens to report.
pub(crate) fn prefetch(paths: &[(PathBuf, u64)]) {
    #[cfg(feature = "remote")]
    {
        let urls: Vec<(String, u64)> = paths
            .iter()
            .filter(|(path, _)| is_remote(path))
            .map(|(path, tail)| (path.to_string_lossy().into_owned(), *tail))
            .collect();
        if urls.len() > 1 {
            crate::io::remote::RemoteObject::open_all(&urls);
        }
    }
    #[cfg(not(feature = "remote"))]
    let _ = paths;
}

/// The bytes the remote file at `path` most likely holds, from the local cache of remote files
/// alone (no request): the last version this machine opened, when every page of it is
/// cached. A guess to start other opens early with; `None` for a local path or without a
/// cache.
pub(crate) fn last_held(path: &Path) -> Option<Vec<u8>> {
    #[cfg(feature = "remote")]
    if is_remote(path) {
        let held = crate::io::remote::cache::last_held(&path.to_string_lossy());
        return held.map(|bytes| bytes.to_vec());
    }
    let _ = path;
    None
}

/// The whole of the file at `path`, local or remote (`std::fs::read` for both); a local path
/// must name a regular file, as for [`SourceFile::open`].
pub(crate) fn read_whole(path: &Path) -> io::Result<Vec<u8>> {
    if !is_remote(path) {
        let mut file = super::open_regular(path)?;
        let mut bytes = Vec::with_capacity(file.metadata()?.len() as usize);
        file.read_to_end(&mut bytes)?;
        return Ok(bytes);
    }
    #[cfg(feature = "remote")]
    {
        let object = crate::io::remote::RemoteObject::open(&path.to_string_lossy())?;
        crate::io::remote::read_whole(&object)
    }
    #[cfg(not(feature = "remote"))]
    Err(io::Error::new(io::ErrorKind::Unsupported, REMOTE_DISABLED))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_remote_and_paths_are_not() {
        for url in ["http://h/x", "https://h/x", "s3://b/k"] {
            assert!(is_remote(Path::new(url)), "{url}");
        }
        for path in ["index.cobs_compact", "/data/http:/x", "s3:/b", "http://"] {
            assert!(!is_remote(Path::new(path)), "{path}");
        }
        let url = Path::new("https://host/dir/index.cobs_compact");
        assert_eq!(
            url.with_file_name("index.cobs_compact.checksums"),
            Path::new("https://host/dir/index.cobs_compact.checksums")
        );
    }
}
