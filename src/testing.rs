//! What the library's unit tests share: files to read, made in temporary folders.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// A new temporary folder holding one file, `name`, of `bytes`, and the file's path; the
/// folder and the file go when the [`TempDir`] is dropped.
pub(crate) fn file_with(name: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// Makes a named pipe (FIFO) at `path`, for the tests of what refuses one.
pub(crate) fn make_fifo(path: &Path) {
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
}

/// A new temporary folder holding a file of `bytes` at each of `files` (paths relative to
/// the folder, their folders made as needed).
pub(crate) fn tree(files: &[&str], bytes: &[u8]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}
