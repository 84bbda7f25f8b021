//! [`PinnedPages`]: the pages of side files one batch needs, held for the batch.
//!
//! A batch first says which pages it needs ([`PinnedPages::want`]), then fetches them all at
//! once ([`PinnedPages::fetch`]): pages the shared side cache holds are copied from it, the
//! others are read in one batch through the engine (neighbouring pages merged into one read,
//! across gaps of up to [`GAP_PAGES`] pages), checked, kept for the batch and offered to the
//! cache. Holding them here, not only in the
//! cache, keeps a batch correct whatever the cache evicts meanwhile; callers bound a batch's
//! pages ([`PINNED_PAGES_MAX`]) so its memory is bounded too.

use std::path::PathBuf;
use std::sync::Arc;

use crate::io::{IoCounters, IoError, PageCache, ReadBatch, ReadConsumer, ReadEngine, ReadRequest};

/// Bytes of a side-file page: the unit side files are read, checked and cached in.
pub(crate) const SIDE_PAGE_BYTES: u64 = 4096;
/// Most pages pinned by one batch (16 MiB): callers cut larger needs into windows.
pub(crate) const PINNED_PAGES_MAX: usize = 4096;
/// Most pages merged into one read.
const PAGES_PER_READ_MAX: u64 = 64;
/// Most pages not asked for that a read spans to join two that are (16 KiB, the local merge
/// gap of rows): on a disk bound by requests (a cloud volume's ~3,000 a second) one request
/// costs as much as ~40 KiB of bytes, and a gene's checksum pages lie a page or two apart
/// once its reads cover much of an index. The pages between are read and dropped.
pub(crate) const GAP_PAGES: u64 = 4;

const PAGE: usize = SIDE_PAGE_BYTES as usize;

/// Checks a side page as it arrives: `(file, page number, bytes)`; an error says what is
/// wrong with it (the checker's own type: the summaries' damage, a checksum mismatch).
pub(crate) type PageCheck<'a> =
    &'a dyn Fn(u32, u64, &[u8]) -> Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// The key of page `page` of engine file `file`.
#[inline]
fn key(file: u32, page: u64) -> u64 {
    debug_assert!(page < 1 << 40);
    (file as u64) << 40 | page
}

#[inline]
fn split(key: u64) -> (u32, u64) {
    ((key >> 40) as u32, key & ((1 << 40) - 1))
}

/// Side pages held for one batch; see the module documentation.
#[derive(Default)]
pub struct PinnedPages {
    /// Sorted, distinct after [`PinnedPages::fetch`].
    keys: Vec<u64>,
    /// `PAGE` bytes per key.
    data: Vec<u8>,
    /// Per key: the failure that left it missing, if any.
    failures: Vec<Option<Arc<IoError>>>,
    /// Reads of the pages not found in the cache, and the slots (`keys`) each one fills.
    reads: Vec<ReadRequest>,
    read_slots: Vec<std::ops::Range<usize>>,
}

impl PinnedPages {
    /// Forgets the previous batch's pages, keeping the allocations.
    pub(crate) fn clear(&mut self) {
        self.keys.clear();
        self.failures.clear();
        self.reads.clear();
        self.read_slots.clear();
    }

    /// Asks for page `page` (of [`SIDE_PAGE_BYTES`]) of engine file `file`.
    #[inline]
    pub(crate) fn want(&mut self, file: u32, page: u64) {
        let key = key(file, page);
        if self.keys.last() != Some(&key) {
            self.keys.push(key);
        }
    }

    /// Pages asked for so far (a page asked for again right away counts once; other repeats
    /// count until a fetch).
    pub(crate) fn wanted(&self) -> usize {
        self.keys.len()
    }

    /// Distinct pages asked for so far (sorts and deduplicates them).
    pub(crate) fn distinct(&mut self) -> usize {
        self.keys.sort_unstable();
        self.keys.dedup();
        self.keys.len()
    }

