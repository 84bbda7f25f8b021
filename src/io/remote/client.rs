//! The clients: one small tokio runtime for the process, one `object_store` client per
//! server or bucket, and [`RemoteObject`], one file on a server, opened once (its size and
//! ETag) and read by byte ranges.
//!
//! Every read names the ETag seen at open (`If-Match`), and the ETag and size of every answer
//! are compared with them as well, so a file replaced on the server while in use fails its
//! reads with [`changed`] instead of mixing bytes of two versions.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use object_store::aws::AmazonS3Builder;
use object_store::http::HttpBuilder;
use object_store::path::Path as KeyPath;
use object_store::{BackoffConfig, ClientOptions, GetOptions, GetRange, ObjectStore, RetryConfig};

use super::config::{s3_settings, Auth};
use super::location::RemoteUrl;
use super::options::{options, RemoteOptions};
use super::window::{window_for, Signal, Window};

/// Worker threads of the runtime: requests are I/O-bound; two threads keep hundreds in
/// flight.
const RUNTIME_THREADS: usize = 2;

/// The process's runtime for remote requests, started on first use.
fn runtime() -> io::Result<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(RUNTIME_THREADS)
                .thread_name("bitsift-remote")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| io::Error::other(format!("cannot start the remote client runtime: {e}")))
}

/// Starts `task` on the runtime; it runs whatever the calling thread does.
pub(crate) fn spawn<F>(task: F) -> io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    runtime()?.spawn(task);
    Ok(())
}

/// Runs `task` on the runtime and waits for its result on the calling thread (which may be a
/// thread of another runtime: nothing here enters the caller's runtime).
pub(crate) fn wait<F, T>(task: F) -> io::Result<T>
where
    F: Future<Output = io::Result<T>> + Send + 'static,
    T: Send + 'static,
{
    let (send, receive) = crossbeam_channel::bounded(1);
    spawn(async move {
        let _ = send.send(task.await);
    })?;
    receive
        .recv()
        .map_err(|_| io::Error::other("the remote client runtime stopped"))?
}

/// One file on a server: where it is, its size and ETag at open.
pub(crate) struct RemoteObject {
    /// The URL as given.
    pub url: String,
    store: Arc<dyn ObjectStore>,
    key: KeyPath,
    /// Size at open.
    pub size: u64,
    /// ETag at open, when the server gives one.
    pub etag: Option<String>,
    /// The file's first bytes, fetched by the open itself, until a reader from the start
    /// takes them (see [`RemoteObject::take_first`]).
    first: Mutex<Option<Bytes>>,
    /// The requests in flight its server takes (shared by the files of one server).
    pub(super) window: Arc<Window>,
}

impl RemoteObject {
    /// The version of this file that the local cache keys its pages by.
    pub(crate) fn version(&self) -> super::cache::Version<'_> {
        super::cache::Version {
            url: &self.url,
            etag: self.etag.as_deref(),
            size: self.size,
        }
    }
}

impl std::fmt::Debug for RemoteObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteObject")
            .field("url", &self.url)
            .field("size", &self.size)
            .field("etag", &self.etag)
            .finish()
    }
}

/// What one range request cost.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Fetched {
    /// Requests sent (0 when the local cache served it).
    pub requests: u64,
    /// Bytes received from the server.
    pub bytes: u64,
    /// Time from sending to the last byte.
    pub elapsed: Duration,
}

impl RemoteObject {
    /// Opens `url`: its size and ETag (and its first 256 KiB) from one request the
    /// first time this process opens it, shared afterwards (the header parser, the side files and the engine all open
    /// the same files).
    pub(crate) fn open(url: &str) -> io::Result<Arc<RemoteObject>> {
        if let Some(object) = lock(opened()).get(url) {
            return Ok(object.clone());
        }
        if let Some(missing) = lock(missing()).remove(url) {
            return Err(io::Error::new(io::ErrorKind::NotFound, missing));
        }
        let parsed = RemoteUrl::parse(url)?;
        let store = store_for(&parsed)?;
        let url = url.to_string();
        let object = wait(async move { head(url, parsed, store).await.map_err(|(_, e)| e) })?;
        lock(opened()).insert(object.url.clone(), object.clone());
        Ok(object)
    }

