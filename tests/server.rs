//! `bitsift serve` over a real socket on loopback: every endpoint and every error, admission
//! control, deadlines, shared batches and graceful shutdown; and, with raw TCP clients, the
//! bounds on clients (issue 12): bodies refused before they are read, header, body and idle
//! timeouts, the connection limit, shutdown despite half-sent requests; broken indexes
//! (`--skip-broken`) and indexes changed on disk while served.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// A running server, killed when dropped.
struct Server {
    child: Child,
    address: SocketAddr,
    /// Standard error lines after the start-up line.
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(index: &[&Path], extra: &[&str]) -> Server {
        Server::spawn(Server::command(index, extra))
    }

    fn command(index: &[&Path], extra: &[&str]) -> Command {
        let mut command = bitsift();
        command.arg("serve").args(["--listen", "127.0.0.1:0"]);
        for i in index {
            command.arg("-i").arg(i);
        }
        command.args(extra);
        command
    }

    /// Starts the server with an open-files limit of `files` (soft and hard), as
    /// `ulimit -n` would.
    fn start_with_file_limit(index: &[&Path], extra: &[&str], files: u64) -> Server {
        let mut command = Server::command(index, extra);
        // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: files,
                    rlim_max: files,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Server::spawn(command)
    }

    fn spawn(mut command: Command) -> Server {
        let mut child = command
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start bitsift serve");
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let deadline = Instant::now() + Duration::from_secs(30);
        let address = loop {
            let line = lines.next().expect("server output").expect("read stderr");
            if let Some(rest) = line.split("http://").nth(1) {
                break rest
                    .trim_end_matches(|c| c != '/')
                    .trim_end_matches('/')
                    .parse()
                    .unwrap();
            }
            assert!(Instant::now() < deadline, "server did not start: {line}");
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Server {
            child,
            address,
            log,
        }
    }

    fn terminate(&self) {
        // SAFETY: sending a signal to our own child process.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
    }

    /// Waits for the process to exit, at most `limit`.
    fn exit_within(&mut self, limit: Duration) -> Option<(std::process::ExitStatus, Duration)> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some((status, started.elapsed()));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Response {
    status: u16,
    headers: String,
    body: String,
}

impl Response {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// A minimal HTTP/1.1 client: one request per connection.
fn http(address: SocketAddr, method: &str, path: &str, body: &[u8]) -> Response {
    http_try(address, method, path, body)
        .unwrap_or_else(|| panic!("{method} {path}: the connection closed without an answer"))
}

/// As [`http`], or `None` when the connection closed before any answer arrived (a server
/// over its connection limit answers 503 and closes at once; a reset may lose the answer).
fn http_try(address: SocketAddr, method: &str, path: &str, body: &[u8]) -> Option<Response> {
    http_with(address, method, path, "", body)
}

/// As [`http_try`], with `extra` header lines (each ending in `\r\n`).
fn http_with(
    address: SocketAddr,
    method: &str,
    path: &str,
    extra: &str,
    body: &[u8],
) -> Option<Response> {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    // A server that refuses the connection or an oversized body answers and closes before
    // the request is all sent: writing may fail, reading still gets the answer.
    let _ = write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    );
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    // Chunked bodies: drop the chunk-size lines.
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body.split("\r\n")
            .enumerate()
            .filter(|(i, _)| i % 2 == 1)
            .map(|(_, s)| s)
            .collect()
    } else {
        body.to_string()
    };
    Some(Response {
        status,
        headers: head.to_string(),
        body,
    })
}

fn post(address: SocketAddr, json: &Value) -> Response {
    http(address, "POST", "/api/search", json.to_string().as_bytes())
}

/// [`post`] as the client with API key `key`.
fn post_as(address: SocketAddr, key: &str, json: &Value) -> Response {
    let header = format!("X-Api-Key: {key}\r\n");
    http_with(
        address,
        "POST",
        "/api/search",
        &header,
        json.to_string().as_bytes(),
    )
    .expect("an answer")
}

fn build_index(dir: &Path, name: &str, genomes: &[&str]) -> PathBuf {
    let index = dir.join(format!("{name}.cobs_compact"));
    let mut args = vec![
        "build".to_string(),
        "-q".into(),
        "-o".into(),
        index.display().to_string(),
    ];
    for g in genomes {
        args.push(demo_file(&format!("genomes/{g}")).display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    index
}

fn first_gene() -> String {
    let text = std::fs::read_to_string(demo_file("queries/amr_genes.fa")).unwrap();
    text.lines()
        .skip(1)
        .take_while(|l| !l.starts_with('>'))
        .collect()
}

fn fixtures(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let plasmids = build_index(
        dir,
        "plasmids",
        &[
            "Kpn_pMCR_1511_KX377410.fa.gz",
            "Eco_pBK32602_KU295134.fa.gz",
        ],
    );
    let phage = build_index(
        dir,
        "phage",
        &[
            "Phage_lambda_NC_001416.fa.gz",
            "Kpn_plasmid12_NC_011385.fa.gz",
        ],
    );
    let metadata = dir.join("meta.tsv");
    std::fs::write(
        &metadata,
        "document\tspecies\tsource\nKpn_pMCR_1511_KX377410\tK. pneumoniae\tmob-suite\n",
    )
    .unwrap();
    (plasmids, phage, metadata)
}

#[test]
fn endpoints_answer_and_errors_name_the_problem() {
    let dir = temp_dir();
    let (plasmids, phage, metadata) = fixtures(dir.path());
    let server = Server::start(
        &[&plasmids, &phage],
        &[
            "--metadata",
            metadata.to_str().unwrap(),
            "--max-query-bases",
            "5000",
            // Smaller than the two indexes (3.6 MB), so a paged row cache rather than an
            // image of the whole index.
            "--cache-size",
            "2M",
            // Read with O_DIRECT so that the row cache is used: a fresh index sits in the page
            // cache, where the automatic choice would score it in place.
            "--direct-io",
            "required",
        ],
    );
    let a = server.address;

    let health = http(a, "GET", "/healthz", b"");
    assert_eq!(health.status, 200);
    assert_eq!(health.json()["status"], "ok");

    let indexes = http(a, "GET", "/api/indexes", b"").json();
    let names: Vec<&str> = indexes["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["plasmids", "phage"]);
    assert_eq!(indexes["indexes"][0]["documents"], 2);
    assert_eq!(
        indexes["metadata_columns"],
        serde_json::json!(["species", "source"])
    );

    // One sequence: the mcr-1 gene is in pMCR_1511, with its metadata.
    let gene = first_gene();
    let found = post(a, &serde_json::json!({"sequence": gene}));
    assert_eq!(found.status, 200, "{}", found.body);
    let found = found.json();
    let hit = &found["results"][0]["hits"][0];
    assert_eq!(hit["document"], "Kpn_pMCR_1511_KX377410");
    assert_eq!(hit["index"], "plasmids");
    assert_eq!(hit["fraction"], 1.0);
    assert_eq!(hit["metadata"]["species"], "K. pneumoniae");
    for field in [
        "time_ms",
        "bytes_read",
        "read_requests",
        "cache_hits",
        "cache_misses",
        "requests_in_batch",
    ] {
        assert!(
            found["stats"][field].is_number(),
            "stats.{field}: {}",
            found["stats"]
        );
    }

    // Named sequences, FASTA text, an index subset, a limit.
    let named = post(a, &serde_json::json!({"sequences": [{"name": "mcr", "sequence": gene}, {"sequence": gene}], "indexes": ["phage"], "threshold": 0.0, "raw_threshold": true, "limit": 1})).json();
    assert_eq!(named["results"][0]["query"], "mcr");
    assert_eq!(named["results"][1]["query"], "query_2");
    assert_eq!(named["results"][0]["hits"].as_array().unwrap().len(), 1);
    assert_eq!(named["results"][0]["hits"][0]["index"], "phage");
    let fasta = post(
        a,
        &serde_json::json!({"fasta": format!(">g1 desc\n{gene}\n>g2\n{gene}\n")}),
    )
    .json();
    assert_eq!(fasta["results"].as_array().unwrap().len(), 2);
    assert_eq!(fasta["results"][1]["query"], "g2");

    // A short query next to a good one is reported for itself; alone it is a 400.
    let mixed = post(
        a,
        &serde_json::json!({"sequences": [{"name": "short", "sequence": "ACGT"}, {"name": "ok", "sequence": gene}]}),
    );
    assert_eq!(mixed.status, 200);
    assert!(mixed.json()["results"][0]["error"]
        .as_str()
        .unwrap()
        .contains("shorter than k = 31"));

    let error = |response: Response, status: u16, needle: &str| {
        assert_eq!(response.status, status, "{}", response.body);
        let message = response.json()["error"].as_str().unwrap().to_string();
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    };
    error(
        http(a, "POST", "/api/search", b"{not json"),
        400,
        "invalid JSON",
    );
    error(
        post(a, &serde_json::json!({"sequence": ""})),
        400,
        "is empty",
    );
    error(
        post(a, &serde_json::json!({"sequence": "hello world 123"})),
        400,
        "not a nucleotide",
    );
    error(
        post(a, &serde_json::json!({"sequence": "ACGT"})),
        400,
        "shorter than k = 31",
    );
    error(
        post(a, &serde_json::json!({"sequence": "A".repeat(5001)})),
        413,
        "at most 5000",
    );
    error(
        post(a, &serde_json::json!({"sequence": gene, "threshold": 1.5})),
        400,
        "out of range",
    );
    error(
        post(
            a,
            &serde_json::json!({"sequence": gene, "indexes": ["nope"]}),
        ),
        400,
        "unknown index \"nope\"",
    );
    error(
        post(
            a,
            &serde_json::json!({"sequence": gene, "fasta": ">x\nACGT"}),
        ),
        400,
        "exactly one",
    );
    error(
        post(a, &serde_json::json!({"sequence": gene, "treshold": 0.5})),
        400,
        "unknown field",
    );
    error(post(a, &serde_json::json!({})), 400, "exactly one");
    let huge = vec![b' '; 64 << 20];
    error(http(a, "POST", "/api/search", &huge), 413, "larger than");
    error(http(a, "GET", "/nowhere", b""), 404, "no such endpoint");

    let openapi = http(a, "GET", "/api/openapi.json", b"").json();
    assert!(openapi["paths"]["/api/search"]["post"].is_object());

    let page = http(a, "GET", "/", b"");
    assert_eq!(page.status, 200);
    assert!(page.headers.to_ascii_lowercase().contains("text/html"));

    let metrics = http(a, "GET", "/metrics", b"").body;
    let value = |name: &str| -> f64 {
        metrics
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} missing from /metrics"))
    };
    assert!(value("bitsift_queries_total") >= 6.0);
    assert!(value("bitsift_rejections_total{reason=\"bad_request\"}") >= 8.0);
    assert!(value("bitsift_rejections_total{reason=\"too_large\"}") >= 2.0);
    assert_eq!(
        value("bitsift_request_duration_seconds_count"),
        4.0,
        "the four answered searches"
    );
    assert!(
        value("bitsift_cache_hit_ratio") > 0.0,
        "repeated genes hit the cache"
    );
    assert!(value("bitsift_bytes_read_total") > 0.0);
}

/// A random sequence long enough to keep a search busy for a while.
fn slow_query() -> String {
    String::from_utf8(Rng(3).dna(400_000)).unwrap()
}

#[test]
fn overload_gets_503_with_retry_after_and_deadlines_504() {
    let dir = temp_dir();
    let (plasmids, _, _) = fixtures(dir.path());
    let server = Server::start(
        &[&plasmids],
        &[
            "--max-concurrent",
            "1",
            "--max-queued",
            "0",
            "--workers",
            "1",
            "--cache-size",
            "0",
            "--engine",
            "pread",
            "--queue-depth",
            "1",
        ],
    );
    let a = server.address;
    let body =
        serde_json::json!({"sequence": slow_query(), "threshold": 0.0, "raw_threshold": true});
    let handles: Vec<_> = (0..6)
        .map(|_| {
            let body = body.clone();
            std::thread::spawn(move || post(a, &body))
        })
        .collect();
    let responses: Vec<Response> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let statuses: Vec<u16> = responses.iter().map(|r| r.status).collect();
    assert!(statuses.contains(&200), "{statuses:?}");
    let rejected: Vec<&Response> = responses.iter().filter(|r| r.status == 503).collect();
    assert!(
        !rejected.is_empty(),
        "one running and none waiting: the rest are turned away: {statuses:?}"
    );
    for r in rejected {
        assert!(
            r.headers.to_ascii_lowercase().contains("retry-after: 1"),
            "{}",
            r.headers
        );
        assert!(r.json()["error"].as_str().unwrap().contains("at capacity"));
    }
    drop(server);

    let server = Server::start(
        &[&plasmids],
        &[
            "--timeout",
            "0.05",
            "--cache-size",
            "0",
            "--engine",
            "pread",
            "--queue-depth",
            "1",
        ],
    );
    let late = post(server.address, &body);
    assert_eq!(late.status, 504, "{}", late.body);
    assert!(late.json()["error"]
        .as_str()
        .unwrap()
        .contains("did not finish within 0.05 s"));
}

#[test]
fn concurrent_requests_share_batches_and_shutdown_finishes_them() {
    let dir = temp_dir();
    let (plasmids, _, _) = fixtures(dir.path());
    let server = Server::start(
        &[&plasmids],
        &[
            "--workers",
            "1",
            "--cache-size",
            "0",
            "--engine",
            "pread",
            "--queue-depth",
            "2",
        ],
    );
    let a = server.address;
    let gene = first_gene();
    let handles: Vec<_> = (0..12)
        .map(|i| {
            let sequence = if i == 0 { slow_query() } else { gene.clone() };
            std::thread::spawn(move || {
                post(
                    a,
                    &serde_json::json!({"sequence": sequence, "threshold": 0.0, "raw_threshold": true}),
                )
            })
        })
        .collect();
    let responses: Vec<Value> = handles
        .into_iter()
        .map(|h| {
            let r = h.join().unwrap();
            assert_eq!(r.status, 200, "{}", r.body);
            r.json()
        })
        .collect();
    let shared = responses
        .iter()
        .map(|r| r["stats"]["requests_in_batch"].as_u64().unwrap())
        .max()
        .unwrap();
    assert!(
        shared > 1,
        "requests arriving during a search share the next batch"
    );
    // Every gene answer is the same, whatever batch it was in.
    let answers: Vec<&Value> = responses[1..]
        .iter()
        .map(|r| &r["results"][0]["hits"])
        .collect();
    assert!(answers.windows(2).all(|w| w[0] == w[1]));

    // SIGTERM while a slow request runs: it is answered, then the server exits cleanly.
    let mut server = server;
    let slow = std::thread::spawn(move || {
        post(
            a,
            &serde_json::json!({"sequence": slow_query(), "threshold": 0.0, "raw_threshold": true}),
        )
    });
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
    let answered = slow.join().unwrap();
    assert_eq!(
        answered.status, 200,
        "in-flight request finished: {}",
        answered.body
    );
    let status = server.child.wait().unwrap();
    assert!(status.success(), "clean exit after SIGTERM: {status:?}");
    // The grace period counts from the signal, not from start-up: the search in flight had
    // it, and the server says it answered it instead of claiming the period ran out.
    std::thread::sleep(Duration::from_millis(100));
    let log = server.log();
    assert!(
        log.contains("stopped; requests in flight were answered"),
        "{log}"
    );
}

/// Issue 20: an idle server stopped long after it started says it stopped cleanly; the grace
/// period is not counted from start-up.
#[test]
fn an_idle_server_stops_at_once_and_says_so() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let mut server = Server::start(&[&index], &["--shutdown-grace", "2"]);
    std::thread::sleep(Duration::from_millis(2500));
    server.terminate();
    let (status, after) = server
        .exit_within(Duration::from_secs(5))
        .expect("an idle server exits");
    assert!(status.success(), "{status:?}");
    assert!(after < Duration::from_secs(1), "exited after {after:?}");
    std::thread::sleep(Duration::from_millis(100));
    let log = server.log();
    assert!(
        log.contains("stopped; requests in flight were answered"),
        "{log}"
    );
}

// ---------------------------------------------------------------------------------------
// Bounded clients (issue 12), with raw TCP clients.
// ---------------------------------------------------------------------------------------

/// One small index: two plasmids.
fn small_index(dir: &Path) -> PathBuf {
    build_index(
        dir,
        "plasmids",
        &[
            "Kpn_pMCR_1511_KX377410.fa.gz",
            "Eco_pBK32602_KU295134.fa.gz",
        ],
    )
}

/// A raw connection that gives up reading after `read_timeout`.
fn raw(address: SocketAddr, read_timeout: Duration) -> TcpStream {
    let stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(read_timeout)).unwrap();
    stream
}

/// Reads one response (head, then `Content-Length` bytes of body); `None` when the
/// connection closed or nothing came in time.
fn read_response(stream: &mut TcpStream) -> Option<Response> {
    let mut raw = Vec::new();
    let mut buffer = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return None,
            Ok(n) => raw.extend_from_slice(&buffer[..n]),
        }
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while raw.len() < head_end + length {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buffer[..n]),
        }
    }
    Some(Response {
        status: head.split_whitespace().nth(1)?.parse().ok()?,
        body: String::from_utf8_lossy(&raw[head_end..]).into_owned(),
        headers: head,
    })
}

