//! A memory image of whole index files, loaded in the background and shared by every session
//! of a process: what a row cache becomes when its budget holds the whole index.
//!
//! A paged cache ([`super::PageCache`]) pays a lookup, a lock and a copy for every row it
//! serves; for an index of 32-byte rows that is ten times slower than COBS scoring a memory
//! map. When the budget is at least the size of the files, nothing ever has to be evicted,
//! so the files are simply read once, sequentially, into one buffer each, and the query core
//! scores rows in place ([`ResidentFiles`]) as it does with the `ram` engine. Until the image
//! is complete, sessions read through their engine as before; a load that fails leaves them
//! doing so (the failure is kept for the operator) and never yields a partial image.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use super::ram::read_whole;
use super::warm::{low_io_priority, WARM_CHUNK_BYTES};
use super::{residency, DataFile, IoError, PageCache, ResidentFiles};

/// What a row-cache budget buys: the whole files as one [`MemoryImage`] when they fit in it,
/// else a paged [`PageCache`] of that size.
#[derive(Clone)]
pub enum RowMemory {
    /// Pages kept by S3-FIFO, for files larger than the budget.
    Pages(Arc<PageCache>),
    /// The files whole, loading in the background.
    Image(Arc<MemoryImage>),
}

impl RowMemory {
    /// Bytes of memory it holds or may hold: the image's size, or the cache's allocation.
    pub fn bytes(&self) -> u64 {
        match self {
            RowMemory::Pages(cache) => cache.allocated_bytes(),
            RowMemory::Image(image) => image.bytes(),
        }
    }

    /// The use of `capacity_bytes` for `files` (path and size): see [`RowMemory`]. An image
    /// starts loading at once.
    pub(crate) fn for_budget(capacity_bytes: u64, files: Vec<(PathBuf, u64)>) -> RowMemory {
        let total: u64 = files.iter().map(|(_, size)| size).sum();
        // A remote index is never downloaded whole: its rows are cached page by page.
        let remote = files.iter().any(|(path, _)| super::is_remote(path));
        if !remote && MemoryImage::fits(total, capacity_bytes) {
            RowMemory::Image(MemoryImage::load_in_background(files))
        } else {
            RowMemory::Pages(Arc::new(PageCache::new(capacity_bytes, CACHE_PAGE_BYTES)))
        }
    }

    /// The paged cache, when that is what the budget became.
    pub(crate) fn pages(&self) -> Option<&Arc<PageCache>> {
        match self {
            RowMemory::Pages(cache) => Some(cache),
            RowMemory::Image(_) => None,
        }
    }
}

/// Page size of a paged row cache.
const CACHE_PAGE_BYTES: usize = 4096;

/// Whole files in memory once loaded; see the module documentation.
pub struct MemoryImage {
    files: Vec<(PathBuf, u64)>,
    loaded: OnceLock<Vec<super::AlignedBuf>>,
    failure: Mutex<Option<String>>,
}

impl MemoryImage {
    /// Whether files of `total_bytes` fit a budget of `capacity_bytes`.
    pub(crate) fn fits(total_bytes: u64, capacity_bytes: u64) -> bool {
        total_bytes > 0 && total_bytes <= capacity_bytes
    }

    /// Starts loading `files` (path and expected size) on a background thread at the lowest
    /// best-effort I/O priority (not the idle class: until the image is complete there is no
    /// cache, so it must not starve behind the queries). The thread stops early when the
    /// image is dropped.
    pub(crate) fn load_in_background(files: Vec<(PathBuf, u64)>) -> Arc<MemoryImage> {
        let image = Arc::new(MemoryImage {
            files,
            loaded: OnceLock::new(),
            failure: Mutex::new(None),
        });
        let weak = Arc::downgrade(&image);
        let spawned = std::thread::Builder::new()
            .name("bitsift-image".into())
            .spawn(move || load(&weak));
        if let Err(error) = spawned {
            image.fail(format!("cannot start the loading thread: {error}"));
        }
        image
    }

    /// The files in memory, once the whole image is loaded.
    pub(crate) fn resident(&self) -> Option<&dyn ResidentFiles> {
        self.loaded.get().map(|_| self as &dyn ResidentFiles)
    }

    /// Whether the whole image is loaded.
    #[cfg(any(test, feature = "server"))]
    pub(crate) fn is_loaded(&self) -> bool {
        self.loaded.get().is_some()
    }

    /// Bytes the image holds (or will hold) in memory.
    pub(crate) fn bytes(&self) -> u64 {
        self.files.iter().map(|(_, size)| size).sum()
    }

    /// Why loading failed, if it did.
    #[cfg(any(test, feature = "server"))]
    pub(crate) fn failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|f| f.clone())
    }

    fn fail(&self, why: String) {
        if let Ok(mut failure) = self.failure.lock() {
            *failure = Some(why);
        }
    }
}

