//! `bitsift-netdelay --listen ADDR --target ADDR --rtt-file FILE`: a TCP proxy that adds a
//! round-trip time to every connection through it, for the remote-index tests and benchmarks
//! on kernels without `sch_netem` (tests/remote/servers.py starts it).
//!
//! Every chunk of bytes is released half the round trip after it arrived, in each direction, so
//! a request and its answer cost one round trip, as on a real link; the first bytes of a new
//! connection wait one more round trip, the TCP handshake they would have cost. Bandwidth is not
//! limited. FILE holds the round-trip time in milliseconds and is read again every 100 ms, so a
//! test can change it while connections are open.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};

/// Bytes read at once from a socket.
const CHUNK: usize = 256 * 1024;
/// Chunks a direction may hold in flight before reading pauses (back-pressure).
const CHUNKS_IN_FLIGHT: usize = 256;

struct Options {
    listen: SocketAddr,
    target: SocketAddr,
    rtt_file: String,
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let (mut listen, mut target, mut rtt_file) = (None, None, None);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--listen" => listen = Some(value),
            "--target" => target = Some(value),
            "--rtt-file" => rtt_file = Some(value),
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
    })
}

/// The one-way delay in microseconds, kept up to date from the round-trip file.
async fn follow_rtt(path: String, one_way_us: Arc<AtomicU64>) {
    loop {
        if let Ok(text) = std::fs::read_to_string(&path) {
            if let Ok(rtt_ms) = text.trim().parse::<f64>() {
                if rtt_ms.is_finite() && rtt_ms >= 0.0 {
                    one_way_us.store((rtt_ms * 500.0) as u64, Ordering::Relaxed);
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Copies `from` to `to`, each chunk released `one_way` after it was read (plus `first_extra`
/// for the first chunk); ends the write side when `from` ends.
async fn forward(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    one_way_us: Arc<AtomicU64>,
    first_extra: bool,
) {
    let (sender, mut receiver) = mpsc::channel::<(Instant, Vec<u8>)>(CHUNKS_IN_FLIGHT);
    let reader = tokio::spawn(async move {
        let mut extra = first_extra;
        let mut buffer = vec![0u8; CHUNK];
        loop {
            let n = from.read(&mut buffer).await.unwrap_or(0);
            let one_way = Duration::from_micros(one_way_us.load(Ordering::Relaxed));
            let delay = if extra { one_way * 3 } else { one_way };
            extra = false;
            let chunk = buffer[..n].to_vec();
            if sender.send((Instant::now() + delay, chunk)).await.is_err() || n == 0 {
                return;
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

async fn serve(client: TcpStream, target: SocketAddr, one_way_us: Arc<AtomicU64>) {
    let Ok(server) = TcpStream::connect(target).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let up = forward(client_read, server_write, one_way_us.clone(), true);
    let down = forward(server_read, client_write, one_way_us, false);
    tokio::join!(up, down);
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
    let one_way_us = Arc::new(AtomicU64::new(0));
    tokio::spawn(follow_rtt(options.rtt_file.clone(), one_way_us.clone()));
    let listener = match TcpListener::bind(options.listen).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("bitsift-netdelay: cannot listen on {}: {e}", options.listen);
            return std::process::ExitCode::FAILURE;
        }
    };
    loop {
        match listener.accept().await {
            Ok((client, _)) => {
                tokio::spawn(serve(client, options.target, one_way_us.clone()));
            }
            Err(e) => eprintln!("bitsift-netdelay: accept: {e}"),
        }
    }
}
