//! What `Index.search` accepts as a query; the base rule is applied by the batch that
//! searches it (`bitsift::search::QueryBatch`).
//!
//! - `str` or `bytes`: one sequence, named `query` (as a sequence on the command line). A
//!   `str` that is not made of bases and names a file, or looks like a path (has `/` or `.`),
//!   is read as a query file instead; pass a `pathlib.Path` to say so outright.
//! - `os.PathLike`: a FASTA/FASTQ file, plain or compressed, read as `bitsift query -f` does.
//! - a `dict` of name → sequence, or an iterable of `(name, sequence)` pairs.
//!
//! Sequences follow the command line's rule ([`bitsift::alphabet`]): case does not matter,
//! whitespace is dropped, `U` reads as `T`; anything that is not a nucleotide is refused.

use std::path::{Path, PathBuf};

use bitsift::alphabet::is_nucleotide;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};

/// One query as given.
pub struct Record {
    /// Its name (`query` for a lone sequence).
    pub name: String,
    /// Its bytes, as given.
    pub sequence: Vec<u8>,
}

/// Where the queries of a search come from.
pub enum Source {
    /// Sequences given in Python.
    Records(Vec<Record>),
    /// A FASTA/FASTQ file.
    File(PathBuf),
}

/// What to do with a query that cannot be searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnInvalid {
    /// Raise `ValueError` and answer nothing.
    Raise,
    /// Answer it with an empty result that says why it was skipped (as the command line
    /// skips it with a warning).
    Skip,
}

impl OnInvalid {
    /// Parses `on_invalid=`.
    pub fn parse(text: &str) -> PyResult<OnInvalid> {
        match text {
            "raise" => Ok(OnInvalid::Raise),
            "skip" => Ok(OnInvalid::Skip),
            other => Err(PyValueError::new_err(format!(
                "on_invalid {other:?} is not one of raise, skip"
            ))),
        }
    }
}

/// The `ValueError` of a query that cannot be searched, as the command line words it.
pub fn invalid(name: &str, reason: &str) -> PyErr {
    PyValueError::new_err(format!("query {name:?}: {reason}"))
}

/// Reads the `query` argument of `Index.search`; see the module documentation.
pub fn extract(query: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Some(bytes) = as_bytes(query) {
        return Ok(Source::Records(vec![Record {
            name: "query".into(),
            sequence: bytes,
        }]));
    }
    if let Ok(text) = query.cast::<PyString>() {
        let text = text.to_cow()?;
        if names_a_file(&text) {
            return Ok(Source::File(PathBuf::from(text.as_ref())));
        }
        return Ok(Source::Records(vec![Record {
            name: "query".into(),
            sequence: text.as_bytes().to_vec(),
        }]));
    }
    if query.hasattr("__fspath__")? {
        return Ok(Source::File(query.extract::<PathBuf>()?));
    }
    if let Ok(dict) = query.cast::<PyDict>() {
        let mut records = Vec::with_capacity(dict.len());
        for (name, sequence) in dict.iter() {
            records.push(record(&name, &sequence, records.len())?);
        }
        return Ok(Source::Records(records));
    }
    let Ok(items) = query.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "query must be a sequence (str or bytes), a dict of name -> sequence, a list of (name, sequence) pairs, or a path to a FASTA/FASTQ file, not {}",
            query.get_type().name()?
        )));
    };
    let mut records = Vec::new();
    for item in items {
        let item = item?;
        let pair: (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "query item {} is not a (name, sequence) pair; give a list of (name, sequence) pairs or a dict",
                records.len()
            ))
        })?;
        records.push(record(&pair.0, &pair.1, records.len())?);
    }
    Ok(Source::Records(records))
}

/// A `str` that is not made of bases and names a file, or looks like a path (DNA has neither
/// `/` nor file extensions), as the command line tells a file name from a sequence. Alignment
/// gaps (`-`, `.`) keep a text a sequence, which the base rule then refuses with its hint.
fn names_a_file(text: &str) -> bool {
    if text
        .bytes()
        .all(|b| is_nucleotide(b) || b.is_ascii_whitespace())
    {
        return false;
    }
    let gapped = text
        .bytes()
        .all(|b| is_nucleotide(b) || b == b'-' || b == b'.' || b.is_ascii_whitespace());
    Path::new(text).exists() || ((text.contains('/') || text.contains('.')) && !gapped)
}

fn as_bytes(value: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Some(bytes.as_bytes().to_vec());
    }
    value.cast::<PyByteArray>().ok().map(|bytes| bytes.to_vec())
}

fn record(
    name: &Bound<'_, PyAny>,
    sequence: &Bound<'_, PyAny>,
    position: usize,
) -> PyResult<Record> {
    let name = if let Ok(text) = name.cast::<PyString>() {
        text.to_cow()?.into_owned()
    } else if let Ok(number) = name.extract::<i64>() {
        number.to_string()
    } else {
        return Err(PyTypeError::new_err(format!(
            "query {position}: a name must be a str or an int, not {}",
            name.get_type().name()?
        )));
    };
    let sequence = if let Some(bytes) = as_bytes(sequence) {
        bytes
    } else if let Ok(text) = sequence.cast::<PyString>() {
        text.to_cow()?.as_bytes().to_vec()
    } else {
        return Err(PyTypeError::new_err(format!(
            "query {name:?}: a sequence must be a str or bytes, not {} (for a Biopython record, pass str(record.seq))",
            sequence.get_type().name()?
        )));
    };
    Ok(Record { name, sequence })
}
