//! The io_uring variant: exactly `depth` O_DIRECT reads in flight, each in its own slot of
//! one aligned, registered arena. The loop:
//!
//! 1. fill every slot with a read at a random offset and submit;
//! 2. wait for at least one completion; copy the completions out, and mark their slots as
//!    landed (so that an error below never leaves the count of reads in flight wrong);
//! 3. for each completion: check its `user_data` names a slot that was in flight; retry
//!    `EINTR`/`EAGAIN`; resume a short read where it stopped; otherwise record the latency,
//!    verify the bytes and, while the run's time lasts, reuse the slot for a new read;
//! 4. repeat until no read is in flight.
//!
//! On an error, and whenever the run is dropped, every read still in flight is waited for
//! before the arena is freed: the kernel may write into it until its completion arrives.

use std::os::unix::io::AsRawFd;
use std::time::Instant;

use io_uring::{opcode, types, IoUring};

use super::rng::{stream_seed, SplitMix64};
use super::stats::{RunPlan, RunStats};
use super::IobenchError;
use crate::io::{AlignedBuf, DataFile};

/// Resubmissions tolerated for one read before giving up.
const RETRIES_PER_READ_MAX: u32 = 1000;

#[derive(Clone, Copy)]
struct Slot {
    offset: u64,
    done: u32,
    attempts: u32,
    in_flight: bool,
    submitted: Instant,
}

/// One io_uring run; see the module documentation.
struct UringRun<'a> {
    ring: IoUring,
    file: &'a DataFile,
    plan: &'a RunPlan,
    arena: AlignedBuf,
    registered: bool,
    slots: Vec<Slot>,
    in_flight: u32,
    completions: Vec<(u64, i32)>,
    rng: SplitMix64,
    stats: RunStats,
}

/// Reads `file` (opened with O_DIRECT) at `depth` for `plan.duration`.
pub fn run(file: &DataFile, depth: u32, plan: &RunPlan) -> Result<RunStats, IobenchError> {
    let mut run = UringRun::new(file, depth, plan)?;
    let start = Instant::now();
    let deadline = start + plan.duration;
    for slot_index in 0..depth {
        run.start_read(slot_index)?;
    }
    while run.in_flight > 0 {
        run.submit_and_wait()?;
        run.reap(deadline)?;
    }
    run.stats.elapsed = start.elapsed();
    run.stats.registered_buffers = Some(run.registered);
    Ok(std::mem::take(&mut run.stats))
}

impl<'a> UringRun<'a> {
    fn new(file: &'a DataFile, depth: u32, plan: &'a RunPlan) -> Result<Self, IobenchError> {
        let mut ring = IoUring::new(depth).map_err(|e| IobenchError::Uring {
            path: plan.path.clone(),
            run: plan.label.clone(),
            detail: format!("cannot create a ring of {depth} entries: {e}"),
        })?;
        let block_bytes = plan.block_bytes as usize;
        let mut arena = AlignedBuf::zeroed(block_bytes * depth as usize, plan.memory_align);
        let iovec = libc::iovec {
            iov_base: arena.as_mut_ptr().cast(),
            iov_len: arena.len(),
        };
        // SAFETY: the arena outlives the registration: both live in this UringRun, whose Drop
        // waits for every read in flight, and the ring (declared first) is dropped first.
        // Failure (e.g. RLIMIT_MEMLOCK) only means plain READ is used.
        let registered = unsafe { ring.submitter().register_buffers(&[iovec]) }.is_ok();
        let completion_capacity = ring.completion().capacity();
        let now = Instant::now();
        Ok(UringRun {
            ring,
            file,
            plan,
            arena,
            registered,
            slots: vec![
                Slot {
                    offset: 0,
                    done: 0,
                    attempts: 0,
                    in_flight: false,
                    submitted: now,
                };
                depth as usize
            ],
            in_flight: 0,
            completions: Vec::with_capacity(completion_capacity),
            rng: SplitMix64::new(stream_seed(plan.seed, 0)),
            stats: RunStats::default(),
        })
    }

    /// Puts a new read at a random offset into slot `slot_index`.
    fn start_read(&mut self, slot_index: u32) -> Result<(), IobenchError> {
        let offset = self.rng.below(self.plan.block_count) * self.plan.block_bytes;
        self.slots[slot_index as usize] = Slot {
            offset,
            done: 0,
            attempts: 0,
            in_flight: false,
            submitted: Instant::now(),
        };
        self.push(slot_index)
    }

