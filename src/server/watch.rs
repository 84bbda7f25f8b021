//! Detects an index file changed on disk while the server runs.
//!
//! The server opens its indexes once; a file overwritten in place, truncated or replaced
//! afterwards would be read as if it were still the file whose header was parsed, and would
//! give wrong answers without an error (issue 12). [`IndexWatch`] records each file's
//! [`FileIdentity`] (device, inode, size and modification time) before the file is
//! opened and compares it with a fresh `stat` when asked: after every search batch (for the
//! indexes the batch searched) and on every `/healthz` and `/api/indexes`. A `stat` took
//! 5.8 µs on the 2-core VM of `BENCHMARKS.md` (0.3–1 µs is usual on bare metal): 1.8 ms per
//! batch over Phylign's 305 indexes, nothing measurable over one.
//!
//! A change is sticky: once seen, the index stays unhealthy in this view of the server, even
//! if the file is put back, because reads made in between (and pages cached from them) may
//! have come from the other bytes; a reload (SIGHUP, `POST /api/reload`) opens a new view
//! with fresh identities. A collection's files are compared through the open file instead of
//! the path: the collection's manifest names the current files, the server follows it
//! (`super::view`), and a committed merge unlinks files that searches of the previous view
//! may still be reading.

use std::fs::File;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::io::FileIdentity;

/// One watched index file.
#[derive(Debug)]
struct Watched {
    path: PathBuf,
    /// `None` for a remote file: the ETag of every response is compared with the one seen
    /// at open instead ([`crate::io::remote`]), so a change fails the reads it would spoil.
    identity: Option<FileIdentity>,
    /// The file itself, for a collection's sub-index: compared through the open file, since
    /// a committed merge unlinks the files it replaced while searches may still read them.
    held: Option<File>,
    changed: OnceLock<String>,
    /// A read of the file did not match its checksums (the first such error).
    damaged: OnceLock<String>,
}

/// The identities of the served index files, captured at open, and whether each changed since.
#[derive(Debug, Default)]
pub(crate) struct IndexWatch {
    files: Vec<Watched>,
}

