//! The synchronous variants: `threads` threads, each with one aligned buffer, each reading
//! one block at a time at a random offset until the run's time is up. A read is either a
//! `pread` (buffered or O_DIRECT, by how the file was opened) or a copy out of a memory map,
//! which takes the page faults a COBS query takes.

use std::fs::File;
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;
use std::time::Instant;

use super::rng::{stream_seed, SplitMix64};
use super::stats::{RunPlan, RunStats};
use super::IobenchError;
use crate::io::AlignedBuf;

/// Consecutive `EINTR`/`EAGAIN`/short results tolerated for one read before giving up.
const RETRIES_PER_READ_MAX: u32 = 1000;

/// Where the synchronous reads come from.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// `pread` on a descriptor (buffered or O_DIRECT).
    File(&'a File),
    /// Copies out of a read-only mapping of the whole file.
    Map(&'a [u8]),
}

/// Runs `threads` readers for `plan.duration` and merges their counters. The first error
/// stops every thread and is returned.
pub(crate) fn run(
    source: Source<'_>,
    threads: u32,
    plan: &RunPlan,
) -> Result<RunStats, IobenchError> {
    let stop = AtomicBool::new(false);
    // Readers start together: each waits for a read lock that is released once all exist.
    let gate = RwLock::new(());
    std::thread::scope(|scope| {
        let hold = gate.write().unwrap_or_else(|e| e.into_inner());
        let mut workers = Vec::with_capacity(threads as usize);
        let mut spawn_error = None;
        for thread_index in 0..threads {
            let (gate, stop) = (&gate, &stop);
            let spawned = std::thread::Builder::new()
                .name(format!("iobench-{thread_index}"))
                .spawn_scoped(scope, move || {
                    drop(gate.read().unwrap_or_else(|e| e.into_inner()));
                    let result = reader(source, plan, thread_index, stop);
                    if result.is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    result
                });
            match spawned {
                Ok(worker) => workers.push(worker),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    spawn_error = Some(IobenchError::Options(format!(
                        "cannot start {threads} reader threads: {e}"
                    )));
                    break;
                }
            }
        }
        let start = Instant::now();
        drop(hold);
        let mut total = RunStats::default();
        let mut first_error = spawn_error;
        for worker in workers {
            match worker.join() {
                Ok(Ok(stats)) => total.merge(&stats),
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        total.elapsed = start.elapsed();
        first_error.map_or(Ok(total), Err)
    })
}

/// One reader thread.
fn reader(
    source: Source<'_>,
    plan: &RunPlan,
    thread_index: u32,
    stop: &AtomicBool,
) -> Result<RunStats, IobenchError> {
    let mut stats = RunStats::default();
    if stop.load(Ordering::Relaxed) {
        return Ok(stats);
    }
    let block_bytes = plan.block_bytes as usize;
    let mut buffer = AlignedBuf::zeroed(block_bytes, plan.memory_align);
    let buffer = &mut buffer.as_mut_slice()[..block_bytes];
    let mut rng = SplitMix64::new(stream_seed(plan.seed, thread_index as u64));
    let deadline = Instant::now() + plan.duration;
    loop {
        let started = Instant::now();
        if started >= deadline || stop.load(Ordering::Relaxed) {
            return Ok(stats);
        }
        let offset = rng.below(plan.block_count) * plan.block_bytes;
        match source {
            Source::File(file) => read_block(file, buffer, offset, plan, &mut stats.retries)?,
            Source::Map(map) => buffer.copy_from_slice(&map[offset as usize..][..block_bytes]),
        }
        let latency_ns = started.elapsed().as_nanos() as u64;
        stats.complete(plan, offset, buffer, latency_ns)?;
    }
}

/// `pread`s the whole block, resuming short reads and retrying `EINTR`/`EAGAIN` (a bounded
/// number of times). A read that returns 0 inside the file means it shrank.
fn read_block(
    file: &File,
    buffer: &mut [u8],
    offset: u64,
    plan: &RunPlan,
    retries: &mut u64,
) -> Result<(), IobenchError> {
    let mut done = 0;
    let mut attempts = 0;
    while done < buffer.len() {
        let at = offset + done as u64;
        let remaining = (buffer.len() - done) as u64;
        attempts += 1;
        if attempts > RETRIES_PER_READ_MAX {
            let source = std::io::Error::other("no progress after 1000 attempts");
            return Err(plan.read_error(at, remaining, source));
        }
        match file.read_at(&mut buffer[done..], at) {
            Ok(0) => {
                let source = std::io::Error::new(
                    ErrorKind::UnexpectedEof,
                    "the file ended; was it truncated while in use?",
                );
                return Err(plan.read_error(at, remaining, source));
            }
            Ok(got) => {
                done += got;
                if done < buffer.len() {
                    *retries += 1;
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::Interrupted | ErrorKind::WouldBlock) => {
                *retries += 1;
            }
            Err(e) => return Err(plan.read_error(at, remaining, e)),
        }
    }
    Ok(())
}
