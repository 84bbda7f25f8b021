//! Corruption trials (issue 12): damage an index in the ways storage and people damage files,
//! run a command on it, and classify what the command did with each trial: a clear error, the
//! unchanged correct answer, a silent wrong answer, a panic, a death by signal, or a hang.
//!
//! Kinds of damage, in rotation: a flipped bit of a document a query reports, in a row that
//! query reads (the damage that changes answers); a random byte in a 4 KiB page the queries
//! read; a flipped bit of the header; one of
//! the header bytes 22 (k), 26 (canonical flag) and 51 (hash count) changed; a truncation.
//!
//! - `verify_catches_every_corruption` (in CI, 60 trials): `bitsift verify` must report every
//!   trial as damaged.
//! - `query_corruption_trials` (ignored: run it by hand) runs `bitsift query` on
//!   `BITSIFT_CORRUPTION_TRIALS` trials (default 1,000), prints the table and asserts the
//!   target of issue 12: no silent wrong answer, no panic, no death, no hang. It passes only
//!   once queries verify what they read against the sidecar.
//!
//! ```sh
//! BITSIFT_CORRUPTION_TRIALS=1000 cargo test --release --test corruption -- --ignored --nocapture
//! ```
//!
//! `BITSIFT_CORRUPTION_COMMAND=verify` runs the long trials with `bitsift verify` instead,
//! `BITSIFT_CORRUPTION_ENGINE=pread` (or `uring`, `mmap`, `ram`) makes `query` use that engine
//! (by default the index, just damaged, is in the page cache and scored in place), and
//! `BITSIFT_CORRUPTION_REPORT=FILE` writes the counts as JSON.

mod common;

use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use bitsift::format::IndexHeader;
use bitsift::seqfile::{SeqReader, SeqRecord};
use common::*;

