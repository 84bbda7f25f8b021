//! `bitsift.build`: an index built on a worker thread while the calling thread, which holds
//! the GIL only for moments, reports progress and watches for Ctrl-C.
//!
//! The build runs without the GIL. The caller waits for it in steps of
//! [`PROGRESS_INTERVAL`]; after each step it attaches to the interpreter just long enough to
//! call the progress callback (when the counts moved) and to run Python's signal handlers. A
//! callback that raises, or a KeyboardInterrupt, asks the build to stop through its
//! [`BuildObserver`]; the build then fails before its next document, removes its temporary
//! file, and the caller re-raises the exception once the worker has ended. The callback's
//! last call, with every document done, comes before the index is put in place: the worker
//! waits for it, so an exception raised there still leaves nothing behind.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use bitsift::builder::{
    build_observed, default_memory_bytes, BuildError, BuildObserver, BuildOptions, BuildReport,
};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::errors::build_error;
use crate::logs;
use crate::options;
use crate::results::json_to_py;

/// Time between two progress callbacks at most (and between checks for Ctrl-C).
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// The counts of pass 2, shared by the build's threads and the caller.
#[derive(Default)]
struct Shared {
    documents_total: AtomicU64,
    documents_done: AtomicU64,
    kmers_total: AtomicU64,
    kmers_done: AtomicU64,
    stop: AtomicBool,
    /// Whether the workers wait, once every document is done, for the callback's last call.
    wait_for_last_call: bool,
    /// Set once that call has returned (or raised).
    last_call_made: Mutex<bool>,
    last_call: Condvar,
}

impl BuildObserver for Shared {
    fn started(&self, documents_total: u64, kmers_total: u64) {
        self.kmers_total.store(kmers_total, Ordering::SeqCst);
        self.documents_total
            .store(documents_total, Ordering::SeqCst);
    }

    fn document_done(&self, documents_done: u64, kmers_done: u64) {
        self.documents_done
            .fetch_max(documents_done, Ordering::SeqCst);
        self.kmers_done.fetch_max(kmers_done, Ordering::SeqCst);
    }

    fn cancelled(&self) -> bool {
        let (done, total, _) = self.counts();
        if self.wait_for_last_call && total > 0 && done == total {
            let mut made = self
                .last_call_made
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            while !*made && !self.stop.load(Ordering::SeqCst) {
                made = self
                    .last_call
                    .wait_timeout(made, PROGRESS_INTERVAL)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
        self.stop.load(Ordering::SeqCst)
    }
}

impl Shared {
    /// (documents done, documents in all, k-mers done). The threads add documents and
    /// k-mers one after the other, so with every document done the k-mers are the total.
    fn counts(&self) -> (u64, u64, u64) {
        let total = self.documents_total.load(Ordering::SeqCst);
        let done = self.documents_done.load(Ordering::SeqCst);
        let kmers = if total > 0 && done == total {
            self.kmers_total.load(Ordering::SeqCst)
        } else {
            self.kmers_done.load(Ordering::SeqCst)
        };
        (done, total, kmers)
    }

    /// Lets the workers go on (or stop, with `stop`) after the callback's last call.
    fn release(&self, stop: bool) {
        if stop {
            self.stop.store(true, Ordering::SeqCst);
        }
        *self
            .last_call_made
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = true;
        self.last_call.notify_all();
    }
}

/// Paths from a str/os.PathLike or a list of them.
fn paths(value: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if value.cast::<PyString>().is_ok() || value.hasattr("__fspath__")? {
        return Ok(vec![value.extract()?]);
    }
    let list = PyList::new(value.py(), value.try_iter()?.collect::<PyResult<Vec<_>>>()?)?;
    list.iter().map(|item| item.extract::<PathBuf>()).collect()
}

/// Calls `progress(documents_done, documents_total, kmers_done)` if the counts moved since
/// `last`, and runs the signal handlers.
fn report(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    shared: &Shared,
    last: &mut Option<(u64, u64, u64)>,
) -> PyResult<()> {
    logs::flush(py)?;
    let counts = shared.counts();
    if let Some(progress) = progress {
        if counts.1 > 0 && *last != Some(counts) {
            *last = Some(counts);
            progress.call1(counts)?;
            if counts.0 == counts.1 {
                shared.release(false);
            }
        }
    }
    py.check_signals()
}

/// The row layout named `name` ("minimizer" or "cobs") for k-mers of `k` bases.
fn row_layout(
    name: Option<&str>,
    range_rows: Option<u32>,
    fpr: f64,
    k: u32,
) -> PyResult<bitsift::format::LayoutChoice> {
    use bitsift::format::LayoutChoice;
    let name = match (name, range_rows) {
        (Some(name), _) => name,
        (None, Some(_)) => "minimizer",
        (None, None) => return Ok(LayoutChoice::default_for(fpr, k)),
    };
    match name {
        "cobs" if range_rows.is_some() => Err(pyo3::exceptions::PyValueError::new_err(
            "range_rows: is for layout=\"minimizer\"",
        )),
        "cobs" => Ok(LayoutChoice::Cobs),
        "minimizer" => {
            let choice = LayoutChoice::Minimizer { range_rows };
            choice
                .check()
                .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("range_rows: {e}")))?;
            Ok(choice)
        }
        other => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "layout: {other:?} is not a row layout (expected \"minimizer\" or \"cobs\")"
        ))),
    }
}

