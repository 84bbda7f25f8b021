//! Where a term's rows lie in a block: COBS's layout (a row per hash) or bitsift's minimizer
//! ranges (the k-mers that share a minimizer in one small range of rows).
//!
//! In COBS's layout the row of hash `h` is `h mod S`: the ~1,000 k-mers of a gene are ~1,000
//! random rows of every block, one read request each. A cloud volume (~3,000 requests a
//! second) or a hard disk (~200) is bound by requests, not bytes. In the minimizer layout a
//! block's `S` rows are cut into `S / L` *ranges* of `L` consecutive rows; a k-mer's
//! minimizer hash picks the range (`⌊minimizer · (S / L) / 2^64⌋`, the top bits of the hash
//! when `S / L` is a power of two, as the block summaries' buckets) and its row hash the row
//! within it (`h mod L`). The ~10 k-mers of a super-k-mer share a minimizer, so a gene costs
//! one read of a range per distinct minimizer and block (~100) instead of one per k-mer.
//! `docs/formats.md` ("Row layouts") gives the trade-offs: bytes per range against requests,
//! and the false-positive rate of related genomes.

use strength_reduce::StrengthReducedU64;

/// Fewest rows a range may hold.
pub(crate) const RANGE_ROWS_MIN: u32 = 8;
/// Most rows a range may hold (4 MiB of 4 KiB rows: more would read far more than it needs).
pub(crate) const RANGE_ROWS_MAX: u32 = 1024;
/// Fewest rows per range of a new minimizer-layout index: 16 rows of a 4 KiB page size are one
/// 64 KiB read, about 1.4 times the bytes of the ~10 rows a super-k-mer needs (see
/// `docs/formats.md`, "Row layouts", for the measured trade-off). Narrower rows get more
/// ([`LayoutChoice::range_rows_for`]).
pub(crate) const RANGE_ROWS_DEFAULT: u32 = 16;
/// Bytes a range of a new index spans at least, when its rows are narrow: a 4 KiB page costs
/// one request whatever part of it is read, and more rows per range keep related genomes'
/// false positives nearer the rate.
pub(crate) const RANGE_BYTES_MIN: u64 = 4096;
/// Fewest distinct minimizers a range must be able to receive on average: a block's k-mers
/// fill its ranges evenly only when there are many more possible minimizers than ranges. A
/// short k has short minimizers (`k = 9`: 512 canonical 5-mers), and a block with more ranges
/// than that would leave most ranges empty and fill the rest far beyond the rate.
pub(crate) const MINIMIZERS_PER_RANGE_MIN: u64 = 8;
/// Layout number of the minimizer ranges in a version-2 compact header.
pub(crate) const LAYOUT_MINIMIZER: u32 = 1;

/// How a block's rows are addressed; the same for every block of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(tag = "name", rename_all = "lowercase")]
pub enum RowLayout {
    /// COBS's: the row of hash `h` is `h mod S`.
    #[default]
    Cobs,
    /// bitsift's: `S / range_rows` ranges of `range_rows` rows; a k-mer's minimizer hash (of
    /// `minimizer`-mers, [`crate::kmer::Minimizers`]) picks the range, its row hash the row.
    Minimizer {
        /// Rows of a range, a power of two.
        range_rows: u32,
        /// Minimizer length `m`.
        minimizer: u32,
    },
}

impl RowLayout {
    /// The layout for new indexes of term size `k` with `range_rows` rows per range.
    pub fn minimizer(k: u32, range_rows: u32) -> RowLayout {
        RowLayout::Minimizer {
            range_rows,
            minimizer: crate::kmer::minimizer_length(k),
        }
    }

    /// The minimizer length a query must compute for this layout (`None`: no minimizers).
    pub(crate) fn minimizer_length(&self) -> Option<u32> {
        match *self {
            RowLayout::Cobs => None,
            RowLayout::Minimizer { minimizer, .. } => Some(minimizer),
        }
    }

    /// Rows of a range (1 for COBS's layout: every row is its own range).
    pub fn range_rows(&self) -> u64 {
        match *self {
            RowLayout::Cobs => 1,
            RowLayout::Minimizer { range_rows, .. } => range_rows as u64,
        }
    }

    /// Rows a block needs at least `rows` of: a whole number of ranges.
    pub(crate) fn round_rows(&self, rows: u64) -> u64 {
        rows.max(1).next_multiple_of(self.range_rows())
    }

    /// Short name, as `--layout` takes it.
    pub fn name(&self) -> &'static str {
        match self {
            RowLayout::Cobs => "cobs",
            RowLayout::Minimizer { .. } => "minimizer",
        }
    }

    /// Why `range_rows` rows per range cannot be used, if they cannot.
    pub fn check_range_rows(range_rows: u64) -> Result<(), RangeRowsError> {
        let allowed = RANGE_ROWS_MIN as u64..=RANGE_ROWS_MAX as u64;
        if !range_rows.is_power_of_two() || !allowed.contains(&range_rows) {
            return Err(RangeRowsError { range_rows });
        }
        Ok(())
    }
}

