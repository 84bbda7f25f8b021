//! Hits counted by group of a metadata column, over every hit of an answer (not only those
//! shown), so ranking tallies them before the limit applies. [`Grouping`] maps every document
//! to the value of one metadata column (its species, say); an answer then says, per value,
//! how many documents carry the query (`carriers`), how many of that value were searched, the
//! fraction, and the scores of the carriers (min, median, max of their fractions). Like the
//! totals (`total_hits`, `documents_searched`), groups never count a collection's removed
//! documents nor the placeholders a merge adds.

use std::collections::HashMap;

use super::hit::{fraction, rounded, Hit};
use super::index::Index;
use crate::metadata::Metadata;

/// The group value of the documents without a value in the column: those the metadata table
/// does not list, and those it lists with an empty cell. No value of a table can be empty, so
/// it cannot collide with one (`NA` is a value like any other).
const NO_VALUE: &str = "";

/// The metadata table has no column of the name a grouping asks for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the metadata table has no column {column:?}; its columns: {columns}")]
pub struct NoColumn {
    /// The column asked for.
    pub column: String,
    /// The table's columns, comma-separated.
    pub columns: String,
}

/// Why documents could not be grouped.
#[derive(Debug, thiserror::Error)]
pub enum GroupByError {
    /// The table has no such column.
    #[error(transparent)]
    NoColumn(#[from] NoColumn),
    /// An index's document names could not be read (grouping reads them all).
    #[error(transparent)]
    Names(#[from] crate::format::FormatError),
}

/// Documents grouped by the values of one metadata column; see the module documentation.
#[derive(Debug)]
pub struct Grouping {
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
    /// go to [`NO_VALUE`]). Fails when the table has no such column, or when the names of
    /// an index read by page cannot be read.
    pub fn new(index: &Index, metadata: &Metadata, column: &str) -> Result<Grouping, GroupByError> {
        let position = metadata.column(column).ok_or_else(|| NoColumn {
            column: column.to_string(),
            columns: metadata.columns().join(", "),
        })?;
        let mut values = vec![NO_VALUE.to_string()];
        let mut known: HashMap<String, u32> = HashMap::from([(NO_VALUE.to_string(), 0)]);
        let mut group_of = Vec::with_capacity(index.file_count());
        let mut shown = Vec::with_capacity(index.file_count());
        for (file, header) in index.headers().iter().enumerate() {
            let hidden = index.hidden()[file].as_ref();
            let mut groups = Vec::with_capacity(header.names.len());
            let mut counts = Vec::new();
            let names = header.names.all()?;
            for (document, name) in names.iter().enumerate() {
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
            values,
            group_of,
            shown,
        })
    }

    /// The number of group `value` ([`NO_VALUE`] for documents without a value),
    /// or a number no document has when no document has that value.
    pub(crate) fn group_number(&self, value: &str) -> u32 {
        self.values
            .iter()
            .position(|v| v == value)
            .map_or(u32::MAX, |n| n as u32)
    }

    /// The group of a hit's document.
    pub(crate) fn group_of(&self, hit: &Hit) -> u32 {
        self.group_of[hit.index as usize][hit.document as usize]
    }

    /// Tallies `hits` (every hit of an answer, not only those shown) of a query that searched
    /// the files `searched` accepts, whose k-mer total per file is `kmers_total`. Groups
    /// with carriers come first, most carriers first (ties by value); then the groups that
    /// were searched without a carrier.
    pub(crate) fn tally(
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
            scores[group as usize].push(fraction(hit.kmers_found, total) as f32);
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
