//! Which documents share a block: the order documents are written in, before the list is cut
//! into blocks of `8 · page_size`.
//!
//! - [`Order::Size`] (COBS's choice): by k-mer count, so a block's documents have similar
//!   sizes and its rows (sized for its largest) waste little.
//! - [`Order::Input`]: as given.
//! - [`Order::Group`]: documents with the same value in a metadata column share blocks.
//! - [`Order::Similarity`]: documents with similar k-mer content share blocks (clusters of
//!   MinHash sketches).
//!
//! Related documents in the same blocks leave most blocks without any carrier of a given
//! gene, which block summaries can then rule out without reading. Groups are packed into
//! blocks ([`pack`]) so that a group smaller than a block is split only when nothing else
//! fits. Within a group documents go by size, then name.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::cluster::similarity_groups;
use super::metadata::GroupColumn;
use super::scan::Document;
use super::sketch::Sketch;
use super::BuildError;

/// How documents are ordered before they are cut into blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// By k-mer count, then name (COBS's order).
    #[default]
    Size,
    /// As given: file order, then record order.
    Input,
    /// Clusters of similar k-mer content (sketches computed while scanning).
    Similarity,
    /// Groups of equal value in this metadata column.
    Group(String),
}

impl Order {
    /// Whether the scan must sketch documents.
    pub(crate) fn needs_sketches(&self) -> bool {
        matches!(self, Order::Similarity)
    }
}

/// A text that names no order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown order {0:?}: expected size, input, similarity or group:COLUMN")]
pub struct UnknownOrder(pub String);

impl FromStr for Order {
    type Err = UnknownOrder;

    fn from_str(text: &str) -> Result<Order, UnknownOrder> {
        match text {
            "size" => Ok(Order::Size),
            "input" => Ok(Order::Input),
            "similarity" => Ok(Order::Similarity),
            _ => match text.strip_prefix("group:") {
                Some(column) if !column.is_empty() => Ok(Order::Group(column.to_string())),
                _ => Err(UnknownOrder(text.to_string())),
            },
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Order::Size => f.write_str("size"),
            Order::Input => f.write_str("input"),
            Order::Similarity => f.write_str("similarity"),
            Order::Group(column) => write!(f, "group:{column}"),
        }
    }
}

/// Puts `documents` and `sketches` (one per document, or none) in the order `order` asks
/// for, with blocks of `per_block` documents. `metadata` is the table a group order reads.
pub(crate) fn arrange(
    documents: &mut Vec<Document>,
    sketches: &mut Vec<Sketch>,
    order: &Order,
    metadata: Option<&Path>,
    files: &[PathBuf],
    per_block: usize,
) -> Result<(), BuildError> {
    assert!(
        sketches.is_empty() || sketches.len() == documents.len(),
        "one sketch per document, or none"
    );
    let permutation = match order {
        Order::Size => size_order(documents),
        Order::Input => return Ok(()),
        Order::Group(column) => {
            let path = metadata.ok_or_else(|| {
                BuildError::Invalid(format!(
                    "the order group:{column} needs a metadata table of the documents"
                ))
            })?;
            let groups = metadata_groups(documents, files, &GroupColumn::load(path, column)?)?;
            pack(&groups, per_block)
        }
        Order::Similarity => {
            assert_eq!(sketches.len(), documents.len(), "one sketch per document");
            let mut rank = vec![0; documents.len()];
            for (position, &d) in size_order(documents).iter().enumerate() {
                rank[d] = position;
            }
            pack(&similarity_groups(sketches, &rank), per_block)
        }
    };
    permute(documents, &permutation);
    if !sketches.is_empty() {
        permute(sketches, &permutation);
    }
    Ok(())
}

/// Document positions by (k-mers, name), ties in input order.
fn size_order(documents: &[Document]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..documents.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&documents[a], &documents[b]);
        a.kmers.cmp(&b.kmers).then_with(|| a.name.cmp(&b.name))
    });
    order
}

/// Documents grouped by their value in `column` (groups in value order, each by size).
fn metadata_groups(
    documents: &[Document],
    files: &[PathBuf],
    column: &GroupColumn,
) -> Result<Vec<Vec<usize>>, BuildError> {
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut missing = Vec::new();
    for d in size_order(documents) {
        match column.get(&documents[d].name) {
            Some(value) => groups.entry(value).or_default().push(d),
            None => missing.push(d),
        }
    }
    if let Some(&first) = missing.first() {
        return Err(BuildError::Input {
            path: column.path.clone(),
            detail: format!(
                "{} of {} documents have no row, e.g. {:?} (from {}); the first column must hold every document's name as the index stores it",
                missing.len(),
                documents.len(),
                documents[first].name,
                files[documents[first].source as usize].display()
            ),
        });
    }
    Ok(groups.into_values().collect())
}

/// Orders groups (each contiguous, in its own order) so that blocks of `per_block` cut as few
/// as possible. Best fit, decreasing: each block takes the largest group that still fits in
/// what is left of it; when none fits, the largest group left starts there and runs on into
/// the next blocks (a group that spans blocks anyway costs least to cut).
pub(crate) fn pack(groups: &[Vec<usize>], per_block: usize) -> Vec<usize> {
    assert!(per_block > 0, "blocks hold documents");
    // By size; among equal sizes the earlier group comes first.
    let mut left: BTreeSet<(usize, Reverse<usize>)> = groups
        .iter()
        .enumerate()
        .filter(|(_, g)| !g.is_empty())
        .map(|(i, g)| (g.len(), Reverse(i)))
        .collect();
    let mut order = Vec::with_capacity(groups.iter().map(Vec::len).sum());
    let mut free = per_block;
    while let Some(&largest) = left.last() {
        let (size, group) = left
            .range(..=(free, Reverse(0)))
            .next_back()
            .copied()
            .unwrap_or(largest);
        left.remove(&(size, group));
        order.extend_from_slice(&groups[group.0]);
        free = if size < free {
            free - size
        } else {
            per_block - (size - free) % per_block
        };
    }
    order
}