/// Plasmids and a phage: a few MB of index, every trial cheap.
const GENOMES: &[&str] = &[
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

const HANG_LIMIT: Duration = Duration::from_secs(60);

/// How a damaged index is made: bytes to overwrite, or a new length.
#[derive(Clone, Debug)]
enum Edit {
    Bytes { offset: u64, bytes: Vec<u8> },
    Truncate { len: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    RowBit,
    PageByte,
    HeaderBit,
    HeaderField,
    Truncation,
}

const KINDS: [Kind; 5] = [
    Kind::RowBit,
    Kind::PageByte,
    Kind::HeaderBit,
    Kind::HeaderField,
    Kind::Truncation,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    ClearError,
    Unchanged,
    SilentWrong,
    Panic,
    Died,
    Hang,
}

const OUTCOMES: [Outcome; 6] = [
    Outcome::ClearError,
    Outcome::Unchanged,
    Outcome::SilentWrong,
    Outcome::Panic,
    Outcome::Died,
    Outcome::Hang,
];

/// The index under trial, and where the queries read it.
struct Subject {
    _dir: tempfile::TempDir,
    index: PathBuf,
    queries: PathBuf,
    pristine: Vec<u8>,
    header: IndexHeader,
    /// 4 KiB pages the queries read.
    pages: Vec<u64>,
    /// Per hit of the intact index (query, document): the rows that query reads in the
    /// document's block.
    hits: Vec<(u64, Vec<u64>)>,
}

fn subject() -> Subject {
    let dir = temp_dir();
    let index = dir.path().join("trial.cobs_compact");
    let mut args = vec!["build".to_string(), "-q".into(), "-o".into()];
    args.push(index.display().to_string());
    for genome in GENOMES {
        args.push(
            demo_file(&format!("genomes/{genome}"))
                .display()
                .to_string(),
        );
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let queries = dir.path().join("queries.fa");
    let mut text = std::fs::read(demo_file("queries/amr_genes.fa")).unwrap();
    text.extend(std::fs::read(demo_file("queries/replicons.fa")).unwrap());
    std::fs::write(&queries, text).unwrap();
    let header = IndexHeader::open(&index).unwrap();
    let rows = rows_read(&header, &queries);
    let pages: BTreeSet<u64> = rows
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|offset| offset / 4096))
        .collect();
    let hits = hits(&index, &queries, &header, &rows);
    Subject {
        pristine: std::fs::read(&index).unwrap(),
        _dir: dir,
        index,
        queries,
        header,
        pages: pages.into_iter().collect(),
        hits,
    }
}

/// The hits of the intact index, each with the rows its query reads in its document's block.
fn hits(
    index: &Path,
    queries: &Path,
    header: &IndexHeader,
    rows: &[(String, BTreeSet<u64>)],
) -> Vec<(u64, Vec<u64>)> {
    let output = run(&[
        "query",
        "-i",
        index.to_str().unwrap(),
        "-f",
        queries.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut hits = Vec::new();
    for line in stdout(&output).lines().skip(1) {
        let cells: Vec<&str> = line.split('\t').collect();
        let document = header
            .names
            .all()
            .unwrap()
            .iter()
            .position(|n| n == cells[1])
            .unwrap() as u64;
        let block = header
            .blocks
            .iter()
            .find(|b| {
                document >= b.first_document && document < b.first_document + b.document_count
            })
            .unwrap();
        let (_, query_rows) = rows.iter().find(|(name, _)| name == cells[0]).unwrap();
        let in_block: Vec<u64> = query_rows
            .iter()
            .copied()
            .filter(|&r| r >= block.data_offset && r < block.data_offset + block.data_bytes())
            .collect();
        hits.push((document - block.first_document, in_block));
    }
    assert!(!hits.is_empty(), "the queries find something");
    hits
}

/// Per record of `queries`, the row offsets its query reads, computed independently of the
/// query code: COBS's canonical term, xxh64 with seed j, row = hash mod rows, in every block.
fn rows_read(header: &IndexHeader, queries: &Path) -> Vec<(String, BTreeSet<u64>)> {
    let mut reader = SeqReader::open(queries).unwrap();
    let mut record = SeqRecord::default();
    let k = header.k as usize;
    let mut per_query = Vec::new();
    while reader.next_into(&mut record).unwrap() {
        let mut rows = BTreeSet::new();
        for window in record.sequence.windows(k) {
            let term = reference_term(window, header.canonical, false);
            for seed in 0..header.num_hashes as u64 {
                let hash = xxhash_rust::xxh64::xxh64(&term, seed);
                for block in &header.blocks {
                    rows.insert(block.data_offset + hash % block.row_count * block.row_bytes);
                }
            }
        }
        per_query.push((record.name.clone(), rows));
    }
    per_query
}

impl Subject {
    fn edit(&self, kind: Kind, rng: &mut Rng) -> Edit {
        let flip = |offset: u64, mask: u8| Edit::Bytes {
            offset,
            bytes: vec![self.pristine[offset as usize] ^ mask],
        };
        match kind {
            Kind::RowBit => {
                let (bit, rows) = &self.hits[rng.below(self.hits.len() as u64) as usize];
                let row = rows[rng.below(rows.len() as u64) as usize];
                flip(row + bit / 8, 1 << (bit % 8))
            }
            Kind::PageByte => {
                let page = self.pages[rng.below(self.pages.len() as u64) as usize];
                let end = ((page + 1) * 4096).min(self.pristine.len() as u64);
                let offset = page * 4096 + rng.below(end - page * 4096);
                flip(offset, 1 + rng.below(255) as u8)
            }
            Kind::HeaderBit => {
                let offset = rng.below(self.header.data_offset);
                flip(offset, 1 << rng.below(8))
            }
            Kind::HeaderField => {
                let offset = [22u64, 26, 51][rng.below(3) as usize];
                flip(offset, 1 << rng.below(2))
            }
            Kind::Truncation => Edit::Truncate {
                len: rng.below(self.pristine.len() as u64),
            },
        }
    }

    fn apply(&self, edit: &Edit) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.index)
            .unwrap();
        match edit {
            Edit::Bytes { offset, bytes } => file.write_all_at(bytes, *offset).unwrap(),
            Edit::Truncate { len } => file.set_len(*len).unwrap(),
        }
    }

    fn restore(&self, edit: &Edit) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.index)
            .unwrap();
        match edit {
            Edit::Bytes { offset, bytes } => {
                let original = &self.pristine[*offset as usize..][..bytes.len()];
                file.write_all_at(original, *offset).unwrap();
            }
            Edit::Truncate { len } => file
                .write_all_at(&self.pristine[*len as usize..], *len)
                .unwrap(),
        }
    }

    fn args(&self, command: &str) -> Vec<String> {
        let index = self.index.display().to_string();
        match command {
            "verify" => vec!["verify".into(), index],
            _ => {
                let mut args = vec![
                    "query".into(),
                    "-i".into(),
                    index,
                    "-f".into(),
                    self.queries.display().to_string(),
                ];
                // The engine that serves the rows: the automatic choice scores a just-damaged
                // index in place (it is in the page cache); `pread` or `uring` read it.
                if let Ok(engine) = std::env::var("BITSIFT_CORRUPTION_ENGINE") {
                    args.extend(["--engine".into(), engine]);
                }
                args
            }
        }
    }
}

