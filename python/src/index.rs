//! `bitsift.Index`: index files opened once and searched from any number of Python threads.
//!
//! One [`bitsift::query::Index`] (headers, geometry and names, parsed once) is shared by a
//! [`Pool`] of sessions, each with its own engine and buffers, and, with `cache_size`, one
//! shared page cache: the server's arrangement. Every search borrows a session for its
//! duration and runs without the GIL, so searches from several threads run at once.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bitsift::alphabet::BaseReading;
use bitsift::answer::{Cutoff, IndexFile};
use bitsift::format::HeaderOptions;
use bitsift::io::{EngineOptions, RowMemory, Warmup, QUEUE_DEPTH_DEFAULT};
use bitsift::metadata::Metadata;
use bitsift::query::{Grouping, Index, SearchError, SearchOptions, Session, SessionConfig};
use bitsift::search::{
    IndexSources, Opened, Outcome, QueryBatch, SearchRequest, SearchSetup, SessionSetup, SetupError,
};
use bitsift::seqfile::{SeqReader, SeqRecord};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::errors::{collection_error, names_error, open_error, search_error, seqfile_error};
use crate::logs;
use crate::options;
use crate::pool::{Lent, Pool, Refused};
use crate::queries::{extract, invalid, OnInvalid, Record, Source};
use crate::results::{json_to_py, results_list, QueryResult};

// The default of `queue_depth` in the signature of `Index` (a literal, so that Python's
// help shows it) is the command line's.
const _: () = assert!(QUEUE_DEPTH_DEFAULT == 64);
// So is the default `threshold` of `Index.search`.
const _: () = assert!(bitsift::query::THRESHOLD_DEFAULT == 0.8);

/// How one search call reads and reports its queries.
struct Request {
    options: SearchOptions,
    reading: BaseReading,
    on_invalid: OnInvalid,
    batch_max: usize,
}

/// COBS compact or classic index files, built by COBS or bitsift, opened once and searched
/// from any number of threads (each search releases the GIL).
///
/// path: an index file, a directory of them (searched recursively, in path order), or a
///     list of files and directories; all are searched together and ranked together.
/// engine: "auto" (io_uring when it works, or scoring in place when the index is in the
///     page cache), "uring", "pread", "mmap" or "ram", as `bitsift query --engine`.
/// cache_size: bytes (or a string such as "4G") of a page cache shared by all searches.
/// threads: threads scoring blocks of an index held in memory (default: one per core).
/// queue_depth: reads in flight (uring) or reader threads (pread).
/// direct_io: "auto", "required" or "off": O_DIRECT for uring and pread.
/// merge_gap, read_max: how neighbouring reads merge (bytes), as the options of the command.
/// warm: stream the index into the cache in the background (needs cache_size).
/// max_sessions: searches that run at once (default: one per core, at least 4); more wait.
/// legacy_k, legacy_canonical: k and canonical flag of a pre-2019 COBS index.
/// metadata: a sample table (TSV, first column the document name) whose columns
///     `search(..., group_by=COLUMN)` counts hits by, as `bitsift query --metadata`.
///
/// Raises FileNotFoundError, bitsift.IndexError (not a valid or a damaged index) or
/// ValueError (a bad option).
#[pyclass(module = "bitsift", name = "Index", frozen)]
pub struct PyIndex {
    index: Arc<Index>,
    /// The sample table given as `metadata=`, for `group_by=`.
    metadata: Option<Metadata>,
    /// Groupings made so far, by column (each made once, shared by later searches).
    groupings: Mutex<HashMap<String, Arc<Grouping>>>,
    pool: Pool<Session>,
    setup: SessionSetup,
    warmup: Mutex<Option<Warmup>>,
    engine: &'static str,
}

/// The files named by `path`: a str or os.PathLike, or a list of them.
fn paths_of(path: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if path.cast::<PyString>().is_ok() || path.hasattr("__fspath__")? {
        return Ok(vec![path.extract()?]);
    }
    let Ok(items) = path.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "path must be a str or os.PathLike, or a list of them, not {}",
            path.get_type().name()?
        )));
    };
    items.map(|item| item?.extract::<PathBuf>()).collect()
}

