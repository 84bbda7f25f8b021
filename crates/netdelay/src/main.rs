//! `bitsift-netdelay --listen ADDR --target ADDR --rtt-file FILE [--rate-file FILE]`: a TCP
//! proxy that adds a round-trip time, and optionally a bandwidth limit, to every connection
//! through it, for the remote-index tests and benchmarks on kernels without `sch_netem`
//! (tests/remote/servers.py starts it).
//!
//! Every chunk of bytes is released half the round trip after it arrived, in each direction, so
//! a request and its answer cost one round trip, as on a real link; the first bytes of a new
//! connection wait one more round trip, the TCP handshake they would have cost. The round-trip
//! FILE holds the time in milliseconds and is read again every 100 ms, so a test can change it
//! while connections are open.
//!
//! Without `--rate-file` (or while it holds 0) bandwidth is not limited. With it, the file holds
//! the link's rate in bits per second (re-read every 100 ms like the round trip), and the proxy
//! models one link of that rate in each direction, shared by ALL its connections, as a real
//! link is shared by the parallel range requests of a query: a chunk is serialised onto the
//! link when both it and the link are ready (after the chunks every connection queued before
//! it), takes `bytes × 8 / rate` to do so, and arrives half a round trip later. Chunks are then
//! at most 16 KiB, so that the pacing is smooth (1.3 ms a chunk at 100 Mbit/s). This is the
//! bottleneck queue of `tc netem delay … rate …`, with an unbounded queue: nothing is dropped.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};

/// Bytes read at once from a socket.
const CHUNK: usize = 256 * 1024;
/// The largest chunk put on a rate-limited link at once: small, so that connections sharing
/// the link interleave finely and a reader sees bytes arrive steadily, not in bursts.
const PACED_CHUNK: usize = 16 * 1024;
/// Chunks a direction may hold in flight before reading pauses (back-pressure).
const CHUNKS_IN_FLIGHT: usize = 256;
/// How often the round-trip and rate files are read again.
const FOLLOW_EVERY: Duration = Duration::from_millis(100);

struct Options {
    listen: SocketAddr,
    target: SocketAddr,
    rtt_file: String,
    rate_file: Option<String>,
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let (mut listen, mut target, mut rtt_file, mut rate_file) = (None, None, None, None);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--listen" => listen = Some(value),
            "--target" => target = Some(value),
            "--rtt-file" => rtt_file = Some(value),
            "--rate-file" => rate_file = Some(value),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    let address = |value: Option<String>, name: &str| -> Result<SocketAddr, String> {
        let value = value.ok_or_else(|| format!("--{name} is required"))?;
        value.parse().map_err(|e| format!("--{name} {value}: {e}"))
    };
    Ok(Options {
        listen: address(listen, "listen")?,
        target: address(target, "target")?,
        rtt_file: rtt_file.ok_or("--rtt-file is required")?,
        rate_file,
    })
}

/// One direction of the emulated link, shared by every connection through the proxy.
struct Link {
    /// When the link has finished serialising the last chunk reserved on it.
    free_at: Mutex<Instant>,
}

impl Link {
    fn new() -> Link {
        Link {
            free_at: Mutex::new(Instant::now()),
        }
    }

    /// Reserves the link for `bytes` ready to leave at `ready`, at `rate_bps` bits per second
    /// (0: unlimited), after every chunk reserved before; returns when the chunk's last byte
    /// has left, i.e. `max(ready, free) + bytes × 8 / rate`.
    fn transmit(&self, ready: Instant, bytes: usize, rate_bps: u64) -> Instant {
        if rate_bps == 0 {
            return ready;
        }
        let nanos = bytes as u128 * 8 * 1_000_000_000 / u128::from(rate_bps);
        let serialise = Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX));
        let mut free = self.free_at.lock().unwrap_or_else(PoisonError::into_inner);
        *free = (*free).max(ready) + serialise;
        *free
    }
}

/// The link's conditions, shared by every connection: the one-way delay and the rate (kept up
/// to date from their files by [`follow_files`]) and the two directions.
struct Conditions {
    one_way_us: AtomicU64,
    rate_bps: AtomicU64,
    /// Client to server: the requests.
    up: Link,
    /// Server to client: the answers.
    down: Link,
}

