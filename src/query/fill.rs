//! Each document's ratio of ones: how full its Bloom filter is, and so how often it reports
//! a k-mer it does not hold ([`super::correct`]).
//!
//! Indexes built or checksummed by bitsift record every document's count of ones beside them
//! ([`crate::format::ones`]): [`OnesFiles`] opens their headers with the index, and a chunk
//! of queries reads the pages of the documents it may report (4 bytes a document, 1,024 to a
//! page, through the engine and the side cache, counted as side reads): the ratio is then
//! exact. An index without that file (COBS's own, before `bitsift checksum`) falls back to
//! the rows: [`read_fills`] reads, for each block asked for, every row when they fit in
//! [`SAMPLE_BYTES`] (the ratio is then exact), else [`SAMPLE_SPANS`] runs of consecutive rows
//! spread evenly over the block, [`SAMPLE_BYTES`] in all (4 MiB: 1,024 rows of 4 KiB, the
//! ratio to about ±0.03 at 0.3, an error [`super::correct`] carries into its interval). A
//! run is one read, so a block costs 16 requests, once per process: [`Fills`] keeps the
//! counts, 4 bytes per document, in the shared [`super::Index`]. [`FillSource`] gives a
//! document's fill from whichever its index has.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::correct::DocumentFill;
use super::index::Index;
use super::plan::{Plan, PlanBlock};
use super::sliced::{planes_for, words_for, SlicedCounters, SlicedView};
use crate::format::ones::{ones_path, open_beside, OnesHeader};
use crate::format::IndexHeader;
use crate::io::{IoCounters, IoError, ReadConsumer, ReadEngine, ReadShape, ResidentFiles};
use crate::read::{PinnedPages, ReadError};

/// Bytes of rows read at most to learn a block's ratios of ones.
pub(crate) const SAMPLE_BYTES: u64 = 4 << 20;

/// Runs of consecutive rows a sampled block is read in.
pub(crate) const SAMPLE_SPANS: u64 = 16;

/// The bits set in each document's column among the rows read of one block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BlockFill {
    /// Rows read.
    pub sampled: u64,
    /// Per document of the block (position within it): bits set among those rows.
    pub ones: Vec<u32>,
}

/// The fills learnt so far, by block number; shared by the sessions of an index.
#[derive(Debug, Default)]
pub(crate) struct Fills {
    blocks: Mutex<Vec<Option<Arc<BlockFill>>>>,
}

impl Fills {
    /// The fill of block `block`, if read.
    pub(crate) fn get(&self, block: u32) -> Option<Arc<BlockFill>> {
        let blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        blocks.get(block as usize).cloned().flatten()
    }

    /// Records the fill of block `block`.
    pub(crate) fn insert(&self, block: u32, fill: BlockFill) {
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if blocks.len() <= block as usize {
            blocks.resize(block as usize + 1, None);
        }
        blocks[block as usize] = Some(Arc::new(fill));
    }

    /// The fill of document `local` of block `block` of `blocks`, if its block was read.
    pub(crate) fn document(
        &self,
        blocks: &[PlanBlock],
        block: u32,
        local: u64,
    ) -> Option<DocumentFill> {
        let fill = self.get(block)?;
        let plan_block = &blocks[block as usize];
        Some(DocumentFill {
            ones: fill.ones.get(local as usize).copied().unwrap_or(0) as u64,
            sampled: fill.sampled,
            row_count: plan_block.row_count,
            hashes: plan_block.num_hashes,
        })
    }
}

/// The rows of `block` that [`read_fills`] reads: all, or [`SAMPLE_SPANS`] evenly spread
/// runs of [`SAMPLE_BYTES`] in all.
pub(crate) fn sample_spans(block: &PlanBlock) -> Vec<Range<u64>> {
    let rows = block.row_count;
    let wanted = (SAMPLE_BYTES / block.row_bytes.max(1)).max(SAMPLE_SPANS);
    if wanted >= rows {
        return std::iter::once(0..rows).collect();
    }
    let per_span = wanted / SAMPLE_SPANS;
    let stride = rows / SAMPLE_SPANS;
    (0..SAMPLE_SPANS)
        .map(|i| i * stride..i * stride + per_span)
        .collect()
}

/// The counters of one block being sampled: bit-sliced, so a 4 KiB row costs a few
/// bitwise passes rather than one step per set bit ([`super::sliced`]).
struct Sampling {
    data: Vec<u64>,
    used_bytes: usize,
    planes: usize,
    sampled: u64,
}

