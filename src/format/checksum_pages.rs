//! A checksum sidecar read page by page: what a search keeps of it in memory is its preamble,
//! and the page checksums stay on disk until the reads they cover need them.
//!
//! [`super::Checksums`] holds a whole sidecar (4 bytes per 4 KiB of index, ~1 GB at 1 TB):
//! right for writing one or checking a whole index, wrong for opening a large index on a small
//! machine. [`ChecksumTable`] checks the sidecar's preamble against the index when it is
//! opened (file size, header length and header bytes, and the sidecar's own length), and then
//! says where the checksum of any index page lies in the sidecar
//! ([`ChecksumTable::sidecar_page`]), so a search reads the few sidecar pages its rows need,
//! through the same engine and in the same batches as the rows.
//!
//! A sidecar page read this way cannot be checked against the sidecar's own checksum (that
//! covers the whole file). It needs no check to be safe: a damaged checksum entry can only
//! make a sound index page fail (a changed entry matches a changed page with probability
//! 2^-32), never let a damaged page pass. When a page fails, [`ChecksumTable::sidecar_damage`]
//! reads the whole sidecar once to tell which of the two files is damaged.

use crate::io::SourceFile;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::checksums::{
    block_spans, check_recorded, le_u32, page_location, stream_file, Preamble, MAGIC,
    PREAMBLE_BYTES, SIDECAR_VERSION, TRAILER_BYTES,
};
use super::{sidecar_path, ChecksumError, FormatError, IndexHeader, CHECKSUM_PAGE_BYTES};
use crate::IoAt;

/// The preamble of an index's checksum sidecar, checked against the index; see the module
/// documentation.
#[derive(Debug)]
pub struct ChecksumTable {
    index_path: PathBuf,
    file_size: u64,
    header_bytes: u64,
    page_count: u64,
    /// `[start, end)` file offsets of each block's matrix, to name the block of a bad page.
    blocks: Vec<(u64, u64)>,
    /// Whether the whole sidecar matches its own checksum, once asked (`Some(detail)`: no).
    sidecar_damage: OnceLock<Option<String>>,
}

