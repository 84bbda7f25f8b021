//! `builder::build_observed`: the observer sees every document of pass 2 and can stop a build,
//! which then leaves nothing at the output path (issue 15: the Python progress callback).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use bitsift::builder::{build_observed, BuildError, BuildObserver, BuildOptions};

fn write_genomes(dir: &Path, count: usize) -> PathBuf {
    let inputs = dir.join("in");
    std::fs::create_dir(&inputs).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for d in 0..count {
        let mut sequence = String::with_capacity(2000);
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            sequence.push(b"ACGT"[(state % 4) as usize] as char);
        }
        std::fs::write(
            inputs.join(format!("g{d}.fa")),
            format!(">g{d}\n{sequence}\n"),
        )
        .unwrap();
    }
    inputs
}

fn options(dir: &Path, inputs: PathBuf) -> BuildOptions {
    BuildOptions {
        output: dir.join("x.cobs_compact"),
        inputs: vec![inputs],
        lists: vec![],
        per_record: false,
        k: 31,
        fpr: 0.3,
        num_hashes: 1,
        canonical: true,
        threads: 2,
        page_size: None,
        memory_bytes: 256 << 20,
        force: false,
        progress: false,
        order: Default::default(),
        metadata: None,
        summaries: None,
        rows: Default::default(),
        layout: bitsift::format::LayoutChoice::Cobs,
        documents: None,
    }
}

/// Records every call; stops once `stop_after` documents are done (0: never).
#[derive(Default)]
struct Recorder {
    started: Mutex<Option<(u64, u64)>>,
    calls: Mutex<Vec<(u64, u64)>>,
    stop_after: u64,
    asked: AtomicU64,
}

impl BuildObserver for Recorder {
    fn started(&self, documents_total: u64, kmers_total: u64) {
        *self.started.lock().unwrap() = Some((documents_total, kmers_total));
    }

    fn document_done(&self, documents_done: u64, kmers_done: u64) {
        self.calls
            .lock()
            .unwrap()
            .push((documents_done, kmers_done));
    }

    fn cancelled(&self) -> bool {
        self.asked.fetch_add(1, Ordering::Relaxed);
        self.stop_after > 0 && self.calls.lock().unwrap().len() as u64 >= self.stop_after
    }
}

#[test]
fn the_observer_sees_every_document_and_the_totals() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_genomes(dir.path(), 5);
    let recorder = Recorder::default();
    let report = build_observed(&options(dir.path(), inputs), &recorder).expect("build");
    assert_eq!(
        *recorder.started.lock().unwrap(),
        Some((5, report.kmers)),
        "started with the totals of pass 2"
    );
    let mut calls = recorder.calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 5);
    calls.sort_unstable();
    assert_eq!(calls.last(), Some(&(5, report.kmers)));
    assert_eq!(
        calls.iter().map(|c| c.0).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5]
    );
    assert!(
        recorder.asked.load(Ordering::Relaxed) >= 6,
        "asked before and after each"
    );
}

#[test]
fn a_cancelled_build_fails_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_genomes(dir.path(), 6);
    let recorder = Recorder {
        stop_after: 2,
        ..Recorder::default()
    };
    let options = options(dir.path(), inputs);
    let error = build_observed(&options, &recorder).expect_err("cancelled");
    assert!(
        matches!(&error, BuildError::Cancelled { path } if *path == options.output),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "{}: build cancelled; nothing was written",
            options.output.display()
        )
    );
    assert!(recorder.calls.lock().unwrap().len() < 6, "stopped early");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        left,
        vec!["in".to_string()],
        "no index and no temporary file"
    );
}

#[test]
fn a_build_cancelled_before_pass_two_writes_nothing() {
    struct Stop;
    impl BuildObserver for Stop {
        fn cancelled(&self) -> bool {
            true
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let inputs = write_genomes(dir.path(), 2);
    let options = options(dir.path(), inputs);
    let error = build_observed(&options, &Stop).expect_err("cancelled");
    assert!(matches!(error, BuildError::Cancelled { .. }), "{error:?}");
    assert!(!options.output.exists());
}
