//! Opening data files for random reads: O_DIRECT with its alignment from `statx`, or buffered
//! with kernel read-ahead turned off; and the one check that what a path names is a regular
//! file ([`open_regular`]), made before every open of an index or a side file.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// Alignment assumed for O_DIRECT when `statx` cannot tell (pre-6.1 kernels): a page is a
/// multiple of every logical block size in use.
pub(crate) const DIRECT_ALIGN_FALLBACK: u64 = 4096;

/// A path that names something else than a regular file. Indexes and their side files are
/// read at any offset, and opening a named pipe for reading waits for a writer forever (a
/// device such as `/dev/zero` never ends): they are refused before they are read.
#[derive(Debug, thiserror::Error)]
#[error(
    "it is {kind}, not a regular file (bitsift reads indexes and their side files at any offset)"
)]
pub(crate) struct NotRegularFile {
    /// What it is ("a named pipe (FIFO)").
    pub kind: &'static str,
}

/// What `metadata` describes when it is not a regular file ("a named pipe (FIFO)"), in words.
pub(crate) fn file_kind(metadata: &Metadata) -> Option<&'static str> {
    let kind = metadata.file_type();
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// Fails with [`NotRegularFile`] (as an `InvalidInput` error) unless `metadata` describes a
/// regular file.
pub(crate) fn refuse_irregular(metadata: &Metadata) -> io::Result<()> {
    match file_kind(metadata) {
        None => Ok(()),
        Some(kind) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            NotRegularFile { kind },
        )),
    }
}

/// Opens `path` for reading if it is a regular file: anything else is refused with
/// [`NotRegularFile`] before it is opened (the `stat` follows symbolic links, as the open
/// does), and again on the open descriptor in case the path changed in between. The open
/// itself cannot block (`O_NONBLOCK`, cleared once the descriptor is known to be a regular
/// file's, so that io_uring reads are not refused with `EAGAIN`). A missing file fails with
/// [`io::ErrorKind::NotFound`].
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    open_regular_with(path, 0)
}

/// As [`open_regular`], with more `open` flags (`O_DIRECT`).
fn open_regular_with(path: &Path, flags: i32) -> io::Result<File> {
    refuse_irregular(&std::fs::metadata(path)?)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    refuse_irregular(&file.metadata()?)?;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
    let status = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if status < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, status & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

/// An open data file and how it must be read.
#[derive(Debug)]
pub(crate) struct DataFile {
    /// Where it is.
    pub path: PathBuf,
    /// The descriptor reads go to.
    pub file: File,
    /// Size at open.
    pub size: u64,
    /// Opened with O_DIRECT.
    pub direct: bool,
    /// Offsets and lengths of reads must be multiples of this (1 when buffered).
    pub offset_align: u64,
    /// Buffers must start at a multiple of this.
    pub memory_align: usize,
}

impl DataFile {
    /// Opens `path` with O_DIRECT. Fails with EINVAL where the file system has no direct I/O
    /// (tmpfs before 6.6, overlayfs on some kernels, several FUSE file systems).
    pub(crate) fn open_direct(path: &Path) -> io::Result<DataFile> {
        let file = open_regular_with(path, libc::O_DIRECT)?;
        let size = file.metadata()?.len();
        let (memory_align, offset_align) = match dio_alignment(&file) {
            Some((0, _)) | Some((_, 0)) => return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the file system does not support direct I/O for this file (statx DIOALIGN is 0)",
            )),
            Some((memory, offset)) => (memory as usize, offset as u64),
            None => (DIRECT_ALIGN_FALLBACK as usize, DIRECT_ALIGN_FALLBACK),
        };
        Ok(DataFile {
            path: path.to_path_buf(),
            file,
            size,
            direct: true,
            offset_align,
            memory_align: memory_align.max(512),
        })
    }

    /// Opens `path` for buffered random reads (`POSIX_FADV_RANDOM`: no read-ahead).
    pub(crate) fn open_buffered(path: &Path) -> io::Result<DataFile> {
        let file = open_regular(path)?;
        let size = file.metadata()?.len();
        // SAFETY: plain syscall on a valid descriptor; advice failures are harmless.
        unsafe {
            libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM);
        }
        Ok(DataFile {
            path: path.to_path_buf(),
            file,
            size,
            direct: false,
            offset_align: 1,
            memory_align: 1,
        })
    }

    /// The same file, opened again without O_DIRECT, for the rare read that cannot be done
    /// with it (the rest of a short read that ended off the alignment grid). It is opened
    /// through `/proc/self/fd`, so it is the very file this one has open even if the path now
    /// names another (an index replaced while in use).
    pub(crate) fn reopen_buffered(&self) -> io::Result<File> {
        if !self.direct {
            return self.file.try_clone();
        }
        File::open(format!("/proc/self/fd/{}", self.file.as_raw_fd()))
    }

    /// Reads up to `buf.len()` bytes at `offset`, looping over short reads and `EINTR`; stops
    /// early only at the end of the file. Returns the bytes read.
    pub(crate) fn read_full_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        read_full_at(&self.file, buf, offset)
    }
}

