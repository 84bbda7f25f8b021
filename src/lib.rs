//! bitsift: search COBS bit-sliced genome indexes at the speed the storage allows.
//!
//! A COBS index holds one Bloom filter per genome, stored transposed: one row per hash
//! position, one bit per genome. Answering "which genomes contain this sequence?" means
//! reading one row per k-mer, hash function and block. bitsift plans all those reads of a
//! query at once, submits them at depth (io_uring, O_DIRECT) and counts what every query cost.
//!
//! Modules, in the direction they depend on each other:
//! - [`kmer`]: k-mers, canonical form and hashes, exactly as COBS;
//! - [`format`]: COBS index headers and geometry, reading and writing;
//! - [`io`]: engines that read batches of byte ranges (no k-mers here), each saying how it
//!   wants to be read; with cargo feature `remote` (on by default) `io::remote`, the engine
//!   and readers of files on HTTP(S) servers and S3-compatible object stores;
//! - [`query`]: planning, accumulation, ranking (no file descriptors here);
//! - [`search`]: the front ends' way in, above `collection` and `query`: one setup, one
//!   open, one request and one query batch for the command line, the server and Python;
//! - [`builder`]: building compact indexes from FASTA/FASTQ in bounded memory;
//! - [`doclist`]: COBS's document types (text, McCortex, k-mer buffers, FASTA/FASTQ, multi-FASTA),
//!   names and terms, for builds that reproduce COBS's;
//! - [`summary`]: block summaries, filters of each block's k-mers that rule blocks out;
//! - [`answer`]: answers as the front ends show them (TSV, JSON, matrix writers; the
//!   per-query JSON answer; the index description; identity and cutoff), above `query` and
//!   `collection`;
//! - `server`: the HTTP search server (JSON API and web page; cargo feature `server`);
//! - `iobench`, `synth`: the storage benchmark and synthetic indexes for benchmarks (cargo
//!   features of the same names);
//! - [`IoAt`]: the one error of an operation on a file (its path, the action, the cause),
//!   carried by every error type that reads or writes files;
//! - [`alphabet`], [`seqfile`], [`metadata`], [`tsv`], [`units`], [`cores`]: what counts as a
//!   base, sequence files, document metadata tables, how text fields are escaped in
//!   tab-separated outputs, byte sizes, how many threads "one per core" is; `tempfiles`: temporary outputs removed on
//!   error, on SIGINT/SIGTERM and after a crash, and the one way files are replaced atomically;
//!   `walk`: the one recursive directory walk and list-file reader.
//!
//! Cargo features: the default `cli` builds the `bitsift` and `cobs` programs and turns on
//! `server`, `iobench` and `synth`. With `default-features = false` (as the Python package
//! depends on it) the library is the rest: no HTTP stack, no tokio, no clap.

#![warn(missing_docs)]

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
pub mod query;
pub mod read;
pub mod search;
pub mod seqfile;
#[cfg(feature = "server")]
pub mod server;
pub mod summary;
#[cfg(feature = "synth")]
pub mod synth;
mod tempfiles;
pub use tempfiles::{leave_signals_to_host, write_atomically, AtomicFile};
pub mod tsv;
pub mod units;
mod walk;
