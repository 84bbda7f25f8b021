//! The pread engine: a pool of threads each issuing blocking `pread` calls, so `threads` reads
//! are in flight at once. Used where io_uring is unavailable (seccomp, sysctl, old kernels)
//! and as the reference semantics of [`ReadEngine::read_batch`].
//!
//! The calling thread dispatches: it keeps up to `threads` requests queued for the workers,
//! asking the consumer before each one whether it is still wanted, and runs the consumer on
//! every completion. Workers live as long as the engine; each reads into a buffer from a
//! shared pool and sends it back with the result. Every batch has its own completion
//! channel, so a batch abandoned after an error can never leak completions into the next.

use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};

use super::{
    open_files, strictest_alignment, AlignedBuf, DataFile, DirectIo, EngineKind, IoCounters,
    IoError, ReadConsumer, ReadEngine, ReadRequest,
};

struct Job {
    request: usize,
    read: ReadRequest,
    done: Sender<Completion>,
}

struct Completion {
    request: usize,
    buffer: AlignedBuf,
    result: Result<usize, IoError>,
}

/// A pool of pread workers; see the module documentation.
pub struct PreadEngine {
    files: Arc<Vec<DataFile>>,
    offset_align: u64,
    threads: usize,
    jobs: Option<Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
    return_buffers: Sender<AlignedBuf>,
    fallback: Option<String>,
}

impl PreadEngine {
    /// Opens `paths` and starts `threads` workers.
    pub fn open(paths: &[PathBuf], threads: u32, direct: DirectIo) -> Result<Self, IoError> {
        let threads = threads.clamp(1, 256) as usize;
        let (files, fallback) = open_files(paths, direct, "pread")?;
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
            fallback,
        })
    }

    /// Why O_DIRECT is not used, when it was wanted but the file system refused it.
    pub fn direct_fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
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
        let offset = job.read.offset;
        let result = if offset >= file.size {
            Err(IoError::UnexpectedEnd {
                path: file.path.clone(),
                offset,
                size: file.size,
            })
        } else {
            match file.read_full_at(&mut buffer.as_mut_slice()[..len], offset) {
                Err(source) => Err(IoError::Read {
                    path: file.path.clone(),
                    offset,
                    len: len as u64,
                    source,
                }),
                Ok(got) if got < len && offset + (got as u64) < file.size => {
                    Err(IoError::UnexpectedEnd {
                        path: file.path.clone(),
                        offset: offset + got as u64,
                        size: file.size,
                    })
                }
                Ok(got) => Ok(got),
            }
        };
        // A closed channel means the batch was abandoned after an error: drop the result.
        let _ = job.done.send(Completion {
            request: job.request,
            buffer,
            result,
        });
    }
}

impl ReadEngine for PreadEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Pread
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
        let jobs = self.jobs.as_ref().expect("engine in use");
        let (done, completions) = unbounded();
        let mut next = 0;
        let mut inflight = 0usize;
        loop {
            while inflight < self.threads && next < requests.len() {
                if consumer.wanted(next) {
                    let job = Job {
                        request: next,
                        read: requests[next],
                        done: done.clone(),
                    };
                    jobs.send(job).map_err(|_| IoError::Unavailable {
                        engine: "pread",
                        detail: "the worker threads have exited".into(),
                    })?;
                    inflight += 1;
                } else {
                    counters.skipped += 1;
                }
                next += 1;
            }
            if inflight == 0 {
                return Ok(());
            }
            let waited = Instant::now();
            let completion = completions.recv().map_err(|_| IoError::Unavailable {
                engine: "pread",
                detail: "the worker threads stopped before the batch was done".into(),
            })?;
            counters.io_wait += waited.elapsed();
            counters.read_requests += 1;
            inflight -= 1;
            let got = completion.result?;
            counters.bytes_read += got as u64;
            consumer.complete(completion.request, &completion.buffer.as_slice()[..got]);
            let _ = self.return_buffers.try_send(completion.buffer);
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