/// Builds a COBS compact index, exactly as `bitsift build` does, and returns its report
/// (documents, blocks, page_size, file_bytes, kmers, bases, seconds, ...) as a dict.
///
/// output: the index file to write; it appears only when complete.
/// inputs: FASTA/FASTQ files (plain or compressed) or directories, or a list of them.
/// k, fpr, hashes, page_size: k-mer length, false-positive rate of one lookup, hash
///     functions, bytes per row (default: the smallest power of two >= documents / 8).
/// per_record: one document per record instead of one per file.
/// threads: worker threads (default: all cores). memory: budget in bytes or "8G"
///     (default: half the available memory). force: overwrite an existing output.
/// progress: called as progress(documents_done, documents_total, kmers_done) at most every
///     0.1 s on the calling thread, and once with every document done before the index is
///     put in place. An exception it raises (or Ctrl-C) stops the build, leaves nothing at
///     the output path, and is raised again.
/// canonical: hash canonical k-mers (False: as written). lists: files listing inputs.
/// order: where documents go in the index: "size" (as COBS), "input", "similarity" or
///     "group:COLUMN" (with metadata, a TSV naming each document's group); related genomes
///     in the same blocks let block summaries skip blocks. summaries: write block summaries
///     beside the index (True by default).
/// layout: where a k-mer's rows lie: "minimizer" (bitsift's: the k-mers that share a
///     minimizer in one range of range_rows rows, one read per range; COBS cannot read it)
///     or "cobs" (a row per k-mer, COBS's own layout); default: "minimizer", or "cobs" for
///     fpr below 0.1 or k below 19. range_rows: a power of two from 8 to 1024 (default: 16, or a 4 KiB
///     page of narrower rows).
#[pyfunction]
#[pyo3(signature = (
    output, inputs, k = 31, fpr = 0.3, hashes = 1, page_size = None, per_record = false,
    threads = None, memory = None, force = false, progress = None, *, canonical = true,
    lists = None, order = "size", metadata = None, summaries = true, layout = None,
    range_rows = None
))]
#[allow(clippy::too_many_arguments)]
pub fn build<'py>(
    py: Python<'py>,
    output: PathBuf,
    inputs: &Bound<'py, PyAny>,
    k: u32,
    fpr: f64,
    hashes: u32,
    page_size: Option<u64>,
    per_record: bool,
    threads: Option<i64>,
    memory: Option<&Bound<'py, PyAny>>,
    force: bool,
    progress: Option<&Bound<'py, PyAny>>,
    canonical: bool,
    lists: Option<&Bound<'py, PyAny>>,
    order: &str,
    metadata: Option<PathBuf>,
    summaries: bool,
    layout: Option<&str>,
    range_rows: Option<u32>,
) -> PyResult<Bound<'py, PyAny>> {
    let layout = row_layout(layout, range_rows, fpr, k)?;
    let order: bitsift::builder::order::Order = order
        .parse()
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("order: {e}")))?;
    let progress = progress.filter(|p| !p.is_none());
    if let Some(progress) = progress {
        if !progress.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "progress must be a callable taking (documents_done, documents_total, kmers_done)",
            ));
        }
    }
    let options = BuildOptions {
        output,
        inputs: paths(inputs)?,
        lists: match lists.filter(|l| !l.is_none()) {
            Some(lists) => paths(lists)?,
            None => Vec::new(),
        },
        per_record,
        k,
        fpr,
        num_hashes: hashes,
        canonical,
        threads: bitsift::cores::threads_or_cores(options::count("threads", threads.unwrap_or(0))?),
        page_size,
        memory_bytes: options::size("memory", memory)?.unwrap_or_else(default_memory_bytes),
        force,
        progress: false,
        order,
        metadata,
        summaries: summaries.then(bitsift::builder::summaries::SummaryOptions::default),
        rows: Default::default(),
        layout,
        documents: None,
    };
    let built = run_observed(py, options, progress)?;
    // Every count was reported before the index was put in place; flush the last messages.
    logs::flush(py)?;
    let json = serde_json::to_value(&built)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot convert the build report: {e}")))?;
    json_to_py(py, &json)
}

/// Runs the build on a worker thread and waits for it, reporting progress in between; see
/// the module documentation.
fn run_observed(
    py: Python<'_>,
    options: BuildOptions,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<BuildReport> {
    let shared = Arc::new(Shared {
        wait_for_last_call: progress.is_some(),
        ..Shared::default()
    });
    let (done, finished) = crossbeam_channel::bounded(1);
    let worker = {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("bitsift-build".into())
            .spawn(move || {
                let _ = done.send(build_observed(&options, shared.as_ref()));
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the build thread: {e}")))?
    };
    let mut last = None;
    let mut interrupted = None;
    let outcome = loop {
        match py.detach(|| finished.recv_timeout(PROGRESS_INTERVAL)) {
            Ok(outcome) => break outcome,
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                break Err(BuildError::Invalid(
                    "the build thread ended without an answer".into(),
                ))
            }
        }
        if interrupted.is_none() {
            if let Err(error) = report(py, progress, &shared, &mut last) {
                shared.release(true);
                interrupted = Some(error);
            }
        }
    };
    py.detach(|| worker.join())
        .map_err(|_| PyRuntimeError::new_err("the build thread panicked; nothing was written"))?;
    if let Some(error) = interrupted {
        logs::flush(py)?;
        return Err(error);
    }
    outcome.map_err(|error| {
        let _ = logs::flush(py);
        build_error(&error)
    })
}
