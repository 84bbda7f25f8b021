//! The population model: core genome, clades, accessory gene pool, genomes
//! and their assemblies. See the crate documentation for the model summary.

use std::fmt::Write as _;

use rand::{Rng, RngExt};
use rand_distr::{Binomial, Distribution, LogNormal, Poisson};
use rayon::prelude::*;

use crate::fasta::{push_wrapped, Record};
use crate::markov::Markov;
use crate::seq::{revcomp_in_place, revcomp_into, rng_for, substitute, unit, Stream};

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
}

/// A gene of the pool (random accessory gene or real gene from `--genes`).
#[derive(Clone, Debug)]
pub struct Gene {
    pub name: String,
    pub seq: Vec<u8>,
    /// From `--genes` (true) or generated (false).
    pub real: bool,
    /// Base presence frequency outside its home clade.
    pub base_freq: f64,
    /// Presence probability inside the home clade.
    pub home_freq: f64,
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

/// Everything shared by the genomes: O(clades x genome size) memory.
pub struct Collection {
    pub params: Params,
    pub core: Vec<u8>,
    pub clades: Vec<Vec<u8>>,
    /// Expected fraction of genomes in each clade (Zipf-like).
    pub clade_weights: Vec<f64>,
    clade_cdf: Vec<f64>,
    pub genes: Vec<Gene>,
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

/// A genome before being cut into contigs.
pub struct Genome {
    pub index: usize,
    pub clade: usize,
    pub seq: Vec<u8>,
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

/// Genome presence plan: clade and genes with insertion sites.
pub struct Plan {
    pub clade: usize,
    /// (gene, position in clade coordinates, reverse strand)
    pub inserts: Vec<(usize, usize, bool)>,
}

fn log_uniform<R: Rng + ?Sized>(span: Span, rng: &mut R) -> usize {
    if span.min == span.max {
        return span.min;
    }
    let (a, b) = ((span.min as f64).ln(), (span.max as f64 + 1.0).ln());
    ((a + (b - a) * unit(rng)).exp() as usize).clamp(span.min, span.max)
}

fn poisson<R: Rng + ?Sized>(lambda: f64, rng: &mut R) -> usize {
    if lambda <= 0.0 {
        return 0;
    }
    Poisson::new(lambda).map_or(0, |d| d.sample(rng) as usize)
}

impl Collection {
    /// Builds the core, the clades and the gene pool.
    pub fn new(params: Params, markov: &Markov, real_genes: Vec<Record>) -> Collection {
        let seed = params.seed;
        let core = markov.generate(params.genome_size, &mut rng_for(seed, Stream::Core, 0));
        let clades: Vec<Vec<u8>> = (0..params.clades)
            .into_par_iter()
            .map(|c| make_clade(&params, markov, &core, c))
            .collect();
        let raw: Vec<f64> = (0..params.clades)
            .map(|c| 1.0 / ((c + 1) as f64).powf(params.clade_skew))
            .collect();
        let total: f64 = raw.iter().sum();
        let clade_weights: Vec<f64> = raw.iter().map(|w| w / total).collect();
        let mut acc = 0.0;
        let clade_cdf = clade_weights
            .iter()
            .map(|w| {
                acc += w;
                acc
            })
            .collect();

        let presence = |rng: &mut crate::seq::SimRng| {
            let base = unit(rng).powf(params.freq_skew);
            let home = base.powf(1.0 - params.clade_affinity);
            let clade = rng.random_range(0..params.clades);
            let site = unit(rng);
            (base, home, clade, site)
        };
        let width = digits(params.accessory_genes.saturating_sub(1)).max(5);
        let mut genes: Vec<Gene> = (0..params.accessory_genes)
            .into_par_iter()
            .map(|g| {
                let mut rng = rng_for(seed, Stream::AccessoryGene, g as u64);
                let (base_freq, home_freq, home_clade, home_site) = presence(&mut rng);
                let len = log_uniform(params.gene_length, &mut rng);
                Gene {
                    name: format!("acc_{g:0width$}"),
                    seq: markov.generate(len, &mut rng),
                    real: false,
                    base_freq,
                    home_freq,
                    home_clade,
                    home_site,
                }
            })
            .collect();
        let mut names: std::collections::HashSet<String> =
            genes.iter().map(|g| g.name.clone()).collect();
        let mut replaced = 0;
        for (j, rec) in real_genes.into_iter().enumerate() {
            let mut rng = rng_for(seed, Stream::RealGene, j as u64);
            let (base_freq, home_freq, home_clade, home_site) = presence(&mut rng);
            let mut seq = rec.seq;
            for b in seq.iter_mut() {
                if !matches!(b, b'A' | b'C' | b'G' | b'T') {
                    *b = b"ACGT"[rng.random_range(0..4)];
                    replaced += 1;
                }
            }
            let mut name = rec.name;
            if names.contains(&name) {
                let mut k = 2;
                while names.contains(&format!("{name}_{k}")) {
                    k += 1;
                }
                name = format!("{name}_{k}");
            }
            names.insert(name.clone());
            genes.push(Gene {
                name,
                seq,
                real: true,
                base_freq,
                home_freq,
                home_clade,
                home_site,
            });
        }
        Collection {
            params,
            core,
            clades,
            clade_weights,
            clade_cdf,
            genes,
            replaced_real_gene_chars: replaced,
        }
    }

