//! The query core of issue 10 through the binary: the automatic engine choice follows the page
//! cache, every way of getting rows (in place, planned reads, several threads) gives the same
//! answers, and stats report each query's own share once per batch.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn plasmid(name: &str) -> PathBuf {
    demo_file(&format!("genomes/{name}"))
}

const THREE: [&str; 3] = [
    "Kpn_pMCR_1511_KX377410.fa.gz",
    "Eco_pBK32602_KU295134.fa.gz",
    "Phage_lambda_NC_001416.fa.gz",
];

/// The bundled plasmid and phage files: 12 records.
const SMALL: [&str; 9] = [
    "Eco_O157_pOSAK1_AB011548.fa.gz",
    "Eco_pBK32602_KU295134.fa.gz",
    "Kpn_CAV1453_plasmids_CP018355_CP018354.fa.gz",
    "Kpn_pMCR_1511_KX377410.fa.gz",
    "Kpn_plasmid12_NC_011385.fa.gz",
    "Phage_lambda_NC_001416.fa.gz",
    "Psy_pPMA4326D_AY603981.fa.gz",
    "Sen_Choleraesuis_virulence_plasmid_AB040415.fa.gz",
    "Sso_53G_plasmids_NC_016833_NC_016823_NC_016834.fa.gz",
];

