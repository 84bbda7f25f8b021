//! The planner: from k-mer hashes to a sorted, deduplicated, aligned and coalesced batch of
//! reads, plus the map from every read back to the rows and k-mers it serves.
//!
//! A *lookup* is one (block, query, unique k-mer, hash function): the row of that block the
//! k-mer's hash (and, in the minimizer layout, its minimizer) selects ([`RowMap`]), needed by
//! that query. Lookups of every query of a batch are sorted by file position; equal positions
//! become one *row*, read once and added into every query that needs it; the aligned spans of
//! neighbouring rows merge into one *read* when they overlap, touch, lie within `gap_bytes` of
//! each other, or lie in one range of the minimizer layout (up to `read_bytes_max`, which a
//! range never exceeds: a range is the unit the layout is made to be read in). A row's span
//! covers only the bytes of documents that exist, so the zero padding of a partly filled last
//! block is never read. All vectors are kept between batches, so planning allocates only when
//! a batch is larger than every one before it.

use crate::format::RowMap;
use crate::io::{ReadRequest, ReadShape};

/// A block of some index, flattened for planning and accumulation.
#[derive(Clone, Debug)]
pub(crate) struct PlanBlock {
    /// Which index (position in the searcher's list) the block belongs to.
    pub index: u32,
    /// File number in the engine.
    pub file: u32,
    /// Offset of row 0.
    pub data_offset: u64,
    /// Rows.
    pub row_count: u64,
    /// Bytes per row.
    pub row_bytes: u64,
    /// Bytes of a row that hold documents (`ceil(document_count / 8)`); the rest is padding.
    pub used_bytes: u64,
    /// Hash functions of the block's index.
    pub num_hashes: u32,
    /// Documents in the block.
    pub document_count: u64,
    /// Index (in the header's name list) of the first document.
    pub first_document: u64,
    /// Where a k-mer's row lies in the block.
    pub rows: RowMap,
}

impl PlanBlock {
    /// Bytes of a range of rows read as one (a row in COBS's layout).
    pub(crate) fn range_bytes(&self) -> u64 {
        self.rows.range_rows() * self.row_bytes
    }
}

/// Bits of a lookup key that hold the byte offset; the file number sits above them.
const OFFSET_BITS: u32 = 48;

/// One lookup: a row of a block needed by a unique k-mer of a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lookup {
    /// `file << 48 | byte offset of the row`: sorting by key sorts by file position.
    pub key: u64,
    /// Block (position in the flattened block list).
    pub block: u32,
    /// Query (position in the batch).
    pub query: u32,
    /// Unique k-mer (position in the k-mer arena of the block's index).
    pub kmer: u32,
    /// For blocks with several hash functions: the (block, query, k-mer) pair whose rows are
    /// ANDed, numbered densely from 0 (see [`Plan::pair_count`]); 0 otherwise.
    pub pair: u32,
}

/// A distinct row to read, with the lookups it answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlannedRow {
    /// File number.
    pub file: u32,
    /// Byte offset of the row.
    pub offset: u64,
    /// Block of the row.
    pub block: u32,
    /// `lookups[lookup_start..lookup_end]` are the lookups served by this row.
    pub lookup_start: u32,
    /// End of the lookup range.
    pub lookup_end: u32,
}

/// A planned batch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// All lookups, sorted by key.
    pub lookups: Vec<Lookup>,
    /// Distinct rows, sorted by position.
    pub rows: Vec<PlannedRow>,
    /// Reads, sorted by position.
    pub reads: Vec<ReadRequest>,
    /// `rows[read_rows[i]..read_rows[i + 1]]` lie in read `i`.
    pub read_rows: Vec<u32>,
    /// Distinct (block, query, k-mer) pairs of blocks with several hash functions.
    pub pair_count: u32,
    /// Distinct 4 KiB pages the rows lie in: what a page-granular reader (mmap, COBS) must
    /// fetch, and the basis of the device-limit estimate.
    pub pages_4k: u64,
    order: Vec<u32>,
}

impl Plan {
    /// Forgets the previous batch, keeping allocations.
    pub(crate) fn clear(&mut self) {
        self.lookups.clear();
        self.rows.clear();
        self.reads.clear();
        self.read_rows.clear();
        self.pair_count = 0;
        self.pages_4k = 0;
    }

