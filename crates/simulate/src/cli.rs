//! Command-line interface and validation of user input.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Parser;

use crate::model::{Params, Span, SpeciesParams};

/// Generate a realistic simulated collection of bacterial genome assemblies
/// (clades, accessory genes at skewed frequencies, contigs) for benchmarks.
#[derive(Parser, Debug, Clone)]
#[command(name = "bitsift-simulate", version, about, max_term_width = 100)]
pub struct Args {
    /// Output directory (created; must be missing or empty unless --force)
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,

    /// Number of genomes to generate
    #[arg(short = 'n', long, value_name = "N")]
    pub genomes: usize,

    /// Core genome length in bases [default: 2000000; 750000 with --species]
    #[arg(long, value_name = "BASES")]
    pub genome_size: Option<usize>,

    /// Simulate N species, each with its own core genome, clades and
    /// accessory genes, plus plasmids carrying the --genes across species;
    /// writes metadata.tsv and query sets with a truth table
    #[arg(long, value_name = "N")]
    pub species: Option<usize>,

    /// Zipf exponent of species abundances (species s gets weight 1/(s+1)^S)
    #[arg(long, value_name = "S", default_value_t = 1.0, requires = "species")]
    pub species_skew: f64,

    /// Number of plasmids (with --species) [default: 2 per species]
    #[arg(long, value_name = "P", requires = "species")]
    pub plasmids: Option<usize>,

    /// Host species of plasmids are drawn with probability proportional to
    /// their abundance weight^B (0 = uniform; with --species)
    #[arg(long, value_name = "B", default_value_t = 0.0, requires = "species")]
    pub plasmid_host_bias: f64,

    /// Genes in nearly every genome of every species (like rRNA operons: one
    /// sequence, strain-level substitutions only), also written as the query
    /// class `universal` (with --species)
    #[arg(long, value_name = "U", default_value_t = 0, requires = "species")]
    pub universal_genes: usize,

    /// Query genes per species and class (core, accessory; absent: this
    /// many per species too) in the query sets (with --species)
    #[arg(long, value_name = "Q", default_value_t = 10, requires = "species")]
    pub query_genes: usize,

    /// Draw the core, accessory and absent queries from only N species
    /// spread over the abundance ranks: the largest, then log-spaced down to
    /// the smallest (with --species) [default: all species]
    #[arg(long, value_name = "N", requires = "species")]
    pub query_species: Option<usize>,

    /// k of the query truth table (with --species)
    #[arg(long, value_name = "K", default_value_t = 31, requires = "species")]
    pub truth_k: usize,

    /// Train the base composition (order-k Markov chain) on this FASTA
    /// file (.gz ok); without it, bases are i.i.d. with --gc
    #[arg(long, value_name = "FILE.fa[.gz]")]
    pub train: Option<PathBuf>,

    /// Order of the Markov chain trained with --train
    #[arg(long, value_name = "K", default_value_t = 5)]
    pub markov_order: u32,

