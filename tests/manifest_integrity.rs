//! Issue 20, "a manifest that cannot lie", through the binary: found by bit flips and hand
//! edits of `collection.json`. A removal entry that matched no document was accepted (a
//! damaged one brought a removed genome back); removed names were mapped to positions through
//! a document list never checked against the file (a list that disagreed hid another
//! genome); merge placeholders became documents once a merged file was adopted elsewhere; a
//! tab in a file name became a tab in every TSV; adopted collections were built at 0.3 behind
//! the user's back; a failed first `add` left its directory; `verify DIR` judged leftovers.
//! The seeded fault injection over manifests and side files is `tests/fault_injection.rs`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

/// Writes `count` genomes `gNN.fa` of growing length into `dir`.
fn write_genomes(dir: &Path, count: usize, seed: u64) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let mut rng = Rng(seed);
    (0..count)
        .map(|i| {
            let path = dir.join(format!("g{i:02}.fa"));
            write_fasta(&path, &[(format!("g{i:02}"), rng.dna(1500 + 300 * i))]);
            path
        })
        .collect()
}

fn add(collection: &Path, inputs: &[PathBuf], extra: &[&str]) -> Output {
    let mut args = vec!["add", "-q", "-T", "2", "-p", "1", text(collection)];
    args.extend_from_slice(extra);
    args.extend(inputs.iter().map(|p| text(p)));
    run(&args)
}

fn remove(collection: &Path, names: &[&str]) -> Output {
    let list = collection.with_extension("remove.txt");
    std::fs::write(&list, names.join("\n") + "\n").unwrap();
    run(&["remove", "-q", "--documents", text(&list), text(collection)])
}

/// The TSV answer of a query at threshold 0 (every document reported).
fn answer(index: &Path, queries: &Path) -> String {
    stdout(&ok(run(&[
        "query",
        "-i",
        text(index),
        "-f",
        text(queries),
        "-t",
        "0",
        "--raw-threshold",
    ])))
}

fn query_error(index: &Path, queries: &Path) -> String {
    failed(run(&["query", "-i", text(index), "-f", text(queries)]))
}

fn manifest(collection: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(collection.join("collection.json")).unwrap()).unwrap()
}

/// Writes `json` as the manifest in version 1, as bitsift wrote it before checksums and
/// names digests.
fn write_version_1(collection: &Path, json: serde_json::Value) {
    let mut json = with_documents(collection, json);
    let object = json.as_object_mut().unwrap();
    object.remove("checksum");
    object.insert("version".into(), 1.into());
    for sub in object["subindexes"].as_array_mut().unwrap() {
        sub.as_object_mut().unwrap().remove("names_digest");
    }
    let mut bytes = serde_json::to_vec_pretty(&json).unwrap();
    bytes.push(b'\n');
    std::fs::write(collection.join("collection.json"), bytes).unwrap();
}

/// A collection of 10 genomes in two sub-indexes, `g02` removed.
fn collection(dir: &Path) -> (PathBuf, Vec<PathBuf>) {
    let genomes = write_genomes(&dir.join("genomes"), 10, 20);
    let collection = dir.join("c");
    // Exact rows (the default before issue 36): a merge of 5 + 4 documents then pads a block
    // with placeholders.
    ok(add(&collection, &genomes[..5], &["--rows", "exact"]));
    ok(add(&collection, &genomes[5..], &[]));
    ok(remove(&collection, &["g02"]));
    (collection, genomes)
}

