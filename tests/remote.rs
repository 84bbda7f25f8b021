//! Remote indexes against real servers: nginx (HTTP range requests) and moto (the S3 API),
//! started by `tests/remote/servers.py` (as root: in a private network namespace with a
//! round trip injected). Every answer over HTTP and S3 must be the local file's, byte for
//! byte; every failure (404, 403, 500, a timeout, a file changed on the server) must be a
//! clear error and never an answer; the local cache must serve a repeated query without a
//! range request and survive a damaged page.
//!
//! The servers are started once for these checks (one test function, in steps), and the
//! test is skipped, saying why, when they cannot start (not root and no nginx) or when
//! `BITSIFT_SKIP_REMOTE=1`. Replicas behind nginx on one collection in S3 (issue 34) are a
//! test of their own with servers of their own, in `remote/replicas.rs`.

mod common;
#[path = "remote/replicas.rs"]
mod replicas;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{ok, run, stderr, stdout, text, write_fasta, Rng};

/// The servers of one test run; stopped when dropped.
struct Servers {
    state: PathBuf,
    info: serde_json::Value,
}

impl Servers {
    fn start(dir: &Path, state: &Path) -> Result<Servers, String> {
        let output = harness(&[
            "start",
            "--dir",
            text(dir),
            "--state",
            text(state),
            "--rtt-ms",
            "2",
        ])?;
        if !output.status.success() {
            return Err(stderr(&output));
        }
        let info: serde_json::Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("servers.py printed no JSON ({e}): {}", stdout(&output)))?;
        Ok(Servers {
            state: state.to_path_buf(),
            info,
        })
    }

    fn field(&self, name: &str) -> String {
        self.info[name]
            .as_str()
            .unwrap_or_else(|| panic!("servers.py: no {name}"))
            .to_string()
    }

    fn http(&self, relative: &str) -> String {
        format!("{}/{relative}", self.field("http"))
    }

    fn s3(&self, relative: &str) -> String {
        format!("s3://{}/{relative}", self.field("bucket"))
    }

    /// The environment an S3 client needs to reach the test server.
    fn s3_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.field("s3_endpoint")),
            ("AWS_ACCESS_KEY_ID", self.field("access_key")),
            ("AWS_SECRET_ACCESS_KEY", self.field("secret_key")),
            ("AWS_REGION", self.field("region")),
        ]
    }

    fn sync(&self) {
        let output = harness(&["sync", "--state", text(&self.state)]).expect("servers.py sync");
        assert!(output.status.success(), "sync: {}", stderr(&output));
    }

    /// Range requests (GET) nginx has logged so far.
    fn http_gets(&self) -> usize {
        let log = self.info["access_log"].as_str().unwrap_or_default();
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|line| line.contains("\"GET "))
            .count()
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        let _ = harness(&["stop", "--state", text(&self.state)]);
    }
}

fn harness(args: &[&str]) -> Result<Output, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/remote/servers.py");
    Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))
}

/// `bitsift` with `args` and the extra environment `env`.
fn run_env(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut command = common::bitsift();
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    // No profile files or credentials of the machine running the tests.
    command.env("HOME", env!("CARGO_TARGET_TMPDIR"));
    command.output().expect("run bitsift")
}

/// The indexes served: bitsift's layout (checksums, summaries), COBS's classic and compact
/// files (no side files), and a collection of two sub-indexes.
fn build_indexes(dir: &Path, rng: &mut Rng) -> Vec<Vec<u8>> {
    let genomes_dir = dir.join("genomes");
    std::fs::create_dir_all(&genomes_dir).unwrap();
    let mut genomes = Vec::new();
    let mut paths = Vec::new();
    for g in 0..16 {
        let sequence = rng.dna(20_000);
        let path = genomes_dir.join(format!("g{g:02}.fa"));
        write_fasta(&path, &[(format!("g{g:02}"), sequence.clone())]);
        genomes.push(sequence);
        paths.push(path);
    }
    let index = dir.join("serve/bitsift.cobs_compact");
    std::fs::create_dir_all(index.parent().unwrap()).unwrap();
    let mut args = vec!["build", "-q", "-T", "2", "-o", text(&index)];
    args.extend(paths.iter().map(|p| text(p)));
    ok(run(&args));
    for side in [".bitsift-checksums", ".bitsift-summaries"] {
        let mut name = index.as_os_str().to_owned();
        name.push(side);
        assert!(Path::new(&name).exists(), "the build wrote {side}");
    }
    let cobs = |args: &[&str]| {
        ok(Command::new(env!("CARGO_BIN_EXE_cobs"))
            .args(args)
            .output()
            .unwrap())
    };
    let classic = dir.join("serve/cobs.cobs_classic");
    cobs(&["classic-construct", text(&genomes_dir), text(&classic)]);
    let compact = dir.join("serve/cobs.cobs_compact");
    cobs(&["compact-construct", text(&genomes_dir), text(&compact)]);
    let collection = dir.join("serve/collection");
    let add = |inputs: &[PathBuf]| {
        let mut args = vec!["add", "-q", "-T", "2", text(&collection)];
        args.extend(inputs.iter().map(|p| text(p)));
        ok(run(&args));
    };
    add(&paths[..8]);
    add(&paths[8..]);
    genomes
}

/// Queries: pieces of genomes (hits) and random sequence (absent).
fn write_queries(path: &Path, genomes: &[Vec<u8>], rng: &mut Rng) {
    let queries = common::mixed_queries(rng, genomes, 12, 900, 20);
    let records: Vec<(String, Vec<u8>)> = queries
        .into_iter()
        .enumerate()
        .map(|(q, s)| (format!("q{q}"), s))
        .collect();
    write_fasta(path, &records);
}

/// The answers of `bitsift query` (TSV: no statistics, so equal answers are equal text).
fn answers(index: &str, queries: &Path, extra: &[&str], env: &[(&str, String)]) -> String {
    // COBS's threshold (raw fraction): enough hits to compare, false positives included.
    let mut args = vec![
        "query",
        "-i",
        index,
        "-f",
        text(queries),
        "-t",
        "0.3",
        "--raw-threshold",
    ];
    args.extend_from_slice(extra);
    let output = run_env(&args, env);
    assert!(
        output.status.success(),
        "query -i {index}: {}",
        stderr(&output)
    );
    stdout(&output)
}

/// The JSON of `bitsift query --format json`.
fn json_answers(index: &str, queries: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "query",
        "-i",
        index,
        "-f",
        text(queries),
        "-t",
        "0.3",
        "--raw-threshold",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let output = ok(run_env(&args, &[]));
    serde_json::from_slice(&output.stdout).expect("JSON output")
}

/// Every query's hits in a JSON answer of `query` (the request counts of its stats differ
/// between ways of reading; the hits must not). Never empty: a test comparing two missing
/// fields would check nothing.
fn query_hits(json: &serde_json::Value) -> Vec<serde_json::Value> {
    let queries = json["queries"].as_array().expect("a queries list");
    assert!(!queries.is_empty(), "no queries in {json}");
    queries.iter().map(|q| q["hits"].clone()).collect()
}

/// Sums a field of every batch of a JSON answer.
fn batch_sum(json: &serde_json::Value, field: &str) -> u64 {
    json["batches"]
        .as_array()
        .expect("batches")
        .iter()
        .map(|b| b[field].as_u64().unwrap_or(0))
        .sum()
}

fn fails_with(output: &Output, needles: &[&str]) {
    assert!(!output.status.success(), "should fail: {}", stdout(output));
    assert!(
        stdout(output).trim().is_empty(),
        "no answer on a failure: {}",
        stdout(output)
    );
    let message = stderr(output).to_lowercase();
    assert!(
        needles.iter().any(|n| message.contains(&n.to_lowercase())),
        "expected one of {needles:?} in: {message}"
    );
}

