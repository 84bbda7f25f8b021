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

/// bitsift's scores with COBS's byte rule (`--cobs-bases`: lowercase query bases read as A).
fn bitsift_scores(index: &Path, queries: &Path, k: u32) -> Vec<(String, String, u32)> {
    let output = run(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-t",
        "0",
        "--cobs-bases",
        "--raw-threshold",
        "-f",
        queries.to_str().unwrap(),
    ]);
    // Exit 3: the short query was reported and skipped; the rest ran.
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let expected = format!("\"short\": query is 10 bases, shorter than k = {k}");
    assert!(stderr(&output).contains(&expected), "{}", stderr(&output));
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

/// Writes the query FASTA also as gzip FASTQ (quality all 'I').
fn fastq_gz_copy(fasta: &Path) -> PathBuf {
    let mut reader = bitsift::seqfile::SeqReader::open(fasta).unwrap();
    let mut record = bitsift::seqfile::SeqRecord::default();
    let path = fasta.with_extension("fq.gz");
    let mut out = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).unwrap(),
        flate2::Compression::fast(),
    );
    while reader.next_into(&mut record).unwrap() {
        use std::io::Write;
        let quality = "I".repeat(record.sequence.len());
        write!(
            out,
            "@{} extra words\n{}\n+\n{quality}\n",
            record.name,
            String::from_utf8_lossy(&record.sequence)
        )
        .unwrap();
    }
    out.finish().unwrap();
    path
}

