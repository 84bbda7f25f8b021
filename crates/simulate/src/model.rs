//! The population model: core genome, clades, accessory gene pool, genomes
//! and their assemblies. See the crate documentation for the model summary.

use std::collections::HashSet;
use std::ops::Range;

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Poisson};

use crate::markov::Markov;
use crate::seq::{revcomp_in_place, rng_for, substitute, unit, SimRng, Stream};

/// Probability that an insertion of a gene uses the gene's preferred
/// insertion site (its "home locus"); otherwise the site is uniform at random
/// (mobile element behaviour).
pub const HOME_SITE_PROB: f64 = 0.8;
/// Smallest contig produced by the contig cutter (also bounds the number of
/// contigs of very short genomes).
pub const MIN_CONTIG: usize = 500;
/// Log-normal sigma of contig length weights (skewed contig lengths).
pub const CONTIG_SIGMA: f64 = 1.25;
/// Clade-level small indels are 1..=this many bases.
pub const SMALL_INDEL_MAX: usize = 20;
/// Clade-level deletions are this many bases (range, inclusive).
pub const DELETION_LEN: (usize, usize) = (1_000, 20_000);
/// Clade-level inversions span this many bases (range, inclusive).
pub const INVERSION_LEN: (usize, usize) = (10_000, 200_000);
/// Mean number of soft-masked stretches per genome with `--soft-mask`.
pub const SOFT_MASK_STRETCHES: f64 = 3.0;
/// Soft-masked stretch lengths (range, inclusive).
pub const SOFT_MASK_LEN: (usize, usize) = (50, 1_000);

/// An inclusive range of counts or lengths, written `MIN-MAX` or `N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub min: usize,
    pub max: usize,
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}-{}", self.min, self.max)
        }
    }
}

/// Validated model parameters (everything that affects the output).
#[derive(Clone, Debug)]
pub struct Params {
    pub seed: u64,
    pub genome_size: usize,
    pub clades: usize,
    pub clade_skew: f64,
    pub clade_divergence: f64,
    pub clade_indels: usize,
    pub clade_deletions: usize,
    pub clade_inversions: usize,
    pub strain_divergence: f64,
    pub accessory_genes: usize,
    pub gene_length: Span,
    pub freq_skew: f64,
    pub clade_affinity: f64,
    pub contigs: Span,
    pub n_runs: f64,
    pub soft_mask: bool,
    pub flip_contigs: bool,
    /// Several species (`--species`); `None` is the single-species model.
    pub species: Option<SpeciesParams>,
}

/// Where a gene of the pool comes from and how it spreads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneKind {
    /// Generated, in one species' accessory pool.
    Accessory,
    /// From `--genes`, inserted like an accessory gene (single-species model).
    Real,
    /// From `--genes`, carried as plasmid cargo across species (species model).
    Mobile,
    /// Generated, in nearly every genome of every species (`--universal-genes`).
    Universal,
}

impl GeneKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GeneKind::Accessory => "accessory",
            GeneKind::Real => "real",
            GeneKind::Mobile => "mobile",
            GeneKind::Universal => "universal",
        }
    }
}

/// A gene of the pool (random accessory gene or real gene from `--genes`).
#[derive(Clone, Debug)]
pub struct Gene {
    pub name: String,
    pub seq: Vec<u8>,
    pub kind: GeneKind,
    /// The species whose pool holds it (`None` for mobile and universal genes).
    pub species: Option<usize>,
    /// Base presence frequency outside its home clade (0 for mobile genes; a universal gene's
    /// presence probability in every genome).
    pub base_freq: f64,
    /// Presence probability inside the home clade (0 for mobile genes; as `base_freq` for
    /// universal genes).
    pub home_freq: f64,
    /// Home clade, within its species.
    pub home_clade: usize,
    /// Preferred insertion site as a fraction of the clade genome length.
    pub home_site: f64,
}

impl Gene {
    pub fn presence_prob(&self, clade: usize) -> f64 {
        if clade == self.home_clade {
            self.home_freq
        } else {
            self.base_freq
        }
    }
}

