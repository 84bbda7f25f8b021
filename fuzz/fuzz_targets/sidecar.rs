//! The checksum sidecar parser on any bytes: raw input, or a valid sidecar (built here from
//! the input's parameters, independently of bitsift's encoder) with a few edits.
//!
//! Whatever the input: no panic, no allocation beyond the input's size, and a sidecar that
//! decodes encodes back to exactly the same bytes (nothing is accepted that is not canonical).

#![no_main]

use std::path::Path;

use arbitrary::{Arbitrary, Unstructured};
use bitsift::format::Checksums;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Parameters {
    file_size: u16,
    header_bytes: u16,
    header_checksum: u32,
    seed: u32,
    edits: Vec<(u16, u8)>,
    cut: Option<u16>,
}

/// A valid sidecar, written from the layout in docs/formats.md.
fn sidecar(p: &Parameters) -> Vec<u8> {
    let file_size = p.file_size as u64 * 37;
    let pages = file_size.div_ceil(4096);
    let mut out = b"\x89bitsift-crc\r\n\x1a\n".to_vec();
    for word in [1u32, 1, 4096, 0] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&file_size.to_le_bytes());
    out.extend_from_slice(&(p.header_bytes as u64).min(file_size).to_le_bytes());
    out.extend_from_slice(&p.header_checksum.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&pages.to_le_bytes());
    for page in 0..pages as u32 {
        out.extend_from_slice(&(page.wrapping_mul(p.seed)).to_le_bytes());
    }
    let own = crc32c::crc32c(&out);
    out.extend_from_slice(&own.to_le_bytes());
    out
}

fn check(bytes: &[u8]) {
    if let Ok(checksums) = Checksums::decode(Path::new("fuzz.cobs_compact"), bytes) {
        assert_eq!(checksums.encode(), bytes);
        assert_eq!(checksums.page_count(), checksums.file_size().div_ceil(4096));
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    match u.arbitrary::<Option<Parameters>>() {
        Ok(Some(p)) => {
            let mut bytes = sidecar(&p);
            let untouched = p.edits.iter().all(|&(_, v)| v == 0) && p.cut.is_none();
            for &(at, value) in &p.edits {
                let at = at as usize % bytes.len();
                bytes[at] ^= value;
            }
            if let Some(cut) = p.cut {
                bytes.truncate(cut as usize);
            }
            if untouched {
                let decoded = Checksums::decode(Path::new("fuzz.cobs_compact"), &bytes);
                assert!(decoded.is_ok(), "a valid sidecar is refused: {decoded:?}");
            }
            check(&bytes);
        }
        _ => check(data),
    }
});
