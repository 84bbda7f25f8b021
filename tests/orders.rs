//! Document orders and block summaries through the binary: which documents share blocks,
//! the summaries file written beside the index, and every way that file can be wrong.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use bitsift::format::IndexHeader;
use bitsift::summary::{summary_path, BlockSummaries, SummaryError};
use common::*;

/// 24 genomes of three "species" (a 3 kb base each, a 300-base piece of their own per genome)
/// with two "clades" per species (1 % of positions changed), named so that file order
/// interleaves the species; and `metadata.tsv` (document, species, clade).
fn species_collection(dir: &Path) -> (PathBuf, PathBuf) {
    let mut rng = Rng(14);
    let bases: Vec<Vec<u8>> = (0..3).map(|_| rng.dna(3000)).collect();
    let inputs = dir.join("genomes");
    std::fs::create_dir_all(&inputs).unwrap();
    let mut table = String::from("genome\tspecies\tclade\n");
    for g in 0..24 {
        let species = g % 3;
        let clade = (g / 3) % 2;
        let mut sequence = bases[species].clone();
        for i in (clade * 7..sequence.len()).step_by(97) {
            sequence[i] = b"ACGT"[(sequence[i] as usize + 1) % 4];
        }
        sequence.extend(rng.dna(300));
        write_fasta(
            &inputs.join(format!("g{g:02}.fa")),
            &[(format!("g{g}"), sequence)],
        );
        table.push_str(&format!("g{g:02}\tsp{species}\tsp{species}_c{clade}\n"));
    }
    let metadata = dir.join("metadata.tsv");
    std::fs::write(&metadata, table).unwrap();
    (inputs, metadata)
}

fn build(index: &Path, inputs: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["build", "-q", "--force", "-o", index.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push(inputs.to_str().unwrap());
    run(&args)
}

fn build_ok(index: &Path, inputs: &Path, extra: &[&str]) -> IndexHeader {
    let output = build(index, inputs, extra);
    assert!(output.status.success(), "{extra:?}: {}", stderr(&output));
    IndexHeader::open(index).unwrap()
}

/// Species of the documents of each block.
fn block_species(header: &IndexHeader) -> Vec<BTreeSet<usize>> {
    header
        .blocks
        .iter()
        .map(|b| {
            (b.first_document..b.first_document + b.document_count)
                .map(|d| {
                    let name = header.names.get(d as usize).unwrap();
                    name.trim_start_matches('g').parse::<usize>().unwrap() % 3
                })
                .collect()
        })
        .collect()
}

#[test]
fn group_and_similarity_orders_keep_species_in_their_own_blocks() {
    let dir = temp_dir();
    let (inputs, metadata) = species_collection(dir.path());
    let index = dir.path().join("x.cobs_compact");
    let metadata = metadata.to_str().unwrap();
    // Page size 1: blocks of 8 genomes, so each species fills exactly one block.
    for order in ["group:species", "similarity"] {
        let mut extra = vec!["--page-size", "1", "--order", order];
        if order.starts_with("group") {
            extra.extend(["--metadata", metadata]);
        }
        let header = build_ok(&index, &inputs, &extra);
        let species = block_species(&header);
        assert_eq!(species.len(), 3);
        assert!(
            species.iter().all(|s| s.len() == 1),
            "{order}: each block holds one species: {species:?}"
        );
    }
    // Input order keeps the files' order, which interleaves the species.
    let header = build_ok(&index, &inputs, &["--page-size", "1", "--order", "input"]);
    let all = header.names.all().unwrap();
    let names: Vec<&str> = all.iter().collect();
    let expected: Vec<String> = (0..24).map(|g| format!("g{g:02}")).collect();
    assert_eq!(names, expected);
    assert!(block_species(&header).iter().all(|s| s.len() == 3));
    // Clades of a species are groups of four, packed two to a block without being cut.
    let header = build_ok(
        &index,
        &inputs,
        &[
            "--page-size",
            "1",
            "--order",
            "group:clade",
            "--metadata",
            metadata,
        ],
    );
    for block in &header.blocks {
        let names: Vec<&str> = (block.first_document..block.first_document + block.document_count)
            .map(|d| header.names.get(d as usize).unwrap())
            .collect();
        assert_eq!(names.len(), 8);
        for half in names.chunks(4) {
            let clade = |n: &str| {
                let g: usize = n.trim_start_matches('g').parse().unwrap();
                (g % 3, (g / 3) % 2)
            };
            assert!(half.iter().all(|n| clade(n) == clade(half[0])), "{names:?}");
        }
    }
}

#[test]
fn order_and_metadata_mistakes_get_one_clear_error() {
    let dir = temp_dir();
    let (inputs, metadata) = species_collection(dir.path());
    let index = dir.path().join("x.cobs_compact");
    let metadata_arg = metadata.to_str().unwrap();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["--order", "group:species"],
            vec!["--order group:species needs --metadata TSV"],
        ),
        (
            vec!["--metadata", metadata_arg],
            vec!["--metadata is read only by --order group:COLUMN (the order is size)"],
        ),
        (
            vec!["--order", "group:country", "--metadata", metadata_arg],
            vec![
                "metadata.tsv: no column \"country\"",
                "[\"species\", \"clade\"]",
            ],
        ),
        (
            vec!["--summary-bits-per-kmer", "0"],
            vec!["summary bits per k-mer 0 is out of range"],
        ),
    ];
    for (extra, needles) in cases {
        let output = build(&index, &inputs, &extra);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{extra:?}: {}",
            stderr(&output)
        );
        let text = stderr(&output);
        assert!(!text.contains("panicked"), "{text}");
        for needle in needles {
            assert!(text.contains(needle), "{extra:?}: {needle:?} not in {text}");
        }
        assert!(!index.exists(), "{extra:?}: nothing is written");
    }
    // A document missing from the table is named, with its file.
    let table = std::fs::read_to_string(&metadata).unwrap();
    let short: String = table
        .lines()
        .filter(|l| !l.starts_with("g17"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&metadata, short).unwrap();
    let output = build(
        &index,
        &inputs,
        &["--order", "group:species", "--metadata", metadata_arg],
    );
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("1 of 24 documents have no row, e.g. \"g17\" (from ")
            && text.contains("g17.fa)"),
        "{text}"
    );
    // Command-line mistakes are caught by the parser.
    for extra in [
        vec!["--order", "sizes"],
        vec!["--no-summaries", "--summary-bits-per-kmer", "2"],
    ] {
        let output = build(&index, &inputs, &extra);
        assert!(!output.status.success(), "{extra:?}");
        assert!(!stderr(&output).contains("panicked"));
    }
    let output = build(&index, &inputs, &["--order", "sizes"]);
    assert!(stderr(&output).contains("expected size, input, similarity or group:COLUMN"));
}