/// How long until the server closes `stream` (EOF or reset), reading and discarding; `None`
/// if it is still open after `limit`.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut buffer = [0u8; 4096];
    while started.elapsed() < limit {
        match stream.read(&mut buffer) {
            Ok(0) => return Some(started.elapsed()),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return Some(started.elapsed()),
        }
    }
    None
}

/// The value of the metric line starting with `name`.
fn metric(address: SocketAddr, name: &str) -> f64 {
    let text = http(address, "GET", "/metrics", b"").body;
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{name} missing from /metrics:\n{text}"))
}

/// Polls `metric` until it reaches `at_least` (the server records some events just after
/// the client sees them); returns the last value.
fn metric_reaches(address: SocketAddr, name: &str, at_least: f64) -> f64 {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let value = metric(address, name);
        if value >= at_least || Instant::now() > deadline {
            return value;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn head(content_length: usize) -> String {
    format!("POST /api/search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {content_length}\r\n\r\n")
}

#[test]
fn oversized_bodies_are_refused_before_they_are_read() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    // 500 bases per query: the body limit is its floor, 1 MiB.
    let server = Server::start(&[&index], &["--max-query-bases", "500"]);
    let a = server.address;

    // Content-Length over the limit: answered at once, without sending a byte of body.
    let mut stream = raw(a, Duration::from_secs(5));
    stream.write_all(head(300_000_000).as_bytes()).unwrap();
    let refused = read_response(&mut stream).expect("413 before any body byte");
    assert_eq!(refused.status, 413, "{}", refused.body);
    assert!(refused.json()["error"]
        .as_str()
        .unwrap()
        .contains("larger than 1048576 bytes"));

    // A chunked body (no length given) is cut off once it passes the limit.
    let mut stream = raw(a, Duration::from_secs(5));
    stream
        .write_all(
            b"POST /api/search HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n",
        )
        .unwrap();
    let chunk = format!("10000\r\n{}\r\n", " ".repeat(0x10000));
    for _ in 0..32 {
        if stream.write_all(chunk.as_bytes()).is_err() {
            break; // the server answered and closed
        }
    }
    let cut = read_response(&mut stream).expect("413 while streaming");
    assert_eq!(cut.status, 413, "{}", cut.body);
    assert_eq!(
        metric_reaches(a, "bitsift_rejections_total{reason=\"too_large\"}", 2.0),
        2.0
    );
}

#[test]
fn bodies_beyond_the_body_memory_get_503_and_dropped_uploads_count_as_aborted() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    // 8 MiB of body memory: bodies up to 4 MiB (each is charged twice its size).
    let server = Server::start(&[&index], &["--body-memory", "8M"]);
    let a = server.address;
    let limits = http(a, "GET", "/api/indexes", b"").json()["limits"].clone();
    assert_eq!(
        limits["max_body_bytes"],
        4 << 20,
        "half the budget: {limits}"
    );

    // A 3 MB upload in progress holds 6 MB of the budget...
    let mut first = raw(a, Duration::from_secs(5));
    first.write_all(head(3_000_000).as_bytes()).unwrap();
    first.write_all(&[b' '; 1000]).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // ... so a second one is turned away before its body is read.
    let mut second = raw(a, Duration::from_secs(5));
    second.write_all(head(3_000_000).as_bytes()).unwrap();
    let busy = read_response(&mut second).expect("503 before any body byte");
    assert_eq!(busy.status, 503, "{}", busy.body);
    assert!(
        busy.headers.to_ascii_lowercase().contains("retry-after: 1"),
        "{}",
        busy.headers
    );
    assert!(
        busy.body.contains("too many request bodies"),
        "{}",
        busy.body
    );
    // Over the budget's half, a body is simply too large.
    let mut third = raw(a, Duration::from_secs(5));
    third.write_all(head(5_000_000).as_bytes()).unwrap();
    assert_eq!(read_response(&mut third).unwrap().status, 413);

    // The first client gives up mid-body: counted as aborted, not as too large, and its
    // memory is given back.
    drop(first);
    assert_eq!(
        metric_reaches(
            a,
            "bitsift_rejections_total{reason=\"client_aborted\"}",
            1.0
        ),
        1.0
    );
    assert_eq!(
        metric(a, "bitsift_rejections_total{reason=\"too_large\"}"),
        1.0
    );
    assert_eq!(
        metric(a, "bitsift_rejections_total{reason=\"body_memory\"}"),
        1.0
    );
    let gene = first_gene();
    let padded = format!("{{\"sequence\": \"{gene}\"}}{}", " ".repeat(3_000_000));
    let answered = http(a, "POST", "/api/search", padded.as_bytes());
    assert_eq!(answered.status, 200, "{}", answered.body);
}

