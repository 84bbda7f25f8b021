//! Sketches of documents' k-mer sets, computed during the scan for the similarity order.
//!
//! A sketch is a one-permutation MinHash (Li, Owen and Zhang 2012) of the document's k-mers:
//! the top 6 bits of a k-mer's 64-bit hash pick one of 64 bins, and each bin keeps the
//! smallest of the next 32 bits. Two documents agree in a bin with probability about the
//! Jaccard similarity of their k-mer sets, so the fraction of agreeing bins estimates it, in
//! 256 bytes per document whatever its size.
//!
//! For canonical DNA k-mers with k ≤ 32 the hash is a 64-bit mix of the k-mer packed two bits
//! a base, the smaller of its two strands, computed by a rolling window (k-mers with a base
//! other than ACGT are left out). That costs a few nanoseconds a k-mer, against some thirty
//! for the index's own term hash, which is used otherwise (`xxh64(term, 0)`: longer k,
//! k-mers hashed as written).

use xxhash_rust::xxh64::xxh64;

use crate::kmer::{BaseRule, KmerHasher};

/// Bins of a sketch.
pub(crate) const BINS: usize = 64;
/// An empty bin (a document with few k-mers leaves some bins empty).
pub(crate) const EMPTY: u32 = u32::MAX;

/// A document's sketch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sketch {
    /// Per bin, the smallest value seen, or [`EMPTY`].
    pub bins: [u32; BINS],
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch {
            bins: [EMPTY; BINS],
        }
    }
}

impl Sketch {
    /// Adds the term whose seed-0 row hash is `hash`.
    #[inline]
    pub(crate) fn add_hash(&mut self, hash: u64) {
        let bin = (hash >> 58) as usize;
        let value = (hash >> 26) as u32;
        if value < self.bins[bin] {
            self.bins[bin] = value;
        }
    }

    /// Estimated Jaccard similarity with `other`: the fraction of agreeing bins among those
    /// not empty in both (0 when all are).
    pub(crate) fn similarity(&self, other: &Sketch) -> f64 {
        let (mut agree, mut used) = (0u32, 0u32);
        for (a, b) in self.bins.iter().zip(&other.bins) {
            if *a != EMPTY || *b != EMPTY {
                used += 1;
                agree += (a == b) as u32;
            }
        }
        if used == 0 {
            0.0
        } else {
            agree as f64 / used as f64
        }
    }

    /// Bins that are not empty.
    pub(crate) fn filled(&self) -> usize {
        self.bins.iter().filter(|&&b| b != EMPTY).count()
    }

    /// Makes this the sketch of the union of its set and `other`'s (bin-wise minimum).
    pub(crate) fn merge(&mut self, other: &Sketch) {
        for (a, &b) in self.bins.iter_mut().zip(&other.bins) {
            *a = (*a).min(b);
        }
    }

    /// Estimated number of distinct k-mers sketched: with `m` bins whose minima, as fractions
    /// of 2^32, are `u_b` (an empty bin counts as 1), `m (m − 1) / Σ u_b` (stochastic
    /// averaging, Flajolet and Martin). About 13 % error for 64 bins; 0 when all are empty.
    pub(crate) fn estimated_kmers(&self) -> f64 {
        if self.filled() == 0 {
            return 0.0;
        }
        let m = BINS as f64;
        let sum: f64 = self
            .bins
            .iter()
            .map(|&b| (b as f64 + 1.0) / (u32::MAX as f64 + 1.0))
            .sum();
        m * (m - 1.0) / sum
    }
}

/// 2-bit codes of A, C, G, T (either case); 4 for every other byte.
const CODES: [u8; 256] = {
    let mut t = [4u8; 256];
    let bases = *b"ACGTacgt";
    let mut i = 0;
    while i < 8 {
        t[bases[i] as usize] = (i % 4) as u8;
        i += 1;
    }
    t
};

/// SplitMix64's finaliser.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Sketches sequences with the k of the index being built (soft-masked bases as upper case).
pub(crate) struct Sketcher {
    hasher: KmerHasher,
    /// Canonical DNA k-mers with k ≤ 32: the rolling 2-bit hash.
    packed: bool,
}

/// Whether sketching k-mers of this kind is cheap (the rolling 2-bit hash applies).
pub(crate) fn cheap(k: u32, canonical: bool) -> bool {
    canonical && k <= 32
}

impl Sketcher {
    /// A sketcher for terms of `k` bases, canonical or not, as in the index being built.
    pub(crate) fn new(k: u32, canonical: bool) -> Sketcher {
        Sketcher {
            hasher: KmerHasher::new(k, canonical, 1, BaseRule::FoldCase),
            packed: cheap(k, canonical),
        }
    }

