//! [`MemoryEngine`]: the engine of files held in memory, mapped ([`MmapEngine`]) or copied
//! ([`RamEngine`]). How the bytes got there differs; reading them does not: each request is
//! a slice of the file handed to the consumer, with the same retries under a fault hook.
//!
//! [`MmapEngine`]: super::MmapEngine
//! [`RamEngine`]: super::RamEngine

use std::path::Path;
use std::sync::Arc;

use super::fault::{Attempt, FaultHook};
use super::retry::{settle_in_memory, Progress};
use super::{
    inside, EngineKind, IoCounters, IoError, ReadBatch, ReadEngine, ReadRequest, ReadShape,
    ResidentFiles,
};

/// An engine over files in memory; `F` holds them (see the module documentation).
pub struct MemoryEngine<F> {
    files: F,
    hook: Option<Arc<dyn FaultHook>>,
}

impl<F> MemoryEngine<F> {
    /// The engine over `files`, with no fault hook.
    pub(crate) fn new(files: F) -> Self {
        MemoryEngine { files, hook: None }
    }

    /// The files the engine serves.
    #[cfg(test)]
    pub(crate) fn files(&self) -> &F {
        &self.files
    }
}

impl<F: MemoryFiles> ReadEngine for MemoryEngine<F> {
    fn kind(&self) -> EngineKind {
        F::KIND
    }

    fn alignment(&self) -> u64 {
        1
    }

    fn read_shape(&self) -> ReadShape {
        // Page faults or copies, one at a time per reading thread.
        let paths = (0..self.files.count() as u32).map(|file| self.files.path(file));
        ReadShape::local(paths, 1, 1)
    }

    fn direct(&self) -> bool {
        false
    }

    fn file_count(&self) -> usize {
        self.files.count()
    }

    fn file_size(&self, file: u32) -> u64 {
        self.files.bytes(file).len() as u64
    }

    fn resident(&self) -> Option<&dyn ResidentFiles> {
        Some(&self.files)
    }

    fn read_batch(&mut self, batch: ReadBatch<'_>) -> Result<(), IoError> {
        read_from_memory(&self.files, self.hook.as_deref(), batch)
    }

    fn set_fault_hook(&mut self, hook: Option<Arc<dyn FaultHook>>) -> bool {
        self.hook = hook;
        true
    }
}

/// Files in memory that a [`MemoryEngine`] serves.
pub trait MemoryFiles: ResidentFiles + Send + 'static {
    /// The engine that serves them.
    const KIND: EngineKind;

    /// How many files there are.
    fn count(&self) -> usize;

    /// Where file `file` is, to name it in errors.
    fn path(&self, file: u32) -> &Path;

    /// Touches `bytes`, at `offset` of file `file`, before the consumer sees them: the error
    /// of a page that cannot be supplied (by default none can fail).
    fn touch(&self, file: u32, offset: u64, bytes: &[u8]) -> Option<IoError> {
        let _ = (file, offset, bytes);
        None
    }

    /// After the consumer read a request's bytes: an error when a page vanished meanwhile,
    /// so that what it read must be discarded (by default none can).
    fn vanished(&self) -> Result<(), IoError> {
        Ok(())
    }
}

/// Reads `batch` from `files`, request by request in order, with the retries of
/// [`settle_in_memory`] under `hook`.
fn read_from_memory<F: MemoryFiles>(
    files: &F,
    hook: Option<&dyn FaultHook>,
    mut batch: ReadBatch<'_>,
) -> Result<(), IoError> {
    let requests = batch.requests;
    for (index, request) in requests.iter().enumerate() {
        if !batch.wanted(index) {
            continue;
        }
        match slice_of(files, hook, request, batch.counters) {
            Ok(bytes) => {
                batch.complete(index, bytes);
                if let Err(error) = files.vanished() {
                    batch.failed(index, error)?;
                }
            }
            Err(error) => batch.failed(index, error)?,
        }
    }
    Ok(())
}

/// The bytes of `request` in `files`, or why they cannot be had.
fn slice_of<'f, F: MemoryFiles>(
    files: &'f F,
    hook: Option<&dyn FaultHook>,
    request: &ReadRequest,
    counters: &mut IoCounters,
) -> Result<&'f [u8], IoError> {
    let (path, whole) = (files.path(request.file), files.bytes(request.file));
    let size = whole.len() as u64;
    inside(path, request.offset, size)?;
    let end = (request.offset + request.len as u64).min(size);
    let bytes = &whole[request.offset as usize..end as usize];
    counters.read_requests += 1;
    if let Some(error) = files.touch(request.file, request.offset, bytes) {
        return Err(error);
    }
    let attempt = Attempt::after(request, &Progress::default(), 1, size);
    settle_in_memory(hook, attempt, counters)
        .map_err(|failure| failure.to_error(path, request.offset, request.len, 0, size))?;
    Ok(bytes)
}
