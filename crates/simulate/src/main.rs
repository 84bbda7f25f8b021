//! `bitsift-simulate`: a realistic simulated collection of bacterial genome
//! assemblies, for benchmarking k-mer indexes such as bitsift's COBS indexes
//! ("which of these genomes contain this gene?").
//!
//! Realistic in what matters to a k-mer index: genomes share most of their
//! content, they fall into clades of skewed sizes, they carry accessory genes
//! at skewed, clade-correlated frequencies, and they come as assemblies in
//! contigs (both orientations). Fast (genomes are generated in parallel from
//! shared clade sequences) and deterministic for a seed.
//!
//! # Model
//!
//! 1. **Core genome**: `--genome-size` bases drawn from an order-k Markov
//!    chain (`--markov-order`, default 5) trained on both strands of a real
//!    genome (`--train FILE.fa[.gz]`), so k-mer composition, GC and
//!    low-order structure look bacterial. Without `--train`, bases are i.i.d.
//!    with GC fraction `--gc` (default 0.5).
//! 2. **Clades** (`--clades`, default 32): each is the core with exactly
//!    `--clade-divergence` x length point substitutions (default 1 %;
//!    transitions:transversions = 2:1), `--clade-indels` small indels of
//!    1-20 bases, `--clade-deletions` deletions of 1-20 kb (lineage-specific
//!    loss) and `--clade-inversions` inversions of 10-200 kb. Two clades thus
//!    differ at about 2 % of positions.
//! 3. **Genomes**: genome `i` picks its clade with Zipf-like probability
//!    1/(c+1)^`--clade-skew` (default 1), then copies the clade, inserts its
//!    accessory genes, and gets Binomial(length, `--strain-divergence`)
//!    point substitutions (default 0.1 %) anywhere, genes included.
//! 4. **Accessory pool**: `--accessory-genes` genes (default 2000) with
//!    log-uniform lengths in `--gene-length` (default 500-5000) drawn from the
//!    same Markov chain, plus the real genes of `--genes FILE.fa`. Each gene
//!    has a base frequency f = U^`--freq-skew` (U uniform, default skew 3:
//!    most genes rare, a few near-core), a home clade where its presence
//!    probability is f^(1-`--clade-affinity`) (default 0.75, e.g. f = 0.01
//!    becomes 0.32), a preferred insertion site used for 80 % of its copies
//!    (the rest go anywhere, like mobile elements), and a random strand per
//!    copy.
//! 5. **Assembly**: the genome is cut into a number of contigs uniform in
//!    `--contigs` (default 20-200) with log-normal length weights (sigma
//!    1.25: a few long, many short contigs; at least 500 bases each before
//!    adjustment), never inside an inserted gene. Half of the contigs are
//!    reverse-complemented (unless `--no-flip`); they are written longest
//!    first as `>genome_00017_contig_3 length=12345`, 80 columns per line.
//! 6. **Touches**: Poisson(`--n-runs`, default 0.2) runs of N per genome
//!    (scaffold gaps of 100 or 10-500 bases, never inside a gene);
//!    `--soft-mask` lower-cases Poisson(3) stretches of 50-1000 bases.
//!
//! # The species model
//!
//! `--species N` simulates N species at Zipf-like abundances, each with its
//! own core genome (so its k-mers are its own), clades and accessory pool;
//! plasmids carry the real genes of `--genes` across species (hosts uniform,
//! or by abundance with `--plasmid-host-bias`), and `--universal-genes` puts
//! genes into nearly every genome of every species. It also writes
//! `metadata.tsv` (document, species, clade), query sets by class
//! (`queries_{core,accessory,mobile,absent,universal}.fa`; the per-species
//! classes from all species or from `--query-species` spread over the ranks)
//! and their truth table (`queries_truth.tsv`: k-mers of each query found in
//! each genome). See `species.rs`, `queries.rs` and `truth.rs`.
//!
//! Every random choice comes from its own stream seeded by (seed, kind,
//! index), so genome `i` depends only on the seed, the model options and `i`:
//! not on the thread count, nor on how many genomes are made.
//!
//! # Output
//!
//! `DIR/genome_NNNNN.fa[.gz]`, `DIR/truth.tsv` (`genome gene contig start
//! strand length mismatches`; `start` is the 0-based offset on the contig's
//! forward strand, `strand` is `-` when the contig holds the reverse
//! complement of the gene, `mismatches` counts strain substitutions in that
//! copy), `DIR/genes.fa` (the pool, with frequencies and observed carrier
//! counts in the headers), `DIR/genomes.tsv` (clade, length, contigs, genes
//! per genome), and `DIR/collection.json` (parameters, seed, counts, version),
//! written last. Every file is written under a temporary name and renamed
//! into place when complete.

mod cli;
mod fasta;
mod generate;
mod markov;
mod model;
mod queries;
mod run;
mod seq;
mod species;
mod truth;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    match run::run(&args) {
        Ok(s) => {
            if !args.quiet {
                eprintln!(
                    "wrote {} genomes ({} contigs, {:.1} Mbases, {:.1} MB on disk) to {} in {:.1} s ({:.1} MB/s of FASTA)",
                    s.genomes,
                    s.contigs,
                    s.bases as f64 / 1e6,
                    s.written_bytes as f64 / 1e6,
                    args.out.display(),
                    s.seconds,
                    s.fasta_bytes as f64 / 1e6 / s.seconds.max(1e-9)
                );
                if let Some((share, with_genomes, species)) = s.species_top20 {
                    eprintln!(
                        "species: {with_genomes} of {species} have genomes; the 20 largest hold {:.1} % of the genomes",
                        100.0 * share
                    );
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bitsift-simulate: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
