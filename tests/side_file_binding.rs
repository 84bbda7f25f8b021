//! Issue 30, "side files bound to the bytes they describe": two builds of different genomes
//! under the same file and document names have the same header, so only their data tells them
//! apart. Block summaries or checksums of one build put beside the other must never prune an
//! answer or pass `verify`; a build's own side files keep working.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

const GENOMES: usize = 16;
const GENOME_BASES: usize = 20_000;
/// The genome the query is cut from: in the second block (`--page-size 1`: 8 per block).
const TARGET: usize = 12;

/// Writes `GENOMES` random genomes `g00.fa`.. from `seed` into `dir/genomes-SEED`, builds
/// `dir/SEED/x.cobs_compact` of them in input order, and returns the index and the genomes.
fn build_set(dir: &Path, seed: u64) -> (PathBuf, Vec<Vec<u8>>) {
    build_variant(dir, seed, None)
}

/// As [`build_set`], into `dir/SEED-snp` when `snp` is given: the base at that position of
/// genome `TARGET` is changed, nothing else.
fn build_variant(dir: &Path, seed: u64, snp: Option<usize>) -> (PathBuf, Vec<Vec<u8>>) {
    let tag = match snp {
        Some(_) => format!("{seed}-snp"),
        None => seed.to_string(),
    };
    let inputs = dir.join(format!("genomes-{tag}"));
    let out = dir.join(&tag);
    std::fs::create_dir_all(&inputs).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let mut rng = Rng(seed);
    let mut genomes = Vec::new();
    for d in 0..GENOMES {
        let mut dna = rng.dna(GENOME_BASES);
        if let (Some(at), TARGET) = (snp, d) {
            dna[at] = if dna[at] == b'A' { b'C' } else { b'A' };
        }
        write_fasta(
            &inputs.join(format!("g{d:02}.fa")),
            &[(format!("g{d}"), dna.clone())],
        );
        genomes.push(dna);
    }
    let index = out.join("x.cobs_compact");
    let output = run(&[
        "build",
        "-q",
        "-o",
        index.to_str().unwrap(),
        "--page-size",
        "1",
        "--order",
        "input",
        inputs.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    (index, genomes)
}

/// A query file of 2,000 bases of `genome`.
fn query_file(dir: &Path, genome: &[u8]) -> PathBuf {
    let path = dir.join("query.fa");
    write_fasta(&path, &[("q".to_string(), genome[5_000..7_000].to_vec())]);
    path
}

/// `bitsift query --format json` at threshold 0.9: the output, the documents hit and the
/// blocks ruled out.
fn query(index: &Path, queries: &Path) -> (Output, Vec<String>, u64) {
    let output = run(&[
        "query",
        "-q",
        "-i",
        index.to_str().unwrap(),
        "-f",
        queries.to_str().unwrap(),
        "-t",
        "0.9",
        "--format",
        "json",
    ]);
    if !output.status.success() {
        return (output, Vec::new(), 0);
    }
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let query = &json["queries"][0];
    let hits = query["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["document"].as_str().unwrap().to_string())
        .collect();
    let ruled_out = query["stats"]["blocks_ruled_out"].as_u64().unwrap();
    (output, hits, ruled_out)
}

fn all_output(output: &Output) -> String {
    format!("{}{}", stdout(output), stderr(output))
}

/// Index A and index B: same names, same sizes, other genomes; and a query of B's target.
fn two_builds(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (a, _) = build_set(dir, 1);
    let (b, genomes) = build_set(dir, 2);
    let queries = query_file(dir, &genomes[TARGET]);
    (a, b, queries)
}

fn target_name() -> String {
    format!("g{TARGET}")
}

#[test]
fn a_builds_own_summaries_rule_out_blocks_and_find_the_hit() {
    let dir = temp_dir();
    let (_, b, queries) = two_builds(dir.path());
    let (output, hits, ruled_out) = query(&b, &queries);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(hits, vec![target_name()]);
    assert!(ruled_out > 0, "the summaries must rule out the other block");
    assert!(!stderr(&output).contains("warning"), "{}", stderr(&output));
    let verified = run(&["verify", b.to_str().unwrap()]);
    assert!(verified.status.success(), "{}", all_output(&verified));
}

#[test]
fn summaries_of_another_build_are_set_aside_and_fail_verify() {
    let dir = temp_dir();
    let (a, b, queries) = two_builds(dir.path());
    let summaries = |index: &Path| PathBuf::from(format!("{}.bitsift-summaries", index.display()));
    std::fs::copy(summaries(&a), summaries(&b)).unwrap();

    let (output, hits, ruled_out) = query(&b, &queries);
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert_eq!(
        hits,
        vec![target_name()],
        "the hit must not be pruned: {text}"
    );
    assert_eq!(ruled_out, 0, "foreign summaries rule nothing out");
    assert!(
        text.contains("x.cobs_compact.bitsift-summaries") && text.contains("another build"),
        "a notice must name the summaries: {text}"
    );

    let verified = run(&["verify", b.to_str().unwrap()]);
    let text = all_output(&verified);
    assert!(!verified.status.success(), "verify must fail: {text}");
    assert!(
        text.contains("x.cobs_compact.bitsift-summaries"),
        "verify must name the summaries: {text}"
    );
}

#[test]
fn checksums_of_another_build_are_refused_by_query_and_verify() {
    let dir = temp_dir();
    let (a, b, queries) = two_builds(dir.path());
    let checksums = |index: &Path| PathBuf::from(format!("{}.bitsift-checksums", index.display()));
    std::fs::copy(checksums(&a), checksums(&b)).unwrap();

    let (output, _, _) = query(&b, &queries);
    let text = stderr(&output);
    assert!(
        !output.status.success(),
        "a foreign sidecar is refused: {text}"
    );
    assert!(
        text.contains("x.cobs_compact.bitsift-checksums") && text.contains("another build"),
        "the error must name the sidecar: {text}"
    );

    let verified = run(&["verify", b.to_str().unwrap()]);
    let text = all_output(&verified);
    assert!(!verified.status.success(), "verify must fail: {text}");
    assert!(
        text.contains("x.cobs_compact.bitsift-checksums") && text.contains("another build"),
        "verify must name the sidecar: {text}"
    );
}

#[test]
fn summaries_of_a_build_one_base_apart_are_set_aside_by_the_checksums_digest() {
    // One changed base changes a few dozen rows: the sampled pages may all be equal, but the
    // checksum sidecar's digest covers every page.
    let dir = temp_dir();
    let (b, genomes) = build_set(dir.path(), 2);
    let (b_snp, _) = build_variant(dir.path(), 2, Some(10_000));
    let summaries = |index: &Path| PathBuf::from(format!("{}.bitsift-summaries", index.display()));
    std::fs::copy(summaries(&b), summaries(&b_snp)).unwrap();
    let queries = query_file(dir.path(), &genomes[TARGET]);

    let (output, hits, ruled_out) = query(&b_snp, &queries);
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert_eq!(hits, vec![target_name()], "{text}");
    assert_eq!(
        ruled_out, 0,
        "summaries of the other build rule nothing out"
    );
    assert!(
        text.contains("x.cobs_compact.bitsift-summaries") && text.contains("checksum file differs"),
        "the notice names the summaries and why: {text}"
    );
    let verified = run(&["verify", b_snp.to_str().unwrap()]);
    let text = all_output(&verified);
    assert!(!verified.status.success(), "verify must fail: {text}");
    assert!(text.contains("x.cobs_compact.bitsift-summaries"), "{text}");
}

/// Issue 33: counts of ones of another build (same header, same size) are refused with a
/// notice naming them, and the search corrects its scores from the rows instead: the same
/// hit, with the same corrected containment as with the build's own counts (these blocks are
/// small enough to be sampled whole, which is exact).
#[test]
fn counts_of_ones_of_another_build_are_refused() {
    let dir = temp_dir();
    let (a, b, queries) = two_builds(dir.path());
    let ones = |index: &Path| PathBuf::from(format!("{}.bitsift-ones", index.display()));
    let containment = |output: &Output| {
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        json["queries"][0]["hits"][0]["containment"]
            .as_f64()
            .unwrap()
    };
    let (own, hits, _) = query(&b, &queries);
    assert_eq!(hits, vec![target_name()]);
    assert!(!stderr(&own).contains("bitsift-ones"), "{}", stderr(&own));
    assert_eq!(
        std::fs::metadata(ones(&a)).unwrap().len(),
        std::fs::metadata(ones(&b)).unwrap().len()
    );
    std::fs::copy(ones(&a), ones(&b)).unwrap();

    let (output, hits, _) = query(&b, &queries);
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    assert_eq!(hits, vec![target_name()], "{text}");
    assert!(
        text.contains("x.cobs_compact.bitsift-ones") && text.contains("another index or build"),
        "a notice must name the counts: {text}"
    );
    assert_eq!(containment(&output), containment(&own));
}
