//! Format 2 of `INDEX.bitsift-summaries`: block summaries laid out by minimizer bucket, so that
//! a query reads a few pages of them, whatever the number of blocks and the size of the index.
//!
//! Every block's filter ([`super::filter`]) places a k-mer by the top bits of its minimizer
//! hash. The file cuts that range into `2^n` *buckets* and stores bucket `j` of every block
//! side by side: block `b` contributes `2^max(w_b − n, e_b)` words (its fine buckets that fall
//! in `j`; a block too small to have `n` bucket bits contributes the one fine bucket holding
//! `j`, repeated in every bucket it covers). A k-mer probes one word per block, all in the
//! bytes of its bucket; a gene of ~1,000 k-mers has ~100 minimizers and so reads ~100
//! buckets, one page each, instead of one page per k-mer and block.
//!
//! `n` is chosen when the file is written: the smallest number of pages per bucket (one, when
//! a bucket fits a page), then the smallest file, among the choices that keep the file within
//! twice the filters' own size (buckets packed whole into pages, and small blocks repeated in
//! every bucket, cost space).
//!
//! Layout, little endian, in pages of 4,096 bytes:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `BSSUMRY2` |
//! | 4 | version (2) |
//! | 4 | key scheme (2: seed-0 row hash, SplitMix64 remix, minimizer buckets, word-blocked Bloom) |
//! | 4 | k of the index |
//! | 1 | canonical flag of the index, then 3 zero bytes |
//! | 4 | hash functions of the index |
//! | 4 | bits each k-mer sets in a summary |
//! | 4 | minimizer length m |
//! | 4 | bucket bits n |
//! | 8 | blocks |
//! | 8 | documents |
//! | 8 | fingerprint of the index header ([`super::header_fingerprint`]) |
//! | 8 | bytes of a bucket |
//! | 8 | buckets per page (0: a bucket spans whole pages) |
//! | 8 | pages per bucket |
//! | 8 | data pages |
//! | 8 | header pages |
//! | 8 | version 3 only: digest of the index's data ([`crate::format::content::content_digest`]) |
//! | 8 | version 3 only: the checksum sidecar's own CRC-32C plus 2^32, 0 when the index had none ([`crate::format::checksums::sidecar_digest`]) |
//! | 32 per block | first document, documents, `log2` of its words (4 bytes), `log2` of the words of its fine buckets (4 bytes), estimated distinct k-mers |
//! | 8 | xxh64 (seed 0) of every header byte before it; zeros to the end of the header pages |
//! | 4,096 per data page | 4,088 bytes of buckets (each bucket whole within a page, or starting a page and spanning whole pages), then xxh64 of those bytes with seed `fingerprint ^ page` (`page` counted from the first data page) |
//!
//! The file is exactly `(header pages + data pages) · 4096` bytes long.

use std::io::Write;

use xxhash_rust::xxh64::xxh64;

use super::damage::Damage;
use super::filter::{Filter, Probe, HASHES_MAX, WORDS_LOG2_MAX};
use super::identity::{BlockSummary, IndexIdentity};

/// First eight bytes of a format-2 summaries file.
pub(crate) const MAGIC: &[u8; 8] = b"BSSUMRY2";
/// The format version this code writes: 3, which records a digest of the index's data;
/// version 2 (without it) is still read.
pub(crate) const VERSION: u32 = 3;
/// The earlier version of this layout, read as before: bound to the index by its header only.
pub(crate) const VERSION_UNBOUND: u32 = 2;
/// Its key scheme.
pub(crate) const SCHEME: u32 = 2;
/// Bytes of a page: the unit the file is read, checked and cached in.
pub const PAGE_BYTES: u64 = 4096;
/// Bucket bytes of a data page; the rest is its checksum.
pub(crate) const PAYLOAD_BYTES: u64 = PAGE_BYTES - 8;

/// Bytes of the fixed fields of a version-3 header.
const FIXED_BYTES: usize = 120;

