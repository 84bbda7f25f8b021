//! `bitsift iobench`: characterises a storage device for this workload, small random aligned
//! reads, by comparing the ways bitsift (and COBS) can issue them, and recommends an engine
//! and a queue depth for the file system it ran on.
//!
//! The principal type is [`Bench`]: [`Bench::prepare`] validates the [`Options`], creates or
//! checks the benchmark file (a [verifiable pattern](pattern), never sparse) and probes
//! O_DIRECT and io_uring; [`Bench::runs`] lists the runs, [`Bench::run`] measures one, and
//! [`Bench::report`] gathers them into a [`Report`] with a [`Recommendation`] and the
//! [`Resemblance`]: which frugal disk profile the device is like (a local drive, a cloud
//! volume, a hard disk).
//!
//! | variant | reads with | concurrency |
//! |---|---|---|
//! | [`Variant::Pread`] | buffered `pread`, `POSIX_FADV_RANDOM` | threads |
//! | [`Variant::Direct`] | O_DIRECT `pread` | threads |
//! | [`Variant::Mmap`] | copies out of a mapping, default advice | threads |
//! | [`Variant::MmapRandom`] | copies out of a mapping, `MADV_RANDOM` (as COBS) | threads |
//! | [`Variant::Uring`] | bitsift's io_uring engine ([`crate::io::UringEngine`]), O_DIRECT | reads in flight |
//!
//! Every read is verified (every sector's header, and every byte of a sample), so no variant
//! can report reads that did not happen or returned wrong data. Latencies go into a fixed-size
//! [`histogram`](histogram::Histogram); nothing is allocated per read.
//!
//! ```no_run
//! use bitsift::iobench::{write_table, Bench, Options, Variant};
//! let options = Options {
//!     variants: vec![Variant::Uring, Variant::Direct],
//!     ..Options::new("bench.dat".into())
//! };
//! let bench = Bench::prepare(options)?;
//! let mut runs = Vec::new();
//! for spec in bench.runs() {
//!     runs.push(bench.run(spec)?);
//! }
//! let report = bench.report(runs);
//! write_table(&report, &mut std::io::stdout())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bench;
mod benchfile;
mod error;
pub(crate) mod histogram;
mod options;
pub(crate) mod pattern;
mod recommend;
mod report;
mod resemble;
pub(crate) mod rng;
mod run;
mod stats;
mod table;
mod threads;
mod uring;

pub use bench::Bench;
pub(crate) use error::IobenchError;
pub(crate) use options::FILE_BYTES_DEFAULT;
pub use options::{CacheMode, Options, Variant, BLOCK_BYTES_DEFAULT, FULL_EVERY_DEFAULT};
pub use recommend::{format_iops, Recommendation};
pub use report::Report;
pub use table::write_table;
