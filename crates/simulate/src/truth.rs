//! The query truth table: for every query and genome, how many of the query's k-mer positions
//! have their term in the genome, as the genome's FASTA is written.
//!
//! Terms follow COBS's canonical rule (compare the first k/2 bases of the k-mer with those of
//! its reverse complement; the first difference decides, a tie keeps the k-mer as written),
//! so the counts are what an exact k-mer index (a COBS index without false positives) gives.
//! Soft-masked bases count as upper case. Genome k-mers with a byte other than ACGT (N runs)
//! are skipped: COBS reads those bytes as `A`, which can only add matches, so each count is a
//! lower bound of the exact score, equal to it unless a query k-mer is made of such `A`s.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::model::Contig;

/// Largest k of the truth table (a term is packed in 64 bits).
pub const K_MAX: usize = 32;

const INVALID: u8 = 4;

const CODES: [u8; 256] = {
    let mut t = [INVALID; 256];
    t[b'A' as usize] = 0;
    t[b'C' as usize] = 1;
    t[b'G' as usize] = 2;
    t[b'T' as usize] = 3;
    t[b'a' as usize] = 0;
    t[b'c' as usize] = 1;
    t[b'g' as usize] = 2;
    t[b't' as usize] = 3;
    t
};

/// A 64-bit finaliser (SplitMix64's), spreading packed terms over the bitmap and table.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hasher of packed terms for the term table.
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix(self.0 ^ b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = mix(x);
    }
}

/// Calls `visit(forward, reverse_complement)` with the packed codes (2 bits a base, A C G T =
/// 0 1 2 3) of every k-mer of `seq` made only of ACGT (either case).
fn for_each_kmer(seq: &[u8], k: usize, mut visit: impl FnMut(u64, u64)) {
    let mask = if k == 32 {
        u64::MAX
    } else {
        (1u64 << (2 * k)) - 1
    };
    let top = 2 * (k as u32 - 1);
    let (mut forward, mut reverse, mut valid) = (0u64, 0u64, 0usize);
    for &b in seq {
        let x = CODES[b as usize];
        if x == INVALID {
            valid = 0;
            continue;
        }
        forward = ((forward << 2) | x as u64) & mask;
        reverse = (reverse >> 2) | ((3 - x as u64) << top);
        valid += 1;
        if valid >= k {
            visit(forward, reverse);
        }
    }
}

/// A genome k-mer found at position `pos` of query `query`, the previous one (if any) at
/// `pos - step`.
#[derive(Clone, Copy)]
struct Run {
    query: u32,
    pos: u32,
    step: i32,
}

/// Counts query k-mers in genomes.
pub struct TruthCounter {
    k: usize,
    /// Bits below the first k/2 bases of a packed k-mer.
    half_shift: u32,
    /// Prefilter of the terms (a word-blocked Bloom filter).
    bitmap: Vec<u64>,
    bitmap_shift: u32,
    terms: HashMap<u64, u32, BuildHasherDefault<MixHasher>>,
    /// Per query: the term of each k-mer position made of ACGT.
    queries: Vec<Vec<u32>>,
    /// Per query: the packed term of each position in `queries`.
    query_terms: Vec<Vec<u64>>,
    /// Per term: one (query, position in `queries`) where it occurs.
    term_home: Vec<(u32, u32)>,
    /// Per query: its k-mer positions (`len - k + 1`), as COBS counts them.
    totals: Vec<usize>,
    /// Per term: the queries that have it.
    term_queries: Vec<Vec<u32>>,
}

