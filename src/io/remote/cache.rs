//! The local cache of remote files: pages of [`PAGE_BYTES`] fetched from a server, kept on
//! disk within a size budget, so that the header, the names and the pages a lab asks for
//! again are served locally.
//!
//! - **Keyed by URL and ETag**: a file changed on the server has a new ETag, hence new keys;
//!   its old pages are never served and age out. A file without an ETag is not cached.
//! - **Safe under concurrent processes**: a page is written to a temporary file and renamed
//!   into place, so a reader sees a whole page or none; two processes writing the same page
//!   write the same bytes.
//! - **Checked on read**: each page file ends with the XXH64 of its bytes and its offset; a
//!   page that fails the check (a torn or damaged file) is deleted and fetched again.
//! - **Bounded**: after every [`EVICT_EVERY`] bytes written, the least recently used page
//!   files (by modification time, which a hit refreshes) are deleted until the cache holds
//!   at most its budget.

use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use bytes::{Bytes, BytesMut};
use xxhash_rust::xxh64::xxh64;

use super::options::{options, CacheOptions};

/// Which version of which remote file pages belong to: its URL, and the ETag and size seen
/// at open (a changed file has new keys, so its old pages are never served).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Version<'a> {
    /// The URL as given.
    pub url: &'a str,
    /// ETag at open; without one nothing is cached.
    pub etag: Option<&'a str>,
    /// Size at open.
    pub size: u64,
}

/// Bytes per cached page: reads are widened to whole pages when a cache is in use.
pub(crate) const PAGE_BYTES: u64 = 64 << 10;
/// Bytes written between two evictions.
const EVICT_EVERY: u64 = 64 << 20;
/// Trailer of a page file: XXH64 of the bytes, seeded with the offset.
const TRAILER_BYTES: usize = 8;

static WRITTEN: AtomicU64 = AtomicU64::new(0);
static TEMP_NUMBER: AtomicU64 = AtomicU64::new(0);

/// The cache's directory for `object`, when a cache is in use and the object has an ETag.
fn object_dir(object: Version<'_>) -> Option<(CacheOptions, PathBuf)> {
    let cache = options().cache?;
    let etag = object.etag?;
    let key = xxh64(
        format!("{}\0{etag}\0{}", object.url, object.size).as_bytes(),
        0,
    );
    let dir = cache.dir.join(format!("{key:016x}"));
    Some((cache, dir))
}

/// The file of the cache that names the version of `url` last opened.
fn latest_file(cache: &CacheOptions, url: &str) -> PathBuf {
    cache
        .dir
        .join(format!("latest-{:016x}", xxh64(url.as_bytes(), 0)))
}