/// A species: its core genome, clades and accessory pool.
pub struct Species {
    /// `sp00`, `sp01`, ... (the single-species model has one, unnamed in its output).
    pub name: String,
    pub core: Vec<u8>,
    pub clades: Vec<Vec<u8>>,
    /// Expected fraction of the species' genomes in each clade (Zipf-like).
    pub clade_weights: Vec<f64>,
    clade_cdf: Vec<f64>,
    /// Its accessory genes: `Collection::genes[genes]`.
    pub genes: Range<usize>,
    /// The plasmids it hosts, in plasmid order (species model).
    pub plasmids: Vec<usize>,
}

impl Species {
    pub fn new(name: String, core: Vec<u8>, clades: Vec<Vec<u8>>, skew: f64) -> Species {
        let clade_weights = zipf_weights(clades.len(), skew);
        Species {
            name,
            core,
            clades,
            clade_cdf: cumulative(&clade_weights),
            clade_weights,
            genes: 0..0,
            plasmids: Vec::new(),
        }
    }

    /// The clade of uniform draw `u`.
    pub fn clade_of(&self, u: f64) -> usize {
        self.clade_cdf
            .partition_point(|&x| x <= u)
            .min(self.clades.len() - 1)
    }

    /// `sp03_c05`: the clade's name across the collection.
    pub fn clade_label(&self, clade: usize) -> String {
        format!("{}_c{clade:02}", self.name)
    }
}

/// Weights 1/(i+1)^skew for `n` items, normalised to sum to 1.
pub fn zipf_weights(n: usize, skew: f64) -> Vec<f64> {
    let raw: Vec<f64> = (0..n).map(|c| 1.0 / ((c + 1) as f64).powf(skew)).collect();
    let total: f64 = raw.iter().sum();
    raw.iter().map(|w| w / total).collect()
}

/// Running sums of `weights`.
pub fn cumulative(weights: &[f64]) -> Vec<f64> {
    let mut acc = 0.0;
    weights
        .iter()
        .map(|w| {
            acc += w;
            acc
        })
        .collect()
}

/// Everything shared by the genomes: O(species x clades x genome size) memory.
pub struct Collection {
    pub params: Params,
    /// One species in the single-species model.
    pub species: Vec<Species>,
    /// Expected fraction of genomes in each species.
    pub species_weights: Vec<f64>,
    pub(crate) species_cdf: Vec<f64>,
    pub genes: Vec<Gene>,
    /// Plasmids (species model only).
    pub plasmids: Vec<Plasmid>,
    /// The universal genes, `genes[universal]` (species model only; the last genes).
    pub universal: Range<usize>,
    /// How many non-ACGT characters of real genes were replaced.
    pub replaced_real_gene_chars: usize,
}

/// One inserted gene copy in an assembled genome sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub gene: usize,
    /// Start in the genome sequence (0-based).
    pub start: usize,
    pub len: usize,
    /// Inserted as the reverse complement.
    pub reverse: bool,
    /// Differences from the pool sequence (strain substitutions).
    pub mismatches: usize,
}

/// A genome before being cut into contigs: the chromosome, then its plasmids.
pub struct Genome {
    pub index: usize,
    pub species: usize,
    pub clade: usize,
    pub seq: Vec<u8>,
    /// `seq[..chromosome_len]` is the chromosome.
    pub chromosome_len: usize,
    /// Plasmids carried: (plasmid, start, length) in `seq`, after the chromosome.
    pub replicons: Vec<(usize, usize, usize)>,
    /// Inserted genes, sorted by start, non-overlapping.
    pub placed: Vec<Placed>,
    pub n_bases: usize,
}

/// A contig: a slice of the genome sequence, maybe reverse-complemented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contig {
    pub start: usize,
    pub len: usize,
    pub reverse: bool,
}

/// Gene insertions: (gene, position in the template, reverse strand), sorted by position.
pub type Inserts = Vec<(usize, usize, bool)>;

/// Genome presence plan: species, clade, and genes with insertion sites.
pub struct Plan {
    pub species: usize,
    pub clade: usize,
    /// Genes on the chromosome, in clade coordinates.
    pub inserts: Inserts,
    /// Plasmids carried, each with its cargo genes (sites in the backbone).
    pub plasmids: Vec<(usize, Inserts)>,
}

