//! The file iobench reads: created with the [pattern](super::pattern) when missing (real
//! bytes, written sequentially, fsynced, renamed into place), and refused when it exists but
//! does not carry the pattern, since iobench must never report reads it could not verify.

use std::ffi::CString;
use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};

use super::pattern::{self, SECTOR_BYTES};
use super::IobenchError;
use crate::units::format_bytes;
use crate::AtomicFile;

/// Bytes generated and written per `write` call while creating the file.
const WRITE_CHUNK_BYTES: usize = 8 << 20;
/// Sectors of an existing file checked in full before it is accepted.
const CHECKED_SECTORS: u64 = 64;

/// The benchmark file, ready to be read.
#[derive(Clone, Debug)]
pub struct BenchFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its size in bytes (a multiple of 512).
    pub size: u64,
    /// Whether this run created it.
    pub created: bool,
    /// The file system holding it (`ext4`, `xfs`, … or its magic number).
    pub filesystem: String,
}

/// Opens `path` if it carries the pattern, or creates it with `size` bytes.
/// `size` for an existing file must match it (or be `None`).
pub(crate) fn prepare(
    path: &Path,
    size: Option<u64>,
    default_size: u64,
    progress: bool,
) -> Result<BenchFile, IobenchError> {
    let existing = match std::fs::metadata(path) {
        Ok(metadata) => Some(metadata),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(IobenchError::file(path, format!("cannot inspect: {e}"))),
    };
    let (size, created) = match existing {
        Some(metadata) if !metadata.is_file() => {
            return Err(IobenchError::file(
                path,
                "is not a regular file; give the path of the benchmark file",
            ))
        }
        Some(metadata) => {
            check_existing(path, metadata.len())?;
            if let Some(wanted) = size.filter(|&wanted| wanted != metadata.len()) {
                return Err(IobenchError::file(
                    path,
                    format!(
                        "exists with {} bytes, not the {wanted} asked for by --size; omit --size or give another path",
                        metadata.len()
                    ),
                ));
            }
            (metadata.len(), false)
        }
        None => {
            let size = size.unwrap_or(default_size);
            create(path, size, progress)?;
            (size, true)
        }
    };
    // Absolute from here on, so that the report says where the file is.
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    Ok(BenchFile {
        filesystem: filesystem_name(&path),
        path,
        size,
        created,
    })
}

/// Accepts an existing file only if its size is whole sectors and its first, last and 62
/// evenly spaced sectors are the pattern, byte for byte.
fn check_existing(path: &Path, size: u64) -> Result<(), IobenchError> {
    let sector_count = size / SECTOR_BYTES as u64;
    let refuse = |why: String| {
        IobenchError::file(
            path,
            format!(
                "not an iobench file ({why}); iobench reads only files it wrote, so that every read can be verified: give a path that does not exist yet"
            ),
        )
    };
    if size == 0 || size % SECTOR_BYTES as u64 != 0 {
        return Err(refuse(format!(
            "its size, {size} bytes, is not whole 512-byte sectors"
        )));
    }
    let file =
        File::open(path).map_err(|e| IobenchError::file(path, format!("cannot open: {e}")))?;
    let mut sector = [0u8; SECTOR_BYTES];
    let checks = CHECKED_SECTORS.min(sector_count);
    for index in 0..checks {
        let number = if checks == 1 {
            0
        } else {
            index * (sector_count - 1) / (checks - 1)
        };
        let offset = number * SECTOR_BYTES as u64;
        file.read_exact_at(&mut sector, offset)
            .map_err(|e| IobenchError::file(path, format!("cannot read sector {number}: {e}")))?;
        if let Err(mismatch) = pattern::check_full(&sector, number) {
            return Err(refuse(format!(
                "byte {} is {:#04x}, the pattern has {:#04x}",
                mismatch.offset, mismatch.found, mismatch.expected
            )));
        }
    }
    Ok(())
}

