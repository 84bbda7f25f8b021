//! The io_uring engine: the whole batch in flight at a fixed depth, O_DIRECT, registered
//! buffers, every completion checked.
//!
//! Phases of [`UringEngine::read_batch`]:
//! 1. fill: while fewer than `queue_depth` reads are in flight and a slot is free, queue the
//!    next request into that slot's buffer;
//! 2. submit and wait for at least one completion (the only place the thread blocks, timed as
//!    I/O wait);
//! 3. reap: check every completion. `EINTR`/`EAGAIN` are resubmitted unchanged; a short read
//!    inside the file is resubmitted for the rest; a short read at the end of the file is a
//!    complete read; any other error ends the batch (after the reads still in flight have
//!    landed, so no buffer is written after we return);
//! 4. refill and submit again *before* handing completed buffers to the consumer, so the device
//!    stays busy while the caller accumulates.
//!
//! There are `2 · queue_depth` slots: up to `queue_depth` in flight and up to as many waiting
//! for the consumer. Their buffers are carved, each at its read's exact size, from one
//! aligned arena registered with the ring (so the kernel does not pin pages per read) by a
//! [`RingAlloc`]: many 4 KiB row reads stay in flight next to a few long merged reads. The
//! arena is sized once for the batch ([`ARENA_BYTES_TARGET`]), so a query never pays for
//! zeroing and pinning tens of MiB, and memory stays fixed.

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;
use std::time::Instant;

use io_uring::{opcode, types, IoUring};

use super::ring_alloc::RingAlloc;
use super::{
    open_files, strictest_alignment, AlignedBuf, DataFile, DirectIo, EngineKind, IoCounters,
    IoError, ReadConsumer, ReadEngine, ReadRequest,
};

/// The buffer arena grows to the batch's total read size, up to this: 8 MiB in flight or
/// waiting keeps a device busy without pinning much memory.
pub const ARENA_BYTES_TARGET: usize = 8 << 20;

/// The arena always holds at least this many of the batch's longest reads, so a long read
/// never waits for the ring to empty.
const LONGEST_READS_MIN: usize = 4;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    request: usize,
    file: u32,
    offset: u64,
    len: u32,
    done: u32,
    /// Offset of the slot's buffer in the arena.
    buf: usize,
}

/// io_uring reads; see the module documentation.
pub struct UringEngine {
    ring: IoUring,
    files: Vec<DataFile>,
    queue_depth: u32,
    offset_align: u64,
    memory_align: usize,
    arena: AlignedBuf,
    buffers: RingAlloc,
    registered: bool,
    slots: Vec<Slot>,
    free: Vec<u32>,
    ready: Vec<u32>,
    completions: Vec<(u64, i32)>,
    fallback: Option<String>,
}

impl UringEngine {
    /// Sets up a ring of `queue_depth` entries over `paths` and proves it works with a real
    /// read of the first block of every file.
    pub fn open(paths: &[PathBuf], queue_depth: u32, direct: DirectIo) -> Result<Self, IoError> {
        let queue_depth = queue_depth.clamp(1, 4096);
        if std::env::var("BITSIFT_IO_URING").as_deref() == Ok("off") {
            return Err(IoError::Unavailable {
                engine: "uring",
                detail: "turned off by BITSIFT_IO_URING=off".into(),
            });
        }
        let ring = IoUring::new(queue_depth).map_err(|e| IoError::Unavailable {
            engine: "uring",
            detail: format!(
                "cannot create an io_uring ({e}); it may be disabled (sysctl kernel.io_uring_disabled) or blocked by a seccomp profile"
            ),
        })?;
        let (files, fallback) = open_files(paths, direct, "uring")?;
        let (offset_align, memory_align) = strictest_alignment(&files);
        let memory_align = memory_align.max(4096);
        let slot_count = 2 * queue_depth as usize;
        let arena_bytes = (offset_align as usize).max(4096) * slot_count;
        let mut engine = UringEngine {
            ring,
            files,
            queue_depth,
            offset_align,
            memory_align,
            arena: AlignedBuf::zeroed(arena_bytes, memory_align),
            buffers: RingAlloc::new(arena_bytes),
            registered: false,
            slots: vec![Slot::default(); slot_count],
            free: Vec::with_capacity(slot_count),
            ready: Vec::with_capacity(slot_count),
            completions: Vec::with_capacity(slot_count),
            fallback,
        };
        engine.register_arena();
        engine.probe()?;
        Ok(engine)
    }

    /// Why O_DIRECT is not used, when it was wanted but the file system refused it.
    pub fn direct_fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// Registers the arena as one fixed buffer. Failure (e.g. RLIMIT_MEMLOCK) only means plain
    /// reads are used.
    fn register_arena(&mut self) {
        if self.registered {
            let _ = self.ring.submitter().unregister_buffers();
            self.registered = false;
        }
        let iovec = libc::iovec {
            iov_base: self.arena.as_mut_ptr().cast(),
            iov_len: self.arena.len(),
        };
        // SAFETY: the arena outlives the registration: it is only dropped or replaced after
        // unregister_buffers (in register_arena and Drop), and the ring is dropped with self.
        self.registered = unsafe { self.ring.submitter().register_buffers(&[iovec]) }.is_ok();
    }

