//! Reading sequence files (FASTA or FASTQ, plain or gzip, xz, zstd, bzip2; the format and
//! compression are detected from the content) with errors that name the file and the problem.

use std::path::{Path, PathBuf};

use needletail::errors::ParseErrorKind;
use needletail::parser::FastxReader;

use crate::alphabet::{normalize, BaseReading};

/// Extensions of sequence files (before any compression extension), as found in the wild.
pub(crate) const SEQUENCE_EXTENSIONS: &[&str] = &[
    "fa", "fasta", "fna", "ffn", "frn", "fas", "fsa", "mfa", "mfasta", "seq", "fq", "fastq",
];
/// Extensions of compressed files.
pub(crate) const COMPRESSION_EXTENSIONS: &[&str] = &["gz", "bgz", "xz", "zst", "zstd", "bz2"];

/// Why a sequence file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {detail}", path = path.display())]
pub struct SeqFileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong, in words.
    pub detail: String,
}

/// One record: its name (header up to the first whitespace) and its sequence with line
/// breaks removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeqRecord {
    /// Record name.
    pub name: String,
    /// Bases as in the file.
    pub sequence: Vec<u8>,
}

/// A reader of one sequence file.
pub struct SeqReader {
    path: PathBuf,
    inner: Box<dyn FastxReader>,
    records: u64,
}

impl SeqReader {
    /// Opens `path` and checks that it looks like FASTA or FASTQ.
    pub fn open(path: &Path) -> Result<SeqReader, SeqFileError> {
        if path.is_dir() {
            return Err(SeqFileError {
                path: path.to_path_buf(),
                detail: "is a directory, not a sequence file".into(),
            });
        }
        let file = std::fs::File::open(path).map_err(|e| SeqFileError {
            path: path.to_path_buf(),
            detail: format!("cannot open: {e}"),
        })?;
        SeqReader::from_reader(path, file)
    }