/// Bytes of the fixed fields of a header of `version` (2 lacks the content digest).
fn fixed_bytes(version: u32) -> usize {
    if version == VERSION_UNBOUND {
        FIXED_BYTES - 16
    } else {
        FIXED_BYTES
    }
}
const BLOCK_BYTES: usize = 32;
/// The file may grow to this multiple of its filters' size (plus a page per block) so that
/// buckets fit pages.
const GROWTH_MAX: f64 = 2.0;

/// Where one block's words lie in every bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockGeometry {
    /// First document of the block.
    pub first_document: u64,
    /// Documents of the block.
    pub document_count: u64,
    /// Estimated distinct k-mers of the block's documents.
    pub kmers_estimate: u64,
    /// `log2` of the words of its filter.
    pub words_log2: u32,
    /// `log2` of the words of its fine buckets.
    pub key_bits: u32,
    /// `log2` of its words in each bucket.
    segment_log2: u32,
    /// Its first word in each bucket.
    segment_offset: u64,
}

/// The geometry of a format-2 file: everything but the filters' words; see the module
/// documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The format version (2 or 3).
    pub version: u32,
    /// The index the summaries belong to.
    pub identity: IndexIdentity,
    /// Bits each k-mer sets.
    pub hashes: u32,
    /// Minimizer length.
    pub minimizer: u32,
    /// `log2` of the number of buckets.
    pub bucket_bits: u32,
    /// Words of a bucket.
    bucket_words: u64,
    /// Buckets per data page (0: a bucket spans `pages_per_bucket` whole pages).
    buckets_per_page: u64,
    pages_per_bucket: u64,
    /// Data pages.
    pub data_pages: u64,
    /// Header pages (the data pages follow them).
    pub header_pages: u64,
    /// Per block.
    pub blocks: Vec<BlockGeometry>,
}

impl Layout {
    /// The layout of a file of `blocks`, choosing the bucket bits (see the module
    /// documentation).
    pub(crate) fn plan(
        identity: IndexIdentity,
        hashes: u32,
        minimizer: u32,
        blocks: &[BlockSummary],
    ) -> Layout {
        let filter_words: u64 = blocks.iter().map(|b| 1u64 << b.filter.words_log2()).sum();
        let bound = (GROWTH_MAX * (8 * filter_words) as f64 / PAYLOAD_BYTES as f64).ceil() as u64
            + blocks.len() as u64;
        let most = blocks
            .iter()
            .map(|b| b.filter.words_log2() - b.filter.key_bits())
            .max()
            .unwrap_or(0);
        let mut best: Option<Layout> = None;
        for bits in 0..=most {
            let layout =
                Layout::with_bucket_bits(identity.clone(), hashes, minimizer, blocks, bits);
            let within = bits == 0 || layout.data_pages <= bound;
            let better = best.as_ref().is_none_or(|b| {
                (layout.pages_per_bucket, layout.data_pages) < (b.pages_per_bucket, b.data_pages)
            });
            if within && better {
                best = Some(layout);
            }
        }
        best.expect("bucket bits 0 always fit")
    }

    /// The layout of a file of `blocks` with `2^bucket_bits` buckets.
    fn with_bucket_bits(
        identity: IndexIdentity,
        hashes: u32,
        minimizer: u32,
        blocks: &[BlockSummary],
        bucket_bits: u32,
    ) -> Layout {
        let geometry = blocks
            .iter()
            .map(|b| BlockGeometry {
                first_document: b.first_document,
                document_count: b.document_count,
                kmers_estimate: b.kmers_estimate,
                words_log2: b.filter.words_log2(),
                key_bits: b.filter.key_bits(),
                segment_log2: 0,
                segment_offset: 0,
            })
            .collect();
        Layout::assemble(VERSION, identity, hashes, minimizer, bucket_bits, geometry)
    }

    /// The layout of these fields and blocks, its geometry derived ([`Layout::place`]).
    fn assemble(
        version: u32,
        identity: IndexIdentity,
        hashes: u32,
        minimizer: u32,
        bucket_bits: u32,
        blocks: Vec<BlockGeometry>,
    ) -> Layout {
        let mut layout = Layout {
            version,
            identity,
            hashes,
            minimizer,
            bucket_bits,
            bucket_words: 0,
            buckets_per_page: 0,
            pages_per_bucket: 0,
            data_pages: 0,
            header_pages: 0,
            blocks,
        };
        layout.place();
        layout
    }

