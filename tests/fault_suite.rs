//! Issue 30's fault suite: over a thousand seeded trials of what happens to real collections
//! (manifests lost, damaged or replaced; side files swapped between builds of the same names,
//! stale, truncated, flipped, replaced by a named pipe or a directory; index bytes changed;
//! collections snapshotted with hard links and changed on either side), each of which must end
//! in the right answer or a clear error: never a silent wrong answer, never a hang, never a
//! byte of a collection lost. The remote-origin trials are in `tests/remote.rs` (they need the
//! HTTP and S3 servers).
//!
//! A trial copies a pristine fixture, applies one fault, runs one command with a time limit
//! and judges it:
//! - **right**: the command succeeded and its answers are those of the bytes in place (the
//!   fixture's own answers, or those of the same command run on an undamaged copy);
//! - **clear error**: it failed with status 1 or 2, an `error` line and no panic;
//! - **silent wrong**: it succeeded with other answers, or it panicked;
//! - **hang**: it did not finish within [`TIME_LIMIT`];
//! - **lost**: a failed writer left the collection's files other than they were.
//!
//! The table of outcomes per category is printed (`cargo test --test fault_suite --
//! --nocapture`); the test fails on any silent wrong answer, hang or loss.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::*;

/// The seed of every trial's choices.
const SEED: u64 = 0x30_fa17;
/// A command still running after this long has hung (a reader blocked on a named pipe).
const TIME_LIMIT: Duration = Duration::from_secs(60);
/// Genomes in the fixture (three sub-indexes of eight) and bases each.
const GENOMES: usize = 24;
const GENOME_BASES: usize = 6_000;
/// Genomes kept aside for `add`.
const SPARE: usize = 4;
/// The genome whose one base differs in the "one base apart" build.
const SNP_GENOME: usize = 12;

/// Trials per category.
const SIDE_FILE_TRIALS: usize = 420;
const INDEX_TRIALS: usize = 160;
const MANIFEST_TRIALS: usize = 300;
const HARD_LINK_TRIALS: usize = 130;

/// How a trial ended.
#[derive(Debug)]
enum Outcome {
    Right,
    ClearError,
    SilentWrong(String),
    Hang,
    Lost(String),
}

/// Outcomes of one category (or one fault kind).
#[derive(Default)]
struct Tally {
    trials: u64,
    right: u64,
    errors: u64,
    wrong: u64,
    hangs: u64,
    lost: u64,
}

impl Tally {
    fn add(&mut self, outcome: &Outcome) {
        self.trials += 1;
        match outcome {
            Outcome::Right => self.right += 1,
            Outcome::ClearError => self.errors += 1,
            Outcome::SilentWrong(_) => self.wrong += 1,
            Outcome::Hang => self.hangs += 1,
            Outcome::Lost(_) => self.lost += 1,
        }
    }
}

/// Every trial's outcome, by category and fault kind, and the first failures' details.
#[derive(Default)]
struct Report {
    kinds: BTreeMap<(String, String), Tally>,
    failures: Vec<String>,
}

impl Report {
    fn record(&mut self, category: &str, kind: &str, outcome: Outcome) {
        if let Outcome::SilentWrong(why) | Outcome::Lost(why) = &outcome {
            self.failures.push(format!("{category} / {kind}: {why}"));
        }
        if let Outcome::Hang = outcome {
            self.failures.push(format!("{category} / {kind}: hang"));
        }
        self.kinds
            .entry((category.to_string(), kind.to_string()))
            .or_default()
            .add(&outcome);
    }

    fn table(&self) -> String {
        let mut out = String::from(
            "| category | fault | trials | handled (right answer) | handled (clear error) | silent wrong | hang | lost |\n|---|---|---|---|---|---|---|---|\n",
        );
        let mut total = Tally::default();
        for ((category, kind), t) in &self.kinds {
            out += &format!(
                "| {category} | {kind} | {} | {} | {} | {} | {} | {} |\n",
                t.trials, t.right, t.errors, t.wrong, t.hangs, t.lost
            );
            total.trials += t.trials;
            total.right += t.right;
            total.errors += t.errors;
            total.wrong += t.wrong;
            total.hangs += t.hangs;
            total.lost += t.lost;
        }
        out += &format!(
            "| **all** | | {} | {} | {} | {} | {} | {} |\n",
            total.trials, total.right, total.errors, total.wrong, total.hangs, total.lost
        );
        out
    }
}