impl PyIndex {
    fn lend(&self) -> PyResult<Lent<'_, Session>> {
        self.pool
            .take(|| self.setup.open(&self.index))
            .map_err(|refused| match refused {
                Refused::Closed => PyValueError::new_err("search of a closed index"),
                Refused::Open(error) => open_error(&error),
            })
    }

    /// Searches `records` in batches and appends their results to `results`.
    fn answer_records(
        &self,
        py: Python<'_>,
        records: Vec<Record>,
        request: &Request,
        results: &mut Vec<QueryResult>,
    ) -> PyResult<()> {
        let mut records = records.into_iter().peekable();
        while records.peek().is_some() {
            let mut batch = QueryBatch::new(request.reading);
            while let Some(record) =
                records.next_if(|_| batch.len() < request.batch_max && !batch.is_full())
            {
                let Record { name, sequence } = record;
                let _ = batch.push(SeqRecord { name, sequence });
            }
            self.answer(py, batch, request, results)?;
            py.check_signals()?;
        }
        Ok(())
    }

    /// Reads the queries of a FASTA/FASTQ file batch by batch and searches each batch.
    fn answer_file(
        &self,
        py: Python<'_>,
        path: PathBuf,
        request: &Request,
        results: &mut Vec<QueryResult>,
    ) -> PyResult<()> {
        let mut reader = py
            .detach(|| SeqReader::open(&path))
            .map_err(|e| seqfile_error(&e))?;
        loop {
            let batch = py.detach(|| read_batch(&mut reader, request))?;
            if batch.is_empty() {
                return Ok(());
            }
            self.answer(py, batch, request, results)?;
            py.check_signals()?;
        }
    }

    /// Searches one batch with one session and appends the results in input order; with
    /// `on_invalid="raise"`, a query that cannot be searched raises before anything is read.
    fn answer(
        &self,
        py: Python<'_>,
        mut batch: QueryBatch,
        request: &Request,
        results: &mut Vec<QueryResult>,
    ) -> PyResult<()> {
        let outcomes = py.detach(|| -> PyResult<_> {
            if request.on_invalid == OnInvalid::Raise {
                if let Some((name, reason)) = batch.first_unsearchable(self.index.k_max()) {
                    return Err(invalid(name, &reason));
                }
            }
            if let Some(outcomes) = batch.refused() {
                return Ok(outcomes);
            }
            let mut session = self.lend()?;
            batch
                .run(&mut session, &request.options)
                .map_err(|e| search_error(&e))
        })?;
        for (name, outcome) in outcomes {
            let index = self.index.clone();
            results.push(match outcome {
                Outcome::Answered(answer) => {
                    let coverage = request.options.coverage;
                    let grouped = request.options.group_by.is_some();
                    QueryResult::answered(name, index, answer, coverage, grouped)
                }
                Outcome::NotDna(reason) => QueryResult::not_searched(name, index, reason),
                Outcome::Unanswered(error @ SearchError::TooShort { .. }) => {
                    if request.on_invalid == OnInvalid::Raise {
                        return Err(invalid(&name, &error.to_string()));
                    }
                    QueryResult::not_searched(name, index, error.to_string())
                }
                Outcome::Unanswered(error) => return Err(search_error(&error)),
            });
        }
        Ok(())
    }

    /// The grouping of the documents by `column` of the metadata, made on first use.
    fn grouping(&self, py: Python<'_>, column: &str) -> PyResult<Arc<Grouping>> {
        let Some(metadata) = &self.metadata else {
            return Err(PyValueError::new_err(
                "group_by needs a sample table: open the index with metadata=PATH",
            ));
        };
        let mut groupings = self.groupings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(grouping) = groupings.get(column) {
            return Ok(grouping.clone());
        }
        let grouping = py
            .detach(|| Grouping::new(&self.index, metadata, column))
            .map(Arc::new)
            .map_err(|e| PyValueError::new_err(format!("group_by: {e}")))?;
        groupings.insert(column.to_string(), grouping.clone());
        Ok(grouping)
    }
}

/// `value`, or `default` when it is `None` or 0.
fn count_or(name: &str, value: Option<i64>, default: usize) -> PyResult<usize> {
    Ok(match options::count(name, value.unwrap_or(0))? {
        0 => default,
        n => n,
    })
}

