//! The names in a collection's directory and the marks of its manifest's format: what
//! each file is by its name alone (manifest, lock, sub-index, sidecar, temporary), so the
//! clean-up, the manifest's opening and the recovery read names one way.

use std::path::Path;

use super::lock::LOCK_NAME;

/// The manifest's file name inside the collection directory.
pub const MANIFEST_NAME: &str = "collection.json";
/// The value of the manifest's `format` field.
pub(crate) const FORMAT_NAME: &str = "bitsift-collection";
/// The manifest version this bitsift writes (and the newest it reads): version 2 (the members
/// of version 1, plus the manifest's checksum and a names digest per sub-index) without the
/// document names, which stay in the sub-indexes' headers, and with the numbers of the
/// documents each sub-index's tombstones hide.
pub(crate) const FORMAT_VERSION: u32 = 3;
/// The oldest manifest version this bitsift reads: no checksum, no names digests.
pub(crate) const FORMAT_VERSION_OLDEST: u32 = 1;
/// Prefix of sub-index file names.
const SUBINDEX_PREFIX: &str = "sub-";

/// What a file in a collection directory is.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Entry<'a> {
    /// The manifest or the lock file.
    Own,
    /// A sub-index or a sidecar of sub-index `base`.
    SubIndex { base: &'a str },
    /// A temporary file of a writer (manifest or sub-index being written).
    Temporary,
    /// Anything else: never touched.
    Foreign,
}

pub(super) fn classify(name: &str) -> Entry<'_> {
    if name == MANIFEST_NAME || name == LOCK_NAME {
        return Entry::Own;
    }
    // `.collection.json.bitsift-tmp-PID`, or `.collection.json.tmp-PID` of earlier versions.
    if name.starts_with(&format!(".{MANIFEST_NAME}."))
        || name.starts_with(&format!(".{SUBINDEX_PREFIX}"))
    {
        return Entry::Temporary;
    }
    if is_numbered(name) {
        let base = name.find(".bitsift-").map_or(name, |at| &name[..at]);
        return Entry::SubIndex { base };
    }
    Entry::Foreign
}

/// Whether `name` starts as a sub-index file's name does: `sub-`, digits, a dot
/// ([`super::Manifest::reserve_file`]).
fn is_numbered(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(SUBINDEX_PREFIX) else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest.as_bytes().get(digits) == Some(&b'.')
}

/// The number of sub-index file `name` (`sub-NNNNNN.…`), if it is one and the number fits.
pub(super) fn subindex_number(name: &str) -> Option<u64> {
    let rest = name.strip_prefix(SUBINDEX_PREFIX)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    rest.get(..digits)?.parse().ok()
}

/// Whether `name` is the name of a sub-index file or of a sidecar of one: a file only a
/// collection holds.
pub(super) fn is_subindex_file(name: &str) -> bool {
    matches!(classify(name), Entry::SubIndex { .. })
}

/// Whether `name` is the name of a sub-index file itself (not a sidecar, not a temporary).
pub(super) fn is_subindex_index(name: &str) -> bool {
    matches!(classify(name), Entry::SubIndex { base } if base == name)
        && crate::format::has_index_extension(Path::new(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_classified() {
        assert_eq!(classify("collection.json"), Entry::Own);
        assert_eq!(classify(".collection.lock"), Entry::Own);
        assert_eq!(classify(".collection.json.tmp-12"), Entry::Temporary);
        assert_eq!(
            classify(".collection.json.bitsift-tmp-12"),
            Entry::Temporary
        );
        assert_eq!(
            classify(".sub-000003.cobs_compact.bitsift-tmp-9"),
            Entry::Temporary
        );
        assert_eq!(
            classify("sub-000003.cobs_compact"),
            Entry::SubIndex {
                base: "sub-000003.cobs_compact"
            }
        );
        assert_eq!(
            classify("sub-000003.cobs_compact.bitsift-checksums"),
            Entry::SubIndex {
                base: "sub-000003.cobs_compact"
            }
        );
        assert_eq!(classify("notes.txt"), Entry::Foreign);
        assert_eq!(classify("sub-genomes.cobs_compact"), Entry::Foreign);
        assert_eq!(classify("sub-12"), Entry::Foreign);
        assert!(is_subindex_index("sub-1234567.cobs_classic"));
        assert_eq!(subindex_number("sub-000012.cobs_compact"), Some(12));
        assert!(!is_subindex_index(
            "sub-000003.cobs_compact.bitsift-checksums"
        ));
        assert!(is_subindex_file(
            "sub-000003.cobs_compact.bitsift-checksums"
        ));
        assert!(!is_subindex_file(".sub-000003.cobs_compact.bitsift-tmp-9"));
    }
}
