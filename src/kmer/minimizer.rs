//! Minimizers: for every k-mer, the smallest hash of its m-mers.
//!
//! Neighbouring k-mers of a sequence share most of their m-mers, so they mostly share their
//! minimizer: a run of k-mers with the same minimizer (a super-k-mer) is ~`(w + 1) / 2` long
//! for windows of `w = k − m + 1` m-mers, and a 1,000-base gene has ~`2000 / (w + 1)` distinct
//! minimizers, not 1,000. Block summaries ([`crate::summary`]) place a k-mer by its
//! minimizer, so the k-mers of one query fall into few pages of them.
//!
//! A minimizer is a function of the k-mer's term (the bytes its row hashes are computed
//! from), so the builder and a query always agree: the bases are read through the same COBS
//! byte map as the term (every byte other than `A C G T`, and with [`BaseRule::Cobs`] every
//! lowercase letter, reads as `A`), and for canonical indexes each m-mer counts as the smaller
//! hash of itself and its reverse complement, which makes a k-mer and its reverse complement
//! share a minimizer whichever of the two the canonical rule picks.

use std::collections::VecDeque;

use super::{kmer_count, BaseRule, FORWARD, FORWARD_FOLDED};

/// Longest m-mer: its 2-bit code fits a `u64`.
pub const M_MAX: u32 = 32;

/// The minimizer length bitsift uses for term size `k`: half of k, at most 13. For k = 31,
/// windows of 19 m-mers (~10 k-mers per minimizer) over 4^13 m-mers, so minimizers of a
/// bacterial genome are nearly all distinct yet a gene has ~100 of them.
pub(crate) fn minimizer_length(k: u32) -> u32 {
    k.div_ceil(2).clamp(1, 13)
}

