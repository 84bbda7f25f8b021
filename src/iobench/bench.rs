//! The session: validate the options, prepare the file, probe what this machine allows, then
//! run each variant at each depth with its own cache state and resource accounting.

use std::fs::File;

use memmap2::{Advice, MmapOptions};

use super::benchfile::{self, BenchFile};
use super::options::validate;
use super::pattern::SECTOR_BYTES;
use super::report::Report;
use super::run::{DirectAlignment, RunReport, RunSpec};
use super::stats::{RunPlan, RunStats};
use super::threads::{self, Source};
use super::{recommend, resemble, uring};
use super::{CacheMode, IobenchError, Options, Variant};
use crate::io::usage::{memory_available_bytes, Usage};
use crate::io::{drop_file_cache, DataFile, DirectIo, IoError, ReadEngine, UringEngine};
use crate::units::format_bytes;

/// Read buffers are page-aligned, which satisfies every O_DIRECT memory alignment in use.
const PAGE_BYTES: usize = 4096;

/// A prepared benchmark; see the module documentation.
#[derive(Debug)]
pub struct Bench {
    options: Options,
    file: BenchFile,
    variants: Vec<Variant>,
    direct: Option<DirectAlignment>,
    notices: Vec<String>,
}

impl Bench {
    /// Validates `options`, creates or checks the file, and probes O_DIRECT and io_uring.
    /// Variants this machine cannot run are dropped with a notice ([`Bench::notices`]).
    pub fn prepare(options: Options) -> Result<Bench, IobenchError> {
        let mut options = options;
        validate(&mut options)?;
        let file = benchfile::prepare(
            &options.path,
            options.size,
            super::FILE_BYTES_DEFAULT,
            options.progress,
        )?;
        if file.size < options.block_bytes {
            return Err(IobenchError::file(
                &file.path,
                format!(
                    "holds {} bytes, less than one {}-byte block",
                    file.size, options.block_bytes
                ),
            ));
        }
        let mut bench = Bench {
            variants: options.variants.clone(),
            options,
            file,
            direct: None,
            notices: Vec::new(),
        };
        bench.probe_direct()?;
        bench.probe_uring();
        if bench.options.cache == CacheMode::Warm {
            bench.warm_up()?;
        }
        Ok(bench)
    }

    fn probe_direct(&mut self) -> Result<(), IobenchError> {
        if !self.variants.iter().any(|v| v.direct()) {
            return Ok(());
        }
        let probe = match DataFile::open_direct(&self.file.path) {
            Ok(probe) => probe,
            Err(e) => {
                self.skip(
                    |v| v.direct(),
                    format!(
                        "O_DIRECT is not supported for {} on {} ({e})",
                        self.file.path.display(),
                        self.file.filesystem
                    ),
                );
                return Ok(());
            }
        };
        if self.options.block_bytes % probe.offset_align != 0 {
            return Err(IobenchError::Options(format!(
                "--block-size {} is not a multiple of the O_DIRECT alignment of {}, {} bytes (statx DIOALIGN)",
                self.options.block_bytes,
                self.file.path.display(),
                probe.offset_align
            )));
        }
        self.direct = Some(DirectAlignment {
            offset_bytes: probe.offset_align,
            memory_bytes: probe.memory_align,
        });
        Ok(())
    }

    /// Proves io_uring works with a real O_DIRECT read through bitsift's own engine, which
    /// also honours `BITSIFT_IO_URING=off`.
    fn probe_uring(&mut self) {
        if !self.variants.contains(&Variant::Uring) {
            return;
        }
        let paths = [self.file.path.clone()];
        if let Err(e) = UringEngine::open(&paths, 1, DirectIo::Required) {
            let cause = match e {
                IoError::Unavailable { detail, .. } => detail,
                other => other.to_string(),
            };
            self.skip(
                |v| v == Variant::Uring,
                format!("io_uring unavailable: {cause}"),
            );
        }
    }

    /// Drops the variants `which` selects, with one notice naming them and `why`.
    fn skip(&mut self, which: impl Fn(Variant) -> bool, why: String) {
        let skipped: Vec<&str> = self
            .variants
            .iter()
            .filter(|&&v| which(v))
            .map(|v| v.name())
            .collect();
        if skipped.is_empty() {
            return;
        }
        self.notices
            .push(format!("skipping {}: {why}", skipped.join(" and ")));
        self.variants.retain(|&v| !which(v));
    }

    fn warm_up(&mut self) -> Result<(), IobenchError> {
        if let Some(available) = memory_available_bytes().filter(|&a| self.file.size > a / 2) {
            self.notices.push(format!(
                "warm: the file ({}) is larger than half the available memory ({}); warm runs will also read from the device",
                format_bytes(self.file.size),
                format_bytes(available)
            ));
        }
        benchfile::load_into_cache(&self.file)
    }

    /// The benchmark file.
    pub fn file(&self) -> &BenchFile {
        &self.file
    }

