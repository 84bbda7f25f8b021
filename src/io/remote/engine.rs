//! [`RemoteEngine`]: a [`ReadEngine`] over remote files. The reads of a batch become range
//! requests (or reads of the local cache), as many in flight at once on the remote runtime
//! as the servers' windows allow (adapted to how each answers, see [`super::window`]) and
//! never more than the configured depth; completions come back to the calling thread, which runs the consumer,
//! in completion order, as with the other engines.
//!
//! Where a file's server takes multi-range requests (HTTP; learnt from the first one, see
//! [`super::multirange`]), consecutive reads of the file go out as one request of up to
//! `ranges` ranges ([`crate::io::EngineOptions::remote_ranges`]) and [`GROUP_BYTES_MAX`]
//! bytes: the batch's reads spread evenly over the requests the depth allows, so a batch of
//! thousands of reads takes one round of requests instead of one per `depth` reads. Pages in
//! the local cache are not asked for; fetched ones are stored. While a file's first
//! multi-range request is in flight, its other reads go as single ranges.
//!
//! Failures: the client retries server errors, timeouts and dropped connections with
//! backoff within a deadline (`object_store`'s retry policy); what still fails is reported
//! to the consumer with the URL and offset. A fault hook sees every response as an attempt,
//! so the shared bounded retries ([`crate::io`]'s retry rules) absorb injected faults here
//! as in the local engines.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use crossbeam_channel::{unbounded, Sender};

use super::client::{spawn, Fetched, RemoteObject};
use super::multirange::{self, Fetch, Support, Transport};
use super::window::Window;
use crate::io::retry::{Progress, Step};
use crate::io::{
    fault, inside, Attempt, AttemptResult, EngineKind, FaultHook, IoCounters, IoError, ReadBatch,
    ReadEngine, ReadRequest, ReadShape,
};

/// Bytes one multi-range request asks for at most (the planner's largest remote read).
pub(crate) const GROUP_BYTES_MAX: u64 = 8 << 20;
/// The longest `Range` header a group may need: servers refuse longer header lines (nginx
/// answers 400 past its 8 KiB `large_client_header_buffers`, Apache past 8,190 bytes), so a
/// group of small reads far apart stops here whatever `ranges` allows.
pub(crate) const RANGE_HEADER_BYTES_MAX: usize = 4000;

/// The bytes `start-end,` takes in a `Range` header for a read of `len` bytes at `offset`.
fn range_spec_bytes(offset: u64, len: u32) -> usize {
    let digits = |n: u64| n.checked_ilog10().map_or(1, |d| d as usize + 1);
    digits(offset) + digits(offset + (u64::from(len).max(1) - 1)) + 2
}

/// A [`ReadEngine`] over remote files; see the module documentation.
pub(crate) struct RemoteEngine {
    objects: Vec<Arc<RemoteObject>>,
    /// Each file's multi-range transport, for files whose server may take them.
    transports: Vec<Option<Arc<dyn Transport>>>,
    paths: Vec<PathBuf>,
    /// Requests in flight at most; fewer while the servers' windows are smaller.
    depth: usize,
    /// The windows of the files' servers, each once.
    windows: Vec<Arc<Window>>,
    /// Ranges one request may ask for at most.
    ranges: usize,
    hook: Option<Arc<dyn FaultHook>>,
}

/// What one read came to.
struct Outcome {
    request: usize,
    result: Result<Bytes, IoError>,
    fetched: Fetched,
    reads: u64,
    retries: u64,
    cache_hits: u64,
}

/// What a task (one request, or one multi-range request and its reads) tells the engine.
enum Message {
    /// One read done.
    Read(Outcome),
    /// The task ended, its multi-range request having cost this.
    Ended(Fetched),
}

/// A read's first bytes, when its task got them for it.
enum Prefetched {
    /// Nothing: the read fetches its range itself.
    No,
    /// From the local cache.
    Cached(Bytes),
    /// From a multi-range answer.
    Fetched(Bytes),
    /// The multi-range request failed so.
    Failed(std::io::Error),
}

