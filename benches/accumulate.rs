//! The hot loop of every query: adding a read row into per-document counters.
//!
//! `cargo bench --bench accumulate`. A 4096-byte row is one block row of a large collection
//! (32,768 documents); 64 bytes is a small collection's row, 32 bytes a row of COBS's own
//! layout of 8,192 documents. `u32` is the counter-per-document loop bitsift used before
//! bit-sliced counters; `sliced/row` adds one row into bit planes, `sliced/tree16` sixteen
//! rows at once through a carry-save tree (throughput counts all sixteen).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use bitsift::query::accumulate::add_row;
use bitsift::query::sliced::{planes_for, words_for, SlicedCounters, TREE_ROWS};

/// A Bloom row at fill ~0.4: a fixed pseudo-random pattern.
fn bloom_row(row_bytes: usize, seed: u64) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ seed;
    (0..row_bytes)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state as u8) & (state >> 8) as u8 | (state >> 16) as u8 & 0x11
        })
        .collect()
}

fn rows(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_row");
    for row_bytes in [32usize, 64, 512, 4096] {
        let row = bloom_row(row_bytes, 0);
        let mut counters = vec![0u32; row_bytes * 8];
        group.throughput(Throughput::Bytes(row_bytes as u64));
        group.bench_with_input(BenchmarkId::new("u32", row_bytes), &row, |b, row| {
            b.iter(|| add_row(std::hint::black_box(&mut counters), row, 1))
        });
        // Enough planes that criterion's millions of iterations never overflow.
        let planes = planes_for(1 << 40);
        let mut data = vec![0u64; words_for(row_bytes, planes)];
        group.bench_with_input(BenchmarkId::new("sliced/row", row_bytes), &row, |b, row| {
            let mut sliced = SlicedCounters::new(&mut data, row_bytes, planes);
            b.iter(|| sliced.add_row(std::hint::black_box(row), 1))
        });
        let tree: Vec<Vec<u8>> = (0..TREE_ROWS as u64)
            .map(|s| bloom_row(row_bytes, s))
            .collect();
        let refs: Vec<&[u8]> = tree.iter().map(Vec::as_slice).collect();
        group.throughput(Throughput::Bytes((row_bytes * TREE_ROWS) as u64));
        group.bench_with_input(
            BenchmarkId::new("sliced/tree16", row_bytes),
            &refs,
            |b, refs| {
                let mut sliced = SlicedCounters::new(&mut data, row_bytes, planes);
                b.iter(|| sliced.add_rows(std::hint::black_box(refs)))
            },
        );
    }
    group.finish();
}

criterion_group!(benches, rows);
criterion_main!(benches);
