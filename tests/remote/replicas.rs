//! Issue 34, replicas on one index: two `bitsift serve -i s3://…` behind nginx as a load
//! balancer, one collection on the S3-compatible server, changed on the store (add, remove,
//! merge: made locally with `bitsift add`/`remove`/`merge`, then uploaded with the manifest
//! last) while clients search through nginx. Every answer must name its generation and give
//! exactly the hits of a local search of that generation (never a mixture), each replica's
//! generations must only go forward, every replica must serve the new generation within
//! [`CONVERGE`] of the upload (the interval `docs/scale-out.md` states), and nothing may
//! error during the change.
//!
//! It starts servers of its own (`tests/remote/servers.py`, then `servers.py balance` for the
//! nginx in front of the replicas), so it runs beside the file's other test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::common::{self, ok, run, stderr, text, write_fasta, Rng};
use super::{copy_dir, exchange, exchange_head, harness, hits_of, Hits, Servers};

/// How soon after the manifest is uploaded every replica answers from the new generation:
/// the figure `docs/scale-out.md` states (one `HEAD` of the manifest a second, then the new
/// view's opening: a few round trips), with room for a loaded test machine.
const CONVERGE: Duration = Duration::from_secs(5);
/// Clients searching through nginx all the time.
const CLIENTS: usize = 4;
/// The query's threshold: low, so that every genome served is a hit.
const THRESHOLD: f64 = 0.05;

/// One `bitsift serve` replica.
struct Replica {
    child: Child,
    listen: String,
    log: PathBuf,
}

impl Replica {
    fn start(url: &str, extra: &[&str], servers: &Servers, log: PathBuf) -> Replica {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let listen = format!("127.0.0.1:{port}");
        let mut command = common::bitsift();
        command
            .args(["serve", "-i", url, "--listen", &listen])
            .args(extra)
            .env("HOME", env!("CARGO_TARGET_TMPDIR"))
            .stderr(std::fs::File::create(&log).unwrap());
        for (name, value) in servers.s3_env() {
            command.env(name, value);
        }
        let child = command.spawn().expect("start serve");
        Replica { child, listen, log }
    }

    /// Waits until `/healthz` says ok.
    fn wait_healthy(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, body) = exchange(&self.listen, "GET", "/healthz", "");
            if status == 200 && body.contains("\"status\":\"ok\"") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "replica {} not healthy after 60 s: {status} {body}; log: {}",
                self.listen,
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The Prometheus counter or gauge `name` of `/metrics`.
    fn metric(&self, name: &str) -> f64 {
        let (_, body) = exchange(&self.listen, "GET", "/metrics", "");
        body.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or(f64::NAN)
    }

