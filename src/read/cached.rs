//! [`CachedReads`]: the row-cache layer of the read path.
//!
//! It wraps an engine (above the checksum layer, so only checked bytes are ever cached, and
//! cached bytes are not checked again) and a process-wide [`PageCache`]. Right before a read
//! is issued, if every page it covers is cached, it is served from the cache instead: a
//! one-page read in place, a longer one assembled in a scratch buffer. Reads that go to the
//! engine are stored in the cache as they arrive. Reads of files numbered `files` and above
//! (side files, which have a cache of their own) pass through.

use crate::io::{
    EngineLayer, IoError, PageCache, ReadBatch, ReadConsumer, ReadEngine, ReadRequest,
};

/// The row-cache layer over an engine; see the module documentation.
pub(crate) struct CachedReads<'a> {
    inner: &'a mut dyn ReadEngine,
    cache: &'a PageCache,
    /// Engine files `0..files` are cached.
    files: u32,
    scratch: &'a mut Vec<u8>,
}

impl<'a> CachedReads<'a> {
    /// Caches the reads of engine files `0..files` of `inner` in `cache`; `scratch` assembles
    /// reads longer than a page. Reads must be aligned to the cache's page size.
    pub(crate) fn new(
        inner: &'a mut dyn ReadEngine,
        cache: &'a PageCache,
        files: u32,
        scratch: &'a mut Vec<u8>,
    ) -> CachedReads<'a> {
        CachedReads {
            inner,
            cache,
            files,
            scratch,
        }
    }
}

impl EngineLayer for CachedReads<'_> {
    const TRANSPARENT: bool = true;

    crate::io::layer_accessors!(inner);

    fn layer_alignment(&self) -> u64 {
        self.inner.alignment().max(self.cache.page_size() as u64)
    }

    fn read_layered(&mut self, batch: ReadBatch<'_>) -> Result<(), IoError> {
        let (requests, counters) = (batch.requests, batch.counters);
        let sizes: Vec<u64> = (0..self.files).map(|f| self.inner.file_size(f)).collect();
        let mut layer = CacheConsumer {
            outer: batch.consumer,
            requests,
            cache: self.cache,
            files: self.files,
            sizes: &sizes,
            scratch: self.scratch,
            served: 0,
        };
        let outcome = self
            .inner
            .read_batch(ReadBatch::new(requests, &mut layer, counters));
        counters.cached += layer.served;
        outcome
    }
}

/// Serves reads from the cache and stores those that reach the engine.
struct CacheConsumer<'a> {
    outer: &'a mut dyn ReadConsumer,
    requests: &'a [ReadRequest],
    cache: &'a PageCache,
    files: u32,
    /// Sizes of the cached files: a read served from the cache stops at the file's end, as
    /// the engine's would.
    sizes: &'a [u64],
    scratch: &'a mut Vec<u8>,
    served: u64,
}

impl CacheConsumer<'_> {
    /// Hands request `request` to the outer consumer from the cache if all its pages are
    /// there.
    fn serve(&mut self, request: usize) -> bool {
        let read = self.requests[request];
        let page = self.cache.page_size();
        debug_assert_eq!(
            read.offset % page as u64,
            0,
            "cached reads are page-aligned"
        );
        let size = self.sizes[read.file as usize];
        if read.offset >= size {
            // Past the end: the engine reports it.
            return false;
        }
        let available = (size - read.offset).min(read.len as u64) as usize;
        if read.len as usize <= page {
            let outer = &mut *self.outer;
            return self
                .cache
                .with_page(read.file, read.offset, |bytes| {
                    outer.complete(request, &bytes[..available])
                })
                .is_some();
        }
        let pages = (read.len as u64).div_ceil(page as u64);
        // Check first without touching the recency of pages we may not use.
        if !(0..pages).all(|p| {
            self.cache
                .contains(read.file, read.offset + p * page as u64)
        }) {
            self.cache.record_misses(pages);
            return false;
        }
        self.scratch.resize(pages as usize * page, 0);
        for (p, chunk) in self.scratch.chunks_mut(page).enumerate() {
            if !self
                .cache
                .get(read.file, read.offset + (p * page) as u64, chunk)
            {
                return false;
            }
        }
        self.outer.complete(request, &self.scratch[..available]);
        true
    }
}

impl ReadConsumer for CacheConsumer<'_> {
    fn wanted(&mut self, request: usize) -> bool {
        if !self.outer.wanted(request) {
            return false;
        }
        if self.requests[request].file < self.files && self.serve(request) {
            self.served += 1;
            return false;
        }
        true
    }

    fn complete(&mut self, request: usize, bytes: &[u8]) {
        let read = self.requests[request];
        if read.file < self.files {
            let page = self.cache.page_size();
            for (p, chunk) in bytes.chunks(page).enumerate() {
                self.cache
                    .insert(read.file, read.offset + (p * page) as u64, chunk);
            }
        }
        self.outer.complete(request, bytes);
    }

    fn failed(&mut self, request: usize, error: IoError) -> Result<(), IoError> {
        self.outer.failed(request, error)
    }
}