#[test]
fn slow_heads_bodies_and_idle_connections_are_cut_by_timeouts() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let server = Server::start(
        &[&index],
        &[
            "--header-timeout",
            "2",
            "--body-timeout",
            "1",
            "--idle-timeout",
            "1",
        ],
    );
    let a = server.address;

    // Slowloris: a request head sent a line at a time, never finished.
    let mut slow_head = raw(a, Duration::from_secs(5));
    let started = Instant::now();
    slow_head.write_all(b"GET /healthz HTTP/1.1\r\n").unwrap();
    let mut closed = None;
    while started.elapsed() < Duration::from_secs(8) {
        if slow_head.write_all(b"X-Slow: 1\r\n").is_err() {
            closed = Some(started.elapsed());
            break;
        }
        if let Some(after) = closed_within(&mut slow_head, Duration::from_millis(200)) {
            closed = Some(started.elapsed().max(after));
            break;
        }
    }
    let closed = closed.expect("a head still incomplete after 8 s is cut");
    assert!(closed < Duration::from_secs(5), "cut after {closed:?}");

    // A body that stalls gets 408.
    let mut slow_body = raw(a, Duration::from_secs(5));
    slow_body.write_all(head(1000).as_bytes()).unwrap();
    slow_body.write_all(b"{\"sequence\": \"ACGT").unwrap();
    let late = read_response(&mut slow_body).expect("408 after the body timeout");
    assert_eq!(late.status, 408, "{}", late.body);
    assert!(
        late.body.contains("did not arrive within 1 s"),
        "{}",
        late.body
    );

    // An idle connection, fresh or kept alive after a request, is closed.
    let mut fresh = raw(a, Duration::from_secs(5));
    let mut kept = raw(a, Duration::from_secs(5));
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    assert_eq!(read_response(&mut kept).unwrap().status, 200);
    for stream in [&mut fresh, &mut kept] {
        let after = closed_within(stream, Duration::from_secs(6));
        assert!(after.is_some(), "idle connection still open after 6 s");
    }

    assert!(
        metric_reaches(
            a,
            "bitsift_connections_closed_total{reason=\"header_timeout\"}",
            1.0
        ) >= 1.0
    );
    assert_eq!(
        metric(a, "bitsift_rejections_total{reason=\"body_timeout\"}"),
        1.0
    );
    assert!(
        metric(
            a,
            "bitsift_connections_closed_total{reason=\"idle_timeout\"}"
        ) >= 2.0
    );
}

#[test]
fn idle_connections_cannot_starve_healthz_under_a_low_open_files_limit() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    // As `ulimit -n 128`, with the default connection limit, and long timeouts so that only
    // the limit can help.
    let server = Server::start_with_file_limit(
        &[&index],
        &["--idle-timeout", "60", "--header-timeout", "60"],
        128,
    );
    let a = server.address;
    let idle: Vec<TcpStream> = (0..200).map(|_| raw(a, Duration::from_secs(5))).collect();
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let mut stream = raw(a, Duration::from_secs(10));
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .unwrap();
    let health = read_response(&mut stream).expect("healthz answers despite 200 idle connections");
    assert_eq!(health.status, 200, "{}", health.body);
    assert!(started.elapsed() < Duration::from_secs(5));
    let open = metric(a, "bitsift_connections_open");
    assert!(
        open < 128.0,
        "{open} connections open under a limit of 128 files"
    );
    assert!(metric(a, "bitsift_connections_closed_total{reason=\"evicted\"}") >= 70.0);
    drop(idle);
}

#[test]
fn connections_beyond_the_limit_are_refused_when_none_is_idle() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let server = Server::start(&[&index], &["--max-connections", "2"]);
    let a = server.address;
    // Two requests in flight (bodies still coming) fill the limit.
    let busy: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut stream = raw(a, Duration::from_secs(5));
            stream.write_all(head(1000).as_bytes()).unwrap();
            stream.write_all(b"{").unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut third = raw(a, Duration::from_secs(5));
    let refused = read_response(&mut third).expect("a 503 for the connection over the limit");
    assert_eq!(refused.status, 503);
    assert!(
        refused.body.contains("too many open connections"),
        "{}",
        refused.body
    );
    drop(busy);
    // The server may see the two closes a moment after we make them; until then a
    // request for /metrics is itself over the limit, refused, and counted.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut metrics_refused = 0.0;
    let text = loop {
        let response = http_try(a, "GET", "/metrics", b"");
        if let Some(response) = &response {
            if response.status == 200 {
                break response.body.clone();
            }
            assert_eq!(response.status, 503, "{}", response.body);
        }
        assert!(
            Instant::now() < deadline,
            "the busy connections never closed"
        );
        metrics_refused += 1.0;
        std::thread::sleep(Duration::from_millis(50));
    };
    let name = "bitsift_connections_refused_total{reason=\"limit\"} ";
    let count: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{name} missing from /metrics:\n{text}"));
    assert_eq!(count, 1.0 + metrics_refused);
}

