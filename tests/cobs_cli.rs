//! The `cobs` executable and `bitsift cobs` against COBS: an index built by
//! `cobs compact-construct` is searched by COBS's Python module (`tests/peer/cobs_peer.py`)
//! with identical scores, and `cobs query` prints, byte for byte, the text that COBS's
//! command line would print for the results COBS's module gives on the same index.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

/// The `cobs` executable built for these tests.
fn cobs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cobs"))
        .args(args)
        .output()
        .expect("run cobs")
}

/// An output that failed cleanly: non-zero exit, a message, no panic.
fn assert_clean_failure(output: &Output, message: &str) {
    let text = stderr(output);
    assert!(!output.status.success(), "succeeded: {text}");
    assert!(text.contains(message), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    assert!(stdout(output).is_empty(), "{}", stdout(output));
}

/// Builds the bundled genomes with `cobs compact-construct` (COBS's defaults).
fn build_demo(dir: &Path) -> PathBuf {
    let index = dir.join("demo.cobs_compact");
    let genomes = demo_file("genomes");
    let output = ok(cobs(&["compact-construct", text(&genomes), text(&index)]));
    // COBS prints the document list on standard output before it builds.
    assert!(
        stdout(&output).starts_with("--- document list (12 entries) ---\n"),
        "{}",
        stdout(&output)
    );
    index
}

/// The record names of a FASTA file, in order (the header up to the first whitespace).
fn record_names(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix('>'))
        .map(|header| header.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

/// COBS's `cobs query -f` text, rebuilt from COBS's Python module: per record `*name<TAB>hits`
/// and then `document<TAB>score` lines in COBS's order (the peer keeps that order).
fn expected_cobs_text(
    index: &Path,
    queries: &Path,
    threshold: &str,
    limit: &str,
) -> Option<String> {
    let peer = cobs_peer(&[
        "query",
        "-i",
        text(index),
        "-t",
        threshold,
        "-l",
        limit,
        "-f",
        text(queries),
    ])?;
    let peer_text = stdout(&peer);
    let mut text = String::new();
    for name in record_names(queries) {
        let hits: Vec<&str> = peer_text
            .lines()
            .filter(|line| line.split('\t').next() == Some(name.as_str()))
            .collect();
        text.push_str(&format!("*{name}\t{}\n", hits.len()));
        for hit in hits {
            let (_, rest) = hit.split_once('\t').unwrap();
            text.push_str(rest);
            text.push('\n');
        }
    }
    Some(text)
}

/// Phylign's call, `cobs query --load-complete -t 0.33 -T 2 -i INDEX -f QUERIES`, prints what
/// COBS prints for COBS's own results on an index built by `cobs compact-construct`; so does
/// `bitsift cobs query` without --load-complete.
#[test]
fn phylign_query_prints_cobs_text() {
    let dir = temp_dir();
    let index = build_demo(dir.path());
    for file in ["amr_genes.fa", "replicons.fa"] {
        let queries = demo_file(&format!("queries/{file}"));
        let Some(expected) = expected_cobs_text(&index, &queries, "0.33", "0") else {
            return;
        };
        assert!(
            expected.lines().count() > record_names(&queries).len(),
            "no hits"
        );
        let phylign = ok(cobs(&[
            "query",
            "--load-complete",
            "-t",
            "0.33",
            "-T",
            "2",
            "-i",
            text(&index),
            "-f",
            text(&queries),
        ]));
        assert_eq!(stdout(&phylign), expected, "{file}");
        let bitsift = ok(run(&[
            "cobs",
            "query",
            "-t",
            "0.33",
            "-i",
            text(&index),
            "-f",
            text(&queries),
        ]));
        assert_eq!(stdout(&bitsift), expected, "{file}");
    }
}

/// Ties (threshold 0: every document, many with score 0) and limits (`-l`) are ordered and
/// cut as COBS orders and cuts them: score descending, then document order.
#[test]
fn ties_and_limits_as_cobs() {
    let dir = temp_dir();
    let index = build_demo(dir.path());
    let queries = demo_file("queries/replicons.fa");
    for limit in ["0", "3"] {
        let Some(expected) = expected_cobs_text(&index, &queries, "0", limit) else {
            return;
        };
        let output = ok(cobs(&[
            "query",
            "-t",
            "0",
            "-l",
            limit,
            "-i",
            text(&index),
            "-f",
            text(&queries),
        ]));
        assert_eq!(stdout(&output), expected, "-l {limit}");
    }
}

/// `--index-sizes`: an index streamed through a pipe (`-i <(xzcat …)` in Phylign) is read.
#[test]
fn streamed_index_is_read() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = temp_dir();
    let index = build_demo(dir.path());
    let bytes = std::fs::read(&index).unwrap();
    let queries = demo_file("queries/replicons.fa");
    let expected = stdout(&ok(cobs(&[
        "query",
        "-i",
        text(&index),
        "-f",
        text(&queries),
    ])));
    let size = bytes.len().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cobs"))
        .args([
            "query",
            "--load-complete",
            "--index-sizes",
            &size,
            "-i",
            "/dev/stdin",
        ])
        .args(["-f", text(&queries)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(stdout(&ok(output)), expected);
}

/// The index `cobs compact-construct` writes is read by COBS with the scores bitsift gives,
/// for every document (threshold 0) and every query.
#[test]
fn constructed_index_scores_as_cobs() {
    let dir = temp_dir();
    let index = build_demo(dir.path());
    let queries = demo_file("queries/amr_genes.fa");
    let Some(peer) = cobs_peer(&["query", "-i", text(&index), "-t", "0", "-f", text(&queries)])
    else {
        return;
    };
    let output = ok(cobs(&[
        "query",
        "-t",
        "0",
        "-i",
        text(&index),
        "-f",
        text(&queries),
    ]));
    let mut ours = Vec::new();
    let mut query = String::new();
    for line in stdout(&output).lines() {
        let (first, second) = line.split_once('\t').unwrap();
        match first.strip_prefix('*') {
            Some(name) => {
                query = name.to_string();
                assert_eq!(second.parse::<usize>().unwrap(), 12, "threshold 0: all");
            }
            None => ours.push((query.clone(), first.to_string(), second.parse().unwrap())),
        }
    }
    ours.sort();
    assert_eq!(ours, parse_scores(&stdout(&peer)));
}

/// A sequence on the command line: `document<TAB>score` lines and no header, as COBS.
#[test]
fn verbatim_query_prints_cobs_text() {
    let dir = temp_dir();
    let index = build_demo(dir.path());
    let queries = std::fs::read_to_string(demo_file("queries/replicons.fa")).unwrap();
    let sequence: String = queries
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('>'))
        .collect();
    let Some(peer) = cobs_peer(&["query", "-i", text(&index), "-t", "0.5", &sequence]) else {
        return;
    };
    let expected: String = stdout(&peer)
        .lines()
        .map(|line| format!("{}\n", line.split_once('\t').unwrap().1))
        .collect();
    assert!(!expected.is_empty());
    let output = ok(cobs(&["query", "-t", "0.5", "-i", text(&index), &sequence]));
    assert_eq!(stdout(&output), expected);
}

/// A classic construction is searched by COBS with bitsift's scores.
#[test]
fn classic_construct_is_read_by_cobs() {
    let dir = temp_dir();
    let index = dir.path().join("demo.cobs_classic");
    let genomes = demo_file("genomes");
    ok(cobs(&["classic-construct", text(&genomes), text(&index)]));
    let bytes = std::fs::read(&index).unwrap();
    assert_eq!(&bytes[..18], b"COBS:CLASSIC_INDEX");
    // Documents in path order, as COBS's classic construction orders them.
    let header = bitsift::format::IndexHeader::open(&index).unwrap();
    let all = header.names.all().unwrap();
    let names: Vec<&str> = all.iter().collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    // No temporary file (nor its side files) is left beside the index; its checksums and
    // catalog are there.
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "demo.cobs_classic",
            "demo.cobs_classic.bitsift-catalog",
            "demo.cobs_classic.bitsift-checksums",
            "demo.cobs_classic.bitsift-ones"
        ]
    );
    let queries = demo_file("queries/replicons.fa");
    let Some(expected) = expected_cobs_text(&index, &queries, "0.8", "0") else {
        return;
    };
    let output = ok(cobs(&["query", "-i", text(&index), "-f", text(&queries)]));
    assert_eq!(stdout(&output), expected);
}

