//! `iobench` for a remote file: random range requests at several depths and sizes, each for
//! a fixed time, with their latency and throughput, and the read shape they recommend (the
//! merge gap: bytes one round trip is worth; the depth: the smallest that gives nearly the
//! best request rate).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::client::{spawn, RemoteObject};

/// One run: `depth` requests of `size` bytes in flight for a while.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RemoteRun {
    /// Requests in flight.
    pub depth: usize,
    /// Bytes per request.
    pub size: u64,
    /// Requests completed.
    pub requests: u64,
    /// Requests completed per second.
    pub requests_per_second: f64,
    /// Bytes received per second.
    pub bytes_per_second: f64,
    /// Median request latency, milliseconds.
    pub p50_ms: f64,
    /// 99th percentile latency, milliseconds.
    pub p99_ms: f64,
    /// Requests that failed.
    pub errors: u64,
}

/// What the runs recommend for this link.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Recommendation {
    /// Merge reads up to this many bytes apart (`query --merge-gap`).
    pub merge_gap: u64,
    /// Keep this many requests in flight (`--remote-depth`).
    pub depth: usize,
    /// Why, in words.
    pub reason: String,
}

/// Every run and the recommendation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RemoteReport {
    /// The file measured.
    pub url: String,
    /// Its size.
    pub file_bytes: u64,
    /// The runs, by size then depth.
    pub runs: Vec<RemoteRun>,
    /// The recommended read shape.
    pub recommendation: Recommendation,
}

/// Measures `url` at every depth and size, each for `duration`; `seed` places the requests.
pub fn run(
    url: &str,
    depths: &[usize],
    sizes: &[u64],
    duration: Duration,
    seed: u64,
    log: &dyn Fn(String),
) -> std::io::Result<RemoteReport> {
    let object = RemoteObject::open(url)?;
    let mut runs = Vec::new();
    for &size in sizes {
        for &depth in depths {
            let size = size.min(object.size).max(1);
            let run = measure(&object, depth.max(1), size, duration, seed)?;
            log(format!(
                "iobench: depth {depth}, {size} bytes: {:.0} requests/s, {:.1} MB/s, p50 {:.1} ms, p99 {:.1} ms",
                run.requests_per_second,
                run.bytes_per_second / 1e6,
                run.p50_ms,
                run.p99_ms
            ));
            runs.push(run);
        }
    }
    let recommendation = recommend(&runs);
    Ok(RemoteReport {
        url: url.to_string(),
        file_bytes: object.size,
        runs,
        recommendation,
    })
}

/// One run; see [`RemoteRun`].
fn measure(
    object: &Arc<RemoteObject>,
    depth: usize,
    size: u64,
    duration: Duration,
    seed: u64,
) -> std::io::Result<RemoteRun> {
    let (send, receive) = crossbeam_channel::unbounded::<(Vec<Duration>, u64)>();
    let started = Instant::now();
    let until = started + duration;
    let slots = (object.size - size) / size + 1;
    for worker in 0..depth {
        let (object, send) = (object.clone(), send.clone());
        let mut state = seed ^ (worker as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        spawn(async move {
            let (mut latencies, mut errors) = (Vec::new(), 0u64);
            while Instant::now() < until {
                state = splitmix(state);
                let offset = (state % slots) * size;
                let begun = Instant::now();
                match object.fetch(offset..offset + size).await {
                    Ok(_) => latencies.push(begun.elapsed()),
                    Err(_) => errors += 1,
                }
            }
            let _ = send.send((latencies, errors));
        })?;
    }
    drop(send);
    let (mut latencies, mut errors) = (Vec::new(), 0);
    for (worker, failed) in receive.iter() {
        latencies.extend(worker);
        errors += failed;
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort();
    let quantile = |q: f64| {
        latencies
            .get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    let requests = latencies.len() as u64;
    Ok(RemoteRun {
        depth,
        size,
        requests,
        requests_per_second: requests as f64 / elapsed,
        bytes_per_second: (requests * size) as f64 / elapsed,
        p50_ms: quantile(0.5),
        p99_ms: quantile(0.99),
        errors,
    })
}

fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The depth is the smallest that reaches 90 % of the best request rate of the smallest
/// requests; the merge gap is the bytes one request is worth at that depth (the best
/// bandwidth times the latency of a request, divided by the requests in flight), within
/// 16 KiB to 8 MiB.
fn recommend(runs: &[RemoteRun]) -> Recommendation {
    let smallest = runs.iter().map(|r| r.size).min().unwrap_or(4096);
    let small: Vec<&RemoteRun> = runs.iter().filter(|r| r.size == smallest).collect();
    let best_rate = small
        .iter()
        .map(|r| r.requests_per_second)
        .fold(0.0, f64::max);
    let depth = small
        .iter()
        .filter(|r| r.requests_per_second >= 0.9 * best_rate)
        .map(|r| r.depth)
        .min()
        .unwrap_or(crate::io::REMOTE_DEPTH_DEFAULT as usize);
    let bandwidth = runs.iter().map(|r| r.bytes_per_second).fold(0.0, f64::max);
    let round_trip_ms = small
        .iter()
        .min_by_key(|r| r.depth)
        .map_or(0.0, |r| r.p50_ms);
    let worth = (bandwidth * round_trip_ms / 1e3 / depth.max(1) as f64) as u64;
    let merge_gap = worth.clamp(16 << 10, 8 << 20).next_power_of_two();
    Recommendation {
        merge_gap,
        depth,
        reason: format!(
            "a request takes {round_trip_ms:.1} ms, the link gives {:.1} MB/s and {depth} requests in flight give 90 % of the best rate: a request is worth {} bytes",
            bandwidth / 1e6,
            worth
        ),
    }
}
