//! `INDEX.bitsift-catalog`: what opening an index needs of its header besides the fixed
//! fields, so that an open reads a few kilobytes whatever the number of documents.
//!
//! A COBS header stores every document name inline (10 MB at 661k genomes), and opening the
//! index used to read, check and hash all of them before the first row. The catalog records,
//! once, what an open computed from them (the names' digest, the header's fingerprint and
//! CRC-32C, the placeholders) and where each page of [`NAMES_PER_PAGE`] names lies in the
//! header, with the digest of its bytes. An open then reads the header's fixed fields and its
//! end, not its names; an answer reads the pages of the documents it reports, each checked
//! against its digest, so a file changed since its catalog was written is an error naming it,
//! never a wrong name. The names stay in the COBS header, where COBS reads them: the catalog is
//! a sidecar beside it, like the checksums and summaries, and an index without one (or with one
//! that does not match it) is opened as before.
//!
//! Layout (little-endian), then an xxh64 (seed 0) of every byte before it:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 16 | `bitsift-catalog\n` |
//! | 16 | 4 | version, 1 |
//! | 20 | 4 | names per page |
//! | 24 | 8 | index file size |
//! | 32 | 8 | offset of the first name in the index |
//! | 40 | 8 | offset just past the last name's newline |
//! | 48 | 8 | documents |
//! | 56 | 4 | CRC-32C of the header (`0..data_offset`) |
//! | 60 | 4 | CRC-32C of the header before the names |
//! | 64 | 8 | names digest ([`super::names_digest`]) |
//! | 72 | 8 | header fingerprint ([`super::IndexHeader::fingerprint`]) |
//! | 80 | 8 | runs of placeholders `P` |
//! | 88 | 8 | pages `N` |
//! | 96 | 16·N | per page: offset of its first name, xxh64 of its bytes |
//! | … | 16·P | per run of consecutive placeholders, ascending: its first number, its length |
//!
//! Placeholders come in runs (a merge pads the end of a block), so the 53,513 of the 661k
//! rehearsal take 22 runs, not 428 KB.

use std::path::{Path, PathBuf};

use xxhash_rust::xxh64::xxh64;

use super::FormatError;
use crate::io_at::IoAt;

/// Suffix of the catalog beside an index.
pub(crate) const CATALOG_SUFFIX: &str = ".bitsift-catalog";
/// Names a page holds: ~14 KiB of the 661k rehearsal's names, one read each.
pub(crate) const NAMES_PER_PAGE: u32 = 1024;
const MAGIC: &[u8; 16] = b"bitsift-catalog\n";
const VERSION: u32 = 1;
const FIXED_BYTES: usize = 96;

/// The catalog path of `index`: its file name plus [`CATALOG_SUFFIX`], in the same directory.
pub(crate) fn catalog_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_os_string();
    name.push(CATALOG_SUFFIX);
    PathBuf::from(name)
}

/// A decoded catalog; see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Catalog {
    pub names_per_page: u32,
    pub file_size: u64,
    pub names_offset: u64,
    pub names_end: u64,
    pub document_count: u64,
    pub header_crc32c: u32,
    pub prefix_crc32c: u32,
    pub names_digest: u64,
    pub fingerprint: u64,
    /// Per page: the offset of its first name in the index file.
    pub page_starts: Vec<u64>,
    /// Per page: the xxh64 of its bytes (names and newlines).
    pub page_digests: Vec<u64>,
    pub placeholders: Vec<u64>,
}

/// What the header parser knows of an index that a catalog records.
pub(crate) struct HeaderFacts {
    pub file_size: u64,
    pub names_offset: u64,
    pub names_end: u64,
    pub header_crc32c: u32,
    pub prefix_crc32c: u32,
    pub names_digest: u64,
    pub fingerprint: u64,
    pub placeholders: Vec<u64>,
}

impl Catalog {
    /// The catalog of an index whose header gave `facts` and whose names section is `names`
    /// (the raw bytes from `facts.names_offset` to `facts.names_end`).
    pub(crate) fn of(facts: HeaderFacts, names: &[u8]) -> Catalog {
        assert_eq!(names.len() as u64, facts.names_end - facts.names_offset);
        let (mut page_starts, mut page_digests) = (Vec::new(), Vec::new());
        let (mut start, mut in_page, mut documents) = (0usize, 0u32, 0u64);
        for (at, _) in names.iter().enumerate().filter(|(_, b)| **b == b'\n') {
            in_page += 1;
            documents += 1;
            if in_page == NAMES_PER_PAGE {
                page_starts.push(facts.names_offset + start as u64);
                page_digests.push(xxh64(&names[start..=at], 0));
                (start, in_page) = (at + 1, 0);
            }
        }
        if in_page > 0 {
            page_starts.push(facts.names_offset + start as u64);
            page_digests.push(xxh64(&names[start..], 0));
        }
        Catalog {
            names_per_page: NAMES_PER_PAGE,
            file_size: facts.file_size,
            names_offset: facts.names_offset,
            names_end: facts.names_end,
            document_count: documents,
            header_crc32c: facts.header_crc32c,
            prefix_crc32c: facts.prefix_crc32c,
            names_digest: facts.names_digest,
            fingerprint: facts.fingerprint,
            page_starts,
            page_digests,
            placeholders: facts.placeholders,
        }
    }