/// Options COBS has and bitsift does not need: accepted, noted on standard error, exit 0.
#[test]
fn ignored_options_are_noted() {
    let dir = temp_dir();
    let genomes = dir.path().join("genomes");
    std::fs::create_dir(&genomes).unwrap();
    let mut rng = Rng(22);
    for d in 0..3 {
        write_fasta(
            &genomes.join(format!("g{d}.fa")),
            &[("g".into(), rng.dna(500))],
        );
    }
    let index = dir.path().join("x.cobs_compact");
    let output = ok(cobs(&[
        "compact-construct",
        "--keep-temporary",
        "--continue",
        "--tmp-path",
        text(dir.path()),
        "-T",
        "1",
        "-m",
        "64M",
        text(&genomes),
        text(&index),
    ]));
    let notes = stderr(&output);
    for option in ["--keep-temporary", "--continue", "--tmp-path"] {
        assert!(notes.contains(&format!("{option} is ignored")), "{notes}");
        assert!(!stdout(&output).contains(option));
    }
    // An existing output is refused, as COBS does, unless -C/--clobber.
    assert_clean_failure(
        &Command::new(env!("CARGO_BIN_EXE_cobs"))
            .args(["compact-construct", text(&genomes), text(&index)])
            .output()
            .unwrap(),
        "x.cobs_compact",
    );
    ok(cobs(&[
        "compact-construct",
        "-C",
        text(&genomes),
        text(&index),
    ]));
}

