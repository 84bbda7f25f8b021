//! What a hit is and the numbers it is measured by: the reported document, COBS's count
//! threshold, the fraction of a query's k-mers found and how answers round it. Ranking,
//! screening, grouping and every answer's writer share these, so each is said once.

/// A reported document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Hit {
    /// Which index (position in the searcher's list).
    pub index: u32,
    /// Document number in that index's name list.
    pub document: u64,
    /// k-mer positions of the query found in the document (Bloom filter: may include false
    /// positives, never misses a present k-mer).
    pub kmers_found: u32,
}

/// The count a document needs: `ceil(threshold · kmers)` computed in f64, as COBS does.
pub(crate) fn count_threshold(threshold: f64, kmers: u64) -> u64 {
    (threshold * kmers as f64).ceil() as u64
}

/// `found / total`; 0 for an empty query.
pub fn fraction(found: u32, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        found as f64 / total as f64
    }
}

/// Rounds to 4 decimals, as answers carry fractions and identities.
pub(crate) fn rounded(value: f64) -> f64 {
    (value * 1e4).round() / 1e4
}
