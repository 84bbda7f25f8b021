//! The rows of a merged sub-index: members read through the checked read path, bit columns
//! re-packed into new blocks (tiled or folded to the block's rows, see
//! [`super::merge_plan`]), and the bit counts of columns that might fold.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::bits::or_bits;
use super::merge_plan::{gcd, Column};
use super::CollectionError;
use crate::builder::output::PendingFile;
use crate::format::{HeaderOptions, IndexHeader, CHECKSUM_PAGE_BYTES};
use crate::io::{open_engine, EngineOptions, ReadEngine};
use crate::query::Index;
use crate::read::{read_range, with_layers, LayerScratch};

/// The members' files, read through the read path ([`crate::read`]): every byte a merge
/// copies is checked against its sub-index's checksums first, so a damaged page fails the
/// merge instead of entering the merged file under fresh checksums.
pub(super) struct Sources {
    index: Arc<Index>,
    engine: Box<dyn ReadEngine>,
    layers: LayerScratch,
    buffer: Vec<u8>,
}

impl Sources {
    /// Opens the members' files (`paths`, in member order).
    pub(crate) fn open(paths: &[PathBuf]) -> Result<Sources, CollectionError> {
        let index = Index::open(paths, &HeaderOptions::default())?;
        let engine = open_engine(index.read_paths(), &EngineOptions::default())?.engine;
        Ok(Sources {
            index,
            engine,
            layers: LayerScratch::default(),
            buffer: Vec::new(),
        })
    }

    /// Hands bytes `offset..offset + len` of member `member` to `sink`, checked, in order.
    pub(crate) fn read(
        &mut self,
        member: usize,
        offset: u64,
        len: u64,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), CollectionError>,
    ) -> Result<(), CollectionError> {
        let layers = self.index.layers(None);
        let alignment = self.engine.alignment().max(CHECKSUM_PAGE_BYTES);
        let buffer = &mut self.buffer;
        with_layers(self.engine.as_mut(), &layers, &mut self.layers, |engine| {
            read_range(engine, alignment, member as u32, offset, len, buffer, sink)
        })?;
        Ok(())
    }

    /// ORs rows `first..first + count` of block `block` of member `member` into `target`
    /// (`count` rows of the block's width, back to back).
    fn or_rows(
        &mut self,
        headers: &[&IndexHeader],
        (member, block): (usize, usize),
        first: u64,
        count: u64,
        target: &mut [u8],
    ) -> Result<(), CollectionError> {
        let block = &headers[member].blocks[block];
        assert!(first + count <= block.row_count, "rows within the block");
        assert_eq!(target.len() as u64, count * block.row_bytes);
        let mut at = 0;
        self.read(
            member,
            block.row_offset(first),
            target.len() as u64,
            &mut |bytes| {
                for (t, b) in target[at..at + bytes.len()].iter_mut().zip(bytes) {
                    *t |= *b;
                }
                at += bytes.len();
                Ok(())
            },
        )
    }
}

/// A source block of a re-packed block: its rows folded to `fold` (`gcd` of its rows and the
/// block's) and read `chunk` output rows at a time.
///
/// In COBS's layout (`range_rows` 1) folded row `t` is the OR of source rows `t + j·fold`, and
/// output row `o` is folded row `o mod fold` (`hash mod rows` taken mod a divisor). In the
/// minimizer layout a k-mer's range is `⌊minimizer · ranges / 2^64⌋`, so with a divisor of the
/// ranges it is the range divided by the quotient: folded range `g` is the OR of source ranges
/// `g·F … g·F + F − 1` (`F` = source rows / fold), and output range `r` is folded range
/// `⌊r / T⌋` (`T` = output rows / fold), the row within a range unchanged.
struct Part {
    source: (usize, usize),
    rows: u64,
    fold: u64,
    /// Output rows per folded row (`T` above, times `range_rows`, in the minimizer layout).
    tile: u64,
    /// Rows of a range (1 in COBS's layout).
    range_rows: u64,
    row_bytes: usize,
    /// Folded rows of the current chunk: COBS's layout, index `i` is folded row
    /// `(first + i) mod fold`; the minimizer layout, folded rows from `folded_first` on.
    folded: Vec<u8>,
    folded_first: u64,
}

