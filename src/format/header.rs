//! Parsing and validating COBS index headers.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::io::{is_remote, NotRegularFile, SourceFile};

use super::catalog::{self, Catalog, HeaderFacts};
use super::names::{NameList, PagedNames};
use super::rows::{RowLayout, LAYOUT_MINIMIZER};
use super::{
    Block, DocumentNames, FormatError, CLASSIC_MAGIC, COMPACT_MAGIC, HASHES_MAX, K_MAX,
    MAGIC_PREFIX, PAGE_SIZE_MAX, VERSION, VERSION_RANGES,
};
use crate::IoAt;

/// The two COBS index layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexKind {
    /// One matrix, rows of `ceil(D/8)` bytes, no alignment.
    Classic,
    /// Blocks of `8P` documents, rows of `P` bytes, data section aligned to `P`.
    Compact,
}

impl IndexKind {
    /// Lowercase name as in file extensions.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexKind::Classic => "classic",
            IndexKind::Compact => "compact",
        }
    }
}

/// A parsed, validated index header: everything needed to find the row of any hash.
#[derive(Clone, Debug)]
pub struct IndexHeader {
    /// The file it was read from.
    pub path: PathBuf,
    /// Classic or compact.
    pub kind: IndexKind,
    /// Term size.
    pub k: u32,
    /// Whether terms are canonical DNA k-mers (otherwise raw bytes are hashed).
    pub canonical: bool,
    /// Hash functions per term (equal in every block).
    pub num_hashes: u32,
    /// Compact: bytes per row in every block (`P`). Classic: bytes per row, `ceil(D/8)`.
    pub page_size: u64,
    /// Where a k-mer's rows lie: COBS's layout (version 1), or bitsift's minimizer ranges
    /// (version 2 of the compact header).
    pub rows: RowLayout,
    /// The bit matrices, in file order.
    pub blocks: Vec<Block>,
    /// Document names in header order; document `d` is bit `d - first_document` of its block.
    pub names: DocumentNames,
    /// Offset of the first row.
    pub data_offset: u64,
    /// Size of the file (checked to equal what the header implies).
    pub file_size: u64,
    /// CRC-32C of the header's bytes (`0..data_offset`), computed while parsing them, so the
    /// checksum layer checks the header without reading megabytes of names a second time
    /// (a second download, for a remote index).
    pub header_crc32c: u32,
    /// Where the names lie in the file: from the first name to just past the last newline.
    pub(crate) names_span: (u64, u64),
    /// CRC-32C of the header's bytes before the names (what a catalog checks the file by).
    pub(crate) prefix_crc32c: u32,
}

impl IndexHeader {
    /// Opens `path`, parses its header and checks that the file has exactly the size the
    /// header implies.
    pub fn open(path: &Path) -> Result<IndexHeader, FormatError> {
        IndexHeader::open_with(path, &HeaderOptions::default())
    }

    /// As [`IndexHeader::open`], with the parameters a pre-2019 header lacks.
    ///
    /// Before COBS commit `fb48698` (2019-03-29) headers had no term size and canonical flag
    /// but the same version number. When a file fails to parse as a current header but parses
    /// exactly (to the byte) as such a legacy header, it is opened with `options.legacy_k` and
    /// `options.legacy_canonical`, or, without them, refused with [`FormatError::Legacy`]
    /// saying what to pass.
    ///
    /// With a catalog beside the file ([`super::catalog`]) that matches it, the names are not
    /// read: they are read by page when asked for ([`DocumentNames::get`]). A catalog that
    /// cannot be read or does not match the file is passed over with a warning, and the header
    /// read whole.
    pub fn open_with(path: &Path, options: &HeaderOptions) -> Result<IndexHeader, FormatError> {
        if let Some(header) = open_catalogued(path) {
            return Ok(header);
        }
        IndexHeader::open_whole(path, options)
    }

    /// As [`IndexHeader::open_with`], reading every name from the header, never through a
    /// catalog: what checking a file (`verify`, `checksum`) wants, the file as it is.
    pub fn open_whole(path: &Path, options: &HeaderOptions) -> Result<IndexHeader, FormatError> {
        parse_current_or_legacy(path, options, |legacy| Parser::open(path)?.parse(legacy))
    }

    /// The fingerprint of the header that block summaries record: xxh64 over k, the
    /// canonical flag, the hash count, the page size, every block's document and row counts,
    /// and every document name in order (for names read by page, as the catalog recorded it
    /// from them).
    pub(crate) fn fingerprint(&self) -> u64 {
        if let Some(recorded) = self.names.recorded_fingerprint() {
            return recorded;
        }
        let names = self.names.held().expect("names not read by page are held");
        fingerprint(
            self.k,
            self.canonical,
            self.num_hashes,
            self.page_size,
            self.blocks.iter().map(|b| (b.document_count, b.row_count)),
            names.iter(),
        )
    }

