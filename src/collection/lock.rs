//! The writer lock: one `add`, `remove` or `merge` at a time per collection.

use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::Path;
#[cfg(test)]
use std::path::PathBuf;

use super::CollectionError;

/// The lock file's name inside the collection directory.
pub(crate) const LOCK_NAME: &str = ".collection.lock";

/// An exclusive `flock` on the collection's lock file, held until dropped. Readers take no
/// lock: they see the manifest before or after a writer's commit, never between.
#[derive(Debug)]
pub(crate) struct WriterLock {
    _file: File,
    #[cfg(test)]
    path: PathBuf,
}

impl WriterLock {
    /// Takes the lock of `directory`, waiting for another writer to finish first.
    ///
    /// A failed first addition removes the lock file of the collection it did not create
    /// ([`super::add()`]); a writer that was waiting on that file then holds the lock of a
    /// file no longer there, so it checks, once it has the lock, that the file it locked is
    /// still the lock file, and starts again if not.
    pub(crate) fn acquire(directory: &Path) -> Result<WriterLock, CollectionError> {
        const ATTEMPTS: usize = 100;
        let path = directory.join(LOCK_NAME);
        for _ in 0..ATTEMPTS {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(CollectionError::io(&path, "cannot open the writer lock"))?;
            lock(&file, directory, &path)?;
            if still_the_lock_file(&file, &path) {
                return Ok(WriterLock {
                    _file: file,
                    #[cfg(test)]
                    path,
                });
            }
        }
        Err(CollectionError::Invalid(format!(
            "{}: the writer lock was replaced {ATTEMPTS} times while waiting for it",
            path.display()
        )))
    }

    /// The lock file.
    #[cfg(test)]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// Takes the exclusive `flock` of `file`, waiting (with a notice) while another writer has it.
fn lock(file: &File, directory: &Path, path: &Path) -> Result<(), CollectionError> {
    let fd = file.as_raw_fd();
    // SAFETY: flock on a descriptor we own; the lock ends when the file is closed.
    if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(());
    }
    let error = std::io::Error::last_os_error();
    if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
        return Err(CollectionError::io(path, "cannot lock the collection")(
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
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(CollectionError::io(path, "cannot lock the collection")(
                error,
            ));
        }
    }
}

/// Whether `path` still names the open `file`.
fn still_the_lock_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(held), Ok(named)) => held.dev() == named.dev() && held.ino() == named.ino(),
        _ => false,
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

    #[test]
    fn a_lock_file_removed_while_waiting_is_not_held() {
        let dir = tempfile::tempdir().unwrap();
        let first = WriterLock::acquire(dir.path()).unwrap();
        let waiting = {
            let directory = dir.path().to_path_buf();
            std::thread::spawn(move || WriterLock::acquire(&directory).unwrap())
        };
        std::thread::sleep(std::time::Duration::from_millis(100));
        std::fs::remove_file(first.path()).unwrap();
        drop(first);
        let second = waiting.join().unwrap();
        let file = File::open(second.path()).unwrap();
        // SAFETY: test probe on an owned descriptor.
        let busy = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        assert_ne!(busy, 0, "the lock file on disk is the one held");
    }
}
