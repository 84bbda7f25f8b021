//! Issue 19: answers a biologist can read. Identity estimates checked against copies of a gene
//! with a known number of random substitutions; group counts against the metadata table and
//! an independent count of the hits; the presence matrix against the hit list; totals
//! against the unlimited answer.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use common::*;

/// A copy of `gene` with exactly `substitutions` point substitutions at distinct random
/// positions (each base changed to another base).
fn mutated(gene: &[u8], substitutions: usize, rng: &mut Rng) -> Vec<u8> {
    let mut copy = gene.to_vec();
    let mut changed = std::collections::HashSet::new();
    while changed.len() < substitutions {
        let at = rng.below(gene.len() as u64) as usize;
        if changed.insert(at) {
            let other = b"ACGT"
                .iter()
                .copied()
                .filter(|&b| b != gene[at])
                .collect::<Vec<_>>();
            copy[at] = other[rng.below(3) as usize];
        }
    }
    copy
}

fn query_json(index: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["query", "-i", index.to_str().unwrap(), "--format", "json"];
    all.extend_from_slice(args);
    let output = run(&all);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("JSON")
}

#[test]
fn identity_estimates_follow_simulated_snp_copies() {
    let dir = temp_dir();
    let mut rng = Rng(1901);
    let gene = rng.dna(3000);
    // Substitutions per copy: identities 1, 0.999, 0.995, 0.99, 0.98, 0.97.
    let snps = [0usize, 3, 15, 30, 60, 90];
    let mut genomes = Vec::new();
    let mut truth = HashMap::new();
    let mut terms = HashMap::new();
    for &d in &snps {
        let name = format!("copy_{d:02}snps");
        let mut sequence = rng.dna(4000);
        sequence.extend(mutated(&gene, d, &mut rng));
        sequence.extend(rng.dna(4000));
        let path = dir.path().join(format!("{name}.fa"));
        terms.insert(name.clone(), document_terms(&[sequence.clone()], 31, true));
        write_fasta(&path, &[(name.clone(), sequence)]);
        truth.insert(name, 1.0 - d as f64 / gene.len() as f64);
        genomes.push(path);
    }
    let index = dir.path().join("copies.cobs_compact");
    let mut args = vec![
        "build",
        "-q",
        "--fpr",
        "0.001",
        "-o",
        index.to_str().unwrap(),
    ];
    args.extend(genomes.iter().map(|p| p.to_str().unwrap()));
    let built = run(&args);
    assert!(built.status.success(), "{}", stderr(&built));
    let queries = dir.path().join("gene.fa");
    write_fasta(&queries, &[("gene".into(), gene.clone())]);
    let answer = query_json(&index, &["-f", queries.to_str().unwrap(), "-t", "0"]);
    let hits = answer["queries"][0]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), snps.len());
    for hit in hits {
        let name = hit["document"].as_str().unwrap();
        let estimate = hit["identity"].as_f64().unwrap();
        // What the copy's k-mers really give, counted without the index.
        let exact = brute_force_count(&gene, 31, true, &terms[name]) as f64 / 2970.0;
        assert!(
            estimate + 1e-4 >= exact.powf(1.0 / 31.0),
            "{name}: Bloom false positives only add k-mers"
        );
        let error = (estimate - truth[name]).abs();
        assert!(
            error < 0.004,
            "{name}: estimate {estimate}, true identity {}",
            truth[name]
        );
    }
    // --min-identity 0.985 keeps the copies at 99 % and above, and is a threshold on the
    // same estimate.
    let kept = query_json(
        &index,
        &["-f", queries.to_str().unwrap(), "--min-identity", "0.985"],
    );
    let mut names: Vec<&str> = kept["queries"][0]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["document"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["copy_00snps", "copy_03snps", "copy_15snps", "copy_30snps"]
    );
    let conflict = run(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-t",
        "0.5",
        "--min-identity",
        "0.9",
        "ACGT",
    ]);
    assert_eq!(conflict.status.code(), Some(2), "{}", stderr(&conflict));
}

/// Twelve genomes, their species in a table (g10 and g11 unlisted: no value, `""`), queries
/// from their sequences.
fn grouped_fixture(dir: &Path) -> (PathBuf, PathBuf, PathBuf, HashMap<String, String>) {
    let mut rng = Rng(1902);
    let species = ["E. coli", "K. pneumoniae", "S. aureus"];
    let mut table = String::from("document\tspecies\n");
    let mut of = HashMap::new();
    let mut paths = Vec::new();
    let mut sequences = Vec::new();
    for i in 0..12 {
        let name = format!("g{i:02}");
        let sequence = rng.dna(3000);
        let path = dir.join(format!("{name}.fa"));
        write_fasta(&path, &[(name.clone(), sequence.clone())]);
        let value = if i < 10 { species[i % 3] } else { "" };
        if i < 10 {
            table += &format!("{name}\t{value}\n");
        }
        of.insert(name, value.to_string());
        paths.push(path);
        sequences.push(sequence);
    }
    let index = dir.join("grouped.cobs_compact");
    let mut args = vec!["build", "-q", "-o", index.to_str().unwrap()];
    args.extend(paths.iter().map(|p| p.to_str().unwrap()));
    let built = run(&args);
    assert!(built.status.success(), "{}", stderr(&built));
    let metadata = dir.join("species.tsv");
    std::fs::write(&metadata, table).unwrap();
    // A stretch shared by several genomes: queries hit 1 to 12 of them.
    let mut queries = Vec::new();
    for (q, source) in sequences.iter().take(8).enumerate() {
        queries.push((format!("q{q}"), source[100..700].to_vec()));
    }
    queries.push(("random".into(), rng.dna(500)));
    let file = dir.join("queries.fa");
    write_fasta(&file, &queries);
    (index, metadata, file, of)
}

