//! k-mers as COBS defines them: which bytes form a term, its canonical form and its hashes.
//!
//! The principal type is [`KmerHasher`]: configured with `k`, the canonical flag and the number
//! of hash functions of an index, it turns a sequence into the `n · H` 64-bit hashes that
//! address the index's rows (`row = hash mod rows_in_block`).
//!
//! ```
//! use bitsift::kmer::{BaseRule, KmerHasher};
//! let mut hasher = KmerHasher::new(31, true, 1, BaseRule::Cobs);
//! let mut hashes = Vec::new();
//! hasher.hashes_into(b"ACGTACGTACGTACGTACGTACGTACGTACG", &mut hashes);
//! assert_eq!(hashes, vec![0x2e0e4ebd5477cb86]);
//! ```
//!
//! # The canonical rule (COBS v0.3.x, `canonicalize_kmer`)
//!
//! Two byte maps: forward `F` (A, C, G, T kept; every other byte becomes `A`) and complement
//! `Rc` (A↔T, C↔G; every other byte becomes `T`). Lowercase letters are "other bytes". For
//! `i < k/2` (integer division) compare `F[x_i]` with `Rc[x_{k-1-i}]`; the first difference
//! decides between the forward term and the reverse complement; if all are equal the forward
//! term is used. For odd `k` the middle base is never compared, so this is *not*
//! `min(kmer, revcomp)`: `A^15 T^16` stays forward although its reverse complement is smaller.
//!
//! With the canonical flag off, COBS hashes the raw bytes.

mod minimizer;

use xxhash_rust::xxh64::xxh64;

pub(crate) use minimizer::minimizer_length;
pub use minimizer::{Minimizers, M_MAX};

/// How the bytes of a sequence are interpreted before the COBS maps are applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseRule {
    /// Exactly as COBS v0.3.x queries: bytes as given, so lowercase and every non-ACGT byte
    /// become `A` (forward) / `T` (complement).
    Cobs,
    /// Lowercase `acgt` (soft-masked sequence) is read as uppercase first, then the COBS maps
    /// apply. bitsift builds indexes this way: soft-masking does not remove a region.
    FoldCase,
}

/// Forward map of COBS v0.3.x: `ACGT` kept, everything else `A`.
pub(crate) const FORWARD: [u8; 256] = base_map(false, false);
/// Complement map of COBS v0.3.x: `A↔T`, `C↔G`, everything else `T`.
pub(crate) const COMPLEMENT: [u8; 256] = base_map(false, true);
/// [`FORWARD`] after case folding.
pub(crate) const FORWARD_FOLDED: [u8; 256] = base_map(true, false);
/// [`COMPLEMENT`] after case folding.
pub(crate) const COMPLEMENT_FOLDED: [u8; 256] = base_map(true, true);

const fn fold(byte: u8, fold_case: bool) -> u8 {
    if fold_case {
        match byte {
            b'a' => b'A',
            b'c' => b'C',
            b'g' => b'G',
            b't' => b'T',
            other => other,
        }
    } else {
        byte
    }
}

/// The forward (`complement` false) or complement map: `ACGT` kept or complemented, every
/// other byte read as `A`, so `A` forward and `T` complemented.
const fn base_map(fold_case: bool, complement: bool) -> [u8; 256] {
    let mut map = [0; 256];
    let mut i = 0;
    while i < 256 {
        let base = match fold(i as u8, fold_case) {
            base @ (b'C' | b'G' | b'T') => base,
            _ => b'A',
        };
        map[i] = if complement {
            complement_of(base)
        } else {
            base
        };
        i += 1;
    }
    map
}

const fn complement_of(base: u8) -> u8 {
    match base {
        b'A' => b'T',
        b'C' => b'G',
        b'G' => b'C',
        _ => b'A',
    }
}

/// Number of k-mer positions of a sequence of `len` bytes (0 when shorter than `k`).
pub fn kmer_count(len: usize, k: usize) -> usize {
    if len >= k && k > 0 {
        len - k + 1
    } else {
        0
    }
}

