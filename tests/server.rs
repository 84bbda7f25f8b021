//! `bitsift serve` over a real socket on loopback: every endpoint and every error, admission
//! control, deadlines, shared batches and graceful shutdown.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// A running server, killed when dropped.
struct Server {
    child: Child,
    address: SocketAddr,
}

impl Server {
    fn start(index: &[&Path], extra: &[&str]) -> Server {
        let mut command = bitsift();
        command.arg("serve").args(["--listen", "127.0.0.1:0"]);
        for i in index {
            command.arg("-i").arg(i);
        }
        let mut child = command
            .args(extra)
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
        std::thread::spawn(move || for _ in lines {});
        Server { child, address }
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
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    // A server refusing an oversized body answers and closes before it is all sent.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
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
    Response {
        status,
        headers: head.to_string(),
        body,
    }
}

fn post(address: SocketAddr, json: &Value) -> Response {
    http(address, "POST", "/api/search", json.to_string().as_bytes())
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
            "--cache-size",
            "16M",
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
    let named = post(a, &serde_json::json!({"sequences": [{"name": "mcr", "sequence": gene}, {"sequence": gene}], "indexes": ["phage"], "threshold": 0.0, "limit": 1})).json();
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
    let body = serde_json::json!({"sequence": slow_query(), "threshold": 0.0});
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
                    &serde_json::json!({"sequence": sequence, "threshold": 0.0}),
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
            &serde_json::json!({"sequence": slow_query(), "threshold": 0.0}),
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
    let expected = hits(serde_json::json!({"sequence": gene, "threshold": 0.0}));
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
        let found = hits(serde_json::json!({"sequence": sequence, "threshold": 0.0}));
        assert_eq!(found, expected);
    }
    let cobs_rule =
        hits(serde_json::json!({"sequence": lower, "threshold": 0.0, "fold_case": false}));
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