/// A finished command, or none within the limit.
enum Ran {
    Done(Output),
    Hang,
}

/// Runs the binary with a time limit.
fn run_limited(args: &[&str]) -> Ran {
    run_bounded(args, TIME_LIMIT).map_or(Ran::Hang, Ran::Done)
}

/// Whether a failed run is a clear error: status 1 (failed), 2 (usage) or 3 (some queries
/// not answered, each reported), a `bitsift:` line naming the problem, no panic.
fn clear_error(output: &Output) -> Result<(), String> {
    let text = stderr(output);
    let code = output.status.code();
    if text.contains("panicked") || !matches!(code, Some(1..=3)) {
        return Err(format!("status {code:?}: {text}"));
    }
    if !text.contains("bitsift: ") {
        return Err(format!("no error line: {text}"));
    }
    Ok(())
}

/// The names of the queries a partial run (status 3) reported as not answered.
fn unanswered(output: &Output) -> std::collections::HashSet<String> {
    stderr(output)
        .split("query \"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The lines of `answers` whose query (first field) is not in `skip`.
fn answered_lines(answers: &str, skip: &std::collections::HashSet<String>) -> String {
    answers
        .lines()
        .filter(|line| !skip.contains(line.split('\t').next().unwrap_or("")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A query's answers, order-free: its TSV lines sorted.
fn answers(output: &Output) -> String {
    let mut lines: Vec<&str> = std::str::from_utf8(&output.stdout)
        .unwrap_or("")
        .lines()
        .collect();
    lines.sort_unstable();
    lines.join("\n")
}

/// Runs a query of `queries` on `index` (a file or a collection).
fn query(index: &Path, queries: &Path) -> Ran {
    run_limited(&[
        "query",
        "-q",
        "-i",
        text(index),
        "-f",
        text(queries),
        "-t",
        "0.7",
    ])
}

/// Judges a read: the answers `expected`, or a clear error.
fn judge_read(ran: Ran, expected: &str) -> Outcome {
    let output = match ran {
        Ran::Hang => return Outcome::Hang,
        Ran::Done(output) => output,
    };
    if output.status.success() {
        let got = answers(&output);
        if got == expected {
            return Outcome::Right;
        }
        return Outcome::SilentWrong(format!(
            "answers differ\n  got:      {}\n  expected: {}\n  stderr: {}",
            got.replace('\n', " | "),
            expected.replace('\n', " | "),
            stderr(&output)
        ));
    }
    if let Err(why) = clear_error(&output) {
        return Outcome::SilentWrong(why);
    }
    if output.status.code() != Some(3) {
        return Outcome::ClearError;
    }
    // A partial run's answered queries must have their whole answers.
    let skip = unanswered(&output);
    let got = answered_lines(&answers(&output), &skip);
    let want = answered_lines(expected, &skip);
    if got != want {
        return Outcome::SilentWrong(format!(
            "the answered queries' answers differ\n  got:      {}\n  expected: {}",
            got.replace('\n', " | "),
            want.replace('\n', " | ")
        ));
    }
    Outcome::ClearError
}

/// The pristine files the trials start from.
struct Fixture {
    root: PathBuf,
    queries: PathBuf,
    spare: Vec<PathBuf>,
    /// Answers of each fixture entry (`single`, `alt`, `snp`, `coll`).
    answers: HashMap<&'static str, String>,
    /// Sub-index file names of `coll` (the same in `coll-alt`).
    subindexes: Vec<String>,
}

/// Writes genomes `PREFIXNN.fa` (`count` of them, from `seed`) into `dir`; with `snp`, one base
/// of genome [`SNP_GENOME`] differs.
fn write_genomes(dir: &Path, prefix: &str, count: usize, seed: u64, snp: bool) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let mut rng = Rng(seed);
    (0..count)
        .map(|i| {
            let mut dna = rng.dna(GENOME_BASES + 97 * i);
            if snp && i == SNP_GENOME {
                dna[3_000] = if dna[3_000] == b'A' { b'C' } else { b'A' };
            }
            let path = dir.join(format!("{prefix}{i:02}.fa"));
            write_fasta(&path, &[(format!("{prefix}{i:02}"), dna)]);
            path
        })
        .collect()
}

fn must(ran: Ran) -> Output {
    match ran {
        Ran::Done(output) if output.status.success() => output,
        Ran::Done(output) => panic!("{}", stderr(&output)),
        Ran::Hang => panic!("hung while making the fixture"),
    }
}

/// `bitsift build` of `genomes` into `dir/x.cobs_compact` (8 genomes per block).
fn build_single(dir: &Path, genomes: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let index = dir.join("x.cobs_compact");
    must(run_limited(&[
        "build",
        "-q",
        "-p",
        "1",
        "--order",
        "input",
        "-o",
        text(&index),
        text(genomes),
    ]));
}

/// A collection of `genomes` added in three batches of eight, then one genome removed.
fn build_collection(dir: &Path, genomes: &[PathBuf]) {
    for batch in genomes.chunks(8) {
        let mut args = vec!["add", "-q", "-p", "1", text(dir)];
        args.extend(batch.iter().map(|p| text(p)));
        must(run_limited(&args));
    }
    remove_genome(dir, "g03");
}

fn remove_genome(dir: &Path, name: &str) -> Ran {
    let list = dir.with_extension(format!("remove-{name}.txt"));
    std::fs::write(&list, format!("{name}\n")).unwrap();
    run_limited(&["remove", "-q", "--documents", text(&list), text(dir)])
}

impl Fixture {
    fn make(root: &Path) -> Fixture {
        let genomes = write_genomes(&root.join("genomes/main"), "g", GENOMES, 1, false);
        write_genomes(&root.join("genomes/alt"), "g", GENOMES, 2, false);
        write_genomes(&root.join("genomes/snp"), "g", GENOMES, 1, true);
        let spare = write_genomes(&root.join("genomes/spare"), "e", SPARE, 3, false);
        let mut all = genomes.clone();
        all.extend(spare.iter().cloned());
        let queries = piece_queries(root, &all);
        let fx = root.join("fx");
        for (name, source) in [
            ("single", "main"),
            ("alt", "alt"),
            ("snp", "snp"),
            ("spare", "spare"),
        ] {
            build_single(&fx.join(name), &root.join("genomes").join(source));
        }
        build_collection(&fx.join("coll"), &genomes);
        let alt: Vec<PathBuf> = (0..GENOMES)
            .map(|i| root.join(format!("genomes/alt/g{i:02}.fa")))
            .collect();
        build_collection(&fx.join("coll-alt"), &alt);
        let mut expected = HashMap::new();
        for (name, index) in [
            ("single", "single/x.cobs_compact"),
            ("alt", "alt/x.cobs_compact"),
            ("snp", "snp/x.cobs_compact"),
            ("coll", "coll"),
        ] {
            let output = must(query(&fx.join(index), &queries));
            assert!(!answers(&output).is_empty());
            expected.insert(name, answers(&output));
        }
        assert_ne!(expected["single"], expected["alt"]);
        let subindexes = subindex_names(&fx.join("coll"));
        assert_eq!(subindexes.len(), 3, "three batches, three sub-indexes");
        assert_eq!(subindexes, subindex_names(&fx.join("coll-alt")));
        Fixture {
            root: root.to_path_buf(),
            queries,
            spare,
            answers: expected,
            subindexes,
        }
    }

    /// A fresh copy of the fixture's `fx` for one trial.
    fn copy(&self, trial: usize) -> PathBuf {
        let dest = self.root.join(format!("trial-{trial}"));
        let status = Command::new("cp")
            .arg("-a")
            .arg(self.root.join("fx"))
            .arg(&dest)
            .status()
            .unwrap();
        assert!(status.success());
        dest
    }
}

fn subindex_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("sub-") && n.ends_with(".cobs_compact"))
        .collect();
    names.sort();
    names
}

/// Removes whatever is at `path` (file, pipe or directory).
fn remove_any(path: &Path) {
    if path.is_dir() {
        std::fs::remove_dir_all(path).unwrap();
    } else if std::fs::symlink_metadata(path).is_ok() {
        std::fs::remove_file(path).unwrap();
    }
}

fn make_fifo(path: &Path) {
    remove_any(path);
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// One damage done to the file at `path`; `donor` is the same file of another build.
fn damage(path: &Path, kind: &str, donor: Option<&Path>, rng: &mut Rng) {
    match kind {
        "swap" | "stale" => {
            std::fs::copy(donor.unwrap(), path).unwrap();
        }
        "truncate" => {
            let bytes = std::fs::read(path).unwrap();
            let keep = rng.below(bytes.len() as u64) as usize;
            std::fs::write(path, &bytes[..keep]).unwrap();
        }
        "flip" => {
            let mut bytes = std::fs::read(path).unwrap();
            let at = rng.below(bytes.len() as u64) as usize;
            bytes[at] ^= 1 << rng.below(8);
            std::fs::write(path, &bytes).unwrap();
        }
        "append" => {
            let mut bytes = std::fs::read(path).unwrap();
            let extra = 1 + rng.below(4096) as usize;
            bytes.extend((0..extra).map(|_| rng.below(256) as u8));
            std::fs::write(path, &bytes).unwrap();
        }
        "empty" => std::fs::write(path, b"").unwrap(),
        "delete" => remove_any(path),
        "fifo" => make_fifo(path),
        "directory" => {
            remove_any(path);
            std::fs::create_dir(path).unwrap();
        }
        other => panic!("unknown damage {other}"),
    }
}

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len() as u64) as usize]
}

