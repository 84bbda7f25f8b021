//! Why a query has no answer: the `status` of a query that was not searched, as every
//! output says it (TSV's `status` column, the JSON answers' `status`).

/// Why a query was not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// Fewer bases than k: no k-mer to look up.
    TooShort,
    /// Not a nucleotide sequence (see [`crate::alphabet`]).
    NotNucleotides,
    /// A read the query needed failed (after retries); the other queries were answered.
    ReadFailed,
}

impl SkipReason {
    /// The value of the `status` column.
    pub(crate) fn status(self) -> &'static str {
        match self {
            SkipReason::TooShort => "skipped_too_short",
            SkipReason::NotNucleotides => "skipped_not_dna",
            SkipReason::ReadFailed => "failed_read",
        }
    }
}