impl ChecksumTable {
    /// Reads the preamble of the sidecar of `index_path` and checks it against `header` (the
    /// index as just opened) and against the sidecar's length. `Ok(None)` when the index has
    /// no sidecar. Reads 64 bytes of the sidecar and the index header, nothing more.
    pub fn open(
        index_path: &Path,
        header: &IndexHeader,
    ) -> Result<Option<ChecksumTable>, FormatError> {
        let sidecar = sidecar_path(index_path);
        let io_error = |action: &'static str| {
            let path = sidecar.clone();
            move |source| FormatError::Io(IoAt::new(path, action, source))
        };
        let mut file = match SourceFile::open(&sidecar) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error("cannot read checksums")(e)),
        };
        let length = file.len().map_err(io_error("cannot read checksums"))?;
        let mut preamble = Vec::with_capacity(PREAMBLE_BYTES);
        (&mut file)
            .take(PREAMBLE_BYTES as u64)
            .read_to_end(&mut preamble)
            .map_err(io_error("cannot read checksums"))?;
        let fields = decode_preamble(&sidecar, &preamble, length)?;
        let table = ChecksumTable {
            index_path: index_path.to_path_buf(),
            file_size: fields.file_size,
            header_bytes: fields.header_bytes,
            page_count: fields.page_count,
            blocks: block_spans(header),
            sidecar_damage: OnceLock::new(),
        };
        check_recorded(
            index_path,
            header,
            table.file_size,
            table.header_bytes,
            fields.header_checksum,
        )?;
        check_sampled_pages(index_path, header, |page| {
            let mut entry = [0u8; 4];
            file.read_exact_at(&mut entry, entry_offset(page))
                .map(|()| u32::from_le_bytes(entry))
        })?;
        Ok(Some(table))
    }

    /// The sidecar of a plain data file of `file_size` bytes (no COBS header, nothing
    /// checksummed on its own): for tests of the read path on arbitrary files.
    #[cfg(test)]
    pub(crate) fn open_data(path: &Path, file_size: u64) -> Result<ChecksumTable, FormatError> {
        let sidecar = sidecar_path(path);
        let bytes = std::fs::read(&sidecar).map_err(|source| {
            FormatError::Io(IoAt::new(sidecar.clone(), "cannot read checksums", source))
        })?;
        let fields = decode_preamble(&sidecar, &bytes, bytes.len() as u64)?;
        assert_eq!(
            fields.file_size, file_size,
            "the sidecar describes the file"
        );
        Ok(ChecksumTable {
            index_path: path.to_path_buf(),
            file_size,
            header_bytes: fields.header_bytes,
            page_count: fields.page_count,
            blocks: Vec::new(),
            sidecar_damage: OnceLock::new(),
        })
    }

    /// The index these checksums describe.
    pub(crate) fn index_path(&self) -> &Path {
        &self.index_path
    }

    /// Size of the index.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// Number of 4 KiB pages of the index (the last one may be partial).
    pub fn page_count(&self) -> u64 {
        self.page_count
    }

    /// Bytes of the sidecar file.
    pub fn sidecar_bytes(&self) -> u64 {
        (PREAMBLE_BYTES + TRAILER_BYTES) as u64 + 4 * self.page_count
    }

    /// The 4 KiB page of the sidecar that holds the checksum of index page `page`. An entry
    /// never straddles two sidecar pages (entries are 4 bytes from a 64-byte preamble).
    #[inline]
    pub(crate) fn sidecar_page(&self, page: u64) -> u64 {
        debug_assert!(page < self.page_count);
        entry_offset(page) / CHECKSUM_PAGE_BYTES
    }

    /// Offset in the sidecar of the checksum of index page `page` (entries are contiguous).
    pub(crate) fn entry_offset(&self, page: u64) -> u64 {
        entry_offset(page)
    }

    /// The checksum of index page `page`, read from `sidecar_page` (the bytes of sidecar
    /// page [`sidecar_page`](Self::sidecar_page)`(page)`, or the whole sidecar when
    /// `whole` is true).
    #[inline]
    pub(crate) fn expected(&self, page: u64, sidecar_bytes: &[u8], whole: bool) -> Option<u32> {
        let offset = entry_offset(page);
        let at = if whole {
            offset
        } else {
            offset % CHECKSUM_PAGE_BYTES
        } as usize;
        (at + 4 <= sidecar_bytes.len()).then(|| le_u32(sidecar_bytes, at))
    }

    /// Checks `bytes`, read at `offset` of the index, page by page against the checksums
    /// `expected(page)` gives (`None`: the sidecar page is not available, which is an error).
    pub(crate) fn verify(
        &self,
        offset: u64,
        bytes: &[u8],
        mut expected: impl FnMut(u64) -> Option<u32>,
    ) -> Result<(), ChecksumError> {
        let len = bytes.len() as u64;
        let end = offset.checked_add(len);
        if end.is_none_or(|end| end > self.file_size) {
            return Err(ChecksumError::OutOfRange {
                path: self.index_path.clone(),
                offset,
                len,
                file_size: self.file_size,
            });
        }
        let whole = len % CHECKSUM_PAGE_BYTES == 0 || end == Some(self.file_size);
        if offset % CHECKSUM_PAGE_BYTES != 0 || !whole {
            return Err(ChecksumError::Unaligned {
                path: self.index_path.clone(),
                offset,
                len,
            });
        }
        let first = offset / CHECKSUM_PAGE_BYTES;
        for (number, page) in bytes.chunks(CHECKSUM_PAGE_BYTES as usize).enumerate() {
            let page_number = first + number as u64;
            match expected(page_number) {
                Some(want) if crc32c::crc32c(page) == want => {}
                _ => return Err(self.mismatch(page_number)),
            }
        }
        Ok(())
    }

    /// The error for index page `page` not matching its checksum: a damaged index page, or,
    /// when the sidecar itself fails its own checksum (read whole, once), a damaged sidecar.
    pub(crate) fn mismatch(&self, page: u64) -> ChecksumError {
        if let Some(detail) = self.sidecar_damage() {
            return ChecksumError::SidecarDamaged {
                path: sidecar_path(&self.index_path),
                detail,
            };
        }
        ChecksumError::Mismatch {
            path: self.index_path.clone(),
            offset: page * CHECKSUM_PAGE_BYTES,
            location: page_location(&self.blocks, self.header_bytes, self.file_size, page),
        }
    }

    /// What is wrong with the sidecar as a whole (its own checksum, read once), if anything.
    pub fn sidecar_damage(&self) -> Option<String> {
        self.sidecar_damage
            .get_or_init(|| whole_sidecar_damage(&sidecar_path(&self.index_path)))
            .clone()
    }

    /// Checks the whole sidecar's own checksum from its bytes in memory (`sidecar`), once.
    pub(crate) fn sidecar_damage_in(&self, sidecar: &[u8]) -> Option<String> {
        self.sidecar_damage
            .get_or_init(|| own_checksum_damage(sidecar))
            .clone()
    }
}