    /// Fetches every page asked for since the last [`clear`](Self::clear): from `cache` when
    /// it holds them, else through `engine` in one batch (counted in `counters` as side
    /// reads), each checked by `check` before it is kept or cached. A page whose read fails
    /// or fails its check is left missing, with its error ([`PinnedPages::page`]); only a
    /// failure of the whole batch is returned.
    pub(crate) fn fetch(
        &mut self,
        engine: &mut dyn ReadEngine,
        cache: Option<&PageCache>,
        check: PageCheck<'_>,
        paths: &[PathBuf],
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        self.fetch_or_copy(engine, None, cache, check, paths, counters)
    }

    /// As [`PinnedPages::fetch`], copying the pages from `image` (files held in memory
    /// beside the engine, as a session's memory image) when it holds every file to read.
    pub(crate) fn fetch_or_copy(
        &mut self,
        engine: &mut dyn ReadEngine,
        image: Option<&dyn crate::io::ResidentFiles>,
        cache: Option<&PageCache>,
        check: PageCheck<'_>,
        paths: &[PathBuf],
        counters: &mut IoCounters,
    ) -> Result<(), IoError> {
        self.plan_reads(&*engine, cache);
        if self.reads.is_empty() {
            return Ok(());
        }
        let reads = std::mem::take(&mut self.reads);
        let mut sink = Sink {
            pins: self,
            reads: &reads,
            cache,
            check,
            paths,
        };
        // The engine holds the files in memory (and means them to be read there): copy, as
        // rows are scored there, with no read to count.
        let holds =
            |files: &&dyn crate::io::ResidentFiles| reads.iter().all(|read| files.holds(read.file));
        let in_memory = engine.resident().filter(holds).or(image.filter(holds));
        let outcome = match in_memory {
            Some(files) => {
                sink.copy_resident(files);
                Ok(())
            }
            None => {
                let mut side = IoCounters::default();
                let outcome = engine.read_batch(ReadBatch::new(&reads, &mut sink, &mut side));
                counters.add_side(&side);
                outcome
            }
        };
        self.reads = reads;
        outcome
    }

    /// Takes the pages the cache holds from it and plans reads of the others, a page that
    /// follows the previous read's last within the gap joining it.
    fn plan_reads(&mut self, engine: &dyn ReadEngine, cache: Option<&PageCache>) {
        self.distinct();
        self.data.resize(self.keys.len() * PAGE, 0);
        self.failures.clear();
        self.failures.resize(self.keys.len(), None);
        self.reads.clear();
        self.read_slots.clear();
        for (slot, &key) in self.keys.iter().enumerate() {
            let (file, page) = split(key);
            let out = &mut self.data[slot * PAGE..(slot + 1) * PAGE];
            if cache.is_some_and(|c| c.get(file, page * SIDE_PAGE_BYTES, out)) {
                continue;
            }
            // Merge with the previous read when this page follows its last one within the gap.
            match (self.reads.last_mut(), self.read_slots.last_mut()) {
                (Some(last), Some(slots)) if extends(last, file, page, engine.file_size(file)) => {
                    last.len = ((page + 1) * SIDE_PAGE_BYTES - last.offset) as u32;
                    slots.end = slot + 1;
                }
                _ => {
                    self.reads.push(ReadRequest {
                        file,
                        offset: page * SIDE_PAGE_BYTES,
                        len: PAGE as u32,
                    });
                    self.read_slots.push(slot..slot + 1);
                }
            }
        }
    }

    /// Leaves the pages of read `number` missing, with `error`.
    fn fail_read(&mut self, number: usize, error: &Arc<IoError>) {
        for slot in self.read_slots[number].clone() {
            self.failures[slot] = Some(error.clone());
        }
    }

    /// The first failure among the pages of the last fetch, if any.
    pub(crate) fn first_failure(&self) -> Option<&Arc<IoError>> {
        self.failures.iter().flatten().next()
    }

