//! Running one planned batch: the [`ReadConsumer`] that decides, right before each read is
//! issued, whether it is still needed (threshold pruning) or already cached, and that adds
//! every arriving row into the counters of the queries that need it.
//!
//! # Threshold pruning
//!
//! A query of `n` k-mer positions with threshold count `T = ceil(t·n)` cannot report a
//! document that has already missed more than `n − T` positions. For every (query, block)
//! *unit* the executor tracks `processed`, the positions whose rows in that block have all
//! been added. A document can finish with at most `score + (n − processed)`; once even the
//! best document of the block cannot reach `T`, the unit is dead and its remaining lookups are
//! dropped, and a read none of whose lookups is alive is never issued. Because reads go out in
//! file order and a row's position is `hash mod rows`, every block is visited in a random
//! k-mer order, so misses accumulate evenly. Scores of reported documents stay exact: a
//! document that can still reach `T` keeps its unit alive until its last row. `T = 0` never
//! prunes. With several hash functions a position counts as processed once all its rows
//! were ANDed, which happens later in the sweep, so pruning saves less.

use std::time::{Duration, Instant};

use super::accumulate::{add_row, AndAccumulators};
use super::plan::{Plan, PlanBlock};
use crate::io::{PageCache, ReadConsumer};

/// Pruning state of one (query, block).
#[derive(Clone, Copy, Debug, Default)]
pub struct Unit {
    /// Positions the query must find (`T`); `u64::MAX` disables pruning for the unit.
    pub needed: u64,
    /// The query's positions in this block's index (`n`).
    pub positions: u64,
    /// Positions whose rows in this block have all been added.
    pub processed: u64,
    /// Check again once `processed` reaches this.
    pub next_check: u64,
    /// No document of the block can reach `needed` any more.
    pub dead: bool,
}

impl Unit {
    /// A unit for a query of `positions` positions needing `needed` of them.
    pub fn new(positions: u64, needed: u64, pruning: bool) -> Unit {
        let allowed_misses = positions.saturating_sub(needed);
        Unit {
            needed: if pruning && needed > 0 {
                needed
            } else {
                u64::MAX
            },
            positions,
            processed: 0,
            // Before more than `allowed_misses` positions are in, nobody can be excluded.
            next_check: allowed_misses + 1,
            dead: false,
        }
    }
}

/// What a batch did, beyond the engine's own counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExecuteCounters {
    /// Reads dropped because every lookup they served belonged to dead units.
    pub reads_pruned: u64,
    /// Reads served entirely from the page cache.
    pub reads_cached: u64,
    /// Units that died.
    pub units_pruned: u64,
    /// Time adding rows and checking units.
    pub accumulate: Duration,
}

/// The consumer of one batch; see the module documentation.
pub struct Executor<'a> {
    /// The plan being read.
    pub plan: &'a Plan,
    /// All blocks.
    pub blocks: &'a [PlanBlock],
    /// Per index: weights of its unique k-mers (arena shared by the batch's queries).
    pub weights: &'a [Vec<u32>],
    /// Per query of the batch: its counters, `counter_slots` each.
    pub counters: &'a mut [u32],
    /// Counters per query.
    pub counter_slots: usize,
    /// Per (query, block), query-major.
    pub units: &'a mut [Unit],
    /// AND accumulators for multi-hash blocks.
    pub and: &'a mut AndAccumulators,
    /// The shared page cache, if any.
    pub cache: Option<&'a PageCache>,
    /// A scratch buffer for reads assembled from cached pages.
    pub scratch: &'a mut Vec<u8>,
    /// Counters of this batch.
    pub counters_out: ExecuteCounters,
}