    /// Adds every k-mer of `sequence` to `sketch`.
    pub(crate) fn add(&mut self, sequence: &[u8], sketch: &mut Sketch) {
        if self.packed {
            add_packed(sequence, self.hasher.k(), sketch);
        } else {
            self.hasher
                .for_each_term(sequence, |term| sketch.add_hash(xxh64(term, 0)));
        }
    }
}

/// Adds the canonical k-mers (k ≤ 32) of `sequence` made of ACGT, by a rolling 2-bit code.
fn add_packed(sequence: &[u8], k: usize, sketch: &mut Sketch) {
    debug_assert!((1..=32).contains(&k));
    let mask = if k == 32 {
        u64::MAX
    } else {
        (1u64 << (2 * k)) - 1
    };
    let top = 2 * (k as u32 - 1);
    let (mut forward, mut reverse, mut valid) = (0u64, 0u64, 0usize);
    for &byte in sequence {
        let code = CODES[byte as usize] as u64;
        if code == 4 {
            valid = 0;
            continue;
        }
        forward = ((forward << 2) | code) & mask;
        reverse = (reverse >> 2) | ((3 - code) << top);
        valid += 1;
        if valid >= k {
            sketch.add_hash(mix(forward.min(reverse)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dna(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                b"ACGT"[(x >> 62) as usize]
            })
            .collect()
    }

    fn sketch(seqs: &[&[u8]]) -> Sketch {
        sketch_with(21, true, seqs)
    }

    fn sketch_with(k: u32, canonical: bool, seqs: &[&[u8]]) -> Sketch {
        let mut sketcher = Sketcher::new(k, canonical);
        let mut s = Sketch::default();
        for seq in seqs {
            sketcher.add(seq, &mut s);
        }
        s
    }

    #[test]
    fn similarity_tracks_shared_content() {
        let shared = dna(1, 60_000);
        let a_only = dna(2, 60_000);
        let b_only = dna(3, 60_000);
        let a = sketch(&[&shared, &a_only]);
        let b = sketch(&[&shared, &b_only]);
        // Jaccard of the k-mer sets is about 1/3.
        let j = a.similarity(&b);
        assert!((0.15..=0.55).contains(&j), "{j}");
        assert_eq!(a.similarity(&a), 1.0);
        let unrelated = sketch(&[&dna(4, 120_000)]);
        assert!(a.similarity(&unrelated) < 0.1);
        // Strand does not matter for canonical terms.
        let mut reverse: Vec<u8> = shared
            .iter()
            .rev()
            .map(|&b| match b {
                b'A' => b'T',
                b'C' => b'G',
                b'G' => b'C',
                _ => b'A',
            })
            .collect();
        assert_eq!(sketch(&[&reverse]), sketch(&[&shared]));
        reverse.make_ascii_lowercase();
        assert_eq!(sketch(&[&reverse]), sketch(&[&shared]));
        assert_eq!(a.filled(), BINS);
        assert_eq!(Sketch::default().similarity(&Sketch::default()), 0.0);
    }

    #[test]
    fn union_sizes_are_estimated_within_a_quarter() {
        let mut union = Sketch::default();
        assert_eq!(union.estimated_kmers(), 0.0);
        let mut distinct = 0.0;
        for part in 0..8u64 {
            let piece = dna(100 + part, 25_000);
            let s = sketch_with(31, true, &[&piece]);
            let e = s.estimated_kmers();
            assert!((e / 25_000.0 - 1.0).abs() < 0.4, "{e}");
            union.merge(&s);
            // A repeated piece adds nothing.
            union.merge(&s);
            distinct += 25_000.0 - 30.0;
            let e = union.estimated_kmers();
            assert!((e / distinct - 1.0).abs() < 0.25, "{e} vs {distinct}");
        }
    }

    #[test]
    fn every_kind_of_k_mer_sketches_alike() {
        let shared = dna(5, 40_000);
        let a = [&shared[..], &dna(6, 40_000)[..]].concat();
        let b = [&shared[..], &dna(7, 40_000)[..]].concat();
        // Rolling 2-bit hashes (k <= 32, canonical) and term hashes (k > 32, or as written).
        for (k, canonical) in [(31, true), (32, true), (33, true), (31, false), (1, true)] {
            let (sa, sb) = (
                sketch_with(k, canonical, &[&a]),
                sketch_with(k, canonical, &[&b]),
            );
            let j = sa.similarity(&sb);
            let expected = if k == 1 { 1.0 } else { 1.0 / 3.0 };
            assert!(
                (j - expected).abs() < 0.2,
                "k={k} canonical={canonical}: {j}"
            );
        }
        // Bytes other than ACGT end a window; lower case reads as upper case.
        let mut gapped = shared.clone();
        gapped[20_000] = b'N';
        let j = sketch_with(31, true, &[&gapped]).similarity(&sketch_with(31, true, &[&shared]));
        assert!(j > 0.9, "{j}");
    }
}
