//! Test-only crash points. Setting `BITSIFT_TEST_CRASH_AT=NAME` makes a writer abort at the
//! named point (no destructor runs, as under `kill -9`); `NAME:pause` makes it sleep there so
//! a test can kill it. The crash tests (`tests/collection.rs`) use them to show that the
//! manifest is the commit point. Never set them outside tests.

/// The environment variable naming a crash point.
pub(crate) const CRASH_VARIABLE: &str = "BITSIFT_TEST_CRASH_AT";

/// Aborts (or pauses) here when [`CRASH_VARIABLE`] names `point`.
pub(crate) fn point(point: &str) {
    let Some(value) = std::env::var_os(CRASH_VARIABLE) else {
        return;
    };
    let value = value.to_string_lossy();
    if value == point {
        std::process::abort();
    }
    if value.strip_suffix(":pause") == Some(point) {
        eprintln!("bitsift: paused at test crash point {point}");
        std::thread::sleep(std::time::Duration::from_secs(60));
        std::process::abort();
    }
}

/// Damages the file at `path` here when [`CRASH_VARIABLE`] is `POINT:damage`: flips one bit
/// in the middle of it, as a bad disk or a stray write would, so a test can show that the
/// checks after this point catch it. Never set outside tests.
pub(crate) fn damage(point: &str, path: &std::path::Path) {
    let Some(value) = std::env::var_os(CRASH_VARIABLE) else {
        return;
    };
    if value.to_string_lossy().strip_suffix(":damage") != Some(point) {
        return;
    }
    let Ok(mut bytes) = std::fs::read(path) else {
        return;
    };
    let middle = bytes.len() / 2;
    if let Some(byte) = bytes.get_mut(middle) {
        *byte ^= 0x04;
    }
    let _ = std::fs::write(path, &bytes);
}
