//! Which frugal disk profile a device resembles: a local NVMe/SSD, a cloud block volume
//! (~3,000 IOPS) or a hard disk (~200 IOPS), the profiles of `bench/frugal.sh` (issue 29).
//!
//! Such disks are limited by read requests per second, not bytes, so the judgement rests on
//! what iobench measures: the random-read rate at the best depth of any variant that read the
//! device ([`COUNTED`]), with the rate at depth 1 given beside it. Runs that filled the page
//! cache do not count, nor does a warm cache (memory speed), nor reads larger than
//! [`BLOCK_BYTES_JUDGED`] (their rate is bandwidth, not requests). iobench has no sequential
//! run, so bandwidth does not enter the judgement.
//!
//! The boundaries sit between the profiles, on a log scale: below [`HARD_DISK_IOPS_MAX`]
//! (about the geometric mean of 200 and 3,000) a hard disk; below [`CLOUD_IOPS_MAX`] a cloud
//! block volume (provisioned volumes go from 3,000 to about 16,000 IOPS); above, a local
//! drive (a SATA SSD does tens of thousands of 4 KiB reads a second at depth, NVMe far more).

use super::recommend::format_iops;
use super::run::RunReport;
use super::{CacheMode, Variant};

/// Peak random-read IOPS below which a device is judged to be a hard disk.
pub(crate) const HARD_DISK_IOPS_MAX: f64 = 800.0;
/// Peak random-read IOPS below which a device is judged to be a cloud block volume.
pub(crate) const CLOUD_IOPS_MAX: f64 = 20_000.0;
/// Largest read size whose rate is judged as requests.
pub(crate) const BLOCK_BYTES_JUDGED: u64 = 64 << 10;
/// The variants whose reads reach the device one request per read (default-advice mmap reads
/// around each fault, so its rate is not a request rate).
pub(crate) const COUNTED: [Variant; 4] = [
    Variant::Uring,
    Variant::Direct,
    Variant::Pread,
    Variant::MmapRandom,
];

/// A kind of device, named after the profile of `bench/frugal.sh` that imitates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceKind {
    /// A local NVMe or SSD drive (profile `none`: no throttle).
    LocalSsd,
    /// A cloud block volume, ~3,000 IOPS and 125 MiB/s (profile `cloud`).
    CloudVolume,
    /// A hard disk, ~200 IOPS and 150 MiB/s (profile `hdd`).
    HardDisk,
}

impl DeviceKind {
    /// The kind whose profile is nearest to a peak of `iops` random reads a second.
    pub(crate) fn from_peak_iops(iops: f64) -> DeviceKind {
        if iops < HARD_DISK_IOPS_MAX {
            DeviceKind::HardDisk
        } else if iops < CLOUD_IOPS_MAX {
            DeviceKind::CloudVolume
        } else {
            DeviceKind::LocalSsd
        }
    }

    /// How the report names it.
    pub(crate) fn description(self) -> &'static str {
        match self {
            DeviceKind::LocalSsd => "a local NVMe/SSD",
            DeviceKind::CloudVolume => "a cloud block volume (~3,000 IOPS)",
            DeviceKind::HardDisk => "a hard disk (~200 IOPS)",
        }
    }

    /// The `bench/frugal.sh` profile that imitates it.
    pub(crate) fn profile(self) -> &'static str {
        match self {
            DeviceKind::LocalSsd => "none",
            DeviceKind::CloudVolume => "cloud",
            DeviceKind::HardDisk => "hdd",
        }
    }

    /// Whether read requests, rather than bytes, set the time of a cold query.
    pub(crate) fn request_bound(self) -> bool {
        self != DeviceKind::LocalSsd
    }
}

/// The judgement, with the figures behind it (`resembles` in the JSON report).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Resemblance {
    /// The kind, or `None` when the runs cannot tell (see `text`).
    pub kind: Option<DeviceKind>,
    /// The `bench/frugal.sh` profile of that kind.
    pub profile: Option<&'static str>,
    /// Whether read requests, rather than bytes, set the time of a cold query.
    pub request_bound: Option<bool>,
    /// The highest random-read rate of a counted run.
    pub peak_iops: Option<f64>,
    /// The variant of that run.
    pub peak_variant: Option<Variant>,
    /// Its depth (reads in flight or threads).
    pub peak_depth: Option<u32>,
    /// The highest rate of a counted run at depth 1, when one ran.
    pub depth1_iops: Option<f64>,
    /// The judgement as one line, without the leading "this device resembles: ".
    pub text: String,
}

