//! The io_uring loop's own defects (issue 12, "Engine code"), each provoked for real: forged
//! completions from the kernel, reads kept in flight on a pipe while signals interrupt the
//! wait, and an engine dropped with a read in flight. Faults inside reads (EINTR, EAGAIN,
//! EIO, short and empty reads) are driven by the fault engine in the conformance suite.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::*;
use crate::io::ReadConsumer;

/// A file whose byte `i` is `i % 251`, and an engine over it; `None` where io_uring is
/// unavailable (the test then says so and passes).
fn engine_over(size: usize, depth: u32) -> Option<(tempfile::TempDir, UringEngine)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data");
    let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    File::create(&path).unwrap().write_all(&bytes).unwrap();
    match UringEngine::open(&[path], depth, DirectIo::Auto) {
        Ok(engine) => Some((dir, engine)),
        Err(e) => {
            eprintln!("skipping: io_uring unavailable here: {e}");
            None
        }
    }
}

fn pages(count: u64) -> Vec<ReadRequest> {
    (0..count)
        .map(|i| ReadRequest {
            file: 0,
            offset: i * 4096,
            len: 4096,
        })
        .collect()
}

/// Reads `requests` and checks every byte.
fn read_checked(engine: &mut UringEngine, requests: &[ReadRequest]) -> Result<usize, IoError> {
    let mut delivered = 0;
    let mut check = |index: usize, bytes: &[u8]| {
        let offset = requests[index].offset as usize;
        assert!(bytes
            .iter()
            .enumerate()
            .all(|(i, &b)| b == ((offset + i) % 251) as u8));
        delivered += 1;
    };
    engine.read_counted(requests, &mut check)?;
    Ok(delivered)
}

#[test]
fn an_unknown_completion_ends_the_batch_with_an_error_naming_it() {
    let Some((_dir, mut engine)) = engine_over(1 << 20, 8) else {
        return;
    };
    engine.ring.push_forged(0xdead_beef_0000_0003);
    let error = read_checked(&mut engine, &pages(64)).expect_err("a forged completion");
    let text = error.to_string();
    assert!(
        text.contains("user_data 0xdeadbeef00000003") && text.contains("matches no read in flight"),
        "{text}"
    );
    assert_eq!(
        engine.ring.in_flight(),
        0,
        "the batch drained before returning"
    );
    assert_eq!(
        read_checked(&mut engine, &pages(64)).unwrap(),
        64,
        "still usable"
    );
}

#[test]
fn a_stale_completion_of_a_read_that_already_landed_is_an_error() {
    let Some((_dir, mut engine)) = engine_over(1 << 20, 8) else {
        return;
    };
    assert_eq!(read_checked(&mut engine, &pages(1)).unwrap(), 1);
    // The same completion again, as a kernel bug or a double reap would deliver it. Slot 0
    // is the first to be used in the next batch: only the sequence number tells them apart.
    let stale = engine.ring.last_tag(0);
    engine.ring.push_forged(stale);
    let error = read_checked(&mut engine, &pages(1)).expect_err("a stale completion");
    assert!(
        error.to_string().contains(&format!("{stale:#x}")),
        "{error}"
    );
    assert_eq!(read_checked(&mut engine, &pages(8)).unwrap(), 8);
}

#[test]
fn a_request_waiting_for_a_buffer_is_asked_for_once() {
    // 64 reads of 512 KiB need 32 MiB; the arena holds 8 MiB, so requests wait for buffers
    // after they were found wanted.
    let Some((_dir, mut engine)) = engine_over(2 << 20, 64) else {
        return;
    };
    let requests: Vec<ReadRequest> = (0..64u64)
        .map(|i| ReadRequest {
            file: 0,
            offset: (i % 4) * (512 << 10),
            len: 512 << 10,
        })
        .collect();
    struct Counting(Vec<u32>, usize);
    impl ReadConsumer for Counting {
        fn wanted(&mut self, request: usize) -> bool {
            self.0[request] += 1;
            true
        }
        fn complete(&mut self, _: usize, bytes: &[u8]) {
            assert_eq!(bytes.len(), 512 << 10);
            self.1 += 1;
        }
    }
    let mut consumer = Counting(vec![0; 64], 0);
    engine.read_counted(&requests, &mut consumer).unwrap();
    assert_eq!(consumer.1, 64);
    assert!(
        consumer.0.iter().all(|&asked| asked == 1),
        "{:?}",
        consumer.0
    );
}

