//! A memory-bounded cache of file pages, shared by every query of a process.
//!
//! With O_DIRECT the kernel keeps no copy of what bitsift reads, so this cache is the only one
//! and its budget is the process's whole cache memory: data and bookkeeping together never
//! exceed the `capacity_bytes` given at creation (the slots are allocated up front).
//!
//! Eviction is S3-FIFO (Yang et al., SOSP 2023): new pages enter a small FIFO (10 % of the
//! slots); a page read again while there moves to the main FIFO when it leaves, others are
//! evicted and remembered in a ghost FIFO of keys, so a page that returns soon goes straight
//! to the main FIFO; the main FIFO gives pages with recent hits another round. One-hit pages
//! of a large scan therefore pass through the small queue without flushing the pages that
//! queries keep coming back to. The cache is split into shards by key, each behind its own
//! lock, so concurrent queries rarely contend.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Bytes of bookkeeping per page slot (map entry, queue entries, ghost entry), counted
/// against the budget.
const SLOT_OVERHEAD_BYTES: u64 = 64;
/// Shards; a power of two.
const SHARDS: usize = 16;

/// Counters of a cache since it was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    /// Page lookups that found the page.
    pub hits: u64,
    /// Page lookups that did not.
    pub misses: u64,
    /// Pages stored.
    pub insertions: u64,
    /// Pages evicted to make room.
    pub evictions: u64,
    /// Pages held now.
    pub pages: u64,
    /// Bytes the cache may use, data and bookkeeping.
    pub capacity_bytes: u64,
}

struct Shard {
    page_size: usize,
    data: Vec<u8>,
    keys: Vec<u64>,
    frequency: Vec<u8>,
    in_main: Vec<bool>,
    map: HashMap<u64, u32>,
    small: VecDeque<u32>,
    main: VecDeque<u32>,
    ghost: VecDeque<u64>,
    ghost_set: HashSet<u64>,
    free: Vec<u32>,
    small_capacity: usize,
    evictions: u64,
}

impl Shard {
    fn new(slots: usize, page_size: usize) -> Shard {
        Shard {
            page_size,
            data: vec![0; slots * page_size],
            keys: vec![0; slots],
            frequency: vec![0; slots],
            in_main: vec![false; slots],
            map: HashMap::with_capacity(slots),
            small: VecDeque::with_capacity(slots),
            main: VecDeque::with_capacity(slots),
            ghost: VecDeque::with_capacity(slots),
            ghost_set: HashSet::with_capacity(slots),
            free: (0..slots as u32).rev().collect(),
            small_capacity: (slots / 10).max(1),
            evictions: 0,
        }
    }

    fn slots(&self) -> usize {
        self.keys.len()
    }

    /// The slot of a cached page, counted as an access for eviction.
    fn touch(&mut self, key: u64) -> Option<usize> {
        let slot = *self.map.get(&key)? as usize;
        self.frequency[slot] = (self.frequency[slot] + 1).min(3);
        Some(slot)
    }

    fn get(&mut self, key: u64, out: &mut [u8]) -> bool {
        let Some(slot) = self.touch(key) else {
            return false;
        };
        out.copy_from_slice(&self.data[slot * self.page_size..(slot + 1) * self.page_size]);
        true
    }

    fn insert(&mut self, key: u64, page: &[u8]) {
        if self.slots() == 0 {
            return;
        }
        if let Some(&slot) = self.map.get(&key) {
            let slot = slot as usize;
            self.data[slot * self.page_size..][..page.len()].copy_from_slice(page);
            return;
        }
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => self.evict(),
        };
        let index = slot as usize;
        let destination = &mut self.data[index * self.page_size..(index + 1) * self.page_size];
        destination[..page.len()].copy_from_slice(page);
        destination[page.len()..].fill(0);
        self.keys[index] = key;
        self.frequency[index] = 0;
        self.map.insert(key, slot);
        if self.ghost_set.remove(&key) {
            self.in_main[index] = true;
            self.main.push_back(slot);
        } else {
            self.in_main[index] = false;
            self.small.push_back(slot);
        }
    }

    /// Frees one slot and returns it.
    fn evict(&mut self) -> u32 {
        loop {
            if self.small.len() >= self.small_capacity || self.main.is_empty() {
                if let Some(slot) = self.small.pop_front() {
                    let index = slot as usize;
                    if self.frequency[index] > 0 {
                        self.frequency[index] = 0;
                        self.in_main[index] = true;
                        self.main.push_back(slot);
                        continue;
                    }
                    let key = self.keys[index];
                    self.map.remove(&key);
                    self.remember(key);
                    self.evictions += 1;
                    return slot;
                }
            }
            if let Some(slot) = self.main.pop_front() {
                let index = slot as usize;
                if self.frequency[index] > 0 {
                    self.frequency[index] -= 1;
                    self.main.push_back(slot);
                    continue;
                }
                self.map.remove(&self.keys[index]);
                self.evictions += 1;
                return slot;
            }
            unreachable!("a full cache has a page in one of its queues");
        }
    }

    fn remember(&mut self, key: u64) {
        if self.ghost.len() >= self.slots() {
            if let Some(old) = self.ghost.pop_front() {
                self.ghost_set.remove(&old);
            }
        }
        self.ghost.push_back(key);
        self.ghost_set.insert(key);
    }
}

