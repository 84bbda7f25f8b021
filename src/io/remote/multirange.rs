//! Many byte ranges of one file in one HTTP request (`Range: bytes=a-b,c-d,…`), where the
//! server accepts them: nginx and most static file servers answer `206` with a
//! `multipart/byteranges` body. `object_store` has no such request, so it is made here with
//! `reqwest` (the client `object_store` itself runs on), with the same timeouts, retries and
//! checks as a single range: `If-Match` with the ETag seen at open, a `412` or another size
//! in any part is "the file changed on the server", every part checked ([`super::byteranges`]).
//!
//! Whether a file's server accepts them is learnt from the first such request (the probe)
//! and remembered for the process: a `200` (ranges ignored: its body is never read), a
//! `416`, an answer lacking ranges or malformed, or a body larger than asked make the file
//! [`Support::No`], and its reads go back to single ranges. S3 has no multi-range requests:
//! only `http(s)://` files get a [`Transport`].

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::ops::Range;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};

use super::byteranges::{self, range_header};
use super::client::{changed, describe, Fetched, RemoteObject};
use super::options::options;
use super::window::Signal;

/// Whether a file's server answers multi-range requests, as learnt so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Support {
    /// Not asked yet.
    Unknown,
    /// The first multi-range request is in flight.
    Probing,
    /// The server answered one with the ranges.
    Yes,
    /// The server ignored, refused or garbled one: single ranges only.
    No,
}

/// The answer to one multi-range request: the status, the headers that matter and, for a
/// `206`, the body.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Content-Range` (single-part answers).
    pub content_range: Option<String>,
    /// `ETag`.
    pub etag: Option<String>,
    /// The body of a `206`; empty otherwise (never read).
    pub body: Bytes,
    /// Time from sending the request to its answer's head (the server's latency, whatever
    /// the size of the body).
    pub head_after: Duration,
}

/// Why no answer came.
#[derive(Debug)]
pub(crate) enum TransportError {
    /// No answer, a timeout, a dropped connection: worth retrying.
    Unanswered(String),
    /// The `206` body is longer than the ranges asked for can justify: not read further.
    TooLong(u64),
}

/// A future of a [`Transport`].
pub(crate) type Sending<'a> =
    Pin<Box<dyn Future<Output = Result<Answer, TransportError>> + Send + 'a>>;

/// Sends one multi-range request for a file.
pub(crate) trait Transport: Send + Sync {
    /// Asks for `ranges` with `If-Match: etag`; reads a `206` body of at most `cap` bytes.
    fn send<'a>(&'a self, ranges: &'a [Range<u64>], etag: Option<&'a str>, cap: u64)
        -> Sending<'a>;
}

/// What a multi-range fetch came to.
#[derive(Debug)]
pub(crate) enum Fetch {
    /// The bytes of every range, in order.
    Parts(Vec<Bytes>, Fetched),
    /// Read the ranges one by one: the server does not do it (now remembered), or answered
    /// with a status the single-range path reports as it always has (403, 404, …).
    Singles(Fetched),
}

/// What one answer means.
enum Verdict {
    Parts(Vec<Bytes>),
    /// The server does not do multi-range requests.
    Refused,
    /// A status for the single-range path to report.
    Defer,
    /// A transient failure (5xx, 429, 408).
    Retry(String),
}

/// The support state of every file asked so far, by URL.
fn states() -> &'static Mutex<HashMap<String, Support>> {
    static STATES: OnceLock<Mutex<HashMap<String, Support>>> = OnceLock::new();
    STATES.get_or_init(Default::default)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// What is known of `url`'s support.
pub(crate) fn support(url: &str) -> Support {
    lock(states()).get(url).copied().unwrap_or(Support::Unknown)
}

/// Whether the caller may send `url`'s probe now (it was not asked yet): the state becomes
/// [`Support::Probing`] until the probe's answer.
pub(crate) fn claim_probe(url: &str) -> bool {
    let mut states = lock(states());
    let state = states.entry(url.to_string()).or_insert(Support::Unknown);
    let claimed = *state == Support::Unknown;
    if claimed {
        *state = Support::Probing;
    }
    claimed
}

