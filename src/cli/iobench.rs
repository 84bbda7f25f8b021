//! `bitsift iobench`: clap arguments in, validated [`Options`] out, then one run after the
//! other with a log line each on standard error, and the table or JSON on standard output.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use bitsift::iobench::{
    format_iops, write_table, Bench, CacheMode, Options, Report, Variant, BLOCK_BYTES_DEFAULT,
    FULL_EVERY_DEFAULT,
};
use bitsift::units::{format_bytes, plural};
use clap::Args;

use super::values::BadValue;
use super::{parse_size, Outcome, Ui};

const FILE_DEFAULT: &str = "bitsift-iobench.dat";

/// Output formats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// An aligned table for people
    #[default]
    Table,
    /// JSON for the benchmark suite
    Json,
}

#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  bitsift iobench /data/iobench.dat                  all variants, 4 GiB file, cold cache
  bitsift iobench --variants uring,direct -d 10s     longer runs of the O_DIRECT engines
  bitsift iobench --warm --format json x.dat         page-cache speed, for the suite")]
pub(crate) struct IobenchArgs {
    /// Benchmark file, created with a verifiable pattern when missing [default: bitsift-iobench.dat]
    #[arg(value_name = "FILE", help_heading = "File")]
    file: Option<PathBuf>,
    /// Size of the file to create, e.g. 4G [default: 4G, or the size of an existing FILE]
    #[arg(short, long, value_parser = parse_size, value_name = "SIZE", help_heading = "File")]
    size: Option<u64>,
    /// Delete the file after the runs
    #[arg(long, help_heading = "File")]
    remove: bool,

    /// Variants to run: pread, direct, mmap, mmap-random, uring
    #[arg(
        long,
        value_delimiter = ',',
        value_parser = parse_variant,
        default_value = "pread,direct,mmap,mmap-random,uring",
        help_heading = "Runs"
    )]
    variants: Vec<Variant>,
    /// io_uring queue depths
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,4,16,32,64,128,256",
        value_name = "N,..",
        help_heading = "Runs"
    )]
    depths: Vec<u32>,
    /// Threads of the pread, direct and mmap variants
    #[arg(
        short = 'T',
        long,
        value_delimiter = ',',
        default_value = "1,4,16,32",
        value_name = "N,..",
        help_heading = "Runs"
    )]
    threads: Vec<u32>,
    /// Bytes per read; a multiple of the O_DIRECT alignment
    #[arg(short, long, value_parser = parse_size, default_value_t = BLOCK_BYTES_DEFAULT, value_name = "BYTES", help_heading = "Runs")]
    block_size: u64,
    /// Length of each run, e.g. 3s, 500ms; every variant and depth is one run, and the total
    /// is printed before the first
    #[arg(short, long, value_parser = parse_duration, default_value = "3s", value_name = "TIME", help_heading = "Runs")]
    duration: Duration,
    /// Drop the file's page cache before each run (the default)
    #[arg(long, conflicts_with = "warm", help_heading = "Runs")]
    cold: bool,
    /// Read the file into the page cache first and never drop it
    #[arg(long, help_heading = "Runs")]
    warm: bool,
    /// Verify every byte of one read in N (sector headers of every read are always checked)
    #[arg(long, default_value_t = FULL_EVERY_DEFAULT, value_name = "N", help_heading = "Runs")]
    verify_every: u64,
    /// Seed of the random offsets
    #[arg(long, default_value_t = 1, help_heading = "Runs")]
    seed: u64,

    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table, help_heading = "Output")]
    format: Format,
}

fn parse_variant(text: &str) -> Result<Variant, BadValue> {
    Variant::from_name(text.trim()).ok_or_else(|| {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        BadValue(format!(
            "{text:?}: unknown variant (expected {})",
            names.join(", ")
        ))
    })
}

/// A duration as people read it: `500 ms`, `3 s`, `1 min 30 s`.
fn seconds(duration: Duration) -> String {
    let total = duration.as_secs_f64();
    if total < 1.0 {
        format!("{:.0} ms", total * 1e3)
    } else if total < 60.0 {
        format!("{} s", (total * 10.0).round() / 10.0)
    } else {
        let whole = total.round() as u64;
        format!("{} min {} s", whole / 60, whole % 60)
    }
}

/// Parses `3`, `3s`, `1.5s`, `500ms`.
fn parse_duration(text: &str) -> Result<Duration, BadValue> {
    let trimmed = text.trim();
    let (number, scale) = if let Some(ms) = trimmed.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(s) = trimmed.strip_suffix('s') {
        (s, 1.0)
    } else {
        (trimmed, 1.0)
    };
    let seconds = number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|value| value * scale)
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
        .ok_or_else(|| format!("{text:?} is not a duration from 1ms to 3600s (e.g. 3s, 500ms)"))?;
    Ok(Duration::from_secs_f64(seconds))
}