    /// The bytes of page `page` of file `file` ([`SIDE_PAGE_BYTES`], zero past the end of the
    /// file), or why it is missing. `None` when it was never asked for.
    pub(crate) fn page(&self, file: u32, page: u64) -> Option<Result<&[u8], &Arc<IoError>>> {
        let slot = self.keys.binary_search(&key(file, page)).ok()?;
        Some(match &self.failures[slot] {
            Some(error) => Err(error),
            None => Ok(&self.data[slot * PAGE..(slot + 1) * PAGE]),
        })
    }
}

/// Whether page `page` of `file` (of `file_bytes` bytes) joins read `last`: same file, at most
/// [`GAP_PAGES`] pages not asked for between (a page past the end joins only a read it directly
/// follows: a gap never makes a sound page's read fail), and at most [`PAGES_PER_READ_MAX`]
/// pages in all.
fn extends(last: &ReadRequest, file: u32, page: u64, file_bytes: u64) -> bool {
    let next = (last.offset + last.len as u64) / SIDE_PAGE_BYTES;
    let gap = match page * SIDE_PAGE_BYTES < file_bytes {
        true => GAP_PAGES,
        false => 0,
    };
    last.file == file
        && page >= next
        && page - next <= gap
        && page + 1 - last.offset / SIDE_PAGE_BYTES <= PAGES_PER_READ_MAX
}

/// Receives the pages of a fetch.
struct Sink<'a, 'b> {
    pins: &'a mut PinnedPages,
    reads: &'a [ReadRequest],
    cache: Option<&'a PageCache>,
    check: PageCheck<'b>,
    paths: &'a [PathBuf],
}

impl Sink<'_, '_> {
    /// Fills the pages of the planned reads from files held in memory; a fault while they
    /// were touched (a mapped page the kernel could not supply) fails them all.
    fn copy_resident(&mut self, files: &dyn crate::io::ResidentFiles) {
        let reads = self.reads;
        for (number, read) in reads.iter().enumerate() {
            let bytes = files.bytes(read.file);
            let start = (read.offset as usize).min(bytes.len());
            let end = (read.offset as usize + read.len as usize).min(bytes.len());
            self.complete(number, &bytes[start..end]);
        }
        if let Err(error) = files.take_fault() {
            let error = Arc::new(error);
            for number in 0..reads.len() {
                self.pins.fail_read(number, &error);
            }
        }
    }
}

impl ReadConsumer for Sink<'_, '_> {
    fn complete(&mut self, read: usize, bytes: &[u8]) {
        let request = self.reads[read];
        for slot in self.pins.read_slots[read].clone() {
            let (file, page) = split(self.pins.keys[slot]);
            debug_assert_eq!(file, request.file);
            let p = (page - request.offset / SIDE_PAGE_BYTES) as usize;
            debug_assert!(p < request.len as usize / PAGE);
            let got = &bytes[(p * PAGE).min(bytes.len())..((p + 1) * PAGE).min(bytes.len())];
            let out = &mut self.pins.data[slot * PAGE..(slot + 1) * PAGE];
            out[..got.len()].copy_from_slice(got);
            out[got.len()..].fill(0);
            if let Err(error) = (self.check)(request.file, page, out) {
                self.pins.failures[slot] = Some(Arc::new(IoError::Invalid {
                    path: self.paths[request.file as usize].clone(),
                    offset: page * SIDE_PAGE_BYTES,
                    detail: error.to_string(),
                }));
                continue;
            }
            if let Some(cache) = self.cache {
                cache.insert(request.file, page * SIDE_PAGE_BYTES, out);
            }
        }
    }

