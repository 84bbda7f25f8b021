//! Synthetic indexes: the exact geometry of a real collection, with random rows.
//!
//! [`synth`] writes a COBS compact index laid out as `bitsift build` would lay out a
//! collection of [`SynthOptions::documents`] genomes of about [`SynthOptions::genome_size`]
//! bases: the same header, names, page size, blocks and rows per block, hence the same file
//! size and the same reads per query. The rows are random, so hits mean nothing, but a query
//! against it costs exactly what it costs against the real collection. It is the way to
//! benchmark a 661,405-genome index without the genomes.
//!
//! - **Documents** ([`plan`]): genome sizes are log-normal around the median
//!   `genome_size` (shape [`SynthOptions::spread`], seeded), multiplied by
//!   [`SynthOptions::scale`]; a genome of `s` bases has `s − k + 1` k-mers. Documents are
//!   sorted by size and cut into blocks of `8 · page_size`, and block `b` gets
//!   `rows_for(largest k-mer count, H, fpr)` rows, all as in [`crate::builder::layout`].
//! - **Density** ([`bits`]): **per document**, exact to 1/256. Document `d` of a block with
//!   `S_b` rows has its bits set with probability `1 − exp(−H · n_d / S_b)`, the fill of a
//!   real Bloom filter of `S_b` bits holding its `n_d` k-mers; so smaller documents of a
//!   block are sparser, and the largest has the fill `fpr^(1/H)`. Unused columns of the last
//!   block stay zero.
//! - **Writing** ([`write`]): rows come from xoshiro256++ streams seeded per block and
//!   4 MiB chunk (the same seed gives the same bytes on any number of threads), generated
//!   on all cores and written in order under a temporary name, fsynced and renamed
//!   ([`PendingFile`]). Every byte is written: the file is never sparse.
//!
//! ```no_run
//! use bitsift::synth::{synth, SynthOptions};
//! let options = SynthOptions {
//!     output: "synth661k.cobs_compact".into(),
//!     documents: 661_405,
//!     genome_size: 5_000_000,
//!     scale: 0.02,
//!     ..SynthOptions::default()
//! };
//! let report = synth(&options, |plan| println!("{} bytes", plan.file_bytes))?;
//! println!("{} blocks, {} row reads per k-mer", report.blocks, report.reads_per_kmer);
//! # Ok::<(), bitsift::synth::SynthError>(())
//! ```

pub(crate) mod bits;
pub(crate) mod plan;
mod space;
pub(crate) mod write;

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::builder::output::{parent_directory, PendingFile};
use crate::builder::BuildError;
use crate::format::{HASHES_MAX, K_MAX, PAGE_SIZE_MAX};
use crate::units::format_bytes;

pub(crate) use plan::scale_fitting;
pub use plan::{document_name, genome_sizes, SynthBlock, SynthPlan};
pub(crate) use space::available_bytes;

/// Largest `--genome-size` accepted: 10^12 bases.
pub(crate) const GENOME_SIZE_MAX: u64 = 1_000_000_000_000;
/// Largest `--spread` accepted (a log-normal shape of 2 already spans orders of magnitude).
pub(crate) const SPREAD_MAX: f64 = 2.0;
/// Share of the free space a suggested `--scale` may use.
const SUGGESTED_SHARE: f64 = 0.9;

/// What to synthesize.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    /// The index file to write.
    pub output: PathBuf,
    /// Documents (genomes).
    pub documents: u64,
    /// Median genome size, in bases, before `scale`.
    pub genome_size: u64,
    /// Shape of the log-normal genome sizes: 0.2 spreads them by about ±20 %.
    pub spread: f64,
    /// Bytes per row; `None` picks [`crate::builder::layout::default_page_size`].
    pub page_size: Option<u64>,
    /// Target false-positive rate per k-mer lookup (sizes the blocks).
    pub fpr: f64,
    /// Hash functions per k-mer.
    pub num_hashes: u32,
    /// Term size.
    pub k: u32,
    /// Factor on every genome size, in (0, 1]: fewer rows, same documents and blocks.
    pub scale: f64,
    /// Seed of the genome sizes and of the rows.
    pub seed: u64,
    /// Overwrite an existing output.
    pub force: bool,
    /// Show a progress bar.
    pub progress: bool,
    /// Where a k-mer's rows lie (block rows are whole ranges of it), resolved with the page
    /// size.
    pub layout: crate::format::LayoutChoice,
}