    /// Expected number of genomes carrying each gene, as a fraction.
    pub fn expected_frequency(&self, gene: &Gene) -> f64 {
        self.clade_weights
            .iter()
            .enumerate()
            .map(|(c, w)| w * gene.presence_prob(c))
            .sum()
    }

    /// Which clade genome `index` belongs to and which genes it carries where.
    pub fn plan(&self, index: usize) -> Plan {
        let mut rng = rng_for(self.params.seed, Stream::Plan, index as u64);
        let u = unit(&mut rng);
        let clade = self
            .clade_cdf
            .partition_point(|&x| x <= u)
            .min(self.params.clades - 1);
        let clade_len = self.clades[clade].len();
        let mut inserts = Vec::new();
        for (g, gene) in self.genes.iter().enumerate() {
            if unit(&mut rng) < gene.presence_prob(clade) {
                let pos = if unit(&mut rng) < HOME_SITE_PROB {
                    ((gene.home_site * clade_len as f64) as usize).min(clade_len)
                } else {
                    rng.random_range(0..=clade_len)
                };
                inserts.push((g, pos, rng.random_bool(0.5)));
            }
        }
        inserts.sort_unstable_by_key(|&(g, pos, _)| (pos, g));
        Plan { clade, inserts }
    }

    /// Builds genome `index`: clade sequence + inserted genes, then strain
    /// substitutions, N runs and soft-masking.
    pub fn genome(&self, index: usize) -> Genome {
        let p = &self.params;
        let plan = self.plan(index);
        let clade = &self.clades[plan.clade];
        let extra: usize = plan
            .inserts
            .iter()
            .map(|&(g, _, _)| self.genes[g].seq.len())
            .sum();
        let mut seq = Vec::with_capacity(clade.len() + extra);
        let mut placed = Vec::with_capacity(plan.inserts.len());
        let mut cursor = 0;
        for &(g, pos, reverse) in &plan.inserts {
            seq.extend_from_slice(&clade[cursor..pos]);
            cursor = pos;
            let gene = &self.genes[g].seq;
            let start = seq.len();
            if reverse {
                revcomp_into(gene, &mut seq);
            } else {
                seq.extend_from_slice(gene);
            }
            placed.push(Placed {
                gene: g,
                start,
                len: gene.len(),
                reverse,
                mismatches: 0,
            });
        }
        seq.extend_from_slice(&clade[cursor..]);

        // Strain-level point substitutions over the whole genome.
        let len = seq.len();
        if p.strain_divergence > 0.0 && len > 0 {
            let mut rng = rng_for(p.seed, Stream::StrainSubstitutions, index as u64);
            let n =
                Binomial::new(len as u64, p.strain_divergence).map_or(0, |d| d.sample(&mut rng));
            for _ in 0..n {
                let i = rng.random_range(0..len);
                seq[i] = substitute(seq[i], &mut rng);
            }
            for pl in placed.iter_mut() {
                let gene = &self.genes[pl.gene].seq;
                let got = &seq[pl.start..pl.start + pl.len];
                pl.mismatches = if pl.reverse {
                    got.iter()
                        .zip(gene.iter().rev())
                        .filter(|(&a, &b)| a != crate::seq::complement(b))
                        .count()
                } else {
                    got.iter().zip(gene).filter(|(a, b)| a != b).count()
                };
            }
        }

        // Runs of N (scaffold gaps), never inside an inserted gene.
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

        if p.soft_mask {
            let mut rng = rng_for(p.seed, Stream::SoftMask, index as u64);
            for _ in 0..poisson(SOFT_MASK_STRETCHES, &mut rng) {
                let run = rng.random_range(SOFT_MASK_LEN.0..=SOFT_MASK_LEN.1).min(len);
                let s = rng.random_range(0..=len - run);
                seq[s..s + run].make_ascii_lowercase();
            }
        }

        Genome {
            index,
            clade: plan.clade,
            seq,
            placed,
            n_bases,
        }
    }

