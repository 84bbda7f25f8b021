//! Stage 3 of a query whose index is in memory (the `ram` engine, or the `mmap` engine over a
//! page-cache-resident file): rows are scored where they lie.
//!
//! There is no plan, no request and no copy: for every (block, query) unit, the rows of the
//! query's distinct k-mers are located (`hash mod rows`), prefetched one group ahead, and
//! added [`TREE_ROWS`] at a time through the carry-save tree of [`super::sliced`]. Threshold
//! pruning is checked after every group, so a block is abandoned as soon as no document in it
//! can reach the threshold, which reads even less than the planned path can. Units of
//! different blocks are independent; [`score`] spreads blocks over threads when asked.

use std::ops::Range;
use std::time::{Duration, Instant};

use super::counters::{Counters, CountersSlice, Unit};
use super::hashing::KmerArena;
use super::plan::PlanBlock;
use super::sliced::TREE_ROWS;
use crate::io::{IoError, ResidentFiles};
use crate::read::{Integrity, ReadError};

/// What scoring from memory did.
#[derive(Debug, Default)]
pub(crate) struct ResidentCounters {
    /// Rows added (per query).
    pub rows: u64,
    /// Units that died by pruning.
    pub units_pruned: u64,
    /// Time spent scoring, summed over threads.
    pub accumulate: Duration,
    /// Queries (positions in the chunk) whose rows could not be counted, and why: the other
    /// queries are still answered.
    pub failures: Vec<(usize, ReadError)>,
}

impl ResidentCounters {
    fn add(&mut self, other: ResidentCounters) {
        self.rows += other.rows;
        self.units_pruned += other.units_pruned;
        self.accumulate += other.accumulate;
        self.failures.extend(other.failures);
    }
}

/// Reusable buffers of one scoring thread: ANDed rows of multi-hash indexes.
#[derive(Debug, Default)]
pub(crate) struct ResidentScratch {
    and: Vec<u8>,
    /// Row offsets of the unit being scored, `H` per k-mer.
    offsets: Vec<usize>,
}

/// Everything a scoring thread reads.
pub(crate) struct ResidentInput<'a> {
    /// All blocks.
    pub blocks: &'a [PlanBlock],
    /// The bytes of every file, in engine order.
    pub files: &'a [&'a [u8]],
    /// Where they come from: asked for faults by every scoring thread after every unit.
    pub source: &'a dyn ResidentFiles,
    /// Checksums of the files: every page is checked the first time a row in it is used.
    pub integrity: &'a Integrity,
    /// The path of every file, for errors.
    pub paths: &'a [std::path::PathBuf],
    /// The chunk's hashed queries.
    pub arena: &'a KmerArena,
    /// Queries of the chunk.
    pub queries: usize,
}

