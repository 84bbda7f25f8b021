//! One conformance suite for every engine: the same batches, the same expected bytes.

use std::io::Write;
use std::path::PathBuf;

use super::*;

/// Byte `i` of a test file: a pattern in which every 8-byte word names its own offset, so a
/// read served from the wrong place cannot pass.
fn pattern_byte(file: u32, offset: u64) -> u8 {
    let word = (offset / 8) ^ ((file as u64) << 40);
    word.to_le_bytes()[(offset % 8) as usize].wrapping_add(file as u8)
}

fn write_pattern(dir: &std::path::Path, file: u32, size: u64) -> PathBuf {
    let path = dir.join(format!("data{file}"));
    let bytes: Vec<u8> = (0..size).map(|o| pattern_byte(file, o)).collect();
    std::fs::File::create(&path)
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    path
}

fn engines(paths: &[PathBuf]) -> Vec<Box<dyn ReadEngine>> {
    let mut engines: Vec<Box<dyn ReadEngine>> = Vec::new();
    for choice in [
        EngineChoice::Uring,
        EngineChoice::Pread,
        EngineChoice::Mmap,
        EngineChoice::Ram,
    ] {
        for direct in [DirectIo::Auto, DirectIo::Off] {
            let options = EngineOptions {
                choice,
                queue_depth: 8,
                direct,
            };
            match open_engine(paths, &options) {
                Ok(opened) => engines.push(opened.engine),
                // io_uring may be disabled where tests run; the other engines must work.
                Err(e) if choice == EngineChoice::Uring => eprintln!("skipping uring: {e}"),
                Err(e) => panic!("{choice:?}: {e}"),
            }
        }
    }
    engines
}

#[test]
fn every_engine_returns_the_requested_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // Sizes off the 4 KiB grid, so the last aligned read of each file is short.
    let paths = vec![
        write_pattern(dir.path(), 0, 1_000_000 + 123),
        write_pattern(dir.path(), 1, 65_536 + 7),
    ];
    for mut engine in engines(&paths) {
        let align = engine.alignment().max(1);
        let mut requests = Vec::new();
        for i in 0..300u64 {
            let file = (i % 2) as u32;
            let size = engine.file_size(file);
            let offset = ((i * 7919 * 4096) % size) / align * align;
            let len = (align * (1 + i % 5)) as u32;
            requests.push(ReadRequest { file, offset, len });
        }
        // The very end of each file: an aligned read that runs past the end.
        for file in 0..2u32 {
            let size = engine.file_size(file);
            requests.push(ReadRequest {
                file,
                offset: (size - 1) / align * align,
                len: align as u32,
            });
        }
        let mut seen = vec![false; requests.len()];
        let mut counters = IoCounters::default();
        engine
            .read_batch(
                &requests,
                &mut |index: usize, bytes: &[u8]| {
                    let request = requests[index];
                    let size = [1_000_123u64, 65_543][request.file as usize];
                    let expected_len = (request.len as u64).min(size - request.offset);
                    assert_eq!(bytes.len() as u64, expected_len, "{index}: length");
                    for (i, &b) in bytes.iter().enumerate() {
                        assert_eq!(
                            b,
                            pattern_byte(request.file, request.offset + i as u64),
                            "request {index} byte {i}"
                        );
                    }
                    assert!(!seen[index], "request {index} delivered twice");
                    seen[index] = true;
                },
                &mut counters,
            )
            .unwrap_or_else(|e| panic!("{:?}: {e}", engine.kind()));
        assert!(
            seen.iter().all(|&s| s),
            "{:?}: a request was never delivered",
            engine.kind()
        );
        assert!(counters.read_requests >= requests.len() as u64);
        // A second batch on the same engine reuses its buffers and still works.
        let mut again = 0;
        engine
            .read_batch(
                &requests[..10],
                &mut |_: usize, _: &[u8]| again += 1,
                &mut counters,
            )
            .unwrap();
        assert_eq!(again, 10);
        engine
            .read_batch(
                &[],
                &mut |_: usize, _: &[u8]| panic!("no requests"),
                &mut counters,
            )
            .unwrap();
    }
}

#[test]
fn every_engine_reports_reads_beyond_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let paths = vec![write_pattern(dir.path(), 0, 10_000)];
    for mut engine in engines(&paths) {
        let align = engine.alignment().max(1);
        let requests = [ReadRequest {
            file: 0,
            offset: 1 << 20,
            len: align as u32,
        }];
        let mut counters = IoCounters::default();
        let error = engine
            .read_batch(&requests, &mut |_: usize, _: &[u8]| {}, &mut counters)
            .expect_err("a read past the end must fail");
        assert!(
            error.to_string().contains("ended at 10000 bytes"),
            "{:?}: {error}",
            engine.kind()
        );
        // The engine stays usable after an error.
        let ok = [ReadRequest {
            file: 0,
            offset: 0,
            len: align as u32,
        }];
        engine
            .read_batch(&ok, &mut |_: usize, _: &[u8]| {}, &mut counters)
            .unwrap();
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
    let dir = tempfile::tempdir().unwrap();
    let paths = vec![write_pattern(dir.path(), 0, 1 << 20)];
    for mut engine in engines(&paths) {
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
        let mut counters = IoCounters::default();
        engine
            .read_batch(&requests, &mut consumer, &mut counters)
            .unwrap();
        assert!(
            consumer.asked.iter().all(|&a| a == 1),
            "{:?}: asked once each",
            engine.kind()
        );
        for (i, &c) in consumer.completed.iter().enumerate() {
            assert_eq!(c, u32::from(i % 3 != 1), "{:?}: request {i}", engine.kind());
        }
        assert_eq!(counters.skipped, 33);
    }
}
