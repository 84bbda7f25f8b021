//! Pass 1 of a build: read every input once to count its k-mer positions, which size the Bloom
//! filters and order the documents, and to reject malformed files before anything is written.
//! It also sketches every document when the order or the summaries need it.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::sketch::{Sketch, Sketcher};
use super::BuildError;
use crate::alphabet::BaseReading;
use crate::doclist::DocumentEntry;
use crate::format::check_document_name;
use crate::kmer::kmer_count;
use crate::seqfile::{document_name, SeqReader, SeqRecord};

/// One document of the index to build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Document {
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

/// Reads every input and returns its documents (file order, then record order) and, when
/// `sketch` gives the canonical flag of the index, one sketch per document (else none).
pub(crate) fn scan(
    files: &[PathBuf],
    k: u32,
    per_record: bool,
    sketch: Option<bool>,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<Document>, Vec<Sketch>), BuildError> {
    let per_file: Vec<(Vec<Document>, Vec<Sketch>)> = files
        .par_iter()
        .enumerate()
        .map(|(source, path)| {
            let mut sketcher = sketch.map(|canonical| Sketcher::new(k, canonical));
            let documents = scan_file(source as u32, path, k, per_record, sketcher.as_mut())?;
            progress.inc(1);
            Ok(documents)
        })
        .collect::<Result<_, BuildError>>()?;
    let mut documents = Vec::new();
    let mut sketches = Vec::new();
    for (d, s) in per_file {
        documents.extend(d);
        sketches.extend(s);
    }
    Ok((documents, sketches))
}

fn scan_file(
    source: u32,
    path: &Path,
    k: u32,
    per_record: bool,
    mut sketcher: Option<&mut Sketcher>,
) -> Result<(Vec<Document>, Vec<Sketch>), BuildError> {
    let name = document_name(path);
    if !per_record {
        check_document_name(&name).map_err(|detail| BuildError::Input {
            path: path.to_path_buf(),
            detail: format!("{detail}; rename the file"),
        })?;
    }
    let mut reader = SeqReader::open(path)?;
    let mut record = SeqRecord::default();
    let mut documents = Vec::new();
    let mut whole = Document {
        source,
        record: None,
        name,
        kmers: 0,
        bases: 0,
    };
    let mut sketches = Vec::new();
    let mut sketch = Sketch::default();
    let mut index = 0u64;
    while reader.next_bases_into(&mut record, BaseReading::Standard)? {
        let kmers = kmer_count(record.sequence.len(), k as usize) as u64;
        if let Some(sketcher) = sketcher.as_mut() {
            sketcher.add(&record.sequence, &mut sketch);
            if per_record {
                sketches.push(std::mem::take(&mut sketch));
            }
        }
        if per_record {
            check_document_name(&record.name).map_err(|detail| BuildError::Input {
                path: path.to_path_buf(),
                detail: format!("record {}: {detail}", index + 1),
            })?;
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
        if sketcher.is_some() {
            sketches.push(sketch);
        }
    }
    Ok((documents, sketches))
}

/// The documents of a COBS document list, in its order: each entry is one document (source
/// `i` is entry `i`), with COBS's name and COBS's term count, which sizes its filter as in
/// COBS. Files are read here only where COBS reads them to count (FASTA, FASTQ).
pub(crate) fn scan_entries(entries: &[DocumentEntry], k: u32) -> Result<Vec<Document>, BuildError> {
    entries
        .par_iter()
        .enumerate()
        .map(|(source, entry)| {
            check_document_name(&entry.name).map_err(|detail| BuildError::Input {
                path: entry.path.clone(),
                detail: detail.to_string(),
            })?;
            Ok(Document {
                source: source as u32,
                record: None,
                name: entry.name.clone(),
                kmers: entry.num_terms(k.into())?,
                bases: entry.size,
            })
        })
        .collect()
}
