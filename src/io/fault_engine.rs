//! A fault-injecting engine, for tests: [`FaultEngine`] wraps any [`ReadEngine`] and makes its
//! reads fail, stall and lie the way storage does, seeded and deterministic.
//!
//! Faults enter at two places:
//!
//! - **Inside the wrapped engine**, through its [`FaultHook`] ([`ReadEngine::set_fault_hook`]):
//!   every result the engine gets for a read (from the kernel, or a copy out of memory) can be
//!   rewritten before the engine acts on it: `EINTR`, `EAGAIN`, `EIO` (transient, or
//!   persistent for a bad page), short and empty reads, and a pause before the result is
//!   seen. So the engine's own retry logic is what must absorb them.
//! - **At the consumer**: completions held back and handed over in another order, and bytes
//!   with one bit flipped (which only a checksum can catch).
//!
//! Transient faults stay within the engines' retry bounds (an `EIO` at most twice per read,
//! an empty read at most once, nothing after a read's sixth result), so a run with only
//! transient faults must give exactly the bytes of a clean run. Persistent faults fail exactly
//! the reads that cover a bad page, which `FaultPlan::fails` predicts.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::fault::{Attempt, AttemptResult, FaultHook};
use super::{EngineLayer, IoError, ReadBatch, ReadConsumer, ReadEngine};

/// Bytes per page for persistent faults: a bad page fails every read that covers any of it.
pub(crate) const FAULT_PAGE_BYTES: u64 = 4096;

/// A read's results after this many carry no transient fault, so every read finishes well
/// within the engines' retry bounds.
const TRANSIENT_ATTEMPTS_MAX: u32 = 6;
/// Attempts (counted from 0) below which a transient `EIO` may be injected: at most two per
/// read, fewer than the engines retry.
const IO_ERROR_ATTEMPTS_MAX: u32 = 2;

/// Which faults to inject, and how often. Rates are probabilities per attempt (per completion
/// for `flip`), decided by hashing the seed with the attempt, so a plan gives the same faults
/// on every run and every thread schedule.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FaultPlan {
    /// Seed of every decision.
    pub seed: u64,
    /// `EINTR`.
    pub interrupted: f64,
    /// `EAGAIN`.
    pub again: f64,
    /// A transient `EIO` (the retry succeeds).
    pub io_error: f64,
    /// Fewer bytes than asked for (aligned or not).
    pub short: f64,
    /// No bytes although the read lies inside the file (at most once per read).
    pub empty: f64,
    /// A pause before the engine sees the result, of up to `delay_max`.
    pub delay: f64,
    /// The longest pause.
    pub delay_max: Duration,
    /// Completions held back at the consumer and released in shuffled order (0: in order).
    pub reorder_window: usize,
    /// A completion handed over with one bit flipped.
    pub flip: f64,
    /// Fraction of [`FAULT_PAGE_BYTES`] pages that are bad: every read covering one fails
    /// with `bad_page_errno`, every time.
    pub bad_page: f64,
    /// Bad pages named explicitly: (file, offset of any byte in the page).
    pub bad_pages: Vec<(u32, u64)>,
    /// The errno of a bad page (0 means `EIO`).
    pub bad_page_errno: i32,
}

impl FaultPlan {
    /// No faults.
    pub(crate) fn clean(seed: u64) -> FaultPlan {
        FaultPlan {
            seed,
            ..FaultPlan::default()
        }
    }

    /// Every transient fault at a rate that touches a good share of the reads of a batch,
    /// delays of up to 200 µs, and a reorder window of 8. Results must equal a clean run's.
    pub(crate) fn transient(seed: u64) -> FaultPlan {
        FaultPlan {
            seed,
            interrupted: 0.08,
            again: 0.04,
            io_error: 0.06,
            short: 0.08,
            empty: 0.04,
            delay: 0.04,
            delay_max: Duration::from_micros(200),
            reorder_window: 8,
            ..FaultPlan::default()
        }
    }

    /// Whether a read of `len` bytes at `offset` of file `file` (of `file_size` bytes)
    /// covers a bad page, so that it must fail.
    #[cfg(test)]
    pub(crate) fn fails(&self, file: u32, offset: u64, len: u32, file_size: u64) -> bool {
        let end = (offset + len as u64).min(file_size);
        self.bad_page_in(file, offset, end).is_some()
    }