    /// Forgets every file this process opened, so that the next open of each asks its
    /// server again. A server's new view must not reuse a version its origin has replaced
    /// since (a reload would fail on it, and the view it keeps would stay old); the views
    /// still serving keep the versions they hold.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn forget_all() {
        lock(opened()).clear();
    }

    /// Opens every URL of `urls` not yet open, all opens in flight at once: an index and
    /// its side files cost one round trip instead of one each. A file not found is noted for
    /// the next [`RemoteObject::open`] of it (once: a later open asks again); other failures
    /// are left for that open to meet and report.
    pub(crate) fn open_all(urls: &[String]) {
        let wanted: Vec<String> = {
            let opened = lock(opened());
            urls.iter()
                .filter(|url| !opened.contains_key(url.as_str()))
                .cloned()
                .collect()
        };
        let mut heads = Vec::with_capacity(wanted.len());
        for url in wanted {
            let Ok(parsed) = RemoteUrl::parse(&url) else {
                continue;
            };
            let Ok(store) = store_for(&parsed) else {
                continue;
            };
            heads.push(head(url, parsed, store));
        }
        let Ok(results) = wait(async move {
            let tasks: Vec<_> = heads.into_iter().map(tokio::spawn).collect();
            let mut results = Vec::with_capacity(tasks.len());
            for task in tasks {
                results.push(task.await.map_err(io::Error::other)?);
            }
            Ok(results)
        }) else {
            return;
        };
        for result in results {
            match result {
                Ok(object) => {
                    lock(opened()).insert(object.url.clone(), object);
                }
                Err((url, e)) if e.kind() == io::ErrorKind::NotFound => {
                    lock(missing()).insert(url, e.to_string());
                }
                Err(_) => {}
            }
        }
    }

    /// A file put into `store` under `key` with `bytes` and opened, for tests.
    #[cfg(test)]
    pub(crate) fn in_store(
        url: &str,
        store: Arc<dyn ObjectStore>,
        key: KeyPath,
        bytes: Vec<u8>,
    ) -> io::Result<Arc<RemoteObject>> {
        let (put_store, put_key) = (store.clone(), key.clone());
        let meta = wait(async move {
            put_store
                .put_opts(&put_key, bytes.into(), Default::default())
                .await
                .map_err(io::Error::from)?;
            let head = GetOptions {
                head: true,
                ..GetOptions::default()
            };
            let result = put_store.get_opts(&put_key, head).await;
            result.map(|r| r.meta).map_err(io::Error::from)
        })?;
        Ok(Arc::new(RemoteObject {
            url: url.to_string(),
            store,
            key,
            size: meta.size,
            etag: meta.e_tag,
            first: Mutex::new(None),
            window: Window::new(crate::io::REMOTE_DEPTH_DEFAULT as usize),
        }))
    }

    /// Replaces the file's bytes in its store (a file changed on the server), for tests.
    #[cfg(test)]
    pub(crate) fn replace_in_store(&self, bytes: Vec<u8>) -> io::Result<()> {
        let (store, key) = (self.store.clone(), self.key.clone());
        wait(async move {
            store
                .put_opts(&key, bytes.into(), Default::default())
                .await
                .map(|_| ())
                .map_err(io::Error::from)
        })
    }

    /// The file's first bytes as fetched by the open, once: the first sequential reader from
    /// the start takes them instead of asking again. `None` once taken. A file the open
    /// fetched whole (a small side file) keeps them: a later read of any part of it (the
    /// last bytes of a checksum file, say) then costs no request.
    pub(crate) fn take_first(&self) -> Option<Bytes> {
        let mut first = lock(&self.first);
        match &*first {
            Some(bytes) if bytes.len() as u64 == self.size => Some(bytes.clone()),
            _ => first.take(),
        }
    }

    /// The bytes of `range` from those the open fetched, if they are still held and cover it
    /// (a small side file read at an offset: its last bytes).
    pub(crate) fn held_first(&self, range: &Range<u64>) -> Option<Bytes> {
        let first = lock(&self.first);
        let bytes = first.as_ref()?;
        (range.end <= bytes.len() as u64)
            .then(|| bytes.slice(range.start as usize..range.end as usize))
    }

    /// The bytes of `range` (inside the file), checked: exactly the length asked for, from
    /// the version of the file seen at open. Served from the local cache when it holds them.
    pub(crate) async fn fetch(&self, range: Range<u64>) -> io::Result<(Bytes, Fetched)> {
        assert!(range.start <= range.end && range.end <= self.size);
        if let Some(bytes) = super::cache::lookup(self.version(), &range) {
            return Ok((bytes, Fetched::default()));
        }
        let wide = super::cache::widen(self.version(), &range);
        let started = Instant::now();
        let bytes = self.get(wide.clone()).await?;
        let fetched = Fetched {
            requests: 1,
            bytes: bytes.len() as u64,
            elapsed: started.elapsed(),
        };
        super::cache::store(self.version(), wide.start, &bytes);
        let from = (range.start - wide.start) as usize;
        let to = from + (range.end - range.start) as usize;
        Ok((bytes.slice(from..to), fetched))
    }

    /// One range request, checked (see [`RemoteObject::fetch`]), sent when the server's
    /// window has room for it.
    async fn get(&self, range: Range<u64>) -> io::Result<Bytes> {
        let options = GetOptions {
            range: Some(GetRange::Bounded(range.clone())),
            if_match: self.etag.clone(),
            ..GetOptions::default()
        };
        let mut permit = self.window.acquire().await;
        let answer = self.store.get_opts(&self.key, options).await;
        permit.finish(signal_of(&answer, permit.elapsed()));
        let result = match answer {
            Ok(result) => result,
            // Gone since it was opened (a merge on the origin deletes the files it replaced):
            // a change of the file like any other.
            Err(
                object_store::Error::Precondition { .. } | object_store::Error::NotFound { .. },
            ) => return Err(changed(self)),
            Err(e) => return Err(describe(e.into())),
        };
        if result.meta.size != self.size
            || (self.etag.is_some()
                && result.meta.e_tag.is_some()
                && result.meta.e_tag != self.etag)
        {
            return Err(changed(self));
        }
        let bytes = result.bytes().await.map_err(|e| {
            permit.finish(Signal::Failed);
            describe(e.into())
        })?;
        drop(permit);
        let want = range.end - range.start;
        if bytes.len() as u64 != want {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the server sent {} bytes for a range of {want} at offset {}",
                    bytes.len(),
                    range.start
                ),
            ));
        }
        Ok(bytes)
    }

    /// The bytes of `range`, waited for on the calling thread.
    pub(crate) fn fetch_blocking(
        self: &Arc<Self>,
        range: Range<u64>,
    ) -> io::Result<(Bytes, Fetched)> {
        let object = self.clone();
        wait(async move { object.fetch(range).await })
    }
}

