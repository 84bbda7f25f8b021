//! Document names, stored compactly: one string and the end of each name; the one rule for
//! placeholder documents ([`is_placeholder`]); and the digest of a name list
//! ([`names_digest`]).

use xxhash_rust::xxh64::Xxh64;

/// Name of the placeholder documents a merge adds to fill a block: all-zero columns that
/// COBS's fixed stride needs. A `/` cannot come from a file name, and bitsift refuses it as a
/// record name, so no genome is called this.
pub const PADDING_NAME: &str = "bitsift/padding";

/// Whether a document named `name` is a placeholder. This is the one rule: wherever a file
/// comes from (a merge, a merged file adopted into another collection, a plain file given to
/// a search), its placeholders are never reported, counted or listed.
pub fn is_placeholder(name: &str) -> bool {
    name == PADDING_NAME
}

/// Checks a name for a new document: no control character (a tab would split every TSV
/// output, a line break the COBS header, which has no escaping), and not the placeholders'
/// name. The text says what is wrong.
pub fn check_document_name(name: &str) -> Result<(), NameError> {
    if let Some(bad) = name.chars().find(|c| c.is_control()) {
        return Err(NameError::Control {
            name: name.to_string(),
            character: bad,
        });
    }
    if is_placeholder(name) {
        return Err(NameError::Reserved {
            name: name.to_string(),
        });
    }
    Ok(())
}

/// Why a name cannot be a new document's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name holds a control character.
    #[error("the document name {name:?} holds {}; names are written into TSV outputs and the index header, which cannot hold control characters", control_name(*character))]
    Control {
        /// The name.
        name: String,
        /// The first control character in it.
        character: char,
    },
    /// The name is the placeholders' ([`PADDING_NAME`]).
    #[error("the document name {name:?} is reserved for the placeholders of merged indexes")]
    Reserved {
        /// The name.
        name: String,
    },
}

/// How a control character is named in an error.
fn control_name(character: char) -> String {
    match character {
        '\t' => "a tab".to_string(),
        '\n' => "a line break".to_string(),
        '\r' => "a carriage return".to_string(),
        other => format!("the control character U+{:04X}", other as u32),
    }
}

/// The digest of a list of document names: xxh64 (seed 0) of the names, each followed by a
/// newline, in order. These are the bytes a COBS header stores the names as, so a collection
/// manifest can tie its list of a sub-index's names to the file at the cost of one hash.
pub fn names_digest<'a>(names: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut hasher = Xxh64::new(0);
    for name in names {
        hasher.update(name.as_bytes());
        hasher.update(b"\n");
    }
    hasher.digest()
}

/// The document names of an index in header order. 661k names cost one allocation, not 661k.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentNames {
    text: String,
    ends: Vec<u32>,
}

impl DocumentNames {
    /// An empty list with room for `count` names.
    pub(crate) fn with_capacity(count: usize) -> Self {
        DocumentNames {
            text: String::new(),
            ends: Vec::with_capacity(count),
        }
    }

    /// Appends a name. Bytes that are not UTF-8 are replaced (COBS names are file names).
    pub(crate) fn push_bytes(&mut self, name: &[u8]) {
        self.text.push_str(&String::from_utf8_lossy(name));
        self.ends.push(self.text.len() as u32);
    }

    /// Appends a name.
    #[cfg(test)]
    pub(crate) fn push(&mut self, name: &str) {
        self.push_bytes(name.as_bytes());
    }

    /// Number of names.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Name of document `index`.
    pub fn get(&self, index: usize) -> &str {
        let start = if index == 0 {
            0
        } else {
            self.ends[index - 1] as usize
        };
        &self.text[start..self.ends[index] as usize]
    }

    /// All names in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Numbers of the placeholder documents ([`is_placeholder`]), in order.
    pub fn placeholders(&self) -> Vec<u64> {
        self.iter()
            .enumerate()
            .filter(|(_, name)| is_placeholder(name))
            .map(|(number, _)| number as u64)
            .collect()
    }

    /// The digest of the names ([`names_digest`]).
    pub(crate) fn digest(&self) -> u64 {
        names_digest(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let mut names = DocumentNames::with_capacity(3);
        names.push("a");
        names.push("");
        names.push_bytes(b"gen\xffome");
        assert_eq!(names.len(), 3);
        assert_eq!(names.get(0), "a");
        assert_eq!(names.get(1), "");
        assert_eq!(names.get(2), "gen\u{fffd}ome");
        assert_eq!(names.iter().count(), 3);
    }

    #[test]
    fn placeholders_and_the_digest_of_the_names() {
        let mut names = DocumentNames::with_capacity(4);
        for name in ["a", PADDING_NAME, "b", PADDING_NAME] {
            names.push(name);
        }
        assert_eq!(names.placeholders(), vec![1, 3]);
        assert!(!is_placeholder("bitsift_padding"));
        assert_eq!(
            names.digest(),
            xxhash_rust::xxh64::xxh64(b"a\nbitsift/padding\nb\nbitsift/padding\n", 0),
            "the digest is of the names as a header stores them"
        );
        assert_ne!(names_digest(["ab", "c"]), names_digest(["a", "bc"]));
    }

    #[test]
    fn new_names_hold_no_control_character_and_are_not_placeholders() {
        check_document_name("SAMD0001.contigs é").unwrap();
        let error = check_document_name("a\tb").unwrap_err().to_string();
        assert!(error.contains("\"a\\tb\" holds a tab"), "{error}");
        assert!(check_document_name("a\nb")
            .unwrap_err()
            .to_string()
            .contains("a line break"));
        assert!(check_document_name("a\u{7f}")
            .unwrap_err()
            .to_string()
            .contains("U+007F"));
        assert!(check_document_name(PADDING_NAME)
            .unwrap_err()
            .to_string()
            .contains("reserved"));
    }
}
