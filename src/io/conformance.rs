//! One conformance suite for every engine: the same batches, the same expected bytes, each
//! engine run bare and wrapped in a [`FaultEngine`] with transient faults (which must change
//! nothing). The checks of a whole engine list are functions (`returns_the_requested_bytes`
//! and the like), so `crate::read`'s conformance tests run them over its layers (checksums,
//! the row cache, both; bare and with faults) without io knowing of the layers, and add what
//! only the layers do. Further tests drive each kind of fault through every engine: storms of `EINTR`,
//! `EAGAIN` that ends and that does not, `EIO` then success, short and empty reads, bad pages
//! that must fail exactly the reads covering them, reordered completions and flipped bits.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::*;

/// Byte `i` of a test file: a pattern in which every 8-byte word names its own offset, so a
/// read served from the wrong place cannot pass.
pub(crate) fn pattern_byte(file: u32, offset: u64) -> u8 {
    let word = (offset / 8) ^ ((file as u64) << 40);
    word.to_le_bytes()[(offset % 8) as usize].wrapping_add(file as u8)
}

pub(crate) fn write_pattern(dir: &std::path::Path, file: u32, size: u64) -> PathBuf {
    let path = dir.join(format!("data{file}"));
    let bytes: Vec<u8> = (0..size).map(|o| pattern_byte(file, o)).collect();
    std::fs::File::create(&path)
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    path
}

/// Every engine and direct-I/O policy, bare. io_uring may be disabled where tests run; the
/// other engines must work.
pub(crate) fn bare_engines(paths: &[PathBuf]) -> Vec<(String, Box<dyn ReadEngine>)> {
    let mut engines: Vec<(String, Box<dyn ReadEngine>)> = Vec::new();
    for choice in [
        EngineChoice::Uring,
        EngineChoice::Pread,
        EngineChoice::Mmap,
        EngineChoice::Ram,
    ] {
        for direct in [DirectIo::Auto, DirectIo::Off] {
            let options = EngineOptions {
                choice,
                queue_depth: Some(8),
                direct,
                ..EngineOptions::default()
            };
            match open_engine(paths, &options) {
                Ok(opened) => engines.push((format!("{choice:?} {direct:?}"), opened.engine)),
                Err(e) if choice == EngineChoice::Uring => eprintln!("skipping uring: {e}"),
                Err(e) => panic!("{choice:?}: {e}"),
            }
        }
    }
    // Rows in place, the rest read (issue 35): each half of the files through its engine.
    for direct in [DirectIo::Auto, DirectIo::Off] {
        let options = EngineOptions {
            queue_depth: Some(8),
            ..EngineOptions::default()
        };
        let read = open_reading(paths, direct, &options).unwrap().engine;
        let held = (0..paths.len())
            .map(|file| file < paths.len() / 2)
            .collect();
        let split = SplitEngine::open(paths, held, read).unwrap();
        engines.push((format!("split {direct:?}"), Box::new(split)));
    }
    #[cfg(feature = "remote")]
    engines.push((
        "remote (in-memory store)".into(),
        Box::new(crate::io::remote::engine::in_memory(paths, 8)),
    ));
    #[cfg(feature = "remote")]
    engines.push((
        "remote (in-memory store, multi-range requests)".into(),
        Box::new(crate::io::remote::engine::in_memory_multirange(
            paths,
            8,
            crate::io::remote::engine::Serve::Multipart,
        )),
    ));
    engines
}

/// Every engine wrapped in a fault engine with `plan` (its seed varied per engine).
pub(crate) fn faulty_engines(paths: &[PathBuf], plan: &FaultPlan) -> Vec<(String, FaultEngine)> {
    bare_engines(paths)
        .into_iter()
        .enumerate()
        .map(|(index, (name, engine))| {
            let plan = FaultPlan {
                seed: plan.seed + index as u64,
                ..plan.clone()
            };
            let engine = FaultEngine::new(engine, plan);
            assert!(engine.hooked(), "{name}: every engine takes the fault hook");
            (format!("{name} with faults"), engine)
        })
        .collect()
}

/// A list of named engines over the given files, for the suite's checks.
pub(crate) type Engines = fn(&[PathBuf]) -> Vec<(String, Box<dyn ReadEngine>)>;

/// Every engine bare, then every engine with transient faults.
fn engines(paths: &[PathBuf]) -> Vec<(String, Box<dyn ReadEngine>)> {
    let mut all = bare_engines(paths);
    for (name, engine) in faulty_engines(paths, &FaultPlan::transient(1)) {
        all.push((name, Box::new(engine)));
    }
    all
}

