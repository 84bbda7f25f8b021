//! What the user asks for ([`Options`]: variants, depths, block size, duration, cache
//! state) and the checks made on it before any file is touched.

use std::path::PathBuf;
use std::time::Duration;

use super::pattern::SECTOR_BYTES;
use super::IobenchError;
use crate::units::format_bytes;

/// Size of the file created when none exists and no size is given.
pub(crate) const FILE_BYTES_DEFAULT: u64 = 4 << 30;
/// Bytes per read: one index row.
pub const BLOCK_BYTES_DEFAULT: u64 = 4096;
/// Length of each run.
pub(crate) const DURATION_DEFAULT: Duration = Duration::from_secs(3);
/// io_uring queue depths measured by default.
pub(crate) const QUEUE_DEPTHS_DEFAULT: [u32; 7] = [1, 4, 16, 32, 64, 128, 256];
/// Thread counts of the synchronous variants measured by default.
pub(crate) const THREADS_DEFAULT: [u32; 4] = [1, 4, 16, 32];
/// One read in this many is verified byte for byte by default.
pub const FULL_EVERY_DEFAULT: u64 = 64;
/// Largest io_uring queue depth accepted.
pub(crate) const QUEUE_DEPTH_MAX: u32 = 1024;
/// Largest thread count accepted.
pub(crate) const THREADS_MAX: u32 = 256;

/// Largest read accepted (larger ones are not this workload).
pub(crate) const BLOCK_BYTES_MAX: u64 = 64 << 20;

/// A way of reading the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Buffered `pread` with `POSIX_FADV_RANDOM`, from threads.
    Pread,
    /// O_DIRECT `pread`, from threads.
    Direct,
    /// Memory map with the kernel's default advice (read-around), from threads.
    Mmap,
    /// Memory map with `MADV_RANDOM`, as COBS, from threads.
    MmapRandom,
    /// io_uring with O_DIRECT at a queue depth, from one thread.
    Uring,
}

impl Variant {
    /// Every variant, in the order they run.
    pub const ALL: [Variant; 5] = [
        Variant::Pread,
        Variant::Direct,
        Variant::Mmap,
        Variant::MmapRandom,
        Variant::Uring,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Pread => "pread",
            Variant::Direct => "direct",
            Variant::Mmap => "mmap",
            Variant::MmapRandom => "mmap-random",
            Variant::Uring => "uring",
        }
    }

    /// The variant called `name`.
    pub fn from_name(name: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Whether concurrency comes from threads (else from reads in flight).
    pub(crate) fn threaded(self) -> bool {
        self != Variant::Uring
    }

    /// Whether reads bypass the page cache.
    pub(crate) fn direct(self) -> bool {
        matches!(self, Variant::Direct | Variant::Uring)
    }
}

/// Page-cache state at the start of each run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheMode {
    /// The file's cache is dropped (`POSIX_FADV_DONTNEED`) before each run.
    #[default]
    Cold,
    /// The file is read into the cache once, and never dropped.
    Warm,
}

/// What to measure, as the user asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The benchmark file (created when missing).
    pub path: PathBuf,
    /// Size of the file to create; an existing file must have this size if given.
    pub size: Option<u64>,
    /// Variants to run, in this order.
    pub variants: Vec<Variant>,
    /// io_uring queue depths.
    pub queue_depths: Vec<u32>,
    /// Thread counts of the synchronous variants.
    pub threads: Vec<u32>,
    /// Bytes per read.
    pub block_bytes: u64,
    /// Length of each run.
    pub duration: Duration,
    /// Cold or warm page cache.
    pub cache: CacheMode,
    /// Verify every byte of one read in this many.
    pub full_every: u64,
    /// Seed of the random offsets.
    pub seed: u64,
    /// Delete the file at the end ([`Bench::cleanup`](super::Bench::cleanup)).
    pub remove: bool,
    /// Draw a progress bar while creating the file.
    pub progress: bool,
}

