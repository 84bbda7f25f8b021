//! The checksum sidecar: bitsift's own small file beside an index, so that a changed byte is
//! an error and never a different answer.
//!
//! The COBS format has no room for checksums, so they live in `INDEX.bitsift-checksums`
//! ([`sidecar_path`]): the file name plus a suffix, so `cp INDEX* elsewhere/` keeps the pair,
//! and nothing in it depends on where the file is or when it was written. It records the
//! index's size, a CRC-32C of its header and one CRC-32C per 4 KiB page of the whole file,
//! counted from offset 0 (page `i` is bytes `[4096·i, 4096·i + 4096)`, the last one partial),
//! and a CRC-32C of itself. The byte layout is in `docs/formats.md`.
//!
//! - [`Checksums::load`] reads the sidecar when an index is opened and checks it against the
//!   header and the file size; [`Checksums::verify`] checks every read of whole pages.
//! - [`Checksums::compute`] and [`Checksums::write`] make a sidecar for an existing index;
//!   the builder computes one while it writes (`ChecksumBuilder`).
//! - [`Checksums::check_file`] reads a whole index and lists what is damaged.

use std::fs::File;

use crate::io::SourceFile;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{FormatError, IndexHeader};
use crate::tempfiles;
use crate::IoAt;

/// Appended to an index's file name to name its sidecar.
pub(crate) const SIDECAR_SUFFIX: &str = ".bitsift-checksums";
/// Bytes covered by one page checksum.
pub const CHECKSUM_PAGE_BYTES: u64 = 4096;

const PAGE: usize = CHECKSUM_PAGE_BYTES as usize;
/// Starts every sidecar. The high first byte and the CR LF / SUB LF tail reveal a file mangled
/// by a text-mode transfer (the trick of the PNG signature).
pub(super) const MAGIC: &[u8; 16] = b"\x89bitsift-crc\r\n\x1a\n";
pub(super) const SIDECAR_VERSION: u32 = 1;
/// CRC-32C (Castagnoli), as computed by SSE 4.2 and ARMv8 instructions.
const ALGORITHM_CRC32C: u32 = 1;
/// Magic, version, algorithm, page size, sizes and the header checksum.
pub(super) const PREAMBLE_BYTES: usize = 64;
/// The sidecar's own checksum.
pub(super) const TRAILER_BYTES: usize = 4;
/// Bytes read at a time when checking or checksumming a whole file.
pub(super) const STREAM_BYTES: usize = 4 << 20;

/// The sidecar path of `index`: its file name plus [`SIDECAR_SUFFIX`], in the same directory.
pub fn sidecar_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_os_string();
    name.push(SIDECAR_SUFFIX);
    PathBuf::from(name)
}

/// The digest of an index's data that block summaries record: the CRC-32C that ends the
/// index's checksum sidecar (it covers every page checksum, so every byte of the index), plus
/// 2^32 so that 0 means "none". `Ok(None)` when the index has no sidecar. Reads the sidecar's
/// last 4 bytes (one request, for a remote index).
pub(crate) fn sidecar_digest(index: &Path) -> std::io::Result<Option<u64>> {
    let file = match SourceFile::open(&sidecar_path(index)) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let len = file.len()?;
    if len < (PREAMBLE_BYTES + TRAILER_BYTES) as u64 {
        // Damaged: its own checks say so when the index is opened; no digest matches it.
        return Ok(Some(0));
    }
    let mut trailer = [0u8; TRAILER_BYTES];
    file.read_exact_at(&mut trailer, len - TRAILER_BYTES as u64)?;
    Ok(Some(digest_value(u32::from_le_bytes(trailer))))
}

/// The last bytes of a checksum sidecar that [`sidecar_digest`] reads.
pub(crate) const SIDECAR_DIGEST_BYTES: u64 = TRAILER_BYTES as u64;

