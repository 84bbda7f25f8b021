//! `bitsift serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use bitsift::server::{
    ClientLimits, ServerConfig, ServerError, CLIENT_BASES_DEFAULT, CLIENT_REQUESTS_DEFAULT,
};
use clap::Args;

use super::search_args::{EngineArgs, IndexArgs};
use super::values::BadValue;
use super::{parse_memory_size, parse_size, Outcome};

#[derive(Args, Debug)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    indexes: IndexArgs,
    /// TSV of document metadata: a header, then the document name and its columns
    #[arg(long, value_name = "FILE.tsv", help_heading = "Input")]
    metadata: Option<PathBuf>,
    /// Serve the indexes that open; list the others as unavailable instead of failing
    #[arg(long, help_heading = "Input")]
    skip_broken: bool,
    /// Read every block, ignoring the block summaries beside the indexes (COBS's exact scores)
    #[arg(long, help_heading = "Input")]
    no_summaries: bool,

    /// Address and port to listen on
    #[arg(
        long,
        default_value = "127.0.0.1:8080",
        value_name = "ADDR",
        help_heading = "Server"
    )]
    listen: SocketAddr,
    /// Searches running at once
    #[arg(long, default_value_t = 8, value_name = "N", help_heading = "Server")]
    max_concurrent: usize,
    /// Searches waiting for a turn, in each lane (small requests, panels); beyond that,
    /// new ones get 503 and Retry-After
    #[arg(long, default_value_t = 64, value_name = "N", help_heading = "Server")]
    max_queued: usize,
    /// Bases per query at most (longer ones get 413)
    #[arg(
        long,
        default_value_t = 1_000_000,
        value_name = "N",
        help_heading = "Server"
    )]
    max_query_bases: usize,
    /// Seconds a search may take before it gets 504
    #[arg(long, value_parser = parse_seconds, default_value = "60", value_name = "SECONDS", help_heading = "Server")]
    timeout: Duration,
    /// Search worker threads (each with its own engine; all share the cache)
    #[arg(long, default_value_t = 2, value_name = "N", help_heading = "Server")]
    workers: usize,

    /// Connections open at once; idle ones make room for new ones [default: 1024, or fewer
    /// if the open-files limit is lower]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), value_name = "N", help_heading = "Clients")]
    max_connections: Option<u32>,
    /// Memory for request bodies, all requests together; a body is charged twice its size
    /// [default: twice the largest body, plus 64M]
    #[arg(long, value_parser = parse_size, value_name = "BYTES", help_heading = "Clients")]
    body_memory: Option<u64>,
    /// Seconds for a request head to arrive (on a new or kept-alive connection)
    #[arg(long, value_parser = parse_seconds, default_value = "10", value_name = "SECONDS", help_heading = "Clients")]
    header_timeout: Duration,
    /// Seconds for a whole request body to arrive (408 after that)
    #[arg(long, value_parser = parse_seconds, default_value = "30", value_name = "SECONDS", help_heading = "Clients")]
    body_timeout: Duration,
    /// Seconds a connection may stay open with no request and no traffic
    #[arg(long, value_parser = parse_seconds, default_value = "5", value_name = "SECONDS", help_heading = "Clients")]
    idle_timeout: Duration,
    /// Seconds given to requests in flight at SIGTERM/SIGINT before their connections are cut
    #[arg(long, value_parser = parse_grace, default_value = "10", value_name = "SECONDS", help_heading = "Clients")]
    shutdown_grace: Duration,
    /// Search requests one client (its X-Api-Key, else its address) may have in flight;
    /// beyond that it gets 429 and Retry-After
    #[arg(long, default_value_t = CLIENT_REQUESTS_DEFAULT as u32, value_parser = clap::value_parser!(u32).range(1..), value_name = "N", help_heading = "Clients")]
    client_max_requests: u32,
    /// Query bases one client may have in flight beside its first request (429 beyond)
    #[arg(long, default_value_t = CLIENT_BASES_DEFAULT, value_name = "N", help_heading = "Clients")]
    client_max_bases: u64,

    /// Page cache shared by all requests (0: none; with O_DIRECT the only cache); a budget
    /// that holds the indexes loads them into memory after start and scores them there
    #[arg(long, value_parser = parse_memory_size, default_value = "256M", value_name = "BYTES", help_heading = "I/O")]
    cache_size: u64,
    /// Memory for pages of the checksums and block summaries, shared by all requests (they
    /// are read page by page as queries need them, never whole)
    #[arg(long, value_parser = parse_memory_size, default_value = "64M", value_name = "BYTES", help_heading = "I/O")]
    side_memory: u64,
    /// Memory for the answers of repeated queries, kept for the generation of the indexes
    /// they came from (0: none)
    #[arg(long, value_parser = parse_memory_size, default_value = "64M", value_name = "BYTES", help_heading = "I/O")]
    answer_cache_size: u64,
    /// Stream the indexes into the cache after start-up, at idle I/O priority
    #[arg(long, help_heading = "I/O")]
    warm: bool,
    #[command(flatten)]
    engine: EngineArgs,
    #[command(flatten)]
    remote: super::remote::RemoteArgs,
}