const SIDE_FILES: [&str; 2] = [".bitsift-summaries", ".bitsift-checksums"];

/// Side files of a single index or of a collection's sub-index: swapped with another build's
/// of the same names, one base apart, damaged, or not regular files. The index's bytes are
/// untouched, so the right answer is the fixture's.
fn side_file_trial(fx: &Fixture, trial: usize, rng: &mut Rng, report: &mut Report) {
    let dir = fx.copy(trial);
    let in_collection = rng.below(2) == 1;
    let (index, donor_dir, snp_dir, expected, target) = if in_collection {
        let sub = fx.subindexes[rng.below(3) as usize].clone();
        (
            dir.join("coll").join(&sub),
            dir.join("coll-alt").join(&sub),
            None,
            &fx.answers["coll"],
            dir.join("coll"),
        )
    } else {
        let index = dir.join("single/x.cobs_compact");
        (
            index.clone(),
            dir.join("alt/x.cobs_compact"),
            Some(dir.join("snp/x.cobs_compact")),
            &fx.answers["single"],
            index,
        )
    };
    let mut kinds = vec![
        "swap",
        "truncate",
        "flip",
        "append",
        "empty",
        "delete",
        "fifo",
        "directory",
    ];
    if snp_dir.is_some() {
        kinds.push("stale");
    }
    let kind = pick(rng, &kinds);
    let both = rng.below(4) == 0;
    let suffixes: Vec<&str> = if both {
        SIDE_FILES.to_vec()
    } else {
        vec![SIDE_FILES[rng.below(2) as usize]]
    };
    for suffix in &suffixes {
        let path = PathBuf::from(format!("{}{suffix}", index.display()));
        let donor_index = if kind == "stale" {
            snp_dir.as_ref().unwrap()
        } else {
            &donor_dir
        };
        let donor = PathBuf::from(format!("{}{suffix}", donor_index.display()));
        damage(&path, kind, Some(&donor), rng);
    }
    let outcome = judge_read(query(&target, &fx.queries), expected);
    let where_ = if in_collection { "sub-index" } else { "index" };
    let which = if both {
        "both side files".to_string()
    } else {
        suffixes[0].trim_start_matches(".bitsift-").to_string()
    };
    report.record("side files", &format!("{kind} {which} ({where_})"), outcome);
    remove_any(&dir);
}

