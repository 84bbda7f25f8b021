//! The `INDEX.bitsift-summaries` file: encoding, decoding and the index fingerprint.
//!
//! bitsift writes format 2 ([`super::layout`]), read page by page. It reads format 1 too,
//! written by earlier versions: one flat filter per block, read whole (its one checksum covers
//! the whole file). Format 1 layout, little endian:
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

use xxhash_rust::xxh64::xxh64;

use super::damage::Damage;
use super::filter::{Filter, HASHES_MAX, WORDS_LOG2_MAX};
use super::identity::{BlockSummary, IndexIdentity};
use super::layout::{self, Layout};

/// First and last eight bytes of a summaries file.
pub(crate) const MAGIC: &[u8; 8] = b"BSSUMMRY";
/// The format-1 version.
pub(crate) const VERSION: u32 = 1;
/// The key scheme of [`super::filter`].
pub(crate) const SCHEME: u32 = 1;

const HEADER_BYTES: usize = 56;
const BLOCK_BYTES: usize = 32;
const FOOTER_BYTES: usize = 24;

/// A decoded file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SummaryFile {
    /// The index it belongs to.
    pub identity: IndexIdentity,
    /// Bits each k-mer sets.
    pub hashes: u32,
    /// Minimizer length of the filters' buckets (0: format 1, one bucket per filter).
    pub minimizer: u32,
    /// Per block.
    pub blocks: Vec<BlockSummary>,
}

impl SummaryFile {
    /// The format-2 layout of this file.
    pub(crate) fn layout(&self) -> Layout {
        assert!(self.minimizer > 0, "format 2 places k-mers by minimizer");
        Layout::plan(
            self.identity.clone(),
            self.hashes,
            self.minimizer,
            &self.blocks,
        )
    }

    /// Writes the file in format 2.
    pub(crate) fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let layout = self.layout();
        out.write_all(&layout.encode_header())?;
        let filters: Vec<&Filter> = self.blocks.iter().map(|b| &b.filter).collect();
        layout.write_data(&filters, out)
    }

    /// The file's bytes in format 2.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_to(&mut out).expect("writing to memory");
        out
    }

    /// Decodes a file of either format, checking its framing, checksums and fields. The error
    /// text says what is wrong (the caller adds the path).
    pub(crate) fn decode(bytes: &[u8]) -> Result<SummaryFile, Damage> {
        if bytes.len() >= 8 && &bytes[..8] == layout::MAGIC {
            return SummaryFile::decode_v2(bytes);
        }
        SummaryFile::decode_v1(bytes)
    }

    fn decode_v2(bytes: &[u8]) -> Result<SummaryFile, Damage> {
        let layout = Layout::decode_header(bytes, bytes.len() as u64)?;
        let data = &bytes[(layout.header_pages * layout::PAGE_BYTES) as usize..];
        let filters = layout.read_filters(data)?;
        let blocks = layout
            .blocks
            .iter()
            .zip(filters)
            .map(|(g, filter)| BlockSummary {
                first_document: g.first_document,
                document_count: g.document_count,
                kmers_estimate: g.kmers_estimate,
                filter,
            })
            .collect();
        Ok(SummaryFile {
            identity: layout.identity,
            hashes: layout.hashes,
            minimizer: layout.minimizer,
            blocks,
        })
    }

    /// Bytes of the file encoded in format 1.
    #[cfg(test)]
    pub(crate) fn encoded_len_v1(&self) -> usize {
        let words: usize = self.blocks.iter().map(|b| b.filter.words().len()).sum();
        HEADER_BYTES + BLOCK_BYTES * self.blocks.len() + 8 * words + FOOTER_BYTES
    }

    /// The file's bytes in format 1 (as earlier versions wrote it; format-1 filters have one
    /// bucket).
    #[cfg(test)]
    pub(crate) fn encode_v1(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len_v1());
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
        debug_assert_eq!(out.len(), self.encoded_len_v1());
        out
    }

    /// Decodes a format-1 file.
    fn decode_v1(bytes: &[u8]) -> Result<SummaryFile, Damage> {
        if bytes.len() < HEADER_BYTES + FOOTER_BYTES || &bytes[..8] != MAGIC {
            return Err(Damage(
                "not a bitsift summaries file (bad magic or too short)".into(),
            ));
        }
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(Damage(format!(
                "format version {version} is not supported (this bitsift reads versions {VERSION} and {})",
                layout::VERSION
            )));
        }
        let footer = bytes.len() - FOOTER_BYTES;
        if &bytes[bytes.len() - 8..] != MAGIC || u64_at(bytes, footer + 8) != bytes.len() as u64 {
            return Err(Damage(
                "truncated or extended (the footer does not match the file length)".into(),
            ));
        }
        if u64_at(bytes, footer) != xxh64(&bytes[..footer], 0) {
            return Err(Damage("checksum mismatch".into()));
        }
        let scheme = u32_at(bytes, 12);
        let hashes = u32_at(bytes, 28);
        if scheme != SCHEME || !(1..=HASHES_MAX).contains(&hashes) || bytes[20] > 1 {
            return Err(Damage(format!(
                "unknown key scheme {scheme}, bit count {hashes} or canonical flag {}",
                bytes[20]
            )));
        }
        let identity = IndexIdentity {
            k: u32_at(bytes, 16),
            canonical: bytes[20] == 1,
            num_hashes: u32_at(bytes, 24),
            documents: u64_at(bytes, 40),
            fingerprint: u64_at(bytes, 48),
            content: 0,
            checksums: 0,
        };
        let block_count = u64_at(bytes, 32);
        let table_end = (block_count as u128) * BLOCK_BYTES as u128 + HEADER_BYTES as u128;
        if table_end > footer as u128 {
            return Err(Damage(format!("{block_count} blocks do not fit the file")));
        }
        let blocks = decode_blocks(bytes, block_count as usize, footer, hashes)?;
        Ok(SummaryFile {
            identity,
            hashes,
            minimizer: 0,
            blocks,
        })
    }
}

