//! How remote requests are made, set once per process (by the command line or the Python
//! package) before the first remote file is opened: what the process's clients (one per
//! server or bucket, shared by every engine and reader) and its page cache on disk are made
//! with. What an engine does (requests in flight, ranges a request) travels with its
//! [`crate::io::EngineOptions`] instead.

use std::path::PathBuf;
use std::sync::{PoisonError, RwLock};
use std::time::Duration;

/// Default time a request may take before it is abandoned (and retried).
pub(crate) const TIMEOUT_DEFAULT: Duration = Duration::from_secs(30);
/// Default retries of a failed request (server errors, timeouts, dropped connections).
pub(crate) const RETRIES_DEFAULT: usize = 4;
/// Default deadline after which a request is no longer retried.
pub(crate) const DEADLINE_DEFAULT: Duration = Duration::from_secs(120);
/// The options; see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteOptions {
    /// Idle connections each client keeps to its server: as many as the requests in flight
    /// of the engines that will use it ([`crate::io::EngineOptions::remote_depth`]).
    pub connections: usize,
    /// Time one request may take.
    pub timeout: Duration,
    /// Retries of a failed request.
    pub retries: usize,
    /// No retry starts after this long since the first attempt.
    pub deadline: Duration,
    /// The local cache of fetched pages, when one is wanted.
    pub cache: Option<CacheOptions>,
}

/// Where and how large the local cache of remote pages is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheOptions {
    /// Its directory (created when missing; shared by concurrent processes).
    pub dir: PathBuf,
    /// Bytes it may hold; the least recently used files go beyond that.
    pub bytes: u64,
}

/// Default size budget of the local cache.
pub const CACHE_BYTES_DEFAULT: u64 = 4 << 30;

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            connections: crate::io::REMOTE_DEPTH_DEFAULT as usize,
            timeout: TIMEOUT_DEFAULT,
            retries: RETRIES_DEFAULT,
            deadline: DEADLINE_DEFAULT,
            cache: None,
        }
    }
}

static OPTIONS: RwLock<Option<RemoteOptions>> = RwLock::new(None);

/// Sets the options of this process's remote requests. Clients already made (one per server
/// or bucket) keep the options they were made with; call this before opening.
pub fn configure(options: RemoteOptions) {
    *OPTIONS.write().unwrap_or_else(PoisonError::into_inner) = Some(options);
}

/// The options in force.
pub fn options() -> RemoteOptions {
    OPTIONS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
        .unwrap_or_default()
}