impl Part {
    /// Position in `folded` of the folded row output row `row` (`first + i`) takes.
    #[inline]
    fn folded_index(&self, first: u64, i: u64) -> usize {
        if self.range_rows == 1 {
            return (i % self.fold) as usize;
        }
        let row = first + i;
        let folded = row / (self.tile * self.range_rows) * self.range_rows + row % self.range_rows;
        (folded - self.folded_first) as usize
    }
}

/// A run of adjacent columns of one part that land adjacent in the new block.
struct Run {
    part: usize,
    from: usize,
    to: usize,
    len: usize,
}

/// Writes a block of `rows` rows of `page_size` bytes holding `columns` (each tiled or folded
/// to `rows`; then zero columns), reading the source rows in chunks that fit `memory_bytes`.
pub(super) fn repack(
    headers: &[&IndexHeader],
    files: &mut Sources,
    rows: u64,
    columns: &[Column],
    page_size: u64,
    memory_bytes: u64,
    pending: &mut PendingFile,
) -> Result<(), CollectionError> {
    let (mut parts, runs) = parts_and_runs(headers, rows, columns);
    let row_bytes = page_size as usize;
    let bytes_per_row: u64 = page_size + parts.iter().map(|p| p.row_bytes as u64).sum::<u64>();
    let chunk_rows = (memory_bytes / bytes_per_row.max(1)).clamp(1, rows.max(1));
    let mut out = Vec::new();
    let mut first = 0u64;
    while first < rows {
        let count = chunk_rows.min(rows - first);
        for part in &mut parts {
            fold_chunk(headers, files, part, first, count)?;
        }
        out.clear();
        out.resize(count as usize * row_bytes, 0);
        for i in 0..count as usize {
            let target = &mut out[i * row_bytes..(i + 1) * row_bytes];
            for run in &runs {
                let part = &parts[run.part];
                let at = part.folded_index(first, i as u64) * part.row_bytes;
                let source = &part.folded[at..at + part.row_bytes];
                or_bits(source, run.from, target, run.to, run.len);
            }
        }
        pending.write_all(&out)?;
        first += count;
    }
    Ok(())
}

/// The source blocks of `columns` and the runs of columns copied from each.
fn parts_and_runs(
    headers: &[&IndexHeader],
    rows: u64,
    columns: &[Column],
) -> (Vec<Part>, Vec<Run>) {
    let mut parts: Vec<Part> = Vec::new();
    let mut part_of: HashMap<(usize, usize), usize> = HashMap::new();
    let mut runs: Vec<Run> = Vec::new();
    for (to, c) in columns.iter().enumerate() {
        let part = *part_of.entry(c.source()).or_insert_with(|| {
            let block = &headers[c.member].blocks[c.block];
            assert_eq!(block.row_count, c.rows, "a column's rows are its block's");
            let range_rows = headers[c.member].rows.range_rows();
            let fold = gcd(c.rows, rows);
            assert_eq!(fold % range_rows, 0, "whole ranges fold");
            parts.push(Part {
                source: c.source(),
                rows: c.rows,
                fold,
                tile: rows / fold,
                range_rows,
                row_bytes: block.row_bytes as usize,
                folded: Vec::new(),
                folded_first: 0,
            });
            parts.len() - 1
        });
        let from = c.column as usize;
        match runs.last_mut() {
            Some(run)
                if run.part == part && run.from + run.len == from && run.to + run.len == to =>
            {
                run.len += 1
            }
            _ => runs.push(Run {
                part,
                from,
                to,
                len: 1,
            }),
        }
    }
    (parts, runs)
}