/// The index's own bytes: damaged (its checksums must catch every page a search reads, its
/// size and header at open), or replaced by another build while its side files stay. The
/// right answer is that of the bytes in place: the fixture's, or the other build's.
fn index_trial(fx: &Fixture, trial: usize, rng: &mut Rng, report: &mut Report) {
    let dir = fx.copy(trial);
    let index = dir.join("single/x.cobs_compact");
    let kind = pick(
        rng,
        &[
            "flip",
            "truncate",
            "append",
            "fifo",
            "delete",
            "replaced by another build",
            "replaced by a build one base apart",
        ],
    );
    let expected = match kind {
        "replaced by another build" => {
            std::fs::copy(dir.join("alt/x.cobs_compact"), &index).unwrap();
            &fx.answers["alt"]
        }
        "replaced by a build one base apart" => {
            std::fs::copy(dir.join("snp/x.cobs_compact"), &index).unwrap();
            &fx.answers["snp"]
        }
        _ => {
            damage(&index, kind, None, rng);
            &fx.answers["single"]
        }
    };
    let outcome = judge_read(query(&index, &fx.queries), expected);
    report.record("index bytes", kind, outcome);
    remove_any(&dir);
}

/// Every file of a collection directory and its bytes (a pipe or directory as a marker).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().unwrap();
        let bytes = if kind.is_file() {
            std::fs::read(entry.path()).unwrap()
        } else {
            b"<not a file>".to_vec()
        };
        files.insert(name, bytes);
    }
    files
}

