//! Search workers: requests that overlap in time are answered by one shared batch.
//!
//! Each worker thread owns a [`Searcher`] (its own engine and buffers; the page cache is
//! shared by all). Jobs wait in one bounded queue per [`Lane`]: a worker takes the next small
//! job when there is one, else the next panel, and with two workers or more the first takes
//! small jobs only, so a gene never waits for a panel's batch (issue 34). A worker takes the
//! next job, then everything else already waiting in its lane (up to a bound), and answers
//! all of those queries with one planned batch,
//! so requests arriving while a batch is in flight share the next sweep instead of queueing
//! behind each other one by one. There is no artificial wait: a lone request starts at once.
//! Jobs whose deadline has passed or whose client has gone are dropped before any I/O.
//!
//! After every batch, the files of the indexes it searched are compared with their identity
//! at open ([`IndexWatch`], one `stat` per index): a job that searched an index changed on
//! disk gets [`JobOutcome::IndexChanged`] instead of answers read from bytes that are not the
//! ones whose header was parsed. The comparison is with the identity at open, so a change
//! made at any time before the check is seen, also one made before the batch started; jobs
//! that search an index already known to have changed are refused before any I/O.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, Sender};
use tokio::sync::oneshot;

use super::lanes::Lane;
use super::metrics::Metrics;
use super::watch::IndexWatch;
use crate::format::ChecksumError;
use crate::query::{Answer, ReadError, SearchError, SearchOptions, Session as Searcher};

/// Queries one batch may take from the queue at most.
pub(crate) const QUERIES_PER_BATCH_MAX: usize = 4096;

/// One request's queries.
pub(crate) struct SearchJob {
    /// Query sequences.
    pub queries: Vec<Vec<u8>>,
    /// Indexes searched (`None`: all).
    pub selection: Option<Vec<bool>>,
    /// Threshold, limit, pruning.
    pub options: SearchOptions,
    /// Give up (and reply [`JobOutcome::Expired`]) if not started by then.
    pub deadline: Instant,
    /// When the job was queued.
    pub queued: Instant,
    /// The queue it waits in.
    pub lane: Lane,
    /// Where the answer goes.
    pub reply: oneshot::Sender<JobOutcome>,
}

/// How a job ended.
pub(crate) enum JobOutcome {
    /// Answered.
    Done {
        /// One answer per query.
        answers: Vec<Answer>,
        /// Requests that shared the batch.
        batch_requests: usize,
        /// Time waiting in the queue.
        queued: Duration,
    },
    /// The deadline passed before the job started.
    Expired,
    /// Reading the index failed (the error is shared by every job of the batch).
    Failed(Arc<SearchError>),
    /// An index the job searches changed on disk since the server opened it.
    IndexChanged(String),
}

/// The queues of the lanes, small first.
type Senders = [Sender<SearchJob>; 2];