    /// Writes the catalog of the index at `path` beside it ([`super::catalog`]), from its
    /// header read whole: what lets later opens skip its names.
    pub fn write_catalog(path: &Path, options: &HeaderOptions) -> Result<(), FormatError> {
        let header = IndexHeader::open_whole(path, options)?;
        let (start, end) = header.names_span;
        let mut names = vec![0u8; (end - start) as usize];
        SourceFile::open(path)
            .and_then(|file| file.read_exact_at(&mut names, start))
            .map_err(|e| {
                FormatError::Io(IoAt::new(
                    path.to_path_buf(),
                    "cannot read document names",
                    e,
                ))
            })?;
        let facts = HeaderFacts {
            file_size: header.file_size,
            names_offset: start,
            names_end: end,
            header_crc32c: header.header_crc32c,
            prefix_crc32c: header.prefix_crc32c,
            names_digest: header.names.digest(),
            fingerprint: header.fingerprint(),
            placeholders: header.names.placeholders().to_vec(),
        };
        catalog::write_beside(path, &Catalog::of(facts, &names))
    }

    /// Parses a whole index file already in memory (`bytes` is the file; its length is the
    /// file size), with the same checks as [`IndexHeader::open_with`]; `path` names it in
    /// errors.
    pub fn from_bytes(
        path: &Path,
        bytes: &[u8],
        options: &HeaderOptions,
    ) -> Result<IndexHeader, FormatError> {
        parse_current_or_legacy(path, options, |legacy| {
            Parser {
                reader: Crc32cReader::new(bytes),
                path,
                position: 0,
                file_size: bytes.len() as u64,
                catalog: None,
                names_span: (0, 0),
                prefix_crc32c: 0,
                names_paged: false,
            }
            .parse(legacy)
        })
    }

    /// The format version the header records: 1 (COBS's), or 2 for bitsift's minimizer layout.
    pub(crate) fn version(&self) -> u32 {
        match self.rows {
            RowLayout::Cobs => VERSION,
            RowLayout::Minimizer { .. } => VERSION_RANGES,
        }
    }

    /// Number of documents.
    pub fn document_count(&self) -> u64 {
        self.names.len() as u64
    }

    /// Whether every row starts on a 4 KiB boundary (one row = one aligned page read).
    pub(crate) fn rows_page_aligned(&self) -> bool {
        self.data_offset % 4096 == 0 && self.page_size % 4096 == 0
    }

    /// Bytes of all matrices.
    pub fn data_bytes(&self) -> u64 {
        self.blocks.iter().map(Block::data_bytes).sum()
    }
}

/// Names sections up to this size are read whole even through a catalog: they come with the
/// first read of the file (a remote file's first request fetches 256 KiB), and a page read
/// later would cost another request.
const NAMES_READ_WHOLE_MAX: u64 = 192 << 10;

/// Fingerprint of an index header: xxh64 over k, the canonical flag, the hash count, the page
/// size, every block's document and row counts, and every document name in order. Block
/// summaries whose fingerprint differs were built for another index (or another document
/// order).
pub(crate) fn fingerprint<'a>(
    k: u32,
    canonical: bool,
    num_hashes: u32,
    page_size: u64,
    blocks: impl Iterator<Item = (u64, u64)>,
    names: impl Iterator<Item = &'a str>,
) -> u64 {
    let mut hasher = xxhash_rust::xxh64::Xxh64::new(0);
    hasher.update(&k.to_le_bytes());
    hasher.update(&[canonical as u8]);
    hasher.update(&num_hashes.to_le_bytes());
    hasher.update(&page_size.to_le_bytes());
    for (documents, rows) in blocks {
        hasher.update(&documents.to_le_bytes());
        hasher.update(&rows.to_le_bytes());
    }
    for name in names {
        hasher.update(name.as_bytes());
        hasher.update(b"\n");
    }
    hasher.digest()
}

/// The header of `path` opened through its catalog, or `None` when it has none or one that
/// does not match the file (said in a warning: the header is then read whole, as before).
fn open_catalogued(path: &Path) -> Option<IndexHeader> {
    let opened = catalog::read_beside(path).and_then(|catalog| match catalog {
        None => Ok(None),
        Some(catalog) => {
            let mut parser = Parser::open(path)?;
            if parser.file_size != catalog.file_size {
                return Err(FormatError::Invalid {
                    path: catalog::catalog_path(path),
                    detail: format!(
                        "written for an index of {} bytes, but the index has {}",
                        catalog.file_size, parser.file_size
                    ),
                });
            }
            parser.catalog = Some(catalog);
            parser.parse(None).map(Some)
        }
    });
    match opened {
        Ok(header) => header,
        Err(error) => {
            tracing::warn!("{error}; reading the document names from the header instead");
            None
        }
    }
}

