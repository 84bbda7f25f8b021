//! Document names, stored compactly: one string and the end of each name; the one rule for
//! placeholder documents ([`is_placeholder`]); and the digest of a name list
//! ([`names_digest`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use xxhash_rust::xxh64::{xxh64, Xxh64};

use super::catalog::{catalog_path, Catalog};
use super::FormatError;
use crate::io::source::SourceFile;
use crate::io_at::IoAt;

/// Name of the placeholder documents a merge adds to fill a block: all-zero columns that
/// COBS's fixed stride needs. A `/` cannot come from a file name, and bitsift refuses it as a
/// record name, so no genome is called this.
pub(crate) const PADDING_NAME: &str = "bitsift/padding";

/// Whether a document named `name` is a placeholder. This is the one rule: wherever a file
/// comes from (a merge, a merged file adopted into another collection, a plain file given to
/// a search), its placeholders are never reported, counted or listed.
pub fn is_placeholder(name: &str) -> bool {
    name == PADDING_NAME
}

/// Checks a name for a new document: no control character (a tab would split every TSV
/// output, a line break the COBS header, which has no escaping), and not the placeholders'
/// name. The text says what is wrong.
pub(crate) fn check_document_name(name: &str) -> Result<(), NameError> {
    if let Some(bad) = name.chars().find(|c| c.is_control()) {
        return Err(NameError::Control {
            name: name.to_string(),
            character: bad,
        });
    }
    if is_placeholder(name) {
        return Err(NameError::Reserved {
            name: name.to_string(),
        });
    }
    Ok(())
}

/// Why a name cannot be a new document's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name holds a control character.
    #[error("the document name {name:?} holds {}; names are written into TSV outputs and the index header, which cannot hold control characters", control_name(*character))]
    Control {
        /// The name.
        name: String,
        /// The first control character in it.
        character: char,
    },
    /// The name is the placeholders' ([`PADDING_NAME`]).
    #[error("the document name {name:?} is reserved for the placeholders of merged indexes")]
    Reserved {
        /// The name.
        name: String,
    },
}

/// How a control character is named in an error.
fn control_name(character: char) -> String {
    match character {
        '\t' => "a tab".to_string(),
        '\n' => "a line break".to_string(),
        '\r' => "a carriage return".to_string(),
        other => format!("the control character U+{:04X}", other as u32),
    }
}

/// The digest of a list of document names: xxh64 (seed 0) of the names, each followed by a
/// newline, in order. These are the bytes a COBS header stores the names as, so a collection
/// manifest can tie its list of a sub-index's names to the file at the cost of one hash.
pub fn names_digest<'a>(names: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut hasher = Xxh64::new(0);
    for name in names {
        hasher.update(name.as_bytes());
        hasher.update(b"\n");
    }
    hasher.digest()
}

/// The document names of an index in header order: all of them, parsed from the header, or
/// read a page at a time from the header through the index's catalog
/// ([`super::catalog`]), so that opening an index of 661k genomes does not read its 10 MB of
/// names and an answer reads the pages of the documents it reports. Reading a page can fail
/// (an I/O error, a file changed since its catalog was written), so [`DocumentNames::get`]
/// returns a `Result`; [`DocumentNames::all`] reads every page, for those who need every name.
#[derive(Clone, Debug)]
pub struct DocumentNames {
    store: Store,
    /// Numbers of the placeholder documents ([`is_placeholder`]), in order.
    placeholders: Vec<u64>,
    /// The digest of the names ([`names_digest`]).
    digest: u64,
}

#[derive(Clone, Debug)]
enum Store {
    Loaded(NameList),
    Paged(Arc<PagedNames>),
}

/// Names held in memory: one string and the end of each name. 661k names cost one
/// allocation, not 661k.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameList {
    text: String,
    ends: Vec<u32>,
}

impl NameList {
    /// An empty list with room for `count` names.
    pub(crate) fn with_capacity(count: usize) -> Self {
        NameList {
            text: String::new(),
            ends: Vec::with_capacity(count),
        }
    }