/// The hash of an m-mer from its 2-bit code (SplitMix64's finaliser; any fixed random order
/// works, this one is fast and mixes every bit).
#[inline]
fn mix(code: u64) -> u64 {
    let mut z = code ^ 0x9e37_79b9_7f4a_7c15;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The minimizer hash handed out: the smallest of `w` hashes is small (its top bits are
/// mostly zero), so it is mixed again before its bits are used (murmur3's finaliser).
#[inline]
fn spread(smallest: u64) -> u64 {
    let mut z = smallest;
    z ^= z >> 33;
    z = z.wrapping_mul(0xff51_afd7_ed55_8ccd);
    z ^= z >> 33;
    z = z.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    z ^ (z >> 33)
}

/// 2-bit code of a base already mapped to `A C G T`.
#[inline]
fn code(mapped: u8) -> u64 {
    match mapped {
        b'C' => 1,
        b'G' => 2,
        b'T' => 3,
        _ => 0,
    }
}

/// Computes the minimizer of every k-mer of sequences; reuses its window between calls.
#[derive(Clone, Debug)]
pub struct Minimizers {
    k: usize,
    m: usize,
    canonical: bool,
    map: &'static [u8; 256],
    /// The window's candidates: (hash, position of the m-mer), hashes increasing.
    window: VecDeque<(u64, usize)>,
}

impl Minimizers {
    /// Minimizers of `m`-mers for k-mers of an index with term size `k` and the canonical
    /// flag `canonical`, reading bases by `rule` (the rule its terms are formed with).
    pub fn new(k: u32, m: u32, canonical: bool, rule: BaseRule) -> Minimizers {
        assert!(
            k > 0 && (1..=M_MAX).contains(&m) && m <= k,
            "1 <= m <= min(k, 32)"
        );
        Minimizers {
            k: k as usize,
            m: m as usize,
            canonical,
            map: match rule {
                BaseRule::Cobs => &FORWARD,
                BaseRule::FoldCase => &FORWARD_FOLDED,
            },
            window: VecDeque::new(),
        }
    }

    /// Appends the minimizer hash of every k-mer position of `seq` to `out`
    /// ([`kmer_count`] of them, in order).
    pub fn minimizers_into(&mut self, seq: &[u8], out: &mut Vec<u64>) {
        let (k, m) = (self.k, self.m);
        let n = kmer_count(seq.len(), k);
        if n == 0 {
            return;
        }
        out.reserve(n);
        let w = k - m + 1;
        let mask = if m == 32 {
            u64::MAX
        } else {
            (1u64 << (2 * m)) - 1
        };
        let shift = 2 * (m as u32 - 1);
        let (mut forward, mut reverse) = (0u64, 0u64);
        self.window.clear();
        for (i, &byte) in seq.iter().enumerate() {
            let c = code(self.map[byte as usize]);
            forward = ((forward << 2) | c) & mask;
            reverse = (reverse >> 2) | ((3 - c) << shift);
            if i + 1 < m {
                continue;
            }
            let start = i + 1 - m;
            let hash = if self.canonical {
                mix(forward).min(mix(reverse))
            } else {
                mix(forward)
            };
            while self.window.back().is_some_and(|&(h, _)| h >= hash) {
                self.window.pop_back();
            }
            self.window.push_back((hash, start));
            if start + 1 < w {
                continue;
            }
            // The window of the k-mer at `start + 1 − w` holds m-mers from there on.
            let first = start + 1 - w;
            while self.window.front().is_some_and(|&(_, p)| p < first) {
                self.window.pop_front();
            }
            let smallest = self
                .window
                .front()
                .expect("the newest m-mer is in the window")
                .0;
            out.push(spread(smallest));
        }
        debug_assert!(out.len() >= n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(seq: &[u8], k: usize, m: usize, canonical: bool, rule: BaseRule) -> Vec<u64> {
        let map = match rule {
            BaseRule::Cobs => &FORWARD,
            BaseRule::FoldCase => &FORWARD_FOLDED,
        };
        let hash = |mmer: &[u8]| {
            let f = mmer
                .iter()
                .fold(0u64, |a, &b| a << 2 | code(map[b as usize]));
            let r = mmer
                .iter()
                .rev()
                .fold(0u64, |a, &b| a << 2 | (3 - code(map[b as usize])));
            if canonical {
                mix(f).min(mix(r))
            } else {
                mix(f)
            }
        };
        seq.windows(k)
            .map(|kmer| spread(kmer.windows(m).map(hash).min().unwrap()))
            .collect()
    }

    fn random(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x = mix(x);
                b"ACGTACGTACGTacgtNRY"[(x % 19) as usize]
            })
            .collect()
    }

    fn reverse_complement(seq: &[u8], rule: BaseRule) -> Vec<u8> {
        let map = match rule {
            BaseRule::Cobs => &FORWARD,
            BaseRule::FoldCase => &FORWARD_FOLDED,
        };
        seq.iter()
            .rev()
            .map(|&b| match map[b as usize] {
                b'A' => b'T',
                b'C' => b'G',
                b'G' => b'C',
                _ => b'A',
            })
            .collect()
    }

    #[test]
    fn equals_the_smallest_m_mer_hash_of_each_k_mer() {
        for (k, m) in [
            (31, 13),
            (31, 31),
            (31, 1),
            (21, 11),
            (5, 3),
            (1, 1),
            (40, 32),
        ] {
            for rule in [BaseRule::Cobs, BaseRule::FoldCase] {
                for canonical in [true, false] {
                    let seq = random(300, k as u64 * 7 + m as u64);
                    let mut minimizers = Minimizers::new(k as u32, m as u32, canonical, rule);
                    let mut out = vec![42];
                    minimizers.minimizers_into(&seq, &mut out);
                    assert_eq!(out[0], 42, "appends");
                    assert_eq!(out[1..], brute(&seq, k, m, canonical, rule), "k {k} m {m}");
                    // Reused for a short sequence: nothing left over from the last one.
                    out.clear();
                    minimizers.minimizers_into(&seq[..k + 2], &mut out);
                    assert_eq!(out, brute(&seq[..k + 2], k, m, canonical, rule));
                    out.clear();
                    minimizers.minimizers_into(&seq[..k - 1], &mut out);
                    assert!(out.is_empty());
                }
            }
        }
    }

    #[test]
    fn a_k_mer_and_its_reverse_complement_share_a_canonical_minimizer() {
        let seq = random(500, 3);
        let rule = BaseRule::FoldCase;
        let mut minimizers = Minimizers::new(31, 13, true, rule);
        let (mut forward, mut reverse) = (Vec::new(), Vec::new());
        minimizers.minimizers_into(&seq, &mut forward);
        minimizers.minimizers_into(&reverse_complement(&seq, rule), &mut reverse);
        reverse.reverse();
        assert_eq!(forward, reverse);
    }

    #[test]
    fn neighbouring_k_mers_share_minimizers() {
        let seq: Vec<u8> = random(20_000, 11)
            .into_iter()
            .map(|b| b"ACGT"[(b % 4) as usize])
            .collect();
        let mut out = Vec::new();
        Minimizers::new(31, minimizer_length(31), true, BaseRule::Cobs)
            .minimizers_into(&seq, &mut out);
        out.dedup();
        let density = out.len() as f64 / (seq.len() - 30) as f64;
        // 2 / (w + 1) with w = 19 m-mers per window.
        assert!((0.08..0.12).contains(&density), "{density}");
    }

    #[test]
    fn minimizer_hashes_spread_over_their_top_bits() {
        let seq: Vec<u8> = random(200_000, 5)
            .into_iter()
            .map(|b| b"ACGT"[(b % 4) as usize])
            .collect();
        let mut out = Vec::new();
        Minimizers::new(31, 13, true, BaseRule::Cobs).minimizers_into(&seq, &mut out);
        out.dedup();
        let mut buckets = [0u32; 16];
        for m in &out {
            buckets[(m >> 60) as usize] += 1;
        }
        let expected = out.len() as f64 / 16.0;
        for count in buckets {
            assert!(
                (count as f64 - expected).abs() < 0.2 * expected,
                "{buckets:?}"
            );
        }
    }

    #[test]
    fn lengths() {
        assert_eq!(minimizer_length(31), 13);
        assert_eq!(minimizer_length(21), 11);
        assert_eq!(minimizer_length(15), 8);
        assert_eq!(minimizer_length(1), 1);
        assert_eq!(minimizer_length(64), 13);
    }
}
