//! `bitsift serve`: a search server with a JSON API and a web page.
//!
//! Requests are parsed and validated on the async threads ([`api`]); the searching runs on
//! dedicated worker threads ([`dispatch`]), each with its own engine and all sharing one
//! memory-bounded page cache, and requests overlapping in time share I/O batches. Admission
//! control bounds the work in progress (`--max-concurrent` running, a bounded queue waiting,
//! 503 with `Retry-After` beyond); every request has a deadline.
//!
//! Clients are bounded too ([`connections`], [`body`]): a connection limit that evicts idle
//! connections first, header, body and idle timeouts, and a memory budget that request bodies
//! are charged against before they are read. SIGINT/SIGTERM close idle and half-sent
//! connections, answer the requests in flight, and exit within a grace period.
//!
//! Indexes are watched ([`watch`]): one changed on disk while served fails the requests that
//! search it and makes `/healthz` report the server unhealthy. With `skip_broken`, indexes
//! that cannot be opened are listed as unavailable and the others are served.
//!
//! Endpoints: `POST /api/search`, `GET /api/indexes`, `GET /api/openapi.json`,
//! `GET /healthz`, `GET /metrics` (Prometheus), `GET /` (the web page).

mod answer;
pub mod api;
pub mod body;
pub mod connections;
pub mod dispatch;
pub mod metadata;
pub mod metrics;
mod request;
pub mod watch;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;

use crate::format::HeaderOptions;
use crate::io::{EngineOptions, MemoryImage, PageCache, RowMemory, Warmup};
use crate::query::{
    Grouping, Index, IndexOptions, OpenError, Session as Searcher, SessionSetup, Sources,
};
use body::{BodyBudget, BodyLimits};
use connections::{ConnectionLimits, MAX_CONNECTIONS_DEFAULT};
use dispatch::Dispatcher;
use metadata::Metadata;
use metrics::Metrics;
use watch::IndexWatch;

/// The web page, plain HTML and JavaScript with no build step.
pub const PAGE: &str = include_str!("page.html");
/// The OpenAPI 3 description of the API.
pub const OPENAPI: &str = include_str!("openapi.json");

/// How to run the server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Index files.
    pub indexes: Vec<PathBuf>,
    /// Per index file, the documents never reported (a collection's removed documents and
    /// placeholders; see [`crate::collection::SearchSet`]). Missing entries hide nothing.
    pub hidden: Vec<Vec<u64>>,
    /// Per index file, the name of the collection it belongs to (`None` or missing: a file
    /// of its own). A collection is served under its name, whatever its sub-indexes.
    pub collections: Vec<Option<String>>,
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Page cache budget in bytes (0: no cache).
    pub cache_bytes: u64,
    /// Side memory budget: checksum and summary pages kept between requests.
    pub side_memory: u64,
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
    /// Serve the indexes that open, listing the others as unavailable, instead of failing.
    pub skip_broken: bool,
    /// Skip blocks their summaries rule out (loaded at start-up); `false` reads every block.
    pub summaries: bool,
    /// Memory for request bodies of all requests at once (`None`: see
    /// [`ServerConfig::body_memory_bytes`]).
    pub body_memory: Option<u64>,
    /// Time allowed for a request body to arrive.
    pub body_timeout: Duration,
    /// Connections open at once (`None`: [`MAX_CONNECTIONS_DEFAULT`], or fewer when the
    /// open-files limit does not allow that many).
    pub max_connections: Option<usize>,
    /// Time allowed for a request head.
    pub header_timeout: Duration,
    /// A connection with no request and no traffic is closed after this.
    pub idle_timeout: Duration,
    /// At shutdown, time given to requests in flight before their connections are cut.
    pub shutdown_grace: Duration,
}

/// Memory for request bodies beyond one largest body, by default: room for small requests
/// while a large one is read.
const BODY_MEMORY_SPARE: u64 = 64 << 20;

impl ServerConfig {
    /// Largest request body accepted: every allowed query at its largest, JSON-escaped, and
    /// never more than the body memory budget can hold.
    pub fn body_bytes_max(&self) -> usize {
        let queries = (self.max_query_bases + 256)
            .saturating_mul(request::QUERIES_PER_REQUEST_MAX)
            .clamp(1 << 20, 256 << 20);
        match self.body_memory {
            Some(bytes) => {
                let fits = usize::try_from(bytes).unwrap_or(usize::MAX) / body::CHARGE_PER_BYTE;
                queries.min(fits)
            }
            None => queries,
        }
    }

