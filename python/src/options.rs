//! Options given from Python, checked with the command line's words.

use bitsift::answer::Cutoff;
use bitsift::io::{DirectIo, EngineChoice};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// `engine=`: a name of [`EngineChoice`] (as `bitsift query --engine`).
pub fn engine(name: &str) -> PyResult<EngineChoice> {
    name.parse()
        .map_err(|e: bitsift::io::UnknownName| PyValueError::new_err(e.to_string()))
}

/// `direct_io=`: `auto`, `required` or `off` (as `bitsift query --direct-io`).
pub fn direct_io(name: &str) -> PyResult<DirectIo> {
    name.parse()
        .map_err(|e: bitsift::io::UnknownName| PyValueError::new_err(e.to_string()))
}

/// A size in bytes: an int, or a string such as `"4G"` or `"512K"` (as on the command line).
/// `None` stays `None`.
pub fn size(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if let Ok(text) = value.extract::<String>() {
        return bitsift::units::parse_bytes(&text)
            .map(Some)
            .map_err(|e| PyValueError::new_err(format!("{name}: {e}")));
    }
    match value.extract::<i128>() {
        Ok(bytes) => u64::try_from(bytes).map(Some).map_err(|_| {
            PyValueError::new_err(format!(
                "{name} {bytes} is out of range: give a size in bytes (e.g. 1 << 30) or a string such as \"1G\""
            ))
        }),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be an int (bytes) or a string such as \"1G\", not {}",
            value.get_type().name()?
        ))),
    }
}

/// A count that must not be negative (`limit`, `threads`, ...).
pub fn count(name: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value)
        .map_err(|_| PyValueError::new_err(format!("{name} {value} is negative; give 0 or more")))
}

/// The threshold of a search: a fraction from 0 to 1, as `bitsift query -t` accepts.
pub fn threshold(value: f64) -> PyResult<f64> {
    cutoff(Cutoff::Fraction(value)).map(|_| value)
}

/// A threshold or a minimum identity, checked as every front end checks it.
pub fn cutoff(cutoff: Cutoff) -> PyResult<Cutoff> {
    cutoff
        .checked()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
