//! Issue 20: seeded random damage to the files beside a collection's data, 1,200 trials. Each
//! trial changes one to three bytes of the manifest, a checksum sidecar or a block-summaries
//! file of a small collection (built once, the bytes restored after each trial), then opens
//! and queries it through the library as `bitsift query` does, and runs `bitsift verify`.
//!
//! Every trial must end in one of two ways: a clear error (naming a file of the collection)
//! from opening or from the queries whose reads the damage touched, or answers equal to the
//! undamaged collection's. The one allowed difference: a damaged summaries file rules fewer
//! blocks out, so a search reads more and may report documents the summaries skipped (Bloom
//! false positives of the index), never fewer, and never another score. And `verify` must
//! report every trial's damage: every byte of these files is covered by a checksum.

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use bitsift::format::HeaderOptions;
use bitsift::io::EngineOptions;
use bitsift::query::{SearchOptions, SessionConfig, SIDE_MEMORY_DEFAULT};
use bitsift::search::{SearchSetup, SessionSetup};
use common::*;

/// Trials; each costs an open, a batch of queries and a `verify` process.
const TRIALS: usize = 1_200;

/// What a damaged file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Manifest,
    Checksums,
    Summaries,
}

/// One query's hits: document name → k-mers found.
type Hits = BTreeMap<String, u32>;

/// Writes `count` genomes named `{prefix}NN` and returns their paths and sequences.
fn genomes(dir: &Path, prefix: &str, count: usize, rng: &mut Rng) -> Vec<(PathBuf, Vec<u8>)> {
    std::fs::create_dir_all(dir).unwrap();
    (0..count)
        .map(|i| {
            let name = format!("{prefix}{i:02}");
            let sequence = rng.dna(1200 + 250 * i);
            let path = dir.join(format!("{name}.fa"));
            write_fasta(&path, &[(name, sequence.clone())]);
            (path, sequence)
        })
        .collect()
}