/// Options of the species model.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeciesParams {
    /// Number of species.
    pub count: usize,
    /// Zipf exponent of species abundances.
    pub skew: f64,
    /// Number of plasmids.
    pub plasmids: usize,
    /// Host species of plasmids are drawn with probability proportional to weight^bias.
    pub plasmid_host_bias: f64,
    /// Genes in nearly every genome of every species.
    pub universal_genes: usize,
    /// Query genes per species and class (core, accessory, absent).
    pub query_genes: usize,
    /// Number of species the core, accessory and absent queries are drawn from.
    pub query_species: usize,
    /// k of the query truth table.
    pub truth_k: usize,
}

/// A species that carries a plasmid, and how often.
#[derive(Clone, Debug)]
pub struct PlasmidHost {
    pub species: usize,
    /// Presence probability outside the home clade.
    pub base_freq: f64,
    /// Presence probability inside the home clade.
    pub home_freq: f64,
    /// Home clade, within the species.
    pub home_clade: usize,
}

impl PlasmidHost {
    pub(crate) fn presence_prob(&self, clade: usize) -> f64 {
        if clade == self.home_clade {
            self.home_freq
        } else {
            self.base_freq
        }
    }
}

/// A plasmid: a backbone, the species that carry it, and its cargo of mobile genes.
#[derive(Clone, Debug)]
pub struct Plasmid {
    /// `plasmid_007`.
    pub name: String,
    pub backbone: Vec<u8>,
    pub hosts: Vec<PlasmidHost>,
    /// (gene, insertion site in the backbone), sorted by site.
    pub cargo: Vec<(usize, usize)>,
}

impl Plasmid {
    pub(crate) fn host(&self, species: usize) -> Option<&PlasmidHost> {
        self.hosts.iter().find(|h| h.species == species)
    }
}

pub fn log_uniform<R: Rng + ?Sized>(span: Span, rng: &mut R) -> usize {
    if span.min == span.max {
        return span.min;
    }
    let (a, b) = ((span.min as f64).ln(), (span.max as f64 + 1.0).ln());
    ((a + (b - a) * unit(rng)).exp() as usize).clamp(span.min, span.max)
}

pub(crate) fn poisson<R: Rng + ?Sized>(lambda: f64, rng: &mut R) -> usize {
    if lambda <= 0.0 {
        return 0;
    }
    Poisson::new(lambda).map_or(0, |d| d.sample(rng) as usize)
}

/// A gene's presence: (base frequency, home-clade frequency, home clade, insertion site).
pub fn draw_presence(p: &Params, clades: usize, rng: &mut SimRng) -> (f64, f64, usize, f64) {
    let base = unit(rng).powf(p.freq_skew);
    let home = base.powf(1.0 - p.clade_affinity);
    let clade = rng.random_range(0..clades);
    let site = unit(rng);
    (base, home, clade, site)
}

/// Replaces non-ACGT bytes with random bases; returns how many were replaced.
pub fn clean_real_gene(seq: &mut [u8], rng: &mut SimRng) -> usize {
    let mut replaced = 0;
    for b in seq.iter_mut() {
        if !matches!(b, b'A' | b'C' | b'G' | b'T') {
            *b = b"ACGT"[rng.random_range(0..4)];
            replaced += 1;
        }
    }
    replaced
}

/// `name`, or `name_2`, `name_3`... if taken; the result is recorded as taken.
pub fn unique_name(name: String, taken: &mut HashSet<String>) -> String {
    let mut unique = name.clone();
    let mut k = 2;
    while taken.contains(&unique) {
        unique = format!("{name}_{k}");
        k += 1;
    }
    taken.insert(unique.clone());
    unique
}