#[test]
fn remote_indexes_against_real_servers() {
    if std::env::var("BITSIFT_SKIP_REMOTE").is_ok_and(|v| v == "1") {
        eprintln!("SKIPPED: BITSIFT_SKIP_REMOTE=1");
        return;
    }
    let work = tempfile::Builder::new()
        .prefix("remote-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let dir = work.path();
    let mut rng = Rng(23);
    let genomes = build_indexes(dir, &mut rng);
    let queries = dir.join("queries.fa");
    write_queries(&queries, &genomes, &mut rng);
    // nginx's workers must be able to read the served files.
    let _ = Command::new("chmod")
        .args(["-R", "a+rX", text(dir)])
        .status();
    let servers = match Servers::start(&dir.join("serve"), &dir.join("state")) {
        Ok(servers) => servers,
        Err(why) => {
            eprintln!("SKIPPED: the test servers cannot start here: {why}");
            return;
        }
    };
    eprintln!("servers: {}", servers.info);
    same_answers_over_http_and_s3(&servers, dir, &queries);
    a_small_server_gives_the_same_answers(&servers, dir, &queries);
    a_server_without_ranges_is_named(dir, &queries);
    multi_range_requests_cut_requests_and_fall_back(&servers, &queries);
    info_and_verify_over_http(&servers);
    iobench_measures_a_url(&servers);
    serve_answers_from_a_url(&servers, dir, &queries);
    errors_are_clear_and_give_no_answer(&servers, &queries);
    the_cache_serves_a_repeated_query_and_survives_damage(&servers, dir, &queries);
    the_cache_opens_a_collection_early_and_follows_its_change(&servers, dir, &queries);
    a_file_changed_on_the_server_is_an_error(&servers, dir, &queries);
    a_server_reopens_a_file_changed_on_the_server(&servers, dir, &queries);
    a_server_follows_a_collection_on_a_server(&servers, dir, &queries);
    remote_origins_fault_trials(&servers, dir);
}

fn same_answers_over_http_and_s3(servers: &Servers, dir: &Path, queries: &Path) {
    let s3_env = servers.s3_env();
    for file in [
        "bitsift.cobs_compact",
        "cobs.cobs_classic",
        "cobs.cobs_compact",
    ] {
        let local = answers(text(&dir.join("serve").join(file)), queries, &[], &[]);
        assert!(local.lines().count() > 12, "{file}: hits to compare");
        let http = answers(&servers.http(file), queries, &[], &[]);
        assert_eq!(http, local, "{file} over HTTP");
        let s3 = answers(&servers.s3(file), queries, &[], &s3_env);
        assert_eq!(s3, local, "{file} over S3");
        let no_summaries = answers(&servers.http(file), queries, &["--no-summaries"], &[]);
        let local_no_summaries = answers(
            text(&dir.join("serve").join(file)),
            queries,
            &["--no-summaries"],
            &[],
        );
        assert_eq!(
            no_summaries, local_no_summaries,
            "{file} over HTTP, no summaries"
        );
    }
    let local = answers(text(&dir.join("serve/collection")), queries, &[], &[]);
    let http = answers(&servers.http("collection"), queries, &[], &[]);
    // Answers name their source: the collection's directory as given.
    let local = local.replace(text(&dir.join("serve/collection")), "COLLECTION");
    let http = http.replace(&servers.http("collection"), "COLLECTION");
    assert_eq!(http, local, "the collection over HTTP");
    let manifest = answers(
        &servers.http("collection/collection.json"),
        queries,
        &[],
        &[],
    );
    assert_eq!(
        manifest.replace(&servers.http("collection"), "COLLECTION"),
        local,
        "the collection named by its manifest's URL"
    );
    // The JSON says what the network cost, and the open costs one request per file: the
    // index and its three side files (checksums, summaries, counts of ones), each opened by a
    // GET of its first 256 KiB, which holds this small header and the side files' preambles
    // (the header is not read twice), and its catalog (whose names are so few that they are
    // read with the header, not by page); plus, in the same round trip, the checksums' last
    // bytes (the digest the summaries are bound to, which in a large index lies beyond the
    // first 256 KiB).
    let gets_before = servers.http_gets();
    let json = json_answers(&servers.http("bitsift.cobs_compact"), queries, &[]);
    assert!(batch_sum(&json, "remote_requests") > 0, "{json}");
    assert_eq!(
        servers.http_gets() - gets_before,
        batch_sum(&json, "remote_requests") as usize + 6,
        "requests beyond the batches': the five opens and the checksums' tail only"
    );
    assert!(batch_sum(&json, "remote_bytes") > 0);
    assert_eq!(json["batches"][0]["engine"], "remote");
}

/// A small threaded range server (`tests/remote/small_server.py`), as a new user would put
/// up, with a listen queue of 5 connections.
struct SmallServer {
    child: std::process::Child,
    url: String,
}

impl SmallServer {
    /// Serves `dir`; `--no-ranges` and the like in `extra`.
    fn start(dir: &Path, extra: &[&str]) -> SmallServer {
        use std::io::BufRead;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/remote/small_server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args(["--dir", text(dir), "--backlog", "5"])
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start small_server.py");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("its stdout");
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("small_server.py prints its URL");
        SmallServer {
            child,
            url: line.trim().to_string(),
        }
    }

    fn url(&self, relative: &str) -> String {
        format!("{}/{relative}", self.url)
    }
}

impl Drop for SmallServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Issue 34: a small server with a listen queue of 5 gives the answers nginx gives, the
/// requests in flight starting small and growing as it keeps up (at 256 at once it took
/// minutes).
fn a_small_server_gives_the_same_answers(servers: &Servers, dir: &Path, queries: &Path) {
    let small = SmallServer::start(&dir.join("serve"), &[]);
    for file in ["bitsift.cobs_compact", "cobs.cobs_classic"] {
        let nginx = answers(&servers.http(file), queries, &[], &[]);
        assert!(nginx.lines().count() > 12, "{file}: hits to compare");
        let started = Instant::now();
        let answer = answers(&small.url(file), queries, &[], &[]);
        assert_eq!(answer, nginx, "{file} from the small server");
        eprintln!("{file} from the small server: {:?}", started.elapsed());
    }
    let nginx = answers(&servers.http("collection"), queries, &[], &[]);
    let answer = answers(&small.url("collection"), queries, &[], &[]);
    assert_eq!(
        answer.replace(&small.url("collection"), "COLLECTION"),
        nginx.replace(&servers.http("collection"), "COLLECTION"),
        "the collection from the small server"
    );
}

/// Issue 34: a server that answers range requests with the whole file (as
/// `python3 -m http.server` does) is told so, with what works instead.
fn a_server_without_ranges_is_named(dir: &Path, queries: &Path) {
    let plain = SmallServer::start(&dir.join("serve"), &["--no-ranges"]);
    let output = run_env(
        &[
            "query",
            "-i",
            &plain.url("bitsift.cobs_compact"),
            "-f",
            text(queries),
        ],
        &[],
    );
    fails_with(&output, &["does not serve byte ranges"]);
    let message = stderr(&output);
    for works in ["nginx", "caddy", "object store"] {
        assert!(message.contains(works), "{works} named in: {message}");
    }
}

/// Where nginx takes multi-range requests, a query (of COBS's classic index: no checksum
/// pages to widen its reads) sends fewer requests for the same bytes
/// and answers; where it answers them with the whole file (`max_ranges 1`), the client goes
/// back to single ranges without reading that body.
fn multi_range_requests_cut_requests_and_fall_back(servers: &Servers, queries: &Path) {
    let url = servers.http("cobs.cobs_classic");
    // A few short queries, reads not merged and one request in flight, so that the small
    // index takes several reads (a query touching every page of it reads it whole), all of
    // them in the one multi-range request.
    let short = short_queries(queries);
    let queries = short.as_path();
    let one = [
        "--merge-gap",
        "0",
        "--remote-depth",
        "1",
        "--remote-ranges",
        "1",
    ];
    let many = ["--merge-gap", "0", "--remote-depth", "1"];
    let single = json_answers(&url, queries, &one);
    let gets_before = servers.http_gets();
    let multi = json_answers(&url, queries, &many);
    let multi_gets = servers.http_gets() - gets_before;
    assert_eq!(query_hits(&multi), query_hits(&single));
    let (single_requests, multi_requests) = (
        batch_sum(&single, "remote_requests"),
        batch_sum(&multi, "remote_requests"),
    );
    eprintln!("requests: {single_requests} one range each, {multi_requests} multi-range");
    assert!(
        single_requests >= 4 && multi_requests * 2 <= single_requests,
        "multi-range requests: {multi_requests}, single: {single_requests}"
    );
    // nginx saw the requests counted (and the sequential reads of the header and names).
    assert!(multi_gets as u64 >= multi_requests, "{multi_gets}");
    let log = std::fs::read_to_string(servers.field("access_log")).unwrap();
    let partial = log.lines().filter(|l| l.contains("\" 206 ")).count();
    assert!(partial > 0, "nginx answered range requests with 206");
    // max_ranges 1: the probe is answered 200 and its body never read.
    let limited = servers.http("max-ranges-1/cobs.cobs_classic");
    let fallback = json_answers(&limited, queries, &many);
    assert_eq!(query_hits(&fallback), query_hits(&single));
    assert_eq!(
        batch_sum(&fallback, "remote_bytes"),
        batch_sum(&single, "remote_bytes"),
        "the whole file of the 200 was not read"
    );
    let whole = log_200s(servers);
    assert!(whole >= 1, "nginx answered the probe with the whole file");
    assert!(batch_sum(&fallback, "remote_requests") <= single_requests + whole as u64);
}

/// Four 40-base pieces of the sequences of `queries`, in a file beside it.
fn short_queries(queries: &Path) -> PathBuf {
    let text = std::fs::read_to_string(queries).unwrap();
    let mut records = Vec::new();
    for record in text.split('>').filter(|r| !r.is_empty()) {
        let sequence: String = record.lines().skip(1).collect();
        for start in (0..sequence.len().saturating_sub(40)).step_by(200) {
            let piece = sequence.as_bytes()[start..start + 40].to_vec();
            records.push((format!("s{}", records.len()), piece));
        }
    }
    let path = queries.with_file_name("short.fa");
    records.truncate(4);
    write_fasta(&path, &records);
    path
}

/// Answers of `200` to GET requests in nginx's log.
fn log_200s(servers: &Servers) -> usize {
    let log = std::fs::read_to_string(servers.field("access_log")).unwrap();
    log.lines()
        .filter(|l| l.contains("\"GET /max-ranges-1/") && l.contains("\" 200 "))
        .count()
}

fn info_and_verify_over_http(servers: &Servers) {
    let info = ok(run(&["info", &servers.http("bitsift.cobs_compact")]));
    let info = stdout(&info);
    assert!(info.contains("checksums"), "{info}");
    let url = servers.http("bitsift.cobs_compact");
    let verified = ok(run(&["verify", &url]));
    assert!(
        stdout(&verified).contains(&format!("{url}: ok (")),
        "{}",
        stdout(&verified)
    );
    let collection = ok(run(&["info", &servers.http("collection")]));
    assert!(
        stdout(&collection).contains("sub-index"),
        "{}",
        stdout(&collection)
    );
}

/// `bitsift serve -i URL` answers as `query -i` on the local file does.
fn serve_answers_from_a_url(servers: &Servers, dir: &Path, queries: &Path) {
    let (mut server, listen) = start_serve(&servers.http("bitsift.cobs_compact"), &[]);
    let sequence = first_sequence(queries);
    let (status, answer) = post_search(&listen, &sequence, true);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(status, 200, "{answer}");
    let json: serde_json::Value = serde_json::from_str(&answer)
        .unwrap_or_else(|e| panic!("serve answered no JSON ({e}): {answer}"));
    let served: Vec<String> = json["results"][0]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["document"].as_str().unwrap().to_string())
        .collect();
    let first = dir.join("first.fa");
    std::fs::write(&first, format!(">q0\n{sequence}\n")).unwrap();
    let local = answers(
        text(&dir.join("serve/bitsift.cobs_compact")),
        &first,
        &[],
        &[],
    );
    for document in &served {
        assert!(
            local.contains(document.as_str()),
            "{document} not in {local}"
        );
    }
    let local_documents = (0..16)
        .filter(|g| local.contains(&format!("g{g:02}")))
        .count();
    assert_eq!(
        served.len(),
        local_documents,
        "served {served:?}, local {local}"
    );
    assert!(
        !served.is_empty(),
        "the first query is a piece of a genome: {json}"
    );
}

