//! bitsift and COBS on the same files: indexes built by COBS (`cobs_index` from PyPI
//! `cobs-reloaded`, driven by `tests/peer/cobs_peer.py`) are searched by bitsift, and indexes
//! built by bitsift are searched by COBS; every (query, document) score must be identical.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// Documents of random DNA (with N runs and lowercase stretches) and a query file of exact
/// substrings, mutated ones, random ones, N and lowercase queries, queries shorter than k and
/// one longer than 10 kb.
fn write_inputs(dir: &Path, documents: usize, len_max: u64, seed: u64) -> (PathBuf, PathBuf) {
    let mut rng = Rng(seed);
    let inputs = dir.join("genomes");
    std::fs::create_dir_all(&inputs).unwrap();
    let mut all = Vec::new();
    for d in 0..documents {
        let len = 200 + rng.below(len_max) as usize;
        let mut sequence = rng.dna(len);
        if d % 3 == 0 {
            let at = rng.below(len as u64 - 20) as usize;
            sequence[at..at + 7].copy_from_slice(b"NNNNNNN");
        }
        write_fasta(
            &inputs.join(format!("g{d:04}.fa")),
            &[(format!("g{d}"), sequence.clone())],
        );
        all.push(sequence);
    }
    let mut queries = Vec::new();
    for q in 0..30 {
        let source = &all[rng.below(all.len() as u64) as usize];
        let len = (31 + rng.below(400) as usize).min(source.len());
        let at = rng.below((source.len() - len + 1) as u64) as usize;
        let mut query = source[at..at + len].to_vec();
        match q % 5 {
            1 => {
                let at = rng.below(query.len() as u64) as usize;
                query[at] = b"ACGT"[rng.below(4) as usize];
            }
            2 => query[len / 2] = b'N',
            3 => query[..len / 3].make_ascii_lowercase(),
            4 => query = rng.dna(len),
            _ => {}
        }
        queries.push((format!("q{q}"), query));
    }
    queries.push(("short".into(), b"ACGTACGTAC".to_vec()));
    queries.push(("single_kmer".into(), all[0][..31].to_vec()));
    let long: Vec<u8> = all
        .iter()
        .flat_map(|s| s.iter().copied())
        .take(12_000)
        .collect();
    queries.push(("long".into(), long));
    let query_file = dir.join("queries.fa");
    write_fasta(&query_file, &queries);
    (inputs, query_file)
}

fn bitsift_scores(index: &Path, queries: &Path) -> Vec<(String, String, u32)> {
    let output = run(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-t",
        "0",
        "-f",
        queries.to_str().unwrap(),
    ]);
    // Exit 2: the short query was reported and skipped; the rest ran.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("\"short\": query is 10 bases, shorter than k = 31"));
    parse_bitsift_tsv(&stdout(&output))
}

fn cobs_scores(index: &Path, queries: &Path) -> Option<Vec<(String, String, u32)>> {
    let output = cobs_peer(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-t",
        "0",
        "-f",
        queries.to_str().unwrap(),
    ])?;
    Some(parse_scores(&stdout(&output)))
}

fn assert_same(label: &str, ours: &[(String, String, u32)], theirs: &[(String, String, u32)]) {
    assert!(!ours.is_empty(), "{label}: no results at all");
    assert_eq!(
        ours.len(),
        theirs.len(),
        "{label}: different numbers of (query, document) pairs"
    );
    for (a, b) in ours.iter().zip(theirs) {
        assert_eq!(a, b, "{label}: scores differ");
    }
    // Not every score may be 0 or all k-mers: the comparison must have had something to compare.
    assert!(ours.iter().any(|(_, _, s)| *s > 0));
}

#[test]
fn bitsift_reads_indexes_built_by_cobs() {
    if !cobs_available() {
        return;
    }
    let dir = temp_dir();
    let (inputs, queries) = write_inputs(dir.path(), 150, 3000, 1);
    let (small_inputs, small_queries) = write_inputs(&dir.path().join("small"), 12, 1500, 2);
    // (kind, page size, hashes, inputs, queries): page sizes COBS picks (8 for < 512
    // documents), several blocks, a non-power of two, and large rows on a small collection.
    let cases: Vec<(&str, Option<u32>, u32, &Path, &Path)> = vec![
        ("compact", None, 1, &inputs, &queries),
        ("compact", None, 3, &inputs, &queries),
        ("compact", Some(16), 1, &inputs, &queries),
        ("compact", Some(20), 3, &inputs, &queries),
        ("compact", Some(512), 1, &small_inputs, &small_queries),
        ("compact", Some(4096), 3, &small_inputs, &small_queries),
        ("classic", None, 1, &inputs, &queries),
        ("classic", None, 3, &small_inputs, &small_queries),
    ];
    for (kind, page_size, hashes, inputs, queries) in cases {
        let index = dir.path().join(format!(
            "cobs_{kind}_{}_{hashes}.cobs_{kind}",
            page_size.unwrap_or(0)
        ));
        let mut args = vec![
            "build".to_string(),
            "--kind".into(),
            kind.into(),
            "-o".into(),
            index.display().to_string(),
            "--hashes".into(),
            hashes.to_string(),
        ];
        if let Some(p) = page_size {
            args.extend(["--page-size".into(), p.to_string()]);
        }
        args.push(inputs.display().to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cobs_peer(&args);
        let label = format!("COBS {kind} P={page_size:?} H={hashes}");
        let theirs = cobs_scores(&index, queries).unwrap();
        let ours = bitsift_scores(&index, queries);
        assert_same(&label, &ours, &theirs);
    }
}

#[test]
fn cobs_reads_indexes_built_by_bitsift() {
    if !cobs_available() {
        return;
    }
    let dir = temp_dir();
    let (inputs, queries) = write_inputs(dir.path(), 150, 3000, 3);
    let (small_inputs, small_queries) = write_inputs(&dir.path().join("small"), 12, 1500, 4);
    let cases: Vec<(&[&str], &Path, &Path)> = vec![
        (&[], &inputs, &queries),
        (&["--page-size", "8", "--hashes", "3"], &inputs, &queries),
        (&["--page-size", "20"], &inputs, &queries),
        (
            &["--page-size", "4096", "--hashes", "2"],
            &small_inputs,
            &small_queries,
        ),
        (&["--no-canonical"], &inputs, &queries),
    ];
    for (n, (options, inputs, queries)) in cases.into_iter().enumerate() {
        let index = dir.path().join(format!("bitsift{n}.cobs_compact"));
        let mut args = vec!["build", "-q", "-o", index.to_str().unwrap()];
        args.extend_from_slice(options);
        args.push(inputs.to_str().unwrap());
        let output = run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        let label = format!("bitsift build {options:?}");
        let theirs = cobs_scores(&index, queries).unwrap();
        let ours = bitsift_scores(&index, queries);
        assert_same(&label, &ours, &theirs);
    }
}