#[test]
fn i20_a_version_1_manifest_opens_as_before_and_the_next_commit_seals_it() {
    let dir = temp_dir();
    let (collection, genomes) = collection(dir.path());
    let queries = piece_queries(dir.path(), &genomes);
    let before = answer(&collection, &queries);
    assert!(!before.contains("\tg02\t"), "removed: {before}");
    let sealed = manifest(&collection);
    assert_eq!(sealed["version"], 3);
    assert_eq!(sealed["checksum"].as_str().unwrap().len(), 16);
    assert!(
        sealed["subindexes"][0].get("documents").is_none(),
        "names stay in the files"
    );
    assert_eq!(
        sealed["subindexes"][0]["hidden_documents"],
        serde_json::json!([2])
    );
    write_version_1(&collection, sealed.clone());
    assert_eq!(answer(&collection, &queries), before);
    ok(run(&["verify", text(&collection)]));
    ok(remove(&collection, &["g07"]));
    let upgraded = manifest(&collection);
    assert_eq!(upgraded["version"], 3);
    assert!(upgraded["checksum"].is_string());
    assert!(upgraded["subindexes"][0].get("documents").is_none());
    for (old, new) in sealed["subindexes"]
        .as_array()
        .unwrap()
        .iter()
        .zip(upgraded["subindexes"].as_array().unwrap())
    {
        assert_eq!(old["names_digest"], new["names_digest"], "from the files");
    }
    let after = answer(&collection, &queries);
    assert!(!after.contains("\tg07\t") && !after.contains("\tg02\t"));
}

/// Writes `json` as the manifest in version 2, as bitsift wrote it before the names left the
/// manifest: every sub-index's `documents` listed, sealed with its checksum.
fn write_version_2(collection: &Path, json: serde_json::Value) {
    let mut json = with_documents(collection, json);
    json["version"] = 2.into();
    write_sealed(collection, json);
}

#[test]
fn i32_a_version_2_manifest_with_every_name_opens_as_before_and_the_next_commit_drops_them() {
    let dir = temp_dir();
    let (collection, genomes) = collection(dir.path());
    let queries = piece_queries(dir.path(), &genomes);
    let before = answer(&collection, &queries);
    let current = manifest(&collection);
    write_version_2(&collection, current.clone());
    let old = manifest(&collection);
    assert_eq!(old["version"], 2);
    assert_eq!(
        old["subindexes"][0]["documents"].as_array().unwrap().len(),
        5
    );
    assert_eq!(answer(&collection, &queries), before, "read as it is");
    ok(run(&["verify", text(&collection)]));
    let info = ok(run(&["info", text(&collection), "--documents", "--json"]));
    assert!(!stdout(&info).contains("\"g02\""), "{}", stdout(&info));
    ok(remove(&collection, &["g07"]));
    let upgraded = manifest(&collection);
    assert_eq!(upgraded["version"], 3);
    assert!(upgraded["subindexes"][0].get("documents").is_none());
    assert_eq!(
        upgraded["subindexes"][0]["hidden_documents"],
        serde_json::json!([2])
    );
    assert_eq!(
        upgraded["subindexes"][1]["hidden_documents"],
        serde_json::json!([2])
    );
    let after = answer(&collection, &queries);
    assert!(
        !after.contains("\tg07\t") && !after.contains("\tg02\t"),
        "{after}"
    );

    // A version-3 manifest whose numbers disagree with the tombstones is refused by the
    // next writer, which reads the names: a removal would otherwise hide another genome.
    let mut edited = manifest(&collection);
    edited["subindexes"][0]["hidden_documents"] = serde_json::json!([3]);
    write_sealed(&collection, edited);
    let error = failed(remove(&collection, &["g08"]));
    assert!(
        error.contains("are not those its tombstones name"),
        "{error}"
    );
}

/// Writes `json` as the manifest, sealed again with its checksum (so an edit is not caught by
/// the checksum: what a bitsift with a bug could write).
fn write_sealed(collection: &Path, mut json: serde_json::Value) {
    json.as_object_mut().unwrap().remove("checksum");
    let mut body = serde_json::to_vec_pretty(&json).unwrap();
    assert!(body.ends_with(b"\n}"));
    body.truncate(body.len() - 2);
    let digest = xxhash_rust::xxh64::xxh64(&body, 0);
    body.extend_from_slice(format!(",\n  \"checksum\": \"{digest:016x}\"\n}}\n").as_bytes());
    std::fs::write(collection.join("collection.json"), body).unwrap();
}