impl std::fmt::Display for RowLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            RowLayout::Cobs => f.write_str("cobs (a row per hash)"),
            RowLayout::Minimizer {
                range_rows,
                minimizer,
            } => write!(
                f,
                "minimizer (ranges of {range_rows} rows picked by {minimizer}-mer minimizers)"
            ),
        }
    }
}

/// How a new index chooses its row layout: COBS's, or minimizer ranges of a given number of
/// rows or of the number its page size calls for ([`LayoutChoice::range_rows_for`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(tag = "name", rename_all = "lowercase")]
pub enum LayoutChoice {
    /// COBS's layout.
    #[default]
    Cobs,
    /// Minimizer ranges.
    Minimizer {
        /// Rows per range (`None`: chosen from the page size).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        range_rows: Option<u32>,
    },
}

/// Lowest false-positive rate at which a new index gets the minimizer layout unless told
/// otherwise ([`LayoutChoice::default_for`]).
pub const MINIMIZER_FPR_MIN: f64 = 0.1;
/// Shortest term size at which a new index gets the minimizer layout unless told otherwise:
/// shorter terms have minimizers of at most 9 bases (131,072 canonical ones), too few to
/// spread a bacterial genome's rows over small ranges ([`LayoutChoice::fit`]).
pub const MINIMIZER_K_MIN: u32 = 19;

impl LayoutChoice {
    /// Minimizer ranges of the size the page size calls for: bitsift's default.
    pub const MINIMIZER: LayoutChoice = LayoutChoice::Minimizer { range_rows: None };

    /// The layout of a new index built at false-positive rate `fpr` when none is asked for:
    /// minimizer ranges, or COBS's layout below [`MINIMIZER_FPR_MIN`]. A genome a few SNPs
    /// from a gene's carrier sets about as many bits in the gene's ranges whatever the rate, so
    /// the lower the rate the more its false positives grow against COBS's layout (BENCHMARKS:
    /// 2× at 0.3, 43× at 0.01, with ranges of 16 rows); an index built at a low rate is built
    /// to tell such copies apart. Terms shorter than [`MINIMIZER_K_MIN`] keep COBS's layout
    /// too: their minimizers are too few.
    pub fn default_for(fpr: f64, k: u32) -> LayoutChoice {
        match fpr >= MINIMIZER_FPR_MIN && k >= MINIMIZER_K_MIN {
            true => LayoutChoice::MINIMIZER,
            false => LayoutChoice::Cobs,
        }
    }

    /// Rows per range for rows of `page_size` bytes: at least [`RANGE_ROWS_DEFAULT`], and at
    /// least [`RANGE_BYTES_MIN`] bytes (a power of two, at most [`RANGE_ROWS_MAX`]).
    pub(crate) fn range_rows_for(page_size: u64) -> u32 {
        let rows = RANGE_BYTES_MIN
            .div_ceil(page_size.max(1))
            .next_power_of_two();
        rows.clamp(RANGE_ROWS_DEFAULT as u64, RANGE_ROWS_MAX as u64) as u32
    }

    /// The layout of a new index of term size `k` with rows of `page_size` bytes.
    pub(crate) fn resolve(self, k: u32, page_size: u64) -> RowLayout {
        match self {
            LayoutChoice::Cobs => RowLayout::Cobs,
            LayoutChoice::Minimizer { range_rows } => RowLayout::minimizer(
                k,
                range_rows.unwrap_or_else(|| LayoutChoice::range_rows_for(page_size)),
            ),
        }
    }

    /// The layout of a new index of term size `k` (canonical or not) with rows of `page_size`
    /// bytes and blocks of at most `rows` rows (before rounding to whole ranges): as
    /// [`LayoutChoice::resolve`], but with ranges large enough that the minimizers can spread a
    /// block's k-mers over all of them (at least [`MINIMIZERS_PER_RANGE_MIN`] possible
    /// minimizers a range). Ranges whose size was not given grow, up to [`RANGE_ROWS_MAX`];
    /// an error says when no range size fits (COBS's layout always does).
    pub(crate) fn fit(
        self,
        k: u32,
        canonical: bool,
        page_size: u64,
        rows: u64,
    ) -> Result<RowLayout, LayoutFitError> {
        let layout = self.resolve(k, page_size);
        let RowLayout::Minimizer {
            range_rows,
            minimizer,
        } = layout
        else {
            return Ok(layout);
        };
        let space = minimizer_space(minimizer, canonical);
        let fits = |range_rows: u64| rows.div_ceil(range_rows) * MINIMIZERS_PER_RANGE_MIN <= space;
        let given = matches!(
            self,
            LayoutChoice::Minimizer {
                range_rows: Some(_)
            }
        );
        let mut fitted = range_rows as u64;
        while !fits(fitted) && !given && fitted < RANGE_ROWS_MAX as u64 {
            fitted *= 2;
        }
        if fits(fitted) {
            return Ok(RowLayout::minimizer(k, fitted as u32));
        }
        Err(LayoutFitError {
            k,
            minimizer,
            space,
            rows,
            range_rows: fitted,
            larger_ranges: given && fitted < RANGE_ROWS_MAX as u64,
        })
    }

