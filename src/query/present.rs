//! What an answer says, defined once for every front end (the command line, the server and
//! its page, Python): how many documents reached the threshold and how many were searched,
//! each hit's identity estimate, and hits counted by group of a metadata column.
//!
//! - **Totals.** `total_hits` counts every document that reached the threshold, whatever the
//!   limit; `documents_searched` every document the query searched. Neither counts a
//!   collection's removed documents nor the placeholders a merge adds.
//! - **Identity.** A copy of a gene that differs by random point substitutions at a rate `d`
//!   keeps a k-mer when none of its `k` bases changed: a fraction `(1 − d)^k` of them. So a
//!   fraction `f` of k-mers found estimates the identity `f^(1/k)` (Mash's reasoning, without
//!   its Jaccard step: the query's k-mers are counted in the document, not compared as
//!   sets). It holds for a full-length copy with scattered substitutions; it is too low for
//!   a copy covering only part of the query (a partial hit), too high when Bloom false
//!   positives add k-mers, and meaningless for indels and rearrangements.
//! - **Groups.** [`Grouping`] maps every document to the value of one metadata column (its
//!   species, say); an answer then says, per value, how many documents carry the query
//!   (`carriers`), how many of that value were searched, the fraction, and the scores of
//!   the carriers (min, median, max of their fractions).

use std::collections::HashMap;
use std::sync::Arc;

use super::index::Index;
use super::rank::Hit;
use crate::metadata::Metadata;

/// The group value of the documents without a value in the column: those the metadata table
/// does not list, and those it lists with an empty cell. No value of a table can be empty, so
/// it cannot collide with one (`NA` is a value like any other).
pub const NO_VALUE: &str = "";

/// What the TSV outputs write where a number is missing (scores of a group without carriers,
/// counts of a query not searched).
pub const NO_NUMBER: &str = "NA";

/// The identity a fraction of k-mers found estimates (see the module documentation), 0 for
/// none found.
pub fn identity(fraction: f64, k: u32) -> f64 {
    if fraction <= 0.0 || k == 0 {
        return 0.0;
    }
    fraction.min(1.0).powf(1.0 / k as f64)
}

/// The fraction of k-mers a copy of identity `identity` keeps: the threshold that
/// `--min-identity` sets.
pub fn threshold_for_identity(identity: f64, k: u32) -> f64 {
    identity.clamp(0.0, 1.0).powi(k as i32)
}

/// Which documents a search reports, as a user says it: a fraction of the query's k-mers
/// (`threshold`), or an identity estimate (`min_identity`). Every front end checks it here,
/// so that all say the same about a bad value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cutoff {
    /// At least this fraction of the query's k-mers.
    Fraction(f64),
    /// An identity estimate of at least this.
    Identity(f64),
}

impl Cutoff {
    /// The cutoff when its value is a number from 0 to 1; else what is wrong and what the
    /// value means.
    pub fn checked(self) -> Result<Cutoff, String> {
        let (Cutoff::Fraction(value) | Cutoff::Identity(value)) = self;
        let meaning = self.meaning();
        if value.is_nan() {
            return Err(format!("\"nan\" is not a number; {meaning}"));
        }
        if !(0.0..=1.0).contains(&value) {
            return Err(format!("{value} is out of range; {meaning}"));
        }
        Ok(self)
    }

    /// What the value means, for error messages.
    pub fn meaning(self) -> &'static str {
        match self {
            Cutoff::Fraction(_) => {
                "the threshold is the fraction of a query's k-mers a document must contain, from 0 to 1 (e.g. 0.8)"
            }
            Cutoff::Identity(_) => {
                "the minimum identity is the identity a hit's copy is estimated to have, from 0 to 1 (e.g. 0.99)"
            }
        }
    }

    /// The threshold (fraction of k-mers) it sets on an index whose largest k is `k`.
    pub fn threshold(self, k: u32) -> f64 {
        match self {
            Cutoff::Fraction(fraction) => fraction,
            Cutoff::Identity(identity) => threshold_for_identity(identity, k),
        }
    }
}

/// Rounds to 4 decimals, as answers carry fractions and identities.
pub fn rounded(value: f64) -> f64 {
    (value * 1e4).round() / 1e4
}

/// Documents grouped by the values of one metadata column; see the module documentation.
#[derive(Debug)]
pub struct Grouping {
    column: String,
    /// Group values; 0 is [`NO_VALUE`].
    values: Vec<String>,
    /// Per index file, per document: its group.
    group_of: Vec<Vec<u32>>,
    /// Per index file, per group: its shown (not hidden) documents.
    shown: Vec<Vec<u64>>,
}

/// One group of an answer.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GroupTally {
    /// The group's value in the metadata column.
    pub value: String,
    /// Documents of the group that reached the threshold.
    pub carriers: u64,
    /// Documents of the group the query searched.
    pub searched: u64,
    /// `carriers / searched`.
    pub fraction: f64,
    /// The carriers' fractions of k-mers found: smallest, median, largest (none without
    /// carriers).
    pub score_min: Option<f64>,
    /// Median.
    pub score_median: Option<f64>,
    /// Largest.
    pub score_max: Option<f64>,
}