    /// A read's buffer size: its length rounded up to the memory alignment.
    fn buffer_len(&self, len: u32) -> usize {
        (len as usize).max(1).next_multiple_of(self.memory_align)
    }

    /// Grows the arena, when needed, to hold the batch: its total size up to
    /// [`ARENA_BYTES_TARGET`], and always [`LONGEST_READS_MIN`] of its longest reads. It
    /// never shrinks, so a process pays for growth at most a few times.
    fn size_arena(&mut self, requests: &[ReadRequest]) {
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
        let mut counters = IoCounters::default();
        self.read_batch(&requests, &mut |_: usize, _: &[u8]| {}, &mut counters)
            .map_err(|e| IoError::Unavailable {
                engine: "uring",
                detail: format!("probe read failed: {e}"),
            })
    }

    fn push(&mut self, slot_index: u32, counters: &mut IoCounters) -> Result<(), IoError> {
        let slot = self.slots[slot_index as usize];
        let file = &self.files[slot.file as usize];
        let offset = slot.offset + slot.done as u64;
        let len = slot.len - slot.done;
        debug_assert!(!file.direct || offset % self.offset_align == 0);
        // SAFETY: the slot's region [buf, buf + buffer_len(len)) lies inside the arena (the
        // ring allocator only hands out such regions) and done <= len.
        let buf = unsafe { self.arena.as_mut_ptr().add(slot.buf + slot.done as usize) };
        let fd = types::Fd(file.file.as_raw_fd());
        let entry = if self.registered {
            opcode::ReadFixed::new(fd, buf, len, 0)
                .offset(offset)
                .build()
        } else {
            opcode::Read::new(fd, buf, len).offset(offset).build()
        }
        .user_data(slot_index as u64);
        loop {
            // SAFETY: the buffer stays valid and untouched until the completion is reaped:
            // a slot is neither reused nor handed to the consumer while in flight, and the arena
            // is not replaced during a batch.
            let pushed = unsafe { self.ring.submission().push(&entry) };
            if pushed.is_ok() {
                break;
            }
            self.submit(0)?;
        }
        counters.read_requests += 1;
        Ok(())
    }