/// Longest time any option accepts: a week. Longer values are typos (`1e30`), and would
/// overflow the clock arithmetic of deadlines.
const SECONDS_MAX: f64 = 7.0 * 24.0 * 3600.0;

/// Parses a positive number of seconds, at most a week, for clap.
fn parse_seconds(text: &str) -> Result<Duration, BadValue> {
    let duration = parse_grace(text)?;
    if duration.is_zero() {
        return Err(BadValue("must be more than 0 seconds".into()));
    }
    Ok(duration)
}

/// Parses a number of seconds from 0 to a week, for clap.
fn parse_grace(text: &str) -> Result<Duration, BadValue> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds (such as 30 or 0.5)"))?;
    if !(0.0..=SECONDS_MAX).contains(&seconds) {
        return Err(BadValue(format!(
            "{text} seconds is out of range: give 0 to {SECONDS_MAX} (a week)"
        )));
    }
    Duration::try_from_secs_f64(seconds).map_err(|e| BadValue(format!("{text} seconds: {e}")))
}

pub(crate) fn run(args: ServeArgs) -> Result<Outcome> {
    args.remote.apply(args.engine.queue_depth)?;
    let config = ServerConfig {
        sources: args.indexes.sources(),
        listen: args.listen,
        cache_bytes: args.cache_size,
        side_memory: args.side_memory,
        warm: args.warm,
        max_concurrent: args.max_concurrent.max(1),
        max_queued: args.max_queued,
        client_limits: ClientLimits {
            requests_max: args.client_max_requests as usize,
            bases_max: args.client_max_bases,
        },
        answer_cache_bytes: args.answer_cache_size,
        max_query_bases: args.max_query_bases,
        request_timeout: args.timeout,
        workers: args.workers.max(1),
        engine: args.remote.engine(args.engine.options()),
        metadata: args.metadata,
        skip_broken: args.skip_broken,
        summaries: !args.no_summaries,
        body_memory: args.body_memory,
        body_timeout: args.body_timeout,
        max_connections: args.max_connections.map(|n| n as usize),
        header_timeout: args.header_timeout,
        idle_timeout: args.idle_timeout,
        shutdown_grace: args.shutdown_grace,
    };
    if config.warm && config.cache_bytes == 0 {
        anyhow::bail!("--warm needs a cache: give --cache-size");
    }
    if let Some(bytes) = config.body_memory {
        if (config.body_bytes_max() as u64) < (1 << 20) {
            anyhow::bail!(
                "--body-memory {bytes} leaves room for bodies of {} bytes only; give at least 2M",
                config.body_bytes_max()
            );
        }
    }
    bitsift::server::run(config).map_err(|error| match error {
        ServerError::Collection(error) => super::indexes::no_index_hint(error),
        other => other.into(),
    })?;
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_bounded_and_never_panic() {
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_seconds("60"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_grace("0"), Ok(Duration::ZERO));
        for bad in ["0", "-1", "1e30", "inf", "NaN", "", "ten", "604801"] {
            assert!(parse_seconds(bad).is_err(), "{bad:?} accepted");
        }
        assert!(parse_seconds("1e30")
            .unwrap_err()
            .to_string()
            .contains("out of range"));
    }
}
