//! `INDEX.bitsift-build`: how an index was built, which the COBS format does not record
//! (issue 36): when, by which bitsift version, with which options, from what inputs, and
//! the bases and k-mers of its documents (total, smallest, median, largest), with each
//! block's rows and largest document, which give the false-positive rate the block reaches.
//!
//! - [`BuildRecord`] is the index-wide part, a small JSON file beside the index; the
//!   per-document part is [`super::document_table`], a binary table read page by page.
//! - [`write_beside`] is what a build (and a collection merge) calls once the index is in
//!   place: it binds the record to the index as written and replaces any earlier record.
//! - [`read_beside`] reads the record of an opened index; a record of another index (a
//!   rebuild, a COBS build over the same name, a copied file) is [`RecordError::Stale`] and
//!   is never used.
//!
//! A record is bound to its index by the header's fingerprint (parameters, blocks, names),
//! the file size, and a digest of sampled data pages ([`super::content`]): two builds of
//! different genomes under the same names differ there.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::document_table::{self, DocumentFacts};
use super::IndexHeader;
use crate::io_at::IoAt;

/// Suffix of the record beside an index.
pub(crate) const RECORD_SUFFIX: &str = ".bitsift-build";
/// The `format` field of every record.
const FORMAT: &str = "bitsift-build";
const VERSION: u32 = 1;
/// Input paths a record lists; the rest are counted.
const INPUTS_LISTED_MAX: usize = 100;

pub use super::document_table::RecordError;

/// The record path of `index`: its file name plus [`RECORD_SUFFIX`].
pub(crate) fn record_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_os_string();
    name.push(RECORD_SUFFIX);
    PathBuf::from(name)
}

/// How an index was built; see the module documentation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildRecord {
    /// `bitsift-build`.
    pub format: String,
    /// The record's version, 1.
    pub version: u32,
    /// The index it describes.
    pub index: Binding,
    /// When the index was written (RFC 3339, UTC).
    pub created: String,
    /// The bitsift version that wrote it.
    pub bitsift_version: String,
    /// `build` (from sequence files) or `merge` (blocks of a collection's sub-indexes).
    pub command: String,
    /// The options that shaped it.
    pub parameters: Parameters,
    /// What it was built from.
    pub inputs: Inputs,
    /// Documents built from (placeholders of merged blocks not counted).
    pub documents: u64,
    /// Bases of the documents.
    pub bases: Spread,
    /// k-mer positions of the documents (`Σ max(0, length − k + 1)` over their records).
    pub kmers: Spread,
    /// Every block, in file order.
    pub blocks: Vec<BlockFacts>,
}

/// What binds a record to one index: its header's fingerprint, its size and a digest of its
/// sampled data pages (hexadecimal).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// [`IndexHeader::fingerprint`].
    pub fingerprint: String,
    /// Bytes of the index.
    pub file_size: u64,
    /// [`super::content::content_digest`].
    pub content: String,
}

/// The options an index was built with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parameters {
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions.
    pub hashes: u32,
    /// The false-positive rate asked for (`None`: merged from sub-indexes built with
    /// different ones).
    pub fpr: Option<f64>,
    /// Bytes per row (the header's; a writer's draft leaves it 0).
    pub page_size: u64,
    /// How rows were sized: `exact`, `power-of-two`, `terms-N`, or `merged`.
    pub rows: String,
    /// The document order.
    pub order: String,
    /// One document per record instead of per file.
    pub per_record: bool,
}

/// What an index was built from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    /// Inputs as given (files, directories; for a merge, the merged sub-indexes), at most
    /// 100 of them.
    pub given: Vec<String>,
    /// Inputs given, listed or not.
    pub given_count: u64,
    /// List files given (`--list`).
    pub lists: Vec<String>,
    /// Sequence files read (for a merge, sub-indexes).
    pub files: u64,
}

impl Inputs {
    /// The inputs `given`, of which the first 100 are listed, with `lists` and `files` read.
    pub(crate) fn of(given: &[String], lists: &[String], files: u64) -> Inputs {
        Inputs {
            given: given.iter().take(INPUTS_LISTED_MAX).cloned().collect(),
            given_count: given.len() as u64,
            lists: lists.to_vec(),
            files,
        }
    }
}

