//! Document names, stored compactly: one string and the end of each name.

/// The document names of an index in header order. 661k names cost one allocation, not 661k.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocumentNames {
    text: String,
    ends: Vec<u32>,
}

impl DocumentNames {
    /// An empty list with room for `count` names.
    pub fn with_capacity(count: usize) -> Self {
        DocumentNames {
            text: String::new(),
            ends: Vec::with_capacity(count),
        }
    }

    /// Appends a name. Bytes that are not UTF-8 are replaced (COBS names are file names).
    pub fn push_bytes(&mut self, name: &[u8]) {
        self.text.push_str(&String::from_utf8_lossy(name));
        self.ends.push(self.text.len() as u32);
    }

    /// Appends a name.
    pub fn push(&mut self, name: &str) {
        self.push_bytes(name.as_bytes());
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there are no names.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
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
}
