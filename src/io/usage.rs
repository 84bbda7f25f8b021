//! What the process costs the machine: page faults and CPU time (`getrusage`), bytes read from
//! the device (`/proc/self/io`), and the memory the system has available. Queries report the
//! difference of two snapshots.

use std::time::Duration;

/// A snapshot of the process's resource counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Page faults that needed I/O.
    pub major_faults: u64,
    /// Page faults served from memory.
    pub minor_faults: u64,
    /// User CPU time.
    pub user: Duration,
    /// System CPU time.
    pub system: Duration,
    /// Bytes this process caused to be fetched from storage (`read_bytes` of
    /// `/proc/self/io`; 0 where unavailable).
    pub device_read_bytes: u64,
    /// Peak resident set size in bytes.
    pub peak_rss_bytes: u64,
}

impl Usage {
    /// Current counters of the whole process (all threads).
    pub fn now() -> Usage {
        // SAFETY: rusage is plain data; getrusage fills it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: valid out-pointer.
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        let time = |tv: libc::timeval| {
            Duration::from_secs(tv.tv_sec as u64) + Duration::from_micros(tv.tv_usec as u64)
        };
        Usage {
            major_faults: ru.ru_majflt as u64,
            minor_faults: ru.ru_minflt as u64,
            user: time(ru.ru_utime),
            system: time(ru.ru_stime),
            device_read_bytes: proc_read_bytes().unwrap_or(0),
            peak_rss_bytes: ru.ru_maxrss as u64 * 1024,
        }
    }

    /// Counters accumulated since `earlier` (peak RSS is the current peak).
    pub(crate) fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            major_faults: self.major_faults.saturating_sub(earlier.major_faults),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
            user: self.user.saturating_sub(earlier.user),
            system: self.system.saturating_sub(earlier.system),
            device_read_bytes: self
                .device_read_bytes
                .saturating_sub(earlier.device_read_bytes),
            peak_rss_bytes: self.peak_rss_bytes,
        }
    }
}

fn proc_read_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/io").ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix("read_bytes:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Memory this process may still use, in bytes: `MemAvailable` of `/proc/meminfo`, or less
/// when the process's memory cgroup (v1 or v2), or one of its ancestors, leaves less room
/// below its limit (the page cache counts against a cgroup's limit: files that fit the machine
/// may not fit the cgroup).
pub(crate) fn memory_available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let machine = text
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)?;
    Some(match cgroup_room_bytes() {
        Some(room) => machine.min(room),
        None => machine,
    })
}

/// The least room below its limit of the process's memory cgroup and its ancestors.
fn cgroup_room_bytes() -> Option<u64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut room: Option<u64> = None;
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let (root, limit_file, usage_file) = if controllers.split(',').any(|c| c == "memory") {
            (
                "/sys/fs/cgroup/memory",
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        } else if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max", "memory.current")
        } else {
            continue;
        };
        let mut directory = std::path::PathBuf::from(root).join(path.trim_start_matches('/'));
        loop {
            let read = |name: &str| std::fs::read_to_string(directory.join(name)).ok();
            let limit = read(limit_file).and_then(|t| t.trim().parse::<u64>().ok());
            let usage = read(usage_file).and_then(|t| t.trim().parse::<u64>().ok());
            if let (Some(limit), Some(usage)) = (limit, usage) {
                let left = limit.saturating_sub(usage);
                room = Some(room.map_or(left, |r| r.min(left)));
            }
            if !directory.pop()
                || !directory.starts_with(root)
                || directory == std::path::Path::new(root)
            {
                break;
            }
        }
    }
    room
}

/// Current resident set size in bytes (`/proc/self/statm`).
#[cfg(any(feature = "server", feature = "iobench", feature = "synth"))]
pub(crate) fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no memory-safety preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * page.max(1) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_move_forward() {
        // A fresh anonymous mapping: its pages are faulted in when touched (a `Vec` may
        // reuse heap memory other tests already touched, and take no fault).
        let mut map = memmap2::MmapMut::map_anon(8 << 20).unwrap();
        let before = Usage::now();
        map.fill(1);
        assert_eq!(map.iter().map(|&b| b as u64).sum::<u64>(), 8 << 20);
        let after = Usage::now().since(&before);
        assert!(after.minor_faults > 0, "touching 8 MiB takes minor faults");
        assert!(memory_available_bytes().unwrap_or(1) > 0);
        assert!(resident_bytes().unwrap_or(1) > 0);
    }
}