/// The total, smallest, median and largest of a count over the documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spread {
    /// Sum.
    pub total: u64,
    /// Smallest.
    pub min: u64,
    /// Median (the lower middle value of an even count).
    pub median: u64,
    /// Largest.
    pub max: u64,
}

impl Spread {
    /// The spread of `values` (all zero when there are none); sorts them.
    pub fn of(values: &mut [u64]) -> Spread {
        values.sort_unstable();
        match values {
            [] => Spread::default(),
            _ => Spread {
                total: values.iter().sum(),
                min: values[0],
                median: values[(values.len() - 1) / 2],
                max: values[values.len() - 1],
            },
        }
    }
}

/// One block: its documents, rows and largest document's k-mers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockFacts {
    /// Documents (placeholders not counted).
    pub documents: u64,
    /// Rows (bits of each document's Bloom filter).
    pub rows: u64,
    /// k-mer positions of its largest document.
    pub kmers_max: u64,
}

impl BlockFacts {
    /// The false-positive rate of the block's largest document's filter, an upper bound for
    /// every document of the block ([`bloom_fpr`]).
    pub fn fpr(&self, hashes: u32) -> f64 {
        bloom_fpr(self.kmers_max, self.rows, hashes)
    }
}

/// The false-positive rate of a Bloom filter of `rows` bits with `hashes` hash functions
/// holding `kmers` elements: `(1 − e^(−h·n/m))^h`, the inverse of COBS's sizing rule. With
/// k-mer positions for `kmers` (repeats counted) it is an upper bound.
pub fn bloom_fpr(kmers: u64, rows: u64, hashes: u32) -> f64 {
    let h = hashes as f64;
    (1.0 - (-h * kmers as f64 / rows.max(1) as f64).exp()).powf(h)
}

/// What a writer knows of a build besides the index: the command, options and inputs.
pub(crate) struct Draft {
    /// `build` or `merge`.
    pub command: &'static str,
    /// The options.
    pub parameters: Parameters,
    /// The inputs.
    pub inputs: Inputs,
}

/// Writes the record of the index at `index` (just put in place) and its document table,
/// replacing any earlier ones: `documents` in header order (`None`: a placeholder).
pub(crate) fn write_beside(
    index: &Path,
    draft: Draft,
    documents: &[Option<DocumentFacts>],
) -> Result<(), RecordError> {
    let header = IndexHeader::open(index).map_err(|e| RecordError::Invalid {
        path: index.to_path_buf(),
        detail: format!("cannot describe the index just written: {e}"),
    })?;
    assert_eq!(
        documents.len() as u64,
        header.document_count(),
        "one record per document of the header"
    );
    let content = super::content::content_digest_of(index, header.data_offset)
        .map_err(IoAt::with(index, "cannot read the index just written"))?;
    let blocks = header
        .blocks
        .iter()
        .map(|block| {
            let range = block.first_document as usize
                ..(block.first_document + block.document_count) as usize;
            let built = documents[range].iter().flatten();
            BlockFacts {
                documents: built.clone().count() as u64,
                rows: block.row_count,
                kmers_max: built.map(|d| d.kmers).max().unwrap_or(0),
            }
        })
        .collect();
    let built: Vec<&DocumentFacts> = documents.iter().flatten().collect();
    let record = BuildRecord {
        format: FORMAT.into(),
        version: VERSION,
        index: Binding {
            fingerprint: format!("{:016x}", header.fingerprint()),
            file_size: header.file_size,
            content: format!("{content:016x}"),
        },
        created: crate::timestamp::now_rfc3339(),
        bitsift_version: env!("CARGO_PKG_VERSION").into(),
        command: draft.command.into(),
        parameters: Parameters {
            page_size: header.page_size,
            ..draft.parameters
        },
        inputs: draft.inputs,
        documents: built.len() as u64,
        bases: Spread::of(&mut built.iter().map(|d| d.bases).collect::<Vec<_>>()),
        kmers: Spread::of(&mut built.iter().map(|d| d.kmers).collect::<Vec<_>>()),
        blocks,
    };
    // The table first: the record, written last, is what makes the pair visible.
    let path = record_path(index);
    remove_if_present(&path)?;
    document_table::write(index, header.fingerprint(), documents)?;
    let json = serde_json::to_vec_pretty(&record).expect("a record serializes");
    crate::tempfiles::write_atomically(&path, &json)
        .map_err(IoAt::with(&path, "cannot write the build record"))?;
    Ok(())
}

