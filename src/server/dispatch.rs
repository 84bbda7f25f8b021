//! Search workers: requests that overlap in time are answered by one shared batch.
//!
//! Each worker thread owns a [`Searcher`] (its own engine and buffers; the page cache is
//! shared by all). A worker takes the next job from a bounded queue, then everything else
//! already waiting (up to a bound), and answers all of those queries with one planned batch,
//! so requests arriving while a batch is in flight share the next sweep instead of queueing
//! behind each other one by one. There is no artificial wait: a lone request starts at once.
//! Jobs whose deadline has passed or whose client has gone are dropped before any I/O.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use tokio::sync::oneshot;

use super::metrics::Metrics;
use crate::query::{Answer, SearchOptions, Session as Searcher};

/// Queries one batch may take from the queue at most.
pub const QUERIES_PER_BATCH_MAX: usize = 4096;

/// One request's queries.
pub struct SearchJob {
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
    /// Where the answer goes.
    pub reply: oneshot::Sender<JobOutcome>,
}

/// How a job ended.
pub enum JobOutcome {
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
    /// Reading the index failed.
    Failed(String),
}

/// The pool of search workers.
pub struct Dispatcher {
    sender: Option<Sender<SearchJob>>,
    workers: Vec<JoinHandle<()>>,
}

impl Dispatcher {
    /// Starts one worker per searcher, with a queue of `queue` jobs.
    pub fn start(searchers: Vec<Searcher>, metrics: Arc<Metrics>, queue: usize) -> Dispatcher {
        let (sender, receiver) = bounded(queue.max(1));
        let workers = searchers
            .into_iter()
            .enumerate()
            .map(|(i, searcher)| {
                let receiver = receiver.clone();
                let metrics = metrics.clone();
                std::thread::Builder::new()
                    .name(format!("bitsift-search-{i}"))
                    .spawn(move || worker(searcher, &receiver, &metrics))
                    .expect("spawn a search worker")
            })
            .collect();
        Dispatcher {
            sender: Some(sender),
            workers,
        }
    }

    /// Queues a job; gives it back when the queue is full.
    pub fn submit(&self, job: SearchJob) -> Result<(), SearchJob> {
        match self.sender.as_ref() {
            Some(sender) => sender.try_send(job).map_err(|e| match e {
                TrySendError::Full(job) | TrySendError::Disconnected(job) => job,
            }),
            None => Err(job),
        }
    }

    /// Stops taking jobs, lets the workers finish what is queued, and waits for them.
    pub fn shutdown(&mut self) {
        self.sender = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn worker(mut searcher: Searcher, receiver: &Receiver<SearchJob>, metrics: &Metrics) {
    while let Ok(first) = receiver.recv() {
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
            let options = live[0].options;
            let (group, rest): (Vec<SearchJob>, Vec<SearchJob>) =
                live.into_iter().partition(|j| j.options == options);
            live = rest;
            run_group(&mut searcher, group, &options, metrics);
        }
    }
}

fn run_group(
    searcher: &mut Searcher,
    group: Vec<SearchJob>,
    options: &SearchOptions,
    metrics: &Metrics,
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
            let mut rest = answers.split_off(0);
            for job in group {
                let tail = rest.split_off(job.queries.len());
                let mine = std::mem::replace(&mut rest, tail);
                let _ = job.reply.send(JobOutcome::Done {
                    answers: mine,
                    batch_requests: requests,
                    queued: started.saturating_duration_since(job.queued),
                });
            }
        }
        Err(error) => {
            let message = error.to_string();
            tracing::error!("search failed: {message}");
            for job in group {
                let _ = job.reply.send(JobOutcome::Failed(message.clone()));
            }
        }
    }
}
