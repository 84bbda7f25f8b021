//! The cost of reading bases by one rule (`bitsift::alphabet::normalize`): every query and
//! every genome of a build goes through it once, so it must stay far below the k-mer work.
//!
//! `cargo bench --bench alphabet`. 4 Mbp of pseudo-random bases: uppercase, soft-masked (a
//! lowercase stretch every 10 kb), and COBS's rule (a check without rewriting).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use bitsift::alphabet::{normalize, BaseReading};

const BASES: usize = 4_000_000;

fn genome(soft_masked: bool) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    (0..BASES)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let base = b"ACGT"[(state & 3) as usize];
            if soft_masked && i % 10_000 < 2_000 {
                base.to_ascii_lowercase()
            } else {
                base
            }
        })
        .collect()
}

fn readings(c: &mut Criterion) {
    let mut group = c.benchmark_group("normalize");
    group.throughput(Throughput::Bytes(BASES as u64));
    let cases = [
        ("standard-upper", genome(false), BaseReading::Standard),
        ("standard-soft-masked", genome(true), BaseReading::Standard),
        ("cobs", genome(true), BaseReading::Cobs { fold_case: false }),
    ];
    for (name, sequence, reading) in cases {
        group.bench_with_input(BenchmarkId::from_parameter(name), &sequence, |b, input| {
            let mut scratch = Vec::with_capacity(input.len());
            b.iter(|| {
                scratch.clear();
                scratch.extend_from_slice(input);
                normalize(std::hint::black_box(&mut scratch), reading)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, readings);
criterion_main!(benches);
