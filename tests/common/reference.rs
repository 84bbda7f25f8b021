//! The independent references the tests check bitsift against: random genomes, a brute-force
//! k-mer count and an exact model of the index bits. Pure functions, no binary to drive, so the
//! library's own model test (`src/model_tests.rs`) shares them with the integration tests.
#![allow(dead_code)]

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use bitsift::format::IndexHeader;

/// A small deterministic generator (SplitMix64): tests must not depend on a crate's RNG stream.
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Random ACGT.
    pub fn dna(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| b"ACGT"[self.below(4) as usize]).collect()
    }
}

/// `count` queries cut from `sequences`: exact pieces (true hits), pieces with `mutations`
/// changed bases (partial scores) and random sequence (only false positives), in turn; each
/// 60 to 60 + `extra` bases long.
pub fn mixed_queries(
    rng: &mut Rng,
    sequences: &[Vec<u8>],
    count: usize,
    extra: u64,
    mutations: usize,
) -> Vec<Vec<u8>> {
    let mut queries = Vec::with_capacity(count);
    for q in 0..count {
        let source = &sequences[rng.below(sequences.len() as u64) as usize];
        let len = 60 + rng.below(extra) as usize;
        let at = rng.below((source.len() - len) as u64) as usize;
        let mut query = source[at..at + len].to_vec();
        match q % 3 {
            1 => {
                for _ in 0..mutations {
                    let at = rng.below(len as u64) as usize;
                    query[at] = b"ACGT"[rng.below(4) as usize];
                }
            }
            2 => query = rng.dna(len),
            _ => {}
        }
        queries.push(query);
    }
    queries
}

/// Writes a FASTA file of `records`.
pub fn write_fasta(path: &Path, records: &[(String, Vec<u8>)]) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for (name, sequence) in records {
        writeln!(file, ">{name}").unwrap();
        if sequence.is_empty() {
            // A header with no sequence line at the very end reads as truncation.
            writeln!(file).unwrap();
        }
        for line in sequence.chunks(70) {
            file.write_all(line).unwrap();
            writeln!(file).unwrap();
        }
    }
}

/// COBS v0.3.x canonical term, written again from the description in the README ("Bases,
/// case and k-mers"), not from bitsift's code: maps F (ACGT kept, else A) and Rc (A↔T, C↔G,
/// else T); compare `F[x_i]` with `Rc[x_{k-1-i}]` for `i < k/2`; first difference decides;
/// ties keep forward. `fold` reads letters as uppercase and `U` as `T` first (bitsift's rule
/// for genomes and queries).
pub fn reference_term(window: &[u8], canonical: bool, fold: bool) -> Vec<u8> {
    let folded: Vec<u8> = window
        .iter()
        .map(|&b| match (fold, b.to_ascii_uppercase()) {
            (true, b'U') => b'T',
            (true, upper) => upper,
            (false, _) => b,
        })
        .collect();
    if !canonical {
        return folded;
    }
    let f = |b: u8| {
        if matches!(b, b'A' | b'C' | b'G' | b'T') {
            b
        } else {
            b'A'
        }
    };
    let rc = |b: u8| match b {
        b'A' => b'T',
        b'C' => b'G',
        b'G' => b'C',
        b'T' => b'A',
        _ => b'T',
    };
    let k = folded.len();
    let forward: Vec<u8> = folded.iter().map(|&b| f(b)).collect();
    let reverse: Vec<u8> = folded.iter().rev().map(|&b| rc(b)).collect();
    for i in 0..k / 2 {
        if forward[i] < reverse[i] {
            return forward;
        }
        if forward[i] > reverse[i] {
            return reverse;
        }
    }
    forward
}

/// The set of terms of a document (all records), as bitsift builds them.
pub fn document_terms(records: &[Vec<u8>], k: usize, canonical: bool) -> HashSet<Vec<u8>> {
    let mut terms = HashSet::new();
    for record in records {
        if record.len() >= k {
            for window in record.windows(k) {
                terms.insert(reference_term(window, canonical, true));
            }
        }
    }
    terms
}

/// Number of k-mer positions of `query` whose term (COBS query rule) is in `terms`.
pub fn brute_force_count(query: &[u8], k: usize, canonical: bool, terms: &HashSet<Vec<u8>>) -> u32 {
    if query.len() < k {
        return 0;
    }
    query
        .windows(k)
        .filter(|w| terms.contains(&reference_term(w, canonical, false)))
        .count() as u32
}

/// Where a correct index puts a term's row, computed independently of bitsift's code from
/// `docs/formats.md`: COBS's layout `xxh64(term, j) mod rows`; the minimizer layout
/// `range · L + (xxh64(term, j) mod L)` with `range = ⌊minimizer · (rows / L) / 2^64⌋`.
#[derive(Clone, Copy, Debug)]
pub struct RowModel {
    /// Rows of the block.
    pub rows: u64,
    /// Rows of a range; 0 in COBS's layout.
    pub range_rows: u64,
    /// Minimizer length.
    pub m: usize,
    /// Canonical terms (m-mers count as the smaller hash of both strands).
    pub canonical: bool,
}

