//! Stage 3 of a query read from storage: the [`ReadConsumer`] that decides, right before each
//! read is issued, whether it is still needed (threshold pruning), and that adds every
//! arriving row into the bit-sliced counters of the queries that need it. The read path below
//! it ([`crate::read`]) checks every read against the index's checksums and serves it from the
//! row cache when it can.
//!
//! # Threshold pruning
//!
//! A query of `n` k-mer positions with threshold count `T = ceil(t·n)` cannot report a
//! document that has already missed more than `n − T` positions. For every (block, query)
//! *unit* ([`super::counters::Unit`]) the executor tracks the positions whose rows in that
//! block have all been added. A document can finish with at most `score + (n − processed)`;
//! once no document of the block can reach `T`, the unit is dead and its remaining lookups are
//! dropped, and a read none of whose lookups is alive is never issued. Because reads go out in
//! file order and a row's position is `hash mod rows`, every block is visited in a random
//! k-mer order, so misses accumulate evenly. Scores of reported documents stay exact: a
//! document that can still reach `T` keeps its unit alive until its last row. `T = 0` never
//! prunes. With several hash functions a position counts as processed once all its rows
//! were ANDed, which happens later in the sweep, so pruning saves less.
//!
//! # Per-query accounting
//!
//! A read may serve several queries of a batch. Each query is charged the reads that held at
//! least one of its rows, and an equal share of each such read's bytes, so the shares of a
//! batch add up to its total.

use std::time::{Duration, Instant};

use super::accumulate::AndAccumulators;
use super::counters::CountersSlice;
use super::plan::{Plan, PlanBlock};
use crate::io::{IoError, ReadConsumer};
use crate::read::ReadError;

/// What a batch did, beyond the engine's own counters.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ExecuteCounters {
    /// Reads dropped because every lookup they served belonged to dead units.
    pub reads_pruned: u64,
    /// Units that died.
    pub units_pruned: u64,
    /// Time adding rows and checking units.
    pub accumulate: Duration,
}

/// One query's share of a batch's reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct QueryShare {
    /// Reads that held at least one row of the query.
    pub reads: u64,
    /// The query's share of those reads' bytes (and of the batch's side reads).
    pub bytes: u64,
    /// Of `bytes`: its share of side files' bytes.
    pub side_bytes: u64,
    /// Rows of the query that were added (not pruned).
    pub rows: u64,
}

/// A read that failed for good (or whose bytes did not match their checksums), and the
/// queries whose rows it held.
#[derive(Debug)]
pub(crate) struct FailedRead {
    /// The error.
    pub error: ReadError,
    /// Queries (positions in the chunk) that needed a row of the read.
    pub queries: Vec<u32>,
}

/// The consumer of one batch; see the module documentation.
pub(crate) struct Executor<'a> {
    /// The plan being read.
    pub plan: &'a Plan,
    /// All blocks.
    pub blocks: &'a [PlanBlock],
    /// Per index: weights of its unique k-mers (arena shared by the batch's queries).
    pub weights: &'a [Vec<u32>],
    /// Counters and pruning states of the chunk.
    pub counters: CountersSlice<'a>,
    /// Queries of the chunk.
    pub queries: usize,
    /// AND accumulators for multi-hash blocks.
    pub and: &'a mut AndAccumulators,
    /// Per query of the chunk: its share of the reads.
    pub shares: &'a mut [QueryShare],
    /// Per query: the last read charged to it (`u32::MAX`: none), so a read is charged once.
    pub last_read: &'a mut [u32],
    /// Scratch: the queries charged for the current read.
    pub charged: &'a mut Vec<u32>,
    /// Reads that failed for good; the batch goes on without them.
    pub failures: &'a mut Vec<FailedRead>,
    /// Counters of this batch.
    pub counters_out: ExecuteCounters,
}

