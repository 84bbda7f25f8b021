//! The io_uring engine: the whole batch in flight at a fixed depth, O_DIRECT, registered
//! buffers, every completion checked.
//!
//! Phases of one turn of [`UringEngine::read_batch`]'s loop:
//! 1. resubmit the reads whose `EAGAIN` pause is over, then fill: while fewer than
//!    `queue_depth` reads are in flight and a slot and a buffer are free, queue the next
//!    request the consumer still wants;
//! 2. submit and wait for at least one completion (the only place the thread blocks, timed as
//!    I/O wait), unless finished reads are already waiting for the consumer;
//! 3. reap: check every completion against the reads in flight ([`ring`]) and act on its
//!    result with the request's [bounded retries](super::retry): a short read is continued,
//!    `EINTR` and `EIO` are resubmitted, `EAGAIN` is resubmitted after a growing pause, an
//!    empty read inside the file and the rest of a short read that ended off the O_DIRECT
//!    grid are read with a buffered `pread`; a read out of retries has failed;
//! 4. refill and submit again *before* handing finished reads to the consumer (bytes to
//!    [`ReadBatch::complete`], failures to [`ReadBatch::failed`]), so the device stays busy
//!    while the caller accumulates.
//!
//! The loop ends when every request is done, when the consumer ends the batch (its `failed`
//! returns an error), or when the ring fails. In every case the reads still in flight are
//! waited for before `read_batch` returns. If even that wait fails, the engine is broken: it
//! refuses further batches and, when dropped, leaks its buffers rather than free memory the
//! kernel may still write.
//!
//! There are `2 · queue_depth` slots: up to `queue_depth` in flight and up to as many waiting
//! for the consumer. Their buffers are carved, each at its read's exact size, from one
//! aligned arena registered with the ring (so the kernel does not pin pages per read) by a
//! [`RingAlloc`]: many 4 KiB row reads stay in flight next to a few long merged reads. The
//! arena is sized between batches only, never while a read is in flight, from the batch's
//! total read size up to [`ARENA_BYTES_TARGET`], so a query never pays for zeroing and
//! pinning tens of MiB, and memory stays fixed.

mod ring;
#[cfg(test)]
mod tests;

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use io_uring::{opcode, types};

use self::ring::{Ring, RingError};
use super::fault::{self, Attempt, AttemptResult, FaultHook};
use super::retry::{attempt_of, Failure, Progress, Step};
use super::ring_alloc::RingAlloc;
use super::{
    inside, open_files, strictest_alignment, AlignedBuf, DataFile, DirectIo, EngineKind,
    IoCounters, IoError, ReadBatch, ReadEngine, ReadRequest, ReadShape,
};

/// The buffer arena grows to the batch's total read size, up to this: 8 MiB in flight or
/// waiting keeps a device busy without pinning much memory.
pub(crate) const ARENA_BYTES_TARGET: usize = 8 << 20;

/// The arena always holds at least this many of the batch's longest reads, so a long read
/// never waits for the ring to empty.
const LONGEST_READS_MIN: usize = 4;

/// One request being read.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    request: usize,
    file: u32,
    offset: u64,
    len: u32,
    /// Offset of the slot's buffer in the arena.
    buf: usize,
    progress: Progress,
    failure: Option<Failure>,
}

/// io_uring reads; see the module documentation.
pub(crate) struct UringEngine {
    ring: Ring,
    files: Vec<DataFile>,
    /// Per file, a buffered descriptor for the rare read O_DIRECT cannot do (opened on use).
    buffered: Vec<Option<File>>,
    queue_depth: u32,
    offset_align: u64,
    memory_align: usize,
    arena: AlignedBuf,
    buffers: RingAlloc,
    registered: bool,
    slots: Vec<Slot>,
    /// Slots with nothing to do.
    free: Vec<u32>,
    /// Slots waiting out an `EAGAIN` pause, with the time it ends.
    deferred: Vec<(Instant, u32)>,
    /// Slots whose read finished (or failed), waiting for the consumer.
    ready: Vec<u32>,
    /// Scratch for the ring's reaped completions.
    landed: Vec<(u32, i32)>,
    /// A request the consumer said it wants that waits for a buffer, so it is asked once.
    admitted: Option<usize>,
    hook: Option<Arc<dyn FaultHook>>,
    /// Why the ring failed, if it did: the engine is then unusable.
    broken: Option<String>,
}

