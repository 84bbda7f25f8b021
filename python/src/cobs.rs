//! The native half of `bitsift.cobs`'s construction API (COBS's `DocumentList`,
//! `classic_construct`, `compact_construct`): document lists read by
//! [`bitsift::doclist`] and indexes built from them with COBS's layout. The Python half
//! (`python/bitsift/cobs.py`) keeps the entries as plain objects and passes them back as
//! tuples: `(path, type, name, size, subdoc_index, term_size, term_count, offset)`.

use std::path::PathBuf;

use bitsift::builder::classic::build_classic;
use bitsift::builder::layout::RowSizing;
use bitsift::builder::order::Order;
use bitsift::builder::{build, BuildError, BuildOptions};
use bitsift::doclist::{cobs_page_size, DocListError, DocumentEntry, DocumentList, FileType};
use pyo3::exceptions::{PyFileExistsError, PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;

use crate::errors::build_error;

/// A document entry as the Python side holds it.
type EntryTuple = (PathBuf, u32, String, u64, u64, u64, u64, u64);

fn to_tuple(entry: DocumentEntry) -> EntryTuple {
    (
        entry.path,
        entry.file_type.code(),
        entry.name,
        entry.size,
        entry.subdoc_index,
        entry.term_size,
        entry.term_count,
        entry.offset,
    )
}

fn from_tuple(tuple: EntryTuple) -> PyResult<DocumentEntry> {
    let (path, code, name, size, subdoc_index, term_size, term_count, offset) = tuple;
    let file_type = FileType::from_code(code)
        .ok_or_else(|| PyValueError::new_err(format!("{code} is not a FileType")))?;
    Ok(DocumentEntry {
        path,
        file_type,
        name,
        size,
        subdoc_index,
        term_size,
        term_count,
        offset,
    })
}

fn doclist_error(error: DocListError) -> PyErr {
    let message = error.to_string();
    match &error {
        DocListError::File { path, .. } if !path.exists() => PyFileNotFoundError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// The documents of one file, by its extension (COBS's `DocumentList::add`).
#[pyfunction]
pub fn cobs_load(py: Python<'_>, path: PathBuf) -> PyResult<Vec<EntryTuple>> {
    let entries = py
        .detach(|| DocumentEntry::load(&path))
        .map_err(doclist_error)?;
    Ok(entries.into_iter().map(to_tuple).collect())
}

/// The documents under `root` of type `filter` (COBS's `add_recursive`), sorted by path.
#[pyfunction]
pub fn cobs_scan(py: Python<'_>, root: PathBuf, filter: u32) -> PyResult<Vec<EntryTuple>> {
    let filter = FileType::from_code(filter)
        .ok_or_else(|| PyValueError::new_err(format!("{filter} is not a FileType")))?;
    let list = py
        .detach(|| DocumentList::scan(&root, filter))
        .map_err(doclist_error)?;
    Ok(list.entries.into_iter().map(to_tuple).collect())
}

/// COBS's `StringToFileType`: the FileType number of a `file_type` argument.
#[pyfunction]
pub fn cobs_file_type(name: &str) -> PyResult<u32> {
    FileType::parse(name)
        .map(FileType::code)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The number of terms of length `k` of an entry (COBS's `num_terms`).
#[pyfunction]
pub fn cobs_num_terms(py: Python<'_>, entry: EntryTuple, k: u64) -> PyResult<u64> {
    let entry = from_tuple(entry)?;
    py.detach(|| entry.num_terms(k)).map_err(doclist_error)
}

/// COBS's parameters of one construction, as the Python side passes them.
#[derive(FromPyObject)]
pub struct Parameters {
    term_size: u32,
    canonicalize: bool,
    num_hashes: u32,
    false_positive_rate: f64,
    page_size: u64,
    mem_bytes: u64,
    num_threads: usize,
    clobber: bool,
    continue_: bool,
}

/// Builds `out_file` from `entries` as COBS's `classic_construct` (`compact = False`, the
/// documents in the given order) or `compact_construct` (COBS's layout) would.
#[pyfunction]
pub fn cobs_construct(
    py: Python<'_>,
    entries: Vec<EntryTuple>,
    out_file: PathBuf,
    compact: bool,
    params: Parameters,
) -> PyResult<()> {
    let extension = if compact {
        ".cobs_compact"
    } else {
        ".cobs_classic"
    };
    if !out_file
        .as_os_str()
        .as_encoded_bytes()
        .ends_with(extension.as_bytes())
    {
        return Err(PyValueError::new_err(format!(
            "Error: {} COBS index file must end with {extension}",
            if compact { "compact" } else { "classic" }
        )));
    }
    if out_file.exists() && !params.clobber && !params.continue_ {
        return Err(PyFileExistsError::new_err(format!(
            "{}: Output file exists, will not overwrite without clobber",
            out_file.display()
        )));
    }
    if params.term_size == 0 || params.num_hashes == 0 {
        return Err(PyValueError::new_err(
            "term_size and num_hashes must be at least 1",
        ));
    }
    let list = DocumentList {
        entries: entries
            .into_iter()
            .map(from_tuple)
            .collect::<PyResult<_>>()?,
    };
    if list.is_empty() {
        return Err(PyValueError::new_err("the document list is empty"));
    }
    py.detach(|| construct(list, out_file, compact, &params))
        .map_err(|e| build_error(&e))
}

fn construct(
    list: DocumentList,
    output: PathBuf,
    compact: bool,
    params: &Parameters,
) -> Result<(), BuildError> {
    let page_size = match params.page_size {
        0 => cobs_page_size(list.len() as u64),
        bytes => bytes,
    };
    let rows = if compact {
        RowSizing::Exact
    } else {
        RowSizing::Terms(list.classic_terms(params.term_size.into())?)
    };
    let documents = if compact {
        let per_block = usize::try_from(8 * page_size)
            .map_err(|_| BuildError::Invalid(format!("page_size {page_size} is too large")))?;
        list.compact_order(per_block, params.term_size.into())?.0
    } else {
        list
    };
    let options = BuildOptions {
        output,
        inputs: Vec::new(),
        lists: Vec::new(),
        per_record: false,
        k: params.term_size,
        fpr: params.false_positive_rate,
        num_hashes: params.num_hashes,
        canonical: params.canonicalize,
        threads: bitsift::cores::threads_or_cores(params.num_threads),
        page_size: compact.then_some(page_size),
        memory_bytes: params.mem_bytes,
        force: true,
        progress: false,
        order: Order::Input,
        metadata: None,
        summaries: None,
        rows,
        layout: bitsift::format::LayoutChoice::Cobs,
        documents: Some(documents),
    };
    if compact {
        build(&options)?;
    } else {
        build_classic(&options)?;
    }
    Ok(())
}

/// The signature size (rows) of a Bloom filter of `num_elements` elements, COBS's
/// `calc_signature_size`.
#[pyfunction]
pub fn cobs_signature_size(
    num_elements: u64,
    num_hashes: u32,
    false_positive_rate: f64,
) -> PyResult<u64> {
    if num_hashes == 0 || !(false_positive_rate > 0.0 && false_positive_rate < 1.0) {
        return Err(PyValueError::new_err(
            "num_hashes must be at least 1 and false_positive_rate between 0 and 1",
        ));
    }
    let ratio = bitsift::builder::layout::bits_per_kmer(num_hashes, false_positive_rate);
    Ok((num_elements as f64 * ratio).ceil() as u64)
}
