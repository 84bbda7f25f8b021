//! Where results go: standard output, or a file written atomically. A file is written under
//! a temporary name in the same directory and renamed over the target only when the run
//! succeeds, so a failed run never leaves a partial file (and an older file under that name
//! survives it). A target that exists and is not a regular file (`/dev/null`, `/dev/stdout`,
//! a named pipe, a shell's `>(...)`) is written directly: renaming over it would replace the
//! device or pipe with a file.

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// A file that appears under its name only when [`AtomicFile::commit`] is called; dropped
/// without it, the temporary file is removed ([`bitsift::AtomicFile`]).
pub(crate) struct AtomicFile(bitsift::AtomicFile);

impl AtomicFile {
    /// Creates the temporary file beside `path`.
    pub(crate) fn create(path: &Path) -> Result<AtomicFile> {
        if path.is_dir() {
            anyhow::bail!(
                "{}: is a directory; give a file name for the output",
                path.display()
            );
        }
        let file = bitsift::AtomicFile::create(path)
            .with_context(|| format!("{}: cannot create output file", path.display()))?;
        Ok(AtomicFile(file))
    }

    /// Flushes the file to storage and renames it to its name.
    pub(crate) fn commit(self) -> Result<()> {
        let path = self.0.destination().to_path_buf();
        self.0.commit().with_context(|| {
            format!(
                "{}: cannot write the output or rename it into place",
                path.display()
            )
        })
    }
}

impl Write for AtomicFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Standard output, an atomic file, or a device or pipe written directly.
pub(crate) enum Sink {
    /// Standard output.
    Stdout(io::Stdout),
    /// A file that appears when the run succeeds.
    File(AtomicFile),
    /// A device, pipe or socket named by the path, written as the output is made.
    Stream(std::fs::File),
}

impl Sink {
    /// Standard output when `path` is `None`; the device or pipe `path` names, when it names
    /// one; else an [`AtomicFile`].
    pub(crate) fn open(path: Option<&Path>) -> Result<Sink> {
        Ok(match path {
            Some(path) if is_stream(path) => Sink::Stream(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .with_context(|| format!("{}: cannot open for writing", path.display()))?,
            ),
            Some(path) => Sink::File(AtomicFile::create(path)?),
            None => Sink::Stdout(io::stdout()),
        })
    }

    /// Ends the output: a file is renamed into place.
    pub(crate) fn commit(self) -> Result<()> {
        match self {
            Sink::Stdout(mut out) => Ok(out.flush()?),
            Sink::File(file) => file.commit(),
            Sink::Stream(mut out) => Ok(out.flush()?),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(out) => out.write(bytes),
            Sink::File(file) => file.write(bytes),
            Sink::Stream(out) => out.write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::File(file) => file.flush(),
            Sink::Stream(out) => out.flush(),
        }
    }
}

/// Whether `path` exists and is something other than a regular file or a directory (a
/// device, a pipe, a socket; links followed).
fn is_stream(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_pipes_are_written_directly_never_replaced() {
        let mut sink = Sink::open(Some(Path::new("/dev/null"))).unwrap();
        assert!(matches!(sink, Sink::Stream(_)));
        sink.write_all(b"hits\n").unwrap();
        sink.commit().unwrap();
        let null = std::fs::metadata("/dev/null").unwrap();
        assert!(!null.is_file(), "/dev/null is still a device");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let reader = std::thread::spawn({
            let fifo = fifo.clone();
            move || std::fs::read_to_string(fifo).unwrap()
        });
        let mut sink = Sink::open(Some(&fifo)).unwrap();
        sink.write_all(b"through the pipe\n").unwrap();
        sink.commit().unwrap();
        assert_eq!(reader.join().unwrap(), "through the pipe\n");
        assert!(!std::fs::metadata(&fifo).unwrap().is_file());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn the_file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hits.tsv");
        std::fs::write(&path, "old\n").unwrap();
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"new\n").unwrap();
        drop(file);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"new\n").unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let error = AtomicFile::create(dir.path()).err().unwrap().to_string();
        assert!(error.ends_with("is a directory; give a file name for the output"));
    }
}
