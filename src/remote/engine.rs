//! [`RemoteEngine`]: a [`ReadEngine`] over remote files. Every request of a batch becomes a
//! range request (or a read of the local cache), up to the configured depth in flight at
//! once on the remote runtime; completions come back to the calling thread, which runs the
//! consumer, in completion order, as with the other engines.
//!
//! Failures: the client retries server errors, timeouts and dropped connections with
//! backoff within a deadline (`object_store`'s retry policy); what still fails is reported
//! to the consumer with the URL and offset. A fault hook sees every response as an attempt,
//! so the shared bounded retries ([`crate::io`]'s retry rules) absorb injected faults here
//! as in the local engines.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use crossbeam_channel::{unbounded, Sender};

use super::client::{spawn, Fetched, RemoteObject};
use crate::io::retry::{Progress, Step};
use crate::io::{
    fault, Attempt, AttemptResult, EngineKind, FaultHook, IoCounters, IoError, ReadConsumer,
    ReadEngine, ReadRequest,
};

/// A [`ReadEngine`] over remote files; see the module documentation.
pub struct RemoteEngine {
    objects: Vec<Arc<RemoteObject>>,
    paths: Vec<PathBuf>,
    depth: usize,
    hook: Option<Arc<dyn FaultHook>>,
}

/// What one read came to.
struct Outcome {
    request: usize,
    result: Result<Bytes, IoError>,
    fetched: Fetched,
    reads: u64,
    retries: u64,
}