#[test]
fn i20_an_edited_or_damaged_manifest_is_refused_by_query_and_verify() {
    let dir = temp_dir();
    let (collection, genomes) = collection(dir.path());
    let queries = piece_queries(dir.path(), &genomes);
    let path = collection.join("collection.json");
    let pristine = std::fs::read(&path).unwrap();

    // Any byte changed: the checksum.
    let edited = String::from_utf8(pristine.clone())
        .unwrap()
        .replacen("\"g02\"\n", "\"g03\"\n", 1);
    std::fs::write(&path, &edited).unwrap();
    let error = query_error(&collection, &queries);
    assert!(
        error.contains(&format!("{}: checksum mismatch", path.display())),
        "{error}"
    );
    let report = failed(run(&["verify", text(&collection)]));
    assert!(report.contains("checksum mismatch"), "{report}");

    // Without a checksum (version 1): a removal that names no document is refused…
    let mut json: serde_json::Value = serde_json::from_slice(&pristine).unwrap();
    json["subindexes"][0]["hidden"][0] = "g2".into();
    write_version_1(&collection, json);
    let error = query_error(&collection, &queries);
    assert!(
        error.contains("hides \"g2\", which is not one of its documents"),
        "{error}"
    );
    failed(run(&["verify", text(&collection)]));

    // …and a document list that disagrees with the file's names is caught at open.
    let json: serde_json::Value = serde_json::from_slice(&pristine).unwrap();
    let mut json = with_documents(&collection, json);
    let documents = json["subindexes"][0]["documents"].as_array_mut().unwrap();
    documents.swap(1, 3);
    write_version_1(&collection, json);
    let sub = collection.join("sub-000001.cobs_compact");
    let error = query_error(&collection, &queries);
    assert!(
        error.contains(&format!(
            "{}: its document names are not the ones the collection manifest records",
            sub.display()
        )),
        "{error}"
    );
    let report = failed(run(&["verify", text(&collection)]));
    assert!(
        report.contains("sub-000001.cobs_compact: damaged"),
        "{report}"
    );
    std::fs::write(&path, &pristine).unwrap();
    ok(run(&["verify", text(&collection)]));
}

#[test]
fn i20_a_subindex_replaced_by_another_of_as_many_documents_is_an_error() {
    let dir = temp_dir();
    let (collection, genomes) = collection(dir.path());
    let queries = piece_queries(dir.path(), &genomes);
    // The same five genomes, renamed: the count matches, the names do not.
    let renamed = dir.path().join("renamed");
    std::fs::create_dir(&renamed).unwrap();
    let copies: Vec<PathBuf> = genomes[..5]
        .iter()
        .map(|g| {
            let copy = renamed.join(format!("x{}", g.file_name().unwrap().to_str().unwrap()));
            std::fs::copy(g, &copy).unwrap();
            copy
        })
        .collect();
    let other = dir.path().join("other.cobs_compact");
    let mut args = vec!["build", "-q", "-p", "1", "-o", text(&other)];
    args.extend(copies.iter().map(|p| text(p)));
    ok(run(&args));
    let sub = collection.join("sub-000001.cobs_compact");
    for suffix in ["", ".bitsift-checksums", ".bitsift-summaries"] {
        std::fs::copy(
            format!("{}{suffix}", other.display()),
            format!("{}{suffix}", sub.display()),
        )
        .unwrap();
    }
    let error = query_error(&collection, &queries);
    assert!(
        error.contains(&format!("{}: its document names are not", sub.display())),
        "{error}"
    );
    let report = stdout(&run(&["verify", text(&collection)]));
    assert!(
        report.contains(&format!("{}: its document names are not", sub.display())),
        "{report}"
    );
}

