//! Per-query accounting: what was asked, what was read, what it cost, where the time went.

use std::time::Duration;

use serde::ser::SerializeStruct;

use crate::io::EngineKind;

/// What one query cost. Serialised with times in milliseconds (`*_ms`).
#[derive(Clone, Debug, PartialEq)]
pub struct QueryStats {
    /// Engine that served the reads.
    pub engine: EngineKind,
    /// k-mer positions in the query (largest over the indexes).
    pub kmers: u64,
    /// Distinct k-mers among them.
    pub unique_kmers: u64,
    /// Row lookups: unique k-mers × hash functions × blocks.
    pub row_reads_requested: u64,
    /// Distinct rows among them.
    pub unique_rows: u64,
    /// Read operations issued (after coalescing; including retries).
    pub read_requests: u64,
    /// Bytes delivered by the engine.
    pub bytes_read: u64,
    /// Reads resubmitted after short reads or interruptions.
    pub retries: u64,
    /// Batches the query was split into (large queries are planned in parts).
    pub batches: u32,
    /// Page faults that waited for the device (mmap engine).
    pub major_faults: u64,
    /// Page faults served from memory.
    pub minor_faults: u64,
    /// Bytes the process fetched from storage, per the kernel (`/proc/self/io`).
    pub device_read_bytes: u64,
    /// Canonicalising and hashing k-mers.
    pub hashing: Duration,
    /// Building the read plan.
    pub planning: Duration,
    /// Blocked waiting for reads.
    pub io_wait: Duration,
    /// Adding rows into counters.
    pub accumulate: Duration,
    /// Threshold, sort, limit.
    pub ranking: Duration,
    /// Wall time of the whole query.
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
            unique_rows: 0,
            read_requests: 0,
            bytes_read: 0,
            retries: 0,
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

    /// One human-readable line for `--stats`.
    pub fn summary(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        format!(
            "engine={} kmers={} unique_kmers={} row_reads_requested={} unique_rows={} read_requests={} bytes_read={} retries={} major_faults={} minor_faults={} device_read_bytes={} hashing_ms={:.3} planning_ms={:.3} io_wait_ms={:.3} accumulate_ms={:.3} ranking_ms={:.3} total_ms={:.3}",
            self.engine.as_str(),
            self.kmers,
            self.unique_kmers,
            self.row_reads_requested,
            self.unique_rows,
            self.read_requests,
            self.bytes_read,
            self.retries,
            self.major_faults,
            self.minor_faults,
            self.device_read_bytes,
            ms(self.hashing),
            ms(self.planning),
            ms(self.io_wait),
            ms(self.accumulate),
            ms(self.ranking),
            ms(self.total),
        )
    }
}

impl serde::Serialize for QueryStats {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let ms = |d: Duration| (d.as_secs_f64() * 1e6).round() / 1e3;
        let mut s = serializer.serialize_struct("QueryStats", 18)?;
        s.serialize_field("engine", &self.engine)?;
        s.serialize_field("kmers", &self.kmers)?;
        s.serialize_field("unique_kmers", &self.unique_kmers)?;
        s.serialize_field("row_reads_requested", &self.row_reads_requested)?;
        s.serialize_field("unique_rows", &self.unique_rows)?;
        s.serialize_field("read_requests", &self.read_requests)?;
        s.serialize_field("bytes_read", &self.bytes_read)?;
        s.serialize_field("retries", &self.retries)?;
        s.serialize_field("batches", &self.batches)?;
        s.serialize_field("major_faults", &self.major_faults)?;
        s.serialize_field("minor_faults", &self.minor_faults)?;
        s.serialize_field("device_read_bytes", &self.device_read_bytes)?;
        s.serialize_field("hashing_ms", &ms(self.hashing))?;
        s.serialize_field("planning_ms", &ms(self.planning))?;
        s.serialize_field("io_wait_ms", &ms(self.io_wait))?;
        s.serialize_field("accumulate_ms", &ms(self.accumulate))?;
        s.serialize_field("ranking_ms", &ms(self.ranking))?;
        s.serialize_field("total_ms", &ms(self.total))?;
        s.end()
    }
}
