//! Issue 30, "a collection is its manifest", through the binary. A collection directory whose
//! `collection.json` was missing (or a directory, or a named pipe) was taken by `add` for a new
//! collection, whose clean-up deleted every sub-index, and by every reader for a plain
//! directory of indexes, which showed removed genomes again. Now each is an error that deletes
//! nothing and says how to recover; `bitsift recover` rebuilds a manifest from the files and
//! says that the removals are lost; and the manifest's parameters are compared with every
//! file's header.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

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

/// Runs the binary, failing the test if it has not finished within a minute (a reader
/// blocked on a named pipe would never finish).
fn run_within(args: &[&str]) -> Output {
    run_bounded(args, Duration::from_secs(60)).unwrap_or_else(|| panic!("bitsift {args:?} hung"))
}

fn add(collection: &Path, inputs: &[PathBuf], extra: &[&str]) -> Output {
    let mut args = vec!["add", "-q", "-T", "2", "-p", "1", text(collection)];
    args.extend_from_slice(extra);
    args.extend(inputs.iter().map(|p| text(p)));
    run_within(&args)
}

fn remove(collection: &Path, names: &[&str]) -> Output {
    let list = collection.with_extension("remove.txt");
    std::fs::write(&list, names.join("\n") + "\n").unwrap();
    run_within(&["remove", "-q", "--documents", text(&list), text(collection)])
}

/// Every (query, document, k-mers found) of a threshold-0 search of `indexes`, sorted.
fn hits(indexes: &[&Path], queries: &Path) -> Vec<(String, String, u64)> {
    let mut args = vec!["query", "--format", "json", "-t", "0", "-f", text(queries)];
    for index in indexes {
        args.extend(["-i", text(index)]);
    }
    let output = ok(run_within(&args));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut found = Vec::new();
    for query in json["queries"].as_array().unwrap() {
        for hit in query["hits"].as_array().unwrap() {
            found.push((
                query["query"].as_str().unwrap().to_string(),
                hit["document"].as_str().unwrap().to_string(),
                hit["kmers_found"].as_u64().unwrap(),
            ));
        }
    }
    found.sort();
    found
}

fn documents(hits: &[(String, String, u64)]) -> Vec<String> {
    let mut names: Vec<String> = hits.iter().map(|(_, d, _)| d.clone()).collect();
    names.sort();
    names.dedup();
    names
}

/// A collection of 10 genomes in two sub-indexes, `g02` removed.
fn collection(dir: &Path) -> (PathBuf, Vec<PathBuf>) {
    let genomes = write_genomes(&dir.join("genomes"), 10, 30);
    let collection = dir.join("c");
    ok(add(&collection, &genomes[..5], &[]));
    ok(add(&collection, &genomes[5..], &[]));
    ok(remove(&collection, &["g02"]));
    (collection, genomes)
}

/// Every entry of `directory`: its kind, and the bytes of a regular file.
fn snapshot(directory: &Path) -> BTreeMap<String, (String, Vec<u8>)> {
    std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            let bytes = match kind.is_file() {
                true => std::fs::read(entry.path()).unwrap(),
                false => Vec::new(),
            };
            let name = entry.file_name().into_string().unwrap();
            (name, (format!("{kind:?}"), bytes))
        })
        .collect()
}

/// A copy of `from` (its files, lock included) at `to`.
fn copy_collection(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(text(path)).unwrap();
    // SAFETY: a C string that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

/// The ways a manifest is lost, each with the words its error uses: missing, a directory,
/// a named pipe, and (when this user cannot read a file it made unreadable) unreadable.
fn lose_manifest(collection: &Path, how: &str) -> Option<&'static str> {
    let manifest = collection.join("collection.json");
    match how {
        "missing" => {
            std::fs::remove_file(&manifest).unwrap();
            Some("it holds a collection's sub-index files (sub-000001.cobs_compact, sub-000002.cobs_compact) but no manifest collection.json")
        }
        "directory" => {
            std::fs::remove_file(&manifest).unwrap();
            std::fs::create_dir(&manifest).unwrap();
            Some("its manifest collection.json is a directory, not a file")
        }
        "fifo" => {
            std::fs::remove_file(&manifest).unwrap();
            mkfifo(&manifest);
            Some("its manifest collection.json is a named pipe (FIFO), not a file")
        }
        _ => {
            use std::os::unix::fs::PermissionsExt;
            let unreadable = std::fs::Permissions::from_mode(0o000);
            std::fs::set_permissions(&manifest, unreadable).unwrap();
            // Root reads it anyway.
            std::fs::read(&manifest)
                .is_err()
                .then_some("its manifest collection.json cannot be opened")
        }
    }
}

const WAYS: [&str; 4] = ["missing", "directory", "fifo", "unreadable"];

