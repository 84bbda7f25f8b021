//! The error of an operation on one file: which file, what was being done, and what the
//! operating system said. Every error type that reads or writes files carries it as one
//! variant (`Io(IoAt)`), so the path and the action are said one way everywhere.

use std::path::PathBuf;

/// An operation on `path` that the operating system refused.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {action}: {source}", path = path.display())]
pub struct IoAt {
    /// The file or directory.
    pub path: PathBuf,
    /// What was being done ("cannot open index", "cannot read checksums").
    pub action: &'static str,
    /// What the operating system said.
    #[source]
    pub source: std::io::Error,
}

impl IoAt {
    /// The error of `action` on `path`.
    pub fn new(path: impl Into<PathBuf>, action: &'static str, source: std::io::Error) -> IoAt {
        IoAt {
            path: path.into(),
            action,
            source,
        }
    }

    /// A function that turns an `std::io::Error` into the error of `action` on `path`, for
    /// `map_err` (and `?` converts it into the caller's error type).
    pub(crate) fn with(
        path: impl Into<PathBuf>,
        action: &'static str,
    ) -> impl FnOnce(std::io::Error) -> IoAt {
        let path = path.into();
        move |source| IoAt::new(path, action, source)
    }
}
