//! Answers as the front ends show them: the writers of TSV, JSON, COBS's text and the
//! presence matrix, the one serde shape of a query's JSON answer (the command line's and
//! the server's), the one description of an index (`bitsift info`, `/api/indexes`, Python,
//! the JSON output's `indexes`), the identity a score estimates, and the cutoff a user sets.
//!
//! The room stands above [`crate::query`] and [`crate::collection`] and below the command
//! line, the server and Python: it reads a search's results and an index's headers, and
//! nothing beneath it knows how an answer is written.

mod cells;
mod cutoff;
mod describe;
mod identity;
mod json;
mod matrix;
mod output;
mod scores;
mod status;

pub use cutoff::{Cutoff, CutoffError};
pub use describe::{IndexDescription, IndexFile};
pub use identity::identity;
#[cfg(feature = "server")]
pub(crate) use json::{JsonHits, QueryJson};
pub use output::{OutputFormat, OutputSetup, Provenance, ResultWriter, SearchSettings};
pub use status::SkipReason;
