//! `bitsift serve`: a search server with a JSON API and a web page.
//!
//! Requests are parsed and validated on the async threads ([`api`]); the searching runs on
//! dedicated worker threads ([`dispatch`]), each with its own engine and all sharing one
//! memory-bounded page cache, and requests overlapping in time share I/O batches. Admission
//! control bounds the work in progress (`--max-concurrent` running, a bounded queue waiting,
//! 503 with `Retry-After` beyond); every request has a deadline; shutdown on SIGINT/SIGTERM
//! finishes the requests in flight.
//!
//! Endpoints: `POST /api/search`, `GET /api/indexes`, `GET /api/openapi.json`,
//! `GET /healthz`, `GET /metrics` (Prometheus), `GET /` (the web page).

pub mod api;
pub mod dispatch;
pub mod metadata;
pub mod metrics;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;

use crate::format::{DocumentNames, HeaderOptions};
use crate::io::{EngineOptions, PageCache, Warmup};
use crate::query::Searcher;
use dispatch::Dispatcher;
use metadata::Metadata;
use metrics::Metrics;

/// The web page, plain HTML and JavaScript with no build step.
pub const PAGE: &str = include_str!("page.html");
/// The OpenAPI 3 description of the API.
pub const OPENAPI: &str = include_str!("openapi.json");

/// How to run the server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Index files.
    pub indexes: Vec<PathBuf>,
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Page cache budget in bytes (0: no cache).
    pub cache_bytes: u64,
    /// Stream the indexes into the cache after start-up.
    pub warm: bool,
    /// Searches running at once.
    pub max_concurrent: usize,
    /// Searches waiting for a turn before new ones are turned away with 503.
    pub max_queued: usize,
    /// Bases per query.
    pub max_query_bases: usize,
    /// Deadline of a request.
    pub request_timeout: Duration,
    /// Search worker threads.
    pub workers: usize,
    /// Engine settings.
    pub engine: EngineOptions,
    /// Metadata TSV keyed by document name.
    pub metadata: Option<PathBuf>,
}

impl ServerConfig {
    /// Largest request body accepted: every allowed query at its largest, JSON-escaped.
    pub fn body_bytes_max(&self) -> usize {
        (self.max_query_bases + 256)
            .saturating_mul(api::QUERIES_PER_REQUEST_MAX)
            .clamp(1 << 20, 256 << 20)
    }
}

/// What the server knows about one index.
pub struct IndexEntry {
    /// Name used in requests and results (file name without extension, made unique).
    pub name: String,
    /// File path as given.
    pub file: String,
    /// `compact` or `classic`.
    pub format: &'static str,
    /// Document names.
    pub names: DocumentNames,
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions.
    pub hashes: u32,
    /// Blocks.
    pub blocks: usize,
    /// Bytes per row.
    pub page_size: u64,
    /// File size.
    pub file_size: u64,
}

/// State shared by all handlers.
pub struct AppState {
    /// Settings.
    pub config: ServerConfig,
    /// The indexes, in searcher order.
    pub indexes: Vec<IndexEntry>,
    /// Document metadata.
    pub metadata: Metadata,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// The shared page cache.
    pub cache: Option<Arc<PageCache>>,
    /// The search workers.
    pub dispatcher: Dispatcher,
    /// Permits for running searches.
    pub permits: Arc<tokio::sync::Semaphore>,
    /// Requests waiting for a permit.
    pub waiting: AtomicUsize,
    /// Start time.
    pub started: Instant,
}

impl AppState {
    /// The selection mask for index `names`, or an error naming the unknown one.
    pub fn select(&self, names: &[String]) -> Result<Vec<bool>, String> {
        let mut mask = vec![false; self.indexes.len()];
        for name in names {
            match self.indexes.iter().position(|i| &i.name == name) {
                Some(position) => mask[position] = true,
                None => {
                    let known: Vec<&str> = self.indexes.iter().map(|i| i.name.as_str()).collect();
                    return Err(format!(
                        "unknown index {name:?}; this server has: {}",
                        known.join(", ")
                    ));
                }
            }
        }
        if names.is_empty() {
            return Err("\"indexes\" is empty; leave it out to search all indexes".into());
        }
        Ok(mask)
    }
}

