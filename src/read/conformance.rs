//! The read path's layers under the engines' conformance suite, and what only they do.
//!
//! [`layered_engines`] puts every engine (bare, and with transient faults) under the checksum
//! layer, the row cache, and both: the checks of `crate::io`'s conformance suite run over all
//! of them with the same batches and expect the same bytes. The tests here check what the layers add:
//! a page changed on disk fails exactly the reads that cover it, with its offset; a flipped
//! bit never reaches the consumer; a sidecar page that cannot be read fails the reads whose
//! checks need it, and only those; the row cache serves a repeated batch without a read.

use std::path::PathBuf;

use super::testing::{files_with_sidecars, Stack, Which};
use crate::io::conformance::{
    bare_engines, expected, faulty_engines, read_all, reports_reads_beyond_the_end,
    returns_the_requested_bytes, skips_requests_the_consumer_no_longer_wants, spread_requests,
    two_files,
};
use crate::io::{FaultPlan, IoCounters, ReadBatch, ReadEngine};

const LAYERS: [(&str, Which); 3] = [
    (
        "checks",
        Which {
            checks: true,
            cache: false,
        },
    ),
    (
        "cache",
        Which {
            checks: false,
            cache: true,
        },
    ),
    (
        "checks+cache",
        Which {
            checks: true,
            cache: true,
        },
    ),
];

/// Every engine under every combination of layers, and with transient faults under both.
pub(crate) fn layered_engines(data: &[PathBuf]) -> Vec<(String, Box<dyn ReadEngine>)> {
    let all = files_with_sidecars(data);
    let mut engines: Vec<(String, Box<dyn ReadEngine>)> = Vec::new();
    for (layer, which) in LAYERS {
        for (name, engine) in bare_engines(&all) {
            engines.push((
                format!("{name} under {layer}"),
                Box::new(Stack::new(engine, data, which)),
            ));
        }
    }
    let both = LAYERS[2].1;
    for (name, engine) in faulty_engines(&all, &FaultPlan::transient(7)) {
        let stack = Stack::new(Box::new(engine), data, both);
        engines.push((format!("{name} under checks+cache"), Box::new(stack)));
    }
    engines
}

/// [`two_files`] in a new temporary folder with their checksum sidecars: the data files,
/// and the files an engine under a [`Stack`] opens (the data files, then the sidecars).
fn two_checked_files() -> (tempfile::TempDir, Vec<PathBuf>, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let data = two_files(dir.path());
    let all = files_with_sidecars(&data);
    (dir, data, all)
}

#[test]
fn every_layered_engine_returns_the_requested_bytes() {
    returns_the_requested_bytes(layered_engines);
}

#[test]
fn every_layered_engine_reports_reads_beyond_the_end() {
    reports_reads_beyond_the_end(layered_engines);
}

#[test]
fn every_layered_engine_skips_requests_the_consumer_no_longer_wants() {
    skips_requests_the_consumer_no_longer_wants(layered_engines);
}

#[test]
fn a_page_changed_on_disk_fails_exactly_the_reads_that_cover_it() {
    let (_dir, data, all) = two_checked_files();
    // Change one byte of file 0 after its checksums were made.
    let mut bytes = std::fs::read(&data[0]).unwrap();
    let changed = 300_000u64;
    bytes[changed as usize] ^= 0x40;
    std::fs::write(&data[0], &bytes).unwrap();
    for (name, engine) in bare_engines(&all) {
        let mut engine = Stack::new(engine, &data, LAYERS[0].1);
        let requests = spread_requests(&engine, 400);
        let got = read_all(&name, &mut engine, &requests);
        let mut failed = 0;
        for (index, request) in requests.iter().enumerate() {
            let size = engine.file_size(request.file);
            let end = (request.offset + request.len as u64).min(size);
            if request.file == 0 && request.offset <= changed && changed < end {
                failed += 1;
                let message = got.failed[index]
                    .as_deref()
                    .unwrap_or_else(|| panic!("{name}: request {index} covers the changed page"));
                let page = changed / 4096 * 4096;
                assert!(
                    message.contains("checksum mismatch")
                        && message.contains(&format!("page at offset {page}")),
                    "{name}: {message}"
                );
            } else {
                assert_eq!(got.failed[index], None, "{name}: request {index}");
                let mut want = expected(request, size);
                if request.file == 0 {
                    // Bytes of file 0 as it is now (the change lies outside this read).
                    want = bytes[request.offset.min(size) as usize..end as usize].to_vec();
                }
                assert!(
                    got.completed[index] == Some(want),
                    "{name}: request {index}"
                );
            }
        }
        assert!(failed > 0, "{name}: no read covered the changed page");
    }
}

