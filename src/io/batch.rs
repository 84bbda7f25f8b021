//! [`ReadBatch`]: one call of [`ReadEngine::read_batch`](super::ReadEngine::read_batch), and
//! what every engine does with it the same way: skip what the consumer no longer wants,
//! refuse reads past the end of a file, count what it hands over. [`read_from_memory`] is
//! the whole batch loop of the engines whose files are in memory (`mmap`, `ram`).

use std::path::Path;

use super::fault::{Attempt, FaultHook};
use super::retry::{settle_in_memory, Progress};
use super::{IoCounters, IoError, ReadConsumer, ReadRequest, ResidentFiles};

/// The reads of one batch, who receives them, and where the engine counts what it did.
///
/// The engine asks [`ReadBatch::wanted`] before it issues each request and ends each one in
/// [`ReadBatch::complete`] or [`ReadBatch::failed`]; these keep the counters, so an engine
/// counts only its own work (reads issued, retries, time waited).
pub struct ReadBatch<'a> {
    /// The reads, in the order the consumer is asked for them.
    pub requests: &'a [ReadRequest],
    /// Receives each read's outcome (see [`ReadConsumer`]).
    pub consumer: &'a mut dyn ReadConsumer,
    /// Accumulates what the engine did.
    pub counters: &'a mut IoCounters,
}

impl<'a> ReadBatch<'a> {
    /// The batch of `requests`, read for `consumer`, counted in `counters`.
    pub fn new(
        requests: &'a [ReadRequest],
        consumer: &'a mut dyn ReadConsumer,
        counters: &'a mut IoCounters,
    ) -> ReadBatch<'a> {
        ReadBatch {
            requests,
            consumer,
            counters,
        }
    }

    /// Whether request `index` should still be read; one that is not is counted as skipped.
    pub fn wanted(&mut self, index: usize) -> bool {
        let wanted = self.consumer.wanted(index);
        if !wanted {
            self.counters.skipped += 1;
        }
        wanted
    }

    /// Hands the bytes of request `index` to the consumer, counting them as read.
    pub fn complete(&mut self, index: usize, bytes: &[u8]) {
        self.counters.bytes_read += bytes.len() as u64;
        self.consumer.complete(index, bytes);
    }

    /// Hands the failure of request `index` to the consumer: an error when it ends the batch.
    pub fn failed(&mut self, index: usize, error: IoError) -> Result<(), IoError> {
        self.consumer.failed(index, error)
    }
}

/// A read at `offset` of the file at `path` of `size` bytes: an error when it starts at or
/// past the end (the engines fail it at once rather than read nothing).
pub(crate) fn inside(path: &Path, offset: u64, size: u64) -> Result<(), IoError> {
    if offset < size {
        return Ok(());
    }
    Err(IoError::UnexpectedEnd {
        path: path.to_path_buf(),
        offset,
        size,
    })
}

/// Files in memory that [`read_from_memory`] serves batches from.
pub(crate) trait MemoryFiles: ResidentFiles {
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
pub(crate) fn read_from_memory<F: MemoryFiles>(
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
