//! `bitsift serve`: a search server with a JSON API and a web page.
//!
//! Requests are parsed and validated on the async threads ([`api`]); the searching runs on
//! dedicated worker threads ([`dispatch`]), each with its own engine and all sharing one
//! memory-bounded page cache, and requests overlapping in time share I/O batches. Admission
//! control bounds the work in progress (`--max-concurrent` running, a bounded queue waiting,
//! 503 with `Retry-After` beyond) in two lanes, small requests apart from panels ([`lanes`]),
//! and per client ([`clients`]: 429 with `Retry-After` for a client over its share); every
//! request has a deadline and an id in the logs (never its sequences).
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
pub(crate) mod answer_cache;
pub(crate) mod api;
mod api_error;
pub(crate) mod body;
pub(crate) mod clients;
pub(crate) mod connections;
pub(crate) mod dispatch;
pub(crate) mod lanes;
pub(crate) mod metadata;
pub(crate) mod metrics;
mod request;
pub(crate) mod view;
pub(crate) mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;

use crate::collection::CollectionError;
use crate::io::EngineOptions;
use crate::query::OpenError;
use body::{BodyBudget, BodyLimits};
use clients::Clients;
pub use clients::{ClientLimits, CLIENT_BASES_DEFAULT, CLIENT_REQUESTS_DEFAULT};
use connections::{ConnectionLimits, MAX_CONNECTIONS_DEFAULT};
use lanes::Lanes;
use metadata::Metadata;
use metrics::Metrics;
pub(crate) use view::{IndexSources, SelectError, Trigger, View, Views};

/// The web page, plain HTML and JavaScript with no build step.
pub(crate) const PAGE: &str = include_str!("page.html");
/// The OpenAPI 3 description of the API.
pub(crate) const OPENAPI: &str = include_str!("openapi.json");