#[test]
fn bad_input_fails_cleanly() {
    let dir = temp_dir();
    let missing = dir.path().join("missing.cobs_compact");
    let output = cobs(&[
        "query",
        "-i",
        text(&missing),
        "ACGTACGTACGTACGTACGTACGTACGTACGTACGT",
    ]);
    assert_clean_failure(&output, "missing.cobs_compact");

    let index = build_demo(dir.path());
    let queries = dir.path().join("bad.fa");
    write_fasta(
        &queries,
        &[("protein".into(), b"MKLVVLEFQPRSTWYHHEEIILLPPQQ".repeat(3))],
    );
    let output = cobs(&["query", "-i", text(&index), "-f", text(&queries)]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("protein"), "{}", stderr(&output));
    assert!(!stderr(&output).contains("panicked"));

    let output = cobs(&["query", "-i", text(&index), "ACGTACGTAC"]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("shorter than k = 31"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).is_empty());

    let output = cobs(&["query", "-i", text(&index)]);
    assert_clean_failure(&output, "give a query sequence or -f QUERIES");
}

/// `print-parameters` prints COBS's numbers in COBS's format.
#[test]
fn print_parameters_as_cobs() {
    assert_eq!(stdout(&ok(cobs(&["print-parameters"]))), "2.80367\n");
    let output = ok(cobs(&["print-parameters", "-n", "1000000"]));
    assert_eq!(
        stdout(&output),
        "signature_size = 2803674\nsignature_bytes = 350459 = 342.245 Ki\n"
    );
    let output = ok(run(&[
        "cobs",
        "print-parameters",
        "--num-hashes",
        "3",
        "-f",
        "0.1",
        "-n",
        "1000000",
    ]));
    assert!(stdout(&output).starts_with("signature_size = 4808328\n"));
}