/// Notes `object` as the version of its URL last opened, so that a later process may find
/// its pages before asking the server ([`last_held`]). Failures only lose the note.
pub(crate) fn note_opened(object: Version<'_>) {
    let (Some(cache), Some(etag)) = (options().cache, object.etag) else {
        return;
    };
    let note = format!("{}\n{etag}\n", object.size);
    let path = latest_file(&cache, object.url);
    if std::fs::read(&path).is_ok_and(|held| held == note.as_bytes()) {
        return;
    }
    let number = TEMP_NUMBER.fetch_add(1, Ordering::Relaxed);
    let temp = cache
        .dir
        .join(format!(".tmp-{}-{number}", std::process::id()));
    let written = std::fs::create_dir_all(&cache.dir)
        .and_then(|()| std::fs::write(&temp, note.as_bytes()))
        .and_then(|()| std::fs::rename(&temp, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

/// The whole of the version of `url` last opened, when the cache holds every page of it:
/// what the file most likely still is, read without asking its server. Only a guess: the
/// caller must open the file and read it again to rely on it.
pub(crate) fn last_held(url: &str) -> Option<Bytes> {
    let cache = options().cache?;
    let note = std::fs::read_to_string(latest_file(&cache, url)).ok()?;
    let mut lines = note.lines();
    let size: u64 = lines.next()?.parse().ok()?;
    let etag = lines.next()?;
    let version = Version {
        url,
        etag: Some(etag),
        size,
    };
    lookup(version, &(0..size))
}

/// `range` widened to whole cache pages (cut at the end of the file) when a cache is in
/// use, else `range`.
pub(crate) fn widen(object: Version<'_>, range: &Range<u64>) -> Range<u64> {
    if object_dir(object).is_none() || range.is_empty() {
        return range.clone();
    }
    let start = range.start / PAGE_BYTES * PAGE_BYTES;
    let end = range.end.next_multiple_of(PAGE_BYTES).min(object.size);
    start..end
}

/// The bytes of `range` from the cache, when it holds every page of it intact.
pub(crate) fn lookup(object: Version<'_>, range: &Range<u64>) -> Option<Bytes> {
    let (_, dir) = object_dir(object)?;
    if range.is_empty() {
        return None;
    }
    let first = range.start / PAGE_BYTES;
    let last = (range.end - 1) / PAGE_BYTES;
    let want = |page: u64| (object.size - page * PAGE_BYTES).min(PAGE_BYTES) as usize;
    let from = (range.start - first * PAGE_BYTES) as usize;
    let to = from + (range.end - range.start) as usize;
    if first == last {
        // Most reads lie in one page: a slice of it, not a copy.
        return Some(recent_page(&dir, first, want(first))?.slice(from..to));
    }
    let mut bytes = BytesMut::with_capacity(((last - first + 1) * PAGE_BYTES) as usize);
    for page in first..=last {
        bytes.extend_from_slice(&recent_page(&dir, page, want(page))?);
    }
    Some(bytes.freeze().slice(from..to))
}

/// Pages this process read from the cache lately, checked: the many small reads that fall in
/// one page (the rows of a COBS file lie a few KB apart) read and check it once, not once each.
const RECENT_PAGES: usize = 64;

/// Page `page` of `dir`, from the pages read lately or else from disk ([`read_page`]).
fn recent_page(dir: &Path, page: u64, want: usize) -> Option<Bytes> {
    type Recent = std::sync::Mutex<std::collections::VecDeque<(PathBuf, u64, Bytes)>>;
    static RECENT: std::sync::OnceLock<Recent> = std::sync::OnceLock::new();
    let recent = RECENT.get_or_init(Default::default);
    let lock = || {
        recent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    let found = lock()
        .iter()
        .find(|(d, p, bytes)| *p == page && bytes.len() == want && d == dir)
        .map(|(_, _, bytes)| bytes.clone());
    if found.is_some() {
        return found;
    }
    let bytes = Bytes::from(read_page(dir, page, want)?);
    let mut recent = lock();
    if recent.len() == RECENT_PAGES {
        recent.pop_front();
    }
    recent.push_back((dir.to_path_buf(), page, bytes.clone()));
    Some(bytes)
}

/// Page `page` of the cache directory `dir`, `want` bytes long, if present and intact. A
/// damaged page file is deleted.
fn read_page(dir: &Path, page: u64, want: usize) -> Option<Vec<u8>> {
    let path = dir.join(format!("{page:012}"));
    let mut bytes = std::fs::read(&path).ok()?;
    let intact = bytes.len() == want + TRAILER_BYTES && {
        let (data, trailer) = bytes.split_at(want);
        trailer == xxh64(data, page).to_le_bytes()
    };
    if !intact {
        tracing::warn!("{}: damaged cache page, fetching it again", path.display());
        let _ = std::fs::remove_file(&path);
        return None;
    }
    let _ = std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|f| f.set_modified(SystemTime::now()));
    bytes.truncate(want);
    Some(bytes)
}

/// Keeps the whole pages of `bytes` (fetched at `start`, a page boundary) in the cache.
/// Failures are logged and otherwise ignored: the cache only saves requests.
pub(crate) fn store(object: Version<'_>, start: u64, bytes: &[u8]) {
    let Some((cache, dir)) = object_dir(object) else {
        return;
    };
    if start % PAGE_BYTES != 0 {
        return;
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::warn!("{}: cannot create the cache: {e}", dir.display());
        return;
    }
    for (index, chunk) in bytes.chunks(PAGE_BYTES as usize).enumerate() {
        let page = start / PAGE_BYTES + index as u64;
        let whole = (object.size - page * PAGE_BYTES).min(PAGE_BYTES) as usize;
        if chunk.len() != whole {
            continue;
        }
        if let Err(e) = write_page(&dir, page, chunk) {
            tracing::warn!("{}: cannot write to the cache: {e}", dir.display());
            return;
        }
    }
    let written = WRITTEN.fetch_add(bytes.len() as u64, Ordering::Relaxed) + bytes.len() as u64;
    if written / EVICT_EVERY != (written - bytes.len() as u64) / EVICT_EVERY {
        evict(&cache);
    }
}

/// Writes one page file atomically: a temporary file, then a rename.
fn write_page(dir: &Path, page: u64, data: &[u8]) -> std::io::Result<()> {
    let number = TEMP_NUMBER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".tmp-{}-{number}", std::process::id()));
    let mut file = std::fs::File::create(&temp)?;
    file.write_all(data)?;
    file.write_all(&xxh64(data, page).to_le_bytes())?;
    drop(file);
    std::fs::rename(&temp, dir.join(format!("{page:012}"))).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// Deletes the least recently used page files until the cache holds at most its budget.
pub(crate) fn evict(cache: &CacheOptions) {
    let mut files = Vec::new();
    let Ok(dirs) = std::fs::read_dir(&cache.dir) else {
        return;
    };
    for dir in dirs.flatten() {
        let Ok(pages) = std::fs::read_dir(dir.path()) else {
            continue;
        };
        for page in pages.flatten() {
            if let Ok(meta) = page.metadata() {
                let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                files.push((used, meta.len(), page.path()));
            }
        }
    }
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    files.sort();
    for (_, len, path) in files {
        if total <= cache.bytes {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
}