fn bitsift_ok(args: &[&str]) {
    let output = run(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
}

fn add(collection: &Path, inputs: &[(PathBuf, Vec<u8>)]) {
    let mut args = vec!["add", "-q", "-T", "2", "-p", "1"];
    args.push(collection.to_str().unwrap());
    args.extend(inputs.iter().map(|(p, _)| p.to_str().unwrap()));
    bitsift_ok(&args);
}

fn remove(collection: &Path, names: &[&str]) {
    let list = collection.with_extension("remove.txt");
    std::fs::write(&list, names.join("\n")).unwrap();
    let list = list.to_str().unwrap();
    bitsift_ok(&[
        "remove",
        "-q",
        "--documents",
        list,
        collection.to_str().unwrap(),
    ]);
}

/// A collection of two sub-indexes: a merged one (with removed documents dropped and
/// placeholders) and a newer one with a removal pending; every file with its checksums and
/// block summaries. Returns the queries too: pieces of genomes, mutated pieces, random DNA.
fn build_collection(dir: &Path) -> (PathBuf, Vec<Vec<u8>>) {
    let mut rng = Rng(2020);
    let first = genomes(&dir.join("a"), "a", 6, &mut rng);
    let second = genomes(&dir.join("b"), "b", 6, &mut rng);
    let third = genomes(&dir.join("c"), "c", 5, &mut rng);
    let collection = dir.join("collection");
    add(&collection, &first);
    add(&collection, &second);
    remove(&collection, &["a01", "b03"]);
    bitsift_ok(&["merge", "-q", collection.to_str().unwrap()]);
    add(&collection, &third);
    remove(&collection, &["c02"]);
    let mut queries = Vec::new();
    for (_, sequence) in first.iter().chain(&second).chain(&third) {
        let at = rng.below((sequence.len() - 200) as u64) as usize;
        let mut piece = sequence[at..at + 120].to_vec();
        queries.push(piece.clone());
        for _ in 0..4 {
            let at = rng.below(piece.len() as u64) as usize;
            piece[at] = b"ACGT"[rng.below(4) as usize];
        }
        queries.push(piece);
    }
    queries.extend((0..4).map(|_| rng.dna(150)));
    (collection, queries)
}

/// The side files of the collection that trials damage: the manifest, then each
/// sub-index's checksums and summaries.
fn side_files(collection: &Path) -> Vec<(PathBuf, Kind)> {
    let mut files = vec![(collection.join("collection.json"), Kind::Manifest)];
    let mut names: Vec<String> = std::fs::read_dir(collection)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for name in names {
        let kind = if name.ends_with(".bitsift-checksums") {
            Kind::Checksums
        } else if name.ends_with(".bitsift-summaries") {
            Kind::Summaries
        } else {
            continue;
        };
        files.push((collection.join(name), kind));
    }
    files
}

/// Opens the collection and answers the queries as `bitsift query` does: an error of the
/// open, or per query its hits or its error.
fn answers(collection: &Path, queries: &[Vec<u8>]) -> Result<Vec<Result<Hits, String>>, String> {
    let paths = [collection.to_path_buf()];
    let header = HeaderOptions::default();
    let setup = SearchSetup {
        header,
        side_memory: SIDE_MEMORY_DEFAULT,
        session: SessionSetup {
            engine: EngineOptions::default(),
            config: SessionConfig {
                threads: 1,
                ..SessionConfig::default()
            },
        },
        ..SearchSetup::of_paths(paths.to_vec())
    };
    let opened = setup.open().map_err(|e| e.to_string())?;
    let index = opened.index;
    let mut session = opened.sessions.into_iter().next().ok_or("no session")?;
    let options = SearchOptions {
        threshold: 0.6,
        ..SearchOptions::default()
    };
    let batch: Vec<&[u8]> = queries.iter().map(Vec::as_slice).collect();
    let answers = session
        .search_batch(&batch, &options)
        .map_err(|e| e.to_string())?;
    Ok(answers
        .into_iter()
        .map(|answer| {
            let result = answer.map_err(|e| e.to_string())?;
            Ok(result
                .hits
                .iter()
                .map(|hit| {
                    let names = &index.headers()[hit.index as usize].names;
                    (
                        names.get(hit.document as usize).unwrap().to_string(),
                        hit.kmers_found,
                    )
                })
                .collect())
        })
        .collect())
}

/// Whether `found` holds every hit of `expected` with the same score (and maybe more).
fn includes(found: &Hits, expected: &Hits) -> bool {
    expected
        .iter()
        .all(|(name, score)| found.get(name) == Some(score))
}

/// Tallies of the trials' outcomes.
#[derive(Debug, Default)]
struct Tally {
    open_errors: usize,
    query_errors: usize,
    same: usize,
    more_read: usize,
}

#[test]
fn i20_random_damage_to_manifests_and_side_files_is_an_error_or_changes_nothing() {
    let dir = temp_dir();
    let (collection, queries) = build_collection(dir.path());
    let baseline: Vec<Hits> = answers(&collection, &queries)
        .expect("the undamaged collection opens")
        .into_iter()
        .map(|a| a.expect("every undamaged query is answered"))
        .collect();
    let hits: usize = baseline.iter().map(BTreeMap::len).sum();
    assert!(hits >= 14, "the queries find their genomes: {baseline:?}");
    assert!(baseline
        .iter()
        .all(|h| !h.contains_key("a01") && !h.contains_key("c02")));
    let files = side_files(&collection);
    assert_eq!(files.len(), 5, "{files:?}");
    let pristine: Vec<Vec<u8>> = files
        .iter()
        .map(|(p, _)| std::fs::read(p).unwrap())
        .collect();
    let root = collection.display().to_string();
    let mut rng = Rng(20);
    let mut tally = Tally::default();
    for trial in 0..TRIALS {
        let which = rng.below(files.len() as u64) as usize;
        let (path, kind) = &files[which];
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        let mut offsets = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(pristine[which].len() as u64);
            let value = pristine[which][at as usize] ^ (1 + rng.below(255) as u8);
            file.write_all_at(&[value], at).unwrap();
            offsets.push(at);
        }
        let what = format!("trial {trial}: {} at {offsets:?}", path.display());
        match answers(&collection, &queries) {
            Err(error) => {
                assert!(error.contains(&root), "{what}: unclear error {error}");
                tally.open_errors += 1;
            }
            Ok(found) => {
                for (q, (answer, expected)) in found.iter().zip(&baseline).enumerate() {
                    match answer {
                        Err(error) => {
                            assert!(error.contains(&root), "{what}: unclear error {error}");
                            tally.query_errors += 1;
                        }
                        Ok(hits) if hits == expected => tally.same += 1,
                        Ok(hits) if *kind == Kind::Summaries && includes(hits, expected) => {
                            tally.more_read += 1
                        }
                        Ok(hits) => panic!(
                            "{what}: query {q} answered {hits:?} silently instead of {expected:?}"
                        ),
                    }
                }
            }
        }
        let verify = run(&["verify", &root]);
        let report = format!("{}{}", stdout(&verify), stderr(&verify));
        assert_eq!(
            verify.status.code(),
            Some(1),
            "{what}: verify missed it: {report}"
        );
        assert!(report.contains(path.to_str().unwrap()), "{what}: {report}");
        file.write_all_at(&pristine[which], 0).unwrap();
    }
    for ((path, _), bytes) in files.iter().zip(&pristine) {
        assert_eq!(&std::fs::read(path).unwrap(), bytes, "restored");
    }
    eprintln!("{TRIALS} trials: {tally:?}");
    assert!(tally.open_errors > TRIALS / 5, "{tally:?}");
    assert!(tally.same > 0, "{tally:?}");
    assert_eq!(
        answers(&collection, &queries)
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect::<Vec<_>>(),
        baseline
    );
}