    /// The first bad page in `[start, end)` of `file`.
    fn bad_page_in(&self, file: u32, start: u64, end: u64) -> Option<u64> {
        if start >= end || (self.bad_page <= 0.0 && self.bad_pages.is_empty()) {
            return None;
        }
        let first = start / FAULT_PAGE_BYTES;
        let last = (end - 1) / FAULT_PAGE_BYTES;
        (first..=last).find(|&page| {
            self.bad_pages
                .iter()
                .any(|&(f, at)| f == file && at / FAULT_PAGE_BYTES == page)
                || unit(self.seed, KIND_BAD_PAGE, file as u64, page, 0) < self.bad_page
        })
    }
}

/// How many faults of each kind were injected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FaultCounts {
    /// `EINTR` results.
    pub interrupted: u64,
    /// `EAGAIN` results.
    pub again: u64,
    /// Transient `EIO` results.
    pub io_error: u64,
    /// Short reads.
    pub short: u64,
    /// Empty reads.
    pub empty: u64,
    /// Results seen late.
    pub delayed: u64,
    /// Results failed because the read covers a bad page.
    pub bad_page: u64,
    /// Completions with a flipped bit.
    pub flipped: u64,
    /// Completions handed over before an earlier one.
    pub reordered: u64,
    /// Read attempts seen (faulty or not).
    pub attempts: u64,
}

/// A handle on a [`FaultEngine`]'s counts that stays valid after the engine has been moved
/// away (into a searcher, say).
#[derive(Clone, Debug)]
pub(crate) struct FaultTally(Arc<Counts>);

impl FaultTally {
    /// The faults injected so far.
    pub(crate) fn get(&self) -> FaultCounts {
        self.0.snapshot()
    }
}

/// Atomic [`FaultCounts`], shared with the hook (which engines may call from many threads).
#[derive(Debug, Default)]
struct Counts([AtomicU64; 10]);

impl Counts {
    fn bump(&self, index: usize) {
        self.0[index].fetch_add(1, Ordering::Relaxed);
    }

    fn snapshot(&self) -> FaultCounts {
        let get = |index: usize| self.0[index].load(Ordering::Relaxed);
        FaultCounts {
            interrupted: get(0),
            again: get(1),
            io_error: get(2),
            short: get(3),
            empty: get(4),
            delayed: get(5),
            bad_page: get(6),
            flipped: get(7),
            reordered: get(8),
            attempts: get(9),
        }
    }
}

const KIND_TRANSIENT: u64 = 1;
const KIND_DELAY: u64 = 2;
const KIND_BAD_PAGE: u64 = 3;
const KIND_SHORT: u64 = 4;
const KIND_FLIP: u64 = 5;
const KIND_ORDER: u64 = 6;

/// SplitMix64's finaliser: a good 64-bit mix.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 64 random bits that depend only on the arguments.
fn bits(seed: u64, kind: u64, a: u64, b: u64, c: u64) -> u64 {
    mix(seed ^ mix(kind ^ mix(a ^ mix(b ^ mix(c)))))
}

/// Uniform in [0, 1), from the arguments.
fn unit(seed: u64, kind: u64, a: u64, b: u64, c: u64) -> f64 {
    (bits(seed, kind, a, b, c) >> 11) as f64 / (1u64 << 53) as f64
}

/// The hook installed in the wrapped engine.
struct Injector {
    plan: Arc<FaultPlan>,
    counts: Arc<Counts>,
    /// Batches read so far: part of every draw, so that a read repeated in a later batch
    /// (the same few pages of a small index, again and again) gets draws of its own.
    batches: Arc<AtomicU64>,
}