/// Opens the index files, the first session, and the warm-up (runs without the GIL); says
/// an engine fallback and block summaries that cannot be used.
fn open_all(setup: &SearchSetup) -> PyResult<Opened> {
    setup.check().map_err(|error| {
        PyValueError::new_err(match error {
            SetupError::WarmWithoutCache => {
                "warm=True streams the index into the cache: give cache_size too"
            }
            SetupError::NoIndex => {
                "no index given: pass an index file, a directory of indexes, a collection, or a list of them"
            }
        })
    })?;
    // As `query -i`: directories expand to the indexes they hold (sorted by path), and a
    // collection opens with its removed documents hidden.
    let opened = setup.open().map_err(|e| collection_error(&e))?;
    if let Some(notice) = &opened.notices.engine {
        tracing::warn!("{notice}");
    }
    // Block summaries are loaded now, as `query` and `serve` do, not by the first search;
    // one that cannot be used leaves its index searched in full.
    for problem in &opened.notices.summary_problems {
        tracing::warn!("{problem}");
    }
    Ok(opened)
}

/// A batch of up to `request.batch_max` records, or [`bitsift::search::BATCH_BYTES_MAX`] bases, from `reader`.
fn read_batch(reader: &mut SeqReader, request: &Request) -> PyResult<QueryBatch> {
    let mut batch = QueryBatch::new(request.reading);
    let mut record = SeqRecord::default();
    while batch.len() < request.batch_max && !batch.is_full() {
        if !reader
            .next_into(&mut record)
            .map_err(|e| seqfile_error(&e))?
        {
            break;
        }
        let _ = batch.push(std::mem::take(&mut record));
    }
    Ok(batch)
}