/// The first window of a sequential run (and what an open fetches with the file's size).
pub(super) const FIRST_BYTES: u64 = 256 << 10;

/// Opens `url`: one request for its first [`FIRST_BYTES`] with its size and ETag (from the
/// `Content-Range` and `ETag` of the answer), which is what a `HEAD` gives plus the bytes every
/// open reads first (a header's start, a side file's preamble, a manifest's head). An empty
/// file, whose range cannot be satisfied, and any file when a local cache is in use, are
/// opened by a `HEAD`. A failure carries the URL back.
async fn head(
    url: String,
    parsed: RemoteUrl,
    store: Arc<dyn ObjectStore>,
) -> Result<Arc<RemoteObject>, (String, io::Error)> {
    let failed = |e: object_store::Error| (url.clone(), describe(e.into()));
    let head = || GetOptions {
        head: true,
        ..GetOptions::default()
    };
    let window = window_for(&parsed.store, options().connections);
    if options().cache.is_some() {
        // With a local cache the first bytes are most likely cached by an earlier run: a
        // `HEAD` checks the ETag without fetching them again.
        let meta = gated(&window, store.get_opts(&parsed.key, head()))
            .await
            .map_err(failed)?
            .meta;
        return Ok(remote_object(url, store, parsed.key, meta, window));
    }
    let first = GetOptions {
        range: Some(GetRange::Bounded(0..FIRST_BYTES)),
        ..GetOptions::default()
    };
    let mut permit = window.acquire().await;
    let answer = store.get_opts(&parsed.key, first).await;
    permit.finish(signal_of(&answer, permit.elapsed()));
    let (meta, bytes) = match answer {
        Ok(result) => {
            let meta = result.meta.clone();
            (meta, Some(result.bytes().await.map_err(failed)?))
        }
        Err(e) if unsatisfiable(&e) => {
            drop(permit);
            let meta = gated(&window, store.get_opts(&parsed.key, head()))
                .await
                .map_err(failed)?
                .meta;
            (meta, None)
        }
        Err(e) => return Err(failed(e)),
    };
    let object = remote_object(url, store, parsed.key, meta, window);
    if let Some(bytes) = bytes {
        let want = FIRST_BYTES.min(object.size);
        if bytes.len() as u64 != want {
            let e = io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the server sent {} bytes for the first {want}", bytes.len()),
            );
            return Err((object.url.clone(), e));
        }
        *lock(&object.first) = Some(bytes);
    }
    Ok(object)
}

