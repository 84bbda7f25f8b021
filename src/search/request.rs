//! What one search asks ([`SearchRequest`]): the front ends fill it from their options, and
//! the search's options and the settings its output records are both derived from it, so
//! that what was searched and what the output says was searched cannot differ.

use std::sync::Arc;

use crate::alphabet::BaseReading;
use crate::answer::{Cutoff, SearchSettings};
use crate::query::{Grouping, SearchOptions, THRESHOLD_DEFAULT};

/// A search as a front end asks for it; see the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchRequest {
    /// Which documents are hits: a fraction of the query's k-mers, or an identity estimate.
    pub cutoff: Cutoff,
    /// Hits reported per query at most (0: all).
    pub limit: usize,
    /// Ranked hits passed over first (paging through a large answer).
    pub offset: usize,
    /// How query bases are read.
    pub reading: BaseReading,
    /// Stop reading blocks in which no document can reach the threshold any more.
    pub prune: bool,
    /// Skip blocks their summaries rule out; `false` gives COBS's exact scores.
    pub summaries: bool,
    /// Say where each hit matches (its rows are read again).
    pub coverage: bool,
    /// Read a query's rows in waves, waiting for pruning between them.
    pub waves: bool,
    /// COBS's order: a query of a single lookup leaves its hits unsorted.
    pub cobs_order: bool,
    /// The metadata column hits are counted by.
    pub group_by: Option<String>,
    /// With `group_by`: report only the hits of this group (its value).
    pub only_group: Option<String>,
    /// Score hits corrected for false positives and filter on the corrected containment
    /// ([`SearchOptions::corrected`]); off, scores and filter are COBS's raw ones.
    pub corrected: bool,
    /// With `corrected`: filter on the raw fraction, as COBS, though the hits carry their
    /// corrected scores.
    pub raw_threshold: bool,
}

impl Default for SearchRequest {
    fn default() -> Self {
        SearchRequest {
            cutoff: Cutoff::Fraction(THRESHOLD_DEFAULT),
            limit: 0,
            offset: 0,
            reading: BaseReading::Standard,
            prune: true,
            summaries: true,
            coverage: false,
            waves: false,
            cobs_order: false,
            group_by: None,
            only_group: None,
            corrected: true,
            raw_threshold: false,
        }
    }
}

impl SearchRequest {
    /// The fraction of a query's k-mers a hit holds at least, for indexes whose largest
    /// k is `k_max`.
    pub fn threshold(&self, k_max: u32) -> f64 {
        self.cutoff.threshold(k_max)
    }

    /// The options of the search over indexes of largest k `k_max`; `grouping` is the
    /// grouping of [`SearchRequest::group_by`]'s column, when there is one.
    pub fn options(&self, k_max: u32, grouping: Option<Arc<Grouping>>) -> SearchOptions {
        SearchOptions {
            threshold: self.threshold(k_max),
            limit: self.limit,
            offset: self.offset,
            group_by: grouping,
            only_group: self.only_group.clone(),
            cobs_order: self.cobs_order,
            prune: self.prune,
            coverage: self.coverage,
            summaries: self.summaries,
            waves: self.waves,
            corrected: self.corrected,
            raw_threshold: self.raw_threshold,
        }
    }

    /// What the output records of the search over indexes of largest k `k_max`;
    /// `metadata` names the table joined to the hits, if any.
    pub fn settings(&self, k_max: u32, metadata: Option<String>) -> SearchSettings {
        let (bases, fold_case) = match self.reading {
            BaseReading::Standard => ("standard", false),
            BaseReading::Cobs { fold_case } => ("cobs", fold_case),
        };
        SearchSettings {
            threshold: self.threshold(k_max),
            limit: self.limit,
            bases,
            fold_case,
            prune: self.prune,
            summaries: self.summaries,
            metadata,
            group_by: self.group_by.clone(),
            filter: match (self.corrected, self.raw_threshold) {
                (true, false) => "corrected",
                _ => "raw",
            },
        }
    }
}