impl Options {
    /// The defaults, for `path`.
    pub fn new(path: PathBuf) -> Options {
        Options {
            path,
            size: None,
            variants: Variant::ALL.to_vec(),
            queue_depths: QUEUE_DEPTHS_DEFAULT.to_vec(),
            threads: THREADS_DEFAULT.to_vec(),
            block_bytes: BLOCK_BYTES_DEFAULT,
            duration: DURATION_DEFAULT,
            cache: CacheMode::Cold,
            full_every: FULL_EVERY_DEFAULT,
            seed: 1,
            remove: false,
            progress: false,
        }
    }
}

/// Checks what can be checked before touching any file, and removes repeated entries.
pub(crate) fn validate(options: &mut Options) -> Result<(), IobenchError> {
    let invalid = |text: String| Err(IobenchError::Options(text));
    dedup(&mut options.variants);
    dedup(&mut options.queue_depths);
    dedup(&mut options.threads);
    if options.variants.is_empty() {
        return invalid("no variant to run; give --variants, e.g. uring,direct".into());
    }
    let block = options.block_bytes;
    if block == 0 || block % SECTOR_BYTES as u64 != 0 || block > BLOCK_BYTES_MAX {
        return invalid(format!(
            "--block-size {block}: must be a multiple of {SECTOR_BYTES} bytes, at most {}",
            format_bytes(BLOCK_BYTES_MAX)
        ));
    }
    if let Some(&depth) = options
        .queue_depths
        .iter()
        .find(|&&d| d == 0 || d > QUEUE_DEPTH_MAX)
    {
        return invalid(format!(
            "--depths: {depth} is out of range: from 1 to {QUEUE_DEPTH_MAX}"
        ));
    }
    if let Some(&threads) = options.threads.iter().find(|&&t| t == 0 || t > THREADS_MAX) {
        return invalid(format!(
            "--threads: {threads} is out of range: from 1 to {THREADS_MAX}"
        ));
    }
    if options.variants.contains(&Variant::Uring) && options.queue_depths.is_empty() {
        return invalid("--depths: the uring variant needs at least one queue depth".into());
    }
    if options.variants.iter().any(|v| v.threaded()) && options.threads.is_empty() {
        return invalid("--threads: the threaded variants need at least one thread count".into());
    }
    if options.duration.is_zero() || options.duration.as_secs() > 3600 {
        return invalid("--duration: must be more than 0 and at most an hour".into());
    }
    if options.full_every == 0 {
        return invalid(
            "--verify-every: must be at least 1 (1 verifies every byte of every read)".into(),
        );
    }
    if let Some(size) = options.size {
        if size < block || size % SECTOR_BYTES as u64 != 0 {
            return invalid(format!(
                "--size {size}: must be a multiple of {SECTOR_BYTES} bytes and hold at least one {block}-byte block"
            ));
        }
    }
    Ok(())
}

fn dedup<T: PartialEq + Copy>(items: &mut Vec<T>) {
    let mut seen = Vec::with_capacity(items.len());
    items.retain(|item| {
        let new = !seen.contains(item);
        seen.push(*item);
        new
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(change: impl FnOnce(&mut Options)) -> Result<Options, IobenchError> {
        let mut options = Options::new("x".into());
        change(&mut options);
        validate(&mut options)?;
        Ok(options)
    }

    #[test]
    fn defaults_pass_and_repeats_go() {
        let options = checked(|o| o.queue_depths = vec![4, 1, 4]).unwrap();
        assert_eq!(options.queue_depths, [4, 1]);
        assert_eq!(Variant::from_name("mmap-random"), Some(Variant::MmapRandom));
        assert!(Variant::ALL
            .iter()
            .all(|&v| Variant::from_name(v.name()) == Some(v)));
    }

    #[test]
    fn bad_values_name_their_option() {
        type Change = fn(&mut Options);
        let cases: [(Change, &str); 6] = [
            (|o| o.block_bytes = 1000, "--block-size 1000"),
            (|o| o.queue_depths = vec![0], "--depths"),
            (|o| o.threads = vec![100_000], "--threads"),
            (|o| o.variants.clear(), "no variant"),
            (|o| o.full_every = 0, "--verify-every"),
            (|o| o.size = Some(100), "--size 100"),
        ];
        for (change, needle) in cases {
            let error = checked(change).unwrap_err().to_string();
            assert!(error.contains(needle), "{error}");
        }
    }
}
