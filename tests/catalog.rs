//! Issue 32: an index opened through its catalog (`INDEX.bitsift-catalog`) reads its header's
//! fixed fields, not its names, and answers exactly as the same index read whole; a catalog
//! that does not match its index is passed over with a warning, and a name changed since the
//! catalog was written is an error naming both, never a wrong name.

mod common;

use std::path::{Path, PathBuf};

use bitsift::format::IndexHeader;
use common::*;

/// The catalog beside `index`.
fn catalog_path(index: &Path) -> PathBuf {
    PathBuf::from(format!("{}.bitsift-catalog", index.display()))
}

/// Documents of the test index: three pages of names (1,024 a page), 235 KB of names (a
/// smaller names section is read whole with the header, catalog or not).
const GENOMES: usize = 2_100;
const GENOME_BASES: usize = 400;

/// Bases of genome `number`, from a generator of its own.
fn genome(number: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (number as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
    (0..GENOME_BASES)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            b"ACGT"[(state >> 33) as usize % 4]
        })
        .collect()
}

/// The name of genome `number`: `g0000_xxx…`, 111 bytes.
fn name(number: usize) -> String {
    format!("g{number:04}_{}", "x".repeat(106))
}

/// An index of [`GENOMES`] genomes named by [`name`], built in `dir`.
fn index_of_many(dir: &Path) -> PathBuf {
    let genomes = dir.join("genomes");
    std::fs::create_dir_all(&genomes).unwrap();
    for number in 0..GENOMES {
        let name = name(number);
        write_fasta(
            &genomes.join(format!("{name}.fa")),
            &[(name, genome(number))],
        );
    }
    let index = dir.join("many.cobs_compact");
    ok(run(&["build", "-q", "-o", text(&index), text(&genomes)]));
    index
}

/// Queries: 120 bases of genomes on each page of names.
fn queries(dir: &Path) -> PathBuf {
    let path = dir.join("queries.fa");
    let records: Vec<(String, Vec<u8>)> = [3, 1100, 1500, 2099]
        .iter()
        .map(|&n| (format!("q{n}"), genome(n)[100..220].to_vec()))
        .collect();
    write_fasta(&path, &records);
    path
}

/// A query of `queries` at threshold 0.9, with the default output and warnings.
fn query(index: &Path, queries: &Path) -> std::process::Output {
    run(&["query", "-i", text(index), "-f", text(queries), "-t", "0.9"])
}

/// The answer in `format`; for JSON, each query's hits only (its statistics hold times).
fn answer(index: &Path, queries: &Path, format: &str) -> String {
    let args = [
        "query",
        "-q",
        "-i",
        text(index),
        "-f",
        text(queries),
        "-t",
        "0.9",
    ];
    let text = stdout(&ok(run(&[&args[..], &["--format", format]].concat())));
    if format != "json" {
        return text;
    }
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let queries = json["queries"].as_array().unwrap();
    let hits: Vec<&serde_json::Value> = queries.iter().map(|q| &q["hits"]).collect();
    serde_json::to_string(&hits).unwrap()
}

#[test]
fn i32_an_index_opens_through_its_catalog_and_answers_as_one_read_whole() {
    let dir = temp_dir();
    let index = index_of_many(dir.path());
    let queries = queries(dir.path());
    let catalog = catalog_path(&index);
    assert!(catalog.is_file(), "a build writes the catalog");
    let size = std::fs::metadata(&catalog).unwrap().len();
    assert!(size < 1_000, "three pages: {size} bytes");
    let paged = IndexHeader::open(&index).unwrap();
    assert_eq!(paged.document_count(), GENOMES as u64);
    assert_eq!(paged.names.get(1500).unwrap(), name(1500));

    let with: Vec<String> = ["tsv", "json", "matrix"]
        .iter()
        .map(|format| answer(&index, &queries, format))
        .collect();
    for n in [3, 1100, 1500, 2099] {
        assert!(
            with[0].contains(&format!("q{n}\t{}\t", name(n))),
            "{}",
            with[0]
        );
    }
    let info = stdout(&ok(run(&["info", "--documents", text(&index)])));

    std::fs::remove_file(&catalog).unwrap();
    let whole = IndexHeader::open(&index).unwrap();
    assert_eq!(whole.header_crc32c, paged.header_crc32c);
    assert_eq!(whole.names.placeholders(), paged.names.placeholders());
    for (format, expected) in ["tsv", "json", "matrix"].iter().zip(&with) {
        assert_eq!(&answer(&index, &queries, format), expected, "{format}");
    }
    assert_eq!(
        stdout(&ok(run(&["info", "--documents", text(&index)]))),
        info
    );

    let written = stdout(&ok(run(&["checksum", text(&index)])));
    assert!(written.contains("checksums up to date"), "{written}");
    assert!(
        catalog.is_file(),
        "checksum writes the catalog of an index without one"
    );
}

