//! Where results go: standard output, or a file written atomically. A file is written under
//! a temporary name in the same directory and renamed over the target only when the run
//! succeeds, so a failed run never leaves a partial file (and an older file under that name
//! survives it). A target that exists and is not a regular file (`/dev/null`, `/dev/stdout`,
//! a named pipe, a shell's `>(...)`) is written directly: renaming over it would replace the
//! device or pipe with a file.

use std::fs::Permissions;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// A file that appears under its name only when [`AtomicFile::commit`] is called; dropped
/// without it, the temporary file is removed.
pub struct AtomicFile {
    file: tempfile::NamedTempFile,
    path: PathBuf,
}

impl AtomicFile {
    /// Creates the temporary file beside `path`.
    pub fn create(path: &Path) -> Result<AtomicFile> {
        if path.is_dir() {
            anyhow::bail!(
                "{}: is a directory; give a file name for the output",
                path.display()
            );
        }
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // 0666 as File::create uses: the umask applies when the file is created.
        let file = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .permissions(Permissions::from_mode(0o666))
            .tempfile_in(directory)
            .with_context(|| format!("{}: cannot create output file", path.display()))?;
        Ok(AtomicFile {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Flushes the file to storage and renames it to its name.
    pub fn commit(mut self) -> Result<()> {
        let path = self.path;
        self.file
            .flush()
            .and_then(|()| self.file.as_file().sync_all())
            .with_context(|| format!("{}: cannot write output file", path.display()))?;
        self.file
            .persist(&path)
            .map_err(|e| e.error)
            .with_context(|| {
                format!(
                    "{}: cannot rename the finished output into place",
                    path.display()
                )
            })?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.file.write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Standard output, an atomic file, or a device or pipe written directly.
pub enum Sink {
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
    pub fn open(path: Option<&Path>) -> Result<Sink> {
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
    pub fn commit(self) -> Result<()> {
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
