//! The writer lock: one `add`, `remove` or `merge` at a time per collection.

use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use super::CollectionError;

/// The lock file's name inside the collection directory.
pub const LOCK_NAME: &str = ".collection.lock";

/// An exclusive `flock` on the collection's lock file, held until dropped. Readers take no
/// lock: they see the manifest before or after a writer's commit, never between.
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
    path: PathBuf,
}

impl WriterLock {
    /// Takes the lock of `directory`, waiting for another writer to finish first.
    pub fn acquire(directory: &Path) -> Result<WriterLock, CollectionError> {
        let path = directory.join(LOCK_NAME);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(CollectionError::io(&path, "cannot open the writer lock"))?;
        let fd = file.as_raw_fd();
        // SAFETY: flock on a descriptor we own; the lock ends when the file is closed.
        if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let error = std::io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(CollectionError::io(&path, "cannot lock the collection")(
                    error,
                ));
            }
            tracing::warn!(
                "{}: another add, remove or merge is running; waiting for it to finish",
                directory.display()
            );
            loop {
                // SAFETY: as above, blocking this time.
                if unsafe { libc::flock(fd, libc::LOCK_EX) } == 0 {
                    break;
                }
                let error = std::io::Error::last_os_error();
                if error.kind() != std::io::ErrorKind::Interrupted {
                    return Err(CollectionError::io(&path, "cannot lock the collection")(
                        error,
                    ));
                }
            }
        }
        Ok(WriterLock { _file: file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = WriterLock::acquire(dir.path()).unwrap();
        let fd = File::open(first.path()).unwrap();
        // SAFETY: test probe on an owned descriptor.
        let busy = unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        assert_ne!(busy, 0, "the lock is held");
        drop(first);
        // SAFETY: as above.
        let free = unsafe { libc::flock(fd.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        assert_eq!(free, 0, "released on drop");
    }
}
