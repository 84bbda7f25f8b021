//! Collections through the binary (issue 13): `add`, `remove` and `merge` against fresh builds
//! of the same genomes, COBS reading every sub-index, crashes at every commit step, and the
//! gather step of a split search.
//!
//! What "equal to a fresh build" can mean: a document's score depends on its Bloom filter, and
//! its filter on the row count of its block, which comes from the largest document of that
//! block. A collection built in batches gives each batch's documents the rows of their batch,
//! so scores equal fresh builds of the same batches; when the batches are exactly the blocks a
//! fresh build of everything would make, they equal that build, and a merge then reproduces
//! it byte for byte. A merge never changes a document's filter, so every score survives it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

/// Genome `i` of a test collection: random DNA of a length that grows with `i`, so documents
/// sort by size in name order.
fn genome(rng: &mut Rng, i: usize) -> Vec<u8> {
    rng.dna(1500 + 400 * i)
}

/// Writes `count` genomes as `gNN.fa` files into `dir` and returns their paths and sequences.
fn write_genomes(dir: &Path, count: usize, seed: u64) -> (Vec<PathBuf>, Vec<Vec<u8>>) {
    std::fs::create_dir_all(dir).unwrap();
    let mut rng = Rng(seed);
    let mut paths = Vec::new();
    let mut sequences = Vec::new();
    for i in 0..count {
        let sequence = genome(&mut rng, i);
        let path = dir.join(format!("g{i:02}.fa"));
        write_fasta(&path, &[(format!("g{i:02}"), sequence.clone())]);
        paths.push(path);
        sequences.push(sequence);
    }
    (paths, sequences)
}

/// Queries: exact pieces, mutated pieces (partial scores) and random sequence (only false
/// positives), so scores depend on every document's exact filter.
fn write_queries(dir: &Path, sequences: &[Vec<u8>], seed: u64) -> PathBuf {
    let queries: Vec<(String, Vec<u8>)> = mixed_queries(&mut Rng(seed), sequences, 24, 300, 3)
        .into_iter()
        .enumerate()
        .map(|(q, query)| (format!("q{q:02}"), query))
        .collect();
    let path = dir.join("queries.fa");
    write_fasta(&path, &queries);
    path
}

/// One hit: (query, document, k-mers found).
type Hit = (String, String, u64);

/// Hits of `query --format json` over `indexes` (threshold 0 unless `extra` sets one), in
/// the order reported.
fn hits(indexes: &[&Path], queries: &Path, extra: &[&str]) -> Vec<Hit> {
    let mut args = vec!["query", "--format", "json", "-f", text(queries)];
    if !extra.contains(&"-t") {
        args.extend(["-t", "0"]);
    }
    // COBS's threshold: these tests compare scores with fresh builds and COBS.
    args.push("--raw-threshold");
    for index in indexes {
        args.extend(["-i", text(index)]);
    }
    args.extend_from_slice(extra);
    let output = ok(run(&args));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut found = Vec::new();
    for query in json["queries"].as_array().unwrap() {
        for hit in query["hits"].as_array().unwrap() {
            found.push((
                query["query"].as_str().unwrap().to_string(),
                hit["document"].as_str().unwrap().to_string(),
                hit["kmers_found"].as_u64().unwrap(),
            ));
        }
    }
    found
}

fn sorted(mut hits: Vec<Hit>) -> Vec<Hit> {
    hits.sort();
    hits
}

/// Score of every (query, document).
fn score_map(hits: &[Hit]) -> BTreeMap<(String, String), u64> {
    hits.iter()
        .map(|(q, d, s)| ((q.clone(), d.clone()), *s))
        .collect()
}

fn build(output: &Path, inputs: &[PathBuf], extra: &[&str]) {
    let mut args = vec!["build", "-q", "-T", "2", "-o", text(output)];
    args.extend_from_slice(extra);
    args.extend(inputs.iter().map(|p| text(p)));
    ok(run(&args));
}

