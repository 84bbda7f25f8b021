//! What is wrong with a summaries file, before its path is known: [`Damage`] (its bytes are
//! not a summaries file's) and [`Mismatch`] (sound, but of another index). The decoders
//! answer with these; [`super::SummaryError`] adds the path and what to do.

/// Bytes that are not a sound summaries file; the text says what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Damage(pub String);

/// Sound summaries that describe another index; the text says what differs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Mismatch(pub String);