/// Puts a 16-byte read of an empty pipe in flight on slot 0: it lands only when someone
/// writes to the pipe. Returns (read end, write end).
fn pipe_read_in_flight(engine: &mut UringEngine) -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe writes two descriptors into the array.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors are fresh and owned here.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let entry =
        opcode::Read::new(types::Fd(read.as_raw_fd()), engine.arena.as_mut_ptr(), 16).build();
    // SAFETY: the arena outlives the read: the engine waits for it when draining or dropped.
    unsafe { engine.ring.push(0, entry) }.unwrap();
    engine.ring.submit(0).unwrap();
    assert_eq!(engine.ring.in_flight(), 1);
    (read, write)
}

/// [`engine_over`] with a read of a pipe in flight that lands `after` from now: the engine,
/// the pipe's read end (kept open) and the thread that writes.
fn stuck_engine(
    size: usize,
    depth: u32,
    after: Duration,
) -> Option<(
    tempfile::TempDir,
    UringEngine,
    OwnedFd,
    std::thread::JoinHandle<()>,
)> {
    let (dir, mut engine) = engine_over(size, depth)?;
    let (read, write) = pipe_read_in_flight(&mut engine);
    Some((dir, engine, read, write_later(write, after)))
}

fn write_later(write: OwnedFd, after: Duration) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(after);
        let mut pipe = File::from(write);
        pipe.write_all(b"sixteen bytes!!!").unwrap();
    })
}

extern "C" fn ignore_signal(_: libc::c_int) {}

#[test]
fn draining_never_gives_up_on_interrupted_waits() {
    let Some((_dir, mut engine)) = engine_over(64 << 10, 4) else {
        return;
    };
    // A handler without SA_RESTART, so a signal makes io_uring_enter return EINTR.
    // SAFETY: installing a handler that does nothing, with valid pointers.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = ignore_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        assert_eq!(
            libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()),
            0
        );
    }
    let (_read, write) = pipe_read_in_flight(&mut engine);
    // SAFETY: pthread_self has no preconditions.
    let target = unsafe { libc::pthread_self() };
    let signaller = std::thread::spawn(move || {
        for _ in 0..8 {
            std::thread::sleep(Duration::from_millis(15));
            // SAFETY: the target thread is alive: it waits in drain until the write below.
            unsafe { libc::pthread_kill(target, libc::SIGUSR1) };
        }
        std::thread::sleep(Duration::from_millis(15));
        File::from(write).write_all(b"sixteen bytes!!!").unwrap();
    });
    engine.drain().unwrap();
    assert_eq!(
        engine.ring.in_flight(),
        0,
        "drained only once the read landed"
    );
    assert!(
        engine.ring.interrupted_waits >= 1,
        "signals interrupted the wait"
    );
    signaller.join().unwrap();
    assert_eq!(&engine.arena.as_slice()[..16], b"sixteen bytes!!!");
}

#[test]
fn dropping_the_engine_waits_for_the_reads_in_flight() {
    let Some((_dir, engine, read, writer)) = stuck_engine(64 << 10, 4, Duration::from_millis(100))
    else {
        return;
    };
    let started = Instant::now();
    drop(engine);
    assert!(
        started.elapsed() >= Duration::from_millis(80),
        "dropped after {:?}, before the kernel could write into the arena",
        started.elapsed()
    );
    writer.join().unwrap();
    drop(read);
}

#[test]
fn a_new_batch_first_waits_for_reads_left_in_flight() {
    // What a consumer that panicked mid-batch leaves behind.
    let Some((_dir, mut engine, _read, writer)) =
        stuck_engine(1 << 20, 8, Duration::from_millis(50))
    else {
        return;
    };
    assert_eq!(read_checked(&mut engine, &pages(200)).unwrap(), 200);
    writer.join().unwrap();
}

#[test]
fn the_arena_is_never_resized_while_a_read_is_in_flight() {
    let Some((_dir, mut engine, _read, writer)) =
        stuck_engine(64 << 10, 4, Duration::from_millis(50))
    else {
        return;
    };
    let resized = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine.size_arena(&pages(4096));
    }));
    let message = resized.expect_err("resizing must be refused");
    let message = message.downcast_ref::<String>().map_or("", String::as_str);
    assert!(
        message.contains("arena resized while reads are in flight"),
        "{message}"
    );
    engine.drain().unwrap();
    writer.join().unwrap();
}
