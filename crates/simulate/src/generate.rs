//! Generating a collection: the species (core, clades, accessory pools), the real genes
//! and, in the species model ([`crate::species`]), the plasmids; then each genome's plan and
//! its FASTA. The types it fills are [`crate::model`]'s.

use std::collections::HashSet;
use std::fmt::Write as _;

use rand::RngExt;
use rand_distr::{Binomial, Distribution, LogNormal};
use rayon::prelude::*;

use crate::fasta::{push_wrapped, Record};
use crate::markov::Markov;
use crate::model::{
    accessory_gene, add_n_runs, clean_real_gene, cumulative, digits, draw_presence, make_clade,
    poisson, unique_name, Collection, Contig, Gene, GeneKind, Genome, Params, Placed, Plan,
    Plasmid, Species, CONTIG_SIGMA, HOME_SITE_PROB, MIN_CONTIG, SOFT_MASK_LEN, SOFT_MASK_STRETCHES,
};
use crate::seq::{revcomp_into, rng_for, substitute, unit, Stream};

impl Collection {
    /// Builds the species (core, clades, accessory pools), the real genes and, in the species
    /// model, the plasmids.
    pub fn new(params: Params, markov: &Markov, real_genes: Vec<Record>) -> Collection {
        if params.species.is_some() {
            return crate::species::collection(params, markov, real_genes);
        }
        let seed = params.seed;
        let core = markov.generate(params.genome_size, &mut rng_for(seed, Stream::Core, 0));
        let clades: Vec<Vec<u8>> = (0..params.clades)
            .into_par_iter()
            .map(|c| make_clade(&params, markov, &core, c as u64))
            .collect();
        let mut species = Species::new(String::new(), core, clades, params.clade_skew);
        let width = digits(params.accessory_genes.saturating_sub(1)).max(5);
        let mut genes: Vec<Gene> = (0..params.accessory_genes)
            .into_par_iter()
            .map(|g| {
                let mut rng = rng_for(seed, Stream::AccessoryGene, g as u64);
                accessory_gene(&params, markov, format!("acc_{g:0width$}"), 0, &mut rng)
            })
            .collect();
        let mut names: HashSet<String> = genes.iter().map(|g| g.name.clone()).collect();
        let mut replaced = 0;
        for (j, rec) in real_genes.into_iter().enumerate() {
            let mut rng = rng_for(seed, Stream::RealGene, j as u64);
            let (base_freq, home_freq, home_clade, home_site) =
                draw_presence(&params, params.clades, &mut rng);
            let mut seq = rec.seq;
            replaced += clean_real_gene(&mut seq, &mut rng);
            genes.push(Gene {
                name: unique_name(rec.name, &mut names),
                seq,
                kind: GeneKind::Real,
                species: Some(0),
                base_freq,
                home_freq,
                home_clade,
                home_site,
            });
        }
        species.genes = 0..genes.len();
        Collection {
            params,
            species: vec![species],
            species_weights: vec![1.0],
            species_cdf: vec![1.0],
            genes,
            plasmids: Vec::new(),
            universal: 0..0,
            replaced_real_gene_chars: replaced,
        }
    }

    /// Assembles a collection from its parts (the species model's constructor).
    pub fn from_parts(
        params: Params,
        species: Vec<Species>,
        species_weights: Vec<f64>,
        genes: Vec<Gene>,
        plasmids: Vec<Plasmid>,
        replaced_real_gene_chars: usize,
    ) -> Collection {
        Collection {
            params,
            species,
            species_cdf: cumulative(&species_weights),
            species_weights,
            genes,
            plasmids,
            universal: 0..0,
            replaced_real_gene_chars,
        }
    }

    /// Whether this is the species model (`--species`).
    pub fn multi_species(&self) -> bool {
        self.params.species.is_some()
    }

    /// Expected fraction of all genomes carrying gene `g`.
    pub fn expected_frequency(&self, g: usize) -> f64 {
        let gene = &self.genes[g];
        if gene.kind == GeneKind::Universal {
            return gene.base_freq;
        }
        match gene.species {
            Some(s) => {
                let within: f64 = self.species[s]
                    .clade_weights
                    .iter()
                    .enumerate()
                    .map(|(c, w)| w * gene.presence_prob(c))
                    .sum();
                self.species_weights[s] * within
            }
            None => crate::species::expected_mobile_frequency(self, g),
        }
    }

