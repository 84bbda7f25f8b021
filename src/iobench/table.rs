//! The report as an aligned table for people, followed by what was verified, which frugal disk
//! profile the device resembles, and the recommendation.

use std::io::{self, Write};

use super::report::Report;
use super::run::RunReport;
use super::CacheMode;
use crate::units::format_bytes;

const HEADERS: [&str; 13] = [
    "variant",
    "depth",
    "IOPS",
    "MB/s",
    "p50_us",
    "p99_us",
    "p999_us",
    "max_us",
    "major_flt",
    "minor_flt",
    "device_read",
    "amplif",
    "sys_cpu_s",
];

fn cells(run: &RunReport) -> [String; 13] {
    let depth = if run.variant.threaded() {
        format!("{} thr", run.depth)
    } else {
        format!("QD {}", run.depth)
    };
    let latency = |us: f64| {
        if us >= 100.0 {
            format!("{us:.0}")
        } else {
            format!("{us:.1}")
        }
    };
    [
        run.variant.name().to_string(),
        depth,
        format!(
            "{:.0}{}",
            run.iops,
            if run.filled_page_cache { "*" } else { "" }
        ),
        format!("{:.1}", run.mb_per_s),
        latency(run.latency_us.p50),
        latency(run.latency_us.p99),
        latency(run.latency_us.p999),
        latency(run.latency_us.max),
        run.major_faults.to_string(),
        run.minor_faults.to_string(),
        format_bytes(run.device_read_bytes),
        format!("{:.2}", run.amplification()),
        format!("{:.2}", run.system_cpu_s),
    ]
}

/// Writes the table, the notes on method and verification, and the recommendation.
pub fn write_table(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let rows: Vec<[String; 13]> = report.runs.iter().map(cells).collect();
    let mut widths = HEADERS.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |out: &mut dyn Write, row: &[&str]| -> io::Result<()> {
        let mut text = String::new();
        for (column, (cell, width)) in row.iter().zip(widths).enumerate() {
            if column > 0 {
                text.push_str("  ");
            }
            if column < 2 {
                text += &format!("{cell:<width$}");
            } else {
                text += &format!("{cell:>width$}");
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(out, &HEADERS)?;
    for row in &rows {
        line(out, &row.each_ref().map(String::as_str))?;
    }
    writeln!(out)?;
    write_notes(report, out)
}

fn write_notes(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let cache = match report.cache {
        CacheMode::Cold => "cold cache (POSIX_FADV_DONTNEED before each run)",
        CacheMode::Warm => "warm cache (file read into the page cache once, never dropped)",
    };
    let kept = if report.file_kept {
        "kept; --remove deletes it"
    } else {
        "removed"
    };
    writeln!(
        out,
        "file: {} ({} on {}, {kept}); {}-byte reads at uniform random aligned offsets, {:.1} s per run, {cache}",
        report.file,
        format_bytes(report.file_bytes),
        report.filesystem,
        report.block_bytes,
        report.duration_s
    )?;
    writeln!(
        out,
        "depth: reads in flight (QD, uring) or threads (thr); latency: per read, submission to completion; amplif: device bytes / bytes delivered"
    )?;
    let reads: u64 = report.runs.iter().map(|r| r.reads).sum();
    let sectors: u64 = report.runs.iter().map(|r| r.sectors_verified).sum();
    let full: u64 = report.runs.iter().map(|r| r.reads_verified_full).sum();
    writeln!(
        out,
        "verified: the header of every {}-byte sector of all {reads} reads ({sectors} sectors); every byte of 1 read in {} ({full} reads)",
        report.sector_bytes, report.full_verify_every
    )?;
    if report.runs.iter().any(|r| r.filled_page_cache) {
        writeln!(
            out,
            "*: this run fetched >= 90 % of the file from the device (read-around), so the whole file sat in the page cache and later reads hit memory; an index larger than RAM cannot do that, so the recommendation ignores it"
        )?;
    }
    for notice in &report.notices {
        writeln!(out, "notice: {notice}")?;
    }
    writeln!(out, "this device resembles: {}", report.resembles.text)?;
    match &report.recommendation {
        Some(recommendation) => writeln!(out, "recommendation {}", recommendation.text),
        None => writeln!(
            out,
            "recommendation: none (run the uring, direct or pread variants to get one)"
        ),
    }
}