/// What a batch gave each request.
#[derive(Debug, Default)]
pub(crate) struct Outcomes {
    pub(crate) completed: Vec<Option<Vec<u8>>>,
    pub(crate) failed: Vec<Option<String>>,
    /// Failures return an error (ending the batch) when set.
    end_on_failure: bool,
}

impl Outcomes {
    pub(crate) fn new(requests: usize) -> Outcomes {
        Outcomes {
            completed: vec![None; requests],
            failed: vec![None; requests],
            end_on_failure: false,
        }
    }
}

impl ReadConsumer for Outcomes {
    fn complete(&mut self, request: usize, bytes: &[u8]) {
        assert!(
            self.completed[request].is_none(),
            "{request} completed twice"
        );
        assert!(
            self.failed[request].is_none(),
            "{request} completed after failing"
        );
        self.completed[request] = Some(bytes.to_vec());
    }

    fn failed(&mut self, request: usize, error: IoError) -> Result<(), IoError> {
        assert!(self.failed[request].is_none(), "{request} failed twice");
        assert!(
            self.completed[request].is_none(),
            "{request} failed after completing"
        );
        self.failed[request] = Some(error.to_string());
        if self.end_on_failure {
            Err(error)
        } else {
            Ok(())
        }
    }
}

/// The bytes a read should return from a file of `size` bytes.
pub(crate) fn expected(request: &ReadRequest, size: u64) -> Vec<u8> {
    let end = (request.offset + request.len as u64).min(size);
    (request.offset..end)
        .map(|o| pattern_byte(request.file, o))
        .collect()
}

/// Reads `requests`, recording every outcome; panics if the batch itself fails.
pub(crate) fn read_all(
    name: &str,
    engine: &mut dyn ReadEngine,
    requests: &[ReadRequest],
) -> Outcomes {
    let mut outcomes = Outcomes::new(requests.len());
    engine
        .read_counted(requests, &mut outcomes)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    outcomes
}

/// Asserts every request completed with exactly its bytes.
pub(crate) fn assert_all_exact(
    name: &str,
    engine: &dyn ReadEngine,
    requests: &[ReadRequest],
    got: &Outcomes,
) {
    for (index, request) in requests.iter().enumerate() {
        assert_eq!(got.failed[index], None, "{name}: request {index} failed");
        let bytes = got.completed[index]
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: request {index} never delivered"));
        let want = expected(request, engine.file_size(request.file));
        assert!(*bytes == want, "{name}: request {index}: wrong bytes");
    }
}

/// `count` aligned reads of 1 to 5 alignment units spread over a 1 MiB file and a 64 KiB
/// one (both sizes off the 4 KiB grid), plus an aligned read running past each file's end.
pub(crate) fn spread_requests(engine: &dyn ReadEngine, count: u64) -> Vec<ReadRequest> {
    let align = engine.alignment().max(1);
    let mut requests = Vec::new();
    for i in 0..count {
        let file = (i % 2) as u32;
        let size = engine.file_size(file);
        let offset = ((i * 7919 * 4096) % size) / align * align;
        let len = (align.max(512) * (1 + i % 5)) as u32;
        requests.push(ReadRequest { file, offset, len });
    }
    for file in 0..2u32 {
        let size = engine.file_size(file);
        requests.push(ReadRequest {
            file,
            offset: (size - 1) / align * align,
            len: align.max(512) as u32,
        });
    }
    // A read of nothing: delivered, empty.
    requests.push(ReadRequest {
        file: 0,
        offset: 0,
        len: 0,
    });
    requests
}

pub(crate) fn two_files(dir: &std::path::Path) -> Vec<PathBuf> {
    vec![
        write_pattern(dir, 0, 1_000_000 + 123),
        write_pattern(dir, 1, 65_536 + 7),
    ]
}

#[test]
fn every_engine_returns_the_requested_bytes() {
    returns_the_requested_bytes(engines);
}