fn add(collection: &Path, inputs: &[PathBuf], extra: &[&str]) -> Output {
    let mut args = vec!["add", "-q", "-T", "2", text(collection)];
    args.extend_from_slice(extra);
    args.extend(inputs.iter().map(|p| text(p)));
    run(&args)
}

fn manifest(collection: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(collection.join("collection.json")).unwrap()).unwrap()
}

fn subindex_files(collection: &Path) -> Vec<String> {
    manifest(collection)["subindexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["file"].as_str().unwrap().to_string())
        .collect()
}

/// Files in the collection directory that are neither its manifest, nor a listed sub-index,
/// nor the sidecar of one: what a writer left behind.
fn strays(collection: &Path) -> Vec<String> {
    let listed = subindex_files(collection);
    directory_listing(collection)
        .into_iter()
        .filter(|name| name != "collection.json")
        .filter(|name| {
            let base = name
                .find(".bitsift-")
                .map_or(name.as_str(), |at| &name[..at]);
            !listed.iter().any(|file| file == base)
        })
        .collect()
}

/// Files in the collection directory, sorted (the lock file aside).
fn directory_listing(collection: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(collection)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != ".collection.lock")
        .collect();
    names.sort();
    names
}

#[test]
fn batches_that_are_the_blocks_of_a_fresh_build_score_and_merge_into_that_build() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 16, 13);
    let queries = write_queries(dir.path(), &sequences, 14);
    // Page size 1: blocks of 8 documents, the smallest 8 and the largest 8.
    let fresh = dir.path().join("fresh.cobs_compact");
    // Ranges of 16 rows, as a collection's (a standalone build of 1-byte rows would take
    // 1024).
    build(
        &fresh,
        &genomes,
        &["--page-size", "1", "--range-rows", "16"],
    );
    let collection = dir.path().join("collection");
    // Exact rows, as a standalone build's (a new collection's default is power-of-two).
    ok(add(
        &collection,
        &genomes[..8],
        &["--page-size", "1", "--rows", "exact"],
    ));
    ok(add(&collection, &genomes[8..], &[]));
    assert_eq!(manifest(&collection)["parameters"]["page_size"], 1);
    let expected = hits(&[&fresh], &queries, &[]);
    assert!(expected.len() > 16 * 20, "-t 0 lists every document");
    assert!(
        expected.iter().any(|(q, _, s)| q == "q02" && *s > 0),
        "random queries score false positives, which depend on the row counts"
    );
    assert_eq!(
        hits(&[&collection], &queries, &[]),
        expected,
        "same scores and the same ranking as the fresh build"
    );
    ok(run(&["merge", "-q", text(&collection)]));
    let files = subindex_files(&collection);
    assert_eq!(files, vec!["sub-000003.cobs_compact"]);
    assert_eq!(
        std::fs::read(collection.join(&files[0])).unwrap(),
        std::fs::read(&fresh).unwrap(),
        "two full blocks copied verbatim under a rewritten header are the fresh build"
    );
    // Its summaries are the members', which are the fresh build's blocks' own.
    assert_eq!(
        std::fs::read(collection.join("sub-000003.cobs_compact.bitsift-summaries")).unwrap(),
        std::fs::read(bitsift::summary::summary_path(&fresh)).unwrap(),
        "the summaries of the copied blocks are the fresh build's"
    );
    assert_eq!(
        directory_listing(&collection),
        vec![
            "collection.json",
            "sub-000003.cobs_compact",
            "sub-000003.cobs_compact.bitsift-build",
            "sub-000003.cobs_compact.bitsift-build-documents",
            "sub-000003.cobs_compact.bitsift-catalog",
            "sub-000003.cobs_compact.bitsift-checksums",
            "sub-000003.cobs_compact.bitsift-ones",
            "sub-000003.cobs_compact.bitsift-summaries"
        ],
        "merged sub-indexes and their sidecars are deleted after the commit"
    );
    assert_eq!(
        std::fs::read(collection.join("sub-000003.cobs_compact.bitsift-checksums")).unwrap(),
        std::fs::read(dir.path().join("fresh.cobs_compact.bitsift-checksums")).unwrap(),
        "the merged file's checksums are those of the fresh build"
    );
}

