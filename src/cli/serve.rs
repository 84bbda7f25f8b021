//! `bitsift serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use bitsift::io::{DirectIo, EngineChoice, EngineOptions, QUEUE_DEPTH_DEFAULT};
use bitsift::server::ServerConfig;
use clap::Args;

use super::{parse_memory_size, parse_timeout, Outcome};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Index file or directory of indexes; repeat for several
    #[arg(short, long = "index", value_name = "INDEX", help_heading = "Input")]
    indexes: Vec<PathBuf>,
    /// File listing index paths, one per line
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    index_list: Vec<PathBuf>,
    /// TSV of document metadata: a header, then the document name and its columns
    #[arg(long, value_name = "FILE.tsv", help_heading = "Input")]
    metadata: Option<PathBuf>,

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
    /// Searches waiting for a turn; beyond that, new ones get 503 and Retry-After
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
    /// Seconds a request may take before it gets 504
    #[arg(
        long,
        default_value_t = 60.0,
        value_parser = parse_timeout,
        value_name = "SECONDS",
        help_heading = "Server"
    )]
    timeout: f64,
    /// Search worker threads (each with its own engine; all share the cache)
    #[arg(long, default_value_t = 2, value_name = "N", help_heading = "Server")]
    workers: usize,

    /// Page cache shared by all requests (0: none; with O_DIRECT the only cache)
    #[arg(long, value_parser = parse_memory_size, default_value = "256M", value_name = "BYTES", help_heading = "I/O")]
    cache_size: u64,
    /// Stream the indexes into the cache after start-up, at idle I/O priority
    #[arg(long, help_heading = "I/O")]
    warm: bool,
    /// I/O engine
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto, help_heading = "I/O")]
    engine: EngineChoice,
    /// Reads in flight (uring) or reader threads (pread), per worker
    #[arg(long, default_value_t = QUEUE_DEPTH_DEFAULT, value_name = "N", help_heading = "I/O")]
    queue_depth: u32,
    /// Bypass the page cache with O_DIRECT (uring, pread)
    #[arg(long, value_enum, default_value_t = DirectIo::Auto, help_heading = "I/O")]
    direct_io: DirectIo,
}

pub fn run(args: ServeArgs) -> Result<Outcome> {
    let indexes = bitsift::format::index_files(&args.indexes, &args.index_list)
        .map_err(anyhow::Error::msg)?;
    let config = ServerConfig {
        indexes,
        listen: args.listen,
        cache_bytes: args.cache_size,
        warm: args.warm,
        max_concurrent: args.max_concurrent.max(1),
        max_queued: args.max_queued,
        max_query_bases: args.max_query_bases,
        request_timeout: Duration::try_from_secs_f64(args.timeout)?,
        workers: args.workers.max(1),
        engine: EngineOptions {
            choice: args.engine,
            queue_depth: args.queue_depth,
            direct: args.direct_io,
        },
        metadata: args.metadata,
    };
    if config.warm && config.cache_bytes == 0 {
        anyhow::bail!("--warm needs a cache: give --cache-size");
    }
    bitsift::server::run(config).map_err(anyhow::Error::msg)?;
    Ok(Outcome::Success)
}
