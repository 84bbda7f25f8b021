//! Where a hit matches (`--coverage`): for each reported document, the stretches of the query
//! covered by k-mers the document contains, and the longest run of k-mers it lacks.
//!
//! A score says how many of a query's k-mers a genome holds, not where. A whole gene lacks
//! none; a substitution knocks out up to k consecutive k-mers (every k-mer that overlaps it);
//! a truncated copy or a deletion lacks a longer run, at an end or inside. [`Coverage`] makes
//! the three cases visible.
//!
//! A Bloom filter answers "present" for some absent k-mers (30 % of them at COBS's default
//! false-positive rate), and such false positives are scattered singly or in short runs, so
//! they would split every gap and, since each k-mer covers k bases, tile a missing region with
//! spurious coverage. A stretch of fewer than [`ISLAND_KMERS_MAX`] + 1 matching k-mers between
//! two missing stretches (or between one and an end of the query) is therefore counted as
//! missing: at a false-positive rate of 0.3 a run of five false positives has odds of 0.3⁵ ≈
//! 0.002 per position, while a real match is far longer.
//!
//! Coverage is computed after ranking, only for the reported documents and only when asked:
//! the rows of every distinct k-mer of the query are read again in the blocks that hold a hit
//! (one planned batch, the same engine), and each row's bit of each hit document is tested.
//! [`CoverageConsumer`] counts, per (hit, k-mer), the rows with the bit set; a k-mer matches
//! when all its `H` rows do.

use super::hashing::KmerArena;
use super::hit::Hit;
use super::index::Index;
use super::plan::{Plan, PlanBlock};
use crate::io::{IoError, ReadConsumer, ReadEngine, ReadShape};
use crate::read::ReadError;

/// Matching stretches of at most this many k-mers between missing ones count as missing
/// (likely Bloom false positives; see the module documentation).
pub const ISLAND_KMERS_MAX: usize = 4;

/// Where a hit matches the query; positions are 1-based and inclusive, as sequence tools
/// report them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Coverage {
    /// Stretches of the query covered by k-mers the document contains, in order, disjoint.
    pub intervals: Vec<(u64, u64)>,
    /// Bases of the query inside those stretches.
    pub covered_bases: u64,
    /// The longest run of consecutive k-mer positions the document lacks (0: none missing).
    pub longest_gap: u64,
}

impl Coverage {
    /// Coverage of a query of `length` bases whose k-mer at position `i` (0-based) matches
    /// when `matched[i]`, for term size `k`.
    pub(crate) fn from_matches(
        matched: impl IntoIterator<Item = bool>,
        k: u64,
        length: u64,
    ) -> Coverage {
        let mut present: Vec<bool> = matched.into_iter().collect();
        drop_islands(&mut present);
        let mut intervals: Vec<(u64, u64)> = Vec::new();
        let (mut longest_gap, mut gap) = (0u64, 0u64);
        for (position, &here) in present.iter().enumerate() {
            if !here {
                gap += 1;
                longest_gap = longest_gap.max(gap);
                continue;
            }
            gap = 0;
            let (start, end) = (position as u64 + 1, (position as u64 + k).min(length));
            match intervals.last_mut() {
                Some(last) if start <= last.1 + 1 => last.1 = last.1.max(end),
                _ => intervals.push((start, end)),
            }
        }
        let covered_bases = intervals.iter().map(|&(s, e)| e - s + 1).sum();
        Coverage {
            intervals,
            covered_bases,
            longest_gap,
        }
    }

