//! What one run's loop needs ([`RunPlan`]) and what it measured and verified ([`RunStats`]).
//! Every variant ends each read the same way, through [`RunStats::complete`]: record the
//! latency, count the read, check the headers of all its sectors and, for one read in
//! `full_every`, every byte.

use std::path::PathBuf;
use std::time::Duration;

use super::histogram::Histogram;
use super::pattern::{self, SECTOR_BYTES};
use super::IobenchError;

/// Everything a run loop needs to know, fixed before it starts.
#[derive(Clone, Debug)]
pub(crate) struct RunPlan {
    /// The file (for error messages).
    pub path: PathBuf,
    /// Variant and depth, e.g. "uring depth 32" (for error messages).
    pub label: String,
    /// Bytes per read, a multiple of [`SECTOR_BYTES`] and of the O_DIRECT alignment.
    pub block_bytes: u64,
    /// Blocks in the file: reads start at `block_bytes · uniform(0..block_count)`.
    pub block_count: u64,
    /// Alignment of read buffers in memory.
    pub memory_align: usize,
    /// How long to keep issuing reads.
    pub duration: Duration,
    /// Seed of the offset streams.
    pub seed: u64,
    /// Every byte of one read in this many is verified (sector headers always are).
    pub full_every: u64,
}

impl RunPlan {
    /// The error for a read whose bytes are not the pattern.
    pub(crate) fn mismatch(&self, mismatch: pattern::Mismatch) -> IobenchError {
        IobenchError::Mismatch {
            path: self.path.clone(),
            offset: mismatch.offset,
            expected: mismatch.expected,
            found: mismatch.found,
            run: self.label.clone(),
        }
    }

    /// The error for a failed read.
    pub(crate) fn read_error(&self, offset: u64, len: u64, source: std::io::Error) -> IobenchError {
        IobenchError::Read {
            path: self.path.clone(),
            offset,
            len,
            run: self.label.clone(),
            source,
        }
    }
}

/// Counters of one run (or one thread of it).
#[derive(Clone, Debug, Default)]
pub(crate) struct RunStats {
    /// Reads completed and verified.
    pub reads: u64,
    /// Sectors whose header was checked (all sectors of all reads).
    pub sectors_verified: u64,
    /// Reads whose every byte was checked.
    pub reads_verified_full: u64,
    /// Resubmissions after short reads, `EINTR` or `EAGAIN`.
    pub retries: u64,
    /// Latency of every read, submission to completion, in nanoseconds.
    pub latency_ns: Histogram,
    /// Wall time of the run, first submission to last completion.
    pub elapsed: Duration,
    /// io_uring only: whether the buffers were registered (`READ_FIXED`).
    pub registered_buffers: Option<bool>,
}

impl RunStats {
    /// Accounts for one completed read of `bytes` at `offset`, after `latency_ns`, and
    /// verifies it against the pattern.
    #[inline]
    pub(crate) fn complete(
        &mut self,
        plan: &RunPlan,
        offset: u64,
        bytes: &[u8],
        latency_ns: u64,
    ) -> Result<(), IobenchError> {
        debug_assert_eq!(bytes.len() as u64, plan.block_bytes);
        self.latency_ns.record(latency_ns);
        let first_sector = offset / SECTOR_BYTES as u64;
        let checked = if self.reads % plan.full_every == 0 {
            self.reads_verified_full += 1;
            pattern::check_full(bytes, first_sector)
        } else {
            pattern::check_headers(bytes, first_sector)
        };
        checked.map_err(|mismatch| plan.mismatch(mismatch))?;
        self.reads += 1;
        self.sectors_verified += (bytes.len() / SECTOR_BYTES) as u64;
        Ok(())
    }

    /// Adds another thread's counters (not its elapsed time).
    pub(crate) fn merge(&mut self, other: &RunStats) {
        self.reads += other.reads;
        self.sectors_verified += other.sectors_verified;
        self.reads_verified_full += other.reads_verified_full;
        self.retries += other.retries;
        self.latency_ns.merge(&other.latency_ns);
    }
}
