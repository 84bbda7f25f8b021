//! The JSON API: request parsing and validation, admission control, responses.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use super::body::{self, BodyError};
use super::dispatch::{JobOutcome, SearchJob};
use super::metrics::{Rejection, SideMemory};
use super::{AppState, SelectError};
use crate::alphabet::{normalize, BaseReading};
use crate::query::output::fraction;
use crate::query::{SearchError, SearchOptions};
use crate::seqfile::SeqRecord;

/// Queries one request may carry.
pub const QUERIES_PER_REQUEST_MAX: usize = 1000;

/// An error answer: status and a message naming the problem.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    retry_after_seconds: Option<u64>,
    /// The metrics reason, when the status alone does not say it.
    reason: Option<Rejection>,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after_seconds: None,
            reason: None,
        }
    }

    /// 503 for an index that cannot be searched: not worth retrying until it is fixed.
    fn index_unavailable(message: impl Into<String>) -> ApiError {
        let mut error = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message);
        error.reason = Some(Rejection::IndexUnavailable);
        error
    }

    /// The answer to a body that could not be read.
    fn body(error: BodyError) -> ApiError {
        let (status, reason) = match error {
            BodyError::TooLarge { .. } => (StatusCode::PAYLOAD_TOO_LARGE, Rejection::TooLarge),
            BodyError::OverBudget { .. } => {
                (StatusCode::SERVICE_UNAVAILABLE, Rejection::BodyMemory)
            }
            BodyError::TimedOut { .. } => (StatusCode::REQUEST_TIMEOUT, Rejection::BodyTimeout),
            BodyError::Aborted { .. } => (StatusCode::BAD_REQUEST, Rejection::ClientAborted),
        };
        let mut answer = ApiError::new(status, error.to_string());
        answer.reason = Some(reason);
        if status == StatusCode::SERVICE_UNAVAILABLE {
            answer.retry_after_seconds = Some(1);
        }
        answer
    }

    fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    fn rejection(&self) -> Option<Rejection> {
        if self.reason.is_some() {
            return self.reason;
        }
        match self.status {
            StatusCode::BAD_REQUEST => Some(Rejection::BadRequest),
            StatusCode::PAYLOAD_TOO_LARGE => Some(Rejection::TooLarge),
            StatusCode::SERVICE_UNAVAILABLE => Some(Rejection::Overload),
            StatusCode::GATEWAY_TIMEOUT => Some(Rejection::Timeout),
            _ => None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message, "status": self.status.as_u16() });
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(seconds) = self.retry_after_seconds {
            if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

/// One named sequence of a request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedSequence {
    /// Name shown in the results (default `query_N`).
    #[serde(default)]
    pub name: Option<String>,
    /// Bases.
    pub sequence: String,
}

/// `POST /api/search` body. Exactly one of `sequence`, `sequences` and `fasta`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// One raw sequence.
    #[serde(default)]
    pub sequence: Option<String>,
    /// Several named sequences.
    #[serde(default)]
    pub sequences: Option<Vec<NamedSequence>>,
    /// FASTA text (or a raw sequence without header).
    #[serde(default)]
    pub fasta: Option<String>,
    /// Fraction of a query's k-mers a document must contain (0..=1, default 0.8).
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Documents per query at most (0: all; default 100).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Names of the indexes to search (default: all; see `GET /api/indexes`).
    #[serde(default)]
    pub indexes: Option<Vec<String>>,
    /// Read lowercase letters as uppercase (the default). `false` keeps COBS's exact byte
    /// rule, under which every byte other than `ACGT` (lowercase letters too) reads as `A`.
    #[serde(default = "fold_case_default")]
    pub fold_case: bool,
    /// Also say where each hit matches (`coverage` per hit: the query's stretches covered by
    /// matching k-mers and the longest run of missing ones); the hits' rows are read again.
    #[serde(default)]
    pub coverage: bool,
}

fn fold_case_default() -> bool {
    true
}

