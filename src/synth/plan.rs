//! The geometry of a synthetic index: document sizes, blocks, rows, densities, file size.
//!
//! Everything here follows `bitsift build` ([`crate::builder::layout`]): documents sorted by
//! k-mer count, cut into blocks of `8 · page_size`, each block sized by
//! [`rows_for`] of its largest document; only the genomes are invented.

use crate::builder::layout::{default_page_size, rows_for};
use crate::format::{write_compact_header, CompactLayout};

use super::bits::{derive_seed, threshold_for, Xoshiro256PlusPlus};
use super::{SynthError, SynthOptions};

/// Stream of the genome-size generator (the row streams are numbered by block and chunk).
const SIZE_STREAM: u64 = u64::MAX;

/// Genome sizes in bases, after `--scale`, sorted ascending (the order of the index): one
/// per document, log-normal with median `genome_size` and shape `spread`
/// (`size = genome_size · exp(spread · z)`, z standard normal clipped to ±6, seeded by `seed`),
/// each multiplied by `scale` and rounded.
pub fn genome_sizes(options: &SynthOptions) -> Vec<u64> {
    let mut generator = Xoshiro256PlusPlus::seed_from(derive_seed(options.seed, &[SIZE_STREAM]));
    let median = options.genome_size as f64;
    let mut sizes: Vec<u64> = (0..options.documents)
        .map(|_| {
            let z = generator.next_normal().clamp(-6.0, 6.0);
            let size = (median * (options.spread * z).exp()).round().max(1.0);
            (size * options.scale).round() as u64
        })
        .collect();
    sizes.sort_unstable();
    sizes
}

/// k-mer positions of a genome of `size` bases: `size − k + 1`, or 0 when shorter than k.
pub(crate) fn kmers_of(size: u64, k: u32) -> u64 {
    (size + 1).saturating_sub(k as u64)
}

/// Name of document `number` (0-based) of `documents`: `synth_0000001`, zero-padded to at
/// least 7 digits so names sort like their numbers.
pub fn document_name(number: u64, documents: u64) -> String {
    let width = documents.to_string().len().max(7);
    format!("synth_{:0width$}", number + 1)
}

/// One block of the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthBlock {
    /// Index of the block's first document.
    pub first_document: u64,
    /// Documents in the block.
    pub document_count: u64,
    /// Rows: `rows_for(largest k-mer count)`.
    pub rows: u64,
    /// Density of each document's column, out of 256: the fill
    /// `1 − exp(−H · n_d / rows)` of a Bloom filter of `rows` bits holding `n_d` k-mers.
    pub thresholds: Vec<u32>,
    /// Mean fill over the block's `8 · page_size` columns (empty columns count as 0).
    pub expected_fill: f64,
}

/// Everything decided before writing.
#[derive(Clone, Debug)]
pub struct SynthPlan {
    /// Parameters as the header records them.
    pub layout: CompactLayout,
    /// Genome sizes in bases, in index order (see [`genome_sizes`]).
    pub genome_sizes: Vec<u64>,
    /// The blocks, in file order.
    pub blocks: Vec<SynthBlock>,
    /// The encoded header (names included); the data section starts at its end.
    pub header: Vec<u8>,
    /// Size of the index file.
    pub file_bytes: u64,
}

impl SynthPlan {
    /// Plans the index `options` describes (options must have been validated).
    pub fn new(options: &SynthOptions) -> Result<SynthPlan, SynthError> {
        let sizes = genome_sizes(options);
        let page_size = options
            .page_size
            .unwrap_or_else(|| default_page_size(options.documents));
        let per_block = (8 * page_size) as usize;
        let hashes = options.num_hashes as f64;
        let block_rows = |chunk: &[u64]| {
            let kmers_max = chunk.iter().map(|&s| kmers_of(s, options.k)).max();
            rows_for(kmers_max.unwrap_or(0), options.num_hashes, options.fpr)
        };
        let rows_max = sizes.chunks(per_block).map(block_rows).max().unwrap_or(1);
        let row_layout = options.layout.fit(options.k, true, page_size, rows_max)?;
        let blocks: Vec<SynthBlock> = sizes
            .chunks(per_block)
            .enumerate()
            .map(|(number, chunk)| {
                let rows = row_layout.round_rows(block_rows(chunk));
                let fills: Vec<f64> = chunk
                    .iter()
                    .map(|&s| 1.0 - (-hashes * kmers_of(s, options.k) as f64 / rows as f64).exp())
                    .collect();
                SynthBlock {
                    first_document: (number * per_block) as u64,
                    document_count: chunk.len() as u64,
                    rows,
                    thresholds: fills.iter().map(|&f| threshold_for(f)).collect(),
                    expected_fill: fills.iter().sum::<f64>() / per_block as f64,
                }
            })
            .collect();
        let layout = CompactLayout {
            k: options.k,
            canonical: true,
            num_hashes: options.num_hashes,
            page_size,
            block_rows: blocks.iter().map(|b| b.rows).collect(),
            rows: row_layout,
        };
        let names: Vec<String> = (0..options.documents)
            .map(|d| document_name(d, options.documents))
            .collect();
        let header = write_compact_header(&layout, names.iter().map(String::as_str))
            .map_err(|e| SynthError::Invalid(e.to_string()))?;
        let data_bytes = blocks
            .iter()
            .try_fold(0u64, |sum, b| {
                b.rows
                    .checked_mul(page_size)
                    .and_then(|bytes| sum.checked_add(bytes))
            })
            .and_then(|data| data.checked_add(header.len() as u64));
        let file_bytes = data_bytes.ok_or_else(|| {
            SynthError::Invalid(
                "the index would be larger than 16 EiB; lower --genome-size or --scale".into(),
            )
        })?;
        Ok(SynthPlan {
            layout,
            genome_sizes: sizes,
            blocks,
            header,
            file_bytes,
        })
    }