#[test]
fn i20_a_merged_file_adopted_elsewhere_keeps_its_placeholders_hidden() {
    let dir = temp_dir();
    let (collection, genomes) = collection(dir.path());
    let queries = piece_queries(dir.path(), &genomes);
    ok(run(&["merge", "-q", text(&collection)]));
    let merged = manifest(&collection)["subindexes"][0].clone();
    let placeholders = merged["placeholders"].as_u64().unwrap();
    assert!(placeholders > 0, "a merge of 5 + 4 documents pads a block");
    let file = collection.join(merged["file"].as_str().unwrap());

    // The plain file: never reported, counted or listed.
    let plain = answer(&file, &queries);
    assert!(!plain.contains("bitsift/padding"), "{plain}");
    assert_eq!(plain.lines().count(), 1 + 9 * queries_count(&queries));
    let info: serde_json::Value =
        serde_json::from_slice(&ok(run(&["info", "--json", "--documents", text(&file)])).stdout)
            .unwrap();
    assert_eq!(info["documents"], 9);
    assert_eq!(info["placeholders"], placeholders);
    assert_eq!(info["document_names"].as_array().unwrap().len(), 9);
    let listing = stdout(&ok(run(&["info", "--documents", text(&file)])));
    assert!(!listing.contains("bitsift/padding"), "{listing}");

    // Adopted into another collection: recorded as placeholders, never documents.
    let other = dir.path().join("other");
    ok(add(&other, &[], &["--adopt", text(&file)]));
    let adopted = manifest(&other)["subindexes"][0].clone();
    assert_eq!(adopted["placeholders"], merged["placeholders"]);
    let answer_other = answer(&other, &queries);
    assert!(!answer_other.contains("bitsift/padding"), "{answer_other}");
    assert_eq!(
        answer_other.lines().count(),
        1 + 9 * queries_count(&queries)
    );
    let info: serde_json::Value =
        serde_json::from_slice(&ok(run(&["info", "--json", text(&other)])).stdout).unwrap();
    assert_eq!(info["documents"], 9, "{info}");
}

fn queries_count(queries: &Path) -> usize {
    std::fs::read_to_string(queries)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('>'))
        .count()
}

#[test]
fn i20_names_with_control_characters_are_refused_naming_the_input() {
    let dir = temp_dir();
    let genomes = write_genomes(&dir.path().join("genomes"), 3, 21);
    let tabbed = dir.path().join("genomes/with\ttab.fa");
    std::fs::copy(&genomes[0], &tabbed).unwrap();
    let output = dir.path().join("out.cobs_compact");
    let error = failed(run(&["build", "-q", "-o", text(&output), text(&tabbed)]));
    assert!(
        error.contains(&format!(
            "{}: the document name \"with\\ttab\" holds a tab",
            tabbed.display()
        )),
        "{error}"
    );
    assert!(!output.exists());
    let error = failed(run(&[
        "build",
        "-q",
        "-o",
        text(&output),
        text(&dir.path().join("genomes")),
    ]));
    assert!(
        error.contains("holds a tab"),
        "a directory's file too: {error}"
    );
    let collection = dir.path().join("c");
    let error = failed(add(&collection, std::slice::from_ref(&tabbed), &[]));
    assert!(error.contains("holds a tab"), "{error}");
    assert!(
        !collection.exists(),
        "a failed first add leaves no directory"
    );

    let records = dir.path().join("records.fa");
    write_fasta(
        &records,
        &[
            ("fine".into(), Rng(1).dna(500)),
            ("bad\u{1}name".into(), Rng(2).dna(500)),
        ],
    );
    let error = failed(run(&[
        "build",
        "-q",
        "--per-record",
        "-o",
        text(&output),
        text(&records),
    ]));
    assert!(
        error.contains(&format!(
            "{}: record 2: the document name",
            records.display()
        )) && error.contains("U+0001"),
        "{error}"
    );
    write_fasta(&records, &[("bitsift/padding".into(), Rng(3).dna(500))]);
    let error = failed(run(&[
        "build",
        "-q",
        "--per-record",
        "-o",
        text(&output),
        text(&records),
    ]));
    assert!(error.contains("is reserved"), "{error}");
}

