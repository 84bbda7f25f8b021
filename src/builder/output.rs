//! Writing an output so that it is either complete or absent, through the crate's one atomic
//! file ([`crate::AtomicFile`]: a temporary name in the same directory, fsync, rename, fsync
//! the directory). Dropped before commit (an error, a full disk), or interrupted by SIGINT or
//! SIGTERM, the temporary file is removed; temporary files of killed builds are removed by the
//! next build in the directory (`src/tempfiles.rs`).
//!
//! An index gets its checksum sidecar ([`crate::format::checksums`]) computed from the bytes
//! as they are written, with no second pass over the file.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::BuildError;
use crate::format::catalog::catalog_path;
use crate::format::checksums::{sidecar_path, ChecksumBuilder, Checksums};
use crate::format::ones::{ones_path, OnesCounter};
use crate::format::{HeaderOptions, IndexHeader};
use crate::tempfiles::{self, AtomicFile};

/// A file being written under a temporary name.
pub(crate) struct PendingFile {
    /// `None` once committed.
    file: Option<AtomicFile>,
    destination: PathBuf,
    written: u64,
    checksums: Option<ChecksumBuilder>,
    /// The sidecar, once finished by [`PendingFile::sidecar_digest`]: nothing more may be
    /// written then.
    finished: Option<Checksums>,
    /// Whether the file is an index, which gets a catalog beside it once committed.
    index: bool,
    /// Each document's count of ones, counted as the rows are written; written beside the
    /// index once committed ([`crate::format::ones`]).
    ones: Option<OnesCounter>,
}

impl PendingFile {
    /// Starts writing `destination`. Refuses an existing destination unless `force`.
    pub(crate) fn create(destination: &Path, force: bool) -> Result<PendingFile, BuildError> {
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
        for stale in tempfiles::remove_stale(&directory) {
            tracing::info!(
                "removed {}, the temporary file of an interrupted build",
                stale.display()
            );
        }
        let file = create_atomic(destination, 8 << 20)?;
        Ok(PendingFile {
            file: Some(file),
            destination: destination.to_path_buf(),
            written: 0,
            checksums: None,
            finished: None,
            index: false,
            ones: None,
        })
    }

    /// As [`PendingFile::create`], for an index whose header is `header_bytes` long: its
    /// checksum sidecar is computed while it is written and committed with it.
    pub(crate) fn create_index(
        destination: &Path,
        force: bool,
        header_bytes: u64,
    ) -> Result<PendingFile, BuildError> {
        let mut pending = PendingFile::create(destination, force)?;
        pending.checksums = Some(ChecksumBuilder::new(header_bytes));
        pending.index = true;
        Ok(pending)
    }

    /// Counts each document's ones with `counter` as the index is written (from its first
    /// byte: call before anything is written), for the file written beside it at commit.
    pub(crate) fn count_ones(&mut self, counter: OnesCounter) {
        assert_eq!(self.written, 0, "ones counted from the first byte");
        self.ones = Some(counter);
    }