/// The value [`sidecar_digest`] gives for a sidecar ending in the CRC-32C `own`.
fn digest_value(own: u32) -> u64 {
    (1u64 << 32) | u64::from(own)
}

/// Why a read or a whole-file check failed.
#[derive(Debug, thiserror::Error)]
pub enum ChecksumError {
    /// Bytes read do not match the checksum recorded when the index was written.
    #[error("{path}: checksum mismatch in {location}, page at offset {offset}: the index is damaged or was changed after its checksums were made; restore it from a good copy (`bitsift verify` lists every damaged page)", path = path.display())]
    Mismatch {
        /// The index file.
        path: PathBuf,
        /// Offset of the first byte of the page.
        offset: u64,
        /// What the page holds: "the header", "block 3", "blocks 3-4".
        location: String,
    },
    /// The checksum sidecar fails its own checksum: what it says of the index's pages cannot
    /// be trusted (found when a page did not match it).
    #[error("{path}: damaged checksum file: {detail}; if the index itself is intact (`bitsift verify` cannot tell without checksums), recreate them with `bitsift checksum`", path = path.display())]
    SidecarDamaged {
        /// The sidecar file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// A checked read must cover whole pages (a caller's mistake, reported rather than
    /// trusted).
    #[error("{path}: cannot check {len} bytes at offset {offset}: a checked read must start on a 4096-byte boundary and cover whole pages (or end at the end of the file)", path = path.display())]
    Unaligned {
        /// The index file.
        path: PathBuf,
        /// Offset of the read.
        offset: u64,
        /// Length of the read.
        len: u64,
    },
    /// A read beyond the end of the file the checksums describe.
    #[error("{path}: cannot check {len} bytes at offset {offset}: the index has {file_size} bytes", path = path.display())]
    OutOfRange {
        /// The index file.
        path: PathBuf,
        /// Offset of the read.
        offset: u64,
        /// Length of the read.
        len: u64,
        /// Size recorded in the sidecar.
        file_size: u64,
    },
    /// The operating system refused an operation on a file.
    #[error(transparent)]
    Io(#[from] IoAt),
    /// The file changed size while it was being read.
    #[error("{path}: the file changed while it was being read ({expected} bytes expected, {found} read); try again when nothing is writing it", path = path.display())]
    Changed {
        /// The index file.
        path: PathBuf,
        /// Size at the start.
        expected: u64,
        /// Bytes read.
        found: u64,
    },
}

/// What a whole-file check found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Damage {
    /// The file does not have the size recorded in the sidecar (pages were not compared).
    Size {
        /// Size recorded.
        expected: u64,
        /// Size found.
        found: u64,
    },
    /// The header bytes differ from the ones recorded.
    Header,
    /// A page differs.
    Page {
        /// Offset of the page's first byte.
        offset: u64,
        /// What the page holds ("block 3"), when the header could be trusted.
        location: String,
    },
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::Size { expected, found } => write!(
                f,
                "size is {found} bytes but was {expected} when the checksums were made"
            ),
            Damage::Header => write!(f, "the header differs from the one checksummed"),
            Damage::Page { offset, location } => {
                write!(f, "damaged page at offset {offset} ({location})")
            }
        }
    }
}

/// The checksums of one index file: held in memory (4 bytes per 4 KiB, 0.1 % of the index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checksums {
    index_path: PathBuf,
    file_size: u64,
    header_bytes: u64,
    header_checksum: u32,
    pages: Vec<u32>,
    /// `[start, end)` file offsets of each block's matrix, to name the block of a bad page.
    blocks: Vec<(u64, u64)>,
}

impl Checksums {
    /// Reads the sidecar of `index_path` and checks it against `header` (the index as just
    /// opened): the file size, the header length and the header bytes must be the ones
    /// checksummed. `Ok(None)` when the index has no sidecar.
    pub fn load(index_path: &Path, header: &IndexHeader) -> Result<Option<Checksums>, FormatError> {
        let Some(mut checksums) = Checksums::read(index_path)? else {
            return Ok(None);
        };
        check_recorded(
            index_path,
            header,
            checksums.file_size,
            checksums.header_bytes,
            checksums.header_checksum,
        )?;
        checksums.blocks = block_spans(header);
        Ok(Some(checksums))
    }

