//! The library's messages (`tracing` events: an engine fallback, a document shorter than k,
//! duplicate document names) as records of the Python logger `bitsift`.
//!
//! Events can come from any thread, also while the calling thread waits without the GIL, so
//! they are never sent to Python where they happen: a subscriber keeps them in a bounded
//! buffer, and every call into the package hands them to `logging` ([`flush`]) on the calling
//! thread before it returns. Without a logging configuration, Python prints warnings and
//! errors on standard error (its last-resort handler), as the command line does.

use std::collections::VecDeque;
use std::fmt::Write;
use std::sync::Mutex;

use pyo3::prelude::*;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Records kept between two calls at most; older ones are counted and dropped.
const BUFFERED_MAX: usize = 1000;

struct Buffer {
    records: VecDeque<(Level, String)>,
    dropped: u64,
}

static BUFFER: Mutex<Buffer> = Mutex::new(Buffer {
    records: VecDeque::new(),
    dropped: 0,
});

fn buffer() -> std::sync::MutexGuard<'static, Buffer> {
    BUFFER.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps events at INFO and above.
struct Buffered;

/// The `message` of an event, then its other fields as ` key=value`.
#[derive(Default)]
struct Message(String, String);

impl Visit for Message {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.1, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.1, " {}={value:?}", field.name());
        }
    }
}

impl<S: Subscriber> Layer<S> for Buffered {
    fn enabled(&self, metadata: &tracing::Metadata<'_>, _: Context<'_, S>) -> bool {
        *metadata.level() <= Level::INFO
    }

    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let mut message = Message::default();
        event.record(&mut message);
        message.0.push_str(&message.1);
        let mut buffer = buffer();
        if buffer.records.len() >= BUFFERED_MAX {
            buffer.records.pop_front();
            buffer.dropped += 1;
        }
        buffer
            .records
            .push_back((*event.metadata().level(), message.0));
    }
}

/// Makes the buffer the process's `tracing` subscriber, unless one is set already (a host
/// program that embeds Python and logs itself keeps its own).
pub fn install() {
    let subscriber = tracing_subscriber::registry().with(Buffered);
    let _ = tracing::subscriber::set_global_default(subscriber);
}

fn python_level(level: Level) -> u32 {
    match level {
        Level::ERROR => 40,
        Level::WARN => 30,
        Level::INFO => 20,
        Level::DEBUG => 10,
        Level::TRACE => 5,
    }
}

/// Hands the buffered records to the Python logger `bitsift`, in order.
pub fn flush(py: Python<'_>) -> PyResult<()> {
    let (records, dropped) = {
        let mut buffer = buffer();
        if buffer.records.is_empty() && buffer.dropped == 0 {
            return Ok(());
        }
        let dropped = std::mem::take(&mut buffer.dropped);
        (std::mem::take(&mut buffer.records), dropped)
    };
    let logger = py
        .import("logging")?
        .call_method1("getLogger", ("bitsift",))?;
    if dropped > 0 {
        let text = format!("{dropped} earlier messages were dropped");
        logger.call_method1("log", (30, text))?;
    }
    for (level, message) in records {
        logger.call_method1("log", (python_level(level), message))?;
    }
    Ok(())
}
