//! Finding a row of a metadata table by its document name: an open-addressing hash table of
//! row numbers (4 bytes a slot, at most half of them used), the names themselves staying in
//! the table's text. A `HashMap<String, _>` would add a string allocation of its own per
//! document.

use xxhash_rust::xxh64::xxh64;

/// A slot that holds no row.
const EMPTY: u32 = u32::MAX;

/// Row numbers by name; the names are looked up through a function giving row `r`'s name.
#[derive(Debug, Default)]
pub(super) struct NameLookup {
    slots: Vec<u32>,
    rows: usize,
}

impl NameLookup {
    /// The row named `name`, if any.
    pub(super) fn find<'a>(&self, name: &str, name_of: impl Fn(u32) -> &'a str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash(name) & mask;
        loop {
            match self.slots[slot] {
                EMPTY => return None,
                row if name_of(row) == name => return Some(row),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    /// Adds row `row` under `name`, which must not be present yet.
    pub(super) fn insert<'a>(&mut self, name: &str, row: u32, name_of: impl Fn(u32) -> &'a str) {
        if 2 * (self.rows + 1) > self.slots.len() {
            self.grow(&name_of);
        }
        place(&mut self.slots, hash(name), row);
        self.rows += 1;
    }

    fn grow<'a>(&mut self, name_of: &impl Fn(u32) -> &'a str) {
        let size = (self.slots.len() * 2).max(16);
        let mut slots = vec![EMPTY; size];
        for &row in self.slots.iter().filter(|&&r| r != EMPTY) {
            place(&mut slots, hash(name_of(row)), row);
        }
        self.slots = slots;
    }
}

fn hash(name: &str) -> usize {
    xxh64(name.as_bytes(), 0) as usize
}

/// Puts `row` in the first free slot from `hash` on.
fn place(slots: &mut [u32], hash: usize, row: u32) {
    let mask = slots.len() - 1;
    let mut slot = hash & mask;
    while slots[slot] != EMPTY {
        slot = (slot + 1) & mask;
    }
    slots[slot] = row;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_name_inserted_and_no_other() {
        let names: Vec<String> = (0..1000).map(|i| format!("SAMN{i:08}")).collect();
        let mut lookup = NameLookup::default();
        for (row, name) in names.iter().enumerate() {
            let known = &names[..row];
            assert_eq!(lookup.find(name, |r| known[r as usize].as_str()), None);
            lookup.insert(name, row as u32, |r| names[r as usize].as_str());
        }
        for (row, name) in names.iter().enumerate() {
            assert_eq!(
                lookup.find(name, |r| names[r as usize].as_str()),
                Some(row as u32)
            );
        }
        assert_eq!(lookup.find("absent", |r| names[r as usize].as_str()), None);
    }
}