impl<'a> ResidentInput<'a> {
    /// The job of counting k-mers `kmers` of a query in `block` into unit `unit`.
    fn job(&self, block: &'a PlanBlock, kmers: Range<usize>, unit: usize) -> UnitJob<'a> {
        UnitJob {
            block,
            file: self.files[block.file as usize],
            integrity: self.integrity,
            sidecar: self
                .integrity
                .sidecar(block.file)
                .map_or(&[][..], |(_, sidecar)| self.files[sidecar as usize]),
            path: &self.paths[block.file as usize],
            hashes: self.arena.hashes(block.index as usize),
            minimizers: self.arena.minimizers(block.index as usize),
            weights: self.arena.weights(block.index as usize),
            kmers,
            unit,
        }
    }

    /// Runs `job` on this thread; a fault while this thread touched mapped memory
    /// invalidates what it counted.
    fn score(
        &self,
        job: UnitJob<'_>,
        counters: &mut CountersSlice<'_>,
        scratch: &mut ResidentScratch,
    ) -> Result<(u64, bool), ReadError> {
        let outcome = job.score(counters, scratch)?;
        self.source.take_fault().map_err(ReadError::from)?;
        Ok(outcome)
    }
}

/// Scores every live unit of the chunk; `threads > 1` spreads blocks over that many threads,
/// or, when the index has fewer blocks than threads, each unit's k-mers ([`score_split`]).
pub(crate) fn score(
    input: &ResidentInput<'_>,
    counters: &mut Counters,
    scratch: &mut Vec<ResidentScratch>,
    threads: usize,
    rows_per_query: &mut [u64],
) -> ResidentCounters {
    if threads > 1 && input.blocks.len() < threads {
        return score_split(input, counters, scratch, threads, rows_per_query);
    }
    let groups = block_groups(input.blocks, threads);
    scratch.resize_with(groups.len().max(1), ResidentScratch::default);
    if groups.len() <= 1 {
        let range = 0..input.blocks.len();
        return score_blocks(
            input,
            range,
            counters.slice_mut(),
            &mut scratch[0],
            rows_per_query,
        );
    }
    let mut slices = Vec::with_capacity(groups.len());
    let mut rest = counters.slice_mut();
    for range in &groups[..groups.len() - 1] {
        let (low, high) = rest.split_at_block(range.end, input.queries);
        slices.push(low);
        rest = high;
    }
    slices.push(rest);
    let mut per_thread_rows = vec![vec![0u64; rows_per_query.len()]; groups.len()];
    let mut outcomes: Vec<ResidentCounters> = Vec::with_capacity(groups.len());
    outcomes.resize_with(groups.len(), ResidentCounters::default);
    rayon::scope(|s| {
        let work = groups
            .iter()
            .cloned()
            .zip(slices)
            .zip(scratch.iter_mut())
            .zip(per_thread_rows.iter_mut())
            .zip(outcomes.iter_mut());
        for ((((range, slice), scratch), rows), outcome) in work {
            s.spawn(move |_| *outcome = score_blocks(input, range, slice, scratch, rows));
        }
    });
    let mut total = ResidentCounters::default();
    for outcome in outcomes {
        total.add(outcome);
    }
    for rows in per_thread_rows {
        for (sum, r) in rows_per_query.iter_mut().zip(rows) {
            *sum += r;
        }
    }
    total
}

/// Scores every live unit with its k-mers cut into `threads` parts scored at once: the first
/// part counts into the unit's own counters (and prunes it: its bound, counts so far plus
/// every position not yet counted by it, holds whatever the other parts find), the others
/// into private counters of the same geometry, added into the unit's afterwards.
fn score_split(
    input: &ResidentInput<'_>,
    counters: &mut Counters,
    scratch: &mut Vec<ResidentScratch>,
    threads: usize,
    rows_per_query: &mut [u64],
) -> ResidentCounters {
    let started = Instant::now();
    scratch.resize_with(threads, ResidentScratch::default);
    let mut parts: Vec<Counters> = (1..threads).map(|_| Counters::default()).collect();
    // Reused from unit to unit: each unit's k-mer ranges and the parts' outcomes.
    let mut ranges: Vec<Range<usize>> = Vec::with_capacity(threads);
    let mut outcomes: Vec<Result<(u64, bool), ReadError>> = Vec::with_capacity(threads);
    let mut done = ResidentCounters::default();
    for number in 0..input.blocks.len() {
        let block = &input.blocks[number];
        for (query, rows_of_query) in rows_per_query.iter_mut().enumerate() {
            let unit = number * input.queries + query;
            if counters.unit(unit).dead {
                continue;
            }
            let kmers = input.arena.query(query, block.index as usize);

            // Small units are not worth a thread hand-off: one part takes them whole.
            let cut = if kmers.count as usize >= SPLIT_KMERS_MIN {
                threads
            } else {
                1
            };
            split_range(kmers.range(), cut, threads, &mut ranges);
            for part in parts.iter_mut().take(cut - 1) {
                part.reset(std::slice::from_ref(block), 1, |_, _, _| {
                    (Unit::new(kmers.positions, 0, false), true)
                });
            }
            outcomes.clear();
            outcomes.resize_with(threads, || Ok((0, false)));
            let (first_outcome, other_outcomes) = outcomes.split_at_mut(1);
            let (first_scratch, other_scratch) = scratch.split_at_mut(1);
            let mut own = counters.slice_mut();
            rayon::scope(|s| {
                let work = parts
                    .iter_mut()
                    .zip(other_scratch.iter_mut())
                    .zip(other_outcomes.iter_mut())
                    .zip(ranges[1..].iter().cloned());
                for (((part, scratch), outcome), range) in work {
                    if range.is_empty() {
                        continue;
                    }
                    s.spawn(move |_| {
                        let job = input.job(block, range, 0);
                        *outcome = input.score(job, &mut part.slice_mut(), scratch);
                    });
                }
                let job = input.job(block, ranges[0].clone(), unit);
                first_outcome[0] = input.score(job, &mut own, &mut first_scratch[0]);
            });
            for (part, range) in parts.iter().zip(&ranges[1..]) {
                if !range.is_empty() {
                    own.counters(unit).add_counters(&part.view(0));
                }
            }
            let mut rows = 0;
            let mut failed = None;
            for outcome in outcomes.drain(..) {
                match outcome {
                    Ok((added, _)) => rows += added,
                    Err(error) => failed = failed.or(Some(error)),
                }
            }
            match failed {
                Some(error) => done.failures.push((query, error)),
                None => {
                    *rows_of_query += rows;
                    done.rows += rows;
                    done.units_pruned += own.unit(unit).pruned as u64;
                }
            }
        }
    }
    done.accumulate = started.elapsed();
    done
}

/// Distinct k-mers below which a unit is scored on one thread.
const SPLIT_KMERS_MIN: usize = 256;

/// `range` cut into `parts` contiguous ranges of nearly equal length into `out`, padded with empty
/// ranges to `slots` entries.
fn split_range(range: Range<usize>, parts: usize, slots: usize, out: &mut Vec<Range<usize>>) {
    debug_assert!(parts <= slots);
    let len = range.len();
    out.clear();
    out.extend(
        (0..parts).map(|i| range.start + len * i / parts..range.start + len * (i + 1) / parts),
    );
    out.resize(slots, range.end..range.end);
}

/// Contiguous ranges of blocks of about equal work (row bytes), at most `threads` of them.
fn block_groups(blocks: &[PlanBlock], threads: usize) -> Vec<Range<usize>> {
    let threads = threads.clamp(1, blocks.len().max(1));
    let total: u64 = blocks.iter().map(|b| b.used_bytes).sum();
    let mut groups = Vec::with_capacity(threads);
    let mut start = 0;
    let mut done = 0u64;
    for (number, block) in blocks.iter().enumerate() {
        done += block.used_bytes;
        let wanted = total * (groups.len() as u64 + 1) / threads as u64;
        if done >= wanted && groups.len() + 1 < threads {
            groups.push(start..number + 1);
            start = number + 1;
        }
    }
    if start < blocks.len() {
        groups.push(start..blocks.len());
    }
    groups
}

fn score_blocks(
    input: &ResidentInput<'_>,
    blocks: Range<usize>,
    mut counters: CountersSlice<'_>,
    scratch: &mut ResidentScratch,
    rows_per_query: &mut [u64],
) -> ResidentCounters {
    let started = Instant::now();
    let mut done = ResidentCounters::default();
    for number in blocks {
        let block = &input.blocks[number];
        for (query, rows_of_query) in rows_per_query.iter_mut().enumerate() {
            let unit = number * input.queries + query;
            if counters.unit(unit).dead {
                continue;
            }
            let kmers = input.arena.query(query, block.index as usize);
            let job = input.job(block, kmers.range(), unit);
            let scored = input.score(job, &mut counters, scratch);
            match scored {
                Ok((rows, pruned)) => {
                    *rows_of_query += rows;
                    done.rows += rows;
                    done.units_pruned += pruned as u64;
                }
                Err(error) => done.failures.push((query, error)),
            }
        }
    }
    done.accumulate = started.elapsed();
    done
}

/// One (block, query) unit to score.
struct UnitJob<'a> {
    block: &'a PlanBlock,
    file: &'a [u8],
    integrity: &'a Integrity,
    /// The whole checksum sidecar of the block's file, in the same memory (empty without).
    sidecar: &'a [u8],
    path: &'a std::path::Path,
    hashes: &'a [u64],
    /// The minimizer hash of every distinct k-mer (empty unless rows or summaries need them).
    minimizers: &'a [u64],
    weights: &'a [u32],
    kmers: Range<usize>,
    unit: usize,
}

