//! `bitsift verify`: reads whole indexes and checks them against their checksum sidecars.

use std::path::{Path, PathBuf};

use anyhow::Result;
use bitsift::format::{Checksums, FormatError};
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