/// Counts, per block read, the bits set in each document's column.
struct FillConsumer<'a> {
    plan: &'a Plan,
    blocks: &'a [PlanBlock],
    /// Per block number: its slot in `fills`, `u32::MAX` when not read.
    slot_of: &'a [u32],
    fills: &'a mut [Sampling],
    failure: Option<ReadError>,
}

impl ReadConsumer for FillConsumer<'_> {
    fn complete(&mut self, read: usize, bytes: &[u8]) {
        let read_offset = self.plan.reads[read].offset;
        for row in self.plan.rows_of_read(read) {
            let block = &self.blocks[row.block as usize];
            let fill = &mut self.fills[self.slot_of[row.block as usize] as usize];
            let start = ((row.offset - read_offset) as usize).min(bytes.len());
            let end = (start + block.used_bytes as usize).min(bytes.len());
            fill.sampled += 1;
            SlicedCounters::new(&mut fill.data, fill.used_bytes, fill.planes)
                .add_row(&bytes[start..end], 1);
        }
    }

    fn failed(&mut self, _read: usize, error: IoError) -> Result<(), IoError> {
        self.failure.get_or_insert(error.into());
        Ok(())
    }
}

/// Reads the sample rows of blocks `wanted` of `index` (one planned batch through `engine`;
/// `plan` is reused) and records their fills in the index's [`Fills`].
pub(crate) fn read_fills(
    index: &Index,
    engine: &mut dyn ReadEngine,
    plan: &mut Plan,
    shape: &ReadShape,
    wanted: &[u32],
) -> Result<IoCounters, ReadError> {
    if wanted.is_empty() {
        return Ok(IoCounters::default());
    }
    let blocks = index.blocks();
    plan.clear();
    let mut slot_of = vec![u32::MAX; blocks.len()];
    let mut fills = Vec::with_capacity(wanted.len());
    for &number in wanted {
        let block = &blocks[number as usize];
        slot_of[number as usize] = fills.len() as u32;
        let spans = sample_spans(block);
        let rows: u64 = spans.iter().map(|s| s.end - s.start).sum();
        let (used_bytes, planes) = (block.used_bytes as usize, planes_for(rows));
        fills.push(Sampling {
            data: vec![0; words_for(used_bytes, planes)],
            used_bytes,
            planes,
            sampled: 0,
        });
        for span in spans {
            plan.add_rows(number, block, span);
        }
    }
    plan.finish(blocks, shape);
    let mut consumer = FillConsumer {
        plan,
        blocks,
        slot_of: &slot_of,
        fills: &mut fills,
        failure: None,
    };
    let counters = engine.read_counted(&plan.reads, &mut consumer)?;
    if let Some(error) = consumer.failure {
        return Err(error);
    }
    for (&number, fill) in wanted.iter().zip(fills) {
        let view = SlicedView::new(&fill.data, fill.used_bytes, fill.planes);
        let documents = blocks[number as usize].document_count;
        let ones = (0..documents).map(|d| view.count(d) as u32).collect();
        let sampled = fill.sampled;
        index.fills().insert(number, BlockFill { sampled, ones });
    }
    Ok(counters)
}

/// The counts-of-ones files of an index's files ([`crate::format::ones`]): their headers,
/// read at open, and their engine file numbers.
#[derive(Debug, Default)]
pub(crate) struct OnesFiles {
    /// Per index file: its counts' header and engine file, if it has a usable one.
    files: Vec<Option<(OnesHeader, u32)>>,
    /// Counts files that exist but could not be used, with why.
    problems: Vec<String>,
}

impl OnesFiles {
    /// Opens the counts beside every file of `headers` (their headers only). Files get engine
    /// numbers from `first_side_file` on, in file order; returns them with their paths. A
    /// file that is damaged or belongs to another index or build is refused with a warning:
    /// that index's scores are corrected from a sample of its rows.
    pub(crate) fn open(headers: &[IndexHeader], first_side_file: u32) -> (OnesFiles, Vec<PathBuf>) {
        let (mut paths, mut problems) = (Vec::new(), Vec::new());
        let files = headers
            .iter()
            .map(|header| match open_beside(header) {
                Ok(Some(ones)) => {
                    let file = first_side_file + paths.len() as u32;
                    paths.push(ones_path(&header.path));
                    Some((ones, file))
                }
                Ok(None) => None,
                Err(error) => {
                    problems.push(format!(
                        "{error}; scores are corrected from a sample of the index's rows instead"
                    ));
                    None
                }
            })
            .collect();
        (OnesFiles { files, problems }, paths)
    }

    /// Counts files that exist but could not be used, with why (front ends say so).
    pub(crate) fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The counts of index file `file` and their engine file, if it has them.
    pub(crate) fn file(&self, file: usize) -> Option<&(OnesHeader, u32)> {
        self.files.get(file)?.as_ref()
    }