/// Files in `dir` whose names start with a dot (temporary files).
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn summaries_are_written_replaced_and_removed_with_their_index() {
    let dir = temp_dir();
    let (inputs, _) = species_collection(dir.path());
    let index = dir.path().join("x.cobs_compact");
    let sidecar = summary_path(&index);
    assert_eq!(
        sidecar.file_name().unwrap(),
        "x.cobs_compact.bitsift-summaries"
    );
    let header = build_ok(&index, &inputs, &["--page-size", "1"]);
    let summaries = BlockSummaries::load(&index, &header).unwrap().unwrap();
    assert_eq!(summaries.block_count(), 3);
    assert!(summaries.ram_bytes() > 0);
    // Format 2: a header page, then the filters in pages of 4 KiB, each with its checksum.
    let len = std::fs::metadata(&sidecar).unwrap().len();
    assert_eq!(len % 4096, 0);
    assert!(len >= summaries.ram_bytes() + 4096, "{len}");
    assert!(len <= 2 * summaries.ram_bytes() + 3 * 4096 * 2, "{len}");
    // Rebuilt in another order, the summaries follow the new index.
    let header = build_ok(
        &index,
        &inputs,
        &["--page-size", "1", "--order", "similarity"],
    );
    assert!(BlockSummaries::load(&index, &header).unwrap().is_some());
    // Without summaries, a stale file is removed.
    let header = build_ok(&index, &inputs, &["--page-size", "1", "--no-summaries"]);
    assert!(!sidecar.exists());
    assert!(BlockSummaries::load(&index, &header).unwrap().is_none());
    // A RAM cap halves the filters until they fit.
    let header = build_ok(
        &index,
        &inputs,
        &["--page-size", "1", "--summary-max-ram", "64"],
    );
    let summaries = BlockSummaries::load(&index, &header).unwrap().unwrap();
    assert!(summaries.ram_bytes() <= 64, "{}", summaries.ram_bytes());
    assert!(temporaries(dir.path()).is_empty());
    // A build that fails keeps the index and its summaries as they were.
    let before = (
        std::fs::read(&index).unwrap(),
        std::fs::read(&sidecar).unwrap(),
    );
    let output = build(
        &index,
        &inputs,
        &["--order", "group:species", "--metadata", "/nonexistent.tsv"],
    );
    assert!(stderr(&output).contains("nonexistent.tsv: cannot read the metadata table"));
    assert_eq!(
        (
            std::fs::read(&index).unwrap(),
            std::fs::read(&sidecar).unwrap()
        ),
        before
    );
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn damaged_or_foreign_summaries_are_refused_with_a_reason() {
    let dir = temp_dir();
    let (inputs, metadata) = species_collection(dir.path());
    let a = dir.path().join("a.cobs_compact");
    let b = dir.path().join("b.cobs_compact");
    let header_a = build_ok(&a, &inputs, &["--page-size", "1"]);
    // Same documents and geometry, another order: only the fingerprint tells them apart.
    let header_b = build_ok(
        &b,
        &inputs,
        &[
            "--page-size",
            "1",
            "--order",
            "group:species",
            "--metadata",
            metadata.to_str().unwrap(),
        ],
    );
    let good = std::fs::read(summary_path(&a)).unwrap();
    let load_a = || BlockSummaries::load(&a, &header_a);
    let expect = |result: Result<Option<BlockSummaries>, SummaryError>, needles: &[&str]| {
        let text = result.unwrap_err().to_string();
        for needle in needles {
            assert!(text.contains(needle), "{needle:?} not in {text}");
        }
    };
    // One flipped bit in the middle of the filters.
    let mut damaged = good.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 4;
    std::fs::write(summary_path(&a), &damaged).unwrap();
    expect(
        load_a(),
        &[
            "a.cobs_compact.bitsift-summaries: damaged block summaries: checksum mismatch in page",
            "delete the file",
        ],
    );
    std::fs::write(summary_path(&a), &good[..good.len() - 3]).unwrap();
    expect(load_a(), &["damaged block summaries: truncated"]);
    std::fs::write(summary_path(&a), b"not summaries at all, just text").unwrap();
    expect(
        load_a(),
        &["damaged block summaries: not a bitsift summaries file"],
    );
    // b's summaries beside a.
    std::fs::copy(summary_path(&b), summary_path(&a)).unwrap();
    expect(
        load_a(),
        &[
            "do not match the index",
            "a.cobs_compact",
            "order",
            "another build",
        ],
    );
    // Summaries of a build with another geometry or k.
    let c = dir.path().join("c.cobs_compact");
    build_ok(&c, &inputs, &["--page-size", "2"]);
    std::fs::copy(summary_path(&c), summary_path(&a)).unwrap();
    expect(
        load_a(),
        &["the number of blocks is 2 in the summaries but 3 in the index"],
    );
    build_ok(&c, &inputs, &["--page-size", "1", "-k", "25"]);
    std::fs::copy(summary_path(&c), summary_path(&a)).unwrap();
    expect(load_a(), &["k is 25 in the summaries but 31 in the index"]);
    // Restored, they load again; removed, there are none.
    std::fs::write(summary_path(&a), &good).unwrap();
    assert!(load_a().unwrap().is_some());
    let info = run(&["info", "--json", a.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(json["summaries"]["bytes"], good.len() as u64);
    assert_eq!(json["summaries"]["format"], 2);
    assert_eq!(json["summaries"]["resident_bytes"], 4096);
    assert_eq!(json["summaries"]["bits_set_per_kmer"], 3);
    assert!(BlockSummaries::load(&b, &header_b).unwrap().is_some());
    std::fs::remove_file(summary_path(&a)).unwrap();
    assert!(load_a().unwrap().is_none());
    let info = run(&["info", a.to_str().unwrap()]);
    assert!(stdout(&info).contains("block summaries  none"));
}

/// A small tmpfs, unmounted when dropped.
struct SmallDisk(PathBuf);

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).output();
    }
}

