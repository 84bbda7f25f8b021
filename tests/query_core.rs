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
