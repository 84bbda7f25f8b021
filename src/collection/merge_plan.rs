//! The plan of one merged sub-index: which member blocks are copied verbatim, which shown
//! documents' bit columns share each re-packed block, with how many rows and which page size.
//!
//! A document's Bloom filter is its bit column: bit `h mod m` is set for every hash `h` of its
//! k-mers, `m` being the rows of its block. Placed into a block of `M` rows, row `r` of the
//! column becomes the OR of its old rows `s` with `s ≡ r (mod g)`, `g = gcd(m, M)`:
//!
//! - **Tiling** (`m` divides `M`, so `g = m`): the column repeated `M / m` times. A lookup of
//!   hash `h` reads row `h mod M`, whose bit is the old bit `(h mod M) mod m = h mod m`: the
//!   very same filter, every score unchanged. Columns of different row counts share a block
//!   this way whenever one count divides the other, as powers of two always do.
//! - **Folding** (`g < m`): the column becomes the filter the same k-mers would have had with
//!   `g` rows (bit `h mod g`, the OR of the `m / g` slices). Every bit of the old filter maps
//!   to a set bit, so no k-mer a document holds is lost; k-mers it does not hold hit more often
//!   (more false positives). A column whose `q` of `m` bits are set has, folded by `f`, about
//!   `1 − (1 − q)^f` of its bits set, and a false-positive rate of that to the power of the
//!   number of hash functions. Folding is allowed only within a bound ([`Fold`]).
//!
//! Columns whose row counts neither divide nor fold within the bound cannot share a block:
//! only their k-mers (a rebuild from the genomes) could size them alike.
//!
//! The planner tries every allowed page size and keeps the plan with the fewest blocks (every
//! block costs one row read per k-mer hash), then the fewest bytes.

use std::collections::HashMap;

/// A block of a member sub-index, as the planner sees it.
#[derive(Clone, Debug)]
pub(super) struct SourceBlock {
    /// The member's position in the group.
    pub member: usize,
    /// The block's number in the member.
    pub block: usize,
    /// Its rows.
    pub rows: u64,
    /// Its member's page size.
    pub page_size: u64,
    /// Its documents, shown or not.
    pub documents: u64,
    /// The column numbers of its shown documents, in order.
    pub shown: Vec<u64>,
}

/// A shown document's bit column: column `column` of block `block` of member `member`, which
/// has `rows` rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Column {
    /// The member's position in the group.
    pub member: usize,
    /// The block's number in the member.
    pub block: usize,
    /// The column within the block.
    pub column: u64,
    /// The source block's rows.
    pub rows: u64,
}

impl Column {
    /// The source block.
    pub(crate) fn source(&self) -> (usize, usize) {
        (self.member, self.block)
    }
}

/// A block of the merged file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum OutBlock {
    /// Block `block` of member `member`, byte for byte.
    Copy { member: usize, block: usize },
    /// `columns` in a block of `rows` rows (each tiled or folded to it), then `placeholders`
    /// zero columns.
    Pack {
        rows: u64,
        columns: Vec<Column>,
        placeholders: u64,
    },
}

/// The plan of one merged file.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plan {
    /// Bytes per row of the merged file.
    pub page_size: u64,
    /// Its blocks in file order.
    pub blocks: Vec<OutBlock>,
}

/// The most a column is folded: by more, even a column with few bits set would reach a
/// useless false-positive rate (and row counts sized without a common structure have tiny
/// common divisors, so this also spares reading blocks that could never fold).
pub(super) const FOLD_FACTOR_MAX: u64 = 64;

/// Bit counts of the shown columns of some source blocks: `fills[&(member, block)][column]`.
pub(super) type Fills = HashMap<(usize, usize), Vec<u64>>;

/// When a column may be folded.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fold<'a> {
    /// Largest false-positive rate a folded document may have.
    pub fpr_max: f64,
    /// Hash functions per k-mer.
    pub hashes: u32,
    /// Measured bit counts of the columns that may fold.
    pub fills: &'a Fills,
}

/// Greatest common divisor.
pub(super) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The false-positive rate of a column of `rows` rows with `set` bits, folded by `factor`,
/// for `hashes` hash functions: `(1 − (1 − set/rows)^factor)^hashes`.
pub(super) fn folded_fpr(set: u64, rows: u64, factor: u64, hashes: u32) -> f64 {
    let fill = set as f64 / rows.max(1) as f64;
    let folded = 1.0 - (1.0 - fill).powf(factor as f64);
    folded.powi(hashes as i32)
}