#[test]
fn a_disk_too_full_for_the_summaries_fails_the_build_and_leaves_nothing() {
    let dir = temp_dir();
    let at = dir.path().join("small_disk");
    std::fs::create_dir_all(&at).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(&at)
        .output()
        .is_ok_and(|o| o.status.success());
    if !mounted {
        eprintln!("SKIPPED a_disk_too_full_for_the_summaries_fails_the_build_and_leaves_nothing: cannot mount a tmpfs here (not root?)");
        return;
    }
    let disk = SmallDisk(at);
    // 40 unrelated documents of 20 kb in blocks of 8: the index takes ~300 KB, the summaries
    // at 64 bits per k-mer several MB.
    let mut rng = Rng(3);
    let inputs = dir.path().join("unrelated");
    std::fs::create_dir_all(&inputs).unwrap();
    for d in 0..40 {
        write_fasta(
            &inputs.join(format!("u{d:02}.fa")),
            &[(format!("u{d}"), rng.dna(20_000))],
        );
    }
    let index = disk.0.join("x.cobs_compact");
    let output = build(
        &index,
        &inputs,
        &["--page-size", "1", "--summary-bits-per-kmer", "64"],
    );
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("x.cobs_compact.bitsift-summaries: the disk is full"),
        "{text}"
    );
    let left: Vec<_> = std::fs::read_dir(&disk.0).unwrap().collect();
    assert!(left.is_empty(), "nothing may remain: {left:?}");
}