impl Conditions {
    fn new(one_way: Duration, rate_bps: u64) -> Conditions {
        Conditions {
            one_way_us: AtomicU64::new(u64::try_from(one_way.as_micros()).unwrap_or(u64::MAX)),
            rate_bps: AtomicU64::new(rate_bps),
            up: Link::new(),
            down: Link::new(),
        }
    }

    fn one_way(&self) -> Duration {
        Duration::from_micros(self.one_way_us.load(Ordering::Relaxed))
    }

    fn rate_bps(&self) -> u64 {
        self.rate_bps.load(Ordering::Relaxed)
    }
}

/// A non-negative number read from `path`, or None while the file is missing or holds
/// something else (the value in force is then kept).
fn read_number(path: &str) -> Option<f64> {
    let value = std::fs::read_to_string(path)
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()?;
    (value.is_finite() && value >= 0.0).then_some(value)
}

/// Keeps the one-way delay and the rate up to date from the round-trip file (milliseconds)
/// and the rate file (bits per second).
async fn follow_files(rtt_file: String, rate_file: Option<String>, conditions: Arc<Conditions>) {
    loop {
        if let Some(rtt_ms) = read_number(&rtt_file) {
            conditions
                .one_way_us
                .store((rtt_ms * 500.0) as u64, Ordering::Relaxed);
        }
        if let Some(rate) = rate_file.as_deref().and_then(read_number) {
            conditions.rate_bps.store(rate as u64, Ordering::Relaxed);
        }
        tokio::time::sleep(FOLLOW_EVERY).await;
    }
}