impl UnitJob<'_> {
    /// Byte offset of the row that `hash` (and, in the minimizer layout, `minimizer`) selects.
    #[inline(always)]
    fn row_offset(&self, hash: u64, minimizer: u64) -> usize {
        let row = self.block.rows.row(hash, minimizer);
        (self.block.data_offset + row * self.block.row_bytes) as usize
    }

    /// The used bytes of the row at `offset`, checked against the file's checksums.
    #[inline(always)]
    fn row(&self, offset: usize) -> Result<&[u8], ReadError> {
        let used = self.block.used_bytes as usize;
        let row = self
            .file
            .get(offset..offset + used)
            .ok_or_else(|| IoError::UnexpectedEnd {
                path: self.path.to_path_buf(),
                offset: offset as u64,
                size: self.file.len() as u64,
            })?;
        self.integrity.verify_resident(
            self.block.file,
            self.file,
            offset as u64,
            used as u64,
            self.sidecar,
        )?;
        Ok(row)
    }

    /// Computes the row offsets of k-mer `kmer` into `offsets` (`H` of them) and asks the
    /// CPU to start loading those rows.
    #[inline(always)]
    fn locate(&self, kmer: usize, offsets: &mut [usize]) {
        let h = self.block.num_hashes as usize;
        // Indexed, not defaulted: a missing minimizer would put the k-mer in another range.
        let minimizer = match self.block.rows.needs_minimizers() {
            true => self.minimizers[kmer],
            false => 0,
        };
        for (j, slot) in offsets.iter_mut().enumerate().take(h) {
            let offset = self.row_offset(self.hashes[kmer * h + j], minimizer);
            *slot = offset;
            prefetch(self.file, offset, self.block.used_bytes as usize);
        }
    }

    /// Adds the unit's rows; returns the rows added and whether the unit was pruned.
    fn score(
        &self,
        counters: &mut CountersSlice<'_>,
        scratch: &mut ResidentScratch,
    ) -> Result<(u64, bool), ReadError> {
        let h = self.block.num_hashes as usize;
        let used = self.block.used_bytes as usize;
        if h > 1 {
            scratch.and.resize(TREE_ROWS * used, 0);
        }
        let mut offsets = std::mem::take(&mut scratch.offsets);
        offsets.clear();
        offsets.resize(self.kmers.len() * h, 0);
        let outcome = self.score_groups(counters, scratch, &mut offsets);
        scratch.offsets = offsets;
        outcome
    }

    /// [`UnitJob::score`] with its offset buffer: rows are located (and prefetched)
    /// [`PREFETCH_KMERS`] k-mers ahead of the group being added, only as far as the unit
    /// gets before it is pruned.
    fn score_groups(
        &self,
        counters: &mut CountersSlice<'_>,
        scratch: &mut ResidentScratch,
        offsets: &mut [usize],
    ) -> Result<(u64, bool), ReadError> {
        let h = self.block.num_hashes as usize;
        let (start, end) = (self.kmers.start, self.kmers.end);
        let (mut from, mut located) = (start, start);
        let mut rows_added = 0u64;
        while from < end {
            let len = TREE_ROWS.min(end - from);
            let ahead = (from + len + PREFETCH_KMERS).min(end);
            while located < ahead {
                let at = (located - start) * h;
                self.locate(located, &mut offsets[at..at + h]);
                located += 1;
            }
            let group = &offsets[(from - start) * h..(from - start + len) * h];
            let weight = self.add_group(counters, scratch, from, group)?;
            rows_added += len as u64;
            if counters.advance(self.unit, weight, self.block.document_count) {
                return Ok((rows_added, true));
            }
            from += len;
        }
        Ok((rows_added, false))
    }

    /// Adds the rows of k-mers `from..` whose offsets are `offsets` (`H` per k-mer); returns
    /// their summed weight.
    fn add_group(
        &self,
        counters: &mut CountersSlice<'_>,
        scratch: &mut ResidentScratch,
        from: usize,
        offsets: &[usize],
    ) -> Result<u64, ReadError> {
        let h = self.block.num_hashes as usize;
        let used = self.block.used_bytes as usize;
        let mut sliced = counters.counters(self.unit);
        let mut ones: [&[u8]; TREE_ROWS] = [&[]; TREE_ROWS];
        let mut count = 0;
        let mut weight_sum = 0u64;
        if h > 1 {
            for (slot, rows) in offsets.chunks_exact(h).enumerate() {
                let buffer = &mut scratch.and[slot * used..(slot + 1) * used];
                buffer.copy_from_slice(self.row(rows[0])?);
                for &offset in &rows[1..] {
                    for (a, b) in buffer.iter_mut().zip(self.row(offset)?) {
                        *a &= b;
                    }
                }
            }
        }
        for (slot, rows) in offsets.chunks_exact(h).enumerate() {
            let weight = self.weights[from + slot];
            weight_sum += weight as u64;
            let row = if h > 1 {
                &scratch.and[slot * used..(slot + 1) * used]
            } else {
                self.row(rows[0])?
            };
            if weight == 1 {
                ones[count] = row;
                count += 1;
            } else {
                sliced.add_row(row, weight);
            }
        }
        sliced.add_rows(&ones[..count]);
        Ok(weight_sum)
    }
}

