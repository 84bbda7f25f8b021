//! A hit's numbers as every answer writes them: COBS's raw fraction, the containment
//! corrected for the document's false positives with its interval and confidence
//! ([`crate::query::Corrected`]), and the identity estimated from the corrected containment
//! (from the raw fraction when the search did not correct it).

use std::fmt::Write as _;

use serde::Serialize;

use super::identity::identity;
use crate::query::{fraction, rounded, Corrected, QueryResult};

/// The TSV columns of a corrected score, after `identity`.
pub(crate) const TSV_COLUMNS: [&str; 7] = [
    "containment",
    "containment_low",
    "containment_high",
    "borderline",
    "fpr",
    "fp_expected",
    "p_false",
];

/// Hit `i` of a result: its raw fraction, its identity estimate and its corrected score.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HitScores {
    /// `kmers_found / kmers_total`, false positives included.
    pub fraction: f64,
    /// The identity estimate: of the corrected containment when there is one.
    pub identity: f64,
    /// The score corrected for false positives, when the search computed it.
    pub corrected: Option<Corrected>,
}

impl HitScores {
    /// The scores of hit `i` of `result`, whose index has term size `k`.
    pub(crate) fn of(result: &QueryResult, i: usize, k: u32) -> HitScores {
        let hit = &result.hits[i];
        let fraction = fraction(hit.kmers_found, result.kmers_total[hit.index as usize]);
        let corrected = result.corrected.get(i).copied();
        let basis = corrected.map_or(fraction, |c| c.containment);
        HitScores {
            fraction,
            identity: identity(basis, k),
            corrected,
        }
    }

    /// Appends the [`TSV_COLUMNS`], each after a tab (`NA` without a corrected score).
    pub(crate) fn push_tsv(&self, line: &mut String) {
        let Some(c) = self.corrected else {
            TSV_COLUMNS.iter().for_each(|_| line.push_str("\tNA"));
            return;
        };
        let _ = write!(
            line,
            "\t{:.4}\t{:.4}\t{:.4}\t{}\t{:.4}\t{:.1}\t",
            c.containment, c.low, c.high, c.borderline, c.fpr, c.fp_expected
        );
        match c.p_false {
            0.0 => line.push('0'),
            p => {
                let _ = write!(line, "{p:.2e}");
            }
        }
    }

    /// The corrected score as JSON fields, when there is one.
    pub(crate) fn json(&self) -> Option<CorrectedJson> {
        self.corrected.map(|c| CorrectedJson {
            containment: rounded(c.containment),
            containment_low: rounded(c.low),
            containment_high: rounded(c.high),
            borderline: c.borderline,
            fpr: rounded(c.fpr),
            fp_expected: (c.fp_expected * 10.0).round() / 10.0,
            p_false: significant(c.p_false),
        })
    }
}

/// A corrected score's fields in a JSON hit (beside `fraction` and `identity`).
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct CorrectedJson {
    /// Containment corrected for false positives, to 4 decimals.
    pub containment: f64,
    /// Lower end of its 95 % interval.
    pub containment_low: f64,
    /// Upper end of its 95 % interval.
    pub containment_high: f64,
    /// The interval reaches under the search's threshold.
    pub borderline: bool,
    /// The document's false-positive rate per k-mer.
    pub fpr: f64,
    /// False-positive k-mers expected among those found, to 0.1.
    pub fp_expected: f64,
    /// Probability that false positives alone find as many k-mers, to 3 significant digits.
    pub p_false: f64,
}

/// `value` to 3 significant digits (0 stays 0).
fn significant(value: f64) -> f64 {
    format!("{value:.2e}").parse().unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits() {
        assert_eq!(significant(0.0), 0.0);
        assert_eq!(significant(1.23456e-40), 1.23e-40);
        assert_eq!(significant(0.5), 0.5);
    }
}
