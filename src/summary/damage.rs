//! What is wrong with a summaries file, before its path is known: [`Damage`] (its bytes are
//! not a summaries file's) and [`Mismatch`] (sound, but of another index). The decoders
//! answer with these; [`super::SummaryError`] adds the path and what to do.

/// Bytes that are not a sound summaries file; the text says what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Damage(pub String);

impl From<String> for Damage {
    fn from(detail: String) -> Damage {
        Damage(detail)
    }
}

impl From<&str> for Damage {
    fn from(detail: &str) -> Damage {
        Damage(detail.to_string())
    }
}

/// Sound summaries that describe another index; the text says what differs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Mismatch(pub String);

impl From<String> for Mismatch {
    fn from(detail: String) -> Mismatch {
        Mismatch(detail)
    }
}