/// `doc-list` prints COBS's list: path order, sizes, k-mer positions, names to the first dot.
#[test]
fn doc_list_as_cobs() {
    let dir = temp_dir();
    let mut rng = Rng(7);
    let lengths = [100usize, 40, 31, 20];
    for (d, len) in lengths.iter().enumerate() {
        write_fasta(
            &dir.path().join(format!("s{d}.contigs.fa")),
            &[("a".into(), rng.dna(*len)), ("b".into(), rng.dna(35))],
        );
    }
    let output = ok(cobs(&["doc-list", text(dir.path())]));
    let mut expected = String::from("--- document list (4 entries) ---\n");
    let mut terms = Vec::new();
    for (d, len) in lengths.iter().enumerate() {
        let path = dir.path().join(format!("s{d}.contigs.fa"));
        let bytes = std::fs::metadata(&path).unwrap().len();
        let count = len.saturating_sub(30) + 5;
        terms.push(count);
        expected.push_str(&format!(
            "document[{d}] size {bytes} 31-mers {count} : {} : s{d}\n",
            path.display()
        ));
    }
    let total: usize = terms.iter().sum();
    expected.push_str(&format!(
        "--- end of document list (4 entries) ---\ndocuments: 4\nminimum 31-mers: {}\nmaximum 31-mers: {}\naverage 31-mers: {}\ntotal 31-mers: {total}\n",
        terms.iter().min().unwrap(),
        terms.iter().max().unwrap(),
        total / 4
    ));
    assert_eq!(stdout(&output), expected);
}

/// `print-kmers` prints canonical k-mers, one short as COBS does.
#[test]
fn print_kmers_as_cobs() {
    let output = ok(cobs(&["print-kmers", "-k", "3", "TTTACG"]));
    // TTT→AAA, TTA stays (k = 3 compares only the ends: T against T), TAC→GTA; ACG,
    // the last, is not printed: COBS stops one early.
    assert_eq!(stdout(&output), "AAA\nTTA\nGTA\n");
}

/// Issue 30, item 5: a wrong value of a COBS option is a usage error, exit 2, as in bitsift
/// (it exited 1, from the build, naming bitsift's options): the message names COBS's
/// option, and nothing is built. No index given is a usage error too.
#[test]
fn usage_errors_exit_2_and_name_cobs_options() {
    let dir = temp_dir();
    let genomes = demo_file("genomes");
    let out = dir.path().join("x.cobs_compact");
    let classic = dir.path().join("x.cobs_classic");
    let construct = |verb: &str, output: &Path, extra: &[&str]| {
        let mut args = vec![verb, text(&genomes), text(output)];
        args.extend(extra);
        cobs(&args)
    };
    let cases = [
        (
            construct("compact-construct", &out, &["-f", "0"]),
            "'--false-positive-rate <RATE>'",
        ),
        (
            construct("compact-construct", &out, &["-f", "1.5"]),
            "1.5 is out of range",
        ),
        (
            construct("compact-construct", &out, &["--num-hashes", "0"]),
            "'--num-hashes <N>'",
        ),
        (
            construct("compact-construct", &out, &["--num-hashes", "1000"]),
            "1000 is out of range",
        ),
        (
            construct("compact-construct", &out, &["-k", "100"]),
            "'--term-size <K>'",
        ),
        (
            construct("compact-construct", &out, &["-k", "0"]),
            "0 is out of range",
        ),
        (
            construct("compact-construct", &out, &["-p", "99999999999"]),
            "'--page-size <BYTES>'",
        ),
        (
            construct("classic-construct", &classic, &["-f", "2"]),
            "'--false-positive-rate <RATE>'",
        ),
        (
            cobs(&["print-parameters", "-f", "0"]),
            "'--false-positive-rate <RATE>'",
        ),
        (
            cobs(&["print-parameters", "--num-hashes", "0"]),
            "'--num-hashes <N>'",
        ),
        (
            cobs(&["doc-list", "-k", "0", text(&genomes)]),
            "'--term-size <K>'",
        ),
        (
            cobs(&["print-kmers", "-k", "0", "ACGT"]),
            "'--kmer-size <K>'",
        ),
        (
            cobs(&["query", "ACGTACGTACGTACGTACGTACGTACGTACGTACGT"]),
            "no index given: pass -i INDEX",
        ),
        (
            run(&["query", "ACGTACGTACGTACGTACGTACGTACGTACGTACGT"]),
            "no index given: pass -i INDEX",
        ),
    ];
    for (number, (output, message)) in cases.iter().enumerate() {
        assert_eq!(
            output.status.code(),
            Some(2),
            "case {number}: {}",
            stderr(output)
        );
        assert_clean_failure(output, message);
        assert!(!stderr(output).contains("--fpr"), "{}", stderr(output));
    }
    assert!(!out.exists() && !classic.exists());
}