    /// The catalog's bytes.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let pages = self.page_starts.len();
        let mut out = Vec::with_capacity(FIXED_BYTES + 16 * pages + 8 * self.placeholders.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.names_per_page.to_le_bytes());
        for value in [
            self.file_size,
            self.names_offset,
            self.names_end,
            self.document_count,
        ] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&self.header_crc32c.to_le_bytes());
        out.extend_from_slice(&self.prefix_crc32c.to_le_bytes());
        let runs = runs_of(&self.placeholders);
        for value in [
            self.names_digest,
            self.fingerprint,
            runs.len() as u64,
            pages as u64,
        ] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for (start, digest) in self.page_starts.iter().zip(&self.page_digests) {
            out.extend_from_slice(&start.to_le_bytes());
            out.extend_from_slice(&digest.to_le_bytes());
        }
        for (first, length) in runs {
            out.extend_from_slice(&first.to_le_bytes());
            out.extend_from_slice(&length.to_le_bytes());
        }
        let digest = xxh64(&out, 0);
        out.extend_from_slice(&digest.to_le_bytes());
        out
    }

    /// Decodes the catalog read from `path`, checking its checksum and that its fields agree
    /// with one another.
    pub(crate) fn decode(path: &Path, bytes: &[u8]) -> Result<Catalog, FormatError> {
        let invalid = |detail: &str| FormatError::Invalid {
            path: path.to_path_buf(),
            detail: format!("not a valid bitsift catalog: {detail}"),
        };
        if bytes.len() < FIXED_BYTES + 8 || &bytes[..16] != MAGIC {
            return Err(invalid("it does not start with the catalog's magic"));
        }
        let (body, trailer) = bytes.split_at(bytes.len() - 8);
        if xxh64(body, 0).to_le_bytes() != trailer {
            return Err(invalid("its checksum does not match (a damaged file)"));
        }
        let u32_at = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes"));
        let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().expect("8 bytes"));
        if u32_at(16) != VERSION {
            return Err(invalid(&format!("version {} is not supported", u32_at(16))));
        }
        let (runs, pages) = (u64_at(80), u64_at(88));
        let expected = pages
            .checked_mul(16)
            .and_then(|n| n.checked_add(FIXED_BYTES as u64))
            .and_then(|n| n.checked_add(runs.checked_mul(16)?));
        if expected != Some(body.len() as u64) {
            return Err(invalid("its length disagrees with its counts"));
        }
        let table = FIXED_BYTES;
        let runs_at = table + 16 * pages as usize;
        let runs: Vec<(u64, u64)> = (0..runs as usize)
            .map(|r| (u64_at(runs_at + 16 * r), u64_at(runs_at + 16 * r + 8)))
            .collect();
        let placeholders = expand_runs(&runs, u64_at(48))
            .ok_or_else(|| invalid("its placeholders are out of order or past the documents"))?;
        let catalog = Catalog {
            names_per_page: u32_at(20),
            file_size: u64_at(24),
            names_offset: u64_at(32),
            names_end: u64_at(40),
            document_count: u64_at(48),
            header_crc32c: u32_at(56),
            prefix_crc32c: u32_at(60),
            names_digest: u64_at(64),
            fingerprint: u64_at(72),
            page_starts: (0..pages as usize)
                .map(|p| u64_at(table + 16 * p))
                .collect(),
            page_digests: (0..pages as usize)
                .map(|p| u64_at(table + 16 * p + 8))
                .collect(),
            placeholders,
        };
        catalog.check().map_err(|detail| invalid(&detail))?;
        Ok(catalog)
    }

    /// The rules a decoded catalog must keep; the text says the first one broken.
    fn check(&self) -> Result<(), String> {
        if self.names_per_page == 0 {
            return Err("0 names per page".into());
        }
        let pages = self.document_count.div_ceil(self.names_per_page as u64);
        if pages != self.page_starts.len() as u64 {
            return Err(format!(
                "{pages} pages expected for {} documents",
                self.document_count
            ));
        }
        if self.names_offset > self.names_end || self.names_end > self.file_size {
            return Err("its names lie outside the index".into());
        }
        let mut bounds = self.page_starts.iter().chain([&self.names_end]);
        let mut previous = self.names_offset;
        if self
            .page_starts
            .first()
            .is_some_and(|&s| s != self.names_offset)
        {
            return Err("its first page does not start at the first name".into());
        }
        if !bounds.all(|&b| std::mem::replace(&mut previous, b) <= b) {
            return Err("its pages are not in order".into());
        }
        let sorted = self.placeholders.windows(2).all(|w| w[0] < w[1]);
        if !sorted
            || self
                .placeholders
                .last()
                .is_some_and(|&p| p >= self.document_count)
        {
            return Err("its placeholders are out of order or past the documents".into());
        }
        Ok(())
    }

    /// Bytes of page `page`'s names in the index.
    pub(crate) fn page_range(&self, page: usize) -> (u64, u64) {
        let end = self
            .page_starts
            .get(page + 1)
            .copied()
            .unwrap_or(self.names_end);
        (self.page_starts[page], end)
    }
}

