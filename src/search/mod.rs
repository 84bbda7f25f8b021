//! The front ends' way in: what the command line, the server and Python share about
//! searching, said once above [`crate::collection`] and [`crate::query`].
//!
//! - [`SearchSetup`]: which indexes, how they are read, how many sessions; one
//!   default and one check. [`SearchSetup::open`] expands the sources (again while a
//!   collection changes, [`open_fresh`]) and returns [`Opened`]: the index, its sessions,
//!   the [`Notices`] for the user and the cache's warm-up.
//! - [`SearchRequest`]: what one search asks; the search's options and the
//!   settings its output records are derived from it.
//! - [`QueryBatch`]: named queries read by the base rule, searched together,
//!   answered in input order.
//!
//! A front end only translates its inputs (arguments, a configuration, keyword arguments)
//! into these types and says the outcomes its own way.
//!
//! ```no_run
//! use bitsift::search::{SearchRequest, SearchSetup};
//! let mut opened = SearchSetup::of_paths(vec!["genomes.cobs_compact".into()]).open()?;
//! let options = SearchRequest::default().options(opened.index.k_max(), None);
//! let result = opened.sessions[0].search(b"ACGTTGCAACGTTGCAACGTTGCAACGTTGCAAGT", &options)?;
//! for hit in &result.hits {
//!     println!("{} {}", hit.document, hit.kmers_found);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod batch;
mod open;
mod request;
mod setup;

pub use batch::{Outcome, QueryBatch, BATCH_BYTES_MAX};
#[cfg(feature = "server")]
pub(crate) use open::open_fresh;
pub use open::{Notices, Opened};
pub use request::SearchRequest;
pub use setup::{IndexSources, SearchSetup, SessionSetup, SetupError};