impl OutBlock {
    /// Rows of this block (`sources` gives the rows of copied blocks).
    pub(crate) fn rows(&self, sources: &[SourceBlock]) -> u64 {
        match self {
            OutBlock::Copy { member, block } => source_rows(sources, *member, *block),
            OutBlock::Pack { rows, .. } => *rows,
        }
    }
}

fn source_rows(sources: &[SourceBlock], member: usize, block: usize) -> u64 {
    sources
        .iter()
        .find(|s| (s.member, s.block) == (member, block))
        .map_or(0, |s| s.rows)
}

impl Plan {
    /// Bytes of the blocks' rows.
    pub(crate) fn data_bytes(&self, sources: &[SourceBlock]) -> u64 {
        self.blocks.iter().map(|b| b.rows(sources)).sum::<u64>() * self.page_size
    }

    /// Columns placed into a block whose rows they fold to (fewer than their own).
    pub(crate) fn folded(&self) -> impl Iterator<Item = (&Column, u64)> {
        self.blocks.iter().flat_map(|block| match block {
            OutBlock::Pack { rows, columns, .. } => columns
                .iter()
                .filter(|c| gcd(c.rows, *rows) < c.rows)
                .map(|c| (c, c.rows / gcd(c.rows, *rows)))
                .collect::<Vec<_>>(),
            OutBlock::Copy { .. } => Vec::new(),
        })
    }
}

/// The plan with the fewest blocks, then the fewest bytes, over `page_sizes` (ties go to the
/// first, so list them narrowest first).
pub(super) fn plan(sources: &[SourceBlock], page_sizes: &[u64], fold: Option<Fold<'_>>) -> Plan {
    assert!(!page_sizes.is_empty(), "at least one page size to plan for");
    page_sizes
        .iter()
        .map(|&page_size| plan_at(sources, page_size, fold))
        .min_by_key(|plan| (plan.blocks.len(), plan.data_bytes(sources)))
        .expect("one plan per page size")
}

/// The source blocks whose columns' fills a fold could use: those whose columns lie in a
/// partly filled block of an exact plan (at some page size) and would fold by at most
/// [`FOLD_FACTOR_MAX`] into another partly filled block's rows. Their bits are read to
/// count them, so blocks that cannot fold are left out.
pub(super) fn fold_candidates(sources: &[SourceBlock], page_sizes: &[u64]) -> Vec<(usize, usize)> {
    let mut wanted: Vec<(usize, usize)> = Vec::new();
    for &page_size in page_sizes {
        let plan = plan_at(sources, page_size, None);
        let partial: Vec<(u64, &Vec<Column>)> = plan
            .blocks
            .iter()
            .filter_map(|b| match b {
                OutBlock::Pack { rows, columns, .. } if (columns.len() as u64) < 8 * page_size => {
                    Some((*rows, columns))
                }
                _ => None,
            })
            .collect();
        for (guest, (_, columns)) in partial.iter().enumerate() {
            for (host, (rows, _)) in partial.iter().enumerate() {
                let near = |c: &&Column| c.rows / gcd(c.rows, *rows) <= FOLD_FACTOR_MAX;
                if host != guest {
                    wanted.extend(columns.iter().filter(near).map(Column::source));
                }
            }
        }
    }
    wanted.sort_unstable();
    wanted.dedup();
    wanted
}