/// Computes COBS row hashes of sequences. Holds scratch buffers so that hashing many
/// sequences allocates only when a longer sequence than before arrives.
#[derive(Clone, Debug)]
pub struct KmerHasher {
    k: usize,
    canonical: bool,
    num_hashes: u32,
    rule: BaseRule,
    forward: Vec<u8>,
    reverse: Vec<u8>,
}

impl KmerHasher {
    /// A hasher for an index with term size `k`, the canonical flag, and `num_hashes` hash
    /// functions (seeds `0..num_hashes`).
    pub fn new(k: u32, canonical: bool, num_hashes: u32, rule: BaseRule) -> Self {
        assert!(k > 0, "k must be positive");
        assert!(num_hashes > 0, "an index has at least one hash function");
        KmerHasher {
            k: k as usize,
            canonical,
            num_hashes,
            rule,
            forward: Vec::new(),
            reverse: Vec::new(),
        }
    }

    /// Term size.
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// Hash functions per term.
    pub(crate) fn num_hashes(&self) -> u32 {
        self.num_hashes
    }

    /// Calls `visit(term)` with the bytes that COBS hashes for every k-mer position of `seq`,
    /// in order. The slice is only valid during the call.
    pub fn for_each_term(&mut self, seq: &[u8], mut visit: impl FnMut(&[u8])) {
        let k = self.k;
        let n = kmer_count(seq.len(), k);
        if n == 0 {
            return;
        }
        if !self.canonical {
            match self.rule {
                BaseRule::Cobs => seq.windows(k).for_each(visit),
                BaseRule::FoldCase => {
                    self.forward.clear();
                    self.forward.extend(seq.iter().map(|&b| fold(b, true)));
                    self.forward.windows(k).for_each(visit);
                }
            }
            return;
        }
        let (fwd_map, rc_map) = match self.rule {
            BaseRule::Cobs => (&FORWARD, &COMPLEMENT),
            BaseRule::FoldCase => (&FORWARD_FOLDED, &COMPLEMENT_FOLDED),
        };
        self.forward.clear();
        self.forward
            .extend(seq.iter().map(|&b| fwd_map[b as usize]));
        self.reverse.clear();
        self.reverse
            .extend(seq.iter().rev().map(|&b| rc_map[b as usize]));
        let len = seq.len();
        let half = k / 2;
        for p in 0..n {
            // The reverse complement of seq[p..p+k] is reverse[len-p-k..len-p].
            let fwd = &self.forward[p..p + k];
            let rev = &self.reverse[len - p - k..len - p];
            if fwd[..half] <= rev[..half] {
                visit(fwd)
            } else {
                visit(rev)
            }
        }
    }

    /// Appends the `n · H` hashes of `seq` to `out`, k-mer major: `out[i·H + j]` is hash `j`
    /// of the k-mer at position `i`.
    pub fn hashes_into(&mut self, seq: &[u8], out: &mut Vec<u64>) {
        let num_hashes = self.num_hashes;
        out.reserve(kmer_count(seq.len(), self.k) * num_hashes as usize);
        self.for_each_term(seq, |term| {
            for seed in 0..num_hashes {
                out.push(xxh64(term, seed as u64));
            }
        });
    }
}

