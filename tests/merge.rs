//! Merges that help and never launder damage (issue 20), through the binary.
//!
//! Every answer is checked against an independent model: the brute-force k-mer count of each
//! (query, genome) (what a genome truly holds), and the exact Bloom-filter score its column
//! gives for a row count, computed from its k-mers with xxh64 (`tests/common`). A merge that
//! tiles a column keeps its score; one that folds it to `g` rows gives it the score of a
//! filter of `g` rows, which never falls below the brute-force count.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use bitsift::format::{write_compact_header, CompactLayout, RowLayout};
use common::*;

const K: usize = 31;

/// Genomes of random DNA and random lengths, one FASTA file each.
struct Genomes {
    paths: Vec<PathBuf>,
    names: Vec<String>,
    sequences: Vec<Vec<u8>>,
}

fn write_genomes(dir: &Path, lengths: &[usize], seed: u64) -> Genomes {
    std::fs::create_dir_all(dir).unwrap();
    let mut rng = Rng(seed);
    let mut genomes = Genomes {
        paths: Vec::new(),
        names: Vec::new(),
        sequences: Vec::new(),
    };
    for (i, &length) in lengths.iter().enumerate() {
        let name = format!("g{i:02}");
        let sequence = rng.dna(length);
        let path = dir.join(format!("{name}.fa"));
        write_fasta(&path, &[(name.clone(), sequence.clone())]);
        genomes.paths.push(path);
        genomes.names.push(name);
        genomes.sequences.push(sequence);
    }
    genomes
}

/// Queries: exact pieces of genomes (true hits), pieces with a few changed bases (partial
/// scores) and random sequence (only false positives).
fn write_queries(path: &Path, sequences: &[Vec<u8>], count: usize, seed: u64) -> Vec<Vec<u8>> {
    let queries = mixed_queries(&mut Rng(seed), sequences, count, 200, 2);
    let records: Vec<(String, Vec<u8>)> = queries
        .iter()
        .enumerate()
        .map(|(q, s)| (format!("q{q:02}"), s.clone()))
        .collect();
    write_fasta(path, &records);
    queries
}

/// Score of every reported (query number, document) of `query --format json`.
type Scores = BTreeMap<(usize, String), u64>;

fn scores(index: &Path, queries: &Path, threshold: &str, extra: &[&str]) -> Scores {
    let mut args = vec!["query", "--format", "json", "-f", text(queries)];
    // COBS's threshold: these tests compare scores across builds, merges and COBS.
    args.extend(["-t", threshold, "--raw-threshold", "-i", text(index)]);
    args.extend_from_slice(extra);
    let output = ok(run(&args));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut found = Scores::new();
    for query in json["queries"].as_array().unwrap() {
        let name = query["query"].as_str().unwrap();
        let number: usize = name[1..].parse().unwrap();
        for hit in query["hits"].as_array().unwrap() {
            let document = hit["document"].as_str().unwrap().to_string();
            found.insert((number, document), hit["kmers_found"].as_u64().unwrap());
        }
    }
    found
}

fn manifest(collection: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(collection.join("collection.json")).unwrap()).unwrap()
}

/// Blocks of the whole collection: the row reads of one k-mer hash.
fn blocks(collection: &Path) -> u64 {
    manifest(collection)["subindexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["blocks"].as_u64().unwrap())
        .sum()
}

fn listing(collection: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(collection)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != ".collection.lock")
        .collect();
    names.sort();
    names
}

/// The (query, genome) pairs whose brute-force count reaches `threshold` of the query's
/// k-mer positions, over the genomes not in `removed`.
fn truth(
    genomes: &Genomes,
    queries: &[Vec<u8>],
    threshold: f64,
    removed: &HashSet<&str>,
) -> HashSet<(usize, String)> {
    let mut pairs = HashSet::new();
    for (d, sequence) in genomes.sequences.iter().enumerate() {
        let name = &genomes.names[d];
        if removed.contains(name.as_str()) {
            continue;
        }
        let terms = document_terms(std::slice::from_ref(sequence), K, true);
        for (q, query) in queries.iter().enumerate() {
            let needed = (threshold * (query.len() - K + 1) as f64).ceil() as u32;
            if brute_force_count(query, K, true, &terms) >= needed {
                pairs.insert((q, name.clone()));
            }
        }
    }
    pairs
}

