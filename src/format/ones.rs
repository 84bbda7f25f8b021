//! `INDEX.bitsift-ones`: each document's count of ones (the bits set in its column of its
//! block's matrix), so that a search corrects a hit's score for its document's false
//! positives (`query::correct`) from a few pages rather than a sample of the block's rows.
//!
//! A document's false-positive rate per lookup is `ρ^H`, `ρ` its ratio of ones: its count
//! over its block's rows. COBS's format records neither. [`OnesCounter`] counts them from the
//! index's bytes as they stream past: the builder's and a merge's as they are written, `bitsift
//! checksum`'s as it reads a COBS index whole. A search reads only the pages of the documents
//! it may report: 4 bytes a document, 1,024 to a 4 KiB page, each page checked against its
//! CRC-32C in the header. The file is bound to one build of its index like the block
//! summaries: the index's size, document count and header fingerprint, and the digest of its
//! checksum sidecar (or, without one, of sampled data pages); a file that does not match is
//! refused with a warning and the search samples rows instead.
//!
//! Layout (little-endian): a header of `H` pages, then the counts.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 16 | `bitsift-ones\n` and three zero bytes |
//! | 16 | 4 | version, 1 |
//! | 20 | 4 | header pages `H` |
//! | 24 | 8 | index file size |
//! | 32 | 8 | documents `N` |
//! | 40 | 8 | header fingerprint ([`super::IndexHeader::fingerprint`]) |
//! | 48 | 8 | digest of the index's checksum sidecar (0: none) |
//! | 56 | 8 | digest of sampled data pages ([`super::content`]; 0: not recorded) |
//! | 64 | 8 | data pages `D` |
//! | 72 | 4·D | CRC-32C of each data page |
//! | … | | zeros up to `4096·H − 8` |
//! | `4096·H − 8` | 8 | xxh64 (seed 0) of the header's bytes before it |
//! | `4096·H` | 4·N | per document, in order: its count of ones; zeros to a whole page |

use std::path::{Path, PathBuf};

use xxhash_rust::xxh64::xxh64;

use super::{Block, FormatError, IndexHeader};
use crate::io::source::SourceFile;
use crate::io_at::IoAt;

/// Suffix of the ones file beside an index.
pub(crate) const ONES_SUFFIX: &str = ".bitsift-ones";
/// Bytes of a page of the file.
pub(crate) const ONES_PAGE_BYTES: u64 = 4096;
/// Documents whose counts one page holds.
pub(crate) const DOCUMENTS_PER_PAGE: u64 = ONES_PAGE_BYTES / 4;
const MAGIC: &[u8; 16] = b"bitsift-ones\n\0\0\0";
const VERSION: u32 = 1;
const FIXED_BYTES: usize = 72;

/// The ones file of `index`: its file name plus [`ONES_SUFFIX`], in the same directory.
pub(crate) fn ones_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_os_string();
    name.push(ONES_SUFFIX);
    PathBuf::from(name)
}

/// What binds a ones file to one build of its index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OnesIdentity {
    /// Bytes of the index file.
    pub file_size: u64,
    /// Documents of the index.
    pub documents: u64,
    /// The index header's fingerprint.
    pub fingerprint: u64,
    /// The checksum sidecar's digest ([`super::checksums::sidecar_digest`]; 0: none).
    pub checksums: u64,
    /// The digest of sampled data pages ([`super::content::content_digest`]; 0: none).
    pub content: u64,
}

/// The header of a ones file: what it describes and each data page's checksum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OnesHeader {
    /// The index it belongs to.
    pub identity: OnesIdentity,
    /// Pages of the header.
    pub header_pages: u64,
    /// Per data page: its CRC-32C.
    pub page_crcs: Vec<u32>,
}

impl OnesHeader {
    /// Header pages of a file of `documents` documents.
    fn pages_for(documents: u64) -> u64 {
        let data_pages = documents.div_ceil(DOCUMENTS_PER_PAGE);
        (FIXED_BYTES as u64 + 4 * data_pages + 8).div_ceil(ONES_PAGE_BYTES)
    }