    /// Appends a name. Bytes that are not UTF-8 are replaced (COBS names are file names).
    pub(crate) fn push_bytes(&mut self, name: &[u8]) {
        self.text.push_str(&String::from_utf8_lossy(name));
        self.ends.push(self.text.len() as u32);
    }

    /// Number of names.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Name of document `index`.
    pub fn get(&self, index: usize) -> &str {
        let start = if index == 0 {
            0
        } else {
            self.ends[index - 1] as usize
        };
        &self.text[start..self.ends[index] as usize]
    }

    /// All names in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl DocumentNames {
    /// Names parsed from a header.
    pub(crate) fn loaded(list: NameList) -> Self {
        let placeholders = list
            .iter()
            .enumerate()
            .filter(|(_, name)| is_placeholder(name))
            .map(|(number, _)| number as u64)
            .collect();
        let digest = names_digest(list.iter());
        DocumentNames {
            store: Store::Loaded(list),
            placeholders,
            digest,
        }
    }

    /// Names read by page through a catalog, which recorded their placeholders and digest.
    pub(crate) fn paged(pages: PagedNames, placeholders: Vec<u64>, digest: u64) -> Self {
        DocumentNames {
            store: Store::Paged(Arc::new(pages)),
            placeholders,
            digest,
        }
    }

    /// A list of `names`, as a header would hold them.
    #[cfg(test)]
    pub(crate) fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut list = NameList::default();
        for name in names {
            list.push_bytes(name.as_bytes());
        }
        DocumentNames::loaded(list)
    }

    /// Number of names.
    pub(crate) fn len(&self) -> usize {
        match &self.store {
            Store::Loaded(list) => list.len(),
            Store::Paged(pages) => pages.count,
        }
    }

    /// Whether the names are read by page (through a catalog) rather than held.
    pub(crate) fn is_paged(&self) -> bool {
        matches!(self.store, Store::Paged(_))
    }

    /// The names, when they are held (not read by page).
    pub(crate) fn held(&self) -> Option<&NameList> {
        match &self.store {
            Store::Loaded(list) => Some(list),
            Store::Paged(_) => None,
        }
    }

    /// Name of document `index`: its page is read the first time (one read).
    pub fn get(&self, index: usize) -> Result<&str, FormatError> {
        match &self.store {
            Store::Loaded(list) => Ok(list.get(index)),
            Store::Paged(pages) => pages.get(index),
        }
    }

    /// Reads, in as few reads as their places allow, the pages of `documents` not read yet,
    /// so that the answer that reports them does not read its names one page at a time (one
    /// round trip each, for a remote index).
    pub(crate) fn prefetch(&self, documents: impl Iterator<Item = u64>) -> Result<(), FormatError> {
        match &self.store {
            Store::Loaded(_) => Ok(()),
            Store::Paged(pages) => pages.prefetch(documents),
        }
    }

    /// Every name: read whole the first time (writers, group-by over every genome, listings).
    pub fn all(&self) -> Result<std::borrow::Cow<'_, NameList>, FormatError> {
        match &self.store {
            Store::Loaded(list) => Ok(std::borrow::Cow::Borrowed(list)),
            Store::Paged(pages) => pages.all().map(std::borrow::Cow::Owned),
        }
    }

    /// Numbers of the placeholder documents ([`is_placeholder`]), in order.
    pub fn placeholders(&self) -> &[u64] {
        &self.placeholders
    }

    /// The digest of the names ([`names_digest`]).
    pub(crate) fn digest(&self) -> u64 {
        self.digest
    }

    /// The catalog's record of the header's fingerprint ([`crate::summary`]), for names read by
    /// page (`None`: the names are held, and the fingerprint is computed from them).
    pub(crate) fn recorded_fingerprint(&self) -> Option<u64> {
        match &self.store {
            Store::Loaded(_) => None,
            Store::Paged(pages) => Some(pages.fingerprint),
        }
    }
}

/// Document names read by page from an index's header, as its catalog places them.
pub(crate) struct PagedNames {
    /// The index file.
    path: PathBuf,
    catalog: Catalog,
    pub(crate) count: usize,
    pub(crate) fingerprint: u64,
    /// The file, opened at the first read.
    file: Mutex<Option<SourceFile>>,
    pages: Vec<OnceLock<NameList>>,
}

