//! The one-line conclusion: which engine and queue depth bitsift should use on this file
//! system, and how far the mmap approach (COBS's) is from it.
//!
//! The engine with the higher peak IOPS wins, except that io_uring is kept unless the `pread`
//! threads beat it by more than [`THREADS_MARGIN`]: io_uring reaches its depth from one
//! thread, and these shared machines vary by ±15 % between runs. The depth is the smallest
//! one reaching [`NEAR_BEST`] of the winner's peak: more depth past that point only adds
//! latency. Buffered runs that pulled the whole file into the page cache
//! ([`RunReport::filled_page_cache`]) are not compared: an index larger than RAM cannot do that.

use super::benchfile::BenchFile;
use super::run::RunReport;
use super::{CacheMode, Variant};
use crate::units::plural;

/// Fraction of the peak IOPS that a recommended depth must reach.
pub(crate) const NEAR_BEST: f64 = 0.9;
/// How much better the thread pool must be for it to be preferred to io_uring.
pub(crate) const THREADS_MARGIN: f64 = 1.1;

/// The recommendation, with the figures behind it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Recommendation {
    /// `uring` or `pread` (bitsift's `--engine`).
    pub engine: &'static str,
    /// Whether that engine read with O_DIRECT in the measurement.
    pub direct: bool,
    /// Recommended `--queue-depth` (reads in flight, or pread threads).
    pub queue_depth: u32,
    /// IOPS measured at that depth.
    pub iops: f64,
    /// The engine's peak IOPS, and where.
    pub peak_iops: f64,
    /// Depth of the peak.
    pub peak_depth: u32,
    /// Best `mmap-random` IOPS as a fraction of `iops`.
    pub mmap_random_fraction: Option<f64>,
    /// Best `mmap` (default advice) IOPS as a fraction of `iops`.
    pub mmap_fraction: Option<f64>,
    /// The whole recommendation as one line.
    pub text: String,
}

/// Best run of a variant by IOPS, among those whose IOPS came from the device.
fn best(runs: &[RunReport], variant: Variant) -> Option<&RunReport> {
    runs.iter()
        .filter(|r| r.variant == variant && !r.filled_page_cache)
        .max_by(|a, b| a.iops.total_cmp(&b.iops))
}

/// The recommendation for the file system of `file`, or `None` when neither uring nor a
/// pread variant ran.
pub(crate) fn recommend(
    runs: &[RunReport],
    file: &BenchFile,
    cache: CacheMode,
) -> Option<Recommendation> {
    let uring = best(runs, Variant::Uring);
    let threads_variant = if best(runs, Variant::Direct).is_some() {
        Variant::Direct
    } else {
        Variant::Pread
    };
    let threads = best(runs, threads_variant);
    let winner = match (uring, threads) {
        (Some(u), Some(t)) if t.iops > u.iops * THREADS_MARGIN => t,
        (Some(u), _) => u,
        (None, Some(t)) => t,
        (None, None) => return None,
    };
    let chosen = runs
        .iter()
        .filter(|r| r.variant == winner.variant && !r.filled_page_cache)
        .filter(|r| r.iops >= NEAR_BEST * winner.iops)
        .min_by_key(|r| r.depth)
        .unwrap_or(winner);
    let engine = if winner.variant == Variant::Uring {
        "uring"
    } else {
        "pread"
    };
    let mmap_random = best(runs, Variant::MmapRandom);
    let mmap = best(runs, Variant::Mmap);
    let fraction = |r: &RunReport| r.iops / chosen.iops.max(1e-9);
    // When every default-advice mmap run filled the cache, its smallest depth shows the
    // read-around cost best.
    let mmap_filled = runs
        .iter()
        .filter(|r| r.variant == Variant::Mmap)
        .min_by_key(|r| r.depth);
    let text = describe(
        chosen,
        winner,
        [uring, threads],
        [mmap_random, mmap, mmap_filled],
        file,
        cache,
    );
    Some(Recommendation {
        engine,
        direct: winner.direct,
        queue_depth: chosen.depth,
        iops: chosen.iops,
        peak_iops: winner.iops,
        peak_depth: winner.depth,
        mmap_random_fraction: mmap_random.map(fraction),
        mmap_fraction: mmap.map(fraction),
        text,
    })
}

