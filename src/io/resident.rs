//! Memory-resident files and page-cache residency.
//!
//! [`ResidentFiles`] is what an engine offers when its files' bytes are already in memory (the
//! `mmap` engine's mappings, the `ram` engine's copies): the query core then scores rows in
//! place, with no request bookkeeping and no copy. [`residency`] asks the kernel how much of a
//! file the page cache holds (`cachestat(2)`, Linux 6.5, else `mincore(2)` on a mapping), which
//! decides whether reading around the page cache with O_DIRECT would throw away what the
//! machine already holds.

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;

use super::IoError;

/// Files whose bytes can be read in place.
pub trait ResidentFiles: Sync {
    /// The whole of file `file`.
    fn bytes(&self, file: u32) -> &[u8];

    /// Reports (and forgets) an access fault on the calling thread since its last call (a
    /// mapped page the kernel could not supply: an I/O error, or a file truncated under the
    /// mapping). Every thread that read the bytes must ask; whatever was computed from them
    /// since the last call must then be discarded.
    fn take_fault(&self) -> Result<(), IoError> {
        Ok(())
    }

    /// Whether file `file` is meant to be read here: `false` for a file that is mapped but
    /// not known to be in the page cache, whose pages should be read through the engine (a
    /// missing page in memory costs a synchronous fault, one at a time). Its bytes are still
    /// valid to read in place.
    fn holds(&self, file: u32) -> bool {
        let _ = file;
        true
    }
}

/// How much of a file the page cache holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Residency {
    /// Bytes of the file in the page cache (whole pages).
    pub cached_bytes: u64,
    /// Size of the file.
    pub file_bytes: u64,
}

impl Residency {
    /// The cached share of the file, 0 to 1 (1 for an empty file).
    pub(crate) fn fraction(&self) -> f64 {
        if self.file_bytes == 0 {
            return 1.0;
        }
        (self.cached_bytes as f64 / self.file_bytes as f64).min(1.0)
    }
}

const PAGE_BYTES: u64 = 4096;

/// How much of `file` the page cache holds now.
pub(crate) fn residency(file: &File) -> io::Result<Residency> {
    let file_bytes = file.metadata()?.len();
    let cached_pages = match cachestat_pages(file) {
        Ok(pages) => pages,
        Err(_) => mincore_pages(file, file_bytes)?,
    };
    Ok(Residency {
        cached_bytes: (cached_pages * PAGE_BYTES).min(file_bytes),
        file_bytes,
    })
}

/// Pages of the file in the page cache, from `cachestat(2)`.
fn cachestat_pages(file: &File) -> io::Result<u64> {
    #[repr(C)]
    struct Range {
        offset: u64,
        len: u64,
    }
    #[repr(C)]
    #[derive(Default)]
    struct Stat {
        cache: u64,
        dirty: u64,
        writeback: u64,
        evicted: u64,
        recently_evicted: u64,
    }
    /// The same number on every architecture (the generic syscall table).
    const SYS_CACHESTAT: libc::c_long = 451;
    let range = Range { offset: 0, len: 0 };
    let mut stat = Stat::default();
    // SAFETY: both structs are laid out as the kernel's `cachestat_range` and `cachestat`, and
    // live for the call; a kernel without the call returns ENOSYS.
    let done = unsafe {
        libc::syscall(
            SYS_CACHESTAT,
            file.as_raw_fd(),
            &range as *const Range,
            &mut stat as *mut Stat,
            0u32,
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stat.cache)
}

/// Pages of the file in the page cache, from `mincore(2)` on a temporary mapping.
fn mincore_pages(file: &File, file_bytes: u64) -> io::Result<u64> {
    if file_bytes == 0 {
        return Ok(0);
    }
    // SAFETY: a read-only private mapping that is only inspected with mincore, never read.
    let map = unsafe { memmap2::MmapOptions::new().map(file)? };
    let pages = file_bytes.div_ceil(PAGE_BYTES) as usize;
    let mut vector = vec![0u8; pages];
    // SAFETY: the range is the mapping itself, and `vector` has one byte per page of it.
    let done = unsafe { libc::mincore(map.as_ptr() as *mut _, map.len(), vector.as_mut_ptr()) };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(vector.iter().filter(|&&v| v & 1 == 1).count() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_just_written_is_resident_and_dropping_it_empties_the_cache() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&vec![7u8; 1 << 20]).unwrap();
        file.as_file().sync_all().unwrap();
        let path = file.path().to_path_buf();
        let reopened = File::open(&path).unwrap();
        let before = residency(&reopened).unwrap();
        assert_eq!(before.file_bytes, 1 << 20);
        let before_mincore = mincore_pages(&reopened, 1 << 20).unwrap();
        super::super::drop_file_cache(&path).unwrap();
        let after = residency(&reopened).unwrap();
        let after_mincore = mincore_pages(&reopened, 1 << 20).unwrap();
        if is_tmpfs(&path) {
            // tmpfs holds its files in the page cache whatever the advice.
            assert_eq!(after.fraction(), 1.0);
            return;
        }
        assert_eq!(before.fraction(), 1.0, "written and synced: all cached");
        assert_eq!(before_mincore, 256);
        assert_eq!(after.cached_bytes, 0, "clean pages dropped by DONTNEED");
        assert_eq!(after_mincore, 0);
    }

    fn is_tmpfs(path: &std::path::Path) -> bool {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: statfs fills the zeroed struct for a valid C string.
        unsafe {
            let mut s: libc::statfs = std::mem::zeroed();
            libc::statfs(c.as_ptr(), &mut s) == 0 && s.f_type == libc::TMPFS_MAGIC
        }
    }
}
