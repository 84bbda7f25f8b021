//! `bitsift.configure_remote` and `bitsift.remote_options`: how remote indexes (`https://…`,
//! `http://…`, `s3://bucket/key`) are read, as the command line's `--remote-depth`,
//! `--remote-timeout`, `--remote-retries`, `--remote-deadline`, `--cache-dir` and
//! `--cache-dir-size` set them.
//!
//! The options belong to the process ([`bitsift::io::remote::configure`]): a keyword left out
//! keeps the value in force. The client of a server or bucket is made the first time the
//! process opens a file there and keeps the timeouts and retries in force then; the depth
//! (kept here, and given to each engine with its options: [`queue_depth`]) applies to indexes
//! opened afterwards, the cache to every read from then on.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

use crate::options;

/// Requests in flight for remote indexes, as `configure_remote(depth=…)` last set it.
static DEPTH: AtomicU32 = AtomicU32::new(bitsift::io::REMOTE_DEPTH_DEFAULT);

/// The requests in flight of an index on `paths`: `local` (the `queue_depth` of `Index`)
/// for local files, the depth of `configure_remote` for remote ones.
pub fn queue_depth(paths: &[PathBuf], local: u32) -> Option<u32> {
    if paths.iter().any(|p| bitsift::io::is_remote(p)) {
        Some(DEPTH.load(Ordering::Relaxed))
    } else {
        Some(local)
    }
}

/// `value` as a positive, finite number of seconds.
fn seconds(name: &str, value: f64) -> PyResult<std::time::Duration> {
    if value.is_finite() && value > 0.0 && value < 1e9 {
        Ok(std::time::Duration::from_secs_f64(value))
    } else {
        Err(PyValueError::new_err(format!(
            "{name} {value} is not a positive number of seconds"
        )))
    }
}

/// What `cache_dir=` asks for: leave the cache as it is, turn it off, or use a directory.
// Read only by the `remote` build's `apply`; checked the same way without it.
#[cfg_attr(not(feature = "remote"), allow(dead_code))]
enum CacheDir {
    Keep,
    Off,
    Dir(std::path::PathBuf),
}

fn cache_dir(value: Option<&Bound<'_, PyAny>>) -> PyResult<CacheDir> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(CacheDir::Keep);
    };
    if let Ok(flag) = value.cast::<PyBool>() {
        return if flag.is_true() {
            Err(PyValueError::new_err(
                "cache_dir=True names no directory: give a path, or False to turn the cache off",
            ))
        } else {
            Ok(CacheDir::Off)
        };
    }
    let dir: std::path::PathBuf = value.extract()?;
    if dir.as_os_str().is_empty() {
        return Err(PyValueError::new_err(
            "cache_dir is empty: give a directory, or False to turn the cache off",
        ));
    }
    Ok(CacheDir::Dir(dir))
}

/// Sets how this process reads remote indexes; keywords left out (or None) keep their value.
///
/// depth: requests kept in flight at once (default 256).
/// timeout: seconds one request may take before it is abandoned and retried (default 30).
/// retries: retries of a failed request (server errors, timeouts, dropped connections), with
///     growing pauses (default 4).
/// deadline: seconds after a request's first attempt past which it is not retried (default
///     120).
/// cache_dir: a directory keeping fetched pages (created when missing; shared by concurrent
///     processes; keyed by URL and ETag, so a file changed on the server is fetched anew);
///     False turns the cache off (the default).
/// cache_dir_size: bytes (or a string such as "10G") the cache may hold (default "4G"); the
///     least recently used pages go beyond that.
///
/// The options belong to the process: a server or bucket keeps the timeout, retries and
/// deadline in force when the process first opened a file there, `depth` applies to indexes
/// opened afterwards, the cache to every read from now on. Call it before opening remote
/// indexes. S3 settings (endpoint, region, keys, profile) come from the AWS environment
/// variables and profile files. Raises ValueError for a bad value.
#[pyfunction]
#[pyo3(signature = (
    *, depth = None, timeout = None, retries = None, deadline = None, cache_dir = None,
    cache_dir_size = None
))]
pub fn configure_remote(
    depth: Option<i64>,
    timeout: Option<f64>,
    retries: Option<i64>,
    deadline: Option<f64>,
    cache_dir: Option<&Bound<'_, PyAny>>,
    cache_dir_size: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let cache_dir = self::cache_dir(cache_dir)?;
    let cache_bytes = options::size("cache_dir_size", cache_dir_size)?;
    if cache_bytes == Some(0) {
        return Err(PyValueError::new_err(
            "cache_dir_size 0 holds nothing: give a size, or cache_dir=False to turn the cache off",
        ));
    }
    let depth = depth
        .map(|d| {
            u32::try_from(options::count("depth", d)?)
                .map_err(|_| PyValueError::new_err("depth is too large"))
        })
        .transpose()?;
    if depth == Some(0) {
        return Err(PyValueError::new_err(
            "depth 0: keep at least 1 request in flight",
        ));
    }
    let retries = retries.map(|r| options::count("retries", r)).transpose()?;
    let timeout = timeout.map(|t| seconds("timeout", t)).transpose()?;
    let deadline = deadline.map(|t| seconds("deadline", t)).transpose()?;
    apply(Changes {
        depth,
        timeout,
        retries,
        deadline,
        cache_dir,
        cache_bytes,
    })
}