impl Default for SynthOptions {
    /// One 5 Mb genome, `bitsift build`'s parameters, full scale, seed 1.
    fn default() -> SynthOptions {
        SynthOptions {
            output: PathBuf::from("synth.cobs_compact"),
            documents: 1,
            genome_size: 5_000_000,
            spread: 0.2,
            page_size: None,
            fpr: 0.3,
            num_hashes: 1,
            k: 31,
            scale: 1.0,
            seed: 1,
            force: false,
            progress: false,
            layout: crate::format::LayoutChoice::Cobs,
        }
    }
}

/// Why nothing was synthesized. Nothing is left at the output path when it fails.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// An option is out of range.
    #[error("{0}")]
    Invalid(String),
    /// The row layout asked for cannot spread the index's rows.
    #[error(transparent)]
    Layout(#[from] crate::format::LayoutFitError),
    /// The output exists, or creating or writing it failed.
    #[error(transparent)]
    Output(#[from] BuildError),
    /// The index would not fit the free space of its file system.
    #[error("{path}: the index would be {needed} but its file system has {available} free; {hint}",
        path = path.display(), needed = format_bytes(*needed), available = format_bytes(*available),
        hint = scale_hint(*suggestion))]
    NoSpace {
        /// The output.
        path: PathBuf,
        /// Size of the planned index.
        needed: u64,
        /// Free space.
        available: u64,
        /// A `--scale` that fits, and the size it gives.
        suggestion: Option<(f64, u64)>,
    },
    /// The free space could not be determined.
    #[error("{path}: cannot determine the free space: {source}", path = path.display())]
    Space {
        /// The directory.
        path: PathBuf,
        /// The error of statvfs.
        source: std::io::Error,
    },
}

fn scale_hint(suggestion: Option<(f64, u64)>) -> String {
    match suggestion {
        Some((scale, bytes)) => format!(
            "--scale {scale} keeps the documents and blocks and makes it {}",
            format_bytes(bytes)
        ),
        None => "no --scale makes it fit; free space or choose another directory".into(),
    }
}

/// What was written.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SynthReport {
    /// Documents.
    pub documents: u64,
    /// Blocks.
    pub blocks: u64,
    /// Bytes per row.
    pub page_size: u64,
    /// Fewest rows of a block.
    pub rows_min: u64,
    /// Most rows of a block.
    pub rows_max: u64,
    /// Offset of the data section.
    pub data_offset: u64,
    /// Size of the index file.
    pub file_bytes: u64,
    /// Row reads per k-mer of a query: blocks × hash functions.
    pub reads_per_kmer: u64,
    /// Wall time, fsync included.
    pub seconds: f64,
}

impl SynthReport {
    /// Write throughput in bytes per second.
    pub fn bytes_per_second(&self) -> f64 {
        self.file_bytes as f64 / self.seconds.max(1e-9)
    }
}