fn describe(
    chosen: &RunReport,
    peak: &RunReport,
    [uring, threads]: [Option<&RunReport>; 2],
    [mmap_random, mmap, mmap_filled]: [Option<&RunReport>; 3],
    file: &BenchFile,
    cache: CacheMode,
) -> String {
    let directory = file
        .path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| ".".into(), |p| p.display().to_string());
    let warm = if cache == CacheMode::Warm {
        ", warm cache"
    } else {
        ""
    };
    let (engine, unit) = if chosen.variant == Variant::Uring {
        ("uring", "depth")
    } else {
        ("pread", "threads")
    };
    let buffered = if chosen.variant == Variant::Pread {
        " --direct-io off"
    } else {
        ""
    };
    let share = if chosen.depth == peak.depth {
        "its peak".to_string()
    } else {
        format!(
            "{:.0} % of its peak of {} at {unit} {}",
            100.0 * chosen.iops / peak.iops.max(1e-9),
            format_iops(peak.iops),
            peak.depth
        )
    };
    let mut text = format!(
        "on {} ({directory}{warm}): --engine {engine} --queue-depth {}{buffered}: {} IOPS, {share}",
        file.filesystem,
        chosen.depth,
        format_iops(chosen.iops),
    );
    let other = if chosen.variant == Variant::Uring {
        threads
    } else {
        uring
    };
    match other {
        Some(run) if run.variant == Variant::Uring => {
            text += &format!(
                "; uring peaks at {} at depth {}",
                format_iops(run.iops),
                run.depth
            );
        }
        Some(run) => {
            let how = if run.variant == Variant::Direct {
                "pread threads with O_DIRECT (direct)"
            } else {
                "buffered pread threads (pread)"
            };
            text += &format!(
                "; {how} peak at {} with {}",
                format_iops(run.iops),
                plural(run.depth as u64, "thread")
            );
        }
        None => {}
    }
    let reference = format!("{engine}'s IOPS at {unit} {}", chosen.depth);
    if let Some(run) = mmap_random {
        text += &format!(
            "; mmap with MADV_RANDOM reaches {} of {reference} ({} IOPS with {})",
            percent(run.iops / chosen.iops.max(1e-9)),
            format_iops(run.iops),
            plural(run.depth as u64, "thread")
        );
    }
    match (mmap, mmap_filled) {
        (Some(run), _) => {
            text += &format!(
                "; mmap with default advice {}",
                percent(run.iops / chosen.iops.max(1e-9))
            );
            if cache == CacheMode::Cold && run.device_read_bytes > 0 {
                text += &format!(", reading {} the bytes it uses", times(run.amplification()));
            }
        }
        (None, Some(run)) => {
            text += "; mmap with default advice";
            // Read-around is worth naming only when the device did read more than was used.
            if run.amplification() >= READ_AROUND_MIN {
                text += &format!(
                    " read {} the bytes it used ({}) and",
                    times(run.amplification()),
                    plural(run.depth as u64, "thread")
                );
            }
            text +=
                " pulled the whole file into memory within a run, so its IOPS are not comparable";
        }
        (None, None) => {}
    }
    text
}

/// Device bytes per byte used from which mmap's read-around is worth a mention.
const READ_AROUND_MIN: f64 = 1.5;

/// A ratio as `3.4×` (or `1600×` from 10 on), so that small ones never read `0×`.
fn times(ratio: f64) -> String {
    if ratio >= 10.0 {
        format!("{ratio:.0}×")
    } else {
        format!("{ratio:.1}×")
    }
}

/// A fraction as a percentage, with a decimal below 10 % so that small ones do not read 0.
fn percent(fraction: f64) -> String {
    let value = 100.0 * fraction;
    if value < 10.0 {
        format!("{value:.1} %")
    } else {
        format!("{value:.0} %")
    }
}