    /// GC fraction of i.i.d. bases when --train is not given
    #[arg(
        long,
        value_name = "FRAC",
        default_value_t = 0.5,
        conflicts_with = "train"
    )]
    pub gc: f64,

    /// Number of clades
    #[arg(long, value_name = "C", default_value_t = 32)]
    pub clades: usize,

    /// Zipf exponent of clade sizes (clade c gets weight 1/(c+1)^s; 0 = equal)
    #[arg(long, value_name = "S", default_value_t = 1.0)]
    pub clade_skew: f64,

    /// Fraction of core positions substituted in each clade
    #[arg(long, value_name = "FRAC", default_value_t = 0.01)]
    pub clade_divergence: f64,

    /// Small indels (1-20 bases) per clade
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub clade_indels: usize,

    /// Large deletions (1-20 kb) per clade
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub clade_deletions: usize,

    /// Inversions (10-200 kb) per clade
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub clade_inversions: usize,

    /// Fraction of positions substituted in each genome relative to its clade
    #[arg(long, value_name = "FRAC", default_value_t = 0.001)]
    pub strain_divergence: f64,

    /// Number of random accessory genes in the pool
    #[arg(long, value_name = "A", default_value_t = 2000)]
    pub accessory_genes: usize,

    /// Accessory gene length range (log-uniform), MIN-MAX bases
    #[arg(long, value_name = "MIN-MAX", default_value = "500-5000", value_parser = parse_span)]
    pub gene_length: Span,

    /// Gene frequency skew: base presence frequency = U^SKEW, U uniform
    #[arg(long, value_name = "SKEW", default_value_t = 4.0)]
    pub freq_skew: f64,

    /// Clade correlation of genes: in its home clade a gene of base
    /// frequency f is present with probability f^(1-AFFINITY)
    #[arg(long, value_name = "AFFINITY", default_value_t = 0.75)]
    pub clade_affinity: f64,

    /// Real genes (FASTA, .gz ok) to insert like accessory genes, each at
    /// its own skewed frequency
    #[arg(long, value_name = "FILE.fa")]
    pub genes: Option<PathBuf>,

    /// Contigs per assembly: MIN-MAX (uniform) or a fixed N
    #[arg(long, value_name = "MIN-MAX", default_value = "20-200", value_parser = parse_span)]
    pub contigs: Span,

    /// Mean number of N runs (scaffold gaps) per genome
    #[arg(long, value_name = "MEAN", default_value_t = 0.2)]
    pub n_runs: f64,

    /// Lower-case a few stretches of each genome (soft-masking)
    #[arg(long)]
    pub soft_mask: bool,

    /// Keep every contig on the forward strand (default: half are reversed)
    #[arg(long)]
    pub no_flip: bool,

    /// Random seed
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Write genome_*.fa.gz (gzip level 1)
    #[arg(long)]
    pub gzip: bool,

    /// Worker threads (0 = all cores)
    #[arg(short = 't', long, value_name = "T", default_value_t = 0)]
    pub threads: usize,

    /// Write into a non-empty output directory (replacing earlier output)
    #[arg(long)]
    pub force: bool,

    /// No progress line
    #[arg(short, long)]
    pub quiet: bool,
}

/// Parses `MIN-MAX` or `N`.
pub fn parse_span(s: &str) -> Result<Span, String> {
    let num = |x: &str| {
        x.trim()
            .replace('_', "")
            .parse::<usize>()
            .map_err(|_| format!("'{x}' is not a whole number"))
    };
    let span = match s.split_once('-') {
        Some((a, b)) => Span {
            min: num(a)?,
            max: num(b)?,
        },
        None => {
            let n = num(s)?;
            Span { min: n, max: n }
        }
    };
    if span.min > span.max {
        return Err(format!(
            "minimum {} is above maximum {}",
            span.min, span.max
        ));
    }
    Ok(span)
}

fn check_fraction(name: &str, x: f64, max: f64) -> Result<()> {
    if !(x.is_finite() && (0.0..=max).contains(&x)) {
        bail!("--{name} must be between 0 and {max} (got {x})");
    }
    Ok(())
}