pub(crate) fn run(args: IobenchArgs, ui: Ui) -> Result<Outcome> {
    if let Some(url) = args.file.as_ref().filter(|f| bitsift::io::is_remote(f)) {
        return run_remote(&args, &url.to_string_lossy(), ui);
    }
    let options = Options {
        path: args.file.unwrap_or_else(|| PathBuf::from(FILE_DEFAULT)),
        size: args.size,
        variants: args.variants,
        queue_depths: args.depths,
        threads: args.threads,
        block_bytes: args.block_size,
        duration: args.duration,
        cache: if args.warm {
            CacheMode::Warm
        } else {
            CacheMode::Cold
        },
        full_every: args.verify_every,
        seed: args.seed,
        remove: args.remove,
        progress: ui.progress,
    };
    let log = |line: String| {
        if !ui.quiet {
            eprintln!("bitsift: {line}");
        }
    };
    let bench = Bench::prepare(options)?;
    let file = bench.file();
    log(format!(
        "iobench: {} {} ({} on {}){}",
        if file.created { "created" } else { "using" },
        file.path.display(),
        format_bytes(file.size),
        file.filesystem,
        if args.remove {
            "; it will be removed at the end"
        } else {
            "; kept afterwards (--remove deletes it)"
        }
    ));
    for notice in bench.notices() {
        log(format!("notice: {notice}"));
    }
    let runs = bench.runs().len() as u64;
    log(format!(
        "iobench: {} of {} each: about {} in all, plus dropping the cache between runs",
        plural(runs, "run"),
        seconds(args.duration),
        seconds(args.duration * runs as u32)
    ));
    let outcome = run_all(&bench, &log);
    let cleanup = bench.cleanup();
    let report = outcome?;
    cleanup?;
    let mut stdout = std::io::stdout().lock();
    match args.format {
        Format::Table => write_table(&report, &mut stdout)?,
        Format::Json => {
            serde_json::to_writer_pretty(&mut stdout, &report)?;
            writeln!(stdout)?;
        }
    }
    stdout.flush()?;
    Ok(Outcome::Success)
}

fn run_all(bench: &Bench, log: &dyn Fn(String)) -> Result<Report> {
    let specs = bench.runs();
    let mut runs = Vec::with_capacity(specs.len());
    for (index, spec) in specs.iter().enumerate() {
        let run = bench.run(*spec)?;
        log(format!(
            "iobench: [{}/{}] {}: {} IOPS, p50 {:.0} µs, p99 {:.0} µs, {} from the device",
            index + 1,
            specs.len(),
            spec.label(),
            format_iops(run.iops),
            run.latency_us.p50,
            run.latency_us.p99,
            format_bytes(run.device_read_bytes)
        ));
        runs.push(run);
    }
    Ok(bench.report(runs))
}

/// Request sizes measured on a remote file besides `--block-size`: a row page, a merged
/// read, a large merged read.
#[cfg(feature = "remote")]
const REMOTE_SIZES: [u64; 2] = [64 << 10, 1 << 20];

/// `iobench URL`: range requests at each depth and size (see [`bitsift::io::remote::bench`]).
#[cfg(feature = "remote")]
fn run_remote(args: &IobenchArgs, url: &str, ui: Ui) -> Result<Outcome> {
    let log = |line: String| {
        if !ui.quiet {
            eprintln!("bitsift: {line}");
        }
    };
    let depths: Vec<usize> = args.depths.iter().map(|&d| d.max(1) as usize).collect();
    let mut sizes = vec![args.block_size];
    sizes.extend(REMOTE_SIZES.iter().filter(|&&s| s != args.block_size));
    let runs = (depths.len() * sizes.len()) as u32;
    log(format!(
        "iobench: {url}: {} of {} each, about {} in all",
        plural(runs as u64, "run"),
        seconds(args.duration),
        seconds(args.duration * runs)
    ));
    let report =
        bitsift::io::remote::bench::run(url, &depths, &sizes, args.duration, args.seed, &log)?;
    let mut stdout = std::io::stdout().lock();
    match args.format {
        Format::Json => serde_json::to_writer_pretty(&mut stdout, &report)?,
        Format::Table => {
            writeln!(stdout, "{url} ({})", format_bytes(report.file_bytes))?;
            writeln!(
                stdout,
                "{:>6} {:>9} {:>11} {:>10} {:>9} {:>9} {:>7}",
                "depth", "size", "requests/s", "MB/s", "p50 ms", "p99 ms", "errors"
            )?;
            for run in &report.runs {
                writeln!(
                    stdout,
                    "{:>6} {:>9} {:>11} {:>10.1} {:>9.1} {:>9.1} {:>7}",
                    run.depth,
                    format_bytes(run.size),
                    format_iops(run.requests_per_second),
                    run.bytes_per_second / 1e6,
                    run.p50_ms,
                    run.p99_ms,
                    run.errors
                )?;
            }
            let advice = &report.recommendation;
            writeln!(
                stdout,
                "recommended: --merge-gap {}K --remote-depth {} ({})",
                advice.merge_gap >> 10,
                advice.depth,
                advice.reason
            )?;
        }
    }
    writeln!(stdout)?;
    stdout.flush()?;
    Ok(Outcome::Success)
}

#[cfg(not(feature = "remote"))]
fn run_remote(_: &IobenchArgs, _: &str, _: Ui) -> Result<Outcome> {
    anyhow::bail!(bitsift::io::source::REMOTE_DISABLED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("3s").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn durations_print() {
        assert_eq!(seconds(Duration::from_millis(200)), "200 ms");
        assert_eq!(seconds(Duration::from_secs(3)), "3 s");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5 s");
        assert_eq!(seconds(Duration::from_secs(90)), "1 min 30 s");
    }

    #[test]
    fn variants_parse() {
        assert_eq!(parse_variant("mmap-random").unwrap(), Variant::MmapRandom);
        assert!(parse_variant("aio")
            .unwrap_err()
            .to_string()
            .contains("uring"));
    }
}
