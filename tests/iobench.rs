//! `bitsift iobench` through the binary: the file it writes is real and carries the pattern,
//! every variant reports numbers that agree with each other, wrong data and foreign files are
//! refused naming the offset or the file, and a missing io_uring is a notice, not a failure.
//! Runs are a few hundred milliseconds long: these check correctness, not speed.

mod common;

use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::process::Output;

use common::*;
use serde_json::Value;

/// The pattern, written again from its description in `src/iobench/pattern.rs`: magic, sector
/// number, then SplitMix64 seeded with `sector ^ STREAM_SEED`.
const MAGIC: &[u8; 8] = b"bsiftIO1";
const STREAM_SEED: u64 = 0x6269_7473_6966_7421;

fn expected_sector(sector: u64) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(512);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&sector.to_le_bytes());
    let mut stream = Rng(sector ^ STREAM_SEED);
    while bytes.len() < 512 {
        bytes.extend_from_slice(&stream.next().to_le_bytes());
    }
    bytes
}

fn iobench(file: &Path, args: &[&str]) -> Output {
    bitsift()
        .arg("iobench")
        .args(args)
        .arg(file)
        .output()
        .expect("run bitsift")
}

fn json(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "iobench failed: {}",
        stderr(output)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on standard output")
}

fn assert_fails_with(output: &Output, needles: &[&str]) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(1), "expected failure: {text}");
    assert!(!text.contains("panicked"), "must not panic: {text}");
    for needle in needles {
        assert!(text.contains(needle), "stderr lacks {needle:?}: {text}");
    }
    let errors = text
        .lines()
        .filter(|l| l.starts_with("bitsift: ") && !l.starts_with("bitsift: iobench: "))
        .filter(|l| !l.starts_with("bitsift: notice: "))
        .count();
    assert_eq!(errors, 1, "one error line expected: {text}");
}