/// Checks a few data pages of the index ([`super::content::sampled_pages`]) against the
/// checksums `recorded(page)` gives: a sidecar of another build of the index (same header,
/// other data) is refused when the index is opened, before any query runs. Different data
/// change every page, damage a few: only when most of the pages sampled (two at least)
/// differ is the sidecar of another build; fewer are left to the read path, which names each
/// damaged page when it reads it. Local indexes only: a remote index is not sampled.
pub(super) fn check_sampled_pages(
    index_path: &Path,
    header: &IndexHeader,
    mut recorded: impl FnMut(u64) -> std::io::Result<u32>,
) -> Result<(), FormatError> {
    if crate::io::is_remote(index_path) {
        // Not yet for a URL: each sampled page would cost a request at every open.
        return Ok(());
    }
    let sidecar = sidecar_path(index_path);
    let index_error =
        |source| FormatError::Io(IoAt::new(index_path.to_path_buf(), "cannot read", source));
    let index = SourceFile::open(index_path).map_err(index_error)?;
    let pages = super::content::sampled_crcs(&index, header.file_size, header.data_offset)
        .map_err(index_error)?;
    let mut differing = 0u64;
    for &(page, crc) in &pages {
        let want = recorded(page).map_err(|source| {
            FormatError::Io(IoAt::new(sidecar.clone(), "cannot read checksums", source))
        })?;
        differing += u64::from(crc != want);
    }
    let sampled = pages.len() as u64;
    if sampled >= 2 && 2 * differing > sampled {
        return Err(FormatError::SidecarOfAnotherBuild {
            sidecar,
            index: index_path.to_path_buf(),
            differing,
            sampled,
        });
    }
    Ok(())
}

/// Offset in the sidecar of the checksum of index page `page`.
#[inline]
fn entry_offset(page: u64) -> u64 {
    PREAMBLE_BYTES as u64 + 4 * page
}

/// Decodes and checks the first bytes of a sidecar whose file is `length` bytes long.
fn decode_preamble(sidecar: &Path, preamble: &[u8], length: u64) -> Result<Preamble, FormatError> {
    let damaged = |detail: String| FormatError::SidecarDamaged {
        path: sidecar.to_path_buf(),
        detail,
    };
    if preamble.len() < MAGIC.len() || &preamble[..MAGIC.len()] != MAGIC {
        return Err(damaged("not a bitsift checksum file (wrong magic)".into()));
    }
    if preamble.len() < PREAMBLE_BYTES || length < (PREAMBLE_BYTES + TRAILER_BYTES) as u64 {
        return Err(damaged(format!(
            "{length} bytes, shorter than the smallest checksum file ({})",
            PREAMBLE_BYTES + TRAILER_BYTES
        )));
    }
    let version = le_u32(preamble, 16);
    if version != SIDECAR_VERSION {
        return Err(damaged(format!(
            "format version {version} is not supported (this bitsift reads version {SIDECAR_VERSION}; a newer bitsift wrote it, or the file is damaged)"
        )));
    }
    let fields = Preamble::decode(preamble).map_err(|e| damaged(e.to_string()))?;
    let page_count = fields.file_size.div_ceil(CHECKSUM_PAGE_BYTES);
    if fields.page_count != page_count {
        return Err(damaged(format!(
            "{} page checksums recorded for a {}-byte index, which has {page_count} pages",
            fields.page_count, fields.file_size
        )));
    }
    let expected = (PREAMBLE_BYTES + TRAILER_BYTES) as u64 + 4 * page_count;
    if length != expected {
        return Err(damaged(format!(
            "{length} bytes, but {page_count} page checksums need {expected}"
        )));
    }
    Ok(fields)
}

