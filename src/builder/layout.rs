//! The geometry of a new index: page size, which documents share a block, rows per block.

use super::scan::Document;
use crate::format::RowLayout;

/// Bloom filter bits per element for `num_hashes` hash functions and false-positive rate
/// `fpr`: `−h / ln(1 − fpr^(1/h))`, as COBS computes it.
pub fn bits_per_kmer(num_hashes: u32, fpr: f64) -> f64 {
    let h = num_hashes as f64;
    -h / (1.0 - fpr.powf(1.0 / h)).ln()
}

/// Rows of a Bloom filter that holds `kmers` elements: `ceil(kmers · bits_per_kmer)`, at least 1.
pub fn rows_for(kmers: u64, num_hashes: u32, fpr: f64) -> u64 {
    ((kmers as f64 * bits_per_kmer(num_hashes, fpr)).ceil() as u64).max(1)
}

/// How a block's row count follows from the k-mers of its largest document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowSizing {
    /// [`rows_for`]: the fewest rows that meet the false-positive rate, as COBS sizes them.
    #[default]
    Exact,
    /// The next power of two of that: up to twice the rows (about 1.4 times on average, and a
    /// lower false-positive rate for it), but any two blocks' row counts divide one another,
    /// so a merge can put their documents into full blocks with every score unchanged
    /// ([`crate::collection::merge`]).
    PowerOfTwo,
    /// Every block gets the rows of a filter of this many k-mers, whatever its documents
    /// hold: COBS's classic construction sizes its one matrix by the term count of its
    /// largest file *by bytes*, which need not be the document with the most terms
    /// ([`crate::doclist::DocumentList::classic_terms`]).
    Terms(u64),
}

impl RowSizing {
    /// Rows of a block whose largest document has `kmers` k-mers.
    pub(crate) fn rows(self, kmers: u64, num_hashes: u32, fpr: f64) -> u64 {
        match self {
            RowSizing::Exact => rows_for(kmers, num_hashes, fpr),
            RowSizing::PowerOfTwo => rows_for(kmers, num_hashes, fpr).next_power_of_two(),
            RowSizing::Terms(terms) => rows_for(terms, num_hashes, fpr),
        }
    }
}

impl std::fmt::Display for RowSizing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowSizing::Exact => f.write_str("exact"),
            RowSizing::PowerOfTwo => f.write_str("power-of-two"),
            RowSizing::Terms(terms) => write!(f, "terms-{terms}"),
        }
    }
}

/// The default page size for `documents` documents: the smallest power of two ≥ D/8 bytes,
/// clamped to 8..=4096, so a small collection fits one block and a large one gets
/// 4096-byte rows (one aligned page per k-mer per block).
pub(crate) fn default_page_size(documents: u64) -> u64 {
    documents.div_ceil(8).next_power_of_two().clamp(8, 4096)
}

/// A planned block: its documents (positions in the ordered document list) and rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BlockPlan {
    /// `documents[first..first + count]` of the ordered list.
    pub first: usize,
    /// Documents in the block.
    pub count: usize,
    /// Rows (Bloom filter bits).
    pub rows: u64,
}

/// Cuts the ordered documents ([`super::order`]) into blocks of `8 · page_size`; each block's
/// row count comes from its largest document, sized as `sizing` says, then rounded up to a
/// whole number of the ranges of the layout `fit` chooses for the largest block's rows.
/// Returns the blocks and that layout.
pub(crate) fn plan_blocks<E>(
    documents: &[Document],
    page_size: u64,
    num_hashes: u32,
    fpr: f64,
    sizing: RowSizing,
    fit: impl FnOnce(u64) -> Result<RowLayout, E>,
) -> Result<(Vec<BlockPlan>, RowLayout), E> {
    let per_block = (8 * page_size) as usize;
    let mut blocks: Vec<BlockPlan> = documents
        .chunks(per_block)
        .enumerate()
        .map(|(number, chunk)| BlockPlan {
            first: number * per_block,
            count: chunk.len(),
            rows: sizing.rows(
                chunk.iter().map(|d| d.kmers).max().unwrap_or(0),
                num_hashes,
                fpr,
            ),
        })
        .collect();
    let layout = fit(blocks.iter().map(|b| b.rows).max().unwrap_or(1))?;
    for block in &mut blocks {
        block.rows = layout.round_rows(block.rows);
    }
    Ok((blocks, layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cobs_signature_sizes() {
        // docs/formats.md, "Sizes": h=1, p=0.3 → 2.80367 bits; n=10^6 → 2,803,674 rows;
        // h=3, p=0.1 → 4,808,328 rows.
        assert!((bits_per_kmer(1, 0.3) - 2.80367).abs() < 1e-5);
        assert_eq!(rows_for(1_000_000, 1, 0.3), 2_803_674);
        assert_eq!(rows_for(1_000_000, 3, 0.1), 4_808_328);
        assert_eq!(rows_for(0, 1, 0.3), 1);
    }

    #[test]
    fn page_sizes() {
        assert_eq!(default_page_size(1), 8);
        assert_eq!(default_page_size(64), 8);
        assert_eq!(default_page_size(65), 16);
        assert_eq!(default_page_size(1000), 128);
        assert_eq!(default_page_size(661_405), 4096);
        // 661,405 genomes in 4096-byte rows: 21 blocks.
        assert_eq!(661_405u64.div_ceil(8 * 4096), 21);
    }

    #[test]
    fn blocks_group_similar_sizes() {
        let mut docs: Vec<Document> = (0..20u64)
            .map(|i| Document {
                source: i as u32,
                record: None,
                name: format!("d{i:02}"),
                kmers: (20 - i) * 1000,
                bases: 0,
            })
            .collect();
        let files = [std::path::PathBuf::from("x.fa")];
        super::super::order::arrange(&mut docs, &mut vec![], &Default::default(), None, &files, 8)
            .unwrap();
        let cobs = |_| Ok::<_, ()>(RowLayout::Cobs);
        let (blocks, _) = plan_blocks(&docs, 1, 1, 0.3, RowSizing::Exact, cobs).unwrap();
        assert_eq!(blocks.len(), 3);
        assert_eq!(
            (blocks[0].count, blocks[1].count, blocks[2].count),
            (8, 8, 4)
        );
        assert_eq!(docs[0].kmers, 1000);
        assert_eq!(blocks[0].rows, rows_for(8000, 1, 0.3));
        assert_eq!(blocks[2].rows, rows_for(20_000, 1, 0.3));
        let (powers, _) = plan_blocks(&docs, 1, 1, 0.3, RowSizing::PowerOfTwo, cobs).unwrap();
        assert_eq!(powers.len(), 3);
        for (power, exact) in powers.iter().zip(&blocks) {
            assert!(power.rows.is_power_of_two());
            assert!(power.rows >= exact.rows && power.rows < 2 * exact.rows);
        }
    }
}
