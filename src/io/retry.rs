//! Bounded retries of one read, shared by every engine: which results are transient, how
//! often each may repeat, and when a read has failed for good.
//!
//! An engine feeds every result of a request (bytes landed, or an errno) to that request's
//! [`Progress`], which answers with a [`Step`]:
//!
//! | result | step |
//! |---|---|
//! | the last bytes | [`Step::Done`] |
//! | a short read | [`Step::Again`] for the rest, or [`Step::Fallback`] when the rest would start off the O_DIRECT grid |
//! | 0 bytes inside the file | [`Step::Fallback`] once (read it another way), then [`Failure::Ended`] |
//! | `EINTR` | [`Step::Again`], up to [`INTERRUPTED_MAX`] times |
//! | `EAGAIN` | [`Step::After`] a growing pause, up to [`AGAIN_MAX`] times |
//! | `EIO` | [`Step::Again`], up to [`IO_ERROR_RETRIES_MAX`] times (a flaky path or cable) |
//! | any other errno | [`Failure::Errno`] at once |
//!
//! Every counter is per request, so one bad page cannot use up the retries of the others, and
//! every loop over a request's attempts ends: each result either makes progress (bounded by
//! the read's length) or spends a bounded retry.

use std::time::Duration;

use super::fault::{Attempt, AttemptResult, FaultHook};
use super::{IoCounters, IoError, ReadRequest};
use std::path::Path;

/// `EINTR` results tolerated per request. A signal storm passes; a read interrupted this
/// often is not going to finish.
pub(crate) const INTERRUPTED_MAX: u32 = 100;
/// `EAGAIN` results tolerated per request, each after a pause twice as long as the last.
pub(crate) const AGAIN_MAX: u32 = 12;
/// The first pause after `EAGAIN`.
const AGAIN_PAUSE_FIRST: Duration = Duration::from_micros(50);
/// The longest pause after `EAGAIN`. With [`AGAIN_MAX`] this gives up after about 50 ms.
const AGAIN_PAUSE_MAX: Duration = Duration::from_millis(10);
/// `EIO` results retried per request before the read fails (a read that fails
/// `IO_ERROR_RETRIES_MAX + 1` times is a bad sector, not a flaky path).
pub(crate) const IO_ERROR_RETRIES_MAX: u32 = 3;
/// Empty results inside the file tolerated per request (each answered by a read another way).
const EMPTY_MAX: u32 = 1;

/// Why a read failed for good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The last errno, after any retries it was allowed.
    Errno(i32),
    /// The file ended before the read did (it shrank while open).
    Ended,
}

/// What to do after a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Every byte the read wants has landed.
    Done,
    /// Issue the rest of the read again now.
    Again,
    /// Issue the rest again after this pause.
    After(Duration),
    /// Read the rest another way: a buffered `pread`.
    Fallback,
    /// Give up and report the failure.
    Fail(Failure),
}

/// Where one read stands, and the retries it has spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    /// Bytes the read must deliver: its length, cut at the end of the file.
    pub want: u32,
    /// Bytes landed so far.
    pub done: u32,
    /// Results seen so far.
    pub attempts: u32,
    interrupted: u32,
    again: u32,
    io_errors: u32,
    empty: u32,
}

impl Progress {
    /// A read of `len` bytes at `offset` of a file of `file_size` bytes; `offset` lies inside
    /// the file (engines report reads past the end before issuing them).
    pub(crate) fn new(len: u32, offset: u64, file_size: u64) -> Progress {
        assert!(offset < file_size, "a read past the end is never issued");
        let want = (len as u64).min(file_size - offset) as u32;
        Progress {
            want,
            ..Progress::default()
        }
    }