    /// This layout in format version `version` (2: without the content digest), for tests
    /// of files written by earlier versions.
    #[cfg(test)]
    pub(crate) fn in_version(mut self, version: u32) -> Layout {
        self.version = version;
        self.place();
        self
    }

    /// Derives the segments, the bucket size and the page counts from the blocks and the
    /// bucket bits.
    fn place(&mut self) {
        let mut offset = 0u64;
        for block in &mut self.blocks {
            block.segment_log2 = block
                .words_log2
                .saturating_sub(self.bucket_bits)
                .max(block.key_bits);
            block.segment_offset = offset;
            offset += 1 << block.segment_log2;
        }
        self.bucket_words = offset.max(1);
        let bucket_bytes = 8 * self.bucket_words;
        let buckets = 1u64 << self.bucket_bits;
        if bucket_bytes <= PAYLOAD_BYTES {
            self.buckets_per_page = PAYLOAD_BYTES / bucket_bytes;
            self.pages_per_bucket = 1;
            self.data_pages = buckets.div_ceil(self.buckets_per_page);
        } else {
            self.buckets_per_page = 0;
            self.pages_per_bucket = bucket_bytes.div_ceil(PAYLOAD_BYTES);
            self.data_pages = buckets * self.pages_per_bucket;
        }
        let header_bytes = fixed_bytes(self.version) + BLOCK_BYTES * self.blocks.len() + 8;
        self.header_pages = (header_bytes as u64).div_ceil(PAGE_BYTES);
    }

    /// Bytes of the whole file.
    pub fn file_bytes(&self) -> u64 {
        (self.header_pages + self.data_pages) * PAGE_BYTES
    }

    /// Pages of one bucket.
    pub fn pages_per_bucket(&self) -> u64 {
        self.pages_per_bucket
    }

    /// The bucket of a k-mer whose probe is `probe`.
    #[inline]
    pub(crate) fn bucket(&self, probe: &Probe) -> u64 {
        probe.bucket(self.bucket_bits)
    }

    /// The first file page of bucket `bucket` (it spans [`pages_per_bucket`] pages).
    ///
    /// [`pages_per_bucket`]: Self::pages_per_bucket
    #[inline]
    pub(crate) fn bucket_page(&self, bucket: u64) -> u64 {
        let data_page = match self.buckets_per_page {
            0 => bucket * self.pages_per_bucket,
            per_page => bucket / per_page,
        };
        self.header_pages + data_page
    }

    /// Where block `block`'s word for `probe` lies: pages after the bucket's first page, and
    /// the byte offset within that page.
    #[inline]
    pub(crate) fn word_at(&self, bucket: u64, block: usize, probe: &Probe) -> (u64, usize) {
        let geometry = &self.blocks[block];
        let position = probe.position(geometry.words_log2, geometry.key_bits);
        let within = position & ((1u64 << geometry.segment_log2) - 1);
        let start = match self.buckets_per_page {
            0 => 0,
            per_page => (bucket % per_page) * 8 * self.bucket_words,
        };
        let byte = start + 8 * (geometry.segment_offset + within);
        (byte / PAYLOAD_BYTES, (byte % PAYLOAD_BYTES) as usize)
    }

    /// Checks data page `page` (a file page number) against its checksum.
    pub(crate) fn check_page(&self, page: u64, bytes: &[u8]) -> Result<(), Damage> {
        if page < self.header_pages || bytes.len() != PAGE_BYTES as usize {
            return Err(Damage(format!("page {page} is not a data page")));
        }
        let data_page = page - self.header_pages;
        let (payload, trailer) = bytes.split_at(PAYLOAD_BYTES as usize);
        let expected = xxh64(payload, self.identity.fingerprint ^ data_page);
        if trailer != expected.to_le_bytes() {
            return Err(Damage("checksum mismatch".into()));
        }
        Ok(())
    }