    /// Reads and decodes the sidecar of `index_path`, without looking at the index.
    /// `Ok(None)` when there is no sidecar.
    pub fn read(index_path: &Path) -> Result<Option<Checksums>, FormatError> {
        let sidecar = sidecar_path(index_path);
        let bytes = match crate::io::source::read_whole(&sidecar) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(FormatError::Io(IoAt::new(
                    sidecar,
                    "cannot read checksums",
                    source,
                )))
            }
        };
        Checksums::decode(index_path, &bytes).map(Some)
    }

    /// Decodes sidecar bytes describing `index_path`. Every field is checked, and the
    /// sidecar's own checksum, so a damaged sidecar is an error, never wrong checksums.
    pub fn decode(index_path: &Path, bytes: &[u8]) -> Result<Checksums, FormatError> {
        let damaged = |detail: String| FormatError::SidecarDamaged {
            path: sidecar_path(index_path),
            detail,
        };
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(damaged("not a bitsift checksum file (wrong magic)".into()));
        }
        if bytes.len() < PREAMBLE_BYTES + TRAILER_BYTES {
            return Err(damaged(format!(
                "{} bytes, shorter than the smallest checksum file ({})",
                bytes.len(),
                PREAMBLE_BYTES + TRAILER_BYTES
            )));
        }
        let version = le_u32(bytes, 16);
        if version != SIDECAR_VERSION {
            return Err(damaged(format!(
                "format version {version} is not supported (this bitsift reads version {SIDECAR_VERSION}; a newer bitsift wrote it, or the file is damaged)"
            )));
        }
        let body = bytes.len() - TRAILER_BYTES;
        if crc32c::crc32c(&bytes[..body]) != le_u32(bytes, body) {
            return Err(damaged(
                "its own checksum does not match its contents".into(),
            ));
        }
        let fields = Preamble::decode(bytes).map_err(|e| damaged(e.to_string()))?;
        let page_count = fields.file_size.div_ceil(CHECKSUM_PAGE_BYTES);
        if fields.page_count != page_count {
            return Err(damaged(format!(
                "{} page checksums recorded for a {}-byte index, which has {page_count} pages",
                fields.page_count, fields.file_size
            )));
        }
        let expected_len = (PREAMBLE_BYTES + TRAILER_BYTES) as u64 + 4 * page_count;
        if bytes.len() as u64 != expected_len {
            return Err(damaged(format!(
                "{} bytes, but {page_count} page checksums need {expected_len}",
                bytes.len()
            )));
        }
        let pages = bytes[PREAMBLE_BYTES..body]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Checksums {
            index_path: index_path.to_path_buf(),
            file_size: fields.file_size,
            header_bytes: fields.header_bytes,
            header_checksum: fields.header_checksum,
            pages,
            blocks: Vec::new(),
        })
    }

    /// The sidecar's bytes (layout in `docs/formats.md`).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PREAMBLE_BYTES + 4 * self.pages.len() + TRAILER_BYTES);
        out.extend_from_slice(&self.preamble());
        for page in &self.pages {
            out.extend_from_slice(&page.to_le_bytes());
        }
        let own = crc32c::crc32c(&out);
        out.extend_from_slice(&own.to_le_bytes());
        out
    }

    /// The sidecar's first [`PREAMBLE_BYTES`].
    fn preamble(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(PREAMBLE_BYTES);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&SIDECAR_VERSION.to_le_bytes());
        out.extend_from_slice(&ALGORITHM_CRC32C.to_le_bytes());
        out.extend_from_slice(&(PAGE as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&self.file_size.to_le_bytes());
        out.extend_from_slice(&self.header_bytes.to_le_bytes());
        out.extend_from_slice(&self.header_checksum.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(self.pages.len() as u64).to_le_bytes());
        debug_assert_eq!(out.len(), PREAMBLE_BYTES);
        out
    }

    /// The digest block summaries record of this sidecar ([`sidecar_digest`]): the CRC-32C
    /// its encoding ends with, computed without encoding it (a sidecar is 0.1 % of its index).
    pub(crate) fn digest(&self) -> u64 {
        let mut own = crc32c::crc32c(&self.preamble());
        let mut chunk = Vec::with_capacity(4 * 1024);
        for pages in self.pages.chunks(1024) {
            chunk.clear();
            pages
                .iter()
                .for_each(|page| chunk.extend_from_slice(&page.to_le_bytes()));
            own = crc32c::crc32c_append(own, &chunk);
        }
        digest_value(own)
    }

    /// Reads the whole index of `header` and computes its checksums (sequential reads of
    /// 4 MiB; memory: the checksums and one buffer). The header must have parsed: a damaged
    /// file must not get checksums that bless it.
    pub fn compute(header: &IndexHeader) -> Result<Checksums, ChecksumError> {
        Checksums::compute_seeing(header, |_| {})
    }

    /// [`Checksums::compute`], handing every byte read to `see` too, in order.
    pub(crate) fn compute_seeing(
        header: &IndexHeader,
        mut see: impl FnMut(&[u8]),
    ) -> Result<Checksums, ChecksumError> {
        let path = &header.path;
        let mut builder = ChecksumBuilder::new(header.data_offset);
        let read = stream_file(path, |bytes| {
            builder.update(bytes);
            see(bytes);
        })?;
        if read != header.file_size {
            return Err(ChecksumError::Changed {
                path: path.clone(),
                expected: header.file_size,
                found: read,
            });
        }
        let mut checksums = builder.finish(path);
        checksums.blocks = block_spans(header);
        Ok(checksums)
    }

    /// Writes the sidecar atomically (temporary file, fsync, rename, fsync of the directory).
    pub fn write(&self) -> Result<(), ChecksumError> {
        let destination = sidecar_path(&self.index_path);
        tempfiles::write_atomically(&destination, &self.encode()).map_err(|source| {
            ChecksumError::Io(IoAt::new(destination, "cannot write checksums", source))
        })
    }

    /// Checks `bytes`, read at `file_offset`, against the page checksums. The read must start
    /// on a 4096-byte boundary and cover whole pages, or end at the end of the file.
    pub fn verify(&self, file_offset: u64, bytes: &[u8]) -> Result<(), ChecksumError> {
        let len = bytes.len() as u64;
        let end = file_offset.checked_add(len);
        if end.is_none_or(|end| end > self.file_size) {
            return Err(ChecksumError::OutOfRange {
                path: self.index_path.clone(),
                offset: file_offset,
                len,
                file_size: self.file_size,
            });
        }
        let whole = len % CHECKSUM_PAGE_BYTES == 0 || end == Some(self.file_size);
        if file_offset % CHECKSUM_PAGE_BYTES != 0 || !whole {
            return Err(ChecksumError::Unaligned {
                path: self.index_path.clone(),
                offset: file_offset,
                len,
            });
        }
        let first = (file_offset / CHECKSUM_PAGE_BYTES) as usize;
        let expected = &self.pages[first..first + bytes.len().div_ceil(PAGE)];
        for (number, (page, &want)) in bytes.chunks(PAGE).zip(expected).enumerate() {
            if crc32c::crc32c(page) != want {
                return Err(self.mismatch((first + number) as u64));
            }
        }
        Ok(())
    }

    /// Checks one page, `bytes` being page `page` (bytes `[4096·page, 4096·page + 4096)`,
    /// shorter only for the last page): for callers that hold the index in memory.
    #[cfg(test)]
    pub(crate) fn verify_page(&self, page: u64, bytes: &[u8]) -> Result<(), ChecksumError> {
        let offset = page.saturating_mul(CHECKSUM_PAGE_BYTES);
        if bytes.len() > PAGE {
            return Err(ChecksumError::Unaligned {
                path: self.index_path.clone(),
                offset,
                len: bytes.len() as u64,
            });
        }
        self.verify(offset, bytes)
    }

    /// Reads the whole index and lists what differs from the checksums: its size, its header,
    /// every damaged page. `header`, when given and intact, names the block of each page.
    pub fn check_file(&self, header: Option<&IndexHeader>) -> Result<Vec<Damage>, ChecksumError> {
        let path = &self.index_path;
        let found = SourceFile::open(path)
            .and_then(|file| file.len())
            .map_err(|source| {
                ChecksumError::Io(IoAt::new(path.clone(), "cannot stat index", source))
            })?;
        if found != self.file_size {
            return Ok(vec![Damage::Size {
                expected: self.file_size,
                found,
            }]);
        }
        let mut builder = ChecksumBuilder::new(self.header_bytes);
        let read = stream_file(path, |bytes| builder.update(bytes))?;
        if read != self.file_size {
            return Err(ChecksumError::Changed {
                path: path.clone(),
                expected: self.file_size,
                found: read,
            });
        }
        let actual = builder.finish(path);
        let mut damage = Vec::new();
        let header_intact = actual.header_checksum == self.header_checksum;
        if !header_intact {
            damage.push(Damage::Header);
        }
        let mut named = self.clone();
        named.blocks = match header {
            Some(header) if header_intact => block_spans(header),
            _ => Vec::new(),
        };
        for (page, (a, b)) in actual.pages.iter().zip(&self.pages).enumerate() {
            if a != b {
                damage.push(Damage::Page {
                    offset: page as u64 * CHECKSUM_PAGE_BYTES,
                    location: named.location(page as u64),
                });
            }
        }
        Ok(damage)
    }

    /// Whether two sets of checksums describe the same bytes.
    pub fn same_contents(&self, other: &Checksums) -> bool {
        self.file_size == other.file_size
            && self.header_bytes == other.header_bytes
            && self.header_checksum == other.header_checksum
            && self.pages == other.pages
    }

    /// Size of the index.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// Number of 4 KiB pages (the last one may be partial).
    pub fn page_count(&self) -> u64 {
        self.pages.len() as u64
    }

    fn mismatch(&self, page: u64) -> ChecksumError {
        ChecksumError::Mismatch {
            path: self.index_path.clone(),
            offset: page * CHECKSUM_PAGE_BYTES,
            location: self.location(page),
        }
    }

    /// What page `page` holds, in words.
    fn location(&self, page: u64) -> String {
        page_location(&self.blocks, self.header_bytes, self.file_size, page)
    }
}