impl FaultHook for Injector {
    fn rewrite(&self, attempt: &Attempt, result: AttemptResult) -> AttemptResult {
        self.counts.bump(9);
        let plan = &*self.plan;
        let want_end = (attempt.offset + attempt.len as u64).min(attempt.file_size);
        let rest_start = attempt.offset + attempt.done as u64;
        if rest_start >= want_end {
            return result; // nothing left to read: nothing to fail
        }
        if plan
            .bad_page_in(attempt.file, rest_start, want_end)
            .is_some()
        {
            self.counts.bump(6);
            let errno = if plan.bad_page_errno == 0 {
                libc::EIO
            } else {
                plan.bad_page_errno
            };
            return AttemptResult::Errno(errno);
        }
        let batch = self.batches.load(Ordering::Relaxed);
        let key = (
            attempt.file as u64,
            rest_start,
            attempt.index as u64 | batch << 16,
        );
        if unit(plan.seed, KIND_DELAY, key.0, key.1, key.2) < plan.delay {
            self.counts.bump(5);
            let fraction = unit(plan.seed, KIND_DELAY + 100, key.0, key.1, key.2);
            std::thread::sleep(plan.delay_max.mul_f64(fraction));
        }
        let AttemptResult::Bytes(landed) = result else {
            return result;
        };
        if attempt.index >= TRANSIENT_ATTEMPTS_MAX {
            return result;
        }
        self.transient(plan, attempt, key, landed)
    }
}

impl Injector {
    /// At most one transient fault for an attempt whose `landed` bytes really landed. The
    /// draw picks a kind by its band of the rates; a kind not allowed for this attempt (an
    /// `EIO` after the second attempt, say) means no fault, not the next kind.
    fn transient(
        &self,
        plan: &FaultPlan,
        attempt: &Attempt,
        key: (u64, u64, u64),
        landed: u32,
    ) -> AttemptResult {
        let draw = unit(plan.seed, KIND_TRANSIENT, key.0, key.1, key.2);
        let bands = [
            (plan.interrupted, true),
            (plan.again, true),
            (plan.io_error, attempt.index < IO_ERROR_ATTEMPTS_MAX),
            (plan.empty, attempt.index == 0 && landed > 0),
            (plan.short, landed > 1),
        ];
        let mut edge = 0.0;
        let Some(kind) = bands.iter().position(|&(rate, _)| {
            edge += rate;
            draw < edge
        }) else {
            return AttemptResult::Bytes(landed);
        };
        if !bands[kind].1 {
            return AttemptResult::Bytes(landed);
        }
        self.counts.bump(kind_count(kind));
        match kind {
            0 => AttemptResult::Errno(libc::EINTR),
            1 => AttemptResult::Errno(libc::EAGAIN),
            2 => AttemptResult::Errno(libc::EIO),
            3 => AttemptResult::Bytes(0),
            _ => AttemptResult::Bytes(shorter(plan, attempt, key, landed)),
        }
    }
}

/// The [`Counts`] index of transient kind `kind` (in the order of `Injector::transient`).
fn kind_count(kind: usize) -> usize {
    [0, 1, 2, 4, 3][kind]
}

/// A length in `1..landed`: on the alignment grid for half the keys where the grid allows
/// one, anywhere otherwise (an O_DIRECT engine must then finish the read another way).
fn shorter(plan: &FaultPlan, attempt: &Attempt, key: (u64, u64, u64), landed: u32) -> u32 {
    let random = bits(plan.seed, KIND_SHORT, key.0, key.1, key.2);
    let length = 1 + (random % (landed as u64 - 1)) as u32;
    let align = attempt.align.max(1);
    let aligned = (length as u64 / align * align) as u32;
    if random >> 63 == 1 && aligned > 0 {
        aligned
    } else {
        length
    }
}

/// Any engine, with faults injected as a [`FaultPlan`] says (testing only; see the module
/// documentation).
pub(crate) struct FaultEngine {
    inner: Box<dyn ReadEngine>,
    plan: Arc<FaultPlan>,
    counts: Arc<Counts>,
    hooked: bool,
    held: Vec<(usize, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
    completions: u64,
    /// Batches read, shared with the hook (see `Injector::batches`).
    batches: Arc<AtomicU64>,
}

impl FaultEngine {
    /// Wraps `inner` and installs the plan's hook in it.
    pub(crate) fn new(mut inner: Box<dyn ReadEngine>, plan: FaultPlan) -> FaultEngine {
        let plan = Arc::new(plan);
        let counts = Arc::new(Counts::default());
        let batches = Arc::new(AtomicU64::new(0));
        let injector = Injector {
            plan: Arc::clone(&plan),
            counts: Arc::clone(&counts),
            batches: Arc::clone(&batches),
        };
        let hooked = inner.set_fault_hook(Some(Arc::new(injector)));
        FaultEngine {
            inner,
            plan,
            counts,
            hooked,
            held: Vec::new(),
            spare: Vec::new(),
            completions: 0,
            batches,
        }
    }