    /// Adds the lookups of query `query`'s unique k-mers `kmers` (hashes
    /// `hashes[u·H .. u·H + H]` and minimizer hash `minimizers[u]` for k-mer `u`; no
    /// minimizers are needed in COBS's layout) in block `block_number`.
    pub(crate) fn add_block_lookups(
        &mut self,
        block_number: u32,
        block: &PlanBlock,
        query: u32,
        hashes: &[u64],
        minimizers: &[u64],
        kmers: std::ops::Range<u32>,
    ) {
        assert!(
            !block.rows.needs_minimizers() || minimizers.len() >= kmers.end as usize,
            "the minimizer layout needs every k-mer's minimizer"
        );
        let num_hashes = block.num_hashes as usize;
        debug_assert!(block.file < (1 << (64 - OFFSET_BITS)));
        debug_assert!(block.data_offset + block.row_count * block.row_bytes < (1 << OFFSET_BITS));
        let file_key = (block.file as u64) << OFFSET_BITS;
        for kmer in kmers {
            let start = kmer as usize * num_hashes;
            let minimizer = minimizers.get(kmer as usize).copied().unwrap_or(0);
            for &hash in &hashes[start..start + num_hashes] {
                let row = block.rows.row(hash, minimizer);
                self.lookups.push(Lookup {
                    key: file_key | (block.data_offset + row * block.row_bytes),
                    block: block_number,
                    query,
                    kmer,
                    pair: 0,
                });
            }
        }
    }

    /// Adds rows `rows` of block `block_number` whole (as query 0, k-mer 0): the rows a
    /// block's ratios of ones are counted in ([`super::fill`]).
    pub(crate) fn add_rows(
        &mut self,
        block_number: u32,
        block: &PlanBlock,
        rows: std::ops::Range<u64>,
    ) {
        let file_key = (block.file as u64) << OFFSET_BITS;
        for row in rows.start..rows.end.min(block.row_count) {
            self.lookups.push(Lookup {
                key: file_key | (block.data_offset + row * block.row_bytes),
                block: block_number,
                query: 0,
                kmer: 0,
                pair: 0,
            });
        }
    }

    /// Sorts the lookups, merges them into rows and the rows into reads.
    pub(crate) fn finish(&mut self, blocks: &[PlanBlock], shape: &ReadShape) {
        self.lookups
            .sort_unstable_by_key(|l| (l.key, l.block, l.query, l.kmer));
        self.number_pairs(blocks);
        self.rows.clear();
        let mut start = 0usize;
        while start < self.lookups.len() {
            let key = self.lookups[start].key;
            let mut end = start + 1;
            while end < self.lookups.len() && self.lookups[end].key == key {
                end += 1;
            }
            self.rows.push(PlannedRow {
                file: (key >> OFFSET_BITS) as u32,
                offset: key & ((1 << OFFSET_BITS) - 1),
                block: self.lookups[start].block,
                lookup_start: start as u32,
                lookup_end: end as u32,
            });
            start = end;
        }
        self.count_pages(blocks);
        self.coalesce(blocks, shape);
    }

    /// Numbers the distinct (block, query, k-mer) pairs of multi-hash blocks densely.
    fn number_pairs(&mut self, blocks: &[PlanBlock]) {
        self.order.clear();
        self.order.extend(
            (0..self.lookups.len() as u32)
                .filter(|&i| blocks[self.lookups[i as usize].block as usize].num_hashes > 1),
        );
        if self.order.is_empty() {
            return;
        }
        let lookups = &self.lookups;
        self.order.sort_unstable_by_key(|&i| {
            let l = &lookups[i as usize];
            (l.block, l.query, l.kmer)
        });
        let mut pair = 0u32;
        let mut previous = None;
        for &i in &self.order {
            let l = &mut self.lookups[i as usize];
            let triple = (l.block, l.query, l.kmer);
            if previous.is_some_and(|p| p != triple) {
                pair += 1;
            }
            previous = Some(triple);
            l.pair = pair;
        }
        self.pair_count = pair + 1;
    }