impl ResidentFiles for MemoryImage {
    fn bytes(&self, file: u32) -> &[u8] {
        let buffers = self.loaded.get().expect("asked only once loaded");
        let size = self.files[file as usize].1 as usize;
        &buffers[file as usize].as_slice()[..size]
    }
}

/// The loading thread: reads everything, then publishes it, unless the image was dropped.
fn load(image: &Weak<MemoryImage>) {
    low_io_priority();
    let Some(files) = image.upgrade().map(|i| i.files.clone()) else {
        return;
    };
    let dropped = || image.strong_count() == 0;
    let outcome = read_all(&files, &dropped);
    let Some(image) = image.upgrade() else {
        return;
    };
    match outcome {
        Ok(Some(buffers)) => {
            let _ = image.loaded.set(buffers);
            tracing::info!(
                "the index is in memory ({}): rows are scored in place",
                crate::units::format_bytes(image.bytes())
            );
        }
        Ok(None) => {}
        Err(error) => {
            tracing::warn!("loading the index into memory failed: {error}; reading it instead");
            image.fail(error.to_string());
        }
    }
}

/// Reads every file whole, checking its size; `None` when `stop` said so midway.
fn read_all(
    files: &[(PathBuf, u64)],
    stop: &dyn Fn() -> bool,
) -> Result<Option<Vec<super::AlignedBuf>>, IoError> {
    let mut buffers = Vec::with_capacity(files.len());
    for (path, size) in files {
        match read_file(path, *size, stop)? {
            Some(buffer) => buffers.push(buffer),
            None => return Ok(None),
        }
    }
    Ok(Some(buffers))
}

/// Reads `path`, which must be `size` bytes long, in large sequential reads (O_DIRECT when
/// the file system allows, so the page cache does not hold a second copy).
fn read_file(
    path: &Path,
    size: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Option<super::AlignedBuf>, IoError> {
    let open_error = |source| IoError::Open {
        path: path.to_path_buf(),
        source,
    };
    let file = if in_page_cache(path) {
        DataFile::open_buffered(path)
    } else {
        DataFile::open_direct(path).or_else(|_| DataFile::open_buffered(path))
    }
    .map_err(open_error)?;
    if file.size != size {
        return Err(IoError::UnexpectedEnd {
            path: path.to_path_buf(),
            offset: file.size.min(size),
            size: file.size,
        });
    }
    read_whole(&file, size, WARM_CHUNK_BYTES, stop)
}

/// Whether the page cache holds (nearly) all of `path`: the image is then copied from
/// memory with buffered reads, not read again from the device with O_DIRECT (where it would
/// also queue behind the queries' reads).
fn in_page_cache(path: &Path) -> bool {
    const SHARE_MIN: f64 = 0.9;
    super::open_regular(path)
        .and_then(|file| residency(&file))
        .is_ok_and(|r| r.fraction() >= SHARE_MIN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn files(dir: &std::path::Path) -> Vec<(PathBuf, u64)> {
        let mut out = Vec::new();
        for (n, len) in [(0u8, 3 * 4096 + 100), (1, 5000)] {
            let path = dir.join(format!("f{n}"));
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8 ^ n).collect();
            std::fs::write(&path, &bytes).unwrap();
            out.push((path, len as u64));
        }
        out
    }

    #[test]
    fn loads_every_file_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let files = files(dir.path());
        let image = MemoryImage::load_in_background(files.clone());
        let deadline = Instant::now() + Duration::from_secs(10);
        while !image.is_loaded() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let resident = image.resident().expect("loaded");
        for (n, (path, size)) in files.iter().enumerate() {
            assert_eq!(resident.bytes(n as u32), std::fs::read(path).unwrap());
            assert_eq!(resident.bytes(n as u32).len() as u64, *size);
        }
        assert_eq!(image.bytes(), 3 * 4096 + 100 + 5000);
        assert!(image.failure().is_none());
    }

    #[test]
    fn a_file_of_another_size_is_never_used() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = files(dir.path());
        files[1].1 += 1;
        assert!(matches!(
            read_all(&files, &|| false),
            Err(IoError::UnexpectedEnd { .. })
        ));
        let image = MemoryImage::load_in_background(files);
        let deadline = Instant::now() + Duration::from_secs(10);
        while image.failure().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(image.failure().is_some());
        assert!(image.resident().is_none());
    }

    #[test]
    fn fits_only_a_budget_as_large_as_the_files() {
        assert!(MemoryImage::fits(100, 100));
        assert!(!MemoryImage::fits(101, 100));
        assert!(!MemoryImage::fits(0, 100));
    }
}
