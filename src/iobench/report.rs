//! What a benchmark reports: the [`Report`] around its runs' [`RunReport`]s, with the
//! recommendation and the resemblance judged from them. These are the JSON fields
//! (`--format json`); the table shows the same.

use super::recommend::Recommendation;
use super::resemble::Resemblance;
use super::run::{DirectAlignment, RunReport};
use super::CacheMode;

/// The whole benchmark.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    /// The benchmark file.
    pub file: String,
    /// Its size.
    pub file_bytes: u64,
    /// Whether this invocation created it.
    pub file_created: bool,
    /// Whether it stays after the run.
    pub file_kept: bool,
    /// The file system holding it.
    pub filesystem: String,
    /// Bytes per read.
    pub block_bytes: u64,
    /// Page-cache state at the start of each run.
    pub cache: CacheMode,
    /// Requested length of each run.
    pub duration_s: f64,
    /// Every read's sectors of this size have their header checked.
    pub sector_bytes: u64,
    /// Every byte of one read in this many is checked.
    pub full_verify_every: u64,
    /// O_DIRECT alignment, when O_DIRECT works.
    pub direct_alignment: Option<DirectAlignment>,
    /// What could not be run here, and why.
    pub notices: Vec<String>,
    /// The runs, in order.
    pub runs: Vec<RunReport>,
    /// Engine and depth to use on this file system.
    pub recommendation: Option<Recommendation>,
    /// Which frugal disk profile the device resembles (local drive, cloud volume, hard disk).
    pub resembles: Resemblance,
}