#[derive(Serialize)]
struct Hit {
    document: String,
    index: String,
    kmers_found: u32,
    kmers_total: u64,
    fraction: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<crate::query::Coverage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<BTreeMap<String, String>>,
}

#[derive(Serialize)]
struct QueryAnswer {
    query: String,
    bases: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    kmers_total: Option<u64>,
    hits: Vec<Hit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize, Default)]
struct ResponseStats {
    queries: usize,
    time_ms: f64,
    queue_ms: f64,
    requests_in_batch: usize,
    queries_in_batch: u32,
    engine: String,
    source: &'static str,
    bytes_read: u64,
    read_requests: u64,
    reads_pruned: u64,
    reads_from_cache: u64,
    cache_hits: u64,
    cache_misses: u64,
}

#[derive(Serialize)]
struct SearchResponse {
    results: Vec<QueryAnswer>,
    stats: ResponseStats,
    /// Indexes not searched because they could not be opened (`--skip-broken`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unavailable_indexes: Vec<String>,
}

/// Validated queries: names and upper-or-as-given bases.
fn queries_of(request: &SearchRequest, max_bases: usize) -> Result<Vec<SeqRecord>, ApiError> {
    let given = [
        request.sequence.is_some(),
        request.sequences.is_some(),
        request.fasta.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 {
        return Err(ApiError::bad_request(
            "give exactly one of \"sequence\" (one sequence), \"sequences\" ([{\"name\", \"sequence\"}]) or \"fasta\" (FASTA text)",
        ));
    }
    let mut records = Vec::new();
    if let Some(sequence) = &request.sequence {
        records.push(SeqRecord {
            name: "query".into(),
            sequence: sequence.clone().into_bytes(),
        });
    } else if let Some(sequences) = &request.sequences {
        for (i, item) in sequences.iter().enumerate() {
            let name = item
                .name
                .clone()
                .unwrap_or_else(|| format!("query_{}", i + 1));
            records.push(SeqRecord {
                name,
                sequence: item.sequence.clone().into_bytes(),
            });
        }
    } else if let Some(fasta) = &request.fasta {
        records = parse_fasta(fasta);
    }
    if records.is_empty() {
        return Err(ApiError::bad_request("no sequence given"));
    }
    if records.len() > QUERIES_PER_REQUEST_MAX {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("{} sequences in one request; at most {QUERIES_PER_REQUEST_MAX} are accepted, split the request", records.len()),
        ));
    }
    // Whitespace is never a base, whichever rule reads the bases.
    let reading = if request.fold_case {
        BaseReading::Standard
    } else {
        BaseReading::Cobs { fold_case: false }
    };
    for record in &mut records {
        record.sequence.retain(|b| !b.is_ascii_whitespace());
        if record.sequence.is_empty() {
            return Err(ApiError::bad_request(format!(
                "query {:?} is empty",
                record.name
            )));
        }
        normalize(&mut record.sequence, reading)
            .map_err(|e| ApiError::bad_request(format!("query {:?}: {e}", record.name)))?;
        if record.sequence.len() > max_bases {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "query {:?} is {} bases; this server accepts at most {max_bases} per query (--max-query-bases)",
                    record.name,
                    record.sequence.len()
                ),
            ));
        }
    }
    Ok(records)
}

/// FASTA text, or one raw sequence without a header line.
fn parse_fasta(text: &str) -> Vec<SeqRecord> {
    let mut records: Vec<SeqRecord> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(header) = line.strip_prefix('>') {
            let name = header.split_whitespace().next().unwrap_or("").to_string();
            let name = if name.is_empty() {
                format!("query_{}", records.len() + 1)
            } else {
                name
            };
            records.push(SeqRecord {
                name,
                sequence: Vec::new(),
            });
        } else if line.starts_with(';') || line.trim().is_empty() {
            continue;
        } else {
            if records.is_empty() {
                records.push(SeqRecord {
                    name: "query".into(),
                    sequence: Vec::new(),
                });
            }
            let current = records.last_mut().expect("a record exists");
            current.sequence.extend_from_slice(line.trim().as_bytes());
        }
    }
    records
}