/// Unique names for index files: the file name without extension, numbered on clashes.
fn index_names(paths: &[PathBuf]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(paths.len());
    for path in paths {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "index".into());
        let mut name = stem.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        names.push(name);
    }
    names
}

/// Opens everything and returns the router and state (so tests can serve it themselves).
pub fn build(config: ServerConfig) -> Result<(Router, Arc<AppState>, Option<Warmup>), String> {
    let cache =
        (config.cache_bytes > 0).then(|| Arc::new(PageCache::new(config.cache_bytes, 4096)));
    let metrics = Arc::new(Metrics::default());
    let workers = config.workers.max(1);
    let mut searchers = Vec::with_capacity(workers);
    for _ in 0..workers {
        let mut searcher =
            Searcher::open_with(&config.indexes, &HeaderOptions::default(), &config.engine)
                .map_err(|e| e.to_string())?;
        if searchers.is_empty() {
            if let Some(notice) = searcher.notice() {
                tracing::warn!("{notice}");
            }
        }
        searcher.set_cache(cache.clone());
        searchers.push(searcher);
    }
    let names = index_names(&config.indexes);
    let indexes: Vec<IndexEntry> = searchers[0]
        .headers()
        .zip(names)
        .map(|(header, name)| IndexEntry {
            name,
            file: header.path.display().to_string(),
            format: header.kind.as_str(),
            names: header.names.clone(),
            k: header.k,
            canonical: header.canonical,
            hashes: header.num_hashes,
            blocks: header.blocks.len(),
            page_size: header.page_size,
            file_size: header.file_size,
        })
        .collect();
    let warm_ranges = searchers[0].warm_ranges();
    let metadata = match &config.metadata {
        Some(path) => Metadata::load(path).map_err(|e| e.to_string())?,
        None => Metadata::default(),
    };
    let dispatcher = Dispatcher::start(
        searchers,
        metrics.clone(),
        config.max_concurrent + config.max_queued,
    );
    let warmup = match (&cache, config.warm) {
        (Some(cache), true) => Some(Warmup::start(warm_ranges, cache.clone())),
        _ => None,
    };
    let state = Arc::new(AppState {
        permits: Arc::new(tokio::sync::Semaphore::new(config.max_concurrent.max(1))),
        waiting: AtomicUsize::new(0),
        started: Instant::now(),
        config,
        indexes,
        metadata,
        metrics,
        cache,
        dispatcher,
    });
    let router = Router::new()
        .route("/", get(api::page))
        .route("/api/search", post(api::search))
        .route("/api/indexes", get(api::indexes))
        .route("/api/openapi.json", get(api::openapi))
        .route("/healthz", get(api::health))
        .route("/metrics", get(api::metrics))
        .fallback(api::not_found)
        .with_state(state.clone());
    Ok((router, state, warmup))
}

/// Runs the server until SIGINT or SIGTERM, then finishes the requests in flight.
pub fn run(config: ServerConfig) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_name("bitsift-http")
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async move {
        let listen = config.listen;
        let (router, state, warmup) = build(config)?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        let documents: usize = state.indexes.iter().map(|i| i.names.len()).sum();
        eprintln!(
            "bitsift: serving {}, {}, on http://{address}/ (Ctrl-C to stop)",
            crate::units::plural(state.indexes.len() as u64, "index"),
            crate::units::plural(documents as u64, "document")
        );
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown_signal())
            .await
            .map_err(|e| format!("server error: {e}"))?;
        eprintln!("bitsift: stopped; requests in flight were answered");
        if let Some(warmup) = warmup {
            warmup.stop();
        }
        Ok(())
    })
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {},
            _ = terminate.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_names_are_unique() {
        let paths: Vec<PathBuf> = ["a/x.cobs_compact", "b/x.cobs_compact", "y.cobs_classic"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(index_names(&paths), vec!["x", "x_2", "y"]);
    }
}
