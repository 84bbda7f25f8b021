//! Finding files under directories: one recursive walk ([`walk`]) and one reader of list
//! files ([`read_list`]) for every place that looks for files (build inputs, index files,
//! collections), so they all agree on order, on what a list line means and on errors.
//!
//! The walk visits each directory's entries in name order and descends depth first, so what
//! it takes comes out sorted by path (paths compare component by component): zero-padded
//! batch names keep their order whatever the directory's own order is.
//!
//! A list or table named `-` is standard input ([`is_standard_input`]), as in most Unix tools.

use std::fs::FileType;
use std::path::{Path, PathBuf};

use crate::IoAt;

/// What to do with one entry of a directory being walked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Visit {
    /// Walk into it (a directory).
    Descend,
    /// Keep its path.
    Take,
    /// Leave it out.
    Skip,
}

/// What [`walk`]'s error says was being done.
pub(crate) const LIST_ACTION: &str = "cannot list directory";

/// Walks `directory` recursively and returns the paths `visit` takes, sorted by path.
/// `visit` sees each entry's path and type (a symbolic link is a link here; `visit` may look
/// through it with `Path::is_dir`). A directory `visit` descends into that cannot be listed
/// is an error ([`LIST_ACTION`] on it).
pub(crate) fn walk(
    directory: &Path,
    visit: &mut dyn FnMut(&Path, FileType) -> Visit,
) -> Result<Vec<PathBuf>, IoAt> {
    let mut taken = Vec::new();
    walk_into(directory, visit, &mut taken)?;
    Ok(taken)
}

fn walk_into(
    directory: &Path,
    visit: &mut dyn FnMut(&Path, FileType) -> Visit,
    taken: &mut Vec<PathBuf>,
) -> Result<(), IoAt> {
    let error = |source| IoAt::new(directory, LIST_ACTION, source);
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(directory).map_err(error)? {
        let entry = entry.map_err(error)?;
        let file_type = entry.file_type().map_err(error)?;
        entries.push((entry.file_name(), file_type));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, file_type) in entries {
        let path = directory.join(name);
        match visit(&path, file_type) {
            Visit::Descend => walk_into(&path, visit, taken)?,
            Visit::Take => taken.push(path),
            Visit::Skip => {}
        }
    }
    Ok(())
}

/// Whether `path` is `-`, which stands for standard input wherever a file is read.
pub(crate) fn is_standard_input(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Opens `path` for reading, or standard input when it is `-`.
pub(crate) fn open_input(path: &Path) -> std::io::Result<Box<dyn std::io::Read + Send>> {
    if is_standard_input(path) {
        return Ok(Box::new(std::io::stdin()));
    }
    Ok(Box::new(std::fs::File::open(path)?))
}

/// The paths a list file names, one per line, relative to the list's folder unless absolute
/// (to the current folder for `-`, standard input); empty lines and `#` comments are
/// skipped, surrounding white space trimmed.
pub(crate) fn read_list(list: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut open_input(list)?, &mut text)?;
    let base = list.parent().unwrap_or(Path::new("."));
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let entry = Path::new(line);
            if entry.is_absolute() {
                entry.to_path_buf()
            } else {
                base.join(entry)
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_takes_in_path_order_and_descends_only_when_asked() {
        let files = ["b/x.fa", "a/z/y.fa", "a.fa", "a/w.fa", "skip/v.fa", "c.txt"];
        let dir = crate::testing::tree(&files, b"");
        let root = dir.path();
        let found = walk(root, &mut |path, file_type| {
            if file_type.is_dir() {
                match path.file_name().is_some_and(|n| n == "skip") {
                    true => Visit::Skip,
                    false => Visit::Descend,
                }
            } else if path.extension().is_some_and(|e| e == "fa") {
                Visit::Take
            } else {
                Visit::Skip
            }
        })
        .unwrap();
        let relative: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_str().unwrap())
            .collect();
        assert_eq!(relative, ["a/w.fa", "a/z/y.fa", "a.fa", "b/x.fa"]);
        let mut sorted = found.clone();
        sorted.sort();
        assert_eq!(found, sorted, "the walk's order is path order");
        let error = walk(&root.join("missing"), &mut |_, _| Visit::Take).unwrap_err();
        assert_eq!(error.path, root.join("missing"));
    }

    #[test]
    fn lists_resolve_relative_lines_and_skip_comments() {
        let (dir, list) =
            crate::testing::file_with("list.txt", "# inputs\n  a.fa  \n\n/abs/b.fa\n");
        assert_eq!(
            read_list(&list).unwrap(),
            vec![dir.path().join("a.fa"), PathBuf::from("/abs/b.fa")]
        );
        assert!(read_list(&dir.path().join("none.txt")).is_err());
    }
}