/// The plan at one page size: full clean blocks of that page size copied; the other shown
/// columns in families of dividing row counts, each cut into blocks in order of rows; then
/// partly filled blocks joined where their columns fold within the bound.
fn plan_at(sources: &[SourceBlock], page_size: u64, fold: Option<Fold<'_>>) -> Plan {
    let capacity = 8 * page_size;
    let mut blocks = Vec::new();
    let mut loose = Vec::new();
    for source in sources {
        let clean_and_full = source.shown.len() as u64 == capacity
            && source.documents == capacity
            && source.page_size == page_size;
        if clean_and_full {
            blocks.push(OutBlock::Copy {
                member: source.member,
                block: source.block,
            });
            continue;
        }
        loose.extend(source.shown.iter().map(|&column| Column {
            member: source.member,
            block: source.block,
            column,
            rows: source.rows,
        }));
    }
    let mut partial = Vec::new();
    for family in families(loose) {
        for chunk in family.chunks(capacity as usize) {
            let block = (rows_of(chunk), chunk.to_vec());
            if chunk.len() as u64 == capacity {
                blocks.push(pack(block, 0));
            } else {
                partial.push(block);
            }
        }
    }
    if let Some(fold) = fold {
        join_partials(&mut partial, capacity, fold);
    }
    blocks.extend(
        partial
            .into_iter()
            .map(|block| pack(block.clone(), capacity - block.1.len() as u64)),
    );
    if let Some(OutBlock::Pack { placeholders, .. }) = blocks.last_mut() {
        *placeholders = 0;
    }
    Plan { page_size, blocks }
}

fn pack((rows, columns): (u64, Vec<Column>), placeholders: u64) -> OutBlock {
    OutBlock::Pack {
        rows,
        columns,
        placeholders,
    }
}

/// The least common multiple of the columns' row counts (they divide one another's
/// multiples within a family, so it is at most the family's largest).
fn rows_of(columns: &[Column]) -> u64 {
    columns
        .iter()
        .fold(1, |rows, c| rows / gcd(rows, c.rows) * c.rows)
}

/// Groups columns so that within a group every row count divides the group's largest, and
/// orders each group by rows (then as given), so blocks cut from it have as few rows as they
/// can. Larger row counts found groups first; a count joins the first group it divides.
fn families(columns: Vec<Column>) -> Vec<Vec<Column>> {
    let mut counts: Vec<u64> = columns.iter().map(|c| c.rows).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    counts.dedup();
    let mut roots: Vec<u64> = Vec::new();
    let mut family_of: HashMap<u64, usize> = HashMap::new();
    for rows in counts {
        let at = match roots.iter().position(|root| root % rows == 0) {
            Some(at) => at,
            None => {
                roots.push(rows);
                roots.len() - 1
            }
        };
        family_of.insert(rows, at);
    }
    let mut families: Vec<Vec<Column>> = vec![Vec::new(); roots.len()];
    for column in columns {
        families[family_of[&column.rows]].push(column);
    }
    for family in &mut families {
        family.sort_by_key(|c| c.rows);
    }
    families
}

/// Joins partly filled blocks while some block's columns all fit into another block, each
/// tiled or folded within the bound; the host keeps its rows.
fn join_partials(partial: &mut Vec<(u64, Vec<Column>)>, capacity: u64, fold: Fold<'_>) {
    loop {
        partial.sort_by_key(|block| std::cmp::Reverse(block.0));
        let Some((host, guest)) = find_join(partial, capacity, fold) else {
            return;
        };
        let (_, columns) = partial.remove(guest);
        let host = if guest < host { host - 1 } else { host };
        partial[host].1.extend(columns);
    }
}

/// The first (host, guest) pair of partly filled blocks that can be joined.
fn find_join(
    partial: &[(u64, Vec<Column>)],
    capacity: u64,
    fold: Fold<'_>,
) -> Option<(usize, usize)> {
    for (host, (rows, columns)) in partial.iter().enumerate() {
        for (guest, (_, guests)) in partial.iter().enumerate() {
            let fits = columns.len() + guests.len() <= capacity as usize;
            if host != guest && fits && guests.iter().all(|c| may_place(c, *rows, fold)) {
                return Some((host, guest));
            }
        }
    }
    None
}