/// Creates a pattern file of `size` with the shortest possible run.
fn create(file: &Path, size: &str) {
    let output = iobench(
        file,
        &[
            "--size",
            size,
            "--variants",
            "pread",
            "-T",
            "1",
            "-d",
            "10ms",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn created_file_is_real_bytes_with_the_pattern() {
    let dir = temp_dir();
    let file = dir.path().join("bench.dat");
    let output = iobench(
        &file,
        &[
            "--size",
            "32M",
            "--variants",
            "pread",
            "-T",
            "1",
            "-d",
            "20ms",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let canonical = file.canonicalize().unwrap();
    assert!(
        stderr(&output).contains(&canonical.display().to_string()),
        "says where the file is: {}",
        stderr(&output)
    );
    let metadata = std::fs::metadata(&file).unwrap();
    assert_eq!(metadata.len(), 32 << 20);
    assert!(
        metadata.blocks() * 512 >= metadata.len(),
        "not sparse: {} blocks for {} bytes",
        metadata.blocks(),
        metadata.len()
    );
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "no temporary file left behind");
    let bytes = std::fs::read(&file).unwrap();
    for (sector, chunk) in bytes.chunks(512).enumerate() {
        assert!(chunk == expected_sector(sector as u64), "sector {sector}");
    }
}

#[test]
fn every_variant_reports_numbers_that_agree() {
    let dir = temp_dir();
    let file = dir.path().join("bench.dat");
    let duration_s = 0.15;
    let report = json(&iobench(
        &file,
        &[
            "--size", "32M", "-d", "150ms", "--depths", "1,16", "-T", "1,4", "--format", "json",
        ],
    ));
    let notices: Vec<&str> = report["notices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let skipped = |variant: &str| notices.iter().any(|n| n.contains(variant));
    let expected: Vec<&str> = ["pread", "direct", "mmap", "mmap-random", "uring"]
        .into_iter()
        .filter(|v| !skipped(v))
        .collect();
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), expected.len() * 2, "{report:#}");
    let device_counted = Path::new("/proc/self/io").exists() && report["filesystem"] != "tmpfs";
    for run in runs {
        let name = format!("{} {}", run["variant"], run["depth"]);
        let number = |key: &str| run[key].as_f64().unwrap_or_else(|| panic!("{name}: {key}"));
        let reads = number("reads");
        let depth = number("depth");
        assert!(number("iops") > 0.0 && reads > 0.0, "{name}");
        assert_eq!(
            number("sectors_verified"),
            reads * 8.0,
            "{name}: every header checked"
        );
        let full = number("reads_verified_full");
        assert!(
            full >= (reads / 64.0).floor() && full <= (reads / 64.0).ceil() + depth,
            "{name}: 1 read in 64 fully verified, got {full} of {reads}"
        );
        let latency = &run["latency_us"];
        let quantile = |key: &str| latency[key].as_f64().unwrap();
        assert!(quantile("p50") > 0.0, "{name}");
        assert!(quantile("p50") <= quantile("p99"), "{name}");
        assert!(quantile("p99") <= quantile("p999"), "{name}");
        assert!(quantile("p999") <= quantile("max"), "{name}");
        let seconds = number("seconds");
        assert!(
            seconds >= duration_s && seconds < duration_s + 2.0,
            "{name}: ran {seconds} s"
        );
        let bytes = number("bytes_read");
        assert_eq!(bytes, reads * 4096.0, "{name}");
        let from_rate = number("iops") * 4096.0 * seconds;
        assert!(
            (from_rate - bytes).abs() <= bytes * 0.01,
            "{name}: {from_rate} vs {bytes}"
        );
        assert!(
            (number("mb_per_s") * 1e6 * seconds - bytes).abs() <= bytes * 0.01,
            "{name}"
        );
        if device_counted && run["direct"] == true {
            let device = number("device_read_bytes");
            assert!(
                device >= bytes * 0.95 && device <= bytes * 1.05 + 1e6,
                "{name}: O_DIRECT reads come from the device: {device} vs {bytes}"
            );
        }
        if run["variant"].as_str().unwrap().starts_with("mmap") {
            assert!(
                number("major_faults") + number("minor_faults") > 0.0,
                "{name}: touching the mapping faults"
            );
        }
        if run["variant"] == "uring" {
            assert!(run["registered_buffers"].is_boolean(), "{name}");
        }
    }
    // Unbuffered runs always count; buffered runs that pulled the whole file into the page
    // cache do not, so only the former guarantee a recommendation.
    let recommendation = &report["recommendation"];
    if expected.contains(&"uring") || expected.contains(&"direct") {
        assert!(
            ["uring", "pread"].contains(&recommendation["engine"].as_str().unwrap()),
            "{recommendation:#}"
        );
        assert!(recommendation["text"]
            .as_str()
            .unwrap()
            .contains("--queue-depth"));
    }
}

#[test]
fn the_table_ends_with_verification_and_recommendation() {
    let dir = temp_dir();
    let file = dir.path().join("bench.dat");
    create(&file, "1M");
    let output = iobench(
        &file,
        &[
            "--variants",
            "direct,mmap-random",
            "-T",
            "1,2",
            "-d",
            "30ms",
            "--warm",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("variant") && lines[0].contains("p999_us"),
        "{text}"
    );
    assert!(
        text.contains("verified: the header of every 512-byte sector"),
        "{text}"
    );
    assert!(text.contains("every byte of 1 read in 64"), "{text}");
    assert!(
        lines.last().unwrap().starts_with("recommendation"),
        "{text}"
    );
    assert!(text.contains("mmap with MADV_RANDOM reaches"), "{text}");
    // A warm cache measures memory: no profile is claimed, and the line says why.
    assert!(
        lines[lines.len() - 2]
            .starts_with("this device resembles: not judged (a warm cache measures memory"),
        "{text}"
    );
}

#[test]
fn the_report_says_which_frugal_profile_the_device_resembles() {
    let dir = temp_dir();
    let file = dir.path().join("bench.dat");
    create(&file, "4M");
    let output = iobench(
        &file,
        &[
            "--variants",
            "pread,mmap",
            "-T",
            "1",
            "-d",
            "30ms",
            "--format",
            "json",
        ],
    );
    let report = json(&output);
    let resembles = &report["resembles"];
    // Which kind depends on the device and on whether the 4 MiB file stayed cached: the
    // judgement is tested on synthetic runs in src/iobench/resemble.rs; here, its shape.
    let text = resembles["text"].as_str().unwrap();
    match resembles["kind"].as_str() {
        Some(kind) => {
            let profile = match kind {
                "local-ssd" => "none",
                "cloud-volume" => "cloud",
                "hard-disk" => "hdd",
                other => panic!("unknown kind {other}: {resembles:#}"),
            };
            assert_eq!(resembles["profile"], profile, "{resembles:#}");
            assert_eq!(resembles["peak_variant"], "pread", "{resembles:#}");
            assert_eq!(resembles["peak_depth"], 1, "{resembles:#}");
            assert!(resembles["peak_iops"].as_f64().unwrap() > 0.0);
            assert!(text.contains("IOPS at best (pread, 1 thr)"), "{text}");
        }
        None => assert!(text.starts_with("not judged ("), "{resembles:#}"),
    }
}

#[test]
fn wrong_bytes_are_reported_with_their_offset() {
    let dir = temp_dir();
    let file = dir.path().join("bench.dat");
    create(&file, "1M");
    let handle = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&file)
        .unwrap();
    let flip = |offset: u64| {
        let mut byte = [0u8; 1];
        handle.read_exact_at(&mut byte, offset).unwrap();
        handle.write_all_at(&[byte[0] ^ 0x20], offset).unwrap();
        handle.sync_all().unwrap();
    };

    // A byte of the random stream: found only by full verification.
    flip(300_100);
    let output = iobench(
        &file,
        &[
            "--variants",
            "pread",
            "-T",
            "1",
            "--warm",
            "--verify-every",
            "1",
            "-d",
            "10s",
        ],
    );
    assert_fails_with(
        &output,
        &["data mismatch at offset 300100", "bench.dat", "pread"],
    );
    flip(300_100);

    // A byte of a sector header (its sector number): every read checks those.
    flip(700 * 512 + 9);
    let output = iobench(
        &file,
        &["--variants", "direct,pread", "-T", "1", "-d", "10s"],
    );
    assert_fails_with(
        &output,
        &["data mismatch at offset 358409", "sector 700, byte 9"],
    );
}

#[test]
fn the_uring_variant_verifies_what_the_query_engine_reads() {
    // The io_uring variant drives bitsift's own engine (issue 12): a wrong sector header
    // must still be caught and named, with the run.
    let dir = temp_dir();
    let file = dir.path().join("bench.dat");
    create(&file, "1M");
    let handle = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    handle.write_all_at(&[0x55], 1000 * 512 + 3).unwrap();
    handle.sync_all().unwrap();
    let output = iobench(
        &file,
        &["--variants", "uring", "--depths", "8", "-d", "10s"],
    );
    if stderr(&output).contains("skipping uring") {
        eprintln!("io_uring unavailable here: {}", stderr(&output));
        return;
    }
    assert_fails_with(
        &output,
        &[
            "data mismatch at offset 512003",
            "sector 1000, byte 3",
            "uring depth 8",
        ],
    );
}

#[test]
fn foreign_files_are_refused() {
    let dir = temp_dir();
    let fasta = dir.path().join("genome.fa");
    let mut rng = Rng(3);
    write_fasta(&fasta, &[("chr".to_string(), rng.dna(100_000))]);
    let before = std::fs::read(&fasta).unwrap();
    let output = iobench(&fasta, &["-d", "10ms"]);
    assert_fails_with(&output, &["genome.fa", "not an iobench file"]);
    assert_eq!(std::fs::read(&fasta).unwrap(), before, "left untouched");

    let file = dir.path().join("bench.dat");
    create(&file, "1M");
    let output = iobench(&file, &["--size", "2M", "-d", "10ms"]);
    assert_fails_with(
        &output,
        &["bench.dat", "not the 2097152 asked for by --size"],
    );
    let output = iobench(&file, &["--block-size", "1000", "-d", "10ms"]);
    assert_fails_with(&output, &["--block-size 1000"]);
}

#[test]
fn without_io_uring_the_uring_variant_is_skipped_with_a_notice() {
    let dir = temp_dir();
    let file = dir.path().join("bench.dat");
    let output = bitsift()
        .env("BITSIFT_IO_URING", "off")
        .args([
            "iobench",
            "--size",
            "16M",
            "--variants",
            "uring,pread",
            "-T",
            "1",
        ])
        .args(["-d", "20ms", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let report = json(&output);
    let log = stderr(&output);
    let notices: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("bitsift: notice: "))
        .collect();
    assert_eq!(notices.len(), 1, "{log}");
    assert!(
        notices[0].contains("skipping uring") && notices[0].contains("BITSIFT_IO_URING=off"),
        "{}",
        notices[0]
    );
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["variant"], "pread");
    assert_eq!(report["notices"].as_array().unwrap().len(), 1);
    assert_eq!(report["recommendation"]["engine"], "pread", "{report:#}");
}