/// What changed between two snapshots, if anything.
fn changes(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut out = Vec::new();
    for (name, bytes) in before {
        match after.get(name) {
            None => out.push(format!("{name} deleted")),
            Some(now) if now != bytes => out.push(format!("{name} changed")),
            Some(_) => {}
        }
    }
    for name in after.keys() {
        if !before.contains_key(name) && !name.starts_with('.') {
            out.push(format!("{name} created"));
        }
    }
    out
}

/// A collection operation of the trials.
#[derive(Clone, Copy)]
enum Op {
    Query,
    Verify,
    Add(usize),
    Remove(usize),
    Merge,
    /// `add --adopt` of the spare genomes' index, whose original is then deleted.
    Adopt,
}

impl Op {
    fn random(rng: &mut Rng) -> Op {
        match rng.below(5) {
            0 => Op::Query,
            1 => Op::Verify,
            2 => Op::Add(rng.below(SPARE as u64) as usize),
            3 => Op::Remove(rng.below(GENOMES as u64) as usize),
            _ => Op::Merge,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Op::Query => "query",
            Op::Verify => "verify",
            Op::Add(_) => "add",
            Op::Remove(_) => "remove",
            Op::Merge => "merge",
            Op::Adopt => "adopt, original deleted",
        }
    }

    fn writes(self) -> bool {
        matches!(self, Op::Add(_) | Op::Remove(_) | Op::Merge | Op::Adopt)
    }

    fn run(self, fx: &Fixture, coll: &Path) -> Ran {
        match self {
            Op::Query => query(coll, &fx.queries),
            Op::Verify => run_limited(&["verify", "-q", text(coll)]),
            Op::Add(i) => run_limited(&["add", "-q", text(coll), text(&fx.spare[i])]),
            Op::Remove(i) => remove_genome(coll, &format!("g{i:02}")),
            Op::Merge => run_limited(&["merge", "-q", text(coll)]),
            Op::Adopt => adopt_and_delete(coll),
        }
    }
}

/// `add --adopt` of the trial's spare index into `coll`, then the original (and its side
/// files) deleted, as a clean-up after adopting does: the collection holds its own links.
fn adopt_and_delete(coll: &Path) -> Ran {
    let spare = coll.parent().unwrap().join("spare");
    let index = spare.join("x.cobs_compact");
    let ran = run_limited(&["add", "-q", text(coll), "--adopt", text(&index)]);
    remove_any(&spare);
    ran
}