impl Executor<'_> {
    fn unit_index(&self, query: u32, block: u32) -> usize {
        block as usize * self.queries + query as usize
    }

    /// Whether any lookup of read `read` still matters.
    fn alive(&self, read: usize) -> bool {
        self.plan.rows_of_read(read).iter().any(|row| {
            self.plan
                .lookups_of_row(row)
                .iter()
                .any(|l| !self.counters.unit(self.unit_index(l.query, l.block)).dead)
        })
    }

    /// Charges read `read` (of `bytes` bytes) to the queries whose rows it holds.
    fn charge(&mut self, read: usize, bytes: u64) {
        self.charged.clear();
        for row in self.plan.rows_of_read(read) {
            for lookup in self.plan.lookups_of_row(row) {
                let last = &mut self.last_read[lookup.query as usize];
                if *last != read as u32 {
                    *last = read as u32;
                    self.charged.push(lookup.query);
                }
            }
        }
        let sharing = self.charged.len() as u64;
        if sharing == 0 {
            return;
        }
        let (each, extra) = (bytes / sharing, bytes % sharing);
        for (i, &query) in self.charged.iter().enumerate() {
            let share = &mut self.shares[query as usize];
            share.reads += 1;
            share.bytes += each + u64::from((i as u64) < extra);
        }
    }

    /// Adds the rows of read `read` (its bytes in `bytes`) into every live query needing them.
    fn process(&mut self, read: usize, bytes: &[u8]) {
        let started = Instant::now();
        self.charge(read, bytes.len() as u64);
        let read_offset = self.plan.reads[read].offset;
        let plan = self.plan;
        for row in plan.rows_of_read(read) {
            let block = &self.blocks[row.block as usize];
            let start = (row.offset - read_offset) as usize;
            let slice = &bytes[start..start + block.used_bytes as usize];
            let lookups = plan.lookups_of_row(row);
            if block.num_hashes == 1 {
                // Lookups of a row are sorted by query: add the row once per query.
                let mut i = 0;
                while i < lookups.len() {
                    let query = lookups[i].query;
                    let mut weight = 0u64;
                    while i < lookups.len() && lookups[i].query == query {
                        weight +=
                            self.weights[block.index as usize][lookups[i].kmer as usize] as u64;
                        i += 1;
                    }
                    self.add(query, row.block, slice, weight);
                }
            } else {
                for lookup in lookups {
                    let unit = self.unit_index(lookup.query, lookup.block);
                    if self.counters.unit(unit).dead {
                        continue;
                    }
                    let hashes = block.num_hashes as u16;
                    if let Some(all) = self.and.and_row(lookup.pair as usize, slice, hashes) {
                        let weight = self.weights[block.index as usize][lookup.kmer as usize];
                        self.shares[lookup.query as usize].rows += 1;
                        let documents = block.document_count;
                        if self.counters.add(unit, all, weight, documents) {
                            self.counters_out.units_pruned += 1;
                        }
                    }
                }
            }
        }
        self.counters_out.accumulate += started.elapsed();
    }

    /// Adds a row with `weight` positions into query `query`'s counters for `block`.
    fn add(&mut self, query: u32, block: u32, row: &[u8], weight: u64) {
        let unit = self.unit_index(query, block);
        if self.counters.unit(unit).dead {
            return;
        }
        self.shares[query as usize].rows += 1;
        let documents = self.blocks[block as usize].document_count;
        // Weights are positions of one query: they fit u32 (a query has < 2^32 positions).
        let weight = u32::try_from(weight).unwrap_or(u32::MAX);
        if self.counters.add(unit, row, weight, documents) {
            self.counters_out.units_pruned += 1;
        }
    }

    /// Records that read `read` cannot be counted: the queries needing it fail.
    fn fail(&mut self, read: usize, error: ReadError) {
        let queries = self.queries_of_read(read);
        self.failures.push(FailedRead { error, queries });
    }

    /// The distinct queries needing a row of read `read`.
    fn queries_of_read(&self, read: usize) -> Vec<u32> {
        let mut queries: Vec<u32> = self
            .plan
            .rows_of_read(read)
            .iter()
            .flat_map(|row| self.plan.lookups_of_row(row).iter().map(|l| l.query))
            .collect();
        queries.sort_unstable();
        queries.dedup();
        queries
    }
}

impl ReadConsumer for Executor<'_> {
    fn wanted(&mut self, read: usize) -> bool {
        if !self.alive(read) {
            self.counters_out.reads_pruned += 1;
            return false;
        }
        true
    }

    /// The read path below has checked the bytes (and served them from the row cache when
    /// it held them): a read that did not match its checksums arrives in `failed`.
    fn complete(&mut self, read: usize, bytes: &[u8]) {
        self.process(read, bytes);
    }

    fn failed(&mut self, read: usize, error: IoError) -> Result<(), IoError> {
        self.fail(read, error.into());
        Ok(())
    }
}
