//! What a front end asks for when it opens indexes to search ([`SearchSetup`]): the command
//! line, the server and Python each translate their options into it, with one default and
//! one check, so that what one opens is what the others would open.

use std::path::PathBuf;
use std::sync::Arc;

use crate::format::HeaderOptions;
use crate::io::{open_index_engine, EngineOptions};
use crate::query::{Index, OpenError, Session, SessionConfig, SIDE_MEMORY_DEFAULT};

/// What to search: expanded again at every open (a collection's manifest may have changed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexSources {
    /// Index files, directories of indexes, collections.
    pub paths: Vec<PathBuf>,
    /// Files listing such paths, one per line.
    pub lists: Vec<PathBuf>,
    /// Only these sub-indexes of the collections given (empty: all).
    pub subindexes: Vec<String>,
}

/// Everything a front end decides about opening indexes and their sessions.
#[derive(Clone)]
pub struct SearchSetup {
    /// What to search.
    pub sources: IndexSources,
    /// k and canonical flag of pre-2019 COBS headers, which do not record them.
    pub header: HeaderOptions,
    /// Memory for pages of the side files (checksums, block summaries) kept between queries.
    pub side_memory: u64,
    /// Row memory for every session together (a page cache, or the whole index when it
    /// fits); `None` reads from storage each time.
    pub cache_bytes: Option<u64>,
    /// Stream the index into the cache in the background once opened.
    pub warm: bool,
    /// Sessions opened at once (at least one; more can be opened later alike).
    pub sessions: usize,
    /// How each session reads and scores.
    pub session: SessionSetup,
}

impl Default for SearchSetup {
    fn default() -> Self {
        SearchSetup {
            sources: IndexSources::default(),
            header: HeaderOptions::default(),
            side_memory: SIDE_MEMORY_DEFAULT,
            cache_bytes: None,
            warm: false,
            sessions: 1,
            session: SessionSetup::default(),
        }
    }
}

/// Why a [`SearchSetup`] cannot be opened, before anything is read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SetupError {
    /// Neither an index nor a list of indexes was given.
    #[error("no index given")]
    NoIndex,
    /// A warm-up was asked for without row memory to warm.
    #[error("a warm-up streams the index into the cache, and there is no cache")]
    WarmWithoutCache,
}

impl SearchSetup {
    /// The setup of `paths` with every other choice at its default.
    pub fn of_paths(paths: Vec<PathBuf>) -> SearchSetup {
        SearchSetup {
            sources: IndexSources {
                paths,
                ..IndexSources::default()
            },
            ..SearchSetup::default()
        }
    }

    /// Whether the choices fit together (nothing is opened).
    pub fn check(&self) -> Result<(), SetupError> {
        if self.warm && self.cache_bytes.is_none() {
            return Err(SetupError::WarmWithoutCache);
        }
        if self.sources.paths.is_empty() && self.sources.lists.is_empty() {
            return Err(SetupError::NoIndex);
        }
        Ok(())
    }
}

/// How every session over one index is opened: the engine and the session's settings. The
/// row memory, once decided for the index, is shared by all of them.
#[derive(Clone, Default)]
pub struct SessionSetup {
    /// Which engine reads, and how.
    pub engine: EngineOptions,
    /// Row memory, threads and read shape.
    pub config: SessionConfig,
}

impl SessionSetup {
    /// A session over `index`.
    pub fn open(&self, index: &Arc<Index>) -> Result<Session, OpenError> {
        // Only the rows decide whether they are scored in place; side files get their own
        // engine then (issue 35).
        let engine = open_index_engine(index.read_paths(), index.file_count(), &self.engine)?;
        Session::new(index.clone(), engine, &self.config)
    }
}
