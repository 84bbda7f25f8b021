//! Text files as COBS reads them (`cobs/text_file.hpp`): every byte of the file, in chunks of
//! 64 KiB. Each chunk's terms are the windows of the chunk with the bytes carried over from
//! the one before. COBS carries the `k − 1` bytes that end at the chunk's *read* length
//! rather than at its filled length, so past the first chunk the terms that straddle a chunk
//! boundary are not those of the file; this replays that, so the bits are COBS's.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::DocListError;

/// COBS's chunk size.
const BUFFER_BYTES: usize = 64 * 1024;

/// Reads until `buffer` is full or the file ends; returns the bytes read.
fn read_full(file: &mut File, buffer: &mut [u8], path: &Path) -> Result<usize, DocListError> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(DocListError::io(path, &e)),
        }
    }
    Ok(filled)
}

/// The term runs of a text file (one per chunk).
pub(super) fn runs(path: &Path, k: usize, run: &mut dyn FnMut(&[u8])) -> Result<(), DocListError> {
    if k > BUFFER_BYTES {
        return Err(DocListError::file(
            path,
            format!("COBS reads text in chunks of {BUFFER_BYTES} bytes; k = {k} is longer"),
        ));
    }
    let mut file = File::open(path).map_err(|e| DocListError::io(path, &e))?;
    let mut buffer = vec![0u8; BUFFER_BYTES];
    let mut pos = 0;
    loop {
        let wanted = BUFFER_BYTES - pos;
        let read = read_full(&mut file, &mut buffer[pos..], path)?;
        run(&buffer[..pos + read]);
        if read + 1 < k {
            break;
        }
        buffer.copy_within(read + 1 - k..read, 0);
        pos = k - 1;
        if read < wanted {
            break;
        }
    }
    Ok(())
}
