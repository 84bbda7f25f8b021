//! [`Window`]: how many requests one server (an HTTP host, an S3 bucket) has in flight from
//! this process at once, adapted to how it answers, as TCP adapts its congestion window.
//!
//! A small file server (one thread a connection, a listen queue of 5) cannot take hundreds
//! of connections at once: the connections it cannot queue wait for SYN retransmissions
//! (1 s, 3 s, 7 s, …), and 800 genes took 124 s instead of 0.27 s (issue 34). So the window
//! starts small ([`START`]) and grows while the server answers as fast as it did unloaded:
//! by one request per answer at first (doubling every round trip, TCP's slow start), then by
//! one per round trip. An answer whose head came much later than the fastest of the recent
//! answers ([`LATENCY_FACTOR`] × it plus [`LATENCY_SLACK`]) shrinks it by a quarter; a
//! failure (an error status, a timeout, a refused or reset connection, after the client's
//! own retries) halves it and ends the slow start. Only one decrease per round trip: requests sent before a decrease cannot cause
//! another. The window never exceeds the per-host cap (the configured requests in flight,
//! `--remote-depth`), shared by every engine and reader of the process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// Requests in flight to a server before it has answered any.
pub(crate) const START: usize = 8;
/// An answer whose head took more than this many times the fastest seen …
const LATENCY_FACTOR: u32 = 2;
/// … plus this, says the server is queueing requests: the window shrinks. More than the
/// 40 ms a small server's answers wait for a delayed ACK (its head and body sent apart).
const LATENCY_SLACK: Duration = Duration::from_millis(50);
/// Answers over which the fastest is taken (the last complete period's and this one's).
const PERIOD: u32 = 64;

/// The requests in flight to one server; see the module documentation.
#[derive(Debug)]
pub(crate) struct Window {
    state: Mutex<State>,
    freed: Notify,
}

#[derive(Debug)]
struct State {
    /// Requests allowed in flight (fractional: it grows by `1 / limit` an answer).
    limit: f64,
    /// The per-host cap.
    cap: usize,
    in_flight: usize,
    /// The fastest answer head of the last [`PERIOD`] answers: the server's latency
    /// unloaded, as it is now (a server whose every answer waits for a delayed ACK, 40 ms,
    /// is not queueing).
    fastest_before: Option<Duration>,
    /// The fastest of the answers of the period under way, and their count.
    fastest_now: Option<Duration>,
    answers_now: u32,
    /// Decreases so far; a permit taken before the last one causes no other.
    epoch: u64,
    /// Whether the window still doubles every round trip (no decrease yet).
    slow_start: bool,
}

/// What became of a request.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Signal {
    /// Its answer's head came after this long.
    Answered(Duration),
    /// No usable answer: an error status, a timeout, a refused or reset connection.
    Failed,
}

/// One request's place in a [`Window`]; gives it back when dropped (as neither a success
/// nor a failure when [`Permit::finish`] was not called: a cancelled request).
#[derive(Debug)]
pub(crate) struct Permit {
    window: Arc<Window>,
    epoch: u64,
    started: Instant,
    signal: Option<Signal>,
}

impl Permit {
    /// Time since the request was let go.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Records what became of the request; the place is given back when the permit drops.
    pub(crate) fn finish(&mut self, signal: Signal) {
        self.signal = Some(signal);
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.window.release(self.epoch, self.signal);
    }
}

impl Window {
    /// A window of at most `cap` requests in flight.
    pub(crate) fn new(cap: usize) -> Arc<Window> {
        Arc::new(Window {
            state: Mutex::new(State::new(cap)),
            freed: Notify::new(),
        })
    }

    /// Requests allowed in flight now.
    pub(crate) fn limit(&self) -> usize {
        lock(&self.state).allowed()
    }

    /// Waits for a place in the window.
    pub(crate) async fn acquire(self: &Arc<Self>) -> Permit {
        loop {
            let notified = self.freed.notified();
            tokio::pin!(notified);
            {
                let mut state = lock(&self.state);
                if state.in_flight < state.allowed() {
                    state.in_flight += 1;
                    return Permit {
                        window: self.clone(),
                        epoch: state.epoch,
                        started: Instant::now(),
                        signal: None,
                    };
                }
                // Registered before the lock is let go: a release after it wakes this task.
                notified.as_mut().enable();
            }
            notified.await;
        }
    }

    fn release(&self, epoch: u64, signal: Option<Signal>) {
        let free = {
            let mut state = lock(&self.state);
            state.record(signal, epoch);
            state.allowed().saturating_sub(state.in_flight)
        };
        for _ in 0..free {
            self.freed.notify_one();
        }
    }
}

impl State {
    fn allowed(&self) -> usize {
        (self.limit as usize).clamp(1, self.cap)
    }

