//! Issue 36, "`bitsift info` says what a biologist asks": the bases and k-mers each genome was
//! built from, the false-positive rate asked for and reached, when, by which version and from
//! what. The build writes a record beside the index; `info` reads it, checks that it is the
//! index's own, and says so when there is none (COBS's indexes). Every value is checked
//! against an independent count of the FASTA files the test writes.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

const K: u64 = 31;

/// One genome: its name and its records' sequences.
struct Genome {
    name: String,
    records: Vec<Vec<u8>>,
}

impl Genome {
    fn bases(&self) -> u64 {
        self.records.iter().map(|r| r.len() as u64).sum()
    }

    /// k-mer positions: `Σ max(0, length − k + 1)` over the records.
    fn kmers(&self) -> u64 {
        self.records
            .iter()
            .map(|r| (r.len() as u64 + 1).saturating_sub(K))
            .sum()
    }
}

/// Writes `count` genomes of 1 to 3 records of random lengths (one shorter than k) from `seed`
/// into `dir`, lowercase in part, and returns them.
fn write_genomes(dir: &Path, seed: u64, count: usize) -> Vec<Genome> {
    std::fs::create_dir_all(dir).unwrap();
    let mut rng = Rng(seed);
    (0..count)
        .map(|g| {
            let records: Vec<Vec<u8>> = (0..1 + rng.below(3))
                .map(|r| {
                    let len = match (g, r) {
                        (3, 1) => 20,
                        _ => 2_000 + rng.below(30_000) as usize,
                    };
                    let mut dna = rng.dna(len);
                    dna[..len / 4].make_ascii_lowercase();
                    dna
                })
                .collect();
            let name = format!("g{g:02}");
            let named: Vec<(String, Vec<u8>)> = records
                .iter()
                .enumerate()
                .map(|(r, s)| (format!("{name}_contig{r}"), s.clone()))
                .collect();
            write_fasta(&dir.join(format!("{name}.fa")), &named);
            Genome { name, records }
        })
        .collect()
}

