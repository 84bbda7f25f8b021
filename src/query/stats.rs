//! Per-query accounting: what was asked, what was read, what it cost, where the time went.

use std::time::Duration;

use crate::io::EngineKind;

fn milliseconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 1e6).round() / 1e3)
}

/// What one query cost. Queries answered in one batch share its reads: the I/O fields then
/// describe the whole batch (`batch_queries` says how many shared it), while `kmers`,
/// `unique_kmers`, `row_reads_requested` and `hashing_ms` are the query's own. Serialised
/// with times in milliseconds (`*_ms`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueryStats {
    /// Engine that served the reads.
    pub engine: EngineKind,
    /// k-mer positions in the query (largest over the indexes).
    pub kmers: u64,
    /// Distinct k-mers among them.
    pub unique_kmers: u64,
    /// This query's row lookups: distinct k-mers × hash functions × blocks.
    pub row_reads_requested: u64,
    /// Queries whose reads were planned and shared together with this one (1 when alone).
    pub batch_queries: u32,
    /// Row lookups of the whole batch.
    pub batch_row_reads_requested: u64,
    /// Distinct rows among the batch's lookups.
    pub unique_rows: u64,
    /// Distinct 4 KiB pages holding those rows (what mmap or COBS would fault in).
    pub unique_pages_4k: u64,
    /// Read operations issued (after merging neighbours; including retries).
    pub read_requests: u64,
    /// Bytes delivered by the engine.
    pub bytes_read: u64,
    /// Reads resubmitted after short reads or interruptions.
    pub retries: u64,
    /// Reads never issued because every query needing them had stopped reading that block.
    pub reads_pruned: u64,
    /// Reads served from the page cache.
    pub reads_from_cache: u64,
    /// Blocks this query stopped reading early (no document could reach the threshold).
    pub blocks_pruned: u64,
    /// Page-cache lookups that hit.
    pub cache_hits: u64,
    /// Page-cache lookups that missed.
    pub cache_misses: u64,
    /// Planning passes (a very large query is read in parts).
    pub batches: u32,
    /// Page faults that waited for the device (mmap engine).
    pub major_faults: u64,
    /// Page faults served from memory.
    pub minor_faults: u64,
    /// Bytes the process fetched from storage, per the kernel (`/proc/self/io`).
    pub device_read_bytes: u64,
    /// Canonicalising and hashing the query's k-mers.
    #[serde(rename = "hashing_ms", serialize_with = "milliseconds")]
    pub hashing: Duration,
    /// Building the read plan.
    #[serde(rename = "planning_ms", serialize_with = "milliseconds")]
    pub planning: Duration,
    /// Blocked waiting for reads.
    #[serde(rename = "io_wait_ms", serialize_with = "milliseconds")]
    pub io_wait: Duration,
    /// Adding rows into counters.
    #[serde(rename = "accumulate_ms", serialize_with = "milliseconds")]
    pub accumulate: Duration,
    /// Threshold, sort, limit.
    #[serde(rename = "ranking_ms", serialize_with = "milliseconds")]
    pub ranking: Duration,
    /// Wall time of the query (for a batch: hashing this query plus the whole batch).
    #[serde(rename = "total_ms", serialize_with = "milliseconds")]
    pub total: Duration,
}

impl QueryStats {
    /// Zeroed stats for a query served by `engine`.
    pub fn new(engine: EngineKind) -> QueryStats {
        QueryStats {
            engine,
            kmers: 0,
            unique_kmers: 0,
            row_reads_requested: 0,
            batch_queries: 1,
            batch_row_reads_requested: 0,
            unique_rows: 0,
            unique_pages_4k: 0,
            read_requests: 0,
            bytes_read: 0,
            retries: 0,
            reads_pruned: 0,
            reads_from_cache: 0,
            blocks_pruned: 0,
            cache_hits: 0,
            cache_misses: 0,
            batches: 0,
            major_faults: 0,
            minor_faults: 0,
            device_read_bytes: 0,
            hashing: Duration::ZERO,
            planning: Duration::ZERO,
            io_wait: Duration::ZERO,
            accumulate: Duration::ZERO,
            ranking: Duration::ZERO,
            total: Duration::ZERO,
        }
    }

    /// One line of `key=value` pairs for `--stats`, the same names as the JSON.
    pub fn summary(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or_default();
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
}