/// Fills `part.folded` with the folded rows output rows `first..first + count` need: folded
/// row `t` is the OR of source rows `t, t + fold, t + 2·fold, …` (COBS's layout; see [`Part`]
/// for the minimizer layout's).
fn fold_chunk(
    headers: &[&IndexHeader],
    files: &mut Sources,
    part: &mut Part,
    first: u64,
    count: u64,
) -> Result<(), CollectionError> {
    if part.range_rows > 1 {
        return fold_ranges(headers, files, part, first..first + count);
    }
    let needed = count.min(part.fold);
    let start = first % part.fold;
    part.folded.clear();
    part.folded.resize(needed as usize * part.row_bytes, 0);
    // Folded rows start.., wrapping to 0.. past the last.
    let head = needed.min(part.fold - start);
    let ranges = [(start, head, 0), (0, needed - head, head)];
    for (from, len, at) in ranges.into_iter().filter(|r| r.1 > 0) {
        let bytes = part.row_bytes;
        let target = &mut part.folded[at as usize * bytes..(at + len) as usize * bytes];
        for slice in 0..part.rows / part.fold {
            files.or_rows(headers, part.source, from + slice * part.fold, len, target)?;
        }
    }
    Ok(())
}

/// [`fold_chunk`] in the minimizer layout: the folded ranges output rows `rows` fall in,
/// each the OR of `F` consecutive source ranges.
fn fold_ranges(
    headers: &[&IndexHeader],
    files: &mut Sources,
    part: &mut Part,
    rows: std::ops::Range<u64>,
) -> Result<(), CollectionError> {
    debug_assert!(!rows.is_empty());
    let span = part.tile * part.range_rows;
    let (from, to) = (rows.start / span, (rows.end - 1) / span + 1);
    let sources_per_range = part.rows / part.fold;
    let range_bytes = part.range_rows as usize * part.row_bytes;
    part.folded_first = from * part.range_rows;
    part.folded.clear();
    part.folded.resize((to - from) as usize * range_bytes, 0);
    for (slot, folded) in (from..to).enumerate() {
        let target = &mut part.folded[slot * range_bytes..(slot + 1) * range_bytes];
        for j in 0..sources_per_range {
            let source = (folded * sources_per_range + j) * part.range_rows;
            files.or_rows(headers, part.source, source, part.range_rows, target)?;
        }
    }
    Ok(())
}

/// The number of set bits of every column of each of `blocks` (member, block), read whole.
pub(super) fn column_fills(
    headers: &[&IndexHeader],
    files: &mut Sources,
    blocks: &[(usize, usize)],
    memory_bytes: u64,
) -> Result<HashMap<(usize, usize), Vec<u64>>, CollectionError> {
    let mut fills = HashMap::new();
    for &(member, number) in blocks {
        let block = &headers[member].blocks[number];
        let row_bytes = block.row_bytes as usize;
        let mut counts = vec![0u64; row_bytes * 8];
        let chunk_rows = (memory_bytes / block.row_bytes.max(1)).clamp(1, block.row_count.max(1));
        let mut rows = vec![0u8; 0];
        let mut first = 0;
        while first < block.row_count {
            let count = chunk_rows.min(block.row_count - first);
            rows.clear();
            rows.resize(count as usize * row_bytes, 0);
            files.or_rows(headers, (member, number), first, count, &mut rows)?;
            count_bits(&rows, row_bytes, &mut counts);
            first += count;
        }
        counts.truncate(block.document_count as usize);
        fills.insert((member, number), counts);
    }
    Ok(fills)
}

/// Adds, for every bit position of a row of `row_bytes` bytes, how many of `rows` set it.
fn count_bits(rows: &[u8], row_bytes: usize, counts: &mut [u64]) {
    for row in rows.chunks_exact(row_bytes) {
        for (byte_number, &byte) in row.iter().enumerate() {
            let mut bits = byte;
            while bits != 0 {
                counts[byte_number * 8 + bits.trailing_zeros() as usize] += 1;
                bits &= bits - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_bit_of_every_row() {
        let rows = [0b0000_0101u8, 0x80, 0b0000_0001, 0x81];
        let mut counts = vec![0u64; 16];
        count_bits(&rows, 2, &mut counts);
        assert_eq!(counts[0], 2);
        assert_eq!(counts[2], 1);
        assert_eq!(counts[15], 2);
        assert_eq!(counts[8], 1);
        assert_eq!(counts.iter().sum::<u64>(), 6);
    }
}