impl IndexWatch {
    /// Records the identity of every file, in searcher order. Call it before the files are
    /// opened, so that a change made while they are being opened is seen by the first check.
    /// Files of a collection (`in_collection[i]`) are held open and compared through the open
    /// file: the collection's manifest says which files are current, and the server follows
    /// it; other files are compared through their path.
    pub(crate) fn capture(
        paths: &[PathBuf],
        in_collection: &[bool],
    ) -> Result<IndexWatch, (PathBuf, std::io::Error)> {
        let files = paths
            .iter()
            .enumerate()
            .map(|(position, path)| {
                let failed = |e| (path.clone(), e);
                if crate::io::is_remote(path) {
                    return Ok(Watched {
                        path: path.clone(),
                        identity: None,
                        held: None,
                        changed: OnceLock::new(),
                        damaged: OnceLock::new(),
                    });
                }
                let held = match in_collection.get(position) {
                    Some(true) => Some(File::open(path).map_err(failed)?),
                    _ => None,
                };
                let identity = match &held {
                    Some(file) => FileIdentity::of_file(file),
                    None => FileIdentity::of(path),
                }
                .map_err(failed)?;
                Ok(Watched {
                    path: path.clone(),
                    identity: Some(identity),
                    held,
                    changed: OnceLock::new(),
                    damaged: OnceLock::new(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(IndexWatch { files })
    }

    /// Number of watched files.
    pub(crate) fn len(&self) -> usize {
        self.files.len()
    }

    /// Compares file `index` with its identity at open (one `stat`). Returns the error text
    /// of a change, seen now or earlier.
    pub(crate) fn check(&self, index: usize) -> Result<(), &str> {
        let watched = &self.files[index];
        if let Some(message) = watched.changed.get() {
            return Err(message);
        }
        let Some(identity) = &watched.identity else {
            return Ok(());
        };
        let now = match &watched.held {
            Some(file) => FileIdentity::of_file(file),
            None => FileIdentity::of(&watched.path),
        };
        let cause = match now {
            Ok(now) => identity.difference(&now),
            Err(e) => Some(format!("it can no longer be read: {e}")),
        };
        match cause {
            None => Ok(()),
            Some(cause) => {
                let message = format!(
                    "{}: index changed on disk since the server started ({cause}); reload the server (SIGHUP, or POST /api/reload from this machine) to serve the new file",
                    watched.path.display()
                );
                let stored = watched.changed.get_or_init(|| message);
                tracing::error!("{stored}");
                Err(stored)
            }
        }
    }

    /// Records that a read of file `index` did not match its checksums. Searches go on (the
    /// other pages may be intact, and a search needing the damaged one fails with the
    /// error), but the file is reported damaged until the server reloads it.
    pub(crate) fn mark_damaged(&self, index: usize, message: String) {
        if let Some(watched) = self.files.get(index) {
            if watched.damaged.set(message).is_ok() {
                tracing::error!("{}", watched.damaged.get().map_or("", String::as_str));
            }
        }
    }

    /// The first checksum mismatch seen in file `index`.
    pub(crate) fn damaged(&self, index: usize) -> Option<&str> {
        self.files[index].damaged.get().map(String::as_str)
    }

    /// Index of the watched file at `path`.
    pub(crate) fn position(&self, path: &std::path::Path) -> Option<usize> {
        self.files.iter().position(|w| w.path == path)
    }

    /// The change already seen in file `index`, without looking at the file again.
    pub(crate) fn changed(&self, index: usize) -> Option<&str> {
        self.files[index].changed.get().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn watch_one(bytes: &[u8]) -> (tempfile::TempDir, PathBuf, IndexWatch) {
        let (dir, path) = crate::testing::file_with("x.cobs_compact", bytes);
        let watch = IndexWatch::capture(std::slice::from_ref(&path), &[]).unwrap();
        (dir, path, watch)
    }

    #[test]
    fn unchanged_file_passes_and_truncation_is_seen_and_sticky() {
        let (_dir, path, watch) = watch_one(&[7u8; 4096]);
        assert_eq!(watch.check(0), Ok(()));
        assert_eq!(watch.changed(0), None);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(100)
            .unwrap();
        let message = watch.check(0).unwrap_err().to_string();
        assert!(message.contains("from 4096 to 100 bytes"), "{message}");
        assert!(
            message.starts_with(&path.display().to_string()),
            "{message}"
        );
        // Putting the size back does not make the index healthy again.
        std::fs::write(&path, [7u8; 4096]).unwrap();
        assert_eq!(watch.check(0).unwrap_err(), message);
        assert_eq!(watch.changed(0), Some(message.as_str()));
    }

    #[test]
    fn in_place_rewrite_is_seen_and_links_are_not() {
        let (dir, path, watch) = watch_one(&[1u8; 4096]);
        std::thread::sleep(std::time::Duration::from_millis(20));
        // Hard links made and removed (an adopted file, its original deleted, a snapshot):
        // the same bytes.
        let link = dir.path().join("link");
        std::fs::hard_link(&path, &link).unwrap();
        std::fs::remove_file(&link).unwrap();
        assert_eq!(watch.check(0), Ok(()));
        let mut file = std::fs::File::options().write(true).open(&path).unwrap();
        file.write_all(&[2u8; 16]).unwrap();
        drop(file);
        let message = watch.check(0).unwrap_err();
        assert!(message.contains("modification time"), "{message}");
    }

    #[test]
    fn replaced_and_removed_files_are_seen() {
        let (dir, path, watch) = watch_one(&[1u8; 4096]);
        let other = dir.path().join("new");
        std::fs::write(&other, [1u8; 4096]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(watch.check(0).unwrap_err().contains("replaced"));

        let (_dir, path, watch) = watch_one(&[1u8; 10]);
        std::fs::remove_file(&path).unwrap();
        assert!(watch
            .check(0)
            .unwrap_err()
            .contains("can no longer be read"));
    }

    #[test]
    fn a_collection_file_unlinked_by_a_merge_is_unchanged_but_one_written_is_not() {
        let (_dir, path) = crate::testing::file_with("sub-000001.cobs_compact", [1u8; 4096]);
        let watch = IndexWatch::capture(std::slice::from_ref(&path), &[true]).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(watch.check(0), Ok(()));

        std::fs::write(&path, [1u8; 4096]).unwrap();
        let watch = IndexWatch::capture(std::slice::from_ref(&path), &[true]).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(10)
            .unwrap();
        assert!(watch.check(0).unwrap_err().contains("size"));
    }
}