    /// Bytes of the whole file.
    pub(crate) fn file_bytes(&self) -> u64 {
        (self.header_pages + self.page_crcs.len() as u64) * ONES_PAGE_BYTES
    }

    /// The file page that holds document `document`'s count, and the count's byte offset in
    /// that page.
    pub(crate) fn page_of(&self, document: u64) -> (u64, usize) {
        let page = self.header_pages + document / DOCUMENTS_PER_PAGE;
        (page, (4 * (document % DOCUMENTS_PER_PAGE)) as usize)
    }

    /// Checks data page `page` (a file page number) read as `bytes`.
    pub(crate) fn check_page(&self, page: u64, bytes: &[u8]) -> Result<(), String> {
        let data = page.checked_sub(self.header_pages);
        let expected = data.and_then(|d| self.page_crcs.get(d as usize));
        match expected {
            Some(&crc) if crc32c::crc32c(bytes) == crc => Ok(()),
            Some(_) => Err(format!(
                "damaged counts of ones (page {page}): its checksum does not match"
            )),
            None => Err(format!("page {page} holds no counts of ones")),
        }
    }

    /// The header's bytes, `header_pages` pages.
    fn encode(&self) -> Vec<u8> {
        let id = &self.identity;
        let mut out = Vec::with_capacity((self.header_pages * ONES_PAGE_BYTES) as usize);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.header_pages as u32).to_le_bytes());
        for value in [
            id.file_size,
            id.documents,
            id.fingerprint,
            id.checksums,
            id.content,
            self.page_crcs.len() as u64,
        ] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for crc in &self.page_crcs {
            out.extend_from_slice(&crc.to_le_bytes());
        }
        out.resize((self.header_pages * ONES_PAGE_BYTES) as usize - 8, 0);
        let digest = xxh64(&out, 0);
        out.extend_from_slice(&digest.to_le_bytes());
        out
    }

    /// Decodes the header pages `bytes` of the file at `path`, of `file_bytes` bytes.
    fn decode(path: &Path, bytes: &[u8], file_bytes: u64) -> Result<OnesHeader, FormatError> {
        let invalid = |detail: &str| FormatError::Invalid {
            path: path.to_path_buf(),
            detail: format!("not a valid file of counts of ones: {detail}"),
        };
        if bytes.len() < ONES_PAGE_BYTES as usize || &bytes[..16] != MAGIC {
            return Err(invalid("it does not start with its magic"));
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        if u32_at(16) != VERSION {
            return Err(invalid(&format!("version {} is not supported", u32_at(16))));
        }
        let header_pages = u32_at(20) as u64;
        let documents = u64_at(32);
        let data_pages = u64_at(64);
        let end = (header_pages * ONES_PAGE_BYTES) as usize;
        if header_pages != OnesHeader::pages_for(documents)
            || data_pages != documents.div_ceil(DOCUMENTS_PER_PAGE)
            || bytes.len() < end
        {
            return Err(invalid("its counts disagree with its documents"));
        }
        if xxh64(&bytes[..end - 8], 0).to_le_bytes() != bytes[end - 8..end] {
            return Err(invalid(
                "its header's checksum does not match (a damaged file)",
            ));
        }
        let header = OnesHeader {
            identity: OnesIdentity {
                file_size: u64_at(24),
                documents,
                fingerprint: u64_at(40),
                checksums: u64_at(48),
                content: u64_at(56),
            },
            header_pages,
            page_crcs: (0..data_pages as usize)
                .map(|p| u32_at(FIXED_BYTES + 4 * p))
                .collect(),
        };
        if header.file_bytes() != file_bytes {
            return Err(invalid(&format!(
                "it has {file_bytes} bytes, but its header describes {}",
                header.file_bytes()
            )));
        }
        Ok(header)
    }
}