/// Number of decimal digits of `n`.
pub fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// A clade: the core with substitutions, small indels, deletions and
/// inversions.
/// `stream` numbers the clade's random stream (the clade number; the species model puts the
/// species number in the upper 32 bits).
pub fn make_clade(p: &Params, markov: &Markov, core: &[u8], stream: u64) -> Vec<u8> {
    let mut rng = rng_for(p.seed, Stream::Clade, stream);
    let len = core.len();
    let mut seq = core.to_vec();
    let n_subs = (p.clade_divergence * len as f64).round() as usize;
    for _ in 0..n_subs {
        let i = rng.random_range(0..len);
        seq[i] = substitute(seq[i], &mut rng);
    }
    // Structural events at sorted positions: (position, inserted len, deleted len).
    let mut events: Vec<(usize, usize, usize)> = Vec::new();
    for _ in 0..p.clade_indels {
        let pos = rng.random_range(0..len);
        let l = rng.random_range(1..=SMALL_INDEL_MAX);
        if rng.random_bool(0.5) {
            events.push((pos, l, 0));
        } else {
            events.push((pos, 0, l));
        }
    }
    for _ in 0..p.clade_deletions {
        let l = rng
            .random_range(DELETION_LEN.0..=DELETION_LEN.1)
            .min(len / 20);
        let pos = rng.random_range(0..len);
        events.push((pos, 0, l));
    }
    if !events.is_empty() {
        events.sort_unstable();
        let mut out = Vec::with_capacity(len + p.clade_indels * SMALL_INDEL_MAX);
        let mut cursor = 0;
        for (pos, ins, del) in events {
            if pos < cursor {
                continue; // overlaps a previous deletion
            }
            out.extend_from_slice(&seq[cursor..pos]);
            markov.generate_into(ins, &mut rng, &mut out);
            cursor = (pos + del).min(len);
        }
        out.extend_from_slice(&seq[cursor..]);
        seq = out;
    }
    for _ in 0..p.clade_inversions {
        let l = rng
            .random_range(INVERSION_LEN.0..=INVERSION_LEN.1)
            .min(seq.len() / 4);
        let s = rng.random_range(0..=seq.len() - l);
        revcomp_in_place(&mut seq[s..s + l]);
    }
    seq
}

/// Runs of N (scaffold gaps), never inside an inserted gene; returns the bases set to N.
pub(crate) fn add_n_runs(p: &Params, index: usize, seq: &mut [u8], placed: &[Placed]) -> usize {
    let len = seq.len();
    let mut n_bases = 0;
    let mut rng = rng_for(p.seed, Stream::NRuns, index as u64);
    for _ in 0..poisson(p.n_runs, &mut rng) {
        let run = if rng.random_bool(0.5) {
            100
        } else {
            rng.random_range(10..=500)
        };
        if run >= len {
            continue;
        }
        for _attempt in 0..20 {
            let s = rng.random_range(0..=len - run);
            let first_after = placed.partition_point(|pl| pl.start + pl.len <= s);
            let clear = placed.get(first_after).is_none_or(|pl| pl.start >= s + run);
            if clear {
                n_bases += seq[s..s + run].iter().filter(|&&b| b != b'N').count();
                seq[s..s + run].fill(b'N');
                break;
            }
        }
    }
    n_bases
}