/// Checks what a sidecar recorded (the index's size, header length and header checksum)
/// against the index `header` as opened at `index_path`.
pub(super) fn check_recorded(
    index_path: &Path,
    header: &IndexHeader,
    file_size: u64,
    header_bytes: u64,
    recorded_checksum: u32,
) -> Result<(), FormatError> {
    let mismatch = |what: String| FormatError::ChecksumMismatch {
        path: index_path.to_path_buf(),
        what,
    };
    if file_size != header.file_size {
        return Err(mismatch(format!(
            "the index has {} bytes but had {file_size} when its checksums were made",
            header.file_size
        )));
    }
    if header_bytes != header.data_offset {
        return Err(mismatch(format!(
            "its header is {} bytes long but was {header_bytes} when its checksums were made",
            header.data_offset
        )));
    }
    // The header as parsed is the header checksummed: its CRC was taken while parsing.
    if header.header_crc32c != recorded_checksum {
        return Err(mismatch(
            "its header bytes differ from the ones checksummed".into(),
        ));
    }
    Ok(())
}

/// What page `page` of an index holds, in words ("the header", "block 3", "blocks 3-4"), from
/// the spans of its blocks.
pub(super) fn page_location(
    blocks: &[(u64, u64)],
    header_bytes: u64,
    file_size: u64,
    page: u64,
) -> String {
    let start = page * CHECKSUM_PAGE_BYTES;
    let end = (start + CHECKSUM_PAGE_BYTES).min(file_size);
    let header = start < header_bytes;
    let numbers: Vec<usize> = blocks
        .iter()
        .enumerate()
        .filter(|(_, &(b_start, b_end))| b_start < end && start < b_end)
        .map(|(number, _)| number)
        .collect();
    let named = match (numbers.first(), numbers.last()) {
        (Some(first), Some(last)) if first == last => format!("block {first}"),
        (Some(first), Some(last)) => format!("blocks {first}-{last}"),
        _ if blocks.is_empty() && !header => "the data section".to_string(),
        _ => String::new(),
    };
    match (header, named.is_empty()) {
        (true, true) => "the header".into(),
        (true, false) => format!("the header and {named}"),
        (false, _) => named,
    }
}