impl std::fmt::Debug for PagedNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let read = self.pages.iter().filter(|p| p.get().is_some()).count();
        write!(
            f,
            "PagedNames({}: {} names, {read} of {} pages read)",
            self.path.display(),
            self.count,
            self.pages.len()
        )
    }
}

/// Pages read together when their gaps are at most this many pages (one read instead of
/// several, for a few more bytes).
const PAGE_GAP_MAX: usize = 4;

impl PagedNames {
    /// The names of the index at `path`, placed by `catalog`.
    pub(crate) fn new(path: &Path, catalog: Catalog) -> PagedNames {
        let pages = (0..catalog.page_starts.len())
            .map(|_| OnceLock::new())
            .collect();
        PagedNames {
            path: path.to_path_buf(),
            count: catalog.document_count as usize,
            fingerprint: catalog.fingerprint,
            catalog,
            file: Mutex::new(None),
            pages,
        }
    }

    /// Name of document `index`.
    pub(crate) fn get(&self, index: usize) -> Result<&str, FormatError> {
        assert!(index < self.count, "document {index} of {}", self.count);
        let per_page = self.catalog.names_per_page as usize;
        let page = index / per_page;
        if self.pages[page].get().is_none() {
            self.read_pages(page, page)?;
        }
        let names = self.pages[page].get().expect("read above");
        Ok(names.get(index % per_page))
    }

    /// Reads the pages of `documents` not read yet, runs of nearby pages in one read.
    pub(crate) fn prefetch(&self, documents: impl Iterator<Item = u64>) -> Result<(), FormatError> {
        let per_page = self.catalog.names_per_page as u64;
        let mut wanted: Vec<usize> = documents
            .filter(|&d| d < self.count as u64)
            .map(|d| (d / per_page) as usize)
            .filter(|&p| self.pages[p].get().is_none())
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut run: Option<(usize, usize)> = None;
        for page in wanted {
            run = match run {
                Some((first, last)) if page - last <= PAGE_GAP_MAX => Some((first, page)),
                Some((first, last)) => {
                    self.read_pages(first, last)?;
                    Some((page, page))
                }
                None => Some((page, page)),
            };
        }
        match run {
            Some((first, last)) => self.read_pages(first, last),
            None => Ok(()),
        }
    }

    /// Every name, in order.
    pub(crate) fn all(&self) -> Result<NameList, FormatError> {
        if !self.pages.is_empty() {
            self.prefetch(
                (0..self.pages.len() as u64).map(|p| p * self.catalog.names_per_page as u64),
            )?;
        }
        let mut list = NameList::with_capacity(self.count);
        for page in &self.pages {
            for name in page.get().expect("every page read").iter() {
                list.push_bytes(name.as_bytes());
            }
        }
        Ok(list)
    }

    /// Reads pages `first..=last` in one read, checks each against its digest and keeps those
    /// not read meanwhile.
    fn read_pages(&self, first: usize, last: usize) -> Result<(), FormatError> {
        let start = self.catalog.page_range(first).0;
        let end = self.catalog.page_range(last).1;
        let mut bytes = vec![0u8; (end - start) as usize];
        self.read_at(&mut bytes, start)?;
        for page in first..=last {
            let (from, to) = self.catalog.page_range(page);
            let slice = &bytes[(from - start) as usize..(to - start) as usize];
            let names = self.decode_page(page, slice)?;
            let _ = self.pages[page].set(names);
        }
        Ok(())
    }

