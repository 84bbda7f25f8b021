//! `bitsift verify`: reads whole indexes and checks them against their checksum sidecars,
//! through the read path ([`bitsift::read`]): the sidecar is read page by page with the index
//! pages it covers, so memory stays bounded whatever the index size. The block summaries
//! beside each index are read page by page too, each page against its own checksum. A
//! collection is checked through its manifest ([`bitsift::collection::check`]): the manifest
//! itself, then exactly the files it lists; other files there are noted, not judged.

use std::path::{Path, PathBuf};

use anyhow::Result;
use bitsift::collection::{find_indexes, IndexSource, MANIFEST_NAME};
use bitsift::format::{
    checksums::Damage, sidecar_path, ChecksumError, ChecksumTable, Checksums, FormatError,
    HeaderOptions, IndexHeader, CHECKSUM_PAGE_BYTES,
};
use bitsift::io::{open_engine, EngineOptions, IoError, ReadConsumer, ReadEngine, ReadRequest};
use bitsift::query::Index;
use bitsift::read::{with_layers, LayerScratch};
use bitsift::summary::summary_path;
use bitsift::units::{format_bytes, plural};
use clap::Args;

use super::checksum::{finish, open_for_geometry};
use super::Outcome;

#[derive(Args, Debug)]
pub(crate) struct VerifyArgs {
    /// Index files (.cobs_compact, .cobs_classic), collections, or directories of them
    #[arg(value_name = "INDEX", required = true)]
    indexes: Vec<PathBuf>,
    #[command(flatten)]
    remote: super::remote::RemoteArgs,
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

/// What checking the block summaries beside an index found: none (`Ok(None)`), a sound file
/// (`Ok(Some(line))`), or problems, one line each.
type SummaryVerdict = std::result::Result<Option<String>, Vec<String>>;

pub(crate) fn run(args: VerifyArgs) -> Result<Outcome> {
    args.remote.apply(None)?;
    let engine = args.remote.engine(EngineOptions::default());
    let sources = find_indexes(&args.indexes, &[])?;
    let mut tally = Tally::default();
    for source in &sources {
        match source {
            IndexSource::File(index) => {
                tally.file(index, verify_one(index, &engine), verify_summaries(index))
            }
            IndexSource::Collection(directory) => verify_collection(directory, &engine, &mut tally),
        }
    }
    tally.finish()
}

/// Verifies the collection in `directory`: its manifest, then exactly the files it lists;
/// files it does not list are noted, and neither checked nor counted against it.
fn verify_collection(directory: &Path, engine: &EngineOptions, tally: &mut Tally) {
    let check = match bitsift::collection::check(directory) {
        Ok(check) => check,
        Err(error) => {
            tally.checked += 1;
            tally.failures.push(error.into());
            return;
        }
    };
    println!(
        "{}: ok (manifest version {}, generation {}, {})",
        directory.join(MANIFEST_NAME).display(),
        check.manifest.version,
        check.manifest.generation,
        plural(check.subindexes.len() as u64, "sub-index")
    );
    for sub in &check.subindexes {
        match &sub.problem {
            Some(problem) => tally.file(
                &sub.path,
                Ok(Verdict::Damaged(vec![problem.clone()])),
                Ok(None),
            ),
            None => tally.file(
                &sub.path,
                verify_one(&sub.path, engine),
                verify_summaries(&sub.path),
            ),
        }
    }
    for file in &check.unlisted {
        let why = match file.leftover {
            true => "left by an interrupted add, remove or merge (the next one removes it)",
            false => "not part of the collection",
        };
        println!(
            "{}: note: not listed in the collection manifest: {why}; not verified",
            file.path.display()
        );
    }
}

/// Counts and reports the files checked.
#[derive(Default)]
struct Tally {
    checked: usize,
    unverified: usize,
    failures: Vec<anyhow::Error>,
}

impl Tally {
    /// Reports one index file: its pages (`verdict`) and its block summaries.
    fn file(&mut self, index: &Path, verdict: Result<Verdict>, summaries: SummaryVerdict) {
        self.checked += 1;
        let name = index.display();
        let mut problems = Vec::new();
        match verdict {
            Ok(Verdict::Intact { pages, bytes }) => {
                println!("{name}: ok ({pages} pages, {})", format_bytes(bytes))
            }
            Ok(Verdict::Unverified) => {
                self.unverified += 1;
                println!("{name}: not verified: it has no checksums (create them with `bitsift checksum {name}`)");
            }
            Ok(Verdict::Damaged(found)) => problems = found,
            Err(error) => self.failures.push(error),
        }
        match summaries {
            Ok(Some(line)) => println!("{line}"),
            Ok(None) => {}
            Err(found) => problems.extend(found),
        }
        if !problems.is_empty() {
            for problem in &problems {
                println!("{problem}");
            }
            self.failures.push(anyhow::anyhow!(
                "{name}: damaged ({} problem{} listed above)",
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            ));
        }
    }

    fn finish(self) -> Result<Outcome> {
        if !self.failures.is_empty() {
            return finish(self.failures, self.checked, "failed verification");
        }
        if self.unverified > 0 {
            eprintln!(
                "bitsift: warning: {} of {} {} no checksums: not verified",
                self.unverified,
                self.checked,
                if self.checked == 1 {
                    "index has"
                } else {
                    "indexes have"
                }
            );
            return Ok(Outcome::Partial);
        }
        Ok(Outcome::Success)
    }
}

/// Reads and checks the block summaries beside `index`, page by page.
fn verify_summaries(index: &Path) -> SummaryVerdict {
    // An index whose header does not open is reported by its own check.
    let Ok(header) = open_for_geometry(index) else {
        return Ok(None);
    };
    let path = summary_path(index);
    match bitsift::summary::verify(index, &header) {
        Ok(None) => Ok(None),
        Ok(Some(check)) if check.damaged_pages.is_empty() => Ok(Some(format!(
            "{}: ok (block summaries, format {}, {})",
            path.display(),
            check.format,
            format_bytes(check.bytes)
        ))),
        Ok(Some(check)) => Err(check
            .damaged_pages
            .iter()
            .map(|page| {
                format!(
                    "{}: damaged block summaries: checksum mismatch in page {page} (offset {}); searches read every block for the k-mers it holds",
                    path.display(),
                    page * bitsift::summary::PAGE_BYTES
                )
            })
            .collect()),
        Err(error) => Err(vec![error.to_string()]),
    }
}

/// The verdict on an index whose sidecar is of another build (`error`): that error first,
/// then the pages the whole comparison (`whole`) lists.
fn another_build(error: FormatError, whole: Result<Verdict>) -> Result<Verdict> {
    let mut problems = vec![error.to_string()];
    if let Ok(Verdict::Damaged(pages)) = whole {
        problems.extend(pages);
    }
    Ok(Verdict::Damaged(problems))
}

fn verify_one(index: &Path, engine: &EngineOptions) -> Result<Verdict> {
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
        Err(error @ FormatError::SidecarOfAnotherBuild { .. }) => {
            return another_build(error, verify_whole(index, header))
        }
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
    let problems = read_checked(&searched, engine)?;
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
fn read_checked(index: &Index, engine: &EngineOptions) -> Result<Vec<String>> {
    let opened = open_engine(index.read_paths(), engine)?;
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
    if let IoError::Corrupt(corrupt) = error {
        if let Some(ChecksumError::Mismatch {
            offset, location, ..
        }) = corrupt.downcast_ref::<ChecksumError>()
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
    engine.read_counted(requests, &mut collect)?;
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