/// The check of [`every_engine_returns_the_requested_bytes`] over `engines`.
pub(crate) fn returns_the_requested_bytes(engines: Engines) {
    let dir = tempfile::tempdir().unwrap();
    let paths = two_files(dir.path());
    for (name, mut engine) in engines(&paths) {
        let requests = spread_requests(&*engine, 300);
        let mut counters = IoCounters::default();
        let mut outcomes = Outcomes::new(requests.len());
        engine
            .read_batch(ReadBatch::new(&requests, &mut outcomes, &mut counters))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_all_exact(&name, &*engine, &requests, &outcomes);
        // Every request was read, or (under the row cache) served from pages read before.
        assert!(
            counters.read_requests + counters.cached >= requests.len() as u64,
            "{name}"
        );
        // A second batch on the same engine reuses its buffers and still works.
        let mut again = 0;
        let mut count = |_: usize, _: &[u8]| again += 1;
        engine
            .read_batch(ReadBatch::new(&requests[..10], &mut count, &mut counters))
            .unwrap();
        assert_eq!(again, 10, "{name}");
        let mut none = |_: usize, _: &[u8]| panic!("no requests");
        engine
            .read_batch(ReadBatch::new(&[], &mut none, &mut counters))
            .unwrap();
    }
}

#[test]
fn every_engine_reports_reads_beyond_the_end() {
    reports_reads_beyond_the_end(engines);
}

/// The check of [`every_engine_reports_reads_beyond_the_end`] over `engines`.
pub(crate) fn reports_reads_beyond_the_end(engines: Engines) {
    let dir = tempfile::tempdir().unwrap();
    let paths = vec![write_pattern(dir.path(), 0, 10_000)];
    for (name, mut engine) in engines(&paths) {
        let align = engine.alignment().max(1);
        let beyond = ReadRequest {
            file: 0,
            offset: 1 << 20,
            len: align as u32,
        };
        let inside = ReadRequest {
            file: 0,
            offset: 0,
            len: align as u32,
        };
        let mut counters = IoCounters::default();
        // A closure consumer ends the batch at the first failure.
        let mut ignore = |_: usize, _: &[u8]| {};
        let error = engine
            .read_batch(ReadBatch::new(&[beyond], &mut ignore, &mut counters))
            .expect_err("a read past the end must fail");
        assert!(
            error.to_string().contains("ended at 10000 bytes"),
            "{name}: {error}"
        );
        // A consumer that records failures gets the others read.
        let got = read_all(&name, &mut *engine, &[inside, beyond, inside]);
        assert!(
            got.completed[0].is_some() && got.completed[2].is_some(),
            "{name}"
        );
        let message = got.failed[1].as_deref().unwrap_or("");
        assert!(
            message.contains("data0") && message.contains("before offset 1048576"),
            "{name}: {message}"
        );
    }
}

#[test]
fn missing_files_name_the_path() {
    let paths = vec![PathBuf::from("no/such/index.cobs_compact")];
    for choice in [
        EngineChoice::Auto,
        EngineChoice::Pread,
        EngineChoice::Mmap,
        EngineChoice::Ram,
    ] {
        let options = EngineOptions {
            choice,
            ..EngineOptions::default()
        };
        let error = open_engine(&paths, &options).err().expect("must fail");
        assert!(
            error.to_string().contains("no/such/index.cobs_compact"),
            "{choice:?}: {error}"
        );
    }
}

/// Declines every third request, and checks it is asked before each one exactly once.
struct EveryThirdDeclined {
    asked: Vec<u32>,
    completed: Vec<u32>,
}

impl ReadConsumer for EveryThirdDeclined {
    fn wanted(&mut self, request: usize) -> bool {
        self.asked[request] += 1;
        request % 3 != 1
    }

    fn complete(&mut self, request: usize, bytes: &[u8]) {
        assert_eq!(self.asked[request], 1, "complete before wanted");
        assert!(!bytes.is_empty());
        self.completed[request] += 1;
    }
}

#[test]
fn every_engine_skips_requests_the_consumer_no_longer_wants() {
    skips_requests_the_consumer_no_longer_wants(engines);
}

/// The check of [`every_engine_skips_requests_the_consumer_no_longer_wants`] over `engines`.
pub(crate) fn skips_requests_the_consumer_no_longer_wants(engines: Engines) {
    let dir = tempfile::tempdir().unwrap();
    let paths = vec![write_pattern(dir.path(), 0, 1 << 20)];
    for (name, mut engine) in engines(&paths) {
        let align = engine.alignment().max(1).max(512);
        let requests: Vec<ReadRequest> = (0..100u64)
            .map(|i| ReadRequest {
                file: 0,
                offset: (i * 7 % 200) * align,
                len: align as u32,
            })
            .collect();
        let mut consumer = EveryThirdDeclined {
            asked: vec![0; 100],
            completed: vec![0; 100],
        };
        let counters = engine.read_counted(&requests, &mut consumer).unwrap();
        assert!(
            consumer.asked.iter().all(|&a| a == 1),
            "{name}: asked once each"
        );
        for (i, &c) in consumer.completed.iter().enumerate() {
            assert_eq!(c, u32::from(i % 3 != 1), "{name}: request {i}");
        }
        assert_eq!(counters.skipped, 33, "{name}");
    }
}

