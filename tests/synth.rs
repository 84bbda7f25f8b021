//! `bitsift synth`: synthetic indexes have the geometry `bitsift build` would give genomes of
//! the drawn sizes, the Bloom fill of each document, deterministic bytes, and they are
//! searched by bitsift and by COBS alike.

mod common;

use std::path::{Path, PathBuf};

use bitsift::builder::layout::rows_for;
use bitsift::format::IndexHeader;
use bitsift::synth::{genome_sizes, SynthOptions};
use common::*;

/// One synth invocation: the CLI arguments and the library options they stand for.
#[derive(Clone, Debug)]
struct Case {
    documents: u64,
    genome_size: u64,
    page_size: Option<u64>,
    hashes: u32,
    fpr: f64,
    scale: f64,
    seed: u64,
    /// `--layout`.
    layout: &'static str,
}

impl Case {
    fn new(documents: u64, genome_size: u64) -> Case {
        Case {
            documents,
            genome_size,
            page_size: None,
            hashes: 1,
            fpr: 0.3,
            scale: 1.0,
            seed: 1,
            layout: "minimizer",
        }
    }

    fn args(&self, output: &Path) -> Vec<String> {
        let mut args: Vec<String> = [
            "synth",
            "-q",
            "-o",
            output.to_str().unwrap(),
            "--documents",
            &self.documents.to_string(),
            "--genome-size",
            &self.genome_size.to_string(),
            "--hashes",
            &self.hashes.to_string(),
            "--fpr",
            &self.fpr.to_string(),
            "--scale",
            &self.scale.to_string(),
            "--seed",
            &self.seed.to_string(),
            "--layout",
            self.layout,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if let Some(page_size) = self.page_size {
            args.push("--page-size".into());
            args.push(page_size.to_string());
        }
        args
    }

    /// Writes the index, asserting success.
    fn write(&self, output: &Path) {
        let args = self.args(output);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let result = run(&args);
        assert!(result.status.success(), "{self:?}: {}", stderr(&result));
        assert!(stderr(&result).is_empty(), "-q: {}", stderr(&result));
    }

    /// The genome sizes the library draws for these options, in index order.
    fn sizes(&self) -> Vec<u64> {
        genome_sizes(&SynthOptions {
            documents: self.documents,
            genome_size: self.genome_size,
            scale: self.scale,
            seed: self.seed,
            ..SynthOptions::default()
        })
    }
}

/// k-mer positions of a genome, written again here: `size − 31 + 1`, or 0.
fn kmers(size: u64) -> u64 {
    size.saturating_sub(30)
}

/// Whether bit `document` of a row is set.
fn bit(row: &[u8], document: u64) -> bool {
    row[(document / 8) as usize] >> (document % 8) & 1 == 1
}

#[test]
fn geometry_is_what_the_builder_would_give_the_drawn_genomes() {
    let dir = temp_dir();
    let cases = [
        // P = 16 by default (100 documents): one block.
        Case::new(100, 20_000),
        // 1000 documents in blocks of 64, three hashes, another fpr, half scale.
        Case {
            page_size: Some(8),
            hashes: 3,
            fpr: 0.1,
            scale: 0.5,
            ..Case::new(1000, 30_000)
        },
        // A page size that is no power of two; documents shorter than k after scaling.
        Case {
            page_size: Some(20),
            hashes: 2,
            fpr: 0.2,
            scale: 0.01,
            seed: 9,
            ..Case::new(500, 5_000)
        },
        // 4096-byte rows: one partial block, data section 4 KiB-aligned.
        Case {
            page_size: Some(4096),
            scale: 0.25,
            ..Case::new(300, 4_000)
        },
    ];
    for (number, case) in cases.iter().enumerate() {
        let path = dir.path().join(format!("g{number}.cobs_compact"));
        case.write(&path);
        let header = IndexHeader::open(&path).unwrap_or_else(|e| panic!("{case:?}: {e}"));
        let page_size = case.page_size.unwrap_or_else(|| {
            case.documents
                .div_ceil(8)
                .next_power_of_two()
                .clamp(8, 4096)
        });
        let per_block = 8 * page_size;
        assert_eq!(header.page_size, page_size, "{case:?}");
        assert_eq!(header.num_hashes, case.hashes);
        assert_eq!(header.k, 31);
        assert_eq!(header.document_count(), case.documents);
        assert_eq!(
            header.blocks.len() as u64,
            case.documents.div_ceil(per_block),
            "{case:?}"
        );
        assert_eq!(
            header.names.all().unwrap().iter().next(),
            Some("synth_0000001")
        );
        let sizes = case.sizes();
        assert_eq!(sizes.len() as u64, case.documents);
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "sorted by size");
        for (b, block) in header.blocks.iter().enumerate() {
            let first = b as u64 * per_block;
            assert_eq!(block.first_document, first);
            assert_eq!(block.document_count, per_block.min(case.documents - first));
            let largest = sizes[first as usize..(first + block.document_count) as usize]
                .iter()
                .map(|&s| kmers(s))
                .max()
                .unwrap();
            // Whole ranges of the minimizer layout: 16 rows, or a 4 KiB page of narrow rows.
            let range_rows = (4096u64.div_ceil(page_size))
                .next_power_of_two()
                .clamp(16, 1024);
            assert_eq!(header.rows.range_rows(), range_rows, "{case:?}");
            assert_eq!(
                block.row_count,
                rows_for(largest, case.hashes, case.fpr).next_multiple_of(range_rows),
                "{case:?} block {b}"
            );
        }
        assert!(header
            .blocks
            .windows(2)
            .all(|w| w[0].row_count <= w[1].row_count));
        let rows: u64 = header.blocks.iter().map(|b| b.row_count).sum();
        assert_eq!(header.data_offset % page_size, 0);
        if page_size == 4096 {
            assert_eq!(header.data_offset % 4096, 0);
            // Every row starts on a 4 KiB boundary (one row = one aligned page read).
            assert!(header.data_offset % 4096 == 0 && header.page_size % 4096 == 0);
        }
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            header.data_offset + page_size * rows
        );
    }
}