impl Args {
    /// Validates the options and returns the model parameters.
    pub fn params(&self) -> Result<Params> {
        if self.genomes == 0 {
            bail!("--genomes must be at least 1");
        }
        let genome_size = self.genome_size.unwrap_or(if self.species.is_some() {
            750_000
        } else {
            2_000_000
        });
        if !(1_000..=1_000_000_000).contains(&genome_size) {
            bail!("--genome-size must be between 1000 and 1000000000 (got {genome_size})");
        }
        if !(1..=100_000).contains(&self.clades) {
            bail!(
                "--clades must be between 1 and 100000 (got {})",
                self.clades
            );
        }
        if self.markov_order > crate::markov::MAX_ORDER {
            bail!(
                "--markov-order must be at most {} (got {})",
                crate::markov::MAX_ORDER,
                self.markov_order
            );
        }
        check_fraction("gc", self.gc, 1.0)?;
        if !(self.clade_skew.is_finite() && (0.0..=10.0).contains(&self.clade_skew)) {
            bail!(
                "--clade-skew must be between 0 and 10 (got {})",
                self.clade_skew
            );
        }
        check_fraction("clade-divergence", self.clade_divergence, 0.5)?;
        check_fraction("strain-divergence", self.strain_divergence, 0.5)?;
        check_fraction("clade-affinity", self.clade_affinity, 1.0)?;
        if !(self.freq_skew.is_finite() && self.freq_skew > 0.0 && self.freq_skew <= 100.0) {
            bail!(
                "--freq-skew must be above 0 and at most 100 (got {})",
                self.freq_skew
            );
        }
        if self.clade_indels > 1_000_000
            || self.clade_deletions > 10_000
            || self.clade_inversions > 10_000
        {
            bail!("too many clade indels, deletions or inversions");
        }
        if self.accessory_genes > 10_000_000 {
            bail!("--accessory-genes must be at most 10000000");
        }
        if self.gene_length.min < 31 || self.gene_length.max > 10_000_000 {
            bail!(
                "--gene-length must lie between 31 and 10000000 bases (got {})",
                self.gene_length
            );
        }
        if self.contigs.min == 0 || self.contigs.max > 1_000_000 {
            bail!(
                "--contigs must lie between 1 and 1000000 (got {})",
                self.contigs
            );
        }
        if self.threads > 1024 {
            bail!("--threads must be at most 1024 (got {})", self.threads);
        }
        let species = self.species_params()?;
        let species_count = species.as_ref().map_or(1, |s| s.count) as f64;
        let clade_bytes = species_count * self.clades as f64 * genome_size as f64;
        if clade_bytes > 1e11 {
            bail!(
                "--species x --clades x --genome-size needs about {:.0} GB of memory for the clade sequences; use fewer clades or a smaller genome",
                clade_bytes / 1e9
            );
        }
        if !(self.n_runs.is_finite() && (0.0..=1000.0).contains(&self.n_runs)) {
            bail!("--n-runs must be between 0 and 1000 (got {})", self.n_runs);
        }
        Ok(Params {
            seed: self.seed,
            genome_size,
            clades: self.clades,
            clade_skew: self.clade_skew,
            clade_divergence: self.clade_divergence,
            clade_indels: self.clade_indels,
            clade_deletions: self.clade_deletions,
            clade_inversions: self.clade_inversions,
            strain_divergence: self.strain_divergence,
            accessory_genes: self.accessory_genes,
            gene_length: self.gene_length,
            freq_skew: self.freq_skew,
            clade_affinity: self.clade_affinity,
            contigs: self.contigs,
            n_runs: self.n_runs,
            soft_mask: self.soft_mask,
            flip_contigs: !self.no_flip,
            species,
        })
    }