/// `pread` until `buf` is full or the file ends, retrying `EINTR`.
pub(crate) fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// `(memory alignment, offset alignment)` for O_DIRECT from `statx(STATX_DIOALIGN)`, or
/// `None` when the kernel does not report it.
pub(crate) fn dio_alignment(file: &File) -> Option<(u32, u32)> {
    // SAFETY: statx is zero-initialisable plain data.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, empty path with AT_EMPTY_PATH, stx is a valid out-pointer.
    let rc = unsafe {
        libc::statx(
            file.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            &mut stx,
        )
    };
    if rc != 0 || stx.stx_mask & libc::STATX_DIOALIGN == 0 {
        return None;
    }
    Some((stx.stx_dio_mem_align, stx.stx_dio_offset_align))
}

/// Drops the page cache of a file (`POSIX_FADV_DONTNEED`), for cold-cache measurements.
pub fn drop_file_cache(path: &Path) -> io::Result<()> {
    let file = File::open(path)?;
    // SAFETY: plain syscall on a valid descriptor.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffered_read_stops_at_end_of_file() {
        let (_dir, path) = crate::testing::file_with("f", [7u8; 100]);
        let file = DataFile::open_buffered(&path).unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(file.read_full_at(&mut buf, 60).unwrap(), 40);
        assert_eq!(file.size, 100);
    }
}

/// What kind of storage a file lives on, as far as read shaping is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StorageKind {
    /// A local file system (ext4, xfs, btrfs, tmpfs, ...).
    Local,
    /// A network or parallel file system, named: every request is a round trip, and mmap
    /// degrades to 4 KiB requests, so fewer, larger reads win.
    Network(&'static str),
}

/// The storage kind of the file system holding `path`, from `statfs`'s magic number.
pub(crate) fn storage_kind(path: &Path) -> StorageKind {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return StorageKind::Local;
    };
    // SAFETY: statfs is plain data; the path is a valid NUL-terminated string.
    let mut info: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers as above.
    if unsafe { libc::statfs(c_path.as_ptr(), &mut info) } != 0 {
        return StorageKind::Local;
    }
    match info.f_type as u64 {
        0x6969 => StorageKind::Network("NFS"),
        0x4750_4653 => StorageKind::Network("GPFS"),
        0x0BD0_0BD0 => StorageKind::Network("Lustre"),
        0xFF53_4D42 => StorageKind::Network("CIFS"),
        0xFE53_4D42 => StorageKind::Network("SMB2"),
        0x00C3_6400 => StorageKind::Network("CephFS"),
        0x1983_0326 => StorageKind::Network("BeeGFS"),
        0x0102_1997 => StorageKind::Network("9p"),
        _ => StorageKind::Local,
    }
}
