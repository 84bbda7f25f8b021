//! Stage 1 of a query: its k-mers, hashed and grouped.
//!
//! For every query of a chunk and every index, [`KmerArena::add_query`] hashes the query's
//! k-mers with that index's parameters, sorts them, and keeps each distinct k-mer once with
//! its weight (how many positions of the query it occupies). The hashes and weights of all
//! queries lie back to back in one arena per index, reused from chunk to chunk. For an index
//! whose block summaries place k-mers by minimizer, each distinct k-mer's minimizer hash is
//! kept beside its hashes.

use crate::kmer::{BaseRule, KmerHasher, Minimizers};

/// One query's distinct k-mers in one index: entries `start..start + count` of the index's
/// arena, `positions` k-mer positions in all.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QueryKmers {
    /// First entry.
    pub start: u32,
    /// First entry of the query's positions in [`KmerArena::kmer_of_position`].
    pub first_position: u64,
    /// Distinct k-mers.
    pub count: u32,
    /// k-mer positions of the query (`L − k + 1`), the sum of the weights.
    pub positions: u64,
}

impl QueryKmers {
    /// The entries of this query in its index's arena.
    pub(crate) fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.count as usize
    }
}

/// The hashed k-mers of the queries of a chunk; see the module documentation.
pub(crate) struct KmerArena {
    hashers: Vec<KmerHasher>,
    /// Per index: the minimizers its summaries place k-mers by, if any.
    minimizers: Vec<Option<Minimizers>>,
    /// Per index: `H` hashes of every distinct k-mer, back to back.
    hashes: Vec<Vec<u64>>,
    /// Per index with minimizers: the minimizer hash of every distinct k-mer.
    minimizer_hashes: Vec<Vec<u64>>,
    /// Per index: the weight of every distinct k-mer.
    weights: Vec<Vec<u32>>,
    /// Per index: for every k-mer position of every query, back to back, the number of its
    /// distinct k-mer relative to the query's first (where a hit matches: `--coverage`).
    kmer_of_position: Vec<Vec<u32>>,
    /// Per (query, index), query-major.
    queries: Vec<QueryKmers>,
    scratch: Vec<u64>,
    scratch_minimizers: Vec<u64>,
    order: Vec<u32>,
}

impl KmerArena {
    /// An arena for indexes with these (k, canonical, hash count, minimizer length)
    /// parameters (minimizer length 0: no minimizers).
    pub(crate) fn new(parameters: impl Iterator<Item = (u32, bool, u32, u32)>) -> KmerArena {
        let (mut hashers, mut minimizers) = (Vec::new(), Vec::new());
        for (k, canonical, hashes, m) in parameters {
            hashers.push(KmerHasher::new(k, canonical, hashes, BaseRule::Cobs));
            minimizers.push((m > 0).then(|| Minimizers::new(k, m, canonical, BaseRule::Cobs)));
        }
        let indexes = hashers.len();
        KmerArena {
            hashers,
            minimizers,
            hashes: vec![Vec::new(); indexes],
            minimizer_hashes: vec![Vec::new(); indexes],
            weights: vec![Vec::new(); indexes],
            kmer_of_position: vec![Vec::new(); indexes],
            queries: Vec::new(),
            scratch: Vec::new(),
            scratch_minimizers: Vec::new(),
            order: Vec::new(),
        }
    }

    /// Forgets the queries of the previous chunk, keeping the allocations.
    pub(crate) fn clear(&mut self) {
        self.hashes.iter_mut().for_each(Vec::clear);
        self.minimizer_hashes.iter_mut().for_each(Vec::clear);
        self.weights.iter_mut().for_each(Vec::clear);
        self.kmer_of_position.iter_mut().for_each(Vec::clear);
        self.queries.clear();
    }

    /// Indexes the arena was made for.
    pub(crate) fn index_count(&self) -> usize {
        self.hashers.len()
    }