    /// Cuts a genome into contigs (in output order: longest first). Contig
    /// boundaries never fall inside an inserted gene.
    pub fn contigs(&self, genome: &Genome) -> Vec<Contig> {
        let p = &self.params;
        let len = genome.seq.len();
        let mut rng = rng_for(p.seed, Stream::Contigs, genome.index as u64);
        let k = rng
            .random_range(p.contigs.min..=p.contigs.max)
            .min((len / MIN_CONTIG).max(1));
        let lognormal = LogNormal::new(0.0, CONTIG_SIGMA).expect("valid log-normal");
        let weights: Vec<f64> = (0..k).map(|_| lognormal.sample(&mut rng)).collect();
        let total: f64 = weights.iter().sum();
        let free = len.saturating_sub(k * MIN_CONTIG) as f64;
        let mut cuts = Vec::with_capacity(k + 1);
        cuts.push(0);
        let mut acc = 0.0;
        for (j, w) in weights.iter().enumerate().take(k.saturating_sub(1)) {
            acc += w;
            let mut cut = ((j + 1) * MIN_CONTIG + (free * acc / total) as usize).min(len);
            // Move a cut that falls inside a gene to the nearest gene end.
            let i = genome.placed.partition_point(|pl| pl.start + pl.len <= cut);
            if let Some(pl) = genome.placed.get(i) {
                if pl.start < cut {
                    let end = pl.start + pl.len;
                    cut = if cut - pl.start < end - cut {
                        pl.start
                    } else {
                        end
                    };
                }
            }
            // Drop cuts that would leave a contig of under 100 bases.
            if cut >= cuts.last().copied().unwrap_or(0) + 100 && cut + 100 <= len {
                cuts.push(cut);
            }
        }
        cuts.push(len);
        let mut contigs: Vec<Contig> = cuts
            .windows(2)
            .filter(|w| w[1] > w[0])
            .map(|w| Contig {
                start: w[0],
                len: w[1] - w[0],
                reverse: p.flip_contigs && rng.random_bool(0.5),
            })
            .collect();
        contigs.sort_by_key(|c| std::cmp::Reverse(c.len));
        contigs
    }

