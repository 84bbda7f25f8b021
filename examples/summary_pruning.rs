//! How many blocks do block summaries rule out, per query class? Computed from the summaries
//! alone (no row is read), against the truth table of a `bitsift-simulate --species`
//! collection: which blocks hold a carrier, whether any carrier's block was ruled out (a false
//! negative: there must be none), and how many blocks without a carrier are still kept.
//!
//! ```sh
//! cargo run --release --example summary_pruning -- INDEX SIM/queries_truth.tsv \
//!     SIM/queries_core.fa SIM/queries_accessory.fa SIM/queries_mobile.fa SIM/queries_absent.fa
//! ```
//!
//! Prints one TSV line per (query class, threshold): queries, blocks of the index, mean
//! carrier blocks (blocks with a document holding at least `ceil(t · n)` of the query's
//! positions), mean blocks the summaries keep, the fraction of blocks without a carrier they
//! rule out, kept / carrier blocks (the bytes a query reads, relative to what its carriers
//! alone need), and violations (truth rows above their block's summary count; always 0).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use bitsift::format::IndexHeader;
use bitsift::kmer::{BaseRule, KmerHasher, Minimizers};
use bitsift::seqfile::{SeqReader, SeqRecord};
use bitsift::summary::BlockSummaries;

const THRESHOLDS: [f64; 2] = [0.8, 0.5];

/// Truth rows per query: (document, positions found).
type Truth = HashMap<String, Vec<(usize, u64)>>;
/// Errors of this program, printed as they are.
type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if args.len() < 3 {
        return Err("usage: summary_pruning INDEX QUERIES_TRUTH.tsv QUERIES.fa...".into());
    }
    let index = &args[0];
    let header = IndexHeader::open(index)?;
    let summaries = BlockSummaries::load(index, &header)?
        .ok_or_else(|| format!("{}: no block summaries beside it", index.display()))?;
    let names = header.names.all()?;
    let documents: HashMap<&str, usize> = names.iter().zip(0..).collect();
    let truth = read_truth(&args[1], &documents)?;
    let block_of: Vec<usize> = header
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(b, block)| std::iter::repeat_n(b, block.document_count as usize))
        .collect();
    eprintln!(
        "{}: {} blocks, summaries {} bytes, {} bits per k-mer set",
        index.display(),
        header.blocks.len(),
        summaries.ram_bytes(),
        summaries.hashes()
    );
    println!("class\tt\tqueries\tblocks\tcarrier_blocks\tkept_blocks\tnon_carrier_ruled_out\tkept_per_carrier\tviolations");
    for file in &args[2..] {
        let class = class_of(file);
        let mut rows = vec![Tally::default(); THRESHOLDS.len()];
        for (name, sequence) in read_queries(file)? {
            let counts = block_counts(&header, &summaries, &sequence);
            let n = bitsift::kmer::kmer_count(sequence.len(), header.k as usize) as u64;
            let rows_of = truth.get(&name).map_or(&[][..], Vec::as_slice);
            for (tally, &t) in rows.iter_mut().zip(&THRESHOLDS) {
                tally.add(&counts, rows_of, &block_of, (t * n as f64).ceil() as u64);
            }
        }
        for (tally, t) in rows.iter().zip(THRESHOLDS) {
            tally.print(&class, t, header.blocks.len());
        }
    }
    Ok(())
}

