//! Seeded random streams and small DNA helpers (complement, substitutions).

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The PRNG used everywhere: fast, small state, good statistical quality.
pub type SimRng = Xoshiro256PlusPlus;

/// Independent random streams. Every piece of the collection draws from its
/// own stream, derived from the global seed, the stream kind and an index, so
/// that e.g. genome 17 is the same whatever the thread count, the number of
/// genomes, or whether `--soft-mask` is on.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Stream {
    Core = 1,
    Clade = 2,
    AccessoryGene = 3,
    RealGene = 4,
    Plan = 5,
    StrainSubstitutions = 6,
    NRuns = 7,
    SoftMask = 8,
    Contigs = 9,
    Species = 10,
    Plasmid = 11,
    Cargo = 12,
    Query = 13,
    UniversalGene = 14,
    UniversalPlan = 15,
}

/// SplitMix64 finaliser (Steele et al.), a good 64-bit mixer.
fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A PRNG for `(seed, stream, index)`.
pub fn rng_for(seed: u64, stream: Stream, index: u64) -> SimRng {
    let s = splitmix64(splitmix64(splitmix64(seed) ^ stream as u64) ^ index);
    SimRng::seed_from_u64(s)
}

/// Complement of one base; keeps case, maps anything that is not ACGT to N.
pub const fn complement(b: u8) -> u8 {
    match b {
        b'A' => b'T',
        b'C' => b'G',
        b'G' => b'C',
        b'T' => b'A',
        b'a' => b't',
        b'c' => b'g',
        b'g' => b'c',
        b't' => b'a',
        b'n' => b'n',
        _ => b'N',
    }
}

static COMPLEMENT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = complement(i as u8);
        i += 1;
    }
    t
};

/// Appends the reverse complement of `src` to `dst`.
pub fn revcomp_into(src: &[u8], dst: &mut Vec<u8>) {
    dst.extend(src.iter().rev().map(|&b| COMPLEMENT[b as usize]));
}

/// Reverse-complements `s` in place.
pub fn revcomp_in_place(s: &mut [u8]) {
    s.reverse();
    for b in s.iter_mut() {
        *b = COMPLEMENT[*b as usize];
    }
}

/// The reverse complement of `s`.
#[cfg(test)]
pub fn revcomp(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(s.len());
    revcomp_into(s, &mut v);
    v
}

/// A point substitution of base `b`: a transition (A<->G, C<->T) with
/// probability 2/3, otherwise one of the two transversions (ts/tv = 2, typical
/// of bacteria). Non-ACGT bytes are returned unchanged.
pub fn substitute<R: rand::Rng + ?Sized>(b: u8, rng: &mut R) -> u8 {
    let x: u32 = rng.random_range(0..6);
    match (b, x) {
        (b'A', 0..=3) => b'G',
        (b'G', 0..=3) => b'A',
        (b'C', 0..=3) => b'T',
        (b'T', 0..=3) => b'C',
        (b'A' | b'G', 4) => b'C',
        (b'A' | b'G', _) => b'T',
        (b'C' | b'T', 4) => b'A',
        (b'C' | b'T', _) => b'G',
        _ => b,
    }
}

/// Uniform `f64` in `[0, 1)`.
pub fn unit<R: rand::Rng + ?Sized>(rng: &mut R) -> f64 {
    rng.random::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_are_distinct_and_reproducible() {
        let a = rng_for(1, Stream::Plan, 0).next_u64();
        assert_eq!(a, rng_for(1, Stream::Plan, 0).next_u64());
        assert_ne!(a, rng_for(1, Stream::Plan, 1).next_u64());
        assert_ne!(a, rng_for(2, Stream::Plan, 0).next_u64());
        assert_ne!(a, rng_for(1, Stream::Contigs, 0).next_u64());
    }

    #[test]
    fn revcomp_works() {
        assert_eq!(revcomp(b"AACGTNa"), b"tNACGTT".to_vec());
        let mut s = b"ACCGT".to_vec();
        revcomp_in_place(&mut s);
        assert_eq!(s, b"ACGGT");
    }

    #[test]
    fn substitutions_always_change_the_base_with_ts_tv_2() {
        let mut rng = rng_for(3, Stream::Core, 0);
        let mut transitions = 0;
        for i in 0..30_000 {
            let b = b"ACGT"[i % 4];
            let s = substitute(b, &mut rng);
            assert_ne!(s, b);
            assert!(b"ACGT".contains(&s));
            if matches!(
                (b, s),
                (b'A', b'G') | (b'G', b'A') | (b'C', b'T') | (b'T', b'C')
            ) {
                transitions += 1;
            }
        }
        let frac = transitions as f64 / 30_000.0;
        assert!((frac - 2.0 / 3.0).abs() < 0.02, "{frac}");
        assert_eq!(substitute(b'N', &mut rng), b'N');
    }
}