impl RemoteEngine {
    /// Opens the remote files `paths` (URLs), keeping `depth` requests in flight.
    pub fn open(paths: &[PathBuf], depth: usize) -> Result<RemoteEngine, IoError> {
        let objects = paths
            .iter()
            .map(|path| {
                RemoteObject::open(&path.to_string_lossy()).map_err(|source| IoError::Open {
                    path: path.clone(),
                    source,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RemoteEngine::from_objects(objects, depth))
    }

    /// An engine over files already opened.
    pub fn from_objects(objects: Vec<Arc<RemoteObject>>, depth: usize) -> RemoteEngine {
        let paths = objects.iter().map(|o| PathBuf::from(&o.url)).collect();
        RemoteEngine {
            objects,
            paths,
            depth: depth.max(1),
            hook: None,
        }
    }

    /// Starts read `request`, which lies inside its file.
    fn issue(
        &self,
        request: usize,
        read: ReadRequest,
        done: &Sender<Outcome>,
    ) -> Result<(), IoError> {
        let object = self.objects[read.file as usize].clone();
        let hook = self.hook.clone();
        let done = done.clone();
        spawn(async move {
            let outcome = read_one(request, read, &object, hook.as_deref()).await;
            let _ = done.send(outcome);
        })
        .map_err(|e| IoError::Unavailable {
            engine: "remote",
            detail: e.to_string(),
        })
    }
}

/// Reads `read` of `object`, retrying what the fault hook makes of each response within the
/// shared retry bounds.
async fn read_one(
    request: usize,
    read: ReadRequest,
    object: &RemoteObject,
    hook: Option<&dyn FaultHook>,
) -> Outcome {
    // The path is made only for an error: nothing is allocated for it per read.
    let path = || PathBuf::from(&object.url);
    let mut progress = Progress::new(read.len, read.offset, object.size);
    let mut outcome = Outcome {
        request,
        result: Ok(Bytes::new()),
        fetched: Fetched::default(),
        reads: 0,
        retries: 0,
    };
    let mut landed = BytesMut::new();
    loop {
        let start = read.offset + progress.done as u64;
        let end = read.offset + progress.want as u64;
        outcome.reads += 1;
        let bytes = match object.fetch(start..end).await {
            Ok((bytes, fetched)) => {
                outcome.fetched.requests += fetched.requests;
                outcome.fetched.bytes += fetched.bytes;
                outcome.fetched.elapsed += fetched.elapsed;
                bytes
            }
            Err(source) => {
                // The request was sent (a cache hit cannot fail) and failed.
                outcome.fetched.requests += 1;
                outcome.result = Err(IoError::Read {
                    path: path(),
                    offset: start,
                    len: end - start,
                    source,
                });
                return outcome;
            }
        };
        let attempt = Attempt {
            file: read.file,
            offset: read.offset,
            len: read.len,
            done: progress.done,
            index: progress.attempts,
            align: 1,
            file_size: object.size,
        };
        let result = fault::rewrite(hook, &attempt, AttemptResult::Bytes(bytes.len() as u32));
        if let AttemptResult::Bytes(count) = result {
            if progress.done == 0 && count as usize == bytes.len() {
                outcome.result = Ok(bytes.clone());
            } else {
                landed.extend_from_slice(&bytes[..count as usize]);
            }
        }
        match progress.step(result, read.offset, 1) {
            Step::Done => {
                if !landed.is_empty() {
                    outcome.result = Ok(std::mem::take(&mut landed).freeze());
                }
                return outcome;
            }
            Step::Again | Step::Fallback => outcome.retries += 1,
            Step::After(pause) => {
                outcome.retries += 1;
                tokio::time::sleep(pause).await;
            }
            Step::Fail(failure) => {
                let error =
                    failure.to_error(&path(), read.offset, read.len, progress.done, object.size);
                outcome.result = Err(error);
                return outcome;
            }
        }
    }
}

impl ReadEngine for RemoteEngine {
    fn kind(&self) -> EngineKind {
        EngineKind::Remote
    }

    fn alignment(&self) -> u64 {
        1
    }

    fn direct(&self) -> bool {
        false
    }

    fn file_count(&self) -> usize {
        self.objects.len()
    }

    fn file_size(&self, file: u32) -> u64 {
        self.objects[file as usize].size
    }

    fn read_batch(
        &mut self,
        requests: &[ReadRequest],
        consumer: &mut dyn ReadConsumer,
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        let (done, completions) = unbounded::<Outcome>();
        let (mut next, mut in_flight) = (0usize, 0usize);
        let mut ended: Option<IoError> = None;
        loop {
            while ended.is_none() && in_flight < self.depth && next < requests.len() {
                let (request, read) = (next, requests[next]);
                next += 1;
                if !consumer.wanted(request) {
                    counters.skipped += 1;
                    continue;
                }
                let size = self.file_size(read.file);
                if read.len == 0 {
                    // Counted as a read, as the other engines do; nothing is sent.
                    counters.read_requests += 1;
                    consumer.complete(request, &[]);
                } else if read.offset >= size {
                    let error = IoError::UnexpectedEnd {
                        path: self.paths[read.file as usize].clone(),
                        offset: read.offset,
                        size,
                    };
                    ended = consumer.failed(request, error).err();
                } else {
                    self.issue(request, read, &done)?;
                    in_flight += 1;
                }
            }
            if in_flight == 0 {
                break;
            }
            let waited = Instant::now();
            let outcome = completions.recv().map_err(|_| IoError::Unavailable {
                engine: "remote",
                detail: "the remote client runtime stopped".into(),
            })?;
            counters.io_wait += waited.elapsed();
            in_flight -= 1;
            count(counters, &outcome);
            if ended.is_some() {
                continue;
            }
            match outcome.result {
                Ok(bytes) => {
                    counters.bytes_read += bytes.len() as u64;
                    consumer.complete(outcome.request, &bytes);
                }
                Err(error) => ended = consumer.failed(outcome.request, error).err(),
            }
        }
        ended.map_or(Ok(()), Err)
    }

    fn set_fault_hook(&mut self, hook: Option<Arc<dyn FaultHook>>) -> bool {
        self.hook = hook;
        true
    }
}

/// Adds what one read cost to `counters`.
fn count(counters: &mut IoCounters, outcome: &Outcome) {
    counters.read_requests += outcome.reads;
    counters.retries += outcome.retries;
    counters.remote_requests += outcome.fetched.requests;
    counters.remote_bytes += outcome.fetched.bytes;
    counters.remote_time += outcome.fetched.elapsed;
    counters.remote_cache_hits += outcome.reads - outcome.fetched.requests.min(outcome.reads);
}

/// An engine over copies of `paths` in an in-memory object store, for the conformance
/// suite: the remote engine's batching, retries and checks without a server.
#[cfg(test)]
pub(crate) fn in_memory(paths: &[PathBuf], depth: usize) -> RemoteEngine {
    use object_store::memory::InMemory;
    use object_store::ObjectStore;
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let objects = paths
        .iter()
        .enumerate()
        .map(|(n, path)| {
            let bytes = std::fs::read(path).expect("test file");
            let url = format!("memory://test/{}", path.display());
            let key = object_store::path::Path::from(format!("file{n}"));
            RemoteObject::in_store(&url, store.clone(), key, bytes).expect("in-memory object")
        })
        .collect();
    RemoteEngine::from_objects(objects, depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::conformance::{two_files, Outcomes};

    #[test]
    fn a_file_changed_in_the_store_fails_its_reads_and_never_mixes_versions() {
        let dir = tempfile::tempdir().unwrap();
        let paths = two_files(dir.path());
        let mut engine = in_memory(&paths, 4);
        let requests: Vec<ReadRequest> = (0..8)
            .map(|i| ReadRequest {
                file: 0,
                offset: i * 8192,
                len: 4096,
            })
            .collect();
        let mut before = Outcomes::new(requests.len());
        engine
            .read_batch(&requests, &mut before, &mut IoCounters::default())
            .unwrap();
        assert!(before.failed.iter().all(Option::is_none));
        let size = engine.file_size(0) as usize;
        engine.objects[0].replace_in_store(vec![0u8; size]).unwrap();
        let mut after = Outcomes::new(requests.len());
        let mut counters = IoCounters::default();
        engine
            .read_batch(&requests, &mut after, &mut counters)
            .unwrap();
        for (index, failure) in after.failed.iter().enumerate() {
            let failure = failure
                .as_deref()
                .unwrap_or_else(|| panic!("request {index} answered from the changed file"));
            assert!(failure.contains("changed on the server"), "{failure}");
            assert!(after.completed[index].is_none());
        }
        assert_eq!(counters.remote_requests, requests.len() as u64);
    }
}
