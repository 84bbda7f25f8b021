//! Answering queries: k-mers → row lookups → rows → bit-sliced counters → ranked documents.
//!
//! The principal types are [`Index`] and [`Session`]. An `Index` holds one or more parsed
//! index files (compact or classic, any page size, built by COBS or by bitsift) and is shared,
//! read-only, by every thread; a `Session` adds an I/O engine and reusable buffers and answers
//! queries ([`Session::search`], [`Session::search_batch`]) in short stages: hash the k-mers
//! and group repeated ones ([`hashing`]); plan every row read of every block at once
//! ([`plan`]); read the batch and add rows into bit-sliced counters as they arrive
//! ([`execute`], [`sliced`]), or score them in place when the index is in memory
//! ([`resident`]); apply COBS's threshold and order ([`rank`]). How answers are written
//! (TSV, JSON, matrix) and what identity a score estimates belong to the answer room above. [`QueryStats`] and
//! [`BatchStats`] say what it cost.
//!
//! Front ends open sessions through the `search` module above, which shows an example.

pub mod accumulate;
pub(crate) mod correct;
pub(crate) mod counters;
pub(crate) mod coverage;
pub(crate) mod execute;
pub(crate) mod fill;
mod grouping;
pub(crate) mod hashing;
mod hit;
mod index;
pub(crate) mod plan;
pub(crate) mod rank;
pub(crate) mod resident;
mod screen;
mod session;
pub mod sliced;
mod stats;

pub use crate::read::{Integrity, ReadError};
pub use correct::Corrected;
pub use coverage::{Coverage, ISLAND_KMERS_MAX};
pub use grouping::{GroupByError, GroupTally, Grouping, NoColumn};
#[cfg(test)]
pub(crate) use hit::count_threshold;
pub(crate) use hit::rounded;
pub use hit::{fraction, Hit};
pub(crate) use index::with_side_files;
pub use index::{HiddenDocuments, Index, IndexOptions, OpenError, Sources, SIDE_MEMORY_DEFAULT};
pub use session::{Answer, QueryResult, SearchError, SearchOptions, Session, SessionConfig};
pub use stats::{BatchStats, QueryStats, RowSource};

/// The fraction of a query's k-mers a document must hold to be reported, unless a search
/// says otherwise: the default of every front end (COBS's is the same).
pub const THRESHOLD_DEFAULT: f64 = 0.8;
