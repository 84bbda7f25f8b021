//! The `bitsift` Python package's native module, `bitsift._bitsift`: the bitsift library
//! (the same code as the `bitsift` command) behind a small Python API.
//!
//! - [`index`]: `bitsift.Index`, index files opened once and searched from any thread, the
//!   GIL released while searching;
//! - [`build`]: `bitsift.build`, with a progress callback and Ctrl-C;
//! - [`cobs`]: the native half of `bitsift.cobs`'s document lists and constructions;
//! - [`results`]: `bitsift.QueryResult` and its conversions;
//! - [`queries`]: what a query may be, and the base rule applied to it;
//! - [`remote`]: `bitsift.configure_remote`, the options of remote indexes (HTTP(S), S3);
//! - [`errors`]: Rust errors as Python exceptions with the command line's messages;
//! - [`pool`], [`logs`], [`options`], [`text`]: sessions shared by threads, library
//!   messages to `logging`, option parsing, error text.
//!
//! The module is built with the `extension` feature (maturin turns it on); without it only
//! the modules that need no Python ([`pool`], [`text`]) are compiled, so the workspace's
//! `cargo test` needs no Python.
//!
//! The pure-Python parts (`bitsift.Hit`, `bitsift.Results`, `bitsift.cobs`) are in
//! `python/bitsift/`.

// Without the `extension` feature only the Python-free modules are built (and tested).
#![cfg_attr(not(feature = "extension"), allow(dead_code))]

#[cfg(feature = "extension")]
mod build;
#[cfg(feature = "extension")]
mod cobs;
#[cfg(feature = "extension")]
mod errors;
#[cfg(feature = "extension")]
mod index;
#[cfg(feature = "extension")]
mod logs;
#[cfg(feature = "extension")]
mod options;
mod pool;
#[cfg(feature = "extension")]
mod queries;
#[cfg(feature = "extension")]
mod remote;
#[cfg(feature = "extension")]
mod results;
mod text;

#[cfg(feature = "extension")]
use pyo3::prelude::*;

/// Native part of the bitsift package; import `bitsift`, not this module.
#[cfg(feature = "extension")]
#[pymodule]
mod _bitsift {
    #[pymodule_export]
    use super::build::build;
    #[pymodule_export]
    use super::cobs::{
        cobs_construct, cobs_file_type, cobs_load, cobs_num_terms, cobs_scan, cobs_signature_size,
    };
    #[pymodule_export]
    use super::errors::IndexError;
    #[pymodule_export]
    use super::index::PyIndex;
    #[pymodule_export]
    use super::remote::{configure_remote, remote_options};
    #[pymodule_export]
    use super::results::QueryResult;

    use super::*;

    #[pymodule_init]
    fn init(module: &Bound<'_, PyModule>) -> PyResult<()> {
        super::logs::install();
        // Ctrl-C raises KeyboardInterrupt (a build stops and removes its temporary file):
        // the library's signal thread would end the interpreter instead.
        bitsift::leave_signals_to_host();
        module.add("__version__", env!("CARGO_PKG_VERSION"))?;
        module.add("QUEUE_DEPTH_DEFAULT", bitsift::io::QUEUE_DEPTH_DEFAULT)?;
        // Whether URLs (http, https, s3) are accepted: the `remote` feature, on in the wheel.
        module.add("REMOTE", cfg!(feature = "remote"))?;
        Ok(())
    }
}
