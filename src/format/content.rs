//! Sampled data pages: a check, cheap enough for every open, that a side file (checksums,
//! block summaries) describes the bytes of this very build of its index, not of another
//! build with the same header.
//!
//! Two builds with the same document names and sizes have the same header, so only their
//! data tells them apart. Reading the whole data section at open is out of the question for a
//! large index; instead a few pages spread evenly over it ([`sampled_pages`]: the first data
//! page, the last, and evenly between, all of them when there are few) are read and compared:
//! with the sidecar's checksums of those pages, or, for block summaries, with the
//! [`content_digest`] the writer recorded. Different genomes change nearly every page of an
//! index, so a side file of another build is caught; a rebuild that changes only pages that
//! were not sampled is not (the checksums still catch it when those pages are read).

use std::io;

use xxhash_rust::xxh64::Xxh64;

use super::CHECKSUM_PAGE_BYTES;
use crate::io::SourceFile;

/// Pages sampled at most.
pub(crate) const SAMPLED_PAGES: u64 = 8;

/// The absolute page numbers (of [`CHECKSUM_PAGE_BYTES`]) sampled in an index of
/// `file_size` bytes whose data start at `data_offset`: the page holding the first data
/// byte, the last page, and evenly between; every data page when there are at most
/// [`SAMPLED_PAGES`]. Empty when the index has no data.
pub fn sampled_pages(file_size: u64, data_offset: u64) -> Vec<u64> {
    if data_offset >= file_size {
        return Vec::new();
    }
    let first = data_offset / CHECKSUM_PAGE_BYTES;
    let last = (file_size - 1) / CHECKSUM_PAGE_BYTES;
    let count = last - first + 1;
    if count <= SAMPLED_PAGES {
        return (first..=last).collect();
    }
    (0..SAMPLED_PAGES)
        .map(|i| first + (i as u128 * (count - 1) as u128 / (SAMPLED_PAGES - 1) as u128) as u64)
        .collect()
}

/// The CRC-32C of each of the [`sampled_pages`] of `file` (`file_size` bytes, data from
/// `data_offset`; the last page may be shorter), with its page number: the pages read one
/// after the other into one buffer.
pub(crate) fn sampled_crcs(
    file: &SourceFile,
    file_size: u64,
    data_offset: u64,
) -> io::Result<Vec<(u64, u32)>> {
    let mut buffer = vec![0u8; CHECKSUM_PAGE_BYTES as usize];
    sampled_pages(file_size, data_offset)
        .into_iter()
        .map(|page| {
            let start = page * CHECKSUM_PAGE_BYTES;
            let len = (file_size - start).min(CHECKSUM_PAGE_BYTES) as usize;
            file.read_exact_at(&mut buffer[..len], start)?;
            Ok((page, crc32c::crc32c(&buffer[..len])))
        })
        .collect()
}

/// The digest of an index's content that block summaries record: xxh64 (seed 0) over the
/// file size, the data offset, then each sampled page's number and CRC-32C. Reads
/// [`SAMPLED_PAGES`] pages at most.
pub(crate) fn content_digest(
    file: &SourceFile,
    file_size: u64,
    data_offset: u64,
) -> io::Result<u64> {
    let mut hasher = Xxh64::new(0);
    hasher.update(&file_size.to_le_bytes());
    hasher.update(&data_offset.to_le_bytes());
    for (page, crc) in sampled_crcs(file, file_size, data_offset)? {
        hasher.update(&page.to_le_bytes());
        hasher.update(&crc.to_le_bytes());
    }
    Ok(hasher.digest())
}

/// [`content_digest`] of the index file at `path` (a local file or a URL).
pub(crate) fn content_digest_of(path: &std::path::Path, data_offset: u64) -> io::Result<u64> {
    let file = SourceFile::open(path)?;
    let size = file.len()?;
    content_digest(&file, size, data_offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_cover_the_data_evenly_and_all_of_a_small_one() {
        assert!(sampled_pages(100, 100).is_empty());
        assert_eq!(sampled_pages(5000, 100), vec![0, 1]);
        assert_eq!(sampled_pages(3 * 4096, 4096), vec![1, 2]);
        let many = sampled_pages(1 << 40, 8192);
        assert_eq!(many.len() as u64, SAMPLED_PAGES);
        assert_eq!(many[0], 2);
        assert_eq!(*many.last().unwrap(), (1u64 << 40) / 4096 - 1);
        assert!(many.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn the_digest_follows_the_data() {
        let mut bytes = vec![7u8; 40_000];
        let (_dir, path) = crate::testing::file_with("x", &bytes);
        let before = content_digest_of(&path, 100).unwrap();
        assert_eq!(before, content_digest_of(&path, 100).unwrap());
        bytes[39_999] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_ne!(before, content_digest_of(&path, 100).unwrap());
    }
}