fn cobs_build(
    index: &Path,
    kind: &str,
    k: u32,
    page_size: Option<u32>,
    hashes: u32,
    canonical: bool,
    inputs: &Path,
) {
    let mut args = vec![
        "build".to_string(),
        "--kind".into(),
        kind.into(),
        "-o".into(),
        index.display().to_string(),
        "-k".into(),
        k.to_string(),
        "--hashes".into(),
        hashes.to_string(),
    ];
    if let Some(p) = page_size {
        args.extend(["--page-size".into(), p.to_string()]);
    }
    if !canonical {
        args.push("--no-canonicalize".into());
    }
    args.push(inputs.display().to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    cobs_peer(&args);
}

/// COBS's `query -f` output (`*name<TAB>hits`, then `document<TAB>score` in COBS's order),
/// rebuilt from the peer's rows, which come in COBS's result order. Queries shorter than k
/// are left out: COBS ends the whole run at the first one.
fn cobs_cli_text(peer_stdout: &str, query_names: &[String]) -> String {
    let mut text = String::new();
    for name in query_names {
        let hits: Vec<&str> = peer_stdout
            .lines()
            .filter(|l| l.split('\t').next() == Some(name.as_str()))
            .collect();
        text.push_str(&format!("*{name}\t{}\n", hits.len()));
        for line in hits {
            let cells: Vec<&str> = line.split('\t').collect();
            text.push_str(&format!("{}\t{}\n", cells[1], cells[2]));
        }
    }
    text
}

#[test]
fn bitsift_reads_the_cobs_parameter_matrix() {
    if !cobs_available() {
        return;
    }
    let dir = temp_dir();
    let (inputs, queries) = write_inputs(dir.path(), 150, 3000, 1);
    let (small_inputs, small_queries) = write_inputs(&dir.path().join("small"), 12, 1500, 2);
    let queries_fq = fastq_gz_copy(&queries);
    let small_queries_fq = fastq_gz_copy(&small_queries);
    let mut cases = 0;
    for kind in ["compact", "classic"] {
        let page_sizes: &[Option<u32>] = if kind == "compact" {
            &[Some(8), Some(16), Some(20), Some(512), Some(4096)]
        } else {
            &[None]
        };
        for &page_size in page_sizes {
            for k in [15u32, 31] {
                for hashes in [1u32, 3] {
                    for canonical in [true, false] {
                        // Large rows on a small collection keep the files small.
                        let small = page_size.is_some_and(|p| p >= 512);
                        let (inputs, queries, queries_fq) = if small {
                            (&small_inputs, &small_queries, &small_queries_fq)
                        } else {
                            (&inputs, &queries, &queries_fq)
                        };
                        let index = dir.path().join(format!(
                            "c_{kind}_{}_{k}_{hashes}_{canonical}.cobs_{kind}",
                            page_size.unwrap_or(0)
                        ));
                        cobs_build(&index, kind, k, page_size, hashes, canonical, inputs);
                        let label = format!(
                            "COBS {kind} P={page_size:?} k={k} H={hashes} canonical={canonical}"
                        );
                        let theirs = cobs_scores(&index, queries).unwrap();
                        let ours = bitsift_scores(&index, queries, k);
                        assert_same(&label, &ours, &theirs);
                        // FASTQ.gz query files give the same answers.
                        let theirs_fq = cobs_scores(&index, queries_fq).unwrap();
                        assert_eq!(
                            theirs_fq, theirs,
                            "{label}: COBS differs between FASTA and FASTQ.gz"
                        );
                        assert_eq!(
                            bitsift_scores(&index, queries_fq, k),
                            ours,
                            "{label}: FASTQ.gz"
                        );
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 48);
}

#[test]
fn cobs_output_format_is_byte_identical() {
    if !cobs_available() {
        return;
    }
    let dir = temp_dir();
    let (inputs, queries) = write_inputs(dir.path(), 150, 3000, 5);
    // COBS's CLI ends at a short query: compare on a file without one.
    let mut reader = bitsift::seqfile::SeqReader::open(&queries).unwrap();
    let mut record = bitsift::seqfile::SeqRecord::default();
    let mut records = Vec::new();
    while reader.next_into(&mut record).unwrap() {
        if record.sequence.len() >= 31 {
            records.push((record.name.clone(), record.sequence.clone()));
        }
    }
    let queries = dir.path().join("long_enough.fa");
    write_fasta(&queries, &records);
    let names: Vec<String> = records.iter().map(|r| r.0.clone()).collect();
    for hashes in [1u32, 3] {
        let index = dir.path().join(format!("x{hashes}.cobs_compact"));
        cobs_build(&index, "compact", 31, None, hashes, true, &inputs);
        for (threshold, limit) in [("0.8", "0"), ("0.3", "5"), ("0", "0")] {
            let peer = cobs_peer(&[
                "query",
                "-i",
                index.to_str().unwrap(),
                "-t",
                threshold,
                "-l",
                limit,
                "-f",
                queries.to_str().unwrap(),
            ])
            .unwrap();
            let expected = cobs_cli_text(&stdout(&peer), &names);
            let ours = run(&[
                "query",
                "-i",
                index.to_str().unwrap(),
                "-t",
                threshold,
                "-l",
                limit,
                "--format",
                "cobs",
                "-f",
                queries.to_str().unwrap(),
            ]);
            assert!(ours.status.success(), "{}", stderr(&ours));
            assert_eq!(
                stdout(&ours),
                expected,
                "H={hashes} t={threshold} l={limit}"
            );
        }
    }
    // A single k-mer with one hash function: COBS leaves results in document order.
    let index = dir.path().join("x1.cobs_compact");
    let single = &records.iter().find(|r| r.0 == "single_kmer").unwrap().1;
    let single = String::from_utf8_lossy(single).into_owned();
    let peer = cobs_peer(&["query", "-i", index.to_str().unwrap(), "-t", "0", &single]).unwrap();
    let expected: String = stdout(&peer)
        .lines()
        .map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            format!("{}\t{}\n", cells[1], cells[2])
        })
        .collect();
    let ours = run(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-t",
        "0",
        "--format",
        "cobs",
        &single,
    ]);
    assert_eq!(stdout(&ours), expected, "unsorted single-lookup order");
}

#[test]
fn many_indexes_in_one_query_equal_the_merge_of_single_queries() {
    if !cobs_available() {
        return;
    }
    let dir = temp_dir();
    let mut indexes = Vec::new();
    let mut query_files = Vec::new();
    for (n, (kind, k)) in [
        ("classic", 31u32),
        ("compact", 31),
        ("classic", 15),
        ("compact", 25),
    ]
    .into_iter()
    .enumerate()
    {
        let (inputs, queries) = write_inputs(
            &dir.path().join(format!("part{n}")),
            40,
            2000,
            10 + n as u64,
        );
        let index = dir.path().join(format!("batch_{n:03}.cobs_{kind}"));
        cobs_build(&index, kind, k, None, 1 + (n as u32 % 2) * 2, true, &inputs);
        indexes.push(index);
        query_files.push(queries);
    }
    // One query file: the records of every part (names made unique).
    let mut records = Vec::new();
    for (n, file) in query_files.iter().enumerate() {
        let mut reader = bitsift::seqfile::SeqReader::open(file).unwrap();
        let mut record = bitsift::seqfile::SeqRecord::default();
        while reader.next_into(&mut record).unwrap() {
            if record.sequence.len() >= 31 {
                records.push((format!("p{n}_{}", record.name), record.sequence.clone()));
            }
        }
    }
    let queries = dir.path().join("all.fa");
    write_fasta(&queries, &records);
    let list = dir.path().join("indexes.txt");
    let names: Vec<String> = indexes
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    std::fs::write(&list, names.join("\n")).unwrap();

    for threshold in ["0", "0.5"] {
        // All at once, three ways of naming them.
        // COBS's byte rule: the queries have lowercase stretches, which COBS reads as A.
        let mut all_args = vec![
            "query".to_string(),
            "--cobs-bases".into(),
            "--raw-threshold".into(),
            "-t".into(),
            threshold.into(),
            "-f".into(),
            queries.display().to_string(),
        ];
        for index in &indexes {
            all_args.extend(["-i".into(), index.display().to_string()]);
        }
        let refs: Vec<&str> = all_args.iter().map(String::as_str).collect();
        let together = run(&refs);
        assert!(together.status.success(), "{}", stderr(&together));
        let by_list = run(&[
            "query",
            "--cobs-bases",
            "--raw-threshold",
            "-t",
            threshold,
            "-f",
            queries.to_str().unwrap(),
            "--index-list",
            list.to_str().unwrap(),
        ]);
        let by_dir = run(&[
            "query",
            "--cobs-bases",
            "--raw-threshold",
            "-t",
            threshold,
            "-f",
            queries.to_str().unwrap(),
            "-i",
            dir.path().to_str().unwrap(),
        ]);
        // Labels differ (paths as given), so compare rows without the index column.
        let strip = |text: &str| -> Vec<String> {
            text.lines()
                .skip(1)
                .map(|l| {
                    let c: Vec<&str> = l.split('\t').collect();
                    let label = Path::new(c[1])
                        .file_name()
                        .unwrap_or_else(|| panic!("no index column in {l:?} of {text}"));
                    format!("{}\t{}\t{}\t{}", c[0], label.to_string_lossy(), c[2], c[3])
                })
                .collect()
        };
        assert_eq!(
            strip(&stdout(&together)),
            strip(&stdout(&by_list)),
            "--index-list"
        );
        assert_eq!(
            strip(&stdout(&together)),
            strip(&stdout(&by_dir)),
            "a directory of indexes"
        );

        // The merge of single-index runs, ordered as COBS orders merged results:
        // score descending, then index order, then document order.
        let mut merged: Vec<(String, u32, usize, String)> = Vec::new();
        for (i, index) in indexes.iter().enumerate() {
            let single = run(&[
                "query",
                "--cobs-bases",
                "--raw-threshold",
                "-t",
                threshold,
                "-f",
                queries.to_str().unwrap(),
                "-i",
                index.to_str().unwrap(),
            ]);
            let header = bitsift::format::IndexHeader::open(index).unwrap();
            for line in stdout(&single).lines().skip(1) {
                let c: Vec<&str> = line.split('\t').collect();
                let position = header
                    .names
                    .all()
                    .unwrap()
                    .iter()
                    .position(|n| n == c[1])
                    .unwrap();
                merged.push((
                    c[0].to_string(),
                    c[2].parse().unwrap(),
                    i * 100_000 + position,
                    format!("{}\t{}\t{}\t{}", c[0], names[i], c[1], c[2]),
                ));
            }
        }
        let order: Vec<&str> = records.iter().map(|r| r.0.as_str()).collect();
        merged.sort_by(|a, b| {
            let qa = order.iter().position(|q| *q == a.0).unwrap();
            let qb = order.iter().position(|q| *q == b.0).unwrap();
            qa.cmp(&qb).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2))
        });
        let expected: Vec<String> = merged.into_iter().map(|m| m.3).collect();
        assert_eq!(strip(&stdout(&together)), expected, "threshold {threshold}");
        // And every single-index score agrees with COBS.
        for (i, index) in indexes.iter().enumerate() {
            let theirs = cobs_scores(index, &queries).unwrap();
            let ours: Vec<(String, String, u32)> = stdout(&together)
                .lines()
                .skip(1)
                .filter(|l| l.split('\t').nth(1).is_some_and(|p| p.ends_with(&names[i])))
                .map(|l| {
                    let c: Vec<&str> = l.split('\t').collect();
                    (c[0].to_string(), c[2].to_string(), c[3].parse().unwrap())
                })
                .collect();
            if threshold == "0" {
                let mut ours = ours;
                ours.sort();
                assert_eq!(ours, theirs, "index {i}");
            }
        }
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
        let mut args = vec![
            "build",
            "-q",
            "--layout",
            "cobs",
            "-o",
            index.to_str().unwrap(),
        ];
        args.extend_from_slice(options);
        args.push(inputs.to_str().unwrap());
        let output = run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        let label = format!("bitsift build {options:?}");
        let theirs = cobs_scores(&index, queries).unwrap();
        let ours = bitsift_scores(&index, queries, 31);
        assert_same(&label, &ours, &theirs);
    }
}

