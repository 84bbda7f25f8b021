//! `bitsift verify`: reads whole indexes and checks them against their checksum sidecars,
//! through the read path ([`bitsift::read`]): the sidecar is read page by page with the index
//! pages it covers, so memory stays bounded whatever the index size.

use std::path::{Path, PathBuf};

use anyhow::Result;
use bitsift::format::{
    checksums::Damage, sidecar_path, ChecksumError, ChecksumTable, Checksums, FormatError,
    HeaderOptions, IndexHeader, CHECKSUM_PAGE_BYTES,
};
use bitsift::io::{
    open_engine, EngineOptions, IoCounters, IoError, ReadConsumer, ReadEngine, ReadRequest,
};
use bitsift::query::Index;
use bitsift::read::{with_layers, LayerScratch};
use bitsift::units::format_bytes;
use clap::Args;

use super::checksum::{finish, open_for_geometry};
use super::Outcome;

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Index files (.cobs_compact, .cobs_classic) or directories of them
    #[arg(value_name = "INDEX", required = true)]
    indexes: Vec<PathBuf>,
}

/// What checking one index found.
enum Verdict {
    /// Every byte matches.
    Intact { pages: u64, bytes: u64 },
    /// No sidecar: nothing to check against.
    Unverified,
    /// Problems, one line each, each naming its file.
    Damaged(Vec<String>),
}

pub fn run(args: VerifyArgs) -> Result<Outcome> {
    let indexes = bitsift::format::index_files(&args.indexes, &[]).map_err(anyhow::Error::msg)?;
    let mut failures = Vec::new();
    let mut unverified = 0;
    for index in &indexes {
        let name = index.display();
        match verify_one(index) {
            Ok(Verdict::Intact { pages, bytes }) => {
                println!("{name}: ok ({pages} pages, {})", format_bytes(bytes))
            }
            Ok(Verdict::Unverified) => {
                unverified += 1;
                println!("{name}: not verified: it has no checksums (create them with `bitsift checksum {name}`)");
            }
            Ok(Verdict::Damaged(problems)) => {
                for problem in &problems {
                    println!("{problem}");
                }
                failures.push(anyhow::anyhow!(
                    "{name}: damaged ({} problem{} listed above)",
                    problems.len(),
                    if problems.len() == 1 { "" } else { "s" }
                ));
            }
            Err(error) => failures.push(error),
        }
    }
    if !failures.is_empty() {
        return finish(failures, indexes.len(), "failed verification");
    }
    if unverified > 0 {
        eprintln!(
            "bitsift: warning: {unverified} of {} {} no checksums: not verified",
            indexes.len(),
            if indexes.len() == 1 {
                "index has"
            } else {
                "indexes have"
            }
        );
        return Ok(Outcome::Partial);
    }
    Ok(Outcome::Success)
}

fn verify_one(index: &Path) -> Result<Verdict> {
    let header = open_for_geometry(index);
    // An index whose header opens and matches its sidecar is read through the read path,
    // which fetches the checksums page by page; anything else is compared whole, which names
    // what differs even when the header is damaged.
    let Ok(opened) = &header else {
        return verify_whole(index, header);
    };
    let table = match ChecksumTable::open(index, opened) {
        Ok(Some(table)) => table,
        Ok(None) => return Ok(Verdict::Unverified),
        Err(FormatError::ChecksumMismatch { .. }) => return verify_whole(index, header),
        Err(error @ FormatError::SidecarDamaged { .. }) => {
            return Ok(Verdict::Damaged(vec![error.to_string()]))
        }
        Err(error) => return Err(error.into()),
    };
    if let Some(detail) = table.sidecar_damage() {
        let error = FormatError::SidecarDamaged {
            path: sidecar_path(index),
            detail,
        };
        return Ok(Verdict::Damaged(vec![error.to_string()]));
    }
    let options = HeaderOptions {
        legacy_k: Some(opened.k),
        legacy_canonical: Some(opened.canonical),
    };
    let searched = Index::open(&[index.to_path_buf()], &options)?;
    let problems = read_checked(&searched)?;
    if problems.is_empty() {
        return Ok(Verdict::Intact {
            pages: table.page_count(),
            bytes: table.file_size(),
        });
    }
    Ok(Verdict::Damaged(problems))
}