#[test]
fn group_counts_match_the_metadata_and_the_hits() {
    let dir = temp_dir();
    let (index, metadata, queries, species) = grouped_fixture(dir.path());
    let (index, metadata, queries) = (
        index.to_str().unwrap(),
        metadata.to_str().unwrap(),
        queries.to_str().unwrap(),
    );
    let all = query_json(Path::new(index), &["-f", queries, "-t", "0.3"]);
    let grouped = query_json(
        Path::new(index),
        &[
            "-f",
            queries,
            "-t",
            "0.3",
            "-l",
            "1",
            "--metadata",
            metadata,
            "--group-by",
            "species",
        ],
    );
    let mut searched: BTreeMap<&str, u64> = BTreeMap::new();
    for value in species.values() {
        *searched.entry(value).or_default() += 1;
    }
    for (whole, limited) in all["queries"]
        .as_array()
        .unwrap()
        .iter()
        .zip(grouped["queries"].as_array().unwrap())
    {
        let hits = whole["hits"].as_array().unwrap();
        assert_eq!(limited["total_hits"], hits.len(), "totals ignore the limit");
        assert_eq!(limited["documents_searched"], 12);
        assert!(limited["hits"].as_array().unwrap().len() <= 1);
        // Carriers and scores per species, counted here from the unlimited hits.
        let mut carriers: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for hit in hits {
            let value = species[hit["document"].as_str().unwrap()].as_str();
            carriers
                .entry(value)
                .or_default()
                .push(hit["fraction"].as_f64().unwrap());
        }
        let groups = limited["groups"].as_array().unwrap();
        assert_eq!(
            groups.len(),
            searched.len(),
            "every species searched is listed"
        );
        for group in groups {
            let value = group["value"].as_str().unwrap();
            let scores = carriers.get(value).cloned().unwrap_or_default();
            assert_eq!(group["carriers"], scores.len(), "{value}");
            assert_eq!(group["searched"], searched[value], "{value}");
            let max = scores
                .iter()
                .copied()
                .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.max(s))));
            assert_eq!(group["score_max"].as_f64(), max, "{value}");
        }
        let order: Vec<u64> = groups
            .iter()
            .map(|g| g["carriers"].as_u64().unwrap())
            .collect();
        assert!(
            order.windows(2).all(|w| w[0] >= w[1]),
            "most carriers first"
        );
    }
    // The TSV says the same, one line per query and species.
    let tsv = run(&[
        "query",
        "-i",
        index,
        "-f",
        queries,
        "-t",
        "0.3",
        "--metadata",
        metadata,
        "--group-by",
        "species",
    ]);
    let text = stdout(&tsv);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "query\tspecies\tcarriers\tsearched\tfraction\tscore_min\tscore_median\tscore_max"
    );
    assert_eq!(lines.len(), 1 + 9 * searched.len());
    let unknown = run(&[
        "query",
        "-i",
        index,
        "-f",
        queries,
        "--metadata",
        metadata,
        "--group-by",
        "host",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("no column \"host\""),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn a_matrix_holds_every_hit_of_every_query() {
    let dir = temp_dir();
    let (index, _, queries, _) = grouped_fixture(dir.path());
    let (index, queries) = (index.to_str().unwrap(), queries.to_str().unwrap());
    let hits = query_json(Path::new(index), &["-f", queries, "-t", "0.3"]);
    let mut expected: BTreeMap<(String, String), f64> = BTreeMap::new();
    for query in hits["queries"].as_array().unwrap() {
        for hit in query["hits"].as_array().unwrap() {
            let key = (
                hit["document"].as_str().unwrap().to_string(),
                query["query"].as_str().unwrap().to_string(),
            );
            expected.insert(key, hit["fraction"].as_f64().unwrap());
        }
    }
    for presence in [false, true] {
        let mut args = vec![
            "query", "-i", index, "-f", queries, "-t", "0.3", "--format", "matrix",
        ];
        if presence {
            args.push("--presence");
        }
        let output = run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
        assert_eq!(header[0], "document");
        assert_eq!(
            header.len(),
            1 + 9,
            "a column per query, the missed one too"
        );
        let mut found = BTreeMap::new();
        let mut documents = Vec::new();
        for line in lines {
            let cells: Vec<&str> = line.split('\t').collect();
            assert_eq!(cells.len(), header.len(), "{line}");
            documents.push(cells[0].to_string());
            for (column, cell) in cells[1..].iter().enumerate() {
                let key = (cells[0].to_string(), header[column + 1].to_string());
                match (*cell, presence) {
                    ("", false) | ("0", true) => {}
                    ("1", true) => {
                        let value = expected.get(&key).copied().unwrap_or(-1.0);
                        found.insert(key, value);
                    }
                    (value, false) => {
                        found.insert(key, value.parse::<f64>().unwrap());
                    }
                    (other, true) => panic!("presence cell {other:?}"),
                }
            }
        }
        assert_eq!(found, expected, "presence {presence}");
        let mut sorted = documents.clone();
        sorted.sort();
        assert_eq!(documents, sorted, "documents in index order");
    }
}
