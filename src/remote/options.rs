//! How remote requests are made, set once per process (by the command line or the Python
//! package) before the first remote file is opened.

use std::path::PathBuf;
use std::sync::{PoisonError, RwLock};
use std::time::Duration;

/// Requests kept in flight by default: a round trip of 50 ms at 256 requests in flight is
/// ~5,000 requests a second, the rate of a few fast disks.
pub const DEPTH_DEFAULT: usize = 256;
/// Default time a request may take before it is abandoned (and retried).
pub const TIMEOUT_DEFAULT: Duration = Duration::from_secs(30);
/// Default retries of a failed request (server errors, timeouts, dropped connections).
pub const RETRIES_DEFAULT: usize = 4;
/// Default deadline after which a request is no longer retried.
pub const DEADLINE_DEFAULT: Duration = Duration::from_secs(120);
/// Byte ranges one HTTP request may ask for at most (`Range: bytes=a-b,c-d,…`) where the
/// server takes them; 1 sends one range a request. See `docs/architecture.md`.
pub const RANGES_DEFAULT: usize = 64;
/// The options; see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteOptions {
    /// Requests in flight at once.
    pub depth: usize,
    /// Time one request may take.
    pub timeout: Duration,
    /// Retries of a failed request.
    pub retries: usize,
    /// No retry starts after this long since the first attempt.
    pub deadline: Duration,
    /// Byte ranges one HTTP request may ask for at most.
    pub ranges: usize,
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
            depth: DEPTH_DEFAULT,
            timeout: TIMEOUT_DEFAULT,
            retries: RETRIES_DEFAULT,
            deadline: DEADLINE_DEFAULT,
            ranges: RANGES_DEFAULT,
            cache: None,
        }
    }
}

static OPTIONS: RwLock<Option<RemoteOptions>> = RwLock::new(None);

/// Sets the options of this process's remote requests. Clients already made (one per server
/// or bucket) keep the options they were made with; call this before opening.
pub fn configure(options: RemoteOptions) {
    assert!(options.depth > 0, "at least one request in flight");
    assert!(options.ranges > 0, "at least one range a request");
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