/// `POST /api/search`. The body is charged against the server's body memory budget before
/// it is read (or refused at once: 413 from `Content-Length`, 503 when the budget is spent),
/// and must arrive within the body timeout; the charge is held until the answer.
pub async fn search(
    State(state): State<Arc<AppState>>,
    request: axum::extract::Request,
) -> Response {
    let _in_flight = state.metrics.enter();
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let limits = state.config.body_limits();
    let read = body::read_body(request.into_body(), declared, limits, &state.body_budget).await;
    let outcome = match read {
        Ok((body, lease)) => {
            let outcome = search_inner(&state, body, Instant::now()).await;
            drop(lease);
            outcome
        }
        Err(error) => Err(ApiError::body(error)),
    };
    match outcome {
        Ok(response) => response,
        Err(error) => {
            if let Some(why) = error.rejection() {
                state.metrics.reject(why);
            }
            error.into_response()
        }
    }
}

async fn search_inner(
    state: &AppState,
    body: Vec<u8>,
    started: Instant,
) -> Result<Response, ApiError> {
    let request: SearchRequest = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("invalid JSON: {e}")))?;
    drop(body); // the body budget charges for the body and one parsed copy, not more
    let threshold = request.threshold.unwrap_or(0.8);
    if !(0.0..=1.0).contains(&threshold) || threshold.is_nan() {
        return Err(ApiError::bad_request(format!(
            "threshold {threshold} is out of range: it is the fraction of a query's k-mers a document must contain, from 0 to 1"
        )));
    }
    let limit = request.limit.unwrap_or(100);
    let coverage = request.coverage;
    let selection = match &request.indexes {
        None => None,
        Some(names) => Some(state.select(names).map_err(|e| match e {
            SelectError::Invalid(message) => ApiError::bad_request(message),
            SelectError::Unavailable(message) => ApiError::index_unavailable(message),
        })?),
    };
    let unavailable_indexes: Vec<String> = match selection {
        None => state.unavailable.iter().map(|u| u.name.clone()).collect(),
        Some(_) => Vec::new(),
    };
    let mut records = queries_of(&request, state.config.max_query_bases)?;
    drop(request);
    let queries: Vec<Vec<u8>> = records
        .iter_mut()
        .map(|r| std::mem::take(&mut r.sequence))
        .collect();
    let bases: Vec<usize> = queries.iter().map(Vec::len).collect();

    // Admission: at most `max_concurrent` searches run, at most `max_queued` wait for a
    // turn, and anything beyond is turned away at once with 503.
    let permit = match state.permits.clone().try_acquire_owned() {
        Ok(permit) => Some(permit),
        Err(_) => {
            let waiting = state.waiting.fetch_add(1, Ordering::Relaxed);
            let permit = if waiting < state.config.max_queued {
                let remaining = state
                    .config
                    .request_timeout
                    .saturating_sub(started.elapsed());
                tokio::time::timeout(remaining, state.permits.clone().acquire_owned())
                    .await
                    .ok()
                    .and_then(Result::ok)
            } else {
                None
            };
            state.waiting.fetch_sub(1, Ordering::Relaxed);
            permit
        }
    };
    let Some(_permit) = permit else {
        let mut error = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is at capacity; retry in a moment",
        );
        error.retry_after_seconds = Some(1);
        return Err(error);
    };
    let deadline = started + state.config.request_timeout;
    let (reply, answer) = oneshot::channel();
    let options = SearchOptions {
        threshold,
        limit,
        summaries: state.config.summaries,
        coverage,
        ..SearchOptions::default()
    };
    let job = SearchJob {
        queries,
        selection,
        options,
        deadline,
        queued: Instant::now(),
        reply,
    };
    if !state.dispatcher.submit(job) {
        let mut error = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is at capacity; retry in a moment",
        );
        error.retry_after_seconds = Some(1);
        return Err(error);
    }
    let remaining = deadline.saturating_duration_since(Instant::now());
    let outcome = tokio::time::timeout(remaining, answer).await;
    let timed_out = || {
        ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            format!(
                "the search did not finish within {} s",
                state.config.request_timeout.as_secs_f64()
            ),
        )
    };
    let (answers, batch_requests, queued) = match outcome {
        Err(_) | Ok(Ok(JobOutcome::Expired)) => return Err(timed_out()),
        Ok(Err(_)) => {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down",
            ))
        }
        Ok(Ok(JobOutcome::IndexChanged(message))) => {
            return Err(ApiError::index_unavailable(message))
        }
        Ok(Ok(JobOutcome::Failed(message))) => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("reading the index failed: {message}"),
            ))
        }
        Ok(Ok(JobOutcome::Done {
            answers,
            batch_requests,
            queued,
        })) => (answers, batch_requests, queued),
    };
    let mut results = Vec::with_capacity(answers.len());
    let mut stats = ResponseStats {
        queries: answers.len(),
        requests_in_batch: batch_requests,
        queue_ms: ms(queued),
        ..Default::default()
    };
    let (mut errors, mut read_failures) = (0, 0);
    for ((record, answer), bases) in records.iter().zip(answers).zip(bases) {
        match answer {
            Ok(result) => {
                // The request's own share of the reads; what the shared batch did as a whole.
                let (s, batch) = (&result.stats, &result.batch);
                stats.engine = s.engine.as_str().to_string();
                stats.source = batch.source.as_str();
                stats.queries_in_batch = s.batch_queries;
                stats.bytes_read += s.bytes_read;
                stats.read_requests += s.read_requests;
                stats.reads_pruned = batch.reads_pruned;
                stats.reads_from_cache = batch.reads_from_cache;
                stats.cache_hits = batch.cache_hits;
                stats.cache_misses = batch.cache_misses;
                let hits = result
                    .hits
                    .iter()
                    .enumerate()
                    .map(|(i, hit)| {
                        let index = &state.indexes[hit.index as usize];
                        let document = state.index.headers()[hit.index as usize]
                            .names
                            .get(hit.document as usize)
                            .to_string();
                        let total = result.kmers_total[hit.index as usize];
                        let metadata = state.metadata.get(&document).map(|values| {
                            state
                                .metadata
                                .columns()
                                .iter()
                                .cloned()
                                .zip(values.iter().cloned())
                                .collect()
                        });
                        Hit {
                            index: index.name.clone(),
                            kmers_found: hit.kmers_found,
                            kmers_total: total,
                            fraction: (fraction(hit.kmers_found, total) * 1e4).round() / 1e4,
                            document,
                            coverage: result.coverage.get(i).cloned(),
                            metadata,
                        }
                    })
                    .collect();
                results.push(QueryAnswer {
                    query: record.name.clone(),
                    bases,
                    kmers_total: result.kmers_total.iter().copied().max(),
                    hits,
                    error: None,
                });
            }
            Err(SearchError::TooShort { length, k }) => {
                errors += 1;
                results.push(QueryAnswer {
                    query: record.name.clone(),
                    bases,
                    kmers_total: None,
                    hits: Vec::new(),
                    error: Some(format!(
                        "query is {length} bases, shorter than k = {k}; it has no k-mer to look up"
                    )),
                });
            }
            Err(SearchError::ReadFailed(e)) => {
                // Only this query needed the failed rows: the others of the batch stand.
                errors += 1;
                read_failures += 1;
                results.push(QueryAnswer {
                    query: record.name.clone(),
                    bases,
                    kmers_total: None,
                    hits: Vec::new(),
                    error: Some(format!("reading the index failed: {e}")),
                });
            }
            Err(SearchError::Io(e)) => {
                return Err(ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("reading the index failed: {e}"),
                ))
            }
        }
    }
    if errors == results.len() {
        let message = results[0].error.clone().unwrap_or_default();
        let message = if results.len() == 1 {
            message
        } else {
            format!("no query could be searched: {message}")
        };
        // The index failed the request, not its input: a server error.
        return Err(if read_failures > 0 {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
        } else {
            ApiError::bad_request(message)
        });
    }
    let elapsed = started.elapsed();
    stats.time_ms = ms(elapsed);
    state
        .metrics
        .answered(results.len() as u64, errors as u64, elapsed);
    Ok(axum::Json(SearchResponse {
        results,
        stats,
        unavailable_indexes,
    })
    .into_response())
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// `GET /api/indexes`: the served indexes (`status` "ok", or "changed" with the `error`), and
/// those that could not be opened under `unavailable`.
pub async fn indexes(State(state): State<Arc<AppState>>) -> Response {
    /// One index as requests name it: a collection (all its files) or a file.
    #[derive(Serialize)]
    struct IndexInfo<'a> {
        name: &'a str,
        file: String,
        files: Vec<&'a str>,
        status: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a str>,
        format: &'static str,
        documents: u64,
        k: u32,
        canonical: bool,
        hashes: u32,
        blocks: usize,
        page_size: u64,
        file_size: u64,
    }
    let mut list: Vec<IndexInfo> = Vec::new();
    for (position, entry) in state.indexes.iter().enumerate() {
        let (status, error) = index_status(&state, position);
        match list.iter_mut().find(|info| info.name == entry.name) {
            Some(info) => {
                info.files.push(&entry.file);
                info.documents += entry.documents;
                info.blocks += entry.blocks;
                info.file_size += entry.file_size;
                if info.status == "ok" && status != "ok" {
                    (info.status, info.error) = (status, error);
                }
            }
            None => list.push(IndexInfo {
                name: &entry.name,
                file: entry.file.clone(),
                files: vec![&entry.file],
                status,
                error,
                format: entry.format,
                documents: entry.documents,
                k: entry.k,
                canonical: entry.canonical,
                hashes: entry.hashes,
                blocks: entry.blocks,
                page_size: entry.page_size,
                file_size: entry.file_size,
            }),
        }
    }
    let cache = state.cache.as_ref().map(|c| c.stats());
    axum::Json(serde_json::json!({
        "indexes": list,
        "unavailable": unavailable_json(&state),
        "metadata_columns": state.metadata.columns(),
        "limits": {
            "max_query_bases": state.config.max_query_bases,
            "max_queries_per_request": QUERIES_PER_REQUEST_MAX,
            "max_concurrent": state.config.max_concurrent,
            "max_body_bytes": state.config.body_bytes_max(),
        },
        "cache": cache,
        "image": state.image.as_ref().map(|image| serde_json::json!({
            "bytes": image.bytes(),
            "loaded": image.is_loaded(),
            "error": image.failure(),
        })),
    }))
    .into_response()
}