fn iobench_measures_a_url(servers: &Servers) {
    let url = servers.http("bitsift.cobs_compact");
    let output = ok(run(&[
        "iobench", &url, "-d", "300ms", "--depths", "1,8", "--format", "json", "-q",
    ]));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let runs = report["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2 * 3, "two depths, three request sizes");
    for run in runs {
        assert!(run["requests"].as_u64().unwrap() > 0, "{run}");
        assert_eq!(run["errors"], 0, "{run}");
    }
    let gap = report["recommendation"]["merge_gap"].as_u64().unwrap();
    assert!((16 << 10..=8 << 20).contains(&gap), "{gap}");
}

fn errors_are_clear_and_give_no_answer(servers: &Servers, queries: &Path) {
    let fast = [
        "--remote-retries",
        "1",
        "--remote-timeout",
        "2",
        "--remote-deadline",
        "4",
    ];
    let query = |index: &str| {
        let mut args = vec!["query", "-i", index, "-f", text(queries)];
        args.extend_from_slice(&fast);
        run_env(&args, &[])
    };
    fails_with(
        &query(&servers.http("missing.cobs_compact")),
        &["not found", "404"],
    );
    fails_with(
        &query(&servers.http("status/403/bitsift.cobs_compact")),
        &["access denied", "403"],
    );
    let started = Instant::now();
    fails_with(
        &query(&servers.http("status/500/bitsift.cobs_compact")),
        &["500"],
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "500: retries are bounded"
    );
    let blackhole = format!("{}/bitsift.cobs_compact", servers.field("blackhole"));
    let started = Instant::now();
    fails_with(&query(&blackhole), &["no answer from the server"]);
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "a server that never answers fails within the deadline: {:?}",
        started.elapsed()
    );
    let s3_missing = run_env(
        &[
            "query",
            "-i",
            &servers.s3("missing.cobs_compact"),
            "-f",
            text(queries),
        ],
        &servers.s3_env(),
    );
    fails_with(&s3_missing, &["not found", "404"]);
}

