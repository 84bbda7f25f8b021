//! Finding the input files of a build: files as given, directories scanned recursively for
//! sequence files, and list files with one path per line.

use std::path::{Path, PathBuf};

use super::BuildError;
use crate::io::file_kind;
use crate::seqfile::has_sequence_extension;
use crate::walk::{read_list, walk, Visit};

/// Expands `paths` (files or directories) and `lists` (files of paths) into the input files,
/// in a stable order: as given, directories sorted by path.
pub(crate) fn discover(paths: &[PathBuf], lists: &[PathBuf]) -> Result<Vec<PathBuf>, BuildError> {
    let mut files = Vec::new();
    for path in paths {
        add_path(path, &mut files)?;
    }
    for list in lists {
        let listed = read_list(list).map_err(|e| BuildError::Input {
            path: list.clone(),
            detail: format!("cannot read list file: {e}"),
        })?;
        if listed.is_empty() {
            return Err(BuildError::Input {
                path: list.clone(),
                detail: "the list file names no inputs".into(),
            });
        }
        for entry in &listed {
            add_path(entry, &mut files)?;
        }
    }
    if files.is_empty() {
        return Err(BuildError::NoInputs);
    }
    Ok(files)
}

fn add_path(path: &Path, files: &mut Vec<PathBuf>) -> Result<(), BuildError> {
    let metadata = std::fs::metadata(path).map_err(|e| BuildError::Input {
        path: path.to_path_buf(),
        detail: if e.kind() == std::io::ErrorKind::NotFound {
            "no such file or directory".into()
        } else {
            format!("cannot access: {e}")
        },
    })?;
    if metadata.is_dir() {
        let found = sequence_files(path)?;
        if found.is_empty() {
            return Err(BuildError::Input {
                path: path.to_path_buf(),
                detail: format!(
                    "directory holds no sequence files (looked for {} and their .gz/.xz/.zst/.bz2 forms)",
                    crate::seqfile::SEQUENCE_EXTENSIONS
                        .iter()
                        .map(|e| format!(".{e}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            });
        }
        files.extend(found);
    } else {
        refuse_irregular(path, &metadata)?;
        files.push(path.to_path_buf());
    }
    Ok(())
}

/// Inputs are read twice (to size the index, then to fill it), so each must be a regular
/// file: a named pipe would also block the build until something writes to it.
fn refuse_irregular(path: &Path, metadata: &std::fs::Metadata) -> Result<(), BuildError> {
    match file_kind(metadata) {
        None => Ok(()),
        Some(kind) => Err(BuildError::Input {
            path: path.to_path_buf(),
            detail: format!(
                "{kind}, not a regular file; inputs are read twice, so save the sequences to a file first"
            ),
        }),
    }
}

/// The sequence files under `directory`, recursively, sorted by path. Directories are entered
/// only when they are directories themselves (a symbolic link to one is not followed); files
/// are judged by what they link to, since that is what will be read.
fn sequence_files(directory: &Path) -> Result<Vec<PathBuf>, BuildError> {
    let mut irregular = None;
    let found = walk(directory, &mut |path, file_type| {
        if file_type.is_dir() {
            return Visit::Descend;
        }
        if irregular.is_some() || !has_sequence_extension(path) {
            return Visit::Skip;
        }
        let checked = std::fs::metadata(path)
            .map_err(|e| BuildError::Input {
                path: path.to_path_buf(),
                detail: format!("cannot access: {e}"),
            })
            .and_then(|metadata| refuse_irregular(path, &metadata));
        match checked {
            Ok(()) => Visit::Take,
            Err(error) => {
                irregular = Some(error);
                Visit::Skip
            }
        }
    })
    .map_err(|e| BuildError::Input {
        path: e.path,
        detail: format!("cannot list directory: {}", e.source),
    })?;
    match irregular {
        Some(error) => Err(error),
        None => Ok(found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_lists_and_errors() {
        let written = [
            "b.fa",
            "a.fasta.gz",
            "sub/c.fq",
            "sub/deeper/d.fna.zst",
            "notes.txt",
        ];
        let dir = crate::testing::tree(&written, b">x\nACGT\n");
        let root = dir.path();
        let files = discover(&[root.to_path_buf()], &[]).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            vec!["a.fasta.gz", "b.fa", "sub/c.fq", "sub/deeper/d.fna.zst"]
        );

        std::fs::write(root.join("inputs.list"), "# genomes\nb.fa\n\nsub/c.fq\n").unwrap();
        let listed = discover(&[], &[root.join("inputs.list")]).unwrap();
        assert_eq!(listed, vec![root.join("b.fa"), root.join("sub/c.fq")]);

        let missing = discover(&[root.join("nope.fa")], &[])
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("nope.fa: no such file or directory"),
            "{missing}"
        );
        std::fs::create_dir(root.join("empty")).unwrap();
        let empty = discover(&[root.join("empty")], &[])
            .unwrap_err()
            .to_string();
        assert!(empty.contains("holds no sequence files"), "{empty}");
    }

    #[test]
    fn named_pipes_are_refused_given_or_found() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("stream.fa");
        crate::testing::make_fifo(&fifo);
        for given in [fifo.clone(), dir.path().to_path_buf()] {
            let error = discover(&[given], &[]).unwrap_err().to_string();
            assert_eq!(
                error,
                format!("{}: a named pipe (FIFO), not a regular file; inputs are read twice, so save the sequences to a file first", fifo.display())
            );
        }
    }
}
