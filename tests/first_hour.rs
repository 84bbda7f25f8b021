//! The first hour of a new user (issue 11), through the binary: input that is not DNA gets
//! an error rather than hits, one rule for case and whitespace, the right hint for common
//! mistakes, exit statuses with one meaning each, outputs that hold up in pipelines, and
//! messages in words.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

const PROTEIN: &str = "MKTLLILAVLAAVLAQPEFGHIKLMNPQRSTVWYMKTLLILAVL";

/// An index of two bundled plasmids and phage lambda.
fn small_index(dir: &Path) -> PathBuf {
    let index = dir.join("small.cobs_compact");
    let mut args = vec!["build".to_string(), "-q".into(), "-o".into()];
    args.push(index.display().to_string());
    for name in [
        "Kpn_pMCR_1511_KX377410.fa.gz",
        "Eco_pBK32602_KU295134.fa.gz",
        "Phage_lambda_NC_001416.fa.gz",
    ] {
        args.push(demo_file(&format!("genomes/{name}")).display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    index
}

/// The mcr-1.1 gene (first record of the bundled AMR genes), found whole in pMCR_1511.
fn mcr_gene() -> String {
    let text = std::fs::read_to_string(demo_file("queries/amr_genes.fa")).unwrap();
    text.lines()
        .skip(1)
        .take_while(|l| !l.starts_with('>'))
        .collect()
}

fn query(index: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["query", "-i", index.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args)
}

fn write_text(path: &Path, text: &str) -> PathBuf {
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// Standard output without its header line.
fn body(output: &Output) -> Vec<String> {
    stdout(output).lines().skip(1).map(str::to_string).collect()
}

fn assert_no_panic(output: &Output) {
    assert!(!stderr(output).contains("panicked"), "{}", stderr(output));
}

// ---------------------------------------------------------------------------------------
// Item 2: input that is not DNA
// ---------------------------------------------------------------------------------------

#[test]
fn protein_queries_get_an_error_not_hits() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let gene = mcr_gene();
    let mixed = write_text(
        &dir.path().join("mixed.fa"),
        &format!(">p1 a protein\n{PROTEIN}\n>mcr\n{gene}\n"),
    );
    let output = query(
        &index,
        &["-t", "0", "--raw-threshold", "-f", mixed.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains("mixed.fa: query \"p1\": not a nucleotide sequence: it looks like a protein ('L', 'I', 'Q', 'P', 'E', 'F' from position 4;"),
        "{text}"
    );
    assert!(
        text.contains("1 of 2 queries were not searched (1 not DNA); exit status 3"),
        "{text}"
    );
    let rows = body(&output);
    assert!(rows.iter().all(|r| !r.starts_with("p1\t")), "{rows:?}");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("mcr\tKpn_pMCR_1511_KX377410\t")),
        "{rows:?}"
    );

    let json = query(&index, &["--format", "json", "-f", mixed.to_str().unwrap()]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["queries"][0]["query"], "p1");
    assert_eq!(value["queries"][0]["status"], "skipped_not_dna");
    assert_eq!(value["queries"][1]["status"], "hit");

    let argument = query(&index, &[PROTEIN]);
    assert_eq!(argument.status.code(), Some(3));
    assert!(stderr(&argument).contains("looks like a protein"));
    assert_eq!(body(&argument), Vec::<String>::new());
}

#[test]
fn building_from_a_protein_fasta_fails_naming_file_and_record() {
    let dir = temp_dir();
    let d = dir.path();
    let gene = mcr_gene();
    let proteins = write_text(
        &d.join("proteins.fa"),
        &format!(">dna_first\n{gene}\n>p2 a protein\n{PROTEIN}\n"),
    );
    let out = d.join("out.cobs_compact");
    let output = run(&[
        "build",
        "-o",
        out.to_str().unwrap(),
        proteins.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_no_panic(&output);
    assert!(
        stderr(&output).contains(
            "proteins.fa: record 2 (\"p2\"): not a nucleotide sequence: it looks like a protein"
        ),
        "{}",
        stderr(&output)
    );
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("cobs_compact"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

// ---------------------------------------------------------------------------------------
// Item 3: one rule for case and whitespace
// ---------------------------------------------------------------------------------------

#[test]
fn case_whitespace_and_rna_read_as_the_same_bases() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let gene = mcr_gene();
    let upper = query(&index, &["-t", "0", "--raw-threshold", &gene]);
    assert!(upper.status.success(), "{}", stderr(&upper));
    let expected = body(&upper);
    assert!(expected[0].starts_with("query\tKpn_pMCR_1511_KX377410\t1596\t1596\t"));

    let lower = gene.to_ascii_lowercase();
    let spaced: String = gene
        .as_bytes()
        .chunks(60)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(" \n\t");
    let rna = lower.replace('t', "u");
    for (label, sequence) in [("lowercase", &lower), ("spaces", &spaced), ("rna", &rna)] {
        let output = query(&index, &["-t", "0", "--raw-threshold", sequence]);
        assert!(output.status.success(), "{label}: {}", stderr(&output));
        assert_eq!(body(&output), expected, "{label}");
        assert!(!stderr(&output).contains("warning"), "{}", stderr(&output));
    }
    let file = write_text(&dir.path().join("lower.fa"), &format!(">query\n{lower}\n"));
    let from_file = query(
        &index,
        &["-t", "0", "--raw-threshold", "-f", file.to_str().unwrap()],
    );
    assert_eq!(body(&from_file), expected, "a lowercase query file");

    // COBS's byte rule on request: lowercase reads as A, so the gene is not found whole.
    let cobs = query(
        &index,
        &["-t", "0", "--raw-threshold", "--cobs-bases", &lower],
    );
    assert!(cobs.status.success(), "{}", stderr(&cobs));
    assert_ne!(body(&cobs), expected);
    assert!(
        stderr(&cobs).contains("has lowercase bases, which the COBS rule reads as A"),
        "{}",
        stderr(&cobs)
    );
    let cobs_format = query(
        &index,
        &["-t", "0", "--raw-threshold", "--format", "cobs", &lower],
    );
    let folded = query(
        &index,
        &[
            "-t",
            "0",
            "--raw-threshold",
            "--format",
            "cobs",
            "--fold-case",
            &lower,
        ],
    );
    let upper_cobs = query(
        &index,
        &["-t", "0", "--raw-threshold", "--format", "cobs", &gene],
    );
    assert_ne!(stdout(&cobs_format), stdout(&upper_cobs));
    assert_eq!(stdout(&folded), stdout(&upper_cobs));
}

// ---------------------------------------------------------------------------------------
// Item 4: hints, repeated indexes, errors said once, thresholds, exit statuses
// ---------------------------------------------------------------------------------------

#[test]
fn a_file_name_where_the_sequence_goes_gets_a_hint() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    write_text(&dir.path().join("genes.fa"), ">g\nACGT\n");
    let output = bitsift()
        .current_dir(dir.path())
        .args(["query", "-i", index.to_str().unwrap(), "genes.fa"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "bitsift: \"genes.fa\" is a file, not a sequence: did you mean -f genes.fa?\n"
    );
    assert!(output.stdout.is_empty());
    let missing = query(&index, &["reads/sample.fq.gz"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("looks like a file name, not a sequence: did you mean -f reads/sample.fq.gz? (no such file exists)"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn an_index_given_twice_is_searched_once() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let gene = mcr_gene();
    let once = query(&index, &["-t", "0", "--raw-threshold", &gene]);
    let again = dir.path().join(".").join("small.cobs_compact");
    let twice = query(
        &index,
        &[
            "-i",
            again.to_str().unwrap(),
            "-t",
            "0",
            "--raw-threshold",
            &gene,
        ],
    );
    assert!(twice.status.success(), "{}", stderr(&twice));
    assert_eq!(
        stdout(&twice),
        stdout(&once),
        "no index column, no doubled hits"
    );
    assert!(
        stderr(&twice).contains("the same index as") && stderr(&twice).contains("searched once"),
        "{}",
        stderr(&twice)
    );
}

#[test]
fn os_errors_are_said_once() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let missing = dir.path().join("missing.cobs_compact");
    let nowhere = dir.path().join("no/such/dir/out.tsv");
    let cases: Vec<Vec<String>> = vec![
        vec![
            "query".into(),
            "-i".into(),
            missing.display().to_string(),
            "ACGT".into(),
        ],
        vec!["info".into(), missing.display().to_string()],
        vec![
            "query".into(),
            "-i".into(),
            index.display().to_string(),
            "-f".into(),
            "nope.fa".into(),
        ],
        vec![
            "query".into(),
            "-i".into(),
            index.display().to_string(),
            "--metadata".into(),
            "nope.tsv".into(),
            mcr_gene(),
        ],
        vec![
            "query".into(),
            "-i".into(),
            index.display().to_string(),
            "-o".into(),
            nowhere.display().to_string(),
            mcr_gene(),
        ],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = run(&args);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {text}");
        assert_eq!(text.matches("os error").count(), 1, "{args:?}: {text}");
        assert_eq!(text.lines().count(), 1, "{args:?}: {text}");
    }
}

#[test]
fn thresholds_out_of_range_are_usage_errors() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    for (value, needle) in [
        ("-1", "-1 is out of range"),
        ("-0.5", "-0.5 is out of range"),
        ("nan", "\"nan\" is not a number"),
        ("1.5", "1.5 is out of range"),
    ] {
        let output = query(&index, &["-t", value, "ACGT"]);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{value}: {text}");
        assert!(text.contains(needle), "{value}: {text}");
        assert!(text.contains("from 0 to 1"), "{value}: {text}");
        assert!(!text.contains("unexpected argument"), "{value}: {text}");
    }
}

#[test]
fn exit_statuses_have_one_meaning_each() {
    let help = run(&["--help"]);
    let text = stdout(&help);
    for line in [
        "Exit status:",
        "0  done",
        "1  failed",
        "2  usage",
        "3  partial",
    ] {
        assert!(text.contains(line), "--help lacks {line:?}: {text}");
    }
    // clap's usage errors and ours share 2; partial runs are 3, never 2.
    assert_eq!(run(&["query", "--no-such-flag"]).status.code(), Some(2));
    assert_eq!(run(&["build", "-l", "inputs.txt"]).status.code(), Some(2));
    assert_eq!(run(&["build", "-f", "0.3"]).status.code(), Some(2));
    let dir = temp_dir();
    let index = small_index(dir.path());
    assert_eq!(query(&index, &["ACGT"]).status.code(), Some(3));
    assert_eq!(query(&index, &[&mcr_gene()]).status.code(), Some(0));
}

// ---------------------------------------------------------------------------------------
// Item 5: outputs in pipelines
// ---------------------------------------------------------------------------------------

/// A named pipe at `path`.
fn fifo(path: &Path) -> PathBuf {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    path.to_path_buf()
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).unwrap().file_type().is_fifo()
}

#[test]
fn outputs_to_devices_and_pipes_are_written_not_replaced() {
    let dir = temp_dir();
    let d = dir.path();
    let index = small_index(d);
    // `-o /dev/stdout`, `-o >(gzip > hits.gz)`: a pipe gets the results and stays a pipe
    // (an atomic rename over it once replaced /dev/null with a file).
    let pipe = fifo(&d.join("hits.pipe"));
    let reader = std::thread::spawn({
        let pipe = pipe.clone();
        move || std::fs::read_to_string(pipe).unwrap()
    });
    let output = query(&index, &["-o", pipe.to_str().unwrap(), &mcr_gene()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let written = reader.join().unwrap();
    assert!(
        written.starts_with("query\tdocument\t") && written.contains("Kpn_pMCR_1511_KX377410"),
        "{written}"
    );
    assert!(is_fifo(&pipe));
    // A build cannot be renamed onto a pipe: refused even with --force, and the pipe stays.
    let genome = demo_file("genomes/Phage_lambda_NC_001416.fa.gz");
    let output = run(&[
        "build",
        "-q",
        "--force",
        "-o",
        pipe.to_str().unwrap(),
        genome.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("is not a regular file"),
        "{}",
        stderr(&output)
    );
    assert!(is_fifo(&pipe));
    assert_no_panic(&output);
}

#[test]
fn failed_runs_write_no_header_and_no_output_file() {
    let dir = temp_dir();
    let d = dir.path();
    let index = small_index(d);
    let output = query(&index, &["-f", d.join("missing.fa").to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "{}", stdout(&output));

    // The first record is searched (batches of 1), then the file turns out malformed.
    let gene = mcr_gene();
    let quality = "I".repeat(gene.len());
    let broken = write_text(
        &d.join("broken.fq"),
        &format!("@r1\n{gene}\n+\n{quality}\n@r2\nACGTACGT\n+\nII\n"),
    );
    let out = write_text(&d.join("hits.tsv"), "an earlier result\n");
    let output = query(
        &index,
        &[
            "--batch",
            "1",
            "-o",
            out.to_str().unwrap(),
            "-f",
            broken.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("broken.fq: malformed FASTQ"));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "an earlier result\n"
    );
    let names = |d: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names(d),
        [
            "broken.fq",
            "hits.tsv",
            "small.cobs_compact",
            "small.cobs_compact.bitsift-build",
            "small.cobs_compact.bitsift-build-documents",
            "small.cobs_compact.bitsift-catalog",
            "small.cobs_compact.bitsift-checksums",
            "small.cobs_compact.bitsift-ones",
            "small.cobs_compact.bitsift-summaries"
        ]
    );

    let good = write_text(&d.join("good.fa"), &format!(">mcr\n{gene}\n"));
    let output = query(
        &index,
        &["-o", out.to_str().unwrap(), "-f", good.to_str().unwrap()],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.starts_with("query\tdocument\t")
            && written.contains("mcr\tKpn_pMCR_1511_KX377410\t1596\t1596\t1.0000"),
        "{written}"
    );
    assert_eq!(
        names(d),
        [
            "broken.fq",
            "good.fa",
            "hits.tsv",
            "small.cobs_compact",
            "small.cobs_compact.bitsift-build",
            "small.cobs_compact.bitsift-build-documents",
            "small.cobs_compact.bitsift-catalog",
            "small.cobs_compact.bitsift-checksums",
            "small.cobs_compact.bitsift-ones",
            "small.cobs_compact.bitsift-summaries"
        ]
    );
}

#[test]
fn report_misses_tells_not_found_from_not_searched() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let gene = mcr_gene();
    let absent = String::from_utf8(Rng(11).dna(300)).unwrap();
    let queries = write_text(
        &dir.path().join("q.fa"),
        &format!(">found\n{gene}\n>absent\n{absent}\n>tiny\nACGTAC\n>protein\n{PROTEIN}\n"),
    );
    let output = query(
        &index,
        &["--report-misses", "-f", queries.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<String> = text.lines().map(without_corrected).collect();
    assert_eq!(
        lines[0],
        "query\tdocument\tkmers_found\tkmers_total\tfraction\tidentity\tstatus"
    );
    assert_eq!(
        lines[1],
        "found\tKpn_pMCR_1511_KX377410\t1596\t1596\t1.0000\t1.0000\thit"
    );
    assert_eq!(
        &lines[2..],
        [
            "absent\tNA\tNA\t270\tNA\tNA\tno_hit",
            "tiny\tNA\tNA\t0\tNA\tNA\tskipped_too_short",
            "protein\tNA\tNA\tNA\tNA\tNA\tskipped_not_dna",
        ]
    );
    let plain = query(&index, &["-f", queries.to_str().unwrap()]);
    assert_eq!(
        stdout(&plain)
            .lines()
            .map(without_corrected)
            .collect::<Vec<_>>(),
        [
            "query\tdocument\tkmers_found\tkmers_total\tfraction\tidentity",
            "found\tKpn_pMCR_1511_KX377410\t1596\t1596\t1.0000\t1.0000"
        ]
    );
}

#[test]
fn json_records_provenance() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let output = query(
        &index,
        &["--format", "json", "-t", "0.9", "-l", "5", &mcr_gene()],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let provenance = &value["bitsift"];
    assert_eq!(provenance["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(provenance["search"]["threshold"], 0.9);
    assert_eq!(provenance["search"]["limit"], 5);
    assert_eq!(provenance["search"]["bases"], "standard");
    let described = &value["indexes"][0];
    assert_eq!(described["name"], index.to_str().unwrap());
    assert_eq!(described["files"][0], index.to_str().unwrap());
    assert_eq!(described["format"], "compact");
    assert_eq!(described["k"], 31);
    assert_eq!(described["canonical"], true);
    assert_eq!(described["hashes"], 1);
    assert_eq!(described["page_size"], 8);
    assert_eq!(described["documents"], 3);
    assert_eq!(
        described["file_size"],
        std::fs::metadata(&index).unwrap().len()
    );
    assert_eq!(value["queries"][0]["status"], "hit");
    let cobs = query(&index, &["--format", "json", "--cobs-bases", "ACGT"]);
    let value: serde_json::Value = serde_json::from_slice(&cobs.stdout).unwrap();
    assert_eq!(value["bitsift"]["search"]["bases"], "cobs");
}

#[test]
fn metadata_joins_sample_columns_into_tsv_and_json() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let metadata = write_text(
        &dir.path().join("samples.tsv"),
        "document\tspecies\tcountry\nKpn_pMCR_1511_KX377410\tK. pneumoniae\tChina\n",
    );
    let gene = mcr_gene();
    let output = query(
        &index,
        &[
            "-t",
            "0",
            "--raw-threshold",
            "--metadata",
            metadata.to_str().unwrap(),
            &gene,
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<String> = text.lines().map(without_corrected).collect();
    assert_eq!(
        lines[0],
        "query\tdocument\tkmers_found\tkmers_total\tfraction\tidentity\tspecies\tcountry"
    );
    assert_eq!(
        lines[1],
        "query\tKpn_pMCR_1511_KX377410\t1596\t1596\t1.0000\t1.0000\tK. pneumoniae\tChina"
    );
    assert!(lines[2..].iter().all(|l| l.ends_with("\t\t")), "{text}");

    let json = query(
        &index,
        &[
            "--format",
            "json",
            "--metadata",
            metadata.to_str().unwrap(),
            &gene,
        ],
    );
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let hit = &value["queries"][0]["hits"][0];
    assert_eq!(hit["metadata"]["species"], "K. pneumoniae");
    assert_eq!(hit["metadata"]["country"], "China");
    assert_eq!(
        value["bitsift"]["search"]["metadata"],
        metadata.to_str().unwrap()
    );

    let foreign = write_text(
        &dir.path().join("other.tsv"),
        "sample\tspecies\nSAMD001\tE. coli\n",
    );
    let output = query(&index, &["--metadata", foreign.to_str().unwrap(), &gene]);
    assert!(output.status.success());
    assert!(
        stderr(&output).contains("other.tsv: none of its 1 name is a document of the indexes"),
        "{}",
        stderr(&output)
    );
}

// ---------------------------------------------------------------------------------------
// Item 7: words
// ---------------------------------------------------------------------------------------

#[test]
fn build_and_info_speak_in_words() {
    let dir = temp_dir();
    let index = dir.path().join("one.cobs_compact");
    let output = run(&[
        "build",
        "-o",
        index.to_str().unwrap(),
        demo_file("genomes/Phage_lambda_NC_001416.fa.gz")
            .to_str()
            .unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains(": 1 document in 1 block (size order), 8-byte rows in ranges of 512 rows,"),
        "{text}"
    );
    assert!(text.contains(" M k-mers/s, peak memory"), "{text}");
    assert!(
        text.contains("note: the index is ")
            && text.contains("sized for the block's largest document")
            && text.contains("room for 64 documents, 1 of them used"),
        "{text}"
    );

    let info = run(&["info", index.to_str().unwrap()]);
    let text = stdout(&info);
    assert!(!text.contains(".."), "{text}");
    assert!(
        text.contains("blocks           1 (room for 64 documents, 1 used)"),
        "{text}"
    );
    assert!(text.contains("\nrows             "), "{text}");
    assert!(
        text.contains("row layout       minimizer (ranges of 512 rows")
            && text.contains("cost per gene    ~1 read of up to 4096 bytes per distinct minimizer"),
        "{text}"
    );

    let bad_k = run(&["build", "-k", "0", "-o", "x.cobs_compact", "in.fa"]);
    let text = stderr(&bad_k);
    assert_eq!(bad_k.status.code(), Some(2), "a usage error: {text}");
    assert!(
        text.contains("invalid value '0'") && text.contains("k is from 1 to 64"),
        "{text}"
    );
    assert!(!text.contains("..="), "{text}");
}

#[test]
fn iobench_announces_its_total_time_first() {
    let dir = temp_dir();
    let file = dir.path().join("bench.dat");
    let output = run(&[
        "iobench",
        file.to_str().unwrap(),
        "--size",
        "4M",
        "--variants",
        "pread",
        "-T",
        "1,2",
        "-d",
        "100ms",
        "--remove",
    ]);
    let text = stderr(&output);
    assert!(output.status.success(), "{text}");
    let total = text
        .find("iobench: 2 runs of 100 ms each: about 200 ms in all")
        .unwrap_or_else(|| panic!("{text}"));
    let first_run = text.find("[1/2]").unwrap();
    assert!(total < first_run, "{text}");
    let help = stdout(&run(&["iobench", "--help"]));
    assert!(help.contains("Length of each run"), "{help}");
}

#[test]
fn demo_prints_aligned_columns_and_a_summary() {
    let output = run(&["demo"]);
    let text = stdout(&output);
    assert!(output.status.success(), "{text}\n{}", stderr(&output));
    assert!(
        text.lines().all(|l| !l.ends_with(' ')),
        "trailing spaces:\n{text}"
    );
    // Rows with a score end with the fraction column: all the same width.
    let widths: Vec<usize> = text
        .lines()
        .filter(|l| l.starts_with("   ") && l.contains('/'))
        .filter(|l| l.ends_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.chars().count())
        .collect();
    assert!(widths.len() > 40, "{text}");
    assert!(widths.iter().all(|&w| w == widths[0]), "{widths:?}\n{text}");
    assert!(text.contains("1. build   12 documents,"), "{text}");
    assert!(text.contains(", 1 block of 8-byte rows)"), "{text}");
    // Each query's accounting is for -v (issue 36): the table alone by default.
    let engine_line =
        |text: &str| text.contains(" in memory in ") || text.contains("waiting for reads");
    assert!(!engine_line(&text), "{text}");
    assert!(stderr(&output).is_empty(), "{}", stderr(&output));
    // The index was just written, so it sits in the page cache and is scored in place (the
    // automatic engine choice); read from storage, the line says how long reads were awaited.
    let verbose = stdout(&ok(run(&["demo", "-v"])));
    assert!(engine_line(&verbose), "{verbose}");
    assert!(!verbose.contains("major faults"), "{verbose}");
    let summary = text
        .lines()
        .find(|l| l.starts_with("4. summary 47 queries, "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        summary.contains("without a hit; searching took"),
        "{summary}"
    );
}

// ---------------------------------------------------------------------------------------
// Issue 36: standard input, and a quiet query that ends with one summary line
// ---------------------------------------------------------------------------------------

/// Runs the binary with `args`, `input` on its standard input.
fn run_with_input(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = bitsift()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bitsift");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().expect("wait for bitsift");
    // A command that stops reading early closes the pipe: that is its business.
    let _ = writer.join();
    output
}

#[test]
fn a_dash_reads_standard_input_wherever_a_file_is_read() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let genes = demo_file("queries/amr_genes.fa");
    let from_file = ok(query(&index, &["-f", text(&genes)]));
    let fasta = std::fs::read(&genes).unwrap();
    let from_stdin = ok(run_with_input(
        &["query", "-i", text(&index), "-f", "-"],
        &fasta,
    ));
    assert_eq!(stdout(&from_stdin), stdout(&from_file));
    assert!(body(&from_file).len() > 1, "{}", stdout(&from_file));

    // An index list on standard input, its paths relative to the current folder.
    let list = format!("{}\n", text(&index));
    let listed = ok(run_with_input(
        &["query", "--index-list", "-", "-f", text(&genes)],
        list.as_bytes(),
    ));
    assert_eq!(stdout(&listed), stdout(&from_file));

    // A metadata table on standard input.
    let names = stdout(&ok(run(&["info", "--documents", text(&index)])));
    let documents: Vec<&str> = names
        .lines()
        .skip_while(|l| !l.starts_with("block\t"))
        .skip(1)
        .filter_map(|l| l.split('\t').nth(2))
        .collect();
    assert_eq!(documents.len(), 3, "{names}");
    let mut table = String::from("document\tsource\n");
    for name in &documents {
        table += &format!("{name}\tfrom-{name}\n");
    }
    let path = write_text(&dir.path().join("meta.tsv"), &table);
    let joined_file = ok(query(
        &index,
        &["-f", text(&genes), "--metadata", text(&path)],
    ));
    let joined_stdin = ok(run_with_input(
        &[
            "query",
            "-i",
            text(&index),
            "-f",
            text(&genes),
            "--metadata",
            "-",
        ],
        table.as_bytes(),
    ));
    assert_eq!(stdout(&joined_stdin), stdout(&joined_file));
    assert!(
        stdout(&joined_file).contains("\tfrom-"),
        "{}",
        stdout(&joined_file)
    );

    // A build list on standard input names the same genomes as a list file.
    let genome = demo_file("genomes/Phage_lambda_NC_001416.fa.gz");
    let built = dir.path().join("listed.cobs_compact");
    ok(run_with_input(
        &["build", "-q", "-o", text(&built), "--list", "-"],
        format!("{}\n", text(&genome)).as_bytes(),
    ));
    let info = stdout(&ok(run(&["info", "--documents", text(&built)])));
    assert!(info.contains("\tPhage_lambda_NC_001416\t"), "{info}");

    // Standard input is read once.
    let twice = run_with_input(
        &["query", "-i", text(&index), "-f", "-", "--metadata", "-"],
        &fasta,
    );
    assert_eq!(twice.status.code(), Some(2), "{}", stderr(&twice));
    assert!(stderr(&twice).contains("standard input (-) can be read once"));
}

#[test]
fn a_default_query_writes_one_closing_line_on_standard_error() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let genes = demo_file("queries/amr_genes.fa");
    let output = ok(query(&index, &["-f", text(&genes)]));
    // The summary counted independently: records of the query file, lines of the answer.
    let records = std::fs::read_to_string(&genes)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('>'))
        .count();
    let hits = body(&output);
    let mut with_hits: Vec<&str> = hits.iter().map(|l| l.split('\t').next().unwrap()).collect();
    with_hits.dedup();
    assert!(!hits.is_empty());
    assert_eq!(
        stderr(&output),
        format!(
            "bitsift: {records} queries, {} with hits, {} hits\n",
            with_hits.len(),
            hits.len()
        )
    );
    // The engine's words are for -v; -q silences the summary too.
    let verbose = ok(query(&index, &["-f", text(&genes), "-v"]));
    assert_eq!(stdout(&verbose), stdout(&output));
    let quiet = ok(query(&index, &["-f", text(&genes), "-q"]));
    assert_eq!(stderr(&quiet), "");
    assert_eq!(stdout(&quiet), stdout(&output));
}