fn the_cache_serves_a_repeated_query_and_survives_damage(
    servers: &Servers,
    dir: &Path,
    queries: &Path,
) {
    let cache = dir.join("cache");
    let url = servers.http("bitsift.cobs_compact");
    let with_cache = ["--cache-dir", text(&cache), "--cache-dir-size", "64M"];
    let first = json_answers(&url, queries, &with_cache);
    assert!(batch_sum(&first, "remote_requests") > 0);
    let gets_before = servers.http_gets();
    let second = json_answers(&url, queries, &with_cache);
    assert_eq!(batch_sum(&second, "remote_requests"), 0, "{second}");
    assert!(batch_sum(&second, "remote_cache_hits") > 0);
    assert_eq!(
        servers.http_gets(),
        gets_before,
        "the repeat sent no range request (only the HEAD that checks the ETag)"
    );
    assert_eq!(first["results"], second["results"]);
    // Damage every cached page: each is detected, fetched again, and the answer holds.
    let mut damaged = 0;
    for entry in walk(&cache) {
        let mut bytes = std::fs::read(&entry).unwrap();
        if let Some(byte) = bytes.first_mut() {
            *byte ^= 0x40;
            std::fs::write(&entry, bytes).unwrap();
            damaged += 1;
        }
    }
    assert!(damaged > 0, "the cache holds pages");
    let third = json_answers(&url, queries, &with_cache);
    assert!(
        batch_sum(&third, "remote_requests") > 0,
        "damaged pages are fetched again"
    );
    assert_eq!(first["results"], third["results"]);
}

/// With a local cache, a search of a remote collection opens the sub-indexes its cached
/// manifest names together with the manifest (issue 32): a guess, which must never decide
/// what is searched. After a change on the server the answers are those of the new
/// manifest, as a search without the cache gives them.
fn the_cache_opens_a_collection_early_and_follows_its_change(
    servers: &Servers,
    dir: &Path,
    queries: &Path,
) {
    let local = dir.join("serve/early");
    copy_dir(&dir.join("serve/collection"), &local, None);
    let _ = Command::new("chmod")
        .args(["-R", "a+rX", text(&local)])
        .status();
    let cache = dir.join("cache-early");
    let url = servers.http("early");
    let with_cache = ["--cache-dir", text(&cache), "--cache-dir-size", "64M"];
    let named = |answer: String, from: &str| answer.replace(from, "COLLECTION");
    let expected = named(answers(text(&local), queries, &[], &[]), text(&local));
    let first = named(answers(&url, queries, &with_cache, &[]), &url);
    assert_eq!(first, expected, "the collection over HTTP, cache filled");
    let gets_before = servers.http_gets();
    let second = named(answers(&url, queries, &with_cache, &[]), &url);
    assert_eq!(second, expected, "the collection over HTTP, from the cache");
    assert_eq!(
        servers.http_gets(),
        gets_before,
        "the repeat read nothing anew"
    );
    // Hide the genome of the first hit on the server: the cached manifest is now stale.
    let removed = expected
        .lines()
        .find(|line| !line.starts_with('#') && !line.starts_with("query\t"))
        .and_then(|line| line.split('\t').nth(1))
        .expect("the queries have hits")
        .to_string();
    let names = dir.join("early-remove.txt");
    std::fs::write(&names, format!("{removed}\n")).unwrap();
    ok(run_env(
        &["remove", "-q", text(&local), "--documents", text(&names)],
        &[],
    ));
    let _ = Command::new("chmod")
        .args(["-R", "a+rX", text(&local)])
        .status();
    let changed = named(answers(text(&local), queries, &[], &[]), text(&local));
    assert_ne!(changed, expected, "the removal changed the answers");
    let third = named(answers(&url, queries, &with_cache, &[]), &url);
    assert_eq!(
        third, changed,
        "the new manifest decides, not the cached one"
    );
    assert!(
        !third.contains(&format!("\t{removed}\t")),
        "{removed} is hidden"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// An index opened over HTTP and S3, then changed on the server (same size, other bytes):
/// the open session's next search fails, naming the change, instead of answering from a mix
/// of two versions.
fn a_file_changed_on_the_server_is_an_error(servers: &Servers, dir: &Path, queries: &Path) {
    use bitsift::format::HeaderOptions;
    use bitsift::query::{Index, SearchOptions, SessionConfig};
    use bitsift::search::SessionSetup;
    let file = dir.join("serve/cobs.cobs_compact");
    let sequence = std::fs::read_to_string(queries).unwrap();
    let query: Vec<u8> = sequence
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('>'))
        .flat_map(|l| l.bytes())
        .collect();
    for (name, location) in [
        ("HTTP", servers.http("cobs.cobs_compact")),
        ("S3", servers.s3("cobs.cobs_compact")),
    ] {
        if name == "S3" {
            for (key, value) in servers.s3_env() {
                std::env::set_var(key, value);
            }
        }
        let setup = SessionSetup {
            config: SessionConfig {
                threads: 1,
                ..SessionConfig::default()
            },
            ..SessionSetup::default()
        };
        let mut session = Index::open(&[PathBuf::from(&location)], &HeaderOptions::default())
            .and_then(|index| setup.open(&index))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let options = SearchOptions {
            threshold: 0.3,
            ..SearchOptions::default()
        };
        let before = session
            .search(&query, &options)
            .expect("answer before the change");
        assert!(!before.hits.is_empty());
        let original = std::fs::read(&file).unwrap();
        let mut changed = original.clone();
        let len = changed.len();
        for byte in &mut changed[len - 4096..] {
            *byte = !*byte;
        }
        std::fs::write(&file, &changed).unwrap();
        touch_later(&file);
        if name == "S3" {
            servers.sync();
        }
        let after = session.search(&query, &options);
        let error = after.expect_err("a changed file gives an error, not an answer");
        assert!(
            error.to_string().contains("changed on the server"),
            "{name}: {error}"
        );
        std::fs::write(&file, &original).unwrap();
        if name == "S3" {
            servers.sync();
        }
    }
}

/// `bitsift serve -i URL`, then the file replaced on the server (a new ETag): the request
/// that meets the change fails, saying so, and the server reopens the file in the background,
/// so later requests are answered from the new version without a restart.
fn a_server_reopens_a_file_changed_on_the_server(servers: &Servers, dir: &Path, queries: &Path) {
    let file = dir.join("serve/changing.cobs_compact");
    std::fs::copy(dir.join("serve/bitsift.cobs_compact"), &file).unwrap();
    // No row cache: every search reads from the server (cached rows would be answered
    // from the version opened until a read reaches the server).
    let url = servers.http("changing.cobs_compact");
    let (mut server, listen) = start_serve(&url, &["--cache-size", "0"]);
    let sequence = first_sequence(queries);
    let search = |wait: bool| post_search(&listen, &sequence, wait);
    let (status, before) = search(true);
    assert_eq!(status, 200, "{before}");
    // The same bytes with a new modification time: a new ETag.
    touch_later(&file);
    let (status, failed) = search(false);
    let mut after = (status, failed.clone());
    for _ in 0..50 {
        if after.0 == 200 {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
        after = search(false);
    }
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(
        status, 503,
        "the request meeting the change fails as the README says (issue 30): {failed}"
    );
    assert!(failed.contains("changed on the server"), "{failed}");
    assert_eq!(after.0, 200, "answered again after the reopen: {}", after.1);
    let hits = |body: &str| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(body).expect("JSON")["results"][0]["hits"].clone()
    };
    assert_eq!(
        hits(&after.1),
        hits(&before),
        "the same bytes, the same hits"
    );
}

/// `bitsift serve -i url` with `extra` options, on a free port: the child and its address.
fn start_serve(url: &str, extra: &[&str]) -> (std::process::Child, String) {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let listen = format!("127.0.0.1:{port}");
    let server = common::bitsift()
        .args(["serve", "-q", "-i", url, "--listen", &listen])
        .args(extra)
        .spawn()
        .expect("start serve");
    (server, listen)
}

/// The sequence of the first record of the FASTA file `queries`.
fn first_sequence(queries: &Path) -> String {
    let fasta = std::fs::read_to_string(queries).unwrap();
    fasta
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('>'))
        .collect()
}

