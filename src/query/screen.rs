//! Stage 1½ of a query: blocks that cannot hold a hit are ruled out before any read.
//!
//! A block summary ([`crate::summary`]) is a filter of the union of the k-mers of a block's
//! documents, with no false negatives. If it holds fewer of a query's positions than the
//! threshold needs, no document of the block can reach the threshold, so the block's rows
//! are neither read nor scored: the (query, block) unit starts dead. Documents that COBS
//! would report only through Bloom false positives of such a block are not reported; every
//! document that truly holds the query at the threshold is (`--no-summaries` turns this off
//! and gives COBS's exact scores).
//!
//! Summaries are loaded at the first search that uses them and shared by every session of
//! the [`super::Index`]. A summaries file that is damaged or belongs to another index is
//! not used: its index is read in full, and the problem is reported once.

use crate::format::IndexHeader;
use crate::summary::{BlockSummaries, Probe};

use super::hashing::KmerArena;
use super::plan::PlanBlock;
use super::rank::count_threshold;

/// The block summaries of every file of an index (`None` where a file has none or they
/// cannot be used).
#[derive(Debug, Default)]
pub struct Summaries {
    files: Vec<Option<BlockSummaries>>,
    problems: Vec<String>,
}

impl Summaries {
    /// Loads the summaries beside every file; a damaged or foreign one is recorded as a
    /// problem and its file searched without.
    pub fn load(headers: &[IndexHeader]) -> Summaries {
        let mut summaries = Summaries::default();
        for header in headers {
            match BlockSummaries::load(&header.path, header) {
                Ok(file) => summaries.files.push(file),
                Err(error) => {
                    summaries.problems.push(format!(
                        "{error}; the index is searched without its block summaries"
                    ));
                    summaries.files.push(None);
                }
            }
        }
        summaries
    }

    /// The summaries of file `index`, if usable.
    pub fn file(&self, index: usize) -> Option<&BlockSummaries> {
        self.files.get(index).and_then(Option::as_ref)
    }

    /// Whether any file has usable summaries.
    pub fn any(&self) -> bool {
        self.files.iter().any(Option::is_some)
    }

    /// Memory of all loaded summaries.
    pub fn ram_bytes(&self) -> u64 {
        self.files.iter().flatten().map(|s| s.ram_bytes()).sum()
    }

    /// Summaries files that exist but could not be used, with why.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

/// Reused buffers of the screen.
#[derive(Default)]
pub struct Screen {
    probes: Vec<Probe>,
    /// Per (block, query) of the chunk, block-major: ruled out by its block's summary.
    ruled_out: Vec<bool>,
    /// Per query of the chunk: blocks ruled out.
    per_query: Vec<u64>,
}

/// What the screen needs of a chunk.
pub struct ScreenInput<'a> {
    /// The flattened blocks of the index.
    pub blocks: &'a [PlanBlock],
    /// Per file: the number of its first block in `blocks`.
    pub first_block: &'a [u32],
    /// The summaries.
    pub summaries: &'a Summaries,
    /// The chunk's hashed queries.
    pub arena: &'a KmerArena,
    /// Per (query, index): whether the query searches that index.
    pub selected: &'a [bool],
    /// Queries in the chunk.
    pub queries: usize,
    /// The fraction of positions a document needs.
    pub threshold: f64,
}

impl Screen {
    /// Forgets the previous chunk: nothing is ruled out.
    pub fn clear(&mut self, blocks: usize, queries: usize) {
        self.ruled_out.clear();
        self.ruled_out.resize(blocks * queries, false);
        self.per_query.clear();
        self.per_query.resize(queries, 0);
    }

    /// Rules out every (query, block) whose summary cannot reach the query's threshold.
    pub fn run(&mut self, input: &ScreenInput) {
        self.clear(input.blocks.len(), input.queries);
        let files = input.first_block.len();
        for file in 0..files {
            let Some(summaries) = input.summaries.file(file) else {
                continue;
            };
            let hashes = input.arena.hashes(file);
            let weights = input.arena.weights(file);
            let first = input.first_block[file] as usize;
            let count = summaries.block_count();
            if count == 0 {
                continue;
            }
            debug_assert!(input.blocks[first..first + count]
                .iter()
                .all(|b| b.index as usize == file));
            for q in 0..input.queries {
                if !input.selected[q * files + file] {
                    continue;
                }
                let kmers = input.arena.query(q, file);
                let needed = count_threshold(input.threshold, kmers.positions);
                if needed == 0 {
                    continue;
                }
                let h = input.blocks[first].num_hashes as usize;
                let range = kmers.range();
                summaries.prepare_into(
                    &hashes[range.start * h..range.end * h],
                    h,
                    &mut self.probes,
                );
                let weights = &weights[range];
                for local in 0..count {
                    if !summaries.reaches(local, &self.probes, weights, needed) {
                        self.ruled_out[(first + local) * input.queries + q] = true;
                        self.per_query[q] += 1;
                    }
                }
            }
        }
    }

    /// Whether `block` is ruled out for `query`.
    pub fn ruled_out(&self, block: usize, query: usize, queries: usize) -> bool {
        self.ruled_out
            .get(block * queries + query)
            .copied()
            .unwrap_or(false)
    }

    /// Blocks ruled out for `query`.
    pub fn blocks_ruled_out(&self, query: usize) -> u64 {
        self.per_query.get(query).copied().unwrap_or(0)
    }
}