#[test]
fn i32_a_catalog_that_does_not_match_its_index_is_passed_over_or_an_error_never_a_wrong_name() {
    let dir = temp_dir();
    let index = index_of_many(dir.path());
    let queries = queries(dir.path());
    let expected = answer(&index, &queries, "tsv");
    let catalog = catalog_path(&index);
    let good = std::fs::read(&catalog).unwrap();

    // A damaged catalog: a warning, and the header read whole.
    let mut damaged = good.clone();
    damaged[30] ^= 1;
    std::fs::write(&catalog, &damaged).unwrap();
    let output = ok(query(&index, &queries));
    assert!(
        stderr(&output).contains("not a valid bitsift catalog"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).contains(&format!("q1500\t{}\t", name(1500))));

    // The catalog of another index (another size): the same.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let small = other.join("small.cobs_compact");
    let genome_file = other.join("x.fa");
    write_fasta(&genome_file, &[("x".to_string(), genome(7))]);
    ok(run(&[
        "build",
        "-q",
        "-o",
        text(&small),
        text(&genome_file),
    ]));
    std::fs::copy(catalog_path(&small), &catalog).unwrap();
    let output = ok(query(&index, &queries));
    assert!(stderr(&output).contains("reading the document names from the header"));
    assert_eq!(
        answer(&index, &queries, "tsv"),
        expected,
        "answers as without a catalog"
    );

    // A name changed in place after the catalog was written: the page that holds it is
    // refused, naming the index and the catalog.
    std::fs::write(&catalog, &good).unwrap();
    let mut bytes = std::fs::read(&index).unwrap();
    let at = bytes.windows(6).position(|w| w == b"g1500_").unwrap();
    bytes[at] = b'h';
    std::fs::write(&index, &bytes).unwrap();
    let error = failed(query(&index, &queries));
    assert!(
        error.contains(&format!("{}: invalid header", index.display()))
            && error.contains("not the ones its catalog")
            && error.contains("bitsift checksum"),
        "{error}"
    );
    assert!(!error.contains("h1500_"));
}

/// The padding and end magic after the names are not read through a catalog (a remote open
/// would pay a round trip for them): the catalog binds the file by its size, its header before
/// the names and each names page. Damage there changes no answer; `verify`, which reads the
/// header whole, still reports it, and so does an open without the catalog.
#[test]
fn i32_the_end_of_a_catalogued_header_is_not_read_and_verify_still_checks_it() {
    let dir = temp_dir();
    let index = index_of_many(dir.path());
    let queries = queries(dir.path());
    let expected = answer(&index, &queries, "tsv");
    let header = IndexHeader::open(&index).unwrap();
    let mut bytes = std::fs::read(&index).unwrap();
    let magic_at = header.data_offset as usize - 13;
    bytes[magic_at] ^= 0x20;
    std::fs::write(&index, &bytes).unwrap();

    assert_eq!(answer(&index, &queries, "tsv"), expected);
    let output = run(&["verify", text(&index)]);
    let said = format!("{}{}", stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("does not end with"), "{said}");
    std::fs::remove_file(catalog_path(&index)).unwrap();
    let error = failed(query(&index, &queries));
    assert!(error.contains("does not end with"), "{error}");
}
