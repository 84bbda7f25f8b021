//! Every document type COBS reads, built by `cobs compact-construct` / `classic-construct`
//! and listed by `cobs doc-list`, against COBS itself (PyPI `cobs-reloaded`, driven by
//! `tests/peer/cobs_documents.py` and `tests/peer/cobs_peer.py`) on COBS's own test inputs
//! (`tests/data/cobs`): the same documents with the same names and term counts, indexes
//! with the same names in the same order, and identical scores for every query and document.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

fn cobs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cobs"))
        .args(args)
        .output()
        .expect("run cobs")
}

/// Runs `tests/peer/cobs_documents.py`; `None` when COBS is skipped.
fn cobs_documents(args: &[&str]) -> Option<Output> {
    if !cobs_available() {
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/cobs_documents.py");
    let output = Command::new(python())
        .arg(script)
        .args(args)
        .output()
        .expect("run python");
    assert!(
        output.status.success(),
        "cobs_documents {args:?}: {}",
        stderr(&output)
    );
    Some(output)
}

fn copy_tree(from: &Path, to: &Path, skip: &dyn Fn(&str) -> bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if skip(&name) {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(&name), skip);
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// A copy of COBS's test inputs (COBS would write cache files beside them), with a k-mer
/// buffer added. The 15-mer graph is left out: COBS keeps the k-mer width of the first
/// graph it reads in a static variable, so two graphs of different k in one build read
/// differently depending on COBS's thread order.
fn inputs(dir: &Path) -> PathBuf {
    let data = dir.join("data");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cobs/tests/data");
    copy_tree(&source, &data, &|name| name.starts_with("sample1-k15"));
    let kmers = data.join("kmers");
    std::fs::create_dir(&kmers).unwrap();
    let mut buffer = b"COBS:DOCUMENT".to_vec();
    buffer.extend(1u32.to_le_bytes());
    buffer.extend(31u32.to_le_bytes());
    buffer.extend(b"kmer_doc\0DOCUMENT");
    let mut rng = Rng(5);
    for _ in 0..300 {
        buffer.extend((0..8).map(|_| (rng.next() & 0xff) as u8));
    }
    std::fs::write(kmers.join("buffer.cobs_doc"), buffer).unwrap();
    data
}

/// Queries: sequence lines of the inputs, one lowercased, the first text lines, and two
/// of the graph's k-mers.
fn queries(data: &Path, out: &Path) {
    let mut text = String::new();
    let mut number = 0;
    let mut add = |sequence: &str, text: &mut String| {
        number += 1;
        text.push_str(&format!(">q{number}\n{sequence}\n"));
    };
    for file in [
        "fasta/sample1.fasta",
        "fasta/sample4.fasta",
        "fasta_multi/sample2.mfasta",
        "fastq/sample1.fastq",
        "text/sample2.txt",
    ] {
        let content = std::fs::read_to_string(data.join(file)).unwrap();
        for line in content
            .lines()
            .filter(|l| l.len() >= 36 && !l.starts_with(['>', '@', '+']))
            .take(3)
        {
            add(&line.replace(' ', ""), &mut text);
        }
    }
    let line = std::fs::read_to_string(data.join("fasta/sample2.fasta")).unwrap();
    let lowered = line.lines().nth(1).unwrap().to_ascii_lowercase();
    add(&lowered, &mut text);
    add(
        "AAAAAACGGCCTACGCTCCCTTTAAACCCAATAAAAAGCCGCCTTCGCCACTGGTGTTCCTCC",
        &mut text,
    );
    std::fs::write(out, text).unwrap();
}

/// `cobs doc-list` lines as (path, 31-mers, name).
fn listed_by_bitsift(path: &Path, file_type: &str) -> Vec<(String, u64, String)> {
    let output = ok(cobs(&["doc-list", "--file-type", file_type, text(path)]));
    stdout(&output)
        .lines()
        .filter(|line| line.starts_with("document["))
        .map(|line| {
            let parts: Vec<&str> = line.splitn(3, " : ").collect();
            let terms = parts[0].rsplit(' ').next().unwrap().parse().unwrap();
            (parts[1].to_string(), terms, parts[2].to_string())
        })
        .collect()
}

#[test]
fn document_lists_match_cobs() {
    let dir = temp_dir();
    let data = inputs(dir.path());
    for (path, file_type) in [
        (data.clone(), "any"),
        (data.clone(), "fasta"),
        (data.clone(), "fastq"),
        (data.join("text"), "text"),
        (data.join("cortex"), "cortex"),
        (data.join("kmers"), "cobs_doc"),
        (data.join("fasta_multi"), "any"),
        (data.join("fasta_files.list"), "list"),
    ] {
        let Some(peer) = cobs_documents(&["list", "--file-type", file_type, text(&path)]) else {
            return;
        };
        let expected: Vec<(String, u64, String)> = stdout(&peer)
            .lines()
            .map(|line| {
                let cells: Vec<&str> = line.split('\t').collect();
                (
                    cells[0].to_string(),
                    cells[7].parse().unwrap(),
                    cells[2].to_string(),
                )
            })
            .collect();
        assert!(!expected.is_empty(), "{path:?} {file_type}");
        assert_eq!(
            listed_by_bitsift(&path, file_type),
            expected,
            "{path:?} {file_type}"
        );
    }
}

/// Builds `input` of `file_type` with both, and compares names and scores.
fn compare_builds(dir: &Path, input: &Path, file_type: &str, kind: &str, queries: &Path) {
    let ours = dir.join(format!("ours.cobs_{kind}"));
    let theirs = dir.join(format!("theirs.cobs_{kind}"));
    let verb = format!("{kind}-construct");
    ok(cobs(&[
        &verb,
        "-C",
        "--file-type",
        file_type,
        text(input),
        text(&ours),
    ]));
    let Some(_) = cobs_documents(&[
        "build",
        "--kind",
        kind,
        "--file-type",
        file_type,
        text(input),
        text(&theirs),
    ]) else {
        return;
    };
    let names = |path: &Path| -> Vec<String> {
        let header = bitsift::format::IndexHeader::open(path).unwrap();
        header
            .names
            .all()
            .unwrap()
            .iter()
            .map(str::to_string)
            .collect()
    };
    let case = format!("{} {file_type} {kind}", input.display());
    assert_eq!(names(&ours), names(&theirs), "{case}");
    let scores = |index: &Path| {
        let output = cobs_peer(&["query", "-i", text(index), "-t", "0", "-f", text(queries)])
            .expect("COBS is there");
        parse_scores(&stdout(&output))
    };
    let expected = scores(&theirs);
    assert!(expected.iter().any(|row| row.2 > 0), "{case}: no hits");
    assert_eq!(scores(&ours), expected, "{case}");
    // The index files are the same bytes.
    assert!(
        std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap(),
        "{case}: the files differ"
    );
}

#[test]
fn constructions_match_cobs() {
    let dir = temp_dir();
    let data = inputs(dir.path());
    let queries_file = dir.path().join("queries.fa");
    queries(&data, &queries_file);
    for (input, file_type) in [
        (data.clone(), "any"),
        (data.join("fasta_multi"), "any"),
        (data.join("text"), "text"),
        (data.join("cortex/document.ctx"), "any"),
        (data.join("kmers"), "cobs_doc"),
        (data.join("fastq"), "fastq"),
        (data.join("fasta_files.list"), "list"),
    ] {
        for kind in ["classic", "compact"] {
            compare_builds(dir.path(), &input, file_type, kind, &queries_file);
        }
    }
}

/// Types COBS does not read are refused with a message naming the type.
#[test]
fn unreadable_types_are_refused() {
    let dir = temp_dir();
    let reads = dir.path().join("reads.mfastq");
    std::fs::write(&reads, "@r\nACGT\n+\nIIII\n").unwrap();
    let output = cobs(&["doc-list", text(&reads)]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("multi-FASTQ"),
        "{}",
        stderr(&output)
    );
    let table = dir.path().join("genes.gbk");
    std::fs::write(&table, "LOCUS x\n").unwrap();
    let output = cobs(&[
        "compact-construct",
        text(&table),
        text(&dir.path().join("x.cobs_compact")),
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("not a document type COBS reads"),
        "{}",
        stderr(&output)
    );
    let output = cobs(&["doc-list", "--file-type", "genbank", text(dir.path())]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("unknown file type \"genbank\""));
    let output = cobs(&[
        "classic-construct",
        text(&reads),
        text(&dir.path().join("x.index")),
    ]);
    assert!(stderr(&output).contains("must end with .cobs_classic"));
}

/// `bitsift build --cobs-file-type`: COBS's documents in a bitsift build (bitsift's order and
/// page size), scored as COBS scores its own compact index of them.
#[test]
fn bitsift_build_reads_cobs_types() {
    let dir = temp_dir();
    let data = inputs(dir.path());
    let queries_file = dir.path().join("queries.fa");
    queries(&data, &queries_file);
    let ours = dir.path().join("ours.cobs_compact");
    ok(run(&[
        "build",
        "--cobs-file-type",
        "any",
        "-o",
        text(&ours),
        text(&data.join("fasta_multi")),
        text(&data.join("text")),
        text(&data.join("cortex")),
    ]));
    let header = bitsift::format::IndexHeader::open(&ours).unwrap();
    let mut names: Vec<String> = header
        .names
        .all()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    names.sort();
    let mut expected: Vec<String> = (0..5).map(|i| format!("sample2_{i:06}")).collect();
    expected.extend(["DRR030535", "sample1", "sample1_000000", "sample2"].map(String::from));
    expected.sort();
    assert_eq!(names, expected);
    let theirs = dir.path().join("theirs.cobs_compact");
    let all = dir.path().join("all");
    for part in ["fasta_multi", "text", "cortex"] {
        copy_tree(&data.join(part), &all.join(part), &|_| false);
    }
    let Some(_) = cobs_documents(&["build", "--kind", "compact", text(&all), text(&theirs)]) else {
        return;
    };
    let scores = |index: &Path| {
        let output = cobs_peer(&[
            "query",
            "-i",
            text(index),
            "-t",
            "0",
            "-f",
            text(&queries_file),
        ])
        .expect("COBS is there");
        parse_scores(&stdout(&output))
    };
    assert_eq!(scores(&ours), scores(&theirs));
    let output = run(&[
        "build",
        "--cobs-file-type",
        "text",
        "--per-record",
        "-o",
        text(&dir.path().join("x.cobs_compact")),
        text(&data),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}