    /// Which species and clade genome `index` belongs to and which genes it carries where.
    pub fn plan(&self, index: usize) -> Plan {
        let mut rng = rng_for(self.params.seed, Stream::Plan, index as u64);
        let species = if self.multi_species() {
            let u = unit(&mut rng);
            self.species_cdf
                .partition_point(|&x| x <= u)
                .min(self.species.len() - 1)
        } else {
            0
        };
        let sp = &self.species[species];
        let clade = sp.clade_of(unit(&mut rng));
        let clade_len = sp.clades[clade].len();
        let mut inserts = Vec::new();
        for g in sp.genes.clone() {
            let gene = &self.genes[g];
            if unit(&mut rng) < gene.presence_prob(clade) {
                let pos = if unit(&mut rng) < HOME_SITE_PROB {
                    ((gene.home_site * clade_len as f64) as usize).min(clade_len)
                } else {
                    rng.random_range(0..=clade_len)
                };
                inserts.push((g, pos, rng.random_bool(0.5)));
            }
        }
        if !self.universal.is_empty() {
            // Its own stream: without universal genes every other draw is unchanged.
            let mut rng = rng_for(self.params.seed, Stream::UniversalPlan, index as u64);
            for g in self.universal.clone() {
                let gene = &self.genes[g];
                if unit(&mut rng) < gene.base_freq {
                    let pos = ((gene.home_site * clade_len as f64) as usize).min(clade_len);
                    inserts.push((g, pos, rng.random_bool(0.5)));
                }
            }
        }
        inserts.sort_unstable_by_key(|&(g, pos, _)| (pos, g));
        let plasmids = crate::species::plan_plasmids(self, species, clade, &mut rng);
        Plan {
            species,
            clade,
            inserts,
            plasmids,
        }
    }

    /// Builds genome `index`: clade sequence + inserted genes, then its plasmids with their
    /// cargo, then strain substitutions, N runs and soft-masking.
    pub fn genome(&self, index: usize) -> Genome {
        let p = &self.params;
        let plan = self.plan(index);
        let clade = &self.species[plan.species].clades[plan.clade];
        let extra: usize = plan
            .inserts
            .iter()
            .map(|&(g, _, _)| self.genes[g].seq.len())
            .sum();
        let mut seq = Vec::with_capacity(clade.len() + extra);
        let mut placed = Vec::with_capacity(plan.inserts.len());
        self.splice(clade, &plan.inserts, &mut seq, &mut placed);
        let chromosome_len = seq.len();
        let mut replicons = Vec::with_capacity(plan.plasmids.len());
        for (plasmid, cargo) in &plan.plasmids {
            let start = seq.len();
            self.splice(
                &self.plasmids[*plasmid].backbone,
                cargo,
                &mut seq,
                &mut placed,
            );
            replicons.push((*plasmid, start, seq.len() - start));
        }

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

        let n_bases = add_n_runs(p, index, &mut seq, &placed);
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
            species: plan.species,
            clade: plan.clade,
            seq,
            chromosome_len,
            replicons,
            placed,
            n_bases,
        }
    }

    /// Appends `template` to `seq` with `inserts` (gene, position in `template`, reverse)
    /// spliced in at their positions (sorted), recording each copy in `placed`.
    fn splice(
        &self,
        template: &[u8],
        inserts: &[(usize, usize, bool)],
        seq: &mut Vec<u8>,
        placed: &mut Vec<Placed>,
    ) {
        let mut cursor = 0;
        for &(g, pos, reverse) in inserts {
            seq.extend_from_slice(&template[cursor..pos]);
            cursor = pos;
            let gene = &self.genes[g].seq;
            let start = seq.len();
            if reverse {
                revcomp_into(gene, seq);
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
        seq.extend_from_slice(&template[cursor..]);
    }

    /// Cuts a genome into contigs (in output order: longest first): the chromosome into
    /// skewed pieces, each plasmid into one contig. Boundaries never fall inside an
    /// inserted gene.
    pub fn contigs(&self, genome: &Genome) -> Vec<Contig> {
        let p = &self.params;
        let len = genome.chromosome_len;
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
        for &(_, start, len) in &genome.replicons {
            contigs.push(Contig {
                start,
                len,
                reverse: p.flip_contigs && rng.random_bool(0.5),
            });
        }
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
