//! The ram engine: every file read once, sequentially, into memory (2 MiB aligned, with
//! transparent huge pages requested), then served from there. Like COBS's `--load-complete`:
//! memory use is exactly the index size and no query ever waits for the device.

use std::path::{Path, PathBuf};

use super::{
    usage, AlignedBuf, DataFile, EngineKind, IoError, MemoryEngine, MemoryFiles, ResidentFiles,
};

/// Whole files in memory; see the module documentation.
pub type RamEngine = MemoryEngine<Copies>;

/// The files of a [`RamEngine`]: each one's path, its bytes (padded to the alignment) and
/// its size.
pub struct Copies {
    files: Vec<(PathBuf, AlignedBuf, u64)>,
}

impl RamEngine {
    /// Reads every file into memory. Refuses when the files are larger than the memory the
    /// system reports available, rather than pushing the machine into swap or the OOM killer.
    pub fn open(paths: &[PathBuf]) -> Result<Self, IoError> {
        let mut sizes = Vec::with_capacity(paths.len());
        for path in paths {
            let size = std::fs::metadata(path)
                .map_err(|source| IoError::Open {
                    path: path.clone(),
                    source,
                })?
                .len();
            sizes.push(size);
        }
        let total: u64 = sizes.iter().sum();
        if let Some(available) = usage::memory_available_bytes() {
            if total > available {
                return Err(IoError::Unavailable {
                    engine: "ram",
                    detail: format!(
                        "the index needs {} of memory but only {} is available; read it with the uring or pread engine instead",
                        crate::units::format_bytes(total),
                        crate::units::format_bytes(available)
                    ),
                });
            }
        }
        let mut files = Vec::with_capacity(paths.len());
        for (path, &size) in paths.iter().zip(&sizes) {
            let file = DataFile::open_buffered(path).map_err(|source| IoError::Open {
                path: path.clone(),
                source,
            })?;
            let buffer =
                read_whole(&file, size, RAM_CHUNK_BYTES, &|| false)?.expect("never stopped");
            files.push((path.clone(), buffer, size));
        }
        Ok(MemoryEngine::new(Copies { files }))
    }
}

/// Bytes per sequential read when a file is loaded whole.
const RAM_CHUNK_BYTES: usize = 64 << 20;

/// Reads all `size` bytes of `file` into a huge-page buffer, in sequential reads of `chunk`
/// bytes (kept to the file's O_DIRECT alignment, the buffer padded to it); `None` when `stop`
/// says so between two reads. Shared by the ram engine and the cache's memory image.
pub(super) fn read_whole(
    file: &DataFile,
    size: u64,
    chunk: usize,
    stop: &dyn Fn() -> bool,
) -> Result<Option<AlignedBuf>, IoError> {
    let align = file.offset_align.max(1) as usize;
    let padded = (size as usize).div_ceil(align) * align;
    let mut buffer = AlignedBuf::huge_zeroed(padded.max(align));
    let mut done = 0usize;
    while done < size as usize {
        if stop() {
            return Ok(None);
        }
        let end = (done + chunk).min(padded);
        let got = file
            .read_full_at(&mut buffer.as_mut_slice()[done..end], done as u64)
            .map_err(|source| IoError::Read {
                path: file.path.clone(),
                offset: done as u64,
                len: (end - done) as u64,
                source,
            })?;
        if got == 0 {
            return Err(IoError::UnexpectedEnd {
                path: file.path.clone(),
                offset: done as u64,
                size,
            });
        }
        done += got;
    }
    Ok(Some(buffer))
}

impl ResidentFiles for Copies {
    fn bytes(&self, file: u32) -> &[u8] {
        let (_, buffer, size) = &self.files[file as usize];
        &buffer.as_slice()[..*size as usize]
    }
}

impl MemoryFiles for Copies {
    const KIND: EngineKind = EngineKind::Ram;

    fn count(&self) -> usize {
        self.files.len()
    }

    fn path(&self, file: u32) -> &Path {
        &self.files[file as usize].0
    }
}