/// The file's bytes for `counts` (one per document, in order) of the index `identity`
/// describes.
pub(crate) fn encode(identity: OnesIdentity, counts: &[u32]) -> Vec<u8> {
    assert_eq!(
        counts.len() as u64,
        identity.documents,
        "a count per document"
    );
    let mut data: Vec<u8> = counts.iter().flat_map(|c| c.to_le_bytes()).collect();
    let data_pages = identity.documents.div_ceil(DOCUMENTS_PER_PAGE);
    data.resize((data_pages * ONES_PAGE_BYTES) as usize, 0);
    let header = OnesHeader {
        identity,
        header_pages: OnesHeader::pages_for(identity.documents),
        page_crcs: data
            .chunks(ONES_PAGE_BYTES as usize)
            .map(crc32c::crc32c)
            .collect(),
    };
    let mut out = header.encode();
    out.extend_from_slice(&data);
    out
}

/// Counts each document's ones from an index's bytes streamed from offset 0 in order (any
/// chunking): the bits of its column in every row of its block.
pub(crate) struct OnesCounter {
    blocks: Vec<Block>,
    /// Offset of the next byte.
    position: u64,
    /// The block `position` lies in or before.
    block: usize,
    counts: Vec<u32>,
}

impl OnesCounter {
    /// A counter for an index of `blocks` (as its header describes them).
    pub(crate) fn new(blocks: &[Block]) -> OnesCounter {
        let documents = blocks
            .iter()
            .map(|b| b.first_document + b.document_count)
            .max()
            .unwrap_or(0);
        OnesCounter {
            blocks: blocks.to_vec(),
            position: 0,
            block: 0,
            counts: vec![0; documents as usize],
        }
    }

    /// A counter for the compact index of `documents` documents whose header is
    /// `header_bytes` long and whose blocks have `block_rows` rows of `page_size` bytes (the
    /// last block holds the documents left).
    pub(crate) fn compact(
        header_bytes: u64,
        page_size: u64,
        block_rows: &[u64],
        documents: u64,
    ) -> OnesCounter {
        let per_block = 8 * page_size;
        let mut data_offset = header_bytes;
        let blocks: Vec<Block> = block_rows
            .iter()
            .enumerate()
            .map(|(number, &rows)| {
                let first = number as u64 * per_block;
                let block = Block {
                    first_document: first,
                    document_count: per_block.min(documents.saturating_sub(first)),
                    row_count: rows,
                    row_bytes: page_size,
                    data_offset,
                };
                data_offset += rows * page_size;
                block
            })
            .collect();
        OnesCounter::new(&blocks)
    }

    /// Counts the ones of `bytes`, the file's next bytes.
    pub(crate) fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let Some(block) = self.blocks.get(self.block) else {
                self.position += bytes.len() as u64;
                return;
            };
            let end = block.data_offset + block.data_bytes();
            if self.position >= end {
                self.block += 1;
                continue;
            }
            if self.position < block.data_offset {
                let skip = (block.data_offset - self.position).min(bytes.len() as u64);
                self.position += skip;
                bytes = &bytes[skip as usize..];
                continue;
            }
            let within = self.position - block.data_offset;
            let column = within % block.row_bytes;
            let take = (block.row_bytes - column).min(bytes.len() as u64) as usize;
            let used = block.document_count.div_ceil(8);
            let last = (block.first_document + block.document_count) as usize;
            for (offset, &byte) in bytes[..take].iter().enumerate() {
                let byte_column = column + offset as u64;
                if byte == 0 || byte_column >= used {
                    continue;
                }
                let first = (block.first_document + 8 * byte_column) as usize;
                let mut bits = byte;
                while bits != 0 {
                    let document = first + bits.trailing_zeros() as usize;
                    if document < last {
                        self.counts[document] = self.counts[document].saturating_add(1);
                    }
                    bits &= bits - 1;
                }
            }
            self.position += take as u64;
            bytes = &bytes[take..];
        }
    }

    /// Each document's count of ones, in order: bits set past a block's last document (a
    /// row's padding) are not counted.
    pub(crate) fn finish(self) -> Vec<u32> {
        self.counts
    }
}

