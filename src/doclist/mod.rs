//! COBS's documents: the file types COBS v0.3 reads, the name it gives each document, its
//! size and term count, and the terms (k-mers) it takes from it, so that an index built from a
//! [`DocumentList`] has COBS's names and COBS's bits (`cobs/document_list.hpp`).
//!
//! | type | extensions (as COBS matches them: case-sensitive) | one document is | name |
//! |---|---|---|---|
//! | [`FileType::Text`] | `.txt` | the whole file, every byte | file name up to its first dot |
//! | [`FileType::Cortex`] | `.ctx`, `.cortex` | a McCortex v6 graph of one colour | the graph's sample name |
//! | [`FileType::KMerBuffer`] | `.cobs_doc` | a COBS k-mer buffer (k = 31) | the name in its header |
//! | [`FileType::Fasta`] | `.fa .fasta .fna .ffn .faa .frn`, each also `.gz` | the file | file name up to its first dot |
//! | [`FileType::Fastq`] | `.fq .fastq`, each also `.gz` | the file | file name up to its first dot |
//! | [`FileType::FastaMulti`] | `.mfasta` | each `>` record | file name up to its first dot, `_`, record index in six digits |
//!
//! `.mfastq` files ([`FileType::FastqMulti`]) are recognised but COBS has no reader for them;
//! they are refused, as is anything else, with an error naming the type.
//!
//! Terms are read as COBS reads them ([`DocumentEntry::for_each_run`]): bytes as they are in
//! the file (lowercase, `N`, `\r` included; the k-mer layer's COBS rule maps them), FASTA
//! line by line with COBS's own restarts, text in COBS's 64 KiB chunks. No `.cobs_cache`
//! files are written.

mod cortex;
mod fasta;
mod kmerbuf;
mod multifasta;
mod text;

use std::cmp::Ordering;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::walk::{walk, Visit};

/// Why a document could not be listed or read.
#[derive(Debug, thiserror::Error)]
pub enum DocListError {
    /// A file could not be read, or is not what its extension says.
    #[error("{path}: {detail}", path = path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// A file type name COBS does not know.
    #[error("unknown file type {0:?}: COBS's types are any, text (txt), cortex (ctx), cobs_doc (cobs), fasta, fastq and list")]
    UnknownType(String),
}

impl DocListError {
    fn file(path: &Path, detail: impl Into<String>) -> DocListError {
        DocListError::File {
            path: path.to_path_buf(),
            detail: detail.into(),
        }
    }

    fn io(path: &Path, error: &std::io::Error) -> DocListError {
        DocListError::file(
            path,
            if error.kind() == std::io::ErrorKind::NotFound {
                "no such file or directory".to_string()
            } else {
                format!("cannot read: {error}")
            },
        )
    }
}

/// COBS's document types (`enum class FileType`), with COBS's numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileType {
    /// Any type COBS reads (a filter, and the type of unknown files).
    Any = 0,
    /// A text file: its bytes are the document.
    Text = 1,
    /// A McCortex graph.
    Cortex = 2,
    /// A COBS k-mer buffer (`.cobs_doc`).
    KMerBuffer = 3,
    /// A FASTA file: one document.
    Fasta = 4,
    /// A FASTQ file: one document.
    Fastq = 5,
    /// A multi-FASTA file: one document per record.
    FastaMulti = 6,
    /// A multi-FASTQ file (COBS lists it but cannot read it).
    FastqMulti = 7,
    /// A file of paths.
    List = 8,
}

impl FileType {
    /// Every type, in COBS's order.
    pub(crate) const ALL: [FileType; 9] = [
        FileType::Any,
        FileType::Text,
        FileType::Cortex,
        FileType::KMerBuffer,
        FileType::Fasta,
        FileType::Fastq,
        FileType::FastaMulti,
        FileType::FastqMulti,
        FileType::List,
    ];

    /// COBS's number of the type (the value of Python's `FileType`).
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The type of COBS number `code`.
    pub fn from_code(code: u32) -> Option<FileType> {
        FileType::ALL.get(code as usize).copied()
    }

    /// COBS's `StringToFileType`: a `--file-type` argument, case-insensitive.
    pub fn parse(name: &str) -> Result<FileType, DocListError> {
        match name.to_ascii_lowercase().as_str() {
            "any" | "*" => Ok(FileType::Any),
            "text" | "txt" => Ok(FileType::Text),
            "cortex" | "ctx" => Ok(FileType::Cortex),
            "cobs" | "cobs_doc" => Ok(FileType::KMerBuffer),
            "fasta" => Ok(FileType::Fasta),
            "fastq" => Ok(FileType::Fastq),
            "list" => Ok(FileType::List),
            _ => Err(DocListError::UnknownType(name.to_string())),
        }
    }