impl UringEngine {
    /// Sets up a ring of `queue_depth` entries over `paths` and proves it works with a real
    /// read of the first block of every file.
    pub(crate) fn open(
        paths: &[PathBuf],
        queue_depth: u32,
        direct: DirectIo,
    ) -> Result<Self, IoError> {
        let queue_depth = queue_depth.clamp(1, 4096);
        if std::env::var("BITSIFT_IO_URING").as_deref() == Ok("off") {
            return Err(IoError::Unavailable {
                engine: "uring",
                detail: "turned off by BITSIFT_IO_URING=off".into(),
            });
        }
        let slot_count = 2 * queue_depth as usize;
        let ring = Ring::new(queue_depth, slot_count).map_err(|e| IoError::Unavailable {
            engine: "uring",
            detail: format!(
                "cannot create an io_uring ({e}); it may be disabled (sysctl kernel.io_uring_disabled) or blocked by a seccomp profile"
            ),
        })?;
        let files = open_files(paths, direct, "uring")?;
        let (offset_align, memory_align) = strictest_alignment(&files);
        let memory_align = memory_align.max(4096);
        let arena_bytes = (offset_align as usize).max(4096) * slot_count;
        let mut engine = UringEngine {
            ring,
            buffered: files.iter().map(|_| None).collect(),
            files,
            queue_depth,
            offset_align,
            memory_align,
            arena: AlignedBuf::zeroed(arena_bytes, memory_align),
            buffers: RingAlloc::new(arena_bytes),
            registered: false,
            slots: vec![Slot::default(); slot_count],
            free: Vec::with_capacity(slot_count),
            deferred: Vec::with_capacity(slot_count),
            ready: Vec::with_capacity(slot_count),
            landed: Vec::with_capacity(slot_count),
            admitted: None,
            hook: None,
            broken: None,
        };
        engine.register_arena();
        engine.probe()?;
        Ok(engine)
    }