    /// The choice that gives `layout` again, whatever the page size.
    pub(crate) fn of(layout: RowLayout) -> LayoutChoice {
        match layout {
            RowLayout::Cobs => LayoutChoice::Cobs,
            RowLayout::Minimizer { range_rows, .. } => LayoutChoice::Minimizer {
                range_rows: Some(range_rows),
            },
        }
    }

    /// Why this choice cannot be used, if it cannot.
    pub fn check(&self) -> Result<(), RangeRowsError> {
        match self {
            LayoutChoice::Minimizer {
                range_rows: Some(rows),
            } => RowLayout::check_range_rows(*rows as u64),
            _ => Ok(()),
        }
    }
}

/// A number of rows per range that the minimizer layout cannot use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rows per range = {range_rows} (expected a power of two in {RANGE_ROWS_MIN}..={RANGE_ROWS_MAX})")]
pub struct RangeRowsError {
    /// The rows per range asked for.
    pub range_rows: u64,
}

/// A minimizer layout that cannot spread an index's rows: too few distinct minimizers for its
/// ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the minimizer layout does not fit: k = {k} has {minimizer}-mer minimizers, {space} of them, too few to spread {rows} rows over ranges of {range_rows} rows (at least {MINIMIZERS_PER_RANGE_MIN} minimizers a range); build it in COBS's layout{}", if *larger_ranges { " or with larger ranges" } else { "" })]
pub struct LayoutFitError {
    /// Term size.
    pub k: u32,
    /// Minimizer length.
    pub minimizer: u32,
    /// Distinct minimizers of that length.
    pub space: u64,
    /// Rows of the largest block.
    pub rows: u64,
    /// Rows per range tried last.
    pub range_rows: u64,
    /// Whether larger ranges than those given would fit.
    pub larger_ranges: bool,
}

/// Distinct minimizers of length `m` (canonical: about half of the `4^m` m-mers).
pub(crate) fn minimizer_space(m: u32, canonical: bool) -> u64 {
    let all = 1u64 << (2 * m.min(31));
    if canonical {
        all / 2
    } else {
        all
    }
}

impl std::fmt::Display for LayoutChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutChoice::Cobs => f.write_str("cobs"),
            LayoutChoice::Minimizer { range_rows: None } => f.write_str("minimizer"),
            LayoutChoice::Minimizer {
                range_rows: Some(rows),
            } => write!(f, "minimizer, ranges of {rows} rows"),
        }
    }
}

/// A block's map from a k-mer's (row hash, minimizer hash) to its row; see the module
/// documentation.
#[derive(Clone, Copy, Debug)]
pub struct RowMap {
    modulus: StrengthReducedU64,
    /// Ranges of the block; 0 in COBS's layout.
    ranges: u64,
    /// `log2` of the rows of a range.
    range_bits: u32,
}

impl RowMap {
    /// The map of a block of `rows` rows laid out as `layout` says. `rows` is a whole number
    /// of ranges (the header reader checks it).
    pub(crate) fn new(layout: RowLayout, rows: u64) -> RowMap {
        assert!(rows > 0, "a block has rows");
        let (ranges, range_bits) = match layout {
            RowLayout::Cobs => (0, 0),
            RowLayout::Minimizer { range_rows, .. } => {
                assert!(range_rows.is_power_of_two(), "ranges of 2^j rows");
                assert_eq!(rows % range_rows as u64, 0, "whole ranges");
                (rows / range_rows as u64, range_rows.trailing_zeros())
            }
        };
        RowMap {
            modulus: StrengthReducedU64::new(rows),
            ranges,
            range_bits,
        }
    }

    /// Rows of the block.
    #[cfg(test)]
    pub(crate) fn rows(&self) -> u64 {
        self.modulus.get()
    }

    /// Rows of a range (1 in COBS's layout).
    pub(crate) fn range_rows(&self) -> u64 {
        1 << self.range_bits
    }

    /// Whether rows depend on minimizers.
    pub(crate) fn needs_minimizers(&self) -> bool {
        self.ranges > 0
    }