#[test]
fn add_scores_equal_fresh_builds_of_the_batches_and_cobs_reads_every_subindex() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 12, 21);
    let queries = write_queries(dir.path(), &sequences, 22);
    let collection = dir.path().join("collection");
    let batches = [&genomes[..5], &genomes[5..7], &genomes[7..]];
    let mut fresh = Vec::new();
    // COBS's layout, which COBS reads (the collection keeps it for every addition).
    let cobs: &[&str] = &["--layout", "cobs"];
    // Exact rows, as a standalone build's (a new collection's default is power-of-two).
    let first: &[&str] = &["--layout", "cobs", "--rows", "exact"];
    for (number, batch) in batches.iter().enumerate() {
        let added = ok(add(
            &collection,
            batch,
            if number == 0 { first } else { &[] },
        ));
        assert!(stderr(&added).is_empty(), "-q: {}", stderr(&added));
        let index = dir.path().join(format!("batch{number}.cobs_compact"));
        build(&index, batch, cobs);
        fresh.push(index);
    }
    let fresh_refs: Vec<&Path> = fresh.iter().map(PathBuf::as_path).collect();
    let expected = hits(&fresh_refs, &queries, &[]);
    assert_eq!(hits(&[&collection], &queries, &[]), expected);
    // Each sub-index is the fresh build of its batch, byte for byte, and COBS reads it.
    for (file, index) in subindex_files(&collection).iter().zip(&fresh) {
        let sub = collection.join(file);
        assert_eq!(std::fs::read(&sub).unwrap(), std::fs::read(index).unwrap());
        let Some(cobs) = cobs_peer(&["query", "-i", text(&sub), "-t", "0", "-f", text(&queries)])
        else {
            continue;
        };
        let ours = sorted(hits(&[&sub], &queries, &[]))
            .into_iter()
            .map(|(q, d, s)| (q, d, s as u32))
            .collect::<Vec<_>>();
        assert_eq!(parse_scores(&stdout(&cobs)), ours, "COBS on {file}");
    }
    // Genomes found with every k-mer never depend on the batches: at threshold 1 the
    // collection reports what one fresh build of everything reports.
    let everything = dir.path().join("all.cobs_compact");
    build(&everything, &genomes, cobs);
    let full = |index: &Path| sorted(hits(&[index], &queries, &["-t", "1"]));
    let found = full(&collection);
    assert!(found.len() >= 8, "the exact pieces are found: {found:?}");
    assert_eq!(found, full(&everything));
}

