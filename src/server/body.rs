//! Request bodies, read within the server's bounds: a size limit checked against
//! `Content-Length` before any byte is read and counted again while streaming, a server-wide
//! memory budget that every body is charged against *before* its bytes are buffered, and a
//! deadline for the whole body.
//!
//! Without these, 16 concurrent 250 MB uploads took 4.75 GB of resident memory, a client
//! sending one byte a minute held a request forever, and a dropped upload was counted as
//! "too large" (issue 12). A request that does not fit in what is left of the budget is
//! turned away at once with 503 and `Retry-After`; it never waits holding a connection and
//! memory.
//!
//! A body is charged [`CHARGE_PER_BYTE`] times its buffer size: the body and the queries parsed
//! from it are both held for a moment. The charge ([`BodyLease`]) is held until the response.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use http_body_util::BodyExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Bytes of budget charged per byte of body buffer (the body, then its parsed form).
pub(crate) const CHARGE_PER_BYTE: usize = 2;

/// Memory for request bodies, shared by all requests.
#[derive(Debug)]
pub(crate) struct BodyBudget {
    semaphore: Arc<Semaphore>,
    bytes: usize,
}

impl BodyBudget {
    /// A budget of `bytes`.
    pub(crate) fn new(bytes: usize) -> BodyBudget {
        let bytes = bytes.min(Semaphore::MAX_PERMITS);
        BodyBudget {
            semaphore: Arc::new(Semaphore::new(bytes)),
            bytes,
        }
    }

    /// The whole budget in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Bytes not charged to any request now.
    #[cfg(test)]
    pub(crate) fn available(&self) -> usize {
        self.semaphore.available_permits()
    }
}

/// A request's charge against the [`BodyBudget`]; given back when dropped.
#[derive(Debug, Default)]
pub(crate) struct BodyLease {
    permit: Option<OwnedSemaphorePermit>,
}

impl BodyLease {
    /// Charges `buffer_bytes` more buffer, or fails without waiting.
    fn grow(&mut self, budget: &BodyBudget, buffer_bytes: usize) -> Result<(), BodyError> {
        let over = || BodyError::OverBudget {
            budget: budget.bytes,
        };
        let charge = buffer_bytes.checked_mul(CHARGE_PER_BYTE).ok_or_else(over)?;
        let charge = u32::try_from(charge).map_err(|_| over())?;
        if charge == 0 {
            return Ok(());
        }
        let permit = budget
            .semaphore
            .clone()
            .try_acquire_many_owned(charge)
            .map_err(|_| over())?;
        match &mut self.permit {
            Some(held) => held.merge(permit),
            None => self.permit = Some(permit),
        }
        Ok(())
    }

    /// Bytes charged.
    pub(crate) fn bytes(&self) -> usize {
        self.permit.as_ref().map_or(0, |p| p.num_permits())
    }
}

/// Bounds of one request body.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyLimits {
    /// Largest body accepted, in bytes.
    pub bytes_max: usize,
    /// Time allowed for the whole body to arrive.
    pub timeout: Duration,
}

/// Why a body was not read.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub(crate) enum BodyError {
    /// Larger than the limit (from `Content-Length`, or counted while streaming).
    #[error("the request body is larger than {limit} bytes; send fewer or shorter sequences")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// Not enough of the body memory budget is free now.
    #[error("the server is receiving too many request bodies at once ({budget} bytes of body memory in use); retry in a moment")]
    OverBudget {
        /// The whole budget in bytes.
        budget: usize,
    },
    /// The body did not arrive in time.
    #[error("the request body did not arrive within {seconds} s; send it in one go")]
    TimedOut {
        /// The time allowed.
        seconds: f64,
    },
    /// The connection failed or closed before the body was complete.
    #[error("the request body was cut off: {cause}")]
    Aborted {
        /// What the connection reported.
        cause: String,
    },
}