/// How to run the server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// What to serve: index files, directories, collections (expanded by
    /// [`crate::collection::SearchSet`] at start-up and at every reload). A collection is
    /// served under its directory's name, whatever its sub-indexes.
    pub sources: IndexSources,
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
    /// Searches waiting for a turn (in each lane) before new ones are turned away with 503.
    pub max_queued: usize,
    /// What one client may have in flight before its requests are turned away with 429.
    pub client_limits: ClientLimits,
    /// Bytes of answers kept for repeated queries (0: none); see [`answer_cache`].
    pub answer_cache_bytes: u64,
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
    pub(crate) fn body_memory_bytes(&self) -> u64 {
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
    /// The paths given could not be expanded, or a collection's files disagree with its
    /// manifest.
    #[error(transparent)]
    Collection(#[from] CollectionError),
    /// No index could be opened (with `skip_broken`).
    #[error("no index could be opened:\n{0}")]
    NothingToServe(String),
    /// An index file's identity could not be read.
    #[error(transparent)]
    Identity(#[from] crate::IoAt),
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

/// An index that could not be opened (with `skip_broken`).
#[derive(Clone, Debug)]
pub(crate) struct UnavailableIndex {
    /// Name it would have had.
    pub name: String,
    /// File path as given.
    pub file: String,
    /// Why it could not be opened.
    pub error: String,
}

/// State shared by all handlers.
pub(crate) struct AppState {
    /// Settings.
    pub config: ServerConfig,
    /// What is served now; see [`view`].
    pub views: Views,
    /// Memory for request bodies.
    pub body_budget: BodyBudget,
    /// Document metadata.
    pub metadata: Metadata,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Turns and queues of the small and panel lanes.
    pub lanes: Lanes,
    /// Every client's requests in flight.
    pub clients: Arc<Clients>,
    /// The id of the last search request (for the logs and `X-Request-Id`).
    pub request_ids: AtomicU64,
    /// Answers of repeated queries, for the view they came from.
    pub answers: answer_cache::AnswerCache,
    /// Start time.
    pub started: Instant,
    /// Whether a reload for a remote file changed on its server is under way.
    remote_reload: std::sync::atomic::AtomicBool,
}

impl AppState {
    /// Reopens what is served, in the background, when one of a search's `errors` was caused
    /// by a remote file changed on its server since it was opened
    /// ([`crate::io::source::RemoteChanged`], matched by type): the request that met it fails,
    /// the ones after it are answered from the new version. One such reload at a time.
    pub(crate) fn reload_if_changed<'a>(
        self: &Arc<Self>,
        mut errors: impl Iterator<Item = &'a crate::query::SearchError>,
    ) {
        use crate::io::source::RemoteChanged;
        use std::sync::atomic::Ordering;
        if !errors.any(|error| RemoteChanged::within(error))
            || self.remote_reload.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let state = self.clone();
        tokio::spawn(async move {
            match state.reload().await {
                Ok(view) => {
                    tracing::info!("reopened view {} after a remote file changed", view.number)
                }
                Err(failure) => tracing::warn!(
                    "cannot reopen after a remote file changed: {}",
                    failure.error
                ),
            }
            state.remote_reload.store(false, Ordering::Release);
        });
    }

    /// The view a request should use: the current one, replaced first when a followed
    /// collection's manifest changed (see [`view`]).
    pub(crate) async fn fresh_view(&self) -> Arc<View> {
        self.views.fresh(&self.config, &self.metrics).await
    }

    /// Opens a new view whatever changed (SIGHUP, `POST /api/reload`).
    pub(crate) async fn reload(&self) -> Result<Arc<View>, view::ReloadFailure> {
        self.views
            .reload(Trigger::Asked, &self.config, &self.metrics)
            .await
    }
}

/// Opens everything and returns the router and state (so tests can serve it themselves).
pub(crate) fn build(config: ServerConfig) -> Result<(Router, Arc<AppState>), ServerError> {
    let metrics = Arc::new(Metrics::default());
    let first = View::open(&config, 1, &metrics)?;
    let metadata = match &config.metadata {
        Some(path) => Metadata::load(path).map_err(|e| ServerError::Metadata(e.to_string()))?,
        None => Metadata::default(),
    };
    let body_budget =
        BodyBudget::new(usize::try_from(config.body_memory_bytes()).unwrap_or(usize::MAX));
    let state = Arc::new(AppState {
        lanes: Lanes::new(config.max_concurrent, config.max_queued),
        clients: Clients::new(config.client_limits),
        request_ids: AtomicU64::new(0),
        answers: answer_cache::AnswerCache::new(config.answer_cache_bytes),
        remote_reload: Default::default(),
        started: Instant::now(),
        config,
        views: Views::new(first),
        body_budget,
        metadata,
        metrics,
    });
    Ok((router(state.clone()), state))
}

fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(api::page))
        .route("/api/search", post(api::search))
        .route("/api/indexes", get(api::indexes))
        .route("/api/reload", post(api::reload))
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
/// the rest are cut. It follows its collections meanwhile, and reloads on SIGHUP.
pub fn run(config: ServerConfig) -> Result<(), ServerError> {
    return_large_buffers_to_the_system();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_name("bitsift-http")
        .build()
        .map_err(ServerError::Runtime)?;
    runtime.block_on(async move {
        let listen = config.listen;
        let grace = config.shutdown_grace;
        let (router, state) = build(config)?;
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
        let follower = tokio::spawn(follow(state.clone()));
        let hangups = tokio::spawn(reload_on_hangup(state.clone()));
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
        follower.abort();
        hangups.abort();
        let view = state.views.current();
        view.stop_warmup();
        let left = grace.saturating_sub(drained.stopping.elapsed());
        let searches_done = view.dispatcher.close(left);
        if drained.cut == 0 && searches_done {
            eprintln!("bitsift: stopped; requests in flight were answered");
        } else {
            eprintln!(
                "bitsift: stopped when the {} s grace period ran out (or a second signal came): {} connection(s) cut{}",
                grace.as_secs_f64(),
                drained.cut,
                if searches_done { "" } else { ", searches left unfinished" }
            );
        }
        Ok(())
    })
}

/// A server opens views again and again, and each open allocates and frees buffers of a few
/// MiB. glibc raises its mmap threshold to the size of the largest buffer freed, so later ones
/// come from the heap and stay there: 20 reloads of a 500 MB collection left 680 MiB of
/// freed memory resident. A fixed threshold of 128 KiB (which turns the raising off) gives
/// such buffers back when they are freed: 30 MiB after the same reloads. The search path
/// allocates nothing per row, so the cost is a few `mmap` calls per view and per batch.
fn return_large_buffers_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any thread is started.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}

/// How often an idle server looks at the manifests it follows (a request looks at once).
const FOLLOW_INTERVAL: Duration = Duration::from_secs(1);

/// Follows the collections while no request comes, so an idle server moves to a new
/// generation too and releases the files a merge replaced.
async fn follow(state: Arc<AppState>) {
    let mut tick = tokio::time::interval(FOLLOW_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let view = state.views.current();
        view.ask_servers().await;
        if state.views.due(&view) {
            drop(view);
            let _ = state
                .views
                .reload(Trigger::Manifest, &state.config, &state.metrics)
                .await;
        }
    }
}

/// Opens a new view at every SIGHUP.
async fn reload_on_hangup(state: Arc<AppState>) {
    let Ok(mut hangup) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
    else {
        tracing::warn!("cannot listen for SIGHUP; reload with POST /api/reload");
        return;
    };
    while hangup.recv().await.is_some() {
        tracing::info!("SIGHUP: reloading the indexes");
        let _ = state.reload().await;
    }
}

fn announce(state: &AppState, address: SocketAddr, limits: &ConnectionLimits) {
    let view = state.views.current();
    let documents: u64 = view.indexes.iter().map(|i| i.documents).sum();
    tracing::info!(
        "at most {} connections, {} bytes of request body memory",
        limits.max_connections,
        state.body_budget.bytes()
    );
    eprintln!(
        "bitsift: serving {}, {}, on http://{address}/ (Ctrl-C to stop)",
        crate::units::plural(view.indexes.len() as u64, "index"),
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
