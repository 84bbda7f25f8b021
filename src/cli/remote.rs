//! The options of remote indexes (`-i https://…`, `-i s3://bucket/key`), shared by every
//! command that opens an index: requests in flight and ranges a request (which travel with
//! the engine options), timeouts and retries, the local cache (the process's clients').

use std::path::PathBuf;
use std::time::Duration;

use bitsift::io::EngineOptions;
use clap::Args;

use super::{parse_size, UsageError};

/// How remote indexes are read; ignored for local files.
#[derive(Args, Debug, Clone)]
pub(crate) struct RemoteArgs {
    /// Remote indexes: requests kept in flight at once [default: 256]; where the command
    /// takes --queue-depth, that one wins
    #[arg(
        long,
        value_name = "N",
        help_heading = "Remote indexes (http, https, s3)"
    )]
    remote_depth: Option<u32>,
    /// Remote indexes: seconds one request may take before it is retried
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        help_heading = "Remote indexes (http, https, s3)"
    )]
    remote_timeout: f64,
    /// Remote indexes: retries of a request that failed (server errors, timeouts), with
    /// growing pauses
    #[arg(
        long,
        value_name = "N",
        default_value_t = 4,
        help_heading = "Remote indexes (http, https, s3)"
    )]
    remote_retries: usize,
    /// Remote indexes: seconds after the first attempt of a request past which it is not
    /// retried any more
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 120.0,
        help_heading = "Remote indexes (http, https, s3)"
    )]
    remote_deadline: f64,
    /// Remote indexes: byte ranges one HTTP request may ask for where the server takes
    /// several (multipart answers; learnt per file); 1 asks for one range a request
    #[arg(
        long,
        value_name = "N",
        default_value_t = 64,
        help_heading = "Remote indexes (http, https, s3)"
    )]
    remote_ranges: usize,
    /// Remote indexes: keep fetched pages in this directory (shared by concurrent runs;
    /// keyed by URL and ETag, so a file changed on the server is fetched anew)
    #[arg(
        long,
        value_name = "DIR",
        help_heading = "Remote indexes (http, https, s3)"
    )]
    cache_dir: Option<PathBuf>,
    /// Remote indexes: bytes the --cache-dir may hold; the least recently used pages go
    /// beyond that
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "4G", requires = "cache_dir", help_heading = "Remote indexes (http, https, s3)")]
    cache_dir_size: u64,
}

impl Default for RemoteArgs {
    /// The command line's defaults.
    fn default() -> Self {
        RemoteArgs {
            remote_depth: None,
            remote_timeout: 30.0,
            remote_retries: 4,
            remote_deadline: 120.0,
            remote_ranges: 64,
            cache_dir: None,
            cache_dir_size: 4 << 30,
        }
    }
}

impl RemoteArgs {
    /// `engine` with the remote engine's settings of this command line: the requests in
    /// flight (`--queue-depth` when given, else `--remote-depth`, else each engine's default)
    /// and the ranges a request (`--remote-ranges`).
    pub(crate) fn engine(&self, engine: EngineOptions) -> EngineOptions {
        EngineOptions {
            queue_depth: engine.queue_depth.or(self.remote_depth),
            remote_ranges: self.remote_ranges,
            ..engine
        }
    }

    /// Sets the clients' options (connections, timeouts, retries, the page cache) for every
    /// remote file the process opens; `queue_depth` is the command's `--queue-depth`, if it
    /// takes one.
    pub(crate) fn apply(&self, queue_depth: Option<u32>) -> Result<(), UsageError> {
        let seconds = |value: f64, flag: &str| {
            if value.is_finite() && value > 0.0 {
                Ok(Duration::from_secs_f64(value))
            } else {
                Err(UsageError(format!(
                    "{flag} must be a positive number of seconds"
                )))
            }
        };
        let timeout = seconds(self.remote_timeout, "--remote-timeout")?;
        let deadline = seconds(self.remote_deadline, "--remote-deadline")?;
        if self.remote_depth == Some(0) {
            return Err(UsageError("--remote-depth must be at least 1".into()));
        }
        if self.remote_ranges == 0 {
            return Err(UsageError("--remote-ranges must be at least 1".into()));
        }
        #[cfg(feature = "remote")]
        bitsift::io::remote::configure(bitsift::io::remote::RemoteOptions {
            connections: self
                .engine(EngineOptions {
                    queue_depth,
                    ..EngineOptions::default()
                })
                .remote_depth() as usize,
            timeout,
            retries: self.remote_retries,
            deadline,
            cache: self
                .cache_dir
                .as_ref()
                .map(|dir| bitsift::io::remote::CacheOptions {
                    dir: dir.clone(),
                    bytes: self.cache_dir_size,
                }),
        });
        #[cfg(not(feature = "remote"))]
        let _ = (timeout, deadline, queue_depth);
        Ok(())
    }
}