    /// Offset of the data section (a multiple of the page size).
    pub fn data_offset(&self) -> u64 {
        self.header.len() as u64
    }

    /// Smallest and largest rows per block.
    pub fn rows_range(&self) -> (u64, u64) {
        let rows = self.blocks.iter().map(|b| b.rows);
        (rows.clone().min().unwrap_or(0), rows.max().unwrap_or(0))
    }

    /// Row reads one k-mer costs: one per block and hash function.
    pub(crate) fn reads_per_kmer(&self) -> u64 {
        self.blocks.len() as u64 * self.layout.num_hashes as u64
    }
}

/// The largest `--scale` (at most `options.scale`, three significant digits) whose index
/// takes at most `bytes`, or `None` when even a tiny scale does not fit.
pub(crate) fn scale_fitting(options: &SynthOptions, bytes: u64) -> Option<f64> {
    let mut candidate = options.clone();
    let full = SynthPlan::new(options).ok()?;
    let header = full.data_offset() as f64;
    let data = (full.file_bytes as f64 - header).max(1.0);
    // The data section grows about linearly with the scale; correct downwards until it fits.
    let mut scale = options.scale * ((bytes as f64 - header) / data);
    for _ in 0..20 {
        scale = round_down_3(scale);
        if scale <= 1e-9 {
            return None;
        }
        candidate.scale = scale;
        match SynthPlan::new(&candidate) {
            Ok(plan) if plan.file_bytes <= bytes => return Some(scale),
            _ => scale *= 0.95,
        }
    }
    None
}

/// `x` rounded down to three significant digits.
fn round_down_3(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    let exponent = x.log10().floor() as i32 - 2;
    let digits = (x / 10f64.powi(exponent)).floor();
    // Through text, so that the result prints as written (0.0474, not 0.047400000000000005).
    let decimals = (-exponent).max(0) as usize;
    format!("{:.decimals$}", digits * 10f64.powi(exponent))
        .parse()
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(documents: u64, genome_size: u64) -> SynthOptions {
        SynthOptions {
            documents,
            genome_size,
            ..SynthOptions::default()
        }
    }

    #[test]
    fn sizes_spread_around_the_median() {
        let sizes = genome_sizes(&options(10_001, 1_000_000));
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]));
        let median = sizes[5000] as f64;
        assert!((median / 1e6 - 1.0).abs() < 0.02, "{median}");
        // 20 % log-normal: the 84th percentile is about e^0.2 = 1.22 times the median.
        let p84 = sizes[8413] as f64;
        assert!((p84 / median - 0.2f64.exp()).abs() < 0.03, "{p84}");
    }

    #[test]
    fn names_sort_like_numbers() {
        assert_eq!(document_name(0, 10), "synth_0000001");
        assert_eq!(document_name(99, 100_000_000), "synth_000000100");
    }

    #[test]
    fn scale_suggestions_fit() {
        let o = options(1000, 5_000_000);
        let plan = SynthPlan::new(&o).unwrap();
        let budget = plan.file_bytes / 10;
        let scale = scale_fitting(&o, budget).unwrap();
        assert!(scale < 0.1 && scale > 0.08, "{scale}");
        let fitted = SynthPlan::new(&SynthOptions { scale, ..o.clone() }).unwrap();
        assert!(fitted.file_bytes <= budget);
        assert_eq!(round_down_3(0.012345), 0.0123);
        assert_eq!(round_down_3(0.0474999).to_string(), "0.0474");
        assert_eq!(round_down_3(123.456), 123.0);
    }
}