/// Whether `column` may go into a block of `rows` rows: tiled, or folded within the bound.
fn may_place(column: &Column, rows: u64, fold: Fold<'_>) -> bool {
    let factor = column.rows / gcd(column.rows, rows);
    if factor == 1 {
        return true;
    }
    if factor > FOLD_FACTOR_MAX {
        return false;
    }
    let Some(set) = fold
        .fills
        .get(&column.source())
        .and_then(|fills| fills.get(column.column as usize))
    else {
        return false;
    };
    folded_fpr(*set, column.rows, factor, fold.hashes) <= fold.fpr_max
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(member: usize, rows: u64, page_size: u64, shown: u64) -> SourceBlock {
        SourceBlock {
            member,
            block: 0,
            rows,
            page_size,
            documents: shown,
            shown: (0..shown).collect(),
        }
    }

    fn rows(plan: &Plan, sources: &[SourceBlock]) -> Vec<u64> {
        plan.blocks.iter().map(|b| b.rows(sources)).collect()
    }

    #[test]
    fn powers_of_two_tile_into_one_block_at_the_widest_page_size_needed() {
        // Eight additions of 200 documents, each its own block of page size 32 (256 slots).
        let sources: Vec<SourceBlock> = (0..8)
            .map(|m| source(m, 1 << (10 + m % 3), 32, 200))
            .collect();
        let plan = plan(&sources, &[32, 64, 128, 256, 512], None);
        assert_eq!(plan.page_size, 256, "1,600 documents fit 2,048 slots");
        assert_eq!(rows(&plan, &sources), vec![1 << 12]);
        assert_eq!(plan.folded().count(), 0, "tiling folds nothing");
        let OutBlock::Pack {
            columns,
            placeholders,
            ..
        } = &plan.blocks[0]
        else {
            panic!("re-packed");
        };
        assert_eq!((columns.len(), *placeholders), (1600, 0));
        assert!(columns.windows(2).all(|w| w[0].rows <= w[1].rows));
    }

    #[test]
    fn row_counts_that_do_not_divide_stay_apart_without_a_fold() {
        let sources = vec![source(0, 1000, 8, 10), source(1, 1001, 8, 10)];
        let plan = plan(&sources, &[8, 16], None);
        assert_eq!(
            plan.page_size, 8,
            "no wider rows for the same number of blocks"
        );
        assert_eq!(rows(&plan, &sources), vec![1001, 1000]);
        let OutBlock::Pack { placeholders, .. } = &plan.blocks[0] else {
            panic!("re-packed");
        };
        assert_eq!(
            *placeholders, 54,
            "a non-last block is filled to 64 documents"
        );
    }

    #[test]
    fn full_clean_blocks_are_copied_and_dividing_counts_tile() {
        let mut removed = source(2, 300, 8, 64);
        removed.shown.retain(|&c| c != 5);
        let sources = vec![
            source(0, 600, 8, 64),
            source(1, 600, 8, 20),
            removed,
            source(3, 200, 8, 10),
        ];
        let plan = plan(&sources, &[8], None);
        assert_eq!(
            plan.blocks[0],
            OutBlock::Copy {
                member: 0,
                block: 0
            }
        );
        // 20 + 63 + 10 columns of 600, 300 and 200 rows: one family (600), 93 columns.
        assert_eq!(rows(&plan, &sources), vec![600, 600, 600]);
        let OutBlock::Pack { columns, .. } = &plan.blocks[1] else {
            panic!("re-packed");
        };
        assert_eq!(columns[0].rows, 200, "smallest rows first");
    }

    #[test]
    fn a_fold_joins_blocks_only_within_the_bound() {
        let sources = vec![source(0, 3000, 8, 20), source(1, 2000, 8, 20)];
        let mut fills = Fills::new();
        // 2000 rows, 100 bits set: 5 % of them; folded by 2 (to 1000 = gcd): ~9.75 %.
        fills.insert((1, 0), vec![100; 20]);
        fills.insert((0, 0), vec![900; 20]);
        let fold = |fpr_max| Fold {
            fpr_max,
            hashes: 1,
            fills: &fills,
        };
        let strict = plan(&sources, &[8], Some(fold(0.05)));
        assert_eq!(rows(&strict, &sources), vec![3000, 2000]);
        let loose = plan(&sources, &[8], Some(fold(0.1)));
        assert_eq!(rows(&loose, &sources), vec![3000]);
        let folded: Vec<(Column, u64)> = loose.folded().map(|(c, f)| (*c, f)).collect();
        assert_eq!(folded.len(), 20);
        assert!(folded.iter().all(|(c, f)| c.member == 1 && *f == 2));
        let expected = 1.0 - 0.95f64 * 0.95;
        assert!((folded_fpr(100, 2000, 2, 1) - expected).abs() < 1e-12);
        assert_eq!(
            fold_candidates(&sources, &[8]),
            vec![(0, 0), (1, 0)],
            "both partly filled blocks"
        );
    }
}