#[test]
fn sigterm_exits_within_the_grace_period_despite_half_sent_requests() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let mut server = Server::start(
        &[&index],
        &[
            "--shutdown-grace",
            "1",
            "--header-timeout",
            "600",
            "--body-timeout",
            "600",
            "--idle-timeout",
            "600",
        ],
    );
    let a = server.address;
    let mut half_head = raw(a, Duration::from_secs(5));
    half_head
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: loc")
        .unwrap();
    let mut half_body = raw(a, Duration::from_secs(5));
    half_body.write_all(head(1000).as_bytes()).unwrap();
    half_body.write_all(b"{\"sequence\"").unwrap();
    let mut idle = raw(a, Duration::from_secs(5));
    std::thread::sleep(Duration::from_millis(300));

    server.terminate();
    // Idle and half-head connections close at once; the request in flight has the grace.
    for stream in [&mut idle, &mut half_head] {
        let after = closed_within(stream, Duration::from_secs(1));
        assert!(after.is_some(), "not closed at once at shutdown");
    }
    let (status, after) = server
        .exit_within(Duration::from_secs(5))
        .expect("the server exits within its grace period despite a half-sent body");
    assert!(status.success(), "{status:?}");
    assert!(after < Duration::from_secs(3), "exited after {after:?}");
    std::thread::sleep(Duration::from_millis(100));
    let log = server.log();
    assert!(log.contains("grace period ran out"), "{log}");
    assert!(log.contains(": 1 connection(s) cut"), "{log}");
}

#[test]
fn options_that_cannot_be_honoured_are_errors_not_panics() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let index = index.to_str().unwrap();
    for (option, value, needle) in [
        ("--timeout", "1e30", "out of range"),
        ("--timeout", "0", "more than 0"),
        ("--header-timeout", "NaN", "out of range"),
        ("--shutdown-grace=-1", "", "out of range"),
        ("--body-timeout", "soon", "not a number of seconds"),
        ("--max-connections", "0", "0 is not in 1.."),
        ("--max-connections", "100000000", "file descriptors"),
    ] {
        let mut args = vec!["serve", "-i", index, "--listen", "127.0.0.1:0", option];
        if !value.is_empty() {
            args.push(value);
        }
        let output = run(&args);
        let text = stderr(&output);
        assert!(!output.status.success(), "{option} {value} accepted");
        assert!(!text.contains("panicked"), "{option} {value}: {text}");
        assert!(text.contains(needle), "{option} {value}: {text}");
    }
}