#[test]
fn removed_documents_are_hidden_before_limits_and_merge_keeps_every_score() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 14, 31);
    let queries = write_queries(dir.path(), &sequences, 32);
    let collection = dir.path().join("collection");
    // COBS's layout, which COBS reads (checked below).
    ok(add(
        &collection,
        &genomes[..6],
        &["--page-size", "1", "--layout", "cobs"],
    ));
    ok(add(&collection, &genomes[6..11], &[]));
    ok(add(&collection, &genomes[11..], &[]));
    let before = hits(&[&collection], &queries, &[]);

    let names = dir.path().join("remove.txt");
    std::fs::write(&names, "# two genomes\ng03\n\ng12\n").unwrap();
    ok(run(&[
        "remove",
        "-q",
        text(&collection),
        "--documents",
        text(&names),
    ]));
    let removed = |(_, d, _): &Hit| d == "g03" || d == "g12";
    let expected: Vec<Hit> = before.iter().filter(|h| !removed(h)).cloned().collect();
    let after = hits(&[&collection], &queries, &[]);
    assert_eq!(after, expected, "hidden, and nothing else changed");
    // A limit counts shown documents only: the removed ones never take a place.
    let limited = hits(&[&collection], &queries, &["-l", "10"]);
    assert_eq!(limited.len(), 24 * 10);
    assert!(!limited.iter().any(removed));
    let top: Vec<Hit> = expected
        .iter()
        .filter(|(q, _, _)| q == "q00")
        .take(10)
        .cloned()
        .collect();
    assert_eq!(&limited[..10], &top[..]);

    // Unknown names are refused, and nothing is removed.
    std::fs::write(&names, "g04\nno_such_genome\n").unwrap();
    let refused = run(&["remove", text(&collection), "--documents", text(&names)]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("1 document name(s) not in the collection (or already removed): no_such_genome; nothing was removed"),
        "{}",
        stderr(&refused)
    );
    assert!(stderr(&refused).contains("--ignore-missing"));
    assert_eq!(hits(&[&collection], &queries, &[]), expected);
    ok(run(&[
        "remove",
        "-q",
        text(&collection),
        "--documents",
        text(&names),
        "--ignore-missing",
    ]));
    let expected: Vec<Hit> = expected.into_iter().filter(|h| h.1 != "g04").collect();

    let plan = ok(run(&["merge", text(&collection), "--dry-run", "--json"]));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    assert_eq!(plan["plan"]["outputs"][0]["documents"], 11);
    assert_eq!(plan["plan"]["outputs"][0]["documents_dropped"], 3);
    assert_eq!(
        subindex_files(&collection).len(),
        3,
        "a dry run changes nothing"
    );

    ok(run(&["merge", "-q", text(&collection)]));
    let merged = subindex_files(&collection);
    assert_eq!(merged.len(), 1);
    let after_merge = hits(&[&collection], &queries, &[]);
    assert_eq!(
        score_map(&after_merge),
        score_map(&expected),
        "every shown document keeps its exact score"
    );
    let info = ok(run(&["info", "--json", text(&collection)]));
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["documents"], 11);
    assert_eq!(info["documents_hidden"], 0, "the merge dropped them");
    // The merged sub-index has block summaries made from its members' (copied blocks keep
    // theirs, re-packed ones get the union): a query holding all its k-mers finds the same
    // documents with and without them.
    let sub_info = ok(run(&["info", "--json", text(&collection.join(&merged[0]))]));
    let sub_info: serde_json::Value = serde_json::from_slice(&sub_info.stdout).unwrap();
    assert_eq!(sub_info["summaries"]["format"], 2, "{sub_info}");
    let whole = hits(&[&collection], &queries, &["-t", "1"]);
    assert!(!whole.is_empty());
    assert_eq!(
        whole,
        hits(&[&collection], &queries, &["-t", "1", "--no-summaries"])
    );
    // COBS reads the merged file: the same scores for every real document (placeholders,
    // zero columns, score 0 and are hidden by bitsift).
    let sub = collection.join(&merged[0]);
    if let Some(cobs) = cobs_peer(&["query", "-i", text(&sub), "-t", "0", "-f", text(&queries)]) {
        let theirs: Vec<(String, String, u32)> = parse_scores(&stdout(&cobs))
            .into_iter()
            .filter(|(_, d, _)| d != "bitsift/padding")
            .collect();
        let ours: Vec<(String, String, u32)> = sorted(after_merge)
            .into_iter()
            .map(|(q, d, s)| (q, d, s as u32))
            .collect();
        assert_eq!(theirs, ours);
    }
}

