//! The hot loop of every query: adding a read row into per-document counters.
//!
//! `cargo bench --bench accumulate`. A 4096-byte row is one block row of a large collection
//! (32,768 documents); 64 bytes is a small collection's row.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use bitsift::query::accumulate::add_row;

fn rows(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_row");
    for row_bytes in [64usize, 512, 4096] {
        // A Bloom row at fill ~0.4: a fixed pseudo-random pattern.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let row: Vec<u8> = (0..row_bytes)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state as u8) & (state >> 8) as u8 | (state >> 16) as u8 & 0x11
            })
            .collect();
        let mut counters = vec![0u32; row_bytes * 8];
        group.throughput(Throughput::Bytes(row_bytes as u64));
        group.bench_with_input(BenchmarkId::from_parameter(row_bytes), &row, |b, row| {
            b.iter(|| add_row(std::hint::black_box(&mut counters), row, 1))
        });
    }
    group.finish();
}

criterion_group!(benches, rows);
criterion_main!(benches);