fn build(index: &Path, inputs: &Path, extra: &[&str]) {
    let mut args = vec!["build", "-q", "--force", "-o", index.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push(inputs.to_str().unwrap());
    ok(run(&args));
}

fn info_json(target: &Path, extra: &[&str]) -> (Value, String) {
    let mut args = vec!["info", "--json", target.to_str().unwrap()];
    args.extend_from_slice(extra);
    let output = ok(run(&args));
    (
        serde_json::from_str(&stdout(&output)).unwrap(),
        stderr(&output),
    )
}

/// The total, smallest, median (lower middle) and largest of `values`.
fn spread(mut values: Vec<u64>) -> Value {
    values.sort_unstable();
    serde_json::json!({
        "total": values.iter().sum::<u64>(),
        "min": values[0],
        "median": values[(values.len() - 1) / 2],
        "max": values[values.len() - 1],
    })
}

fn record_files(index: &Path) -> [PathBuf; 2] {
    ["bitsift-build", "bitsift-build-documents"]
        .map(|suffix| PathBuf::from(format!("{}.{suffix}", index.display())))
}

#[test]
fn info_tells_bases_kmers_fpr_and_provenance_of_a_fresh_build() {
    let dir = temp_dir();
    let genomes = write_genomes(&dir.path().join("genomes"), 36, 20);
    let index = dir.path().join("x.cobs_compact");
    // 8 documents a block: 3 blocks, each sized for its own largest genome.
    build(
        &index,
        &dir.path().join("genomes"),
        &["--fpr", "0.25", "--page-size", "1"],
    );
    let (info, notices) = info_json(&index, &["--documents"]);
    assert!(!notices.contains("notice"), "{notices}");
    let record = &info["build"];
    assert_eq!(record["status"], "ok", "{record}");
    assert_eq!(record["documents"], 20);
    assert_eq!(
        record["bases"],
        spread(genomes.iter().map(Genome::bases).collect())
    );
    assert_eq!(
        record["kmers"],
        spread(genomes.iter().map(Genome::kmers).collect())
    );
    assert_eq!(record["parameters"]["fpr"], 0.25);
    assert_eq!(record["parameters"]["k"], K);
    assert_eq!(record["parameters"]["page_size"], 1);
    assert_eq!(record["inputs"]["files"], 20);
    assert_eq!(record["command"], "build");
    assert_eq!(record["bitsift_version"], env!("CARGO_PKG_VERSION"));
    let created = record["created"].as_str().unwrap();
    assert!(created.len() == 20 && created.ends_with('Z') && created.as_bytes()[10] == b'T');

    // Each document's own facts, and each block's rate at its largest document.
    let facts = info["document_facts"].as_array().unwrap();
    assert_eq!(facts.len(), 20);
    let by_name = |name: &str| genomes.iter().find(|g| g.name == name).unwrap();
    let mut largest = [0u64; 3];
    for row in facts {
        let genome = by_name(row["name"].as_str().unwrap());
        assert_eq!(row["bases"], genome.bases(), "{row}");
        assert_eq!(row["kmers"], genome.kmers(), "{row}");
        let block = row["block"].as_u64().unwrap() as usize;
        largest[block] = largest[block].max(genome.kmers());
    }
    let rows = info["block_rows"].as_array().unwrap();
    let reached = record["fpr_reached"].as_array().unwrap();
    let h = info["hashes"].as_f64().unwrap();
    for block in 0..3 {
        let m = rows[block].as_f64().unwrap();
        let expected = (1.0 - (-h * largest[block] as f64 / m).exp()).powf(h);
        let got = reached[block].as_f64().unwrap();
        assert!(
            (got - expected).abs() < 1e-9,
            "block {block}: {got} vs {expected}"
        );
        assert!(got <= 0.25 + 1e-6, "sized for 0.25, reaches {got}");
    }

    // One named genome, in words and in JSON.
    let g = &genomes[3];
    let (named, _) = info_json(&index, &["--document", &g.name]);
    assert_eq!(named["document"]["bases"], g.bases());
    assert_eq!(named["document"]["kmers"], g.kmers());
    let text = stdout(&ok(run(&[
        "info",
        index.to_str().unwrap(),
        "--document",
        &g.name,
    ])));
    let words = format!("{} bases, {} k-mers", g.bases(), g.kmers());
    assert!(text.contains(&words), "{text}");
    assert!(text.contains("fpr reached"), "{text}");
    assert!(text.contains("built from       20 files"), "{text}");
    let missing = run(&["info", index.to_str().unwrap(), "--document", "nope"]);
    assert!(!missing.status.success());
    assert!(stderr(&missing).contains("no document named \"nope\""));
}

#[test]
fn info_prints_each_entry_once() {
    let dir = temp_dir();
    write_genomes(&dir.path().join("genomes"), 7, 4);
    let index = dir.path().join("x.cobs_compact");
    build(&index, &dir.path().join("genomes"), &[]);
    let text = stdout(&ok(run(&["info", index.to_str().unwrap()])));
    for entry in [
        "block summaries",
        "checksums",
        "built   ",
        "built from",
        "bases",
        "k-mers",
        "fpr reached",
    ] {
        let lines = text.lines().filter(|l| l.starts_with(entry)).count();
        assert_eq!(lines, 1, "{entry:?} in:\n{text}");
    }
}

#[test]
fn a_record_of_another_build_is_detected_and_ignored() {
    let dir = temp_dir();
    let index = dir.path().join("x.cobs_compact");
    write_genomes(&dir.path().join("one"), 1, 6);
    build(&index, &dir.path().join("one"), &[]);
    let saved = dir.path().join("saved");
    std::fs::create_dir(&saved).unwrap();
    for file in record_files(&index) {
        std::fs::copy(&file, saved.join(file.file_name().unwrap())).unwrap();
    }
    let put_back = || {
        for file in record_files(&index) {
            std::fs::copy(saved.join(file.file_name().unwrap()), &file).unwrap();
        }
    };
    // The same names and lengths, other bases: the same header, other data.
    let mut rng = Rng(1);
    let other = dir.path().join("other");
    let genomes = write_genomes(&other, 1, 6);
    for genome in &genomes {
        let records: Vec<(String, Vec<u8>)> = genome
            .records
            .iter()
            .enumerate()
            .map(|(r, s)| (format!("c{r}"), rng.dna(s.len())))
            .collect();
        write_fasta(&other.join(format!("{}.fa", genome.name)), &records);
    }
    build(&index, &other, &[]);
    put_back();
    let (info, notices) = info_json(&index, &[]);
    assert_eq!(info["build"]["status"], "stale", "{}", info["build"]);
    assert!(
        notices.contains("a build record of another index"),
        "{notices}"
    );
    assert!(notices.contains("sampled data pages"), "{notices}");
    assert!(info["build"].get("bases").is_none());

    // Other genomes: another header.
    write_genomes(&dir.path().join("three"), 3, 9);
    build(&index, &dir.path().join("three"), &[]);
    put_back();
    let (info, notices) = info_json(&index, &[]);
    assert_eq!(info["build"]["status"], "stale");
    assert!(notices.contains("fingerprint"), "{notices}");
    let text = stdout(&ok(run(&["info", index.to_str().unwrap()])));
    assert!(text.contains("build record     stale, ignored"), "{text}");
}

#[test]
fn an_index_built_by_cobs_says_it_has_no_record() {
    let dir = temp_dir();
    write_genomes(&dir.path().join("genomes"), 5, 4);
    let inputs: Vec<String> = (0..4)
        .map(|g| {
            dir.path()
                .join(format!("genomes/g{g:02}.fa"))
                .display()
                .to_string()
        })
        .collect();
    let index = dir.path().join("cobs.cobs_compact");
    let mut args = vec!["build", "--kind", "compact", "-o", index.to_str().unwrap()];
    args.extend(inputs.iter().map(String::as_str));
    if cobs_peer(&args).is_none() {
        return;
    }
    let (info, notices) = info_json(&index, &[]);
    assert_eq!(info["build"]["status"], "none");
    assert!(notices.is_empty(), "{notices}");
    assert_eq!(info["documents"], 4, "the header's facts are still given");
    let (listed, _) = info_json(&index, &["--documents"]);
    assert!(
        listed.get("document_facts").is_none(),
        "no facts without a record"
    );
    let name = listed["document_names"][1].as_str().unwrap().to_string();
    let text = stdout(&ok(run(&[
        "info",
        index.to_str().unwrap(),
        "--document",
        &name,
    ])));
    assert!(text.contains("build record     none"), "{text}");
    assert!(text.contains("bases and k-mers unknown"), "{text}");
}

#[test]
fn a_collection_sums_up_its_sub_indexes_records_through_a_merge() {
    let dir = temp_dir();
    let collection = dir.path().join("genomes");
    let first = write_genomes(&dir.path().join("a"), 11, 5);
    let second: Vec<Genome> = write_genomes(&dir.path().join("b"), 12, 12)
        .into_iter()
        .skip(5)
        .collect();
    for genome in 0..5 {
        std::fs::remove_file(dir.path().join(format!("b/g{genome:02}.fa"))).unwrap();
    }
    let all: Vec<&Genome> = first.iter().chain(&second).collect();
    let c = collection.to_str().unwrap();
    ok(run(&[
        "add",
        "-q",
        c,
        dir.path().join("a").to_str().unwrap(),
    ]));
    ok(run(&[
        "add",
        "-q",
        c,
        dir.path().join("b").to_str().unwrap(),
    ]));
    let check = |label: &str| {
        let (info, notices) = info_json(&collection, &[]);
        assert!(!notices.contains("notice"), "{label}: {notices}");
        let build = &info["build"];
        assert!(
            build["status"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s == "ok"),
            "{label}: {build}"
        );
        assert_eq!(build["documents"], 12, "{label}");
        assert_eq!(
            build["bases"],
            spread(all.iter().map(|g| g.bases()).collect()),
            "{label}"
        );
        assert_eq!(
            build["kmers"],
            spread(all.iter().map(|g| g.kmers()).collect()),
            "{label}"
        );
        info
    };
    let before = check("two additions");
    assert_eq!(before["subindexes"].as_array().unwrap().len(), 2);
    ok(run(&["merge", "-q", c]));
    let after = check("merged");
    assert_eq!(after["subindexes"].as_array().unwrap().len(), 1);
    assert_eq!(after["subindexes"][0]["build_record"], "ok");
    let g = &second[2];
    let (named, _) = info_json(&collection, &["--document", &g.name]);
    assert_eq!(named["document"]["bases"], g.bases());
    assert_eq!(named["document"]["kmers"], g.kmers());
    let text = stdout(&ok(run(&["info", c])));
    assert!(
        text.contains("build records    1 of 1 sub-indexes"),
        "{text}"
    );
}
