//! What identifies the contents of a file without reading it.
//!
//! A server opens its files once and compares them with a fresh `stat` later, to see an index
//! overwritten in place, truncated or replaced (issue 12), and a collection's manifest
//! replaced by a commit (issue 20). A `stat` took 5.8 µs on the 2-core VM of `BENCHMARKS.md`.
//!
//! The identity follows the bytes, not the names (issue 30): device and inode (a file renamed
//! into place is another inode), size and modification time (every write moves it). The link
//! count and the change time are left out: a hard link made or removed (`add --adopt`, the
//! original deleted afterwards, `cp -al`, `rsync --link-dest`, a merge unlinking adopted
//! files) changes both without changing a byte, and so do `chmod` and `chown`. What stat
//! cannot see is a rewrite in place of the same size that then sets the old modification time
//! back on purpose (`touch -d`, `cp -p` of a file with the same time onto it); the checksum
//! sidecar catches such bytes when a read reaches them.

#[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
use std::fs::File;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Device, inode, size and modification time of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    device: u64,
    inode: u64,
    size: u64,
    modified_ns: i128,
}

impl FileIdentity {
    /// The identity of the file `path` names now (following symbolic links, as opening does).
    pub(crate) fn of(path: &Path) -> std::io::Result<FileIdentity> {
        Ok(FileIdentity::from_metadata(&std::fs::metadata(path)?))
    }

    /// The identity of an open file (`fstat`): the file read, whatever its path names now.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn of_file(file: &File) -> std::io::Result<FileIdentity> {
        Ok(FileIdentity::from_metadata(&file.metadata()?))
    }

    fn from_metadata(meta: &Metadata) -> FileIdentity {
        FileIdentity {
            device: meta.dev(),
            inode: meta.ino(),
            size: meta.size(),
            modified_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }

    /// How `now` differs from `self` as far as the bytes are concerned, in words, or `None`
    /// when they are the same file with the same contents (links made or removed, a mode
    /// changed: see the module documentation).
    pub(crate) fn difference(&self, now: &FileIdentity) -> Option<String> {
        if (now.device, now.inode) != (self.device, self.inode) {
            Some("the path now names another file (replaced)".into())
        } else if now.size != self.size {
            Some(format!(
                "its size went from {} to {} bytes",
                self.size, now.size
            ))
        } else if now.modified_ns != self.modified_ns {
            Some("it was modified (its modification time changed)".into())
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn an_unlinked_file_keeps_its_identity_and_a_written_one_does_not() {
        let (_dir, path) = crate::testing::file_with("f", [1u8; 64]);
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

    /// Issue 30: links made and removed, and a mode changed, move the change time and the
    /// link count but not a byte; a write in place of the same size moves the modification
    /// time.
    #[test]
    fn links_and_modes_are_not_changes_but_a_write_in_place_is() {
        let (dir, original) = crate::testing::file_with("original", [1u8; 4096]);
        let adopted = dir.path().join("adopted");
        std::fs::hard_link(&original, &adopted).unwrap();
        let before = FileIdentity::of(&adopted).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::remove_file(&original).unwrap();
        std::fs::hard_link(&adopted, dir.path().join("snapshot")).unwrap();
        std::fs::set_permissions(&adopted, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            before.difference(&FileIdentity::of(&adopted).unwrap()),
            None
        );

        let mut file = File::options().write(true).open(&adopted).unwrap();
        file.write_all(&[2u8; 16]).unwrap();
        drop(file);
        let cause = before.difference(&FileIdentity::of(&adopted).unwrap());
        assert!(cause.unwrap().contains("modification time"));
    }
}