#[test]
fn every_document_has_the_fill_of_its_bloom_filter() {
    let dir = temp_dir();
    // 200 documents with 16-byte rows: blocks of 128, the second one partial.
    let case = Case {
        page_size: Some(16),
        hashes: 2,
        ..Case::new(200, 60_000)
    };
    let path = dir.path().join("density.cobs_compact");
    case.write(&path);
    let header = IndexHeader::open(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let sizes = case.sizes();
    for block in &header.blocks {
        let rows = block.row_count;
        let data = &bytes[block.data_offset as usize..][..(rows * block.row_bytes) as usize];
        let fill = |document: u64| {
            let n = kmers(sizes[document as usize]) as f64;
            1.0 - (-(case.hashes as f64) * n / rows as f64).exp()
        };
        // Whole block: set bits over all 8P columns against the mean expected fill.
        let expected: f64 = (block.first_document..block.first_document + block.document_count)
            .map(fill)
            .sum::<f64>()
            / (8 * block.row_bytes) as f64;
        let set: u64 = data.iter().map(|b| b.count_ones() as u64).sum();
        let measured = set as f64 / (8 * data.len()) as f64;
        assert!(
            (measured - expected).abs() < 0.005,
            "block at {}: measured fill {measured}, expected {expected}",
            block.data_offset
        );
        // Per document: each column within 5 sigma (plus the 1/512 of quantisation).
        for local in 0..block.document_count {
            let p = fill(block.first_document + local);
            let ones = data
                .chunks_exact(block.row_bytes as usize)
                .filter(|row| bit(row, local))
                .count();
            let measured = ones as f64 / rows as f64;
            let sigma = (p * (1.0 - p) / rows as f64).sqrt();
            assert!(
                (measured - p).abs() <= 5.0 * sigma + 1.0 / 512.0,
                "document {}: measured {measured}, expected {p}",
                block.first_document + local
            );
        }
        // Columns beyond the last document stay zero.
        for row in data.chunks_exact(block.row_bytes as usize) {
            assert!((block.document_count..8 * block.row_bytes).all(|d| !bit(row, d)));
        }
    }
    // The largest document of a block has the fill fpr^(1/H) of a full Bloom filter
    // (about 0.548 for fpr 0.3 and two hashes).
    let last = header.blocks.last().unwrap();
    let largest = kmers(sizes[(last.first_document + last.document_count - 1) as usize]);
    let fill = 1.0 - (-2.0 * largest as f64 / last.row_count as f64).exp();
    assert!((fill - 0.3f64.sqrt()).abs() < 0.001, "{fill}");
}

#[test]
fn the_same_seed_gives_the_same_bytes_on_any_number_of_threads() {
    let dir = temp_dir();
    let case = Case {
        page_size: Some(64),
        ..Case::new(1500, 20_000)
    };
    let a = dir.path().join("a.cobs_compact");
    let b = dir.path().join("b.cobs_compact");
    let c = dir.path().join("c.cobs_compact");
    case.write(&a);
    // One thread instead of all: the chunks, hence the streams, do not depend on threads.
    let args = case.args(&b);
    let result = bitsift()
        .args(&args)
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert!(result.status.success(), "{}", stderr(&result));
    Case {
        seed: 2,
        ..case.clone()
    }
    .write(&c);
    let (a, b, c) = (
        std::fs::read(&a).unwrap(),
        std::fs::read(&b).unwrap(),
        std::fs::read(&c).unwrap(),
    );
    assert!(a == b, "same seed, different bytes");
    assert!(a != c, "different seeds, same bytes");
}

/// A random sequence of `length` bases.
fn random_sequence(rng: &mut Rng, length: usize) -> String {
    String::from_utf8(rng.dna(length)).unwrap()
}

#[test]
fn bitsift_query_reads_one_row_per_kmer_and_block() {
    let dir = temp_dir();
    let case = Case {
        page_size: Some(8),
        hashes: 2,
        ..Case::new(300, 10_000)
    };
    let path = dir.path().join("q.cobs_compact");
    case.write(&path);
    let blocks = IndexHeader::open(&path).unwrap().blocks.len() as u64;
    assert_eq!(blocks, 5);
    let sequence = random_sequence(&mut Rng(42), 100);
    let output = run(&[
        "query",
        "-i",
        path.to_str().unwrap(),
        "-t",
        "0",
        "--raw-threshold",
        "--format",
        "json",
        &sequence,
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let query = &json["queries"][0];
    let stats = &query["stats"];
    let kmers = stats["kmers"].as_u64().unwrap();
    let unique = stats["unique_kmers"].as_u64().unwrap();
    assert_eq!(kmers, 70);
    assert_eq!(unique, 70, "a random 100-mer repeats no 31-mer");
    assert_eq!(
        stats["row_reads_requested"].as_u64().unwrap(),
        blocks * unique * 2
    );
    assert_eq!(
        query["hits"].as_array().unwrap().len(),
        300,
        "-t 0 lists all"
    );
    // --stats prints the same accounting on standard error.
    let output = run(&["query", "-i", path.to_str().unwrap(), "--stats", &sequence]);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected = format!("row_reads_requested={}", blocks * 70 * 2);
    assert!(stderr(&output).contains(&expected), "{}", stderr(&output));
}

#[test]
fn cobs_reads_a_synth_index_with_bitsift_scores() {
    if !cobs_available() {
        return;
    }
    let dir = temp_dir();
    // Three blocks of 128 documents (the last one partial), two hashes.
    let case = Case {
        page_size: Some(16),
        hashes: 2,
        layout: "cobs",
        ..Case::new(300, 8_000)
    };
    let path = dir.path().join("cobs.cobs_compact");
    case.write(&path);
    let mut rng = Rng(7);
    let queries: Vec<(String, Vec<u8>)> = (0..6)
        .map(|q| (format!("q{q}"), rng.dna(31 + q * 7)))
        .collect();
    let query_file = dir.path().join("queries.fa");
    write_fasta(&query_file, &queries);
    let theirs = cobs_peer(&[
        "query",
        "-i",
        path.to_str().unwrap(),
        "-t",
        "0",
        "-f",
        query_file.to_str().unwrap(),
    ])
    .unwrap();
    let theirs = parse_scores(&stdout(&theirs));
    let ours = run(&[
        "query",
        "-i",
        path.to_str().unwrap(),
        "-t",
        "0",
        "--raw-threshold",
        "-f",
        query_file.to_str().unwrap(),
    ]);
    assert!(ours.status.success(), "{}", stderr(&ours));
    let ours = parse_bitsift_tsv(&stdout(&ours));
    assert_eq!(ours.len(), 6 * 300);
    assert_eq!(ours, theirs);
    assert!(ours.iter().any(|(_, _, score)| *score > 0));
}

/// Runs synth of 64 genomes of `genome_size` with `extra` arguments, expecting a failure.
fn refused(output: &Path, genome_size: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "synth",
        "-o",
        output.to_str().unwrap(),
        "--documents",
        "64",
        "--genome-size",
        genome_size,
    ];
    args.extend_from_slice(extra);
    let result = run(&args);
    assert_eq!(result.status.code(), Some(1), "{}", stderr(&result));
    stderr(&result)
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    entries
}

#[test]
fn refusals_name_the_file_and_the_problem() {
    let dir = temp_dir();
    let path = dir.path().join("r.cobs_compact");
    std::fs::write(&path, b"precious").unwrap();
    let message = refused(&path, "1000", &[]);
    assert_eq!(
        message.trim(),
        format!(
            "bitsift: {}: already exists; pass --force to overwrite it",
            path.display()
        )
    );
    assert_eq!(std::fs::read(&path).unwrap(), b"precious");

    for scale in ["0", "1.5", "-0.5", "nan"] {
        let fresh = dir.path().join("s.cobs_compact");
        let message = refused(&fresh, "1000", &[&format!("--scale={scale}")]);
        assert!(
            message.contains("--scale") && message.contains("out of range"),
            "{scale}: {message}"
        );
        assert_eq!(message.lines().count(), 1, "{message}");
    }

    // 64 genomes of 10^12 bases: petabytes, more than any test machine has free (in COBS's
    // layout: 4.8·10^12 rows a block are more than 13-mer minimizers can spread over ranges).
    let huge = dir.path().join("huge.cobs_compact");
    let message = refused(&huge, "1000000000000", &["--layout", "minimizer"]);
    assert!(
        message.contains("the minimizer layout does not fit: k = 31 has 13-mer minimizers"),
        "{message}"
    );
    let message = refused(&huge, "1000000000000", &["-q", "--layout", "cobs"]);
    assert!(message.contains("free"), "{message}");
    assert!(message.contains("--scale 0."), "{message}");
    assert!(message.starts_with(&format!("bitsift: {}: ", huge.display())));
    assert_eq!(message.lines().count(), 1, "{message}");
    // Nothing was left behind: neither the index nor a temporary file.
    assert_eq!(entries(dir.path()), vec![path.clone()]);

    // --force replaces the file with a valid index.
    let forced = run(&[
        "synth",
        "-q",
        "--force",
        "-o",
        path.to_str().unwrap(),
        "--documents",
        "64",
        "--genome-size",
        "1000",
    ]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    assert_eq!(IndexHeader::open(&path).unwrap().document_count(), 64);
}

#[test]
fn the_plan_and_summary_say_what_a_query_costs() {
    let dir = temp_dir();
    let path = dir.path().join("p.cobs_compact");
    let output = run(&[
        "synth",
        "-o",
        path.to_str().unwrap(),
        "--documents",
        "1000",
        "--genome-size",
        "2k",
        "--page-size",
        "16",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stderr(&output);
    // 1000 documents in blocks of 128: 8 blocks; a 1 kb gene has 970 31-mers.
    assert!(text.contains("8 blocks of 128 documents"), "{text}");
    assert!(text.contains("a query reads 8 rows per k-mer"), "{text}");
    assert!(text.contains("970 k-mers, 7760 row reads"), "{text}");
    assert!(text.contains("bitsift: synthesized"), "{text}");
    assert!(text.contains("MB/s"), "{text}");
    // --dry-run prints the plan and writes nothing.
    let dry = dir.path().join("dry.cobs_compact");
    let output = run(&[
        "synth",
        "--dry-run",
        "-o",
        dry.to_str().unwrap(),
        "--documents",
        "661405",
        "--genome-size",
        "5M",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("21 blocks of 32768 documents, 4096-byte rows"));
    assert!(!dry.exists());
}

#[test]
fn a_failed_write_leaves_nothing_behind() {
    let dir = temp_dir();
    let path = dir.path().join("big.cobs_compact");
    // A file size limit of 512 KiB (ulimit -f counts 1024-byte blocks) with SIGXFSZ ignored:
    // writes past it fail with EFBIG, as a full disk fails with ENOSPC.
    let script = format!(
        "trap '' XFSZ; ulimit -f 512; exec '{}' synth -q -o '{}' --documents 100 --genome-size 1M",
        env!("CARGO_BIN_EXE_bitsift"),
        path.display()
    );
    let output = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(
        message.starts_with(&format!("bitsift: {}: ", path.display()))
            && message.contains("the partial file was removed"),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}