impl Executor<'_> {
    fn unit_index(&self, query: u32, block: u32) -> usize {
        query as usize * self.blocks.len() + block as usize
    }

    /// Whether any lookup of read `read` still matters.
    fn alive(&self, read: usize) -> bool {
        self.plan.rows_of_read(read).iter().any(|row| {
            self.plan
                .lookups_of_row(row)
                .iter()
                .any(|l| !self.units[self.unit_index(l.query, l.block)].dead)
        })
    }

    /// Assembles read `read` from cached pages into the scratch buffer, if all are cached.
    fn assemble_cached(&mut self, read: usize) -> bool {
        let Some(cache) = self.cache else {
            return false;
        };
        let request = self.plan.reads[read];
        let page = cache.page_size() as u64;
        debug_assert_eq!(request.offset % page, 0);
        let pages = (request.len as u64).div_ceil(page) as usize;
        // Check first without touching the recency of pages we may not use.
        if !(0..pages as u64).all(|p| cache.contains(request.file, request.offset + p * page)) {
            cache.record_misses(pages as u64);
            return false;
        }
        self.scratch.resize(pages * page as usize, 0);
        for p in 0..pages {
            let chunk = &mut self.scratch[p * page as usize..(p + 1) * page as usize];
            if !cache.get(request.file, request.offset + p as u64 * page, chunk) {
                return false;
            }
        }
        true
    }

    /// Adds the rows of read `read` (its bytes in `bytes`) into every live query needing them.
    fn process(&mut self, read: usize, bytes: &[u8]) {
        let started = Instant::now();
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
                    if self.units[unit].dead {
                        continue;
                    }
                    let hashes = block.num_hashes as u16;
                    if let Some(all) = self.and.and_row(lookup.pair as usize, slice, hashes) {
                        let weight = self.weights[block.index as usize][lookup.kmer as usize];
                        let base = lookup.query as usize * self.counter_slots + block.counter_base;
                        add_row(&mut self.counters[base..], all, weight);
                        self.advance(unit, weight as u64);
                    }
                }
            }
        }
        self.counters_out.accumulate += started.elapsed();
    }

    /// Adds a row with `weight` positions into query `query`'s counters for `block`.
    fn add(&mut self, query: u32, block: u32, row: &[u8], weight: u64) {
        let unit = self.unit_index(query, block);
        if self.units[unit].dead {
            return;
        }
        let base = query as usize * self.counter_slots + self.blocks[block as usize].counter_base;
        add_row(&mut self.counters[base..], row, weight as u32);
        self.advance(unit, weight);
    }

    /// Records `weight` more processed positions of a unit and checks whether it died.
    fn advance(&mut self, unit: usize, weight: u64) {
        let state = &mut self.units[unit];
        state.processed += weight;
        if state.needed == u64::MAX || state.processed < state.next_check {
            return;
        }
        let remaining = state.positions.saturating_sub(state.processed);
        // Check again after another 1/32 of the positions.
        state.next_check = state.processed + (state.positions / 32).max(1);
        let query = unit / self.blocks.len();
        let block = &self.blocks[unit % self.blocks.len()];
        let base = query * self.counter_slots + block.counter_base;
        let best = self.counters[base..base + block.document_count as usize]
            .iter()
            .copied()
            .max()
            .unwrap_or(0) as u64;
        if best + remaining < state.needed {
            state.dead = true;
            self.counters_out.units_pruned += 1;
        }
    }
}

impl ReadConsumer for Executor<'_> {
    fn wanted(&mut self, read: usize) -> bool {
        if !self.alive(read) {
            self.counters_out.reads_pruned += 1;
            return false;
        }
        if self.assemble_cached(read) {
            self.counters_out.reads_cached += 1;
            let scratch = std::mem::take(self.scratch);
            self.process(read, &scratch);
            *self.scratch = scratch;
            return false;
        }
        true
    }

    fn complete(&mut self, read: usize, bytes: &[u8]) {
        if let Some(cache) = self.cache {
            let request = self.plan.reads[read];
            let page = cache.page_size();
            for (p, chunk) in bytes.chunks(page).enumerate() {
                cache.insert(request.file, request.offset + (p * page) as u64, chunk);
            }
        }
        self.process(read, bytes);
    }
}