    /// Counts the distinct 4 KiB pages holding the rows (rows are sorted by position).
    fn count_pages(&mut self, blocks: &[PlanBlock]) {
        let mut last: Option<(u32, u64)> = None;
        let mut pages = 0;
        for row in &self.rows {
            let used = blocks[row.block as usize].used_bytes.max(1);
            let first = row.offset / 4096;
            let end = (row.offset + used - 1) / 4096;
            let start = match last {
                Some((file, page)) if file == row.file => first.max(page + 1),
                _ => first,
            };
            if end >= start {
                pages += end - start + 1;
                last = Some((row.file, end));
            }
        }
        self.pages_4k = pages;
    }

    fn coalesce(&mut self, blocks: &[PlanBlock], shape: &ReadShape) {
        let align = shape.alignment.max(1);
        self.reads.clear();
        self.read_rows.clear();
        let mut current: Option<(u32, u64, u64)> = None; // (file, start, end)
                                                         // The block and range of the current read's first row.
        let mut first_range = (u32::MAX, 0u64);
        for (row_number, row) in self.rows.iter().enumerate() {
            let block = &blocks[row.block as usize];
            let start = row.offset / align * align;
            let end = (row.offset + block.used_bytes).div_ceil(align) * align;
            let range = (
                row.block,
                (row.offset - block.data_offset) / block.range_bytes(),
            );
            if let Some((file, span_start, span_end)) = current.as_mut() {
                let same_range = block.rows.range_rows() > 1 && range == first_range;
                let mergeable = *file == row.file
                    && (same_range
                        || (start <= *span_end + shape.gap_bytes
                            && end.max(*span_end) - *span_start <= shape.read_bytes_max));
                if mergeable {
                    *span_end = (*span_end).max(end);
                    continue;
                }
                self.reads.push(ReadRequest {
                    file: *file,
                    offset: *span_start,
                    len: (*span_end - *span_start) as u32,
                });
            }
            current = Some((row.file, start, end));
            first_range = range;
            self.read_rows.push(row_number as u32);
        }
        if let Some((file, start, end)) = current {
            self.reads.push(ReadRequest {
                file,
                offset: start,
                len: (end - start) as u32,
            });
        }
        self.read_rows.push(self.rows.len() as u32);
        debug_assert_eq!(self.read_rows.len(), self.reads.len() + 1);
    }

    /// Adds to `pages[q]` the distinct 4 KiB pages holding query `q`'s rows; `last` is
    /// scratch (resized here).
    pub(crate) fn count_query_pages(
        &self,
        blocks: &[PlanBlock],
        pages: &mut [u64],
        last: &mut Vec<(u32, u64)>,
    ) {
        last.clear();
        last.resize(pages.len(), (u32::MAX, 0));
        for row in &self.rows {
            let used = blocks[row.block as usize].used_bytes.max(1);
            let (first, end) = (row.offset / 4096, (row.offset + used - 1) / 4096);
            for lookup in self.lookups_of_row(row) {
                let q = lookup.query as usize;
                let (file, page) = last[q];
                let start = if file == row.file {
                    first.max(page + 1)
                } else {
                    first
                };
                if end >= start {
                    pages[q] += end - start + 1;
                    last[q] = (row.file, end);
                }
            }
        }
    }

    /// Rows served by read `read`.
    pub(crate) fn rows_of_read(&self, read: usize) -> &[PlannedRow] {
        &self.rows[self.read_rows[read] as usize..self.read_rows[read + 1] as usize]
    }

    /// Lookups served by `row`.
    pub(crate) fn lookups_of_row(&self, row: &PlannedRow) -> &[Lookup] {
        &self.lookups[row.lookup_start as usize..row.lookup_end as usize]
    }
}