/// Parses with `parse(None)` as a current header; when that fails with a format error, tries
/// `parse(Some((k, canonical)))` as a pre-2019 header, which lacks those two fields.
fn parse_current_or_legacy(
    path: &Path,
    options: &HeaderOptions,
    mut parse: impl FnMut(Option<(u32, bool)>) -> Result<IndexHeader, FormatError>,
) -> Result<IndexHeader, FormatError> {
    let error = match parse(None) {
        Ok(header) => return Ok(header),
        Err(
            error @ (FormatError::Invalid { .. }
            | FormatError::SizeMismatch { .. }
            | FormatError::Truncated { .. }),
        ) => error,
        Err(other) => return Err(other),
    };
    let legacy_k = options.legacy_k.unwrap_or(31);
    let legacy_canonical = options.legacy_canonical.unwrap_or(false);
    match parse(Some((legacy_k, legacy_canonical))) {
        Ok(header) => match (options.legacy_k, options.legacy_canonical) {
            (Some(_), Some(_)) => Ok(header),
            _ => Err(FormatError::Legacy {
                path: path.to_path_buf(),
                kind: header.kind.as_str(),
            }),
        },
        Err(_) => Err(error),
    }
}

/// Opens `path` for reading if it is a regular file ([`crate::io::open_regular`]): a named
/// pipe, a device or a directory is refused before it is opened for reading (opening a FIFO
/// waits for a writer forever).
pub(crate) fn open_regular(path: &Path) -> Result<File, FormatError> {
    crate::io::open_regular(path).map_err(|source| {
        match source
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<NotRegularFile>())
        {
            Some(not_regular) => FormatError::NotAFile {
                path: path.to_path_buf(),
                kind: not_regular.kind,
            },
            None => FormatError::Io(IoAt::new(path.to_path_buf(), "cannot open index", source)),
        }
    })
}

/// Parameters for headers that do not record them (pre-2019 COBS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeaderOptions {
    /// Term size of a legacy index.
    pub legacy_k: Option<u32>,
    /// Canonical flag of a legacy index.
    pub legacy_canonical: Option<bool>,
}

/// Names read before the rest of the names' length is estimated from them.
const NAMES_SAMPLED: u32 = 1024;

/// Bytes read from the header at a time: headers of large collections hold megabytes of
/// names, but reading much past the header's end costs a cold query for nothing.
const HEADER_READ_BYTES: usize = 64 << 10;

/// A `BufRead` that keeps the CRC-32C of every byte consumed through it (by `read`, or by
/// `consume` after `fill_buf`, as `read_until` does).
struct Crc32cReader<R> {
    inner: R,
    crc: u32,
    consumed: u64,
}

impl<R: BufRead> Crc32cReader<R> {
    fn new(inner: R) -> Self {
        Crc32cReader {
            inner,
            crc: 0,
            consumed: 0,
        }
    }
}

impl<R: BufRead> Read for Crc32cReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let available = self.inner.fill_buf()?;
        let count = available.len().min(buf.len());
        buf[..count].copy_from_slice(&available[..count]);
        self.consume(count);
        Ok(count)
    }
}

impl<R: BufRead> BufRead for Crc32cReader<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if amount > 0 {
            // `amount` bytes were just returned by `fill_buf`, so they are buffered: this
            // `fill_buf` reads nothing and cannot fail.
            match self.inner.fill_buf() {
                Ok(buffered) if buffered.len() >= amount => {
                    self.crc = crc32c::crc32c_append(self.crc, &buffered[..amount]);
                }
                _ => unreachable!("consume of bytes fill_buf did not return"),
            }
        }
        self.inner.consume(amount);
        self.consumed += amount as u64;
    }
}

/// Readers that can be told how many bytes will be read next: a remote file then fetches
/// them in one round trip (see [`SourceFile::will_read`]); memory and local files ignore it.
trait ReadAhead {
    fn will_read(&mut self, _bytes: u64) {}

    /// Moves `bytes` forward without reading them (the names a catalog places).
    fn jump(&mut self, bytes: u64) -> std::io::Result<()>;
}

impl ReadAhead for &[u8] {
    fn jump(&mut self, bytes: u64) -> std::io::Result<()> {
        let bytes = (bytes as usize).min(self.len());
        *self = &self[bytes..];
        Ok(())
    }
}

impl ReadAhead for BufReader<SourceFile> {
    fn will_read(&mut self, bytes: u64) {
        // What the buffer already holds is not asked for again.
        let buffered = self.buffer().len() as u64;
        self.get_mut().will_read(bytes.saturating_sub(buffered));
    }

    fn jump(&mut self, bytes: u64) -> std::io::Result<()> {
        let bytes = i64::try_from(bytes).map_err(std::io::Error::other)?;
        self.seek_relative(bytes)
    }
}

impl<R: ReadAhead> ReadAhead for Crc32cReader<R> {
    fn will_read(&mut self, bytes: u64) {
        self.inner.will_read(bytes);
    }

    /// The CRC then no longer covers what was consumed: a header opened through a catalog
    /// takes its CRC from the catalog.
    fn jump(&mut self, bytes: u64) -> std::io::Result<()> {
        self.inner.jump(bytes)?;
        self.consumed += bytes;
        Ok(())
    }
}

struct Parser<'a, R: BufRead> {
    reader: Crc32cReader<R>,
    path: &'a Path,
    position: u64,
    file_size: u64,
    /// The catalog that places the names, which are then not read.
    catalog: Option<Catalog>,
    /// Where the names lie and the CRC of what precedes them, once parsed.
    names_span: (u64, u64),
    prefix_crc32c: u32,
    /// Whether the names were jumped over (placed by the catalog) rather than read.
    names_paged: bool,
}