fn remote_object(
    url: String,
    store: Arc<dyn ObjectStore>,
    key: KeyPath,
    meta: object_store::ObjectMeta,
    window: Arc<Window>,
) -> Arc<RemoteObject> {
    Arc::new(RemoteObject {
        url,
        store,
        key,
        size: meta.size,
        etag: meta.e_tag,
        first: Mutex::new(None),
        window,
    })
}

/// What an answer (or its absence) after `elapsed` says of the server's load: a status that
/// is the file's (not found, changed) is an answer like any other; other errors (server
/// errors, timeouts, refused or reset connections, after the client's retries) are failures.
fn signal_of<T>(answer: &Result<T, object_store::Error>, elapsed: Duration) -> Signal {
    match answer {
        Ok(_)
        | Err(
            object_store::Error::NotFound { .. }
            | object_store::Error::Precondition { .. }
            | object_store::Error::NotModified { .. },
        ) => Signal::Answered(elapsed),
        Err(e) if unsatisfiable(e) => Signal::Answered(elapsed),
        Err(_) => Signal::Failed,
    }
}

/// `request` sent when `window` has room for it.
async fn gated<T>(
    window: &Arc<Window>,
    request: impl Future<Output = Result<T, object_store::Error>>,
) -> Result<T, object_store::Error> {
    let mut permit = window.acquire().await;
    let answer = request.await;
    permit.finish(signal_of(&answer, permit.elapsed()));
    answer
}

/// Whether `error` is a range request refused because the file is empty (`416`).
fn unsatisfiable(error: &object_store::Error) -> bool {
    let text = error.to_string();
    text.contains("416") || text.contains("Range Not Satisfiable") || text.contains("InvalidRange")
}

/// Files found missing by [`RemoteObject::open_all`], by URL, with the error's text; each is
/// taken by the next open of its URL.
fn missing() -> &'static Mutex<HashMap<String, String>> {
    static MISSING: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    MISSING.get_or_init(Default::default)
}

/// The files this process opened, by URL.
fn opened() -> &'static Mutex<HashMap<String, Arc<RemoteObject>>> {
    static OPENED: OnceLock<Mutex<HashMap<String, Arc<RemoteObject>>>> = OnceLock::new();
    OPENED.get_or_init(Default::default)
}

/// What identifies one version of a remote file: its ETag (when the server gives one) and
/// size. A server that follows a remote collection compares its manifest's stamp now with the
/// one it read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
pub(crate) struct RemoteStamp {
    /// The ETag.
    pub etag: Option<String>,
    /// The size in bytes.
    pub size: u64,
}

