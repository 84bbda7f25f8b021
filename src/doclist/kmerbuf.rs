//! COBS's k-mer buffers (`.cobs_doc`, `cobs/kmer_buffer.hpp`): a header
//! (`COBS:DOCUMENT`, version 1, k, the document's name, `DOCUMENT`) and packed k-mers of
//! `ceil(k/4)` bytes. COBS reads them only with k = 31, each k-mer being one term.

use std::path::Path;

use super::cortex::unpack;
use super::DocListError;

/// The only k COBS reads k-mer buffers with.
const BUFFER_K: u32 = 31;

/// What a k-mer buffer's header says.
pub(super) struct KmerBufferHeader {
    /// The document's name.
    pub name: String,
    /// The k of its k-mers.
    pub kmer_size: u32,
    /// Where the k-mers start.
    pub data_offset: usize,
    /// How many k-mers follow.
    pub num_kmers: u64,
}

impl KmerBufferHeader {
    /// Reads the header of `path`.
    pub(super) fn read(path: &Path) -> Result<KmerBufferHeader, DocListError> {
        Self::parse(&super::read_all(path)?, path)
    }

    fn parse(bytes: &[u8], path: &Path) -> Result<KmerBufferHeader, DocListError> {
        let bad = |what: &str| DocListError::file(path, format!("not a COBS k-mer buffer: {what}"));
        let rest = bytes
            .strip_prefix(b"COBS:DOCUMENT")
            .ok_or_else(|| bad("the magic word COBS:DOCUMENT is missing"))?;
        if rest.len() < 8 {
            return Err(bad("truncated header"));
        }
        let version = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
        if version != 1 {
            return Err(bad(&format!("version {version}, not 1")));
        }
        let kmer_size = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]);
        let rest = &rest[8..];
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| bad("the name is not terminated"))?;
        let name = String::from_utf8_lossy(&rest[..end]).into_owned();
        let data = rest[end + 1..]
            .strip_prefix(b"DOCUMENT")
            .ok_or_else(|| bad("the header's end marker DOCUMENT is missing"))?;
        if kmer_size == 0 {
            return Err(bad("k = 0"));
        }
        Ok(KmerBufferHeader {
            name,
            kmer_size,
            data_offset: bytes.len() - data.len(),
            num_kmers: data.len() as u64 / (kmer_size as u64).div_ceil(4),
        })
    }
}

/// The runs of a k-mer buffer: its k-mers, for term size `k` = 31 only.
pub(super) fn runs(path: &Path, k: usize, run: &mut dyn FnMut(&[u8])) -> Result<(), DocListError> {
    let bytes = super::read_all(path)?;
    let header = KmerBufferHeader::parse(&bytes, path)?;
    if k != BUFFER_K as usize || header.kmer_size != BUFFER_K {
        return Err(DocListError::file(
            path,
            format!(
                "a k-mer buffer of {}-mers indexed with k = {k}: COBS reads k-mer buffers only as 31-mers with k = 31",
                header.kmer_size
            ),
        ));
    }
    let packed = (BUFFER_K as usize).div_ceil(4);
    let mut kmer = Vec::with_capacity(BUFFER_K as usize);
    for chunk in bytes[header.data_offset..].chunks_exact(packed) {
        unpack(chunk, BUFFER_K as usize, &mut kmer);
        run(&kmer);
    }
    Ok(())
}
