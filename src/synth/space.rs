//! Free space of a file system, from `statvfs`.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Bytes an unprivileged process may still write on the file system holding `directory`
/// (`f_bavail · f_frsize`).
pub(crate) fn available_bytes(directory: &Path) -> std::io::Result<u64> {
    let path = CString::new(directory.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "path contains NUL"))?;
    // SAFETY: statvfs is plain old data, for which all-zero bytes are a valid value.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is a NUL-terminated string that outlives the call, and `stats` is a valid,
    // writable statvfs.
    let status = unsafe { libc::statvfs(path.as_ptr(), &mut stats) };
    if status != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_temporary_directory_has_some_space() {
        let free = available_bytes(&std::env::temp_dir()).unwrap();
        assert!(free > 0);
        assert!(available_bytes(Path::new("/nonexistent/really")).is_err());
    }
}
