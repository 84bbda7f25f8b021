//! The `INDEX.bitsift-summaries` file: encoding, decoding and the index fingerprint.
//!
//! Layout, little endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `BSSUMMRY` |
//! | 4 | version (1) |
//! | 4 | key scheme (1: seed-0 row hash, SplitMix64 remix, word-blocked Bloom) |
//! | 4 | k of the index |
//! | 1 | canonical flag of the index, then 3 zero bytes |
//! | 4 | hash functions of the index |
//! | 4 | bits each k-mer sets in a summary |
//! | 8 | blocks |
//! | 8 | documents |
//! | 8 | fingerprint of the index header ([`fingerprint`]) |
//! | 32 per block | first document, documents, `log2` of its 64-bit words (4 bytes, then 4 zero bytes), estimated distinct k-mers |
//! | 8 · words per block | each block's filter, in block order |
//! | 8 | xxh64 (seed 0) of every byte before it |
//! | 8 | length of the whole file |
//! | 8 | magic `BSSUMMRY` |

use xxhash_rust::xxh64::{xxh64, Xxh64};

use super::filter::{Filter, HASHES_MAX, WORDS_LOG2_MAX};

/// First and last eight bytes of a summaries file.
pub const MAGIC: &[u8; 8] = b"BSSUMMRY";
/// The format version this code writes and reads.
pub const VERSION: u32 = 1;
/// The key scheme of [`super::filter`].
pub const SCHEME: u32 = 1;

const HEADER_BYTES: usize = 56;
const BLOCK_BYTES: usize = 32;
const FOOTER_BYTES: usize = 24;

/// What the summaries describe: the index they belong to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexIdentity {
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions of the index.
    pub num_hashes: u32,
    /// Documents.
    pub documents: u64,
    /// Header fingerprint.
    pub fingerprint: u64,
}

/// One block's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSummary {
    /// First document of the block.
    pub first_document: u64,
    /// Documents of the block.
    pub document_count: u64,
    /// Estimated distinct k-mers of the block's documents.
    pub kmers_estimate: u64,
    /// The filter of their union.
    pub filter: Filter,
}

/// A decoded file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryFile {
    /// The index it belongs to.
    pub identity: IndexIdentity,
    /// Bits each k-mer sets.
    pub hashes: u32,
    /// Per block.
    pub blocks: Vec<BlockSummary>,
}

/// Fingerprint of an index header: xxh64 over k, the canonical flag, the hash count, the page
/// size, every block's document and row counts, and every document name in order. Summaries
/// whose fingerprint differs were built for another index (or another document order).
pub fn fingerprint<'a>(
    k: u32,
    canonical: bool,
    num_hashes: u32,
    page_size: u64,
    blocks: impl Iterator<Item = (u64, u64)>,
    names: impl Iterator<Item = &'a str>,
) -> u64 {
    let mut hasher = Xxh64::new(0);
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

impl SummaryFile {
    /// Bytes of the encoded file.
    pub fn encoded_len(&self) -> usize {
        let words: usize = self.blocks.iter().map(|b| b.filter.words().len()).sum();
        HEADER_BYTES + BLOCK_BYTES * self.blocks.len() + 8 * words + FOOTER_BYTES
    }

    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        let id = &self.identity;
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&SCHEME.to_le_bytes());
        out.extend_from_slice(&id.k.to_le_bytes());
        out.extend_from_slice(&[id.canonical as u8, 0, 0, 0]);
        out.extend_from_slice(&id.num_hashes.to_le_bytes());
        out.extend_from_slice(&self.hashes.to_le_bytes());
        out.extend_from_slice(&(self.blocks.len() as u64).to_le_bytes());
        out.extend_from_slice(&id.documents.to_le_bytes());
        out.extend_from_slice(&id.fingerprint.to_le_bytes());
        debug_assert_eq!(out.len(), HEADER_BYTES);
        for block in &self.blocks {
            out.extend_from_slice(&block.first_document.to_le_bytes());
            out.extend_from_slice(&block.document_count.to_le_bytes());
            out.extend_from_slice(&block.filter.words_log2().to_le_bytes());
            out.extend_from_slice(&[0; 4]);
            out.extend_from_slice(&block.kmers_estimate.to_le_bytes());
        }
        for block in &self.blocks {
            for word in block.filter.words() {
                out.extend_from_slice(&word.to_le_bytes());
            }
        }
        let checksum = xxh64(&out, 0);
        out.extend_from_slice(&checksum.to_le_bytes());
        out.extend_from_slice(&((out.len() + 16) as u64).to_le_bytes());
        out.extend_from_slice(MAGIC);
        debug_assert_eq!(out.len(), self.encoded_len());
        out
    }

    /// Decodes a file, checking its framing, checksum and fields. The error text says what is
    /// wrong (the caller adds the path).
    pub fn decode(bytes: &[u8]) -> Result<SummaryFile, String> {
        if bytes.len() < HEADER_BYTES + FOOTER_BYTES || &bytes[..8] != MAGIC {
            return Err("not a bitsift summaries file (bad magic or too short)".into());
        }
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(format!(
                "format version {version} is not supported (this bitsift reads version {VERSION})"
            ));
        }
        let footer = bytes.len() - FOOTER_BYTES;
        if &bytes[bytes.len() - 8..] != MAGIC || u64_at(bytes, footer + 8) != bytes.len() as u64 {
            return Err("truncated or extended (the footer does not match the file length)".into());
        }
        if u64_at(bytes, footer) != xxh64(&bytes[..footer], 0) {
            return Err("checksum mismatch".into());
        }
        let scheme = u32_at(bytes, 12);
        let hashes = u32_at(bytes, 28);
        if scheme != SCHEME || !(1..=HASHES_MAX).contains(&hashes) || bytes[20] > 1 {
            return Err(format!(
                "unknown key scheme {scheme}, bit count {hashes} or canonical flag {}",
                bytes[20]
            ));
        }
        let identity = IndexIdentity {
            k: u32_at(bytes, 16),
            canonical: bytes[20] == 1,
            num_hashes: u32_at(bytes, 24),
            documents: u64_at(bytes, 40),
            fingerprint: u64_at(bytes, 48),
        };
        let block_count = u64_at(bytes, 32);
        let table_end = (block_count as u128) * BLOCK_BYTES as u128 + HEADER_BYTES as u128;
        if table_end > footer as u128 {
            return Err(format!("{block_count} blocks do not fit the file"));
        }
        let blocks = decode_blocks(bytes, block_count as usize, footer, hashes)?;
        Ok(SummaryFile {
            identity,
            hashes,
            blocks,
        })
    }
}