/// One `POST /api/search` of `sequence` to the server at `listen`: its status and body
/// (status 0 when it never answered). With `wait`, retried until the server listens.
fn post_search(listen: &str, sequence: &str, wait: bool) -> (u16, String) {
    let script = format!(
        "import json,sys,time,urllib.request,urllib.error\nfor _ in range(100 if {wait} else 1):\n    try:\n        r=urllib.request.urlopen(urllib.request.Request('http://{listen}/api/search',data=json.dumps({{'sequence':sys.argv[1],'threshold':0.3,'raw_threshold':True}}).encode()))\n        print(r.status); print(r.read().decode()); break\n    except urllib.error.HTTPError as e:\n        print(e.code); print(e.read().decode()); break\n    except OSError:\n        time.sleep(0.2)\n",
        wait = if wait { "True" } else { "False" }
    );
    let out = Command::new("python3")
        .args(["-c", &script, sequence])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (status, body) = text.split_once('\n').unwrap_or(("0", ""));
    (status.trim().parse().unwrap_or(0), body.to_string())
}

/// Gives `file` a modification time 5 s ahead, hence a new ETag on nginx and moto even
/// within the same second.
fn touch_later(file: &Path) {
    let later = std::time::SystemTime::now() + Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(later)
        .unwrap();
}

/// Issue 30: `serve -i URL-of-a-collection` follows the manifest on the server as it follows
/// a local one: a genome removed on the origin is gone from the answers within a few seconds
/// (never an answer from the old generation after that), and a merge on the origin (its
/// sub-index files replaced) is followed without a 500, `/healthz` ok at the end.
fn a_server_follows_a_collection_on_a_server(servers: &Servers, dir: &Path, queries: &Path) {
    let collection = dir.join("serve/collection");
    let (mut server, listen) = start_serve(&servers.http("collection"), &["--cache-size", "0"]);
    let sequence = first_sequence(queries);
    let hits = |body: &str| -> Vec<String> {
        let json: serde_json::Value = serde_json::from_str(body).expect("JSON");
        let hits = json["results"][0]["hits"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        hits.iter()
            .map(|h| h["document"].as_str().unwrap().to_string())
            .collect()
    };
    let (status, body) = post_search(&listen, &sequence, true);
    assert_eq!(status, 200, "{body}");
    let before = hits(&body);
    assert!(!before.is_empty(), "the query has hits: {body}");
    let removed = before[0].clone();
    let names = dir.join("removed.txt");
    std::fs::write(&names, format!("{removed}\n")).unwrap();
    ok(run(&[
        "remove",
        "-q",
        "--documents",
        text(&names),
        text(&collection),
    ]));
    let readable = || {
        let _ = Command::new("chmod")
            .args(["-R", "a+rX", text(&collection)])
            .status();
    };
    readable();
    // Followed within the interval: a HEAD of the manifest once a second.
    let gone = (0..50).find_map(|_| {
        std::thread::sleep(Duration::from_millis(200));
        let (status, body) = post_search(&listen, &sequence, false);
        assert_eq!(status, 200, "{body}");
        (!hits(&body).contains(&removed)).then_some(body)
    });
    let gone = gone.unwrap_or_else(|| panic!("{removed} still answered 10 s after its removal"));
    let expected: Vec<String> = before.iter().filter(|d| **d != removed).cloned().collect();
    assert_eq!(hits(&gone), expected);
    // Never back: every later answer is of the new generation.
    for _ in 0..5 {
        let (status, body) = post_search(&listen, &sequence, false);
        assert_eq!((status, hits(&body)), (200, expected.clone()), "{body}");
    }
    ok(run(&["merge", "-q", text(&collection)]));
    readable();
    let mut statuses = Vec::new();
    for _ in 0..25 {
        std::thread::sleep(Duration::from_millis(200));
        let (status, body) = post_search(&listen, &sequence, false);
        if status == 200 {
            assert_eq!(hits(&body), expected, "{body}");
        }
        statuses.push(status);
    }
    let health = Command::new("python3")
        .args(["-c", &format!("import urllib.request;print(urllib.request.urlopen('http://{listen}/healthz').read().decode())")])
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 503),
        "only answers or 'try again' while the origin merges: {statuses:?}"
    );
    assert_eq!(statuses.last(), Some(&200), "{statuses:?}");
    let health = String::from_utf8_lossy(&health.stdout);
    assert!(health.contains("\"status\":\"ok\""), "{health}");
}

// ---------------------------------------------------------------- issue 30: origin faults

/// Trials of the fault suite's "remote origins" category (issue 30).
const ORIGIN_TRIALS: usize = 120;
/// How long a trial waits for the server to give the origin's answer: the follow interval
/// (a `HEAD` of the manifest once a second) and a margin.
const FOLLOW_DEADLINE: Duration = Duration::from_secs(5);
/// A request with no answer within this long is a hang.
const HANG: Duration = Duration::from_secs(30);

/// The changes a trial makes to the origin, one per trial.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Change {
    Add,
    Remove,
    Merge,
    ReplaceSummaries,
    ReplaceChecksums,
    Truncate,
    FlipByte,
    DeleteSideFile,
    DeleteManifest,
    RestorePristine,
}

impl Change {
    const ALL: [Change; 10] = [
        Change::Add,
        Change::Remove,
        Change::Merge,
        Change::ReplaceSummaries,
        Change::ReplaceChecksums,
        Change::Truncate,
        Change::FlipByte,
        Change::DeleteSideFile,
        Change::DeleteManifest,
        Change::RestorePristine,
    ];

    /// Its row in the table.
    fn name(self) -> &'static str {
        match self {
            Change::Add => "add a genome",
            Change::Remove => "remove a genome",
            Change::Merge => "merge",
            Change::ReplaceSummaries => "summaries of another build",
            Change::ReplaceChecksums => "checksums of another build",
            Change::Truncate => "file truncated",
            Change::FlipByte => "byte flipped",
            Change::DeleteSideFile => "side file deleted",
            Change::DeleteManifest => "manifest deleted, restored",
            Change::RestorePristine => "pristine state restored",
        }
    }
}

/// How a trial ended, worst last.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    /// The origin's answer, or a clear error where the origin has none (or while switching).
    Handled,
    /// Handled, but not noticed: a side file the server read at open (checksums, summaries)
    /// was damaged or replaced on the origin, its index untouched, and the server answers
    /// right from the version it opened with `/healthz` ok. A known limitation: the server
    /// asks the origin for the manifest's version only, and sees a side file changed at its
    /// next reload (asking for every file's version each second is another design).
    Unseen,
    /// A 200 missing hits the origin has (a genome lost) after the deadline.
    Lost,
    /// A 200 with other hits after the deadline, a 500 that is no clear error, an old answer
    /// with `/healthz` ok where the origin has none, or the server died.
    SilentWrong,
    /// No answer within [`HANG`].
    Hang,
}

/// Hits of a query as `(document, k-mers found)`, sorted: the answer compared.
type Hits = Vec<(String, u64)>;

/// The origin of the trials: a collection nginx serves, its pristine copy, the builds of
/// other genomes under the same names (for side files "of another build"), and the query.
struct Origin {
    dir: PathBuf,
    pristine: PathBuf,
    other: PathBuf,
    genomes: Vec<PathBuf>,
    query: PathBuf,
    sequence: String,
}