    /// Reads sequences from `reader` (a pipe, bytes in memory), compressed or not, naming
    /// them `path` in errors.
    pub fn from_reader(
        path: &Path,
        reader: impl std::io::Read + Send + 'static,
    ) -> Result<SeqReader, SeqFileError> {
        let inner = needletail::parse_fastx_reader(reader).map_err(|e| describe(path, &e, 0))?;
        Ok(SeqReader {
            path: path.to_path_buf(),
            inner,
            records: 0,
        })
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the next record into `record` (reusing its buffers); `Ok(false)` at the end.
    pub fn next_into(&mut self, record: &mut SeqRecord) -> Result<bool, SeqFileError> {
        let Some(next) = self.inner.next() else {
            return Ok(false);
        };
        let parsed = next.map_err(|e| describe(&self.path, &e, self.records))?;
        self.records += 1;
        record.name.clear();
        let id = parsed.id();
        let end = id
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .unwrap_or(id.len());
        record.name.push_str(&String::from_utf8_lossy(&id[..end]));
        record.sequence.clear();
        let raw = parsed.raw_seq();
        if raw.contains(&b'\n') || raw.contains(&b'\r') {
            record
                .sequence
                .extend(raw.iter().copied().filter(|&b| b != b'\n' && b != b'\r'));
        } else {
            record.sequence.extend_from_slice(raw);
        }
        Ok(true)
    }

    /// Reads the next record and checks and rewrites its bases as `reading` says (see
    /// [`crate::alphabet`]); a record that is not a nucleotide sequence is an error naming the
    /// file and the record. `Ok(false)` at the end.
    pub fn next_bases_into(
        &mut self,
        record: &mut SeqRecord,
        reading: BaseReading,
    ) -> Result<bool, SeqFileError> {
        if !self.next_into(record)? {
            return Ok(false);
        }
        normalize(&mut record.sequence, reading).map_err(|e| SeqFileError {
            path: self.path.clone(),
            detail: format!("record {} ({:?}): {e}", self.records, record.name),
        })?;
        Ok(true)
    }
}

fn describe(path: &Path, error: &needletail::errors::ParseError, records: u64) -> SeqFileError {
    let detail = match error.kind {
        ParseErrorKind::EmptyFile => "empty file: no FASTA or FASTQ records".to_string(),
        ParseErrorKind::UnknownFormat => format!(
            "not FASTA or FASTQ (a sequence file starts with '>' or '@'): {}",
            first_line(&error.msg)
        ),
        ParseErrorKind::Io => format!("read error: {}", first_line(&error.msg)),
        ParseErrorKind::InvalidStart => format!(
            "malformed record after record {records}: expected '>' or '@' at the start of a record ({})",
            error.position
        ),
        ParseErrorKind::InvalidSeparator => format!(
            "malformed FASTQ after record {records}: the third line of a record must start with '+' ({})",
            error.position
        ),
        ParseErrorKind::UnequalLengths => format!(
            "malformed FASTQ after record {records}: sequence and quality lengths differ ({})",
            error.position
        ),
        ParseErrorKind::UnexpectedEnd => format!(
            "truncated after record {records}: the file ends inside a record or right after a header line (an incomplete download or copy?)"
        ),
    };
    SeqFileError {
        path: path.to_path_buf(),
        detail,
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The name of a document read from `path`: the file name without its compression and
/// sequence extensions (`SAMD001.contigs.fa.gz` → `SAMD001.contigs`).
pub fn document_name(path: &Path) -> String {
    let mut name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for extensions in [COMPRESSION_EXTENSIONS, SEQUENCE_EXTENSIONS] {
        if let Some((stem, extension)) = name.rsplit_once('.') {
            if !stem.is_empty() && extensions.contains(&extension.to_ascii_lowercase().as_str()) {
                name.truncate(stem.len());
            }
        }
    }
    name
}

/// Whether `path` has a sequence extension (optionally followed by a compression extension).
pub(crate) fn has_sequence_extension(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let mut parts = name.rsplit('.');
    let Some(last) = parts.next() else {
        return false;
    };
    if SEQUENCE_EXTENSIONS.contains(&last) {
        return name.contains('.');
    }
    if COMPRESSION_EXTENSIONS.contains(&last) {
        return parts.next().is_some_and(|ext| {
            SEQUENCE_EXTENSIONS.contains(&ext) && name.matches('.').count() >= 2
        });
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn names_drop_compression_and_sequence_extensions() {
        assert_eq!(
            document_name(Path::new("a/SAMD001.contigs.fa.gz")),
            "SAMD001.contigs"
        );
        assert_eq!(document_name(Path::new("x.fasta")), "x");
        assert_eq!(document_name(Path::new("x.FNA.ZST")), "x");
        assert_eq!(document_name(Path::new("genome")), "genome");
        assert_eq!(document_name(Path::new(".fa")), ".fa");
        assert_eq!(document_name(Path::new("reads.tar")), "reads.tar");
    }

    #[test]
    fn sequence_extensions() {
        assert!(has_sequence_extension(Path::new("a.fa")));
        assert!(has_sequence_extension(Path::new("a.fastq.gz")));
        assert!(has_sequence_extension(Path::new("a.fna.bz2")));
        assert!(!has_sequence_extension(Path::new("a.txt")));
        assert!(!has_sequence_extension(Path::new("a.gz")));
        assert!(!has_sequence_extension(Path::new("fa")));
    }

    fn write(dir: &Path, name: &str, text: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::File::create(&path)
            .unwrap()
            .write_all(text)
            .unwrap();
        path
    }

    #[test]
    fn reads_multiline_fasta_and_names_up_to_whitespace() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "q.fa",
            b">g1 some gene\nACGT\nacgt\r\n>g2\nTT\n",
        );
        let mut reader = SeqReader::open(&path).unwrap();
        let mut record = SeqRecord::default();
        assert!(reader.next_into(&mut record).unwrap());
        assert_eq!(record.name, "g1");
        assert_eq!(record.sequence, b"ACGTacgt");
        assert!(reader.next_into(&mut record).unwrap());
        assert_eq!(
            (record.name.as_str(), record.sequence.as_slice()),
            ("g2", &b"TT"[..])
        );
        assert!(!reader.next_into(&mut record).unwrap());
    }

    #[test]
    fn errors_name_the_problem() {
        let dir = tempfile::tempdir().unwrap();
        let empty = write(dir.path(), "e.fa", b"");
        let error = SeqReader::open(&empty).err().unwrap().to_string();
        assert!(error.contains("e.fa: empty file"), "{error}");
        let foreign = write(dir.path(), "f.fa", b"hello world\n");
        let error = SeqReader::open(&foreign).err().unwrap().to_string();
        assert!(error.contains("not FASTA or FASTQ"), "{error}");
        let missing = SeqReader::open(&dir.path().join("none.fa"))
            .err()
            .unwrap()
            .to_string();
        assert!(missing.contains("none.fa: cannot open"), "{missing}");
        let truncated = write(dir.path(), "t.fq", b"@r1\nACGT\n+\nIIII\n@r2\nACGT\n+\n");
        let mut reader = SeqReader::open(&truncated).unwrap();
        let mut record = SeqRecord::default();
        assert!(reader.next_into(&mut record).unwrap());
        let error = reader.next_into(&mut record).err().unwrap().to_string();
        assert!(error.contains("t.fq"), "{error}");
    }
}