    /// The header pages.
    pub(crate) fn encode_header(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity((self.header_pages * PAGE_BYTES) as usize);
        let id = &self.identity;
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&SCHEME.to_le_bytes());
        out.extend_from_slice(&id.k.to_le_bytes());
        out.extend_from_slice(&[id.canonical as u8, 0, 0, 0]);
        out.extend_from_slice(&id.num_hashes.to_le_bytes());
        out.extend_from_slice(&self.hashes.to_le_bytes());
        out.extend_from_slice(&self.minimizer.to_le_bytes());
        out.extend_from_slice(&self.bucket_bits.to_le_bytes());
        for value in [
            self.blocks.len() as u64,
            id.documents,
            id.fingerprint,
            8 * self.bucket_words,
            self.buckets_per_page,
            self.pages_per_bucket,
            self.data_pages,
            self.header_pages,
        ] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        if self.version != VERSION_UNBOUND {
            out.extend_from_slice(&id.content.to_le_bytes());
            out.extend_from_slice(&id.checksums.to_le_bytes());
        }
        debug_assert_eq!(out.len(), fixed_bytes(self.version));
        for block in &self.blocks {
            out.extend_from_slice(&block.first_document.to_le_bytes());
            out.extend_from_slice(&block.document_count.to_le_bytes());
            out.extend_from_slice(&block.words_log2.to_le_bytes());
            out.extend_from_slice(&block.key_bits.to_le_bytes());
            out.extend_from_slice(&block.kmers_estimate.to_le_bytes());
        }
        let checksum = xxh64(&out, 0);
        out.extend_from_slice(&checksum.to_le_bytes());
        out.resize((self.header_pages * PAGE_BYTES) as usize, 0);
        out
    }

    /// The number of header pages a file starting with `first_page` has (at least one), so
    /// that a reader knows how much to read before [`decode_header`](Self::decode_header).
    pub(crate) fn header_pages_of(first_page: &[u8]) -> Result<u64, Damage> {
        if first_page.len() < fixed_bytes(VERSION_UNBOUND) || &first_page[..8] != MAGIC {
            return Err(Damage(
                "not a format-2 bitsift summaries file (bad magic or too short)".into(),
            ));
        }
        let version = u32_at(first_page, 8);
        if version != VERSION && version != VERSION_UNBOUND {
            return Err(Damage(format!(
                "format version {version} is not supported (this bitsift reads versions 1, {VERSION_UNBOUND} and {VERSION})"
            )));
        }
        let fixed = fixed_bytes(version);
        if first_page.len() < fixed {
            return Err(Damage("the header is truncated".into()));
        }
        let pages = u64_at(first_page, 96);
        let blocks = u64_at(first_page, 40);
        let needed =
            (fixed as u128 + BLOCK_BYTES as u128 * blocks as u128 + 8).div_ceil(PAGE_BYTES as u128);
        if pages == 0 || pages as u128 != needed {
            return Err(Damage(format!(
                "{pages} header pages recorded for {blocks} blocks"
            )));
        }
        Ok(pages)
    }

    /// Decodes the header pages, checking every field, and the file's length.
    pub(crate) fn decode_header(bytes: &[u8], file_bytes: u64) -> Result<Layout, Damage> {
        let pages = Layout::header_pages_of(bytes)?;
        if (bytes.len() as u64) < pages * PAGE_BYTES {
            return Err(Damage("the header is truncated".into()));
        }
        let version = u32_at(bytes, 8);
        let blocks = u64_at(bytes, 40) as usize;
        let table_end = fixed_bytes(version) + BLOCK_BYTES * blocks;
        if u64_at(bytes, table_end) != xxh64(&bytes[..table_end], 0) {
            return Err(Damage("header checksum mismatch".into()));
        }
        let padding = &bytes[table_end + 8..(pages * PAGE_BYTES) as usize];
        if padding.iter().any(|&b| b != 0) {
            return Err(Damage("the header's padding is not zero".into()));
        }
        let layout = Layout::decode_fields(version, bytes, blocks)?;
        if layout.file_bytes() != file_bytes {
            return Err(Damage(format!(
                "truncated or extended (the file has {file_bytes} bytes, its header describes {})",
                layout.file_bytes()
            )));
        }
        Ok(layout)
    }

    /// Decodes the fields of a header whose checksum matched, and checks that they describe
    /// the layout this code would write for them.
    fn decode_fields(version: u32, bytes: &[u8], count: usize) -> Result<Layout, Damage> {
        let (scheme, hashes, canonical) = (u32_at(bytes, 12), u32_at(bytes, 28), bytes[20]);
        let (minimizer, bucket_bits) = (u32_at(bytes, 32), u32_at(bytes, 36));
        if scheme != SCHEME || !(1..=HASHES_MAX).contains(&hashes) || canonical > 1 {
            return Err(Damage(format!(
                "unknown key scheme {scheme}, bit count {hashes} or canonical flag {canonical}"
            )));
        }
        if !(1..=crate::kmer::M_MAX).contains(&minimizer) || bucket_bits > WORDS_LOG2_MAX {
            return Err(Damage(format!(
                "minimizer length {minimizer} or bucket bits {bucket_bits} out of range"
            )));
        }
        let mut blocks = Vec::with_capacity(count);
        for b in 0..count {
            let at = fixed_bytes(version) + BLOCK_BYTES * b;
            let (words_log2, key_bits) = (u32_at(bytes, at + 16), u32_at(bytes, at + 20));
            if words_log2 > WORDS_LOG2_MAX || key_bits > words_log2 {
                return Err(Damage(format!(
                    "block {b}: a filter of 2^{words_log2} words in buckets of 2^{key_bits}"
                )));
            }
            blocks.push(BlockGeometry {
                first_document: u64_at(bytes, at),
                document_count: u64_at(bytes, at + 8),
                kmers_estimate: u64_at(bytes, at + 24),
                words_log2,
                key_bits,
                segment_log2: 0,
                segment_offset: 0,
            });
        }
        let identity = IndexIdentity {
            k: u32_at(bytes, 16),
            canonical: canonical == 1,
            num_hashes: u32_at(bytes, 24),
            documents: u64_at(bytes, 48),
            fingerprint: u64_at(bytes, 56),
            content: if version == VERSION_UNBOUND {
                0
            } else {
                u64_at(bytes, 104)
            },
            checksums: if version == VERSION_UNBOUND {
                0
            } else {
                u64_at(bytes, 112)
            },
        };
        let layout = Layout::assemble(version, identity, hashes, minimizer, bucket_bits, blocks);
        let recorded = [64, 72, 80, 88, 96].map(|at| u64_at(bytes, at));
        let derived = [
            8 * layout.bucket_words,
            layout.buckets_per_page,
            layout.pages_per_bucket,
            layout.data_pages,
            layout.header_pages,
        ];
        if recorded != derived {
            return Err(Damage(format!(
                "bucket geometry {recorded:?} does not follow from the blocks ({derived:?})"
            )));
        }
        Ok(layout)
    }

    /// Writes the data pages of `filters` (one per block, in block order, of the geometry
    /// the layout was planned for).
    pub(crate) fn write_data(
        &self,
        filters: &[&Filter],
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        assert_eq!(filters.len(), self.blocks.len(), "one filter per block");
        let mut page = PageWriter {
            bytes: vec![0; PAGE_BYTES as usize],
            used: 0,
            number: 0,
            seed: self.identity.fingerprint,
        };
        for bucket in 0..1u64 << self.bucket_bits {
            let starts_page = match self.buckets_per_page {
                0 => true,
                per_page => bucket % per_page == 0,
            };
            if starts_page && bucket > 0 {
                page.flush(out)?;
            }
            for (geometry, filter) in self.blocks.iter().zip(filters) {
                debug_assert_eq!(filter.words_log2(), geometry.words_log2);
                for &word in self.segment(geometry, filter.words(), bucket) {
                    page.push(word, out)?;
                }
            }
        }
        page.flush(out)?;
        debug_assert_eq!(page.number, self.data_pages);
        Ok(())
    }

    /// Block `geometry`'s words (`words`, its whole filter) in bucket `bucket`.
    fn segment<'w>(&self, geometry: &BlockGeometry, words: &'w [u64], bucket: u64) -> &'w [u64] {
        let first = self.segment_start(geometry, bucket);
        &words[first as usize..(first + (1u64 << geometry.segment_log2)) as usize]
    }

    /// The first word of block `geometry`'s filter that bucket `bucket` holds: a block with
    /// fewer bucket bits than the file repeats its fine bucket in every bucket it covers.
    fn segment_start(&self, geometry: &BlockGeometry, bucket: u64) -> u64 {
        let len = 1u64 << geometry.segment_log2;
        let bucket_bits = geometry.words_log2 - geometry.key_bits;
        if bucket_bits >= self.bucket_bits {
            bucket * len
        } else {
            (bucket >> (self.bucket_bits - bucket_bits)) * len
        }
    }

    /// Every block's filter, from the data pages (`data`, all of them, checked).
    pub(crate) fn read_filters(&self, data: &[u8]) -> Result<Vec<Filter>, Damage> {
        if data.len() as u64 != self.data_pages * PAGE_BYTES {
            return Err(Damage(
                "truncated or extended (the data pages do not match the header)".into(),
            ));
        }
        for (number, page) in data.chunks(PAGE_BYTES as usize).enumerate() {
            self.check_page(self.header_pages + number as u64, page)
                .map_err(|e| {
                    Damage(format!("{e} in page {}", self.header_pages + number as u64))
                })?;
        }
        let mut words: Vec<Vec<u64>> = self
            .blocks
            .iter()
            .map(|b| vec![0; 1 << b.words_log2])
            .collect();
        for bucket in 0..1u64 << self.bucket_bits {
            let first_page = (self.bucket_page(bucket) - self.header_pages) * PAGE_BYTES;
            for (number, geometry) in self.blocks.iter().enumerate() {
                let first = self.segment_start(geometry, bucket);
                for x in 0..1u64 << geometry.segment_log2 {
                    let byte = self.word_byte(bucket, geometry, x);
                    let at = (first_page
                        + (byte / PAYLOAD_BYTES) * PAGE_BYTES
                        + byte % PAYLOAD_BYTES) as usize;
                    words[number][(first + x) as usize] = u64_at(data, at);
                }
            }
        }
        Ok(words
            .into_iter()
            .zip(&self.blocks)
            .map(|(w, g)| Filter::from_words(w, g.key_bits, self.hashes))
            .collect())
    }

    /// Byte offset, from its bucket's first page, of word `x` of block `geometry`'s segment.
    fn word_byte(&self, bucket: u64, geometry: &BlockGeometry, x: u64) -> u64 {
        let start = match self.buckets_per_page {
            0 => 0,
            per_page => (bucket % per_page) * 8 * self.bucket_words,
        };
        start + 8 * (geometry.segment_offset + x)
    }
}

/// Fills data pages with words and writes each with its checksum.
struct PageWriter {
    bytes: Vec<u8>,
    used: usize,
    number: u64,
    seed: u64,
}

impl PageWriter {
    fn push(&mut self, word: u64, out: &mut impl Write) -> std::io::Result<()> {
        if self.used == PAYLOAD_BYTES as usize {
            self.flush(out)?;
        }
        self.bytes[self.used..self.used + 8].copy_from_slice(&word.to_le_bytes());
        self.used += 8;
        Ok(())
    }

    fn flush(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let payload = PAYLOAD_BYTES as usize;
        self.bytes[self.used..payload].fill(0);
        let checksum = xxh64(&self.bytes[..payload], self.seed ^ self.number);
        self.bytes[payload..].copy_from_slice(&checksum.to_le_bytes());
        out.write_all(&self.bytes)?;
        self.number += 1;
        self.used = 0;
        Ok(())
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}