/// Reorders `items` so that position `i` holds the item that was at `order[i]`.
fn permute<T>(items: &mut Vec<T>, order: &[usize]) {
    assert_eq!(order.len(), items.len(), "a permutation of the items");
    let mut slot = vec![usize::MAX; order.len()];
    for (new, &old) in order.iter().enumerate() {
        assert_eq!(slot[old], usize::MAX, "each item once");
        slot[old] = new;
    }
    let mut tagged: Vec<(usize, T)> = items
        .drain(..)
        .enumerate()
        .map(|(old, d)| (slot[old], d))
        .collect();
    tagged.sort_unstable_by_key(|t| t.0);
    items.extend(tagged.into_iter().map(|t| t.1));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks_touched(order: &[usize], group: &[usize], per_block: usize) -> usize {
        let mut blocks: Vec<usize> = order
            .iter()
            .enumerate()
            .filter(|(_, d)| group.contains(d))
            .map(|(p, _)| p / per_block)
            .collect();
        blocks.dedup();
        blocks.len()
    }

    fn groups_of(sizes: &[usize]) -> Vec<Vec<usize>> {
        let mut next = 0;
        sizes
            .iter()
            .map(|&n| {
                let g: Vec<usize> = (next..next + n).collect();
                next += n;
                g
            })
            .collect()
    }

    #[test]
    fn packing_keeps_groups_whole_when_they_fit() {
        let groups = groups_of(&[6, 5, 3, 2]);
        let order = pack(&groups, 8);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..16).collect::<Vec<_>>());
        for g in &groups {
            assert_eq!(blocks_touched(&order, g, 8), 1, "{order:?}");
            // Each group stays contiguous and in its own order.
            let at = order.iter().position(|&d| d == g[0]).unwrap();
            assert_eq!(&order[at..at + g.len()], &g[..]);
        }
    }

    #[test]
    fn packing_the_simulated_species_sizes() {
        // Eight Zipf-sized species in blocks of 1024: each touches at most one block more
        // than it must, and the small ones that fit stay whole.
        let sizes = [3014, 1507, 1005, 753, 603, 502, 431, 377];
        let groups = groups_of(&sizes);
        let order = pack(&groups, 1024);
        assert_eq!(order.len(), sizes.iter().sum::<usize>());
        let mut whole = 0;
        for g in &groups {
            let touched = blocks_touched(&order, g, 1024);
            let least = g.len().div_ceil(1024);
            assert!(touched <= least + 1, "{} touches {touched}", g.len());
            whole += (touched == least) as usize;
        }
        assert!(whole >= 4, "{whole}");
        // Singletons fill every gap exactly.
        let mut many = sizes.to_vec();
        many.extend([1; 200]);
        let groups = groups_of(&many);
        let order = pack(&groups, 1024);
        for g in &groups[..8] {
            assert!(blocks_touched(&order, g, 1024) <= g.len().div_ceil(1024) + 1);
        }
    }

    #[test]
    fn orders_parse_and_print() {
        for text in ["size", "input", "similarity", "group:species"] {
            assert_eq!(text.parse::<Order>().unwrap().to_string(), text);
        }
        for bad in ["", "group:", "sizes", "group"] {
            let e = bad.parse::<Order>().unwrap_err().to_string();
            assert!(
                e.contains("expected size, input, similarity or group:COLUMN"),
                "{e}"
            );
        }
        assert_eq!(Order::default(), Order::Size);
    }

    fn doc(name: &str, kmers: u64) -> Document {
        Document {
            source: 0,
            record: None,
            name: name.into(),
            kmers,
            bases: kmers,
        }
    }

    #[test]
    fn group_order_packs_groups_by_size_then_name() {
        let (_dir, table) =
            crate::testing::file_with("m.tsv", "doc\tspecies\na\tX\nb\tY\nc\tX\nd\tY\ne\tZ\n");
        let mut documents = vec![
            doc("a", 50),
            doc("b", 10),
            doc("c", 20),
            doc("d", 10),
            doc("e", 5),
        ];
        let files = vec![PathBuf::from("in.fa")];
        let order = Order::Group("species".into());
        arrange(&mut documents, &mut vec![], &order, Some(&table), &files, 2).unwrap();
        let names: Vec<&str> = documents.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["c", "a", "b", "d", "e"]);
        documents.push(doc("f", 1));
        let err = arrange(&mut documents, &mut vec![], &order, Some(&table), &files, 2)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("1 of 6 documents have no row, e.g. \"f\" (from in.fa)"),
            "{err}"
        );
        let err = arrange(&mut documents, &mut vec![], &order, None, &files, 2)
            .unwrap_err()
            .to_string();
        assert!(err.contains("needs a metadata table"), "{err}");
        let mut sketches: Vec<Sketch> = (0..6u32)
            .map(|i| {
                let mut s = Sketch::default();
                s.bins[0] = i;
                s
            })
            .collect();
        arrange(&mut documents, &mut sketches, &Order::Size, None, &files, 2).unwrap();
        // Sketches follow their documents: "f" was sixth, "a" second.
        let moved: Vec<u32> = sketches.iter().map(|s| s.bins[0]).collect();
        assert_eq!(moved, [5, 4, 2, 3, 0, 1]);
        let names: Vec<&str> = documents.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["f", "e", "b", "d", "c", "a"]);
    }
}