/// The reported pairs that truly reach the threshold.
fn true_hits(reported: &Scores, truth: &HashSet<(usize, String)>) -> HashSet<(usize, String)> {
    reported
        .keys()
        .filter(|pair| truth.contains(*pair))
        .cloned()
        .collect()
}

/// Grows a collection by several adds with power-of-two rows, removes genomes, merges: the
/// blocks are filled (fewer reads per k-mer, as many as a fresh build), every remaining
/// score is unchanged (columns are tiled, never folded), and the hits that truly reach the
/// threshold are those of a fresh build and of brute force.
#[test]
fn adds_removes_and_a_merge_fill_blocks_keep_scores_and_find_a_fresh_builds_true_hits() {
    // In both row layouts; COBS reads the merged file of its own.
    for layout in ["cobs", "minimizer"] {
        adds_removes_and_merge_in(layout);
    }
}

fn adds_removes_and_merge_in(layout: &str) {
    let dir = temp_dir();
    let mut rng = Rng(7);
    // Additions of small, middling and large genomes: blocks of different row counts.
    let lengths: Vec<usize> = (0..24)
        .map(|i| 600 + (i / 4 % 3) * 3000 + rng.below(500) as usize)
        .collect();
    let genomes = write_genomes(&dir.path().join("genomes"), &lengths, 8);
    let queries_path = dir.path().join("queries.fa");
    let queries = write_queries(&queries_path, &genomes.sequences, 30, 9);
    let collection = dir.path().join("collection");
    for (number, batch) in genomes.paths.chunks(4).enumerate() {
        let mut args = vec!["add", "-q", "-T", "2", text(&collection)];
        if number == 0 {
            args.extend(["--rows", "power-of-two", "--layout", layout]);
        }
        args.extend(batch.iter().map(|p| text(p)));
        ok(run(&args));
    }
    assert_eq!(manifest(&collection)["parameters"]["rows"], "power-of-two");
    let parameters = &manifest(&collection)["parameters"];
    match layout {
        "cobs" => assert!(parameters.get("layout").is_none(), "{parameters}"),
        _ => assert_eq!(parameters["layout"]["name"], layout, "{parameters}"),
    }
    let row_counts: HashSet<u64> = manifest(&collection)["subindexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            bitsift::format::IndexHeader::open(&collection.join(s["file"].as_str().unwrap()))
                .unwrap()
                .blocks[0]
                .row_count
        })
        .collect();
    assert!(row_counts.len() >= 2, "several row counts: {row_counts:?}");
    assert!(row_counts.iter().all(|r| r.is_power_of_two()));
    assert_eq!(blocks(&collection), 6, "six additions, a block each");

    let removed: HashSet<&str> = ["g03", "g10", "g17"].into();
    let names = dir.path().join("removed.txt");
    std::fs::write(&names, "g03\ng10\ng17\n").unwrap();
    ok(run(&[
        "remove",
        "-q",
        text(&collection),
        "--documents",
        text(&names),
    ]));
    let before = scores(&collection, &queries_path, "0", &[]);
    assert_eq!(before.len(), 30 * 21, "-t 0 lists every shown genome");

    let merged = ok(run(&["merge", text(&collection), "--json"]));
    let report: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    let output = &report["plan"]["outputs"][0];
    assert_eq!(report["plan"]["blocks_before"], 6);
    assert_eq!(report["plan"]["blocks_after"], 1, "{report}");
    assert_eq!(output["blocks_minimum"], 1);
    assert_eq!(output["documents_folded"], 0, "powers of two tile");
    assert_eq!(output["documents_dropped"], 3);
    assert_eq!(blocks(&collection), 1);
    assert_eq!(
        scores(&collection, &queries_path, "0", &[]),
        before,
        "every remaining genome keeps its exact score"
    );

    // A fresh build of the remaining genomes, with the same row sizing.
    let fresh = dir.path().join("fresh.cobs_compact");
    let mut args = vec![
        "build",
        "-q",
        "-T",
        "2",
        "--rows",
        "power-of-two",
        "--layout",
        layout,
        "-o",
        text(&fresh),
    ];
    for (path, name) in genomes.paths.iter().zip(&genomes.names) {
        if !removed.contains(name.as_str()) {
            args.push(text(path));
        }
    }
    ok(run(&args));
    let fresh_header = bitsift::format::IndexHeader::open(&fresh).unwrap();
    assert!(blocks(&collection) <= fresh_header.blocks.len() as u64);
    for threshold in ["0.5", "0.8", "1"] {
        let expected = truth(&genomes, &queries, threshold.parse().unwrap(), &removed);
        assert!(expected.len() >= 10, "exact pieces are true hits");
        let ours = scores(&collection, &queries_path, threshold, &[]);
        let theirs = scores(&fresh, &queries_path, threshold, &[]);
        assert_eq!(true_hits(&ours, &expected), expected, "-t {threshold}");
        assert_eq!(true_hits(&theirs, &expected), expected, "-t {threshold}");
        // Without summaries too (the merged blocks' summaries are unions of the members').
        let full = scores(&collection, &queries_path, threshold, &["--no-summaries"]);
        assert_eq!(true_hits(&full, &expected), expected, "-t {threshold}");
    }
    for ((q, document), score) in &before {
        let d = genomes.names.iter().position(|n| n == document).unwrap();
        let terms = document_terms(std::slice::from_ref(&genomes.sequences[d]), K, true);
        assert!(*score >= brute_force_count(&queries[*q], K, true, &terms) as u64);
    }
    let file = manifest(&collection)["subindexes"][0]["file"]
        .as_str()
        .unwrap()
        .to_string();
    let info = ok(run(&["info", "--json", text(&collection.join(&file))]));
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["summaries"]["format"], 2, "{info}");
    if layout == "cobs" {
        cobs_reads_the_same(&collection.join(&file), &queries_path, &before);
    }
}