impl RowModel {
    /// COBS's layout with `rows` rows.
    pub fn cobs(rows: u64) -> RowModel {
        RowModel {
            rows,
            range_rows: 0,
            m: 0,
            canonical: true,
        }
    }

    /// The layout of `header`'s block holding `document`.
    pub fn of_document(header: &IndexHeader, document: usize) -> RowModel {
        let rows = rows_of_document(header, document);
        RowModel::of_layout(header.rows, rows, header.canonical)
    }

    /// A block of `rows` rows in `layout`.
    pub fn of_layout(layout: bitsift::format::RowLayout, rows: u64, canonical: bool) -> RowModel {
        match layout {
            bitsift::format::RowLayout::Cobs => RowModel::cobs(rows),
            bitsift::format::RowLayout::Minimizer {
                range_rows,
                minimizer,
            } => RowModel {
                rows,
                range_rows: range_rows as u64,
                m: minimizer as usize,
                canonical,
            },
        }
    }

    /// The row of hash `seed` of `term`.
    pub fn row(&self, term: &[u8], seed: u64) -> u64 {
        let hash = xxhash_rust::xxh64::xxh64(term, seed);
        if self.range_rows == 0 {
            return hash % self.rows;
        }
        let minimizer = reference_minimizer(term, self.m, self.canonical);
        let range = ((minimizer as u128 * (self.rows / self.range_rows) as u128) >> 64) as u64;
        range * self.range_rows + hash % self.range_rows
    }
}

/// The minimizer hash of a term, the slow way (docs/formats.md, "The filter"): every m-mer's
/// 2-bit code (A C G T = 0 1 2 3, any other byte 0) through SplitMix64's finaliser, for
/// canonical terms the smaller of both strands' hashes; the smallest, through murmur3's
/// finaliser.
pub fn reference_minimizer(term: &[u8], m: usize, canonical: bool) -> u64 {
    let code = |b: u8| match b {
        b'C' => 1u64,
        b'G' => 2,
        b'T' => 3,
        _ => 0,
    };
    let splitmix = |code: u64| {
        let mut z = code ^ 0x9e37_79b9_7f4a_7c15;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let smallest = term
        .windows(m)
        .map(|mmer| {
            let forward = mmer.iter().fold(0u64, |c, &b| c << 2 | code(b));
            let reverse = mmer.iter().rev().fold(0u64, |c, &b| c << 2 | (3 - code(b)));
            match canonical {
                true => splitmix(forward).min(splitmix(reverse)),
                false => splitmix(forward),
            }
        })
        .min()
        .expect("m <= k");
    let mut z = smallest;
    z ^= z >> 33;
    z = z.wrapping_mul(0xff51_afd7_ed55_8ccd);
    z ^= z >> 33;
    z = z.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    z ^ (z >> 33)
}

/// The exact score a correct index gives: for every query position, whether all its hash
/// rows are set for the document, computing the bits from the document's terms with xxh64
/// (seed j) and the row model. Equal to bitsift's score if and only if the builder set
/// exactly the right bits and the query read exactly the right ones.
pub fn model_score(
    query: &[u8],
    k: usize,
    canonical: bool,
    num_hashes: u64,
    rows: &RowModel,
    document_rows: &HashSet<u64>,
) -> u32 {
    if query.len() < k {
        return 0;
    }
    query
        .windows(k)
        .filter(|w| {
            let term = reference_term(w, canonical, false);
            (0..num_hashes).all(|seed| document_rows.contains(&rows.row(&term, seed)))
        })
        .count() as u32
}

/// Rows set for a document with `terms` in a block laid out as `rows` says.
pub fn document_rows(terms: &HashSet<Vec<u8>>, num_hashes: u64, rows: &RowModel) -> HashSet<u64> {
    let mut set = HashSet::new();
    for term in terms {
        for seed in 0..num_hashes {
            set.insert(rows.row(term, seed));
        }
    }
    set
}

/// Rows of the block holding document `document` of `header`.
pub fn rows_of_document(header: &IndexHeader, document: usize) -> u64 {
    header
        .blocks
        .iter()
        .find(|b| {
            (document as u64) >= b.first_document
                && (document as u64) < b.first_document + b.document_count
        })
        .map(|b| b.row_count)
        .expect("document in some block")
}

/// A temporary directory for one test.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("bitsift-test-")
        .tempdir()
        .unwrap()
}

/// Path of a bundled demo file.
pub fn demo_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/demo")
        .join(relative)
}
