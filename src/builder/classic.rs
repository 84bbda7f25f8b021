//! Classic indexes (COBS's `.cobs_classic`): one bit matrix of every document, rows of
//! `ceil(D/8)` bytes. A compact index of a single block whose page size is `ceil(D/8)` has
//! exactly these rows, so [`build_classic`] builds that index under a temporary name and
//! gives its rows a classic header ([`compact_to_classic`]).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::output::PendingFile;
use super::{build, BuildError, BuildOptions, BuildReport};
use crate::format::ones::OnesCounter;
use crate::format::{sidecar_path, write_classic_header, Block, IndexHeader};

/// Bytes copied at a time from the compact index's rows.
const COPY_CHUNK_BYTES: usize = 8 << 20;

/// Builds `options.output` as a classic index (`options.page_size` is replaced by the
/// classic row size; order, k, hashes and rate are as given).
pub fn build_classic(options: &BuildOptions) -> Result<BuildReport, BuildError> {
    if options.output.exists() && !options.force {
        return Err(BuildError::OutputExists {
            path: options.output.clone(),
        });
    }
    let documents = super::input_files(options)?.len() as u64;
    let directory = match options.output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let compact = tempfile::Builder::new()
        .prefix(".bitsift-classic-")
        .suffix(".cobs_compact")
        .tempfile_in(directory)
        .map_err(|e| BuildError::Output {
            path: options.output.clone(),
            detail: format!("cannot create a temporary file beside it: {e}"),
        })?
        .into_temp_path();
    let staged = BuildOptions {
        output: compact.to_path_buf(),
        page_size: Some(documents.div_ceil(8).max(1)),
        force: true,
        summaries: None,
        layout: crate::format::LayoutChoice::Cobs,
        ..options.clone()
    };
    let result = build(&staged).and_then(|report| {
        compact_to_classic(&compact, &options.output, options.force)?;
        Ok(report)
    });
    let _ = std::fs::remove_file(sidecar_path(&compact));
    let _ = std::fs::remove_file(crate::format::catalog::catalog_path(&compact));
    // The record describes the staged compact file, not the classic one.
    let _ = crate::format::build_record::remove_beside(&compact);
    let _ = std::fs::remove_file(crate::format::ones::ones_path(&compact));
    result
}

/// Writes the rows of `compact`, an index of one block whose rows are `ceil(D/8)` bytes, as
/// the classic index `classic` (with its checksum sidecar).
pub(crate) fn compact_to_classic(
    compact: &Path,
    classic: &Path,
    force: bool,
) -> Result<(), BuildError> {
    let header = IndexHeader::open(compact).map_err(|e| BuildError::Input {
        path: compact.to_path_buf(),
        detail: e.to_string(),
    })?;
    let [block] = header.blocks[..] else {
        return Err(BuildError::Invalid(format!(
            "{}: {} blocks; a classic index has one",
            compact.display(),
            header.blocks.len()
        )));
    };
    if block.row_bytes != header.document_count().div_ceil(8) {
        return Err(BuildError::Invalid(format!(
            "{}: rows of {} bytes; a classic index of {} documents has rows of {}",
            compact.display(),
            block.row_bytes,
            header.document_count(),
            header.document_count().div_ceil(8)
        )));
    }
    let all = header.names.all().map_err(|e| BuildError::Input {
        path: compact.to_path_buf(),
        detail: e.to_string(),
    })?;
    let names = all.iter();
    let classic_header = write_classic_header(
        header.k,
        header.canonical,
        header.num_hashes,
        block.row_count,
        names,
    )?;
    let mut pending = PendingFile::create_index(classic, force, classic_header.len() as u64)?;
    pending.count_ones(OnesCounter::new(&[Block {
        data_offset: classic_header.len() as u64,
        ..block
    }]));
    pending.write_all(&classic_header)?;
    copy_rows(
        compact,
        block.data_offset,
        header.data_bytes(),
        &mut pending,
    )?;
    pending.commit()
}

fn copy_rows(
    compact: &Path,
    offset: u64,
    bytes: u64,
    pending: &mut PendingFile,
) -> Result<(), BuildError> {
    let read_error = |e: std::io::Error| BuildError::Input {
        path: compact.to_path_buf(),
        detail: format!("cannot read the rows: {e}"),
    };
    let mut file = File::open(compact).map_err(read_error)?;
    file.seek(SeekFrom::Start(offset)).map_err(read_error)?;
    let mut rows = file.take(bytes);
    let mut buffer = vec![0u8; COPY_CHUNK_BYTES];
    let mut copied = 0u64;
    loop {
        let read = rows.read(&mut buffer).map_err(read_error)?;
        if read == 0 {
            break;
        }
        pending.write_all(&buffer[..read])?;
        copied += read as u64;
    }
    if copied != bytes {
        return Err(read_error(std::io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(())
}