/// The fixed fields at the start of a sidecar.
pub(super) struct Preamble {
    pub(super) file_size: u64,
    pub(super) header_bytes: u64,
    pub(super) header_checksum: u32,
    pub(super) page_count: u64,
}

impl Preamble {
    /// Decodes and checks the fields after the version (the caller checked magic, version
    /// and length).
    pub(super) fn decode(bytes: &[u8]) -> Result<Preamble, PreambleError> {
        let algorithm = le_u32(bytes, 20);
        if algorithm != ALGORITHM_CRC32C {
            return Err(PreambleError::Algorithm(algorithm));
        }
        let page_bytes = le_u32(bytes, 24);
        if page_bytes as usize != PAGE {
            return Err(PreambleError::PageSize(page_bytes));
        }
        if le_u32(bytes, 28) != 0 || le_u32(bytes, 52) != 0 {
            return Err(PreambleError::Reserved);
        }
        let fields = Preamble {
            file_size: le_u64(bytes, 32),
            header_bytes: le_u64(bytes, 40),
            header_checksum: le_u32(bytes, 48),
            page_count: le_u64(bytes, 56),
        };
        if fields.header_bytes > fields.file_size {
            return Err(PreambleError::Header {
                header_bytes: fields.header_bytes,
                file_size: fields.file_size,
            });
        }
        Ok(fields)
    }
}