#[test]
fn i30_writers_refuse_a_collection_without_a_readable_manifest_and_delete_nothing() {
    let dir = temp_dir();
    let (original, genomes) = collection(dir.path());
    let new = write_genomes(&dir.path().join("new"), 1, 31)[0].with_file_name("new.fa");
    std::fs::rename(dir.path().join("new/g00.fa"), &new).unwrap();
    for how in WAYS {
        let collection = dir.path().join(format!("lost-{how}"));
        copy_collection(&original, &collection);
        let Some(problem) = lose_manifest(&collection, how) else {
            continue;
        };
        let before = snapshot(&collection);
        let c = text(&collection);
        let refusals = [
            add(&collection, std::slice::from_ref(&new), &["--fpr", "0.3"]),
            add(&collection, std::slice::from_ref(&genomes[0]), &[]),
            remove(&collection, &["g03"]),
            run_within(&["merge", "-q", c]),
        ];
        for refusal in refusals {
            let error = failed(refusal);
            assert!(
                error.contains(&format!("{c}: {problem}")) && error.contains("bitsift recover"),
                "{how}: {error}"
            );
            assert!(!error.contains("created"), "{how}: {error}");
            assert_eq!(snapshot(&collection), before, "{how}: every file as it was");
        }
    }
}

#[test]
fn i30_readers_refuse_a_collection_without_a_readable_manifest() {
    let dir = temp_dir();
    let (original, genomes) = collection(dir.path());
    let queries = piece_queries(dir.path(), &genomes);
    assert!(!documents(&hits(&[&original], &queries)).contains(&"g02".to_string()));
    for how in WAYS {
        let parent = dir.path().join(format!("parent-{how}"));
        std::fs::create_dir(&parent).unwrap();
        let collection = parent.join("c");
        copy_collection(&original, &collection);
        let Some(problem) = lose_manifest(&collection, how) else {
            continue;
        };
        let c = text(&collection);
        let q = text(&queries);
        for (what, output) in [
            ("query", run_within(&["query", "-i", c, "-f", q])),
            ("query of the parent", {
                run_within(&["query", "-i", text(&parent), "-f", q])
            }),
            ("verify", run_within(&["verify", c])),
            ("info", run_within(&["info", c])),
        ] {
            let error = failed(output);
            assert!(
                error.contains(&format!("{c}: {problem}")) && error.contains("bitsift recover"),
                "{how}, {what}: {error}"
            );
        }
    }
    // A plain directory of indexes (no collection files) is searched as before.
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    for (name, part) in [("a", &genomes[..5]), ("b", &genomes[5..])] {
        let output = plain.join(format!("{name}.cobs_compact"));
        let mut args = vec!["build", "-q", "-T", "2", "-o", text(&output)];
        args.extend(part.iter().map(|p| text(p)));
        ok(run_within(&args));
    }
    assert_eq!(documents(&hits(&[&plain], &queries)).len(), 10);
    ok(run_within(&["verify", text(&plain)]));
}

#[test]
fn i30_recover_rebuilds_a_searchable_collection_and_says_what_was_lost() {
    let dir = temp_dir();
    let (original, genomes) = collection(dir.path());
    let queries = piece_queries(dir.path(), &genomes);
    let refused = failed(run_within(&["recover", text(&original)]));
    assert!(
        refused.contains("is readable and sound") && refused.contains("nothing was changed"),
        "{refused}"
    );
    let files: Vec<PathBuf> = ["sub-000001.cobs_compact", "sub-000002.cobs_compact"]
        .iter()
        .map(|f| original.join(f))
        .collect();
    let mut copies = Vec::new();
    for (n, file) in files.iter().enumerate() {
        let copy = dir.path().join(format!("copy-{n}.cobs_compact"));
        std::fs::copy(file, &copy).unwrap();
        copies.push(copy);
    }
    let of_files = hits(
        &copies.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        &queries,
    );
    assert!(documents(&of_files).contains(&"g02".to_string()));
    for how in ["missing", "fifo", "directory", "damaged"] {
        let collection = dir.path().join(format!("recover-{how}"));
        copy_collection(&original, &collection);
        let manifest = collection.join("collection.json");
        if how == "damaged" {
            let text = std::fs::read_to_string(&manifest).unwrap();
            std::fs::write(&manifest, text.replacen("\"g02\"", "\"g12\"", 1)).unwrap();
        } else {
            lose_manifest(&collection, how);
        }
        let recovered = ok(run_within(&["recover", text(&collection)]));
        let listing = stdout(&recovered);
        assert!(
            listing.contains("from 2 sub-index files")
                && listing.contains("sub-000001.cobs_compact\t5 documents")
                && listing.contains("sub-000002.cobs_compact\t5 documents"),
            "{listing}"
        );
        let notes = stderr(&recovered);
        assert!(
            notes.contains("the removals the lost manifest recorded are lost"),
            "{notes}"
        );
        let aside = std::fs::read_dir(&collection)
            .unwrap()
            .filter_map(|e| e.unwrap().file_name().into_string().ok())
            .filter(|n| n.starts_with("collection.json.lost-"))
            .count();
        assert_eq!(aside, usize::from(how != "missing"), "{how}: kept aside");
        // The removed genome is back, and every answer is the files' own.
        assert_eq!(hits(&[&collection], &queries), of_files, "{how}");
        ok(run_within(&["verify", text(&collection)]));
        // Writers work again.
        ok(remove(&collection, &["g02"]));
        let new = &genomes[0].with_file_name("g00.fa");
        let duplicate = add(&collection, std::slice::from_ref(new), &["--fpr", "0.3"]);
        assert!(failed(duplicate).contains("already in the collection"));
        ok(run_within(&["merge", "-q", text(&collection)]));
        let after = documents(&hits(&[&collection], &queries));
        assert_eq!(after.len(), 9, "{how}: {after:?}");
        assert!(!after.contains(&"g02".to_string()));
    }
}