    fn new(cap: usize) -> State {
        let cap = cap.max(1);
        State {
            limit: START.min(cap) as f64,
            cap,
            in_flight: 0,
            fastest_before: None,
            fastest_now: None,
            answers_now: 0,
            epoch: 0,
            slow_start: true,
        }
    }

    /// One request of those in flight ended so (`None`: cancelled), its permit taken at
    /// `epoch`.
    fn record(&mut self, signal: Option<Signal>, epoch: u64) {
        // Grown only while at least half used: a window a process never fills proves nothing.
        let in_use = self.in_flight * 2 >= self.allowed();
        self.in_flight -= 1;
        match signal {
            Some(Signal::Answered(latency)) => self.answered(latency, epoch, in_use),
            Some(Signal::Failed) => self.decrease(epoch, 0.5),
            None => {}
        }
    }

    /// An answer whose head took `latency`: the window grows (when `in_use`) unless the
    /// server has started queueing.
    fn answered(&mut self, latency: Duration, epoch: u64, in_use: bool) {
        let now = self.fastest_now.map_or(latency, |f| f.min(latency));
        self.fastest_now = Some(now);
        let fastest = self.fastest_before.map_or(now, |f| f.min(now));
        self.answers_now += 1;
        if self.answers_now >= PERIOD {
            self.fastest_before = self.fastest_now.take();
            self.answers_now = 0;
        }
        if latency > fastest * LATENCY_FACTOR + LATENCY_SLACK {
            self.decrease(epoch, 0.75);
        } else if in_use {
            let step = if self.slow_start {
                1.0
            } else {
                1.0 / self.limit
            };
            self.limit = (self.limit + step).min(self.cap as f64);
        }
    }

    /// Shrinks the window by `factor`, once per round trip; a failure (`factor` 0.5) also
    /// ends the slow start.
    fn decrease(&mut self, epoch: u64, factor: f64) {
        if epoch != self.epoch {
            return;
        }
        self.epoch += 1;
        self.slow_start &= factor > 0.5;
        self.limit = (self.limit * factor).max(1.0);
    }
}

/// The window of the server or bucket `store` (see [`super::location::RemoteUrl::store`]),
/// made on first use with `cap` requests in flight at most.
pub(crate) fn window_for(store: &str, cap: usize) -> Arc<Window> {
    static WINDOWS: OnceLock<Mutex<HashMap<String, Arc<Window>>>> = OnceLock::new();
    let mut windows = lock(WINDOWS.get_or_init(Default::default));
    windows
        .entry(store.to_string())
        .or_insert_with(|| Window::new(cap))
        .clone()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAST: Signal = Signal::Answered(Duration::from_millis(1));

    /// A round trip of a full window, every answer `signal`.
    fn round(state: &mut State, signal: Signal) {
        let epoch = state.epoch;
        state.in_flight = state.allowed();
        while state.in_flight > 0 {
            state.record(Some(signal), epoch);
        }
    }

    #[test]
    fn grows_while_answers_are_fast_up_to_the_cap() {
        let mut state = State::new(256);
        assert_eq!(state.allowed(), START);
        round(&mut state, FAST);
        assert!(state.allowed() > START + START / 4, "{}", state.allowed());
        for _ in 0..20 {
            round(&mut state, FAST);
        }
        assert_eq!(state.allowed(), 256);
        // A request or two at a time proves nothing about a larger window.
        let mut idle = State::new(256);
        for _ in 0..100 {
            idle.in_flight = 1;
            idle.record(Some(FAST), idle.epoch);
        }
        assert_eq!(idle.allowed(), START);
    }

    #[test]
    fn slow_answers_and_failures_shrink_it_once_a_round() {
        let mut state = State::new(256);
        for _ in 0..5 {
            round(&mut state, FAST);
        }
        let before = state.limit;
        // A whole round of answers a second late: one decrease by a quarter.
        round(&mut state, Signal::Answered(Duration::from_secs(1)));
        assert_eq!(state.limit, before * 0.75);
        round(&mut state, Signal::Failed);
        assert_eq!(state.limit, before * 0.75 * 0.5);
        // Past slow start it grows by about one a round.
        let before = state.allowed();
        round(&mut state, FAST);
        round(&mut state, FAST);
        assert!((before + 1..=before + 2).contains(&state.allowed()));
        for _ in 0..20 {
            round(&mut state, Signal::Failed);
        }
        assert_eq!(state.allowed(), 1, "never below one");
    }

    #[test]
    fn a_full_window_makes_requests_wait_for_a_place() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let window = Window::new(2);
            let first = window.acquire().await;
            let _second = window.acquire().await;
            let waiting = tokio::spawn({
                let window = window.clone();
                async move { window.acquire().await.elapsed() }
            });
            tokio::time::sleep(Duration::from_millis(20)).await;
            assert!(!waiting.is_finished(), "a third request waits");
            drop(first);
            tokio::time::timeout(Duration::from_secs(5), waiting)
                .await
                .expect("a released place lets the waiting request go")
                .unwrap();
        });
    }
}