    /// Acts on one result of the read at `offset`. `grid` is the alignment the rest must
    /// start on to be issued the same way (the O_DIRECT alignment, else 1).
    pub(crate) fn step(&mut self, result: AttemptResult, offset: u64, grid: u64) -> Step {
        if self.want == 0 {
            return Step::Done;
        }
        assert!(self.done < self.want, "a finished read got another result");
        self.attempts += 1;
        match result {
            AttemptResult::Bytes(0) => {
                self.empty += 1;
                if self.empty > EMPTY_MAX {
                    Step::Fail(Failure::Ended)
                } else {
                    Step::Fallback
                }
            }
            AttemptResult::Bytes(bytes) => {
                self.done = self.done.saturating_add(bytes).min(self.want);
                if self.done == self.want {
                    Step::Done
                } else if (offset + self.done as u64) % grid.max(1) != 0 {
                    Step::Fallback
                } else {
                    Step::Again
                }
            }
            AttemptResult::Errno(errno) => self.step_error(errno),
        }
    }

    fn step_error(&mut self, errno: i32) -> Step {
        let (count, max) = match errno {
            libc::EINTR => (&mut self.interrupted, INTERRUPTED_MAX),
            libc::EAGAIN => (&mut self.again, AGAIN_MAX),
            libc::EIO => (&mut self.io_errors, IO_ERROR_RETRIES_MAX),
            _ => return Step::Fail(Failure::Errno(errno)),
        };
        *count += 1;
        if *count > max {
            return Step::Fail(Failure::Errno(errno));
        }
        if errno == libc::EAGAIN {
            let doubling = 1u32 << (self.again - 1).min(16);
            Step::After((AGAIN_PAUSE_FIRST * doubling).min(AGAIN_PAUSE_MAX))
        } else {
            Step::Again
        }
    }
}

impl Failure {
    /// The error of a read at `offset` of `len` bytes of `path` (a file of `file_size`
    /// bytes) that failed after `done` bytes had landed.
    pub(crate) fn to_error(
        self,
        path: &Path,
        offset: u64,
        len: u32,
        done: u32,
        file_size: u64,
    ) -> IoError {
        let at = offset + done as u64;
        match self {
            Failure::Errno(errno) => IoError::Read {
                path: path.to_path_buf(),
                offset: at,
                len: len.saturating_sub(done) as u64,
                source: std::io::Error::from_raw_os_error(errno),
            },
            Failure::Ended => IoError::UnexpectedEnd {
                path: path.to_path_buf(),
                offset: at,
                size: file_size,
            },
        }
    }
}

/// Converts a `pread` result into an attempt result.
pub(crate) fn attempt_of(result: std::io::Result<usize>) -> AttemptResult {
    match result {
        Ok(bytes) => AttemptResult::Bytes(u32::try_from(bytes).unwrap_or(u32::MAX)),
        Err(e) => AttemptResult::Errno(e.raw_os_error().unwrap_or(libc::EIO)),
    }
}

/// The attempts of a read served from memory, when a fault hook is installed: each attempt
/// "lands" the rest of the read, the hook may rewrite that, and the same bounded retries as
/// for a real read apply. Without a hook a copy out of memory cannot fail, and this returns
/// at once.
pub(crate) fn settle_in_memory(
    hook: Option<&dyn FaultHook>,
    mut attempt: Attempt,
    counters: &mut IoCounters,
) -> Result<(), Failure> {
    let Some(hook) = hook else {
        return Ok(());
    };
    let mut progress = Progress::new(attempt.len, attempt.offset, attempt.file_size);
    loop {
        (attempt.done, attempt.index) = (progress.done, progress.attempts);
        let real = AttemptResult::Bytes(progress.want - progress.done);
        let result = super::fault::rewrite(Some(hook), &attempt, real);
        match progress.step(result, attempt.offset, 1) {
            Step::Done => return Ok(()),
            Step::Fail(failure) => return Err(failure),
            Step::Again | Step::Fallback => {}
            Step::After(pause) => std::thread::sleep(pause),
        }
        counters.retries += 1;
    }
}

