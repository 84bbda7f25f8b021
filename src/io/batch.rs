//! [`ReadBatch`]: one call of [`ReadEngine::read_batch`](super::ReadEngine::read_batch), and
//! what every engine does with it the same way: skip what the consumer no longer wants,
//! refuse reads past the end of a file, count what it hands over.

use std::path::Path;

use super::{IoCounters, IoError, ReadConsumer, ReadRequest};

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
    pub(crate) fn wanted(&mut self, index: usize) -> bool {
        let wanted = self.consumer.wanted(index);
        if !wanted {
            self.counters.skipped += 1;
        }
        wanted
    }

    /// Hands the bytes of request `index` to the consumer, counting them as read.
    pub(crate) fn complete(&mut self, index: usize, bytes: &[u8]) {
        self.counters.bytes_read += bytes.len() as u64;
        self.consumer.complete(index, bytes);
    }

    /// Hands the failure of request `index` to the consumer: an error when it ends the batch.
    pub(crate) fn failed(&mut self, index: usize, error: IoError) -> Result<(), IoError> {
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