impl Grouping {
    /// Groups the documents of `index` by `column` of `metadata` (documents without a value
    /// go to [`NO_VALUE`]). Fails when the table has no such column.
    pub fn new(index: &Index, metadata: &Metadata, column: &str) -> Result<Grouping, String> {
        let position = metadata.column(column).ok_or_else(|| {
            format!(
                "the metadata table has no column {column:?}; its columns: {}",
                metadata.columns().join(", ")
            )
        })?;
        let mut values = vec![NO_VALUE.to_string()];
        let mut known: HashMap<String, u32> = HashMap::from([(NO_VALUE.to_string(), 0)]);
        let mut group_of = Vec::with_capacity(index.file_count());
        let mut shown = Vec::with_capacity(index.file_count());
        for (file, header) in index.headers().iter().enumerate() {
            let hidden = index.hidden()[file].as_ref();
            let mut groups = Vec::with_capacity(header.names.len());
            let mut counts = Vec::new();
            for (document, name) in header.names.iter().enumerate() {
                let group = match metadata.get(name).map(|row| row.cell(position)) {
                    None => 0,
                    Some(value) => match known.get(value) {
                        Some(&group) => group,
                        None => {
                            values.push(value.to_string());
                            known.insert(value.to_string(), (values.len() - 1) as u32);
                            (values.len() - 1) as u32
                        }
                    },
                };
                groups.push(group);
                if !hidden.is_some_and(|h| h.contains(document as u64)) {
                    if counts.len() <= group as usize {
                        counts.resize(group as usize + 1, 0);
                    }
                    counts[group as usize] += 1;
                }
            }
            group_of.push(groups);
            shown.push(counts);
        }
        Ok(Grouping {
            column: column.to_string(),
            values,
            group_of,
            shown,
        })
    }

    /// The metadata column.
    pub fn column(&self) -> &str {
        &self.column
    }

    /// The number of group `value` ([`NO_VALUE`] for documents without a value),
    /// or a number no document has when no document has that value.
    pub fn group_number(&self, value: &str) -> u32 {
        self.values
            .iter()
            .position(|v| v == value)
            .map_or(u32::MAX, |n| n as u32)
    }

    /// The group of a hit's document.
    pub fn group_of(&self, hit: &Hit) -> u32 {
        self.group_of[hit.index as usize][hit.document as usize]
    }

    /// Tallies `hits` (every hit of an answer, not only those shown) of a query that searched
    /// the files `searched` accepts, whose k-mer total per file is `kmers_total`. Groups
    /// with carriers come first, most carriers first (ties by value); then the groups that
    /// were searched without a carrier.
    pub fn tally(
        &self,
        hits: &[Hit],
        kmers_total: &[u64],
        searched: impl Fn(u32) -> bool,
    ) -> Vec<GroupTally> {
        let groups = self.values.len();
        let mut scores: Vec<Vec<f32>> = vec![Vec::new(); groups];
        for hit in hits {
            let group = self.group_of(hit);
            let total = kmers_total[hit.index as usize];
            let fraction = if total == 0 {
                0.0
            } else {
                hit.kmers_found as f64 / total as f64
            };
            scores[group as usize].push(fraction as f32);
        }
        let mut counts = vec![0u64; groups];
        for (file, shown) in self.shown.iter().enumerate() {
            if searched(file as u32) {
                for (group, &n) in shown.iter().enumerate() {
                    counts[group] += n;
                }
            }
        }
        let mut tallies = Vec::new();
        for (group, scores) in scores.iter_mut().enumerate() {
            if counts[group] > 0 || !scores.is_empty() {
                tallies.push(self.one(group, scores, counts[group]));
            }
        }
        tallies.sort_by(|a, b| b.carriers.cmp(&a.carriers).then(a.value.cmp(&b.value)));
        tallies
    }

    fn one(&self, group: usize, scores: &mut [f32], searched: u64) -> GroupTally {
        scores.sort_unstable_by(|a, b| a.total_cmp(b));
        let at = |i: usize| scores.get(i).map(|&s| rounded(s as f64));
        let median = match scores.len() {
            0 => None,
            n if n % 2 == 1 => at(n / 2),
            n => Some(rounded(
                (scores[n / 2 - 1] as f64 + scores[n / 2] as f64) / 2.0,
            )),
        };
        let carriers = scores.len() as u64;
        GroupTally {
            value: self.values[group].clone(),
            carriers,
            searched,
            fraction: if searched == 0 {
                0.0
            } else {
                rounded(carriers as f64 / searched as f64)
            },
            score_min: at(0),
            score_median: median,
            score_max: scores.len().checked_sub(1).and_then(at),
        }
    }
}

/// A grouping shared by every query of a run (or of a request).
pub type SharedGrouping = Arc<Grouping>;

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