impl<'a> Parser<'a, BufReader<SourceFile>> {
    fn open(path: &'a Path) -> Result<Self, FormatError> {
        if is_remote(path) {
            let file = SourceFile::open(path).map_err(|source| {
                FormatError::Io(IoAt::new(path.to_path_buf(), "cannot open index", source))
            })?;
            let file_size = file.len().map_err(|source| {
                FormatError::Io(IoAt::new(path.to_path_buf(), "cannot stat index", source))
            })?;
            return Ok(Parser {
                reader: Crc32cReader::new(BufReader::with_capacity(HEADER_READ_BYTES, file)),
                path,
                position: 0,
                file_size,
                catalog: None,
                names_span: (0, 0),
                prefix_crc32c: 0,
                names_paged: false,
            });
        }
        let file = open_regular(path)?;
        let file_size = file
            .metadata()
            .map_err(|source| {
                FormatError::Io(IoAt::new(path.to_path_buf(), "cannot stat index", source))
            })?
            .len();
        // No kernel read-ahead: it would pull megabytes of the data section into the page
        // cache behind a small header, costing a cold query that I/O and misleading the
        // engine choice, which looks at what the page cache holds.
        // SAFETY: plain syscall on a valid descriptor; advice failures are harmless.
        unsafe {
            libc::posix_fadvise(
                std::os::unix::io::AsRawFd::as_raw_fd(&file),
                0,
                0,
                libc::POSIX_FADV_RANDOM,
            );
        }
        Ok(Parser {
            reader: Crc32cReader::new(BufReader::with_capacity(
                HEADER_READ_BYTES,
                SourceFile::Local(file),
            )),
            path,
            position: 0,
            file_size,
            catalog: None,
            names_span: (0, 0),
            prefix_crc32c: 0,
            names_paged: false,
        })
    }
}

