//! The manifest's own checksum: a manifest that was damaged or edited after bitsift wrote it
//! is refused, whatever changed.
//!
//! A manifest is written as pretty-printed JSON whose last member is `checksum`, so its last
//! [`SEAL_BYTES`] bytes are always
//!
//! ```text
//! ,\n  "checksum": "0123456789abcdef"\n}\n
//! ```
//!
//! and the 16 lowercase hexadecimal digits are the xxh64 (seed 0) of every byte before that
//! comma. The check needs no second serialisation and no parsed copy: it hashes the file as
//! it streams past ([`Digested::of_reader`]), keeping only the last bytes, so a search that
//! opens the manifest of a 661k-genome collection holds no more of it than before.
//!
//! Manifests of version 1 (earlier bitsift) have no checksum and are read as they are; the
//! next commit writes them in the current version, with one.

use std::io::Read;

use serde::Deserialize;
use xxhash_rust::xxh64::{xxh64, Xxh64};

use super::names::{FORMAT_NAME, FORMAT_VERSION, FORMAT_VERSION_OLDEST};

/// The bytes before the checksum's digits.
const SEAL_HEAD: &[u8] = b",\n  \"checksum\": \"";
/// The bytes after them: the end of the file.
const SEAL_END: &[u8] = b"\"\n}\n";
/// Length of the checksum's digits.
const DIGITS: usize = 16;
/// Length of the checksum member at the end of the file, closing brace included.
pub(super) const SEAL_BYTES: usize = SEAL_HEAD.len() + DIGITS + SEAL_END.len();

const _: () = assert!(
    SEAL_BYTES == 37,
    "the documented length of the checksum member"
);

/// Appends the checksum member to `body`, pretty-printed JSON of an object (ending in `\n}`).
pub(super) fn seal(mut body: Vec<u8>) -> Vec<u8> {
    assert!(
        body.ends_with(b"\n}"),
        "a manifest is a pretty-printed object"
    );
    body.truncate(body.len() - 2);
    let digest = xxh64(&body, 0);
    body.extend_from_slice(SEAL_HEAD);
    body.extend_from_slice(format!("{digest:016x}").as_bytes());
    body.extend_from_slice(SEAL_END);
    body
}

/// A manifest file as its checksum sees it: the xxh64 of all but its last [`SEAL_BYTES`]
/// bytes, and those bytes.
pub(super) struct Digested {
    body: u64,
    tail: Vec<u8>,
}

impl Digested {
    /// Of bytes in memory.
    pub(super) fn of_bytes(text: &[u8]) -> Digested {
        let split = text.len().saturating_sub(SEAL_BYTES);
        Digested {
            body: xxh64(&text[..split], 0),
            tail: text[split..].to_vec(),
        }
    }

    /// Of a file read to its end, in chunks.
    pub(super) fn of_reader(reader: &mut impl Read) -> std::io::Result<Digested> {
        let mut hasher = Xxh64::new(0);
        let mut chunk = vec![0u8; 64 << 10];
        let mut held: Vec<u8> = Vec::with_capacity(chunk.len() + SEAL_BYTES);
        loop {
            let read = match reader.read(&mut chunk) {
                Ok(0) => break,
                Ok(read) => read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            held.extend_from_slice(&chunk[..read]);
            if held.len() > SEAL_BYTES {
                let cut = held.len() - SEAL_BYTES;
                hasher.update(&held[..cut]);
                held.drain(..cut);
            }
        }
        Ok(Digested {
            body: hasher.digest(),
            tail: held,
        })
    }

    /// The checksum recorded at the end, when the end has the form bitsift writes.
    fn recorded(&self) -> Option<u64> {
        let digits = self.tail.strip_prefix(SEAL_HEAD)?.strip_suffix(SEAL_END)?;
        parse_digest(std::str::from_utf8(digits).ok()?)
    }
}

/// A 64-bit digest as 16 lowercase hexadecimal digits, the only form bitsift writes.
pub(super) fn parse_digest(text: &str) -> Option<u64> {
    let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if text.len() != DIGITS || !text.bytes().all(lower_hex) {
        return None;
    }
    u64::from_str_radix(text, 16).ok()
}

/// A manifest's format, version and checksum, every other field ignored and nothing held (a
/// DOM of a 661k-genome collection's names would take several times their size).
#[derive(Deserialize)]
pub(super) struct Head {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
    checksum: Option<serde_json::Value>,
}

impl Head {
    /// Parses the head of manifest bytes.
    pub(super) fn of_bytes(text: &[u8]) -> Result<Head, SealError> {
        serde_json::from_slice(text).map_err(SealError::NotJson)
    }

    /// Parses the head of a manifest read to its end.
    pub(super) fn of_reader(reader: impl Read) -> Result<Head, SealError> {
        serde_json::from_reader(reader).map_err(SealError::NotJson)
    }

    /// The manifest's version (checked by [`Head::check`]).
    pub(super) fn version(&self) -> u32 {
        self.version
            .as_ref()
            .and_then(|v| v.as_u64())
            .map_or(0, |v| v.min(u32::MAX as u64) as u32)
    }

