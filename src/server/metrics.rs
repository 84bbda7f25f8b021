//! Server metrics in the Prometheus text format: counters, gauges and a latency histogram,
//! all plain atomics so that recording costs nothing measurable.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::io::CacheStats;

/// Upper bounds (seconds) of the request latency histogram buckets.
const BUCKETS_SECONDS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Why a request was turned away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// Too many requests at once (503).
    Overload,
    /// Request or sequence too large (413).
    TooLarge,
    /// Malformed or invalid request (400).
    BadRequest,
    /// Did not finish before its deadline (504).
    Timeout,
    /// The client closed the connection before its request body was complete.
    ClientAborted,
    /// The request body did not arrive within the body timeout (408).
    BodyTimeout,
    /// Not enough of the request body memory budget was free (503).
    BodyMemory,
    /// A searched index is unavailable or changed on disk (503).
    IndexUnavailable,
    /// The client has its share in flight already (429).
    ClientLimit,
}

/// Every rejection reason, in the order of the counters.
const REJECTIONS: [Rejection; 9] = [
    Rejection::Overload,
    Rejection::TooLarge,
    Rejection::BadRequest,
    Rejection::Timeout,
    Rejection::ClientAborted,
    Rejection::BodyTimeout,
    Rejection::BodyMemory,
    Rejection::IndexUnavailable,
    Rejection::ClientLimit,
];

impl Rejection {
    fn label(self) -> &'static str {
        match self {
            Rejection::Overload => "overload",
            Rejection::TooLarge => "too_large",
            Rejection::BadRequest => "bad_request",
            Rejection::Timeout => "timeout",
            Rejection::ClientAborted => "client_aborted",
            Rejection::BodyTimeout => "body_timeout",
            Rejection::BodyMemory => "body_memory",
            Rejection::IndexUnavailable => "index_unavailable",
            Rejection::ClientLimit => "client_limit",
        }
    }
}

/// Why the server closed a connection (other than the client closing it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConnectionClose {
    /// The request head did not arrive within the header timeout.
    HeaderTimeout,
    /// No request and no bytes for the idle timeout.
    IdleTimeout,
    /// Closed while idle to make room for a new connection at the connection limit.
    Evicted,
    /// Closed at shutdown (idle, or after its request was answered).
    Shutdown,
    /// Still open when the shutdown grace period ended.
    GraceExpired,
}

const CONNECTION_CLOSES: [ConnectionClose; 5] = [
    ConnectionClose::HeaderTimeout,
    ConnectionClose::IdleTimeout,
    ConnectionClose::Evicted,
    ConnectionClose::Shutdown,
    ConnectionClose::GraceExpired,
];

impl ConnectionClose {
    fn label(self) -> &'static str {
        match self {
            ConnectionClose::HeaderTimeout => "header_timeout",
            ConnectionClose::IdleTimeout => "idle_timeout",
            ConnectionClose::Evicted => "evicted",
            ConnectionClose::Shutdown => "shutdown",
            ConnectionClose::GraceExpired => "grace_expired",
        }
    }
}

/// Why a connection was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConnectionRefusal {
    /// The connection limit was reached and no connection was idle.
    Limit,
    /// Accepting failed (out of file descriptors, for one).
    AcceptError,
}

/// All server counters.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    requests: AtomicU64,
    reloads: AtomicU64,
    reload_failures: AtomicU64,
    queries: AtomicU64,
    query_errors: AtomicU64,
    batches: AtomicU64,
    batch_queries: AtomicU64,
    bytes_read: AtomicU64,
    read_requests: AtomicU64,
    reads_pruned: AtomicU64,
    in_flight: AtomicU64,
    rejections: [AtomicU64; REJECTIONS.len()],
    connections_accepted: AtomicU64,
    connections_open: AtomicU64,
    connection_closes: [AtomicU64; CONNECTION_CLOSES.len()],
    connections_refused: [AtomicU64; 2],
    latency_buckets: [AtomicU64; BUCKETS_SECONDS.len()],
    latency_count: AtomicU64,
    latency_sum_micros: AtomicU64,
}