    /// The type of `path` by its name, as COBS's `identify_filetype` sees it (`Any`: none).
    pub(crate) fn identify(path: &Path) -> FileType {
        let name = path.as_os_str().as_encoded_bytes();
        let ends = |suffixes: &[&str]| suffixes.iter().any(|s| name.ends_with(s.as_bytes()));
        if ends(&[".txt"]) {
            FileType::Text
        } else if ends(&[".ctx", ".cortex"]) {
            FileType::Cortex
        } else if ends(&[".cobs_doc"]) {
            FileType::KMerBuffer
        } else if ends(&[
            ".fa",
            ".fa.gz",
            ".fasta",
            ".fasta.gz",
            ".fna",
            ".fna.gz",
            ".ffn",
            ".ffn.gz",
            ".faa",
            ".faa.gz",
            ".frn",
            ".frn.gz",
        ]) {
            FileType::Fasta
        } else if ends(&[".fq", ".fq.gz", ".fastq", ".fastq.gz"]) {
            FileType::Fastq
        } else if ends(&[".mfasta"]) {
            FileType::FastaMulti
        } else if ends(&[".mfastq"]) {
            FileType::FastqMulti
        } else if ends(&[".list"]) {
            FileType::List
        } else {
            FileType::Any
        }
    }

    /// Whether a directory scan with this filter takes a file of type `found` (COBS's
    /// `accept`): `Any` takes every document type, the others only themselves.
    pub(crate) fn accepts(self, found: FileType) -> bool {
        match self {
            FileType::Any => !matches!(found, FileType::Any | FileType::List),
            filter => filter == found,
        }
    }

    /// COBS's name of the type (Python's `FileType.<name>`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            FileType::Any => "Any",
            FileType::Text => "Text",
            FileType::Cortex => "Cortex",
            FileType::KMerBuffer => "KMerBuffer",
            FileType::Fasta => "Fasta",
            FileType::Fastq => "Fastq",
            FileType::FastaMulti => "FastaMulti",
            FileType::FastqMulti => "FastqMulti",
            FileType::List => "List",
        }
    }
}

impl fmt::Display for FileType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One document or sub-document, as COBS's `DocumentEntry`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentEntry {
    /// The file.
    pub path: PathBuf,
    /// Its type.
    pub file_type: FileType,
    /// The document's name in an index.
    pub name: String,
    /// Its size in COBS's sense: bytes of the file (text, Cortex, k-mer buffer), bytes of the
    /// uncompressed lines (FASTA, FASTQ), or bases of the record (multi-FASTA).
    pub size: u64,
    /// Record index in a multi-FASTA file (0 otherwise).
    pub subdoc_index: u64,
    /// The fixed length of the file's k-mers (Cortex, k-mer buffer), else 0.
    pub term_size: u64,
    /// The number of those k-mers, else 0.
    pub term_count: u64,
    /// Byte offset of the record's first sequence line (multi-FASTA), else 0.
    pub offset: u64,
}

impl DocumentEntry {
    /// A whole-file document named COBS's way.
    fn whole(path: &Path, file_type: FileType, size: u64) -> DocumentEntry {
        DocumentEntry {
            path: path.to_path_buf(),
            file_type,
            name: base_name(path),
            size,
            subdoc_index: 0,
            term_size: 0,
            term_count: 0,
            offset: 0,
        }
    }

    /// The documents of the file `path`, by its extension (COBS's `DocumentList::load`).
    pub fn load(path: &Path) -> Result<Vec<DocumentEntry>, DocListError> {
        let file_type = FileType::identify(path);
        let size = || {
            std::fs::metadata(path)
                .map(|m| m.len())
                .map_err(|e| DocListError::io(path, &e))
        };
        match file_type {
            FileType::Text => Ok(vec![DocumentEntry::whole(path, file_type, size()?)]),
            FileType::Cortex => {
                let header = cortex::CortexHeader::read(path)?;
                let mut entry = DocumentEntry::whole(path, file_type, size()?);
                entry.name = header.name.clone();
                entry.term_size = header.kmer_size.into();
                entry.term_count = header.num_kmers;
                Ok(vec![entry])
            }
            FileType::KMerBuffer => {
                let header = kmerbuf::KmerBufferHeader::read(path)?;
                let mut entry = DocumentEntry::whole(path, file_type, size()?);
                entry.name = header.name.clone();
                entry.term_size = header.kmer_size.into();
                entry.term_count = header.num_kmers;
                Ok(vec![entry])
            }
            FileType::Fasta => {
                let index = fasta::FastaIndex::read(path)?;
                Ok(vec![DocumentEntry::whole(path, file_type, index.size)])
            }
            FileType::Fastq => {
                let index = fasta::FastqIndex::read(path)?;
                Ok(vec![DocumentEntry::whole(path, file_type, index.size)])
            }
            FileType::FastaMulti => multifasta::entries(path),
            FileType::FastqMulti => Err(DocListError::file(
                path,
                "a multi-FASTQ file (.mfastq): COBS recognises the type but has no reader for it; split it into one FASTQ file per document",
            )),
            FileType::List => Err(DocListError::file(
                path,
                "a list file is not a document; read it as a list (file type list)",
            )),
            FileType::Any => Err(DocListError::file(
                path,
                "not a document type COBS reads (by extension: .txt text, .ctx/.cortex McCortex, .cobs_doc k-mer buffer, .fa/.fasta/.fna/.ffn/.faa/.frn FASTA and .fq/.fastq FASTQ (each plain or .gz), .mfasta multi-FASTA, .list lists)",
            )),
        }
    }

