//! What identifies the contents of a file without reading it.
//!
//! A server opens its files once and compares them with a fresh `stat` later, to see an index
//! overwritten in place, truncated or replaced (issue 12), and a collection's manifest
//! replaced by a commit (issue 20). A `stat` took 5.8 µs on the 2-core VM of `BENCHMARKS.md`.
//!
//! The change time is part of the identity because it cannot be set back by a copy that
//! restores the modification time (`cp -p`, `rsync -t`); the cost is that a `chmod` or `touch`
//! counts as a change.

use std::fs::{File, Metadata};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Device, inode, size, modification and change times of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    device: u64,
    inode: u64,
    size: u64,
    modified_ns: i128,
    changed_ns: i128,
    links: u64,
}

impl FileIdentity {
    /// The identity of the file `path` names now (following symbolic links, as opening does).
    pub fn of(path: &Path) -> std::io::Result<FileIdentity> {
        Ok(FileIdentity::from_metadata(&std::fs::metadata(path)?))
    }

    /// The identity of an open file (`fstat`): the file read, whatever its path names now.
    pub fn of_file(file: &File) -> std::io::Result<FileIdentity> {
        Ok(FileIdentity::from_metadata(&file.metadata()?))
    }

    fn from_metadata(meta: &Metadata) -> FileIdentity {
        FileIdentity {
            device: meta.dev(),
            inode: meta.ino(),
            size: meta.size(),
            modified_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            changed_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
            links: meta.nlink(),
        }
    }

    /// How `now` differs from `self` as far as the bytes are concerned, in words, or `None`
    /// when they are the same file with the same contents. A file unlinked since (no links
    /// left) can no longer be opened, hence written, by anyone: its bytes are those it had, so
    /// the change time that the unlink moved is not compared.
    pub fn difference(&self, now: &FileIdentity) -> Option<String> {
        if (now.device, now.inode) != (self.device, self.inode) {
            Some("the path now names another file (replaced)".into())
        } else if now.size != self.size {
            Some(format!(
                "its size went from {} to {} bytes",
                self.size, now.size
            ))
        } else if now.modified_ns != self.modified_ns {
            Some("it was modified (its modification time changed)".into())
        } else if now.changed_ns != self.changed_ns && now.links > 0 {
            Some("it was modified (its change time changed)".into())
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlinked_file_keeps_its_identity_and_a_written_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, [1u8; 64]).unwrap();
        let file = File::open(&path).unwrap();
        let before = FileIdentity::of_file(&file).unwrap();
        assert_eq!(before, FileIdentity::of(&path).unwrap());
        std::fs::remove_file(&path).unwrap();
        let after = FileIdentity::of_file(&file).unwrap();
        assert_eq!(before.difference(&after), None);

        std::fs::write(&path, [1u8; 64]).unwrap();
        let file = File::options().read(true).write(true).open(&path).unwrap();
        let before = FileIdentity::of_file(&file).unwrap();
        file.set_len(10).unwrap();
        let after = FileIdentity::of_file(&file).unwrap();
        assert!(before.difference(&after).unwrap().contains("size"));
    }
}
