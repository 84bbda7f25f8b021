//! The build records of a collection's sub-indexes ([`crate::format::build_record`]), summed
//! up over the documents the collection shows, for `bitsift info DIR`.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::manifest::{subindex_path, Manifest};
use super::CollectionError;
use crate::format::build_record::{self, BuildRecord, RecordError, Spread};
use crate::format::IndexHeader;

/// The build records of a collection, summed up; see the module documentation.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CollectionRecords {
    /// Per sub-index, in manifest order: `ok`, `none` (built before records, or adopted from
    /// COBS), `stale` (a record of another index) or `unusable` (damaged, unreadable).
    pub status: Vec<&'static str>,
    /// Why each record that is not `ok` or `none` was not used.
    pub problems: Vec<String>,
    /// Documents the collection shows whose bases and k-mers are recorded.
    pub documents: u64,
    /// Their bases.
    pub bases: Spread,
    /// Their k-mer positions.
    pub kmers: Spread,
    /// The highest false-positive rate a block of a recorded sub-index reaches (at its
    /// largest document).
    pub fpr_reached_max: Option<f64>,
    /// The false-positive rates the recorded sub-indexes were built with.
    pub fpr_asked: Vec<f64>,
    /// When the first and the last recorded sub-index was built.
    pub built_first: Option<String>,
    /// See `built_first`.
    pub built_last: Option<String>,
    /// The bitsift versions that built them.
    pub bitsift_versions: Vec<String>,
}

/// Sums up the build records of the sub-indexes of the collection in `directory`.
pub fn records(
    directory: &Path,
    manifest: &Manifest,
) -> Result<CollectionRecords, CollectionError> {
    let mut summary = CollectionRecords::default();
    let (mut bases, mut kmers) = (Vec::new(), Vec::new());
    let (mut built, mut versions, mut asked) = (BTreeSet::new(), BTreeSet::new(), Vec::new());
    for sub in &manifest.subindexes {
        let header = IndexHeader::open(&subindex_path(directory, &sub.file))?;
        let read = build_record::read_beside(&header).and_then(|record| match record {
            Some(record) => Ok(Some((record, build_record::documents_beside(&header)?))),
            None => Ok(None),
        });
        let status = match read {
            Ok(Some((record, Some(table)))) => {
                let hidden = sub.hidden_documents();
                table
                    .for_each(|number, facts| {
                        if let (Some(facts), Err(_)) = (facts, hidden.binary_search(&number)) {
                            bases.push(facts.bases);
                            kmers.push(facts.kmers);
                        }
                    })
                    .map(|()| {
                        note(&mut summary, &record);
                        built.insert(record.created.clone());
                        versions.insert(record.bitsift_version.clone());
                        asked.extend(record.parameters.fpr);
                    })
            }
            Ok(Some((_, None))) => Err(RecordError::Invalid {
                path: directory.join(&sub.file),
                detail: "its build record has no document table beside it".into(),
            }),
            Ok(None) => {
                summary.status.push("none");
                continue;
            }
            Err(error) => Err(error),
        };
        match status {
            Ok(()) => summary.status.push("ok"),
            Err(error @ RecordError::Stale { .. }) => {
                summary.status.push("stale");
                summary.problems.push(error.to_string());
            }
            Err(error) => {
                summary.status.push("unusable");
                summary.problems.push(error.to_string());
            }
        }
    }
    summary.documents = bases.len() as u64;
    summary.bases = Spread::of(&mut bases);
    summary.kmers = Spread::of(&mut kmers);
    summary.built_first = built.first().cloned();
    summary.built_last = built.last().cloned();
    summary.bitsift_versions = versions.into_iter().collect();
    asked.sort_by(f64::total_cmp);
    asked.dedup();
    summary.fpr_asked = asked;
    Ok(summary)
}

/// Takes the highest rate `record`'s blocks reach into `summary`.
fn note(summary: &mut CollectionRecords, record: &BuildRecord) {
    let reached = record
        .blocks
        .iter()
        .filter(|b| b.documents > 0)
        .map(|b| b.fpr(record.parameters.hashes))
        .fold(None, |max: Option<f64>, f| {
            Some(max.map_or(f, |m| m.max(f)))
        });
    if let Some(reached) = reached {
        let max = summary.fpr_reached_max.get_or_insert(reached);
        *max = max.max(reached);
    }
}
