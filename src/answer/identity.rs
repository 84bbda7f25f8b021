//! The identity a hit's copy is estimated to have, from the fraction of the query's k-mers
//! the document holds.
//!
//! A copy of a gene that differs by random point substitutions at a rate `d` keeps a k-mer
//! when none of its `k` bases changed: a fraction `(1 − d)^k` of them. So a fraction `f` of
//! k-mers found estimates the identity `f^(1/k)` (Mash's reasoning, without its Jaccard step:
//! the query's k-mers are counted in the document, not compared as sets). It holds for a
//! full-length copy with scattered substitutions; it is too low for a copy covering only part
//! of the query (a partial hit), too high when Bloom false positives add k-mers, and
//! meaningless for indels and rearrangements.

/// The identity a fraction of k-mers found estimates, `fraction^(1/k)` (a copy with point
/// substitutions at a rate `d` keeps `(1 − d)^k` of the k-mers), 0 for none found.
pub fn identity(fraction: f64, k: u32) -> f64 {
    if fraction <= 0.0 || k == 0 {
        return 0.0;
    }
    fraction.min(1.0).powf(1.0 / k as f64)
}

/// The fraction of k-mers a copy of identity `identity` keeps: the threshold that
/// `--min-identity` sets.
pub(crate) fn threshold_for_identity(identity: f64, k: u32) -> f64 {
    identity.clamp(0.0, 1.0).powi(k as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_inverts_the_fraction_of_k_mers_a_copy_keeps() {
        assert_eq!(identity(1.0, 31), 1.0);
        assert_eq!(identity(0.0, 31), 0.0);
        // 0.8 of 31-mers: about 99.28 % identity; the threshold for 99 % is 0.732.
        assert!((identity(0.8, 31) - 0.99283).abs() < 1e-4);
        assert!((threshold_for_identity(0.99, 31) - 0.73223).abs() < 1e-4);
        for id in [0.9, 0.95, 0.99, 0.999] {
            let back = identity(threshold_for_identity(id, 31), 31);
            assert!((back - id).abs() < 1e-12, "{id} {back}");
        }
    }
}
