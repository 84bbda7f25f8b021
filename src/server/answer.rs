//! Answers of `POST /api/search`, written while they are sent.
//!
//! A core gene hits every genome: 661,405 hits are an 87 MB JSON body. Such an answer is
//! never built whole: a blocking thread writes it into 64 KiB chunks that a bounded channel
//! hands to the connection, so the memory of an answer is its ranked hits (16 bytes each)
//! plus a few chunks, whatever its size, and a client that goes away stops the writing.
//! A query's answer is the command line's serde type ([`QueryJson`]), and tables are written
//! by its [`ResultWriter`], so the API and `bitsift query` say the same things the same way.

use std::convert::Infallible;
use std::io::{self, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use http_body::Frame;
use serde::Serialize;
use tokio::sync::mpsc;

use super::request::AnswerFormat;
use super::view::View;
use super::AppState;
use crate::answer::{JsonHits, QueryJson};
use crate::answer::{
    OutputFormat, OutputSetup, Provenance, ResultWriter, SearchSettings, SkipReason,
};
use crate::query::QueryResult;

/// Bytes of a chunk of a streamed answer.
const CHUNK_BYTES: usize = 64 << 10;
/// Chunks written ahead of the connection.
const CHUNKS_AHEAD: usize = 4;

/// What the request's queries cost, together.
#[derive(Serialize, Default)]
pub(crate) struct ResponseStats {
    pub queries: usize,
    pub time_ms: f64,
    pub queue_ms: f64,
    pub requests_in_batch: usize,
    pub queries_in_batch: u32,
    pub engine: String,
    pub source: &'static str,
    pub bytes_read: u64,
    pub read_requests: u64,
    pub reads_pruned: u64,
    pub reads_from_cache: u64,
    pub cache_hits: u64,
    pub cache_misses: u64,
    /// Queries answered from the answer cache (then nothing was read for the request).
    pub answers_from_cache: usize,
}

/// One query of a request, answered or not.
pub(crate) struct Answered {
    pub name: String,
    pub bases: usize,
    pub outcome: Result<QueryResult, (SkipReason, String)>,
}

/// Everything an answer says, owned by the thread that writes it.
pub(crate) struct Answer {
    pub queries: Vec<Answered>,
    pub format: AnswerFormat,
    pub offset: usize,
    pub grouped: Option<String>,
    pub presence: bool,
    pub coverage: bool,
    pub settings: SearchSettings,
    pub stats: ResponseStats,
    pub unavailable: Vec<String>,
}

/// The response that streams `answer`, found in `view` (named by the `X-Bitsift-View` and
/// `X-Bitsift-Generations` headers, and in a JSON answer's `view` and `generations`).
pub(crate) fn respond(state: Arc<AppState>, view: Arc<View>, answer: Answer) -> Response {
    let (content_type, download) = match answer.format {
        AnswerFormat::Json => ("application/json", None),
        AnswerFormat::Tsv => ("text/tab-separated-values", Some("bitsift-hits.tsv")),
        AnswerFormat::Matrix => ("text/tab-separated-values", Some("bitsift-matrix.tsv")),
    };
    let (sender, receiver) = mpsc::channel(CHUNKS_AHEAD);
    let served = served_headers(&view);
    tokio::task::spawn_blocking(move || {
        let mut out = ChunkWriter::new(sender);
        let written = match answer.format {
            AnswerFormat::Json => write_json(&state, &view, &answer, &mut out),
            AnswerFormat::Tsv | AnswerFormat::Matrix => {
                write_table(&state, &view, &answer, &mut out)
            }
        };
        // A client that went away is the only way this fails: nobody is left to tell.
        let _ = written.and_then(|()| out.flush());
    });
    let mut response = Response::new(Body::new(ChannelBody { receiver }));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    for (name, value) in served {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    if let Some(name) = download {
        let value = format!("attachment; filename=\"{name}\"");
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(header::CONTENT_DISPOSITION, value);
        }
    }
    response
}

/// The headers that name the view an answer comes from: its number, and each collection's
/// manifest generation (`name=generation`, comma-separated; the name percent-encoded where
/// it is not a plain token).
fn served_headers(view: &View) -> [(&'static str, String); 2] {
    let generations: Vec<String> = view
        .generations()
        .iter()
        .map(|g| format!("{}={}", header_token(g.name), g.generation))
        .collect();
    [
        ("x-bitsift-view", view.number.to_string()),
        ("x-bitsift-generations", generations.join(", ")),
    ]
}

/// `text` with every byte outside `[A-Za-z0-9._~-]` percent-encoded.
fn header_token(text: &str) -> String {
    let mut token = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"._~-".contains(&byte) {
            token.push(byte as char);
        } else {
            token.push_str(&format!("%{byte:02X}"));
        }
    }
    token
}

/// `{"view": N, "generations": [...], "results": [...], "stats": {...}}`, each query's hits
/// written one at a time.
fn write_json(
    state: &AppState,
    view: &View,
    answer: &Answer,
    out: &mut impl Write,
) -> io::Result<()> {
    write!(out, "{{\"view\":{},\"generations\":", view.number)?;
    serde_json::to_writer(&mut *out, &view.generations())?;
    out.write_all(b",\"results\":[")?;
    for (number, query) in answer.queries.iter().enumerate() {
        if number > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &query_json(state, view, answer, query))?;
    }
    out.write_all(b"],\"stats\":")?;
    serde_json::to_writer(&mut *out, &answer.stats)?;
    if !answer.unavailable.is_empty() {
        out.write_all(b",\"unavailable_indexes\":")?;
        serde_json::to_writer(&mut *out, &answer.unavailable)?;
    }
    out.write_all(b"}")
}