/// What is wrong with a sidecar's preamble (said after "damaged checksums").
#[derive(Debug, thiserror::Error)]
pub(super) enum PreambleError {
    /// Not CRC-32C.
    #[error("checksum algorithm {0} is unknown (1 is CRC-32C)")]
    Algorithm(u32),
    /// Pages of another size.
    #[error("page size {0} (expected {PAGE})")]
    PageSize(u32),
    /// Reserved fields that are not zero.
    #[error("reserved fields are not zero")]
    Reserved,
    /// A header larger than the file.
    #[error("a {header_bytes}-byte header recorded for a {file_size}-byte index")]
    Header {
        /// Header bytes recorded.
        header_bytes: u64,
        /// File size recorded.
        file_size: u64,
    },
}

/// Computes checksums of bytes as they stream past (the builder's output), with no second
/// pass over the file.
pub(crate) struct ChecksumBuilder {
    header_bytes: u64,
    header_checksum: u32,
    page_checksum: u32,
    position: u64,
    pages: Vec<u32>,
}

impl ChecksumBuilder {
    /// Checksums of a file whose header (the part checksummed on its own) is `header_bytes`
    /// long.
    pub(crate) fn new(header_bytes: u64) -> ChecksumBuilder {
        ChecksumBuilder {
            header_bytes,
            header_checksum: 0,
            page_checksum: 0,
            position: 0,
            pages: Vec::new(),
        }
    }

