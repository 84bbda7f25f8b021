//! The pread engine: a pool of threads each issuing blocking `pread` calls, so `threads` reads
//! are in flight at once. Used where io_uring is unavailable (seccomp, sysctl, old kernels)
//! and as the reference semantics of [`ReadEngine::read_batch`].
//!
//! The calling thread dispatches: it keeps up to `threads` requests queued for the workers,
//! asking the consumer before each one whether it is still wanted, and runs the consumer on
//! every completion. Workers live as long as the engine; each reads into a buffer from a
//! shared pool and sends it back with the result. Every batch has its own completion
//! channel, and a batch that ends early still waits for the reads it handed out, so no
//! worker is busy with an old batch when the next starts.
//!
//! A worker retries each read within the [bounds](super::retry) every engine shares: short
//! reads continue, `EINTR`/`EAGAIN`/`EIO` are retried a bounded number of times, an empty read
//! inside the file is tried once more. A read that still fails goes to
//! [`ReadBatch::failed`], and the batch goes on unless the consumer says otherwise.

use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};

use super::fault::{self, Attempt, FaultHook};
use super::retry::{attempt_of, Progress, Step};
use super::{
    inside, open_files, strictest_alignment, AlignedBuf, DataFile, DirectIo, EngineKind, IoError,
    ReadBatch, ReadEngine, ReadRequest, ReadShape,
};

struct Job {
    request: usize,
    read: ReadRequest,
    hook: Option<Arc<dyn FaultHook>>,
    done: Sender<Completion>,
}

struct Completion {
    request: usize,
    buffer: AlignedBuf,
    /// Bytes delivered, or why the read failed.
    result: Result<usize, IoError>,
    /// Read calls made (more than one after retries).
    calls: u64,
}

/// A pool of pread workers; see the module documentation.
pub(crate) struct PreadEngine {
    files: Arc<Vec<DataFile>>,
    offset_align: u64,
    threads: usize,
    jobs: Option<Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
    return_buffers: Sender<AlignedBuf>,
    hook: Option<Arc<dyn FaultHook>>,
}

impl PreadEngine {
    /// Opens `paths` and starts `threads` workers.
    pub(crate) fn open(paths: &[PathBuf], threads: u32, direct: DirectIo) -> Result<Self, IoError> {
        let threads = threads.clamp(1, 256) as usize;
        let files = open_files(paths, direct, "pread")?;
        let (offset_align, memory_align) = strictest_alignment(&files);
        let memory_align = memory_align.max(4096);
        let files = Arc::new(files);
        let (return_buffers, free_buffers) = bounded(2 * threads);
        let (jobs, job_queue) = bounded::<Job>(threads);
        let mut workers = Vec::with_capacity(threads);
        for index in 0..threads {
            let files = Arc::clone(&files);
            let pool = free_buffers.clone();
            let queue = job_queue.clone();
            let worker = std::thread::Builder::new()
                .name(format!("bitsift-pread-{index}"))
                .spawn(move || worker_loop(&files, &queue, &pool, memory_align))
                .map_err(|e| IoError::Unavailable {
                    engine: "pread",
                    detail: format!("cannot start worker threads: {e}"),
                })?;
            workers.push(worker);
        }
        Ok(PreadEngine {
            files,
            offset_align,
            threads,
            jobs: Some(jobs),
            workers,
            return_buffers,
            hook: None,
        })
    }
}

fn worker_loop(
    files: &[DataFile],
    jobs: &Receiver<Job>,
    pool: &Receiver<AlignedBuf>,
    memory_align: usize,
) {
    while let Ok(job) = jobs.recv() {
        let len = job.read.len as usize;
        let mut buffer = match pool.try_recv() {
            Ok(buffer) if buffer.len() >= len => buffer,
            _ => AlignedBuf::zeroed(len.next_multiple_of(memory_align), memory_align),
        };
        let file = &files[job.read.file as usize];
        let (result, calls) = match inside(&file.path, job.read.offset, file.size) {
            Err(error) => (Err(error), 0),
            Ok(()) => read_with_retries(file, &job, &mut buffer.as_mut_slice()[..len]),
        };
        // A closed channel means the batch's caller is gone (it panicked): drop the result.
        let _ = job.done.send(Completion {
            request: job.request,
            buffer,
            result,
            calls,
        });
    }
}

