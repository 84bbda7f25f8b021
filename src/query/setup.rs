//! How a front end's search sessions are set up, said once: the command line, the server
//! and Python each derive one [`SessionSetup`] from their options and open every session
//! they need from it, so a session opened by one is the session the others would open.

use std::sync::Arc;

use super::index::Index;
use super::session::Session;
use super::OpenError;
use crate::io::{EngineOptions, RowMemory};

/// Everything a session needs besides its index.
#[derive(Clone)]
pub struct SessionSetup {
    /// Which engine reads, and how.
    pub engine: EngineOptions,
    /// Memory for rows shared by every session: a page cache, or the whole index; none
    /// reads from storage each time.
    pub memory: Option<RowMemory>,
    /// Threads scoring blocks held in memory.
    pub threads: usize,
    /// Gap between reads that still merge them; `None`: the engine's default.
    pub merge_gap: Option<u64>,
    /// Largest merged read; `None`: the engine's default.
    pub read_max: Option<u64>,
}

impl SessionSetup {
    /// Reads from storage with `engine`, one thread per core, default read shapes.
    pub fn new(engine: EngineOptions) -> SessionSetup {
        SessionSetup {
            engine,
            memory: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            merge_gap: None,
            read_max: None,
        }
    }

    /// Row memory of `bytes` for `index` (a page cache, or the whole index when it fits);
    /// `None` keeps reading from storage.
    pub fn with_memory(mut self, bytes: Option<u64>, index: &Index) -> SessionSetup {
        self.memory = bytes.map(|bytes| RowMemory::for_budget(bytes, index.read_files()));
        self
    }

    /// A session over `index`.
    pub fn open(&self, index: &Arc<Index>) -> Result<Session, OpenError> {
        let mut session = Session::with_options(index.clone(), &self.engine)?;
        session.set_row_memory(self.memory.clone());
        session.set_threads(self.threads);
        let shape = session.read_shape();
        session.set_coalescing(
            self.merge_gap.unwrap_or(shape.gap_bytes),
            self.read_max.unwrap_or(shape.read_bytes_max),
        );
        Ok(session)
    }
}
