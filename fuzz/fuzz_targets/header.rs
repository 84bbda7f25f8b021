//! The index header parser on any bytes: either raw input, or a valid compact or classic index
//! built from the input's parameters and then damaged by a few edits, a truncation or an
//! extension (so the fuzzer reaches deep into valid-looking headers quickly).
//!
//! Whatever the input: no panic, no allocation beyond what the file could hold, and a header
//! that parses describes exactly the bytes it was parsed from.

#![no_main]

use std::path::Path;

use arbitrary::{Arbitrary, Unstructured};
use bitsift::format::{write_compact_header, CompactLayout, HeaderOptions, IndexHeader};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Damage {
    edits: Vec<(u16, u8)>,
    cut: Option<u16>,
    extend: u8,
}

fn compact(u: &mut Unstructured) -> arbitrary::Result<Vec<u8>> {
    let page_size = u.int_in_range(1..=64u64)?;
    let documents = u.int_in_range(1..=300usize)?;
    let names: Vec<String> = (0..documents)
        .map(|d| format!("d{d}{}", "x".repeat(u.int_in_range(0..=3).unwrap_or(0))))
        .collect();
    let blocks = (documents as u64).div_ceil(8 * page_size) as usize;
    let layout = CompactLayout {
        k: u.int_in_range(1..=64)?,
        canonical: u.arbitrary()?,
        num_hashes: u.int_in_range(1..=4)?,
        page_size,
        block_rows: (0..blocks)
            .map(|_| u.int_in_range(1..=40u64))
            .collect::<arbitrary::Result<_>>()?,
        rows: bitsift::format::RowLayout::Cobs,
    };
    let mut file = write_compact_header(&layout, names.iter().map(String::as_str))
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    file.resize(file.len() + layout.data_bytes() as usize, 0xA5);
    Ok(file)
}

fn classic(u: &mut Unstructured) -> arbitrary::Result<Vec<u8>> {
    let documents = u.int_in_range(1..=100u32)?;
    let rows = u.int_in_range(1..=50u64)?;
    let mut file = b"COBS:CLASSIC_INDEX".to_vec();
    file.extend_from_slice(&1u32.to_le_bytes());
    file.extend_from_slice(&u.int_in_range(1..=64u32)?.to_le_bytes());
    file.push(u.int_in_range(0..=1u8)?);
    file.extend_from_slice(&documents.to_le_bytes());
    file.extend_from_slice(&rows.to_le_bytes());
    file.extend_from_slice(&u.int_in_range(1..=4u64)?.to_le_bytes());
    for d in 0..documents {
        file.extend_from_slice(format!("g{d}\n").as_bytes());
    }
    file.extend_from_slice(b"CLASSIC_INDEX");
    file.resize(
        file.len() + (rows * documents.div_ceil(8) as u64) as usize,
        0x5A,
    );
    Ok(file)
}

fn damage(mut file: Vec<u8>, damage: &Damage) -> Vec<u8> {
    for &(at, value) in &damage.edits {
        if !file.is_empty() {
            let at = at as usize % file.len();
            file[at] ^= value;
        }
    }
    if let Some(cut) = damage.cut {
        file.truncate(cut as usize);
    }
    file.extend(std::iter::repeat_n(0, damage.extend as usize));
    file
}

fn check(bytes: &[u8]) {
    let path = Path::new("fuzz.cobs_compact");
    for options in [
        HeaderOptions::default(),
        HeaderOptions {
            legacy_k: Some(31),
            legacy_canonical: Some(false),
        },
    ] {
        if let Ok(header) = IndexHeader::from_bytes(path, bytes, &options) {
            assert_eq!(header.file_size, bytes.len() as u64);
            assert_eq!(header.data_offset + header.data_bytes(), header.file_size);
            assert_eq!(
                header.document_count(),
                header.names.all().unwrap().iter().count() as u64
            );
            let mut next = header.data_offset;
            let mut first = 0;
            for block in &header.blocks {
                assert_eq!(block.data_offset, next, "blocks are back to back");
                assert_eq!(block.first_document, first, "documents in order");
                assert!(block.row_count > 0 && block.document_count > 0);
                assert!(block.document_count <= 8 * block.row_bytes);
                next += block.data_bytes();
                first += block.document_count;
            }
            assert_eq!(first, header.document_count());
            assert!((1..=64).contains(&header.k));
            assert!((1..=32).contains(&header.num_hashes));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mode: u8 = u.arbitrary().unwrap_or(0);
    let built = match mode % 3 {
        0 => None,
        1 => compact(&mut u).ok(),
        _ => classic(&mut u).ok(),
    };
    match built {
        Some(file) => {
            let edits: Damage = u.arbitrary().unwrap_or(Damage {
                edits: Vec::new(),
                cut: None,
                extend: 0,
            });
            check(&damage(file, &edits));
        }
        None => check(data),
    }
});