impl Attempt {
    /// The attempt at `read`, of a file of `file_size` bytes on a grid of `align`, that
    /// follows `progress` (here, so that the fault hook's types need nothing of retries).
    pub(crate) fn after(
        read: &ReadRequest,
        progress: &Progress,
        align: u64,
        file_size: u64,
    ) -> Self {
        Attempt {
            file: read.file,
            offset: read.offset,
            len: read.len,
            done: progress.done,
            index: progress.attempts,
            align,
            file_size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AttemptResult::{Bytes, Errno};

    #[test]
    fn a_read_past_the_end_of_the_file_wants_only_what_is_there() {
        assert_eq!(Progress::new(4096, 8192, 10_000).want, 1808);
        assert_eq!(Progress::new(4096, 0, 10_000).want, 4096);
    }

    #[test]
    fn short_reads_continue_on_the_grid_and_fall_back_off_it() {
        let mut progress = Progress::new(8192, 0, 1 << 20);
        assert_eq!(progress.step(Bytes(4096), 0, 4096), Step::Again);
        assert_eq!(progress.step(Bytes(100), 0, 4096), Step::Fallback);
        assert_eq!(progress.step(Bytes(3996), 0, 4096), Step::Done);
        assert_eq!(progress.done, 8192);
        assert_eq!(progress.attempts, 3);
    }

    #[test]
    fn a_read_of_nothing_is_done_at_once() {
        let mut progress = Progress::new(0, 0, 100);
        assert_eq!(progress.step(Bytes(0), 0, 4096), Step::Done);
    }

    #[test]
    fn one_empty_read_falls_back_and_a_second_fails() {
        let mut progress = Progress::new(4096, 0, 1 << 20);
        assert_eq!(progress.step(Bytes(0), 0, 1), Step::Fallback);
        assert_eq!(progress.step(Bytes(0), 0, 1), Step::Fail(Failure::Ended));
    }

    #[test]
    fn every_transient_errno_is_bounded() {
        for (errno, max) in [
            (libc::EINTR, INTERRUPTED_MAX),
            (libc::EAGAIN, AGAIN_MAX),
            (libc::EIO, IO_ERROR_RETRIES_MAX),
        ] {
            let mut progress = Progress::new(4096, 0, 1 << 20);
            for _ in 0..max {
                assert!(
                    matches!(
                        progress.step(Errno(errno), 0, 1),
                        Step::Again | Step::After(_)
                    ),
                    "errno {errno}"
                );
            }
            assert_eq!(
                progress.step(Errno(errno), 0, 1),
                Step::Fail(Failure::Errno(errno))
            );
        }
        let mut progress = Progress::new(4096, 0, 1 << 20);
        assert_eq!(
            progress.step(Errno(libc::EBADF), 0, 1),
            Step::Fail(Failure::Errno(libc::EBADF))
        );
    }

    #[test]
    fn eagain_waits_longer_each_time_up_to_a_cap() {
        let mut progress = Progress::new(4096, 0, 1 << 20);
        let mut last = Duration::ZERO;
        let mut total = Duration::ZERO;
        for _ in 0..AGAIN_MAX {
            let Step::After(pause) = progress.step(Errno(libc::EAGAIN), 0, 1) else {
                panic!("EAGAIN must pause");
            };
            assert!(pause >= last && pause <= AGAIN_PAUSE_MAX);
            last = pause;
            total += pause;
        }
        assert!(total < Duration::from_millis(100), "{total:?}");
    }

    #[test]
    fn the_error_names_the_failed_part() {
        let error =
            Failure::Errno(libc::EIO).to_error(Path::new("x.idx"), 4096, 8192, 4096, 1 << 20);
        assert_eq!(
            error.to_string(),
            "x.idx: read of 4096 bytes at offset 8192 failed: Input/output error (os error 5)"
        );
        let error = Failure::Ended.to_error(Path::new("x.idx"), 4096, 4096, 0, 5000);
        assert!(error
            .to_string()
            .contains("ended at 5000 bytes, before offset 4096"));
    }
}