/// Reads the whole sidecar at `path` and checks its own checksum.
fn whole_sidecar_damage(path: &Path) -> Option<String> {
    let mut checksum = 0u32;
    let mut tail = [0u8; TRAILER_BYTES];
    let mut total = 0u64;
    // The last four bytes are the checksum of all before them: hold them back as we stream.
    let streamed = stream_file(path, |bytes| {
        let mut joined = Vec::with_capacity(TRAILER_BYTES + bytes.len());
        joined.extend_from_slice(&tail[..(total.min(TRAILER_BYTES as u64)) as usize]);
        joined.extend_from_slice(bytes);
        let keep = joined.len().min(TRAILER_BYTES);
        let (body, rest) = joined.split_at(joined.len() - keep);
        checksum = crc32c::crc32c_append(checksum, body);
        tail[..keep].copy_from_slice(rest);
        total += bytes.len() as u64;
    });
    match streamed {
        Err(error) => Some(format!("cannot be read whole to check it: {error}")),
        Ok(len) if len < TRAILER_BYTES as u64 => Some("too short".into()),
        Ok(_) if u32::from_le_bytes(tail) != checksum => {
            Some("its own checksum does not match its contents".into())
        }
        Ok(_) => None,
    }
}

/// Checks a whole sidecar in memory against its own checksum.
fn own_checksum_damage(sidecar: &[u8]) -> Option<String> {
    if sidecar.len() < PREAMBLE_BYTES + TRAILER_BYTES {
        return Some("too short".into());
    }
    let body = sidecar.len() - TRAILER_BYTES;
    (crc32c::crc32c(&sidecar[..body]) != le_u32(sidecar, body))
        .then(|| "its own checksum does not match its contents".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_never_straddle_sidecar_pages() {
        for page in [0u64, 1, 1007, 1008, 1009, 2031, 2032, 1 << 30] {
            let offset = entry_offset(page);
            assert_eq!(
                offset / CHECKSUM_PAGE_BYTES,
                (offset + 3) / CHECKSUM_PAGE_BYTES
            );
        }
        // The first sidecar page holds the preamble and 1008 entries; the others 1024.
        assert_eq!(entry_offset(1007) / CHECKSUM_PAGE_BYTES, 0);
        assert_eq!(entry_offset(1008) / CHECKSUM_PAGE_BYTES, 1);
        assert_eq!(entry_offset(1008 + 1024) / CHECKSUM_PAGE_BYTES, 2);
    }

    #[test]
    fn the_own_checksum_is_checked_in_memory_and_streamed_alike() {
        let dir = tempfile::tempdir().unwrap();
        let mut body = MAGIC.to_vec();
        body.resize(PREAMBLE_BYTES + 4 * 5000, 7);
        let own = crc32c::crc32c(&body);
        body.extend_from_slice(&own.to_le_bytes());
        let path = dir.path().join("x.bitsift-checksums");
        std::fs::write(&path, &body).unwrap();
        assert_eq!(own_checksum_damage(&body), None);
        assert_eq!(whole_sidecar_damage(&path), None);
        body[100] ^= 1;
        std::fs::write(&path, &body).unwrap();
        assert!(own_checksum_damage(&body).is_some());
        assert!(whole_sidecar_damage(&path).is_some());
        assert!(whole_sidecar_damage(&dir.path().join("missing")).is_some());
    }
}