    /// The number of terms of length `k` (COBS's `num_terms`), which sizes the document's
    /// Bloom filter. FASTA and FASTQ files are read again to count them.
    pub fn num_terms(&self, k: u64) -> Result<u64, DocListError> {
        let fixed = |term_size: u64, count: u64| {
            if term_size >= k {
                count * (term_size - k + 1)
            } else {
                0
            }
        };
        Ok(match self.file_type {
            FileType::Text | FileType::FastaMulti => fixed(self.size, 1),
            FileType::Cortex | FileType::KMerBuffer => fixed(self.term_size, self.term_count),
            FileType::Fasta => fasta::FastaIndex::read(&self.path)?.num_terms(k),
            FileType::Fastq => fasta::FastqIndex::read(&self.path)?.num_terms(k),
            other => return Err(self.unreadable(other)),
        })
    }

    fn unreadable(&self, file_type: FileType) -> DocListError {
        DocListError::file(
            &self.path,
            format!("documents of type {file_type} cannot be read"),
        )
    }

    /// Calls `run(bytes)` with byte strings whose windows of `k` bytes are, in order, the
    /// terms COBS takes from this document with term size `k` (each window is one term; a
    /// string shorter than `k` holds none).
    pub(crate) fn for_each_run(
        &self,
        k: usize,
        run: &mut dyn FnMut(&[u8]),
    ) -> Result<(), DocListError> {
        assert!(k > 0, "the term size is positive");
        match self.file_type {
            FileType::Text => text::runs(&self.path, k, run),
            FileType::Cortex => cortex::runs(&self.path, run),
            FileType::KMerBuffer => kmerbuf::runs(&self.path, k, run),
            FileType::Fasta => fasta::fasta_runs(&self.path, k, run),
            FileType::Fastq => fasta::fastq_runs(&self.path, run),
            FileType::FastaMulti => multifasta::runs(&self.path, self.offset, k, run),
            other => Err(self.unreadable(other)),
        }
    }

    /// COBS's default order of a list: by path, then record.
    fn path_order(&self, other: &DocumentEntry) -> Ordering {
        path_bytes(&self.path)
            .cmp(path_bytes(&other.path))
            .then(self.subdoc_index.cmp(&other.subdoc_index))
    }
}

fn path_bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// COBS's `base_name`: the file name up to its first dot (`x.contigs.fa.gz` → `x`, `.a.fa`
/// → the empty name).
pub(crate) fn base_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.split_once('.') {
        Some((stem, _)) => stem.to_string(),
        None => name,
    }
}

/// COBS's `pad_index`: six digits, zero-padded.
pub(crate) fn pad_index(index: u64) -> String {
    format!("{index:06}")
}

/// COBS's automatic page size for `documents` documents (`compact_construct` in
/// `cobs/construction/compact_index.cpp`): sqrt(D/8) rounded up to a power of two, in
/// 8..=4096.
pub fn cobs_page_size(documents: u64) -> u64 {
    let root = ((documents / 8) as f64).sqrt() as u64;
    root.next_power_of_two().clamp(8, 4096)
}

/// A list of documents to index, as COBS's `DocumentList`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentList {
    /// The documents, in index order for a classic index.
    pub entries: Vec<DocumentEntry>,
}

impl DocumentList {
    /// The documents under `root` of type `filter` ([`DocumentList::add_recursive`]).
    pub fn scan(root: &Path, filter: FileType) -> Result<DocumentList, DocListError> {
        let mut list = DocumentList::default();
        list.add_recursive(root, filter)?;
        Ok(list)
    }

    /// Appends the documents of the file `path` (COBS's `add`).
    pub(crate) fn add(&mut self, path: &Path) -> Result<(), DocListError> {
        self.entries.extend(DocumentEntry::load(path)?);
        Ok(())
    }

