//! The JSON API: request parsing and validation, admission control, responses.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::sync::oneshot;

use super::answer::{self, Answer, Answered, ResponseStats};
use super::answer_cache::Asked;
use super::api_error::{at_capacity, ApiError};
use super::body;
use super::clients::ClientId;
use super::connections::Peer;
use super::dispatch::{JobOutcome, SearchJob};
use super::lanes::Lane;
use super::metrics::SideMemory;
use super::request::{queries_of, SearchRequest, LIMIT_DEFAULT, QUERIES_PER_REQUEST_MAX};
use super::view::View;
use super::{AppState, SelectError};
use crate::alphabet::BaseReading;
use crate::answer::IndexDescription;
use crate::answer::SkipReason;
use crate::io::source::RemoteChanged;
use crate::query::{QueryResult, SearchError, SearchOptions};
use crate::search::SearchRequest as Search;
use crate::seqfile::SeqRecord;

/// `POST /api/search`. The body is charged against the server's body memory budget before
/// it is read (or refused at once: 413 from `Content-Length`, 503 when the budget is spent),
/// and must arrive within the body timeout; the charge is held until the answer. Every
/// request gets an id, sent back as `X-Request-Id` and logged with what it asked for (never
/// its sequences) and how it ended.
pub(crate) async fn search(
    State(state): State<Arc<AppState>>,
    request: axum::extract::Request,
) -> Response {
    let _in_flight = state.metrics.enter();
    let id = state.request_ids.fetch_add(1, Ordering::Relaxed) + 1;
    let started = Instant::now();
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let peer = request.extensions().get::<Peer>().map(|p| p.0.ip());
    let client = ClientId::of(request.headers(), peer);
    let limits = state.config.body_limits();
    let read = body::read_body(request.into_body(), declared, limits, &state.body_budget).await;
    let mut log = RequestLog::default();
    let outcome = match read {
        Ok((body, lease)) => {
            let outcome = search_inner(&state, body, client, Instant::now(), &mut log).await;
            drop(lease);
            outcome
        }
        Err(error) => Err(ApiError::body(error)),
    };
    let mut response = match outcome {
        Ok(response) => response,
        Err(error) => {
            if let Some(why) = error.rejection() {
                state.metrics.reject(why);
            }
            error.into_response()
        }
    };
    tracing::info!(
        "request {id}: {} in {:.1} ms ({} queries, {} bases, {} lane)",
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1e3,
        log.queries,
        log.bases,
        log.lane.map_or("no", Lane::label)
    );
    if let Ok(value) = header::HeaderValue::from_str(&id.to_string()) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}

/// The header that carries a search request's id.
const REQUEST_ID_HEADER: &str = "x-request-id";

/// What a request's log line says of it.
#[derive(Debug, Default)]
struct RequestLog {
    queries: usize,
    bases: u64,
    lane: Option<Lane>,
}

async fn search_inner(
    state: &Arc<AppState>,
    body: Vec<u8>,
    client: ClientId,
    started: Instant,
    log: &mut RequestLog,
) -> Result<Response, ApiError> {
    let mut request: SearchRequest = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("invalid JSON: {e}")))?;
    drop(body); // the body budget charges for the body and one parsed copy, not more
                // The view this request searches and answers from, whatever happens meanwhile.
    let view = state.fresh_view().await;
    let cutoff = request.cutoff()?;
    request.check_output()?;
    let group_by = match &request.group_by {
        Some(column) => Some(
            view.grouping(&state.metadata, column)
                .map_err(|e| ApiError::bad_request(e.to_string()))?,
        ),
        None => None,
    };
    let selection = match &request.indexes {
        None => None,
        Some(names) => Some(view.select(names).map_err(|e| match e {
            SelectError::Invalid(message) => ApiError::bad_request(message),
            SelectError::Unavailable(message) => ApiError::index_unavailable(message),
        })?),
    };
    let unavailable: Vec<String> = match selection {
        None => view.unavailable.iter().map(|u| u.name.clone()).collect(),
        Some(_) => Vec::new(),
    };
    let mut records = queries_of(&mut request, state.config.max_query_bases)?;
    let queries: Vec<Vec<u8>> = records
        .iter_mut()
        .map(|r| std::mem::take(&mut r.sequence))
        .collect();
    let bases: Vec<usize> = queries.iter().map(Vec::len).collect();
    let total: usize = bases.iter().sum();
    let lane = Lane::of(total);
    *log = RequestLog {
        queries: queries.len(),
        bases: total as u64,
        lane: Some(lane),
    };
    let _client = state
        .clients
        .admit(client, total as u64)
        .map_err(ApiError::client_limit)?;
    let search = Search {
        cutoff,
        limit: request.limit.unwrap_or(LIMIT_DEFAULT),
        offset: request.offset,
        reading: match request.fold_case {
            true => BaseReading::Standard,
            false => BaseReading::Cobs { fold_case: false },
        },
        summaries: state.config.summaries,
        coverage: request.coverage,
        group_by: request.group_by.clone(),
        only_group: request.group.clone(),
        raw_threshold: request.raw_threshold,
        ..Search::default()
    };
    let k_max = view.index.k_max();
    let options = search.options(k_max, group_by);
    let settings = search.settings(k_max, None);
    let deadline = started + state.config.request_timeout;
    let job = Job {
        queries,
        selection,
        options,
        deadline,
        lane,
    };
    let (answers, batch_requests, queued, recalled) =
        recall_or_search(state, &view, job, started).await?;
    let mut stats = ResponseStats {
        queries: answers.len(),
        requests_in_batch: batch_requests,
        queue_ms: ms(queued),
        ..Default::default()
    };
    state.reload_if_changed(answers.iter().filter_map(|a| a.as_ref().err()));
    let queries = answered(records, bases, answers, &mut stats)?;
    if recalled {
        // Nothing was read for this request: say so, not what the first asking cost.
        stats = ResponseStats {
            queries: stats.queries,
            answers_from_cache: stats.queries,
            ..ResponseStats::default()
        };
    }
    let elapsed = started.elapsed();
    stats.time_ms = ms(elapsed);
    let errors = queries.iter().filter(|q| q.outcome.is_err()).count();
    state
        .metrics
        .answered(queries.len() as u64, errors as u64, elapsed);
    let answer = Answer {
        queries,
        format: request.format,
        offset: request.offset,
        grouped: request.group_by,
        presence: request.presence,
        coverage: request.coverage,
        settings,
        stats,
        unavailable,
    };
    Ok(answer::respond(state.clone(), view, answer))
}

