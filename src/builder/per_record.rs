//! The warning `--per-record` owes before it builds an index far larger than its records
//! need (issue 36): a block's rows are sized for its largest document, so thousands of
//! small contigs beside a chromosome each get a chromosome's filter (31 assemblies made a
//! 7.2 GiB index that way, without a word).

use super::layout::rows_for;
use super::scan::Document;
use crate::units::{format_bytes, plural};

/// Below this expected size an index is built without comment, however padded.
pub(crate) const WARN_BYTES_MIN: u64 = 1 << 30;

/// An index this many times larger than its documents' own filters is worth a warning.
const WARN_RATIO_MIN: u64 = 4;

/// The warning for an index of `documents` (one per record) expected to take
/// `expected_bytes`, or `None` when it is small or close to what its records need alone
/// (each a filter of its own k-mers at `fpr`).
pub(crate) fn warning(
    documents: &[Document],
    expected_bytes: u64,
    num_hashes: u32,
    fpr: f64,
) -> Option<String> {
    if expected_bytes < WARN_BYTES_MIN {
        return None;
    }
    let needed_bits: u64 = documents
        .iter()
        .map(|d| rows_for(d.kmers, num_hashes, fpr))
        .sum();
    let needed_bytes = needed_bits.div_ceil(8).max(1);
    let ratio = expected_bytes / needed_bytes;
    if ratio < WARN_RATIO_MIN {
        return None;
    }
    let mut bases: Vec<u64> = documents.iter().map(|d| d.bases).collect();
    bases.sort_unstable();
    let median = bases.get(bases.len() / 2).copied().unwrap_or(0);
    let largest = bases.last().copied().unwrap_or(0);
    Some(format!(
        "--per-record: {} (median {} bases, largest {}) make an index of {}, {ratio}x what the records need alone ({}): every block's rows are sized for its largest record; index whole files (without --per-record), or build the large records apart from the small ones",
        plural(documents.len() as u64, "record"),
        median,
        largest,
        format_bytes(expected_bytes),
        format_bytes(needed_bytes)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn documents(bases: &[u64]) -> Vec<Document> {
        bases
            .iter()
            .map(|&bases| Document {
                source: 0,
                record: None,
                name: String::new(),
                kmers: bases.saturating_sub(30),
                bases,
            })
            .collect()
    }

    /// The expected size of one block holding every document, rows sized for the largest.
    fn one_block_bytes(documents: &[Document]) -> u64 {
        let largest = documents.iter().map(|d| d.kmers).max().unwrap();
        rows_for(largest, 1, 0.3) * (documents.len() as u64).div_ceil(8)
    }

    #[test]
    fn many_small_records_beside_a_chromosome_are_warned_of() {
        let mut bases = vec![5_000_000; 31];
        bases.extend(std::iter::repeat_n(2_000, 31 * 200));
        let docs = documents(&bases);
        let expected = one_block_bytes(&docs);
        let text = warning(&docs, expected, 1, 0.3).expect("a warning");
        assert!(
            text.starts_with("--per-record: 6231 records (median 2000 bases, largest 5000000)"),
            "{text}"
        );
        assert!(text.contains("x what the records need alone"), "{text}");
    }

    #[test]
    fn small_or_even_indexes_are_built_without_comment() {
        let even = documents(&vec![5_000_000; 2_000]);
        let expected = one_block_bytes(&even);
        assert!(expected >= WARN_BYTES_MIN);
        assert_eq!(warning(&even, expected, 1, 0.3), None);
        let mut small = vec![5_000_000];
        small.extend(std::iter::repeat_n(2_000, 100));
        let small = documents(&small);
        assert!(one_block_bytes(&small) < WARN_BYTES_MIN);
        assert_eq!(warning(&small, one_block_bytes(&small), 1, 0.3), None);
    }
}