/// The answers of the collection after `op` on an undamaged copy (cached by the caller).
fn reference_after(fx: &Fixture, op: Op, trial: usize) -> Option<String> {
    let dir = fx.copy(trial);
    let coll = dir.join("coll");
    let result = match op.run(fx, &coll) {
        Ran::Done(output) if output.status.success() => match query(&coll, &fx.queries) {
            Ran::Done(output) if output.status.success() => Some(answers(&output)),
            _ => None,
        },
        _ => None,
    };
    remove_any(&dir);
    result
}

/// Judges a writer that ran on a damaged collection: a clear error that changed nothing, or
/// success and then the answers of the same operation on an undamaged copy.
fn judge_write(
    ran: Ran,
    before: &BTreeMap<String, Vec<u8>>,
    coll: &Path,
    reference: Option<&String>,
    queries: &Path,
) -> Outcome {
    let output = match ran {
        Ran::Hang => return Outcome::Hang,
        Ran::Done(output) => output,
    };
    if !output.status.success() {
        if let Err(why) = clear_error(&output) {
            return Outcome::SilentWrong(why);
        }
        let changed = changes(before, &snapshot(coll));
        if !changed.is_empty() {
            return Outcome::Lost(format!("{}: {}", changed.join(", "), stderr(&output)));
        }
        return Outcome::ClearError;
    }
    match reference {
        Some(expected) => judge_read(query(coll, queries), expected),
        None => Outcome::SilentWrong("succeeded where an undamaged copy fails".into()),
    }
}

/// The manifest lost, damaged, replaced by a pipe, a directory or the manifest of another
/// collection of the same sub-index names; then a reader or a writer runs.
fn manifest_trial(
    fx: &Fixture,
    trial: usize,
    rng: &mut Rng,
    references: &mut HashMap<String, Option<String>>,
    report: &mut Report,
) {
    let dir = fx.copy(trial);
    let coll = dir.join("coll");
    let manifest = coll.join("collection.json");
    let kind = pick(
        rng,
        &[
            "delete",
            "truncate",
            "flip",
            "append",
            "empty",
            "fifo",
            "directory",
            "another collection's",
        ],
    );
    if kind == "another collection's" {
        std::fs::copy(dir.join("coll-alt/collection.json"), &manifest).unwrap();
    } else {
        damage(&manifest, kind, None, rng);
    }
    let op = Op::random(rng);
    let before = snapshot(&coll);
    let ran = op.run(fx, &coll);
    let outcome = if op.writes() {
        let key = format!("{:?}", (op.name(), op_arg(op)));
        let reference = references
            .entry(key)
            .or_insert_with(|| reference_after(fx, op, trial + 1_000_000));
        judge_write(ran, &before, &coll, reference.as_ref(), &fx.queries)
    } else if let (Op::Verify, false) = (op, kind == "another collection's") {
        judge_verify(ran)
    } else if let Op::Verify = op {
        // A manifest of the same files' names and parameters describes these files too: the
        // queries above answer what the bytes in place hold, and verify may pass.
        judge_verify(ran).or_right_if_passed()
    } else {
        judge_read(ran, &fx.answers["coll"])
    };
    report.record("manifest", &format!("{kind}, then {}", op.name()), outcome);
    remove_any(&dir);
}

fn op_arg(op: Op) -> usize {
    match op {
        Op::Add(i) | Op::Remove(i) => i,
        _ => 0,
    }
}

/// `verify` of a damaged collection must fail, clearly.
fn judge_verify(ran: Ran) -> Outcome {
    match ran {
        Ran::Hang => Outcome::Hang,
        Ran::Done(output) if output.status.success() => {
            Outcome::SilentWrong(format!("verify passed: {}", stdout(&output)))
        }
        Ran::Done(output) => match clear_error_or_report(&output) {
            Ok(()) => Outcome::ClearError,
            Err(why) => Outcome::SilentWrong(why),
        },
    }
}

