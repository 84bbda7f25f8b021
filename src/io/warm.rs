//! Warm-up: filling a [`PageCache`] by reading files sequentially in large chunks from a
//! background thread at idle I/O priority, while queries are already being served.
//!
//! After a restart the cache is empty and every query pays the device's random-read latency.
//! Sequential 1 MiB reads fetch the same bytes tens of times faster than 4 KiB random ones,
//! so streaming the index into the cache brings queries to warm speed long before random
//! traffic alone would. The thread asks the kernel for the idle I/O class
//! (`ioprio_set(IOPRIO_CLASS_IDLE)`), so queries' reads go first, and it stops when the cache
//! is nearly full: pages that queries brought in are never evicted for warm-up pages.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{AlignedBuf, DataFile, PageCache};

/// A byte range of a file to warm; `file` is the number the cache knows the file by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarmRange {
    /// The file.
    pub path: PathBuf,
    /// Its number in the searcher (cache key).
    pub file: u32,
    /// First byte (rounded down to a page).
    pub start: u64,
    /// End (exclusive).
    pub end: u64,
}

/// What a warm-up did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WarmupReport {
    /// Bytes read from the files.
    pub bytes_read: u64,
    /// Pages stored in the cache.
    pub pages_inserted: u64,
    /// Time it ran.
    #[serde(skip)]
    pub elapsed: Duration,
    /// It stopped because the cache was nearly full.
    pub cache_full: bool,
    /// Chunks kept out of the cache because they failed their check.
    pub chunks_refused: u64,
}

/// Checks a chunk a warm-up read before it enters the cache: `(file, offset, bytes)`; false
/// keeps it out (bytes that do not match the index's checksums must never be served).
pub type WarmCheck = Arc<dyn Fn(u32, u64, &[u8]) -> bool + Send + Sync>;

/// A running warm-up; stop it with [`Warmup::stop`] (dropping it stops it too).
pub struct Warmup {
    handle: Option<JoinHandle<WarmupReport>>,
    stop: Arc<AtomicBool>,
}

/// Bytes per sequential read.
pub(crate) const WARM_CHUNK_BYTES: usize = 1 << 20;
/// Fraction of the cache's page slots a warm-up may fill.
const FILL_LIMIT: f64 = 0.95;

impl Warmup {
    /// Starts warming `ranges` into `cache` on a background thread.
    #[cfg(test)]
    pub(crate) fn start(ranges: Vec<WarmRange>, cache: Arc<PageCache>) -> Warmup {
        Warmup::start_checked(ranges, cache, None)
    }

    /// As [`Warmup::start`], each chunk checked by `check` before its pages are stored.
    pub(crate) fn start_checked(
        ranges: Vec<WarmRange>,
        cache: Arc<PageCache>,
        check: Option<WarmCheck>,
    ) -> Warmup {
        let stop = Arc::new(AtomicBool::new(false));
        let bytes_read = Arc::new(AtomicU64::new(0));
        let (thread_stop, thread_bytes) = (stop.clone(), bytes_read.clone());
        let handle = std::thread::Builder::new()
            .name("bitsift-warmup".into())
            .spawn(move || run(&ranges, &cache, check.as_ref(), &thread_stop, &thread_bytes))
            .ok();
        Warmup { handle, stop }
    }

    /// Whether the warm-up has ended by itself (all read, or the cache full).
    #[cfg(test)]
    pub(crate) fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(|h| h.is_finished())
    }

    /// Stops the warm-up and waits for its thread.
    pub fn stop(mut self) -> WarmupReport {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for Warmup {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// Moves the calling thread to the idle I/O scheduling class. Failure only means the
/// warm-up competes with queries at normal priority.
pub(super) fn idle_io_priority() {
    const IOPRIO_CLASS_IDLE: libc::c_long = 3;
    set_io_priority(IOPRIO_CLASS_IDLE, 0);
}

/// Moves the calling thread to the lowest level of the best-effort I/O class: below the
/// queries where the scheduler ranks levels (BFQ), never starved behind them (mq-deadline
/// serves an idle-class request only after seconds without other requests).
pub(super) fn low_io_priority() {
    const IOPRIO_CLASS_BE: libc::c_long = 2;
    set_io_priority(IOPRIO_CLASS_BE, 7);
}

fn set_io_priority(class: libc::c_long, level: libc::c_long) {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    const IOPRIO_CLASS_SHIFT: libc::c_long = 13;
    // SAFETY: ioprio_set on the calling thread (who = 0) takes plain integers.
    unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0 as libc::c_long,
            (class << IOPRIO_CLASS_SHIFT) | level,
        );
    }
}