fn decode_blocks(
    bytes: &[u8],
    count: usize,
    footer: usize,
    hashes: u32,
) -> Result<Vec<BlockSummary>, Damage> {
    let mut data = HEADER_BYTES + BLOCK_BYTES * count;
    let mut blocks = Vec::with_capacity(count);
    for b in 0..count {
        let at = HEADER_BYTES + BLOCK_BYTES * b;
        let words_log2 = u32_at(bytes, at + 16);
        if words_log2 > WORDS_LOG2_MAX {
            return Err(Damage(format!(
                "block {b}: filter of 2^{words_log2} words is too large"
            )));
        }
        let len = 8usize << words_log2;
        if data + len > footer {
            return Err(Damage(format!(
                "block {b}: its filter runs past the end of the data"
            )));
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
            filter: Filter::from_words(words, WORDS_LOG2_MAX, hashes),
        });
    }
    if data != footer {
        return Err(Damage(format!(
            "{} bytes after the last filter",
            footer - data
        )));
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
    use crate::format::fingerprint;
    use crate::summary::filter::{Probe, KEY_BITS};

    fn sample(blocks: &[(u32, u32)]) -> SummaryFile {
        let mut first = 0;
        let blocks = blocks
            .iter()
            .enumerate()
            .map(|(number, &(words_log2, key_bits))| {
                let words = (0..1u64 << words_log2)
                    .map(|w| xxh64(&w.to_le_bytes(), number as u64) & 0x0f0f_0f0f_f0f0_f0f0)
                    .collect();
                let block = BlockSummary {
                    first_document: first,
                    document_count: 8 + number as u64,
                    kmers_estimate: 1000 * number as u64,
                    filter: Filter::from_words(words, key_bits, 3),
                };
                first += block.document_count;
                block
            })
            .collect();
        SummaryFile {
            identity: IndexIdentity {
                k: 31,
                canonical: true,
                num_hashes: 1,
                documents: first,
                fingerprint: 0x1234,
                content: 0,
                checksums: 0,
            },
            hashes: 3,
            minimizer: 13,
            blocks,
        }
    }

    #[test]
    fn version_3_records_the_content_digest_and_version_2_is_still_read() {
        let mut file = sample(&[(4, 3), (2, 2)]);
        file.identity.content = 0x5678;
        file.identity.checksums = (1 << 32) | 0x9abc;
        let decoded = SummaryFile::decode(&file.encode()).unwrap();
        assert_eq!(decoded.identity, file.identity);
        assert_eq!(u32_at(&file.encode(), 8), layout::VERSION);

        let old = file.layout().in_version(layout::VERSION_UNBOUND);
        let mut bytes = old.encode_header();
        let filters: Vec<&Filter> = file.blocks.iter().map(|b| &b.filter).collect();
        old.write_data(&filters, &mut bytes).unwrap();
        assert_eq!(bytes.len() as u64, old.file_bytes());
        let decoded = SummaryFile::decode(&bytes).unwrap();
        assert_eq!(
            decoded.identity.content, 0,
            "version 2 records no content digest"
        );
        assert_eq!(decoded.identity.fingerprint, file.identity.fingerprint);
        assert_eq!(decoded.blocks, file.blocks);
        bytes[8] = 4;
        assert!(SummaryFile::decode(&bytes)
            .unwrap_err()
            .to_string()
            .contains("version 4"));
    }

    #[test]
    fn format_1_round_trips_and_every_damage_is_caught() {
        let mut file = sample(&[(2, 2), (0, 0)]);
        file.minimizer = 0;
        let bytes = file.encode_v1();
        assert_eq!(bytes.len(), file.encoded_len_v1());
        let decoded = SummaryFile::decode(&bytes).unwrap();
        assert_eq!(decoded.blocks.len(), 2);
        for (a, b) in decoded.blocks.iter().zip(&file.blocks) {
            assert_eq!(a.filter.words(), b.filter.words());
            assert_eq!(a.first_document, b.first_document);
        }
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
    fn format_2_round_trips_every_geometry() {
        // Large and small blocks, one-bucket blocks, blocks smaller than the file's buckets.
        for blocks in [
            vec![
                (12, KEY_BITS),
                (9, KEY_BITS),
                (2, 2),
                (0, 0),
                (14, KEY_BITS),
            ],
            vec![(0, 0)],
            vec![(KEY_BITS, KEY_BITS); 70],
            vec![(16, KEY_BITS), (16, KEY_BITS), (16, KEY_BITS)],
        ] {
            let file = sample(&blocks);
            let bytes = file.encode();
            let layout = file.layout();
            assert_eq!(bytes.len() as u64, layout.file_bytes());
            assert_eq!(bytes.len() % 4096, 0);
            assert_eq!(SummaryFile::decode(&bytes).unwrap(), file);
            // Every data page is checked on its own, and the header as a whole.
            for at in [
                0,
                20,
                100,
                4095,
                4096 * layout.header_pages as usize + 17,
                bytes.len() - 1,
            ] {
                let mut damaged = bytes.clone();
                damaged[at] ^= 0x10;
                assert!(SummaryFile::decode(&damaged).is_err(), "flip at {at}");
            }
            assert!(SummaryFile::decode(&bytes[..bytes.len() - 4096]).is_err());
        }
    }

    #[test]
    fn a_probe_finds_its_word_in_its_bucket_pages() {
        let file = sample(&[(12, KEY_BITS), (7, KEY_BITS), (1, 1), (15, KEY_BITS)]);
        let bytes = file.encode();
        let layout = file.layout();
        for i in 0..2000u64 {
            let probe = Probe::new(i * 0x9e37, xxh64(&i.to_le_bytes(), 7), 3);
            let bucket = layout.bucket(&probe);
            let first = layout.bucket_page(bucket);
            for (number, block) in file.blocks.iter().enumerate() {
                let (page, at) = layout.word_at(bucket, number, &probe);
                assert!(page < layout.pages_per_bucket());
                let offset = ((first + page) * 4096) as usize + at;
                let word = u64::from_le_bytes(bytes[offset..offset + 8].try_into().unwrap());
                let position = probe.position(block.filter.words_log2(), block.filter.key_bits());
                assert_eq!(word, block.filter.words()[position as usize]);
            }
        }
    }

    #[test]
    fn buckets_fit_pages_without_growing_the_file_much() {
        // 21 blocks of 4-32 MiB filters, as a 661k-genome collection has: one page per bucket.
        let blocks: Vec<(u32, u32)> = (0..21).map(|b| (19 + b % 4, KEY_BITS)).collect();
        let file = sample(&[]);
        let summaries: Vec<BlockSummary> = blocks
            .iter()
            .map(|&(w, e)| BlockSummary {
                first_document: 0,
                document_count: 1,
                kmers_estimate: 0,
                filter: Filter::from_words(vec![0; 1 << w], e, 3),
            })
            .collect();
        let layout = Layout::plan(file.identity.clone(), 3, 13, &summaries);
        let raw: u64 = summaries
            .iter()
            .map(|b| 8u64 << b.filter.words_log2())
            .sum();
        assert_eq!(layout.pages_per_bucket(), 1);
        assert!(
            layout.file_bytes() as f64 <= 2.0 * raw as f64,
            "{} vs {raw}",
            layout.file_bytes()
        );
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
