//! FASTA and FASTQ files as COBS reads them (`cobs/fasta_file.hpp`, `cobs/fastq_file.hpp`):
//! line by line, bytes as they are (a `\r` of a CRLF file included), gzip when the name ends
//! in `.gz`. A FASTA sequence restarts at every header, comment (`;`) and empty line; FASTQ
//! records are four lines, the second being the sequence.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::DocListError;

/// Reads lines as C++'s `std::getline` does: without the `\n`; a last line without one is
/// still a line; the end of the file after a `\n` is not.
pub(super) struct Lines {
    reader: Box<dyn BufRead>,
    path: std::path::PathBuf,
    line: Vec<u8>,
}

impl Lines {
    /// Opens `path`, decompressing gzip when its name ends in `.gz` (every member of a
    /// multi-member file).
    pub(super) fn open(path: &Path) -> Result<Lines, DocListError> {
        let file = File::open(path).map_err(|e| DocListError::io(path, &e))?;
        let reader: Box<dyn BufRead> = if path.as_os_str().as_encoded_bytes().ends_with(b".gz") {
            Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
        } else {
            Box::new(BufReader::new(file))
        };
        Ok(Lines {
            reader,
            path: path.to_path_buf(),
            line: Vec::new(),
        })
    }

    /// The next line and whether a `\n` ended it; `None` at the end.
    pub(super) fn next_line(&mut self) -> Result<Option<(&[u8], bool)>, DocListError> {
        self.line.clear();
        let read = self
            .reader
            .read_until(b'\n', &mut self.line)
            .map_err(|e| DocListError::file(&self.path, format!("read error: {e}")))?;
        if read == 0 {
            return Ok(None);
        }
        let newline = self.line.last() == Some(&b'\n');
        if newline {
            self.line.pop();
        }
        Ok(Some((&self.line, newline)))
    }
}

fn starts_with_any(line: &[u8], bytes: &[u8]) -> bool {
    line.first().is_some_and(|b| bytes.contains(b))
}

fn terms_of(lengths: &[u64], k: u64) -> u64 {
    lengths
        .iter()
        .map(|&len| if len >= k { len - k + 1 } else { 0 })
        .sum()
}

/// What COBS's `FastaFile` index holds: the size and the length of every sequence run.
pub(super) struct FastaIndex {
    /// Bytes of the (uncompressed) lines, each counted with its line break.
    pub size: u64,
    /// Lengths of the runs of sequence lines.
    pub lengths: Vec<u64>,
}

impl FastaIndex {
    /// Reads `path` as COBS's `compute_index` does.
    pub(super) fn read(path: &Path) -> Result<FastaIndex, DocListError> {
        let mut lines = Lines::open(path)?;
        let mut index = FastaIndex {
            size: 0,
            lengths: Vec::new(),
        };
        match lines.next_line()? {
            // COBS stops at a file of no line or one line without a line break.
            None | Some((_, false)) => return Ok(index),
            Some((first, true)) => {
                if !starts_with_any(first, b">;") {
                    return Err(DocListError::file(
                        path,
                        "not FASTA: the file does not start with '>' or ';'",
                    ));
                }
                index.size += first.len() as u64 + 1;
            }
        }
        let mut run = 0u64;
        while let Some((line, _)) = lines.next_line()? {
            index.size += line.len() as u64 + 1;
            if line.is_empty() || starts_with_any(line, b">;") {
                if run != 0 {
                    index.lengths.push(run);
                }
                run = 0;
                continue;
            }
            run += line.len() as u64;
        }
        if run != 0 {
            index.lengths.push(run);
        }
        Ok(index)
    }

    /// COBS's `num_terms`.
    pub(super) fn num_terms(&self, k: u64) -> u64 {
        terms_of(&self.lengths, k)
    }
}

/// The term runs of a FASTA file, exactly as COBS's `FastaFile::process_terms` forms them: it
/// appends each line to the last `k − 1` bytes kept, and clears the buffer at a header,
/// comment or empty line. (COBS tests the line at the position where the carried bytes end,
/// which it does not reset at a header: replayed as is.)
pub(super) fn fasta_runs(
    path: &Path,
    k: usize,
    run: &mut dyn FnMut(&[u8]),
) -> Result<(), DocListError> {
    let mut lines = Lines::open(path)?;
    let mut buffer: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    while let Some((line, _)) = lines.next_line()? {
        buffer.extend_from_slice(line);
        let restart = match buffer.len().cmp(&pos) {
            std::cmp::Ordering::Equal => true,
            std::cmp::Ordering::Greater => matches!(buffer[pos], b'>' | b';'),
            // COBS reads past the end of its string here; a sequence byte is what it finds.
            std::cmp::Ordering::Less => false,
        };
        if restart {
            buffer.clear();
            continue;
        }
        run(&buffer);
        if buffer.len() > k - 1 {
            buffer.drain(..buffer.len() - (k - 1));
            pos = k - 1;
        } else {
            pos = 0;
        }
    }
    Ok(())
}

/// What COBS's `FastqFile` index holds.
pub(super) struct FastqIndex {
    /// Bytes of the (uncompressed) lines, each counted with its line break.
    pub size: u64,
    /// Lengths of the sequence lines.
    pub lengths: Vec<u64>,
}

impl FastqIndex {
    /// Reads `path` as COBS's `compute_index` does: four lines a record, the first starting
    /// with `@`, the third with `+`.
    pub(super) fn read(path: &Path) -> Result<FastqIndex, DocListError> {
        let mut index = FastqIndex {
            size: 0,
            lengths: Vec::new(),
        };
        for_each_fastq_line(path, &mut |line, is_sequence| {
            index.size += line.len() as u64 + 1;
            if is_sequence {
                index.lengths.push(line.len() as u64);
            }
        })?;
        Ok(index)
    }

    /// COBS's `num_terms`.
    pub(super) fn num_terms(&self, k: u64) -> u64 {
        terms_of(&self.lengths, k)
    }
}

fn for_each_fastq_line(
    path: &Path,
    visit: &mut dyn FnMut(&[u8], bool),
) -> Result<(), DocListError> {
    let mut lines = Lines::open(path)?;
    let mut number = 0u64;
    while let Some((line, _)) = lines.next_line()? {
        let expected = match number % 4 {
            0 => Some(b'@'),
            2 => Some(b'+'),
            _ => None,
        };
        if let Some(mark) = expected {
            if line.first() != Some(&mark) {
                return Err(DocListError::file(
                    path,
                    format!(
                        "not FASTQ as COBS reads it (four lines a record): line {} does not start with '{}'",
                        number + 1,
                        mark as char
                    ),
                ));
            }
        }
        visit(line, number % 4 == 1);
        number += 1;
    }
    Ok(())
}

/// The term runs of a FASTQ file: each sequence line (COBS's `FastqFile::process_terms`).
pub(super) fn fastq_runs(path: &Path, run: &mut dyn FnMut(&[u8])) -> Result<(), DocListError> {
    for_each_fastq_line(path, &mut |line, is_sequence| {
        if is_sequence {
            run(line);
        }
    })
}