/// bitsift's minimizer layout (compact version 2) puts rows where COBS does not look: COBS
/// must refuse the file, never answer from it. bitsift answers from both layouts of the same
/// genomes with the same true hits (every document COBS's layout holds every k-mer of).
#[test]
fn cobs_refuses_the_minimizer_layout() {
    if !cobs_available() {
        return;
    }
    let dir = temp_dir();
    let (inputs, queries) = write_inputs(dir.path(), 40, 3000, 5);
    let build = |layout: &str| {
        let index = dir.path().join(format!("{layout}.cobs_compact"));
        let output = run(&[
            "build",
            "-q",
            "--layout",
            layout,
            "-o",
            index.to_str().unwrap(),
            inputs.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        index
    };
    let (minimizer, cobs) = (build("minimizer"), build("cobs"));
    let refused = cobs_peer_status(&[
        "query",
        "-i",
        minimizer.to_str().unwrap(),
        "-t",
        "0",
        "-f",
        queries.to_str().unwrap(),
    ])
    .unwrap();
    assert!(
        !refused.status.success(),
        "COBS answered from the minimizer layout"
    );
    // The peer reads the header first ("unsupported COBS index version 2"); COBS's own
    // reader dies with "Could not open index path" (its classic and compact readers both
    // refuse the version).
    let said = stderr(&refused);
    assert!(
        said.contains("version 2") || said.contains("Could not open index"),
        "{said}"
    );
    let whole = |index: &Path| -> Vec<(String, String)> {
        let mut pairs: Vec<(String, String)> = bitsift_scores(index, &queries, 31)
            .into_iter()
            .filter(|(_, _, s)| *s > 0)
            .map(|(q, d, _)| (q, d))
            .collect();
        pairs.sort();
        pairs
    };
    let theirs = cobs_scores(&cobs, &queries).unwrap();
    let full: std::collections::HashSet<(String, String)> = theirs
        .iter()
        // Every k-mer of a query of 100 bases or more: a true hit (Bloom false positives
        // cannot fill 70 k-mers but with a vanishing chance).
        .filter(|(q, _, s)| {
            let length = query_length(&queries, q);
            length >= 100 && *s as usize + 30 >= length
        })
        .map(|(q, d, _)| (q.clone(), d.clone()))
        .collect();
    let found: std::collections::HashSet<(String, String)> =
        whole(&minimizer).into_iter().collect();
    assert!(!full.is_empty());
    for pair in &full {
        assert!(
            found.contains(pair),
            "{pair:?}: a full hit of COBS's layout is missing"
        );
    }
}

/// The length of query `name` in the FASTA file `queries`.
fn query_length(queries: &Path, name: &str) -> usize {
    let text = std::fs::read_to_string(queries).unwrap();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.strip_prefix('>').map(|n| n.split_whitespace().next()) == Some(Some(name)) {
            return lines
                .take_while(|l| !l.starts_with('>'))
                .map(str::len)
                .sum();
        }
    }
    panic!("{name} not in {}", queries.display());
}

/// The document order is a free choice of the writer (COBS reads only the header): COBS
/// searches indexes built in every order with the same scores as bitsift, and the block
/// summaries beside them do not disturb it.
#[test]
fn cobs_reads_indexes_built_in_every_order() {
    if !cobs_available() {
        return;
    }
    let dir = temp_dir();
    let (inputs, queries) = write_inputs(dir.path(), 150, 3000, 21);
    // Groups of very different sizes, so that packing them changes the order.
    let metadata = dir.path().join("metadata.tsv");
    let mut table = String::from("document\tset\n");
    for d in 0..150 {
        table.push_str(&format!("g{d:04}\ts{}\n", (d * d) % 7));
    }
    std::fs::write(&metadata, table).unwrap();
    let mut name_orders = Vec::new();
    for order in ["size", "input", "similarity", "group:set"] {
        let index = dir
            .path()
            .join(format!("{}.cobs_compact", order.replace(':', "_")));
        let mut args = vec![
            "build",
            "-q",
            "--layout",
            "cobs",
            "-o",
            index.to_str().unwrap(),
            "--page-size",
            "8",
        ];
        args.extend(["--order", order]);
        if order.starts_with("group") {
            args.extend(["--metadata", metadata.to_str().unwrap()]);
        }
        args.push(inputs.to_str().unwrap());
        let output = run(&args);
        assert!(output.status.success(), "{order}: {}", stderr(&output));
        assert!(bitsift::summary::summary_path(&index).exists());
        let theirs = cobs_scores(&index, &queries).unwrap();
        let ours = bitsift_scores(&index, &queries, 31);
        assert_same(&format!("--order {order}"), &ours, &theirs);
        let header = bitsift::format::IndexHeader::open(&index).unwrap();
        name_orders.push(
            header
                .names
                .all()
                .unwrap()
                .iter()
                .map(str::to_string)
                .collect::<Vec<_>>(),
        );
    }
    // Size, input and group orders lay the documents out differently.
    assert_ne!(name_orders[0], name_orders[1]);
    assert_ne!(name_orders[0], name_orders[3]);
    assert_ne!(name_orders[1], name_orders[3]);
}
