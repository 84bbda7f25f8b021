//! The planner: from k-mer hashes to a sorted, deduplicated, aligned and coalesced batch of
//! reads, plus the map from every read back to the rows and k-mers it serves.
//!
//! A *lookup* is one (block, unique k-mer, hash function) triple: the row `hash mod rows` of
//! that block. Lookups are sorted by file position; equal positions become one *row*; the
//! aligned spans of neighbouring rows merge into one *read* when they overlap, touch, or lie
//! within `gap_bytes` of each other (up to `read_bytes_max`). All vectors are kept between
//! queries, so planning allocates only when a query is larger than every one before it.

use strength_reduce::StrengthReducedU64;

use crate::io::ReadRequest;

/// A block of some index, flattened for planning and accumulation.
#[derive(Clone, Debug)]
pub struct PlanBlock {
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
    /// First counter of this block's documents in the searcher's counter array.
    pub counter_base: usize,
    /// Documents in the block.
    pub document_count: u64,
    /// Index (in the header's name list) of the first document.
    pub first_document: u64,
    /// `row_count` prepared for fast exact `hash mod row_count`.
    pub row_modulus: StrengthReducedU64,
}

/// Bits of a lookup key that hold the byte offset; the file number sits above them.
const OFFSET_BITS: u32 = 48;

/// One lookup: a row of a block needed by a unique k-mer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// `file << 48 | byte offset of the row`: sorting by key sorts by file position.
    pub key: u64,
    /// Block (position in the flattened block list).
    pub block: u32,
    /// Unique k-mer (position in the query's unique k-mer list of that block's index).
    pub kmer: u32,
}

/// A distinct row to read, with the lookups it answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedRow {
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

/// How reads are shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadShape {
    /// Offsets and lengths are multiples of this (the engine's alignment).
    pub alignment: u64,
    /// Merge spans separated by at most this many bytes.
    pub gap_bytes: u64,
    /// Never merge beyond this size (a single row may still be longer).
    pub read_bytes_max: u64,
}

/// A planned batch.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// All lookups, sorted by key.
    pub lookups: Vec<Lookup>,
    /// Distinct rows, sorted by position.
    pub rows: Vec<PlannedRow>,
    /// Reads, sorted by position.
    pub reads: Vec<ReadRequest>,
    /// `rows[read_rows[i]..read_rows[i + 1]]` lie in read `i`.
    pub read_rows: Vec<u32>,
}

impl Plan {
    /// Forgets the previous batch, keeping allocations.
    pub fn clear(&mut self) {
        self.lookups.clear();
        self.rows.clear();
        self.reads.clear();
        self.read_rows.clear();
    }

    /// Adds the lookups of unique k-mers `kmers` (hashes `hashes[u·H .. u·H + H]` for k-mer `u`)
    /// in block `block_number`.
    pub fn add_block_lookups(
        &mut self,
        block_number: u32,
        block: &PlanBlock,
        hashes: &[u64],
        num_hashes: usize,
        kmers: std::ops::Range<u32>,
    ) {
        debug_assert!(block.file < (1 << (64 - OFFSET_BITS)));
        debug_assert!(block.data_offset + block.row_count * block.row_bytes < (1 << OFFSET_BITS));
        let file_key = (block.file as u64) << OFFSET_BITS;
        for kmer in kmers {
            let start = kmer as usize * num_hashes;
            for &hash in &hashes[start..start + num_hashes] {
                let row = hash % block.row_modulus;
                self.lookups.push(Lookup {
                    key: file_key | (block.data_offset + row * block.row_bytes),
                    block: block_number,
                    kmer,
                });
            }
        }
    }

    /// Sorts the lookups, merges them into rows and the rows into reads.
    pub fn finish(&mut self, blocks: &[PlanBlock], shape: &ReadShape) {
        self.lookups
            .sort_unstable_by_key(|l| (l.key, l.block, l.kmer));
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
        self.coalesce(blocks, shape);
    }

    fn coalesce(&mut self, blocks: &[PlanBlock], shape: &ReadShape) {
        let align = shape.alignment.max(1);
        self.reads.clear();
        self.read_rows.clear();
        let mut current: Option<(u32, u64, u64)> = None; // (file, start, end)
        for (row_number, row) in self.rows.iter().enumerate() {
            let row_bytes = blocks[row.block as usize].row_bytes;
            let start = row.offset / align * align;
            let end = (row.offset + row_bytes).div_ceil(align) * align;
            if let Some((file, span_start, span_end)) = current.as_mut() {
                let mergeable = *file == row.file
                    && start <= *span_end + shape.gap_bytes
                    && end.max(*span_end) - *span_start <= shape.read_bytes_max;
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

    /// Rows served by read `read`.
    pub fn rows_of_read(&self, read: usize) -> &[PlannedRow] {
        &self.rows[self.read_rows[read] as usize..self.read_rows[read + 1] as usize]
    }

    /// Lookups served by `row`.
    pub fn lookups_of_row(&self, row: &PlannedRow) -> &[Lookup] {
        &self.lookups[row.lookup_start as usize..row.lookup_end as usize]
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
            counter_base: 0,
            document_count: row_bytes * 8,
            first_document: 0,
            row_modulus: StrengthReducedU64::new(rows),
        }
    }

    #[test]
    fn duplicate_rows_become_one_read() {
        let blocks = vec![block(0, 4096, 100, 4096)];
        let mut plan = Plan::default();
        // k-mers 0 and 2 share row 5; k-mer 1 has row 7.
        plan.add_block_lookups(0, &blocks[0], &[5, 7, 105], 1, 0..3);
        plan.finish(
            &blocks,
            &ReadShape {
                alignment: 4096,
                gap_bytes: 0,
                read_bytes_max: 4096,
            },
        );
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
        plan.add_block_lookups(0, &blocks[0], &[3, 9, 63, 64, 999], 1, 0..5);
        plan.finish(
            &blocks,
            &ReadShape {
                alignment: 512,
                gap_bytes: 0,
                read_bytes_max: 512,
            },
        );
        assert_eq!(plan.rows.len(), 5);
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
        plan.add_block_lookups(0, &blocks[0], &[0, 1, 8], 1, 0..3);
        plan.finish(
            &blocks,
            &ReadShape {
                alignment: 4096,
                gap_bytes: 0,
                read_bytes_max: 1 << 20,
            },
        );
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
        plan.add_block_lookups(0, &blocks[0], &[1], 1, 0..1);
        plan.add_block_lookups(1, &blocks[1], &[1], 1, 0..1);
        plan.finish(
            &blocks,
            &ReadShape {
                alignment: 4096,
                gap_bytes: 1 << 20,
                read_bytes_max: 1 << 20,
            },
        );
        assert_eq!(plan.reads.len(), 2);
        assert_eq!((plan.reads[0].file, plan.reads[1].file), (0, 1));
    }
}