/// Waits for a turn in `lane`: at most `max_concurrent` searches run (half as many panels),
/// at most `max_queued` wait in each lane, and anything beyond is turned away at once with
/// 503.
async fn admit(
    state: &AppState,
    lane: Lane,
    started: Instant,
) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    let patience = state
        .config
        .request_timeout
        .saturating_sub(started.elapsed());
    state
        .lanes
        .admit(lane, patience)
        .await
        .ok_or_else(at_capacity)
}

type JobAnswers = (Vec<Result<QueryResult, SearchError>>, usize, Duration);

/// A job's answers, the requests of its batch, its time queued, and whether it came from
/// the answer cache.
type Recalled = (Vec<Result<QueryResult, SearchError>>, usize, Duration, bool);

/// The answers of `job`: from the answer cache when it holds them all (no turn needed),
/// else searched in a turn of the job's lane and kept; whether they came from the cache.
async fn recall_or_search(
    state: &AppState,
    view: &View,
    job: Job,
    started: Instant,
) -> Result<Recalled, ApiError> {
    let cache = &state.answers;
    let usable = state.config.answer_cache_bytes > 0 && answers_keep(view);
    let recalled = usable.then(|| cache.get(job.asked(view.number))).flatten();
    if let Some(results) = recalled {
        let answers = results.into_iter().map(Ok).collect();
        return Ok((answers, 0, Duration::ZERO, true));
    }
    let _turn = admit(state, job.lane, started).await?;
    let kept = usable.then(|| {
        let (queries, selection) = (job.queries.clone(), job.selection.clone());
        (queries, selection, job.options.clone())
    });
    let (answers, batch_requests, queued) = run_job(state, view, job).await?;
    if let Some((queries, selection, options)) = &kept {
        let asked = Asked {
            view: view.number,
            queries,
            selection,
            options,
        };
        cache.put(asked, &answers);
    }
    Ok((answers, batch_requests, queued, false))
}

/// Whether answers found in `view` may be kept and given again: its files are all local
/// (a remote file changed on its server is seen only by reading it) and none changed on disk
/// since it was opened (one `stat` each; a collection's commit opens a new view).
fn answers_keep(view: &View) -> bool {
    let remote = |name: &str| name.contains("://");
    let local = view.indexes.iter().all(|index| {
        !index.file.as_deref().is_some_and(remote) && !index.files.iter().any(|f| remote(f))
    });
    local && view.changed_indexes().is_empty()
}

/// What a request hands the search workers.
struct Job {
    queries: Vec<Vec<u8>>,
    selection: Option<Vec<bool>>,
    options: SearchOptions,
    deadline: Instant,
    lane: Lane,
}

impl Job {
    /// What the job asks of view `view`, as the answer cache keys it.
    fn asked(&self, view: u64) -> Asked<'_> {
        Asked {
            view,
            queries: &self.queries,
            selection: &self.selection,
            options: &self.options,
        }
    }
}

