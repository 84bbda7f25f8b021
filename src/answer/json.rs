//! The one JSON shape of a query's answer: an element of `bitsift query --format json`'s
//! `queries` and of `POST /api/search`'s `results`, serialized by serde from the search's
//! [`QueryResult`].
//!
//! Hits are serialized one at a time as the answer is written ([`JsonHits`]), so an answer of
//! 600,000 hits never exists as one string or one list of objects. Fields a front end does
//! not carry are left out rather than written empty: the command line has no `bases` or
//! `offset`, the server no per-query `stats`.

use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;

use super::scores::{CorrectedJson, HitScores};
use super::status::SkipReason;
use crate::format::FormatError;
use crate::metadata::Metadata;
use crate::query::{rounded, Coverage, GroupTally, Index, QueryResult, QueryStats};

/// One query's answer, answered or not; see the module documentation.
#[derive(Serialize)]
pub(crate) struct QueryJson<'a> {
    /// The query's name.
    pub query: &'a str,
    /// Bases of the query (the server's answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bases: Option<usize>,
    /// `hit`, `no_hit`, or why the query was not searched ([`SkipReason::status`]).
    pub status: &'static str,
    /// The query's k-mers (the largest count over the indexes searched).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kmers_total: Option<u64>,
    /// Documents that reached the threshold, whatever the limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_hits: Option<u64>,
    /// Documents the query searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documents_searched: Option<u64>,
    /// Ranked hits skipped before the first one shown (the server's paging).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// Hits by group, when the search grouped them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub groups: Option<&'a [GroupTally]>,
    /// The hits shown, best first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hits: Option<JsonHits<'a>>,
    /// Why the query was not searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    /// What the query cost (the command line's answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<&'a QueryStats>,
}

impl<'a> QueryJson<'a> {
    /// The answer of `query`, searched with result `result` whose hits are `hits`.
    pub(crate) fn answered(query: &'a str, result: &'a QueryResult, hits: JsonHits<'a>) -> Self {
        QueryJson {
            query,
            bases: None,
            status: if result.hits.is_empty() {
                "no_hit"
            } else {
                "hit"
            },
            kmers_total: Some(result.kmers_total.iter().copied().max().unwrap_or(0)),
            total_hits: Some(result.total_hits),
            documents_searched: Some(result.documents_searched),
            offset: None,
            groups: None,
            hits: Some(hits),
            error: None,
            stats: None,
        }
    }

    /// The answer of `query`, not searched for `reason`, told by `error`.
    pub(crate) fn skipped(query: &'a str, reason: SkipReason, error: &'a str) -> Self {
        QueryJson {
            query,
            bases: None,
            status: reason.status(),
            kmers_total: None,
            total_hits: None,
            documents_searched: None,
            offset: None,
            groups: None,
            hits: None,
            error: Some(error),
            stats: None,
        }
    }
}

/// The hits of one result, serialized one at a time as a JSON list of [`JsonHit`].
pub(crate) struct JsonHits<'a> {
    /// The index searched.
    pub index: &'a Index,
    /// The result whose hits these are (no hits: an empty list).
    pub result: Option<&'a QueryResult>,
    /// Each hit carries the name of its index (its file's source, [`Index::source_name`]).
    pub named: bool,
    /// Each hit carries its `file` number (when several files were searched).
    pub numbered_files: bool,
    /// The metadata table whose row each hit carries, if any.
    pub metadata: Option<&'a Metadata>,
}

impl Serialize for JsonHits<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(result) = self.result else {
            return serializer.serialize_seq(Some(0))?.end();
        };
        self.index
            .prefetch_names(&result.hits)
            .map_err(serde::ser::Error::custom)?;
        let mut list = serializer.serialize_seq(Some(result.hits.len()))?;
        for (i, hit) in result.hits.iter().enumerate() {
            let mut entry =
                JsonHit::of(self.index, result, i).map_err(serde::ser::Error::custom)?;
            entry.index = self.named.then(|| self.index.source_name(hit.index));
            entry.file = self.numbered_files.then_some(hit.index);
            entry.metadata = self.metadata.and_then(|m| metadata_json(m, entry.document));
            list.serialize_element(&entry)?;
        }
        list.end()
    }
}

/// One hit as every JSON answer carries it (the command line's and the server's).
#[derive(Serialize)]
struct JsonHit<'a> {
    /// The document's name.
    pub document: &'a str,
    /// The name of its index (a collection, or a file), when answers need it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<&'a str>,
    /// The hit's file, numbered through `indexes[].files` in order, when there are several
    /// (`merge-results` ranks by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<u32>,
    /// Query k-mers found in the document.
    pub kmers_found: u32,
    /// Query k-mers.
    pub kmers_total: u64,
    /// `kmers_found / kmers_total`, to 4 decimals.
    pub fraction: f64,
    /// The identity estimate (see `answer::identity`) of the corrected containment (of the
    /// fraction when the search did not correct it), to 4 decimals.
    pub identity: f64,
    /// The score corrected for false positives: `containment`, its interval, `borderline`,
    /// `fpr`, `fp_expected`, `p_false` ([`super::scores`]).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub corrected: Option<CorrectedJson>,
    /// Where the hit matches, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<&'a Coverage>,
    /// The document's row of the metadata table, when one is given and lists it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

impl<'a> JsonHit<'a> {
    /// Hit `i` of `result`, a search of `index`, without label or metadata.
    fn of(index: &'a Index, result: &'a QueryResult, i: usize) -> Result<JsonHit<'a>, FormatError> {
        let hit = &result.hits[i];
        let header = &index.headers()[hit.index as usize];
        let total = result.kmers_total[hit.index as usize];
        let scores = HitScores::of(result, i, header.k);
        Ok(JsonHit {
            document: index.document_name(hit.index, hit.document)?,
            index: None,
            file: None,
            kmers_found: hit.kmers_found,
            kmers_total: total,
            fraction: rounded(scores.fraction),
            identity: rounded(scores.identity),
            corrected: scores.json(),
            coverage: result.coverage.get(i),
            metadata: None,
        })
    }
}

/// The row of `document` in `metadata` as a JSON object, if the table lists it.
fn metadata_json(
    metadata: &Metadata,
    document: &str,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    let row = metadata.get(document)?;
    Some(
        metadata
            .columns()
            .iter()
            .zip(row.cells())
            .map(|(c, v)| (c.clone(), serde_json::Value::String(v.to_string())))
            .collect(),
    )
}