    fn failed(&mut self, read: usize, error: IoError) -> Result<(), IoError> {
        self.pins.fail_read(read, &Arc::new(error));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{DirectIo, PreadEngine, RamEngine};

    fn file(dir: &std::path::Path, name: &str, pages: u64) -> PathBuf {
        let path = dir.join(name);
        let bytes: Vec<u8> = (0..pages * SIDE_PAGE_BYTES)
            .map(|i| (i / SIDE_PAGE_BYTES) as u8 ^ name.len() as u8)
            .collect();
        std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
        path
    }

    #[test]
    fn pages_come_from_the_cache_or_one_merged_batch() {
        let dir = tempfile::tempdir().unwrap();
        let paths = vec![file(dir.path(), "a", 10), file(dir.path(), "bb", 3)];
        let mut engine = PreadEngine::open(&paths, 4, DirectIo::Off).unwrap();
        let cache = PageCache::new(1 << 20, PAGE);
        let mut pins = PinnedPages::default();
        let check: PageCheck = &|_, page, _| {
            if page == 7 {
                Err("page seven is bad".into())
            } else {
                Ok(())
            }
        };
        for (file, page) in [(0, 3), (0, 1), (0, 2), (1, 2), (0, 3), (0, 7), (0, 9)] {
            pins.want(file, page);
        }
        let mut counters = IoCounters::default();
        pins.fetch(&mut engine, Some(&cache), check, &paths, &mut counters)
            .unwrap();
        // Pages 1-3, 7 and 9 in one read (the gaps of 3 and 1 pages are bridged) and file 1's
        // page 2: two reads, all counted as side, pages 4-6 and 8 read and dropped.
        assert_eq!(counters.read_requests, 2);
        assert_eq!(counters.side_read_requests, 2);
        assert_eq!(counters.side_bytes_read, counters.bytes_read);
        assert!(counters.bytes_read > 9 * SIDE_PAGE_BYTES, "{counters:?}");
        assert!(pins.page(0, 5).is_none());
        assert_eq!(pins.page(0, 2).unwrap().unwrap()[0], 2 ^ 1);
        assert_eq!(pins.page(1, 2).unwrap().unwrap()[0], 2 ^ 2);
        // The last page of a file is zero past its end.
        assert_eq!(pins.page(1, 2).unwrap().unwrap()[PAGE - 1], 0);
        assert!(pins.page(0, 7).unwrap().is_err());
        assert!(pins.page(0, 5).is_none());
        // A second batch finds the good pages in the cache and reads only the bad one.
        pins.clear();
        for page in [1, 2, 3, 7] {
            pins.want(0, page);
        }
        let mut again = IoCounters::default();
        pins.fetch(&mut engine, Some(&cache), check, &paths, &mut again)
            .unwrap();
        assert_eq!(again.read_requests, 1);
        assert_eq!(pins.page(0, 3).unwrap().unwrap()[0], 3 ^ 1);
        // An engine that holds the files in memory gives the same pages, with no read.
        let mut resident = RamEngine::open(&paths).unwrap();
        pins.clear();
        for page in [1, 7, 9] {
            pins.want(0, page);
        }
        let mut none = IoCounters::default();
        pins.fetch(&mut resident, None, check, &paths, &mut none)
            .unwrap();
        assert_eq!(none, IoCounters::default());
        assert_eq!(pins.page(0, 9).unwrap().unwrap()[0], 9 ^ 1);
        assert!(pins.page(0, 7).unwrap().is_err());
    }

    #[test]
    fn a_failed_read_leaves_its_pages_missing_with_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let paths = vec![file(dir.path(), "a", 2)];
        let mut engine = PreadEngine::open(&paths, 2, DirectIo::Off).unwrap();
        let mut pins = PinnedPages::default();
        pins.want(0, 5);
        pins.want(0, 0);
        pins.fetch(
            &mut engine,
            None,
            &|_, _, _| Ok(()),
            &paths,
            &mut IoCounters::default(),
        )
        .unwrap();
        assert!(pins.page(0, 0).unwrap().is_ok());
        let error = pins.page(0, 5).unwrap().unwrap_err();
        assert!(matches!(**error, IoError::UnexpectedEnd { .. }), "{error}");
    }
}