/// Hands the queries to the search workers and waits for their answers until the deadline.
async fn run_job(state: &AppState, view: &View, job: Job) -> Result<JobAnswers, ApiError> {
    let (reply, answer) = oneshot::channel();
    let deadline = job.deadline;
    let job = SearchJob {
        queries: job.queries,
        selection: job.selection,
        options: job.options,
        deadline,
        queued: Instant::now(),
        lane: job.lane,
        reply,
    };
    if !view.dispatcher.submit(job) {
        return Err(at_capacity());
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
    match outcome {
        Err(_) | Ok(Ok(JobOutcome::Expired)) => Err(timed_out()),
        Ok(Err(_)) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down",
        )),
        Ok(Ok(JobOutcome::IndexChanged(message))) => Err(ApiError::index_unavailable(message)),
        Ok(Ok(JobOutcome::Failed(error))) => Err(ApiError::read_failed(
            format!("reading the index failed: {error}"),
            RemoteChanged::within(&*error),
        )),
        Ok(Ok(JobOutcome::Done {
            answers,
            batch_requests,
            queued,
        })) => Ok((answers, batch_requests, queued)),
    }
}

/// The queries with their answers, the request's share of the reads added to `stats`; an
/// error when no query could be searched.
fn answered(
    records: Vec<SeqRecord>,
    bases: Vec<usize>,
    answers: Vec<Result<QueryResult, SearchError>>,
    stats: &mut ResponseStats,
) -> Result<Vec<Answered>, ApiError> {
    let mut queries = Vec::with_capacity(answers.len());
    let (mut read_failures, mut changed) = (0, false);
    for ((record, answer), bases) in records.into_iter().zip(answers).zip(bases) {
        let outcome = match answer {
            Ok(result) => {
                add_stats(stats, &result);
                Ok(result)
            }
            Err(SearchError::TooShort { length, k }) => Err((
                SkipReason::TooShort,
                format!(
                    "query is {length} bases, shorter than k = {k}; it has no k-mer to look up"
                ),
            )),
            Err(SearchError::ReadFailed(e)) => {
                // Only this query needed the failed rows: the others of the batch stand.
                read_failures += 1;
                changed |= RemoteChanged::within(&*e);
                Err((
                    SkipReason::ReadFailed,
                    format!("reading the index failed: {e}"),
                ))
            }
            Err(SearchError::Io(e)) => {
                return Err(ApiError::read_failed(
                    format!("reading the index failed: {e}"),
                    RemoteChanged::within(&e),
                ))
            }
        };
        queries.push(Answered {
            name: record.name,
            bases,
            outcome,
        });
    }
    if let Some(message) = all_failed(&queries) {
        // The index failed the request, not its input: a server error.
        return Err(if read_failures > 0 {
            ApiError::read_failed(message, changed)
        } else {
            ApiError::bad_request(message)
        });
    }
    Ok(queries)
}

/// The error of a request none of whose queries could be searched.
fn all_failed(queries: &[Answered]) -> Option<String> {
    let mut errors = queries.iter().map(|q| q.outcome.as_ref().err());
    let first = errors.next()??;
    if !errors.all(|e| e.is_some()) {
        return None;
    }
    Some(if queries.len() == 1 {
        first.1.clone()
    } else {
        format!("no query could be searched: {}", first.1)
    })
}