/// Status of served index `position`, looking at its file now: ("ok", None) or
/// ("changed", the error).
fn index_status(state: &AppState, position: usize) -> (&'static str, Option<&str>) {
    match state.watch.check(position) {
        Ok(()) => match state.watch.damaged(position) {
            None => ("ok", None),
            Some(message) => ("damaged", Some(message)),
        },
        Err(message) => ("changed", Some(message)),
    }
}

fn unavailable_json(state: &AppState) -> serde_json::Value {
    state
        .unavailable
        .iter()
        .map(|u| serde_json::json!({"name": u.name, "file": u.file, "status": "unavailable", "error": u.error}))
        .collect()
}

/// `GET /healthz`: 200 "ok"; 200 "degraded" when indexes that could not be opened were left
/// out at start (`--skip-broken`, listed under `unavailable`); 503 "unhealthy" when a served
/// index changed on disk (listed under `changed`), since searches of it now fail, or when a
/// read did not match the index's checksums (listed under `damaged`).
pub async fn health(State(state): State<Arc<AppState>>) -> Response {
    let changed: Vec<serde_json::Value> = state
        .changed_indexes()
        .into_iter()
        .map(|(position, error)| {
            let index = &state.indexes[position];
            serde_json::json!({"name": index.name, "file": index.file, "status": "changed", "error": error})
        })
        .collect();
    let damaged: Vec<serde_json::Value> = (0..state.indexes.len())
        .filter_map(|position| {
            let error = state.watch.damaged(position)?;
            let index = &state.indexes[position];
            Some(serde_json::json!({"name": index.name, "file": index.file, "status": "damaged", "error": error}))
        })
        .collect();
    let (status, code) = if !changed.is_empty() || !damaged.is_empty() {
        ("unhealthy", StatusCode::SERVICE_UNAVAILABLE)
    } else if !state.unavailable.is_empty() {
        ("degraded", StatusCode::OK)
    } else {
        ("ok", StatusCode::OK)
    };
    let mut body = serde_json::json!({
        "status": status,
        "uptime_seconds": state.started.elapsed().as_secs(),
        "in_flight": state.metrics.in_flight(),
        "connections": state.metrics.connections_open(),
    });
    if !changed.is_empty() {
        body["changed"] = changed.into();
    }
    if !damaged.is_empty() {
        body["damaged"] = damaged.into();
    }
    if !state.unavailable.is_empty() {
        body["unavailable"] = unavailable_json(&state);
    }
    (code, axum::Json(body)).into_response()
}