#[test]
fn skip_broken_serves_the_indexes_that_open_and_lists_the_others() {
    let dir = temp_dir();
    let good = small_index(dir.path());
    let damaged = dir.path().join("damaged.cobs_compact");
    let mut bytes = std::fs::read(&good).unwrap();
    bytes[..8].copy_from_slice(b"NOTCOBS!");
    std::fs::write(&damaged, bytes).unwrap();
    let missing = dir.path().join("missing.cobs_compact");

    // Without --skip-broken the server refuses to start, naming the file.
    let output = run(&[
        "serve",
        "-i",
        good.to_str().unwrap(),
        "-i",
        damaged.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains(damaged.to_str().unwrap()),
        "{}",
        stderr(&output)
    );

    let server = Server::start(&[&good, &damaged, &missing], &["--skip-broken"]);
    let a = server.address;
    let indexes = http(a, "GET", "/api/indexes", b"").json();
    assert_eq!(indexes["limits"]["max_body_bytes"], 256 << 20);
    assert_eq!(indexes["indexes"].as_array().unwrap().len(), 1);
    assert_eq!(indexes["indexes"][0]["name"], "plasmids");
    assert_eq!(indexes["indexes"][0]["status"], "ok");
    let unavailable = indexes["unavailable"].as_array().unwrap();
    let names: Vec<&str> = unavailable
        .iter()
        .map(|u| u["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["damaged", "missing"]);
    for entry in unavailable {
        assert_eq!(entry["status"], "unavailable");
        let error = entry["error"].as_str().unwrap();
        assert!(error.contains(entry["file"].as_str().unwrap()), "{error}");
    }

    let health = http(a, "GET", "/healthz", b"");
    assert_eq!(
        health.status, 200,
        "left out at start: degraded, still serving"
    );
    assert_eq!(health.json()["status"], "degraded");
    assert_eq!(health.json()["unavailable"].as_array().unwrap().len(), 2);

    let gene = first_gene();
    let found = post(a, &serde_json::json!({"sequence": gene}));
    assert_eq!(found.status, 200, "{}", found.body);
    let found = found.json();
    assert_eq!(
        found["results"][0]["hits"][0]["document"],
        "Kpn_pMCR_1511_KX377410"
    );
    assert_eq!(
        found["unavailable_indexes"],
        serde_json::json!(["damaged", "missing"])
    );
    let named = post(
        a,
        &serde_json::json!({"sequence": gene, "indexes": ["damaged"]}),
    );
    assert_eq!(named.status, 503, "{}", named.body);
    assert!(
        named.body.contains("index \\\"damaged\\\" is unavailable"),
        "{}",
        named.body
    );
}

#[test]
fn an_index_changed_on_disk_fails_its_searches_and_healthz() {
    let dir = temp_dir();
    let (plasmids, phage, _) = fixtures(dir.path());
    let copy = |name: &str| {
        let path = dir.path().join(format!("{name}.cobs_compact"));
        std::fs::copy(&plasmids, &path).unwrap();
        path
    };
    let (truncated, rewritten, replaced, kept) = (
        copy("truncated"),
        copy("rewritten"),
        copy("replaced"),
        copy("kept"),
    );
    let server = Server::start(&[&truncated, &rewritten, &replaced, &kept], &[]);
    let a = server.address;
    let gene = first_gene();
    let search = |indexes: Option<&[&str]>| {
        let mut body =
            serde_json::json!({"sequence": gene, "threshold": 0.0, "raw_threshold": true});
        if let Some(names) = indexes {
            body["indexes"] = serde_json::json!(names);
        }
        post(a, &body)
    };
    assert_eq!(search(None).status, 200);

    // Truncated; overwritten in place with bytes of the same size; replaced by another
    // index under the same name.
    let size = std::fs::metadata(&truncated).unwrap().len();
    std::fs::File::options()
        .write(true)
        .open(&truncated)
        .unwrap()
        .set_len(size / 2)
        .unwrap();
    let mut bytes = std::fs::read(&rewritten).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    let mut file = std::fs::File::options()
        .write(true)
        .open(&rewritten)
        .unwrap();
    file.write_all(&bytes).unwrap();
    drop(file);
    let incoming = dir.path().join("incoming.tmp");
    std::fs::copy(&phage, &incoming).unwrap();
    std::fs::rename(&incoming, &replaced).unwrap();

    let still = search(Some(&["kept"]));
    assert_eq!(
        still.status, 200,
        "an unchanged index still answers: {}",
        still.body
    );
    assert_eq!(
        still.json()["results"][0]["hits"][0]["document"],
        "Kpn_pMCR_1511_KX377410"
    );
    for (name, path, cause) in [
        ("truncated", &truncated, "bytes"),
        ("rewritten", &rewritten, "modification time"),
        ("replaced", &replaced, "replaced"),
    ] {
        let failed = search(Some(&[name]));
        assert_eq!(failed.status, 503, "{name}: {}", failed.body);
        let error = failed.json()["error"].as_str().unwrap().to_string();
        assert!(error.starts_with(path.to_str().unwrap()), "{error}");
        assert!(
            error.contains("index changed on disk since the server started"),
            "{error}"
        );
        assert!(error.contains(cause), "{error}");
        assert!(error.contains("reload the server"), "{error}");
    }
    assert_eq!(
        search(None).status,
        503,
        "searching all includes changed ones"
    );

    let health = http(a, "GET", "/healthz", b"");
    assert_eq!(health.status, 503);
    let health = health.json();
    assert_eq!(health["status"], "unhealthy");
    let changed: Vec<&str> = health["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(changed, ["truncated", "rewritten", "replaced"]);
    let indexes = http(a, "GET", "/api/indexes", b"").json();
    let statuses: Vec<&str> = indexes["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["changed", "changed", "changed", "ok"]);
    assert_eq!(
        metric(a, "bitsift_rejections_total{reason=\"index_unavailable\"}"),
        4.0
    );
}

/// Issue 11: the API reads bases by the rule of the command line (case and whitespace do not
/// matter, U is T; `fold_case: false` is COBS's byte rule) and refuses non-DNA with a 400.
#[test]
fn bases_follow_one_rule_and_proteins_get_400() {
    let dir = temp_dir();
    let plasmids = build_index(
        dir.path(),
        "plasmids",
        &[
            "Kpn_pMCR_1511_KX377410.fa.gz",
            "Eco_pBK32602_KU295134.fa.gz",
        ],
    );
    let server = Server::start(&[&plasmids], &[]);
    let a = server.address;
    let gene = first_gene();
    let hits = |request: Value| -> Value {
        let response = post(a, &request);
        assert_eq!(response.status, 200, "{}", response.body);
        response.json()["results"][0]["hits"].clone()
    };
    let expected =
        hits(serde_json::json!({"sequence": gene, "threshold": 0.0, "raw_threshold": true}));
    assert_eq!(expected[0]["kmers_found"], 1596);
    let lower = gene.to_ascii_lowercase();
    let spaced: String = gene
        .as_bytes()
        .chunks(70)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("\n ");
    let rna = gene.replace('T', "U");
    for sequence in [&lower, &spaced, &rna] {
        let found = hits(
            serde_json::json!({"sequence": sequence, "threshold": 0.0, "raw_threshold": true}),
        );
        assert_eq!(found, expected);
    }
    let cobs_rule = hits(
        serde_json::json!({"sequence": lower, "threshold": 0.0, "raw_threshold": true, "fold_case": false}),
    );
    assert_ne!(cobs_rule, expected, "lowercase is A under COBS's rule");

    let protein = "MKTLLILAVLAAVLAQPEFGHIKLMNPQRSTVWYMKTLLILAVL";
    for request in [
        serde_json::json!({"sequence": protein}),
        serde_json::json!({"fasta": format!(">gene\n{gene}\n>p1\n{protein}\n")}),
    ] {
        let response = post(a, &request);
        assert_eq!(response.status, 400, "{}", response.body);
        let message = response.json()["error"].as_str().unwrap().to_string();
        assert!(
            message.contains("not a nucleotide sequence: it looks like a protein"),
            "{message}"
        );
    }
    let named = post(
        a,
        &serde_json::json!({"fasta": format!(">p1\n{protein}\n")}),
    );
    assert!(
        named.json()["error"]
            .as_str()
            .unwrap()
            .starts_with("query \"p1\": not a nucleotide sequence"),
        "{}",
        named.body
    );
}

/// Issue 12: a served index whose pages do not match its checksum sidecar fails the searches
/// that read them with the mismatch (a server error, not the client's), and `/healthz` turns
/// unhealthy, listing it as damaged; a copy with its sidecar (`cp INDEX* dir/`) is checked.
#[test]
fn a_damaged_index_fails_its_searches_with_the_checksum_error_and_healthz_says_so() {
    let dir = temp_dir();
    let (plasmids, _, _) = fixtures(dir.path());
    let damaged = dir.path().join("damaged.cobs_compact");
    std::fs::copy(&plasmids, &damaged).unwrap();
    std::fs::copy(
        bitsift::format::sidecar_path(&plasmids),
        bitsift::format::sidecar_path(&damaged),
    )
    .unwrap();
    // One byte of every 4 KiB page of the data section (before the server starts, so that
    // what it sees is not a file changed under it but a file that does not match its sums).
    let header = bitsift::format::IndexHeader::open(&damaged).unwrap();
    let mut bytes = std::fs::read(&damaged).unwrap();
    // The pages the open samples are left whole: damage to every one of them reads as a
    // sidecar of another build, refused at open (issue 30; tests/side_file_binding.rs).
    let sampled = bitsift::format::content::sampled_pages(header.file_size, header.data_offset);
    let mut at = header.data_offset as usize + 7;
    while at < bytes.len() {
        if !sampled.contains(&(at as u64 / 4096)) {
            bytes[at] ^= 0x5a;
        }
        at += 4096;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    let server = Server::start(&[&damaged], &[]);
    let a = server.address;
    let health = http(a, "GET", "/healthz", b"");
    assert_eq!(health.status, 200, "{}", health.body);
    let answer = post(
        a,
        &serde_json::json!({"sequence": first_gene(), "threshold": 0.5}),
    );
    assert_eq!(answer.status, 500, "{}", answer.body);
    let error = answer.json()["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("damaged.cobs_compact: checksum mismatch"),
        "{error}"
    );
    let health = http(a, "GET", "/healthz", b"");
    assert_eq!(health.status, 503, "{}", health.body);
    let body = health.json();
    assert_eq!(body["status"], "unhealthy");
    assert_eq!(body["damaged"][0]["name"], "damaged");
    let listed = http(a, "GET", "/api/indexes", b"").json();
    assert_eq!(listed["indexes"][0]["status"], "damaged");
}

#[test]
fn a_collection_is_served_with_its_removed_documents_hidden() {
    let dir = temp_dir();
    let collection = dir.path().join("collection");
    for genomes in [
        &[
            "Kpn_pMCR_1511_KX377410.fa.gz",
            "Eco_pBK32602_KU295134.fa.gz",
        ][..],
        &["Phage_lambda_NC_001416.fa.gz"][..],
    ] {
        let mut args = vec![
            "add".to_string(),
            "-q".into(),
            collection.display().to_string(),
        ];
        args.extend(
            genomes
                .iter()
                .map(|g| demo_file(&format!("genomes/{g}")).display().to_string()),
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = run(&args);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let names = dir.path().join("remove.txt");
    std::fs::write(&names, "Kpn_pMCR_1511_KX377410\n").unwrap();
    let removed = run(&[
        "remove",
        collection.to_str().unwrap(),
        "--documents",
        names.to_str().unwrap(),
    ]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    let server = Server::start(&[&collection], &[]);
    let indexes = http(server.address, "GET", "/api/indexes", b"").json();
    // One collection, listed once whatever its number of sub-indexes, with the documents
    // a search may report.
    let listed = indexes["indexes"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{indexes}");
    assert_eq!(listed[0]["name"], "collection", "{indexes}");
    assert_eq!(listed[0]["files"].as_array().unwrap().len(), 2, "{indexes}");
    assert_eq!(listed[0]["documents"], 2, "{indexes}");
    let found = post(
        server.address,
        &serde_json::json!({"sequence": first_gene(), "threshold": 0.0, "raw_threshold": true}),
    );
    assert_eq!(found.status, 200, "{}", found.body);
    let documents: Vec<String> = found.json()["results"][0]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["document"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        documents.len(),
        2,
        "threshold 0 lists every shown document: {documents:?}"
    );
    assert!(!documents.contains(&"Kpn_pMCR_1511_KX377410".to_string()));
}

/// Issue 11, item 6 through the API: `coverage: true` adds where each hit matches; a whole
/// gene is one stretch with no gap, and without the flag there is no coverage.
#[test]
fn coverage_says_where_each_hit_matches() {
    let dir = temp_dir();
    let (plasmids, _, _) = fixtures(dir.path());
    let server = Server::start(&[&plasmids], &[]);
    let gene = first_gene();
    let answer = post(
        server.address,
        &serde_json::json!({"sequence": gene, "threshold": 0.9, "coverage": true}),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    let hit = answer.json()["results"][0]["hits"][0].clone();
    assert_eq!(hit["fraction"], 1.0, "{hit}");
    let coverage = &hit["coverage"];
    assert_eq!(
        coverage["intervals"],
        serde_json::json!([[1, gene.len()]]),
        "{coverage}"
    );
    assert_eq!(coverage["covered_bases"], gene.len() as u64);
    assert_eq!(coverage["longest_gap"], 0);
    let plain = post(
        server.address,
        &serde_json::json!({"sequence": gene, "threshold": 0.9}),
    );
    assert!(plain.json()["results"][0]["hits"][0]
        .get("coverage")
        .is_none());
}

#[test]
fn a_cache_that_holds_the_indexes_scores_them_in_memory() {
    let dir = temp_dir();
    let (plasmids, phage, _) = fixtures(dir.path());
    let body =
        serde_json::json!({"sequence": first_gene(), "threshold": 0.0, "raw_threshold": true});
    let direct = ["--direct-io", "required"];
    let reads = Server::start(
        &[&plasmids, &phage],
        &[&["--cache-size", "0"], &direct[..]].concat(),
    );
    let expected = post(reads.address, &body).json();
    assert_eq!(expected["stats"]["source"], "reads");
    drop(reads);

    let server = Server::start(
        &[&plasmids, &phage],
        &[&["--cache-size", "64M"], &direct[..]].concat(),
    );
    let a = server.address;
    let deadline = Instant::now() + Duration::from_secs(60);
    let image = loop {
        let image = http(a, "GET", "/api/indexes", b"").json()["image"].clone();
        if image["loaded"] == true {
            break image;
        }
        assert!(image["error"].is_null(), "{image}");
        assert!(
            Instant::now() < deadline,
            "the indexes never came into memory"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // The image holds every file a search reads: the indexes and their side files.
    let total: u64 = [&plasmids, &phage]
        .iter()
        .flat_map(|p| {
            [
                p.to_path_buf(),
                bitsift::format::sidecar_path(p),
                bitsift::summary::summary_path(p),
                std::path::PathBuf::from(format!("{}.bitsift-ones", p.display())),
            ]
        })
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    assert_eq!(image["bytes"], total);
    let found = post(a, &body).json();
    assert_eq!(found["stats"]["source"], "image");
    assert_eq!(found["stats"]["bytes_read"], 0);
    assert_eq!(found["results"], expected["results"]);
}

/// Issue 19 through the API: totals whatever the limit, pages that add up to the whole
/// ranking, groups counted from the metadata, the identity cutoff, and the command line's
/// TSV and matrix as downloads.
#[test]
fn answers_carry_totals_pages_groups_and_downloads() {
    let dir = temp_dir();
    let (plasmids, phage, metadata) = fixtures(dir.path());
    let server = Server::start(
        &[&plasmids, &phage],
        &["--metadata", metadata.to_str().unwrap()],
    );
    let gene = first_gene();
    let ask = |extra: Value| {
        let mut body =
            serde_json::json!({"sequence": gene, "threshold": 0.0, "raw_threshold": true});
        for (key, value) in extra.as_object().unwrap() {
            body[key] = value.clone();
        }
        post(server.address, &body)
    };
    let whole = ask(serde_json::json!({"limit": 0})).json();
    let result = &whole["results"][0];
    assert_eq!(result["total_hits"], 4, "{result}");
    assert_eq!(result["documents_searched"], 4);
    let all: Vec<Value> = result["hits"].as_array().unwrap().clone();
    assert_eq!(all.len(), 4);
    assert_eq!(all[0]["identity"], 1.0, "a whole copy: {}", all[0]);
    let mut paged = Vec::new();
    for offset in 0..5 {
        let page = ask(serde_json::json!({"limit": 1, "offset": offset})).json();
        let page = &page["results"][0];
        assert_eq!(page["total_hits"], 4, "every page says the total");
        assert_eq!(page["offset"], offset);
        paged.extend(page["hits"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(paged, all, "the pages are the ranking");

    // Groups, counted again from the hits and the table.
    let grouped = ask(serde_json::json!({"limit": 1, "group_by": "species"})).json();
    let groups = grouped["results"][0]["groups"].as_array().unwrap().clone();
    let species = |hit: &Value| {
        hit["metadata"]["species"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    for group in &groups {
        let value = group["value"].as_str().unwrap();
        let carriers = all.iter().filter(|h| species(h) == value).count();
        assert_eq!(group["carriers"], carriers, "{group}");
        assert_eq!(
            group["searched"], carriers,
            "threshold 0: every document is a hit"
        );
    }
    assert_eq!(groups.len(), 2, "{groups:?}");
    // A click on a group: only its hits, the totals unchanged.
    let only =
        ask(serde_json::json!({"limit": 0, "group_by": "species", "group": "K. pneumoniae"}))
            .json();
    let only = &only["results"][0];
    assert_eq!(only["total_hits"], 4);
    let shown = only["hits"].as_array().unwrap();
    assert_eq!(shown.len(), 1, "{only}");
    assert!(shown.iter().all(|h| species(h) == "K. pneumoniae"));
    let unknown = ask(serde_json::json!({"group_by": "host"}));
    assert_eq!(unknown.status, 400);
    assert!(unknown.json()["error"]
        .as_str()
        .unwrap()
        .contains("no column \"host\""));

    // The identity cutoff is a threshold on the estimate.
    let exact = post(
        server.address,
        &serde_json::json!({"sequence": gene, "min_identity": 1.0}),
    )
    .json();
    let by_fraction = post(
        server.address,
        &serde_json::json!({"sequence": gene, "threshold": 1.0}),
    )
    .json();
    assert_eq!(
        exact["results"][0]["hits"],
        by_fraction["results"][0]["hits"]
    );
    let both = post(
        server.address,
        &serde_json::json!({"sequence": gene, "threshold": 0.5, "min_identity": 0.9}),
    );
    assert_eq!(both.status, 400);

    // Downloads: the command line's TSV and matrix.
    let tsv = ask(serde_json::json!({"limit": 0, "format": "tsv"}));
    assert_eq!(tsv.status, 200);
    assert!(tsv
        .headers
        .to_ascii_lowercase()
        .contains("content-type: text/tab-separated-values"));
    let lines: Vec<&str> = tsv.body.lines().collect();
    assert_eq!(
        lines[0],
        "query\tindex\tdocument\tkmers_found\tkmers_total\tfraction\tidentity\tcontainment\tcontainment_low\tcontainment_high\tborderline\tfpr\tfp_expected\tp_false\tstatus\tspecies\tsource"
    );
    assert_eq!(lines.len(), 5, "{}", tsv.body);
    let matrix = ask(serde_json::json!({"limit": 0, "format": "matrix", "presence": true}));
    let rows: Vec<&str> = matrix.body.lines().collect();
    assert_eq!(rows[0], "document\tindex\tquery");
    assert_eq!(rows.len(), 5);
    assert!(
        rows[1..].iter().all(|r| r.ends_with("\t1")),
        "{}",
        matrix.body
    );
}

/// The documents a threshold-0 search of the first gene lists, with the view and the
/// collection's generation the answer names (JSON body and headers agree).
fn listed(address: SocketAddr) -> (Vec<String>, u64, u64) {
    let found = post(
        address,
        &serde_json::json!({"sequence": first_gene(), "threshold": 0.0, "raw_threshold": true}),
    );
    assert_eq!(found.status, 200, "{}", found.body);
    let json = found.json();
    let view = json["view"].as_u64().unwrap();
    let generation = json["generations"][0]["generation"].as_u64().unwrap();
    assert_eq!(json["generations"][0]["name"], "collection", "{json}");
    let headers = found.headers.to_ascii_lowercase();
    assert!(
        headers.contains(&format!("x-bitsift-view: {view}\r\n")),
        "{headers}"
    );
    assert!(
        headers.contains(&format!("x-bitsift-generations: collection={generation}")),
        "{headers}"
    );
    let mut documents: Vec<String> = json["results"][0]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["document"].as_str().unwrap().to_string())
        .collect();
    documents.sort();
    (documents, view, generation)
}

/// Issue 20: a running server follows its collection. Every commit (remove, add, merge) is
/// seen by the next request, with no wait and no restart; the answer names the view and the
/// manifest generation it comes from; a merge that unlinks the served files causes no error;
/// a manifest that cannot be read leaves the previous view serving, with the reason in
/// `/healthz`, until the collection is readable again; SIGHUP and `POST /api/reload` reload.
#[test]
fn a_server_follows_its_collection_through_remove_add_and_merge() {
    let dir = temp_dir();
    let collection = dir.path().join("collection");
    let c = collection.to_str().unwrap();
    let genome = |g: &str| demo_file(&format!("genomes/{g}")).display().to_string();
    let (kpn, eco, lambda) = (
        "Kpn_pMCR_1511_KX377410",
        "Eco_pBK32602_KU295134",
        "Phage_lambda_NC_001416",
    );
    ok(run(&["add", "-q", c, &genome(&format!("{kpn}.fa.gz"))]));
    ok(run(&["add", "-q", c, &genome(&format!("{eco}.fa.gz"))]));
    let server = Server::start(&[&collection], &[]);
    let a = server.address;
    assert_eq!(listed(a), (vec![eco.into(), kpn.into()], 1, 2));

    let names = dir.path().join("remove.txt");
    std::fs::write(&names, format!("{kpn}\n")).unwrap();
    ok(run(&["remove", c, "--documents", names.to_str().unwrap()]));
    assert_eq!(
        listed(a),
        (vec![eco.into()], 2, 3),
        "a removal is seen at once"
    );

    ok(run(&["add", "-q", c, &genome(&format!("{lambda}.fa.gz"))]));
    assert_eq!(listed(a), (vec![eco.into(), lambda.into()], 3, 4));
    let files = |json: &Value| json["indexes"][0]["files"].as_array().unwrap().len();
    let indexes = http(a, "GET", "/api/indexes", b"").json();
    assert_eq!(
        (files(&indexes), &indexes["indexes"][0]["generation"]),
        (3, &Value::from(4))
    );

    ok(run(&["merge", c]));
    assert_eq!(
        listed(a),
        (vec![eco.into(), lambda.into()], 4, 5),
        "no 503 after a merge"
    );
    let indexes = http(a, "GET", "/api/indexes", b"").json();
    assert_eq!(files(&indexes), 1, "{indexes}");
    let health = http(a, "GET", "/healthz", b"").json();
    assert_eq!(health["status"], "ok", "{health}");
    assert_eq!(health["generations"][0]["generation"], 5, "{health}");

    // A manifest that cannot be read: the previous view goes on, and says why.
    let manifest = collection.join("collection.json");
    let good = std::fs::read(&manifest).unwrap();
    let swap = |bytes: &[u8]| {
        let temporary = collection.join(".swap");
        std::fs::write(&temporary, bytes).unwrap();
        std::fs::rename(&temporary, &manifest).unwrap();
    };
    swap(b"{\"format\": \"bitsift-collection\", \"version\": 1, \"generation\": 6");
    assert_eq!(listed(a), (vec![eco.into(), lambda.into()], 4, 5));
    let health = http(a, "GET", "/healthz", b"");
    assert_eq!(health.status, 200, "{}", health.body);
    let health = health.json();
    assert_eq!(health["status"], "degraded", "{health}");
    let why = health["reload_failed"]["error"].as_str().unwrap();
    assert!(
        why.contains("view 4 still served") && why.contains("collection.json"),
        "{why}"
    );
    assert_eq!(
        metric(a, "bitsift_reload_failures_total"),
        1.0,
        "tried once, not per request"
    );
    swap(&good);
    assert_eq!(listed(a).1, 5, "readable again: a new view");
    assert_eq!(http(a, "GET", "/healthz", b"").json()["status"], "ok");

    // Asked for: from this machine, and on SIGHUP.
    let reloaded = http(a, "POST", "/api/reload", b"");
    assert_eq!(reloaded.status, 200, "{}", reloaded.body);
    assert_eq!(reloaded.json()["view"], 6);
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGHUP) };
    let deadline = Instant::now() + Duration::from_secs(20);
    while http(a, "GET", "/api/indexes", b"").json()["view"] != 7 {
        assert!(Instant::now() < deadline, "SIGHUP did not reload");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(metric(a, "bitsift_reloads_total"), 6.0);
}

/// Issue 30: a collection whose manifest is lost (deleted, or a named pipe in its place) is
/// not served as a plain directory of indexes, which would show its removed genomes again:
/// the running server keeps its view, with the reason in `/healthz`; a server started on it
/// refuses to start; once the manifest is back, the next request is served from it.
#[test]
fn a_collection_whose_manifest_is_lost_is_never_served_as_a_plain_directory() {
    let dir = temp_dir();
    let collection = dir.path().join("collection");
    let c = collection.to_str().unwrap();
    let genome = |g: &str| {
        demo_file(&format!("genomes/{g}.fa.gz"))
            .display()
            .to_string()
    };
    let (kpn, eco) = ("Kpn_pMCR_1511_KX377410", "Eco_pBK32602_KU295134");
    ok(run(&["add", "-q", c, &genome(kpn)]));
    ok(run(&["add", "-q", c, &genome(eco)]));
    let names = dir.path().join("remove.txt");
    std::fs::write(&names, format!("{kpn}\n")).unwrap();
    ok(run(&[
        "remove",
        "-q",
        c,
        "--documents",
        names.to_str().unwrap(),
    ]));
    let server = Server::start(&[&collection], &[]);
    let a = server.address;
    assert_eq!(listed(a), (vec![eco.into()], 1, 3));

    let manifest = collection.join("collection.json");
    let kept = dir.path().join("kept.json");
    std::fs::rename(&manifest, &kept).unwrap();
    for lost in ["deleted", "a named pipe"] {
        if lost == "a named pipe" {
            let name = std::ffi::CString::new(manifest.to_str().unwrap()).unwrap();
            // SAFETY: a C string that outlives the call.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        }
        assert_eq!(
            listed(a),
            (vec![eco.into()], 1, 3),
            "{lost}: the removed genome stays removed"
        );
        let health = http(a, "GET", "/healthz", b"").json();
        assert_eq!(health["status"], "degraded", "{lost}: {health}");
        let why = health["reload_failed"]["error"].as_str().unwrap();
        assert!(
            why.contains("view 1 still served") && why.contains("bitsift recover"),
            "{lost}: {why}"
        );
        let reload = http(a, "POST", "/api/reload", b"");
        assert_eq!(reload.status, 500, "{lost}: {}", reload.body);
        assert!(reload.body.contains("bitsift recover"), "{}", reload.body);

        let refused = Server::command(&[&collection], &[])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
            .wait_with_output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(1), "{lost}: does not start");
        assert!(
            stderr(&refused).contains("bitsift recover"),
            "{}",
            stderr(&refused)
        );
    }
    std::fs::remove_file(&manifest).unwrap();
    std::fs::rename(&kept, &manifest).unwrap();
    assert_eq!(listed(a).0, vec![eco.to_string()], "back: a new view");
    assert_eq!(http(a, "GET", "/healthz", b"").json()["status"], "ok");
}

/// Issue 20: a plain index file replaced on disk makes the server unhealthy until it is
/// reloaded, and the reload serves the new file.
#[test]
fn a_replaced_index_file_is_served_after_a_reload() {
    let dir = temp_dir();
    let index = build_index(dir.path(), "plasmids", &["Kpn_pMCR_1511_KX377410.fa.gz"]);
    let server = Server::start(&[&index], &[]);
    let a = server.address;
    let other = build_index(dir.path(), "other", &["Eco_pBK32602_KU295134.fa.gz"]);
    std::fs::rename(&other, &index).unwrap();
    assert_eq!(http(a, "GET", "/healthz", b"").status, 503);
    // The old file's side files do not describe the new one: the reload says so and the
    // previous view goes on.
    let refused = http(a, "POST", "/api/reload", b"");
    assert_eq!(refused.status, 500, "{}", refused.body);
    assert!(
        refused.body.contains("view 1 still served"),
        "{}",
        refused.body
    );
    for suffix in [".bitsift-checksums", ".bitsift-summaries"] {
        let side = |path: &Path| PathBuf::from(format!("{}{suffix}", path.display()));
        if side(&other).exists() {
            std::fs::rename(side(&other), side(&index)).unwrap();
        }
    }
    let reloaded = http(a, "POST", "/api/reload", b"");
    assert_eq!(reloaded.status, 200, "{}", reloaded.body);
    assert_eq!(http(a, "GET", "/healthz", b"").json()["status"], "ok");
    let found = post(
        a,
        &serde_json::json!({"sequence": first_gene(), "threshold": 0.0, "raw_threshold": true}),
    );
    assert_eq!(found.status, 200, "{}", found.body);
    assert_eq!(
        found.json()["results"][0]["hits"][0]["document"],
        "Eco_pBK32602_KU295134"
    );
}

/// Searches the first gene over and over until `stop` is set; returns the statuses and the
/// bodies of every answer that was not a 200.
fn search_until(address: SocketAddr, stop: Arc<std::sync::atomic::AtomicBool>) -> Vec<String> {
    let mut failures = Vec::new();
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        let answer = post(
            address,
            &serde_json::json!({"sequence": first_gene(), "threshold": 0.0, "raw_threshold": true}),
        );
        if answer.status != 200 {
            failures.push(format!("{}: {}", answer.status, answer.body));
        }
    }
    failures
}

/// Hard-links every file of `from` into a new directory `to`, as `rsync --link-dest` does
/// for files that did not change.
fn link_snapshot(from: &Path, to: &Path) {
    std::fs::create_dir(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::hard_link(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Issue 30, item 4: change detection follows bytes, not links. A collection of adopted
/// (hard-linked) indexes keeps answering 200 with the same hits while a background client
/// searches, after the originals are deleted, after `cp -al` and `rsync --link-dest`-like
/// snapshots of its directory, and after a merge of the adopted members (which unlinks
/// files the snapshots still hold); a sub-index rewritten in place is still a change.
#[test]
fn hard_links_made_and_removed_are_not_changes_but_new_bytes_are() {
    let dir = temp_dir();
    let originals = dir.path().join("originals");
    std::fs::create_dir(&originals).unwrap();
    let first = build_index(&originals, "first", &["Kpn_pMCR_1511_KX377410.fa.gz"]);
    let second = build_index(&originals, "second", &["Eco_pBK32602_KU295134.fa.gz"]);
    let collection = dir.path().join("collection");
    let c = collection.to_str().unwrap();
    ok(run(&[
        "add",
        "-q",
        c,
        "--fpr",
        "0.3",
        "--adopt",
        text(&first),
        "--adopt",
        text(&second),
    ]));
    let server = Server::start(&[&collection], &[]);
    let a = server.address;
    let expected = vec![
        "Eco_pBK32602_KU295134".to_string(),
        "Kpn_pMCR_1511_KX377410".to_string(),
    ];
    assert_eq!(listed(a).0, expected);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let client = {
        let stop = stop.clone();
        std::thread::spawn(move || search_until(a, stop))
    };
    let healthy = |when: &str| {
        assert_eq!(listed(a).0, expected, "{when}");
        let health = http(a, "GET", "/healthz", b"");
        assert_eq!(health.status, 200, "{when}: {}", health.body);
        assert_eq!(health.json()["status"], "ok", "{when}: {}", health.body);
    };
    // Link counts and change times move; no byte does.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::remove_dir_all(&originals).unwrap();
    healthy("after the originals were deleted");
    let copied = Command::new("cp")
        .arg("-al")
        .arg(&collection)
        .arg(dir.path().join("cp-al"))
        .status()
        .unwrap();
    assert!(copied.success());
    healthy("after cp -al");
    link_snapshot(&collection, &dir.path().join("link-dest"));
    healthy("after a --link-dest snapshot");
    ok(run(&["merge", "-q", c]));
    healthy("after the adopted members were merged");
    link_snapshot(&collection, &dir.path().join("link-dest-2"));
    healthy("after a snapshot of the merged collection");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let failures = client.join().unwrap();
    assert!(
        failures.is_empty(),
        "{} failures: {failures:?}",
        failures.len()
    );

    // New bytes in place (through the snapshot's link to the same file) are a change.
    let merged: Vec<PathBuf> = std::fs::read_dir(&collection)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cobs_compact"))
        .collect();
    assert_eq!(merged.len(), 1, "{merged:?}");
    let name = merged[0].file_name().unwrap();
    let snapshot = dir.path().join("link-dest-2").join(name);
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    let mut file = std::fs::File::options()
        .write(true)
        .open(&snapshot)
        .unwrap();
    file.write_all(&bytes).unwrap();
    drop(file);
    let failed = post(
        a,
        &serde_json::json!({"sequence": first_gene(), "threshold": 0.0, "raw_threshold": true}),
    );
    assert_eq!(failed.status, 503, "{}", failed.body);
    assert!(
        failed.body.contains("index changed on disk") && failed.body.contains("modification time"),
        "{}",
        failed.body
    );
    assert_eq!(http(a, "GET", "/healthz", b"").status, 503);
}

/// Issue 30, item 5: query names sent through the API with a tab, a line feed, a carriage
/// return, a backslash or another control character are escaped in the TSV and matrix
/// downloads (one rule, the command line's): no column shifts, no row splits. JSON keeps
/// them as they are.
#[test]
fn query_names_with_control_characters_are_escaped_in_downloads() {
    let dir = temp_dir();
    let (plasmids, phage, metadata) = fixtures(dir.path());
    let server = Server::start(
        &[&plasmids, &phage],
        &["--metadata", metadata.to_str().unwrap()],
    );
    let odd = "a\tb\nc\rd\\e\u{1}f";
    let escaped = "a\\tb\\nc\\rd\\\\e\\x01f";
    let ask = |format: &str| {
        let body = serde_json::json!({
            "sequences": [{"name": odd, "sequence": first_gene()}, {"name": "plain", "sequence": first_gene()}],
            "threshold": 0.0, "raw_threshold": true,
            "format": format,
        });
        let answer = post(server.address, &body);
        assert_eq!(answer.status, 200, "{format}: {}", answer.body);
        answer.body
    };
    let fields =
        |text: &str| -> Vec<usize> { text.lines().map(|l| l.split('\t').count()).collect() };
    let tsv = ask("tsv");
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines.len(), 9, "a header and 4 hits a query: {tsv}");
    assert!(fields(&tsv).iter().all(|&n| n == 17), "{tsv}");
    assert_eq!(
        lines[1..]
            .iter()
            .filter(|l| l.starts_with(&format!("{escaped}\t")))
            .count(),
        4,
        "{tsv}"
    );
    let matrix = ask("matrix");
    assert!(
        matrix.starts_with(&format!("document\tindex\t{escaped}\tplain\n")),
        "{matrix}"
    );
    assert_eq!(matrix.lines().count(), 5, "{matrix}");
    assert!(fields(&matrix).iter().all(|&n| n == 4), "{matrix}");
    let json: Value = serde_json::from_str(&ask("json")).unwrap();
    assert_eq!(json["results"][0]["query"], odd, "{json}");
}

/// Issue 30, item 5: a metadata value that is literally `NA` is a value like any other; the
/// documents without a value (not in the table, or an empty cell) form the group `""`, which
/// no value of a table can be. The API's group filter finds each.
#[test]
fn a_metadata_value_na_is_not_the_group_of_documents_without_a_value() {
    let dir = temp_dir();
    let (plasmids, phage, _) = fixtures(dir.path());
    let metadata = dir.path().join("na.tsv");
    std::fs::write(
        &metadata,
        "document\tspecies\nKpn_pMCR_1511_KX377410\tNA\nEco_pBK32602_KU295134\tE. coli\nPhage_lambda_NC_001416\t\n",
    )
    .unwrap();
    let server = Server::start(
        &[&plasmids, &phage],
        &["--metadata", metadata.to_str().unwrap()],
    );
    let ask = |group: Option<&str>, format: &str| {
        let mut body = serde_json::json!({
            "sequence": first_gene(), "threshold": 0.0, "raw_threshold": true, "group_by": "species", "format": format,
        });
        if let Some(group) = group {
            body["group"] = Value::from(group);
        }
        let answer = post(server.address, &body);
        assert_eq!(answer.status, 200, "{group:?}: {}", answer.body);
        answer
    };
    let documents = |group: &str| -> Vec<String> {
        let mut found: Vec<String> = ask(Some(group), "json").json()["results"][0]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["document"].as_str().unwrap().to_string())
            .collect();
        found.sort();
        found
    };
    assert_eq!(documents("NA"), ["Kpn_pMCR_1511_KX377410"]);
    assert_eq!(documents("E. coli"), ["Eco_pBK32602_KU295134"]);
    assert_eq!(
        documents(""),
        ["Kpn_plasmid12_NC_011385", "Phage_lambda_NC_001416"],
        "not listed, and listed with an empty cell"
    );
    let groups = ask(None, "json").json()["results"][0]["groups"].clone();
    let tallies: Vec<(String, u64)> = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["value"].as_str().unwrap().to_string(),
                g["carriers"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tallies,
        [
            ("".to_string(), 2),
            ("E. coli".to_string(), 1),
            ("NA".to_string(), 1)
        ]
    );
    let tsv = ask(None, "tsv").body;
    let values: Vec<&str> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(values, ["", "E. coli", "NA"], "{tsv}");
}

/// A panel slow enough to be in flight while other requests come: ten long random
/// sequences, read one request at a time without a cache.
fn slow_panel() -> Value {
    let mut rng = Rng(5);
    let sequences: Vec<Value> = (0..10)
        .map(|i| {
            let sequence = String::from_utf8(rng.dna(400_000)).unwrap();
            serde_json::json!({"name": format!("p{i}"), "sequence": sequence})
        })
        .collect();
    serde_json::json!({"sequences": sequences, "threshold": 0.0})
}

/// The options of a server whose searches are slow: no cache, one read at a time.
const SLOW: [&str; 6] = [
    "--cache-size",
    "0",
    "--engine",
    "pread",
    "--queue-depth",
    "1",
];

/// Issue 34: a client over its share gets 429 with Retry-After at once, counted in
/// `/metrics`, while another client is served; a single gene is answered while another
/// client's panel runs, and its answer is the one it gets alone.
#[test]
fn clients_get_their_share_and_a_gene_passes_a_running_panel() {
    let dir = temp_dir();
    let (plasmids, _, _) = fixtures(dir.path());
    let mut options = vec!["--client-max-requests", "1", "--workers", "2"];
    options.extend(SLOW);
    let server = Server::start(&[&plasmids], &options);
    let a = server.address;
    let gene = serde_json::json!({"sequence": first_gene(), "threshold": 0.8});
    let alone = post_as(a, "c", &gene);
    assert_eq!(alone.status, 200, "{}", alone.body);
    assert!(alone
        .headers
        .to_ascii_lowercase()
        .contains("x-request-id: "));
    let panel = std::thread::spawn(move || post_as(a, "a", &slow_panel()));
    assert_eq!(
        metric_reaches(a, "bitsift_lane_running{lane=\"panel\"}", 1.0),
        1.0,
        "the panel runs"
    );
    // The panel's client is over its share: 429 at once, whatever it asks.
    let refused = post_as(a, "a", &gene);
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(
        refused
            .headers
            .to_ascii_lowercase()
            .contains("retry-after: 1"),
        "{}",
        refused.headers
    );
    assert!(refused.json()["error"]
        .as_str()
        .unwrap()
        .contains("already has 1 search requests in flight (at most 1"));
    // Another client's gene is answered while the panel still runs, and rightly.
    let answered = post_as(a, "b", &gene);
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(answered.json()["results"], alone.json()["results"]);
    assert!(
        !panel.is_finished(),
        "the gene was answered while the panel ran"
    );
    assert_eq!(panel.join().unwrap().status, 200);
    assert_eq!(
        metric(a, "bitsift_rejections_total{reason=\"client_limit\"}"),
        1.0
    );
    assert_eq!(metric(a, "bitsift_clients_active"), 0.0);
}

/// Issue 34: a repeated query is answered from the answer cache (nothing read, counted in
/// `/metrics`) with the answer it got first; once the collection changes, the cache answers
/// nothing of the old generation: the next answer is the new generation's.
#[test]
fn repeated_queries_come_from_the_answer_cache_until_the_collection_changes() {
    let dir = temp_dir();
    let collection = dir.path().join("collection");
    let c = collection.to_str().unwrap();
    let genome = |g: &str| demo_file(&format!("genomes/{g}")).display().to_string();
    let (kpn, eco) = ("Kpn_pMCR_1511_KX377410", "Eco_pBK32602_KU295134");
    ok(run(&["add", "-q", c, &genome(&format!("{kpn}.fa.gz"))]));
    ok(run(&["add", "-q", c, &genome(&format!("{eco}.fa.gz"))]));
    let server = Server::start(&[&collection], &[]);
    let a = server.address;
    let gene = serde_json::json!({"sequence": first_gene(), "threshold": 0.0});
    let first = post(a, &gene).json();
    assert_eq!(first["stats"]["answers_from_cache"], 0, "{first}");
    let again = post(a, &gene).json();
    assert_eq!(again["stats"]["answers_from_cache"], 1, "{again}");
    assert_eq!(again["stats"]["read_requests"], 0);
    assert_eq!(again["results"], first["results"]);
    assert_eq!(metric(a, "bitsift_answer_cache_hits_total"), 1.0);
    assert_eq!(metric(a, "bitsift_answer_cache_misses_total"), 1.0);
    assert_eq!(metric(a, "bitsift_answer_cache_entries"), 1.0);
    // Another threshold is another answer.
    let stricter = serde_json::json!({"sequence": first_gene(), "threshold": 0.9});
    assert_eq!(post(a, &stricter).json()["stats"]["answers_from_cache"], 0);

    let names = dir.path().join("remove.txt");
    std::fs::write(&names, format!("{kpn}\n")).unwrap();
    ok(run(&["remove", c, "--documents", names.to_str().unwrap()]));
    let after = post(a, &gene).json();
    assert_eq!(after["stats"]["answers_from_cache"], 0, "{after}");
    let documents = |json: &Value| -> Vec<String> {
        json["results"][0]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["document"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(documents(&first).contains(&kpn.to_string()), "{first}");
    assert!(!documents(&after).contains(&kpn.to_string()), "{after}");
    assert_eq!(after["generations"][0]["generation"], 3);
    assert_eq!(post(a, &gene).json()["results"], after["results"]);
    assert_eq!(metric(a, "bitsift_answer_cache_hits_total"), 2.0);
}