impl RemoteObject {
    /// The stamp of the version opened.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn stamp(&self) -> RemoteStamp {
        RemoteStamp {
            etag: self.etag.clone(),
            size: self.size,
        }
    }

    /// The stamp of `url` on its server now, from a `HEAD` request (never from this process's
    /// opened files nor the local cache). When it differs from the version this process
    /// opened, that version is forgotten, so that the next open reads the new one.
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn stamp_now(url: &str) -> io::Result<RemoteStamp> {
        let parsed = RemoteUrl::parse(url)?;
        let store = store_for(&parsed)?;
        let meta = wait(async move {
            let head = GetOptions {
                head: true,
                ..GetOptions::default()
            };
            let result = store.get_opts(&parsed.key, head).await;
            result.map(|r| r.meta).map_err(|e| describe(e.into()))
        })?;
        let now = RemoteStamp {
            etag: meta.e_tag,
            size: meta.size,
        };
        let mut opened = lock(opened());
        if opened.get(url).is_some_and(|o| o.stamp() != now) {
            opened.remove(url);
        }
        Ok(now)
    }
}

/// The error of a file whose ETag or size differs from those seen at open. The file is
/// forgotten, so that opening it again (a server's reload) sees the new version.
pub(super) fn changed(object: &RemoteObject) -> io::Error {
    let mut opened = lock(opened());
    if opened
        .get(&object.url)
        .is_some_and(|o| o.etag == object.etag && o.size == object.size)
    {
        opened.remove(&object.url);
    }
    drop(opened);
    io::Error::other(crate::io::source::RemoteChanged {
        etag: object.etag.as_deref().unwrap_or("none").to_string(),
        size: object.size,
    })
}

/// `error` with what it means said first, keeping its kind (a missing file stays
/// `NotFound`, so a missing side file is simply absent).
pub(super) fn describe(error: io::Error) -> io::Error {
    let text = error.to_string();
    let kind = if has_status(&text, "403")
        || has_status(&text, "401")
        || text.contains("Forbidden")
        || text.contains("Access Denied")
        || text.contains("AccessDenied")
    {
        io::ErrorKind::PermissionDenied
    } else if has_status(&text, "404") && error.kind() == io::ErrorKind::Other {
        io::ErrorKind::NotFound
    } else {
        error.kind()
    };
    let unanswered = text.contains("error sending request") || text.contains("timed out");
    let what = match kind {
        io::ErrorKind::NotFound => "not found on the server",
        io::ErrorKind::PermissionDenied => "access denied by the server",
        _ if unanswered => "no answer from the server (timed out, or the connection failed)",
        _ if no_ranges(&text) => {
            return io::Error::new(kind, format!("{NO_RANGES} ({text})"));
        }
        _ => "request failed",
    };
    io::Error::new(kind, format!("{what}: {text}"))
}

/// What a server that cannot serve byte ranges is told, and what works instead.
pub(super) const NO_RANGES: &str = "the server does not serve byte ranges (it answered a range request with the whole file, as `python3 -m http.server` does): serve the index with a server that does, such as nginx or caddy, or from an object store (S3, MinIO, Google Cloud Storage, Azure Blob)";

/// Whether `text` is object_store's error for a server that does not serve ranges: one
/// that does not say `Accept-Ranges: bytes`, or answers without the range asked for.
fn no_ranges(text: &str) -> bool {
    let text = text.to_lowercase();
    text.contains("range request not supported")
        || text.contains("non-partial response when range requested")
        || text.contains("content-range header not present")
}