    /// The intervals as `1-850,870-1200` (`-` when none).
    pub fn intervals_text(&self) -> String {
        if self.intervals.is_empty() {
            return "-".into();
        }
        self.intervals
            .iter()
            .map(|(s, e)| format!("{s}-{e}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Turns runs of at most [`ISLAND_KMERS_MAX`] matches into misses, unless the run is the whole
/// query (a maximal run is bounded by misses or ends of the query, and here at least one side
/// is a miss).
fn drop_islands(present: &mut [bool]) {
    let mut at = 0;
    while at < present.len() {
        if !present[at] {
            at += 1;
            continue;
        }
        let start = at;
        while at < present.len() && present[at] {
            at += 1;
        }
        let whole_query = start == 0 && at == present.len();
        if !whole_query && at - start <= ISLAND_KMERS_MAX {
            present[start..at].fill(false);
        }
    }
}

/// One hit whose coverage is computed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    /// Block number of the hit's document.
    pub block: u32,
    /// Query (position in the chunk).
    pub query: u32,
    /// The document's position within its block.
    pub local: u64,
    /// First entry of the hit's counters in [`CoverageConsumer::counts`].
    pub counts_start: usize,
    /// The query's first distinct k-mer in its index's arena.
    pub kmer_base: u32,
}

/// Counts, for every target hit and every distinct k-mer of its query, the rows of the k-mer
/// in which the hit's document bit is set.
pub(crate) struct CoverageConsumer<'a> {
    /// The plan being read: every distinct k-mer of the covered queries, in the blocks of
    /// their hits.
    pub plan: &'a Plan,
    /// All blocks.
    pub blocks: &'a [PlanBlock],
    /// Targets sorted by (block, query).
    pub targets: &'a [Target],
    /// Per (block, query) unit: `targets[range]` are its hits.
    pub by_unit: &'a [(u32, u32)],
    /// Queries of the chunk.
    pub queries: usize,
    /// Per (target, k-mer): rows with the bit set.
    pub counts: &'a mut [u8],
    /// The first read that failed, if any (coverage then fails for the chunk).
    pub failure: Option<ReadError>,
}

impl ReadConsumer for CoverageConsumer<'_> {
    fn complete(&mut self, read: usize, bytes: &[u8]) {
        // The read path has checked the bytes: a damaged read arrives in `failed`.
        let read_offset = self.plan.reads[read].offset;
        for row in self.plan.rows_of_read(read) {
            let start = (row.offset - read_offset) as usize;
            let used = self.blocks[row.block as usize].used_bytes as usize;
            let slice = &bytes[start..(start + used).min(bytes.len())];
            for lookup in self.plan.lookups_of_row(row) {
                let unit = lookup.block as usize * self.queries + lookup.query as usize;
                let (from, to) = self.by_unit[unit];
                for target in &self.targets[from as usize..to as usize] {
                    let byte = slice.get((target.local / 8) as usize).copied().unwrap_or(0);
                    if byte >> (target.local % 8) & 1 == 1 {
                        let at = target.counts_start + (lookup.kmer - target.kmer_base) as usize;
                        self.counts[at] = self.counts[at].saturating_add(1);
                    }
                }
            }
        }
    }

    fn failed(&mut self, _read: usize, error: IoError) -> Result<(), IoError> {
        self.failure.get_or_insert(error.into());
        Ok(())
    }
}

/// What [`cover`] needs of the chunk.
pub(crate) struct CoverInput<'a> {
    /// The searched index.
    pub index: &'a Index,
    /// The chunk's hashed queries.
    pub arena: &'a KmerArena,
    /// How reads are shaped.
    pub shape: &'a ReadShape,
}

/// The coverage of every hit of every query of the chunk (`hits[q]`: query `q`'s hits, none
/// for a query not answered), in the same order (one planned batch through `engine`; `plan`
/// is reused).
pub(crate) fn cover(
    input: &CoverInput<'_>,
    engine: &mut dyn ReadEngine,
    plan: &mut Plan,
    hits: &[&[Hit]],
) -> Result<Vec<Vec<Coverage>>, ReadError> {
    let (mut targets, starts, total) = targets_of(input, hits);
    targets.sort_unstable_by_key(|t| (t.block, t.query));
    let queries = hits.len();
    let blocks = input.index.blocks();
    let mut by_unit = vec![(0u32, 0u32); blocks.len() * queries];
    let mut at = 0;
    while at < targets.len() {
        let (block, query) = (targets[at].block, targets[at].query);
        let from = at;
        while at < targets.len() && (targets[at].block, targets[at].query) == (block, query) {
            at += 1;
        }
        by_unit[block as usize * queries + query as usize] = (from as u32, at as u32);
        plan_unit(input, plan, block, query);
    }
    plan.finish(blocks, input.shape);
    let mut counts = vec![0u8; total];
    let mut consumer = CoverageConsumer {
        plan,
        blocks,
        targets: &targets,
        by_unit: &by_unit,
        queries,
        counts: &mut counts,
        failure: None,
    };
    engine.read_counted(&plan.reads, &mut consumer)?;
    if let Some(error) = consumer.failure {
        return Err(error);
    }
    Ok(coverages(input, hits, &starts, &counts))
}