/// COBS searching `index` scores every real document as bitsift did (`expected`, at -t 0).
fn cobs_reads_the_same(index: &Path, queries: &Path, expected: &Scores) {
    let Some(cobs) = cobs_peer(&["query", "-i", text(index), "-t", "0", "-f", text(queries)])
    else {
        return;
    };
    let theirs: Scores = parse_scores(&stdout(&cobs))
        .into_iter()
        .filter(|(_, d, _)| d != "bitsift/padding")
        .map(|(q, d, s)| ((q[1..].parse().unwrap(), d), s as u64))
        .collect();
    assert_eq!(&theirs, expected, "COBS on the merged file");
}

/// Sub-indexes with exact (COBS) row counts that do not divide one another keep their
/// blocks; the merge says that only a rebuild can combine them, and changes no score.
#[test]
fn exact_row_counts_keep_their_blocks_and_the_merge_says_only_a_rebuild_helps() {
    let dir = temp_dir();
    let lengths: Vec<usize> = (0..9).map(|i| 1000 + 350 * i).collect();
    let genomes = write_genomes(&dir.path().join("genomes"), &lengths, 21);
    let queries_path = dir.path().join("queries.fa");
    write_queries(&queries_path, &genomes.sequences, 12, 22);
    let collection = dir.path().join("collection");
    for (number, batch) in genomes.paths.chunks(3).enumerate() {
        let mut args = vec!["add", "-q", "-T", "2", text(&collection)];
        if number == 0 {
            // Exact rows are no longer the default of a new collection (issue 36).
            args.extend(["--rows", "exact"]);
        }
        args.extend(batch.iter().map(|p| text(p)));
        ok(run(&args));
    }
    let before = scores(&collection, &queries_path, "0", &[]);
    let merged = ok(run(&["merge", text(&collection)]));
    let said = stdout(&merged);
    assert!(
        said.contains("3 blocks where one row count would need 1")
            && said.contains("only a rebuild from the genomes can combine them")
            && said.contains("blocks of the collection (row reads per k-mer hash): 3 -> 3"),
        "{said}"
    );
    assert_eq!(blocks(&collection), 3);
    assert_eq!(scores(&collection, &queries_path, "0", &[]), before);
}