#[test]
fn a_flipped_bit_never_reaches_the_consumer() {
    let (_dir, data, all) = two_checked_files();
    let plan = FaultPlan {
        flip: 0.3,
        ..FaultPlan::clean(93)
    };
    for (name, engine) in faulty_engines(&all, &plan) {
        let tally = engine.tally();
        let mut engine = Stack::new(Box::new(engine), &data, LAYERS[0].1);
        let requests = spread_requests(&engine, 300);
        let got = read_all(&name, &mut engine, &requests);
        let mut failed = 0;
        for (index, request) in requests.iter().enumerate() {
            match &got.completed[index] {
                // Whatever completes is exact; a read whose bits (or checksums) were flipped
                // fails instead.
                Some(bytes) => {
                    let want = expected(request, engine.file_size(request.file));
                    assert!(
                        *bytes == want,
                        "{name}: request {index}: wrong bytes delivered"
                    );
                }
                None => {
                    failed += 1;
                    let message = got.failed[index].as_deref().unwrap_or("");
                    assert!(message.contains("checksum mismatch"), "{name}: {message}");
                }
            }
        }
        assert!(tally.get().flipped > 50, "{name}");
        assert!(failed > 50, "{name}: {failed}");
    }
}

#[test]
fn an_unreadable_sidecar_page_fails_only_the_reads_it_checks() {
    let (_dir, data, all) = two_checked_files();
    // The second page of file 0's sidecar (engine file 2): the checksums of index pages
    // 1008..2032, bytes 4,128,768.. of file 0, which is shorter; so its first page, which
    // checks everything up to 4 MiB.
    let plan = FaultPlan {
        bad_pages: vec![(2, 0)],
        ..FaultPlan::clean(5)
    };
    for (name, engine) in faulty_engines(&all, &plan) {
        let mut engine = Stack::new(Box::new(engine), &data, LAYERS[0].1);
        let requests = spread_requests(&engine, 200);
        let got = read_all(&name, &mut engine, &requests);
        for (index, request) in requests.iter().enumerate() {
            let size = engine.file_size(request.file);
            let checked = request.len > 0 && request.offset < size;
            if request.file == 0 && checked {
                let message = got.failed[index]
                    .as_deref()
                    .unwrap_or_else(|| panic!("{name}: request {index} cannot be checked"));
                assert!(
                    message.contains("data0.bitsift-checksums"),
                    "{name}: {message}"
                );
            } else if request.offset < size {
                assert_eq!(got.failed[index], None, "{name}: request {index}");
                assert!(
                    got.completed[index] == Some(expected(request, size)),
                    "{name}"
                );
            }
        }
    }
}

#[test]
fn the_row_cache_serves_a_repeated_batch_without_a_read() {
    let (_dir, data, all) = two_checked_files();
    for (name, engine) in bare_engines(&all) {
        let mut engine = Stack::new(engine, &data, LAYERS[2].1);
        // Reads inside the files (the cache holds whole pages of what was read).
        let requests: Vec<_> = spread_requests(&engine, 100)
            .into_iter()
            .filter(|r| r.len > 0 && r.offset + r.len as u64 <= engine.file_size(r.file))
            .collect();
        let first = read_all(&name, &mut engine, &requests);
        let mut counters = IoCounters::default();
        let mut second = crate::io::conformance::Outcomes::new(requests.len());
        engine
            .read_batch(ReadBatch::new(&requests, &mut second, &mut counters))
            .unwrap();
        assert_eq!(counters.cached, requests.len() as u64, "{name}");
        assert_eq!(counters.read_requests, 0, "{name}");
        assert_eq!(first.completed, second.completed, "{name}");
        let stats = engine.row_cache().unwrap().stats();
        assert!(stats.hits >= requests.len() as u64, "{name}");
    }
}

#[test]
fn a_direct_check_reads_the_checksums_it_needs_from_the_sidecar() {
    use crate::format::ChecksumTable;
    let (_dir, data, _) = two_checked_files();
    let size = std::fs::metadata(&data[0]).unwrap().len();
    let table = ChecksumTable::open_data(&data[0], size).unwrap();
    let integrity = super::Integrity::from_tables(vec![Some((table, 2)), None]);
    let mut bytes = std::fs::read(&data[0]).unwrap();
    // Whole runs of pages, and the last partial page, check out.
    for (offset, len) in [
        (0usize, 1 << 20),
        (4096 * 100, 4096 * 3),
        (size as usize / 4096 * 4096, 4096),
    ] {
        let end = (offset + len).min(bytes.len());
        integrity
            .verify_direct(0, offset as u64, &bytes[offset..end])
            .unwrap();
    }
    // A file without checksums is not checked.
    integrity.verify_direct(1, 0, &[1, 2, 3]).unwrap();
    bytes[5000] ^= 1;
    let error = integrity.verify_direct(0, 0, &bytes).unwrap_err();
    assert!(error.to_string().contains("page at offset 4096"), "{error}");
}
