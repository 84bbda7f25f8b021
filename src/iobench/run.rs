//! One run of a benchmark: what it is ([`RunSpec`], with the O_DIRECT alignment it may
//! need) and what it measured ([`RunReport`]). The judges of runs (recommendation,
//! resemblance) and the whole report stand above this file.

use super::stats::RunStats;
use super::{CacheMode, Variant};
use crate::io::usage::Usage;

/// O_DIRECT alignment of the file, from `statx(STATX_DIOALIGN)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DirectAlignment {
    /// Offsets and lengths must be multiples of this.
    pub offset_bytes: u64,
    /// Buffers must start at a multiple of this.
    pub memory_bytes: usize,
}

/// One run: a variant at a depth (reads in flight for uring, threads otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunSpec {
    /// How reads are issued.
    pub variant: Variant,
    /// Queue depth (uring) or threads.
    pub depth: u32,
}

impl RunSpec {
    /// E.g. "uring depth 32" or "direct 16 threads".
    pub fn label(&self) -> String {
        if self.variant.threaded() {
            let plural = if self.depth == 1 { "" } else { "s" };
            format!("{} {} thread{plural}", self.variant.name(), self.depth)
        } else {
            format!("{} depth {}", self.variant.name(), self.depth)
        }
    }
}

/// Request latency in microseconds, submission to completion.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest.
    pub max: f64,
    /// Mean.
    pub mean: f64,
}

/// One run's measurements.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunReport {
    /// How reads were issued.
    pub variant: Variant,
    /// Reads in flight (uring) or threads.
    pub depth: u32,
    /// What `depth` counts: "queue depth" or "threads".
    pub depth_unit: &'static str,
    /// Reads bypassed the page cache.
    pub direct: bool,
    /// Wall time, first submission to last completion.
    pub seconds: f64,
    /// Reads completed, each verified.
    pub reads: u64,
    /// Reads per second.
    pub iops: f64,
    /// Megabytes (10^6 bytes) delivered per second.
    pub mb_per_s: f64,
    /// Bytes delivered to the reader (reads × block size).
    pub bytes_read: u64,
    /// Sectors whose header was checked: every sector of every read.
    pub sectors_verified: u64,
    /// Reads whose every byte was checked.
    pub reads_verified_full: u64,
    /// Resubmissions after short reads, `EINTR` or `EAGAIN`.
    pub retries: u64,
    /// Latency per read, in microseconds.
    pub latency_us: Latency,
    /// Page faults that needed I/O (`getrusage`).
    pub major_faults: u64,
    /// Page faults served from memory.
    pub minor_faults: u64,
    /// Bytes fetched from the device (`/proc/self/io` `read_bytes`).
    pub device_read_bytes: u64,
    /// System CPU time, all threads.
    pub system_cpu_s: f64,
    /// User CPU time, all threads.
    pub user_cpu_s: f64,
    /// A buffered run, on a cold cache, that fetched at least 90 % of the file from the
    /// device: the whole file then sat in the page cache, and its later reads were served by
    /// memory. An index larger than RAM would not allow this, so these IOPS are not compared.
    pub filled_page_cache: bool,
    /// io_uring: whether the buffers were registered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registered_buffers: Option<bool>,
}

impl RunReport {
    /// The report of run `spec` from its counters and resource usage, reading `file_bytes`
    /// with `block_bytes` per read from a `cache` that was cold or warm.
    pub(crate) fn new(
        spec: RunSpec,
        stats: &RunStats,
        usage: &Usage,
        block_bytes: u64,
        file_bytes: u64,
        cache: CacheMode,
    ) -> RunReport {
        let seconds = stats.elapsed.as_secs_f64().max(1e-9);
        let bytes_read = stats.reads * block_bytes;
        let micros = |nanos: u64| nanos as f64 / 1000.0;
        let latency = &stats.latency_ns;
        RunReport {
            variant: spec.variant,
            depth: spec.depth,
            depth_unit: if spec.variant.threaded() {
                "threads"
            } else {
                "queue depth"
            },
            direct: spec.variant.direct(),
            seconds,
            reads: stats.reads,
            iops: stats.reads as f64 / seconds,
            mb_per_s: bytes_read as f64 / seconds / 1e6,
            bytes_read,
            sectors_verified: stats.sectors_verified,
            reads_verified_full: stats.reads_verified_full,
            retries: stats.retries,
            latency_us: Latency {
                p50: micros(latency.quantile(0.5)),
                p99: micros(latency.quantile(0.99)),
                p999: micros(latency.quantile(0.999)),
                max: micros(latency.max()),
                mean: latency.mean() / 1000.0,
            },
            major_faults: usage.major_faults,
            minor_faults: usage.minor_faults,
            device_read_bytes: usage.device_read_bytes,
            system_cpu_s: usage.system.as_secs_f64(),
            user_cpu_s: usage.user.as_secs_f64(),
            filled_page_cache: !spec.variant.direct()
                && cache == CacheMode::Cold
                && usage.device_read_bytes as u128 * 10 >= file_bytes as u128 * 9,
            registered_buffers: stats.registered_buffers,
        }
    }

    /// Bytes fetched from the device per byte delivered (read amplification).
    pub(crate) fn amplification(&self) -> f64 {
        self.device_read_bytes as f64 / self.bytes_read.max(1) as f64
    }
}

#[cfg(test)]
impl RunReport {
    /// A run of 4 KiB random reads at `iops`, for tests that judge measurements.
    pub(crate) fn sample(variant: Variant, depth: u32, iops: f64) -> RunReport {
        RunReport {
            variant,
            depth,
            depth_unit: "",
            direct: variant.direct(),
            seconds: 1.0,
            reads: iops.max(1.0) as u64,
            iops,
            mb_per_s: iops * 4096.0 / 1e6,
            bytes_read: iops as u64 * 4096,
            sectors_verified: iops as u64 * 8,
            reads_verified_full: 0,
            retries: 0,
            latency_us: Latency::default(),
            major_faults: 0,
            minor_faults: 0,
            device_read_bytes: iops as u64 * 4096,
            system_cpu_s: 0.0,
            user_cpu_s: 0.0,
            filled_page_cache: false,
            registered_buffers: None,
        }
    }
}
