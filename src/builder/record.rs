//! The build record of a new index ([`crate::format::build_record`]): what the build knew of
//! its options, inputs and documents, written once the index is in place.

use std::path::PathBuf;

use super::scan::Document;
use super::BuildOptions;
use crate::format::build_record::{self, Draft, Inputs, Parameters};
use crate::format::document_table::DocumentFacts;

/// Writes the build record of the index `options.output`, just put in place, whose documents
/// are `documents` in index order, read from `files`. A failure is a warning: the index is
/// complete without its record, which only `bitsift info` reads.
pub(super) fn write(options: &BuildOptions, files: &[PathBuf], documents: &[Document]) {
    let facts: Vec<Option<DocumentFacts>> = documents
        .iter()
        .map(|d| {
            Some(DocumentFacts {
                bases: d.bases,
                kmers: d.kmers,
            })
        })
        .collect();
    if let Err(error) = build_record::write_beside(&options.output, draft(options, files), &facts) {
        tracing::warn!(
            "{error}; the index is complete, but `bitsift info` cannot say how it was built"
        );
        let _ = build_record::remove_beside(&options.output);
    }
}

fn draft(options: &BuildOptions, files: &[PathBuf]) -> Draft {
    let text = |paths: &[PathBuf]| -> Vec<String> {
        paths.iter().map(|p| p.display().to_string()).collect()
    };
    let (command, given) = match &options.documents {
        // A COBS document list: its "bases" are COBS's document sizes.
        Some(_) => ("cobs-construct", text(files)),
        None => ("build", text(&options.inputs)),
    };
    Draft {
        command,
        parameters: Parameters {
            k: options.k,
            canonical: options.canonical,
            hashes: options.num_hashes,
            fpr: Some(options.fpr),
            page_size: 0,
            rows: options.rows.to_string(),
            order: options.order.to_string(),
            per_record: options.per_record,
        },
        inputs: Inputs::of(&given, &text(&options.lists), files.len() as u64),
    }
}