/// Whether `text` holds the HTTP status `code` as a word of its own (not inside a number, as
/// in a duration "4.104647403s").
fn has_status(text: &str, code: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(code).any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + code.len()).copied();
        let part_of_number =
            |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.');
        !part_of_number(before) && !part_of_number(after)
    })
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes rustls's `ring` provider the process's default, once: reqwest is built without a
/// provider of its own (see the `remote` feature in Cargo.toml) and takes the default when a
/// client is made. A default some other part of the process installed first is kept.
pub(super) fn install_tls_provider() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The client of `url`'s server or bucket, made once per process with the options in force
/// then.
fn store_for(url: &RemoteUrl) -> io::Result<Arc<dyn ObjectStore>> {
    static STORES: OnceLock<Mutex<HashMap<String, Arc<dyn ObjectStore>>>> = OnceLock::new();
    let stores = STORES.get_or_init(Default::default);
    if let Some(store) = lock(stores).get(&url.store) {
        return Ok(store.clone());
    }
    install_tls_provider();
    let options = options();
    let store: Arc<dyn ObjectStore> = match &url.bucket {
        None => Arc::new(
            HttpBuilder::new()
                .with_url(url.store.clone())
                .with_client_options(client_options(&options, url.store.starts_with("http://")))
                .with_retry(retry_config(&options))
                .build()
                .map_err(|e| io::Error::other(format!("{}: {e}", url.store)))?,
        ),
        Some(bucket) => Arc::new(s3_store(bucket, &options)?),
    };
    lock(stores).insert(url.store.clone(), store.clone());
    Ok(store)
}

/// An S3 client for `bucket` from the AWS environment and profile files.
fn s3_store(bucket: &str, options: &RemoteOptions) -> io::Result<object_store::aws::AmazonS3> {
    let settings = s3_settings();
    let plain_http = settings
        .endpoint
        .as_deref()
        .is_some_and(|e| e.starts_with("http://"));
    let mut builder = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_region(settings.region)
        .with_client_options(client_options(options, plain_http))
        .with_retry(retry_config(options));
    if let Some(endpoint) = settings.endpoint {
        builder = builder.with_endpoint(endpoint);
    }
    builder = match settings.auth {
        Auth::Keys(keys) => {
            let builder = builder
                .with_access_key_id(keys.access_key_id)
                .with_secret_access_key(keys.secret_access_key);
            match keys.session_token {
                Some(token) => builder.with_token(token),
                None => builder,
            }
        }
        Auth::Provider => builder,
        Auth::Anonymous => builder.with_skip_signature(true),
    };
    builder
        .build()
        .map_err(|e| io::Error::other(format!("s3://{bucket}: {e}")))
}

fn client_options(options: &RemoteOptions, plain_http: bool) -> ClientOptions {
    ClientOptions::new()
        .with_timeout(options.timeout)
        .with_connect_timeout(options.timeout.min(CONNECT_TIMEOUT_MAX))
        .with_pool_max_idle_per_host(options.connections)
        .with_allow_http(plain_http)
}

/// The longest wait for a connection.
const CONNECT_TIMEOUT_MAX: Duration = Duration::from_secs(10);

fn retry_config(options: &RemoteOptions) -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: options.retries,
        retry_timeout: options.deadline,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_words_not_digits_inside_numbers() {
        let denied = "HTTP status client error (403 Forbidden) for url (http://h/x)";
        assert_eq!(
            describe(io::Error::other(denied)).kind(),
            io::ErrorKind::PermissionDenied
        );
        let missing = "Client error with status 404 Not Found: <html>";
        assert_eq!(
            describe(io::Error::other(missing)).kind(),
            io::ErrorKind::NotFound
        );
        // A timeout whose duration holds "403" and "404" is neither.
        let timeout = "error performing get http://h/x in 4.104647403s, after 1 retries, \
                       retry_timeout: 4s - http error: error sending request (took 1.2404s)";
        let described = describe(io::Error::other(timeout));
        assert_eq!(described.kind(), io::ErrorKind::Other);
        assert!(described
            .to_string()
            .starts_with("no answer from the server"));
        // A server without ranges is told what works (object_store's text).
        let plain = "Operation not supported: Range request not supported by http://h/x";
        let described = describe(io::Error::other(plain)).to_string();
        assert!(described.starts_with(NO_RANGES), "{described}");
    }
}
