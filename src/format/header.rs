//! Parsing and validating COBS index headers.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::{
    Block, DocumentNames, FormatError, CLASSIC_MAGIC, COMPACT_MAGIC, HASHES_MAX, K_MAX,
    MAGIC_PREFIX, VERSION,
};

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
    /// The bit matrices, in file order.
    pub blocks: Vec<Block>,
    /// Document names in header order; document `d` is bit `d - first_document` of its block.
    pub names: DocumentNames,
    /// Offset of the first row.
    pub data_offset: u64,
    /// Size of the file (checked to equal what the header implies).
    pub file_size: u64,
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
    pub fn open_with(path: &Path, options: &HeaderOptions) -> Result<IndexHeader, FormatError> {
        let current = Parser::open(path)?.parse(None);
        let error = match current {
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
        match Parser::open(path)?.parse(Some((legacy_k, legacy_canonical))) {
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

    /// Number of documents.
    pub fn document_count(&self) -> u64 {
        self.names.len() as u64
    }

    /// Whether every row starts on a 4 KiB boundary (one row = one aligned page read).
    pub fn rows_page_aligned(&self) -> bool {
        self.data_offset % 4096 == 0 && self.page_size % 4096 == 0
    }

    /// Bytes of all matrices.
    pub fn data_bytes(&self) -> u64 {
        self.blocks.iter().map(Block::data_bytes).sum()
    }
}

/// Parameters for headers that do not record them (pre-2019 COBS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeaderOptions {
    /// Term size of a legacy index.
    pub legacy_k: Option<u32>,
    /// Canonical flag of a legacy index.
    pub legacy_canonical: Option<bool>,
}

/// Bytes read from the header at a time: headers of large collections hold megabytes of
/// names, but reading much past the header's end costs a cold query for nothing.
const HEADER_READ_BYTES: usize = 64 << 10;

struct Parser<'a> {
    reader: BufReader<File>,
    path: &'a Path,
    position: u64,
    file_size: u64,
}

impl<'a> Parser<'a> {
    fn open(path: &'a Path) -> Result<Parser<'a>, FormatError> {
        let file = File::open(path).map_err(|source| FormatError::Io {
            path: path.to_path_buf(),
            action: "cannot open index",
            source,
        })?;
        let file_size = file
            .metadata()
            .map_err(|source| FormatError::Io {
                path: path.to_path_buf(),
                action: "cannot stat index",
                source,
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
            reader: BufReader::with_capacity(HEADER_READ_BYTES, file),
            path,
            position: 0,
            file_size,
        })
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
            .map_err(|source| FormatError::Io {
                path: self.path.to_path_buf(),
                action: "cannot read header",
                source,
            })?;
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
            .map_err(|source| FormatError::Io {
                path: self.path.to_path_buf(),
                action: "cannot read header",
                source,
            })?;
        debug_assert_eq!(copied, count);
        self.position += count;
        Ok(())
    }

    fn names(&mut self, count: u32) -> Result<DocumentNames, FormatError> {
        // A name longer than this means the names section is not what the header says.
        const NAME_BYTES_MAX: usize = 1 << 16;
        let mut names = DocumentNames::with_capacity(count as usize);
        let mut line = Vec::with_capacity(256);
        for index in 0..count {
            line.clear();
            let read = (&mut self.reader)
                .take(NAME_BYTES_MAX as u64 + 1)
                .read_until(b'\n', &mut line)
                .map_err(|source| FormatError::Io {
                    path: self.path.to_path_buf(),
                    action: "cannot read document names",
                    source,
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
        if version != VERSION {
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
            IndexKind::Compact => self.compact(k, canonical == 1),
            IndexKind::Classic => self.classic(k, canonical == 1),
        }
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

    fn compact(&mut self, k: u32, canonical: bool) -> Result<IndexHeader, FormatError> {
        let block_count = self.u32("the block count")?;
        let document_count = self.u32("the document count")?;
        let page_size = self.u64("the page size")?;
        if page_size == 0 || page_size > (1 << 30) {
            return Err(self.invalid(format!(
                "page size = {page_size} bytes per row (expected 1..=2^30)"
            )));
        }
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
        // Each block's parameters take 16 bytes; refuse counts the file cannot hold before
        // allocating for them.
        if self.position + 16 * block_count as u64 > self.file_size {
            return Err(self.truncated(
                "the block parameters",
                self.position + 16 * block_count as u64,
            ));
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
        }
        if document_count as u64 > self.file_size {
            return Err(self.truncated("the document names", document_count as u64));
        }
        let names = self.names(document_count)?;
        let padding = (page_size - ((self.position + 13) % page_size)) % page_size;
        self.skip(padding, "the header padding")?;
        self.end_magic(COMPACT_MAGIC)?;
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
            blocks,
            names,
            data_offset,
            file_size: self.file_size,
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
        if document_count as u64 > self.file_size {
            return Err(self.truncated("the document names", document_count as u64));
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
        })
    }
}