/// Writes the ones file of the index at `index` beside it, atomically, from `counts` (one
/// per document), bound to the index as it is now: its header (read through its catalog),
/// its checksum sidecar's digest and a digest of sampled data pages.
pub(crate) fn write_beside(index: &Path, counts: &[u32]) -> Result<(), FormatError> {
    let header = IndexHeader::open(index)?;
    let io = |path: &Path, action: &'static str| {
        let path = path.to_path_buf();
        move |e| FormatError::Io(IoAt::new(path, action, e))
    };
    let checksums = super::checksums::sidecar_digest(index)
        .map_err(io(&super::sidecar_path(index), "cannot read checksums"))?
        .unwrap_or(0);
    let content = super::content::content_digest_of(index, header.data_offset)
        .map_err(io(index, "cannot read the index"))?;
    let identity = OnesIdentity {
        file_size: header.file_size,
        documents: header.document_count(),
        fingerprint: header.fingerprint(),
        checksums,
        content,
    };
    if counts.len() as u64 != identity.documents {
        return Err(FormatError::Invalid {
            path: index.to_path_buf(),
            detail: format!(
                "{} counts of ones for {} documents",
                counts.len(),
                identity.documents
            ),
        });
    }
    let path = ones_path(index);
    crate::tempfiles::write_atomically(&path, &encode(identity, counts))
        .map_err(io(&path, "cannot write the counts of ones"))
}

/// Opens the ones file beside the index `header` describes for a search: reads its header
/// and checks that it belongs to this build of the index. `Ok(None)` when there is none.
pub(crate) fn open_beside(header: &IndexHeader) -> Result<Option<OnesHeader>, FormatError> {
    let path = ones_path(&header.path);
    let io = |e| FormatError::Io(IoAt::new(path.clone(), "cannot read the counts of ones", e));
    let file = match SourceFile::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let file_bytes = file.len().map_err(io)?;
    let mut first = vec![0u8; ONES_PAGE_BYTES as usize];
    let read = file_bytes.min(ONES_PAGE_BYTES) as usize;
    file.read_exact_at(&mut first[..read], 0).map_err(io)?;
    let pages = u32::from_le_bytes(first[20..24].try_into().expect("4 bytes")) as u64;
    if pages > 1 && pages * ONES_PAGE_BYTES <= file_bytes {
        first.resize((pages * ONES_PAGE_BYTES) as usize, 0);
        let rest = &mut first[ONES_PAGE_BYTES as usize..];
        file.read_exact_at(rest, ONES_PAGE_BYTES).map_err(io)?;
    }
    let ones = OnesHeader::decode(&path, &first, file_bytes)?;
    check_identity(header, &ones.identity).map_err(|detail| FormatError::Invalid {
        path: path.clone(),
        detail: format!(
            "written for another index or build of {} ({detail}); delete it, or write it again with `bitsift checksum`",
            header.path.display()
        ),
    })?;
    Ok(Some(ones))
}

