//! The options of remote indexes (`-i https://…`, `-i s3://bucket/key`), shared by every
//! command that opens an index: requests in flight, timeouts and retries, the local cache.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{parse_size, UsageError};

/// How remote indexes are read; ignored for local files.
#[derive(Args, Debug, Clone)]
pub struct RemoteArgs {
    /// Remote indexes: requests kept in flight at once
    #[arg(
        long,
        value_name = "N",
        default_value_t = 256,
        help_heading = "Remote indexes (http, https, s3)"
    )]
    remote_depth: usize,
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
            remote_depth: 256,
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
    /// Sets these options for every remote file the process opens.
    pub fn apply(&self) -> Result<(), UsageError> {
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
        if self.remote_depth == 0 {
            return Err(UsageError("--remote-depth must be at least 1".into()));
        }
        if self.remote_ranges == 0 {
            return Err(UsageError("--remote-ranges must be at least 1".into()));
        }
        #[cfg(feature = "remote")]
        bitsift::remote::configure(bitsift::remote::RemoteOptions {
            depth: self.remote_depth,
            timeout,
            retries: self.remote_retries,
            deadline,
            ranges: self.remote_ranges,
            cache: self
                .cache_dir
                .as_ref()
                .map(|dir| bitsift::remote::CacheOptions {
                    dir: dir.clone(),
                    bytes: self.cache_dir_size,
                }),
        });
        #[cfg(not(feature = "remote"))]
        let _ = (timeout, deadline);
        Ok(())
    }
}
