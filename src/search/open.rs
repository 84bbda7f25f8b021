//! Opening what a [`SearchSetup`] names: the index files expanded (again while a collection
//! changes under the open), their sessions, what to tell the user, and the cache's warm-up.

use std::fmt::Display;
use std::path::PathBuf;
use std::sync::Arc;

use super::setup::{IndexSources, SearchSetup, SessionSetup};
use crate::collection::{CollectionError, SearchSet};
use crate::io::{RowMemory, Warmup};
use crate::query::{Index, Session, Sources};

/// Times a search set is expanded and opened before a collection that keeps changing is
/// reported as the error of the last attempt.
const ATTEMPTS: usize = 3;

/// Indexes opened for searching, with their first sessions.
pub struct Opened {
    /// The index files and the documents hidden in each, as expanded.
    pub set: SearchSet,
    /// The index the sessions share.
    pub index: Arc<Index>,
    /// The sessions asked for ([`SearchSetup::sessions`]), the first one first.
    pub sessions: Vec<Session>,
    /// How to open more sessions like them (the row memory decided included).
    pub setup: SessionSetup,
    /// What the user may want to know about the open.
    pub notices: Notices,
    /// The warm-up streaming the index into the cache, when asked for and there is a cache.
    pub warmup: Option<Warmup>,
}

/// What an open found worth telling, each front end saying it its own way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notices {
    /// The engine fell back (io_uring or O_DIRECT unavailable): one line.
    pub engine: Option<String>,
    /// Index files without a checksum sidecar, whose reads cannot be checked.
    pub unchecked: Vec<PathBuf>,
    /// Block summaries that cannot be used: their indexes are read in full.
    pub summary_problems: Vec<String>,
    /// Counts of ones that cannot be used: their indexes' rows are sampled instead.
    pub ones_problems: Vec<String>,
}

/// Expands `sources` and gives the set to `open`; when that fails and a collection's manifest
/// changed in between (a merge committed and deleted the files the first manifest listed),
/// expands and opens again. The one such loop of the library.
pub(crate) fn open_fresh<T, E>(
    sources: &IndexSources,
    mut open: impl FnMut(&SearchSet) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<CollectionError> + Display,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        let set = SearchSet::expand(&sources.paths, &sources.lists, &sources.subindexes)?;
        match open(&set) {
            Ok(opened) => return Ok(opened),
            Err(error) if attempt < ATTEMPTS && set.changed_since() => {
                tracing::info!(
                    "a collection changed while it was opened ({error}); opening it again"
                );
            }
            Err(error) => return Err(error),
        }
    }
}

impl SearchSetup {
    /// Expands the sources and opens them (again if a collection changed meanwhile): the
    /// index, its sessions, the notices and the warm-up. Answers name each file by its path
    /// as given, a collection's files by the collection.
    pub fn open(&self) -> Result<Opened, CollectionError> {
        open_fresh(&self.sources, |set| self.open_set(set, set.sources()))
    }

    /// Opens the files of `set`, named in answers by `sources`, and checks them against their
    /// manifests; see [`SearchSetup::open`].
    pub(crate) fn open_set(
        &self,
        set: &SearchSet,
        sources: Sources,
    ) -> Result<Opened, CollectionError> {
        let index = set.open_named(&self.header, self.side_memory, sources)?;
        let mut setup = self.session.clone();
        setup.config.memory = self
            .cache_bytes
            .map(|bytes| RowMemory::for_budget(bytes, index.read_files()));
        let sessions = (0..self.sessions.max(1))
            .map(|_| setup.open(&index))
            .collect::<Result<Vec<_>, _>>()?;
        let notices = Notices {
            engine: sessions[0].notice().map(str::to_string),
            unchecked: index.integrity().unchecked(index.headers()),
            summary_problems: index.summaries().problems(),
            ones_problems: index.ones().problems().to_vec(),
        };
        let warmup = match (
            setup.config.memory.as_ref().and_then(RowMemory::pages),
            self.warm,
        ) {
            (Some(cache), true) => Some(Warmup::start_checked(
                index.warm_ranges(),
                cache.clone(),
                Some(index.warm_check()),
            )),
            _ => None,
        };
        Ok(Opened {
            set: set.clone(),
            index,
            sessions,
            setup,
            notices,
            warmup,
        })
    }
}