/// A sharded S3-FIFO cache of `page_size`-byte file pages; see the module documentation.
pub struct PageCache {
    shards: Vec<Mutex<Shard>>,
    page_size: usize,
    capacity_bytes: u64,
    hits: AtomicU64,
    misses: AtomicU64,
    insertions: AtomicU64,
}

impl std::fmt::Debug for PageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageCache")
            .field("page_size", &self.page_size)
            .field("capacity_bytes", &self.capacity_bytes)
            .finish_non_exhaustive()
    }
}

impl PageCache {
    /// A cache holding at most `capacity_bytes` (data and bookkeeping) of pages of
    /// `page_size` bytes (a power of two). A budget below one page per shard caches nothing.
    pub(crate) fn new(capacity_bytes: u64, page_size: usize) -> PageCache {
        assert!(
            page_size.is_power_of_two(),
            "page size must be a power of two"
        );
        let per_slot = page_size as u64 + SLOT_OVERHEAD_BYTES;
        let slots_per_shard = (capacity_bytes / per_slot / SHARDS as u64) as usize;
        let shards = (0..SHARDS)
            .map(|_| Mutex::new(Shard::new(slots_per_shard, page_size)))
            .collect();
        PageCache {
            shards,
            page_size,
            capacity_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            insertions: AtomicU64::new(0),
        }
    }

    /// Bytes per page.
    pub(crate) fn page_size(&self) -> usize {
        self.page_size
    }

    fn key(&self, file: u32, offset: u64) -> u64 {
        debug_assert_eq!(offset % self.page_size as u64, 0);
        ((file as u64) << 48) | (offset / self.page_size as u64)
    }

    fn shard(&self, key: u64) -> &Mutex<Shard> {
        // Fibonacci hashing spreads consecutive pages over the shards.
        let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        &self.shards[mixed as usize % SHARDS]
    }

    /// Copies the page at `offset` (a multiple of the page size) of `file` into `out` (one
    /// page long) if cached.
    pub(crate) fn get(&self, file: u32, offset: u64, out: &mut [u8]) -> bool {
        let key = self.key(file, offset);
        let found = self
            .shard(key)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(key, out);
        if found {
            self.hits.fetch_add(1, Ordering::Relaxed);
        } else {
            self.misses.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Runs `read` on the cached page at `offset` of `file` in place (no copy), holding its
    /// shard for the call; `None` (and a miss) if the page is not cached.
    pub(crate) fn with_page<R>(
        &self,
        file: u32,
        offset: u64,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Option<R> {
        let key = self.key(file, offset);
        let mut shard = self
            .shard(key)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let Some(slot) = shard.touch(key) else {
            drop(shard);
            self.misses.fetch_add(1, Ordering::Relaxed);
            return None;
        };
        let page = &shard.data[slot * self.page_size..(slot + 1) * self.page_size];
        let result = read(page);
        drop(shard);
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(result)
    }

    /// Whether the page is cached, without counting a hit or miss or touching its recency.
    pub(crate) fn contains(&self, file: u32, offset: u64) -> bool {
        let key = self.key(file, offset);
        self.shard(key)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .map
            .contains_key(&key)
    }

    /// Counts `pages` lookups that will be read from the device (a caller that checked with
    /// [`PageCache::contains`] first).
    pub(crate) fn record_misses(&self, pages: u64) {
        self.misses.fetch_add(pages, Ordering::Relaxed);
    }

    /// Stores a page (`page.len()` at most one page; shorter at the end of a file).
    pub(crate) fn insert(&self, file: u32, offset: u64, page: &[u8]) {
        debug_assert!(page.len() <= self.page_size);
        let key = self.key(file, offset);
        self.shard(key)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(key, page);
        self.insertions.fetch_add(1, Ordering::Relaxed);
    }

    /// Counters since creation.
    pub(crate) fn stats(&self) -> CacheStats {
        let mut pages = 0;
        let mut evictions = 0;
        for shard in &self.shards {
            let shard = shard
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            pages += shard.map.len() as u64;
            evictions += shard.evictions;
        }
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            insertions: self.insertions.load(Ordering::Relaxed),
            evictions,
            pages,
            capacity_bytes: self.capacity_bytes,
        }
    }

    /// Page slots (the most pages the cache can hold).
    pub(crate) fn slots(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|p| p.into_inner()).slots() as u64)
            .sum()
    }