/// Copies `from` to `to` over `link`: each chunk released half a round trip after it left the
/// link (at once when the rate is unlimited; the first chunk after the handshake's extra round
/// trip when `first_extra`); ends the write side when `from` ends.
async fn forward(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    conditions: Arc<Conditions>,
    up: bool,
    first_extra: bool,
) {
    let (sender, mut receiver) = mpsc::channel::<(Instant, Vec<u8>)>(CHUNKS_IN_FLIGHT);
    let reader = tokio::spawn(async move {
        let link = if up { &conditions.up } else { &conditions.down };
        let mut extra = first_extra;
        let mut buffer = vec![0u8; CHUNK];
        loop {
            let n = from.read(&mut buffer).await.unwrap_or(0);
            let arrived = Instant::now();
            let one_way = conditions.one_way();
            let ready = if extra {
                arrived + one_way * 2
            } else {
                arrived
            };
            extra = false;
            if n == 0 {
                let _ = sender.send((ready + one_way, Vec::new())).await;
                return;
            }
            let rate = conditions.rate_bps();
            let piece = if rate == 0 { n } else { PACED_CHUNK };
            for part in buffer[..n].chunks(piece) {
                let left = link.transmit(ready, part.len(), rate);
                if sender.send((left + one_way, part.to_vec())).await.is_err() {
                    return;
                }
            }
        }
    });
    while let Some((due, bytes)) = receiver.recv().await {
        sleep_until(due).await;
        if bytes.is_empty() || to.write_all(&bytes).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
    reader.abort();
}

async fn serve(client: TcpStream, target: SocketAddr, conditions: Arc<Conditions>) {
    let Ok(server) = TcpStream::connect(target).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let up = forward(client_read, server_write, conditions.clone(), true, true);
    let down = forward(server_read, client_write, conditions, false, false);
    tokio::join!(up, down);
}

/// Accepts connections on `listener` forever, each proxied to `target` under `conditions`.
async fn proxy(listener: TcpListener, target: SocketAddr, conditions: Arc<Conditions>) {
    loop {
        match listener.accept().await {
            Ok((client, _)) => {
                tokio::spawn(serve(client, target, conditions.clone()));
            }
            Err(e) => eprintln!("bitsift-netdelay: accept: {e}"),
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("bitsift-netdelay: {message}");
            return std::process::ExitCode::from(2);
        }
    };
    let conditions = Arc::new(Conditions::new(Duration::ZERO, 0));
    tokio::spawn(follow_files(
        options.rtt_file.clone(),
        options.rate_file.clone(),
        conditions.clone(),
    ));
    let listener = match TcpListener::bind(options.listen).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("bitsift-netdelay: cannot listen on {}: {e}", options.listen);
            return std::process::ExitCode::FAILURE;
        }
    };
    proxy(listener, options.target, conditions).await;
    std::process::ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that reads each connection to its end, then answers the number of bytes it
    /// read (8 bytes, little-endian) and closes.
    async fn counting_server() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut buffer = vec![0u8; 64 * 1024];
                    let mut total = 0u64;
                    while let Ok(n) = socket.read(&mut buffer).await {
                        if n == 0 {
                            break;
                        }
                        total += n as u64;
                    }
                    let _ = socket.write_all(&total.to_le_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        address
    }

    /// A proxy in front of `target` with the given round trip and rate; its address.
    async fn start_proxy(target: SocketAddr, rtt: Duration, rate_bps: u64) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let conditions = Arc::new(Conditions::new(rtt / 2, rate_bps));
        tokio::spawn(proxy(listener, target, conditions));
        address
    }

    /// Sends `bytes` through `proxy` to the counting server; the count it answered.
    async fn push(proxy: SocketAddr, bytes: usize) -> u64 {
        let mut socket = TcpStream::connect(proxy).await.expect("connect");
        socket.write_all(&vec![7u8; bytes]).await.expect("write");
        socket.shutdown().await.expect("shutdown");
        let mut answer = [0u8; 8];
        socket.read_exact(&mut answer).await.expect("answer");
        u64::from_le_bytes(answer)
    }

    #[test]
    fn the_link_serialises_chunks_one_after_another() {
        let link = Link::new();
        let t0 = Instant::now() + Duration::from_secs(1);
        let ms = Duration::from_millis;
        // 8 Mbit/s: 1,000 bytes take 1 ms.
        assert_eq!(link.transmit(t0, 1000, 8_000_000), t0 + ms(1));
        // Ready at the same time, it waits for the first.
        assert_eq!(link.transmit(t0, 1000, 8_000_000), t0 + ms(2));
        // Ready after the link is free again: no wait.
        assert_eq!(link.transmit(t0 + ms(5), 2000, 8_000_000), t0 + ms(7));
        // Unlimited: released when ready, and the link's clock does not move.
        assert_eq!(link.transmit(t0, 1000, 0), t0);
        assert_eq!(link.transmit(t0, 1000, 8_000_000), t0 + ms(8));
    }

    #[tokio::test]
    async fn a_connection_gets_the_rate() {
        // 4 MiB at 16 Mbit/s: 2.1 s. Only a lower bound: a loaded machine is slower.
        let proxy = start_proxy(counting_server().await, Duration::ZERO, 16_000_000).await;
        let started = std::time::Instant::now();
        assert_eq!(push(proxy, 4 << 20).await, 4 << 20);
        let elapsed = started.elapsed();
        assert!(elapsed >= Duration::from_millis(2000), "{elapsed:?}");
    }

    #[tokio::test]
    async fn connections_share_the_rate() {
        // Two connections of 2 MiB each: alone at 16 Mbit/s each would take 1.05 s; sharing
        // the link, the two together take 2.1 s.
        let proxy = start_proxy(counting_server().await, Duration::ZERO, 16_000_000).await;
        let started = std::time::Instant::now();
        let (a, b) = tokio::join!(push(proxy, 2 << 20), push(proxy, 2 << 20));
        let elapsed = started.elapsed();
        assert_eq!((a, b), (2 << 20, 2 << 20));
        assert!(elapsed >= Duration::from_millis(2000), "{elapsed:?}");
    }

    #[tokio::test]
    async fn unlimited_keeps_the_round_trip() {
        // No rate: a request and its answer cost the handshake's round trip and their own.
        let rtt = Duration::from_millis(100);
        let proxy = start_proxy(counting_server().await, rtt, 0).await;
        let started = std::time::Instant::now();
        assert_eq!(push(proxy, 1000).await, 1000);
        let elapsed = started.elapsed();
        assert!(elapsed >= rtt * 2, "{elapsed:?}");
    }
}
