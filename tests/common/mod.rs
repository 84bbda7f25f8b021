//! Shared helpers of the integration tests: random genomes, an independent brute-force k-mer
//! model, an exact model of the index bits, and drivers for the binary and for COBS.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use bitsift::format::IndexHeader;

mod reference;
pub use reference::*;

/// The bitsift binary built for these tests.
pub fn bitsift() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bitsift"))
}

/// Runs the binary with `args`.
pub fn run(args: &[&str]) -> Output {
    bitsift().args(args).output().expect("run bitsift")
}

/// `output`, after asserting that its command succeeded (its output in the message if not).
pub fn ok(output: Output) -> Output {
    assert!(
        output.status.success(),
        "failed: {}\n{}",
        stderr(&output),
        stdout(&output)
    );
    output
}

/// A path as the `&str` a command line takes.
pub fn text(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The Python interpreter that drives COBS: `$BITSIFT_PYTHON` (set by `scripts/test.sh` to
/// its virtual environment), else the checkout's `.venv/bin/python` when the script has
/// created it, else `python3`.
pub fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("BITSIFT_PYTHON").filter(|p| !p.is_empty()) {
        return PathBuf::from(python);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if venv.exists() {
        return venv;
    }
    PathBuf::from("python3")
}

/// Runs the COBS peer (`tests/peer/cobs_peer.py`, module `cobs_index` from PyPI
/// `cobs-reloaded`). Panics with installation advice when COBS is missing, unless
/// `BITSIFT_SKIP_COBS=1` is set, in which case it returns `None`.
pub fn cobs_peer(args: &[&str]) -> Option<Output> {
    let output = cobs_peer_status(args)?;
    assert!(
        output.status.success(),
        "cobs_peer {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(output)
}

/// Runs `tests/peer/cobs_peer.py` with `args` (`None` when COBS is skipped) and returns its
/// output whatever its exit status.
pub fn cobs_peer_status(args: &[&str]) -> Option<Output> {
    if !cobs_available() {
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/cobs_peer.py");
    let python = python();
    let output = Command::new(&python)
        .arg(script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", python.display()));
    Some(output)
}

/// Whether COBS can be driven; panics (the test fails) when it is missing and not explicitly
/// skipped, so a CI without COBS cannot pass silently.
pub fn cobs_available() -> bool {
    if std::env::var("BITSIFT_SKIP_COBS").as_deref() == Ok("1") {
        eprintln!("COBS interoperability skipped because BITSIFT_SKIP_COBS=1");
        return false;
    }
    let python = python();
    let found = Command::new(&python)
        .args(["-c", "import cobs_index"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return true;
    }
    panic!(
        "COBS is needed for this test, and {} cannot import cobs_index: run ./scripts/test.sh (it installs COBS into .venv), or pip install cobs-reloaded==0.1.1, or set BITSIFT_SKIP_COBS=1 to skip",
        python.display()
    );
}

/// Parses `query\tdocument\tscore` lines into a sorted list.
pub fn parse_scores(text: &str) -> Vec<(String, String, u32)> {
    let mut rows: Vec<(String, String, u32)> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            (
                cells[0].to_string(),
                cells[1].to_string(),
                cells[2].parse().unwrap(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// bitsift TSV output (header, then query document kmers_found ...) as sorted triples.
pub fn parse_bitsift_tsv(text: &str) -> Vec<(String, String, u32)> {
    let body: String = text
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            format!("{}\t{}\t{}\n", cells[0], cells[1], cells[2])
        })
        .collect();
    parse_scores(&body)
}

/// The error text of a run that must fail with status 1 (no panic).
pub fn failed(output: Output) -> String {
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}\n{}", stdout(&output));
    assert!(!text.contains("panicked"), "{text}");
    text
}

/// `queries.fa` in `dir`: a piece (bases 100..400) of every genome, named q00, q01, ..., and
/// a random sequence.
pub fn piece_queries(dir: &Path, genomes: &[PathBuf]) -> PathBuf {
    let mut records = Vec::new();
    for (i, genome) in genomes.iter().enumerate() {
        let sequence: Vec<u8> = std::fs::read_to_string(genome)
            .unwrap()
            .lines()
            .skip(1)
            .flat_map(|l| l.bytes())
            .collect();
        records.push((format!("q{i:02}"), sequence[100..400].to_vec()));
    }
    records.push(("random".into(), Rng(99).dna(300)));
    let path = dir.join("queries.fa");
    write_fasta(&path, &records);
    path
}

/// Runs the binary (no standard input), or `None` if it has not finished within `limit`, when
/// it is killed: a reader blocked on a named pipe would never finish.
pub fn run_bounded(args: &[&str], limit: Duration) -> Option<Output> {
    let mut child = bitsift()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    Some(child.wait_with_output().unwrap())
}

/// `json`, a collection's manifest, as versions 1 and 2 wrote it: every sub-index with its
/// `documents` (read from its file's header) and without `hidden_documents`, for the tests of
/// what bitsift still reads. Sub-indexes that list their documents already are kept as they are.
pub fn with_documents(collection: &Path, mut json: serde_json::Value) -> serde_json::Value {
    for sub in json["subindexes"].as_array_mut().unwrap() {
        if sub.get("documents").is_some() {
            continue;
        }
        let header = IndexHeader::open(&collection.join(sub["file"].as_str().unwrap())).unwrap();
        let names: Vec<serde_json::Value> = header
            .names
            .all()
            .unwrap()
            .iter()
            .map(|n| n.into())
            .collect();
        let object = sub.as_object_mut().unwrap();
        object.remove("hidden_documents");
        object.insert("documents".into(), names.into());
    }
    json
}

/// A line of `bitsift query`'s TSV (one index) without the 7 columns of the corrected
/// score that follow `identity` (README, Corrected scores): what these tests compare
/// exactly, the corrected scores being checked against exact counts in `tests/corrected.rs`.
pub fn without_corrected(line: &str) -> String {
    let fields: Vec<&str> = line.split('\t').collect();
    if fields.len() < 13 {
        return line.to_string();
    }
    [&fields[..6], &fields[13..]].concat().join("\t")
}