/// Builds the origin (`serve/origin`: 6 of 10 small genomes in two additions), its pristine
/// copy and the other build (other sequences under the same names, added the same way).
fn build_origin(dir: &Path, rng: &mut Rng) -> Origin {
    let make = |subdir: &str, rng: &mut Rng| -> (Vec<PathBuf>, Vec<Vec<u8>>) {
        let genomes_dir = dir.join(subdir);
        std::fs::create_dir_all(&genomes_dir).unwrap();
        let mut paths = Vec::new();
        let mut sequences = Vec::new();
        for g in 0..10 {
            let sequence = rng.dna(3_000);
            let path = genomes_dir.join(format!("t{g:02}.fa"));
            write_fasta(&path, &[(format!("t{g:02}"), sequence.clone())]);
            paths.push(path);
            sequences.push(sequence);
        }
        (paths, sequences)
    };
    let (genomes, sequences) = make("origin-genomes", rng);
    let (other_genomes, _) = make("other-genomes", rng);
    let origin = dir.join("serve/origin");
    let other = dir.join("other");
    for (collection, paths) in [(&origin, &genomes), (&other, &other_genomes)] {
        for batch in [&paths[..4], &paths[4..6]] {
            let mut args = vec!["add", "-q", "-T", "1", text(collection)];
            args.extend(batch.iter().map(|p| text(p)));
            ok(run(&args));
        }
    }
    let pristine = dir.join("pristine");
    copy_dir(&origin, &pristine, None);
    // One query with a piece of every genome and random bases: every genome served is a
    // hit, so the hits say which genomes the server searched.
    let mut query = Vec::new();
    for sequence in &sequences {
        query.extend_from_slice(&sequence[1_000..1_400]);
    }
    query.extend(rng.dna(400));
    let path = dir.join("origin-query.fa");
    write_fasta(&path, &[("q".to_string(), query.clone())]);
    Origin {
        dir: origin,
        pristine,
        other,
        genomes,
        query: path,
        sequence: String::from_utf8(query).unwrap(),
    }
}

/// Copies the files of `from` into `to` (created), each written beside and renamed into
/// place, the manifest last: the manifest never names a file not yet in place. With `stamp`,
/// each copy gets that modification time (see [`stamp`]).
fn copy_dir(from: &Path, to: &Path, stamp: Option<u64>) {
    std::fs::create_dir_all(to).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(from)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_by_key(|n| n == "collection.json");
    for name in names {
        let partial = to.join(format!(".{name}.copying"));
        std::fs::copy(from.join(&name), &partial).unwrap();
        if let Some(seconds) = stamp {
            set_stamp(&partial, seconds);
        }
        std::fs::rename(&partial, to.join(&name)).unwrap();
    }
}

/// The answer of `bitsift query` on the origin's directory: its hits, or its error.
fn origin_answer(origin: &Origin) -> Result<Hits, String> {
    let output = run(&[
        "query",
        "-i",
        text(&origin.dir),
        "-f",
        text(&origin.query),
        "-t",
        "0.05",
        "--format",
        "json",
    ]);
    if !output.status.success() {
        return Err(stderr(&output));
    }
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    Ok(hits_of(&json))
}

/// The hits of the first query of a JSON answer: the server's (`results`) or the command
/// line's (`queries`).
fn hits_of(json: &serde_json::Value) -> Hits {
    let query = match json.get("results") {
        Some(results) => &results[0],
        None => &json["queries"][0],
    };
    let mut hits: Hits = query["hits"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|h| {
            (
                h["document"].as_str().unwrap_or_default().to_string(),
                h["kmers_found"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    hits.sort();
    hits
}

/// One HTTP/1.1 exchange with the server at `listen`: its status and body (status 0 and
/// why when it did not answer within [`HANG`]).
fn exchange(listen: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let (status, _, body) = exchange_head(listen, method, path, body);
    (status, body)
}

/// [`exchange`], with the response head (status line and headers, in lower case).
fn exchange_head(listen: &str, method: &str, path: &str, body: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let fail = |why: String| (0, String::new(), why);
    let mut stream = match std::net::TcpStream::connect(listen) {
        Ok(stream) => stream,
        Err(e) => return fail(format!("cannot connect: {e}")),
    };
    stream.set_read_timeout(Some(HANG)).unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {listen}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    if let Err(e) = stream.write_all(request.as_bytes()) {
        return fail(format!("cannot send: {e}"));
    }
    let mut raw = Vec::new();
    if let Err(e) = stream.read_to_end(&mut raw) {
        return fail(format!("no answer: {e}"));
    }
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return fail(String::from_utf8_lossy(&raw).into_owned());
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let rest = &raw[split + 4..];
    let body = if head.contains("transfer-encoding: chunked") {
        unchunk(rest)
    } else {
        rest.to_vec()
    };
    (status, head, String::from_utf8_lossy(&body).into_owned())
}

/// The body of a chunked transfer.
fn unchunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..end]).unwrap_or("0");
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("0").trim(), 16);
        let size = size.unwrap_or(0);
        let data = &rest[end + 2..];
        if size == 0 || data.len() < size {
            break;
        }
        body.extend_from_slice(&data[..size]);
        rest = data[size..].strip_prefix(b"\r\n").unwrap_or(&data[size..]);
    }
    body
}

/// The server of the trials and its address.
struct Follower {
    child: std::process::Child,
    listen: String,
}

impl Follower {
    /// `bitsift serve -i URL` with no row cache (every search reads the origin), its log in
    /// a file.
    fn start(url: &str, log: &Path) -> Follower {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let listen = format!("127.0.0.1:{port}");
        let child = common::bitsift()
            .args(["serve", "-i", url, "--listen", &listen, "--cache-size", "0"])
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .expect("start serve");
        Follower { child, listen }
    }

    /// `POST /api/search` of `sequence`.
    fn search(&self, sequence: &str) -> (u16, String) {
        let body = serde_json::json!({"sequence": sequence, "threshold": 0.05}).to_string();
        exchange(&self.listen, "POST", "/api/search", &body)
    }

    /// The `status` of `/healthz`.
    fn health(&self) -> String {
        let (_, body) = exchange(&self.listen, "GET", "/healthz", "");
        serde_json::from_str::<serde_json::Value>(&body)
            .map(|j| j["status"].as_str().unwrap_or_default().to_string())
            .unwrap_or(body)
    }

    /// Whether the process is still running.
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A modification time of its own for the change of `trial` (phase `phase`): nginx's ETag
/// is the modification time in seconds and the size, so two versions of a file of one size
/// written within a second would share it, and no HTTP client could tell them apart.
fn stamp(trial: usize, phase: usize) -> u64 {
    2_000_000_000 + trial as u64 * 10 + phase as u64
}

/// Gives `file` the modification time `seconds` after the epoch.
fn set_stamp(file: &Path, seconds: u64) {
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(std::time::UNIX_EPOCH + Duration::from_secs(seconds))
        .unwrap();
}

/// The origin's files named `sub-*` ending in `suffix` ("" for all), sorted.
fn origin_files(origin: &Origin, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(&origin.dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("sub-") && name.ends_with(suffix)
        })
        .collect();
    files.sort();
    files
}

/// One of `items`, or `None`.
fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.below(items.len() as u64) as usize])
}

/// What a command did: "ok" or the first line of its error.
fn outcome_of(output: &Output) -> String {
    if output.status.success() {
        "ok".to_string()
    } else {
        let message = stderr(output);
        format!("refused: {}", message.lines().next().unwrap_or_default())
    }
}

/// The genomes of the pool the origin answers with (all of them when it has no answer).
fn served_genomes(expected: &Result<Hits, String>) -> Vec<String> {
    match expected {
        Ok(hits) => hits.iter().map(|(d, _)| d.clone()).collect(),
        Err(_) => (0..10).map(|g| format!("t{g:02}")).collect(),
    }
}