    /// One line per thing this machine could not do (variants skipped, and why).
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    /// The runs to make, in order: each variant at each of its depths.
    pub fn runs(&self) -> Vec<RunSpec> {
        let mut specs = Vec::new();
        for &variant in &self.variants {
            let depths = if variant.threaded() {
                &self.options.threads
            } else {
                &self.options.queue_depths
            };
            specs.extend(depths.iter().map(|&depth| RunSpec { variant, depth }));
        }
        specs
    }

    /// Measures one run. A read that fails or returns wrong data ends it with an error.
    pub fn run(&self, spec: RunSpec) -> Result<RunReport, IobenchError> {
        let path = &self.file.path;
        let plan = RunPlan {
            path: path.clone(),
            label: spec.label(),
            block_bytes: self.options.block_bytes,
            block_count: self.file.size / self.options.block_bytes,
            memory_align: self
                .direct
                .map_or(PAGE_BYTES, |d| d.memory_bytes.max(PAGE_BYTES)),
            duration: self.options.duration,
            seed: self.options.seed,
            full_every: self.options.full_every,
        };
        if self.options.cache == CacheMode::Cold {
            drop_file_cache(path).map_err(|e| {
                IobenchError::file(
                    path,
                    format!("cannot drop the page cache (POSIX_FADV_DONTNEED): {e}"),
                )
            })?;
        }
        let open_error = |e: std::io::Error| IobenchError::file(path, format!("cannot open: {e}"));
        let (stats, usage) = match spec.variant {
            Variant::Pread | Variant::Direct => {
                let file = if spec.variant == Variant::Direct {
                    DataFile::open_direct(path)
                } else {
                    DataFile::open_buffered(path)
                }
                .map_err(open_error)?;
                self.check_size(file.size)?;
                measure(|| threads::run(Source::File(&file.file), spec.depth, &plan))?
            }
            Variant::Mmap | Variant::MmapRandom => {
                let file = File::open(path).map_err(open_error)?;
                // SAFETY: a read-only mapping of a file only iobench writes. Were another
                // process to truncate it meanwhile, reads past the new end would raise
                // SIGBUS; the size is checked against the mapping just below.
                let map = unsafe { MmapOptions::new().map(&file) }
                    .map_err(|e| IobenchError::file(path, format!("cannot map: {e}")))?;
                if spec.variant == Variant::MmapRandom {
                    map.advise(Advice::Random)
                        .map_err(|e| IobenchError::file(path, format!("madvise failed: {e}")))?;
                }
                self.check_size(map.len() as u64)?;
                measure(|| threads::run(Source::Map(&map), spec.depth, &plan))?
            }
            Variant::Uring => {
                let mut engine = uring::open(&plan, spec.depth)?;
                self.check_size(engine.file_size(0))?;
                measure(|| uring::run(&mut engine, spec.depth, &plan))?
            }
        };
        Ok(RunReport::new(
            spec,
            &stats,
            &usage,
            self.options.block_bytes,
            self.file.size,
            self.options.cache,
        ))
    }

    fn check_size(&self, size: u64) -> Result<(), IobenchError> {
        if size != self.file.size {
            return Err(IobenchError::file(
                &self.file.path,
                format!(
                    "changed size during the benchmark ({} bytes, then {size})",
                    self.file.size
                ),
            ));
        }
        Ok(())
    }

    /// Gathers the runs into the final report, with the recommendation and the device's
    /// resemblance to the frugal disk profiles.
    pub fn report(&self, runs: Vec<RunReport>) -> Report {
        let recommendation = recommend::recommend(&runs, &self.file, self.options.cache);
        let resembles = resemble::resemble(&runs, self.options.block_bytes, self.options.cache);
        Report {
            file: self.file.path.display().to_string(),
            file_bytes: self.file.size,
            file_created: self.file.created,
            file_kept: !self.options.remove,
            filesystem: self.file.filesystem.clone(),
            block_bytes: self.options.block_bytes,
            cache: self.options.cache,
            duration_s: self.options.duration.as_secs_f64(),
            sector_bytes: SECTOR_BYTES as u64,
            full_verify_every: self.options.full_every,
            direct_alignment: self.direct,
            notices: self.notices.clone(),
            runs,
            recommendation,
            resembles,
        }
    }

    /// Deletes the file if the options asked for it. Call it whether or not the runs
    /// succeeded.
    pub fn cleanup(&self) -> Result<(), IobenchError> {
        if !self.options.remove {
            return Ok(());
        }
        std::fs::remove_file(&self.file.path)
            .map_err(|e| IobenchError::file(&self.file.path, format!("cannot remove: {e}")))
    }
}

/// Runs `body` between two snapshots of the process's resource counters.
fn measure(
    body: impl FnOnce() -> Result<RunStats, IobenchError>,
) -> Result<(RunStats, Usage), IobenchError> {
    let before = Usage::now();
    let stats = body()?;
    Ok((stats, Usage::now().since(&before)))
}