    /// Appends `bytes`.
    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> Result<(), BuildError> {
        assert!(
            self.finished.is_none(),
            "written after its checksums were finished"
        );
        let file = self.file.as_mut().expect("written after commit");
        file.write_all(bytes)
            .map_err(|e| write_error(&self.destination, e))?;
        if let Some(checksums) = &mut self.checksums {
            checksums.update(bytes);
        }
        if let Some(ones) = &mut self.ones {
            ones.update(bytes);
        }
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Flushes and syncs what was written, so that a full disk shows now rather than at
    /// [`commit`](Self::commit).
    pub(crate) fn sync(&mut self) -> Result<(), BuildError> {
        let file = self.file.as_mut().expect("synced after commit");
        file.sync().map_err(|e| write_error(&self.destination, e))
    }

    /// Bytes written so far.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// Syncs what was written and returns the digest of the index's data that its block
    /// summaries record ([`crate::format::content::content_digest`]), read from the
    /// temporary file: a few pages, whatever its size. `data_offset` is its header's length.
    pub(crate) fn content_digest(&mut self, data_offset: u64) -> Result<u64, BuildError> {
        self.sync()?;
        let file = self.file.as_ref().expect("read before commit");
        let path = file.temporary_path().expect("not committed yet");
        crate::format::content::content_digest_of(path, data_offset)
            .map_err(|e| write_error(&self.destination, e))
    }

    /// The digest of the checksum sidecar this index will be committed with
    /// ([`crate::format::checksums::sidecar_digest`]), for its block summaries to record; 0
    /// when it gets none. Finishes the sidecar: call it once everything is written.
    pub(crate) fn sidecar_digest(&mut self) -> u64 {
        if let Some(builder) = self.checksums.take() {
            self.finished = Some(builder.finish(&self.destination));
        }
        self.finished.as_ref().map_or(0, Checksums::digest)
    }

    /// Flushes, syncs and renames the file into place; only now does the destination exist.
    ///
    /// With checksums, the order makes every crash leave either the old pair, the new index
    /// without a sidecar, or the new pair: the old sidecar is removed before the new index
    /// is renamed into place, and the new sidecar follows it. (A sidecar that does not match
    /// its index is an error in any case: it records the size and the header's checksum.)
    pub(crate) fn commit(mut self) -> Result<(), BuildError> {
        self.sync()?;
        let finished = self.finished.take();
        let checksums = finished.or_else(|| {
            let builder = self.checksums.take()?;
            Some(builder.finish(&self.destination))
        });
        let sidecar = match checksums {
            Some(checksums) => Some(self.write_sidecar(&checksums)?),
            None => None,
        };
        let destination = self.destination.clone();
        if self.index {
            // The catalog and counts of a file this one replaces describe another index.
            remove_if_present(&catalog_path(&destination))?;
            remove_if_present(&ones_path(&destination))?;
        }
        if sidecar.is_some() {
            remove_if_present(&sidecar_path(&destination))?;
            sync_directory(&destination)?;
        }
        let file = self.file.take().expect("committed twice");
        file.commit().map_err(|e| BuildError::Output {
            path: destination.clone(),
            detail: format!("cannot move the finished index into place: {e}"),
        })?;
        if let Some(sidecar) = sidecar {
            let path = sidecar.destination().to_path_buf();
            sidecar.commit().map_err(|e| BuildError::Output {
                path,
                detail: format!("cannot move the checksums into place: {e}"),
            })?;
        }
        if self.index {
            write_catalog(&destination);
        }
        if let Some(counter) = self.ones.take() {
            write_ones(&destination, &counter.finish());
        }
        Ok(())
    }

    /// Writes the sidecar of the finished file under its temporary name, synced.
    fn write_sidecar(&self, checksums: &Checksums) -> Result<AtomicFile, BuildError> {
        let destination = sidecar_path(&self.destination);
        let mut file = create_atomic(&destination, 0)?;
        file.write_all(&checksums.encode())
            .and_then(|()| file.sync())
            .map_err(|e| write_error(&destination, e))?;
        Ok(file)
    }
}

/// Writes the catalog of the index at `index` beside it (what lets opens skip its names). A
/// failure is a warning: the index is complete without it, and opens read its names whole.
pub(crate) fn write_catalog(index: &Path) {
    match IndexHeader::write_catalog(index, &HeaderOptions::default()) {
        // A pre-2019 header: its opens need parameters it lacks, and read it whole.
        Ok(()) | Err(crate::format::FormatError::Legacy { .. }) => {}
        Err(error) => {
            tracing::warn!("{error}; the index opens without a catalog, reading every name")
        }
    }
}

/// Writes the counts of ones of the index at `index` beside it ([`crate::format::ones`]). A
/// failure is a warning: the index is complete without them, and searches sample its rows.
pub(crate) fn write_ones(index: &Path, counts: &[u32]) {
    if let Err(error) = crate::format::ones::write_beside(index, counts) {
        tracing::warn!("{error}; searches correct its scores from a sample of its rows instead")
    }
}

/// Starts the atomic file of `destination`.
fn create_atomic(destination: &Path, buffer_bytes: usize) -> Result<AtomicFile, BuildError> {
    AtomicFile::with_buffer(destination, buffer_bytes).map_err(|e| BuildError::Output {
        path: tempfiles::temporary_path(destination),
        detail: format!("cannot create: {e}"),
    })
}

/// Removes `path` if it exists.
fn remove_if_present(path: &Path) -> Result<(), BuildError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(BuildError::Output {
            path: path.to_path_buf(),
            detail: format!("cannot remove the old checksums: {e}"),
        }),
    }
}

/// Makes the renames beside `path` durable.
fn sync_directory(path: &Path) -> Result<(), BuildError> {
    tempfiles::sync_directory(path).map_err(|e| BuildError::Output {
        path: tempfiles::parent_directory(path),
        detail: format!("cannot sync the directory: {e}"),
    })
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent_directory(path: &Path) -> PathBuf {
    tempfiles::parent_directory(path)
}

/// A write failure, with the advice a full disk deserves.
pub(crate) fn write_error(path: &Path, error: std::io::Error) -> BuildError {
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

    #[test]
    fn an_index_is_committed_with_checksums_of_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let destination = dir.path().join("x.cobs_compact");
        let sidecar = sidecar_path(&destination);
        std::fs::write(&sidecar, b"stale checksums of an older file").unwrap();
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let mut pending = PendingFile::create_index(&destination, true, 100).unwrap();
        pending.write_all(&bytes[..5000]).unwrap();
        pending.write_all(&bytes[5000..]).unwrap();
        pending.commit().unwrap();
        let written = Checksums::read(&destination).unwrap().unwrap();
        assert_eq!(written.file_size(), 10_000);
        assert_eq!(written.page_count(), 3);
        written.verify(0, &bytes).unwrap();
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "the index and its sidecar only: {names:?}");

        let mut abandoned = PendingFile::create_index(&destination, true, 100).unwrap();
        abandoned.write_all(&bytes).unwrap();
        drop(abandoned);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        assert_eq!(Checksums::read(&destination).unwrap().unwrap(), written);
    }
}