/// The request's own share of the reads; what the shared batch did as a whole.
fn add_stats(stats: &mut ResponseStats, result: &QueryResult) {
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
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// `GET /api/indexes`: the served indexes (`status` "ok", or "changed" with the `error`),
/// each collection with the manifest `generation` served, those that could not be opened
/// under `unavailable`, and the `view` they belong to.
pub(crate) async fn indexes(State(state): State<Arc<AppState>>) -> Response {
    let view = state.fresh_view().await;
    let mut list: Vec<IndexDescription> = Vec::new();
    for (position, entry) in view.indexes.iter().enumerate() {
        let (status, error) = index_status(&view, position);
        match list.iter_mut().find(|info| info.name == entry.name) {
            Some(info) => {
                info.add(entry);
                if info.status == Some("ok") && status != "ok" {
                    info.status = Some(status);
                    info.error = error.map(str::to_string);
                }
            }
            None => {
                let mut info = entry.clone();
                info.status = Some(status);
                info.error = error.map(str::to_string);
                list.push(info);
            }
        }
    }
    let cache = view.cache.as_ref().map(|c| c.stats());
    axum::Json(serde_json::json!({
        "view": view.number,
        "indexes": list,
        "unavailable": unavailable_json(&view),
        "reload_failed": state.views.failure(),
        "metadata_columns": state.metadata.columns(),
        "limits": {
            "max_query_bases": state.config.max_query_bases,
            "max_queries_per_request": QUERIES_PER_REQUEST_MAX,
            "max_concurrent": state.config.max_concurrent,
            "max_body_bytes": state.config.body_bytes_max(),
        },
        "cache": cache,
        "image": view.image.as_ref().map(|image| serde_json::json!({
            "bytes": image.bytes(),
            "loaded": image.is_loaded(),
            "error": image.failure(),
        })),
    }))
    .into_response()
}

/// Status of served index `position`, looking at its file now: ("ok", None) or
/// ("changed", the error).
fn index_status(view: &View, position: usize) -> (&'static str, Option<&str>) {
    match view.watch.check(position) {
        Ok(()) => match view.watch.damaged(position) {
            None => ("ok", None),
            Some(message) => ("damaged", Some(message)),
        },
        Err(message) => ("changed", Some(message)),
    }
}

fn unavailable_json(view: &View) -> serde_json::Value {
    view.unavailable
        .iter()
        .map(|u| serde_json::json!({"name": u.name, "file": u.file, "status": "unavailable", "error": u.error}))
        .collect()
}

/// `GET /healthz`: 200 "ok"; 200 "degraded" when indexes that could not be opened were left
/// out (`--skip-broken`, listed under `unavailable`) or the last reload failed (under
/// `reload_failed`: the previous view is still served); 503 "unhealthy" when a served index
/// changed on disk (listed under `changed`), since searches of it now fail, or when a read did
/// not match the index's checksums (listed under `damaged`).
pub(crate) async fn health(State(state): State<Arc<AppState>>) -> Response {
    let view = state.fresh_view().await;
    let entry = |position: usize, status: &str, error: &str| {
        let index = &view.indexes[position];
        serde_json::json!({"name": index.name, "file": index.file, "status": status, "error": error})
    };
    let changed: Vec<serde_json::Value> = view
        .changed_indexes()
        .into_iter()
        .map(|(position, error)| entry(position, "changed", error))
        .collect();
    let damaged: Vec<serde_json::Value> = (0..view.indexes.len())
        .filter_map(|position| Some(entry(position, "damaged", view.watch.damaged(position)?)))
        .collect();
    let failure = state.views.failure();
    let (status, code) = if !changed.is_empty() || !damaged.is_empty() {
        ("unhealthy", StatusCode::SERVICE_UNAVAILABLE)
    } else if !view.unavailable.is_empty() || failure.is_some() {
        ("degraded", StatusCode::OK)
    } else {
        ("ok", StatusCode::OK)
    };
    let mut body = serde_json::json!({
        "status": status,
        "uptime_seconds": state.started.elapsed().as_secs(),
        "in_flight": state.metrics.in_flight(),
        "connections": state.metrics.connections_open(),
        "view": view.number,
        "generations": view.generations(),
    });
    if !changed.is_empty() {
        body["changed"] = changed.into();
    }
    if !damaged.is_empty() {
        body["damaged"] = damaged.into();
    }
    if !view.unavailable.is_empty() {
        body["unavailable"] = unavailable_json(&view);
    }
    if let Some(failure) = failure {
        body["reload_failed"] = serde_json::json!(failure);
    }
    (code, axum::Json(body)).into_response()
}

/// `POST /api/reload`, from this machine only: opens a new view of the indexes whatever
/// changed (as SIGHUP does) and answers with it, or 500 with why the previous view is still
/// served.
pub(crate) async fn reload(
    State(state): State<Arc<AppState>>,
    peer: Option<axum::Extension<Peer>>,
) -> Response {
    if !peer.is_some_and(|axum::Extension(Peer(address))| address.ip().is_loopback()) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "reloads are accepted from this machine only (or send the server SIGHUP)",
        )
        .into_response();
    }
    match state.reload().await {
        Ok(view) => axum::Json(serde_json::json!({
            "view": view.number,
            "generations": view.generations(),
            "index_files": view.indexes.len(),
            "documents": view.indexes.iter().map(|i| i.documents).sum::<u64>(),
        }))
        .into_response(),
        Err(failure) => {
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, failure.error).into_response()
        }
    }
}

/// `GET /metrics`.
pub(crate) async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let view = state.views.current();
    let index = &view.index;
    let side = SideMemory {
        budget_bytes: index.side_memory(),
        cache: index.side_cache().map(|c| c.stats()),
        resident_bytes: index.side_resident_bytes(),
    };
    let mut text = state
        .metrics
        .render(view.cache.as_ref().map(|c| c.stats()), &side);
    state.lanes.render(state.clients.active(), &mut text);
    state.answers.stats().render(&mut text);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

/// `GET /api/openapi.json`.
pub(crate) async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], super::OPENAPI).into_response()
}

/// `GET /`.
pub(crate) async fn page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        super::PAGE,
    )
        .into_response()
}

/// Unknown paths: a JSON 404.
pub(crate) async fn not_found() -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no such endpoint; see GET /api/openapi.json",
    )
    .into_response()
}