/// A buffered `pread` of `file` (opened on first use), for the rest of an O_DIRECT read that
/// no longer starts on the alignment grid.
fn read_buffered(
    file: &DataFile,
    handle: &mut Option<std::fs::File>,
    buffer: &mut [u8],
    offset: u64,
) -> std::io::Result<usize> {
    let handle = match handle.take() {
        Some(open) => handle.insert(open),
        None => handle.insert(file.reopen_buffered()?),
    };
    handle.read_at(buffer, offset)
}

/// Reads `job` into `buffer` within the retry bounds; the bytes delivered (or the error) and
/// the read calls made.
fn read_with_retries(
    file: &DataFile,
    job: &Job,
    buffer: &mut [u8],
) -> (Result<usize, IoError>, u64) {
    let read = job.read;
    let mut progress = Progress::new(read.len, read.offset, file.size);
    let grid = if file.direct { file.offset_align } else { 1 };
    let mut buffered = None;
    let mut calls = 0;
    let mut via_buffered = false;
    loop {
        let at = read.offset + progress.done as u64;
        let rest = &mut buffer[progress.done as usize..];
        let real = if via_buffered {
            attempt_of(read_buffered(file, &mut buffered, rest, at))
        } else {
            attempt_of(file.file.read_at(rest, at))
        };
        calls += 1;
        let attempt = Attempt::after(&read, &progress, grid, file.size);
        let result = fault::rewrite(job.hook.as_deref(), &attempt, real);
        match progress.step(result, read.offset, grid) {
            Step::Done => return (Ok(progress.done as usize), calls),
            Step::Fail(failure) => {
                let error =
                    failure.to_error(&file.path, read.offset, read.len, progress.done, file.size);
                return (Err(error), calls);
            }
            Step::Again => {}
            Step::Fallback => via_buffered = file.direct,
            Step::After(pause) => std::thread::sleep(pause),
        }
        // Once off the O_DIRECT grid, the rest is read buffered.
        via_buffered |= (read.offset + progress.done as u64) % grid != 0;
    }
}

impl ReadEngine for PreadEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Pread
    }

    fn alignment(&self) -> u64 {
        self.offset_align
    }

    fn read_shape(&self) -> ReadShape {
        ReadShape::local(
            self.files.iter().map(|f| f.path.as_path()),
            self.offset_align,
            self.threads,
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
        let Some(jobs) = self.jobs.as_ref() else {
            return Err(self.stopped());
        };
        let (done, completions) = unbounded();
        let mut next = 0;
        let mut inflight = 0usize;
        let mut halt = None;
        while halt.is_none() {
            while inflight < self.threads && next < batch.requests.len() {
                if batch.wanted(next) {
                    let job = Job {
                        request: next,
                        read: batch.requests[next],
                        hook: self.hook.clone(),
                        done: done.clone(),
                    };
                    if jobs.send(job).is_err() {
                        halt = Some(self.stopped());
                        break;
                    }
                    inflight += 1;
                }
                next += 1;
            }
            if inflight == 0 {
                break;
            }
            let waited = Instant::now();
            let Ok(completion) = completions.recv() else {
                return Err(self.stopped());
            };
            batch.counters.io_wait += waited.elapsed();
            inflight -= 1;
            if let Err(error) = self.deliver(completion, &mut batch) {
                halt = Some(error);
            }
        }
        // Wait for the reads already handed out, so no worker still works for this batch.
        for _ in 0..inflight {
            if completions.recv().is_err() {
                break;
            }
        }
        halt.map_or(Ok(()), Err)
    }

    fn set_fault_hook(&mut self, hook: Option<Arc<dyn FaultHook>>) -> bool {
        self.hook = hook;
        true
    }
}

impl PreadEngine {
    /// Hands one completion to the consumer; the consumer's error, if it ends the batch.
    fn deliver(&self, completion: Completion, batch: &mut ReadBatch<'_>) -> Result<(), IoError> {
        batch.counters.read_requests += completion.calls;
        batch.counters.retries += completion.calls.saturating_sub(1);
        let outcome = match completion.result {
            Ok(got) => {
                batch.complete(completion.request, &completion.buffer.as_slice()[..got]);
                Ok(())
            }
            Err(error) => batch.failed(completion.request, error),
        };
        let _ = self.return_buffers.try_send(completion.buffer);
        outcome
    }

    fn stopped(&self) -> IoError {
        IoError::Unavailable {
            engine: "pread",
            detail: "the worker threads stopped".into(),
        }
    }
}

impl Drop for PreadEngine {
    fn drop(&mut self) {
        // Closing the job queue ends the workers.
        self.jobs = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}
