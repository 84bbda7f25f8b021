//! The io_uring variant measures the engine queries use: [`UringEngine::read_batch`], at the
//! run's depth, over batches of reads of random blocks, each read verified as every variant's
//! are. There is no io_uring loop of iobench's own, so the numbers are those of bitsift's.
//!
//! A read's latency runs from the engine asking whether it is still wanted (right before it
//! queues the read) to its delivery. Once the run's time is up the consumer declines the rest
//! of the batch, so the run ends with the reads already in flight, as the other variants end
//! with the reads their threads had started. Reads in flight are bounded by the depth and by
//! the engine's 8 MiB buffer arena: with blocks larger than 8 MiB over the depth, fewer reads
//! are in flight, as they would be in a query.

use std::time::Instant;

use super::rng::{stream_seed, SplitMix64};
use super::stats::{RunPlan, RunStats};
use super::IobenchError;
use crate::io::{
    DirectIo, IoCounters, IoError, ReadBatch, ReadConsumer, ReadEngine, ReadRequest, UringEngine,
};

/// Reads per batch per read in flight: enough that the tail of each batch, where fewer than
/// `depth` reads are in flight, is a small part of the run.
const BATCH_READS_PER_DEPTH: usize = 64;
/// Bounds on the reads of one batch.
const BATCH_READS_MIN: usize = 1024;
const BATCH_READS_MAX: usize = 65_536;

/// Opens the engine over the benchmark file (O_DIRECT required) at `depth`.
pub(crate) fn open(plan: &RunPlan, depth: u32) -> Result<UringEngine, IobenchError> {
    UringEngine::open(std::slice::from_ref(&plan.path), depth, DirectIo::Required)
        .map_err(|e| bench_error(plan, e))
}

/// Reads random blocks through `engine`, opened at `depth`, for `plan.duration`.
pub(crate) fn run(
    engine: &mut UringEngine,
    depth: u32,
    plan: &RunPlan,
) -> Result<RunStats, IobenchError> {
    let batch_len =
        (depth.max(1) as usize * BATCH_READS_PER_DEPTH).clamp(BATCH_READS_MIN, BATCH_READS_MAX);
    let mut rng = SplitMix64::new(stream_seed(plan.seed, 0));
    let mut requests = Vec::with_capacity(batch_len);
    let start = Instant::now();
    let mut reader = Reader {
        plan,
        deadline: start + plan.duration,
        offsets: Vec::with_capacity(batch_len),
        submitted: vec![start; batch_len],
        stats: RunStats::default(),
        error: None,
    };
    let mut counters = IoCounters::default();
    while Instant::now() < reader.deadline {
        requests.clear();
        reader.offsets.clear();
        for _ in 0..batch_len {
            let offset = rng.below(plan.block_count) * plan.block_bytes;
            reader.offsets.push(offset);
            requests.push(ReadRequest {
                file: 0,
                offset,
                len: plan.block_bytes as u32,
            });
        }
        engine
            .read_batch(ReadBatch::new(&requests, &mut reader, &mut counters))
            .map_err(|e| bench_error(plan, e))?;
        if let Some(error) = reader.error.take() {
            return Err(error);
        }
    }
    let mut stats = reader.stats;
    stats.elapsed = start.elapsed();
    stats.retries = counters.retries;
    stats.registered_buffers = Some(engine.registered_buffers());
    Ok(stats)
}

/// Times and verifies every read of a batch; declines the rest once time is up or a read was
/// wrong.
struct Reader<'a> {
    plan: &'a RunPlan,
    deadline: Instant,
    offsets: Vec<u64>,
    submitted: Vec<Instant>,
    stats: RunStats,
    error: Option<IobenchError>,
}

impl ReadConsumer for Reader<'_> {
    fn wanted(&mut self, request: usize) -> bool {
        let now = Instant::now();
        if self.error.is_some() || now >= self.deadline {
            return false;
        }
        self.submitted[request] = now;
        true
    }

    fn complete(&mut self, request: usize, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let latency_ns = self.submitted[request].elapsed().as_nanos() as u64;
        let offset = self.offsets[request];
        if let Err(e) = self.stats.complete(self.plan, offset, bytes, latency_ns) {
            self.error = Some(e);
        }
    }
}

/// A benchmark error from an engine error, naming the run.
fn bench_error(plan: &RunPlan, error: IoError) -> IobenchError {
    match error {
        IoError::Read {
            offset,
            len,
            source,
            ..
        }
        | IoError::Changed {
            offset,
            len,
            source,
            ..
        } => plan.read_error(offset, len, source),
        IoError::UnexpectedEnd { offset, size, .. } => {
            let source = std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("the file ended at {size} bytes; was it truncated while in use?"),
            );
            plan.read_error(offset, plan.block_bytes, source)
        }
        IoError::Open { source, .. } => {
            IobenchError::file(&plan.path, format!("cannot open: {source}"))
        }
        IoError::Unavailable { detail, .. } => IobenchError::Uring {
            path: plan.path.clone(),
            run: plan.label.clone(),
            detail,
        },
        // A bare engine reports none of these (they come from the read path's layers).
        other @ (IoError::Corrupt(_) | IoError::Invalid { .. } | IoError::Shared(_)) => {
            IobenchError::file(&plan.path, other.to_string())
        }
    }
}