#[test]
fn merge_respects_max_documents_and_page_sizes() {
    let dir = temp_dir();
    let (genomes, _) = write_genomes(&dir.path().join("genomes"), 10, 41);
    let collection = dir.path().join("collection");
    for batch in genomes.chunks(2) {
        ok(add(&collection, batch, &[]));
    }
    let other = dir.path().join("wide.cobs_compact");
    // In the collection's row layout (ranges of 16 rows; a standalone build of 16-byte rows
    // would take ranges of 256, which merges keep apart).
    build(
        &other,
        &genomes[..1],
        &["--page-size", "16", "-k", "31", "--range-rows", "16"],
    );
    // An index of another page size (16) joins the last group; the merged file takes the
    // page size with the fewest blocks, then the fewest bytes.
    let adopted = run(&[
        "add",
        text(&collection),
        "--adopt",
        text(&other),
        "--duplicates",
        "allow",
    ]);
    ok(adopted);
    ok(run(&[
        "merge",
        "-q",
        text(&collection),
        "--max-documents",
        "4",
    ]));
    let subs = manifest(&collection)["subindexes"]
        .as_array()
        .unwrap()
        .clone();
    let documents: Vec<u64> = subs
        .iter()
        .map(|s| s["document_count"].as_u64().unwrap() - s["placeholders"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(documents, vec![4, 4, 3], "{subs:?}");
    assert_eq!(
        subs[2]["page_size"], 8,
        "two blocks either way, narrower rows are fewer bytes"
    );
    assert_eq!(subs[2]["blocks"], 2, "two row counts that do not divide");
    assert_eq!(subs[2]["provenance"]["inputs"].as_array().unwrap().len(), 2);
    let nothing = ok(run(&["merge", text(&collection), "--max-documents", "4"]));
    assert!(
        stdout(&nothing).contains("nothing to merge"),
        "{}",
        stdout(&nothing)
    );
}

#[test]
fn add_refuses_mismatches_duplicates_and_foreign_directories() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 4, 51);
    let queries = write_queries(dir.path(), &sequences, 52);
    let collection = dir.path().join("collection");
    ok(add(&collection, &genomes[..2], &[]));
    let generation = manifest(&collection)["generation"].clone();

    let wrong_k = add(&collection, &genomes[2..], &["-k", "25"]);
    assert_eq!(wrong_k.status.code(), Some(1));
    assert!(
        stderr(&wrong_k).contains("k = 25 was asked for but the collection has k = 31"),
        "{}",
        stderr(&wrong_k)
    );
    assert!(stderr(&wrong_k).contains("hint: omit -k"));
    let wrong_fpr = add(&collection, &genomes[2..], &["--fpr", "0.1"]);
    assert!(stderr(&wrong_fpr).contains(
        "false-positive rate 0.1 was asked for but the collection has false-positive rate 0.3"
    ));
    let other_k = dir.path().join("k25.cobs_compact");
    build(&other_k, &genomes[2..], &["-k", "25"]);
    let adopt_k = run(&["add", text(&collection), "--adopt", text(&other_k)]);
    assert!(
        stderr(&adopt_k).contains(
            "cannot adopt: the index has k = 25 but the collection has k = 31; only indexes"
        ),
        "{}",
        stderr(&adopt_k)
    );

    let duplicate = add(&collection, &genomes[1..3], &[]);
    assert_eq!(duplicate.status.code(), Some(1));
    assert!(
        stderr(&duplicate).contains(
            "1 document name(s) already in the collection or repeated: g01; nothing was added"
        ),
        "{}",
        stderr(&duplicate)
    );
    assert!(stderr(&duplicate).contains("--duplicates warn"));
    assert_eq!(
        manifest(&collection)["generation"],
        generation,
        "nothing committed"
    );
    assert_eq!(subindex_files(&collection), vec!["sub-000001.cobs_compact"]);
    assert!(
        strays(&collection).is_empty(),
        "the refused sub-index and its sidecar were deleted: {:?}",
        directory_listing(&collection)
    );
    let warned = add(&collection, &genomes[1..3], &["--duplicates", "warn"]);
    assert!(warned.status.success());
    let all = hits(&[&collection], &queries, &[]);
    assert_eq!(
        all.iter()
            .filter(|(q, d, _)| q == "q00" && d == "g01")
            .count(),
        2
    );
    // Removing a name hides it everywhere; adding it again afterwards shows it once.
    let names = dir.path().join("g01.txt");
    std::fs::write(&names, "g01\n").unwrap();
    ok(run(&[
        "remove",
        "-q",
        text(&collection),
        "--documents",
        text(&names),
    ]));
    ok(add(&collection, &genomes[1..2], &[]));
    let all = hits(&[&collection], &queries, &[]);
    assert_eq!(
        all.iter()
            .filter(|(q, d, _)| q == "q00" && d == "g01")
            .count(),
        1
    );

    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let refused = add(&foreign, &genomes[..1], &[]);
    assert!(
        stderr(&refused).contains("not a bitsift collection (no collection.json) and not empty"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(std::fs::read_dir(&foreign).unwrap().count(), 1, "untouched");
}

#[test]
fn adopted_indexes_keep_their_sidecars_and_plain_directories_respect_tombstones() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 6, 61);
    let queries = write_queries(dir.path(), &sequences, 62);
    let index = dir.path().join("old.cobs_compact");
    build(&index, &genomes[..4], &[]);
    let sidecar = dir.path().join("old.cobs_compact.bitsift-checksums");
    if !sidecar.exists() {
        std::fs::write(&sidecar, b"sidecar").unwrap();
    }
    let parent = dir.path().join("collections");
    std::fs::create_dir(&parent).unwrap();
    let collection = parent.join("c");
    ok(run(&[
        "add",
        "-q",
        text(&collection),
        "--adopt",
        text(&index),
    ]));
    // Only adopted so far: the false-positive rate is unknown and must be given (issue 20).
    ok(add(&collection, &genomes[4..], &["--fpr", "0.3"]));
    let adopted = collection.join("sub-000001.cobs_compact");
    assert_eq!(
        std::fs::read(&adopted).unwrap(),
        std::fs::read(&index).unwrap()
    );
    assert_eq!(
        std::fs::read(collection.join("sub-000001.cobs_compact.bitsift-checksums")).unwrap(),
        std::fs::read(&sidecar).unwrap()
    );
    let parameters = &manifest(&collection)["parameters"];
    assert_eq!(parameters["k"], 31);
    assert_eq!(parameters["fpr"], 0.3, "given with the first build");
    let names = dir.path().join("remove.txt");
    std::fs::write(&names, "g02\n").unwrap();
    ok(run(&[
        "remove",
        "-q",
        text(&collection),
        "--documents",
        text(&names),
    ]));
    // A directory holding a collection opens it as a collection (tombstones applied), not
    // as a scan of its files.
    let through_parent = hits(&[&parent], &queries, &[]);
    assert!(!through_parent.iter().any(|(_, d, _)| d == "g02"));
    assert_eq!(through_parent, hits(&[&collection], &queries, &[]));
    // The original is never changed by a merge of the collection.
    let original = std::fs::read(&index).unwrap();
    ok(run(&["merge", "-q", text(&collection)]));
    assert_eq!(std::fs::read(&index).unwrap(), original);
    assert!(
        !directory_listing(&collection)
            .iter()
            .any(|n| n.starts_with("sub-000001")),
        "the adopted file and its sidecar went with the merge"
    );
    let info = ok(run(&["info", text(&collection)]));
    assert!(
        stdout(&info).contains("documents        5 (0 removed"),
        "{}",
        stdout(&info)
    );
}