fn decode_blocks(
    bytes: &[u8],
    count: usize,
    footer: usize,
    hashes: u32,
) -> Result<Vec<BlockSummary>, String> {
    let mut data = HEADER_BYTES + BLOCK_BYTES * count;
    let mut blocks = Vec::with_capacity(count);
    for b in 0..count {
        let at = HEADER_BYTES + BLOCK_BYTES * b;
        let words_log2 = u32_at(bytes, at + 16);
        if words_log2 > WORDS_LOG2_MAX {
            return Err(format!(
                "block {b}: filter of 2^{words_log2} words is too large"
            ));
        }
        let len = 8usize << words_log2;
        if data + len > footer {
            return Err(format!(
                "block {b}: its filter runs past the end of the data"
            ));
        }
        let words = bytes[data..data + len]
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8-byte chunk")))
            .collect();
        data += len;
        blocks.push(BlockSummary {
            first_document: u64_at(bytes, at),
            document_count: u64_at(bytes, at + 8),
            kmers_estimate: u64_at(bytes, at + 24),
            filter: Filter::from_words(words, hashes),
        });
    }
    if data != footer {
        return Err(format!("{} bytes after the last filter", footer - data));
    }
    Ok(blocks)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SummaryFile {
        SummaryFile {
            identity: IndexIdentity {
                k: 31,
                canonical: true,
                num_hashes: 1,
                documents: 20,
                fingerprint: 0x1234,
            },
            hashes: 3,
            blocks: vec![
                BlockSummary {
                    first_document: 0,
                    document_count: 16,
                    kmers_estimate: 1000,
                    filter: Filter::from_words(vec![1, 2, 3, 4], 3),
                },
                BlockSummary {
                    first_document: 16,
                    document_count: 4,
                    kmers_estimate: 10,
                    filter: Filter::from_words(vec![u64::MAX], 3),
                },
            ],
        }
    }

    #[test]
    fn round_trip_and_every_damage_is_caught() {
        let file = sample();
        let bytes = file.encode();
        assert_eq!(bytes.len(), file.encoded_len());
        assert_eq!(SummaryFile::decode(&bytes).unwrap(), file);
        // Any flipped bit is caught: by the magic, the footer or the checksum.
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert!(SummaryFile::decode(&damaged).is_err(), "flip at {at}");
        }
        for len in [0, 10, bytes.len() - 1] {
            assert!(SummaryFile::decode(&bytes[..len]).is_err());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(SummaryFile::decode(&longer).is_err());
    }

    #[test]
    fn fingerprint_covers_order_and_geometry() {
        let f = |names: &[&str], rows: u64| {
            fingerprint(
                31,
                true,
                1,
                8,
                [(2, rows)].into_iter(),
                names.iter().copied(),
            )
        };
        assert_eq!(f(&["a", "b"], 10), f(&["a", "b"], 10));
        assert_ne!(f(&["a", "b"], 10), f(&["b", "a"], 10));
        assert_ne!(f(&["a", "b"], 10), f(&["a", "b"], 11));
        assert_ne!(f(&["ab", ""], 10), f(&["a", "b"], 10));
    }
}