/// The checked changes of one [`configure_remote`] call.
#[cfg_attr(not(feature = "remote"), allow(dead_code))]
struct Changes {
    depth: Option<u32>,
    timeout: Option<std::time::Duration>,
    retries: Option<usize>,
    deadline: Option<std::time::Duration>,
    cache_dir: CacheDir,
    cache_bytes: Option<u64>,
}

#[cfg(feature = "remote")]
fn apply(changes: Changes) -> PyResult<()> {
    use bitsift::io::remote::{CacheOptions, CACHE_BYTES_DEFAULT};
    let mut options = bitsift::io::remote::options();
    options.connections = changes.depth.map_or(options.connections, |d| d as usize);
    options.timeout = changes.timeout.unwrap_or(options.timeout);
    options.retries = changes.retries.unwrap_or(options.retries);
    options.deadline = changes.deadline.unwrap_or(options.deadline);
    options.cache = match (changes.cache_dir, options.cache.take()) {
        (CacheDir::Off, _) => None,
        (CacheDir::Dir(dir), old) => Some(CacheOptions {
            dir,
            bytes: old.map_or(CACHE_BYTES_DEFAULT, |c| c.bytes),
        }),
        (CacheDir::Keep, old) => old,
    };
    if let Some(bytes) = changes.cache_bytes {
        let Some(cache) = options.cache.as_mut() else {
            return Err(PyValueError::new_err(
                "cache_dir_size sizes the cache of cache_dir: give cache_dir too",
            ));
        };
        cache.bytes = bytes;
    }
    bitsift::io::remote::configure(options);
    if let Some(depth) = changes.depth {
        DEPTH.store(depth, Ordering::Relaxed);
    }
    Ok(())
}

#[cfg(not(feature = "remote"))]
fn apply(_: Changes) -> PyResult<()> {
    Err(disabled())
}

/// The options of remote indexes in force: a dict with `depth`, `timeout`, `retries`,
/// `deadline` (seconds), `cache_dir` (None without a cache) and `cache_dir_size` (bytes), the
/// keywords of `configure_remote`.
#[pyfunction]
pub fn remote_options(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    options_dict(py)
}

#[cfg(feature = "remote")]
fn options_dict(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let options = bitsift::io::remote::options();
    let dict = PyDict::new(py);
    dict.set_item("depth", DEPTH.load(Ordering::Relaxed))?;
    dict.set_item("timeout", options.timeout.as_secs_f64())?;
    dict.set_item("retries", options.retries)?;
    dict.set_item("deadline", options.deadline.as_secs_f64())?;
    let cache = options.cache.as_ref();
    dict.set_item("cache_dir", cache.map(|c| c.dir.display().to_string()))?;
    dict.set_item("cache_dir_size", cache.map(|c| c.bytes))?;
    Ok(dict)
}

#[cfg(not(feature = "remote"))]
fn options_dict(_: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    Err(disabled())
}

/// The error of a remote option in a build without the `remote` feature.
#[cfg(not(feature = "remote"))]
fn disabled() -> PyErr {
    pyo3::exceptions::PyNotImplementedError::new_err(bitsift::io::source::REMOTE_DISABLED)
}
