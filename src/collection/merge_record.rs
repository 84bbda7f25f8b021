//! The build record of a merged sub-index ([`crate::format::build_record`]): each document's
//! bases and k-mers from its member's record, the options the members share.

use std::path::Path;

use crate::format::build_record::{self, BuildRecord, Draft, Inputs, Parameters};
use crate::format::document_table::{DocumentFacts, DocumentTable};
use crate::format::IndexHeader;

/// Writes the record of the merged file `path`, whose documents come from `sources` (member
/// and document number, `None` for a placeholder) of the members `headers`, files `files`.
/// Written only when every member has a usable record; a failure is a warning (the merge is
/// complete without it).
pub(super) fn write(
    path: &Path,
    headers: &[&IndexHeader],
    files: &[String],
    sources: &[Option<(usize, u64)>],
) {
    let Some((records, facts)) = members_facts(headers) else {
        return;
    };
    let documents: Vec<Option<DocumentFacts>> = sources
        .iter()
        .map(|source| source.and_then(|(member, document)| facts[member][document as usize]))
        .collect();
    let draft = Draft {
        command: "merge",
        parameters: parameters(headers, &records),
        inputs: Inputs::of(files, &[], files.len() as u64),
    };
    if let Err(error) = build_record::write_beside(path, draft, &documents) {
        tracing::warn!("{error}; the merged sub-index has no build record");
        let _ = build_record::remove_beside(path);
    }
}

/// Per member, each document's facts in header order (`None`: a placeholder).
type MemberFacts = Vec<Vec<Option<DocumentFacts>>>;

/// Every member's record and its documents' facts, or `None` when one has no usable record.
fn members_facts(headers: &[&IndexHeader]) -> Option<(Vec<BuildRecord>, MemberFacts)> {
    let mut records = Vec::with_capacity(headers.len());
    let mut facts = Vec::with_capacity(headers.len());
    for header in headers {
        let record = build_record::read_beside(header).ok().flatten()?;
        let table: DocumentTable = build_record::documents_beside(header).ok().flatten()?;
        let mut member = Vec::with_capacity(header.document_count() as usize);
        table.for_each(|_, f| member.push(f)).ok()?;
        records.push(record);
        facts.push(member);
    }
    Some((records, facts))
}

/// The options the members share: their false-positive rate when they agree.
fn parameters(headers: &[&IndexHeader], records: &[BuildRecord]) -> Parameters {
    let first = headers[0];
    let fpr = records[0].parameters.fpr;
    Parameters {
        k: first.k,
        canonical: first.canonical,
        hashes: first.num_hashes,
        fpr: fpr.filter(|_| records.iter().all(|r| r.parameters.fpr == fpr)),
        page_size: 0,
        rows: "merged".into(),
        order: "merged".into(),
        per_record: records.iter().any(|r| r.parameters.per_record),
    }
}