    fn submit(&mut self, want: usize) -> Result<(), IoError> {
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // The completion queue is full: reaping makes room, so report progress.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Ok(()),
                Err(e) => {
                    return Err(IoError::Unavailable {
                        engine: "uring",
                        detail: format!("io_uring_enter failed: {e}"),
                    })
                }
            }
        }
    }

    /// Queues requests from `next` while depth and slots allow, skipping those the consumer
    /// no longer wants; returns the new `next`.
    fn fill(
        &mut self,
        requests: &[ReadRequest],
        mut next: usize,
        inflight: &mut u32,
        consumer: &mut dyn ReadConsumer,
        counters: &mut IoCounters,
    ) -> Result<usize, IoError> {
        while *inflight < self.queue_depth && next < requests.len() {
            if self.free.is_empty() {
                break;
            }
            if !consumer.wanted(next) {
                counters.skipped += 1;
                next += 1;
                continue;
            }
            let request = requests[next];
            let Some(buf) = self.buffers.alloc(self.buffer_len(request.len)) else {
                // Wait for earlier buffers to be consumed.
                break;
            };
            let Some(slot_index) = self.free.pop() else {
                self.buffers.release(buf);
                break;
            };
            let size = self.files[request.file as usize].size;
            if request.offset >= size {
                self.free.push(slot_index);
                self.buffers.release(buf);
                return Err(IoError::UnexpectedEnd {
                    path: self.files[request.file as usize].path.clone(),
                    offset: request.offset,
                    size,
                });
            }
            self.slots[slot_index as usize] = Slot {
                request: next,
                file: request.file,
                offset: request.offset,
                len: request.len,
                done: 0,
                buf,
            };
            self.push(slot_index, counters)?;
            *inflight += 1;
            next += 1;
        }
        Ok(next)
    }

    /// Checks every available completion; completed slots go to `ready`. After the first
    /// failure the remaining completions are only counted, so `inflight` stays exact for
    /// [`Self::drain`].
    fn reap(&mut self, inflight: &mut u32, counters: &mut IoCounters) -> Result<(), IoError> {
        self.completions.clear();
        self.completions.extend(
            self.ring
                .completion()
                .map(|cqe| (cqe.user_data(), cqe.result())),
        );
        let mut failure = None;
        for index in 0..self.completions.len() {
            let (user_data, result) = self.completions[index];
            let slot_index = user_data as u32;
            assert!(
                (slot_index as usize) < self.slots.len(),
                "completion for unknown slot {user_data}"
            );
            if failure.is_some() {
                *inflight -= 1;
                continue;
            }
            if let Err(e) = self.check_completion(slot_index, result, inflight, counters) {
                failure = Some(e);
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// Handles one completion: resubmits, finishes or fails the slot.
    fn check_completion(
        &mut self,
        slot_index: u32,
        result: i32,
        inflight: &mut u32,
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        if result < 0 {
            let errno = -result;
            if errno == libc::EINTR || errno == libc::EAGAIN {
                counters.retries += 1;
                return self.push(slot_index, counters);
            }
            *inflight -= 1;
            let slot = self.slots[slot_index as usize];
            return Err(IoError::Read {
                path: self.files[slot.file as usize].path.clone(),
                offset: slot.offset + slot.done as u64,
                len: (slot.len - slot.done) as u64,
                source: std::io::Error::from_raw_os_error(errno),
            });
        }
        let slot = &mut self.slots[slot_index as usize];
        slot.done += result as u32;
        let file = &self.files[slot.file as usize];
        let at_end = slot.offset + slot.done as u64 >= file.size;
        if slot.done >= slot.len || at_end {
            *inflight -= 1;
            self.ready.push(slot_index);
            Ok(())
        } else if result == 0 {
            *inflight -= 1;
            Err(IoError::UnexpectedEnd {
                path: file.path.clone(),
                offset: slot.offset + slot.done as u64,
                size: file.size,
            })
        } else if file.direct && slot.done as u64 % self.offset_align != 0 {
            // A short O_DIRECT read that ended off the alignment grid cannot be continued
            // with O_DIRECT; finish it with a buffered read.
            let slot = *slot;
            counters.retries += 1;
            *inflight -= 1;
            self.finish_buffered(slot_index, slot, counters)?;
            self.ready.push(slot_index);
            Ok(())
        } else {
            counters.retries += 1;
            self.push(slot_index, counters)
        }
    }

    fn finish_buffered(
        &mut self,
        slot_index: u32,
        slot: Slot,
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        let path = &self.files[slot.file as usize].path;
        let read_error = |source| IoError::Read {
            path: path.clone(),
            offset: slot.offset + slot.done as u64,
            len: (slot.len - slot.done) as u64,
            source,
        };
        let file = File::open(path).map_err(read_error)?;
        let start = slot.buf + slot.done as usize;
        let end = slot.buf + slot.len as usize;
        let buf = &mut self.arena.as_mut_slice()[start..end];
        let got =
            super::read_full_at(&file, buf, slot.offset + slot.done as u64).map_err(read_error)?;
        counters.read_requests += 1;
        self.slots[slot_index as usize].done += got as u32;
        Ok(())
    }

    /// Waits for every read still in flight, discarding results, so that no buffer is written
    /// after an error has been returned.
    fn drain(&mut self, mut inflight: u32) {
        while inflight > 0 {
            if self.ring.submit_and_wait(1).is_err() {
                return;
            }
            let reaped = self.ring.completion().count() as u32;
            inflight = inflight.saturating_sub(reaped);
        }
    }
}

impl ReadEngine for UringEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Uring
    }

    fn alignment(&self) -> u64 {
        self.offset_align
    }

    fn direct(&self) -> bool {
        self.files.iter().all(|f| f.direct)
    }

    fn file_size(&self, file: u32) -> u64 {
        self.files[file as usize].size
    }

    fn read_batch(
        &mut self,
        requests: &[ReadRequest],
        consumer: &mut dyn ReadConsumer,
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        self.size_arena(requests);
        self.free.clear();
        self.free.extend((0..self.slots.len() as u32).rev());
        self.ready.clear();
        let mut next = 0;
        let mut inflight = 0u32;
        let outcome = (|| -> Result<(), IoError> {
            loop {
                next = self.fill(requests, next, &mut inflight, consumer, counters)?;
                if inflight == 0 {
                    debug_assert_eq!(next, requests.len());
                    return Ok(());
                }
                let waited = Instant::now();
                self.submit(1)?;
                counters.io_wait += waited.elapsed();
                self.reap(&mut inflight, counters)?;
                next = self.fill(requests, next, &mut inflight, consumer, counters)?;
                self.submit(0)?;
                for index in 0..self.ready.len() {
                    let slot_index = self.ready[index];
                    let slot = self.slots[slot_index as usize];
                    let bytes = &self.arena.as_slice()[slot.buf..slot.buf + slot.done as usize];
                    counters.bytes_read += bytes.len() as u64;
                    consumer.complete(slot.request, bytes);
                    self.buffers.release(slot.buf);
                }
                self.free.append(&mut self.ready);
            }
        })();
        if outcome.is_err() {
            self.drain(inflight);
        }
        outcome
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        if self.registered {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}