    /// The names of page `page` from its bytes, which must have the digest the catalog records.
    fn decode_page(&self, page: usize, bytes: &[u8]) -> Result<NameList, FormatError> {
        let per_page = self.catalog.names_per_page as usize;
        let expected = per_page.min(self.count - page * per_page);
        let lines = bytes.split(|&b| b == b'\n');
        let count = bytes.iter().filter(|&&b| b == b'\n').count();
        if xxh64(bytes, 0) != self.catalog.page_digests[page] || count != expected {
            return Err(FormatError::Invalid {
                path: self.path.clone(),
                detail: format!(
                    "its document names are not the ones its catalog {} records (page {page}); the index was changed after the catalog was written: delete the catalog, or write it again with `bitsift checksum`",
                    catalog_path(&self.path).display()
                ),
            });
        }
        let mut names = NameList::with_capacity(expected);
        for name in lines.take(expected) {
            names.push_bytes(name);
        }
        Ok(names)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<(), FormatError> {
        let io = |e| {
            FormatError::Io(IoAt::new(
                self.path.clone(),
                "cannot read document names",
                e,
            ))
        };
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if file.is_none() {
            *file = Some(SourceFile::open(&self.path).map_err(io)?);
        }
        file.as_ref()
            .expect("opened above")
            .read_exact_at(buf, offset)
            .map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::catalog::tests::{facts, names_text};
    use crate::format::catalog::NAMES_PER_PAGE;

    #[test]
    fn names_round_trip() {
        let mut names = NameList::with_capacity(3);
        names.push_bytes(b"a");
        names.push_bytes(b"");
        names.push_bytes(b"gen\xffome");
        assert_eq!(names.len(), 3);
        assert_eq!(names.get(0), "a");
        assert_eq!(names.get(1), "");
        assert_eq!(names.get(2), "gen\u{fffd}ome");
        assert_eq!(names.iter().count(), 3);
    }

    #[test]
    fn placeholders_and_the_digest_of_the_names() {
        let names = DocumentNames::from_names(["a", PADDING_NAME, "b", PADDING_NAME]);
        assert_eq!(names.placeholders(), &[1, 3]);
        assert_eq!(names.get(2).unwrap(), "b");
        assert!(!is_placeholder("bitsift_padding"));
        assert_eq!(
            names.digest(),
            xxhash_rust::xxh64::xxh64(b"a\nbitsift/padding\nb\nbitsift/padding\n", 0),
            "the digest is of the names as a header stores them"
        );
        assert_ne!(names_digest(["ab", "c"]), names_digest(["a", "bc"]));
    }

    #[test]
    fn new_names_hold_no_control_character_and_are_not_placeholders() {
        check_document_name("SAMD0001.contigs é").unwrap();
        let error = check_document_name("a\tb").unwrap_err().to_string();
        assert!(error.contains("\"a\\tb\" holds a tab"), "{error}");
        assert!(check_document_name("a\nb")
            .unwrap_err()
            .to_string()
            .contains("a line break"));
        assert!(check_document_name("a\u{7f}")
            .unwrap_err()
            .to_string()
            .contains("U+007F"));
        assert!(check_document_name(PADDING_NAME)
            .unwrap_err()
            .to_string()
            .contains("reserved"));
    }

    #[test]
    fn names_read_by_page_are_checked_against_their_digest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.cobs_compact");
        let names = names_text(NAMES_PER_PAGE as usize + 10);
        let mut file = vec![b'h'; 64];
        file.extend_from_slice(&names);
        file.extend_from_slice(&[0u8; 100]);
        std::fs::write(&path, &file).unwrap();
        let paged = PagedNames::new(&path, Catalog::of(facts(&names, 64), &names));
        assert_eq!(
            paged.get(NAMES_PER_PAGE as usize + 9).unwrap(),
            "genome_001033"
        );
        assert_eq!(paged.get(3).unwrap(), "genome_000003");
        let all = paged.all().unwrap();
        assert_eq!(all.len(), NAMES_PER_PAGE as usize + 10);
        assert_eq!(all.get(1000), "genome_001000");

        // The same file with one name changed: the page's digest no longer matches.
        file[64 + 14 * 2] = b'G';
        std::fs::write(&path, &file).unwrap();
        let paged = PagedNames::new(&path, Catalog::of(facts(&names, 64), &names));
        assert_eq!(paged.get(NAMES_PER_PAGE as usize).unwrap(), "genome_001024");
        let error = paged.get(2).unwrap_err().to_string();
        assert!(error.contains("not the ones its catalog"), "{error}");
        paged.prefetch([0u64, 5].into_iter()).unwrap_err();
    }
}