/// Removes the record and document table beside `index`, if any (a build that writes none
/// must not leave an earlier index's).
pub(crate) fn remove_beside(index: &Path) -> Result<(), RecordError> {
    remove_if_present(&record_path(index))?;
    remove_if_present(&document_table::table_path(index))
}

fn remove_if_present(path: &Path) -> Result<(), RecordError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(IoAt::new(path, "cannot remove the earlier build record", e).into()),
    }
}

/// Reads the record beside the index `header` was opened from: `Ok(None)` when it has none,
/// [`RecordError::Stale`] when the record is another index's.
pub fn read_beside(header: &IndexHeader) -> Result<Option<BuildRecord>, RecordError> {
    let index = &header.path;
    let path = record_path(index);
    let bytes = match crate::io::source::read_whole(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(IoAt::new(path, "cannot read the build record", e).into()),
    };
    let record: BuildRecord = serde_json::from_slice(&bytes).map_err(|e| RecordError::Invalid {
        path: path.clone(),
        detail: format!("not a valid build record: {e}"),
    })?;
    if record.format != FORMAT || record.version != VERSION {
        return Err(RecordError::Invalid {
            path,
            detail: format!(
                "not a build record this version reads ({} version {})",
                record.format, record.version
            ),
        });
    }
    check_binding(&path, header, &record.index)?;
    Ok(Some(record))
}

/// Checks that `binding` names the index `header` was opened from.
fn check_binding(path: &Path, header: &IndexHeader, binding: &Binding) -> Result<(), RecordError> {
    let stale = |detail: String| RecordError::Stale {
        path: path.to_path_buf(),
        detail,
    };
    if binding.fingerprint != format!("{:016x}", header.fingerprint()) {
        return Err(stale(
            "its header fingerprint differs (other documents, rows or parameters)".into(),
        ));
    }
    if binding.file_size != header.file_size {
        return Err(stale(format!(
            "it records {} bytes, the index has {}",
            binding.file_size, header.file_size
        )));
    }
    if crate::io::is_remote(&header.path) {
        return Ok(());
    }
    let content = super::content::content_digest_of(&header.path, header.data_offset)
        .map_err(IoAt::with(&header.path, "cannot read the index"))?;
    if binding.content != format!("{content:016x}") {
        return Err(stale(
            "the index's data differ from those it was written for (a digest of sampled data pages)"
                .into(),
        ));
    }
    Ok(())
}

/// The document table of the index `header` was opened from, whose record is usable:
/// `Ok(None)` when it has none.
pub fn documents_beside(
    header: &IndexHeader,
) -> Result<Option<document_table::DocumentTable>, RecordError> {
    document_table::DocumentTable::open(&header.path, header.fingerprint(), header.document_count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_and_rates() {
        assert_eq!(
            Spread::of(&mut [5, 1, 9, 3]),
            Spread {
                total: 18,
                min: 1,
                median: 3,
                max: 9
            }
        );
        assert_eq!(Spread::of(&mut []), Spread::default());
        // COBS's sizing for 10^6 k-mers, 1 hash, fpr 0.3 gives 2,803,674 rows: the rate
        // they reach is 0.3.
        assert!((bloom_fpr(1_000_000, 2_803_674, 1) - 0.3).abs() < 1e-6);
        assert!((bloom_fpr(1_000_000, 4_808_328, 3) - 0.1).abs() < 1e-6);
        assert!(bloom_fpr(1_000_000, 2 * 2_803_674, 1) < 0.3);
    }
}