impl<R: BufRead + ReadAhead> Parser<'_, R> {
    /// The CRC-32C of everything parsed, which is the header: `data_offset` bytes.
    fn header_crc32c(&self, data_offset: u64) -> u32 {
        assert_eq!(self.position, data_offset, "the parser stops at the data");
        if let (true, Some(catalog)) = (self.names_paged, &self.catalog) {
            // The names were jumped over, not hashed: the catalog hashed them when written.
            return catalog.header_crc32c;
        }
        assert_eq!(
            self.reader.consumed, data_offset,
            "every header byte hashed"
        );
        self.reader.crc
    }

    fn invalid(&self, detail: String) -> FormatError {
        FormatError::Invalid {
            path: self.path.to_path_buf(),
            detail,
        }
    }

    fn truncated(&self, what: &'static str, expected: u64) -> FormatError {
        FormatError::Truncated {
            path: self.path.to_path_buf(),
            what,
            expected,
            found: self.file_size,
        }
    }

    fn read_bytes<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], FormatError> {
        let mut buf = [0u8; N];
        if self.position + N as u64 > self.file_size {
            return Err(self.truncated(what, self.position + N as u64));
        }
        self.reader
            .read_exact(&mut buf)
            .map_err(|e| self.unreadable(e))?;
        self.position += N as u64;
        Ok(buf)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, FormatError> {
        Ok(self.read_bytes::<1>(what)?[0])
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.read_bytes(what)?))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(self.read_bytes(what)?))
    }

    fn skip(&mut self, count: u64, what: &'static str) -> Result<(), FormatError> {
        if self.position + count > self.file_size {
            return Err(self.truncated(what, self.position + count));
        }
        let copied = std::io::copy(&mut (&mut self.reader).take(count), &mut std::io::sink())
            .map_err(|e| self.unreadable(e))?;
        debug_assert_eq!(copied, count);
        self.position += count;
        Ok(())
    }

    /// The names: placed by the catalog (and jumped over), or read.
    fn names(&mut self, count: u32) -> Result<DocumentNames, FormatError> {
        let start = self.position;
        self.prefix_crc32c = self.reader.crc;
        let names = match self.catalog.take() {
            // Names that fit the first read of a file are in hand (or one request away, for a
            // remote file): reading them costs less than a page read later.
            Some(catalog) if catalog.names_end - catalog.names_offset > NAMES_READ_WHOLE_MAX => {
                let names = self.paged_names(count, &catalog)?;
                self.catalog = Some(catalog);
                names
            }
            catalog => {
                self.catalog = catalog;
                DocumentNames::loaded(self.read_names(count)?)
            }
        };
        self.names_span = (start, self.position);
        Ok(names)
    }

    /// Checks that `catalog` places this header's names and jumps over them.
    fn paged_names(&mut self, count: u32, catalog: &Catalog) -> Result<DocumentNames, FormatError> {
        let agrees = catalog.document_count == count as u64
            && catalog.names_offset == self.position
            && catalog.prefix_crc32c == self.prefix_crc32c;
        if !agrees {
            return Err(FormatError::Invalid {
                path: catalog::catalog_path(self.path),
                detail: "it does not describe this index's header (written for another file)"
                    .into(),
            });
        }
        let bytes = catalog.names_end - catalog.names_offset;
        if catalog.names_end > self.file_size {
            return Err(self.truncated("the document names", catalog.names_end));
        }
        self.jump_over(bytes)?;
        self.names_paged = true;
        let paged = PagedNames::new(self.path, catalog.clone());
        Ok(DocumentNames::paged(
            paged,
            catalog.placeholders.clone(),
            catalog.names_digest,
        ))
    }

    fn read_names(&mut self, count: u32) -> Result<NameList, FormatError> {
        // A name longer than this means the names section is not what the header says.
        const NAME_BYTES_MAX: usize = 1 << 16;
        // Capacity grows with the names actually read, not with a count that may be damaged.
        let mut names = NameList::with_capacity(count.min(1 << 20) as usize);
        let mut line = Vec::with_capacity(256);
        let start = self.position;
        for index in 0..count {
            if index == NAMES_SAMPLED && count > 2 * NAMES_SAMPLED {
                // The names read so far say how long the rest are: ask for them all at once
                // (a quarter more, for names that grow longer, and the padding and end magic).
                let rest =
                    (self.position - start) / NAMES_SAMPLED as u64 * (count - NAMES_SAMPLED) as u64;
                self.reader.will_read(rest + rest / 4 + (64 << 10));
            }
            line.clear();
            let read = (&mut self.reader)
                .take(NAME_BYTES_MAX as u64 + 1)
                .read_until(b'\n', &mut line)
                .map_err(|source| {
                    FormatError::Io(IoAt::new(
                        self.path.to_path_buf(),
                        "cannot read document names",
                        source,
                    ))
                })?;
            self.position += read as u64;
            if line.last() != Some(&b'\n') {
                if read > NAME_BYTES_MAX {
                    return Err(self.invalid(format!(
                        "document name {index} of {count} is longer than {NAME_BYTES_MAX} bytes; the header's document count is wrong or the file is damaged"
                    )));
                }
                return Err(self.truncated("the document names", self.position + 1));
            }
            names.push_bytes(&line[..line.len() - 1]);
        }
        Ok(names)
    }

    /// Parses a current header, or with `legacy = Some((k, canonical))` a pre-2019 one, which
    /// lacks those two fields.
    fn parse(&mut self, legacy: Option<(u32, bool)>) -> Result<IndexHeader, FormatError> {
        let prefix = if self.file_size < 5 {
            None
        } else {
            Some(self.read_bytes::<5>("the magic")?)
        };
        if prefix.as_ref() != Some(MAGIC_PREFIX) {
            return Err(FormatError::NotCobs {
                path: self.path.to_path_buf(),
            });
        }
        let kind = self.kind()?;
        let version = self.u32("the version")?;
        let ranged = kind == IndexKind::Compact && version == VERSION_RANGES && legacy.is_none();
        if version != VERSION && !ranged {
            return Err(FormatError::UnsupportedVersion {
                path: self.path.to_path_buf(),
                version,
            });
        }
        let (k, canonical) = match legacy {
            Some((k, canonical)) => (k, canonical as u8),
            None => (self.u32("the term size")?, self.u8("the canonical flag")?),
        };
        if k == 0 || k > K_MAX {
            return Err(self.invalid(format!(
                "term size k = {k} (expected 1..={K_MAX}); the file may be damaged or from a pre-2019 COBS without a term size field"
            )));
        }
        if canonical > 1 {
            return Err(self.invalid(format!("canonical flag = {canonical} (expected 0 or 1)")));
        }
        match kind {
            IndexKind::Compact => self.compact(k, canonical == 1, ranged),
            IndexKind::Classic => self.classic(k, canonical == 1),
        }
    }

    /// The row layout fields of a version-2 compact header: layout number, rows per range,
    /// minimizer length and a reserved zero.
    fn row_layout(&mut self, k: u32) -> Result<RowLayout, FormatError> {
        let layout = self.u32("the row layout")?;
        let range_rows = self.u32("the rows per range")?;
        let minimizer = self.u32("the minimizer length")?;
        let reserved = self.u32("a reserved field")?;
        if layout != LAYOUT_MINIMIZER {
            return Err(self.invalid(format!(
                "row layout {layout} is unknown (this version reads layout {LAYOUT_MINIMIZER}, minimizer ranges); the file may be from a newer bitsift or damaged"
            )));
        }
        RowLayout::check_range_rows(range_rows as u64)
            .map_err(|detail| self.invalid(detail.to_string()))?;
        if minimizer == 0 || minimizer > k.min(crate::kmer::M_MAX) {
            return Err(self.invalid(format!(
                "minimizer length {minimizer} (expected 1..={})",
                k.min(crate::kmer::M_MAX)
            )));
        }
        if reserved != 0 {
            return Err(self.invalid(format!("reserved field = {reserved} (expected 0)")));
        }
        Ok(RowLayout::Minimizer {
            range_rows,
            minimizer,
        })
    }

    fn kind(&mut self) -> Result<IndexKind, FormatError> {
        let mut word = Vec::with_capacity(13);
        for _ in 0..13 {
            if self.position >= self.file_size {
                break;
            }
            word.push(self.u8("the type word")?);
            if word.as_slice() == b"DOCUMENT" {
                break;
            }
        }
        if word.as_slice() == COMPACT_MAGIC {
            Ok(IndexKind::Compact)
        } else if word.as_slice() == CLASSIC_MAGIC {
            Ok(IndexKind::Classic)
        } else {
            let printable: String = word
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .map(|&b| b as char)
                .collect();
            Err(FormatError::NotAnIndex {
                path: self.path.to_path_buf(),
                kind: printable,
            })
        }
    }

    /// The padding after the names and the end magic: read and checked, or, when a catalog
    /// placed the names, jumped over (a remote open would pay a round trip for them). The
    /// catalog binds the file already: its size (so the data offset, which the size and the
    /// row counts fix), the header before the names (its CRC) and each names page (its
    /// digest, checked when read); these bytes carry nothing an answer reads.
    fn padding_and_end(&mut self, padding: u64, magic: &[u8; 13]) -> Result<(), FormatError> {
        if !self.names_paged {
            self.skip(padding, "the header padding")?;
            return self.end_magic(magic);
        }
        let end = self.position + padding + magic.len() as u64;
        if end > self.file_size {
            return Err(self.truncated("the end of the header", end));
        }
        self.jump_over(padding + magic.len() as u64)
    }

    /// Moves `bytes` forward without reading them.
    fn jump_over(&mut self, bytes: u64) -> Result<(), FormatError> {
        self.reader.jump(bytes).map_err(|e| self.unreadable(e))?;
        self.position += bytes;
        Ok(())
    }

    fn unreadable(&self, source: std::io::Error) -> FormatError {
        FormatError::Io(IoAt::new(
            self.path.to_path_buf(),
            "cannot read header",
            source,
        ))
    }

    fn end_magic(&mut self, magic: &[u8; 13]) -> Result<(), FormatError> {
        let found = self.read_bytes::<13>("the end of the header")?;
        if &found != magic {
            return Err(self.invalid(format!(
                "the header does not end with {:?} at offset {}; the document count or names are wrong, or the file is damaged",
                String::from_utf8_lossy(magic),
                self.position - 13
            )));
        }
        Ok(())
    }

    fn check_size(&self, data_offset: u64, data_bytes: Option<u64>) -> Result<(), FormatError> {
        let expected = data_bytes
            .and_then(|d| d.checked_add(data_offset))
            .ok_or_else(|| self.invalid("the matrix size overflows 64 bits".to_string()))?;
        if self.file_size < expected {
            return Err(self.truncated("the bit matrix", expected));
        }
        if self.file_size > expected {
            return Err(FormatError::SizeMismatch {
                path: self.path.to_path_buf(),
                expected,
                found: self.file_size,
            });
        }
        Ok(())
    }

    fn check_hashes(&self, num_hashes: u64) -> Result<u32, FormatError> {
        if num_hashes == 0 || num_hashes > HASHES_MAX {
            return Err(self.invalid(format!(
                "number of hash functions = {num_hashes} (expected 1..={HASHES_MAX})"
            )));
        }
        Ok(num_hashes as u32)
    }

    fn compact(
        &mut self,
        k: u32,
        canonical: bool,
        ranged: bool,
    ) -> Result<IndexHeader, FormatError> {
        let block_count = self.u32("the block count")?;
        let document_count = self.u32("the document count")?;
        let page_size = self.u64("the page size")?;
        if page_size == 0 || page_size > PAGE_SIZE_MAX {
            return Err(self.invalid(format!(
                "page size = {page_size} bytes per row (expected 1..={PAGE_SIZE_MAX})"
            )));
        }
        let layout_rows = match ranged {
            true => self.row_layout(k)?,
            false => RowLayout::Cobs,
        };
        if document_count == 0 {
            return Err(self.invalid("the index has no documents".to_string()));
        }
        let docs_per_block = 8 * page_size;
        let blocks_needed = (document_count as u64).div_ceil(docs_per_block);
        if block_count as u64 != blocks_needed {
            return Err(self.invalid(format!(
                "{document_count} documents need {blocks_needed} blocks of {docs_per_block} but the header lists {block_count}"
            )));
        }
        // Refuse counts the file cannot hold before allocating for them: each block has
        // 16 bytes of parameters and at least one row, each document a name of at least one
        // byte (its newline), and the header ends with the 13-byte magic. No overflow:
        // 2^32 blocks of 2^20 + 16 bytes and 2^32 names stay far below 2^64.
        let least = self.position
            + block_count as u64 * (16 + page_size)
            + document_count as u64
            + COMPACT_MAGIC.len() as u64;
        if least > self.file_size {
            return Err(self.truncated("the blocks and documents the header announces", least));
        }
        let mut params = Vec::with_capacity(block_count as usize);
        for _ in 0..block_count {
            let rows = self.u64("a block's signature size")?;
            let hashes = self.u64("a block's hash count")?;
            params.push((rows, hashes));
        }
        let num_hashes = match params.first() {
            Some(&(_, h)) => self.check_hashes(h)?,
            None => 1,
        };
        for (b, &(rows, hashes)) in params.iter().enumerate() {
            if hashes != num_hashes as u64 {
                return Err(self.invalid(format!(
                    "block {b} has {hashes} hash functions but block 0 has {num_hashes}; all blocks must agree"
                )));
            }
            if rows == 0 {
                return Err(self.invalid(format!("block {b} has 0 rows")));
            }
            if rows % layout_rows.range_rows() != 0 {
                return Err(self.invalid(format!(
                    "block {b} has {rows} rows, not a whole number of ranges of {}",
                    layout_rows.range_rows()
                )));
            }
        }
        let names = self.names(document_count)?;
        let padding = (page_size - ((self.position + 13) % page_size)) % page_size;
        self.padding_and_end(padding, COMPACT_MAGIC)?;
        let data_offset = self.position;
        let mut blocks = Vec::with_capacity(params.len());
        let mut offset = Some(data_offset);
        for (b, &(rows, _)) in params.iter().enumerate() {
            let first = b as u64 * docs_per_block;
            let start = offset.ok_or_else(|| self.invalid("block offsets overflow".into()))?;
            blocks.push(Block {
                first_document: first,
                document_count: docs_per_block.min(document_count as u64 - first),
                row_count: rows,
                row_bytes: page_size,
                data_offset: start,
            });
            offset = rows
                .checked_mul(page_size)
                .and_then(|bytes| start.checked_add(bytes));
        }
        let data_bytes = offset.map(|end| end - data_offset);
        self.check_size(data_offset, data_bytes)?;
        Ok(IndexHeader {
            path: self.path.to_path_buf(),
            kind: IndexKind::Compact,
            k,
            canonical,
            num_hashes,
            page_size,
            rows: layout_rows,
            blocks,
            names,
            data_offset,
            file_size: self.file_size,
            header_crc32c: self.header_crc32c(data_offset),
            names_span: self.names_span,
            prefix_crc32c: self.prefix_crc32c,
        })
    }

    fn classic(&mut self, k: u32, canonical: bool) -> Result<IndexHeader, FormatError> {
        let document_count = self.u32("the document count")?;
        let rows = self.u64("the signature size")?;
        let num_hashes = self.u64("the hash count")?;
        let num_hashes = self.check_hashes(num_hashes)?;
        if rows == 0 {
            return Err(self.invalid("signature size = 0 rows".to_string()));
        }
        if document_count == 0 {
            return Err(self.invalid("the index has no documents".to_string()));
        }
        // Each name takes at least its newline; refuse a count the file cannot hold before
        // allocating for it.
        let least = self.position + document_count as u64 + CLASSIC_MAGIC.len() as u64;
        if least > self.file_size {
            return Err(self.truncated("the document names", least));
        }
        let names = self.names(document_count)?;
        self.end_magic(CLASSIC_MAGIC)?;
        let data_offset = self.position;
        let row_bytes = (document_count as u64).div_ceil(8);
        self.check_size(data_offset, rows.checked_mul(row_bytes))?;
        Ok(IndexHeader {
            path: self.path.to_path_buf(),
            kind: IndexKind::Classic,
            k,
            canonical,
            num_hashes,
            page_size: row_bytes,
            rows: RowLayout::Cobs,
            blocks: vec![Block {
                first_document: 0,
                document_count: document_count as u64,
                row_count: rows,
                row_bytes,
                data_offset,
            }],
            names,
            data_offset,
            file_size: self.file_size,
            header_crc32c: self.header_crc32c(data_offset),
            names_span: self.names_span,
            prefix_crc32c: self.prefix_crc32c,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{write_compact_header, CompactLayout};

    /// A valid compact index of `documents` documents: header and zeroed rows.
    fn compact_index(documents: usize, page_size: u64, rows: u64) -> Vec<u8> {
        let names: Vec<String> = (0..documents).map(|d| format!("doc{d}")).collect();
        let blocks = (documents as u64).div_ceil(8 * page_size) as usize;
        let layout = CompactLayout::cobs31(page_size, vec![rows; blocks]);
        let mut file = write_compact_header(&layout, names.iter().map(String::as_str)).unwrap();
        file.resize(file.len() + (layout.data_bytes()) as usize, 0);
        file
    }

    fn parse(bytes: &[u8]) -> Result<IndexHeader, FormatError> {
        IndexHeader::from_bytes(
            Path::new("x.cobs_compact"),
            bytes,
            &HeaderOptions::default(),
        )
    }

    fn invalid_detail(bytes: &[u8]) -> String {
        match parse(bytes) {
            Err(FormatError::Invalid { detail, .. }) => detail,
            other => panic!("expected an invalid header, got {other:?}"),
        }
    }

    #[test]
    fn the_header_crc_is_that_of_the_header_bytes_from_memory_and_from_a_file() {
        // Names long enough to span several fills of the file reader's buffer.
        let names: Vec<String> = (0..20_000).map(|d| format!("genome_{d:06}_x")).collect();
        let layout = CompactLayout::cobs31(4096, vec![3; 1]);
        let mut file = write_compact_header(&layout, names.iter().map(String::as_str)).unwrap();
        let header_bytes = file.len();
        file.resize(header_bytes + layout.data_bytes() as usize, 7);
        let want = crc32c::crc32c(&file[..header_bytes]);
        let from_memory = parse(&file).unwrap();
        assert_eq!(from_memory.data_offset, header_bytes as u64);
        assert_eq!(from_memory.header_crc32c, want);
        let (_dir, path) = crate::testing::file_with("x.cobs_compact", &file);
        assert_eq!(IndexHeader::open(&path).unwrap().header_crc32c, want);
        // Any header byte changed (here a name's letter) changes it.
        let name = file
            .windows(13)
            .position(|w| w == b"genome_012345")
            .unwrap();
        file[name + 7] = b'9';
        std::fs::write(&path, &file).unwrap();
        let damaged = IndexHeader::open(&path).unwrap();
        assert_ne!(damaged.header_crc32c, want);
        assert_eq!(damaged.header_crc32c, crc32c::crc32c(&file[..header_bytes]));
    }

    #[test]
    fn an_index_opened_through_its_catalog_is_the_index_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.cobs_compact");
        // 2,100 names of 112 bytes: more than is read whole with the header.
        let names: Vec<String> = (0..2100)
            .map(|i| match i {
                7 | 8 => crate::format::PADDING_NAME.to_string(),
                _ => format!("genome_{i:04}_{}", "x".repeat(100)),
            })
            .collect();
        let layout = CompactLayout::cobs31(512, vec![64]);
        let mut file = write_compact_header(&layout, names.iter().map(String::as_str)).unwrap();
        file.resize(file.len() + 64 * 512, 0);
        std::fs::write(&path, &file).unwrap();
        IndexHeader::write_catalog(&path, &HeaderOptions::default()).unwrap();
        let paged = IndexHeader::open(&path).unwrap();
        let whole = IndexHeader::open_whole(&path, &HeaderOptions::default()).unwrap();
        assert!(paged.names.is_paged() && !whole.names.is_paged());
        assert_eq!(paged.fingerprint(), whole.fingerprint());
        assert_eq!(paged.header_crc32c, whole.header_crc32c);
        assert_eq!(paged.names.digest(), whole.names.digest());
        assert_eq!(paged.names.placeholders(), &[7, 8]);
        assert_eq!(paged.names.placeholders(), whole.names.placeholders());
        assert_eq!(
            (paged.data_offset, paged.file_size),
            (whole.data_offset, whole.file_size)
        );
        assert_eq!(paged.names.get(2099).unwrap(), names[2099]);
        assert_eq!(*paged.names.all().unwrap(), *whole.names.all().unwrap());
    }

    #[test]
    fn a_valid_index_parses_from_bytes() {
        let file = compact_index(100, 16, 50);
        let header = parse(&file).unwrap();
        assert_eq!((header.k, header.num_hashes, header.page_size), (31, 1, 16));
        assert_eq!(header.document_count(), 100);
        assert_eq!(header.file_size, file.len() as u64);
    }

    #[test]
    fn geometry_that_cannot_be_right_is_refused() {
        let file = compact_index(10, 8, 40);
        let mut k = file.clone();
        k[22..26].copy_from_slice(&65u32.to_le_bytes());
        assert!(invalid_detail(&k).starts_with("term size k = 65 (expected 1..=64)"));
        let mut hashes = file.clone();
        hashes[51..59].copy_from_slice(&33u64.to_le_bytes());
        assert_eq!(
            invalid_detail(&hashes),
            "number of hash functions = 33 (expected 1..=32)"
        );
        let mut page = file.clone();
        page[35..43].copy_from_slice(&(1u64 << 30).to_le_bytes());
        assert_eq!(
            invalid_detail(&page),
            "page size = 1073741824 bytes per row (expected 1..=1048576)"
        );
    }

    #[test]
    fn counts_the_file_cannot_hold_are_refused_before_allocating() {
        // 2^32 - 1 documents in blocks of 8 · 2^20: 512 blocks announced in a tiny file.
        let mut file = compact_index(10, 8, 40);
        file[27..31].copy_from_slice(&512u32.to_le_bytes());
        file[31..35].copy_from_slice(&u32::MAX.to_le_bytes());
        file[35..43].copy_from_slice(&(1u64 << 20).to_le_bytes());
        match parse(&file) {
            Err(FormatError::Truncated { what, expected, .. }) => {
                assert_eq!(what, "the blocks and documents the header announces");
                assert!(expected > 1 << 32, "{expected}");
            }
            other => panic!("expected truncation, got {other:?}"),
        }
    }

    #[test]
    fn named_pipes_and_directories_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.cobs_compact");
        crate::testing::make_fifo(&fifo);
        let error = IndexHeader::open(&fifo).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("{}: a named pipe (FIFO), not a regular file; an index must be a regular file (bitsift reads it at any offset)", fifo.display())
        );
        let error = IndexHeader::open(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains(": a directory, not a regular file"),
            "{error}"
        );
    }
}
