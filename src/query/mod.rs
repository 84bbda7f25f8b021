//! Answering queries: k-mers → row lookups → rows → bit-sliced counters → ranked documents.
//!
//! The principal types are [`Index`] and [`Session`]. An `Index` holds one or more parsed
//! index files (compact or classic, any page size, built by COBS or by bitsift) and is shared,
//! read-only, by every thread; a `Session` adds an I/O engine and reusable buffers and answers
//! queries ([`Session::search`], [`Session::search_batch`]) in short stages: hash the k-mers
//! and group repeated ones ([`hashing`]); plan every row read of every block at once
//! ([`plan`]); read the batch and add rows into bit-sliced counters as they arrive
//! ([`execute`], [`sliced`]), or score them in place when the index is in memory
//! ([`resident`]); apply COBS's threshold and order ([`rank`]). [`QueryStats`] and
//! [`BatchStats`] say what it cost.
//!
//! ```no_run
//! use bitsift::query::{SearchOptions, Session};
//! let mut session = Session::open(&["genomes.cobs_compact".into()], &Default::default())?;
//! let result = session.search(b"ACGTTGCAACGTTGCAACGTTGCAACGTTGCAAGT", &SearchOptions::default())?;
//! for hit in &result.hits {
//!     println!("{} {}", hit.document, hit.kmers_found);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod accumulate;
pub mod counters;
pub mod coverage;
pub mod execute;
pub mod hashing;
mod index;
mod matrix;
pub mod output;
pub mod plan;
pub mod present;
pub mod rank;
pub mod resident;
mod screen;
mod session;
mod setup;
pub mod sliced;
mod stats;

pub use crate::io::{MERGE_GAP_DEFAULT, READ_BYTES_MAX_DEFAULT};
pub use crate::read::{Integrity, ReadError};
pub use coverage::Coverage;
pub use index::{HiddenDocuments, Index, IndexOptions, OpenError, Sources, SIDE_MEMORY_DEFAULT};
pub use present::{GroupTally, Grouping};
pub use rank::{count_threshold, Hit};
pub use screen::Summaries;
pub use session::{
    Answer, QueryResult, SearchError, SearchOptions, Session, AND_BYTES_MAX, COUNTER_BYTES_MAX,
    LOOKUPS_PER_BATCH_MAX,
};
pub use setup::SessionSetup;
pub use stats::{BatchStats, QueryStats, RowSource};

/// The name this type had before sessions and the shared [`Index`] were split apart.
pub type Searcher = Session;