    /// `VmRSS` and `VmHWM` of the process in MiB (Linux), 0 where unknown.
    fn memory_mib(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        let field = |name: &str| -> u64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
                .map_or(0, |kib: u64| kib / 1024)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One answer, as seen by a client.
#[derive(Debug)]
struct Answer {
    status: u16,
    /// The replica that answered: `X-Bitsift-Replica`, set by nginx, or the one asked.
    replica: String,
    /// Whether it came through nginx.
    via_nginx: bool,
    /// The generation of `X-Bitsift-Generations`.
    header_generation: Option<u64>,
    /// The generation of the JSON's `generations`.
    generation: Option<u64>,
    hits: Hits,
    body: String,
    /// When the request was sent and the answer read.
    sent: Instant,
    read: Instant,
}

/// The value of header `name` (lower case) in a lower-cased response head.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(str::trim)
}

/// One search of `body` at `listen`, read into an [`Answer`].
fn search(listen: &str, body: &str) -> Answer {
    let sent = Instant::now();
    let (status, head, body) = exchange_head(listen, "POST", "/api/search", body);
    let read = Instant::now();
    let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    let generations = json["generations"].as_array().cloned().unwrap_or_default();
    let generation = match generations.as_slice() {
        [only] if only["name"] == "collection" => only["generation"].as_u64(),
        _ => None,
    };
    let header_generation = header(&head, "x-bitsift-generations")
        .and_then(|v| v.strip_prefix("collection="))
        .and_then(|v| v.parse().ok());
    let replica = header(&head, "x-bitsift-replica");
    Answer {
        status,
        replica: replica.unwrap_or(listen).to_string(),
        via_nginx: replica.is_some(),
        header_generation,
        generation,
        hits: if status == 200 {
            hits_of(&json)
        } else {
            Hits::new()
        },
        body,
        sent,
        read,
    }
}

/// The generation of a local collection's manifest.
fn generation_of(collection: &Path) -> u64 {
    let manifest = std::fs::read_to_string(collection.join("collection.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    json["generation"].as_u64().expect("a generation")
}

/// Copies the collection as it is now into `generations/N` and returns N and the hits of a
/// local `bitsift query` of that copy: what any answer naming generation N must give.
fn snapshot(collection: &Path, generations: &Path, query: &Path) -> (u64, Hits) {
    let generation = generation_of(collection);
    let copy = generations.join(generation.to_string());
    copy_dir(collection, &copy, None);
    let threshold = THRESHOLD.to_string();
    let output = ok(run(&[
        "query",
        "-i",
        text(&copy),
        "-f",
        text(query),
        "-t",
        &threshold,
        "--format",
        "json",
    ]));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    (generation, hits_of(&json))
}

/// Ten small genomes (`r00` … `r09`) and one query with a piece of each and random bases:
/// every genome served is a hit, so the hits say which genomes an answer searched.
fn genomes_and_query(dir: &Path, rng: &mut Rng) -> (Vec<PathBuf>, PathBuf, String) {
    let genomes_dir = dir.join("genomes");
    std::fs::create_dir_all(&genomes_dir).unwrap();
    let mut paths = Vec::new();
    let mut query = Vec::new();
    for g in 0..10 {
        let sequence = rng.dna(4_000);
        query.extend_from_slice(&sequence[1_000..1_400]);
        let path = genomes_dir.join(format!("r{g:02}.fa"));
        write_fasta(&path, &[(format!("r{g:02}"), sequence)]);
        paths.push(path);
    }
    query.extend(rng.dna(400));
    let path = dir.join("query.fa");
    write_fasta(&path, &[("q".to_string(), query.clone())]);
    (paths, path, String::from_utf8(query).unwrap())
}

fn add(collection: &Path, genomes: &[PathBuf]) {
    let mut args = vec!["add", "-q", "-T", "1", text(collection)];
    args.extend(genomes.iter().map(|p| text(p)));
    ok(run(&args));
}

/// Lets nginx's workers read the files (the servers run as another user without root).
fn readable(dir: &Path) {
    let _ = Command::new("chmod")
        .args(["-R", "a+rX", text(dir)])
        .status();
}

/// Clients searching through nginx until `stop`, every answer kept.
fn start_clients(
    balancer: &str,
    body: &str,
    stop: &Arc<AtomicBool>,
    answers: &Arc<Mutex<Vec<Answer>>>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..CLIENTS)
        .map(|_| {
            let (balancer, body) = (balancer.to_string(), body.to_string());
            let (stop, answers) = (stop.clone(), answers.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let answer = search(&balancer, &body);
                    answers.lock().unwrap().push(answer);
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
        })
        .collect()
}

/// What the test runs: the collection, its servers, the replicas and nginx in front.
struct Rig {
    dir: PathBuf,
    collection: PathBuf,
    genomes: Vec<PathBuf>,
    query: PathBuf,
    /// The search request every client sends.
    body: String,
    replicas: Vec<Replica>,
    /// Declared after the replicas: they stop first, then the servers.
    servers: Servers,
    /// nginx's address.
    balancer: String,
    /// Removed last, once everything above has stopped.
    _work: tempfile::TempDir,
}

impl Rig {
    /// Builds a collection of two additions, starts the servers (uploading it), two
    /// replicas and nginx; `None` (said why) when the servers cannot start here. `expected`
    /// gets the first generation's hits.
    fn start(expected: &mut BTreeMap<u64, Hits>) -> Option<Rig> {
        let work = tempfile::Builder::new()
            .prefix("replicas-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let dir = work.path().to_path_buf();
        let (genomes, query, sequence) = genomes_and_query(&dir, &mut Rng(34));
        let collection = dir.join("store/collection");
        std::fs::create_dir_all(dir.join("store")).unwrap();
        add(&collection, &genomes[..4]);
        add(&collection, &genomes[4..6]);
        expected.extend([snapshot(&collection, &dir.join("generations"), &query)]);
        readable(&dir);
        let servers = match Servers::start(&dir.join("store"), &dir.join("state")) {
            Ok(servers) => servers,
            Err(why) => {
                eprintln!("SKIPPED: the test servers cannot start here: {why}");
                return None;
            }
        };
        // One replica keeps the index in memory (the default cache holds it), the other
        // reads the store for every search.
        let url = servers.s3("collection");
        let replicas = vec![
            Replica::start(&url, &[], &servers, dir.join("replica-0.log")),
            Replica::start(
                &url,
                &["--cache-size", "0"],
                &servers,
                dir.join("replica-1.log"),
            ),
        ];
        replicas.iter().for_each(Replica::wait_healthy);
        Some(Rig {
            body: serde_json::json!({"sequence": sequence, "threshold": THRESHOLD}).to_string(),
            balancer: start_balancer(&servers, &replicas),
            _work: work,
            dir,
            collection,
            genomes,
            query,
            replicas,
            servers,
        })
    }

    /// Makes `change` on the local collection, records its generation's hits in
    /// `expected`, uploads it (manifest last) and measures how soon each replica answers
    /// from it; the replicas' own answers go to `answers`.
    fn change(
        &self,
        change: &'static str,
        expected: &mut BTreeMap<u64, Hits>,
        answers: &Mutex<Vec<Answer>>,
    ) -> Converged {
        match change {
            "add" => add(&self.collection, &self.genomes[6..8]),
            "remove" => {
                let removed = self.dir.join("removed.txt");
                std::fs::write(&removed, "r01\nr06\n").unwrap();
                let collection = text(&self.collection);
                ok(run(&[
                    "remove",
                    "-q",
                    "--documents",
                    text(&removed),
                    collection,
                ]));
            }
            _ => {
                ok(run(&["merge", "-q", text(&self.collection)]));
            }
        }
        let generations = self.dir.join("generations");
        let (generation, hits) = snapshot(&self.collection, &generations, &self.query);
        if change != "merge" {
            // A merge keeps every score; the others must show in the answer.
            assert_ne!(expected.get(&(generation - 1)), Some(&hits), "{change}");
        }
        expected.insert(generation, hits);
        readable(&self.dir);
        let reads = |r: &Replica| r.metric("bitsift_read_requests_total");
        let reads_before: Vec<f64> = self.replicas.iter().map(reads).collect();
        self.servers.sync();
        let uploaded = Instant::now();
        let seconds = self
            .replicas
            .iter()
            .map(|replica| converged(replica, &self.body, generation, uploaded, answers))
            .collect();
        let reads_after = self.replicas.iter().map(reads);
        Converged {
            change,
            generation,
            seconds,
            reads: reads_after.zip(reads_before).map(|(a, b)| a - b).collect(),
        }
    }
}

/// nginx in front of `replicas` (`servers.py balance`): its address.
fn start_balancer(servers: &Servers, replicas: &[Replica]) -> String {
    let mut balance = vec!["balance", "--state", text(&servers.state)];
    for replica in replicas {
        balance.extend(["--upstream", replica.listen.as_str()]);
    }
    let output = harness(&balance).expect("servers.py balance");
    assert!(output.status.success(), "balance: {}", stderr(&output));
    let info: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let url = info["url"].as_str().expect("the balancer's url");
    url.trim_start_matches("http://").to_string()
}

/// How soon each replica answered from a change's generation after its upload.
struct Converged {
    change: &'static str,
    generation: u64,
    /// Per replica; `None` when not within twice [`CONVERGE`].
    seconds: Vec<Option<f64>>,
    /// Per replica, its read requests from just before the upload until it converged (the
    /// searches in between included).
    reads: Vec<f64>,
}

/// How long after the upload `replica` first answers from `generation` (searched directly,
/// every 50 ms, the answers kept), or `None` after twice [`CONVERGE`].
fn converged(
    replica: &Replica,
    body: &str,
    generation: u64,
    uploaded: Instant,
    answers: &Mutex<Vec<Answer>>,
) -> Option<f64> {
    while uploaded.elapsed() < 2 * CONVERGE {
        let answer = search(&replica.listen, body);
        let done = answer.generation == Some(generation);
        answers.lock().unwrap().push(answer);
        if done {
            return Some(uploaded.elapsed().as_secs_f64());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// Every answer is a 200 naming one generation (header and JSON agree) whose local search
/// gives exactly its hits.
fn check_answers(answers: &[Answer], expected: &BTreeMap<u64, Hits>) {
    for answer in answers {
        assert_eq!(
            answer.status, 200,
            "an error during the change: {}",
            answer.body
        );
        let generation = answer
            .generation
            .unwrap_or_else(|| panic!("no generation named: {}", answer.body));
        assert_eq!(
            answer.header_generation,
            Some(generation),
            "{}",
            answer.body
        );
        let hits = expected
            .get(&generation)
            .unwrap_or_else(|| panic!("generation {generation} was never committed"));
        assert_eq!(
            &answer.hits, hits,
            "the answer of {} names generation {generation} but is not its local search",
            answer.replica
        );
    }
}

/// No replica goes back: an answer sent after another of the same replica was read names
/// the same generation or a later one. (Answers that overlap in time may finish in any
/// order: a search finishes on the view it started with.)
fn check_forward(answers: &[Answer]) {
    let mut by_replica: BTreeMap<&str, Vec<&Answer>> = BTreeMap::new();
    for answer in answers {
        by_replica
            .entry(answer.replica.as_str())
            .or_default()
            .push(answer);
    }
    for (replica, mut list) in by_replica {
        list.sort_by_key(|a| a.sent);
        let mut by_read = list.clone();
        by_read.sort_by_key(|a| a.read);
        let mut done = by_read.iter().peekable();
        let mut newest_done = 0;
        for answer in list {
            while let Some(earlier) = done.next_if(|e| e.read < answer.sent) {
                newest_done = newest_done.max(earlier.generation.unwrap_or(0));
            }
            let generation = answer.generation.unwrap_or(0);
            assert!(
                generation >= newest_done,
                "{replica} went back from generation {newest_done} to {generation}"
            );
        }
    }
}

#[test]
fn replicas_behind_nginx_follow_a_collection_changed_on_s3() {
    if std::env::var("BITSIFT_SKIP_REMOTE").is_ok_and(|v| v == "1") {
        eprintln!("SKIPPED: BITSIFT_SKIP_REMOTE=1");
        return;
    }
    let mut expected = BTreeMap::new();
    let Some(rig) = Rig::start(&mut expected) else {
        return;
    };
    let resident_before: Vec<(u64, u64)> = rig.replicas.iter().map(Replica::memory_mib).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let answers = Arc::new(Mutex::new(Vec::new()));
    let clients = start_clients(&rig.balancer, &rig.body, &stop, &answers);
    std::thread::sleep(Duration::from_secs(1));
    let mut table = Vec::new();
    for change in ["add", "remove", "merge"] {
        table.push(rig.change(change, &mut expected, &answers));
        std::thread::sleep(Duration::from_millis(500));
    }
    std::thread::sleep(Duration::from_secs(1));
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.join().unwrap();
    }
    let answers = std::mem::take(&mut *answers.lock().unwrap());
    report(&rig, &resident_before, &table, &answers);
    check_answers(&answers, &expected);
    check_forward(&answers);
    check_converged(&rig, &table);
    check_replicas(&rig, &answers);
    let (status, body) = exchange(&rig.balancer, "POST", "/api/reload", "");
    assert_eq!(status, 403, "nginx keeps reloads from the outside: {body}");
    let last = expected.keys().last().copied();
    let via_nginx = answers.iter().filter(|a| a.via_nginx);
    let final_answers: Vec<Option<u64>> = via_nginx
        .rev()
        .take(CLIENTS)
        .map(|a| a.generation)
        .collect();
    assert!(
        final_answers.iter().all(|g| *g == last),
        "the last answers are of generation {last:?}: {final_answers:?}"
    );
}

/// Every replica served every change within [`CONVERGE`] of its upload.
fn check_converged(rig: &Rig, table: &[Converged]) {
    for row in table {
        for (replica, seconds) in rig.replicas.iter().zip(&row.seconds) {
            let seconds = seconds.unwrap_or(f64::INFINITY);
            assert!(
                seconds <= CONVERGE.as_secs_f64(),
                "{}: generation {} ({}) served {seconds:.2} s after the upload, not within {CONVERGE:?}",
                replica.listen,
                row.generation,
                row.change
            );
        }
    }
}

/// nginx used every replica, and each is healthy with no error in its log.
fn check_replicas(rig: &Rig, answers: &[Answer]) {
    for replica in &rig.replicas {
        assert!(
            answers
                .iter()
                .any(|a| a.via_nginx && a.replica == replica.listen),
            "nginx sent no request to {}",
            replica.listen
        );
        let (status, health) = exchange(&replica.listen, "GET", "/healthz", "");
        assert_eq!(status, 200, "{health}");
        assert!(health.contains("\"status\":\"ok\""), "{health}");
        let log = std::fs::read_to_string(&replica.log).unwrap_or_default();
        assert!(
            !log.contains("ERROR"),
            "{}: errors in the log: {log}",
            replica.listen
        );
    }
}

/// Prints what the run saw: convergence per change and replica, answers per replica and
/// generation, and what each replica cost (memory, reads, reloads; requests the S3 server
/// logged).
fn report(rig: &Rig, resident_before: &[(u64, u64)], table: &[Converged], answers: &[Answer]) {
    eprintln!("replicas: change, generation, seconds from the upload to the first answer from it and read requests meanwhile, per replica");
    for row in table {
        eprintln!(
            "  {:6} {:3} {:.2?} {:?}",
            row.change, row.generation, row.seconds, row.reads
        );
    }
    let mut counts: BTreeMap<(&str, Option<u64>), usize> = BTreeMap::new();
    for answer in answers {
        *counts
            .entry((answer.replica.as_str(), answer.generation))
            .or_insert(0) += 1;
    }
    eprintln!("answers per (replica, generation): {counts:?}");
    for (replica, before) in rig.replicas.iter().zip(resident_before) {
        let (rss, hwm) = replica.memory_mib();
        eprintln!(
            "  {}: RSS {} MiB at start, {rss} MiB at the end (peak {hwm} MiB); {} read requests, {} searches, {} reloads",
            replica.listen,
            before.0,
            replica.metric("bitsift_read_requests_total"),
            replica.metric("bitsift_requests_total"),
            replica.metric("bitsift_reloads_total"),
        );
    }
    let moto = std::fs::read_to_string(rig.servers.state.join("moto.log")).unwrap_or_default();
    let count = |needle: &str| moto.lines().filter(|l| l.contains(needle)).count();
    eprintln!(
        "S3 server: {} HEAD of the manifest, {} GET in all, {} PUT",
        count("HEAD /bitsift/collection/collection.json"),
        count("GET /bitsift/"),
        count("PUT /bitsift/"),
    );
}