/// Bytes of one read of a whole-index check.
const CHECK_READ_BYTES: u64 = 1 << 20;

/// Reads the whole of `index`'s one file through the read path, every page checked against
/// its checksums, and lists the damaged pages (a read that fails is read again page by page
/// to name each one).
fn read_checked(index: &Index) -> Result<Vec<String>> {
    let opened = open_engine(index.read_paths(), &EngineOptions::default())?;
    let mut engine = opened.engine;
    let size = index.headers()[0].file_size;
    let align = engine.alignment().max(CHECKSUM_PAGE_BYTES);
    let chunks = requests_over(0, size, CHECK_READ_BYTES, align);
    let mut scratch = LayerScratch::default();
    let layers = index.layers(None);
    let failed = with_layers(engine.as_mut(), &layers, &mut scratch, |engine| {
        failures(engine, &chunks)
    })?;
    let mut problems = Vec::new();
    for (chunk, error) in failed {
        let read = chunks[chunk];
        let pages = requests_over(
            read.offset,
            (read.offset + read.len as u64).min(size),
            CHECKSUM_PAGE_BYTES,
            align,
        );
        let bad = with_layers(engine.as_mut(), &layers, &mut scratch, |engine| {
            failures(engine, &pages)
        })?;
        let path = &index.headers()[0].path;
        if bad.is_empty() {
            // Failed once, then read clean: a transient error, reported as it was.
            problems.push(describe(path, &error));
        }
        problems.extend(bad.iter().map(|(_, error)| describe(path, error)));
    }
    Ok(problems)
}

/// One line for a failed read: a damaged page as `verify` has always named it.
fn describe(index: &Path, error: &IoError) -> String {
    if let IoError::Checksum(checksum) = error {
        if let ChecksumError::Mismatch {
            offset, location, ..
        } = checksum.as_ref()
        {
            let damage = Damage::Page {
                offset: *offset,
                location: location.clone(),
            };
            return format!("{}: {damage}", index.display());
        }
    }
    error.to_string()
}

/// Reads of at most `step` bytes covering `start..end`, aligned to `align`.
fn requests_over(start: u64, end: u64, step: u64, align: u64) -> Vec<ReadRequest> {
    (start..end)
        .step_by(step as usize)
        .map(|offset| ReadRequest {
            file: 0,
            offset,
            len: ((end - offset).min(step).div_ceil(align) * align) as u32,
        })
        .collect()
}

/// Reads `requests` and returns the ones that failed, with why.
fn failures(
    engine: &mut dyn ReadEngine,
    requests: &[ReadRequest],
) -> Result<Vec<(usize, IoError)>> {
    struct Collect(Vec<(usize, IoError)>);
    impl ReadConsumer for Collect {
        fn complete(&mut self, _: usize, _: &[u8]) {}
        fn failed(&mut self, request: usize, error: IoError) -> Result<(), IoError> {
            self.0.push((request, error));
            Ok(())
        }
    }
    let mut collect = Collect(Vec::new());
    engine.read_batch(requests, &mut collect, &mut IoCounters::default())?;
    Ok(collect.0)
}

/// Compares the whole index with the whole sidecar (loaded into memory): for an index whose
/// header is damaged or differs from the one checksummed.
fn verify_whole(index: &Path, header: Result<IndexHeader, FormatError>) -> Result<Verdict> {
    let checksums = match Checksums::read(index) {
        Ok(Some(checksums)) => checksums,
        Ok(None) => {
            return match header {
                Ok(_) => Ok(Verdict::Unverified),
                Err(error) => Err(error.into()),
            }
        }
        Err(error @ FormatError::SidecarDamaged { .. }) => {
            let mut problems = vec![error.to_string()];
            problems.extend(header.err().map(|e| e.to_string()));
            return Ok(Verdict::Damaged(problems));
        }
        Err(error) => return Err(error.into()),
    };
    let damage = checksums.check_file(header.as_ref().ok())?;
    let mut problems: Vec<String> = damage
        .iter()
        .map(|d| format!("{}: {d}", index.display()))
        .collect();
    if let Err(error) = &header {
        problems.insert(0, error.to_string());
    }
    if problems.is_empty() {
        return Ok(Verdict::Intact {
            pages: checksums.page_count(),
            bytes: checksums.file_size(),
        });
    }
    Ok(Verdict::Damaged(problems))
}
