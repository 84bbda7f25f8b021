//! Block summaries of a merged sub-index, from its members' summaries: no genome is read.
//!
//! A copied block keeps its filter. A re-packed block holds columns of several source blocks,
//! so its documents' k-mers are in the union of theirs: the OR of their filters, each first
//! folded to the smallest of their sizes (folding is exact, [`crate::summary`]), has no false
//! negative for any of its documents. The merged file gets summaries only when every member
//! has usable format-2 summaries of the same geometry; otherwise none, as before, and its
//! blocks are read in full.

use std::path::Path;

use crate::builder::output::PendingFile;
use crate::format::checksums::sidecar_digest;
use crate::format::content::content_digest_of;
use crate::format::IndexHeader;
use crate::summary::file::SummaryFile;
use crate::summary::filter::Filter;
use crate::summary::identity::{BlockSummary, IndexIdentity};
use crate::summary::{header_fingerprint, summary_path, BlockSummaries};

use super::CollectionError;
use crate::IoAt;

/// Where a block of the merged file comes from.
pub(super) enum Source {
    /// Block `block` of member `member`, copied.
    Copy { member: usize, block: usize },
    /// The columns of these (member, block)s, re-packed.
    Pack(Vec<(usize, usize)>),
}

/// Writes the summaries of the merged file `header` (committed), whose blocks come from
/// `sources`; `members` are the members' headers. Returns whether it wrote them (false:
/// some member has none, or not in format 2 of one geometry).
pub(super) fn write(
    members: &[&IndexHeader],
    sources: &[Source],
    header: &IndexHeader,
) -> Result<bool, CollectionError> {
    let mut loaded = Vec::with_capacity(members.len());
    for member in members {
        match BlockSummaries::load(&member.path, member) {
            Ok(Some(summaries)) if summaries.minimizer() > 0 => loaded.push(summaries),
            Ok(_) => return Ok(false),
            Err(error) => {
                tracing::warn!("{error}; the merged sub-index gets no block summaries");
                return Ok(false);
            }
        }
    }
    let (hashes, minimizer) = (loaded[0].hashes(), loaded[0].minimizer());
    if loaded
        .iter()
        .any(|s| (s.hashes(), s.minimizer()) != (hashes, minimizer))
    {
        return Ok(false);
    }
    let mut blocks = Vec::with_capacity(sources.len());
    for (source, block) in sources.iter().zip(&header.blocks) {
        let (filter, kmers_estimate) = match source {
            Source::Copy { member, block } => {
                let s = &loaded[*member];
                (s.filter(*block).clone(), s.kmers_estimate(*block))
            }
            Source::Pack(parts) => union(&loaded, parts),
        };
        blocks.push(BlockSummary {
            first_document: block.first_document,
            document_count: block.document_count,
            kmers_estimate,
            filter,
        });
    }
    let file = SummaryFile {
        identity: IndexIdentity {
            k: header.k,
            canonical: header.canonical,
            num_hashes: header.num_hashes,
            documents: header.document_count(),
            fingerprint: header_fingerprint(header),
            content: content_digest_of(&header.path, header.data_offset).map_err(|source| {
                CollectionError::Io(IoAt::new(
                    header.path.clone(),
                    "cannot read the merged sub-index",
                    source,
                ))
            })?,
            checksums: sidecar_digest(&header.path)
                .map_err(|source| {
                    CollectionError::Io(IoAt::new(
                        header.path.clone(),
                        "cannot read the merged sub-index's checksums",
                        source,
                    ))
                })?
                .unwrap_or(0),
        },
        hashes,
        minimizer,
        blocks,
    };
    commit(&header.path, &file)?;
    Ok(true)
}

/// The OR of the filters of `parts` (member, block), folded to the smallest of them, and the
/// sum of their k-mer estimates (an upper bound of their union's).
fn union(loaded: &[BlockSummaries], parts: &[(usize, usize)]) -> (Filter, u64) {
    let hashes = loaded[0].hashes();
    if parts.is_empty() {
        // Placeholders only: no k-mer, a filter that rules every query out.
        return (Filter::from_words(vec![0], 0, hashes), 0);
    }
    let smallest = parts
        .iter()
        .map(|&(m, b)| loaded[m].filter(b).words_log2())
        .min()
        .unwrap_or(0);
    let mut words: Vec<u64> = Vec::new();
    let mut key_bits = 0;
    let mut kmers = 0u64;
    for &(member, block) in parts {
        let mut filter = loaded[member].filter(block).clone();
        filter.fold(filter.words_log2() - smallest);
        if words.is_empty() {
            words = filter.words().to_vec();
            key_bits = filter.key_bits();
        } else {
            assert_eq!(
                filter.key_bits(),
                key_bits,
                "filters of one geometry fold alike"
            );
            for (a, b) in words.iter_mut().zip(filter.words()) {
                *a |= *b;
            }
        }
        kmers += loaded[member].kmers_estimate(block);
    }
    (Filter::from_words(words, key_bits, hashes), kmers)
}

/// Writes `file` beside the index `index`, atomically.
fn commit(index: &Path, file: &SummaryFile) -> Result<(), CollectionError> {
    let mut pending = Pending {
        file: PendingFile::create(&summary_path(index), false)?,
        error: None,
    };
    let written = file.write_to(&mut pending);
    if let Some(error) = pending.error {
        return Err(error.into());
    }
    written.map_err(|e| CollectionError::Invalid(format!("cannot write block summaries: {e}")))?;
    pending.file.commit()?;
    Ok(())
}

/// A pending file as a [`std::io::Write`], keeping its own error.
struct Pending {
    file: PendingFile,
    error: Option<crate::builder::BuildError>,
}

impl std::io::Write for Pending {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self.file.write_all(bytes) {
            Ok(()) => Ok(bytes.len()),
            Err(error) => {
                let text = error.to_string();
                self.error = Some(error);
                Err(std::io::Error::other(text))
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