    /// The size of engine file `engine_file`, if it is a counts file.
    pub(crate) fn size_of(&self, engine_file: u32) -> Option<u64> {
        self.files
            .iter()
            .flatten()
            .find(|(_, file)| *file == engine_file)
            .map(|(ones, _)| ones.file_bytes())
    }

    /// The header of the counts file that is engine file `engine_file`.
    fn header_of(&self, engine_file: u32) -> Option<&OnesHeader> {
        self.files
            .iter()
            .flatten()
            .find(|(_, file)| *file == engine_file)
            .map(|(ones, _)| ones)
    }
}

/// Where a reported document's fill comes from: its index's counts of ones (the pages a
/// chunk fetched with [`fetch_ones`]), else the sample of its block's rows ([`Fills`]).
pub(crate) struct FillSource<'a> {
    /// The index searched.
    pub index: &'a Index,
    /// The counts' pages fetched for the chunk.
    pub pins: &'a PinnedPages,
}

impl FillSource<'_> {
    /// The fill of document `local` of block `block`, if known.
    pub(crate) fn document(&self, block: u32, local: u64) -> Option<DocumentFill> {
        let blocks = self.index.blocks();
        let plan_block = &blocks[block as usize];
        let Some((ones, engine_file)) = self.index.ones().file(plan_block.index as usize) else {
            return self.index.fills().document(blocks, block, local);
        };
        let (page, at) = ones.page_of(plan_block.first_document + local);
        let bytes = self.pins.page(*engine_file, page)?.ok()?;
        let count = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        Some(DocumentFill {
            ones: count as u64,
            sampled: plan_block.row_count,
            row_count: plan_block.row_count,
            hashes: plan_block.num_hashes,
        })
    }
}

/// Why a page of counts failed its check.
type CheckFailure = Box<dyn std::error::Error + Send + Sync>;

/// Fetches into `pins` (cleared first) the pages of counts of ones that hold the documents
/// `documents` yields (`(index file, document)`, files without counts skipped), through
/// `engine` and the index's side cache (copied from `image` when it holds them); the reads are added to `counters`. A page that
/// cannot be read or fails its checksum is an error.
pub(crate) fn fetch_ones(
    index: &Index,
    engine: &mut dyn ReadEngine,
    image: Option<&dyn ResidentFiles>,
    pins: &mut PinnedPages,
    documents: impl Iterator<Item = (u32, u64)>,
    counters: &mut IoCounters,
) -> Result<(), ReadError> {
    pins.clear();
    let mut last = None;
    for (file, document) in documents {
        if let Some((ones, engine_file)) = index.ones().file(file as usize) {
            let key = (*engine_file, ones.page_of(document).0);
            if last != Some(key) {
                pins.want(key.0, key.1);
                last = Some(key);
            }
        }
    }
    if pins.wanted() == 0 {
        return Ok(());
    }
    let files = index.ones();
    let check = |file: u32, page: u64, bytes: &[u8]| -> Result<(), CheckFailure> {
        match files.header_of(file) {
            Some(ones) => Ok(ones.check_page(page, bytes)?),
            None => Err("not a file of counts of ones".into()),
        }
    };
    let side_cache = index.side_cache().map(|c| &**c);
    let paths = index.read_paths();
    pins.fetch_or_copy(engine, image, side_cache, &check, paths, counters)?;
    match pins.first_failure() {
        Some(error) => Err(IoError::Shared(error.clone()).into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(rows: u64, row_bytes: u64) -> PlanBlock {
        PlanBlock {
            index: 0,
            file: 0,
            data_offset: 0,
            row_count: rows,
            row_bytes,
            used_bytes: row_bytes,
            num_hashes: 1,
            document_count: row_bytes * 8,
            first_document: 0,
            rows: crate::format::RowMap::new(crate::format::RowLayout::Cobs, rows),
        }
    }

    #[test]
    fn small_blocks_are_read_whole_and_large_ones_in_spread_runs() {
        let whole = sample_spans(&block(5000, 8));
        assert_eq!((whole.len(), whole[0].start, whole[0].end), (1, 0, 5000));
        let spans = sample_spans(&block(1_000_000, 4096));
        assert_eq!(spans.len() as u64, SAMPLE_SPANS);
        let rows: u64 = spans.iter().map(|s| s.end - s.start).sum();
        assert_eq!(rows * 4096, SAMPLE_BYTES);
        assert_eq!(spans[1].start, 1_000_000 / SAMPLE_SPANS);
        assert!(spans.last().unwrap().end <= 1_000_000);
    }
}
