//! bitsift: search COBS bit-sliced genome indexes at the speed the storage allows.
//!
//! A COBS index holds one Bloom filter per genome, stored transposed: one row per hash
//! position, one bit per genome. Answering "which genomes contain this sequence?" means
//! reading one row per k-mer, hash function and block. bitsift plans all those reads of a
//! query at once, submits them at depth (io_uring, O_DIRECT) and counts what every query cost.
//!
//! Modules, from the ground floor up; each imports only from those before it (the tour of
//! the house is `docs/architecture.md`):
//! - [`kmer`], [`alphabet`], [`units`], [`tsv`], [`metadata`], [`cores`], [`IoAt`],
//!   `tempfiles`: k-mers and their hashes exactly as COBS, what counts as a base, byte sizes,
//!   TSV escaping, document metadata tables, threads per core, the one error of an operation
//!   on a file, and temporary outputs removed on error, on SIGINT/SIGTERM and after a crash
//!   (the one way files are replaced atomically);
//! - [`io`]: engines that read batches of byte ranges (no k-mers here), each saying how it
//!   wants to be read ([`io::ReadShape`]); with cargo feature `remote` (on by default)
//!   `io::remote`, the engine and readers of files on HTTP(S) servers and S3-compatible
//!   object stores; [`seqfile`]: FASTA/FASTQ records; `walk`: the one recursive directory
//!   walk and list-file reader; `iobench`: the storage benchmark (cargo feature);
//! - [`format`]: COBS and bitsift index files, exact to the byte (headers, names, row layouts,
//!   checksum sidecars, writers); [`doclist`]: COBS's document types, for builds that
//!   reproduce COBS's;
//! - [`read`]: the read path above an engine (checked reads, pinned side pages, integrity);
//!   [`summary`]: block summaries, filters of each block's k-mers that rule blocks out;
//! - [`query`]: planning, execution, accumulation, ranking (no file descriptors here);
//!   [`builder`]: building compact indexes from FASTA/FASTQ in bounded memory;
//! - [`collection`]: collections of sub-indexes (manifest, add, remove, merge, recover);
//!   [`answer`]: answers as the front ends show them (writers, the per-query JSON answer, the
//!   index description, identity and cutoff); `synth`: synthetic indexes (cargo feature);
//! - [`search`]: the front ends' way in: one setup, one open, one request and one query
//!   batch for the command line, the server and Python;
//! - `server`: the HTTP search server (JSON API and web page; cargo feature `server`).
//!
//! Cargo features: the default `cli` builds the `bitsift` and `cobs` programs and turns on
//! `server`, `iobench` and `synth`. With `default-features = false` (as the Python package
//! depends on it) the library is the rest: no HTTP stack, no tokio, no clap.

#![warn(missing_docs)]
// An item marked `pub` that no path from the crate root reaches is `pub(crate)`: what is
// `pub` here is the library's API.
#![warn(unreachable_pub)]

/// The version of bitsift, as recorded in JSON output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod alphabet;
pub mod answer;
pub mod builder;
pub mod collection;
pub mod cores;
pub mod doclist;
pub mod format;
pub mod io;
mod io_at;
pub use io_at::IoAt;
#[cfg(feature = "iobench")]
pub mod iobench;
pub mod kmer;
pub mod metadata;
#[cfg(test)]
#[allow(unreachable_pub)]
mod model_tests;
pub mod query;
pub mod read;
pub mod search;
pub mod seqfile;
#[cfg(feature = "server")]
pub mod server;
pub mod summary;
#[cfg(any(feature = "server", feature = "remote"))]
mod sync;
#[cfg(feature = "synth")]
pub mod synth;
mod tempfiles;
#[cfg(test)]
mod testing;
mod timestamp;
/// The integration tests' shared references name the library `bitsift`; the model test
/// includes them.
#[cfg(test)]
extern crate self as bitsift;
pub use tempfiles::{leave_signals_to_host, write_atomically, AtomicFile};
pub mod tsv;
pub mod units;
mod walk;