fn settle(url: &str, support: Support) {
    lock(states()).insert(url.to_string(), support);
}

/// After a probe that taught nothing (an error, or nothing to ask), another request may
/// probe.
pub(crate) fn unclaim(url: &str) {
    let mut states = lock(states());
    if states.get(url) == Some(&Support::Probing) {
        states.insert(url.to_string(), Support::Unknown);
    }
}

/// The largest `206` body accepted for ranges of `asked` bytes in `parts` ranges: the bytes,
/// each part's headers, and as much again for a server that coalesces across gaps.
fn body_cap(asked: u64, parts: usize) -> u64 {
    2 * asked + 512 * parts as u64 + (64 << 10)
}

/// Fetches `ranges` of `object` (sorted, non-empty, disjoint and not adjacent) in one
/// request through `transport`, retried as single ranges are; see the module documentation.
pub(crate) async fn fetch(
    object: &RemoteObject,
    transport: &dyn Transport,
    ranges: &[Range<u64>],
) -> io::Result<Fetch> {
    assert!(ranges.windows(2).all(|w| w[0].end < w[1].start));
    assert!(ranges
        .iter()
        .all(|r| r.start < r.end && r.end <= object.size));
    let asked: u64 = ranges.iter().map(|r| r.end - r.start).sum();
    let cap = body_cap(asked, ranges.len());
    let options = options();
    let first = Instant::now();
    let mut fetched = Fetched::default();
    let mut retries = 0;
    loop {
        let mut permit = object.window.acquire().await;
        let started = Instant::now();
        fetched.requests += 1;
        let answer = transport.send(ranges, object.etag.as_deref(), cap).await;
        fetched.elapsed += started.elapsed();
        permit.finish(match &answer {
            Ok(a) if matches!(a.status, 408 | 429 | 500..=599) => Signal::Failed,
            Ok(a) => Signal::Answered(a.head_after),
            Err(TransportError::TooLong(_)) => Signal::Answered(permit.elapsed()),
            Err(TransportError::Unanswered(_)) => Signal::Failed,
        });
        drop(permit);
        let verdict = match answer {
            Ok(answer) => {
                fetched.bytes += answer.body.len() as u64;
                judge(object, ranges, answer).inspect_err(|_| unclaim(&object.url))?
            }
            Err(TransportError::TooLong(len)) => {
                tracing::warn!(
                    "{}: a multi-range answer of {len} bytes for {asked}",
                    object.url
                );
                Verdict::Refused
            }
            Err(TransportError::Unanswered(why)) => Verdict::Retry(why),
        };
        match verdict {
            Verdict::Parts(parts) => {
                settle(&object.url, Support::Yes);
                return Ok(Fetch::Parts(parts, fetched));
            }
            Verdict::Refused => {
                tracing::info!("{}: single range requests from now on", object.url);
                settle(&object.url, Support::No);
                return Ok(Fetch::Singles(fetched));
            }
            Verdict::Defer => {
                unclaim(&object.url);
                return Ok(Fetch::Singles(fetched));
            }
            Verdict::Retry(why)
                if retries >= options.retries || first.elapsed() >= options.deadline =>
            {
                unclaim(&object.url);
                return Err(describe(io::Error::other(why)));
            }
            Verdict::Retry(_) => {}
        }
        tokio::time::sleep(backoff(retries)).await;
        retries += 1;
    }
}

/// The pause before retry `retry` (counted from 0): 100 ms doubling up to 2 s, as the
/// single-range client's `BackoffConfig`.
fn backoff(retry: usize) -> Duration {
    let millis = 100u64.saturating_mul(1 << retry.min(5));
    Duration::from_millis(millis.min(2_000))
}

