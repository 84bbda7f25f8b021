//! Pass 1 of a build: read every input once to count its k-mer positions, which size the Bloom
//! filters and order the documents, and to reject malformed files before anything is written.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::BuildError;
use crate::alphabet::BaseReading;
use crate::kmer::kmer_count;
use crate::seqfile::{document_name, SeqReader, SeqRecord};

/// One document of the index to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// The file it comes from.
    pub source: u32,
    /// With one document per record: the record's position in the file.
    pub record: Option<u64>,
    /// Name written to the index.
    pub name: String,
    /// k-mer positions (`Σ max(0, len − k + 1)` over its records).
    pub kmers: u64,
    /// Bases.
    pub bases: u64,
}

/// Reads every input and returns its documents (file order, then record order).
pub fn scan(
    files: &[PathBuf],
    k: u32,
    per_record: bool,
    progress: &indicatif::ProgressBar,
) -> Result<Vec<Document>, BuildError> {
    let per_file: Vec<Vec<Document>> = files
        .par_iter()
        .enumerate()
        .map(|(source, path)| {
            let documents = scan_file(source as u32, path, k, per_record)?;
            progress.inc(1);
            Ok(documents)
        })
        .collect::<Result<_, BuildError>>()?;
    Ok(per_file.into_iter().flatten().collect())
}

fn scan_file(
    source: u32,
    path: &Path,
    k: u32,
    per_record: bool,
) -> Result<Vec<Document>, BuildError> {
    let mut reader = SeqReader::open(path)?;
    let mut record = SeqRecord::default();
    let mut documents = Vec::new();
    let mut whole = Document {
        source,
        record: None,
        name: document_name(path),
        kmers: 0,
        bases: 0,
    };
    let mut index = 0u64;
    while reader.next_bases_into(&mut record, BaseReading::Standard)? {
        let kmers = kmer_count(record.sequence.len(), k as usize) as u64;
        if per_record {
            documents.push(Document {
                source,
                record: Some(index),
                name: record.name.clone(),
                kmers,
                bases: record.sequence.len() as u64,
            });
        } else {
            whole.kmers += kmers;
            whole.bases += record.sequence.len() as u64;
        }
        index += 1;
    }
    if !per_record {
        documents.push(whole);
    }
    Ok(documents)
}
