//! Connections: an accept loop that bounds what clients can hold.
//!
//! - **A connection limit.** At most `max_connections` are open. When the limit is reached, a
//!   new connection evicts the connection that has been idle longest (no request in flight);
//!   only when every connection is busy is the new one refused, with a 503. So a thousand
//!   idle connections cannot keep `/healthz` or a search from being answered, and the server
//!   never runs out of file descriptors (issue 12: 1,100 idle connections under
//!   `ulimit -n 1024` stopped it answering).
//! - **Timeouts.** A request head must arrive within the header timeout (hyper's
//!   `header_read_timeout`, which also runs while a kept-alive connection waits for its next
//!   request); a connection with no request in flight and no bytes moving for the idle timeout
//!   is closed. Bodies have their own deadline ([`super::body`]).
//! - **Graceful shutdown.** When the shutdown signal comes, the listener closes, idle and
//!   half-sent connections close at once, requests in flight are answered (their connections
//!   then close), and whatever is still open when the grace period ends is cut.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;

use super::metrics::{ConnectionClose, ConnectionRefusal, Metrics};

/// Connections at most by default, when the open-files limit allows that many.
pub(crate) const MAX_CONNECTIONS_DEFAULT: usize = 1024;

/// Bounds on connections.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConnectionLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Time allowed for a request head, from when the connection is ready for one.
    pub header_timeout: Duration,
    /// A connection with no request in flight and no bytes moving is closed after this.
    pub idle_timeout: Duration,
}

/// File descriptors this process can still open, keeping a reserve for everything else
/// (index files opened later, `/proc` reads, the listener's next accept). `None` when the
/// limit or the open descriptors cannot be read.
pub(crate) fn descriptors_free() -> Option<usize> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return None;
    }
    let soft = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
    let open = std::fs::read_dir("/proc/self/fd").ok()?.count();
    let free = soft.saturating_sub(open);
    Some(free.saturating_sub(16 + free / 16))
}

/// The address of the client that sent a request (in the request's extensions).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Peer(pub std::net::SocketAddr);

/// What [`serve`] did at shutdown.
#[derive(Debug)]
pub(crate) struct Drained {
    /// Connections still open when the grace period ended, and cut.
    pub cut: usize,
    /// When the shutdown began: the grace period counts from here.
    pub stopping: Instant,
}

/// Serves `router` on `listener` until `shutdown` completes, then drains: it waits for the
/// requests in flight until `grace` has passed or `hurry` completes (a second signal), and
/// cuts what is left.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
    hurry: impl Future<Output = ()>,
) -> Drained {
    assert!(limits.max_connections > 0, "at least one connection");
    let registry = Arc::new(Registry::default());
    let (stop, stopping) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let service = TowerToHyperService::new(router);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let connection = Connection {
        builder,
        service,
        limits,
        stopping,
    };
    tokio::pin!(shutdown);
    loop {
        while tasks.try_join_next().is_some() {}
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                if registry.len() >= limits.max_connections && !registry.evict_idle() {
                    metrics.connection_refused(ConnectionRefusal::Limit);
                    refuse(&stream);
                    continue;
                }
                let tracker = registry.add();
                metrics.connection_opened();
                let registry = registry.clone();
                let connection = connection.clone();
                let metrics = metrics.clone();
                tasks.spawn(async move {
                    let why = connection.run(stream, tracker.clone()).await;
                    registry.remove(tracker.id);
                    metrics.connection_ended(why);
                });
            }
            Err(error) => {
                // Out of descriptors (EMFILE, ENFILE) or a connection reset before it was
                // accepted. Make room if we can and do not spin.
                tracing::debug!("accept failed: {error}");
                metrics.connection_refused(ConnectionRefusal::AcceptError);
                registry.evict_idle();
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    drop(listener);
    let stopping = Instant::now();
    let _ = stop.send(true);
    let cut = drain(tasks, grace, hurry, &metrics).await;
    Drained { cut, stopping }
}

/// Waits for the connection tasks to end, at most `grace` or until `hurry`, then cuts the
/// rest; returns how many it cut.
async fn drain(
    mut tasks: JoinSet<()>,
    grace: Duration,
    hurry: impl Future<Output = ()>,
    metrics: &Metrics,
) -> usize {
    let all_done = async { while tasks.join_next().await.is_some() {} };
    let finished = tokio::select! {
        _ = all_done => true,
        _ = tokio::time::sleep(grace) => false,
        _ = hurry => false,
    };
    if finished {
        return 0;
    }
    let cut = tasks.len();
    metrics.connection_closed(ConnectionClose::GraceExpired, cut as u64);
    tasks.shutdown().await;
    cut
}

/// Tells a refused client why, without waiting for it (the socket closes right after).
fn refuse(stream: &TcpStream) {
    const BODY: &str =
        r#"{"error":"the server has too many open connections; retry in a moment","status":503}"#;
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{BODY}",
        BODY.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

/// What every connection task needs.
#[derive(Clone)]
struct Connection {
    builder: http1::Builder,
    service: TowerToHyperService<Router>,
    limits: ConnectionLimits,
    stopping: watch::Receiver<bool>,
}

impl Connection {
    /// Serves one connection; returns why the server closed it, if it did.
    async fn run(mut self, stream: TcpStream, tracker: Arc<Tracker>) -> Option<ConnectionClose> {
        let peer = stream.peer_addr().ok().map(Peer);
        let io = TokioIo::new(Tracked {
            inner: stream,
            tracker: tracker.clone(),
        });
        let service = self.service.clone();
        let busy = tracker.clone();
        // The router, with every request counted in flight on this connection.
        let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
            if let Some(peer) = peer {
                request.extensions_mut().insert(peer);
            }
            let guard = busy.enter();
            let call = hyper::service::Service::call(&service, request);
            async move {
                let response = call.await;
                drop(guard);
                response
            }
        });
        let connection = self.builder.serve_connection(io, service);
        tokio::pin!(connection);
        let idle_timeout = self.limits.idle_timeout;
        let mut draining = false;
        loop {
            let idle_at = tracker.idle_deadline(idle_timeout);
            tokio::select! {
                result = connection.as_mut() => return ended(result, draining, &tracker),
                _ = tracker.evict.notified() => {
                    if tracker.is_idle() {
                        return Some(ConnectionClose::Evicted);
                    }
                    connection.as_mut().graceful_shutdown();
                }
                _ = self.stopping.changed(), if !draining => {
                    draining = true;
                    if tracker.is_idle() {
                        return Some(ConnectionClose::Shutdown);
                    }
                    // Answer the request in flight, then close.
                    connection.as_mut().graceful_shutdown();
                }
                _ = tokio::time::sleep_until(idle_at.into()) => {
                    if tracker.is_idle() && tracker.quiet_for() >= idle_timeout {
                        return Some(if draining {
                            ConnectionClose::Shutdown
                        } else {
                            ConnectionClose::IdleTimeout
                        });
                    }
                }
            }
        }
    }
}