impl Resemblance {
    fn not_judged(why: &str) -> Resemblance {
        Resemblance {
            kind: None,
            profile: None,
            request_bound: None,
            peak_iops: None,
            peak_variant: None,
            peak_depth: None,
            depth1_iops: None,
            text: format!("not judged ({why})"),
        }
    }
}

/// Judges the device from `runs` made with `block_bytes` per read from a `cache` that was
/// cold or warm.
pub(crate) fn resemble(runs: &[RunReport], block_bytes: u64, cache: CacheMode) -> Resemblance {
    if cache == CacheMode::Warm {
        return Resemblance::not_judged("a warm cache measures memory, not the device");
    }
    if block_bytes > BLOCK_BYTES_JUDGED {
        return Resemblance::not_judged(&format!(
            "{}-byte reads measure bandwidth; the profiles are told apart by small random reads, e.g. --block-size 4K",
            block_bytes
        ));
    }
    let counted: Vec<&RunReport> = runs
        .iter()
        .filter(|r| COUNTED.contains(&r.variant) && !r.filled_page_cache && r.reads > 0)
        .collect();
    let Some(peak) = counted.iter().max_by(|a, b| a.iops.total_cmp(&b.iops)) else {
        return Resemblance::not_judged(
            "no run read the device one request per read: run uring, direct, pread or mmap-random",
        );
    };
    let depth1 = counted
        .iter()
        .filter(|r| r.depth == 1)
        .map(|r| r.iops)
        .max_by(f64::total_cmp);
    let kind = DeviceKind::from_peak_iops(peak.iops);
    let depth = if peak.variant.threaded() {
        format!("{} thr", peak.depth)
    } else {
        format!("QD {}", peak.depth)
    };
    let mut text = format!(
        "{}: {} IOPS at best ({}, {depth})",
        kind.description(),
        format_iops(peak.iops),
        peak.variant.name()
    );
    if let Some(iops) = depth1 {
        text += &format!(", {} at depth 1", format_iops(iops));
    }
    text += &format!(", random {} reads", block_name(block_bytes));
    if kind.request_bound() {
        text += &format!(
            "; requests, not bytes, bound a cold query here: about read_requests (--stats) / {} s",
            format_iops(peak.iops)
        );
    }
    Resemblance {
        kind: Some(kind),
        profile: Some(kind.profile()),
        request_bound: Some(kind.request_bound()),
        peak_iops: Some(peak.iops),
        peak_variant: Some(peak.variant),
        peak_depth: Some(peak.depth),
        depth1_iops: depth1,
        text,
    }
}