/// `bitsift add` of a genome of the pool the origin does not serve.
fn add_genome(origin: &Origin, rng: &mut Rng, expected: &Result<Hits, String>) -> String {
    let served = served_genomes(expected);
    let absent: Vec<&PathBuf> = origin
        .genomes
        .iter()
        .filter(|p| !served.contains(&p.file_stem().unwrap().to_string_lossy().into_owned()))
        .collect();
    let genome = pick(rng, &absent).copied().unwrap_or(&origin.genomes[9]);
    let output = run(&["add", "-q", "-T", "1", text(&origin.dir), text(genome)]);
    format!("add {}: {}", text(genome), outcome_of(&output))
}

/// `bitsift remove` of a genome the origin serves.
fn remove_genome(origin: &Origin, rng: &mut Rng, expected: &Result<Hits, String>) -> String {
    let served = served_genomes(expected);
    let genome = pick(rng, &served).cloned().unwrap_or_default();
    let names = origin.query.with_file_name("origin-removed.txt");
    std::fs::write(&names, format!("{genome}\n")).unwrap();
    let output = run(&[
        "remove",
        "-q",
        "--documents",
        text(&names),
        text(&origin.dir),
    ]);
    format!("remove {genome}: {}", outcome_of(&output))
}

/// A side file (`suffix`) of a sub-index replaced by the other build's of the same name (or
/// of another sub-index when it has none), renamed into place.
fn replace_side_file(origin: &Origin, rng: &mut Rng, suffix: &str, seconds: u64) -> String {
    let Some(target) = pick(rng, &origin_files(origin, suffix)).cloned() else {
        return format!("no {suffix} to replace");
    };
    let same = origin.other.join(target.file_name().unwrap());
    let source = if same.exists() {
        same
    } else {
        let mut others: Vec<PathBuf> = std::fs::read_dir(&origin.other)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| text(p).ends_with(suffix))
            .collect();
        others.sort();
        pick(rng, &others).cloned().unwrap()
    };
    let partial = origin.dir.join(".replacing");
    std::fs::copy(&source, &partial).unwrap();
    set_stamp(&partial, seconds);
    std::fs::rename(&partial, &target).unwrap();
    format!("{} replaced by {}", text(&target), text(&source))
}

/// A sub-index or side file cut short.
fn truncate_file(origin: &Origin, rng: &mut Rng, seconds: u64) -> String {
    let Some(file) = pick(rng, &origin_files(origin, "")).cloned() else {
        return "no file to truncate".to_string();
    };
    let len = std::fs::metadata(&file).unwrap().len();
    let cut = rng.below(len);
    let handle = std::fs::File::options().write(true).open(&file).unwrap();
    handle.set_len(cut).unwrap();
    drop(handle);
    set_stamp(&file, seconds);
    format!("{} truncated from {len} to {cut} bytes", text(&file))
}

/// One bit of a byte of a sub-index or side file flipped, in place.
fn flip_byte(origin: &Origin, rng: &mut Rng, seconds: u64) -> String {
    let Some(file) = pick(rng, &origin_files(origin, "")).cloned() else {
        return "no file to damage".to_string();
    };
    let mut bytes = std::fs::read(&file).unwrap();
    if bytes.is_empty() {
        return format!("{} is empty", text(&file));
    }
    let at = rng.below(bytes.len() as u64) as usize;
    bytes[at] ^= 1 << rng.below(8);
    std::fs::write(&file, &bytes).unwrap();
    set_stamp(&file, seconds);
    format!("{} byte {at} of {} flipped", text(&file), bytes.len())
}

/// A side file deleted.
fn delete_side_file(origin: &Origin, rng: &mut Rng) -> String {
    let mut sides = origin_files(origin, ".bitsift-checksums");
    sides.extend(origin_files(origin, ".bitsift-summaries"));
    let Some(file) = pick(rng, &sides).cloned() else {
        return "no side file to delete".to_string();
    };
    std::fs::remove_file(&file).unwrap();
    format!("{} deleted", text(&file))
}

/// The pristine origin back: its files renamed into place (the manifest last), then the
/// sub-index files it does not have deleted.
fn restore_pristine(origin: &Origin, seconds: u64) -> String {
    copy_dir(&origin.pristine, &origin.dir, Some(seconds));
    for file in origin_files(origin, "") {
        if !origin.pristine.join(file.file_name().unwrap()).exists() {
            std::fs::remove_file(&file).unwrap();
        }
    }
    "pristine state restored".to_string()
}

/// Applies phase `phase` of `change` to the origin; says what it did.
fn apply(
    change: Change,
    phase: usize,
    origin: &Origin,
    rng: &mut Rng,
    seconds: u64,
    expected: &Result<Hits, String>,
) -> String {
    let manifest = origin.dir.join("collection.json");
    let kept = origin.query.with_file_name("origin-manifest.kept");
    match change {
        Change::Add => add_genome(origin, rng, expected),
        Change::Remove => remove_genome(origin, rng, expected),
        Change::Merge => format!(
            "merge: {}",
            outcome_of(&run(&["merge", "-q", text(&origin.dir)]))
        ),
        Change::ReplaceSummaries => replace_side_file(origin, rng, ".bitsift-summaries", seconds),
        Change::ReplaceChecksums => replace_side_file(origin, rng, ".bitsift-checksums", seconds),
        Change::Truncate => truncate_file(origin, rng, seconds),
        Change::FlipByte => flip_byte(origin, rng, seconds),
        Change::DeleteSideFile => delete_side_file(origin, rng),
        Change::DeleteManifest if phase == 0 => {
            std::fs::rename(&manifest, &kept).unwrap();
            "manifest deleted".to_string()
        }
        Change::DeleteManifest => {
            set_stamp(&kept, seconds);
            std::fs::rename(&kept, &manifest).unwrap();
            "manifest restored".to_string()
        }
        Change::RestorePristine => restore_pristine(origin, seconds),
    }
}

/// Whether what `apply` did (`change`, described as `did`) touched side files only (a
/// command refused touched nothing).
fn side_files_only(change: Change, did: &str) -> bool {
    // Side files never decide the hits a server already gives: checksums, summaries and
    // counts of ones are checked where they are read, and a build record is only described.
    let side = [
        ".bitsift-checksums",
        ".bitsift-summaries",
        ".bitsift-ones",
        ".bitsift-build",
    ]
    .iter()
    .any(|suffix| did.contains(suffix));
    if did.contains(": refused: ") {
        return true;
    }
    match change {
        Change::ReplaceSummaries | Change::ReplaceChecksums | Change::DeleteSideFile => true,
        Change::Truncate | Change::FlipByte => side,
        _ => false,
    }
}

/// The line of an error that says what failed (the last, after warnings and notices).
fn error_line(message: &str) -> &str {
    message
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
}