/// A generated accessory gene of species `species` (whose clades number `params.clades`).
pub fn accessory_gene(
    params: &Params,
    markov: &Markov,
    name: String,
    species: usize,
    rng: &mut SimRng,
) -> Gene {
    let (base_freq, home_freq, home_clade, home_site) = draw_presence(params, params.clades, rng);
    let len = log_uniform(params.gene_length, rng);
    Gene {
        name,
        seq: markov.generate(len, rng),
        kind: GeneKind::Accessory,
        species: Some(species),
        base_freq,
        home_freq,
        home_clade,
        home_site,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fasta::Record;

    pub fn small_params() -> Params {
        Params {
            seed: 7,
            genome_size: 200_000,
            clades: 6,
            clade_skew: 1.0,
            clade_divergence: 0.01,
            clade_indels: 20,
            clade_deletions: 2,
            clade_inversions: 1,
            strain_divergence: 0.002,
            accessory_genes: 100,
            gene_length: Span {
                min: 500,
                max: 5000,
            },
            freq_skew: 4.0,
            clade_affinity: 0.75,
            contigs: Span { min: 20, max: 200 },
            n_runs: 0.0,
            soft_mask: false,
            flip_contigs: true,
            species: None,
        }
    }

    fn hamming(a: &[u8], b: &[u8]) -> usize {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).filter(|(x, y)| x != y).count()
    }

    /// The genome with inserted genes cut out (clade coordinates).
    fn core_part(g: &Genome) -> Vec<u8> {
        let mut out = Vec::new();
        let mut cursor = 0;
        for pl in &g.placed {
            out.extend_from_slice(&g.seq[cursor..pl.start]);
            cursor = pl.start + pl.len;
        }
        out.extend_from_slice(&g.seq[cursor..]);
        out
    }

    #[test]
    fn clade_divergence_matches_request() {
        let mut p = small_params();
        p.clade_indels = 0;
        p.clade_deletions = 0;
        p.clade_inversions = 0;
        let c = Collection::new(p.clone(), &Markov::iid(0.5), vec![]);
        let sp = &c.species[0];
        for clade in &sp.clades {
            let d = hamming(clade, &sp.core) as f64 / sp.core.len() as f64;
            // Exactly 1 % of positions drawn, a few coincide.
            assert!((0.0097..=0.01).contains(&d), "{d}");
        }
        // Two clades differ by about twice the clade divergence.
        let d = hamming(&sp.clades[0], &sp.clades[1]) as f64 / sp.core.len() as f64;
        assert!((0.018..=0.021).contains(&d), "{d}");
    }

    #[test]
    fn strain_divergence_matches_request() {
        let p = small_params();
        let c = Collection::new(p.clone(), &Markov::iid(0.5), vec![]);
        let (mut diffs, mut total) = (0usize, 0usize);
        for i in 0..20 {
            let g = c.genome(i);
            let core = core_part(&g);
            let clade = &c.species[0].clades[g.clade];
            diffs += hamming(&core, clade);
            total += clade.len();
        }
        let d = diffs as f64 / total as f64;
        assert!(
            (d / p.strain_divergence - 1.0).abs() < 0.1,
            "measured {d}, requested {}",
            p.strain_divergence
        );
    }

    #[test]
    fn genome_lengths_are_within_bounds() {
        let p = small_params();
        let c = Collection::new(p.clone(), &Markov::iid(0.5), vec![]);
        let max_del = p.clade_deletions * DELETION_LEN.1.min(p.genome_size / 20)
            + p.clade_indels * SMALL_INDEL_MAX;
        let max_ins = p.clade_indels * SMALL_INDEL_MAX;
        for clade in &c.species[0].clades {
            assert!(clade.len() + max_del >= p.genome_size);
            assert!(clade.len() <= p.genome_size + max_ins);
        }
        let expected_acc: f64 = c
            .genes
            .iter()
            .enumerate()
            .map(|(i, g)| c.expected_frequency(i) * g.seq.len() as f64)
            .sum();
        let mut acc_total = 0.0;
        let n = 200;
        for i in 0..n {
            let g = c.genome(i);
            let inserted: usize = g.placed.iter().map(|pl| pl.len).sum();
            assert_eq!(g.seq.len(), c.species[0].clades[g.clade].len() + inserted);
            acc_total += inserted as f64;
            let contigs = c.contigs(&g);
            assert!(contigs.len() <= p.contigs.max);
            assert!(contigs.len() >= p.contigs.min / 2, "{}", contigs.len());
            assert_eq!(contigs.iter().map(|c| c.len).sum::<usize>(), g.seq.len());
            assert!(contigs.windows(2).all(|w| w[0].len >= w[1].len));
            assert!(contigs.iter().all(|c| c.len >= 100));
        }
        let mean = acc_total / n as f64;
        assert!(
            (mean / expected_acc - 1.0).abs() < 0.25,
            "mean accessory {mean}, expected {expected_acc}"
        );
    }

    #[test]
    fn frequencies_are_skewed_and_clade_correlated() {
        let mut p = small_params();
        p.accessory_genes = 400;
        p.clades = 10;
        let c = Collection::new(p.clone(), &Markov::iid(0.5), vec![]);
        let n = 2000;
        let mut carriers = vec![0usize; c.genes.len()];
        let mut in_home = vec![(0usize, 0usize); c.genes.len()]; // (carriers, genomes) in home clade
        for i in 0..n {
            let plan = c.plan(i);
            for &(g, _, _) in &plan.inserts {
                carriers[g] += 1;
            }
            for (g, gene) in c.genes.iter().enumerate() {
                if gene.home_clade == plan.clade {
                    in_home[g].1 += 1;
                    in_home[g].0 += plan.inserts.iter().any(|x| x.0 == g) as usize;
                }
            }
        }
        let mut freqs: Vec<f64> = carriers.iter().map(|&k| k as f64 / n as f64).collect();
        freqs.sort_by(f64::total_cmp);
        let median = freqs[freqs.len() / 2];
        let mean = freqs.iter().sum::<f64>() / freqs.len() as f64;
        let rare = freqs.iter().filter(|&&f| f < 0.15).count() as f64 / freqs.len() as f64;
        let common = freqs.iter().filter(|&&f| f > 0.5).count() as f64 / freqs.len() as f64;
        assert!(median < 0.6 * mean, "median {median} mean {mean}");
        assert!(rare > 0.5, "rare {rare}");
        assert!(common > 0.05 && common < 0.35, "common {common}");
        // Clade correlation: carriers are over-represented in the home clade.
        let (mut home_rate, mut all_rate, mut k) = (0.0, 0.0, 0);
        for (g, &(hc, hn)) in in_home.iter().enumerate() {
            if hn >= 20 && carriers[g] > 0 {
                home_rate += hc as f64 / hn as f64;
                all_rate += carriers[g] as f64 / n as f64;
                k += 1;
            }
        }
        assert!(k > 100);
        assert!(home_rate > 1.5 * all_rate, "{home_rate} vs {all_rate}");
        // Observed frequencies follow the model's expectation.
        for (g, &count) in carriers.iter().enumerate() {
            let e = c.expected_frequency(g);
            let o = count as f64 / n as f64;
            let sd = (e * (1.0 - e) / n as f64).sqrt();
            assert!((o - e).abs() <= 6.0 * sd + 0.01, "gene {g}: {o} vs {e}");
        }
    }

    #[test]
    fn clade_sizes_are_skewed() {
        let mut p = small_params();
        p.clades = 8;
        p.accessory_genes = 0;
        p.genome_size = 20_000;
        let c = Collection::new(p, &Markov::iid(0.5), vec![]);
        let mut sizes = [0usize; 8];
        for i in 0..4000 {
            sizes[c.plan(i).clade] += 1;
        }
        assert!(sizes[0] > 3 * sizes[7], "{sizes:?}");
        assert!(sizes.iter().all(|&s| s > 0));
    }

    #[test]
    fn n_runs_and_soft_mask_avoid_or_keep_genes() {
        let mut p = small_params();
        p.n_runs = 5.0;
        p.soft_mask = true;
        let c = Collection::new(p, &Markov::iid(0.5), vec![]);
        let mut runs = 0;
        let mut lower = 0;
        for i in 0..20 {
            let g = c.genome(i);
            runs += g.n_bases;
            lower += g.seq.iter().filter(|b| b.is_ascii_lowercase()).count();
            for pl in &g.placed {
                assert!(!g.seq[pl.start..pl.start + pl.len].contains(&b'N'));
            }
        }
        assert!(runs > 0 && lower > 0);
    }

    #[test]
    fn real_genes_are_cleaned_and_renamed() {
        let mut p = small_params();
        p.accessory_genes = 3;
        let recs = vec![
            Record {
                name: "acc_00001".into(),
                seq: b"ACGTRYACGT".to_vec(),
            },
            Record {
                name: "blaX".into(),
                seq: b"ACGT".repeat(100),
            },
        ];
        let c = Collection::new(p, &Markov::iid(0.5), recs);
        assert_eq!(c.genes.len(), 5);
        assert_eq!(c.genes[3].name, "acc_00001_2");
        assert_eq!(c.genes[3].kind, GeneKind::Real);
        assert!(c.genes[3].seq.iter().all(|b| b"ACGT".contains(b)));
        assert_eq!(c.replaced_real_gene_chars, 2);
        assert_eq!(c.genes[4].name, "blaX");
    }
}