/// Runs bitsift with `args`; returns (exit code or None if killed, stdout, stderr), or None
/// when it did not finish within the limit (it is then killed).
fn run_limited(args: &[String]) -> Option<(Option<i32>, Option<i32>, String, String)> {
    let mut child = bitsift()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let readers = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    });
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Some((
        status.code(),
        status.signal(),
        readers.join().unwrap(),
        errors.join().unwrap(),
    ))
}

fn classify(result: Option<(Option<i32>, Option<i32>, String, String)>, baseline: &str) -> Outcome {
    let Some((code, _signal, stdout, stderr)) = result else {
        return Outcome::Hang;
    };
    if stderr.contains("panicked") || code == Some(101) {
        return Outcome::Panic;
    }
    match code {
        None => Outcome::Died,
        Some(0) if stdout == baseline => Outcome::Unchanged,
        Some(0) => Outcome::SilentWrong,
        Some(_) if stderr.lines().any(|l| l.starts_with("bitsift: ")) => Outcome::ClearError,
        // A non-zero exit with no message is not a clear error.
        Some(_) => Outcome::SilentWrong,
    }
}

/// Counts per kind and outcome.
struct Table {
    counts: Vec<(Kind, Outcome, u64)>,
}

impl Table {
    fn add(&mut self, kind: Kind, outcome: Outcome) {
        match self
            .counts
            .iter_mut()
            .find(|(k, o, _)| (*k, *o) == (kind, outcome))
        {
            Some((_, _, n)) => *n += 1,
            None => self.counts.push((kind, outcome, 1)),
        }
    }

    fn count(&self, kind: Option<Kind>, outcome: Outcome) -> u64 {
        self.counts
            .iter()
            .filter(|(k, o, _)| *o == outcome && kind.is_none_or(|kind| kind == *k))
            .map(|(_, _, n)| n)
            .sum()
    }

    fn print(&self, command: &str, trials: usize) {
        eprintln!("\n{trials} corruption trials, bitsift {command}:");
        eprint!("{:<13}", "damage");
        for outcome in OUTCOMES {
            eprint!("{:>13}", format!("{outcome:?}"));
        }
        eprintln!();
        for kind in KINDS.iter().map(|&k| Some(k)).chain([None]) {
            let name = kind.map_or("all".into(), |k| format!("{k:?}"));
            eprint!("{name:<13}");
            for outcome in OUTCOMES {
                eprint!("{:>13}", self.count(kind, outcome));
            }
            eprintln!();
        }
    }

    fn json(&self, command: &str, trials: usize) -> String {
        let cells: Vec<String> = OUTCOMES
            .iter()
            .map(|&o| format!("\"{o:?}\": {}", self.count(None, o)))
            .collect();
        format!(
            "{{\"command\": \"{command}\", \"trials\": {trials}, {}}}\n",
            cells.join(", ")
        )
    }
}

fn trials(command: &str, count: usize, seed: u64) -> Table {
    let subject = subject();
    let baseline = match run_limited(&subject.args(command)) {
        Some((Some(0), _, stdout, _)) => stdout,
        other => panic!("the intact index fails: {other:?}"),
    };
    let mut rng = Rng(seed);
    let mut table = Table { counts: Vec::new() };
    for trial in 0..count {
        let kind = KINDS[trial % KINDS.len()];
        let edit = subject.edit(kind, &mut rng);
        subject.apply(&edit);
        let outcome = classify(run_limited(&subject.args(command)), &baseline);
        subject.restore(&edit);
        table.add(kind, outcome);
    }
    assert_eq!(std::fs::read(&subject.index).unwrap(), subject.pristine);
    table.print(command, count);
    if let Ok(path) = std::env::var("BITSIFT_CORRUPTION_REPORT") {
        std::fs::write(path, table.json(command, count)).unwrap();
    }
    table
}

#[test]
fn verify_catches_every_corruption() {
    let table = trials("verify", 60, 7);
    assert_eq!(
        table.count(None, Outcome::ClearError),
        60,
        "every damaged index is reported"
    );
}

#[test]
#[ignore = "slow (a process per trial); run by hand, see the module documentation"]
fn query_corruption_trials() {
    let count = std::env::var("BITSIFT_CORRUPTION_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let command = std::env::var("BITSIFT_CORRUPTION_COMMAND").unwrap_or_else(|_| "query".into());
    let table = trials(&command, count, 12);
    for outcome in [
        Outcome::SilentWrong,
        Outcome::Panic,
        Outcome::Died,
        Outcome::Hang,
    ] {
        assert_eq!(table.count(None, outcome), 0, "{outcome:?}");
    }
}