/// Runs `requests` through every engine with `plan`; every request must come back exact.
/// Returns the faults injected per engine.
fn absorbed(plan: &FaultPlan, count: u64) -> Vec<(String, FaultCounts)> {
    let dir = tempfile::tempdir().unwrap();
    let paths = two_files(dir.path());
    let mut injected = Vec::new();
    for (name, mut engine) in faulty_engines(&paths, plan) {
        let requests = spread_requests(&engine, count);
        let got = read_all(&name, &mut engine, &requests);
        assert_all_exact(&name, &engine, &requests, &got);
        injected.push((name, engine.injected()));
    }
    injected
}

#[test]
fn transient_faults_of_every_kind_are_absorbed_by_every_engine() {
    let plan = FaultPlan {
        delay: 0.02,
        ..FaultPlan::transient(11)
    };
    for (name, counts) in absorbed(&plan, 2000) {
        let kinds = [
            ("EINTR", counts.interrupted),
            ("EAGAIN", counts.again),
            ("EIO", counts.io_error),
            ("short", counts.short),
            ("empty", counts.empty),
            ("delayed", counts.delayed),
            ("reordered", counts.reordered),
        ];
        for (kind, count) in kinds {
            assert!(
                count > 0,
                "{name}: no {kind} fault was injected: {counts:?}"
            );
        }
        assert_eq!(counts.bad_page + counts.flipped, 0, "{name}");
    }
}

#[test]
fn a_storm_of_eintr_is_absorbed() {
    let plan = FaultPlan {
        interrupted: 0.9,
        ..FaultPlan::clean(21)
    };
    for (name, counts) in absorbed(&plan, 300) {
        assert!(counts.interrupted > 600, "{name}: {counts:?}");
    }
}

#[test]
fn eio_then_success_is_retried_until_it_succeeds() {
    let plan = FaultPlan {
        io_error: 1.0,
        ..FaultPlan::clean(31)
    };
    for (name, counts) in absorbed(&plan, 300) {
        // Every read fails twice (the most a transient EIO is injected), then succeeds.
        // (The read of nothing gets no fault: there is nothing to fail.)
        assert_eq!(counts.io_error, 2 * 302, "{name}");
    }
}

#[test]
fn eagain_is_retried_after_a_pause() {
    let plan = FaultPlan {
        again: 0.5,
        ..FaultPlan::clean(41)
    };
    for (name, counts) in absorbed(&plan, 300) {
        assert!(counts.again > 150, "{name}: {counts:?}");
    }
}

#[test]
fn short_and_empty_reads_are_finished() {
    let plan = FaultPlan {
        short: 0.7,
        empty: 0.3,
        ..FaultPlan::clean(51)
    };
    for (name, counts) in absorbed(&plan, 300) {
        assert!(
            counts.short > 100 && counts.empty > 30,
            "{name}: {counts:?}"
        );
    }
}

#[test]
fn bad_pages_fail_exactly_the_reads_that_cover_them() {
    let dir = tempfile::tempdir().unwrap();
    let paths = two_files(dir.path());
    let plan = FaultPlan {
        bad_page: 0.03,
        bad_pages: vec![(1, 0)],
        ..FaultPlan::transient(61)
    };
    for (name, mut engine) in faulty_engines(&paths, &plan) {
        let requests = spread_requests(&engine, 600);
        let got = read_all(&name, &mut engine, &requests);
        let mut failures = 0;
        for (index, request) in requests.iter().enumerate() {
            let size = engine.file_size(request.file);
            if engine
                .plan()
                .fails(request.file, request.offset, request.len, size)
            {
                failures += 1;
                let message = got.failed[index]
                    .as_deref()
                    .unwrap_or_else(|| panic!("{name}: request {index} covers a bad page"));
                let file = format!("data{}", request.file);
                assert!(
                    message.contains(&file)
                        && message.contains(&format!("at offset {}", request.offset))
                        && message.contains("Input/output error"),
                    "{name}: {message}"
                );
            } else {
                assert_eq!(got.failed[index], None, "{name}: request {index}");
                assert!(
                    got.completed[index] == Some(expected(request, size)),
                    "{name}"
                );
            }
        }
        assert!(
            failures > 20,
            "{name}: only {failures} reads hit a bad page"
        );
        assert!(engine.injected().bad_page > 0, "{name}");
    }
}

