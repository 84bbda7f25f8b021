//! Accounting: what each query asked and cost ([`QueryStats`]), and what the batch it was
//! answered in did as a whole ([`BatchStats`]).
//!
//! Queries answered together share their reads. A query's own stats charge it the reads that
//! held one of its rows and an equal share of their bytes (the shares of a batch add up to the
//! batch's bytes); waiting, planning, faults and the engine's choices belong to the batch and
//! are reported once, in its [`BatchStats`].

use std::time::Duration;

use crate::io::EngineKind;

fn milliseconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1e6).round() / 1e3)
}

/// Where a batch's rows came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RowSource {
    /// Planned reads through the engine (storage, page cache or the row cache).
    Reads,
    /// Scored in place from memory (`ram`, or `mmap` over a page-cache-resident index).
    Resident,
    /// Scored in place from the process's image of the whole index (a row cache whose
    /// budget holds the whole index).
    Image,
}

impl RowSource {
    /// The name used in statistics (`reads`, `resident`, `image`).
    #[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RowSource::Reads => "reads",
            RowSource::Resident => "resident",
            RowSource::Image => "image",
        }
    }
}

/// What one query asked and cost. Serialised with times in milliseconds (`*_ms`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueryStats {
    /// Engine that served the rows.
    pub engine: EngineKind,
    /// Reads or memory.
    pub source: RowSource,
    /// Number of the batch the query was answered in (see [`BatchStats::batch`]).
    pub batch: u64,
    /// Queries answered in that batch (1 when alone).
    pub batch_queries: u32,
    /// k-mer positions in the query (largest over the indexes).
    pub kmers: u64,
    /// Distinct k-mers among them.
    pub unique_kmers: u64,
    /// Row lookups: distinct k-mers × hash functions × blocks searched.
    pub row_reads_requested: u64,
    /// Rows added into the query's counters (lookups not skipped by pruning).
    pub rows_added: u64,
    /// Distinct 4 KiB pages holding the query's rows (planned reads only): what a
    /// page-granular reader (mmap, COBS) must fetch, and the basis of device-limit estimates.
    pub unique_pages_4k: u64,
    /// Reads that held at least one of the query's rows.
    pub read_requests: u64,
    /// The query's share of the bytes of those reads, and of the batch's side reads.
    pub bytes_read: u64,
    /// Of `bytes_read`: the query's share of the bytes of side files (checksums and block
    /// summaries its reads needed).
    pub side_bytes_read: u64,
    /// Blocks the query stopped reading early (no document could reach the threshold).
    pub blocks_pruned: u64,
    /// Blocks never read for the query: their summary holds too few of its k-mers.
    pub blocks_ruled_out: u64,
    /// Canonicalising and hashing the query's k-mers.
    #[serde(rename = "hashing_ms", serialize_with = "milliseconds")]
    pub hashing: Duration,
    /// Threshold, sort, limit.
    #[serde(rename = "ranking_ms", serialize_with = "milliseconds")]
    pub ranking: Duration,
    /// Reading the rows of the hits again to find where they match (`--coverage`), for the
    /// whole batch.
    #[serde(rename = "coverage_ms", serialize_with = "milliseconds")]
    pub coverage: Duration,
    /// Time to the answer: hashing this query, the whole batch, and ranking it.
    #[serde(rename = "total_ms", serialize_with = "milliseconds")]
    pub total: Duration,
}