impl Outcome {
    /// A verify that passed on a collection that is not damaged is right.
    fn or_right_if_passed(self) -> Outcome {
        match self {
            Outcome::SilentWrong(why) if why.starts_with("verify passed") => Outcome::Right,
            other => other,
        }
    }
}

/// `verify` reports damage on standard output and fails with status 1: that is clear too.
fn clear_error_or_report(output: &Output) -> Result<(), String> {
    let text = stderr(output);
    if text.contains("panicked") || output.status.code() != Some(1) {
        return Err(format!("status {:?}: {text}", output.status.code()));
    }
    Ok(())
}

/// A collection snapshotted with hard links (`cp -al`, as rsync `--link-dest` snapshots do);
/// one side then changed by a writer, or by adopting an index and deleting the original. The
/// other side must keep its answers; the changed side must answer as an undamaged copy does.
fn hard_link_trial(
    fx: &Fixture,
    trial: usize,
    rng: &mut Rng,
    references: &mut HashMap<String, Option<String>>,
    report: &mut Report,
) {
    let dir = fx.copy(trial);
    let coll = dir.join("coll");
    let snap = dir.join("snap");
    let status = Command::new("cp")
        .arg("-al")
        .arg(&coll)
        .arg(&snap)
        .status()
        .unwrap();
    assert!(status.success());
    let (changed, kept) = if rng.below(2) == 0 {
        (&coll, &snap)
    } else {
        (&snap, &coll)
    };
    let op = match rng.below(4) {
        0 => Op::Add(rng.below(SPARE as u64) as usize),
        1 => Op::Remove(rng.below(GENOMES as u64) as usize),
        2 => Op::Adopt,
        _ => Op::Merge,
    };
    let key = format!("{:?}", (op.name(), op_arg(op)));
    let reference = references
        .entry(key)
        .or_insert_with(|| reference_after(fx, op, trial + 1_000_000))
        .clone();
    let before = snapshot(kept);
    let before_changed = snapshot(changed);
    let ran = op.run(fx, changed);
    let mut outcome = judge_write(
        ran,
        &before_changed,
        changed,
        reference.as_ref(),
        &fx.queries,
    );
    if matches!(outcome, Outcome::Right | Outcome::ClearError) {
        let touched = changes(&before, &snapshot(kept));
        outcome = if !touched.is_empty() {
            Outcome::Lost(format!("the other side changed: {}", touched.join(", ")))
        } else {
            judge_read(query(kept, &fx.queries), &fx.answers["coll"])
        };
    }
    let side = if changed == &coll {
        "original"
    } else {
        "snapshot"
    };
    report.record(
        "hard links",
        &format!("{} on the {side}", op.name()),
        outcome,
    );
    remove_any(&dir);
}

#[test]
fn a_thousand_seeded_faults_end_in_the_right_answer_or_a_clear_error() {
    let root = temp_dir();
    let fx = Fixture::make(root.path());
    let mut rng = Rng(SEED);
    let mut report = Report::default();
    let mut references = HashMap::new();
    let started = Instant::now();
    let mut trial = 0;
    for _ in 0..SIDE_FILE_TRIALS {
        side_file_trial(&fx, trial, &mut rng, &mut report);
        trial += 1;
    }
    for _ in 0..INDEX_TRIALS {
        index_trial(&fx, trial, &mut rng, &mut report);
        trial += 1;
    }
    for _ in 0..MANIFEST_TRIALS {
        manifest_trial(&fx, trial, &mut rng, &mut references, &mut report);
        trial += 1;
    }
    for _ in 0..HARD_LINK_TRIALS {
        hard_link_trial(&fx, trial, &mut rng, &mut references, &mut report);
        trial += 1;
    }
    eprintln!(
        "fault suite: {trial} trials in {:.0} s, seed {SEED:#x}\n{}",
        started.elapsed().as_secs_f64(),
        report.table()
    );
    assert!(trial >= 1_000);
    assert!(
        report.failures.is_empty(),
        "{} trials went wrong; the first:\n{}",
        report.failures.len(),
        report.failures[..report.failures.len().min(5)].join("\n\n")
    );
}