/// `GET /metrics`.
pub async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let index = &state.index;
    let side = SideMemory {
        budget_bytes: index.side_memory(),
        cache: index.side_cache().map(|c| c.stats()),
        resident_bytes: index.side_resident_bytes(),
    };
    let text = state
        .metrics
        .render(state.cache.as_ref().map(|c| c.stats()), &side);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

/// `GET /api/openapi.json`.
pub async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], super::OPENAPI).into_response()
}

/// `GET /`.
pub async fn page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        super::PAGE,
    )
        .into_response()
}

/// Unknown paths: a JSON 404.
pub async fn not_found() -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no such endpoint; see GET /api/openapi.json",
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fasta_and_raw_text() {
        let records = parse_fasta(">a gene\nACGT\nacgt\n>b\nTT\n");
        assert_eq!(records.len(), 2);
        assert_eq!(
            (records[0].name.as_str(), records[0].sequence.as_slice()),
            ("a", &b"ACGTacgt"[..])
        );
        let raw = parse_fasta("ACGT\nTTTT\n");
        assert_eq!(raw[0].name, "query");
        assert_eq!(raw[0].sequence, b"ACGTTTTT");
    }

    #[test]
    fn validation_names_the_problem() {
        let request = |json: &str| serde_json::from_str::<SearchRequest>(json).unwrap();
        let err = queries_of(&request(r#"{"sequence": "ACGT1"}"#), 100)
            .err()
            .unwrap();
        assert!(
            err.message.starts_with(
                "query \"query\": not a nucleotide sequence: digits ('1' from position 5;"
            ),
            "{}",
            err.message
        );
        let folded = queries_of(&request(r#"{"sequence": "acgu acgt"}"#), 100).unwrap();
        assert_eq!(folded[0].sequence, b"ACGTACGT");
        let exact = queries_of(
            &request(r#"{"sequence": "acgt ACGT", "fold_case": false}"#),
            100,
        )
        .unwrap();
        assert_eq!(exact[0].sequence, b"acgtACGT");
        let err = queries_of(&request(r#"{"fasta": ">p\nMKTLLILAVL\n"}"#), 100)
            .err()
            .unwrap();
        assert_eq!(err.status, StatusCode::BAD_REQUEST);
        assert!(
            err.message.contains("looks like a protein"),
            "{}",
            err.message
        );
        let err = queries_of(&request(r#"{"sequence": "  "}"#), 100)
            .err()
            .unwrap();
        assert!(err.message.contains("is empty"));
        let err = queries_of(&request(r#"{"sequence": "ACGTACGT"}"#), 4)
            .err()
            .unwrap();
        assert_eq!(err.status, StatusCode::PAYLOAD_TOO_LARGE);
        let err = queries_of(&request(r#"{"sequence": "A", "fasta": ">x\nA"}"#), 4)
            .err()
            .unwrap();
        assert!(err.message.contains("exactly one"));
        assert!(serde_json::from_str::<SearchRequest>(r#"{"sequense": "A"}"#).is_err());
    }
}