    /// Whether the buffer arena is registered with the ring (`READ_FIXED`); registration
    /// fails, for example, under a low `RLIMIT_MEMLOCK`, and plain reads are used.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn registered_buffers(&self) -> bool {
        self.registered
    }

    /// Registers the arena as one fixed buffer. Failure (e.g. RLIMIT_MEMLOCK) only means plain
    /// reads are used.
    fn register_arena(&mut self) {
        assert_eq!(
            self.ring.in_flight(),
            0,
            "registration while reads are in flight"
        );
        if self.registered {
            let _ = self.ring.submitter().unregister_buffers();
            self.registered = false;
        }
        let iovec = libc::iovec {
            iov_base: self.arena.as_mut_ptr().cast(),
            iov_len: self.arena.len(),
        };
        // SAFETY: the arena outlives the registration: it is only replaced after
        // unregister_buffers (here and in size_arena, with no read in flight), and Drop
        // unregisters it or, if reads may still be in flight, leaks it.
        self.registered = unsafe { self.ring.submitter().register_buffers(&[iovec]) }.is_ok();
    }

    /// A read's buffer size: its length rounded up to the memory alignment.
    fn buffer_len(&self, len: u32) -> usize {
        (len as usize).max(1).next_multiple_of(self.memory_align)
    }

    /// Grows the arena, when needed, to hold the batch: its total size up to
    /// [`ARENA_BYTES_TARGET`], and always [`LONGEST_READS_MIN`] of its longest reads. It
    /// never shrinks, so a process pays for growth at most a few times. Only between
    /// batches: the kernel may write into the arena while any read is in flight.
    fn size_arena(&mut self, requests: &[ReadRequest]) {
        assert_eq!(
            self.ring.in_flight(),
            0,
            "arena resized while reads are in flight"
        );
        let mut longest = 0;
        let mut total = 0usize;
        for r in requests {
            let len = self.buffer_len(r.len);
            longest = longest.max(len);
            total = total.saturating_add(len);
        }
        let want = total
            .min(ARENA_BYTES_TARGET)
            .max(longest * LONGEST_READS_MIN)
            .next_multiple_of(self.memory_align);
        if self.arena.len() < want {
            if self.registered {
                let _ = self.ring.submitter().unregister_buffers();
                self.registered = false;
            }
            self.arena = AlignedBuf::zeroed(want, self.memory_align);
            self.register_arena();
        }
        self.buffers.reset(self.arena.len());
    }

    fn probe(&mut self) -> Result<(), IoError> {
        let len = self.offset_align.max(4096) as u32;
        let requests: Vec<ReadRequest> = (0..self.files.len() as u32)
            .map(|file| ReadRequest {
                file,
                offset: 0,
                len,
            })
            .collect();
        self.read_counted(&requests, &mut |_: usize, _: &[u8]| {})
            .map(|_| ())
            .map_err(|e| IoError::Unavailable {
                engine: "uring",
                detail: format!("probe read failed: {e}"),
            })
    }

    /// Waits for every read in flight. If the ring fails meanwhile, the engine is broken.
    fn drain(&mut self) -> Result<(), IoError> {
        if self.ring.in_flight() == 0 {
            return Ok(());
        }
        self.ring.drain().map_err(|error| {
            self.broken = Some(error.to_string());
            ring_error(error)
        })
    }

    /// Resets the slots and sizes the arena for a new batch.
    fn begin(&mut self, requests: &[ReadRequest]) {
        assert_eq!(
            self.ring.in_flight(),
            0,
            "a batch starts with nothing in flight"
        );
        self.size_arena(requests);
        self.free.clear();
        self.free.extend((0..self.slots.len() as u32).rev());
        self.deferred.clear();
        self.ready.clear();
        self.admitted = None;
    }

    /// The loop of the module documentation, until every request is done or a failure ends
    /// the batch (reads may then still be in flight).
    fn run(&mut self, batch: &mut ReadBatch<'_>) -> Result<(), IoError> {
        let (mut next, total) = (0, batch.requests.len());
        loop {
            self.assert_invariants(next, total);
            self.resubmit_due(batch.counters)?;
            next = self.fill(batch, next)?;
            if self.ring.in_flight() == 0 && self.ready.is_empty() {
                if self.deferred.is_empty() {
                    assert_eq!(next, total, "an idle engine issued every request");
                    return Ok(());
                }
                self.pause_for_deferred();
                continue;
            }
            if self.ready.is_empty() {
                let waited = Instant::now();
                self.ring.submit(1).map_err(ring_error)?;
                batch.counters.io_wait += waited.elapsed();
            }
            self.reap(batch.counters)?;
            next = self.fill(batch, next)?;
            self.ring.submit(0).map_err(ring_error)?;
            self.deliver(batch)?;
            self.assert_invariants(next, total);
        }
    }

    /// Every slot is in exactly one place, and no more reads are in flight than the depth.
    fn assert_invariants(&self, next: usize, total: usize) {
        let in_flight = self.ring.in_flight() as usize;
        assert!(next <= total, "request {next} of {total}");
        assert!(
            in_flight <= self.queue_depth as usize,
            "{in_flight} reads in flight at depth {}",
            self.queue_depth
        );
        assert!(
            self.ready.is_empty(),
            "finished reads are delivered each turn"
        );
        assert_eq!(
            self.free.len() + in_flight + self.deferred.len(),
            self.slots.len(),
            "every slot is free, in flight or deferred"
        );
        debug_assert!(self.free.iter().all(|&slot| !self.ring.is_in_flight(slot)));
        debug_assert!(self
            .deferred
            .iter()
            .all(|&(_, slot)| !self.ring.is_in_flight(slot)));
    }

    /// Queues requests from `next` while depth, slots and buffers allow, skipping those the
    /// consumer no longer wants and failing those past the end of their file; returns the new
    /// `next`.
    fn fill(&mut self, batch: &mut ReadBatch<'_>, mut next: usize) -> Result<usize, IoError> {
        while next < batch.requests.len() && self.ring.in_flight() < self.queue_depth {
            let Some(&slot_index) = self.free.last() else {
                break;
            };
            if self.admitted != Some(next) {
                if !batch.wanted(next) {
                    next += 1;
                    continue;
                }
                self.admitted = Some(next);
            }
            let request = batch.requests[next];
            let file = &self.files[request.file as usize];
            if let Err(error) = inside(&file.path, request.offset, file.size) {
                next += 1;
                batch.failed(next - 1, error)?;
                continue;
            }
            let Some(buf) = self.buffers.alloc(self.buffer_len(request.len)) else {
                // Wait for earlier buffers to be consumed.
                break;
            };
            self.free.pop();
            self.slots[slot_index as usize] = Slot {
                request: next,
                file: request.file,
                offset: request.offset,
                len: request.len,
                buf,
                progress: Progress::new(request.len, request.offset, file.size),
                failure: None,
            };
            self.push(slot_index, batch.counters)?;
            next += 1;
        }
        Ok(next)
    }

    /// Queues the unread rest of slot `slot_index`'s read on the ring.
    fn push(&mut self, slot_index: u32, counters: &mut IoCounters) -> Result<(), IoError> {
        let slot = self.slots[slot_index as usize];
        let file = &self.files[slot.file as usize];
        let done = slot.progress.done;
        let offset = slot.offset + done as u64;
        let len = slot.len - done;
        debug_assert!(!file.direct || offset % self.offset_align == 0);
        assert!(slot.buf + slot.len as usize <= self.arena.len());
        // SAFETY: the region lies inside the arena (asserted just above).
        let buf = unsafe { self.arena.as_mut_ptr().add(slot.buf + done as usize) };
        let fd = types::Fd(file.file.as_raw_fd());
        let entry = if self.registered {
            opcode::ReadFixed::new(fd, buf, len, 0)
                .offset(offset)
                .build()
        } else {
            opcode::Read::new(fd, buf, len).offset(offset).build()
        };
        // SAFETY: the slot's region is its own until the completion is reaped or drained: a
        // slot is neither reused nor handed to the consumer while in flight, and the arena is
        // neither replaced (size_arena asserts nothing is in flight) nor freed (Drop waits,
        // or leaks it) while any read is in flight.
        unsafe { self.ring.push(slot_index, entry) }.map_err(ring_error)?;
        counters.read_requests += 1;
        Ok(())
    }

    /// Checks every available completion and acts on each.
    fn reap(&mut self, counters: &mut IoCounters) -> Result<(), IoError> {
        let mut landed = std::mem::take(&mut self.landed);
        landed.clear();
        let mut outcome = self.ring.reap(&mut landed).map_err(ring_error);
        if outcome.is_ok() {
            for &(slot_index, result) in &landed {
                let real = if result < 0 {
                    AttemptResult::Errno(-result)
                } else {
                    AttemptResult::Bytes(result as u32)
                };
                outcome = self.land(slot_index, real, counters);
                if outcome.is_err() {
                    break;
                }
            }
        }
        self.landed = landed;
        outcome
    }

    /// Acts on one result of slot `slot_index` until its read is in flight again, waiting
    /// out a pause, or finished (done or failed).
    fn land(
        &mut self,
        slot_index: u32,
        mut real: AttemptResult,
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        loop {
            let result = self.rewrite(slot_index, real);
            let grid = self.grid(slot_index);
            let slot = &mut self.slots[slot_index as usize];
            let step = slot.progress.step(result, slot.offset, grid);
            match step {
                Step::Done => {}
                Step::Fail(failure) => slot.failure = Some(failure),
                Step::After(pause) => {
                    counters.retries += 1;
                    self.deferred.push((Instant::now() + pause, slot_index));
                    return Ok(());
                }
                Step::Again | Step::Fallback => {
                    counters.retries += 1;
                    if step == Step::Again && self.on_grid(slot_index) {
                        return self.push(slot_index, counters);
                    }
                    real = self.pread_rest(slot_index, counters);
                    continue;
                }
            }
            self.ready.push(slot_index);
            return Ok(());
        }
    }

    /// Lets the fault hook, if any, rewrite a result.
    fn rewrite(&self, slot_index: u32, real: AttemptResult) -> AttemptResult {
        let Some(hook) = self.hook.as_deref() else {
            return real;
        };
        let slot = &self.slots[slot_index as usize];
        let attempt = Attempt {
            file: slot.file,
            offset: slot.offset,
            len: slot.len,
            done: slot.progress.done,
            index: slot.progress.attempts,
            align: self.grid(slot_index),
            file_size: self.files[slot.file as usize].size,
        };
        fault::rewrite(Some(hook), &attempt, real)
    }

    /// The alignment the rest of slot `slot_index`'s read must start on to go to the ring.
    fn grid(&self, slot_index: u32) -> u64 {
        let file = self.slots[slot_index as usize].file;
        if self.files[file as usize].direct {
            self.offset_align
        } else {
            1
        }
    }

    fn on_grid(&self, slot_index: u32) -> bool {
        let slot = &self.slots[slot_index as usize];
        (slot.offset + slot.progress.done as u64) % self.grid(slot_index) == 0
    }

    /// Reads the rest of slot `slot_index`'s read with one buffered `pread`.
    fn pread_rest(&mut self, slot_index: u32, counters: &mut IoCounters) -> AttemptResult {
        let slot = self.slots[slot_index as usize];
        let done = slot.progress.done as usize;
        assert!(slot.buf + slot.len as usize <= self.arena.len());
        // SAFETY: the slot's own region of the arena, which no read in flight targets (this
        // slot's read has landed) and nothing else references.
        let buffer = unsafe {
            std::slice::from_raw_parts_mut(
                self.arena.as_mut_ptr().add(slot.buf + done),
                slot.len as usize - done,
            )
        };
        counters.read_requests += 1;
        let file = &self.files[slot.file as usize];
        let at = slot.offset + done as u64;
        if !file.direct {
            return attempt_of(file.file.read_at(buffer, at));
        }
        let handle = &mut self.buffered[slot.file as usize];
        let handle = match handle.take() {
            Some(open) => handle.insert(open),
            None => match file.reopen_buffered() {
                Ok(open) => handle.insert(open),
                Err(e) => return attempt_of(Err(e)),
            },
        };
        attempt_of(handle.read_at(buffer, at))
    }

    /// Resubmits the deferred reads whose pause is over, as depth allows.
    fn resubmit_due(&mut self, counters: &mut IoCounters) -> Result<(), IoError> {
        let now = Instant::now();
        let mut position = 0;
        while position < self.deferred.len() && self.ring.in_flight() < self.queue_depth {
            let (due, slot_index) = self.deferred[position];
            if due > now {
                position += 1;
                continue;
            }
            self.deferred.swap_remove(position);
            if self.on_grid(slot_index) {
                self.push(slot_index, counters)?;
            } else {
                let real = self.pread_rest(slot_index, counters);
                self.land(slot_index, real, counters)?;
            }
        }
        Ok(())
    }

    /// Sleeps until the first deferred read's pause is over (nothing else is in flight).
    fn pause_for_deferred(&self) {
        if let Some(due) = self.deferred.iter().map(|&(due, _)| due).min() {
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        }
    }

    /// Hands every finished read to the consumer and frees its slot and buffer.
    fn deliver(&mut self, batch: &mut ReadBatch<'_>) -> Result<(), IoError> {
        let mut outcome = Ok(());
        for position in 0..self.ready.len() {
            let slot_index = self.ready[position];
            let slot = self.slots[slot_index as usize];
            if outcome.is_ok() {
                outcome = match slot.failure {
                    None => {
                        batch.complete(slot.request, self.bytes_of(&slot));
                        Ok(())
                    }
                    Some(failure) => {
                        let file = &self.files[slot.file as usize];
                        let error = failure.to_error(
                            &file.path,
                            slot.offset,
                            slot.len,
                            slot.progress.done,
                            file.size,
                        );
                        batch.failed(slot.request, error)
                    }
                };
            }
            self.buffers.release(slot.buf);
        }
        self.free.append(&mut self.ready);
        outcome
    }

    /// The bytes of a finished slot.
    fn bytes_of(&self, slot: &Slot) -> &[u8] {
        let len = slot.progress.done as usize;
        assert!(slot.buf + len <= self.arena.len());
        // SAFETY: the slot's own region of the arena, whose read has landed. Other regions
        // may be written by the kernel meanwhile, so no reference to the whole arena is made.
        unsafe { std::slice::from_raw_parts(self.arena.as_ptr().add(slot.buf), len) }
    }
}

