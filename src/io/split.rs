//! [`SplitEngine`]: files that the page cache holds, scored in place, beside files read.
//!
//! An index whose rows are in the page cache is scored where it lies (the mmap engine), but
//! its side files (checksum sidecars, block summaries) are read a page at a time as queries
//! need them, so they are rarely cached whole. Mapping them too would turn each missing page
//! into a synchronous fault, one at a time; reading every file through io_uring instead would
//! throw away the resident rows (issue 35: ~1,000 reads a gene, 4× slower than in place). So
//! the rows (and any side file the page cache holds) are mapped and offered in place
//! ([`ResidentFiles::holds`]), and reads of the other files go to an engine of their own,
//! chosen by the usual rule for them.
//!
//! Every file is open in both engines, so file numbers are the same everywhere; a batch is
//! read as two passes over its requests, each engine told that the other's requests are not
//! wanted (and those skips are not counted).

use std::sync::Arc;

use std::path::{Path, PathBuf};

use super::fault::FaultHook;
use super::mmap::Mappings;
use super::{
    EngineKind, IoCounters, IoError, MemoryEngine, MemoryFiles, ReadBatch, ReadConsumer,
    ReadEngine, ReadShape, ResidentFiles,
};

/// Files marked held mapped and scored in place, the others read through `read`; see the
/// module documentation.
pub(crate) struct SplitEngine {
    mapped: MemoryEngine<InPlace>,
    /// Per file: read from the mapping.
    held: Arc<[bool]>,
    read: Box<dyn ReadEngine>,
}

/// Every file mapped, of which those marked held are offered in place.
struct InPlace {
    maps: Mappings,
    held: Arc<[bool]>,
}

impl SplitEngine {
    /// Maps every file of `paths` (as the mmap engine does) beside `read`, an engine opened on
    /// the same files in the same order: the files `held` marks are then read from the
    /// mapping, the others through `read`.
    pub(crate) fn open(
        paths: &[PathBuf],
        held: Vec<bool>,
        read: Box<dyn ReadEngine>,
    ) -> Result<Self, IoError> {
        debug_assert_eq!(paths.len(), read.file_count());
        debug_assert_eq!(paths.len(), held.len());
        let maps = Mappings::open(paths)?;
        let held: Arc<[bool]> = held.into();
        Ok(SplitEngine {
            mapped: MemoryEngine::new(InPlace {
                maps,
                held: held.clone(),
            }),
            held,
            read,
        })
    }
}

impl ReadEngine for SplitEngine {
    /// The engine of the rows: what the statistics report.
    fn kind(&self) -> EngineKind {
        self.mapped.kind()
    }

    fn alignment(&self) -> u64 {
        self.read.alignment().max(self.mapped.alignment())
    }

    /// The reading engine's shape: planned reads are the ones that go to storage.
    fn read_shape(&self) -> ReadShape {
        ReadShape {
            alignment: self.alignment(),
            ..self.read.read_shape()
        }
    }

    fn direct(&self) -> bool {
        self.read.direct()
    }

    fn file_count(&self) -> usize {
        self.mapped.file_count()
    }

    fn file_size(&self, file: u32) -> u64 {
        self.mapped.file_size(file)
    }

    fn read_batch(&mut self, batch: ReadBatch<'_>) -> Result<(), IoError> {
        let ReadBatch {
            requests,
            consumer,
            counters,
        } = batch;
        let held = &self.held;
        for mapped in [true, false] {
            let mut part = Part {
                consumer: &mut *consumer,
                file_of: |request: usize| requests[request].file,
                mine: |file: u32| held.get(file as usize).copied().unwrap_or(false) == mapped,
                others: 0,
            };
            let mut done = IoCounters::default();
            let engine: &mut dyn ReadEngine = match mapped {
                true => &mut self.mapped,
                false => &mut *self.read,
            };
            let outcome = engine.read_batch(ReadBatch::new(requests, &mut part, &mut done));
            done.skipped = done.skipped.saturating_sub(part.others);
            counters.add(&done);
            outcome?;
        }
        Ok(())
    }

    fn set_fault_hook(&mut self, hook: Option<Arc<dyn FaultHook>>) -> bool {
        let mapped = self.mapped.set_fault_hook(hook.clone());
        self.read.set_fault_hook(hook) && mapped
    }

    fn resident(&self) -> Option<&dyn ResidentFiles> {
        self.mapped.resident()
    }
}

impl ResidentFiles for InPlace {
    fn bytes(&self, file: u32) -> &[u8] {
        self.maps.bytes(file)
    }

    fn take_fault(&self) -> Result<(), IoError> {
        ResidentFiles::take_fault(&self.maps)
    }

    fn holds(&self, file: u32) -> bool {
        self.held.get(file as usize).copied().unwrap_or(false)
    }
}

impl MemoryFiles for InPlace {
    const KIND: EngineKind = EngineKind::Mmap;

    fn count(&self) -> usize {
        self.maps.count()
    }

    fn path(&self, file: u32) -> &Path {
        self.maps.path(file)
    }

    fn touch(&self, file: u32, offset: u64, bytes: &[u8]) -> Option<IoError> {
        self.maps.touch(file, offset, bytes)
    }

    fn vanished(&self) -> Result<(), IoError> {
        self.maps.vanished()
    }
}

/// One engine's pass over a batch: the other engine's requests are not wanted.
struct Part<'c, F, M> {
    consumer: &'c mut dyn ReadConsumer,
    file_of: F,
    mine: M,
    /// Requests left to the other engine (skipped here, not counted as skips).
    others: u64,
}

impl<F: Fn(usize) -> u32, M: Fn(u32) -> bool> ReadConsumer for Part<'_, F, M> {
    fn wanted(&mut self, request: usize) -> bool {
        if !(self.mine)((self.file_of)(request)) {
            self.others += 1;
            return false;
        }
        self.consumer.wanted(request)
    }

    fn complete(&mut self, request: usize, bytes: &[u8]) {
        self.consumer.complete(request, bytes)
    }

    fn failed(&mut self, request: usize, error: IoError) -> Result<(), IoError> {
        self.consumer.failed(request, error)
    }
}