#[test]
fn i20_a_failed_first_add_leaves_no_directory_and_no_lock() {
    let dir = temp_dir();
    let missing = dir.path().join("none.fa");
    let new = dir.path().join("new");
    failed(add(&new, std::slice::from_ref(&missing), &[]));
    assert!(!new.exists(), "the directory it created is gone");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    failed(add(&empty, &[missing], &[]));
    assert!(empty.is_dir(), "a directory it did not create stays");
    assert_eq!(
        std::fs::read_dir(&empty).unwrap().count(),
        0,
        "no lock file"
    );
    let genomes = write_genomes(&dir.path().join("genomes"), 2, 22);
    ok(add(&empty, &genomes, &[]));
    assert!(empty.join("collection.json").is_file());
    let broken = dir.path().join("broken.fa");
    std::fs::write(&broken, ">x\nACGT\n>").unwrap();
    failed(add(&empty, &[broken], &[]));
    assert!(
        empty.join(".collection.lock").exists(),
        "a collection keeps its lock file"
    );
    ok(run(&["verify", text(&empty)]));
}

#[test]
fn i20_adopted_indexes_of_unknown_false_positive_rate_need_one_given() {
    let dir = temp_dir();
    let genomes = write_genomes(&dir.path().join("genomes"), 4, 23);
    let cobs = dir.path().join("built.cobs_compact");
    let mut args = vec!["build", "-q", "--fpr", "0.1", "-o", text(&cobs)];
    args.extend(genomes[..2].iter().map(|p| text(p)));
    ok(run(&args));
    let collection = dir.path().join("c");
    ok(add(&collection, &[], &["--adopt", text(&cobs)]));
    assert!(manifest(&collection)["parameters"]["fpr"].is_null());
    let error = failed(add(&collection, &genomes[2..3], &[]));
    assert!(
        error.contains("the collection's false-positive rate is unknown")
            && error.contains("hint: pass --fpr"),
        "{error}"
    );
    assert_eq!(
        manifest(&collection)["subindexes"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    ok(add(&collection, &genomes[2..3], &["--fpr", "0.1"]));
    assert_eq!(manifest(&collection)["parameters"]["fpr"], 0.1);
    let error = failed(add(&collection, &genomes[3..], &["--fpr", "0.3"]));
    assert!(
        error.contains("false-positive rate 0.3 was asked for"),
        "{error}"
    );
    ok(add(&collection, &genomes[3..], &[]));
    let subs = manifest(&collection)["subindexes"].clone();
    assert_eq!(
        subs[2]["provenance"]["options"]["fpr"], 0.1,
        "the recorded rate"
    );
}

#[test]
fn i20_verify_checks_summaries_and_only_notes_unlisted_files() {
    let dir = temp_dir();
    let (collection, _) = collection(dir.path());
    for name in ["sub-000009.cobs_compact", "notes.txt"] {
        std::fs::write(collection.join(name), b"not an index").unwrap();
    }
    let output = ok(run(&["verify", text(&collection)]));
    let report = stdout(&output);
    for (name, why) in [
        ("sub-000009.cobs_compact", "left by an interrupted add"),
        ("notes.txt", "not part of the collection"),
    ] {
        assert!(
            report.contains(&format!(
                "{}: note: not listed in the collection manifest: {why}",
                collection.join(name).display()
            )),
            "{report}"
        );
    }
    assert!(
        report.contains("sub-000001.cobs_compact.bitsift-summaries: ok (block summaries, format 2"),
        "{report}"
    );

    // One byte of a summaries data page, then of its header.
    let summaries = collection.join("sub-000002.cobs_compact.bitsift-summaries");
    let pristine = std::fs::read(&summaries).unwrap();
    let mut damaged = pristine.clone();
    let last_page = damaged.len() - 4096;
    damaged[last_page + 100] ^= 0x40;
    std::fs::write(&summaries, &damaged).unwrap();
    let report = stdout(&run(&["verify", text(&collection)]));
    assert!(
        report.contains(&format!(
            "{}: damaged block summaries: checksum mismatch in page {}",
            summaries.display(),
            last_page / 4096
        )),
        "{report}"
    );
    failed(run(&["verify", text(&collection)]));
    let mut damaged = pristine.clone();
    damaged[30] ^= 0x01;
    std::fs::write(&summaries, &damaged).unwrap();
    let output = run(&["verify", text(&collection)]);
    assert!(
        stdout(&output).contains("damaged block summaries"),
        "{}",
        stdout(&output)
    );
    failed(output);
    std::fs::write(&summaries, &pristine).unwrap();
    ok(run(&["verify", text(&collection)]));
}