#[pymethods]
impl PyIndex {
    #[new]
    #[pyo3(signature = (
        path, engine = "auto", cache_size = None, threads = None,
        queue_depth = 64, direct_io = "auto", *, merge_gap = None,
        read_max = None, warm = false, max_sessions = None, legacy_k = None,
        legacy_canonical = None, side_memory = None, metadata = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        engine: &str,
        cache_size: Option<&Bound<'_, PyAny>>,
        threads: Option<i64>,
        queue_depth: i64,
        direct_io: &str,
        merge_gap: Option<&Bound<'_, PyAny>>,
        read_max: Option<&Bound<'_, PyAny>>,
        warm: bool,
        max_sessions: Option<i64>,
        legacy_k: Option<u32>,
        legacy_canonical: Option<bool>,
        side_memory: Option<&Bound<'_, PyAny>>,
        metadata: Option<PathBuf>,
    ) -> PyResult<PyIndex> {
        let paths = paths_of(path)?;
        let cores = bitsift::cores::threads_or_cores(0);
        let threads = count_or("threads", threads, cores)?;
        let max_sessions = count_or("max_sessions", max_sessions, cores.max(4))?;
        let queue_depth = u32::try_from(options::count("queue_depth", queue_depth)?)
            .map_err(|_| PyValueError::new_err("queue_depth is too large"))?;
        let queue_depth = crate::remote::queue_depth(&paths, queue_depth);
        let setup = SearchSetup {
            sources: IndexSources {
                paths,
                ..IndexSources::default()
            },
            header: HeaderOptions {
                legacy_k,
                legacy_canonical,
            },
            side_memory: options::size("side_memory", side_memory)?
                .unwrap_or(bitsift::query::SIDE_MEMORY_DEFAULT),
            cache_bytes: options::size("cache_size", cache_size)?,
            warm,
            sessions: 1,
            session: SessionSetup {
                engine: EngineOptions {
                    choice: options::engine(engine)?,
                    queue_depth,
                    direct: options::direct_io(direct_io)?,
                    ..EngineOptions::default()
                },
                config: SessionConfig {
                    memory: None,
                    threads,
                    merge_gap: options::size("merge_gap", merge_gap)?,
                    read_max: options::size("read_max", read_max)?,
                },
            },
        };
        let opened = py.detach(|| open_all(&setup));
        logs::flush(py)?;
        let Opened {
            index,
            sessions,
            setup,
            warmup,
            ..
        } = opened?;
        let metadata = match metadata {
            Some(path) => Some(
                py.detach(|| Metadata::load(&path))
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
            ),
            None => None,
        };
        let Some(session) = sessions.into_iter().next() else {
            return Err(PyValueError::new_err("no session was opened"));
        };
        Ok(PyIndex {
            engine: session.engine_kind().as_str(),
            index,
            metadata,
            groupings: Mutex::new(HashMap::new()),
            pool: Pool::new(session, max_sessions),
            setup,
            warmup: Mutex::new(warmup),
        })
    }

    /// Searches every document of every index file; returns a `bitsift.Results` list with
    /// one `QueryResult` per query, in input order.
    ///
    /// query: a sequence (str or bytes, named "query"), a dict of name -> sequence, a list
    ///     of (name, sequence) pairs, or a FASTA/FASTQ file, plain or compressed (an
    ///     os.PathLike, or a str that is not made of bases).
    /// threshold: report documents with at least ceil(threshold * n) of the query's n
    ///     k-mers (0 to 1; 0 reports every document).
    /// limit: report at most this many documents per query (0: all).
    /// prune: stop reading blocks where no document can reach the threshold (the results
    ///     are the same either way).
    /// coverage: also say where each hit matches (`Hit.coverage`: the query's stretches
    ///     covered by matching k-mers and the longest run of missing ones, as `bitsift query
    ///     --coverage`); the rows of the hits' blocks are read again.
    /// summaries: skip blocks whose block summary holds too few of the query's k-mers (no
    ///     document that holds the query is lost; False reads every block and gives COBS's
    ///     exact scores, including hits made only of Bloom false positives).
    /// on_invalid: "raise" (ValueError) or "skip" (an empty result whose `skipped` says
    ///     why) for a query that is not DNA or is shorter than k.
    /// batch: queries planned and read together (0: as many as memory bounds allow).
    /// min_identity: instead of threshold, report documents whose identity estimate
    ///     (`Hit.identity`: fraction ** (1/k), the identity of a copy with random point
    ///     substitutions that keeps that fraction of k-mers) is at least this.
    /// group_by: a column of the `metadata=` table: each result's `groups` then counts the
    ///     hits per value of that column (carriers, documents searched, scores), over every
    ///     hit whatever the limit.
    ///
    /// Bases follow the command line's rule: case does not matter, whitespace is dropped,
    /// U reads as T.
    #[pyo3(signature = (
        query, threshold = 0.8, limit = 0, prune = true, *, coverage = false,
        on_invalid = "raise", batch = 0, summaries = true, min_identity = None,
        group_by = None, raw_threshold = false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        query: &Bound<'py, PyAny>,
        threshold: f64,
        limit: i64,
        prune: bool,
        coverage: bool,
        on_invalid: &str,
        batch: i64,
        summaries: bool,
        min_identity: Option<f64>,
        group_by: Option<&str>,
        raw_threshold: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let search = SearchRequest {
            cutoff: match min_identity {
                Some(identity) => options::cutoff(Cutoff::Identity(identity))?,
                None => Cutoff::Fraction(threshold),
            },
            limit: options::count("limit", limit)?,
            prune,
            summaries,
            coverage,
            group_by: group_by.map(str::to_string),
            raw_threshold,
            ..SearchRequest::default()
        };
        let k_max = self.index.k_max();
        options::threshold(search.threshold(k_max))?;
        let grouping = group_by.map(|c| self.grouping(py, c)).transpose()?;
        let request = Request {
            options: search.options(k_max, grouping),
            reading: search.reading,
            on_invalid: OnInvalid::parse(on_invalid)?,
            batch_max: match options::count("batch", batch)? {
                0 => usize::MAX,
                n => n,
            },
        };
        let mut results = Vec::new();
        let outcome = match extract(query)? {
            Source::Records(records) => self.answer_records(py, records, &request, &mut results),
            Source::File(path) => self.answer_file(py, path, &request, &mut results),
        };
        logs::flush(py)?;
        outcome?;
        results_list(py, results)
    }

    /// COBS's `Search.search`: `query` read by COBS's byte rule, every document with at least
    /// `ceil(threshold · n)` k-mers, at most `num_results`, in COBS's order. Returns
    /// (document name, score) pairs; `bitsift.cobs.Search` wraps it.
    #[pyo3(signature = (query, threshold, num_results))]
    fn _search_cobs(
        &self,
        py: Python<'_>,
        query: Vec<u8>,
        threshold: f64,
        num_results: usize,
    ) -> PyResult<Vec<(String, u32)>> {
        let k_max = self.index.k_max();
        let options = SearchRequest {
            cutoff: Cutoff::Fraction(threshold),
            limit: num_results,
            cobs_order: true,
            // COBS's exact scores: every block is read, and the threshold is COBS's.
            summaries: false,
            corrected: false,
            ..SearchRequest::default()
        }
        .options(k_max, None);
        let answer = py.detach(|| -> PyResult<_> {
            if query.len() < k_max as usize {
                let error = SearchError::TooShort {
                    length: query.len(),
                    k: k_max,
                };
                return Err(search_error(&error));
            }
            self.lend()?
                .search(&query, &options)
                .map_err(|e| search_error(&e))
        });
        logs::flush(py)?;
        let answer = answer?;
        self.index
            .prefetch_names(&answer.hits)
            .map_err(names_error)?;
        answer
            .hits
            .iter()
            .map(|hit| {
                let name = self.index.document_name(hit.index, hit.document);
                Ok((name.map_err(names_error)?.to_string(), hit.kmers_found))
            })
            .collect()
    }

    /// One dict per index file under `indexes`, as `bitsift info --json` describes the file
    /// ([`IndexFile`]: path, format, version, k, canonical, hashes, documents, blocks,
    /// page_size, rows_total, data_offset, file_size, ...), with the totals and the engine in
    /// use.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let files: Vec<IndexFile> = self.index.headers().iter().map(IndexFile::of).collect();
        let documents: u64 = files.iter().map(|file| file.documents).sum();
        let info = serde_json::json!({
            "indexes": files,
            "documents": documents,
            "file_size": self.index.bytes(),
            "engine": self.engine,
            "cache_size": self.setup.config.memory.as_ref().map(RowMemory::bytes),
            "side_memory": self.index.side_memory(),
            "max_sessions": self.pool.max(),
            "sessions": self.pool.count(),
        });
        json_to_py(py, &info)
    }

    /// The names of the documents a search may report, index file by index file, in index
    /// order (removed documents and merge placeholders left out).
    #[getter]
    fn documents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let hidden = self.index.hidden();
        let mut names: Vec<String> = Vec::new();
        for (header, hidden) in self.index.headers().iter().zip(hidden) {
            let all = header.names.all().map_err(names_error)?;
            let shown = |d: usize| !hidden.as_ref().is_some_and(|x| x.contains(d as u64));
            let listed = all.iter().enumerate().filter(|(d, _)| shown(*d));
            names.extend(listed.map(|(_, name)| name.to_string()));
        }
        PyList::new(py, names)
    }

    /// The index files, in search order (directories expanded): `pathlib.Path`s, and the
    /// URLs of remote files as `str` (a `Path` would fold their `//`).
    #[getter]
    fn paths<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        use pyo3::IntoPyObjectExt;
        self.index
            .paths()
            .into_iter()
            .map(|path| match bitsift::io::is_remote(&path) {
                true => path.to_string_lossy().into_bound_py_any(py),
                false => path.into_bound_py_any(py),
            })
            .collect()
    }

    /// The I/O engine the first session chose (`uring`, `pread`, `mmap` or `ram`).
    #[getter]
    fn engine(&self) -> &'static str {
        self.engine
    }

    /// Closes the index files: later searches raise ValueError. Searches running now
    /// finish first (their sessions close when they end).
    fn close(&self, py: Python<'_>) {
        py.detach(|| {
            drop(self.pool.close());
            let warmup = self.warmup.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(warmup) = warmup {
                warmup.stop();
            }
        });
    }

    /// Whether [`PyIndex::close`] was called.
    #[getter]
    fn closed(&self) -> bool {
        self.pool.is_closed()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut paths = Vec::new();
        for path in self.index.paths() {
            paths.push(
                PyString::new(py, &path.display().to_string())
                    .repr()?
                    .to_string(),
            );
        }
        let documents: u64 = self.index.headers().iter().map(documents_of).sum();
        Ok(format!(
            "Index([{}], documents={documents}, engine='{}'{})",
            paths.join(", "),
            self.engine,
            if self.closed() { ", closed" } else { "" }
        ))
    }
}

/// Documents of an index file a search may report: placeholders of merged files
/// ([`bitsift::format::is_placeholder`]) are never counted.
fn documents_of(header: &bitsift::format::IndexHeader) -> u64 {
    header.document_count() - header.names.placeholders().len() as u64
}