/// One target per hit of every query, in query order, with where each one's counters
/// start; and the number of counters.
fn targets_of(input: &CoverInput<'_>, hits: &[&[Hit]]) -> (Vec<Target>, Vec<usize>, usize) {
    let blocks = input.index.blocks();
    let (mut targets, mut starts, mut total) = (Vec::new(), Vec::new(), 0usize);
    for (q, &query_hits) in hits.iter().enumerate() {
        for hit in query_hits {
            let number = blocks
                .iter()
                .position(|b| {
                    b.index == hit.index
                        && (b.first_document..b.first_document + b.document_count)
                            .contains(&hit.document)
                })
                .expect("a hit lies in a block of its index");
            let kmers = input.arena.query(q, hit.index as usize);
            targets.push(Target {
                block: number as u32,
                query: q as u32,
                local: hit.document - blocks[number].first_document,
                counts_start: total,
                kmer_base: kmers.start,
            });
            starts.push(total);
            total += kmers.count as usize;
        }
    }
    (targets, starts, total)
}

/// Plans the rows of every distinct k-mer of `query` in block `block`.
fn plan_unit(input: &CoverInput<'_>, plan: &mut Plan, block: u32, query: u32) {
    let plan_block = &input.index.blocks()[block as usize];
    let index = plan_block.index as usize;
    let kmers = input.arena.query(query as usize, index);
    let h = plan_block.num_hashes as usize;
    let range = kmers.range();
    plan.add_block_lookups(
        block,
        plan_block,
        query,
        &input.arena.hashes(index)[..range.end * h],
        input.arena.minimizers(index),
        range.start as u32..range.end as u32,
    );
}

/// Turns the counters into each hit's [`Coverage`], in query and hit order.
fn coverages(
    input: &CoverInput<'_>,
    hits: &[&[Hit]],
    starts: &[usize],
    counts: &[u8],
) -> Vec<Vec<Coverage>> {
    let headers = input.index.headers();
    let mut next = starts.iter();
    let mut all = Vec::with_capacity(hits.len());
    for (q, &query_hits) in hits.iter().enumerate() {
        let coverage = query_hits
            .iter()
            .map(|hit| {
                let start = *next.next().expect("a start per hit");
                let header = &headers[hit.index as usize];
                let (k, hashes) = (header.k as u64, header.num_hashes);
                let kmers = input.arena.query(q, hit.index as usize);
                let matched = input
                    .arena
                    .kmer_of_position(q, hit.index as usize)
                    .iter()
                    .map(|&u| counts[start + u as usize] as u32 >= hashes);
                Coverage::from_matches(matched, k, kmers.positions + k - 1)
            })
            .collect();
        all.push(coverage);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(pattern: &str, k: u64) -> Coverage {
        let matched: Vec<bool> = pattern.bytes().map(|b| b == b'1').collect();
        let length = matched.len() as u64 + k - 1;
        Coverage::from_matches(matched, k, length)
    }

    #[test]
    fn a_whole_gene_is_one_interval_without_gap() {
        let c = of("1111111111", 5);
        assert_eq!(c.intervals, vec![(1, 14)]);
        assert_eq!((c.covered_bases, c.longest_gap), (14, 0));
        assert_eq!(c.intervals_text(), "1-14");
    }

    #[test]
    fn a_substitution_is_a_gap_of_at_most_k_kmers_even_with_false_positives() {
        // k = 5: the base at position 13 (1-based) is in the k-mers starting at 9..13.
        let clean = of("111111110000011111111", 5);
        assert_eq!(clean.longest_gap, 5);
        assert_eq!(clean.intervals, vec![(1, 12), (14, 25)]);
        // A false positive inside the run does not split it.
        let noisy = of("111111110010011111111", 5);
        assert_eq!(noisy, clean);
    }

    #[test]
    fn a_truncated_copy_is_a_long_gap_at_the_end_despite_scattered_false_positives() {
        let c = of("11111111110010001100100100", 5);
        assert_eq!(c.intervals, vec![(1, 14)]);
        assert_eq!(c.longest_gap, 16);
        let none = of("0000", 3);
        assert!(none.intervals.is_empty());
        assert_eq!((none.covered_bases, none.longest_gap), (0, 4));
        assert_eq!(none.intervals_text(), "-");
    }

    #[test]
    fn long_matching_stretches_between_gaps_stay() {
        let c = of("00000111110000011111", 3);
        assert_eq!(c.intervals, vec![(6, 12), (16, 22)]);
        assert_eq!(c.longest_gap, 5);
    }
}
