//! The pread engine: a pool of threads each issuing blocking `pread` calls, so `threads` reads
//! are in flight at once. Used where io_uring is unavailable (seccomp, sysctl, old kernels)
//! and as the reference semantics of [`ReadEngine::read_batch`].
//!
//! Workers live as long as the engine. A batch is published to all of them; each takes the
//! next request index from a shared counter, reads into a buffer from a shared pool, and sends
//! the filled buffer to the calling thread, which runs the sink and returns the buffer to the
//! pool. Every batch has its own completion channel, so a batch abandoned after an error can
//! never leak completions into the next one.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};

use super::{
    open_files, strictest_alignment, AlignedBuf, DataFile, DirectIo, EngineKind, IoCounters,
    IoError, ReadEngine, ReadRequest,
};

struct Batch {
    requests: Vec<ReadRequest>,
    next: AtomicUsize,
    cancelled: AtomicBool,
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
    jobs: Vec<Sender<Arc<Batch>>>,
    workers: Vec<JoinHandle<()>>,
    free_buffers: Receiver<AlignedBuf>,
    return_buffers: Sender<AlignedBuf>,
    batch: Vec<ReadRequest>,
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
        let mut jobs = Vec::with_capacity(threads);
        let mut workers = Vec::with_capacity(threads);
        for index in 0..threads {
            let (job_sender, job_receiver) = unbounded::<Arc<Batch>>();
            let files = Arc::clone(&files);
            let pool = free_buffers.clone();
            let worker = std::thread::Builder::new()
                .name(format!("bitsift-pread-{index}"))
                .spawn(move || worker_loop(&files, &job_receiver, &pool, memory_align))
                .map_err(|e| IoError::Unavailable {
                    engine: "pread",
                    detail: format!("cannot start worker threads: {e}"),
                })?;
            jobs.push(job_sender);
            workers.push(worker);
        }
        Ok(PreadEngine {
            files,
            offset_align,
            jobs,
            workers,
            free_buffers,
            return_buffers,
            batch: Vec::new(),
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
    jobs: &Receiver<Arc<Batch>>,
    pool: &Receiver<AlignedBuf>,
    memory_align: usize,
) {
    while let Ok(batch) = jobs.recv() {
        loop {
            if batch.cancelled.load(Ordering::Relaxed) {
                break;
            }
            let index = batch.next.fetch_add(1, Ordering::Relaxed);
            let Some(&request) = batch.requests.get(index) else {
                break;
            };
            let len = request.len as usize;
            let mut buffer = match pool.try_recv() {
                Ok(buffer) if buffer.len() >= len => buffer,
                _ => AlignedBuf::zeroed(len.next_multiple_of(memory_align), memory_align),
            };
            let file = &files[request.file as usize];
            let result = if request.offset >= file.size {
                Err(IoError::UnexpectedEnd {
                    path: file.path.clone(),
                    offset: request.offset,
                    size: file.size,
                })
            } else {
                file.read_full_at(&mut buffer.as_mut_slice()[..len], request.offset)
                    .map_err(|source| IoError::Read {
                        path: file.path.clone(),
                        offset: request.offset,
                        len: len as u64,
                        source,
                    })
                    .and_then(|got| {
                        if got < len && request.offset + (got as u64) < file.size {
                            Err(IoError::UnexpectedEnd {
                                path: file.path.clone(),
                                offset: request.offset + got as u64,
                                size: file.size,
                            })
                        } else {
                            Ok(got)
                        }
                    })
            };
            let completion = Completion {
                request: index,
                buffer,
                result,
            };
            if batch.done.send(completion).is_err() {
                break;
            }
        }
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
        sink: &mut dyn FnMut(usize, &[u8]),
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        if requests.is_empty() {
            return Ok(());
        }
        self.batch.clear();
        self.batch.extend_from_slice(requests);
        let (done, completions) = unbounded();
        let batch = Arc::new(Batch {
            requests: std::mem::take(&mut self.batch),
            next: AtomicUsize::new(0),
            cancelled: AtomicBool::new(false),
            done,
        });
        let wanted = self.jobs.len().min(requests.len());
        for job in &self.jobs[..wanted] {
            job.send(Arc::clone(&batch))
                .map_err(|_| IoError::Unavailable {
                    engine: "pread",
                    detail: "a worker thread has exited".into(),
                })?;
        }
        let mut outcome = Ok(());
        for _ in 0..requests.len() {
            let waited = Instant::now();
            let Ok(completion) = completions.recv() else {
                outcome = Err(IoError::Unavailable {
                    engine: "pread",
                    detail: "worker threads stopped before the batch was done".into(),
                });
                break;
            };
            counters.io_wait += waited.elapsed();
            counters.read_requests += 1;
            match completion.result {
                Ok(got) => {
                    counters.bytes_read += got as u64;
                    sink(completion.request, &completion.buffer.as_slice()[..got]);
                    let _ = self.return_buffers.try_send(completion.buffer);
                }
                Err(e) => {
                    batch.cancelled.store(true, Ordering::Relaxed);
                    outcome = Err(e);
                    break;
                }
            }
        }
        drop(completions);
        // Reuse the request vector's allocation once every worker has let go of the batch.
        if let Ok(batch) = Arc::try_unwrap(batch) {
            self.batch = batch.requests;
        }
        outcome
    }
}

impl Drop for PreadEngine {
    fn drop(&mut self) {
        self.jobs.clear();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
        // Buffers left in the pool are freed with the channel.
        while self.free_buffers.try_recv().is_ok() {}
    }
}
