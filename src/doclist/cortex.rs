//! McCortex graphs as COBS reads them (`cobs/cortex_file.hpp`): version 6, one colour; each
//! k-mer of the graph is one run, its terms the windows of the term size within it.

use std::path::Path;

use super::DocListError;

/// Bases of the 2-bit codes, high bits first (COBS's `kmer_byte_to_base_pairs`).
const BASES: [u8; 4] = [b'A', b'C', b'G', b'T'];

/// What COBS reads from a graph's header.
pub(super) struct CortexHeader {
    /// The sample name (the document's name).
    pub name: String,
    /// The graph's k.
    pub kmer_size: u32,
    /// 64-bit words per k-mer.
    pub words: u32,
    /// Where the k-mers start.
    pub data_offset: usize,
    /// How many k-mers follow.
    pub num_kmers: u64,
}

/// A cursor over the header bytes that fails with the path.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DocListError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let Some(end) = end else {
            return Err(DocListError::file(self.path, "truncated McCortex header"));
        };
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn u32(&mut self) -> Result<u32, DocListError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    fn magic(&mut self) -> Result<(), DocListError> {
        if self.take(6).ok() != Some(b"CORTEX".as_slice()) {
            return Err(DocListError::file(
                self.path,
                "not a McCortex graph: the magic word CORTEX is missing",
            ));
        }
        Ok(())
    }
}

impl CortexHeader {
    /// Reads the header of `path` and counts its k-mers.
    pub(super) fn read(path: &Path) -> Result<CortexHeader, DocListError> {
        let bytes = super::read_all(path)?;
        Self::parse(&bytes, path)
    }

    fn parse(bytes: &[u8], path: &Path) -> Result<CortexHeader, DocListError> {
        let mut cursor = Cursor { bytes, at: 0, path };
        cursor.magic()?;
        let version = cursor.u32()?;
        if version != 6 {
            return Err(DocListError::file(
                path,
                format!("McCortex version {version}; COBS reads version 6"),
            ));
        }
        let kmer_size = cursor.u32()?;
        let words = cursor.u32()?;
        let colours = cursor.u32()?;
        if colours != 1 {
            return Err(DocListError::file(
                path,
                format!("a McCortex graph of {colours} colours; COBS reads graphs of one"),
            ));
        }
        if kmer_size == 0 || (words as u64) * 32 < kmer_size as u64 {
            return Err(DocListError::file(
                path,
                format!("k = {kmer_size} does not fit {words} 64-bit words per k-mer"),
            ));
        }
        cursor.take(4 + 8)?; // mean read length, total length
        let name_length = cursor.u32()? as usize;
        let name = String::from_utf8_lossy(cursor.take(name_length)?).into_owned();
        cursor.take(16)?; // error rate
        cursor.take(12)?; // cleaning flags and thresholds
        let graph_name_length = cursor.u32()? as usize;
        cursor.take(graph_name_length)?;
        cursor.magic()?;
        let record = 8 * words as u64 + 5;
        Ok(CortexHeader {
            name,
            kmer_size,
            words,
            data_offset: cursor.at,
            num_kmers: (bytes.len() - cursor.at) as u64 / record,
        })
    }
}

/// Appends the `kmer_size` bases of a k-mer packed in `packed` bytes, read from the last byte
/// to the first, the first of them holding only `kmer_size mod 4` bases (COBS's
/// `KMer::to_string`).
pub(super) fn unpack(packed: &[u8], kmer_size: usize, out: &mut Vec<u8>) {
    debug_assert_eq!(packed.len(), kmer_size.div_ceil(4));
    out.clear();
    for (i, &byte) in packed.iter().rev().enumerate() {
        let skip = if i == 0 && kmer_size % 4 != 0 {
            4 - kmer_size % 4
        } else {
            0
        };
        for slot in skip..4 {
            out.push(BASES[((byte >> (6 - 2 * slot)) & 3) as usize]);
        }
    }
}

/// The runs of a graph: its k-mers as bases.
pub(super) fn runs(path: &Path, run: &mut dyn FnMut(&[u8])) -> Result<(), DocListError> {
    let bytes = super::read_all(path)?;
    let header = CortexHeader::parse(&bytes, path)?;
    let kmer_size = header.kmer_size as usize;
    let record = 8 * header.words as usize + 5;
    let packed = kmer_size.div_ceil(4);
    let mut kmer = Vec::with_capacity(kmer_size);
    let data = &bytes[header.data_offset..];
    for chunk in data.chunks_exact(record).take(header.num_kmers as usize) {
        unpack(&chunk[..packed], kmer_size, &mut kmer);
        run(&kmer);
    }
    Ok(())
}
