//! The ring and the reads in flight on it. Every submission is tagged with its slot and a
//! sequence number; every completion is checked against the tags in flight and the tag is
//! cleared once used, so a completion the engine did not ask for (unknown, duplicated or
//! stale) is an error that names it, never a write into the wrong buffer.

use io_uring::{squeue, IoUring, Submitter};

/// Why the ring failed a push, a submission or a reap. Any of them breaks the ring.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RingError {
    /// The submission queue had no room, even after submitting what it held.
    #[error("the submission queue stayed full")]
    QueueFull,
    /// `io_uring_enter` returned `EBUSY` or `EAGAIN` too many times with no completion.
    #[error("io_uring_enter kept failing with {0} and no completion arrived")]
    Busy(std::io::Error),
    /// `io_uring_enter` failed otherwise.
    #[error("io_uring_enter failed: {0}")]
    Enter(std::io::Error),
    /// A completion whose tag matches no read in flight.
    #[error("a completion with user_data {0:#x} matches no read in flight (unknown, duplicated or stale)")]
    UnknownCompletion(u64),
}

/// The tag of a slot with no read in flight.
const IDLE: u64 = u64::MAX;
/// `EBUSY`/`EAGAIN` from `io_uring_enter` in a row, with nothing reaped in between, before
/// the ring counts as broken.
const BUSY_STREAK_MAX: u32 = 10_000;

/// An io_uring plus the reads in flight on it, one per slot at most.
pub(super) struct Ring {
    ring: IoUring,
    /// Per slot: the `user_data` of its read in flight, or [`IDLE`].
    tags: Vec<u64>,
    in_flight: u32,
    sequence: u32,
    busy_streak: u32,
    completions: Vec<(u64, i32)>,
    /// Waits that a signal interrupted (`EINTR`) and that were resumed.
    pub interrupted_waits: u64,
}

impl Ring {
    /// A ring of `entries` submission entries for `slots` slots.
    pub(crate) fn new(entries: u32, slots: usize) -> std::io::Result<Ring> {
        assert!(slots < u32::MAX as usize, "slot numbers fit in a tag");
        let ring = IoUring::new(entries)?;
        let capacity = ring.params().cq_entries() as usize;
        Ok(Ring {
            ring,
            tags: vec![IDLE; slots],
            in_flight: 0,
            sequence: 0,
            busy_streak: 0,
            completions: Vec::with_capacity(capacity),
            interrupted_waits: 0,
        })
    }

    /// Reads queued or in flight.
    pub(crate) fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Whether slot `slot` has a read queued or in flight.
    pub(crate) fn is_in_flight(&self, slot: u32) -> bool {
        self.tags[slot as usize] != IDLE
    }

    /// For buffer registration.
    pub(crate) fn submitter(&self) -> Submitter<'_> {
        self.ring.submitter()
    }

    /// Queues `entry` as slot `slot`'s read; the slot must have none in flight.
    ///
    /// # Safety
    ///
    /// The buffer `entry` reads into must stay valid, and must not be read or written by
    /// anyone else, until this slot's completion is reaped ([`Ring::reap`]) or drained
    /// ([`Ring::drain`]).
    pub(crate) unsafe fn push(&mut self, slot: u32, entry: squeue::Entry) -> Result<(), RingError> {
        assert_eq!(
            self.tags[slot as usize], IDLE,
            "slot {slot} already has a read"
        );
        self.sequence = self.sequence.wrapping_add(1);
        let tag = (u64::from(self.sequence) << 32) | u64::from(slot);
        let entry = entry.user_data(tag);
        for _ in 0..2 {
            // SAFETY: the caller keeps the buffer valid until the completion (see above).
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                self.tags[slot as usize] = tag;
                self.in_flight += 1;
                return Ok(());
            }
            self.submit(0)?;
        }
        Err(RingError::QueueFull)
    }

    /// Submits what is queued and waits for at least `want` completions. A wait interrupted
    /// by a signal (`EINTR`) is resumed. `EBUSY` and `EAGAIN` (the completion queue is full,
    /// or the kernel is short of memory) return at once so the caller reaps first. Any other
    /// error breaks the ring.
    pub(crate) fn submit(&mut self, want: usize) -> Result<(), RingError> {
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => self.interrupted_waits += 1,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EBUSY | libc::EAGAIN)) => {
                    self.busy_streak += 1;
                    if self.busy_streak > BUSY_STREAK_MAX {
                        return Err(RingError::Busy(e));
                    }
                    return Ok(());
                }
                Err(e) => return Err(RingError::Enter(e)),
            }
        }
    }

    /// Takes every available completion. Those that match a read in flight land (their tag is
    /// cleared) and go to `landed` as (slot, result); the first that matches none is
    /// returned as an error, after the others have landed.
    pub(crate) fn reap(&mut self, landed: &mut Vec<(u32, i32)>) -> Result<(), RingError> {
        self.completions.clear();
        self.completions.extend(
            self.ring
                .completion()
                .map(|cqe| (cqe.user_data(), cqe.result())),
        );
        if !self.completions.is_empty() {
            self.busy_streak = 0;
        }
        let mut unknown = None;
        for &(tag, result) in &self.completions {
            let slot = (tag & u64::from(u32::MAX)) as usize;
            if tag != IDLE && self.tags.get(slot) == Some(&tag) {
                self.tags[slot] = IDLE;
                self.in_flight -= 1;
                landed.push((slot as u32, result));
            } else {
                unknown.get_or_insert(tag);
            }
        }
        self.check();
        match unknown {
            None => Ok(()),
            Some(tag) => Err(RingError::UnknownCompletion(tag)),
        }
    }

    /// Waits until no read is in flight, discarding results. It never gives up on `EINTR`
    /// and ignores unknown completions: the kernel may write into the buffers of reads in
    /// flight until they complete. An error means the ring itself failed, reads may still be
    /// in flight, and their buffers must never be freed.
    pub(crate) fn drain(&mut self) -> Result<(), RingError> {
        let mut landed = Vec::new();
        while self.in_flight > 0 {
            self.submit(1)?;
            landed.clear();
            let _ = self.reap(&mut landed);
        }
        Ok(())
    }

    /// The tags agree with the count in flight.
    fn check(&self) {
        debug_assert_eq!(
            self.tags.iter().filter(|&&tag| tag != IDLE).count(),
            self.in_flight as usize
        );
    }

    /// Queues a no-op completion with `user_data`, as a kernel bug or a stray submission
    /// would produce it.
    #[cfg(test)]
    pub(crate) fn push_forged(&mut self, user_data: u64) {
        let entry = io_uring::opcode::Nop::new().build().user_data(user_data);
        // SAFETY: a no-op reads and writes no memory.
        unsafe { self.ring.submission().push(&entry) }.expect("room for a no-op");
    }

    /// The tag slot `slot`'s last read had, once it has landed.
    #[cfg(test)]
    pub(crate) fn last_tag(&self, slot: u32) -> u64 {
        (u64::from(self.sequence) << 32) | u64::from(slot)
    }
}