/// Writes the pattern to `path` atomically ([`AtomicFile`]). On any failure the temporary file
/// is removed.
fn create(path: &Path, size: u64, progress: bool) -> Result<(), IobenchError> {
    if size == 0 || size % SECTOR_BYTES as u64 != 0 {
        return Err(IobenchError::Options(format!(
            "--size {size}: the file size must be a positive multiple of {SECTOR_BYTES} bytes"
        )));
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !directory.is_dir() {
        return Err(IobenchError::file(
            path,
            format!("directory {} does not exist", directory.display()),
        ));
    }
    if let Some(free) = free_bytes(&directory).filter(|&free| free < size) {
        return Err(IobenchError::file(
            path,
            format!(
                "needs {} but only {} is free there; choose a smaller --size or another directory",
                format_bytes(size),
                format_bytes(free)
            ),
        ));
    }
    let write_error = |e: std::io::Error| {
        IobenchError::file(
            path,
            format!("cannot write the benchmark file: {e}; the partial file was removed"),
        )
    };
    let mut file = AtomicFile::with_buffer(path, 0).map_err(|e| {
        IobenchError::file(
            &crate::tempfiles::temporary_path(path),
            format!("cannot create: {e}"),
        )
    })?;
    let bar = creation_bar(progress, size, path);
    let mut chunk = vec![0u8; WRITE_CHUNK_BYTES];
    let mut written = 0u64;
    while written < size {
        let len = (size - written).min(WRITE_CHUNK_BYTES as u64) as usize;
        pattern::fill(&mut chunk[..len], written / SECTOR_BYTES as u64);
        file.write_all(&chunk[..len]).map_err(write_error)?;
        written += len as u64;
        bar.set_position(written);
    }
    file.sync().map_err(write_error)?;
    file.commit().map_err(|e| {
        IobenchError::file(
            path,
            format!("cannot move the finished file into place: {e}"),
        )
    })?;
    bar.finish_and_clear();
    Ok(())
}

fn creation_bar(visible: bool, size: u64, path: &Path) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(size);
    if let Ok(style) = ProgressStyle::with_template(
        "writing {msg} {wide_bar} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
    ) {
        bar.set_style(style);
    }
    bar.set_message(path.display().to_string());
    bar
}

/// Reads the whole file once, buffered, so that warm runs find it in the page cache.
pub(crate) fn load_into_cache(file: &BenchFile) -> Result<(), IobenchError> {
    let handle = File::open(&file.path)
        .map_err(|e| IobenchError::file(&file.path, format!("cannot open: {e}")))?;
    let mut chunk = vec![0u8; WRITE_CHUNK_BYTES];
    let mut offset = 0;
    while offset < file.size {
        let len = (file.size - offset).min(chunk.len() as u64) as usize;
        handle
            .read_exact_at(&mut chunk[..len], offset)
            .map_err(|e| {
                IobenchError::file(&file.path, format!("cannot read at offset {offset}: {e}"))
            })?;
        offset += len as u64;
    }
    Ok(())
}

/// Bytes available to unprivileged users in the file system holding `directory`.
fn free_bytes(directory: &Path) -> Option<u64> {
    let c_path = CString::new(directory.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain data; zero is a valid value.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: c_path is NUL-terminated, stats is a valid out-pointer.
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), &mut stats) };
    (rc == 0).then(|| stats.f_bavail as u64 * stats.f_frsize as u64)
}

/// The name of the file system holding `path`, from `statfs`'s magic number.
pub(crate) fn filesystem_name(path: &Path) -> String {
    let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else {
        return "unknown".into();
    };
    // SAFETY: statfs is plain data; zero is a valid value.
    let mut stats: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: c_path is NUL-terminated, stats is a valid out-pointer.
    if unsafe { libc::statfs(c_path.as_ptr(), &mut stats) } != 0 {
        return "unknown".into();
    }
    let magic = stats.f_type as u64 & 0xFFFF_FFFF;
    match magic {
        0xEF53 => "ext4",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0x0102_1994 => "tmpfs",
        0x794C_7630 => "overlayfs",
        0x2FC1_2FC1 => "zfs",
        0xF2F5_2010 => "f2fs",
        0x6969 => "nfs",
        0xFF53_4D42 => "cifs",
        0x6573_5546 => "fuse",
        0x0102_1997 => "9p",
        0x5346_544E => "ntfs",
        0x4d44 => "vfat",
        _ => return format!("file system {magic:#x}"),
    }
    .into()
}