    /// Queues the unread rest of slot `slot_index`'s block.
    fn push(&mut self, slot_index: u32) -> Result<(), IobenchError> {
        let block_bytes = self.plan.block_bytes as usize;
        let slot = &mut self.slots[slot_index as usize];
        debug_assert!(!slot.in_flight);
        slot.attempts += 1;
        let (done, offset, attempts) = (
            slot.done as usize,
            slot.offset + slot.done as u64,
            slot.attempts,
        );
        let len = block_bytes - done;
        if attempts > RETRIES_PER_READ_MAX {
            let source = std::io::Error::other("no progress after 1000 resubmissions");
            return Err(self.plan.read_error(offset, len as u64, source));
        }
        // SAFETY: slot_index < depth and done < block_bytes, so the region lies inside the
        // arena of depth · block_bytes bytes.
        let buf = unsafe {
            self.arena
                .as_mut_ptr()
                .add(slot_index as usize * block_bytes + done)
        };
        let fd = types::Fd(self.file.file.as_raw_fd());
        let entry = if self.registered {
            opcode::ReadFixed::new(fd, buf, len as u32, 0)
                .offset(offset)
                .build()
        } else {
            opcode::Read::new(fd, buf, len as u32)
                .offset(offset)
                .build()
        }
        .user_data(slot_index as u64);
        // The queue has `depth` entries and at most `depth` reads are ever queued or in
        // flight, so one submission always makes room.
        for _ in 0..2 {
            // SAFETY: the slot's region of the arena is not read or reused until this read's
            // completion is reaped, and the arena outlives every read (see Drop).
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                self.slots[slot_index as usize].in_flight = true;
                self.in_flight += 1;
                return Ok(());
            }
            if let Err(e) = self.ring.submit() {
                return Err(self.uring_error(format!("submit failed: {e}")));
            }
        }
        Err(self.uring_error("the submission queue stayed full".into()))
    }

    fn submit_and_wait(&mut self) -> Result<(), IobenchError> {
        loop {
            match self.ring.submit_and_wait(1) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // The completion queue is full: reaping makes room.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Ok(()),
                Err(e) => return Err(self.uring_error(format!("io_uring_enter failed: {e}"))),
            }
        }
    }

    /// Handles every available completion.
    fn reap(&mut self, deadline: Instant) -> Result<(), IobenchError> {
        self.completions.clear();
        self.completions.extend(
            self.ring
                .completion()
                .map(|cqe| (cqe.user_data(), cqe.result())),
        );
        let mut unknown = None;
        for &(user_data, _) in &self.completions {
            let known = usize::try_from(user_data)
                .ok()
                .and_then(|index| self.slots.get_mut(index))
                .filter(|slot| slot.in_flight);
            match known {
                Some(slot) => {
                    slot.in_flight = false;
                    self.in_flight -= 1;
                }
                None => unknown = unknown.or(Some(user_data)),
            }
        }
        if let Some(user_data) = unknown {
            return Err(self.uring_error(format!(
                "completion with user_data {user_data} matches no read in flight"
            )));
        }
        for index in 0..self.completions.len() {
            let (user_data, result) = self.completions[index];
            self.complete(user_data as u32, result, deadline)?;
        }
        Ok(())
    }

    /// Checks one completion: retry, resume, or verify and start the slot's next read.
    fn complete(
        &mut self,
        slot_index: u32,
        result: i32,
        deadline: Instant,
    ) -> Result<(), IobenchError> {
        let block_bytes = self.plan.block_bytes as usize;
        let slot = self.slots[slot_index as usize];
        let at = slot.offset + slot.done as u64;
        let remaining = (block_bytes - slot.done as usize) as u64;
        if result < 0 {
            let errno = -result;
            if errno == libc::EINTR || errno == libc::EAGAIN {
                self.stats.retries += 1;
                return self.push(slot_index);
            }
            let source = std::io::Error::from_raw_os_error(errno);
            return Err(self.plan.read_error(at, remaining, source));
        }
        if result == 0 {
            let source = std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file ended; was it truncated while in use?",
            );
            return Err(self.plan.read_error(at, remaining, source));
        }
        let done = slot.done as usize + result as usize;
        if done < block_bytes {
            if done as u64 % self.file.offset_align != 0 {
                let source = std::io::Error::other(format!(
                    "short O_DIRECT read of {result} bytes ends off the {}-byte alignment",
                    self.file.offset_align
                ));
                return Err(self.plan.read_error(at, remaining, source));
            }
            self.slots[slot_index as usize].done = done as u32;
            self.stats.retries += 1;
            return self.push(slot_index);
        }
        let now = Instant::now();
        let latency_ns = now.duration_since(slot.submitted).as_nanos() as u64;
        let bytes = &self.arena.as_slice()[slot_index as usize * block_bytes..][..block_bytes];
        self.stats
            .complete(self.plan, slot.offset, bytes, latency_ns)?;
        if now < deadline {
            self.start_read(slot_index)?;
        }
        Ok(())
    }

    fn uring_error(&self, detail: String) -> IobenchError {
        IobenchError::Uring {
            path: self.plan.path.clone(),
            run: self.plan.label.clone(),
            detail,
        }
    }
}

impl Drop for UringRun<'_> {
    /// Waits for the reads still in flight (after an error), so that the kernel never writes
    /// into freed memory. If even waiting fails, the arena is leaked rather than freed.
    fn drop(&mut self) {
        while self.in_flight > 0 {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(_) => {
                    let arena = std::mem::replace(&mut self.arena, AlignedBuf::zeroed(0, 1));
                    std::mem::forget(arena);
                    return;
                }
            }
            let landed = self.ring.completion().count() as u32;
            self.in_flight = self.in_flight.saturating_sub(landed);
        }
    }
}