/// Checks that `identity` describes the index `header` describes, as it is now.
fn check_identity(header: &IndexHeader, identity: &OnesIdentity) -> Result<(), String> {
    if identity.file_size != header.file_size {
        return Err(format!(
            "an index of {} bytes, but it has {}",
            identity.file_size, header.file_size
        ));
    }
    if identity.documents != header.document_count() {
        return Err(format!(
            "{} documents, but the index has {}",
            identity.documents,
            header.document_count()
        ));
    }
    if identity.fingerprint != header.fingerprint() {
        return Err("the document names, their order or the block sizes differ".into());
    }
    let index = &header.path;
    let sidecar = super::checksums::sidecar_digest(index).map_err(|e| e.to_string())?;
    if let Some(digest) = sidecar.filter(|_| identity.checksums != 0) {
        return match digest == identity.checksums {
            true => Ok(()),
            false => Err("the index's checksum file differs from the one it records".into()),
        };
    }
    if identity.content == 0 || crate::io::is_remote(index) {
        return Ok(());
    }
    let digest =
        super::content::content_digest_of(index, header.data_offset).map_err(|e| e.to_string())?;
    match digest == identity.content {
        true => Ok(()),
        false => Err("the index's data differ from those it was written for".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(documents: u64) -> OnesIdentity {
        OnesIdentity {
            file_size: 123_456,
            documents,
            fingerprint: 7,
            checksums: 8,
            content: 9,
        }
    }

    #[test]
    fn a_file_round_trips_and_checks_its_pages() {
        for documents in [1u64, 1024, 1025, 5000, 700_000] {
            let counts: Vec<u32> = (0..documents as u32).map(|d| d.wrapping_mul(31)).collect();
            let bytes = encode(identity(documents), &counts);
            let header = OnesHeader::decode(Path::new("o"), &bytes, bytes.len() as u64).unwrap();
            assert_eq!(header.identity, identity(documents));
            assert_eq!(header.file_bytes(), bytes.len() as u64);
            for document in [0, documents / 2, documents - 1] {
                let (page, at) = header.page_of(document);
                let start = (page * ONES_PAGE_BYTES) as usize;
                let page_bytes = &bytes[start..start + ONES_PAGE_BYTES as usize];
                header.check_page(page, page_bytes).unwrap();
                let count = u32::from_le_bytes(page_bytes[at..at + 4].try_into().unwrap());
                assert_eq!(count, counts[document as usize]);
                let mut damaged = page_bytes.to_vec();
                damaged[at] ^= 1;
                assert!(header.check_page(page, &damaged).is_err());
            }
            assert!(
                header.check_page(0, &bytes[..4096]).is_err(),
                "a header page"
            );
        }
    }

    #[test]
    fn a_damaged_or_truncated_header_is_refused() {
        let bytes = encode(identity(3000), &[5; 3000]);
        for at in [0, 17, 30, 70, 4000] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            let error = OnesHeader::decode(Path::new("o"), &damaged, bytes.len() as u64)
                .unwrap_err()
                .to_string();
            let refused = error.starts_with("o: ") && error.contains("not a valid file of counts");
            assert!(refused, "{error}");
        }
        let short = OnesHeader::decode(Path::new("o"), &bytes, bytes.len() as u64 - 4096);
        assert!(short.unwrap_err().to_string().contains("bytes"));
    }

    #[test]
    fn the_counter_counts_each_column_whatever_the_chunks() {
        // Two blocks: 10 documents in rows of 2 bytes (3 rows), then 3 in rows of 1 byte
        // (2 rows), after a header of 5 bytes.
        let blocks = [
            Block {
                first_document: 0,
                document_count: 10,
                row_count: 3,
                row_bytes: 2,
                data_offset: 5,
            },
            Block {
                first_document: 10,
                document_count: 3,
                row_count: 2,
                row_bytes: 1,
                data_offset: 11,
            },
        ];
        let file: Vec<u8> = (0..13u32).map(|i| (i * 37 % 251) as u8).collect();
        let mut expected = [0u32; 13];
        for block in &blocks {
            for row in 0..block.row_count {
                for d in 0..block.document_count {
                    let byte = file[(block.data_offset + row * block.row_bytes + d / 8) as usize];
                    expected[(block.first_document + d) as usize] += (byte >> (d % 8) & 1) as u32;
                }
            }
        }
        for chunk in [1, 2, 3, 7, 13] {
            let mut counter = OnesCounter::new(&blocks);
            for piece in file.chunks(chunk) {
                counter.update(piece);
            }
            assert_eq!(counter.finish(), expected, "chunks of {chunk}");
        }
        let compact = OnesCounter::compact(5, 2, &[3], 10);
        assert_eq!(compact.blocks[0], blocks[0]);
    }
}