#[test]
fn eagain_that_never_ends_fails_the_read_after_a_bounded_wait() {
    let dir = tempfile::tempdir().unwrap();
    let paths = two_files(dir.path());
    let plan = FaultPlan {
        bad_pages: vec![(0, 40_000)],
        bad_page_errno: libc::EAGAIN,
        ..FaultPlan::clean(71)
    };
    for (name, mut engine) in faulty_engines(&paths, &plan) {
        let align = engine.alignment().max(4096);
        let requests: Vec<ReadRequest> = (0..32u64)
            .map(|i| ReadRequest {
                file: 0,
                offset: i * align,
                len: align as u32,
            })
            .collect();
        let started = Instant::now();
        let got = read_all(&name, &mut engine, &requests);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{name}: took {:?}",
            started.elapsed()
        );
        let failed: Vec<usize> = (0..32).filter(|&i| got.failed[i].is_some()).collect();
        let bad = (40_000 / align) as usize;
        assert_eq!(failed, [bad], "{name}");
        let message = got.failed[bad].as_deref().unwrap_or("");
        assert!(
            message.contains("Resource temporarily unavailable"),
            "{name}: {message}"
        );
    }
}

#[test]
fn a_consumer_can_end_the_batch_and_the_engine_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let paths = two_files(dir.path());
    let plan = FaultPlan {
        bad_pages: vec![(0, 300_000)],
        ..FaultPlan::transient(81)
    };
    for (name, mut engine) in faulty_engines(&paths, &plan) {
        let requests = spread_requests(&engine, 400);
        let mut outcomes = Outcomes::new(requests.len());
        outcomes.end_on_failure = true;
        let error = engine
            .read_counted(&requests, &mut outcomes)
            .expect_err("the consumer ends the batch");
        assert!(
            error.to_string().contains("Input/output error"),
            "{name}: {error}"
        );
        assert_eq!(outcomes.failed.iter().flatten().count(), 1, "{name}");
        // The next batch, clear of the bad page, reads normally.
        let clear: Vec<ReadRequest> = requests
            .iter()
            .copied()
            .filter(|r| !plan.fails(r.file, r.offset, r.len, engine.file_size(r.file)))
            .collect();
        let got = read_all(&name, &mut engine, &clear);
        assert_all_exact(&name, &engine, &clear, &got);
    }
}

#[test]
fn flipped_bits_reach_the_consumer() {
    // The engines cannot see a flipped bit; checksums in the query path must (issue 12).
    let dir = tempfile::tempdir().unwrap();
    let paths = two_files(dir.path());
    let plan = FaultPlan {
        flip: 0.3,
        ..FaultPlan::clean(91)
    };
    for (name, mut engine) in faulty_engines(&paths, &plan) {
        let requests = spread_requests(&engine, 300);
        let got = read_all(&name, &mut engine, &requests);
        let mut wrong = 0;
        for (index, request) in requests.iter().enumerate() {
            let bytes = got.completed[index].as_ref().expect("delivered");
            let want = expected(request, engine.file_size(request.file));
            let bits: u32 = bytes
                .iter()
                .zip(&want)
                .map(|(a, b)| (a ^ b).count_ones())
                .sum();
            assert!(bits <= 1, "{name}: one bit at most");
            wrong += bits as u64;
        }
        assert_eq!(wrong, engine.injected().flipped, "{name}");
        assert!(wrong > 50, "{name}: {wrong}");
    }
}

#[test]
fn transient_faults_give_the_same_bytes_on_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let paths = two_files(dir.path());
    let plan = FaultPlan {
        reorder_window: 0,
        ..FaultPlan::transient(5)
    };
    let options = EngineOptions {
        choice: EngineChoice::Ram,
        ..EngineOptions::default()
    };
    let mut runs = Vec::new();
    for _ in 0..2 {
        let engine = open_engine(&paths, &options).unwrap().engine;
        let mut engine = FaultEngine::new(engine, plan.clone());
        let requests = spread_requests(&engine, 500);
        let got = read_all("ram", &mut engine, &requests);
        assert_all_exact("ram", &engine, &requests, &got);
        runs.push(engine.injected());
    }
    assert_eq!(
        runs[0], runs[1],
        "a plan injects the same faults every time"
    );
}
