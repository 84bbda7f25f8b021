//! Property tests of the parsers that read untrusted bytes: index headers, checksum sidecars
//! and FASTA/FASTQ. The stable counterpart of the cargo-fuzz targets in `fuzz/`.
//!
//! Each property runs `BITSIFT_FUZZ_CASES` cases (default 2,000, a few seconds in all). For a
//! long run outside CI: `BITSIFT_FUZZ_CASES=100000 cargo test --release --test parsers`.

use std::path::Path;

use bitsift::format::{write_compact_header, Checksums, CompactLayout, HeaderOptions, IndexHeader};
use bitsift::seqfile::{SeqReader, SeqRecord};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("BITSIFT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A valid compact index: header from bitsift's writer, rows of a fixed pattern.
fn compact_index(k: u32, hashes: u32, page_size: u64, documents: usize, rows: &[u64]) -> Vec<u8> {
    let names: Vec<String> = (0..documents).map(|d| format!("genome_{d}")).collect();
    let blocks = (documents as u64).div_ceil(8 * page_size) as usize;
    let layout = CompactLayout {
        k,
        canonical: true,
        num_hashes: hashes,
        page_size,
        block_rows: (0..blocks).map(|b| rows[b % rows.len()]).collect(),
        rows: bitsift::format::RowLayout::Cobs,
    };
    let mut file = write_compact_header(&layout, names.iter().map(String::as_str)).unwrap();
    file.resize(file.len() + layout.data_bytes() as usize, 0xA5);
    file
}

/// Parses `bytes` as a whole index; when it parses, the header must describe exactly these
/// bytes, within the documented bounds.
fn parse_consistently(bytes: &[u8]) -> Result<IndexHeader, String> {
    let header = IndexHeader::from_bytes(
        Path::new("p.cobs_compact"),
        bytes,
        &HeaderOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    assert_eq!(header.file_size, bytes.len() as u64);
    assert_eq!(header.data_offset + header.data_bytes(), header.file_size);
    let mut next = header.data_offset;
    let mut first = 0;
    for block in &header.blocks {
        assert_eq!((block.data_offset, block.first_document), (next, first));
        assert!(block.row_count > 0 && block.document_count > 0);
        next += block.data_bytes();
        first += block.document_count;
    }
    assert_eq!(first, header.document_count());
    assert!((1..=64).contains(&header.k) && (1..=32).contains(&header.num_hashes));
    Ok(header)
}

/// A valid sidecar, written from the layout in docs/formats.md (independently of bitsift's
/// encoder).
fn sidecar(file_size: u64, header_bytes: u64, header_checksum: u32, seed: u32) -> Vec<u8> {
    let pages = file_size.div_ceil(4096);
    let mut out = b"\x89bitsift-crc\r\n\x1a\n".to_vec();
    for word in [1u32, 1, 4096, 0] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&file_size.to_le_bytes());
    out.extend_from_slice(&header_bytes.min(file_size).to_le_bytes());
    out.extend_from_slice(&header_checksum.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&pages.to_le_bytes());
    for page in 0..pages as u32 {
        out.extend_from_slice(&page.wrapping_mul(seed).to_le_bytes());
    }
    let own = crc32c::crc32c(&out);
    out.extend_from_slice(&own.to_le_bytes());
    out
}

fn read_all(bytes: Vec<u8>) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut reader = SeqReader::from_reader(Path::new("p.fa"), std::io::Cursor::new(bytes))
        .map_err(|e| e.to_string())?;
    let mut record = SeqRecord::default();
    let mut records = Vec::new();
    while reader.next_into(&mut record).map_err(|e| e.to_string())? {
        records.push((record.name.clone(), record.sequence.clone()));
    }
    Ok(records)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn valid_compact_indexes_parse_and_damaged_ones_never_panic(
        k in 1u32..=64,
        hashes in 1u32..=4,
        page_size in 1u64..=40,
        documents in 1usize..200,
        rows in prop::collection::vec(1u64..30, 1..4),
        edits in prop::collection::vec((any::<u16>(), 1u8..=255), 0..5),
        cut in prop::option::of(any::<u16>()),
    ) {
        let file = compact_index(k, hashes, page_size, documents, &rows);
        let header = parse_consistently(&file).unwrap();
        prop_assert_eq!((header.k, header.num_hashes, header.page_size), (k, hashes, page_size));
        let mut damaged = file.clone();
        for &(at, value) in &edits {
            let at = at as usize % damaged.len();
            damaged[at] ^= value;
        }
        if let Some(cut) = cut {
            damaged.truncate(cut as usize);
        }
        let _ = parse_consistently(&damaged);
    }

    #[test]
    fn random_bytes_after_a_cobs_magic_never_panic(
        magic in prop::sample::select(vec![&b"COBS:COMPACT_INDEX"[..], &b"COBS:CLASSIC_INDEX"[..], &b"COBS:DOCUMENT"[..], &b""[..]]),
        tail in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let mut bytes = magic.to_vec();
        bytes.extend_from_slice(&tail);
        let _ = parse_consistently(&bytes);
    }

    #[test]
    fn sidecars_round_trip_and_every_single_bit_flip_is_refused(
        file_size in 0u64..200_000,
        header_bytes in 0u64..10_000,
        header_checksum in any::<u32>(),
        seed in any::<u32>(),
        bit in any::<u32>(),
        cut in any::<u16>(),
    ) {
        let path = Path::new("p.cobs_compact");
        let bytes = sidecar(file_size, header_bytes, header_checksum, seed);
        let checksums = Checksums::decode(path, &bytes).unwrap();
        prop_assert_eq!(checksums.encode(), bytes.clone());
        prop_assert_eq!(checksums.file_size(), file_size);
        let bit = bit as usize % (8 * bytes.len());
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(Checksums::decode(path, &flipped).is_err());
        let cut = cut as usize % bytes.len();
        prop_assert!(Checksums::decode(path, &bytes[..cut]).is_err());
    }

    #[test]
    fn random_sidecar_bytes_never_panic(
        tail in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        let mut bytes = b"\x89bitsift-crc\r\n\x1a\n".to_vec();
        bytes.extend_from_slice(&tail);
        if let Ok(checksums) = Checksums::decode(Path::new("p.cobs_compact"), &bytes) {
            prop_assert_eq!(checksums.encode(), bytes);
        }
    }

    #[test]
    fn fasta_and_fastq_records_read_back_as_written(
        records in prop::collection::vec(("[A-Za-z0-9_.|-]{1,12}", "[ACGTNacgt]{1,200}"), 1..12),
        width in 1usize..90,
        fastq in any::<bool>(),
        crlf in any::<bool>(),
    ) {
        let end = if crlf && !fastq { "\r\n" } else { "\n" };
        let mut text = String::new();
        for (name, sequence) in &records {
            if fastq {
                text += &format!("@{name} description\n{sequence}\n+\n{}\n", "I".repeat(sequence.len()));
            } else {
                text += &format!(">{name} description{end}");
                for line in sequence.as_bytes().chunks(width) {
                    text += std::str::from_utf8(line).unwrap();
                    text += end;
                }
            }
        }
        let read = read_all(text.into_bytes()).unwrap();
        let expected: Vec<(String, Vec<u8>)> = records
            .iter()
            .map(|(n, s)| (n.clone(), s.as_bytes().to_vec()))
            .collect();
        prop_assert_eq!(read, expected);
    }

    #[test]
    fn sequence_text_with_any_structure_never_panics_the_reader(
        bytes in prop::collection::vec(
            prop::sample::select(b">@+\n\r ACGTNacgt\x1f\x8b\xfd7zXZ\0".to_vec()),
            0..400,
        ),
    ) {
        if let Ok(records) = read_all(bytes) {
            for (name, sequence) in records {
                prop_assert!(!name.bytes().any(|b| b.is_ascii_whitespace()));
                prop_assert!(!sequence.contains(&b'\n') && !sequence.contains(&b'\r'));
            }
        }
    }
}
