//! Writing a file so that it is either complete or absent: write to a temporary name in the
//! same directory, fsync, rename, fsync the directory. Dropped before commit (an error, a full
//! disk), the temporary file is removed.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::BuildError;

/// A file being written under a temporary name.
pub struct PendingFile {
    temporary: PathBuf,
    destination: PathBuf,
    writer: Option<BufWriter<File>>,
    written: u64,
    committed: bool,
}

impl PendingFile {
    /// Starts writing `destination`. Refuses an existing destination unless `force`.
    pub fn create(destination: &Path, force: bool) -> Result<PendingFile, BuildError> {
        if destination.exists() && !force {
            return Err(BuildError::OutputExists {
                path: destination.to_path_buf(),
            });
        }
        if destination.is_dir() {
            return Err(BuildError::Output {
                path: destination.to_path_buf(),
                detail: "is a directory; give the index file name, e.g. genomes.cobs_compact"
                    .into(),
            });
        }
        let directory = parent_directory(destination);
        if !directory.is_dir() {
            return Err(BuildError::Output {
                path: destination.to_path_buf(),
                detail: format!("directory {} does not exist", directory.display()),
            });
        }
        let name = destination
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "index".into());
        let temporary = directory.join(format!(".{name}.bitsift-tmp-{}", std::process::id()));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .map_err(|e| BuildError::Output {
                path: temporary.clone(),
                detail: format!("cannot create: {e}"),
            })?;
        Ok(PendingFile {
            temporary,
            destination: destination.to_path_buf(),
            writer: Some(BufWriter::with_capacity(8 << 20, file)),
            written: 0,
            committed: false,
        })
    }

    /// Appends `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), BuildError> {
        let writer = self.writer.as_mut().expect("written after commit");
        writer
            .write_all(bytes)
            .map_err(|e| write_error(&self.destination, e))?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Flushes and syncs what was written, so that a full disk shows now rather than at
    /// [`commit`](Self::commit).
    pub fn sync(&mut self) -> Result<(), BuildError> {
        let writer = self.writer.as_mut().expect("synced after commit");
        writer
            .flush()
            .and_then(|()| writer.get_ref().sync_all())
            .map_err(|e| write_error(&self.destination, e))
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flushes, syncs and renames the file into place; only now does the destination exist.
    pub fn commit(mut self) -> Result<(), BuildError> {
        let writer = self.writer.take().expect("committed twice");
        let file = writer
            .into_inner()
            .map_err(|e| write_error(&self.destination, e.into_error()))?;
        file.sync_all()
            .map_err(|e| write_error(&self.destination, e))?;
        drop(file);
        std::fs::rename(&self.temporary, &self.destination).map_err(|e| BuildError::Output {
            path: self.destination.clone(),
            detail: format!("cannot move the finished index into place: {e}"),
        })?;
        self.committed = true;
        // The rename is durable once the directory is synced.
        if let Ok(directory) = File::open(parent_directory(&self.destination)) {
            let _ = directory.sync_all();
        }
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.committed {
            // Close first (a failing flush is irrelevant: the file is being discarded).
            self.writer = None;
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// The directory holding `path` (`.` for a bare file name).
pub fn parent_directory(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A write failure, with the advice a full disk deserves.
pub fn write_error(path: &Path, error: std::io::Error) -> BuildError {
    let detail = if error.raw_os_error() == Some(libc::ENOSPC) {
        "the disk is full; nothing was written (the partial file was removed). Free space or choose another output directory".to_string()
    } else if error.raw_os_error() == Some(libc::EDQUOT) {
        "disk quota exceeded; nothing was written (the partial file was removed)".to_string()
    } else {
        format!("write failed: {error}; the partial file was removed")
    };
    BuildError::Output {
        path: path.to_path_buf(),
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_appears_until_commit_and_drop_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let destination = dir.path().join("x.cobs_compact");
        let mut pending = PendingFile::create(&destination, false).unwrap();
        pending.write_all(b"COBS:").unwrap();
        assert!(!destination.exists());
        drop(pending);
        assert!(!destination.exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "temporary removed"
        );

        let mut pending = PendingFile::create(&destination, false).unwrap();
        pending.write_all(b"COBS:").unwrap();
        pending.commit().unwrap();
        assert_eq!(std::fs::read(&destination).unwrap(), b"COBS:");
        let refused = PendingFile::create(&destination, false)
            .err()
            .unwrap()
            .to_string();
        assert!(refused.contains("already exists"), "{refused}");
        assert!(PendingFile::create(&destination, true).is_ok());
    }
}