#[test]
fn i30_recover_refuses_files_that_are_not_of_one_collection() {
    let dir = temp_dir();
    let (original, genomes) = collection(dir.path());
    let collection = dir.path().join("mixed");
    copy_collection(&original, &collection);
    std::fs::remove_file(collection.join("collection.json")).unwrap();
    let other = collection.join("sub-000007.cobs_compact");
    let args = [
        "build",
        "-q",
        "-k",
        "25",
        "-o",
        text(&other),
        text(&genomes[0]),
    ];
    ok(run_within(&args));
    let before = snapshot(&collection);
    let error = failed(run_within(&["recover", text(&collection)]));
    assert!(
        error.contains("sub-000007.cobs_compact: has k = 25, canonical k-mers")
            && error.contains("the files are not of one collection"),
        "{error}"
    );
    assert_eq!(snapshot(&collection), before);
    std::fs::write(&other, b"not an index").unwrap();
    let error = failed(run_within(&["recover", text(&collection)]));
    assert!(
        error.contains("cannot be read as an index") && error.contains("move it out"),
        "{error}"
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let error = failed(run_within(&["recover", text(&empty)]));
    assert!(error.contains("holds no sub-index file"), "{error}");
}

/// Writes `json` as the manifest in version 1 (no checksum, no names digests), as bitsift
/// wrote it before checksums: an edit of it is not caught by a checksum, only by the files.
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

/// An edit of a manifest: its name, the edit, and the error it must cause.
type Edit<'a> = (&'a str, &'a dyn Fn(&mut serde_json::Value), String);

#[test]
fn i30_a_manifest_whose_parameters_disagree_with_a_file_is_refused() {
    let dir = temp_dir();
    let (original, genomes) = collection(dir.path());
    let queries = piece_queries(dir.path(), &genomes);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(original.join("collection.json")).unwrap()).unwrap();
    let manifest = with_documents(&original, manifest);
    let file = original.join("sub-000001.cobs_compact");
    let edits: [Edit; 6] = [
        (
            "k",
            &|m| m["parameters"]["k"] = 25.into(),
            "has k = 31 but the collection manifest records k = 25".into(),
        ),
        (
            "hashes",
            &|m| m["parameters"]["hashes"] = 2.into(),
            "has hash functions = 1 but the collection manifest records hash functions = 2".into(),
        ),
        (
            "documents",
            &|m| {
                let sub = &mut m["subindexes"][0];
                sub["document_count"] = 6.into();
                sub["documents"].as_array_mut().unwrap().push("g99".into());
            },
            "has 5 documents but the collection manifest records 6".into(),
        ),
        (
            "page size",
            &|m| m["subindexes"][0]["page_size"] = 2.into(),
            "has page size 1 but the collection manifest records page size 2".into(),
        ),
        (
            "kind",
            &|m| m["subindexes"][0]["kind"] = "classic".into(),
            "has kind compact but the collection manifest records kind classic".into(),
        ),
        (
            "bytes",
            &|m| {
                let bytes = m["subindexes"][0]["bytes"].as_u64().unwrap();
                m["subindexes"][0]["bytes"] = (bytes + 1).into();
            },
            format!(
                "has {0} bytes but the collection manifest records {1} bytes",
                std::fs::metadata(&file).unwrap().len(),
                std::fs::metadata(&file).unwrap().len() + 1
            ),
        ),
    ];
    for (what, edit, expected) in edits {
        let collection = dir
            .path()
            .join(format!("edited-{}", what.replace(' ', "-")));
        copy_collection(&original, &collection);
        let mut edited = manifest.clone();
        edit(&mut edited);
        write_version_1(&collection, edited);
        let sub = collection.join("sub-000001.cobs_compact");
        let expected = format!("{}: {expected}", sub.display());
        let q = text(&queries);
        let error = failed(run_within(&["query", "-i", text(&collection), "-f", q]));
        assert!(error.contains(&expected), "{what}, query: {error}");
        // verify lists the problems on standard output, and fails.
        let verified = run_within(&["verify", text(&collection)]);
        let report = stdout(&verified);
        failed(verified);
        assert!(report.contains(&expected), "{what}, verify: {report}");
    }
    // Unedited, version 1 still opens.
    let collection = dir.path().join("unedited");
    copy_collection(&original, &collection);
    write_version_1(&collection, manifest);
    ok(run_within(&["verify", text(&collection)]));
}