    /// The request body memory budget: as configured, or by default enough for one body of
    /// the largest size (and its parsed queries) plus 64 MiB for other requests.
    pub fn body_memory_bytes(&self) -> u64 {
        self.body_memory.unwrap_or_else(|| {
            (self.body_bytes_max() * body::CHARGE_PER_BYTE) as u64 + BODY_MEMORY_SPARE
        })
    }

    fn body_limits(&self) -> BodyLimits {
        BodyLimits {
            bytes_max: self.body_bytes_max(),
            timeout: self.body_timeout,
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// An index could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// No index could be opened (with `skip_broken`).
    #[error("no index could be opened:\n{0}")]
    NothingToServe(String),
    /// An index file's identity could not be read.
    #[error("{path}: cannot open: {source}")]
    Identity {
        /// The index file.
        path: PathBuf,
        /// What `stat` said.
        source: std::io::Error,
    },
    /// The metadata file could not be read.
    #[error("{0}")]
    Metadata(String),
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// The address.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// More connections were asked for than file descriptors are free.
    #[error("{wanted} connections need as many file descriptors, but only {free} are free under the open-files limit; raise the limit (ulimit -n) or allow fewer connections")]
    Descriptors {
        /// Connections asked for.
        wanted: usize,
        /// Descriptors free (after a reserve).
        free: usize,
    },
}

/// What the server knows about one index file.
pub struct IndexEntry {
    /// Name used in requests and results: its collection's, or the file name without
    /// extension (made unique).
    pub name: String,
    /// File path as given.
    pub file: String,
    /// `compact` or `classic`.
    pub format: &'static str,
    /// Documents searches may report (placeholders and removed documents left out).
    pub documents: u64,
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

/// An index that could not be opened (with `skip_broken`).
#[derive(Clone, Debug)]
pub struct UnavailableIndex {
    /// Name it would have had.
    pub name: String,
    /// File path as given.
    pub file: String,
    /// Why it could not be opened.
    pub error: String,
}

/// State shared by all handlers.
pub struct AppState {
    /// Settings.
    pub config: ServerConfig,
    /// The indexes, in searcher order.
    pub indexes: Vec<IndexEntry>,
    /// Indexes that could not be opened, in the order given.
    pub unavailable: Vec<UnavailableIndex>,
    /// File identities of `indexes`, to see them change on disk.
    pub watch: Arc<IndexWatch>,
    /// Memory for request bodies.
    pub body_budget: BodyBudget,
    /// Document metadata.
    pub metadata: Metadata,
    /// Groupings of the documents by a metadata column, made on first use per column.
    pub groupings: Mutex<HashMap<String, Arc<Grouping>>>,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// The shared page cache.
    pub cache: Option<Arc<PageCache>>,
    /// The image of the whole index, when the cache budget holds it.
    pub image: Option<Arc<MemoryImage>>,
    /// The index the workers share: its side memory is reported by `/metrics`.
    pub index: Arc<Index>,
    /// The search workers.
    pub dispatcher: Dispatcher,
    /// Permits for running searches.
    pub permits: Arc<tokio::sync::Semaphore>,
    /// Requests waiting for a permit.
    pub waiting: AtomicUsize,
    /// Start time.
    pub started: Instant,
}

/// Why a request's `indexes` cannot be searched.
#[derive(Debug, PartialEq, Eq)]
pub enum SelectError {
    /// The request is wrong: an unknown name, or an empty list.
    Invalid(String),
    /// A named index is known but cannot be searched now.
    Unavailable(String),
}

impl AppState {
    /// The grouping of the documents by `column` of the metadata, made on first use; an
    /// error when the server has no such column.
    pub fn grouping(&self, column: &str) -> Result<Arc<Grouping>, String> {
        if self.metadata.columns().is_empty() {
            return Err(format!(
                "cannot group by {column:?}: this server was started without a sample table"
            ));
        }
        let mut groupings = self.groupings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(grouping) = groupings.get(column) {
            return Ok(grouping.clone());
        }
        let grouping = Arc::new(Grouping::new(&self.index, &self.metadata, column)?);
        groupings.insert(column.to_string(), grouping.clone());
        Ok(grouping)
    }

    /// The selection mask for index `names`, or an error naming the unknown or unavailable one.
    pub fn select(&self, names: &[String]) -> Result<Vec<bool>, SelectError> {
        let mut mask = vec![false; self.indexes.len()];
        for name in names {
            let mut found = false;
            for (position, entry) in self.indexes.iter().enumerate() {
                if &entry.name == name {
                    mask[position] = true;
                    found = true;
                }
            }
            if found {
                continue;
            } else if let Some(broken) = self.unavailable.iter().find(|i| &i.name == name) {
                return Err(SelectError::Unavailable(format!(
                    "index {name:?} is unavailable: {}",
                    broken.error
                )));
            } else {
                let mut known: Vec<&str> = self.indexes.iter().map(|i| i.name.as_str()).collect();
                known.dedup();
                return Err(SelectError::Invalid(format!(
                    "unknown index {name:?}; this server has: {}",
                    known.join(", ")
                )));
            }
        }
        if names.is_empty() {
            return Err(SelectError::Invalid(
                "\"indexes\" is empty; leave it out to search all indexes".into(),
            ));
        }
        Ok(mask)
    }

    /// Looks at every index file now and returns the changed ones: (position, error text).
    pub fn changed_indexes(&self) -> Vec<(usize, &str)> {
        (0..self.watch.len())
            .filter_map(|i| self.watch.check(i).err().map(|e| (i, e)))
            .collect()
    }
}

/// The sources of files named `names` (files of one name are one source).
fn sources_of(names: &[String]) -> Sources {
    let mut sources = Sources::default();
    for name in names {
        let source = match sources.names.iter().position(|n| n == name) {
            Some(source) => source,
            None => {
                sources.names.push(name.clone());
                sources.names.len() - 1
            }
        };
        sources.of_file.push(source as u32);
    }
    sources
}

/// Names for index files, unique per source: a collection's files all take the
/// collection's name (`collections[i]`, its directory's name), other files their file name
/// without extension; a name taken by another source gets a number.
fn index_names(paths: &[PathBuf], collections: &[Option<String>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(paths.len());
    // Names given so far, each with the collection it stands for (`None`: a plain file).
    let mut taken: Vec<(String, Option<&str>)> = Vec::new();
    for (position, path) in paths.iter().enumerate() {
        let collection = collections.get(position).and_then(Option::as_deref);
        if let Some(c) = collection {
            if let Some((name, _)) = taken.iter().find(|(_, of)| *of == Some(c)) {
                names.push(name.clone());
                continue;
            }
        }
        let stem = collection.map(str::to_string).unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "index".into())
        });
        let mut name = stem.clone();
        let mut n = 2;
        while taken.iter().any(|(t, _)| *t == name) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        taken.push((name.clone(), collection));
        names.push(name);
    }
    names
}

/// The indexes a server will serve, and those it leaves out.
#[derive(Default)]
struct Sorted {
    /// Files to serve.
    paths: Vec<PathBuf>,
    /// Their hidden documents.
    hidden: Vec<Vec<u64>>,
    /// Their names.
    names: Vec<String>,
    /// Indexes left out.
    unavailable: Vec<UnavailableIndex>,
}

/// The indexes to serve: all of them, or with `skip_broken` those that open on their own,
/// the others listed with their error.
fn sort_out_broken(config: &ServerConfig) -> Result<Sorted, ServerError> {
    let names = index_names(&config.indexes, &config.collections);
    if !config.skip_broken {
        return Ok(Sorted {
            paths: config.indexes.clone(),
            hidden: config.hidden.clone(),
            names,
            unavailable: Vec::new(),
        });
    }
    let mut sorted = Sorted::default();
    for (position, (path, name)) in config.indexes.iter().zip(names).enumerate() {
        // Opening each index alone runs every check a searcher makes, and finds them all.
        let opened = Searcher::open_with(
            std::slice::from_ref(path),
            &HeaderOptions::default(),
            &config.engine,
        );
        match opened {
            Ok(_) => {
                sorted.paths.push(path.clone());
                sorted
                    .hidden
                    .push(config.hidden.get(position).cloned().unwrap_or_default());
                sorted.names.push(name);
            }
            Err(error) => {
                tracing::warn!("{error}; serving the other indexes without it");
                sorted.unavailable.push(UnavailableIndex {
                    name,
                    file: path.display().to_string(),
                    error: error.to_string(),
                });
            }
        }
    }
    if sorted.paths.is_empty() {
        let errors: Vec<&str> = sorted
            .unavailable
            .iter()
            .map(|u| u.error.as_str())
            .collect();
        return Err(ServerError::NothingToServe(errors.join("\n")));
    }
    Ok(sorted)
}

/// One searcher per worker over `paths`, sharing the memory of the cache budget: a paged
/// cache, or one image of the whole index when the budget holds it (see [`RowMemory`]).
fn open_searchers(
    paths: &[PathBuf],
    hidden: &[Vec<u64>],
    names: &[String],
    config: &ServerConfig,
) -> Result<(Vec<Searcher>, Option<RowMemory>), ServerError> {
    let workers = config.workers.max(1);
    // Headers, geometry and names are parsed once and shared; each worker adds its engine.
    let options = IndexOptions {
        side_memory: config.side_memory,
        sources: Some(sources_of(names)),
        ..IndexOptions::default()
    };
    let index = Index::open_with(paths, hidden, &options)?;
    if config.summaries {
        // Their headers were read at open; a summaries file that cannot be used leaves its
        // index searched in full.
        let summaries = index.summaries();
        for problem in summaries.problems() {
            tracing::warn!("{problem}");
        }
        if summaries.any() {
            tracing::info!(
                "block summaries: {} on disk, read page by page; side memory budget {}",
                crate::units::format_bytes(summaries.file_bytes()),
                crate::units::format_bytes(index.side_memory())
            );
        }
    }
    // Rows scored in memory spread over every core: the threads come from one shared pool,
    // so workers running at once share the cores instead of multiplying threads.
    let setup = SessionSetup::new(config.engine).with_memory(
        (config.cache_bytes > 0).then_some(config.cache_bytes),
        &index,
    );
    let mut searchers = Vec::with_capacity(workers);
    for _ in 0..workers {
        let searcher = setup.open(&index)?;
        if searchers.is_empty() {
            if let Some(notice) = searcher.notice() {
                tracing::warn!("{notice}");
            }
        }
        searchers.push(searcher);
    }
    Ok((searchers, setup.memory))
}

/// Opens everything and returns the router and state (so tests can serve it themselves).
pub fn build(config: ServerConfig) -> Result<(Router, Arc<AppState>, Option<Warmup>), ServerError> {
    let metrics = Arc::new(Metrics::default());
    let Sorted {
        paths,
        hidden,
        names,
        unavailable,
    } = sort_out_broken(&config)?;
    // Identities first: a change made while the files are being opened is seen.
    let watch = IndexWatch::capture(&paths)
        .map_err(|(path, source)| ServerError::Identity { path, source })?;
    let watch = Arc::new(watch);
    let (searchers, memory) = open_searchers(&paths, &hidden, &names, &config)?;
    let cache = memory.as_ref().and_then(|m| m.pages().cloned());
    let image = match &memory {
        Some(RowMemory::Image(image)) => Some(image.clone()),
        _ => None,
    };
    let mut indexes = index_entries(&searchers[0], names);
    let shared_index = searchers[0].index().clone();
    for (file, entry) in indexes.iter_mut().enumerate() {
        entry.documents = shared_index.shown_documents(file as u32);
    }
    let warm_ranges = searchers[0].warm_ranges();
    let metadata = match &config.metadata {
        Some(path) => Metadata::load(path).map_err(|e| ServerError::Metadata(e.to_string()))?,
        None => Metadata::default(),
    };
    let dispatcher = Dispatcher::start(
        searchers,
        metrics.clone(),
        config.max_concurrent + config.max_queued,
        watch.clone(),
    );
    let warmup = match (&cache, config.warm) {
        (Some(cache), true) => Some(Warmup::start_checked(
            warm_ranges,
            cache.clone(),
            Some(shared_index.warm_check()),
        )),
        _ => None,
    };
    let body_budget =
        BodyBudget::new(usize::try_from(config.body_memory_bytes()).unwrap_or(usize::MAX));
    let state = Arc::new(AppState {
        permits: Arc::new(tokio::sync::Semaphore::new(config.max_concurrent.max(1))),
        waiting: AtomicUsize::new(0),
        started: Instant::now(),
        config,
        indexes,
        unavailable,
        watch,
        body_budget,
        metadata,
        groupings: Mutex::new(HashMap::new()),
        metrics,
        cache,
        image,
        index: shared_index,
        dispatcher,
    });
    Ok((router(state.clone()), state, warmup))
}

/// What the server tells about each index of `searcher`, named `names`.
fn index_entries(searcher: &Searcher, names: Vec<String>) -> Vec<IndexEntry> {
    searcher
        .headers()
        .zip(names)
        .map(|(header, name)| IndexEntry {
            name,
            file: header.path.display().to_string(),
            format: header.kind.as_str(),
            documents: 0,
            k: header.k,
            canonical: header.canonical,
            hashes: header.num_hashes,
            blocks: header.blocks.len(),
            page_size: header.page_size,
            file_size: header.file_size,
        })
        .collect()
}

fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(api::page))
        .route("/api/search", post(api::search))
        .route("/api/indexes", get(api::indexes))
        .route("/api/openapi.json", get(api::openapi))
        .route("/healthz", get(api::health))
        .route("/metrics", get(api::metrics))
        .fallback(api::not_found)
        .with_state(state)
}

