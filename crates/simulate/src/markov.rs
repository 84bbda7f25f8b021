//! Order-k Markov chain over ACGT, trained from a real genome (both strands),
//! used to draw sequence with a realistic k-mer composition.

use anyhow::{bail, Result};
use rand::{Rng, RngExt};

use crate::seq::complement;

/// Highest supported order (4^10 contexts).
pub const MAX_ORDER: u32 = 10;

const BASES: [u8; 4] = *b"ACGT";

fn code(b: u8) -> Option<usize> {
    match b {
        b'A' | b'a' => Some(0),
        b'C' | b'c' => Some(1),
        b'G' | b'g' => Some(2),
        b'T' | b't' => Some(3),
        _ => None,
    }
}

/// Transition table of an order-k chain: for each context (the previous k
/// bases, 2 bits each) the cumulative thresholds of A, C and G on a 32-bit
/// scale; T takes the rest.
#[derive(Clone, Debug)]
pub struct Markov {
    order: u32,
    table: Vec<[u32; 3]>,
    /// GC fraction of the training data (or the requested GC for i.i.d.).
    pub gc: f64,
    /// Number of transitions counted during training (0 when not trained).
    pub trained_transitions: u64,
}

impl Markov {
    /// Independent bases with the given GC fraction (order 0).
    pub fn iid(gc: f64) -> Self {
        let at = (1.0 - gc) / 2.0;
        let cg = gc / 2.0;
        Markov {
            order: 0,
            table: vec![thresholds([at, cg, cg, at])],
            gc,
            trained_transitions: 0,
        }
    }

    /// Trains an order-`order` chain on `seqs` and their reverse complements
    /// (so the chain is strand-symmetric). Non-ACGT characters break the
    /// context. Pseudocounts of 0.5 keep every transition possible.
    pub fn train<'a>(seqs: impl IntoIterator<Item = &'a [u8]>, order: u32) -> Result<Self> {
        if order > MAX_ORDER {
            bail!("Markov order {order} is too high (at most {MAX_ORDER})");
        }
        let n_ctx = 1usize << (2 * order);
        let mask = n_ctx - 1;
        let mut counts = vec![[0u64; 4]; n_ctx];
        let mut count_strand = |it: &mut dyn Iterator<Item = u8>| {
            let mut ctx = 0usize;
            let mut valid = 0u32;
            for b in it {
                match code(b) {
                    Some(c) => {
                        if valid >= order {
                            counts[ctx][c] += 1;
                        }
                        ctx = ((ctx << 2) | c) & mask;
                        valid = valid.saturating_add(1);
                    }
                    None => {
                        valid = 0;
                        ctx = 0;
                    }
                }
            }
        };
        for s in seqs {
            count_strand(&mut s.iter().copied());
            count_strand(&mut s.iter().rev().map(|&b| complement(b)));
        }
        let mut per_base = [0u64; 4];
        for c in &counts {
            for (t, x) in per_base.iter_mut().zip(c) {
                *t += x;
            }
        }
        let total: u64 = per_base.iter().sum();
        if total < 1_000 {
            bail!("too little ACGT sequence to train an order-{order} Markov chain ({total} transitions; need at least 1000)");
        }
        let table = counts
            .iter()
            .map(|c| {
                let n = c.iter().sum::<u64>() as f64 + 2.0;
                thresholds(c.map(|x| (x as f64 + 0.5) / n))
            })
            .collect();
        Ok(Markov {
            order,
            table,
            gc: (per_base[1] + per_base[2]) as f64 / total as f64,
            trained_transitions: total,
        })
    }

    pub fn order(&self) -> u32 {
        self.order
    }

    /// Draws `len` bases (upper case ACGT).
    pub fn generate<R: Rng + ?Sized>(&self, len: usize, rng: &mut R) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        self.generate_into(len, rng, &mut out);
        out
    }

    /// Appends `len` bases to `out`. The chain starts in a random context and
    /// runs a short burn-in first.
    pub fn generate_into<R: Rng + ?Sized>(&self, len: usize, rng: &mut R, out: &mut Vec<u8>) {
        let mask = self.table.len() - 1;
        let mut ctx = rng.random_range(0..self.table.len());
        let burn_in = 4 * self.order as usize + 16;
        out.reserve(len);
        let mut i = 0usize;
        let total = len + burn_in;
        while i < total {
            // Two draws per 64-bit word.
            let r = rng.next_u64();
            for r in [r as u32, (r >> 32) as u32] {
                if i == total {
                    break;
                }
                let t = &self.table[ctx];
                let c = (r >= t[0]) as usize + (r >= t[1]) as usize + (r >= t[2]) as usize;
                ctx = ((ctx << 2) | c) & mask;
                if i >= burn_in {
                    out.push(BASES[c]);
                }
                i += 1;
            }
        }
    }
}

/// Cumulative thresholds for probabilities of A, C, G, T on a 2^32 scale.
fn thresholds(p: [f64; 4]) -> [u32; 3] {
    let scale = 4_294_967_296.0f64;
    let clamp = |x: f64| (x * scale).round().clamp(0.0, u32::MAX as f64) as u32;
    let a = clamp(p[0]);
    let c = clamp(p[0] + p[1]).max(a);
    let g = clamp(p[0] + p[1] + p[2]).max(c);
    [a, c, g]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::{rng_for, Stream};

    fn gc(s: &[u8]) -> f64 {
        s.iter().filter(|&&b| b == b'G' || b == b'C').count() as f64 / s.len() as f64
    }

    #[test]
    fn iid_respects_gc() {
        let m = Markov::iid(0.3);
        let s = m.generate(200_000, &mut rng_for(1, Stream::Core, 0));
        assert_eq!(s.len(), 200_000);
        assert!((gc(&s) - 0.3).abs() < 0.01, "{}", gc(&s));
        let m = Markov::iid(0.5);
        let s = m.generate(200_000, &mut rng_for(1, Stream::Core, 0));
        assert!((gc(&s) - 0.5).abs() < 0.01);
    }

    #[test]
    fn trained_chain_reproduces_context_structure() {
        // Repeats of the reverse-complement palindrome AACGTT with 1 % noise:
        // both strands have the same order-2 structure (AC -> G, ...).
        let mut rng = rng_for(2, Stream::Core, 0);
        let mut train = b"AACGTT".repeat(20_000);
        for b in train.iter_mut() {
            if rng.random_bool(0.01) {
                *b = crate::seq::substitute(*b, &mut rng);
            }
        }
        let m = Markov::train([train.as_slice()], 2).unwrap();
        assert_eq!(m.order(), 2);
        assert!((m.gc - gc(&train)).abs() < 0.02);
        let s = m.generate(300_000, &mut rng);
        let ac = s.windows(3).filter(|w| &w[..2] == b"AC").count();
        let acg = s.windows(3).filter(|w| w == b"ACG").count();
        assert!(ac > 10_000);
        assert!(acg as f64 / ac as f64 > 0.95, "{acg}/{ac}");
        assert!((gc(&s) - m.gc).abs() < 0.02);
    }

    #[test]
    fn training_rejects_too_little_data() {
        assert!(Markov::train([b"ACGTNNNNACGT".as_slice()], 3).is_err());
        assert!(Markov::train([b"ACGT".as_slice()], MAX_ORDER + 1).is_err());
    }

    #[test]
    fn thresholds_are_monotone() {
        let t = thresholds([0.0, 0.0, 0.0, 1.0]);
        assert_eq!(t, [0, 0, 0]);
        let t = thresholds([1.0, 0.0, 0.0, 0.0]);
        assert_eq!(t, [u32::MAX; 3]);
    }
}