    /// COBS's `add_recursive`: a directory is scanned recursively for files `filter` accepts;
    /// a `.list` file (or any file with the `List` filter) names files, one a line (empty
    /// lines and lines starting with `#` skipped, relative paths taken from the list's
    /// directory); any other file is added as it is. The whole list is then sorted by path.
    /// Unlike COBS, which logs and skips a file it cannot load, this fails naming the file;
    /// and a root that does not exist is an error, not an empty list.
    pub fn add_recursive(&mut self, root: &Path, filter: FileType) -> Result<(), DocListError> {
        let mut paths = if root.is_dir() {
            scan_directory(root, filter)?
        } else if path_bytes(root).ends_with(b".list") || filter == FileType::List {
            read_list(root)?
        } else if root.is_file() {
            vec![root.to_path_buf()]
        } else {
            return Err(match std::fs::metadata(root) {
                Err(e) => DocListError::io(root, &e),
                Ok(_) => DocListError::file(root, "not a regular file or directory"),
            });
        };
        paths.sort_by(|a, b| path_bytes(a).cmp(path_bytes(b)));
        for path in &paths {
            self.add(path)?;
        }
        self.entries.sort_by(DocumentEntry::path_order);
        Ok(())
    }

    /// Sorts by size, then path (COBS's `sort_by_size`).
    pub(crate) fn sort_by_size(&mut self) {
        self.entries.sort_by(|a, b| {
            a.size
                .cmp(&b.size)
                .then_with(|| path_bytes(&a.path).cmp(path_bytes(&b.path)))
        });
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The term count that sizes a classic index of this list in COBS
    /// (`get_max_file_size`): that of the largest document by (size, path), not the largest
    /// term count. 0 for an empty list.
    pub fn classic_terms(&self, k: u64) -> Result<u64, DocListError> {
        let mut largest: Option<&DocumentEntry> = None;
        for entry in &self.entries {
            let larger = largest.is_none_or(|best| {
                (entry.size, path_bytes(&entry.path)) > (best.size, path_bytes(&best.path))
            });
            if larger {
                largest = Some(entry);
            }
        }
        largest.map_or(Ok(0), |entry| entry.num_terms(k))
    }

    /// COBS's compact layout: documents sorted by size, cut into blocks of `per_block`, each
    /// block sorted by path (COBS builds each block as a classic index of a sorted list), and
    /// blocks whose documents have no term of length `k` left out, as COBS leaves them out.
    /// Returns the documents in index order and their term counts.
    pub fn compact_order(
        &self,
        per_block: usize,
        k: u64,
    ) -> Result<(DocumentList, Vec<u64>), DocListError> {
        assert!(per_block > 0, "a block holds documents");
        let mut sorted = self.clone();
        sorted.sort_by_size();
        let mut ordered = DocumentList::default();
        let mut terms = Vec::with_capacity(sorted.len());
        for block in sorted.entries.chunks(per_block) {
            let mut block = block.to_vec();
            block.sort_by(DocumentEntry::path_order);
            let counts = block
                .iter()
                .map(|entry| entry.num_terms(k))
                .collect::<Result<Vec<_>, _>>()?;
            if counts.iter().all(|&c| c == 0) {
                continue;
            }
            ordered.entries.extend(block);
            terms.extend(counts);
        }
        Ok((ordered, terms))
    }
}

/// The files under `root` that `filter` accepts, judged by name (COBS's recursive scan: links
/// to directories are not entered; hidden files are taken).
fn scan_directory(root: &Path, filter: FileType) -> Result<Vec<PathBuf>, DocListError> {
    walk(root, &mut |path, file_type| {
        if file_type.is_dir() {
            Visit::Descend
        } else if filter.accepts(FileType::identify(path)) {
            Visit::Take
        } else {
            Visit::Skip
        }
    })
    .map_err(|e| DocListError::file(&e.path, format!("{}: {}", e.action, e.source)))
}

/// The paths a list file names, as COBS reads them (lines as they are, no trimming).
fn read_list(list: &Path) -> Result<Vec<PathBuf>, DocListError> {
    let text = std::fs::read(list).map_err(|e| DocListError::io(list, &e))?;
    let parent = list.parent().unwrap_or(Path::new(""));
    let mut paths = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let line = std::str::from_utf8(line)
            .map_err(|_| DocListError::file(list, "a line is not UTF-8"))?;
        let path = Path::new(line);
        paths.push(if path.is_absolute() {
            path.to_path_buf()
        } else {
            parent.join(path)
        });
    }
    Ok(paths)
}

/// Reads a whole file into memory, or says why not.
fn read_all(path: &Path) -> Result<Vec<u8>, DocListError> {
    std::fs::read(path).map_err(|e| DocListError::io(path, &e))
}

#[cfg(test)]
mod tests;