    /// The row of the k-mer whose row hash is `hash` and minimizer hash `minimizer` (unused in
    /// COBS's layout).
    #[inline(always)]
    pub(crate) fn row(&self, hash: u64, minimizer: u64) -> u64 {
        if self.ranges == 0 {
            return hash % self.modulus;
        }
        let range = ((minimizer as u128 * self.ranges as u128) >> 64) as u64;
        (range << self.range_bits) | (hash & ((1 << self.range_bits) - 1))
    }

    /// The range that row `row` belongs to.
    #[inline]
    #[cfg(test)]
    pub(crate) fn range_of(&self, row: u64) -> u64 {
        row >> self.range_bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cobs_rows_are_the_hash_modulo_the_rows() {
        let map = RowMap::new(RowLayout::Cobs, 1000);
        assert!(!map.needs_minimizers());
        assert_eq!(map.row(12_345, 7), 345);
        assert_eq!(map.row(12_345, u64::MAX), 345);
        assert_eq!(map.range_rows(), 1);
    }

    #[test]
    fn a_minimizer_picks_the_range_and_the_hash_the_row_within() {
        let layout = RowLayout::Minimizer {
            range_rows: 16,
            minimizer: 13,
        };
        let map = RowMap::new(layout, 16 * 100);
        assert!(map.needs_minimizers());
        // The top of the minimizer range is the last range; its low bits do not matter.
        assert_eq!(map.row(3, u64::MAX) / 16, 99);
        assert_eq!(map.row(3, 0), 3);
        assert_eq!(map.row(16 + 3, 0), 3);
        // Every k-mer of one minimizer stays in its range.
        let minimizer = 0x8000_0000_0000_0000;
        for hash in 0..1000u64 {
            let row = map.row(hash.wrapping_mul(0x9e37_79b9_7f4a_7c15), minimizer);
            assert_eq!(map.range_of(row), 50);
            assert!(row < map.rows());
        }
    }

    #[test]
    fn halving_the_ranges_joins_neighbouring_ranges() {
        // What merges rely on to fold and tile blocks: with R and R / f ranges, a minimizer's
        // range is r and r / f.
        let layout = RowLayout::Minimizer {
            range_rows: 8,
            minimizer: 13,
        };
        let (big, small) = (RowMap::new(layout, 8 * 96), RowMap::new(layout, 8 * 12));
        let mut x = 1u64;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let (row, folded) = (big.row(x >> 7, x), small.row(x >> 7, x));
            assert_eq!(big.range_of(row) / 8, small.range_of(folded));
            assert_eq!(row % 8, folded % 8);
        }
    }

    #[test]
    fn low_rates_default_to_cobs_layout() {
        assert_eq!(LayoutChoice::default_for(0.3, 31), LayoutChoice::MINIMIZER);
        assert_eq!(LayoutChoice::default_for(0.1, 19), LayoutChoice::MINIMIZER);
        assert_eq!(LayoutChoice::default_for(0.01, 31), LayoutChoice::Cobs);
        assert_eq!(LayoutChoice::default_for(0.3, 18), LayoutChoice::Cobs);
    }

    #[test]
    fn narrow_rows_get_ranges_of_a_page() {
        assert_eq!(LayoutChoice::range_rows_for(4096), 16);
        assert_eq!(LayoutChoice::range_rows_for(256), 16);
        assert_eq!(LayoutChoice::range_rows_for(128), 32);
        assert_eq!(LayoutChoice::range_rows_for(8), 512);
        assert_eq!(LayoutChoice::range_rows_for(3), 1024);
        assert_eq!(LayoutChoice::range_rows_for(1), 1024);
        let fixed = LayoutChoice::Minimizer {
            range_rows: Some(64),
        };
        assert_eq!(fixed.resolve(31, 8), RowLayout::minimizer(31, 64));
        assert_eq!(
            LayoutChoice::MINIMIZER.resolve(31, 8),
            RowLayout::minimizer(31, 512)
        );
        assert_eq!(LayoutChoice::of(RowLayout::minimizer(31, 64)), fixed);
    }

    #[test]
    fn range_sizes_are_powers_of_two_within_bounds() {
        assert!(RowLayout::check_range_rows(16).is_ok());
        assert!(RowLayout::check_range_rows(1024).is_ok());
        assert!(RowLayout::check_range_rows(4).is_err());
        assert!(RowLayout::check_range_rows(24).is_err());
        assert!(RowLayout::check_range_rows(2048).is_err());
        let layout = RowLayout::minimizer(31, 16);
        assert_eq!(layout.round_rows(1), 16);
        assert_eq!(layout.round_rows(33), 48);
        assert_eq!(RowLayout::Cobs.round_rows(33), 33);
    }
}
