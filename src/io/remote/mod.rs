//! Indexes searched where they lie: files on an HTTP(S) server (range requests) or in an
//! S3-compatible object store, read by byte ranges without downloading them.
//!
//! - [`RemoteObject`]: one remote file, opened once per process (size and ETag), read by
//!   checked range requests (exact length, same ETag as at open: a file changed on the server
//!   is an error, never a mix of two versions).
//! - [`RemoteEngine`]: the [`crate::io::ReadEngine`] of remote files, hundreds of requests
//!   in flight; the planner and the read path's layers (checksums, caches) are those of
//!   local files.
//! - `multirange`: many ranges of a file in one HTTP request where the server takes them
//!   (`multipart/byteranges` answers, read and checked by `byteranges`), learnt per file.
//! - [`RemoteReader`]: sequential reads (headers, names, preambles) in growing requests.
//! - `window`: the requests in flight each server takes, adapted to how it answers (AIMD,
//!   from a few up to the per-host cap).
//! - [`cache`]: a bounded on-disk cache of fetched pages, keyed by URL and ETag.
//! - [`config`]: S3 settings from the AWS environment and profile files.
//!
//! The clients are `object_store`'s (`HttpStore`, `AmazonS3`): retries with backoff, timeouts,
//! request signing; see `docs/architecture.md` for the choice.

pub mod bench;
mod byteranges;
pub(crate) mod cache;
mod client;
pub(crate) mod config;
pub(crate) mod engine;
mod location;
mod multirange;
mod options;
mod reader;
mod window;

pub(crate) use client::RemoteObject;
pub(crate) use engine::RemoteEngine;
pub use options::{
    configure, options, CacheOptions, RemoteOptions, CACHE_BYTES_DEFAULT, DEADLINE_DEFAULT,
    RETRIES_DEFAULT, TIMEOUT_DEFAULT,
};
pub(crate) use reader::{read_whole, RemoteReader};