    /// Bytes allocated for pages and bookkeeping (never more than the capacity).
    pub(crate) fn allocated_bytes(&self) -> u64 {
        self.slots() * (self.page_size as u64 + SLOT_OVERHEAD_BYTES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(value: u8) -> Vec<u8> {
        vec![value; 4096]
    }

    #[test]
    fn hits_return_what_was_stored() {
        let cache = PageCache::new(1 << 20, 4096);
        let mut out = vec![0u8; 4096];
        assert!(!cache.get(0, 4096, &mut out));
        cache.insert(0, 4096, &page(7));
        cache.insert(1, 4096, &page(9));
        assert!(cache.get(0, 4096, &mut out));
        assert_eq!(out, page(7));
        assert!(cache.get(1, 4096, &mut out));
        assert_eq!(out, page(9));
        // A short page at the end of a file is zero-padded.
        cache.insert(0, 8192, &[5u8; 100]);
        assert!(cache.get(0, 8192, &mut out));
        assert_eq!(&out[..100], &[5u8; 100][..]);
        assert!(out[100..].iter().all(|&b| b == 0));
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses, stats.pages), (3, 1, 3));
    }

    #[test]
    fn memory_never_exceeds_the_budget() {
        for budget in [0u64, 10_000, 1 << 20, 100 << 20] {
            let cache = PageCache::new(budget, 4096);
            assert!(cache.allocated_bytes() <= budget, "{budget}");
            for i in 0..5000u64 {
                cache.insert(0, i * 4096, &page(1));
            }
            assert!(cache.stats().pages * 4096 <= budget);
        }
    }

    #[test]
    fn a_scan_does_not_flush_the_hot_pages() {
        // 100 hot pages hit repeatedly, then a scan of 10x the capacity: most hot pages stay.
        let cache = PageCache::new(16 * 64 * (4096 + SLOT_OVERHEAD_BYTES), 4096);
        let mut out = vec![0u8; 4096];
        for round in 0..3 {
            for i in 0..100u64 {
                if !cache.get(0, i * 4096, &mut out) {
                    cache.insert(0, i * 4096, &page(round));
                }
            }
        }
        for i in 0..10_240u64 {
            let offset = (1_000_000 + i) * 4096;
            if !cache.get(1, offset, &mut out) {
                cache.insert(1, offset, &page(2));
            }
        }
        let kept = (0..100u64).filter(|&i| cache.contains(0, i * 4096)).count();
        assert!(kept >= 80, "only {kept} of 100 hot pages survived a scan");
    }

    #[test]
    fn shared_between_threads() {
        let cache = std::sync::Arc::new(PageCache::new(8 << 20, 4096));
        let handles: Vec<_> = (0..4u8)
            .map(|t| {
                let cache = cache.clone();
                std::thread::spawn(move || {
                    let mut out = vec![0u8; 4096];
                    for i in 0..2000u64 {
                        let offset = (i % 500) * 4096;
                        if cache.get(t as u32, offset, &mut out) {
                            assert!(out.iter().all(|&b| b == t));
                        } else {
                            cache.insert(t as u32, offset, &page(t));
                        }
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        assert!(cache.stats().hits > 0);
    }
}