    /// The species model's options, when `--species` is given.
    fn species_params(&self) -> Result<Option<SpeciesParams>> {
        let Some(count) = self.species else {
            return Ok(None);
        };
        if !(1..=100_000).contains(&count) {
            bail!("--species must be between 1 and 100000 (got {count})");
        }
        if !(self.species_skew.is_finite() && (0.0..=10.0).contains(&self.species_skew)) {
            bail!(
                "--species-skew must be between 0 and 10 (got {})",
                self.species_skew
            );
        }
        let plasmids = self.plasmids.unwrap_or(2 * count);
        if plasmids > 100_000 {
            bail!("--plasmids must be at most 100000 (got {plasmids})");
        }
        if plasmids == 0 && self.genes.is_some() {
            bail!("--genes are mobile genes carried by plasmids with --species; give --plasmids 1 or more, or leave out --genes");
        }
        if !(self.plasmid_host_bias.is_finite() && (0.0..=10.0).contains(&self.plasmid_host_bias)) {
            bail!(
                "--plasmid-host-bias must be between 0 and 10 (got {})",
                self.plasmid_host_bias
            );
        }
        if self.universal_genes > 10_000 {
            bail!(
                "--universal-genes must be at most 10000 (got {})",
                self.universal_genes
            );
        }
        let query_species = self.query_species.unwrap_or(count);
        if !(1..=count).contains(&query_species) {
            bail!(
                "--query-species must be between 1 and --species ({count}) (got {query_species})"
            );
        }
        if self.query_genes > 100_000 {
            bail!(
                "--query-genes must be at most 100000 (got {})",
                self.query_genes
            );
        }
        if !(1..=crate::truth::K_MAX).contains(&self.truth_k) {
            bail!(
                "--truth-k must be between 1 and {} (got {})",
                crate::truth::K_MAX,
                self.truth_k
            );
        }
        Ok(Some(SpeciesParams {
            count,
            skew: self.species_skew,
            plasmids,
            plasmid_host_bias: self.plasmid_host_bias,
            universal_genes: self.universal_genes,
            query_genes: self.query_genes,
            query_species,
            truth_k: self.truth_k,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(extra: &[&str]) -> Result<Params> {
        let mut argv = vec!["bitsift-simulate", "-o", "/tmp/x", "--genomes", "3"];
        argv.extend_from_slice(extra);
        Args::try_parse_from(argv)
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .params()
    }

    #[test]
    fn defaults_are_valid() {
        let p = parse(&[]).unwrap();
        assert_eq!(p.genome_size, 2_000_000);
        assert_eq!(p.clades, 32);
        assert_eq!(p.contigs, Span { min: 20, max: 200 });
        assert_eq!(
            p.gene_length,
            Span {
                min: 500,
                max: 5000
            }
        );
        assert!(p.flip_contigs);
        assert!(p.species.is_none());
        let p = parse(&["--species", "8"]).unwrap();
        assert_eq!(p.genome_size, 750_000);
        let species = p.species.unwrap();
        assert_eq!(
            (species.count, species.plasmids, species.truth_k),
            (8, 16, 31)
        );
        assert_eq!((species.query_species, species.universal_genes), (8, 0));
        assert_eq!(species.plasmid_host_bias, 0.0);
        let p = parse(&[
            "--species",
            "2800",
            "--query-species",
            "16",
            "--universal-genes",
            "4",
            "--plasmid-host-bias",
            "1",
        ])
        .unwrap();
        let species = p.species.unwrap();
        assert_eq!(
            (
                species.count,
                species.query_species,
                species.universal_genes
            ),
            (2800, 16, 4)
        );
        assert_eq!(species.plasmid_host_bias, 1.0);
    }

    #[test]
    fn bad_values_are_rejected_with_a_message() {
        for (args, msg) in [
            (
                &["--clade-divergence", "1.5"][..],
                "--clade-divergence must be",
            ),
            (
                &["--strain-divergence", "NaN"][..],
                "--strain-divergence must be",
            ),
            (&["--genome-size", "10"][..], "--genome-size must be"),
            (&["--species", "0"][..], "--species must be"),
            (
                &["--species", "2", "--truth-k", "40"][..],
                "--truth-k must be",
            ),
            (
                &["--species", "2", "--plasmids", "0", "--genes", "x.fa"][..],
                "give --plasmids 1 or more",
            ),
            (&["--plasmids", "3"][..], "--species"),
            (&["--universal-genes", "3"][..], "--species"),
            (&["--query-species", "3"][..], "--species"),
            (
                &["--species", "5", "--query-species", "6"][..],
                "--query-species must be between 1 and --species (5)",
            ),
            (
                &["--species", "5", "--query-species", "0"][..],
                "--query-species must be",
            ),
            (
                &["--species", "5", "--universal-genes", "20000"][..],
                "--universal-genes must be",
            ),
            (
                &["--species", "5", "--plasmid-host-bias=-1"][..],
                "--plasmid-host-bias must be",
            ),
            (&["--species", "100001"][..], "--species must be"),
            (
                &[
                    "--species",
                    "200",
                    "--clades",
                    "1000",
                    "--genome-size",
                    "1000000",
                ][..],
                "GB of memory",
            ),
            (&["--clades", "0"][..], "--clades must be"),
            (&["--contigs", "0"][..], "--contigs must"),
            (&["--contigs", "9-3"][..], "minimum 9 is above maximum 3"),
            (&["--contigs", "x"][..], "not a whole number"),
            (&["--gene-length", "5-10"][..], "--gene-length must"),
            (&["--freq-skew", "0"][..], "--freq-skew must"),
            (&["--markov-order", "11"][..], "--markov-order must"),
            (&["--n-runs=-1"][..], "--n-runs must"),
            (&["--threads", "5000"][..], "--threads must"),
            (
                &["--clades", "100000", "--genome-size", "100000000"][..],
                "GB of memory",
            ),
            (
                &["--gc", "0.4", "--train", "x.fa"][..],
                "cannot be used with",
            ),
        ] {
            let err = format!("{:#}", parse(args).unwrap_err());
            assert!(err.contains(msg), "{args:?}: {err}");
        }
        assert!(parse(&["--genomes", "0"]).is_err());
    }

    #[test]
    fn spans_parse() {
        assert_eq!(parse_span("5").unwrap(), Span { min: 5, max: 5 });
        assert_eq!(
            parse_span("1_000-2000").unwrap(),
            Span {
                min: 1000,
                max: 2000
            }
        );
        assert_eq!(Span { min: 2, max: 9 }.to_string(), "2-9");
    }
}
