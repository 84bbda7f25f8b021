//! Locks that outlive a panic.

use std::sync::{Mutex, MutexGuard};

/// `mutex`'s value, also after a panic of another holder: every value bitsift keeps behind a
/// mutex is replaced or updated whole, so a holder that panicked left it consistent.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