/// Why the server closed a connection that ended by itself, if it did.
fn ended(result: hyper::Result<()>, draining: bool, tracker: &Tracker) -> Option<ConnectionClose> {
    match result {
        Err(e) if e.is_timeout() => Some(ConnectionClose::HeaderTimeout),
        Err(e) => {
            tracing::debug!("connection ended: {e}");
            None
        }
        Ok(()) if draining => Some(ConnectionClose::Shutdown),
        Ok(()) if tracker.evicted.load(Ordering::Relaxed) => Some(ConnectionClose::Evicted),
        Ok(()) => None,
    }
}

/// What the server knows about one open connection.
#[derive(Debug)]
struct Tracker {
    id: u64,
    epoch: Instant,
    /// Requests being answered on this connection.
    busy: AtomicU32,
    /// Milliseconds since `epoch` of the last byte moved or request finished.
    active_ms: AtomicU64,
    /// Set once the connection was chosen for eviction.
    evicted: AtomicBool,
    evict: Notify,
}

impl Tracker {
    fn touch(&self) {
        let ms = self.epoch.elapsed().as_millis() as u64;
        self.active_ms.fetch_max(ms, Ordering::Relaxed);
    }

    fn is_idle(&self) -> bool {
        self.busy.load(Ordering::Acquire) == 0
    }

    fn quiet_for(&self) -> Duration {
        let now = self.epoch.elapsed();
        now.saturating_sub(Duration::from_millis(
            self.active_ms.load(Ordering::Relaxed),
        ))
    }

    /// When the connection would become idle-expired: from its last activity when idle, or
    /// one timeout from now (to look again) while a request is in flight.
    fn idle_deadline(&self, idle_timeout: Duration) -> Instant {
        let now = Instant::now();
        if self.is_idle() {
            now + idle_timeout.saturating_sub(self.quiet_for())
        } else {
            now + idle_timeout
        }
    }

    /// Marks a request in flight until the guard drops.
    fn enter(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::AcqRel);
        self.touch();
        Busy(self.clone())
    }
}

/// A request in flight on a connection.
struct Busy(Arc<Tracker>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        let before = self.0.busy.fetch_sub(1, Ordering::AcqRel);
        debug_assert!(before > 0, "busy count underflow");
    }
}

/// The open connections, for the limit and for eviction.
#[derive(Debug)]
struct Registry {
    epoch: Instant,
    next_id: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Tracker>>>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry {
            epoch: Instant::now(),
            next_id: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        }
    }
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Tracker>>> {
        // A panic while holding the lock leaves a consistent map (inserts and removes only).
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Connections counted against the limit (evicted ones are no longer counted).
    fn len(&self) -> usize {
        self.lock().len()
    }

    fn add(&self) -> Arc<Tracker> {
        let tracker = Arc::new(Tracker {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            epoch: self.epoch,
            busy: AtomicU32::new(0),
            active_ms: AtomicU64::new(0),
            evicted: AtomicBool::new(false),
            evict: Notify::new(),
        });
        tracker.touch();
        self.lock().insert(tracker.id, tracker.clone());
        tracker
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Asks the connection idle longest to close, and stops counting it. False when every
    /// connection has a request in flight.
    fn evict_idle(&self) -> bool {
        let mut open = self.lock();
        let victim = open
            .values()
            .filter(|t| t.is_idle() && !t.evicted.load(Ordering::Relaxed))
            .min_by_key(|t| t.active_ms.load(Ordering::Relaxed))
            .cloned();
        let Some(victim) = victim else {
            return false;
        };
        victim.evicted.store(true, Ordering::Relaxed);
        open.remove(&victim.id);
        drop(open);
        // notify_one stores the wake-up if the task is not waiting right now.
        victim.evict.notify_one();
        tracing::debug!(
            "connection limit reached: closing idle connection {}",
            victim.id
        );
        true
    }
}

/// A socket that records when bytes move, for the idle timeout and for eviction order.
struct Tracked {
    inner: TcpStream,
    tracker: Arc<Tracker>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.tracker.touch();
        }
        result
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.tracker.touch();
        }
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.tracker.touch();
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