fn index_of(dir: &Path, name: &str, files: &[&str], extra: &[&str]) -> PathBuf {
    let index = dir.join(name);
    let mut args = vec!["build", "-q", "-o", index.to_str().unwrap()];
    args.extend_from_slice(extra);
    let inputs: Vec<String> = files
        .iter()
        .map(|f| plasmid(f).display().to_string())
        .collect();
    args.extend(inputs.iter().map(String::as_str));
    let output = run(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    index
}

/// `bitsift query --format json` on the AMR genes; returns the parsed document.
fn query_json(index: &Path, extra: &[&str]) -> serde_json::Value {
    let genes = demo_file("queries/amr_genes.fa");
    let mut args = vec![
        "query",
        "-i",
        index.to_str().unwrap(),
        "-f",
        genes.to_str().unwrap(),
        "-t",
        "0.5",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let output = run(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("valid JSON")
}

/// (query, document, kmers_found) of every hit.
fn hits(value: &serde_json::Value) -> Vec<(String, String, u64)> {
    let mut hits = Vec::new();
    for query in value["queries"].as_array().unwrap() {
        for hit in query["hits"].as_array().unwrap() {
            hits.push((
                query["query"].as_str().unwrap().to_string(),
                hit["document"].as_str().unwrap().to_string(),
                hit["kmers_found"].as_u64().unwrap(),
            ));
        }
    }
    hits
}

fn is_tmpfs(path: &Path) -> bool {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: statfs fills the zeroed struct for a valid C string.
    unsafe {
        let mut s: libc::statfs = std::mem::zeroed();
        libc::statfs(c.as_ptr(), &mut s) == 0 && s.f_type == libc::TMPFS_MAGIC
    }
}

#[test]
fn auto_engine_scores_a_cached_index_in_place_and_reads_a_cold_one() {
    let dir = temp_dir();
    let index = index_of(dir.path(), "x.cobs_compact", &THREE, &[]);
    // Just written: wholly in the page cache.
    let warm = query_json(&index, &[]);
    let batch = &warm["batches"][0];
    assert_eq!(batch["source"], "resident", "{batch}");
    assert_eq!(batch["engine"], "mmap");
    assert_eq!(batch["resident_fraction"], 1.0);
    assert_eq!(batch["bytes_read"], 0, "nothing read: scored in place");
    assert!(!hits(&warm).is_empty());
    if is_tmpfs(&index) {
        eprintln!("tmpfs keeps every file in memory: the cold half of this test cannot run");
        return;
    }
    bitsift::io::drop_file_cache(&index).unwrap();
    let cold = query_json(&index, &[]);
    let batch = &cold["batches"][0];
    assert_eq!(batch["source"], "reads", "{batch}");
    assert!(
        batch["resident_fraction"].as_f64().unwrap() < 0.99,
        "{batch}"
    );
    assert!(batch["bytes_read"].as_u64().unwrap() > 0);
    assert_eq!(hits(&cold), hits(&warm), "same answers cold and warm");
    // `--direct-io required` never scores through the page cache.
    let direct = query_json(&index, &["--direct-io", "required", "--engine", "pread"]);
    assert_eq!(direct["batches"][0]["source"], "reads");
    assert_eq!(hits(&direct), hits(&warm));
}

/// Issue 35: the rows decide. An index whose rows are cached is scored in place even when its
/// side files (checksums, block summaries: read a page at a time, so rarely cached whole) are
/// cold; their pages are then read through an engine of their own, not faulted in.
#[test]
fn cached_rows_are_scored_in_place_though_the_side_files_are_cold() {
    let dir = temp_dir();
    let index = index_of(dir.path(), "x.cobs_compact", &SMALL, &[]);
    if is_tmpfs(&index) {
        eprintln!("tmpfs keeps every file in memory: side files cannot be made cold here");
        return;
    }
    let name = index.file_name().unwrap().to_str().unwrap().to_string();
    let side: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap() != name)
        .collect();
    assert!(side.len() >= 2, "checksums and summaries: {side:?}");
    let cold_side = || {
        for path in &side {
            std::fs::File::open(path).unwrap().sync_all().unwrap();
            bitsift::io::drop_file_cache(path).unwrap();
        }
    };
    let reads = query_json(&index, &["--direct-io", "required", "--engine", "pread"]);
    assert_eq!(reads["batches"][0]["source"], "reads");
    // The index file was just written (cached); its side files are dropped from the cache.
    cold_side();
    let warm = query_json(&index, &[]);
    let batch = &warm["batches"][0];
    assert_eq!(batch["source"], "resident", "{batch}");
    assert_eq!(batch["engine"], "mmap", "{batch}");
    assert_eq!(batch["resident_fraction"], 1.0, "the rows' share: {batch}");
    // Every byte read was a side page (summaries), read through the side engine.
    let side_bytes = batch["side_bytes_read"].as_u64().unwrap();
    assert!(
        side_bytes > 0,
        "summary pages read, not faulted in: {batch}"
    );
    assert_eq!(batch["bytes_read"].as_u64().unwrap(), side_bytes, "{batch}");
    assert_eq!(hits(&warm), hits(&reads), "same answers in place and read");
    // And with every side page a checksum or summary page read by the side engine again.
    cold_side();
    let again = query_json(&index, &["--threads", "1"]);
    assert_eq!(again["batches"][0]["source"], "resident");
    assert_eq!(hits(&again), hits(&reads));
}

#[test]
fn every_row_source_and_thread_count_gives_the_same_answers() {
    let dir = temp_dir();
    // 12 records as documents in rows of one byte: two blocks; two hash functions.
    let index = index_of(
        dir.path(),
        "blocks.cobs_compact",
        &SMALL,
        &["--per-record", "--page-size", "1", "--hashes", "2"],
    );
    let info = run(&["info", "--json", index.to_str().unwrap()]);
    assert!(info.status.success(), "{}", stderr(&info));
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["blocks"], 2, "{info}");
    let reference = query_json(&index, &["--engine", "pread", "--no-prune"]);
    assert!(!hits(&reference).is_empty());
    for extra in [
        &["--engine", "ram"][..],
        &["--engine", "ram", "--threads", "1"],
        &["--engine", "ram", "--threads", "3"],
        &["--engine", "mmap", "--threads", "2"],
        &["--engine", "uring"],
        &["--engine", "pread", "--batch", "1"],
        &["--engine", "ram", "--batch", "1", "--no-prune"],
    ] {
        let value = query_json(&index, extra);
        assert_eq!(hits(&value), hits(&reference), "{extra:?}");
    }
    let threaded = query_json(&index, &["--engine", "ram", "--threads", "2"]);
    let batch = &threaded["batches"][0];
    assert_eq!(batch["source"], "resident");
    assert!(batch["threads"].as_u64().unwrap() >= 1);
    // One block: each query's k-mers are cut over the threads and the parts' counts added.
    let one = index_of(dir.path(), "one.cobs_compact", &SMALL, &[]);
    let reference = query_json(&one, &["--engine", "pread", "--no-prune"]);
    assert!(!hits(&reference).is_empty());
    for extra in [
        &["--engine", "ram", "--threads", "2"][..],
        &["--engine", "ram", "--threads", "3", "--no-prune"],
        &["--engine", "mmap", "--threads", "4", "--batch", "1"],
    ] {
        let value = query_json(&one, extra);
        assert_eq!(hits(&value), hits(&reference), "one block, {extra:?}");
        assert!(value["batches"][0]["threads"].as_u64().unwrap() >= 2);
    }
}

#[test]
fn batch_stats_are_reported_once_and_shares_add_up() {
    let dir = temp_dir();
    let index = index_of(dir.path(), "x.cobs_compact", &THREE, &[]);
    let value = query_json(&index, &["--engine", "pread", "--batch", "7"]);
    let queries = value["queries"].as_array().unwrap();
    let batches = value["batches"].as_array().unwrap();
    // 30 genes in batches of 7: 5 batches, numbered from 1, each listed once.
    assert_eq!(batches.len(), 5);
    let numbers: Vec<u64> = batches
        .iter()
        .map(|b| b["batch"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, vec![1, 2, 3, 4, 5]);
    for batch in batches {
        let members: Vec<&serde_json::Value> = queries
            .iter()
            .filter(|q| q["stats"]["batch"] == batch["batch"])
            .collect();
        assert_eq!(members.len() as u64, batch["queries"].as_u64().unwrap());
        let bytes: u64 = members
            .iter()
            .map(|q| q["stats"]["bytes_read"].as_u64().unwrap())
            .sum();
        assert_eq!(bytes, batch["bytes_read"].as_u64().unwrap());
        for q in &members {
            // A query's own share never exceeds the batch.
            assert!(q["stats"]["read_requests"].as_u64() <= batch["read_requests"].as_u64());
        }
    }
}

/// Records of a FASTA file (gzip or plain), as (name, sequence).
fn records(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut reader = bitsift::seqfile::SeqReader::open(path).unwrap();
    let mut record = bitsift::seqfile::SeqRecord::default();
    let mut out = Vec::new();
    while reader.next_into(&mut record).unwrap() {
        out.push((record.name.clone(), record.sequence.clone()));
    }
    out
}

#[test]
fn coverage_shows_whole_genes_substitutions_and_truncations_and_misses_no_true_kmer() {
    let dir = temp_dir();
    let index = index_of(dir.path(), "x.cobs_compact", &THREE, &[]);
    let genes = records(&demo_file("queries/amr_genes.fa"));
    let mcr = genes[0].1.clone();
    assert!(genes[0].0.starts_with("mcr-1"), "{}", genes[0].0);
    let mut snp = mcr.clone();
    snp[500] = if snp[500] == b'A' { b'C' } else { b'A' };
    let mut truncated = mcr[..1200].to_vec();
    truncated.extend(b"ACGTTGCAAGGCTTAGCATCGATCGATCGGATCCTTAGAAGCTAGCATCGACTAGCTA".repeat(5));
    let queries = dir.path().join("q.fa");
    let named = vec![
        ("whole".to_string(), mcr.clone()),
        ("snp".to_string(), snp),
        ("truncated".to_string(), truncated),
    ];
    write_fasta(&queries, &named);
    for engine in ["pread", "ram"] {
        let output = run(&[
            "query",
            "-i",
            index.to_str().unwrap(),
            "-f",
            queries.to_str().unwrap(),
            "-t",
            "0.5",
            "--coverage",
            "--engine",
            engine,
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        let lines: Vec<String> = text.lines().map(without_corrected).collect();
        assert_eq!(
            lines[0],
            "query\tdocument\tkmers_found\tkmers_total\tfraction\tidentity\tcovered\tlongest_gap"
        );
        let row = |name: &str| -> Vec<&str> {
            lines
                .iter()
                .find(|l| l.starts_with(&format!("{name}\tKpn_pMCR_1511_KX377410")))
                .unwrap_or_else(|| panic!("{name} hit missing:\n{text}"))
                .split('\t')
                .collect()
        };
        let length = mcr.len();
        assert_eq!(
            row("whole")[6..],
            [format!("1-{length}").as_str(), "0"],
            "{engine}"
        );
        // A substitution at base 501 (1-based): every other base covered, a gap of k k-mers.
        assert_eq!(
            row("snp")[6..],
            [format!("1-500,502-{length}").as_str(), "31"]
        );
        // A truncated copy: covered up to where the gene stops, a long gap after.
        let cut = row("truncated");
        let gap: u64 = cut[7].parse().unwrap();
        assert!(gap > 250, "{cut:?}");
        assert!(cut[6].starts_with("1-120"), "{cut:?}");
    }
    // No true k-mer of a real hit is ever outside the covered intervals: check every gene
    // against every plasmid it hits, with brute force.
    let json = query_json(&index, &["--coverage"]);
    let plasmids: Vec<(String, Vec<Vec<u8>>)> = THREE
        .iter()
        .map(|f| {
            let recs = records(&plasmid(f));
            let name = f.trim_end_matches(".fa.gz").to_string();
            (name, recs.into_iter().map(|(_, s)| s).collect())
        })
        .collect();
    let mut checked = 0;
    for query in json["queries"].as_array().unwrap() {
        let gene = &genes
            .iter()
            .find(|(n, _)| n == query["query"].as_str().unwrap())
            .unwrap()
            .1;
        for hit in query["hits"].as_array().unwrap() {
            let terms = document_terms(
                &plasmids
                    .iter()
                    .find(|(n, _)| n == hit["document"].as_str().unwrap())
                    .unwrap()
                    .1,
                31,
                true,
            );
            let covered: Vec<(u64, u64)> = hit["coverage"]["intervals"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
                .collect();
            // True k-mers in runs longer than the island limit must lie inside an interval.
            let truth: Vec<bool> = gene
                .windows(31)
                .map(|w| terms.contains(&reference_term(w, true, false)))
                .collect();
            let mut at = 0;
            while at < truth.len() {
                let start = at;
                while at < truth.len() && truth[at] {
                    at += 1;
                }
                if at - start > bitsift::query::ISLAND_KMERS_MAX {
                    let (first, last) = (start as u64 + 1, at as u64 + 30);
                    assert!(
                        covered.iter().any(|&(s, e)| s <= first && last <= e),
                        "true stretch {first}-{last} of {} in {} not covered: {covered:?}",
                        query["query"],
                        hit["document"]
                    );
                    checked += 1;
                }
                at = at.max(start + 1);
            }
        }
    }
    assert!(checked >= 5, "checked {checked} stretches");
}
