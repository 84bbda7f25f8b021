//! Answering queries: k-mers → planned row reads → engine → counters → ranked documents.
//!
//! The principal type is [`Searcher`]. It opens one or more indexes (compact or classic, any
//! page size, built by COBS or by bitsift) and an I/O engine over them, and answers queries
//! with [`Searcher::search`]. For each query it hashes the k-mers, groups repeated ones, plans
//! every row read of every block at once ([`plan`]), hands the whole batch to the engine and
//! adds rows into per-document counters as reads complete ([`accumulate`]), then applies COBS's
//! threshold and order ([`rank`]). [`QueryStats`] says what it cost.
//!
//! ```no_run
//! use bitsift::query::{Searcher, SearchOptions};
//! let mut searcher = Searcher::open(&["genomes.cobs_compact".into()], &Default::default())?;
//! let result = searcher.search(b"ACGTTGCAACGTTGCAACGTTGCAACGTTGCAAGT", &SearchOptions::default())?;
//! for hit in &result.hits {
//!     println!("{} {}", hit.document, hit.kmers_found);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod accumulate;
pub mod execute;
pub mod output;
pub mod plan;
pub mod rank;
mod search;
mod stats;

pub use rank::{count_threshold, Hit};
pub use search::{
    Answer, OpenError, QueryResult, SearchError, SearchOptions, Searcher, AND_BYTES_MAX,
    COUNTER_BYTES_MAX, LOOKUPS_PER_BATCH_MAX, MERGE_GAP_DEFAULT, READ_BYTES_MAX_DEFAULT,
};
pub use stats::QueryStats;