/// Issue 36: two additions of real genomes with every option at its default merge into one
/// block, every score unchanged; the new collection's manifest says why (power-of-two rows).
#[test]
fn two_default_additions_merge_into_one_block() {
    let dir = temp_dir();
    let collection = dir.path().join("collection");
    let genomes = [
        "Kpn_pMCR_1511_KX377410.fa.gz",
        "Eco_pBK32602_KU295134.fa.gz",
        "Phage_lambda_NC_001416.fa.gz",
        "Psy_pPMA4326D_AY603981.fa.gz",
    ]
    .map(|name| demo_file(&format!("genomes/{name}")));
    for pair in genomes.chunks(2) {
        let mut args = vec!["add", "-q", text(&collection)];
        args.extend(pair.iter().map(|p| text(p)));
        ok(run(&args));
    }
    assert_eq!(manifest(&collection)["parameters"]["rows"], "power-of-two");
    assert_eq!(blocks(&collection), 2);
    let queries = demo_file("queries/replicons.fa");
    let genes = demo_file("queries/amr_genes.fa");
    // Every block read: summaries may rule out a block that reaches the threshold only
    // through Bloom false positives, and the merged block has summaries of its own.
    let answer = |path: &Path| {
        let output = ok(run(&[
            "query",
            "--no-summaries",
            "-t",
            "0.3",
            "-f",
            text(path),
            "-i",
            text(&collection),
        ]));
        stdout(&output)
    };
    let before = (answer(&queries), answer(&genes));
    assert!(before.1.lines().count() > 2, "{}", before.1);
    let merged = ok(run(&["merge", text(&collection)]));
    let said = stdout(&merged);
    assert!(
        said.contains("blocks of the collection (row reads per k-mer hash): 2 -> 1"),
        "{said}"
    );
    assert_eq!(blocks(&collection), 1);
    assert_eq!((answer(&queries), answer(&genes)), before);
}

/// Writes a compact index of one block of `rows` rows holding `documents` (name, genome),
/// setting each document's bits from its k-mers with the test model (not bitsift's builder),
/// and (with `checksums`) its checksum sidecar.
fn write_index(path: &Path, documents: &[(&str, &Vec<u8>)], rows: u64, checksums: bool) {
    write_index_laid_out(path, documents, rows, checksums, RowLayout::Cobs);
}

/// [`write_index`] in `layout`.
fn write_index_laid_out(
    path: &Path,
    documents: &[(&str, &Vec<u8>)],
    rows: u64,
    checksums: bool,
    layout: RowLayout,
) {
    let compact = CompactLayout {
        k: K as u32,
        canonical: true,
        num_hashes: 1,
        page_size: 8,
        block_rows: vec![rows],
        rows: layout,
    };
    let mut bytes = write_compact_header(&compact, documents.iter().map(|d| d.0)).unwrap();
    let model = RowModel::of_layout(layout, rows, true);
    let mut matrix = vec![0u8; rows as usize * 8];
    for (d, (_, sequence)) in documents.iter().enumerate() {
        let terms = document_terms(std::slice::from_ref(*sequence), K, true);
        for row in document_rows(&terms, 1, &model) {
            matrix[row as usize * 8 + d / 8] |= 1 << (d % 8);
        }
    }
    bytes.extend_from_slice(&matrix);
    std::fs::write(path, &bytes).unwrap();
    if checksums {
        ok(run(&["checksum", "-q", text(path)]));
    }
}