fn run(
    ranges: &[WarmRange],
    cache: &PageCache,
    check: Option<&WarmCheck>,
    stop: &AtomicBool,
    bytes_read: &AtomicU64,
) -> WarmupReport {
    let started = Instant::now();
    idle_io_priority();
    let page = cache.page_size();
    let capacity_pages = cache.slots() as f64;
    let mut report = WarmupReport::default();
    let mut buffer = AlignedBuf::zeroed(WARM_CHUNK_BYTES, 4096);
    for range in ranges {
        let Ok(file) =
            DataFile::open_direct(&range.path).or_else(|_| DataFile::open_buffered(&range.path))
        else {
            continue;
        };
        let align = (file.offset_align as usize).max(page);
        let mut offset = range.start / align as u64 * align as u64;
        let end = range.end.min(file.size);
        while offset < end {
            if stop.load(Ordering::Relaxed) {
                report.elapsed = started.elapsed();
                return report;
            }
            if cache.stats().pages as f64 >= capacity_pages * FILL_LIMIT {
                report.cache_full = true;
                report.elapsed = started.elapsed();
                return report;
            }
            let want = WARM_CHUNK_BYTES.min((end - offset).div_ceil(align as u64) as usize * align);
            let Ok(got) = file.read_full_at(&mut buffer.as_mut_slice()[..want], offset) else {
                break;
            };
            if got == 0 {
                break;
            }
            bytes_read.fetch_add(got as u64, Ordering::Relaxed);
            report.bytes_read += got as u64;
            if check.is_some_and(|check| !check(range.file, offset, &buffer.as_slice()[..got])) {
                report.chunks_refused += 1;
                offset += got as u64;
                continue;
            }
            for (p, chunk) in buffer.as_slice()[..got].chunks(page).enumerate() {
                let at = offset + (p * page) as u64;
                if !cache.contains(range.file, at) {
                    cache.insert(range.file, at, chunk);
                    report.pages_inserted += 1;
                }
            }
            offset += got as u64;
        }
    }
    report.elapsed = started.elapsed();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warms_until_done_or_full() {
        let bytes: Vec<u8> = (0..(3u32 << 20)).map(|i| (i / 4096) as u8).collect();
        let (_dir, path) = crate::testing::file_with("data", &bytes);
        let range = WarmRange {
            path: path.clone(),
            file: 0,
            start: 0,
            end: bytes.len() as u64,
        };
        // Large cache: everything read, every page stored with its content.
        let cache = Arc::new(PageCache::new(64 << 20, 4096));
        let report = Warmup::start(vec![range.clone()], cache.clone()).stop_when_finished();
        assert_eq!(report.bytes_read, bytes.len() as u64);
        assert_eq!(report.pages_inserted, 768);
        let mut page = vec![0u8; 4096];
        assert!(cache.get(0, 100 * 4096, &mut page));
        assert!(page.iter().all(|&b| b == 100));
        // Small cache: stops when nearly full.
        let small = Arc::new(PageCache::new(1 << 20, 4096));
        let report = Warmup::start(vec![range], small.clone()).stop_when_finished();
        assert!(report.cache_full);
        assert!(report.bytes_read < bytes.len() as u64);
    }

    #[test]
    fn chunks_that_fail_their_check_stay_out_of_the_cache() {
        let (_dir, path) = crate::testing::file_with("data", vec![7u8; 3 << 20]);
        let range = WarmRange {
            path,
            file: 0,
            start: 0,
            end: 3 << 20,
        };
        let cache = Arc::new(PageCache::new(64 << 20, 4096));
        // The second MiB is "damaged".
        let check: WarmCheck = Arc::new(|_, offset, _| offset != 1 << 20);
        let report =
            Warmup::start_checked(vec![range], cache.clone(), Some(check)).stop_when_finished();
        assert_eq!(report.chunks_refused, 1);
        assert_eq!(report.pages_inserted, 512);
        assert!(cache.contains(0, 0) && cache.contains(0, 2 << 20));
        assert!(!cache.contains(0, 1 << 20) && !cache.contains(0, (1 << 20) + 4096));
    }

    impl Warmup {
        fn stop_when_finished(self) -> WarmupReport {
            while !self.is_finished() {
                std::thread::sleep(Duration::from_millis(5));
            }
            self.stop()
        }
    }
}