impl TruthCounter {
    /// Prepares counting the k-mers of `queries` (ACGT only).
    pub fn new<'a>(k: usize, queries: impl IntoIterator<Item = &'a [u8]>) -> TruthCounter {
        assert!((1..=K_MAX).contains(&k), "k out of range");
        let mut counter = TruthCounter {
            k,
            half_shift: 2 * (k - k / 2) as u32,
            bitmap: Vec::new(),
            bitmap_shift: 0,
            terms: HashMap::default(),
            queries: Vec::new(),
            query_terms: Vec::new(),
            term_home: Vec::new(),
            totals: Vec::new(),
            term_queries: Vec::new(),
        };
        for (q, seq) in queries.into_iter().enumerate() {
            let mut positions = Vec::with_capacity(seq.len());
            let mut packed = Vec::with_capacity(seq.len());
            for_each_kmer(seq, k, |f, r| {
                let term = counter.canonical(f, r);
                let next = counter.terms.len() as u32;
                let id = *counter.terms.entry(term).or_insert(next);
                if id == next {
                    counter.term_queries.push(Vec::new());
                    counter.term_home.push((q as u32, positions.len() as u32));
                }
                let owners = &mut counter.term_queries[id as usize];
                if owners.last() != Some(&(q as u32)) {
                    owners.push(q as u32);
                }
                positions.push(id);
                packed.push(term);
            });
            counter.queries.push(positions);
            counter.query_terms.push(packed);
            counter.totals.push((seq.len() + 1).saturating_sub(k));
        }
        // About 8 bits a term, two of them in one word: small enough to stay in a core's
        // cache (every genome k-mer probes it), and about 5 % of absent k-mers pass.
        let words = (counter.terms.len() / 8)
            .next_power_of_two()
            .clamp(1 << 10, 1 << 28);
        counter.bitmap = vec![0u64; words];
        counter.bitmap_shift = 64 - words.trailing_zeros();
        for &term in counter.terms.keys() {
            let (word, mask) = counter.prefilter(term);
            counter.bitmap[word] |= mask;
        }
        counter
    }

    /// The prefilter word of a packed term and the two bits it sets there.
    #[inline]
    fn prefilter(&self, term: u64) -> (usize, u64) {
        let h = mix(term);
        let word = (h >> self.bitmap_shift) as usize;
        (word, (1 << (h & 63)) | (1 << ((h >> 6) & 63)))
    }

    /// The position next to `at` along its query (in the run's direction, or either way when
    /// it has none yet) if it holds `term`.
    #[inline]
    fn follow(&self, at: Run, term: u64) -> Option<Run> {
        let terms = &self.query_terms[at.query as usize];
        let check = |step: i32| {
            let pos = at.pos.checked_add_signed(step)?;
            (terms.get(pos as usize) == Some(&term)).then_some(Run {
                query: at.query,
                pos,
                step,
            })
        };
        match at.step {
            0 => check(1).or_else(|| check(-1)),
            step => check(step),
        }
    }

    /// COBS's canonical term of a k-mer with packed forward and reverse-complement codes.
    fn canonical(&self, forward: u64, reverse: u64) -> u64 {
        if forward >> self.half_shift <= reverse >> self.half_shift {
            forward
        } else {
            reverse
        }
    }

    /// k-mer positions of query `q`, `len - k + 1` (positions with a byte other than ACGT
    /// are never found).
    pub fn kmers_total(&self, q: usize) -> usize {
        self.totals[q]
    }

    /// For a genome whose FASTA holds `contigs` of `seq`: (query, positions found) for every
    /// query with at least one position found, in query order.
    pub fn count(&self, seq: &[u8], contigs: &[Contig]) -> Vec<(usize, u32)> {
        let mut found = vec![0u64; self.terms.len().div_ceil(64)];
        let mut found_ids = Vec::new();
        let mut mark = |id: u32| {
            let (word, mask) = ((id / 64) as usize, 1u64 << (id % 64));
            if found[word] & mask == 0 {
                found[word] |= mask;
                found_ids.push(id);
            }
        };
        // Genome k-mers found in a query come in runs along it (forwards or backwards, as the
        // copy's strand goes): after a hit, the query's next position in the run's direction
        // (either, after a hash hit) is compared first, sparing most table look-ups. Only an
        // equal term is taken, so the counts do not depend on this shortcut.
        let mut run: Option<Run> = None;
        for contig in contigs {
            let slice = &seq[contig.start..contig.start + contig.len];
            for_each_kmer(slice, self.k, |f, r| {
                // A reversed contig is written as the reverse complement of its slice.
                let term = if contig.reverse {
                    self.canonical(r, f)
                } else {
                    self.canonical(f, r)
                };
                if let Some(next) = run.and_then(|at| self.follow(at, term)) {
                    mark(self.queries[next.query as usize][next.pos as usize]);
                    run = Some(next);
                    return;
                }
                run = None;
                let (word, mask) = self.prefilter(term);
                if self.bitmap[word] & mask != mask {
                    return;
                }
                if let Some(&id) = self.terms.get(&term) {
                    mark(id);
                    let (query, pos) = self.term_home[id as usize];
                    run = Some(Run {
                        query,
                        pos,
                        step: 0,
                    });
                }
            });
        }
        let mut touched: Vec<u32> = found_ids
            .iter()
            .flat_map(|&id| self.term_queries[id as usize].iter().copied())
            .collect();
        touched.sort_unstable();
        touched.dedup();
        touched
            .into_iter()
            .map(|q| {
                let hits = self.queries[q as usize]
                    .iter()
                    .filter(|&&id| found[(id / 64) as usize] & (1 << (id % 64)) != 0)
                    .count();
                (q as usize, hits as u32)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::{revcomp, rng_for, Stream};
    use rand::RngExt;
    use std::collections::HashSet;

    /// COBS's canonical term, on bytes, written from its description.
    fn reference_term(w: &[u8]) -> Vec<u8> {
        let upper = w.to_ascii_uppercase();
        let rc = revcomp(&upper);
        for i in 0..w.len() / 2 {
            if upper[i] != rc[i] {
                return if upper[i] < rc[i] { upper } else { rc };
            }
        }
        upper
    }

    fn terms(seq: &[u8], k: usize) -> HashSet<Vec<u8>> {
        seq.windows(k)
            .filter(|w| w.iter().all(|b| b"ACGTacgt".contains(b)))
            .map(reference_term)
            .collect()
    }

    #[test]
    fn counts_match_a_byte_level_model() {
        let mut rng = rng_for(5, Stream::Core, 0);
        let mut dna =
            |n: usize| -> Vec<u8> { (0..n).map(|_| b"ACGT"[rng.random_range(0..4)]).collect() };
        for k in [5usize, 8, 15, 16, 31, 32] {
            let mut genome = dna(3000);
            genome[100..110].fill(b'N');
            genome[500..700].make_ascii_lowercase();
            // Palindromic first halves make COBS's rule differ from min(kmer, revcomp).
            let tie: Vec<u8> = {
                let half = dna(k / 2);
                let mut t = half.clone();
                if k % 2 == 1 {
                    t.push(b'A');
                }
                t.extend(revcomp(&half));
                t
            };
            genome[900..900 + k].copy_from_slice(&tie);
            let queries = [
                genome[50..400].to_vec(),
                revcomp(&genome[450..800]),
                dna(300),
                [&genome[2000..2100], &dna(50)[..], &genome[2500..2600]].concat(),
                // Repeats and a turn of strand: runs along a query that restart elsewhere.
                [
                    &genome[1300..1400],
                    &genome[1300..1400],
                    &revcomp(&genome[1350..1450])[..],
                ]
                .concat(),
                revcomp(&tie),
                tie.clone(),
            ];
            let counter = TruthCounter::new(k, queries.iter().map(|q| q.as_slice()));
            let contigs = [
                Contig {
                    start: 0,
                    len: 1200,
                    reverse: false,
                },
                Contig {
                    start: 1200,
                    len: 1000,
                    reverse: true,
                },
                Contig {
                    start: 2200,
                    len: 800,
                    reverse: false,
                },
            ];
            let mut written = Vec::new();
            for c in &contigs {
                let s = &genome[c.start..c.start + c.len];
                written.push(if c.reverse { revcomp(s) } else { s.to_vec() });
            }
            let all: HashSet<Vec<u8>> = written.iter().flat_map(|s| terms(s, k)).collect();
            let got = counter.count(&genome, &contigs);
            let mut expected = Vec::new();
            for (q, query) in queries.iter().enumerate() {
                let hits = query
                    .windows(k)
                    .filter(|w| all.contains(&reference_term(w)))
                    .count();
                assert_eq!(counter.kmers_total(q), query.len() - k + 1);
                if hits > 0 {
                    expected.push((q, hits as u32));
                }
            }
            assert_eq!(got, expected, "k = {k}");
        }
    }
}