/// The canonical term of one k-mer under `rule`, as an owned string; a slow reference used by
/// tests and by the `--explain` style diagnostics.
#[cfg(test)]
pub(crate) fn canonical_term(kmer: &[u8], canonical: bool, rule: BaseRule) -> Vec<u8> {
    let mut hasher = KmerHasher::new(kmer.len() as u32, canonical, 1, rule);
    let mut term = Vec::new();
    hasher.for_each_term(kmer, |t| term.extend_from_slice(t));
    term
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash0(kmer: &[u8], rule: BaseRule) -> u64 {
        let mut h = KmerHasher::new(kmer.len() as u32, true, 1, rule);
        let mut out = Vec::new();
        h.hashes_into(kmer, &mut out);
        assert_eq!(out.len(), 1);
        out[0]
    }

    #[test]
    fn xxh64_standard_vectors() {
        assert_eq!(xxh64(b"", 0), 0xEF46DB3751D8E999);
        assert_eq!(xxh64(b"abc", 0), 0x44BC2CF5AD770999);
    }

    #[test]
    fn cobs_vectors_three_seeds() {
        let mut h = KmerHasher::new(31, true, 3, BaseRule::Cobs);
        let mut out = Vec::new();
        h.hashes_into(b"ACGTACGTACGTACGTACGTACGTACGTACG", &mut out);
        assert_eq!(
            out,
            vec![0x2e0e4ebd5477cb86, 0x12ade2aa4f60c39e, 0x9cd866ae056ecc70]
        );
    }

    /// Under COBS's rule, `kmer`'s canonical term is `term` and its first hash `hash`.
    fn assert_cobs_vector(kmer: &[u8], term: &[u8], hash: u64) {
        assert_eq!(canonical_term(kmer, true, BaseRule::Cobs), term);
        assert_eq!(hash0(kmer, BaseRule::Cobs), hash);
    }

    #[test]
    fn cobs_vectors_canonical() {
        assert_cobs_vector(
            b"TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT",
            b"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            0x04d4645ec33f5384,
        );
        assert_cobs_vector(
            b"GATTACAGATTACAGATTACAGATTACAGAT",
            b"ATCTGTAATCTGTAATCTGTAATCTGTAATC",
            0xf6e9d0bf99a39e55,
        );
    }

    #[test]
    fn cobs_vector_non_acgt_maps_to_a() {
        assert_cobs_vector(
            b"NNNNNCGTACGTACGTACGTACGTACGTACG",
            b"AAAAACGTACGTACGTACGTACGTACGTACG",
            0x503f399bde21e61f,
        );
    }

    #[test]
    fn odd_k_middle_base_is_not_compared() {
        // A^15 T^16: the first 15 compared pairs are (A, A); forward is kept although the
        // reverse complement A^16 T^15 is lexicographically smaller.
        let kmer = [vec![b'A'; 15], vec![b'T'; 16]].concat();
        assert_eq!(canonical_term(&kmer, true, BaseRule::Cobs), kmer);
        let other = [vec![b'A'; 16], vec![b'T'; 15]].concat();
        assert_eq!(canonical_term(&other, true, BaseRule::Cobs), other);
        assert_ne!(hash0(&kmer, BaseRule::Cobs), hash0(&other, BaseRule::Cobs));
    }

    #[test]
    fn lowercase_is_a_under_cobs_and_folded_otherwise() {
        let lower = b"acgtacgtacgtacgtacgtacgtacgtacg";
        assert_eq!(
            canonical_term(lower, true, BaseRule::Cobs),
            vec![b'A'; 31],
            "COBS v0.3.x maps lowercase to A"
        );
        assert_eq!(
            canonical_term(lower, true, BaseRule::FoldCase),
            b"ACGTACGTACGTACGTACGTACGTACGTACG".to_vec()
        );
    }

    #[test]
    fn non_canonical_hashes_raw_bytes() {
        let mut h = KmerHasher::new(3, false, 1, BaseRule::Cobs);
        let mut out = Vec::new();
        h.hashes_into(b"TTTn", &mut out);
        assert_eq!(out, vec![xxh64(b"TTT", 0), xxh64(b"TTn", 0)]);
    }

    #[test]
    fn sliding_matches_single_kmers() {
        let seq = b"GATTACAGATTACANNNacgtTTTTTTTTTTGGGGCCCCAAAAT";
        for rule in [BaseRule::Cobs, BaseRule::FoldCase] {
            for k in [1u32, 2, 5, 8, 15, 16] {
                let mut h = KmerHasher::new(k, true, 2, rule);
                let mut all = Vec::new();
                h.hashes_into(seq, &mut all);
                let mut single = Vec::new();
                for w in seq.windows(k as usize) {
                    KmerHasher::new(k, true, 2, rule).hashes_into(w, &mut single);
                }
                assert_eq!(all, single, "k={k} rule={rule:?}");
            }
        }
    }

    #[test]
    fn short_sequences_have_no_kmers() {
        let mut h = KmerHasher::new(31, true, 1, BaseRule::Cobs);
        let mut out = Vec::new();
        h.hashes_into(b"ACGT", &mut out);
        h.hashes_into(b"", &mut out);
        assert!(out.is_empty());
        assert_eq!(kmer_count(30, 31), 0);
        assert_eq!(kmer_count(31, 31), 1);
    }
}