/// Asks the server until it gives `expected` (the origin's answer now) or a clear error,
/// for at most [`FOLLOW_DEADLINE`]; how that ended, and why when not handled. `data` is the
/// answer of the origin's index data when only side files changed since the origin last
/// answered (the answer a server that did not notice gives).
fn observe(
    server: &mut Follower,
    sequence: &str,
    expected: &Result<Hits, String>,
    data: Option<&Hits>,
) -> (Outcome, String) {
    let started = Instant::now();
    loop {
        let asked = Instant::now();
        let (status, body) = server.search(sequence);
        if status == 0 && asked.elapsed() >= HANG - Duration::from_secs(1) {
            return (Outcome::Hang, body);
        }
        if status == 0 && !server.alive() {
            return (Outcome::SilentWrong, format!("the server died: {body}"));
        }
        let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let error = json["error"].as_str().unwrap_or_default().to_string();
        let past = started.elapsed() >= FOLLOW_DEADLINE;
        match (status, expected) {
            (200, Ok(hits)) if hits_of(&json) == *hits => return (Outcome::Handled, String::new()),
            (200, Ok(hits)) if past => {
                let served = hits_of(&json);
                let lost = served.iter().all(|h| hits.contains(h));
                let outcome = if lost {
                    Outcome::Lost
                } else {
                    Outcome::SilentWrong
                };
                return (outcome, format!("served {served:?}, the origin {hits:?}"));
            }
            (200, Err(why)) => {
                // The origin has no answer: the server may keep the view it has, saying so.
                let health = server.health();
                if health != "ok" {
                    return (Outcome::Handled, String::new());
                }
                if past {
                    let why = error_line(why);
                    if data.is_some_and(|d| *d == hits_of(&json)) {
                        return (Outcome::Unseen, format!("the origin: {why}"));
                    }
                    return (
                        Outcome::SilentWrong,
                        format!("an answer, /healthz ok; the origin: {why}"),
                    );
                }
            }
            (500, Err(_)) if error.contains("checksum mismatch") => {
                // Issue 12: a read that does not match the checksums is a server error.
                return (Outcome::Handled, String::new());
            }
            (500, _) => return (Outcome::SilentWrong, format!("500: {body}")),
            (400..=599, Err(_)) if !error.is_empty() => return (Outcome::Handled, String::new()),
            (400..=599, Ok(_)) if past && !error.is_empty() => {
                // Still refused, with a reason: unhealthy while searches fail.
                let health = server.health();
                if status == 503 && health == "ok" {
                    return (
                        Outcome::SilentWrong,
                        format!("/healthz ok while searches answer {status}: {error}"),
                    );
                }
                return (Outcome::Handled, String::new());
            }
            _ if past => return (Outcome::SilentWrong, format!("{status}: {body}")),
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// One trial: `change` applied to the origin (in two phases for a manifest deleted, then
/// restored), the server observed after each phase; the worst outcome and what happened.
/// `data` is kept as the answer of the origin's index data while only side files change.
fn origin_trial(
    change: Change,
    trial: usize,
    origin: &Origin,
    server: &mut Follower,
    rng: &mut Rng,
    expected: &mut Result<Hits, String>,
    data: &mut Option<Hits>,
) -> (Outcome, String) {
    let phases = if change == Change::DeleteManifest {
        2
    } else {
        1
    };
    let mut worst = Outcome::Handled;
    let mut notes = Vec::new();
    for phase in 0..phases {
        let did = apply(change, phase, origin, rng, stamp(trial, phase), expected);
        let _ = Command::new("chmod")
            .args(["-R", "a+rX", text(&origin.dir)])
            .status();
        if let Ok(hits) = expected {
            *data = Some(hits.clone());
        }
        if !side_files_only(change, &did) {
            *data = None;
        }
        *expected = origin_answer(origin);
        let (outcome, note) = observe(server, &origin.sequence, expected, data.as_ref());
        if outcome != Outcome::Handled {
            notes.push(format!("{did}: {note}"));
        }
        worst = worst.max(outcome);
    }
    (worst, notes.join("; "))
}

/// Issue 30's fault suite, remote origins: a server follows a collection on nginx while
/// its origin changes under it (genomes added and removed, merges, side files of another
/// build, files truncated, flipped and deleted, the manifest deleted and restored, the
/// pristine state restored), [`ORIGIN_TRIALS`] seeded trials. After each change the server
/// must give the origin's answer (as `bitsift query` on the origin's directory gives it)
/// within the follow interval, or a clear error: never a wrong answer, never no answer.
fn remote_origins_fault_trials(servers: &Servers, dir: &Path) {
    let started = Instant::now();
    let mut rng = Rng(30);
    let origin = build_origin(dir, &mut rng);
    let _ = Command::new("chmod")
        .args(["-R", "a+rX", text(dir)])
        .status();
    let log = dir.join("origin-serve.log");
    let mut server = Follower::start(&servers.http("origin"), &log);
    let mut expected = origin_answer(&origin);
    let first = (0..100).find_map(|_| {
        std::thread::sleep(Duration::from_millis(200));
        let (status, body) = server.search(&origin.sequence);
        (status == 200).then_some(body)
    });
    let first = first.expect("the server of the origin answers");
    let pristine = expected.clone().expect("the pristine origin answers");
    assert_eq!(
        hits_of(&serde_json::from_str(&first).unwrap()),
        pristine,
        "{first}"
    );
    assert_eq!(pristine.len(), 6, "every genome is a hit: {pristine:?}");
    let mut table = vec![[0usize; 5]; Change::ALL.len()];
    let mut unseen = 0;
    let mut data = None;
    let mut failing = 0;
    for trial in 0..ORIGIN_TRIALS {
        // Two trials in a row without an answer from the origin: the pristine state back.
        let change = if failing >= 2 {
            Change::RestorePristine
        } else {
            Change::ALL[rng.below(Change::ALL.len() as u64) as usize]
        };
        let (outcome, note) = origin_trial(
            change,
            trial,
            &origin,
            &mut server,
            &mut rng,
            &mut expected,
            &mut data,
        );
        failing = if expected.is_err() { failing + 1 } else { 0 };
        let row = &mut table[Change::ALL.iter().position(|c| *c == change).unwrap()];
        row[0] += 1;
        unseen += usize::from(outcome == Outcome::Unseen);
        row[match outcome {
            Outcome::Handled | Outcome::Unseen => 1,
            Outcome::SilentWrong => 2,
            Outcome::Hang => 3,
            Outcome::Lost => 4,
        }] += 1;
        if outcome != Outcome::Handled {
            eprintln!("trial {trial} ({}): {outcome:?}: {note}", change.name());
        }
    }
    print_origin_table(&table, started.elapsed());
    eprintln!(
        "handled includes {unseen} right answers from the version opened while a side file \
         was damaged on the origin and /healthz said ok (not noticed: see Outcome::Unseen)"
    );
    let total = total_row(&table);
    if total[2] + total[3] + total[4] > 0 {
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(30).collect();
        eprintln!("the server's log, last lines first:\n{}", tail.join("\n"));
    }
    assert_eq!(total[2], 0, "silent wrong answers");
    assert_eq!(total[3], 0, "hangs");
    assert_eq!(total[4], 0, "lost genomes");
}

/// The sums of the table's columns.
fn total_row(table: &[[usize; 5]]) -> [usize; 5] {
    let mut total = [0; 5];
    for row in table {
        for (sum, cell) in total.iter_mut().zip(row) {
            *sum += cell;
        }
    }
    total
}

/// The table of issue 30 for the remote origins category, to stderr.
fn print_origin_table(table: &[[usize; 5]], took: Duration) {
    let line = |name: &str, row: &[usize; 5]| {
        format!(
            "| {name:<28} | {:>6} | {:>7} | {:>12} | {:>4} | {:>4} |",
            row[0], row[1], row[2], row[3], row[4]
        )
    };
    eprintln!(
        "remote origins: {ORIGIN_TRIALS} trials in {:.0} s",
        took.as_secs_f64()
    );
    eprintln!(
        "| {:<28} | trials | handled | silent wrong | hang | lost |",
        "category"
    );
    eprintln!(
        "|{}|--------|---------|--------------|------|------|",
        "-".repeat(30)
    );
    for (change, row) in Change::ALL.iter().zip(table) {
        eprintln!("{}", line(change.name(), row));
    }
    eprintln!("{}", line("total", &total_row(table)));
}
