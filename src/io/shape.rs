//! The read shape: how an engine wants to be read. The storage decides what a request costs,
//! so each engine answers [`super::ReadEngine::read_shape`] and the planner shapes its reads
//! by it without asking what the storage is (see `docs/architecture.md`, "The read shape").
// Without the `remote` feature the remote shapes and errors are unused.
#![cfg_attr(not(feature = "remote"), allow(dead_code))]

use std::path::Path;

use super::files::{storage_kind, StorageKind};

/// Default cap on one coalesced read.
pub(crate) const READ_BYTES_MAX_DEFAULT: u64 = 256 << 10;
/// Default gap up to which neighbouring reads merge on local storage. Merging pays when
/// reading the gap costs less device time than one more request: gap ≈ bandwidth / IOPS.
/// The disks measured here (BENCHMARKS.md: ~60k random 4 KiB reads/s at depth 32, over
/// 1 GB/s sequential) put that near 16–32 KiB; a 30-gene batch on the simulated collection
/// ran 2.8× faster with 16 KiB than without merging. A single gene's rows are rarely that
/// close, so it costs sparse queries nothing.
pub(crate) const MERGE_GAP_DEFAULT: u64 = 16 << 10;
/// Merge gap on network and parallel file systems, where every request is a round trip.
pub(crate) const MERGE_GAP_NETWORK: u64 = 256 << 10;
/// Largest merged read on network and parallel file systems.
pub(crate) const READ_BYTES_MAX_NETWORK: u64 = 4 << 20;
/// Merge gap for remote files (HTTP, S3). With `D` requests in flight a request costs a
/// round trip divided by `D` of wall time, so merging two reads pays when the gap costs less
/// than that: `gap < bandwidth × RTT / D`, about 20 KB at 100 MB/s, 50 ms and 256 in flight.
/// A 1 MiB gap (one round trip's worth at depth 1) read a whole 5 GiB index for one gene in
/// BENCHMARKS.md ("Remote indexes"): the rows of ~1,000 k-mers lie ~300 KB apart per block.
pub(crate) const MERGE_GAP_REMOTE: u64 = 64 << 10;
/// Merge gap for remote files read by HTTP multi-range requests: a separate range costs
/// about a hundred bytes of part header and none of the requests in flight, so only reads
/// closer than a page are merged. At 50 ms on the 661k rehearsal this fetched a species gene
/// in 12.7 MiB and 1.2 s against 30 MiB and 2.1 s with [`MERGE_GAP_REMOTE`], and a COBS file of
/// 128-byte rows in 21 MiB instead of the whole 661 MiB (BENCHMARKS.md).
pub(crate) const MERGE_GAP_MULTIRANGE: u64 = 4 << 10;
/// Largest merged read of remote files: large enough that a dense query needs few requests,
/// small enough that hundreds of them in flight still spread over the file.
pub(crate) const READ_BYTES_MAX_REMOTE: u64 = 8 << 20;

/// How reads are shaped: what an engine answers and the planner follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadShape {
    /// Offsets and lengths are multiples of this (the engine's alignment).
    pub alignment: u64,
    /// Merge spans separated by at most this many bytes.
    pub gap_bytes: u64,
    /// Never merge beyond this size (a single row may still be longer).
    pub read_bytes_max: u64,
    /// Requests the engine keeps in flight at once.
    pub in_flight: usize,
}

impl ReadShape {
    /// The shape of local files: a network or parallel file system under any of `paths`
    /// merges far more than a local disk.
    pub(crate) fn local<'a>(
        paths: impl IntoIterator<Item = &'a Path>,
        alignment: u64,
        in_flight: usize,
    ) -> ReadShape {
        let network = paths.into_iter().find_map(|path| match storage_kind(path) {
            StorageKind::Network(name) => Some(name),
            StorageKind::Local => None,
        });
        let (gap_bytes, read_bytes_max) = match network {
            Some(name) => {
                tracing::info!(
                    "{name} detected: merging reads up to {MERGE_GAP_NETWORK} bytes apart"
                );
                (MERGE_GAP_NETWORK, READ_BYTES_MAX_NETWORK)
            }
            None => (MERGE_GAP_DEFAULT, READ_BYTES_MAX_DEFAULT),
        };
        ReadShape {
            alignment,
            gap_bytes,
            read_bytes_max,
            in_flight,
        }
    }

    /// The shape of remote files: a small gap when every file may be read by multi-range
    /// requests (a separate range then costs a part header, not a request), else one that
    /// weighs a request's share of a round trip against the bytes of the gap.
    pub(crate) fn remote(multirange: bool, alignment: u64, in_flight: usize) -> ReadShape {
        ReadShape {
            alignment,
            gap_bytes: if multirange {
                MERGE_GAP_MULTIRANGE
            } else {
                MERGE_GAP_REMOTE
            },
            read_bytes_max: READ_BYTES_MAX_REMOTE,
            in_flight,
        }
    }
}