/// Reads `body` (of `declared` bytes when the request gave `Content-Length`) within `limits`,
/// charging its buffer to `budget` before the bytes are buffered.
pub(crate) async fn read_body(
    mut body: Body,
    declared: Option<u64>,
    limits: BodyLimits,
    budget: &BodyBudget,
) -> Result<(Vec<u8>, BodyLease), BodyError> {
    let too_large = BodyError::TooLarge {
        limit: limits.bytes_max,
    };
    let mut lease = BodyLease::default();
    let mut buffer = Vec::new();
    if let Some(declared) = declared {
        let declared = usize::try_from(declared)
            .ok()
            .filter(|&n| n <= limits.bytes_max)
            .ok_or(too_large.clone())?;
        lease.grow(budget, declared)?;
        buffer.reserve_exact(declared);
    }
    let deadline = Instant::now() + limits.timeout;
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => {
                return Err(BodyError::TimedOut {
                    seconds: limits.timeout.as_secs_f64(),
                })
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(BodyError::Aborted {
                    cause: e.to_string(),
                })
            }
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers carry nothing we use
        };
        let length = buffer.len() + data.len();
        if length > limits.bytes_max {
            return Err(too_large);
        }
        if length > buffer.capacity() {
            // Grow as a vector would (doubling), but charge the budget first.
            let capacity = length
                .max(buffer.capacity().saturating_mul(2))
                .min(limits.bytes_max);
            lease.grow(budget, capacity - buffer.capacity())?;
            buffer.reserve_exact(capacity - buffer.len());
        }
        buffer.extend_from_slice(&data);
    }
    debug_assert!(lease.bytes() >= buffer.len() * CHARGE_PER_BYTE || buffer.is_empty());
    Ok((buffer, lease))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Bytes;

    fn limits(bytes_max: usize) -> BodyLimits {
        BodyLimits {
            bytes_max,
            timeout: Duration::from_secs(5),
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    }

    type Sender = http_body_util::channel::Sender<Bytes>;

    /// A body fed through a channel: no length known in advance, and it stalls while the
    /// sender is alive and silent.
    fn channel_body() -> (Sender, Body) {
        let (sender, body) = http_body_util::Channel::<Bytes>::new(1);
        (sender, Body::new(body))
    }

    /// A streamed body of `chunks` chunks of `size` bytes.
    fn chunked(chunks: usize, size: usize) -> Body {
        let (mut sender, body) = channel_body();
        tokio::spawn(async move {
            for _ in 0..chunks {
                if sender
                    .send_data(Bytes::from(vec![b'A'; size]))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        });
        body
    }

    #[test]
    fn declared_length_over_the_limit_is_refused_before_reading() {
        runtime().block_on(async {
            let budget = BodyBudget::new(1 << 20);
            // The body never ends: only the declared length can answer.
            let (_sender, body) = channel_body();
            let error = read_body(body, Some(5000), limits(4096), &budget)
                .await
                .unwrap_err();
            assert_eq!(error, BodyError::TooLarge { limit: 4096 });
            assert_eq!(budget.available(), 1 << 20);
        });
    }

    #[test]
    fn streamed_body_is_cut_at_the_limit_and_charged_while_read() {
        runtime().block_on(async {
            let budget = BodyBudget::new(1 << 20);
            let error = read_body(chunked(100, 1000), None, limits(10_000), &budget)
                .await
                .unwrap_err();
            assert_eq!(error, BodyError::TooLarge { limit: 10_000 });
            assert_eq!(budget.available(), 1 << 20, "the charge is given back");

            let (bytes, lease) = read_body(chunked(9, 1000), None, limits(10_000), &budget)
                .await
                .unwrap();
            assert_eq!(bytes.len(), 9000);
            assert!(lease.bytes() >= 9000 * CHARGE_PER_BYTE);
            assert_eq!(budget.available(), (1 << 20) - lease.bytes());
            drop(lease);
            assert_eq!(budget.available(), 1 << 20);
        });
    }

    #[test]
    fn bodies_beyond_the_budget_are_refused_without_waiting() {
        runtime().block_on(async {
            let budget = BodyBudget::new(10_000);
            let (_first, lease) = read_body(
                Body::from(vec![b'A'; 4000]),
                Some(4000),
                limits(5000),
                &budget,
            )
            .await
            .unwrap();
            assert_eq!(lease.bytes(), 8000);
            let (_sender, pending) = channel_body();
            let error = read_body(pending, Some(2000), limits(5000), &budget)
                .await
                .unwrap_err();
            assert_eq!(error, BodyError::OverBudget { budget: 10_000 });
            drop(lease);
            let (_again, _lease) = read_body(
                Body::from(vec![b'A'; 2000]),
                Some(2000),
                limits(5000),
                &budget,
            )
            .await
            .unwrap();
        });
    }

    #[test]
    fn a_stalled_body_times_out() {
        runtime().block_on(async {
            let budget = BodyBudget::new(1 << 20);
            let (_sender, stalled) = channel_body();
            let limits = BodyLimits {
                bytes_max: 1000,
                timeout: Duration::from_millis(50),
            };
            let error = read_body(stalled, Some(100), limits, &budget)
                .await
                .unwrap_err();
            assert_eq!(error, BodyError::TimedOut { seconds: 0.05 });
            assert_eq!(budget.available(), 1 << 20);
        });
    }
}