    /// Query `query`'s k-mers in index `index`.
    pub(crate) fn query(&self, query: usize, index: usize) -> QueryKmers {
        self.queries[query * self.index_count() + index]
    }

    /// Index `index`'s hashes (`H` per distinct k-mer).
    pub(crate) fn hashes(&self, index: usize) -> &[u64] {
        &self.hashes[index]
    }

    /// Index `index`'s minimizer hashes (one per distinct k-mer; empty when its summaries do
    /// not place k-mers by minimizer).
    pub(crate) fn minimizers(&self, index: usize) -> &[u64] {
        &self.minimizer_hashes[index]
    }

    /// Index `index`'s weights (one per distinct k-mer).
    pub(crate) fn weights(&self, index: usize) -> &[u32] {
        &self.weights[index]
    }

    /// For each k-mer position of query `query` in index `index`, in query order, the number
    /// of its distinct k-mer (0 for the query's first).
    pub(crate) fn kmer_of_position(&self, query: usize, index: usize) -> &[u32] {
        let kmers = self.query(query, index);
        let first = kmers.first_position as usize;
        &self.kmer_of_position[index][first..first + kmers.positions as usize]
    }

    /// All per-index weights.
    pub(crate) fn all_weights(&self) -> &[Vec<u32>] {
        &self.weights
    }

    /// Hashes `sequence` for every index and appends its distinct k-mers; returns its number
    /// of distinct (k-mer, hash function) pairs summed over indexes, times `blocks(index)`.
    pub(crate) fn add_query(&mut self, sequence: &[u8], blocks: impl Fn(usize) -> usize) -> usize {
        let mut lookups = 0;
        for index in 0..self.hashers.len() {
            let h = self.hashers[index].num_hashes() as usize;
            self.scratch.clear();
            self.hashers[index].hashes_into(sequence, &mut self.scratch);
            self.scratch_minimizers.clear();
            if let Some(minimizers) = self.minimizers[index].as_mut() {
                minimizers.minimizers_into(sequence, &mut self.scratch_minimizers);
            }
            let positions = self.scratch.len() / h;
            let start = self.weights[index].len();
            let first_position = self.kmer_of_position[index].len();
            self.group(index, h, positions);
            let count = self.weights[index].len() - start;
            lookups += count * h * blocks(index);
            self.queries.push(QueryKmers {
                start: start as u32,
                first_position: first_position as u64,
                count: count as u32,
                positions: positions as u64,
            });
        }
        lookups
    }

    /// Appends the distinct k-mers of `scratch` (`positions` k-mers of `h` hashes) to index
    /// `index`'s arena, each with the number of positions it occupies.
    fn group(&mut self, index: usize, h: usize, positions: usize) {
        self.order.clear();
        self.order.extend(0..positions as u32);
        let hashes = &self.scratch;
        self.order.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize * h, b as usize * h);
            hashes[a..a + h].cmp(&hashes[b..b + h])
        });
        let (arena, weights) = (&mut self.hashes[index], &mut self.weights[index]);
        let of_position = &mut self.kmer_of_position[index];
        let (first, start) = (of_position.len(), weights.len());
        of_position.resize(first + positions, 0);
        let mut previous: Option<usize> = None;
        for &position in &self.order {
            let at = position as usize * h;
            let current = &hashes[at..at + h];
            if let Some(p) = previous {
                if &hashes[p..p + h] == current {
                    *weights.last_mut().expect("a previous k-mer") += 1;
                    of_position[first + position as usize] = (weights.len() - 1 - start) as u32;
                    continue;
                }
            }
            arena.extend_from_slice(current);
            if let Some(&minimizer) = self.scratch_minimizers.get(position as usize) {
                self.minimizer_hashes[index].push(minimizer);
            }
            weights.push(1);
            of_position[first + position as usize] = (weights.len() - 1 - start) as u32;
            previous = Some(at);
        }
    }
}