    /// Whether the wrapped engine took the hook: without it only consumer-side faults
    /// (reordering, flipped bits) are injected.
    pub(crate) fn hooked(&self) -> bool {
        self.hooked
    }

    /// The faults injected so far.
    #[cfg(test)]
    pub(crate) fn injected(&self) -> FaultCounts {
        self.counts.snapshot()
    }

    /// A handle on the counts of [`FaultEngine::injected`] that outlives a move of the engine.
    pub(crate) fn tally(&self) -> FaultTally {
        FaultTally(Arc::clone(&self.counts))
    }

    /// The plan.
    #[cfg(test)]
    pub(crate) fn plan(&self) -> &FaultPlan {
        &self.plan
    }
}

impl EngineLayer for FaultEngine {
    fn inner(&self) -> &dyn ReadEngine {
        self.inner.as_ref()
    }

    fn inner_mut(&mut self) -> &mut dyn ReadEngine {
        self.inner.as_mut()
    }

    fn read_layered(&mut self, batch: ReadBatch<'_>) -> Result<(), IoError> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        let ReadBatch {
            requests,
            consumer,
            counters,
        } = batch;
        let mut boundary = Boundary {
            inner: consumer,
            plan: &self.plan,
            counts: &self.counts,
            held: std::mem::take(&mut self.held),
            spare: std::mem::take(&mut self.spare),
            completions: self.completions,
        };
        let outcome = self
            .inner
            .read_batch(ReadBatch::new(requests, &mut boundary, counters));
        if outcome.is_ok() {
            while !boundary.held.is_empty() {
                boundary.release_one();
            }
        }
        // After an error the consumer chose to end on, held completions are dropped.
        let Boundary {
            mut held,
            mut spare,
            completions,
            ..
        } = boundary;
        spare.extend(held.drain(..).map(|(_, bytes)| bytes));
        (self.held, self.spare, self.completions) = (held, spare, completions);
        outcome
    }
}

/// The consumer the wrapped engine sees: flips bits and reorders, then passes on.
struct Boundary<'a> {
    inner: &'a mut dyn ReadConsumer,
    plan: &'a FaultPlan,
    counts: &'a Counts,
    held: Vec<(usize, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
    completions: u64,
}

impl Boundary<'_> {
    /// Hands over one held completion, chosen at random.
    fn release_one(&mut self) {
        let draw = bits(self.plan.seed, KIND_ORDER, self.completions, 0, 0);
        let index = (draw % self.held.len() as u64) as usize;
        if index != 0 {
            self.counts.bump(8);
        }
        let (request, bytes) = self.held.remove(index);
        self.inner.complete(request, &bytes);
        self.spare.push(bytes);
    }
}

