//! Two lanes for searches, weighted by their work: small requests (a gene, a few genes) and
//! panels. Each lane has its own turns (searches running at once) and its own bounded queue,
//! and the search workers take small requests first, one worker taking nothing else when
//! there are two or more ([`super::dispatch`]); so a single gene is answered while panels
//! run instead of queueing behind them in arrival order (issue 34). A request that finds its
//! lane's turns taken and its queue full is answered 503 with `Retry-After` at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Query bases a request may have at most to go in the small lane.
pub(crate) const SMALL_BASES_MAX: usize = 50_000;

/// Which lane a request goes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Up to [`SMALL_BASES_MAX`] bases.
    Small,
    /// More.
    Panel,
}

impl Lane {
    /// The lane of a request of `bases` query bases.
    pub(crate) fn of(bases: usize) -> Lane {
        if bases <= SMALL_BASES_MAX {
            Lane::Small
        } else {
            Lane::Panel
        }
    }

    /// Its name in metrics and logs.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Lane::Small => "small",
            Lane::Panel => "panel",
        }
    }
}

/// One lane's turns and queue.
#[derive(Debug)]
struct Gate {
    turns: Arc<Semaphore>,
    turns_max: usize,
    waiting: AtomicUsize,
    waiting_max: usize,
}

/// Both lanes' turns and queues.
#[derive(Debug)]
pub(crate) struct Lanes {
    small: Gate,
    panel: Gate,
}

impl Lanes {
    /// `running` searches at once in the small lane and half as many (at least one) in the
    /// panel lane, each with a queue of `queued`.
    pub(crate) fn new(running: usize, queued: usize) -> Lanes {
        let gate = |turns: usize| Gate {
            turns: Arc::new(Semaphore::new(turns)),
            turns_max: turns,
            waiting: AtomicUsize::new(0),
            waiting_max: queued,
        };
        Lanes {
            small: gate(running.max(1)),
            panel: gate((running / 2).max(1)),
        }
    }

    fn gate(&self, lane: Lane) -> &Gate {
        match lane {
            Lane::Small => &self.small,
            Lane::Panel => &self.panel,
        }
    }

    /// A turn in `lane`, waited for at most `patience` when the lane's queue has room;
    /// `None` when there is none (the caller answers 503).
    pub(crate) async fn admit(
        &self,
        lane: Lane,
        patience: Duration,
    ) -> Option<OwnedSemaphorePermit> {
        let gate = self.gate(lane);
        if let Ok(turn) = gate.turns.clone().try_acquire_owned() {
            return Some(turn);
        }
        let waiting = gate.waiting.fetch_add(1, Ordering::Relaxed);
        let turn = if waiting < gate.waiting_max {
            tokio::time::timeout(patience, gate.turns.clone().acquire_owned())
                .await
                .ok()
                .and_then(Result::ok)
        } else {
            None
        };
        gate.waiting.fetch_sub(1, Ordering::Relaxed);
        turn
    }

    /// Searches running and waiting in `lane` now.
    pub(crate) fn load(&self, lane: Lane) -> (usize, usize) {
        let gate = self.gate(lane);
        let running = gate.turns_max - gate.turns.available_permits();
        (running, gate.waiting.load(Ordering::Relaxed))
    }
}

impl Lanes {
    /// The lanes' load and the clients with requests in flight, in the Prometheus text
    /// format, appended to `out`.
    pub(crate) fn render(&self, clients_active: usize, out: &mut String) {
        use std::fmt::Write;
        let gauges = [
            (
                "running",
                "Searches running, by lane (small requests, panels).",
            ),
            ("waiting", "Searches waiting for a turn, by lane."),
        ];
        for (which, (name, help)) in gauges.into_iter().enumerate() {
            let _ = writeln!(
                out,
                "# HELP bitsift_lane_{name} {help}\n# TYPE bitsift_lane_{name} gauge"
            );
            for lane in [Lane::Small, Lane::Panel] {
                let (running, waiting) = self.load(lane);
                let value = if which == 0 { running } else { waiting };
                let _ = writeln!(
                    out,
                    "bitsift_lane_{name}{{lane=\"{}\"}} {value}",
                    lane.label()
                );
            }
        }
        let _ = writeln!(out, "# HELP bitsift_clients_active Clients (API keys, else addresses) with search requests in flight.\n# TYPE bitsift_clients_active gauge\nbitsift_clients_active {clients_active}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_cannot_take_the_turns_of_small_requests() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let lanes = Lanes::new(2, 0);
            let wait = Duration::from_millis(10);
            let panel = lanes.admit(Lane::Panel, wait).await.expect("a panel turn");
            assert!(
                lanes.admit(Lane::Panel, wait).await.is_none(),
                "one panel at a time"
            );
            let small: Vec<_> = [
                lanes.admit(Lane::Small, wait).await,
                lanes.admit(Lane::Small, wait).await,
            ]
            .into_iter()
            .map(|turn| turn.expect("small turns are their own"))
            .collect();
            assert_eq!(lanes.load(Lane::Small), (2, 0));
            assert_eq!(lanes.load(Lane::Panel), (1, 0));
            drop((panel, small));
            assert_eq!(lanes.load(Lane::Panel), (0, 0));
        });
        assert_eq!(Lane::of(SMALL_BASES_MAX), Lane::Small);
        assert_eq!(Lane::of(SMALL_BASES_MAX + 1), Lane::Panel);
    }
}