/// The runs of consecutive numbers in `numbers` (ascending): (first, length) each.
fn runs_of(numbers: &[u64]) -> Vec<(u64, u64)> {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &number in numbers {
        match runs.last_mut() {
            Some((first, length)) if *first + *length == number => *length += 1,
            _ => runs.push((number, 1)),
        }
    }
    runs
}

/// The numbers of `runs`, which must be ascending, apart, not empty and below `limit`
/// (checked before anything is allocated for them); `None` when they are not.
fn expand_runs(runs: &[(u64, u64)], limit: u64) -> Option<Vec<u64>> {
    let mut next = 0u64;
    let mut total = 0u64;
    for &(first, length) in runs {
        let end = first.checked_add(length)?;
        if length == 0 || first < next || end > limit {
            return None;
        }
        (next, total) = (end + 1, total + length);
    }
    let mut numbers = Vec::with_capacity(total as usize);
    for &(first, length) in runs {
        numbers.extend(first..first + length);
    }
    Some(numbers)
}

/// Reads the catalog beside `index`, if there is one: `Ok(None)` when there is none.
pub(crate) fn read_beside(index: &Path) -> Result<Option<Catalog>, FormatError> {
    let path = catalog_path(index);
    match crate::io::source::read_whole(&path) {
        Ok(bytes) => Catalog::decode(&path, &bytes).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(FormatError::Io(IoAt::new(
            path,
            "cannot read the catalog",
            e,
        ))),
    }
}

/// Writes `catalog` beside `index`, atomically (a temporary file, fsync, rename).
pub(crate) fn write_beside(index: &Path, catalog: &Catalog) -> Result<(), FormatError> {
    use std::io::Write;
    let path = catalog_path(index);
    let io = |e| FormatError::Io(IoAt::new(path.clone(), "cannot write the catalog", e));
    let mut file = crate::tempfiles::AtomicFile::create(&path).map_err(io)?;
    file.write_all(&catalog.encode()).map_err(io)?;
    file.commit().map_err(io)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn facts(names: &[u8], offset: u64) -> HeaderFacts {
        HeaderFacts {
            file_size: offset + names.len() as u64 + 100,
            names_offset: offset,
            names_end: offset + names.len() as u64,
            header_crc32c: 7,
            prefix_crc32c: 8,
            names_digest: 9,
            fingerprint: 10,
            placeholders: vec![1, 5, 6, 7],
        }
    }

    pub(crate) fn names_text(count: usize) -> Vec<u8> {
        (0..count)
            .flat_map(|i| format!("genome_{i:06}\n").into_bytes())
            .collect()
    }

    #[test]
    fn a_catalog_round_trips_and_pages_its_names() {
        let names = names_text(2 * NAMES_PER_PAGE as usize + 3);
        let catalog = Catalog::of(facts(&names, 64), &names);
        assert_eq!(catalog.document_count, 2 * NAMES_PER_PAGE as u64 + 3);
        assert_eq!(catalog.page_starts.len(), 3);
        assert_eq!(catalog.page_starts[0], 64);
        assert_eq!(catalog.page_starts[1], 64 + 14 * NAMES_PER_PAGE as u64);
        let bytes = catalog.encode();
        assert_eq!(
            bytes.len(),
            96 + 3 * 16 + 2 * 16 + 8,
            "3 pages, 2 runs of placeholders"
        );
        assert_eq!(Catalog::decode(Path::new("c"), &bytes).unwrap(), catalog);
        assert_eq!(runs_of(&[1, 5, 6, 7]), vec![(1, 1), (5, 3)]);
        assert_eq!(expand_runs(&[(1, 1), (5, 3)], 8), Some(vec![1, 5, 6, 7]));
        assert_eq!(
            expand_runs(&[(1, 1), (5, 3)], 7),
            None,
            "past the documents"
        );
        assert_eq!(expand_runs(&[(5, 3), (1, 1)], 9), None, "out of order");
        assert_eq!(expand_runs(&[(0, u64::MAX)], 9), None, "never allocated");
        for at in [0, 20, 50, 100, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            let error = Catalog::decode(Path::new("c"), &damaged)
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("c: ") && error.contains("not a valid bitsift catalog"),
                "{error}"
            );
        }
        assert!(Catalog::decode(Path::new("c"), &bytes[..50]).is_err());
    }
}