/// One query's element of `results`: the command line's per-query JSON, with the query's
/// bases and the request's offset, its hits named by their index (as served: a collection's
/// name, or the file's) and without stats.
fn query_json<'a>(
    state: &'a AppState,
    view: &'a View,
    answer: &'a Answer,
    query: &'a Answered,
) -> QueryJson<'a> {
    let hits = |result| JsonHits {
        index: &view.index,
        result,
        named: true,
        numbered_files: false,
        metadata: Some(&state.metadata),
    };
    let mut json = match &query.outcome {
        Ok(result) => {
            let mut json = QueryJson::answered(&query.name, result, hits(Some(result)));
            json.offset = Some(answer.offset);
            json.groups = answer.grouped.is_some().then_some(&result.groups[..]);
            json
        }
        Err((reason, error)) => {
            let mut json = QueryJson::skipped(&query.name, *reason, error);
            json.hits = Some(hits(None));
            json
        }
    };
    json.bases = Some(query.bases);
    json
}

/// The command line's TSV or matrix, by its own writer.
fn write_table(
    state: &AppState,
    view: &View,
    answer: &Answer,
    out: &mut impl Write,
) -> io::Result<()> {
    let setup = OutputSetup {
        format: match answer.format {
            AnswerFormat::Matrix => OutputFormat::Matrix,
            AnswerFormat::Tsv | AnswerFormat::Json => OutputFormat::Tsv,
        },
        index: &view.index,
        verbatim: false,
        report_misses: true,
        metadata: (!state.metadata.is_empty()).then_some(&state.metadata),
        presence: answer.presence,
        group_by: answer.grouped.clone(),
        coverage: answer.coverage,
        provenance: Provenance {
            version: crate::VERSION,
            search: answer.settings.clone(),
        },
    };
    let mut writer = ResultWriter::new(out, setup);
    for query in &answer.queries {
        match &query.outcome {
            Ok(result) => writer.write_result(&query.name, result)?,
            Err((reason, error)) => writer.write_skipped(&query.name, *reason, error)?,
        }
    }
    writer.finish().map(|_| ())
}

/// Collects bytes into chunks and sends each to the connection, waiting while it is
/// [`CHUNKS_AHEAD`] behind.
struct ChunkWriter {
    buffer: Vec<u8>,
    sender: mpsc::Sender<Bytes>,
}

impl ChunkWriter {
    fn new(sender: mpsc::Sender<Bytes>) -> ChunkWriter {
        ChunkWriter {
            buffer: Vec::with_capacity(CHUNK_BYTES),
            sender,
        }
    }

    fn send(&mut self) -> io::Result<()> {
        let chunk = std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK_BYTES));
        self.sender
            .blocking_send(Bytes::from(chunk))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.send()
    }
}

/// A response body fed by a [`ChunkWriter`].
struct ChannelBody {
    receiver: mpsc::Receiver<Bytes>,
}

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.receiver
            .poll_recv(context)
            .map(|chunk| chunk.map(|bytes| Ok(Frame::data(bytes))))
    }
}