/// Checks the options' ranges.
pub fn validate(options: &SynthOptions) -> Result<(), SynthError> {
    let invalid = |message: String| Err(SynthError::Invalid(message));
    if options.documents == 0 || options.documents > u32::MAX as u64 {
        return invalid(format!(
            "--documents {} is out of range: from 1 to {} (the COBS format's limit)",
            options.documents,
            u32::MAX
        ));
    }
    if options.genome_size == 0 || options.genome_size > GENOME_SIZE_MAX {
        return invalid(format!(
            "--genome-size {} is out of range: from 1 to {GENOME_SIZE_MAX} bases",
            options.genome_size
        ));
    }
    if !(options.spread >= 0.0 && options.spread <= SPREAD_MAX) {
        return invalid(format!(
            "--spread {} is out of range: from 0 to {SPREAD_MAX} (0.2 spreads genome sizes by about 20 %)",
            options.spread
        ));
    }
    if !(options.scale > 0.0 && options.scale <= 1.0) {
        return invalid(format!(
            "--scale {} is out of range: it multiplies the genome sizes, from just above 0 to 1",
            options.scale
        ));
    }
    if options.k == 0 || options.k > K_MAX {
        return invalid(format!(
            "-k {} is out of range: k is from 1 to {K_MAX}",
            options.k
        ));
    }
    if !(options.fpr > 0.0 && options.fpr < 1.0) {
        return invalid(format!(
            "--fpr {} is out of range: the false-positive rate is between 0 and 1 (e.g. 0.3)",
            options.fpr
        ));
    }
    if options.num_hashes == 0 || options.num_hashes as u64 > HASHES_MAX {
        return invalid(format!(
            "--hashes {} is out of range: from 1 to {HASHES_MAX} hash functions",
            options.num_hashes
        ));
    }
    if let Some(page_size) = options.page_size {
        if page_size == 0 || page_size > PAGE_SIZE_MAX {
            return invalid(format!(
                "--page-size {page_size} is out of range: from 1 to 1048576 bytes per row"
            ));
        }
        if options.documents > 128 && matches!(page_size, 3 | 5..=7 | 9..=15) {
            tracing::warn!(
                "--page-size {page_size}: COBS cannot search such an index with more than 128 documents (bitsift can)"
            );
        }
    }
    Ok(())
}

/// Plans the index, calls `announce` with the plan, checks that it fits the free space, and
/// writes it. The output appears only when complete.
pub fn synth(
    options: &SynthOptions,
    announce: impl FnOnce(&SynthPlan),
) -> Result<SynthReport, SynthError> {
    let started = Instant::now();
    validate(options)?;
    if options.output.is_dir() {
        return Err(BuildError::Output {
            path: options.output.clone(),
            detail: "is a directory; give the index file name, e.g. synth.cobs_compact".into(),
        }
        .into());
    }
    if options.output.exists() && !options.force {
        return Err(BuildError::OutputExists {
            path: options.output.clone(),
        }
        .into());
    }
    let plan = SynthPlan::new(options)?;
    announce(&plan);
    let mut pending =
        PendingFile::create_index(&options.output, options.force, plan.header.len() as u64)?;
    check_space(options, &plan)?;
    pending.write_all(&plan.header)?;
    let bar = progress_bar(options.progress, plan.file_bytes);
    bar.inc(plan.header.len() as u64);
    let pending = write::write_data(&plan, options.seed, pending, &bar)?;
    if pending.written() != plan.file_bytes {
        return Err(SynthError::Invalid(format!(
            "{}: internal error: wrote {} bytes but the layout needs {}; nothing was kept",
            options.output.display(),
            pending.written(),
            plan.file_bytes
        )));
    }
    bar.set_message("fsync");
    pending.commit()?;
    bar.finish_and_clear();
    let (rows_min, rows_max) = plan.rows_range();
    Ok(SynthReport {
        documents: options.documents,
        blocks: plan.blocks.len() as u64,
        page_size: plan.layout.page_size,
        rows_min,
        rows_max,
        data_offset: plan.data_offset(),
        file_bytes: plan.file_bytes,
        reads_per_kmer: plan.reads_per_kmer(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Refuses a plan larger than the free space of the output's file system, suggesting a
/// `--scale` that uses at most 90 % of it.
fn check_space(options: &SynthOptions, plan: &SynthPlan) -> Result<(), SynthError> {
    let directory = parent_directory(&options.output);
    let available = available_bytes(&directory).map_err(|source| SynthError::Space {
        path: directory.clone(),
        source,
    })?;
    if plan.file_bytes <= available {
        return Ok(());
    }
    let budget = (available as f64 * SUGGESTED_SHARE) as u64;
    let suggestion = scale_fitting(options, budget).and_then(|scale| {
        let fitted = SynthOptions {
            scale,
            ..options.clone()
        };
        SynthPlan::new(&fitted).ok().map(|p| (scale, p.file_bytes))
    });
    Err(SynthError::NoSpace {
        path: options.output.clone(),
        needed: plan.file_bytes,
        available,
        suggestion,
    })
}

fn progress_bar(visible: bool, length: u64) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(length);
    if let Ok(style) = ProgressStyle::with_template(
        "writing   [{bar:30}] {percent:>3}%  {bytes}/{total_bytes}  {binary_bytes_per_sec}  ETA {eta}  {msg}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}
