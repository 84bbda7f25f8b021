//! The mmap engine: what COBS does (whole-file private mapping, `MADV_RANDOM`), so that a
//! comparison with COBS isolates the access pattern from everything else. Each read is a slice
//! of the mapping handed to the sink; touching it may take a synchronous page fault.

use std::fs::File;
use std::path::PathBuf;

use memmap2::{Advice, Mmap, MmapOptions};

use super::{
    EngineKind, IoCounters, IoError, ReadConsumer, ReadEngine, ReadRequest, ResidentFiles,
};

/// Memory-mapped files; see the module documentation.
pub struct MmapEngine {
    maps: Vec<(PathBuf, Mmap)>,
}

impl MmapEngine {
    /// Maps every file read-only with `MADV_RANDOM`.
    pub fn open(paths: &[PathBuf]) -> Result<Self, IoError> {
        let mut maps = Vec::with_capacity(paths.len());
        for path in paths {
            let open_error = |source| IoError::Open {
                path: path.clone(),
                source,
            };
            let file = File::open(path).map_err(open_error)?;
            // SAFETY: the mapping is read-only and private. If another process truncates the
            // file while it is mapped, reads past the new end raise SIGBUS; index files are
            // written to a temporary name and renamed, never modified in place.
            let map = unsafe { MmapOptions::new().map(&file) }.map_err(open_error)?;
            map.advise(Advice::Random).map_err(open_error)?;
            maps.push((path.clone(), map));
        }
        Ok(MmapEngine { maps })
    }
}

impl ReadEngine for MmapEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Mmap
    }

    fn alignment(&self) -> u64 {
        1
    }

    fn direct(&self) -> bool {
        false
    }

    fn file_size(&self, file: u32) -> u64 {
        self.maps[file as usize].1.len() as u64
    }

    fn resident(&self) -> Option<&dyn ResidentFiles> {
        Some(self)
    }

    fn read_batch(
        &mut self,
        requests: &[ReadRequest],
        consumer: &mut dyn ReadConsumer,
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        for (index, request) in requests.iter().enumerate() {
            if !consumer.wanted(index) {
                counters.skipped += 1;
                continue;
            }
            let (path, map) = &self.maps[request.file as usize];
            let size = map.len() as u64;
            if request.offset >= size {
                return Err(IoError::UnexpectedEnd {
                    path: path.clone(),
                    offset: request.offset,
                    size,
                });
            }
            let end = (request.offset + request.len as u64).min(size);
            let bytes = &map[request.offset as usize..end as usize];
            counters.read_requests += 1;
            counters.bytes_read += bytes.len() as u64;
            consumer.complete(index, bytes);
        }
        Ok(())
    }
}

impl ResidentFiles for MmapEngine {
    fn bytes(&self, file: u32) -> &[u8] {
        &self.maps[file as usize].1
    }
}