/// Keeps the in-flight gauge up while alive.
pub(crate) struct InFlight<'a>(&'a Metrics);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    /// Counts a search request entering; the guard counts it leaving.
    pub(crate) fn enter(&self) -> InFlight<'_> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(self)
    }

    /// Records a rejected request.
    pub(crate) fn reject(&self, why: Rejection) {
        self.rejections[why as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Records a reload: a new view opened (`opened`), or the current one kept.
    pub(crate) fn reloaded(&self, opened: bool) {
        let counter = if opened {
            &self.reloads
        } else {
            &self.reload_failures
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Records an answered request of `queries` queries taking `elapsed`.
    pub(crate) fn answered(&self, queries: u64, errors: u64, elapsed: Duration) {
        self.queries.fetch_add(queries, Ordering::Relaxed);
        self.query_errors.fetch_add(errors, Ordering::Relaxed);
        let seconds = elapsed.as_secs_f64();
        for (bucket, &bound) in self.latency_buckets.iter().zip(&BUCKETS_SECONDS) {
            if seconds <= bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_count.fetch_add(1, Ordering::Relaxed);
        self.latency_sum_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    /// Records one executed batch.
    pub(crate) fn batch(
        &self,
        queries: u64,
        bytes_read: u64,
        read_requests: u64,
        reads_pruned: u64,
    ) {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.batch_queries.fetch_add(queries, Ordering::Relaxed);
        self.bytes_read.fetch_add(bytes_read, Ordering::Relaxed);
        self.read_requests
            .fetch_add(read_requests, Ordering::Relaxed);
        self.reads_pruned.fetch_add(reads_pruned, Ordering::Relaxed);
    }

    /// Records an accepted connection; [`Metrics::connection_ended`] records its end.
    pub(crate) fn connection_opened(&self) {
        self.connections_accepted.fetch_add(1, Ordering::Relaxed);
        self.connections_open.fetch_add(1, Ordering::Relaxed);
    }

    /// Records the end of an accepted connection, and why the server closed it, if it did.
    pub(crate) fn connection_ended(&self, why: Option<ConnectionClose>) {
        self.connections_open.fetch_sub(1, Ordering::Relaxed);
        if let Some(why) = why {
            self.connection_closed(why, 1);
        }
    }

    /// Counts `count` connections closed by the server for `why` (without ending them).
    pub(crate) fn connection_closed(&self, why: ConnectionClose, count: u64) {
        self.connection_closes[why as usize].fetch_add(count, Ordering::Relaxed);
    }

    /// Records a refused connection.
    pub(crate) fn connection_refused(&self, why: ConnectionRefusal) {
        self.connections_refused[why as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Connections open now.
    pub(crate) fn connections_open(&self) -> u64 {
        self.connections_open.load(Ordering::Relaxed)
    }

    /// Requests being served now.
    pub(crate) fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::Relaxed)
    }

    /// The Prometheus text exposition.
    pub(crate) fn render(&self, cache: Option<CacheStats>, side: &SideMemory) -> String {
        let mut out = String::with_capacity(4096);
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut counter = |name: &str, help: &str, value: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
            );
        };
        counter(
            "bitsift_requests_total",
            "Search requests received.",
            get(&self.requests),
        );
        counter(
            "bitsift_queries_total",
            "Query sequences answered.",
            get(&self.queries),
        );
        counter(
            "bitsift_query_errors_total",
            "Query sequences that could not be answered (e.g. shorter than k).",
            get(&self.query_errors),
        );
        counter(
            "bitsift_reloads_total",
            "New views opened after start-up (a collection changed, SIGHUP, POST /api/reload).",
            get(&self.reloads),
        );
        counter(
            "bitsift_reload_failures_total",
            "Reloads that failed, leaving the previous view serving.",
            get(&self.reload_failures),
        );
        counter(
            "bitsift_batches_total",
            "I/O batches executed (requests overlapping in time share one).",
            get(&self.batches),
        );
        counter(
            "bitsift_batch_queries_total",
            "Queries executed in batches.",
            get(&self.batch_queries),
        );
        counter(
            "bitsift_bytes_read_total",
            "Bytes read from index files.",
            get(&self.bytes_read),
        );
        counter(
            "bitsift_read_requests_total",
            "Read operations issued.",
            get(&self.read_requests),
        );
        counter(
            "bitsift_reads_pruned_total",
            "Reads skipped because no document could reach the threshold.",
            get(&self.reads_pruned),
        );
        let _ = writeln!(out, "# HELP bitsift_in_flight_requests Search requests being served.\n# TYPE bitsift_in_flight_requests gauge\nbitsift_in_flight_requests {}", self.in_flight());
        let _ = writeln!(out, "# HELP bitsift_rejections_total Requests turned away, by reason.\n# TYPE bitsift_rejections_total counter");
        for why in REJECTIONS {
            let _ = writeln!(
                out,
                "bitsift_rejections_total{{reason=\"{}\"}} {}",
                why.label(),
                get(&self.rejections[why as usize])
            );
        }
        self.render_connections(&mut out);
        let _ = writeln!(out, "# HELP bitsift_request_duration_seconds Search request latency.\n# TYPE bitsift_request_duration_seconds histogram");
        for (bucket, bound) in self.latency_buckets.iter().zip(BUCKETS_SECONDS) {
            let _ = writeln!(
                out,
                "bitsift_request_duration_seconds_bucket{{le=\"{bound}\"}} {}",
                get(bucket)
            );
        }
        let count = get(&self.latency_count);
        let _ = writeln!(
            out,
            "bitsift_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            out,
            "bitsift_request_duration_seconds_sum {}",
            get(&self.latency_sum_micros) as f64 / 1e6
        );
        let _ = writeln!(out, "bitsift_request_duration_seconds_count {count}");
        if let Some(cache) = cache {
            let lookups = cache.hits + cache.misses;
            let ratio = if lookups == 0 {
                0.0
            } else {
                cache.hits as f64 / lookups as f64
            };
            let _ = writeln!(out, "# HELP bitsift_cache_hits_total Page cache hits.\n# TYPE bitsift_cache_hits_total counter\nbitsift_cache_hits_total {}", cache.hits);
            let _ = writeln!(out, "# HELP bitsift_cache_misses_total Page cache misses.\n# TYPE bitsift_cache_misses_total counter\nbitsift_cache_misses_total {}", cache.misses);
            let _ = writeln!(out, "# HELP bitsift_cache_hit_ratio Page cache hits / lookups since start.\n# TYPE bitsift_cache_hit_ratio gauge\nbitsift_cache_hit_ratio {ratio}");
            let _ = writeln!(out, "# HELP bitsift_cache_pages Pages held by the cache.\n# TYPE bitsift_cache_pages gauge\nbitsift_cache_pages {}", cache.pages);
            let _ = writeln!(out, "# HELP bitsift_cache_capacity_bytes Cache budget.\n# TYPE bitsift_cache_capacity_bytes gauge\nbitsift_cache_capacity_bytes {}", cache.capacity_bytes);
        }
        side.render(&mut out);
        if let Some(rss) = crate::io::usage::resident_bytes() {
            let _ = writeln!(out, "# HELP bitsift_resident_bytes Resident memory of the process.\n# TYPE bitsift_resident_bytes gauge\nbitsift_resident_bytes {rss}");
        }
        out
    }
}

/// The side memory of the served index: checksum and summary pages kept between requests.
#[derive(Clone, Debug, Default)]
pub(crate) struct SideMemory {
    /// The budget (`--side-memory`).
    pub budget_bytes: u64,
    /// The side cache, if the budget allows one.
    pub cache: Option<CacheStats>,
    /// Held outside the cache: summary headers, format-1 summaries, in-memory checksum maps.
    pub resident_bytes: u64,
}

impl SideMemory {
    fn render(&self, out: &mut String) {
        let mut gauge = |name: &str, help: &str, value: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
            );
        };
        gauge(
            "bitsift_side_memory_budget_bytes",
            "Side memory budget: checksum and block summary pages kept between requests.",
            self.budget_bytes,
        );
        gauge("bitsift_side_resident_bytes", "Side data held outside the side cache (summary headers, format-1 summaries, checksum maps of in-memory scoring).", self.resident_bytes);
        if let Some(cache) = &self.cache {
            gauge(
                "bitsift_side_cache_pages",
                "Side-file pages in the side cache.",
                cache.pages,
            );
            gauge(
                "bitsift_side_cache_bytes",
                "Bytes of the side cache's pages.",
                cache.pages * crate::read::SIDE_PAGE_BYTES,
            );
            let _ = writeln!(out, "# HELP bitsift_side_cache_hits_total Side-file pages found in the side cache.\n# TYPE bitsift_side_cache_hits_total counter\nbitsift_side_cache_hits_total {}", cache.hits);
            let _ = writeln!(out, "# HELP bitsift_side_cache_misses_total Side-file pages read.\n# TYPE bitsift_side_cache_misses_total counter\nbitsift_side_cache_misses_total {}", cache.misses);
        }
    }
}

impl Metrics {
    fn render_connections(&self, out: &mut String) {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let _ = writeln!(out, "# HELP bitsift_connections_accepted_total Connections accepted.\n# TYPE bitsift_connections_accepted_total counter\nbitsift_connections_accepted_total {}", get(&self.connections_accepted));
        let _ = writeln!(out, "# HELP bitsift_connections_open Connections open now.\n# TYPE bitsift_connections_open gauge\nbitsift_connections_open {}", self.connections_open());
        let _ = writeln!(out, "# HELP bitsift_connections_closed_total Connections closed by the server, by reason.\n# TYPE bitsift_connections_closed_total counter");
        for why in CONNECTION_CLOSES {
            let _ = writeln!(
                out,
                "bitsift_connections_closed_total{{reason=\"{}\"}} {}",
                why.label(),
                get(&self.connection_closes[why as usize])
            );
        }
        let _ = writeln!(out, "# HELP bitsift_connections_refused_total Connections refused: at the connection limit with none idle, or accept failed.\n# TYPE bitsift_connections_refused_total counter");
        for (why, label) in [
            (ConnectionRefusal::Limit, "limit"),
            (ConnectionRefusal::AcceptError, "accept_error"),
        ] {
            let _ = writeln!(
                out,
                "bitsift_connections_refused_total{{reason=\"{label}\"}} {}",
                get(&self.connections_refused[why as usize])
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        let metrics = Metrics::default();
        {
            let _guard = metrics.enter();
            assert_eq!(metrics.in_flight(), 1);
        }
        assert_eq!(metrics.in_flight(), 0);
        metrics.answered(2, 0, Duration::from_millis(30));
        metrics.reject(Rejection::Overload);
        metrics.reject(Rejection::ClientAborted);
        metrics.connection_opened();
        metrics.connection_opened();
        metrics.connection_ended(Some(ConnectionClose::HeaderTimeout));
        metrics.connection_refused(ConnectionRefusal::Limit);
        let text = metrics.render(None, &SideMemory::default());
        assert!(text.contains("bitsift_rejections_total{reason=\"client_aborted\"} 1"));
        assert!(text.contains("bitsift_rejections_total{reason=\"too_large\"} 0"));
        assert!(text.contains("bitsift_connections_accepted_total 2"));
        assert!(text.contains("bitsift_connections_open 1"));
        assert!(text.contains("bitsift_connections_closed_total{reason=\"header_timeout\"} 1"));
        assert!(text.contains("bitsift_connections_closed_total{reason=\"idle_timeout\"} 0"));
        assert!(text.contains("bitsift_connections_refused_total{reason=\"limit\"} 1"));
        assert!(text.contains("bitsift_queries_total 2"));
        assert!(text.contains("bitsift_rejections_total{reason=\"overload\"} 1"));
        assert!(text.contains("bitsift_request_duration_seconds_bucket{le=\"0.05\"} 1"));
        assert!(text.contains("bitsift_request_duration_seconds_bucket{le=\"0.025\"} 0"));
        assert!(text.contains("bitsift_request_duration_seconds_count 1"));
    }
}