impl ReadConsumer for Boundary<'_> {
    fn wanted(&mut self, request: usize) -> bool {
        self.inner.wanted(request)
    }

    fn complete(&mut self, request: usize, bytes: &[u8]) {
        self.completions += 1;
        let seed = self.plan.seed;
        let flip = !bytes.is_empty()
            && unit(seed, KIND_FLIP, request as u64, self.completions, 0) < self.plan.flip;
        if !flip && self.plan.reorder_window == 0 {
            return self.inner.complete(request, bytes);
        }
        let mut copy = self.spare.pop().unwrap_or_default();
        copy.clear();
        copy.extend_from_slice(bytes);
        if flip {
            let bit = bits(seed, KIND_FLIP + 100, request as u64, self.completions, 0)
                % (copy.len() as u64 * 8);
            copy[(bit / 8) as usize] ^= 1 << (bit % 8);
            self.counts.bump(7);
        }
        self.held.push((request, copy));
        if self.held.len() > self.plan.reorder_window {
            self.release_one();
        }
    }

    fn failed(&mut self, request: usize, error: IoError) -> Result<(), IoError> {
        self.inner.failed(request, error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::fault::rewrite;

    fn attempt(index: u32, done: u32) -> Attempt {
        Attempt {
            file: 0,
            offset: 8192,
            len: 8192,
            done,
            index,
            align: 4096,
            file_size: 1 << 20,
        }
    }

    fn injector(plan: FaultPlan) -> Injector {
        Injector {
            plan: Arc::new(plan),
            counts: Arc::new(Counts::default()),
            batches: Arc::new(AtomicU64::new(0)),
        }
    }

    #[test]
    fn decisions_are_deterministic_and_follow_the_rates() {
        let plan = FaultPlan {
            interrupted: 0.5,
            ..FaultPlan::clean(9)
        };
        let a = injector(plan.clone());
        let b = injector(plan);
        let mut interrupted = 0;
        for offset in 0..2000u64 {
            let at = Attempt {
                offset: offset * 4096,
                file_size: 1 << 40,
                ..attempt(0, 0)
            };
            let first = a.rewrite(&at, AttemptResult::Bytes(8192));
            assert_eq!(first, b.rewrite(&at, AttemptResult::Bytes(8192)));
            interrupted += u32::from(first == AttemptResult::Errno(libc::EINTR));
        }
        assert!((900..1100).contains(&interrupted), "{interrupted}");
        assert_eq!(a.counts.snapshot().interrupted, interrupted as u64);
    }

    #[test]
    fn transient_faults_stop_within_the_retry_bounds() {
        let plan = FaultPlan {
            io_error: 1.0,
            ..FaultPlan::clean(1)
        };
        let hook = injector(plan);
        let results: Vec<_> = (0..4)
            .map(|index| hook.rewrite(&attempt(index, 0), AttemptResult::Bytes(8192)))
            .collect();
        assert_eq!(results[0], AttemptResult::Errno(libc::EIO));
        assert_eq!(results[1], AttemptResult::Errno(libc::EIO));
        assert_eq!(results[2], AttemptResult::Bytes(8192));
        let plan = FaultPlan {
            interrupted: 1.0,
            ..FaultPlan::clean(1)
        };
        let hook = injector(plan);
        let late = attempt(TRANSIENT_ATTEMPTS_MAX, 0);
        assert_eq!(
            hook.rewrite(&late, AttemptResult::Bytes(8192)),
            AttemptResult::Bytes(8192)
        );
    }

    #[test]
    fn bad_pages_fail_every_attempt_and_are_predicted() {
        let plan = FaultPlan {
            bad_pages: vec![(0, 12_000)],
            ..FaultPlan::clean(3)
        };
        assert!(plan.fails(0, 8192, 8192, 1 << 20));
        assert!(!plan.fails(0, 0, 8192, 1 << 20));
        assert!(!plan.fails(1, 8192, 8192, 1 << 20));
        let hook = injector(plan);
        for index in 0..10 {
            assert_eq!(
                hook.rewrite(&attempt(index, 0), AttemptResult::Bytes(8192)),
                AttemptResult::Errno(libc::EIO)
            );
        }
    }

    #[test]
    fn a_hook_cannot_invent_bytes() {
        struct Liar;
        impl FaultHook for Liar {
            fn rewrite(&self, _: &Attempt, _: AttemptResult) -> AttemptResult {
                AttemptResult::Bytes(1 << 20)
            }
        }
        let at = attempt(0, 0);
        assert_eq!(
            rewrite(Some(&Liar), &at, AttemptResult::Bytes(100)),
            AttemptResult::Bytes(100)
        );
        assert_eq!(
            rewrite(Some(&Liar), &at, AttemptResult::Errno(libc::EIO)),
            AttemptResult::Errno(libc::EIO)
        );
        assert_eq!(
            rewrite(None, &at, AttemptResult::Bytes(7)),
            AttemptResult::Bytes(7)
        );
    }

    #[test]
    fn short_reads_are_shorter_and_sometimes_aligned() {
        let plan = FaultPlan::clean(5);
        let (mut aligned, mut unaligned) = (0, 0);
        for offset in 0..200u64 {
            let length = shorter(&plan, &attempt(0, 0), (0, offset, 0), 8192);
            assert!((1..8192).contains(&length));
            if length % 4096 == 0 {
                aligned += 1;
            } else {
                unaligned += 1;
            }
        }
        assert!(aligned > 20 && unaligned > 20, "{aligned} {unaligned}");
    }
}
