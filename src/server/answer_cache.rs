//! [`AnswerCache`]: the answers of repeated queries (the popular genes everyone asks for),
//! so that asking again costs no read (issue 34).
//!
//! An answer is kept for the view it was searched in: the view's number names the
//! generation of every collection served (a new view opens whenever one changes), and the
//! first lookup or store for another view empties the cache, so no answer outlives the
//! collection it came from. Entries are keyed by the query's bases, the indexes searched and
//! every option that shapes the answer; requests grouped by a metadata column are not kept,
//! nor answers of views with remote files (a file changed on its server is seen only by
//! reading it) or with a file changed on disk (the server checks before each use).
//! The cache is bounded by bytes (the bases and hits it holds, estimated), the oldest entries
//! going first.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::query::{QueryResult, SearchOptions};
use crate::sync::lock;

/// Bytes an entry is charged beside its bases and hits (the key, the maps' slots, the stats).
const ENTRY_BYTES: u64 = 512;
/// Bytes a hit is charged (its document, score and coverage, as held).
const HIT_BYTES: u64 = 96;

/// One query as asked: what its answer depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    bases: Arc<[u8]>,
    selection: Option<Vec<bool>>,
    /// The options, written out (a grouping is never part of a key).
    options: String,
}

impl Key {
    fn new(bases: &[u8], selection: &Option<Vec<bool>>, options: &str) -> Key {
        Key {
            bases: Arc::from(bases),
            selection: selection.clone(),
            options: options.to_string(),
        }
    }
}

/// What a request asks: `queries` searched with `options` in the indexes `selection` of
/// view `view`.
#[derive(Clone, Copy)]
pub(crate) struct Asked<'a> {
    pub(crate) view: u64,
    pub(crate) queries: &'a [Vec<u8>],
    pub(crate) selection: &'a Option<Vec<bool>>,
    pub(crate) options: &'a SearchOptions,
}

#[derive(Debug, Default)]
struct Inner {
    view: u64,
    entries: HashMap<Key, (QueryResult, u64)>,
    order: VecDeque<Key>,
    bytes: u64,
}

/// The cache; see the module documentation.
#[derive(Debug)]
pub(crate) struct AnswerCache {
    bytes_max: u64,
    inner: Mutex<Inner>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// What the cache did so far, for `/metrics`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AnswerCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub entries: u64,
    pub bytes: u64,
    pub bytes_max: u64,
}

impl AnswerCache {
    /// A cache of at most `bytes_max` bytes (0: keeps nothing).
    pub(crate) fn new(bytes_max: u64) -> AnswerCache {
        AnswerCache {
            bytes_max,
            inner: Mutex::new(Inner::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The answers of `asked`, when the cache holds every one of them (a request is answered
    /// from the cache whole or not at all).
    pub(crate) fn get(&self, asked: Asked<'_>) -> Option<Vec<QueryResult>> {
        let options = options_key(asked.options)?;
        if self.bytes_max == 0 {
            return None;
        }
        let mut inner = lock(&self.inner);
        inner.follow(asked.view);
        let queries = asked.queries;
        let found: Option<Vec<QueryResult>> = queries
            .iter()
            .map(|bases| {
                let key = Key::new(bases, asked.selection, &options);
                inner.entries.get(&key).map(|(result, _)| result.clone())
            })
            .collect();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(queries.len() as u64, Ordering::Relaxed);
        found
    }

    /// Keeps the answers of `asked` (those that are results).
    pub(crate) fn put(
        &self,
        asked: Asked<'_>,
        answers: &[Result<QueryResult, crate::query::SearchError>],
    ) {
        let Some(options) = options_key(asked.options) else {
            return;
        };
        let mut inner = lock(&self.inner);
        inner.follow(asked.view);
        for (bases, answer) in asked.queries.iter().zip(answers) {
            let Ok(result) = answer else { continue };
            let bytes = ENTRY_BYTES + bases.len() as u64 + HIT_BYTES * result.hits.len() as u64;
            if bytes > self.bytes_max / 4 {
                continue;
            }
            let key = Key::new(bases, asked.selection, &options);
            if inner.entries.contains_key(&key) {
                continue;
            }
            while inner.bytes + bytes > self.bytes_max {
                let Some(oldest) = inner.order.pop_front() else {
                    break;
                };
                if let Some((_, freed)) = inner.entries.remove(&oldest) {
                    inner.bytes -= freed;
                }
            }
            inner.bytes += bytes;
            inner.order.push_back(key.clone());
            inner.entries.insert(key, (result.clone(), bytes));
        }
    }

    /// Hits, misses and size so far.
    pub(crate) fn stats(&self) -> AnswerCacheStats {
        let inner = lock(&self.inner);
        AnswerCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            entries: inner.entries.len() as u64,
            bytes: inner.bytes,
            bytes_max: self.bytes_max,
        }
    }
}

impl AnswerCacheStats {
    /// The Prometheus text of these counters, appended to `out`.
    pub(crate) fn render(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = writeln!(out, "# HELP bitsift_answer_cache_hits_total Queries answered from the answer cache.\n# TYPE bitsift_answer_cache_hits_total counter\nbitsift_answer_cache_hits_total {}", self.hits);
        let _ = writeln!(out, "# HELP bitsift_answer_cache_misses_total Queries of requests the answer cache could not answer whole.\n# TYPE bitsift_answer_cache_misses_total counter\nbitsift_answer_cache_misses_total {}", self.misses);
        let _ = writeln!(out, "# HELP bitsift_answer_cache_entries Answers kept.\n# TYPE bitsift_answer_cache_entries gauge\nbitsift_answer_cache_entries {}", self.entries);
        let _ = writeln!(out, "# HELP bitsift_answer_cache_bytes Bytes the kept answers are charged.\n# TYPE bitsift_answer_cache_bytes gauge\nbitsift_answer_cache_bytes {}", self.bytes);
        let _ = writeln!(out, "# HELP bitsift_answer_cache_capacity_bytes Answer cache budget.\n# TYPE bitsift_answer_cache_capacity_bytes gauge\nbitsift_answer_cache_capacity_bytes {}", self.bytes_max);
    }
}

impl Inner {
    /// Empties the cache when `view` is not the view its answers came from.
    fn follow(&mut self, view: u64) {
        if self.view != view {
            *self = Inner {
                view,
                ..Inner::default()
            };
        }
    }
}

/// The options as part of a key; `None` for a grouped search (its grouping is an open
/// table, compared by identity only), which is not kept.
fn options_key(options: &SearchOptions) -> Option<String> {
    if options.group_by.is_some() {
        return None;
    }
    let SearchOptions {
        threshold,
        limit,
        offset,
        group_by: _,
        only_group,
        cobs_order,
        prune,
        coverage,
        summaries,
        waves,
        corrected,
        raw_threshold,
    } = options;
    Some(format!(
        "{threshold:?}|{limit}|{offset}|{only_group:?}|{cobs_order}|{prune}|{coverage}|{summaries}|{waves}|{corrected}|{raw_threshold}"
    ))
}