    /// Checks the format, the version and, but for version-1 manifests written without one,
    /// the checksum of the file `digested`.
    pub(super) fn check(&self, digested: &Digested) -> Result<(), SealError> {
        if self.format.as_ref().and_then(|f| f.as_str()) != Some(FORMAT_NAME) {
            return Err(SealError::Foreign);
        }
        let version = match self.version.as_ref().and_then(|v| v.as_u64()) {
            None => return Err(SealError::NoVersion),
            Some(v) if (FORMAT_VERSION_OLDEST as u64..=FORMAT_VERSION as u64).contains(&v) => v,
            Some(v) => return Err(SealError::Version(v)),
        };
        if version == 1 && self.checksum.is_none() {
            return Ok(());
        }
        let Some(recorded) = digested.recorded() else {
            return Err(SealError::NoChecksum);
        };
        if recorded != digested.body {
            return Err(SealError::Checksum {
                recorded,
                computed: digested.body,
            });
        }
        Ok(())
    }
}

/// Why a manifest's head or seal cannot be trusted (said after the manifest's path).
#[derive(Debug, thiserror::Error)]
pub(super) enum SealError {
    /// Not JSON.
    #[error("not valid JSON: {0}; the manifest is damaged")]
    NotJson(serde_json::Error),
    /// JSON of another format.
    #[error("not a {FORMAT_NAME} manifest")]
    Foreign,
    /// No version member.
    #[error("the manifest has no version")]
    NoVersion,
    /// A version this bitsift does not read.
    #[error("manifest version {0} is not supported (this bitsift reads versions {FORMAT_VERSION_OLDEST} to {FORMAT_VERSION}): it was written by a newer bitsift, or it is damaged")]
    Version(u64),
    /// The checksum is missing or not where bitsift writes it.
    #[error("the manifest's checksum is missing or is not its last member, where bitsift writes it: the manifest was damaged or edited")]
    NoChecksum,
    /// The checksum does not match the manifest.
    #[error("checksum mismatch (recorded {recorded:016x}, computed {computed:016x}): the manifest was damaged or edited after bitsift wrote it; only add, remove and merge may change it")]
    Checksum {
        /// The checksum recorded.
        recorded: u64,
        /// The checksum of the manifest's bytes.
        computed: u64,
    },
}

/// Serde for an optional digest written as 16 lowercase hexadecimal digits.
pub(super) mod hex_digest {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `Some(d)` as its digits (a `None` field is skipped by the caller).
    pub(crate) fn serialize<S: Serializer>(
        digest: &Option<u64>,
        out: S,
    ) -> Result<S::Ok, S::Error> {
        match digest {
            Some(digest) => out.serialize_str(&format!("{digest:016x}")),
            None => out.serialize_none(),
        }
    }

    /// Reads 16 lowercase hexadecimal digits.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        input: D,
    ) -> Result<Option<u64>, D::Error> {
        let Some(text) = Option::<String>::deserialize(input)? else {
            return Ok(None);
        };
        super::parse_digest(&text).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{text:?} is not a digest of 16 lowercase hexadecimal digits"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &[u8]) -> Head {
        Head::of_bytes(text).unwrap()
    }

    #[test]
    fn a_sealed_manifest_checks_and_every_changed_byte_is_caught() {
        let body = serde_json::to_vec_pretty(&serde_json::json!({
            "format": FORMAT_NAME, "version": FORMAT_VERSION, "subindexes": []
        }))
        .unwrap();
        let sealed = seal(body);
        assert!(sealed.ends_with(b"\"\n}\n"));
        let parsed: serde_json::Value = serde_json::from_slice(&sealed).unwrap();
        assert_eq!(parsed["checksum"].as_str().unwrap().len(), 16);
        head(&sealed).check(&Digested::of_bytes(&sealed)).unwrap();
        let streamed = Digested::of_reader(&mut &sealed[..]).unwrap();
        assert_eq!(streamed.body, Digested::of_bytes(&sealed).body);
        assert_eq!(streamed.tail, Digested::of_bytes(&sealed).tail);
        for at in 0..sealed.len() {
            for flip in [0x01u8, 0x20, 0x80] {
                let mut damaged = sealed.clone();
                damaged[at] ^= flip;
                let checked =
                    Head::of_bytes(&damaged).and_then(|h| h.check(&Digested::of_bytes(&damaged)));
                assert!(checked.is_err(), "byte {at} ^ {flip:#x} went unnoticed");
            }
        }
    }

    #[test]
    fn version_one_without_a_checksum_is_read_and_anything_else_needs_one() {
        let legacy = br#"{"format": "bitsift-collection", "version": 1, "subindexes": []}"#;
        head(legacy).check(&Digested::of_bytes(legacy)).unwrap();
        let current = br#"{"format": "bitsift-collection", "version": 2, "subindexes": []}"#;
        let error = head(current)
            .check(&Digested::of_bytes(current))
            .unwrap_err()
            .to_string();
        assert!(error.contains("checksum is missing"), "{error}");
        let newer = br#"{"format": "bitsift-collection", "version": 9}"#;
        let error = head(newer)
            .check(&Digested::of_bytes(newer))
            .unwrap_err()
            .to_string();
        assert!(error.contains("version 9 is not supported"), "{error}");
        let foreign = br#"{"format": "other", "version": 1}"#;
        let error = head(foreign)
            .check(&Digested::of_bytes(foreign))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("not a bitsift-collection manifest"),
            "{error}"
        );
    }

    #[test]
    fn digests_are_sixteen_lowercase_hex_digits() {
        assert_eq!(parse_digest("00000000000000ff"), Some(255));
        assert_eq!(parse_digest("00000000000000FF"), None);
        assert_eq!(parse_digest("ff"), None);
        assert_eq!(parse_digest("+0000000000000ff"), None);
    }
}
