//! What block summaries describe: the index they belong to ([`IndexIdentity`]) and each
//! block's summary ([`BlockSummary`]). Both formats' files ([`super::file`],
//! [`super::layout`]) encode and decode these.

use super::filter::Filter;

/// What the summaries describe: the index they belong to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexIdentity {
    /// Term size.
    pub k: u32,
    /// Canonical k-mers.
    pub canonical: bool,
    /// Hash functions of the index.
    pub num_hashes: u32,
    /// Documents.
    pub documents: u64,
    /// Header fingerprint.
    pub fingerprint: u64,
    /// Digest of the index's data ([`crate::format::content::content_digest`]), which binds
    /// the summaries to one build; 0 when not recorded (format 1 and format 2 version 2).
    pub content: u64,
    /// The CRC-32C that ends the index's checksum sidecar, plus 2^32 (0: no sidecar, or not
    /// recorded): it covers every page checksum, so it binds the summaries to every byte of
    /// the build whose sidecar it is ([`crate::format::checksums::sidecar_digest`]).
    pub checksums: u64,
}

/// One block's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BlockSummary {
    /// First document of the block.
    pub first_document: u64,
    /// Documents of the block.
    pub document_count: u64,
    /// Estimated distinct k-mers of the block's documents.
    pub kmers_estimate: u64,
    /// The filter of their union.
    pub filter: Filter,
}
