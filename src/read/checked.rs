//! [`CheckedReads`]: the checksum layer of the read path.
//!
//! It wraps an engine, and every read of a file that has a checksum sidecar is checked before
//! its consumer sees it: a read that does not match fails (with the page and block it holds)
//! through [`ReadConsumer::failed`], exactly as a read the device refused, so a damaged page
//! fails what needs it and nothing else. Reads of files without checksums pass through.
//!
//! The checksums a batch needs are read first, in one batch of their own through the same
//! engine (sidecar pages, merged where neighbouring, counted as side reads), from the side
//! cache when it holds them, and pinned for the batch. A batch that would need more sidecar
//! pages than [`PINNED_PAGES_MAX`] is read in windows of consecutive requests, each with its
//! own sidecar pages: memory stays bounded whatever the batch (a 1,000-gene batch on a 1 TB
//! index touches most of a 1 GB sidecar).

use super::integrity::Integrity;
use super::pins::{PinnedPages, PINNED_PAGES_MAX, SIDE_PAGE_BYTES};
use crate::format::CHECKSUM_PAGE_BYTES;
use crate::io::{
    EngineLayer, IoError, PageCache, ReadBatch, ReadConsumer, ReadEngine, ReadRequest,
};

/// The checksum layer over an engine; see the module documentation.
pub(crate) struct CheckedReads<'a> {
    inner: &'a mut dyn ReadEngine,
    integrity: &'a Integrity,
    side_cache: Option<&'a PageCache>,
    pins: &'a mut PinnedPages,
    paths: &'a [std::path::PathBuf],
}

impl<'a> CheckedReads<'a> {
    /// Checks the reads of `inner` against `integrity`, fetching sidecar pages through
    /// `inner` (from `side_cache` when it holds them) into `pins`; `paths` names the engine's
    /// files in errors.
    pub(crate) fn new(
        inner: &'a mut dyn ReadEngine,
        integrity: &'a Integrity,
        side_cache: Option<&'a PageCache>,
        pins: &'a mut PinnedPages,
        paths: &'a [std::path::PathBuf],
    ) -> CheckedReads<'a> {
        CheckedReads {
            inner,
            integrity,
            side_cache,
            pins,
            paths,
        }
    }

    /// The end of the window of `requests` starting at `start`: as many requests as fit
    /// [`PINNED_PAGES_MAX`] sidecar pages (at least one). Asks `pins` for those pages.
    /// Requests in file order (as planned) ask for each page once; in any other order a
    /// window may end early, which costs a round trip, not correctness.
    fn window(&mut self, requests: &[ReadRequest], start: usize) -> usize {
        self.pins.clear();
        let mut end = start;
        while end < requests.len() {
            self.want_pages(&requests[end]);
            if end > start && self.pins.wanted() > PINNED_PAGES_MAX {
                // This request's pages do not fit: the window ends before it.
                self.pins.clear();
                for request in &requests[start..end] {
                    self.want_pages(request);
                }
                return end;
            }
            end += 1;
        }
        end
    }

    /// Asks for the sidecar pages holding the checksums of the pages `request` covers.
    fn want_pages(&mut self, request: &ReadRequest) {
        let Some((table, sidecar)) = self.integrity.sidecar(request.file) else {
            return;
        };
        if request.len == 0 || request.offset >= table.file_size() {
            return;
        }
        let first = request.offset / CHECKSUM_PAGE_BYTES;
        let end = (request.offset + request.len as u64).min(table.file_size());
        let last = (end - 1) / CHECKSUM_PAGE_BYTES;
        let (from, to) = (table.sidecar_page(first), table.sidecar_page(last));
        for page in from..=to {
            self.pins.want(sidecar, page);
        }
    }
}

impl EngineLayer for CheckedReads<'_> {
    const TRANSPARENT: bool = true;

    crate::io::layer_accessors!(inner);

    fn layer_alignment(&self) -> u64 {
        if self.integrity.any() {
            // A checked read covers whole checksummed pages.
            self.inner.alignment().max(CHECKSUM_PAGE_BYTES)
        } else {
            self.inner.alignment()
        }
    }

    fn read_layered(&mut self, batch: ReadBatch<'_>) -> Result<(), IoError> {
        if !self.integrity.any() {
            return self.inner.read_batch(batch);
        }
        let ReadBatch {
            requests,
            consumer,
            counters,
        } = batch;
        let mut start = 0;
        while start < requests.len() {
            let end = self.window(requests, start);
            self.pins.fetch(
                &mut *self.inner,
                self.side_cache,
                &|_, _, _| Ok(()),
                self.paths,
                counters,
            )?;
            let mut verifier = Verifier {
                outer: &mut *consumer,
                requests: &requests[start..end],
                base: start,
                integrity: self.integrity,
                pins: self.pins,
                ended: None,
            };
            self.inner.read_batch(ReadBatch::new(
                &requests[start..end],
                &mut verifier,
                counters,
            ))?;
            if let Some(error) = verifier.ended {
                return Err(error);
            }
            start = end;
        }
        Ok(())
    }
}

/// Checks each read of a window before handing it on.
struct Verifier<'a> {
    outer: &'a mut dyn ReadConsumer,
    requests: &'a [ReadRequest],
    /// Position of the window's first request in the whole batch.
    base: usize,
    integrity: &'a Integrity,
    pins: &'a PinnedPages,
    /// The error with which the outer consumer ended the batch.
    ended: Option<IoError>,
}

impl Verifier<'_> {
    /// Checks `bytes`, the result of request `request` of the window.
    fn check(&self, request: usize, bytes: &[u8]) -> Result<(), IoError> {
        let request = self.requests[request];
        let Some((table, sidecar)) = self.integrity.sidecar(request.file) else {
            return Ok(());
        };
        let mut failure = None;
        let checked = table.verify(request.offset, bytes, |page| {
            match self.pins.page(sidecar, table.sidecar_page(page))? {
                Ok(sidecar_page) => table.expected(page, sidecar_page, false),
                Err(error) => {
                    failure.get_or_insert_with(|| error.clone());
                    None
                }
            }
        });
        match (checked, failure) {
            (Ok(()), _) => Ok(()),
            // The checksum itself could not be read: that read's failure is this one's.
            (Err(_), Some(error)) => Err(IoError::Shared(error)),
            (Err(error), None) => Err(IoError::Corrupt(Box::new(error))),
        }
    }

    /// Hands a failure to the outer consumer; an error it returns ends the batch.
    fn fail(&mut self, request: usize, error: IoError) {
        if self.ended.is_some() {
            return;
        }
        if let Err(error) = self.outer.failed(self.base + request, error) {
            self.ended = Some(error);
        }
    }
}

impl ReadConsumer for Verifier<'_> {
    fn wanted(&mut self, request: usize) -> bool {
        self.ended.is_none() && self.outer.wanted(self.base + request)
    }

    fn complete(&mut self, request: usize, bytes: &[u8]) {
        if self.ended.is_some() {
            return;
        }
        match self.check(request, bytes) {
            Ok(()) => self.outer.complete(self.base + request, bytes),
            // Damaged bytes are never handed on.
            Err(error) => self.fail(request, error),
        }
    }

    fn failed(&mut self, request: usize, error: IoError) -> Result<(), IoError> {
        self.fail(request, error);
        Ok(())
    }
}

// A sidecar page is read as one side page: entries are 4 bytes and never straddle one.
const _: () = assert!(SIDE_PAGE_BYTES == CHECKSUM_PAGE_BYTES);
