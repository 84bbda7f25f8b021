//! `bitsift checksum`: creates the checksum sidecar of indexes built by COBS (or by a bitsift
//! older than the sidecar), so that every read of them can be verified; in the same pass over
//! the file, each document's count of ones, which corrected scores need.

use std::path::{Path, PathBuf};

use anyhow::Result;
use bitsift::format::{sidecar_path, Checksums, FormatError, HeaderOptions, IndexHeader};
use bitsift::units::format_bytes;
use clap::Args;

use super::Outcome;

#[derive(Args, Debug)]
pub(crate) struct ChecksumArgs {
    /// Index files (.cobs_compact, .cobs_classic) or directories of them
    #[arg(value_name = "INDEX", required = true)]
    indexes: Vec<PathBuf>,
    /// Replace checksums that exist but do not match the index as it is now
    #[arg(long)]
    force: bool,
}

pub(crate) fn run(args: ChecksumArgs) -> Result<Outcome> {
    let indexes = bitsift::format::index_files(&args.indexes, &[]).map_err(anyhow::Error::msg)?;
    let mut failures = Vec::new();
    for index in &indexes {
        match checksum_one(index, args.force) {
            Ok(message) => println!("{}: {message}", index.display()),
            Err(error) => failures.push(error),
        }
    }
    finish(failures, indexes.len(), "could not be checksummed")
}

/// Ends a command that went over several indexes: one failure is the error; several are
/// each printed, then summed up.
pub(super) fn finish(
    mut failures: Vec<anyhow::Error>,
    total: usize,
    what: &str,
) -> Result<Outcome> {
    match failures.len() {
        0 => Ok(Outcome::Success),
        1 => Err(failures.remove(0)),
        count => {
            for failure in &failures {
                eprintln!("bitsift: {failure:#}");
            }
            anyhow::bail!("{count} of {total} indexes {what}")
        }
    }
}

fn checksum_one(index: &Path, force: bool) -> Result<String> {
    let header = open_for_geometry(index)?;
    let (fresh, ones) = bitsift::format::checksums_counting_ones(&header)?;
    let sidecar = sidecar_path(index);
    let replacing = match Checksums::read(index) {
        Ok(None) => false,
        Ok(Some(old)) if old.same_contents(&fresh) => {
            write_catalog(index)?;
            write_ones(index, &ones)?;
            return Ok(format!("checksums up to date ({})", sidecar.display()));
        }
        Ok(Some(_)) | Err(FormatError::SidecarDamaged { .. }) if force => true,
        Ok(Some(_)) => anyhow::bail!(
            "{}: exists and does not match the index as it is now; the index may have been damaged or changed since the checksums were made: check it with `bitsift verify`, restore a good copy, or pass --force to replace the checksums with ones of the file as it is now",
            sidecar.display()
        ),
        Err(error) => return Err(error.into()),
    };
    fresh.write()?;
    write_catalog(index)?;
    write_ones(index, &ones)?;
    Ok(format!(
        "{} {} ({} pages of {})",
        if replacing { "replaced" } else { "wrote" },
        sidecar.display(),
        fresh.page_count(),
        format_bytes(fresh.file_size())
    ))
}

/// Writes the catalog beside `index` (replacing any), so that opens read a few pages of its
/// names rather than all of them. A pre-2019 header gets none: its open needs the parameters
/// it lacks, and reads it whole.
fn write_catalog(index: &Path) -> Result<()> {
    match IndexHeader::write_catalog(index, &HeaderOptions::default()) {
        Err(FormatError::Legacy { .. }) => Ok(()),
        other => Ok(other?),
    }
}

/// Writes each document's count of ones beside `index` (replacing any), so that searches
/// correct their scores from it rather than from a sample of rows. A pre-2019 header gets
/// none, as it gets no catalog.
fn write_ones(index: &Path, counts: &[u32]) -> Result<()> {
    match bitsift::format::write_ones(index, counts) {
        Err(FormatError::Legacy { .. }) => Ok(()),
        other => Ok(other?),
    }
}

/// Opens an index for its geometry. A pre-2019 header does not record k and the canonical
/// flag, which change nothing of the layout, so it is opened with COBS's old defaults.
pub(super) fn open_for_geometry(index: &Path) -> Result<IndexHeader, FormatError> {
    match IndexHeader::open_whole(index, &HeaderOptions::default()) {
        Err(FormatError::Legacy { .. }) => IndexHeader::open_whole(
            index,
            &HeaderOptions {
                legacy_k: Some(31),
                legacy_canonical: Some(false),
            },
        ),
        other => other,
    }
}