/// The pool of search workers.
pub(crate) struct Dispatcher {
    sender: Mutex<Option<Senders>>,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl Dispatcher {
    /// Starts one worker per searcher, with a queue of `queue` jobs. `watch` holds the
    /// identities of the searchers' index files, in the same order.
    pub(crate) fn start(
        searchers: Vec<Searcher>,
        metrics: Arc<Metrics>,
        queue: usize,
        watch: Arc<IndexWatch>,
    ) -> Dispatcher {
        let (small, small_jobs) = bounded(queue.max(1));
        let (panel, panel_jobs) = bounded(queue.max(1));
        let reserved = searchers.len() >= 2;
        let workers = searchers
            .into_iter()
            .enumerate()
            .map(|(i, searcher)| {
                assert_eq!(
                    searcher.headers().len(),
                    watch.len(),
                    "one identity per index"
                );
                // The first of two or more workers takes small jobs only.
                let queues = Queues {
                    small: small_jobs.clone(),
                    panel: (!(reserved && i == 0)).then(|| panel_jobs.clone()),
                };
                let metrics = metrics.clone();
                let watch = watch.clone();
                std::thread::Builder::new()
                    .name(format!("bitsift-search-{i}"))
                    .spawn(move || worker(searcher, &queues, &metrics, &watch))
                    .expect("spawn a search worker")
            })
            .collect();
        let sender = [small, panel];
        Dispatcher {
            sender: Mutex::new(Some(sender)),
            workers: Mutex::new(workers),
        }
    }

    /// Queues a job; false when the queue is full or the dispatcher is closed (the job
    /// is dropped, so its caller hears nothing and answers "busy").
    pub(crate) fn submit(&self, job: SearchJob) -> bool {
        let sender = self.sender.lock().unwrap_or_else(|e| e.into_inner());
        let lane = match job.lane {
            Lane::Small => 0,
            Lane::Panel => 1,
        };
        sender
            .as_ref()
            .is_some_and(|senders| senders[lane].try_send(job).is_ok())
    }

    /// Stops taking jobs and gives the workers up to `wait` to finish what is queued.
    /// Returns whether they all did; those that did not are left to end with the process.
    pub(crate) fn close(&self, wait: Duration) -> bool {
        self.sender.lock().unwrap_or_else(|e| e.into_inner()).take();
        let deadline = Instant::now() + wait;
        let mut workers = self.workers.lock().unwrap_or_else(|e| e.into_inner());
        while workers.iter().any(|w| !w.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let all = workers.iter().all(JoinHandle::is_finished);
        for worker in workers.drain(..).filter(JoinHandle::is_finished) {
            let _ = worker.join();
        }
        all
    }
}

impl Drop for Dispatcher {
    /// Closes the queue; the workers end when they have answered what is queued. They are
    /// not waited for: a view is dropped by whichever request finished with it last, maybe
    /// on an async thread, and [`Dispatcher::close`] is how the server waits at shutdown.
    fn drop(&mut self) {
        self.sender.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

/// The queues a worker takes jobs from.
struct Queues {
    small: Receiver<SearchJob>,
    /// `None` for the worker kept for small jobs.
    panel: Option<Receiver<SearchJob>>,
}

impl Queues {
    /// The next job, a small one first when both wait, and the queue it came from; `None`
    /// once the queues are closed and empty.
    fn next(&self) -> Option<(SearchJob, &Receiver<SearchJob>)> {
        if let Ok(job) = self.small.try_recv() {
            return Some((job, &self.small));
        }
        let Some(panel) = &self.panel else {
            return self.small.recv().ok().map(|job| (job, &self.small));
        };
        crossbeam_channel::select! {
            recv(self.small) -> job => match job {
                Ok(job) => Some((job, &self.small)),
                // Closed: what is left is in the other queue.
                Err(_) => panel.recv().ok().map(|job| (job, panel)),
            },
            recv(panel) -> job => match job {
                Ok(job) => Some((job, panel)),
                Err(_) => self.small.recv().ok().map(|job| (job, &self.small)),
            },
        }
    }
}

fn worker(mut searcher: Searcher, queues: &Queues, metrics: &Metrics, watch: &IndexWatch) {
    while let Some((first, receiver)) = queues.next() {
        let mut jobs = vec![first];
        let mut queries = jobs[0].queries.len();
        while queries < QUERIES_PER_BATCH_MAX {
            match receiver.try_recv() {
                Ok(job) => {
                    queries += job.queries.len();
                    jobs.push(job);
                }
                Err(_) => break,
            }
        }
        let now = Instant::now();
        let mut live = Vec::with_capacity(jobs.len());
        for job in jobs {
            if job.reply.is_closed() {
                continue;
            }
            if now > job.deadline {
                let _ = job.reply.send(JobOutcome::Expired);
                continue;
            }
            live.push(job);
        }
        // Jobs with equal options share one batch.
        while !live.is_empty() {
            let options = live[0].options.clone();
            let (group, rest): (Vec<SearchJob>, Vec<SearchJob>) =
                live.into_iter().partition(|j| j.options == options);
            live = rest;
            let group = refuse_changed(group, watch);
            if !group.is_empty() {
                run_group(&mut searcher, group, &options, metrics, watch);
            }
        }
    }
}

/// Whether `job` searches index `index`.
fn searches(job: &SearchJob, index: usize) -> bool {
    job.selection
        .as_ref()
        .is_none_or(|mask| mask.get(index).copied().unwrap_or(false))
}

/// Looks at the files of the indexes `jobs` search: the change seen in each, if any.
/// `look` stats the files; otherwise only changes already seen are reported.
fn check_files(jobs: &[SearchJob], watch: &IndexWatch, look: bool) -> Vec<Option<String>> {
    (0..watch.len())
        .map(|index| {
            if !jobs.iter().any(|job| searches(job, index)) {
                None
            } else if look {
                watch.check(index).err().map(str::to_string)
            } else {
                watch.changed(index).map(str::to_string)
            }
        })
        .collect()
}

/// Marks the files whose reads did not match their checksums as damaged (health reports them).
fn note_damage(answers: &[Answer], watch: &IndexWatch) {
    for answer in answers {
        let Err(SearchError::ReadFailed(error)) = answer else {
            continue;
        };
        if let ReadError::Checksum(ChecksumError::Mismatch { path, .. }) = error.as_ref() {
            if let Some(index) = watch.position(path) {
                watch.mark_damaged(index, error.to_string());
            }
        }
    }
}

/// The first change among the indexes `job` searches.
fn change_of<'a>(job: &SearchJob, changes: &'a [Option<String>]) -> Option<&'a String> {
    changes
        .iter()
        .enumerate()
        .find_map(|(index, change)| change.as_ref().filter(|_| searches(job, index)))
}

/// Answers the jobs that search an index already known to have changed; returns the others.
fn refuse_changed(group: Vec<SearchJob>, watch: &IndexWatch) -> Vec<SearchJob> {
    let changes = check_files(&group, watch, false);
    let mut kept = Vec::with_capacity(group.len());
    for job in group {
        match change_of(&job, &changes) {
            Some(change) => {
                let _ = job.reply.send(JobOutcome::IndexChanged(change.clone()));
            }
            None => kept.push(job),
        }
    }
    kept
}

fn run_group(
    searcher: &mut Searcher,
    group: Vec<SearchJob>,
    options: &SearchOptions,
    metrics: &Metrics,
    watch: &IndexWatch,
) {
    let started = Instant::now();
    let mut sequences: Vec<&[u8]> = Vec::new();
    let mut selections: Vec<Option<Vec<bool>>> = Vec::new();
    for job in &group {
        for query in &job.queries {
            sequences.push(query);
            selections.push(job.selection.clone());
        }
    }
    let outcome = searcher.search_selected(&sequences, &selections, options);
    let requests = group.len();
    match outcome {
        Ok(mut answers) => {
            if let Some(Ok(first)) = answers.iter().find(|a| a.is_ok()) {
                let batch = &first.batch;
                metrics.batch(
                    sequences.len() as u64,
                    batch.bytes_read,
                    batch.read_requests,
                    batch.reads_pruned,
                );
            }
            note_damage(&answers, watch);
            // A file changed before or while it was read: those answers may come from bytes
            // that are not the indexed ones.
            let changes = check_files(&group, watch, true);
            let mut rest = answers.split_off(0);
            for job in group {
                let tail = rest.split_off(job.queries.len());
                let mine = std::mem::replace(&mut rest, tail);
                if let Some(change) = change_of(&job, &changes) {
                    let _ = job.reply.send(JobOutcome::IndexChanged(change.clone()));
                    continue;
                }
                let _ = job.reply.send(JobOutcome::Done {
                    answers: mine,
                    batch_requests: requests,
                    queued: started.saturating_duration_since(job.queued),
                });
            }
        }
        Err(error) => {
            // A truncated file fails its reads: say why, when that is why.
            let changes = check_files(&group, watch, true);
            tracing::error!("search failed: {error}");
            let error = Arc::new(error);
            for job in group {
                let outcome = match change_of(&job, &changes) {
                    Some(change) => JobOutcome::IndexChanged(change.clone()),
                    None => JobOutcome::Failed(error.clone()),
                };
                let _ = job.reply.send(outcome);
            }
        }
    }
}