/// The error of a failed ring.
fn ring_error(error: RingError) -> IoError {
    IoError::Unavailable {
        engine: "uring",
        detail: error.to_string(),
    }
}

impl ReadEngine for UringEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Uring
    }

    fn alignment(&self) -> u64 {
        self.offset_align
    }

    fn read_shape(&self) -> ReadShape {
        ReadShape::local(
            self.files.iter().map(|f| f.path.as_path()),
            self.offset_align,
            self.queue_depth as usize,
        )
    }

    fn direct(&self) -> bool {
        self.files.iter().all(|f| f.direct)
    }

    fn file_count(&self) -> usize {
        self.files.len()
    }

    fn file_size(&self, file: u32) -> u64 {
        self.files[file as usize].size
    }

    fn read_batch(&mut self, mut batch: ReadBatch<'_>) -> Result<(), IoError> {
        if let Some(detail) = &self.broken {
            return Err(IoError::Unavailable {
                engine: "uring",
                detail: format!("the ring failed earlier ({detail}); open the engine again"),
            });
        }
        // Reads left in flight by a batch that unwound (a consumer that panicked) land first.
        self.drain()?;
        self.begin(batch.requests);
        let outcome = self.run(&mut batch);
        let drained = self.drain();
        outcome.and(drained)
    }

    fn set_fault_hook(&mut self, hook: Option<Arc<dyn FaultHook>>) -> bool {
        self.hook = hook;
        true
    }
}

impl Drop for UringEngine {
    /// Waits for the reads still in flight (a batch that unwound), so that the kernel never
    /// writes into freed memory. If the ring is broken, the arena is leaked rather than freed.
    fn drop(&mut self) {
        if self.broken.is_none() && self.ring.in_flight() > 0 {
            if let Err(error) = self.ring.drain() {
                self.broken = Some(error.to_string());
            }
        }
        if self.broken.is_some() {
            let arena = std::mem::replace(&mut self.arena, AlignedBuf::zeroed(0, 1));
            std::mem::forget(arena);
            return;
        }
        if self.registered {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}