/// How far ahead of the group being added rows are located and prefetched, in k-mers: one
/// group. Random rows of a large index miss the caches and the TLB; the next group's loads
/// are in flight while this one is added. (Two and four groups ahead measured no different
/// on the 2,048-genome index, within this machine's noise.)
const PREFETCH_KMERS: usize = TREE_ROWS;

/// Asks the CPU to start loading the first cache lines of a row.
#[inline(always)]
fn prefetch(file: &[u8], offset: usize, used: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        if offset + used <= file.len() {
            let lines = used.div_ceil(64).min(4);
            for line in 0..lines {
                // SAFETY: the address lies inside `file` (checked above); a prefetch never
                // faults and has no architectural effect.
                unsafe { _mm_prefetch(file.as_ptr().add(offset + 64 * line).cast(), _MM_HINT_T0) };
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (file, offset, used);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(used_bytes: u64) -> PlanBlock {
        PlanBlock {
            index: 0,
            file: 0,
            data_offset: 0,
            row_count: 1,
            row_bytes: used_bytes,
            used_bytes,
            num_hashes: 1,
            document_count: used_bytes * 8,
            first_document: 0,
            rows: crate::format::RowMap::new(crate::format::RowLayout::Cobs, 1),
        }
    }

    #[test]
    fn groups_cover_every_block_once_and_balance_bytes() {
        let blocks: Vec<PlanBlock> = [10, 10, 10, 10, 40].iter().map(|&b| block(b)).collect();
        for threads in 1..=6 {
            let groups = block_groups(&blocks, threads);
            assert!(groups.len() <= threads.max(1));
            let covered: Vec<usize> = groups.iter().flat_map(|g| g.clone()).collect();
            assert_eq!(covered, (0..5).collect::<Vec<_>>(), "threads {threads}");
        }
        assert_eq!(block_groups(&blocks, 2), vec![0..4, 4..5]);
        assert!(block_groups(&[], 4).is_empty());
    }
}