#[test]
fn merge_results_of_split_searches_are_the_single_ranking() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 12, 71);
    let queries = write_queries(dir.path(), &sequences, 72);
    let collection = dir.path().join("collection");
    for batch in genomes.chunks(3) {
        ok(add(&collection, batch, &[]));
    }
    let names = dir.path().join("remove.txt");
    std::fs::write(&names, "g04\n").unwrap();
    ok(run(&[
        "remove",
        "-q",
        text(&collection),
        "--documents",
        text(&names),
    ]));
    let files = subindex_files(&collection);
    for limit in ["0", "5"] {
        let single = ok(run(&[
            "query",
            "-i",
            text(&collection),
            "-f",
            text(&queries),
            "-t",
            "0.3",
            "-l",
            limit,
        ]));
        let mut parts = Vec::new();
        for (number, group) in [&files[..1], &files[1..3], &files[3..]].iter().enumerate() {
            let part = dir.path().join(format!("part{number}.json"));
            ok(run(&[
                "query",
                "-i",
                text(&collection),
                "--subindexes",
                &group.join(","),
                "-f",
                text(&queries),
                "-t",
                "0.3",
                "-l",
                limit,
                "--format",
                "json",
                "-o",
                text(&part),
            ]));
            parts.push(part);
        }
        let mut args = vec!["merge-results", "-l", limit];
        args.extend(parts.iter().map(|p| text(p)));
        let merged = ok(run(&args));
        assert!(stdout(&single).lines().count() > 10);
        assert_eq!(stdout(&merged), stdout(&single), "limit {limit}");
    }
    let unknown = run(&[
        "query",
        "-i",
        text(&collection),
        "--subindexes",
        "nope",
        "ACGT",
    ]);
    assert!(
        stderr(&unknown)
            .contains("no sub-index named \"nope\"; the collection lists sub-000001.cobs_compact"),
        "{}",
        stderr(&unknown)
    );
}