/// The connection limit: as configured, or the default within the free file descriptors.
fn connection_limits(config: &ServerConfig) -> Result<ConnectionLimits, ServerError> {
    let free = connections::descriptors_free();
    let max_connections = match (config.max_connections, free) {
        (Some(wanted), Some(free)) if wanted > free => {
            return Err(ServerError::Descriptors { wanted, free })
        }
        (Some(wanted), _) => wanted,
        (None, Some(free)) => MAX_CONNECTIONS_DEFAULT.min(free),
        (None, None) => MAX_CONNECTIONS_DEFAULT,
    };
    if max_connections == 0 {
        return Err(ServerError::Descriptors { wanted: 1, free: 0 });
    }
    Ok(ConnectionLimits {
        max_connections,
        header_timeout: config.header_timeout,
        idle_timeout: config.idle_timeout,
    })
}

/// Runs the server until SIGINT or SIGTERM, then drains it: idle and half-sent connections
/// close, requests in flight are answered, and after the grace period (or a second signal)
/// the rest are cut.
pub fn run(config: ServerConfig) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_name("bitsift-http")
        .build()
        .map_err(ServerError::Runtime)?;
    runtime.block_on(async move {
        let listen = config.listen;
        let grace = config.shutdown_grace;
        let (router, state, warmup) = build(config)?;
        let limits = connection_limits(&state.config)?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| ServerError::Listen {
                address: listen,
                source,
            })?;
        let address = listener
            .local_addr()
            .map_err(|source| ServerError::Listen {
                address: listen,
                source,
            })?;
        announce(&state, address, &limits);
        let stopping = Instant::now();
        let drained = connections::serve(
            listener,
            router,
            limits,
            state.metrics.clone(),
            shutdown_signal(),
            grace,
            async { shutdown_signal().await },
        )
        .await;
        let left = grace.saturating_sub(stopping.elapsed());
        let searches_done = state.dispatcher.close(left);
        if let Some(warmup) = warmup {
            warmup.stop();
        }
        if drained.cut == 0 && searches_done {
            eprintln!("bitsift: stopped; requests in flight were answered");
        } else {
            eprintln!(
                "bitsift: stopped after the {} s grace period; {} connection(s) cut",
                grace.as_secs_f64(),
                drained.cut
            );
        }
        Ok(())
    })
}

fn announce(state: &AppState, address: SocketAddr, limits: &ConnectionLimits) {
    let documents: u64 = state.indexes.iter().map(|i| i.documents).sum();
    tracing::info!(
        "at most {} connections, {} bytes of request body memory",
        limits.max_connections,
        state.body_budget.bytes()
    );
    eprintln!(
        "bitsift: serving {}, {}, on http://{address}/ (Ctrl-C to stop)",
        crate::units::plural(state.indexes.len() as u64, "index"),
        crate::units::plural(documents, "document")
    );
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
        assert_eq!(index_names(&paths, &[]), vec!["x", "x_2", "y"]);
        // A collection's files share its name; a file named like it gets a number.
        let files: Vec<PathBuf> = [
            "c/sub-1.cobs_compact",
            "c/sub-2.cobs_compact",
            "d/c.cobs_compact",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let of = [Some("c".to_string()), Some("c".to_string()), None];
        assert_eq!(index_names(&files, &of), vec!["c", "c", "c_2"]);
    }
}