    /// Renders the FASTA of a genome and appends its truth rows
    /// (`genome gene contig start strand length mismatches`).
    pub fn render(
        &self,
        genome: &Genome,
        contigs: &[Contig],
        name: &str,
        fasta: &mut Vec<u8>,
        truth: &mut String,
    ) {
        fasta.reserve(
            genome.seq.len() + genome.seq.len() / crate::fasta::LINE_WIDTH + 64 * contigs.len(),
        );
        let mut tmp = Vec::new();
        for (j, c) in contigs.iter().enumerate() {
            let _ = writeln!(ByteFmt(fasta), ">{name}_contig_{} length={}", j + 1, c.len);
            let s = &genome.seq[c.start..c.start + c.len];
            if c.reverse {
                tmp.clear();
                revcomp_into(s, &mut tmp);
                push_wrapped(fasta, &tmp);
            } else {
                push_wrapped(fasta, s);
            }
        }
        // Positional order of contigs, with their output numbers.
        let mut by_pos: Vec<(usize, &Contig)> = contigs.iter().enumerate().collect();
        by_pos.sort_by_key(|(_, c)| c.start);
        let mut rows: Vec<(usize, usize, &Placed, bool)> = genome
            .placed
            .iter()
            .map(|pl| {
                let k = by_pos.partition_point(|(_, c)| c.start <= pl.start) - 1;
                let (num, c) = by_pos[k];
                debug_assert!(pl.start + pl.len <= c.start + c.len);
                let mut off = pl.start - c.start;
                let mut reverse = pl.reverse;
                if c.reverse {
                    off = c.len - off - pl.len;
                    reverse = !reverse;
                }
                (num, off, pl, reverse)
            })
            .collect();
        rows.sort_by_key(|&(num, off, pl, _)| (num, off, pl.gene));
        for (num, off, pl, reverse) in rows {
            let _ = writeln!(
                truth,
                "{name}\t{}\t{name}_contig_{}\t{off}\t{}\t{}\t{}",
                self.genes[pl.gene].name,
                num + 1,
                if reverse { '-' } else { '+' },
                pl.len,
                pl.mismatches
            );
        }
    }
}

/// `fmt::Write` adapter for a byte vector.
struct ByteFmt<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for ByteFmt<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Number of decimal digits of `n`.
pub fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// A clade: the core with substitutions, small indels, deletions and
/// inversions.
fn make_clade(p: &Params, markov: &Markov, core: &[u8], c: usize) -> Vec<u8> {
    let mut rng = rng_for(p.seed, Stream::Clade, c as u64);
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

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
        for clade in &c.clades {
            let d = hamming(clade, &c.core) as f64 / c.core.len() as f64;
            // Exactly 1 % of positions drawn, a few coincide.
            assert!((0.0097..=0.01).contains(&d), "{d}");
        }
        // Two clades differ by about twice the clade divergence.
        let d = hamming(&c.clades[0], &c.clades[1]) as f64 / c.core.len() as f64;
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
            let clade = &c.clades[g.clade];
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
        for clade in &c.clades {
            assert!(clade.len() + max_del >= p.genome_size);
            assert!(clade.len() <= p.genome_size + max_ins);
        }
        let expected_acc: f64 = c
            .genes
            .iter()
            .map(|g| c.expected_frequency(g) * g.seq.len() as f64)
            .sum();
        let mut acc_total = 0.0;
        let n = 200;
        for i in 0..n {
            let g = c.genome(i);
            let inserted: usize = g.placed.iter().map(|pl| pl.len).sum();
            assert_eq!(g.seq.len(), c.clades[g.clade].len() + inserted);
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
        for (g, gene) in c.genes.iter().enumerate() {
            let e = c.expected_frequency(gene);
            let o = carriers[g] as f64 / n as f64;
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
        assert!(c.genes[3].real);
        assert!(c.genes[3].seq.iter().all(|b| b"ACGT".contains(b)));
        assert_eq!(c.replaced_real_gene_chars, 2);
        assert_eq!(c.genes[4].name, "blaX");
    }
}
