//! `cobs query`: COBS's options, answered by `bitsift query --format cobs`.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use super::super::query::{self as bitsift_query, CobsQuery, QueryArgs};
use super::super::{parse_threshold, Outcome, Ui, UsageError};

#[derive(Args, Debug)]
pub(crate) struct CobsQueryArgs {
    /// path to index file(s); repeat for several (a file listing index paths works too)
    #[arg(short, long = "index", value_name = "INDEX")]
    index: Vec<PathBuf>,
    /// the text sequence to search for
    #[arg(value_name = "QUERY")]
    query: Option<String>,
    /// query (fasta) file to process
    #[arg(short, long, value_name = "FILE")]
    file: Option<PathBuf>,
    /// threshold in percentage of terms in query matching
    #[arg(short, long, default_value_t = bitsift::query::THRESHOLD_DEFAULT, value_parser = parse_threshold,
          allow_negative_numbers = true)]
    threshold: f64,
    /// number of results to return (0: all)
    #[arg(short, long, default_value_t = 0, value_name = "N")]
    limit: usize,
    /// load complete index into RAM for batch queries
    #[arg(long)]
    load_complete: bool,
    /// number of threads to use (0: one per core)
    #[arg(short = 'T', long, default_value_t = 0, value_name = "N")]
    threads: usize,
    /// sizes of indexes streamed through pipes (one per -i, in order)
    #[arg(long, hide = true, value_name = "BYTES")]
    index_sizes: Vec<u64>,
}

/// Index files that were streamed through pipes, copied to temporary files for the run.
type Copies = Vec<tempfile::NamedTempFile>;

pub(crate) fn run(args: CobsQueryArgs, ui: Ui) -> Result<Outcome> {
    if args.index.is_empty() {
        return Err(UsageError(
            "no index given: pass -i INDEX (an index file, or a file listing index paths)".into(),
        )
        .into());
    }
    let (mut indexes, index_lists) = split_lists(args.index);
    let _copies: Copies = if args.index_sizes.is_empty() {
        Vec::new()
    } else {
        copy_streams(&mut indexes, &args.index_sizes)?
    };
    let query = CobsQuery {
        indexes,
        index_lists,
        file: args.file,
        sequence: args.query,
        threshold: args.threshold,
        limit: args.limit,
        threads: args.threads,
        load_complete: args.load_complete,
    };
    bitsift_query::run(QueryArgs::from_cobs(query), ui)
}

/// Separates `-i` files that list index paths (text that is not a COBS file) from indexes.
fn split_lists(paths: Vec<PathBuf>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut indexes = Vec::new();
    let mut lists = Vec::new();
    for path in paths {
        if is_index_list(&path) {
            lists.push(path);
        } else {
            indexes.push(path);
        }
    }
    (indexes, lists)
}

/// A regular file whose first bytes are not COBS's magic and are text (a path, a comment).
fn is_index_list(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    let mut head = [0u8; 5];
    let Ok(read) = File::open(path).and_then(|mut f| f.read(&mut head)) else {
        return false;
    };
    let head = &head[..read];
    head != bitsift::format::MAGIC_PREFIX && head.iter().all(|b| b.is_ascii() && *b != 0)
}

/// `--index-sizes`: COBS reads a classic index from a pipe (`-i <(xzcat x.xz)`) given its
/// size. bitsift needs a file it can read at any offset, so an index that is not a regular
/// file is copied (exactly its size) to a temporary file, which replaces it in `indexes`.
fn copy_streams(indexes: &mut [PathBuf], sizes: &[u64]) -> Result<Copies> {
    if sizes.len() != indexes.len() {
        return Err(UsageError(format!(
            "--index-sizes: {} sizes for {} indexes; give one size per -i, in the same order",
            sizes.len(),
            indexes.len()
        ))
        .into());
    }
    let mut copies = Vec::new();
    for (path, &size) in indexes.iter_mut().zip(sizes) {
        if path.is_file() {
            continue;
        }
        let copy = copy_stream(path, size)?;
        *path = copy.path().to_path_buf();
        copies.push(copy);
    }
    Ok(copies)
}

fn copy_stream(path: &Path, size: u64) -> Result<tempfile::NamedTempFile> {
    let source = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let mut copy = tempfile::Builder::new()
        .prefix("bitsift-streamed-")
        .suffix(".cobs_index")
        .tempfile()
        .context("cannot create a temporary file for a streamed index")?;
    let copied = std::io::copy(&mut source.take(size), copy.as_file_mut())
        .with_context(|| format!("{}: cannot copy the streamed index", path.display()))?;
    if copied != size {
        bail!(
            "{}: the stream ended after {copied} bytes, but --index-sizes says {size}",
            path.display()
        );
    }
    copy.as_file_mut().flush()?;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_lists_are_told_from_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("batches.txt");
        std::fs::write(&list, "a.cobs_classic\n").unwrap();
        let index = dir.path().join("a.cobs_classic");
        std::fs::write(&index, b"COBS:CLASSIC_INDEX\x01\0\0\0").unwrap();
        let missing = dir.path().join("missing.cobs_compact");
        let (indexes, lists) = split_lists(vec![list.clone(), index.clone(), missing.clone()]);
        assert_eq!(lists, vec![list]);
        assert_eq!(indexes, vec![index, missing]);
    }

    #[test]
    fn streamed_sizes_must_match_the_indexes() {
        let mut indexes = vec![PathBuf::from("a"), PathBuf::from("b")];
        let error = copy_streams(&mut indexes, &[10]).unwrap_err().to_string();
        assert!(error.contains("1 sizes for 2 indexes"), "{error}");
    }
}