    /// Adds the next bytes of the file.
    pub(crate) fn update(&mut self, mut bytes: &[u8]) {
        if self.position < self.header_bytes {
            let take = (self.header_bytes - self.position).min(bytes.len() as u64) as usize;
            self.header_checksum = crc32c::crc32c_append(self.header_checksum, &bytes[..take]);
        }
        while !bytes.is_empty() {
            let in_page = (self.position % CHECKSUM_PAGE_BYTES) as usize;
            let take = (PAGE - in_page).min(bytes.len());
            self.page_checksum = crc32c::crc32c_append(self.page_checksum, &bytes[..take]);
            self.position += take as u64;
            bytes = &bytes[take..];
            if self.position % CHECKSUM_PAGE_BYTES == 0 {
                self.pages.push(self.page_checksum);
                self.page_checksum = 0;
            }
        }
    }

    /// The checksums of the bytes seen, describing `index_path`.
    pub(crate) fn finish(mut self, index_path: &Path) -> Checksums {
        assert!(
            self.position >= self.header_bytes,
            "the file ended inside its header"
        );
        if self.position % CHECKSUM_PAGE_BYTES != 0 {
            self.pages.push(self.page_checksum);
        }
        debug_assert_eq!(
            self.pages.len() as u64,
            self.position.div_ceil(CHECKSUM_PAGE_BYTES)
        );
        Checksums {
            index_path: index_path.to_path_buf(),
            file_size: self.position,
            header_bytes: self.header_bytes,
            header_checksum: self.header_checksum,
            pages: self.pages,
            blocks: Vec::new(),
        }
    }
}

/// Reads `path` from start to end in large sequential reads; returns the bytes read.
pub(super) fn stream_file(path: &Path, mut visit: impl FnMut(&[u8])) -> Result<u64, ChecksumError> {
    let io = |action: &'static str| {
        move |source| ChecksumError::Io(IoAt::new(path.to_path_buf(), action, source))
    };
    let mut file = SourceFile::open(path).map_err(io("cannot open index"))?;
    if let Some(local) = file.local() {
        advise_sequential(local);
    }
    let mut buffer = vec![0u8; STREAM_BYTES];
    let mut total = 0u64;
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => return Ok(total),
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io("cannot read index")(e)),
        };
        visit(&buffer[..read]);
        total += read as u64;
    }
}

/// Tells the kernel the file is read once from start to end (more read-ahead).
fn advise_sequential(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: posix_fadvise only reads its integer arguments; the descriptor is open.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}

pub(super) fn block_spans(header: &IndexHeader) -> Vec<(u64, u64)> {
    header
        .blocks
        .iter()
        .map(|b| (b.data_offset, b.data_offset + b.data_bytes()))
        .collect()
}