/// The query results of a collection, for comparing states.
fn state(collection: &Path, queries: &Path) -> Vec<Hit> {
    hits(&[collection], queries, &[])
}

/// Runs a writer that aborts at `point` and checks that it died there.
fn crash_at(point: &str, args: &[&str]) {
    let output = bitsift()
        .args(args)
        .env("BITSIFT_TEST_CRASH_AT", point)
        .output()
        .unwrap();
    assert!(
        output.status.code().is_none(),
        "{point}: expected an abort, got {:?}: {}",
        output.status,
        stderr(&output)
    );
}

#[test]
fn a_crash_at_any_step_of_add_remove_or_merge_leaves_before_or_after() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 9, 81);
    let queries = write_queries(dir.path(), &sequences, 82);
    let collection = dir.path().join("collection");
    ok(add(&collection, &genomes[..4], &[]));
    ok(add(&collection, &genomes[4..6], &[]));
    let before = state(&collection, &queries);
    let new = [text(&genomes[6]), text(&genomes[7])];
    for point in [
        "add-built",
        "add-registering",
        "manifest-written",
        "manifest-renamed",
        "add-committed",
    ] {
        let target = dir.path().join(format!("at-{point}"));
        copy_collection(&collection, &target);
        let t = text(&target);
        crash_at(point, &["add", "-q", "-T", "1", t, new[0], new[1]]);
        let seen = state(&target, &queries);
        let committed = matches!(point, "manifest-renamed" | "add-committed");
        if committed {
            assert_ne!(seen, before, "{point}: the manifest was replaced");
            assert!(seen.iter().any(|(_, d, _)| d == "g06"));
        } else {
            assert_eq!(seen, before, "{point}: as before");
        }
        // The next writer removes what the crash left and works.
        ok(add(&target, &genomes[8..], &[]));
        assert!(strays(&target).is_empty(), "{point}: {:?}", strays(&target));
    }

    let names = dir.path().join("remove.txt");
    std::fs::write(&names, "g01\n").unwrap();
    let target = dir.path().join("remove-crash");
    copy_collection(&collection, &target);
    crash_at(
        "manifest-written",
        &["remove", text(&target), "--documents", text(&names)],
    );
    assert_eq!(state(&target, &queries), before);

    ok(run(&[
        "remove",
        "-q",
        text(&collection),
        "--documents",
        text(&names),
    ]));
    let removed = state(&collection, &queries);
    for point in [
        "merge-wrote-one",
        "merge-written",
        "manifest-written",
        "manifest-renamed",
        "merge-committed",
    ] {
        let target = dir.path().join(format!("merge-{point}"));
        copy_collection(&collection, &target);
        crash_at(point, &["merge", text(&target)]);
        let seen = state(&target, &queries);
        assert_eq!(
            score_map(&seen),
            score_map(&removed),
            "{point}: same scores"
        );
        let files = subindex_files(&target);
        let committed = matches!(point, "manifest-renamed" | "merge-committed");
        assert_eq!(files.len() == 1, committed, "{point}: {files:?}");
        ok(run(&["merge", "-q", text(&target)]));
        assert_eq!(score_map(&state(&target, &queries)), score_map(&removed));
        assert!(strays(&target).is_empty(), "{point}: {:?}", strays(&target));
        for file in subindex_files(&target) {
            ok(run(&["verify", text(&target.join(file))]));
        }
    }
}

