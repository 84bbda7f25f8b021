//! The cost of checking reads against the checksum sidecar (issue 12): one CRC-32C per 4 KiB
//! page read, compared with `add_row` on the same 4096 bytes (the hot loop of a query).
//!
//! `cargo bench --bench checksums`.

use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use bitsift::format::Checksums;
use bitsift::query::accumulate::add_row;

/// Pseudo-random bytes (a Bloom filter looks random).
fn bytes(len: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

/// The sidecar of a file holding `data`, laid out as docs/formats.md says.
fn checksums_of(data: &[u8]) -> Checksums {
    let mut out = b"\x89bitsift-crc\r\n\x1a\n".to_vec();
    for word in [1u32, 1, 4096, 0] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(data.len().div_ceil(4096) as u64).to_le_bytes());
    for page in data.chunks(4096) {
        out.extend_from_slice(&crc32c::crc32c(page).to_le_bytes());
    }
    let own = crc32c::crc32c(&out);
    out.extend_from_slice(&own.to_le_bytes());
    Checksums::decode(Path::new("bench.cobs_compact"), &out).expect("a valid sidecar")
}

fn verify(c: &mut Criterion) {
    let data = bytes(8 << 20);
    let checksums = checksums_of(&data);
    let mut group = c.benchmark_group("verify");
    for read_bytes in [4096usize, 256 << 10] {
        group.throughput(Throughput::Bytes(read_bytes as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(read_bytes),
            &read_bytes,
            |b, &len| {
                let mut offset = 0usize;
                b.iter(|| {
                    offset = (offset + len) % data.len();
                    checksums
                        .verify(
                            offset as u64,
                            std::hint::black_box(&data[offset..offset + len]),
                        )
                        .expect("intact")
                })
            },
        );
    }
    let row = &data[..4096];
    let mut counters = vec![0u32; 4096 * 8];
    group.throughput(Throughput::Bytes(4096));
    group.bench_function("add_row_4096_for_comparison", |b| {
        b.iter(|| add_row(std::hint::black_box(&mut counters), row, 1))
    });
    group.finish();
}

criterion_group!(benches, verify);
criterion_main!(benches);