/// What `answer` means; an error when the file changed.
fn judge(object: &RemoteObject, ranges: &[Range<u64>], answer: Answer) -> io::Result<Verdict> {
    match answer.status {
        206 => {}
        // 404, 410: gone since it was opened (a merge on the origin deletes the files it
        // replaced), a change like any other.
        404 | 410 | 412 => return Err(changed(object)),
        // 200: the ranges were ignored (the body, the whole file, is never read); 416: refused
        // (the ranges lie inside the file at open; a file that shrank is caught by the single
        // ranges' checks).
        200 | 416 => return Ok(Verdict::Refused),
        status @ (408 | 429 | 500..=599) => {
            return Ok(Verdict::Retry(format!(
                "request failed: HTTP status {status}"
            )))
        }
        _ => return Ok(Verdict::Defer),
    }
    if object.etag.is_some() && answer.etag.is_some() && answer.etag != object.etag {
        return Err(changed(object));
    }
    let content_type = answer.content_type.as_deref();
    let content_range = answer.content_range.as_deref();
    match byteranges::parse(
        ranges,
        object.size,
        content_type,
        content_range,
        &answer.body,
    ) {
        Ok(parts) => Ok(Verdict::Parts(parts)),
        Err(error) if error.changed() => Err(changed(object)),
        Err(error) => {
            tracing::warn!("{}: unusable multi-range answer: {error}", object.url);
            Ok(Verdict::Refused)
        }
    }
}

/// The transport of `object` when its server may take multi-range requests (`http(s)://`).
pub(crate) fn transport_for(object: &RemoteObject) -> io::Result<Option<Arc<dyn Transport>>> {
    if !(object.url.starts_with("http://") || object.url.starts_with("https://")) {
        return Ok(None);
    }
    let client = http_client()?;
    Ok(Some(Arc::new(HttpTransport {
        client,
        url: object.url.clone(),
    })))
}

/// The process's HTTP client for multi-range requests, made with the options in force.
fn http_client() -> io::Result<reqwest::Client> {
    static CLIENT: OnceLock<Mutex<Option<reqwest::Client>>> = OnceLock::new();
    let mut client = lock(CLIENT.get_or_init(Default::default));
    if let Some(client) = client.as_ref() {
        return Ok(client.clone());
    }
    let options = options();
    super::client::install_tls_provider();
    let made = reqwest::Client::builder()
        .timeout(options.timeout)
        .connect_timeout(options.timeout.min(Duration::from_secs(10)))
        .pool_max_idle_per_host(options.connections)
        .build()
        .map_err(|e| io::Error::other(format!("cannot make the HTTP client: {e}")))?;
    *client = Some(made.clone());
    Ok(made)
}

/// Multi-range requests over HTTP(S).
struct HttpTransport {
    client: reqwest::Client,
    url: String,
}

impl Transport for HttpTransport {
    fn send<'a>(
        &'a self,
        ranges: &'a [Range<u64>],
        etag: Option<&'a str>,
        cap: u64,
    ) -> Sending<'a> {
        Box::pin(async move {
            use reqwest::header::{CONTENT_RANGE, CONTENT_TYPE, ETAG, IF_MATCH, RANGE};
            let sent = Instant::now();
            let mut request = self
                .client
                .get(&self.url)
                .header(RANGE, range_header(ranges));
            if let Some(etag) = etag {
                request = request.header(IF_MATCH, etag);
            }
            let mut response = request.send().await.map_err(unanswered)?;
            let header = |name| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                    .map(str::to_string)
            };
            let mut answer = Answer {
                status: response.status().as_u16(),
                content_type: header(CONTENT_TYPE),
                content_range: header(CONTENT_RANGE),
                etag: header(ETAG),
                body: Bytes::new(),
                head_after: sent.elapsed(),
            };
            if answer.status != 206 {
                // Dropped unread: a 200 is the whole file.
                return Ok(answer);
            }
            if let Some(len) = response.content_length().filter(|&len| len > cap) {
                return Err(TransportError::TooLong(len));
            }
            let mut body = BytesMut::new();
            while let Some(chunk) = response.chunk().await.map_err(unanswered)? {
                body.extend_from_slice(&chunk);
                if body.len() as u64 > cap {
                    return Err(TransportError::TooLong(body.len() as u64));
                }
            }
            answer.body = body.freeze();
            Ok(answer)
        })
    }
}

/// A failed send, said so that [`describe`] names it.
fn unanswered(error: reqwest::Error) -> TransportError {
    let what = if error.is_timeout() {
        "timed out"
    } else {
        "error sending request"
    };
    TransportError::Unanswered(format!("{what}: {error}"))
}