/// Per block, the number of the query's positions whose k-mer its summary may hold.
fn block_counts(header: &IndexHeader, summaries: &BlockSummaries, sequence: &[u8]) -> Vec<u64> {
    let h = header.num_hashes as usize;
    let mut hasher = KmerHasher::new(
        header.k,
        header.canonical,
        header.num_hashes,
        BaseRule::Cobs,
    );
    let mut hashes = Vec::new();
    hasher.hashes_into(sequence, &mut hashes);
    let mut minimizers = Vec::new();
    if summaries.minimizer() > 0 {
        Minimizers::new(
            header.k,
            summaries.minimizer(),
            header.canonical,
            BaseRule::Cobs,
        )
        .minimizers_into(sequence, &mut minimizers);
    }
    // Distinct k-mers (by their hashes) with their minimizer and the number of positions of
    // each.
    let mut weight: HashMap<&[u64], (u64, u32)> = HashMap::new();
    for (i, kmer) in hashes.chunks_exact(h).enumerate() {
        let minimizer = minimizers.get(i).copied().unwrap_or(0);
        weight.entry(kmer).or_insert((minimizer, 0)).1 += 1;
    }
    let distinct: Vec<u64> = weight.keys().flat_map(|k| k.iter().copied()).collect();
    let distinct_minimizers: Vec<u64> = weight.values().map(|&(m, _)| m).collect();
    let weights: Vec<u32> = weight.values().map(|&(_, w)| w).collect();
    let probes = summaries.prepare(&distinct, h, &distinct_minimizers);
    (0..summaries.block_count())
        .map(|b| summaries.count(b, &probes, &weights))
        .collect()
}

#[derive(Clone, Default)]
struct Tally {
    queries: u64,
    carrier_blocks: u64,
    kept_blocks: u64,
    non_carrier: u64,
    non_carrier_ruled_out: u64,
    kept_with_carriers: u64,
    carriers_with_carriers: u64,
    violations: u64,
}

impl Tally {
    fn add(&mut self, counts: &[u64], truth: &[(usize, u64)], block_of: &[usize], needed: u64) {
        let mut carrier = vec![false; counts.len()];
        for &(document, found) in truth {
            let block = block_of[document];
            if found > counts[block] {
                self.violations += 1;
            }
            carrier[block] |= found >= needed;
        }
        let kept: Vec<bool> = counts.iter().map(|&c| c >= needed).collect();
        let carriers = carrier.iter().filter(|&&c| c).count() as u64;
        let kept_count = kept.iter().filter(|&&k| k).count() as u64;
        self.queries += 1;
        self.carrier_blocks += carriers;
        self.kept_blocks += kept_count;
        for (&c, &k) in carrier.iter().zip(&kept) {
            if !c {
                self.non_carrier += 1;
                self.non_carrier_ruled_out += !k as u64;
            }
        }
        if carriers > 0 {
            self.kept_with_carriers += kept_count;
            self.carriers_with_carriers += carriers;
        }
    }

    fn print(&self, class: &str, t: f64, blocks: usize) {
        let q = self.queries.max(1) as f64;
        let ratio = if self.carriers_with_carriers == 0 {
            "-".to_string()
        } else {
            format!(
                "{:.2}",
                self.kept_with_carriers as f64 / self.carriers_with_carriers as f64
            )
        };
        println!(
            "{class}\t{t}\t{}\t{blocks}\t{:.2}\t{:.2}\t{:.3}\t{ratio}\t{}",
            self.queries,
            self.carrier_blocks as f64 / q,
            self.kept_blocks as f64 / q,
            self.non_carrier_ruled_out as f64 / self.non_carrier.max(1) as f64,
            self.violations
        );
    }
}

fn class_of(file: &Path) -> String {
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    stem.strip_prefix("queries_").unwrap_or(&stem).to_string()
}

fn read_queries(file: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let mut reader = SeqReader::open(file)?;
    let mut record = SeqRecord::default();
    let mut queries = Vec::new();
    while reader.next_into(&mut record)? {
        queries.push((record.name.clone(), record.sequence.clone()));
    }
    Ok(queries)
}

fn read_truth(path: &Path, documents: &HashMap<&str, usize>) -> Result<Truth> {
    let text = std::fs::read_to_string(path)?;
    let mut truth = Truth::new();
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split('\t').collect();
        if cells.len() < 4 {
            return Err(format!("{}: malformed line {line:?}", path.display()).into());
        }
        let document = *documents.get(cells[2]).ok_or_else(|| {
            format!(
                "{}: genome {} is not in the index",
                path.display(),
                cells[2]
            )
        })?;
        truth
            .entry(cells[0].to_string())
            .or_default()
            .push((document, cells[3].parse()?));
    }
    Ok(truth)
}