/// Blocks of 6000 and 4000 rows (greatest common divisor 2000): the smaller block's columns
/// fold by 2 into the larger block only when their false-positive rate stays within
/// `--max-fpr`; folded genomes then score exactly as filters of 2000 rows would, never below
/// their brute-force count, and the others keep their scores. In both row layouts (in the
/// minimizer layout's ranges of 16 rows: 375 and 250 ranges, folded to 125).
#[test]
fn folding_joins_blocks_only_within_the_bound_and_never_loses_a_kmer() {
    for layout in [RowLayout::Cobs, RowLayout::minimizer(K as u32, 16)] {
        folding_in(layout);
    }
}

fn folding_in(layout: RowLayout) {
    let dir = temp_dir();
    let mut lengths = vec![2000; 3];
    lengths.extend([1000; 3]);
    let genomes = write_genomes(&dir.path().join("genomes"), &lengths, 31);
    let queries_path = dir.path().join("queries.fa");
    let queries = write_queries(&queries_path, &genomes.sequences, 30, 32);
    let documents: Vec<(&str, &Vec<u8>)> = genomes
        .names
        .iter()
        .map(String::as_str)
        .zip(&genomes.sequences)
        .collect();
    let large = dir.path().join("large.cobs_compact");
    let small = dir.path().join("small.cobs_compact");
    write_index_laid_out(&large, &documents[..3], 6000, true, layout);
    write_index_laid_out(&small, &documents[3..], 4000, true, layout);
    let collection = dir.path().join("collection");
    ok(run(&[
        "add",
        "-q",
        text(&collection),
        "--adopt",
        text(&large),
        "--adopt",
        text(&small),
    ]));
    let before = scores(&collection, &queries_path, "0", &[]);

    // Folded by 2, ~970 k-mers in 2000 rows set ~38 % of the bits: more than 0.2 allows.
    let plan = |bound: &str| {
        let output = ok(run(&[
            "merge",
            text(&collection),
            "--dry-run",
            "--json",
            "--max-fpr",
            bound,
        ]));
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    let strict = plan("0.2");
    assert_eq!(strict["plan"]["blocks_after"], 2, "{strict}");
    assert_eq!(strict["plan"]["outputs"][0]["documents_folded"], 0);
    let loose = plan("0.5");
    assert_eq!(loose["plan"]["blocks_after"], 1, "{loose}");
    let output = &loose["plan"]["outputs"][0];
    assert_eq!(output["documents_folded"], 3);
    let fpr = output["fpr_folded_max"].as_f64().unwrap();
    // The minimizer layout sets a little fewer distinct bits (k-mers of a range collide more).
    assert!((0.25..=0.5).contains(&fpr), "{fpr}");

    let report = ok(run(&["merge", text(&collection), "--max-fpr", "0.5"]));
    assert!(
        stdout(&report).contains("3 document filters folded"),
        "{}",
        stdout(&report)
    );
    assert_eq!(blocks(&collection), 1);
    let after = scores(&collection, &queries_path, "0", &[]);
    assert_eq!(after.len(), before.len());
    let mut gained = 0;
    for ((q, document), score) in &after {
        let d = genomes.names.iter().position(|n| n == document).unwrap();
        let terms = document_terms(std::slice::from_ref(&genomes.sequences[d]), K, true);
        let rows = if d < 3 { 6000 } else { 2000 };
        let rows_model = RowModel::of_layout(layout, rows, true);
        let model = model_score(
            &queries[*q],
            K,
            true,
            1,
            &rows_model,
            &document_rows(&terms, 1, &rows_model),
        );
        assert_eq!(
            *score, model as u64,
            "query {q}, {document}: a filter of {rows} rows"
        );
        assert!(*score >= brute_force_count(&queries[*q], K, true, &terms) as u64);
        let old = before[&(*q, document.clone())];
        if d < 3 {
            assert_eq!(*score, old, "the host block's genomes keep their scores");
        } else {
            assert!(*score >= old, "folding only adds bits");
            gained += (*score > old) as usize;
        }
    }
    assert!(
        gained > 0,
        "random queries gain false positives from the fold"
    );
}

/// The merged file, its checksums and its block summaries are verified before the manifest
/// names them: damage that appears after they were written fails the merge, and the
/// collection stays as it was.
#[test]
fn damage_to_the_merged_file_or_its_summaries_fails_the_merge_and_changes_nothing() {
    let dir = temp_dir();
    let lengths: Vec<usize> = (0..8).map(|i| 1500 + 300 * i).collect();
    let genomes = write_genomes(&dir.path().join("genomes"), &lengths, 41);
    let collection = dir.path().join("collection");
    for (number, batch) in genomes.paths.chunks(4).enumerate() {
        let mut args = vec!["add", "-q", text(&collection)];
        if number == 0 {
            args.extend(["--rows", "power-of-two"]);
        }
        args.extend(batch.iter().map(|p| text(p)));
        ok(run(&args));
    }
    let listing_before = listing(&collection);
    let manifest_before = manifest(&collection);
    for (point, expected) in [
        ("merge-output", "checksum mismatch"),
        ("merge-summaries", "damaged block summaries"),
    ] {
        let output = bitsift()
            .env("BITSIFT_TEST_CRASH_AT", format!("{point}:damage"))
            .args(["merge", text(&collection)])
            .output()
            .unwrap();
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{point}: {said}");
        assert!(
            said.contains("the merged sub-index failed verification")
                && said.contains(expected)
                && said.contains("the collection was not changed"),
            "{point}: {said}"
        );
        assert_eq!(listing(&collection), listing_before, "{point}");
        assert_eq!(manifest(&collection), manifest_before, "{point}");
    }
    ok(run(&["merge", "-q", text(&collection)]));
    assert_eq!(blocks(&collection), 1, "undamaged, the same merge succeeds");
}

/// A sub-index without checksums (an adopted COBS index, say) is not merged: the merged
/// file's fresh checksums would vouch for bytes nobody could check.
#[test]
fn a_member_without_checksums_is_refused_until_it_has_them() {
    let dir = temp_dir();
    let genomes = write_genomes(&dir.path().join("genomes"), &[1500, 1600, 1700, 1800], 51);
    let documents: Vec<(&str, &Vec<u8>)> = genomes
        .names
        .iter()
        .map(String::as_str)
        .zip(&genomes.sequences)
        .collect();
    let first = dir.path().join("first.cobs_compact");
    let second = dir.path().join("second.cobs_compact");
    write_index(&first, &documents[..2], 8192, true);
    write_index(&second, &documents[2..], 4096, false);
    let collection = dir.path().join("collection");
    ok(run(&[
        "add",
        "-q",
        text(&collection),
        "--adopt",
        text(&first),
        "--adopt",
        text(&second),
    ]));
    let listing_before = listing(&collection);
    let manifest_before = manifest(&collection);
    let refused = run(&["merge", text(&collection)]);
    let said = stderr(&refused);
    assert_eq!(refused.status.code(), Some(1), "{said}");
    assert!(
        said.contains("sub-000002.cobs_compact: has no checksums")
            && said.contains("nothing was merged")
            && said.contains("hint: check the index"),
        "{said}"
    );
    assert_eq!(listing(&collection), listing_before);
    assert_eq!(manifest(&collection), manifest_before);
    let sub = collection.join("sub-000002.cobs_compact");
    ok(run(&["checksum", "-q", text(&sub)]));
    ok(run(&["merge", "-q", text(&collection)]));
    assert_eq!(blocks(&collection), 1, "4096 divides 8192: one block");
}