/// Hits and per-query stats of `bitsift query --format json` (documents per query, blocks
/// ruled out in all).
fn query_json(index: &Path, queries: &Path, extra: &[&str]) -> (Vec<Vec<(String, u64)>>, u64) {
    let mut args = vec![
        "query",
        "-q",
        "-i",
        index.to_str().unwrap(),
        "-f",
        queries.to_str().unwrap(),
        "-t",
        "0.8",
        "--raw-threshold",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let output = run(&args);
    assert!(output.status.success(), "{extra:?}: {}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut ruled_out = 0;
    let hits = json["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            ruled_out += q["stats"]["blocks_ruled_out"].as_u64().unwrap();
            q["hits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| {
                    let document = h["document"].as_str().unwrap().to_string();
                    (document, h["kmers_found"].as_u64().unwrap())
                })
                .collect()
        })
        .collect();
    (hits, ruled_out)
}

/// Issue 14 through the command line: with species in their own blocks, a species' gene
/// rules out the other species' blocks; every hit is one the full search makes, with its
/// score, and every genome holding the gene is found; `--format cobs` reads every block; a
/// damaged summaries file is reported and the index searched in full; collections use the
/// summaries of their sub-indexes too.
#[test]
fn queries_skip_the_blocks_their_summaries_rule_out() {
    let dir = temp_dir();
    let (inputs, metadata) = species_collection(dir.path());
    let index = dir.path().join("grouped.cobs_compact");
    let group = [
        "--page-size",
        "1",
        "--order",
        "group:species",
        "--metadata",
        metadata.to_str().unwrap(),
    ];
    build_ok(&index, &inputs, &group);
    // One 600-base query from each species' shared base (g0, g1, g2 are species 0, 1, 2).
    let mut queries = Vec::new();
    for g in 0..3 {
        let text = std::fs::read_to_string(inputs.join(format!("g{g:02}.fa"))).unwrap();
        let sequence: String = text.lines().skip(1).collect();
        queries.push((format!("sp{g}"), sequence.as_bytes()[1000..1600].to_vec()));
    }
    let genes = dir.path().join("genes.fa");
    write_fasta(&genes, &queries);
    let (with, ruled_out) = query_json(&index, &genes, &[]);
    let (without, none) = query_json(&index, &genes, &["--no-summaries"]);
    // 3 blocks of 8 genomes, one species each: each gene rules out the 2 other blocks.
    assert_eq!((ruled_out, none), (6, 0));
    for (q, (hits, all)) in with.iter().zip(&without).enumerate() {
        for hit in hits {
            assert!(all.contains(hit), "query {q}: {hit:?} not in {all:?}");
        }
        // The genomes of the query's clade (4 of its species' 8) hold the whole query; the
        // full search finds nothing more in the species' own block.
        let species = |d: &str| d.trim_start_matches('g').parse::<usize>().unwrap() % 3;
        let own: Vec<_> = all.iter().filter(|(d, _)| species(d) == q).collect();
        assert!(own.len() >= 4, "query {q}: {all:?}");
        for hit in own {
            assert!(
                hits.contains(hit),
                "query {q}: {hit:?} missing from {hits:?}"
            );
        }
    }
    let cobs = run(&[
        "query",
        "-q",
        "-i",
        index.to_str().unwrap(),
        "-f",
        genes.to_str().unwrap(),
        "--format",
        "cobs",
    ]);
    let cobs_exact = run(&[
        "query",
        "-q",
        "-i",
        index.to_str().unwrap(),
        "-f",
        genes.to_str().unwrap(),
        "--format",
        "cobs",
        "--no-summaries",
    ]);
    assert_eq!(
        cobs.stdout, cobs_exact.stdout,
        "--format cobs reads every block"
    );
    // A damaged summaries file: said once, and the index is read in full.
    let path = summary_path(&index);
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let output = run(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-f",
        genes.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    // Format 2: only the damaged page is not trusted; its k-mers count as present in every
    // block, which costs reads, never a hit.
    assert!(
        stderr(&output).contains("bitsift-summaries: damaged page at offset")
            && stderr(&output).contains("its blocks are read for the k-mers it holds"),
        "{}",
        stderr(&output)
    );
    let (damaged, ruled_out) = query_json(&index, &genes, &[]);
    assert!(ruled_out <= 6);
    for (q, ((hits, intact), all)) in damaged.iter().zip(&with).zip(&without).enumerate() {
        for hit in intact {
            assert!(
                hits.contains(hit),
                "query {q}: {hit:?} lost with a damaged page"
            );
        }
        for hit in hits {
            assert!(
                all.contains(hit),
                "query {q}: {hit:?} not a hit of the full search"
            );
        }
    }
    // A summaries file that does not even open is not used at all.
    bytes[20] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let output = run(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-f",
        genes.to_str().unwrap(),
    ]);
    assert!(
        stderr(&output).contains("searched without its block summaries"),
        "{}",
        stderr(&output)
    );
    let (unused, ruled_out) = query_json(&index, &genes, &[]);
    assert_eq!((&unused, ruled_out), (&without, 0));
    // A collection built with the same order uses its sub-index's summaries.
    let collection = dir.path().join("collection");
    let mut args = vec!["add", "-q", collection.to_str().unwrap()];
    args.extend_from_slice(&group);
    args.push(inputs.to_str().unwrap());
    let output = run(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let (in_collection, ruled_out) = query_json(&collection, &genes, &[]);
    assert_eq!((in_collection, ruled_out), (with, 6));
}

/// Indexes written by earlier versions keep working: their format-1 summaries are read whole
/// (within the side memory budget) and rule blocks out as before; a budget too small for
/// them says so, and the index is searched in full.
#[test]
fn summaries_of_an_earlier_version_are_still_used() {
    let dir = temp_dir();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format1");
    for name in [
        "species.cobs_compact",
        "species.cobs_compact.bitsift-checksums",
        "species.cobs_compact.bitsift-summaries",
        "genes.fa",
    ] {
        std::fs::copy(fixture.join(name), dir.path().join(name)).unwrap();
    }
    let index = dir.path().join("species.cobs_compact");
    let genes = dir.path().join("genes.fa");
    let (with, ruled_out) = query_json(&index, &genes, &[]);
    let (without, none) = query_json(&index, &genes, &["--no-summaries"]);
    assert_eq!(
        (ruled_out, none),
        (6, 0),
        "each gene rules out the two other species"
    );
    for (hits, all) in with.iter().zip(&without) {
        assert!(hits.len() >= 7, "{hits:?}");
        for hit in hits {
            assert!(all.contains(hit), "{hit:?}");
        }
    }
    let info = run(&["info", "--json", index.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(json["summaries"]["format"], 1);
    let small = run(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-f",
        genes.to_str().unwrap(),
        "--side-memory",
        "1K",
    ]);
    assert!(
        stderr(&small).contains("do not fit the side memory budget"),
        "{}",
        stderr(&small)
    );
    let (full, none) = query_json(&index, &genes, &["--side-memory", "1K"]);
    assert_eq!((&full, none), (&without, 0));
}