impl RemoteEngine {
    /// Opens the remote files `paths` (URLs), keeping `depth` requests in flight, each asking
    /// for `ranges` byte ranges at most.
    pub(crate) fn open(
        paths: &[PathBuf],
        depth: usize,
        ranges: usize,
    ) -> Result<RemoteEngine, IoError> {
        let objects = paths
            .iter()
            .map(|path| {
                RemoteObject::open(&path.to_string_lossy()).map_err(|source| IoError::Open {
                    path: path.clone(),
                    source,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RemoteEngine::from_objects(objects, depth, ranges))
    }

    /// An engine over files already opened.
    pub(crate) fn from_objects(
        objects: Vec<Arc<RemoteObject>>,
        depth: usize,
        ranges: usize,
    ) -> RemoteEngine {
        let transports = objects
            .iter()
            .map(|object| {
                multirange::transport_for(object).unwrap_or_else(|e| {
                    tracing::warn!("{}: single range requests only: {e}", object.url);
                    None
                })
            })
            .collect();
        RemoteEngine::with_transports(objects, transports, depth, ranges)
    }

    fn with_transports(
        objects: Vec<Arc<RemoteObject>>,
        transports: Vec<Option<Arc<dyn Transport>>>,
        depth: usize,
        ranges: usize,
    ) -> RemoteEngine {
        assert_eq!(objects.len(), transports.len());
        let paths = objects.iter().map(|o| PathBuf::from(&o.url)).collect();
        let mut windows: Vec<Arc<Window>> = Vec::new();
        for object in &objects {
            if !windows.iter().any(|w| Arc::ptr_eq(w, &object.window)) {
                windows.push(object.window.clone());
            }
        }
        RemoteEngine {
            objects,
            transports,
            paths,
            depth: depth.max(1),
            windows,
            ranges: ranges.max(1),
            hook: None,
        }
    }

    /// Requests to keep in flight now: as many as the servers' windows allow (the largest,
    /// when the files lie on several), within the configured depth. The requests themselves
    /// wait for room in their server's window; fewer tasks make larger multi-range groups.
    fn depth_now(&self) -> usize {
        let windows = self.windows.iter().map(|w| w.limit()).max();
        windows.unwrap_or(self.depth).clamp(1, self.depth)
    }

    /// How many reads the next request of `file` may carry, `remaining` reads being left in
    /// the batch and `free` requests free: the reads spread evenly over the free requests,
    /// within `ranges`; 1 where the file's server does not (yet) take several.
    fn group_size(&self, file: u32, remaining: usize, free: usize) -> usize {
        let object = &self.objects[file as usize];
        let multi = self.ranges > 1
            && self.transports[file as usize].is_some()
            && matches!(
                multirange::support(&object.url),
                Support::Unknown | Support::Yes
            );
        if !multi {
            return 1;
        }
        remaining.div_ceil(free.max(1)).clamp(1, self.ranges)
    }

    /// The next reads of one file from `requests[*next..]` to go out as one request (empty
    /// when none is wanted); reads of nothing and past the end are answered here, as the
    /// other engines do, `ended` set when the consumer ends the batch.
    fn gather(
        &self,
        batch: &mut ReadBatch<'_>,
        next: &mut usize,
        free: usize,
        ended: &mut Option<IoError>,
    ) -> Vec<(usize, ReadRequest)> {
        let requests = batch.requests;
        let mut group: Vec<(usize, ReadRequest)> = Vec::new();
        let (mut bytes, mut limit, mut header) = (0u64, 1usize, 0usize);
        while ended.is_none() && *next < requests.len() && group.len() < limit {
            let (request, read) = (*next, requests[*next]);
            let spec = range_spec_bytes(read.offset, read.len);
            if let Some((_, first)) = group.first() {
                if read.file != first.file
                    || bytes + u64::from(read.len) > GROUP_BYTES_MAX
                    || header + spec > RANGE_HEADER_BYTES_MAX
                {
                    break;
                }
            }
            *next += 1;
            if !batch.wanted(request) {
                continue;
            }
            let size = self.file_size(read.file);
            let path = &self.paths[read.file as usize];
            if read.len == 0 {
                // Counted as a read, as the other engines do; nothing is sent.
                batch.counters.read_requests += 1;
                batch.complete(request, &[]);
            } else if let Err(error) = inside(path, read.offset, size) {
                *ended = batch.failed(request, error).err();
            } else {
                if group.is_empty() {
                    limit = self.group_size(read.file, requests.len() - request, free);
                }
                bytes += u64::from(read.len);
                header += spec;
                group.push((request, read));
            }
        }
        group
    }

    /// Starts `reads` (of one file, each inside it) as one task: one multi-range request
    /// when there are several and the server takes them, else one request each.
    fn issue(
        &self,
        reads: Vec<(usize, ReadRequest)>,
        done: &Sender<Message>,
    ) -> Result<(), IoError> {
        let file = reads[0].1.file as usize;
        let object = self.objects[file].clone();
        let transport = match &self.transports[file] {
            Some(t) if reads.len() > 1 => {
                let url = &object.url;
                let yes = multirange::support(url) == Support::Yes;
                (yes || multirange::claim_probe(url)).then(|| t.clone())
            }
            _ => None,
        };
        let hook = self.hook.clone();
        let done = done.clone();
        spawn(async move {
            read_group(reads, object, transport, hook, done).await;
        })
        .map_err(|e| IoError::Unavailable {
            engine: "remote",
            detail: e.to_string(),
        })
    }
}

/// Reads `reads` of `object`: their first bytes from the cache or one multi-range request
/// through `transport` (when given), the rest (and every retry) by single ranges, all at
/// once; tells `done` of each read and then of the task's end.
async fn read_group(
    reads: Vec<(usize, ReadRequest)>,
    object: Arc<RemoteObject>,
    transport: Option<Arc<dyn Transport>>,
    hook: Option<Arc<dyn FaultHook>>,
    done: Sender<Message>,
) {
    let (prefetched, fetched) = match transport {
        Some(transport) => prefetch(&reads, &object, transport.as_ref()).await,
        None => (
            reads.iter().map(|_| Prefetched::No).collect(),
            Fetched::default(),
        ),
    };
    let mut set = tokio::task::JoinSet::new();
    for ((request, read), first) in reads.into_iter().zip(prefetched) {
        let (object, hook) = (object.clone(), hook.clone());
        set.spawn(async move { read_one(request, read, &object, hook.as_deref(), first).await });
    }
    while let Some(outcome) = set.join_next().await {
        match outcome {
            Ok(outcome) => {
                let _ = done.send(Message::Read(outcome));
            }
            // A read's task panicked: the engine would wait for it forever; let it fail loudly.
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
    let _ = done.send(Message::Ended(fetched));
}

/// The first bytes of `reads` from the local cache and one multi-range request for the
/// rest, when they lie in two or more separate ranges (pages, with a cache); what the
/// request cost.
async fn prefetch(
    reads: &[(usize, ReadRequest)],
    object: &RemoteObject,
    transport: &dyn Transport,
) -> (Vec<Prefetched>, Fetched) {
    let range = |read: &ReadRequest| read.offset..read.offset + read.len as u64;
    // A read past the end of the file is left to the single-range path, which reports it.
    let inside = |read: &ReadRequest| range(read).end <= object.size;
    let mut prefetched: Vec<Prefetched> = reads
        .iter()
        .map(
            |(_, read)| match super::cache::lookup(object.version(), &range(read)) {
                Some(bytes) => Prefetched::Cached(bytes),
                None => Prefetched::No,
            },
        )
        .collect();
    let missing: Vec<Range<u64>> = reads
        .iter()
        .zip(&prefetched)
        .filter(|((_, read), first)| matches!(first, Prefetched::No) && inside(read))
        .map(|((_, read), _)| super::cache::widen(object.version(), &range(read)))
        .collect();
    let wire = disjoint(missing);
    if wire.len() < 2 {
        // Nothing to ask several ranges for: the probe, if this was one, is still to come.
        multirange::unclaim(&object.url);
        return (prefetched, Fetched::default());
    }
    let (parts, fetched) = match multirange::fetch(object, transport, &wire).await {
        Ok(Fetch::Parts(parts, fetched)) => (parts, fetched),
        Ok(Fetch::Singles(fetched)) => return (prefetched, fetched),
        Err(error) => {
            let failed = crate::io::source::RemoteChanged::copy;
            for ((_, read), first) in reads.iter().zip(&mut prefetched) {
                if matches!(first, Prefetched::No) && inside(read) {
                    *first = Prefetched::Failed(failed(&error));
                }
            }
            // The request was sent and failed.
            let fetched = Fetched {
                requests: 1,
                ..Fetched::default()
            };
            return (prefetched, fetched);
        }
    };
    for (range, bytes) in wire.iter().zip(&parts) {
        super::cache::store(object.version(), range.start, bytes);
    }
    for ((_, read), first) in reads.iter().zip(&mut prefetched) {
        if matches!(first, Prefetched::No) && inside(read) {
            let want = range(read);
            let index = wire.partition_point(|w| w.end < want.end);
            let (within, bytes) = (&wire[index], &parts[index]);
            assert!(within.start <= want.start && want.end <= within.end);
            let from = (want.start - within.start) as usize;
            *first = Prefetched::Fetched(bytes.slice(from..from + read.len as usize));
        }
    }
    (prefetched, fetched)
}

/// `ranges` sorted, with overlapping and adjacent ones merged: what a multi-range request
/// asks for (a server may merge adjacent ranges into one part; none is left to merge).
fn disjoint(mut ranges: Vec<Range<u64>>) -> Vec<Range<u64>> {
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for range in ranges.into_iter().filter(|r| !r.is_empty()) {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// Reads `read` of `object`, its first bytes from `first` when its task got them, retrying
/// what the fault hook makes of each response within the shared retry bounds.
async fn read_one(
    request: usize,
    read: ReadRequest,
    object: &RemoteObject,
    hook: Option<&dyn FaultHook>,
    mut first: Prefetched,
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
        cache_hits: 0,
    };
    let mut landed = BytesMut::new();
    loop {
        let start = read.offset + progress.done as u64;
        let end = read.offset + progress.want as u64;
        outcome.reads += 1;
        // The bytes, what they cost, and whether the local cache gave them.
        let fetched = match std::mem::replace(&mut first, Prefetched::No) {
            Prefetched::Cached(bytes) => Ok((bytes, Fetched::default(), true)),
            // Its request is counted once, by the task.
            Prefetched::Fetched(bytes) => Ok((bytes, Fetched::default(), false)),
            Prefetched::Failed(error) => Err(error),
            Prefetched::No => match object.fetch(start..end).await {
                Ok((bytes, fetched)) => Ok((bytes, fetched, fetched.requests == 0)),
                Err(error) => {
                    // The request was sent (a cache hit cannot fail) and failed.
                    outcome.fetched.requests += 1;
                    Err(error)
                }
            },
        };
        let bytes = match fetched {
            Ok((bytes, fetched, hit)) => {
                outcome.cache_hits += u64::from(hit);
                outcome.fetched.requests += fetched.requests;
                outcome.fetched.bytes += fetched.bytes;
                outcome.fetched.elapsed += fetched.elapsed;
                bytes
            }
            Err(source) => {
                outcome.result = Err(IoError::read(path(), start, end - start, source));
                return outcome;
            }
        };
        let attempt = Attempt::after(&read, &progress, 1, object.size);
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

    fn read_shape(&self) -> ReadShape {
        // Multi-range requests where every file is on an HTTP(S) server (S3 has none) and
        // more than one range a request is allowed.
        let http = |path: &PathBuf| {
            let text = path.to_string_lossy();
            text.starts_with("http://") || text.starts_with("https://")
        };
        let multirange = self.ranges > 1 && self.paths.iter().all(http);
        ReadShape::remote(multirange, 1, self.depth)
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

    fn read_batch(&mut self, mut batch: ReadBatch<'_>) -> Result<(), IoError> {
        let (done, completions) = unbounded::<Message>();
        let (mut next, mut tasks) = (0usize, 0usize);
        let mut ended: Option<IoError> = None;
        loop {
            let depth = self.depth_now();
            while ended.is_none() && tasks < depth && next < batch.requests.len() {
                let free = depth - tasks;
                let group = self.gather(&mut batch, &mut next, free, &mut ended);
                if !group.is_empty() {
                    self.issue(group, &done)?;
                    tasks += 1;
                }
            }
            // A task tells of all its reads before its end.
            if tasks == 0 {
                break;
            }
            let waited = Instant::now();
            let message = completions.recv().map_err(|_| IoError::Unavailable {
                engine: "remote",
                detail: "the remote client runtime stopped".into(),
            })?;
            batch.counters.io_wait += waited.elapsed();
            let outcome = match message {
                Message::Ended(fetched) => {
                    tasks -= 1;
                    count_request(batch.counters, &fetched);
                    continue;
                }
                Message::Read(outcome) => outcome,
            };
            count(batch.counters, &outcome);
            if ended.is_some() {
                continue;
            }
            match outcome.result {
                Ok(bytes) => batch.complete(outcome.request, &bytes),
                Err(error) => ended = batch.failed(outcome.request, error).err(),
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
    counters.remote_cache_hits += outcome.cache_hits;
    count_request(counters, &outcome.fetched);
}

/// Adds what requests cost to `counters`.
fn count_request(counters: &mut IoCounters, fetched: &Fetched) {
    counters.remote_requests += fetched.requests;
    counters.remote_bytes += fetched.bytes;
    counters.remote_time += fetched.elapsed;
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
    RemoteEngine::from_objects(objects, depth, crate::io::REMOTE_RANGES_DEFAULT)
}

/// How the in-memory server of the tests answers multi-range requests.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
pub(crate) enum Serve {
    /// `206`, `multipart/byteranges`, the parts last first.
    Multipart,
    /// `206`, one part from the first asked byte to the last.
    Coalesced,
    /// `200`: the ranges ignored.
    Whole,
}

/// A multi-range server over an in-memory store, for tests: answers are encoded as a server
/// would send them and read by the same parser.
#[cfg(test)]
struct MemoryTransport {
    store: Arc<dyn object_store::ObjectStore>,
    key: object_store::path::Path,
    serve: Serve,
}

#[cfg(test)]
impl Transport for MemoryTransport {
    fn send<'a>(
        &'a self,
        ranges: &'a [Range<u64>],
        etag: Option<&'a str>,
        _cap: u64,
    ) -> multirange::Sending<'a> {
        use multirange::{Answer, TransportError};
        Box::pin(async move {
            let unanswered = |e: object_store::Error| TransportError::Unanswered(e.to_string());
            let got = self
                .store
                .get_opts(&self.key, Default::default())
                .await
                .map_err(unanswered)?;
            let current = got.meta.e_tag.clone();
            let file = got.bytes().await.map_err(unanswered)?;
            if etag.is_some() && current.as_deref() != etag {
                return Ok(Answer {
                    status: 412,
                    ..Answer::default()
                });
            }
            let hull = ranges[0].start..ranges[ranges.len() - 1].end;
            Ok(match self.serve {
                Serve::Whole => Answer {
                    status: 200,
                    ..Answer::default()
                },
                Serve::Coalesced => Answer {
                    status: 206,
                    content_range: Some(format!(
                        "bytes {}-{}/{}",
                        hull.start,
                        hull.end - 1,
                        file.len()
                    )),
                    etag: current,
                    body: file.slice(hull.start as usize..hull.end as usize),
                    ..Answer::default()
                },
                Serve::Multipart => {
                    let reversed: Vec<Range<u64>> = ranges.iter().rev().cloned().collect();
                    let (kind, body) = super::byteranges::encode(&file, &reversed, "3d6b6a416f9b5");
                    Answer {
                        status: 206,
                        content_type: Some(kind),
                        etag: current,
                        body: body.into(),
                        ..Answer::default()
                    }
                }
            })
        })
    }
}

/// An engine over copies of `paths` in an in-memory store whose server answers multi-range
/// requests as `serve` says, for the conformance suite and tests.
#[cfg(test)]
pub(crate) fn in_memory_multirange(paths: &[PathBuf], depth: usize, serve: Serve) -> RemoteEngine {
    use object_store::memory::InMemory;
    use object_store::ObjectStore;
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let mut objects = Vec::new();
    let mut transports: Vec<Option<Arc<dyn Transport>>> = Vec::new();
    for (n, path) in paths.iter().enumerate() {
        let bytes = std::fs::read(path).expect("test file");
        let url = format!("memory-multirange-{serve:?}://test/{}", path.display());
        let key = object_store::path::Path::from(format!("file{n}"));
        let object = RemoteObject::in_store(&url, store.clone(), key.clone(), bytes)
            .expect("in-memory object");
        objects.push(object);
        let transport = MemoryTransport {
            store: store.clone(),
            key,
            serve,
        };
        transports.push(Some(Arc::new(transport)));
    }
    RemoteEngine::with_transports(objects, transports, depth, crate::io::REMOTE_RANGES_DEFAULT)
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
        engine.read_counted(&requests, &mut before).unwrap();
        assert!(before.failed.iter().all(Option::is_none));
        let size = engine.file_size(0) as usize;
        engine.objects[0].replace_in_store(vec![0u8; size]).unwrap();
        let mut after = Outcomes::new(requests.len());
        let counters = engine.read_counted(&requests, &mut after).unwrap();
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

#[cfg(test)]
mod multirange_tests {
    use super::*;
    use crate::io::conformance::{two_files, Outcomes};

    /// 64 reads of 1,000 bytes, 10,000 apart, in file 0.
    fn reads() -> Vec<ReadRequest> {
        (0..64)
            .map(|i| ReadRequest {
                file: 0,
                offset: 1_000 + i * 10_000,
                len: 1_000,
            })
            .collect()
    }

    /// Reads `requests` with `engine`: the bytes checked against `file`, the counters.
    fn read_checked(
        engine: &mut RemoteEngine,
        file: &[u8],
        requests: &[ReadRequest],
    ) -> IoCounters {
        let mut outcomes = Outcomes::new(requests.len());
        let counters = engine.read_counted(requests, &mut outcomes).unwrap();
        for (read, got) in requests.iter().zip(&outcomes.completed) {
            let at = read.offset as usize;
            let got = got.as_deref().expect("every read answered");
            assert_eq!(got, &file[at..at + read.len as usize], "at {at}");
        }
        counters
    }

    /// [`two_files`] in a new folder, and the bytes of the first.
    fn two_files_read() -> (tempfile::TempDir, Vec<PathBuf>, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let paths = two_files(dir.path());
        let file = std::fs::read(&paths[0]).unwrap();
        (dir, paths, file)
    }

    #[test]
    fn reads_go_out_many_ranges_a_request_once_the_server_took_one() {
        let (_dir, paths, file) = two_files_read();
        for serve in [Serve::Multipart, Serve::Coalesced] {
            let mut engine = in_memory_multirange(&paths, 4, serve);
            engine.ranges = 64;
            // The first batch probes; the second spreads 64 reads over the 4 requests.
            read_checked(&mut engine, &file, &reads());
            assert_eq!(multirange::support(&engine.objects[0].url), Support::Yes);
            let counters = read_checked(&mut engine, &file, &reads());
            assert_eq!(counters.remote_requests, 4, "{serve:?}");
            assert_eq!(counters.read_requests, 64);
            assert_eq!(counters.remote_cache_hits, 0);
            assert_eq!(counters.bytes_read, 64_000);
            // At most 8 ranges a request: 8 requests.
            engine.ranges = 8;
            let counters = read_checked(&mut engine, &file, &reads());
            assert_eq!(counters.remote_requests, 8, "{serve:?}");
        }
    }

    #[test]
    fn a_range_spec_is_measured_as_written() {
        for (offset, len) in [
            (0u64, 1u32),
            (0, 128),
            (9, 1),
            (297_575_296, 128),
            (u64::MAX - 9, 10),
        ] {
            let written = format!("{}-{},", offset, offset + (u64::from(len) - 1));
            assert_eq!(range_spec_bytes(offset, len), written.len(), "{written}");
        }
        // The header cap holds ~200 ranges of 128 bytes deep in a 661 MiB file.
        assert_eq!(
            RANGE_HEADER_BYTES_MAX / range_spec_bytes(297_575_296, 128),
            200
        );
    }

    #[test]
    fn a_server_that_ignores_ranges_is_read_one_range_a_request() {
        let (_dir, paths, file) = two_files_read();
        let mut engine = in_memory_multirange(&paths, 4, Serve::Whole);
        let first = read_checked(&mut engine, &file, &reads());
        assert_eq!(multirange::support(&engine.objects[0].url), Support::No);
        // The probe's 200 body is never read: only the reads' bytes came.
        assert_eq!(first.remote_bytes, 64_000);
        assert_eq!(first.remote_requests, 64 + 1);
        let second = read_checked(&mut engine, &file, &reads());
        assert_eq!(second.remote_requests, 64);
    }

    #[test]
    fn a_file_changed_under_multi_range_requests_fails_every_read() {
        let (_dir, paths, file) = two_files_read();
        let mut engine = in_memory_multirange(&paths, 4, Serve::Multipart);
        read_checked(&mut engine, &file, &reads());
        engine.objects[0]
            .replace_in_store(vec![0u8; file.len()])
            .unwrap();
        let requests = reads();
        let mut after = Outcomes::new(requests.len());
        engine.read_counted(&requests, &mut after).unwrap();
        for (index, failure) in after.failed.iter().enumerate() {
            let failure = failure
                .as_deref()
                .unwrap_or_else(|| panic!("read {index} answered from the changed file"));
            assert!(failure.contains("changed on the server"), "{failure}");
        }
    }

    #[test]
    fn overlapping_and_adjacent_reads_are_asked_for_once() {
        assert_eq!(
            disjoint(vec![10..20, 0..5, 5..8, 15..30, 40..41, 9..9]),
            vec![0..8, 10..30, 40..41]
        );
    }
}
