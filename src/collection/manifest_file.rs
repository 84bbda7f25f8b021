//! Which directories are collections, and opening their manifest.
//!
//! A collection is its manifest: a directory that holds `collection.json` (whatever the file
//! is) or a sub-index file (`sub-NNNNNN.EXT`, or a sidecar of one) is a collection, and every
//! reader and writer of it needs a manifest it can read. Without one it is an error
//! ([`CollectionError::ManifestLost`]), never a plain directory of indexes (its removed
//! genomes would come back) nor a new collection (whose clean-up would delete the sub-index
//! files as leftovers). The manifest is opened without blocking and must be a regular file,
//! so a named pipe or a directory in its place is an error, not a reader that waits forever.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use super::names::{is_subindex_file, is_subindex_index, MANIFEST_NAME};
use super::{CollectionError, NAMES_SHOWN_MAX};

/// Whether `path` is a collection directory: it holds a manifest (of any file type, readable
/// or not) or a sub-index file. A remote path is one when it has no index file's extension.
pub fn is_collection(path: &Path) -> bool {
    if crate::io::is_remote(path) {
        // A server cannot say whether a directory exists: a URL without an index file's
        // extension is taken for a collection's directory.
        return !crate::format::has_index_extension(path);
    }
    if path.join(MANIFEST_NAME).symlink_metadata().is_ok() {
        return true;
    }
    path.is_dir() && !subindex_files(path).is_empty()
}

/// Names of the sub-index files and sidecars in `directory`, sorted (none when it cannot be
/// listed: whoever lists it next reports why).
fn subindex_files(directory: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| is_subindex_file(name))
        .collect();
    names.sort();
    names
}

/// Opens the manifest of the local collection in `directory` for reading: a regular file,
/// opened without blocking (a named pipe in its place is refused, not waited on). A manifest
/// that is missing, cannot be opened or is not a regular file is
/// [`CollectionError::ManifestLost`].
pub(crate) fn open_manifest(directory: &Path) -> Result<File, CollectionError> {
    let path = directory.join(MANIFEST_NAME);
    let lost = |problem: String| CollectionError::ManifestLost {
        path: directory.to_path_buf(),
        problem,
    };
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(missing(directory))
        }
        Err(error) => {
            return Err(lost(format!(
                "its manifest {MANIFEST_NAME} cannot be opened ({error})"
            )))
        }
    };
    let metadata = file.metadata().map_err(CollectionError::io(
        &path,
        "cannot read the collection manifest",
    ))?;
    let kind = metadata.file_type();
    if !kind.is_file() {
        return Err(lost(format!(
            "its manifest {MANIFEST_NAME} is {}, not a file",
            describe(kind)
        )));
    }
    Ok(file)
}

/// Checks, before a writer takes the lock, that `directory` is a collection with a manifest
/// it can open: an error when it is no collection at all, or one whose manifest is lost.
pub(crate) fn require_manifest(directory: &Path) -> Result<(), CollectionError> {
    if !is_collection(directory) {
        return Err(CollectionError::Invalid(format!(
            "{}: not a bitsift collection (no {MANIFEST_NAME})",
            directory.display()
        )));
    }
    open_manifest(directory).map(drop)
}

/// The error of a collection directory without a manifest, naming the sub-index files that
/// make it one (their sidecars when only those are left).
pub(crate) fn missing(directory: &Path) -> CollectionError {
    let mut files = subindex_files(directory);
    if files.iter().any(|name| is_subindex_index(name)) {
        files.retain(|name| is_subindex_index(name));
    }
    let problem = if files.is_empty() {
        format!("it has no manifest {MANIFEST_NAME}")
    } else {
        let mut shown = files
            .iter()
            .take(NAMES_SHOWN_MAX)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if files.len() > NAMES_SHOWN_MAX {
            shown.push_str(&format!(" and {} more", files.len() - NAMES_SHOWN_MAX));
        }
        format!("it holds a collection's sub-index files ({shown}) but no manifest {MANIFEST_NAME}")
    };
    CollectionError::ManifestLost {
        path: directory.to_path_buf(),
        problem,
    }
}

/// What a file that is not a regular file is, in words.
fn describe(kind: std::fs::FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lost_problem(directory: &Path) -> String {
        match open_manifest(directory) {
            Err(CollectionError::ManifestLost { path, problem }) => {
                assert_eq!(path, directory);
                problem
            }
            other => panic!("expected a lost manifest, got {other:?}"),
        }
    }

    #[test]
    fn sub_index_files_make_a_collection_and_their_manifest_is_required() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_collection(dir.path()), "empty");
        std::fs::write(dir.path().join("genome.cobs_compact"), b"x").unwrap();
        std::fs::write(dir.path().join(".collection.lock"), b"").unwrap();
        assert!(!is_collection(dir.path()), "a plain index and a lock");
        std::fs::write(dir.path().join("sub-000002.cobs_compact"), b"x").unwrap();
        assert!(is_collection(dir.path()));
        let problem = lost_problem(dir.path());
        assert!(
            problem.contains("sub-index files (sub-000002.cobs_compact) but no manifest"),
            "{problem}"
        );
        let error = require_manifest(dir.path()).unwrap_err().to_string();
        assert!(error.contains("recover"), "{error}");
        assert!(!error.contains("--"), "names no option: {error}");
        assert!(!is_collection(&dir.path().join("genome.cobs_compact")));
    }

    #[test]
    fn a_manifest_that_is_a_directory_or_a_pipe_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join(MANIFEST_NAME);
        std::fs::create_dir(&manifest).unwrap();
        assert!(is_collection(dir.path()));
        assert!(lost_problem(dir.path()).contains("is a directory, not a file"));
        std::fs::remove_dir(&manifest).unwrap();
        crate::testing::make_fifo(&manifest);
        assert!(lost_problem(dir.path()).contains("is a named pipe (FIFO), not a file"));
        std::fs::remove_file(&manifest).unwrap();
        std::fs::write(&manifest, b"{}").unwrap();
        assert!(open_manifest(dir.path()).is_ok());
    }
}
