//! Multi-FASTA files as COBS reads them (`cobs/fasta_multifile.hpp`): every `>` record is a
//! document named `<file name up to its first dot>_<record index, six digits>`, its size the
//! bytes of its sequence lines. Read uncompressed, line by line, bytes as they are.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use super::{base_name, pad_index, DocListError, DocumentEntry, FileType};

/// Lines with their end offsets, as `std::getline` reads them.
struct Lines {
    reader: BufReader<File>,
    offset: u64,
    line: Vec<u8>,
    /// Whether the stream is still good: the last line ended with a line break.
    good: bool,
}

impl Lines {
    fn open(path: &Path, offset: u64) -> Result<Lines, DocListError> {
        let mut file = File::open(path).map_err(|e| DocListError::io(path, &e))?;
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| DocListError::io(path, &e))?;
        Ok(Lines {
            reader: BufReader::new(file),
            offset,
            line: Vec::new(),
            good: true,
        })
    }

    /// Reads the next line into `self.line`; false when there was none.
    fn next(&mut self, path: &Path) -> Result<bool, DocListError> {
        self.line.clear();
        let read = self
            .reader
            .read_until(b'\n', &mut self.line)
            .map_err(|e| DocListError::io(path, &e))?;
        self.offset += read as u64;
        self.good = self.line.last() == Some(&b'\n');
        if self.good {
            self.line.pop();
        }
        Ok(read > 0)
    }

    fn first(&self) -> u8 {
        // `line[0]` of an empty std::string is its terminating NUL.
        self.line.first().copied().unwrap_or(0)
    }
}

/// The documents of a multi-FASTA file (COBS's `compute_index`).
pub(super) fn entries(path: &Path) -> Result<Vec<DocumentEntry>, DocListError> {
    let mut lines = Lines::open(path, 0)?;
    lines.next(path)?;
    if !matches!(lines.line.first(), Some(b'>' | b';')) {
        return Err(DocListError::file(
            path,
            "not multi-FASTA: the file does not start with '>' or ';'",
        ));
    }
    let name = base_name(path);
    let mut entries = Vec::new();
    loop {
        match lines.first() {
            b'>' => {
                let offset = lines.offset;
                let mut size = 0u64;
                while lines.next(path)? {
                    if matches!(lines.first(), b'>' | b';') {
                        break;
                    }
                    size += lines.line.len() as u64;
                }
                let index = entries.len() as u64;
                entries.push(DocumentEntry {
                    path: path.to_path_buf(),
                    file_type: FileType::FastaMulti,
                    name: format!("{name}_{}", pad_index(index)),
                    size,
                    subdoc_index: index,
                    term_size: 0,
                    term_count: 0,
                    offset,
                });
            }
            // Comments, empty lines, lines of a lone `\r` and stray lines are passed over.
            _ => {
                lines.next(path)?;
            }
        }
        if !lines.good {
            break;
        }
    }
    Ok(entries)
}

/// The term runs of the record whose sequence starts at `offset` (COBS's
/// `FastaSubfile::process_terms`): each line is appended to the last `k − 1` bytes kept and
/// the result is one run; a buffer shorter than `k − 1` after a line is dropped (COBS's
/// unsigned arithmetic empties it), so short lines at a record's start are lost as in COBS.
pub(super) fn runs(
    path: &Path,
    offset: u64,
    k: usize,
    run: &mut dyn FnMut(&[u8]),
) -> Result<(), DocListError> {
    let mut lines = Lines::open(path, offset)?;
    let mut data: Vec<u8> = Vec::new();
    while lines.next(path)? {
        if matches!(lines.first(), b'>' | b';') {
            break;
        }
        data.extend_from_slice(&lines.line);
        if data.is_empty() {
            continue;
        }
        run(&data);
        if data.len() + 1 >= k {
            data.drain(..data.len() + 1 - k);
        } else {
            data.clear();
        }
    }
    Ok(())
}