/// The shape of an engine with one read in flight, for the tests: reads aligned to
/// `alignment`, merged across gaps of up to `gap_bytes`, up to `read_bytes_max` long.
#[cfg(test)]
fn one_at_a_time(alignment: u64, gap_bytes: u64, read_bytes_max: u64) -> ReadShape {
    ReadShape {
        alignment,
        gap_bytes,
        read_bytes_max,
        in_flight: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(file: u32, data_offset: u64, rows: u64, row_bytes: u64) -> PlanBlock {
        PlanBlock {
            index: 0,
            file,
            data_offset,
            row_count: rows,
            row_bytes,
            used_bytes: row_bytes,
            num_hashes: 1,
            document_count: row_bytes * 8,
            first_document: 0,
            rows: RowMap::new(crate::format::RowLayout::Cobs, rows),
        }
    }

    /// In the minimizer layout the rows of one range are one read, however far apart and
    /// whatever the gap; rows of two ranges are two reads unless the gap joins them.
    #[test]
    fn a_range_is_one_read_and_ranges_keep_the_gap_rule() {
        let layout = crate::format::RowLayout::minimizer(31, 16);
        let mut ranged = block(0, 4096, 16 * 64, 4096);
        ranged.rows = RowMap::new(layout, 16 * 64);
        let blocks = vec![ranged];
        // Minimizer 0 is range 0, u64::MAX / 2 + 1 range 32; hashes pick rows 1, 14 and 3.
        let minimizers = [0, 0, 1 << 63];
        let mut plan = Plan::default();
        plan.add_block_lookups(0, &blocks[0], 0, &[1, 14, 3], &minimizers, 0..3);
        let shape = one_at_a_time(4096, 0, 8192);
        plan.finish(&blocks, &shape);
        assert_eq!(plan.rows.len(), 3);
        assert_eq!(plan.reads.len(), 2, "{:?}", plan.reads);
        // Rows 1 and 14 of range 0: one read of 14 rows, past read_bytes_max.
        assert_eq!(plan.reads[0].offset, 4096 + 4096);
        assert_eq!(plan.reads[0].len, 14 * 4096);
        assert_eq!(plan.reads[1].offset, 4096 + (32 * 16 + 3) * 4096);
        assert_eq!(plan.reads[1].len, 4096);
        // A gap as wide as the distance between the ranges joins them (within the maximum).
        let wide = ReadShape {
            gap_bytes: 1 << 30,
            read_bytes_max: 1 << 30,
            ..shape
        };
        plan.finish(&blocks, &wide);
        assert_eq!(plan.reads.len(), 1);
    }

    #[test]
    fn duplicate_rows_become_one_read() {
        let blocks = vec![block(0, 4096, 100, 4096)];
        let mut plan = Plan::default();
        // k-mers 0 and 2 share row 5; k-mer 1 has row 7.
        plan.add_block_lookups(0, &blocks[0], 0, &[5, 7, 105], &[], 0..3);
        plan.finish(&blocks, &one_at_a_time(4096, 0, 4096));
        assert_eq!(plan.rows.len(), 2);
        assert_eq!(plan.reads.len(), 2);
        assert_eq!(plan.reads[0].offset, 4096 + 5 * 4096);
        assert_eq!(plan.lookups_of_row(&plan.rows[0]).len(), 2);
        assert_eq!(plan.rows_of_read(1)[0].offset, 4096 + 7 * 4096);
    }

    #[test]
    fn small_rows_share_aligned_reads() {
        // 8-byte rows: rows 0..64 share one 512-byte sector.
        let blocks = vec![block(0, 512, 1000, 8)];
        let mut plan = Plan::default();
        plan.add_block_lookups(0, &blocks[0], 0, &[3, 9, 63, 64, 999], &[], 0..5);
        plan.finish(&blocks, &one_at_a_time(512, 0, 512));
        assert_eq!(plan.rows.len(), 5);
        // Rows 3, 9, 63 and 64 share page 0 (offsets 536..1032); row 999 is in page 2.
        assert_eq!(plan.pages_4k, 2);
        let spans: Vec<(u64, u32)> = plan.reads.iter().map(|r| (r.offset, r.len)).collect();
        assert_eq!(
            spans,
            vec![(512, 512), (1024, 512), (512 + 999 * 8 / 512 * 512, 512)]
        );
        assert_eq!(plan.rows_of_read(0).len(), 3);
    }

    #[test]
    fn unaligned_rows_span_several_pages_and_merge_when_touching() {
        // Classic-style rows of 5000 bytes starting at offset 47.
        let blocks = vec![block(0, 47, 10, 5000)];
        let mut plan = Plan::default();
        plan.add_block_lookups(0, &blocks[0], 0, &[0, 1, 8], &[], 0..3);
        plan.finish(&blocks, &one_at_a_time(4096, 0, 1 << 20));
        // Rows 0 and 1 overlap on the aligned grid: one read; row 8 alone.
        assert_eq!(plan.reads.len(), 2);
        assert_eq!(plan.reads[0].offset, 0);
        assert_eq!(
            plan.reads[0].len as u64,
            (47u64 + 10_000).div_ceil(4096) * 4096
        );
        assert_eq!(plan.reads[1].offset, (47 + 8 * 5000) / 4096 * 4096);
    }

    #[test]
    fn files_never_merge() {
        let blocks = vec![block(0, 0, 10, 4096), block(1, 0, 10, 4096)];
        let mut plan = Plan::default();
        plan.add_block_lookups(0, &blocks[0], 0, &[1], &[], 0..1);
        plan.add_block_lookups(1, &blocks[1], 0, &[1], &[], 0..1);
        plan.finish(&blocks, &one_at_a_time(4096, 1 << 20, 1 << 20));
        assert_eq!(plan.reads.len(), 2);
        assert_eq!((plan.reads[0].file, plan.reads[1].file), (0, 1));
    }
}

#[cfg(test)]
mod batch_tests {
    use super::*;

    fn block(num_hashes: u32, documents: u64) -> PlanBlock {
        PlanBlock {
            index: 0,
            file: 0,
            data_offset: 4096,
            row_count: 1000,
            row_bytes: 4096,
            used_bytes: documents.div_ceil(8),
            num_hashes,
            document_count: documents,
            first_document: 0,
            rows: RowMap::new(crate::format::RowLayout::Cobs, 1000),
        }
    }

    #[test]
    fn rows_shared_by_queries_are_read_once() {
        let blocks = vec![block(1, 32768)];
        let mut plan = Plan::default();
        plan.add_block_lookups(0, &blocks[0], 0, &[5, 6], &[], 0..2);
        plan.add_block_lookups(0, &blocks[0], 1, &[6, 7], &[], 0..2);
        let shape = one_at_a_time(512, 0, 1 << 20);
        plan.finish(&blocks, &shape);
        assert_eq!(plan.rows.len(), 3, "row 6 is shared");
        let shared = plan
            .rows
            .iter()
            .find(|r| r.offset == 4096 + 6 * 4096)
            .unwrap();
        let queries: Vec<u32> = plan
            .lookups_of_row(shared)
            .iter()
            .map(|l| l.query)
            .collect();
        assert_eq!(queries, vec![0, 1]);
        // Rows 5, 6, 7 touch: one read of three rows.
        assert_eq!(plan.reads.len(), 1);
        assert_eq!(plan.reads[0].len, 3 * 4096);
    }

    #[test]
    fn padding_of_a_partial_block_is_not_read() {
        // 6301 documents use 788 bytes of each 4096-byte row: two 512-byte sectors.
        let blocks = vec![block(1, 6301)];
        let mut plan = Plan::default();
        plan.add_block_lookups(0, &blocks[0], 0, &[5], &[], 0..1);
        let shape = one_at_a_time(512, 0, 1 << 20);
        plan.finish(&blocks, &shape);
        assert_eq!(plan.reads[0].len, 1024);
    }

    #[test]
    fn pairs_number_block_query_kmer_triples() {
        let blocks = vec![block(3, 32768)];
        let mut plan = Plan::default();
        // Two k-mers of query 0, one of query 1, three hashes each.
        plan.add_block_lookups(0, &blocks[0], 0, &[1, 2, 3, 4, 5, 6], &[], 0..2);
        plan.add_block_lookups(0, &blocks[0], 1, &[7, 8, 9], &[], 0..1);
        let shape = one_at_a_time(512, 0, 1 << 20);
        plan.finish(&blocks, &shape);
        assert_eq!(plan.pair_count, 3);
        for lookup in &plan.lookups {
            let expected = match (lookup.query, lookup.kmer) {
                (0, 0) => 0,
                (0, 1) => 1,
                _ => 2,
            };
            assert_eq!(lookup.pair, expected);
        }
    }
}