/// IOPS in three significant figures: `812`, `58.1k`, `1.23M`.
pub fn format_iops(iops: f64) -> String {
    if iops >= 1e6 {
        format!("{:.2}M", iops / 1e6)
    } else if iops >= 1e4 {
        format!("{:.1}k", iops / 1e3)
    } else if iops >= 1e3 {
        format!("{:.2}k", iops / 1e3)
    } else {
        format!("{iops:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn run(variant: Variant, depth: u32, iops: f64) -> RunReport {
        RunReport {
            device_read_bytes: iops as u64 * 4096 * 20,
            ..RunReport::sample(variant, depth, iops)
        }
    }

    fn file() -> BenchFile {
        BenchFile {
            path: PathBuf::from("/data/bench.dat"),
            size: 1 << 30,
            created: true,
            filesystem: "ext4".into(),
        }
    }

    #[test]
    fn smallest_depth_near_the_peak_wins() {
        let runs = [
            run(Variant::Direct, 1, 14_000.0),
            run(Variant::Direct, 32, 58_000.0),
            run(Variant::MmapRandom, 32, 12_000.0),
            run(Variant::Mmap, 32, 3_000.0),
            run(Variant::Uring, 1, 13_000.0),
            run(Variant::Uring, 16, 50_000.0),
            run(Variant::Uring, 32, 56_000.0),
            run(Variant::Uring, 128, 60_000.0),
        ];
        let r = recommend(&runs, &file(), CacheMode::Cold).unwrap();
        assert_eq!((r.engine, r.queue_depth, r.peak_depth), ("uring", 32, 128));
        assert!((r.mmap_random_fraction.unwrap() - 12.0 / 56.0).abs() < 1e-9);
        assert!(r.text.starts_with("on ext4 (/data): --engine uring --queue-depth 32: 56.0k IOPS, 93 % of its peak of 60.0k at depth 128"), "{}", r.text);
        assert!(
            r.text
                .contains("mmap with MADV_RANDOM reaches 21 % of uring's IOPS at depth 32"),
            "{}",
            r.text
        );
        assert!(
            r.text.contains("reading 20× the bytes it uses"),
            "{}",
            r.text
        );
    }

    #[test]
    fn threads_must_clearly_beat_uring() {
        let close = [
            run(Variant::Uring, 32, 60_000.0),
            run(Variant::Direct, 32, 64_000.0),
        ];
        assert_eq!(
            recommend(&close, &file(), CacheMode::Cold).unwrap().engine,
            "uring"
        );
        let clear = [
            run(Variant::Uring, 32, 40_000.0),
            run(Variant::Direct, 16, 64_000.0),
        ];
        let r = recommend(&clear, &file(), CacheMode::Cold).unwrap();
        assert_eq!((r.engine, r.queue_depth), ("pread", 16));
        let buffered = [run(Variant::Pread, 4, 9_000.0)];
        let r = recommend(&buffered, &file(), CacheMode::Warm).unwrap();
        assert!(
            r.text.contains("--direct-io off") && r.text.contains("warm cache"),
            "{}",
            r.text
        );
        assert!(recommend(&[run(Variant::Mmap, 1, 5.0)], &file(), CacheMode::Cold).is_none());
    }

    #[test]
    fn figures_name_the_variant_that_produced_them() {
        let runs = [
            run(Variant::Uring, 32, 60_000.0),
            run(Variant::Pread, 4, 30_000.0),
            run(Variant::Direct, 4, 21_400.0),
        ];
        let r = recommend(&runs, &file(), CacheMode::Cold).unwrap();
        assert!(
            r.text
                .contains("; pread threads with O_DIRECT (direct) peak at 21.4k with 4 threads"),
            "{}",
            r.text
        );
        let buffered = [
            run(Variant::Uring, 32, 60_000.0),
            run(Variant::Pread, 1, 9_000.0),
        ];
        let r = recommend(&buffered, &file(), CacheMode::Cold).unwrap();
        assert!(
            r.text
                .contains("; buffered pread threads (pread) peak at 9.00k with 1 thread"),
            "{}",
            r.text
        );
    }

    #[test]
    fn no_read_around_figure_without_device_reads() {
        let mut cached = run(Variant::Mmap, 1, 300_000.0);
        cached.filled_page_cache = true;
        cached.device_read_bytes = 0;
        let r = recommend(
            &[run(Variant::Uring, 32, 60_000.0), cached],
            &file(),
            CacheMode::Cold,
        )
        .unwrap();
        assert!(!r.text.contains("0×"), "{}", r.text);
        assert!(
            r.text.ends_with("; mmap with default advice pulled the whole file into memory within a run, so its IOPS are not comparable"),
            "{}",
            r.text
        );
        let mut unmeasured = run(Variant::Mmap, 1, 3_000.0);
        unmeasured.device_read_bytes = 0;
        let r = recommend(
            &[run(Variant::Uring, 32, 60_000.0), unmeasured],
            &file(),
            CacheMode::Cold,
        )
        .unwrap();
        assert!(
            r.text.ends_with("mmap with default advice 5.0 %"),
            "{}",
            r.text
        );
    }

    #[test]
    fn runs_that_filled_the_cache_are_not_compared() {
        let mut filled = run(Variant::Mmap, 4, 270_000.0);
        filled.filled_page_cache = true;
        let mut slow = run(Variant::Mmap, 1, 150.0);
        slow.filled_page_cache = true;
        slow.device_read_bytes = 150 * 4096 * 1600;
        let runs = [run(Variant::Uring, 32, 60_000.0), slow, filled];
        let r = recommend(&runs, &file(), CacheMode::Cold).unwrap();
        assert_eq!(r.mmap_fraction, None);
        assert!(
            r.text.ends_with("mmap with default advice read 1600× the bytes it used (1 thread) and pulled the whole file into memory within a run, so its IOPS are not comparable"),
            "{}",
            r.text
        );
    }
}