/// `4 KiB`, `64 KiB`, or bytes when not a whole number of KiB.
fn block_name(bytes: u64) -> String {
    if bytes % 1024 == 0 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes}-byte")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(variant: Variant, depth: u32, iops: f64) -> RunReport {
        RunReport::sample(variant, depth, iops)
    }

    fn judged(runs: &[RunReport]) -> Resemblance {
        resemble(runs, 4096, CacheMode::Cold)
    }

    #[test]
    fn this_machines_disk_is_a_local_drive() {
        // BENCHMARKS.md, "Device": the virtio disk of these machines, unthrottled.
        let runs = [
            run(Variant::Direct, 1, 32_996.0),
            run(Variant::Direct, 32, 94_473.0),
            run(Variant::MmapRandom, 16, 83_725.0),
            run(Variant::Uring, 1, 28_837.0),
            run(Variant::Uring, 256, 148_081.0),
        ];
        let r = judged(&runs);
        assert_eq!(r.kind, Some(DeviceKind::LocalSsd));
        assert_eq!(r.profile, Some("none"));
        assert_eq!(r.request_bound, Some(false));
        assert_eq!(
            (r.peak_variant, r.peak_depth),
            (Some(Variant::Uring), Some(256))
        );
        assert_eq!(r.depth1_iops, Some(32_996.0));
        assert_eq!(
            r.text,
            "a local NVMe/SSD: 148.1k IOPS at best (uring, QD 256), 33.0k at depth 1, random 4 KiB reads"
        );
    }

    #[test]
    fn the_cloud_profile_is_a_cloud_volume() {
        // The same disk under bench/frugal.sh cloud (3,000 IOPS): flat from depth 1 to 32.
        let runs = [
            run(Variant::Direct, 1, 3_085.0),
            run(Variant::Direct, 16, 3_099.0),
            run(Variant::Uring, 1, 2_939.0),
            run(Variant::Uring, 32, 2_988.0),
            run(Variant::MmapRandom, 1, 3_050.0),
        ];
        let r = judged(&runs);
        assert_eq!(r.kind, Some(DeviceKind::CloudVolume));
        assert_eq!(r.profile, Some("cloud"));
        assert_eq!(r.request_bound, Some(true));
        assert_eq!(r.peak_iops, Some(3_099.0));
        assert!(
            r.text.starts_with(
                "a cloud block volume (~3,000 IOPS): 3.10k IOPS at best (direct, 16 thr), 3.08k at depth 1, random 4 KiB reads; requests, not bytes, bound a cold query here"
            ),
            "{}",
            r.text
        );
        assert!(r.text.ends_with("/ 3.10k s"), "{}", r.text);
    }

    #[test]
    fn the_hdd_profile_is_a_hard_disk() {
        let runs = [
            run(Variant::Uring, 1, 120.0),
            run(Variant::Uring, 32, 199.0),
        ];
        let r = judged(&runs);
        assert_eq!(r.kind, Some(DeviceKind::HardDisk));
        assert_eq!(r.profile, Some("hdd"));
        assert!(
            r.text.starts_with(
                "a hard disk (~200 IOPS): 199 IOPS at best (uring, QD 32), 120 at depth 1"
            ),
            "{}",
            r.text
        );
    }

    #[test]
    fn boundaries_lie_between_the_profiles() {
        assert_eq!(DeviceKind::from_peak_iops(150.0), DeviceKind::HardDisk);
        assert_eq!(DeviceKind::from_peak_iops(799.0), DeviceKind::HardDisk);
        assert_eq!(DeviceKind::from_peak_iops(800.0), DeviceKind::CloudVolume);
        assert_eq!(
            DeviceKind::from_peak_iops(16_000.0),
            DeviceKind::CloudVolume
        );
        assert_eq!(DeviceKind::from_peak_iops(20_000.0), DeviceKind::LocalSsd);
        assert_eq!(DeviceKind::from_peak_iops(1.5e6), DeviceKind::LocalSsd);
        // A cloud volume with a slow first request: depth 1 does not decide, the peak does.
        let r = judged(&[
            run(Variant::Uring, 1, 600.0),
            run(Variant::Uring, 64, 3_000.0),
        ]);
        assert_eq!(r.kind, Some(DeviceKind::CloudVolume));
    }

    #[test]
    fn runs_that_did_not_measure_requests_do_not_count() {
        let mut filled = run(Variant::Pread, 16, 250_000.0);
        filled.filled_page_cache = true;
        let read_around = run(Variant::Mmap, 1, 90_000.0);
        let r = judged(&[filled, read_around, run(Variant::Direct, 4, 2_900.0)]);
        assert_eq!(r.kind, Some(DeviceKind::CloudVolume));
        assert_eq!(r.depth1_iops, None);
        assert!(!r.text.contains("at depth 1"), "{}", r.text);

        let r = judged(&[run(Variant::Mmap, 1, 17.0)]);
        assert_eq!(r.kind, None);
        assert!(
            r.text.starts_with("not judged (no run read the device"),
            "{}",
            r.text
        );
    }

    #[test]
    fn a_warm_cache_or_large_reads_are_not_judged() {
        let runs = [run(Variant::Uring, 32, 500_000.0)];
        let warm = resemble(&runs, 4096, CacheMode::Warm);
        assert_eq!(warm.kind, None);
        assert!(warm.text.contains("warm cache"), "{}", warm.text);
        let large = resemble(&[run(Variant::Uring, 32, 120.0)], 1 << 20, CacheMode::Cold);
        assert_eq!(large.kind, None);
        assert!(large.text.contains("--block-size 4K"), "{}", large.text);
        let medium = resemble(
            &[run(Variant::Uring, 32, 1_900.0)],
            64 << 10,
            CacheMode::Cold,
        );
        assert_eq!(medium.kind, Some(DeviceKind::CloudVolume));
        assert!(
            medium.text.contains("random 64 KiB reads"),
            "{}",
            medium.text
        );
    }
}
