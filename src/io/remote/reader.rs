//! [`RemoteReader`]: a remote file read from start to end (a header and its names, a side
//! file's preamble, a manifest, a whole file for `verify`) in windows that grow eightfold while
//! the reading stays sequential, each window fetched as parts in flight at once, so that
//! megabytes of names cost two or three round trips, not one per megabyte.

use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use super::client::{RemoteObject, FIRST_BYTES};
/// Each window after the first is this many times the last...
const GROWTH: u64 = 8;
/// ...up to this.
const LARGEST_BYTES: u64 = 64 << 20;
/// The largest window a [`RemoteReader::will_read`] asks for at once.
const WANTED_BYTES_MAX: u64 = 512 << 20;
/// A window is fetched in requests of at most this size, all in flight at once.
const PART_BYTES: u64 = 4 << 20;

/// A remote file as a `Read + Seek`; see the module documentation.
pub struct RemoteReader {
    object: Arc<RemoteObject>,
    position: u64,
    buffer: Bytes,
    buffer_start: u64,
    next_request: u64,
    /// Where the reading is expected to go ([`RemoteReader::will_read`]).
    wanted_end: u64,
}

impl RemoteReader {
    /// A reader at the start of `object`, holding the first bytes its open fetched if no
    /// reader took them yet.
    pub(crate) fn new(object: Arc<RemoteObject>) -> RemoteReader {
        let buffer = object.take_first().unwrap_or_default();
        RemoteReader {
            object,
            position: 0,
            buffer,
            buffer_start: 0,
            next_request: FIRST_BYTES,
            wanted_end: 0,
        }
    }

    /// Says that about `bytes` more will be read from the current position on, so that the
    /// next window fetches them at once (all parts in flight) instead of growing towards them
    /// in several round trips: a header's parser, once it knows the length of its names.
    pub(crate) fn will_read(&mut self, bytes: u64) {
        self.wanted_end = self.position.saturating_add(bytes).min(self.object.size);
    }

    /// The file's size at open.
    pub(crate) fn len(&self) -> u64 {
        self.object.size
    }

    /// Reads exactly `buf.len()` bytes at `offset`, in one request.
    pub(crate) fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let end = offset + buf.len() as u64;
        if end > self.object.size {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("read past the end of a file of {} bytes", self.object.size),
            ));
        }
        let bytes = match self.object.held(&(offset..end)) {
            Some(bytes) => bytes,
            None => self.object.fetch_blocking(offset..end)?.0,
        };
        buf.copy_from_slice(&bytes);
        Ok(())
    }

    fn refill(&mut self) -> io::Result<()> {
        let sequential = self.position == self.buffer_start + self.buffer.len() as u64;
        self.next_request = if sequential && !self.buffer.is_empty() {
            (self.next_request * GROWTH).min(LARGEST_BYTES)
        } else {
            FIRST_BYTES
        };
        let end = (self.position + self.next_request)
            .max(self.wanted_end.min(self.position + WANTED_BYTES_MAX))
            .min(self.object.size);
        self.buffer = fetch_in_parts(&self.object, self.position..end)?;
        self.buffer_start = self.position;
        Ok(())
    }
}

/// The whole of `object` (a manifest, a side file for `verify`): the bytes its open fetched,
/// then all the rest at once, in parts in flight together: one round trip after the open.
pub(crate) fn read_whole(object: &Arc<RemoteObject>) -> io::Result<Vec<u8>> {
    let first = object.take_first().unwrap_or_default();
    let mut whole = Vec::with_capacity(object.size as usize);
    whole.extend_from_slice(&first);
    if (whole.len() as u64) < object.size {
        let rest = fetch_in_parts(object, whole.len() as u64..object.size)?;
        whole.extend_from_slice(&rest);
    }
    assert_eq!(whole.len() as u64, object.size, "the whole file");
    Ok(whole)
}

/// The bytes of `range`, fetched as requests of at most [`PART_BYTES`] in flight at once.
fn fetch_in_parts(object: &Arc<RemoteObject>, range: Range<u64>) -> io::Result<Bytes> {
    if range.end - range.start <= PART_BYTES {
        return Ok(object.fetch_blocking(range)?.0);
    }
    let parts: Vec<Range<u64>> = (range.start..range.end)
        .step_by(PART_BYTES as usize)
        .map(|start| start..(start + PART_BYTES).min(range.end))
        .collect();
    let object = object.clone();
    let fetched = super::client::wait(async move {
        let tasks: Vec<_> = parts
            .into_iter()
            .map(|part| {
                let object = object.clone();
                tokio::spawn(async move { object.fetch(part).await })
            })
            .collect();
        let mut pieces = Vec::with_capacity(tasks.len());
        for task in tasks {
            let joined = task.await.map_err(io::Error::other)?;
            pieces.push(joined?.0);
        }
        Ok(pieces)
    })?;
    let mut whole = Vec::with_capacity((range.end - range.start) as usize);
    for piece in &fetched {
        whole.extend_from_slice(piece);
    }
    assert_eq!(whole.len() as u64, range.end - range.start);
    Ok(Bytes::from(whole))
}

impl Read for RemoteReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.position >= self.object.size || buf.is_empty() {
            return Ok(0);
        }
        let buffered = self.buffer_start..self.buffer_start + self.buffer.len() as u64;
        if !buffered.contains(&self.position) {
            self.refill()?;
        }
        let from = (self.position - self.buffer_start) as usize;
        let count = buf.len().min(self.buffer.len() - from);
        buf[..count].copy_from_slice(&self.buffer[from..from + count]);
        self.position += count as u64;
        Ok(count)
    }
}

impl Seek for RemoteReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::End(delta) => self.object.size.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        self.position = target
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.position)
    }
}