/// What a batch did, once for all its queries.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BatchStats {
    /// Number of the batch within its session (from 1).
    pub batch: u64,
    /// Queries answered together.
    pub queries: u32,
    /// Engine that served the rows.
    pub engine: EngineKind,
    /// Reads or memory.
    pub source: RowSource,
    /// Share of the index files in the page cache when the engine was chosen, if measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resident_fraction: Option<f64>,
    /// Threads that scored blocks.
    pub threads: u32,
    /// Planning passes (a very large query is read in parts).
    pub parts: u32,
    /// Row lookups of all queries.
    pub row_reads_requested: u64,
    /// Distinct rows among them (planned reads only).
    pub unique_rows: u64,
    /// Distinct 4 KiB pages holding those rows (planned reads only).
    pub unique_pages_4k: u64,
    /// Read operations issued (after merging neighbours; including retries), side files
    /// included.
    pub read_requests: u64,
    /// Bytes delivered by the engine, side files included.
    pub bytes_read: u64,
    /// Of `read_requests`: reads of side files (checksum sidecars, block summaries).
    pub side_read_requests: u64,
    /// Of `bytes_read`: bytes of side files.
    pub side_bytes_read: u64,
    /// Reads resubmitted after short reads or interruptions.
    pub retries: u64,
    /// Remote files: requests sent to the server (the other reads were served by the local
    /// cache).
    pub remote_requests: u64,
    /// Remote files: bytes received from the server.
    pub remote_bytes: u64,
    /// Remote files: reads served by the local cache.
    pub remote_cache_hits: u64,
    /// Remote files: time the requests took, summed over requests (divided by
    /// `remote_requests`: the mean round trip plus transfer).
    #[serde(rename = "remote_request_ms", serialize_with = "milliseconds")]
    pub remote_time: Duration,
    /// Reads never issued because every query needing them had stopped reading that block.
    pub reads_pruned: u64,
    /// Reads served from the row cache.
    pub reads_from_cache: u64,
    /// (block, query) pairs that stopped early.
    pub units_pruned: u64,
    /// (block, query) pairs never read: ruled out by the block's summary.
    pub units_ruled_out: u64,
    /// Bytes of block summary pages the batch used, read or from the side cache (0: none
    /// used).
    pub summary_bytes: u64,
    /// Row-cache lookups that hit.
    pub cache_hits: u64,
    /// Row-cache lookups that missed.
    pub cache_misses: u64,
    /// Page faults that waited for the device (mmap engine).
    pub major_faults: u64,
    /// Page faults served from memory.
    pub minor_faults: u64,
    /// Bytes the process fetched from storage, per the kernel (`/proc/self/io`).
    pub device_read_bytes: u64,
    /// Building the read plan.
    #[serde(rename = "planning_ms", serialize_with = "milliseconds")]
    pub planning: Duration,
    /// Blocked waiting for reads.
    #[serde(rename = "io_wait_ms", serialize_with = "milliseconds")]
    pub io_wait: Duration,
    /// Adding rows into counters and checking thresholds, summed over threads.
    #[serde(rename = "accumulate_ms", serialize_with = "milliseconds")]
    pub accumulate: Duration,
    /// Wall time of the batch, from the first read planned to the last row added.
    #[serde(rename = "total_ms", serialize_with = "milliseconds")]
    pub total: Duration,
}

impl QueryStats {
    /// Zeroed stats.
    pub(crate) fn new(engine: EngineKind, source: RowSource) -> QueryStats {
        QueryStats {
            engine,
            source,
            batch: 0,
            batch_queries: 1,
            kmers: 0,
            unique_kmers: 0,
            row_reads_requested: 0,
            rows_added: 0,
            unique_pages_4k: 0,
            read_requests: 0,
            bytes_read: 0,
            side_bytes_read: 0,
            blocks_pruned: 0,
            blocks_ruled_out: 0,
            hashing: Duration::ZERO,
            ranking: Duration::ZERO,
            coverage: Duration::ZERO,
            total: Duration::ZERO,
        }
    }

    /// One line of `key=value` pairs for `--stats`, the same names as the JSON.
    pub fn summary(&self) -> String {
        summary_line(self)
    }
}

impl BatchStats {
    /// Zeroed stats of batch `batch`.
    pub(crate) fn new(batch: u64, engine: EngineKind, source: RowSource) -> BatchStats {
        BatchStats {
            batch,
            queries: 0,
            engine,
            source,
            resident_fraction: None,
            threads: 1,
            parts: 0,
            row_reads_requested: 0,
            unique_rows: 0,
            unique_pages_4k: 0,
            read_requests: 0,
            bytes_read: 0,
            side_read_requests: 0,
            side_bytes_read: 0,
            retries: 0,
            remote_requests: 0,
            remote_bytes: 0,
            remote_cache_hits: 0,
            remote_time: Duration::ZERO,
            reads_pruned: 0,
            reads_from_cache: 0,
            units_pruned: 0,
            units_ruled_out: 0,
            summary_bytes: 0,
            cache_hits: 0,
            cache_misses: 0,
            major_faults: 0,
            minor_faults: 0,
            device_read_bytes: 0,
            planning: Duration::ZERO,
            io_wait: Duration::ZERO,
            accumulate: Duration::ZERO,
            total: Duration::ZERO,
        }
    }

    /// One line of `key=value` pairs for `--stats`, the same names as the JSON.
    pub fn summary(&self) -> String {
        summary_line(self)
    }

    /// Adds the remote requests of `io` (reads of remote files) to the batch's.
    pub(crate) fn add_remote(&mut self, io: &crate::io::IoCounters) {
        self.remote_requests += io.remote_requests;
        self.remote_bytes += io.remote_bytes;
        self.remote_cache_hits += io.remote_cache_hits;
        self.remote_time += io.remote_time;
    }
}

fn summary_line(stats: &impl serde::Serialize) -> String {
    let value = serde_json::to_value(stats).unwrap_or_default();
    let Some(fields) = value.as_object() else {
        return String::new();
    };
    fields
        .iter()
        .map(|(key, value)| match value {
            serde_json::Value::String(s) => format!("{key}={s}"),
            other => format!("{key}={other}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