#[test]
fn a_kill_during_the_build_of_an_add_leaves_the_collection_as_it_was() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 3, 91);
    let queries = write_queries(dir.path(), &sequences, 92);
    let collection = dir.path().join("collection");
    ok(add(&collection, &genomes, &[]));
    let before = state(&collection, &queries);
    // A genome large enough that the build is still writing when it is killed.
    let big = dir.path().join("big.fa");
    let mut rng = Rng(93);
    write_fasta(&big, &[("big".into(), rng.dna(4_000_000))]);
    let mut child = bitsift()
        .args(["add", "-q", "-T", "1", text(&collection), text(&big)])
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let mut seen_temporary = false;
    while started.elapsed() < std::time::Duration::from_secs(60) {
        if directory_listing(&collection)
            .iter()
            .any(|n| n.starts_with(".sub-"))
        {
            seen_temporary = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(seen_temporary, "the build was caught writing ({status:?})");
    assert_eq!(
        state(&collection, &queries),
        before,
        "the killed add left no trace"
    );
    assert!(directory_listing(&collection)
        .iter()
        .any(|n| n.starts_with(".sub-")));
    ok(run(&["merge", "-q", text(&collection)]));
    assert!(
        !directory_listing(&collection)
            .iter()
            .any(|n| n.starts_with(".sub-")),
        "the next writer removed the partial file"
    );
}

/// Copies a collection directory (its files, not the lock).
fn copy_collection(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn a_collection_whose_every_document_was_removed_and_merged_says_so() {
    let dir = temp_dir();
    let (genomes, sequences) = write_genomes(&dir.path().join("genomes"), 2, 101);
    let queries = write_queries(dir.path(), &sequences, 102);
    let collection = dir.path().join("collection");
    ok(add(&collection, &genomes, &[]));
    let names = dir.path().join("remove.txt");
    std::fs::write(&names, "g00\ng01\n").unwrap();
    ok(run(&[
        "remove",
        "-q",
        text(&collection),
        "--documents",
        text(&names),
    ]));
    assert!(hits(&[&collection], &queries, &[]).is_empty(), "all hidden");
    ok(run(&["merge", "-q", text(&collection)]));
    assert_eq!(subindex_files(&collection), Vec::<String>::new());
    assert!(strays(&collection).is_empty(), "{:?}", strays(&collection));
    let empty = run(&["query", "-i", text(&collection), "-f", text(&queries)]);
    assert_eq!(empty.status.code(), Some(1));
    assert!(
        stderr(&empty).contains("the collection holds no sub-index"),
        "{}",
        stderr(&empty)
    );
}

/// A merge reads its members through the read path: a page that no longer matches its
/// checksums fails the merge with the page named, and the collection is left as it was.
#[test]
fn a_merge_refuses_a_damaged_member_and_changes_nothing() {
    let dir = temp_dir();
    let (genomes, _) = write_genomes(&dir.path().join("genomes"), 12, 77);
    let collection = dir.path().join("collection");
    ok(add(&collection, &genomes[..6], &[]));
    ok(add(&collection, &genomes[6..], &[]));
    let files = subindex_files(&collection);
    let victim = collection.join(&files[1]);
    let header = bitsift::format::IndexHeader::open(&victim).unwrap();
    let offset = header.blocks[0].data_offset + header.blocks[0].data_bytes() / 2;
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[offset as usize] ^= 0x10;
    std::fs::write(&victim, &bytes).unwrap();
    let before = directory_listing(&collection);
    let manifest_before = manifest(&collection);
    let output = run(&["merge", text(&collection)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let page = offset / 4096 * 4096;
    assert!(
        stderr(&output).contains("checksum mismatch")
            && stderr(&output).contains(&format!("page at offset {page}"))
            && stderr(&output).contains("the collection was not changed"),
        "{}",
        stderr(&output)
    );
    assert_eq!(directory_listing(&collection), before);
    assert_eq!(manifest(&collection), manifest_before);
}