pub(super) fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 31 + i / 7) as u8).collect()
    }

    fn checksums_of(bytes: &[u8], header_bytes: u64) -> Checksums {
        let mut builder = ChecksumBuilder::new(header_bytes);
        builder.update(bytes);
        builder.finish(Path::new("x.cobs_compact"))
    }

    #[test]
    fn sidecar_is_named_after_the_whole_file_name() {
        assert_eq!(
            sidecar_path(Path::new("dir/genomes.cobs_compact")),
            PathBuf::from("dir/genomes.cobs_compact.bitsift-checksums")
        );
    }

    #[test]
    fn streaming_in_any_pieces_gives_the_checksums_of_the_whole() {
        let bytes = sample(3 * PAGE + 100);
        let whole = checksums_of(&bytes, 130);
        assert_eq!(whole.pages.len(), 4);
        assert_eq!(whole.pages[1], crc32c::crc32c(&bytes[PAGE..2 * PAGE]));
        assert_eq!(whole.pages[3], crc32c::crc32c(&bytes[3 * PAGE..]));
        assert_eq!(whole.header_checksum, crc32c::crc32c(&bytes[..130]));
        for piece in [1, 7, 129, 4095, 4097, 10_000] {
            let mut builder = ChecksumBuilder::new(130);
            for chunk in bytes.chunks(piece) {
                builder.update(chunk);
            }
            assert_eq!(
                builder.finish(Path::new("x.cobs_compact")),
                whole,
                "{piece}"
            );
        }
    }

    #[test]
    fn the_digest_is_the_crc_the_encoding_ends_with_and_follows_every_page() {
        let bytes = sample(5 * 4096 * 300 + 77);
        let checksums = checksums_of(&bytes, 130);
        let encoded = checksums.encode();
        let own = le_u32(&encoded, encoded.len() - TRAILER_BYTES);
        assert_eq!(checksums.digest(), (1 << 32) | u64::from(own));
        let mut changed = bytes.clone();
        changed[4096 * 1_000 + 5] ^= 1;
        assert_ne!(checksums_of(&changed, 130).digest(), checksums.digest());
    }

    #[test]
    fn encoding_round_trips_and_every_bit_flip_is_refused() {
        let checksums = checksums_of(&sample(2 * PAGE + 1), 64);
        let encoded = checksums.encode();
        assert_eq!(encoded.len(), PREAMBLE_BYTES + 3 * 4 + TRAILER_BYTES);
        let path = Path::new("x.cobs_compact");
        assert_eq!(Checksums::decode(path, &encoded).unwrap(), checksums);
        for bit in 0..encoded.len() * 8 {
            let mut flipped = encoded.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            let error = Checksums::decode(path, &flipped).unwrap_err().to_string();
            assert!(
                error.starts_with("x.cobs_compact.bitsift-checksums: "),
                "{error}"
            );
        }
        for len in 0..encoded.len() {
            assert!(Checksums::decode(path, &encoded[..len]).is_err(), "{len}");
        }
    }

    #[test]
    fn verify_accepts_good_pages_and_names_the_bad_one() {
        let mut bytes = sample(3 * PAGE + 10);
        let mut checksums = checksums_of(&bytes, 100);
        checksums.blocks = vec![(100, 6000), (6000, bytes.len() as u64)];
        checksums.verify(0, &bytes).unwrap();
        checksums
            .verify(PAGE as u64, &bytes[PAGE..2 * PAGE])
            .unwrap();
        checksums
            .verify(3 * PAGE as u64, &bytes[3 * PAGE..])
            .unwrap();
        checksums
            .verify_page(2, &bytes[2 * PAGE..3 * PAGE])
            .unwrap();
        bytes[2 * PAGE + 5] ^= 0x10;
        let error = checksums.verify(PAGE as u64, &bytes[PAGE..]).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("x.cobs_compact: checksum mismatch in block 1, page at offset {}: the index is damaged or was changed after its checksums were made; restore it from a good copy (`bitsift verify` lists every damaged page)", 2 * PAGE)
        );
        assert!(matches!(checksums.verify(0, &bytes[..PAGE]), Ok(())));
        assert_eq!(checksums.location(0), "the header and block 0");
        assert_eq!(checksums.location(1), "blocks 0-1");
    }

    #[test]
    fn verify_refuses_reads_it_cannot_check() {
        let bytes = sample(2 * PAGE + 10);
        let checksums = checksums_of(&bytes, 10);
        assert!(matches!(
            checksums.verify(10, &bytes[10..PAGE]),
            Err(ChecksumError::Unaligned { .. })
        ));
        assert!(matches!(
            checksums.verify(0, &bytes[..100]),
            Err(ChecksumError::Unaligned { .. })
        ));
        assert!(matches!(
            checksums.verify(2 * PAGE as u64, &[0; PAGE]),
            Err(ChecksumError::OutOfRange { .. })
        ));
        assert!(matches!(
            checksums.verify(u64::MAX - 1, &[0; 4]),
            Err(ChecksumError::OutOfRange { .. })
        ));
        assert!(checksums.verify_page(0, &bytes[..PAGE + 1]).is_err());
    }
}
