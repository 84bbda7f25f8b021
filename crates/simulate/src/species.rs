//! The species model (`--species N`): several species, each with its own core genome, clades
//! and accessory genes, at Zipf-like abundances, plus plasmids that carry the real (mobile)
//! genes across species.
//!
//! Every species' core is drawn independently from the Markov chain, so a species' k-mers are
//! its own; only plasmids (and their cargo) are shared between species. Random streams are
//! those of the single-species model with the species number in the upper 32 bits of the
//! stream index, so species `s`, clade `c` and gene `g` do not depend on how many genomes are
//! made.

use std::collections::HashSet;

use rand::RngExt;
use rayon::prelude::*;

use crate::fasta::Record;
use crate::markov::Markov;
use crate::model::{
    accessory_gene, clean_real_gene, digits, log_uniform, make_clade, unique_name, zipf_weights,
    Collection, Gene, GeneKind, Inserts, Params, Span, Species,
};
use crate::seq::{rng_for, unit, SimRng, Stream};

/// A species' core length is the genome size times a factor drawn log-uniformly from this
/// range, so species differ in size as real ones do (2-6 Mbp).
pub const SPECIES_SIZE_FACTOR: (f64, f64) = (0.6, 1.5);
/// Plasmid backbone lengths, as fractions of the genome size (log-uniform), at least
/// [`PLASMID_MIN_LEN`].
pub const PLASMID_FRACTION: (f64, f64) = (0.003, 0.04);
/// Shortest plasmid backbone.
pub const PLASMID_MIN_LEN: usize = 1_000;
/// Each plasmid has one host species, and each further one with this probability.
pub const EXTRA_HOST_PROB: f64 = 0.4;
/// Each mobile gene rides on one plasmid, and on each further one with this probability.
pub const EXTRA_PLASMID_PROB: f64 = 0.3;
/// Probability that a plasmid copy carries a given gene of its cargo.
pub const CARGO_PROB: f64 = 0.8;

/// Options of the species model.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeciesParams {
    /// Number of species.
    pub count: usize,
    /// Zipf exponent of species abundances.
    pub skew: f64,
    /// Number of plasmids.
    pub plasmids: usize,
    /// Query genes per species and class (core, accessory, absent).
    pub query_genes: usize,
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
    fn presence_prob(&self, clade: usize) -> f64 {
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
    fn host(&self, species: usize) -> Option<&PlasmidHost> {
        self.hosts.iter().find(|h| h.species == species)
    }
}

fn species_params(params: &Params) -> &SpeciesParams {
    params
        .species
        .as_ref()
        .expect("the species model has species parameters")
}

/// Stream index of item `item` of species `species`.
fn stream(species: usize, item: usize) -> u64 {
    ((species as u64) << 32) | item as u64
}

/// Builds the species model's collection.
pub fn collection(params: Params, markov: &Markov, real_genes: Vec<Record>) -> Collection {
    let sp = species_params(&params).clone();
    let name_width = digits(sp.count.saturating_sub(1)).max(2);
    let cores: Vec<Vec<u8>> = (0..sp.count)
        .into_par_iter()
        .map(|s| {
            let mut rng = rng_for(params.seed, Stream::Species, s as u64);
            let (lo, hi) = SPECIES_SIZE_FACTOR;
            let factor = (lo.ln() + (hi.ln() - lo.ln()) * unit(&mut rng)).exp();
            let len = (params.genome_size as f64 * factor) as usize;
            markov.generate(len, &mut rng_for(params.seed, Stream::Core, s as u64))
        })
        .collect();
    let mut species: Vec<Species> = cores
        .into_iter()
        .enumerate()
        .map(|(s, core)| {
            let clades: Vec<Vec<u8>> = (0..params.clades)
                .into_par_iter()
                .map(|c| make_clade(&params, markov, &core, stream(s, c)))
                .collect();
            let name = format!("sp{s:0name_width$}");
            Species::new(name, core, clades, params.clade_skew)
        })
        .collect();
    let width = digits(params.accessory_genes.saturating_sub(1)).max(5);
    let mut genes = Vec::new();
    for (s, species) in species.iter_mut().enumerate() {
        let first = genes.len();
        genes.par_extend((0..params.accessory_genes).into_par_iter().map(|g| {
            let mut rng = rng_for(params.seed, Stream::AccessoryGene, stream(s, g));
            let name = format!("{}_acc_{g:0width$}", species.name);
            accessory_gene(&params, markov, name, s, &mut rng)
        }));
        species.genes = first..genes.len();
    }
    let mut names: HashSet<String> = genes.iter().map(|g| g.name.clone()).collect();
    let mut replaced = 0;
    let mobile_first = genes.len();
    for (j, rec) in real_genes.into_iter().enumerate() {
        let mut rng = rng_for(params.seed, Stream::RealGene, j as u64);
        let mut seq = rec.seq;
        replaced += clean_real_gene(&mut seq, &mut rng);
        genes.push(Gene {
            name: unique_name(rec.name, &mut names),
            seq,
            kind: GeneKind::Mobile,
            species: None,
            base_freq: 0.0,
            home_freq: 0.0,
            home_clade: 0,
            home_site: 0.0,
        });
    }
    let mut plasmids: Vec<Plasmid> = (0..sp.plasmids)
        .map(|p| make_plasmid(&params, markov, p))
        .collect();
    assign_cargo(&params, &genes, mobile_first, &mut plasmids);
    let weights = zipf_weights(sp.count, sp.skew);
    Collection::from_parts(params, species, weights, genes, plasmids, replaced)
}

/// Plasmid `p`: backbone, host species and their frequencies.
fn make_plasmid(params: &Params, markov: &Markov, p: usize) -> Plasmid {
    let sp = species_params(params);
    let mut rng = rng_for(params.seed, Stream::Plasmid, p as u64);
    let size = |f: f64| ((params.genome_size as f64 * f) as usize).max(PLASMID_MIN_LEN);
    let span = Span {
        min: size(PLASMID_FRACTION.0),
        max: size(PLASMID_FRACTION.1),
    };
    let len = log_uniform(span, &mut rng);
    let backbone = markov.generate(len, &mut rng);
    let mut order: Vec<usize> = (0..sp.count).collect();
    let mut hosts = Vec::new();
    loop {
        // Partial Fisher-Yates: the next host is uniform among the species left.
        let pick = rng.random_range(hosts.len()..order.len());
        order.swap(hosts.len(), pick);
        let base_freq = unit(&mut rng).powf(params.freq_skew);
        hosts.push(PlasmidHost {
            species: order[hosts.len()],
            base_freq,
            home_freq: base_freq.powf(1.0 - params.clade_affinity),
            home_clade: rng.random_range(0..params.clades),
        });
        if hosts.len() == order.len() || !rng.random_bool(EXTRA_HOST_PROB) {
            break;
        }
    }
    Plasmid {
        name: format!("plasmid_{p:03}"),
        backbone,
        hosts,
        cargo: Vec::new(),
    }
}

/// Puts every mobile gene (`genes[mobile_first..]`) on one or more plasmids.
fn assign_cargo(params: &Params, genes: &[Gene], mobile_first: usize, plasmids: &mut [Plasmid]) {
    if plasmids.is_empty() {
        return;
    }
    for (j, g) in (mobile_first..genes.len()).enumerate() {
        let mut rng = rng_for(params.seed, Stream::Cargo, j as u64);
        let mut chosen: Vec<usize> = Vec::new();
        loop {
            let p = rng.random_range(0..plasmids.len());
            if !chosen.contains(&p) {
                chosen.push(p);
                let site = rng.random_range(0..=plasmids[p].backbone.len());
                plasmids[p].cargo.push((g, site));
            }
            if chosen.len() == plasmids.len() || !rng.random_bool(EXTRA_PLASMID_PROB) {
                break;
            }
        }
    }
    for plasmid in plasmids.iter_mut() {
        plasmid.cargo.sort_unstable_by_key(|&(g, site)| (site, g));
    }
}

/// The plasmids a genome of `species`, `clade` carries, with the cargo of each copy. Draws
/// nothing when there are no plasmids (the single-species model).
pub fn plan_plasmids(
    coll: &Collection,
    species: usize,
    clade: usize,
    rng: &mut SimRng,
) -> Vec<(usize, Inserts)> {
    let mut carried = Vec::new();
    for (p, plasmid) in coll.plasmids.iter().enumerate() {
        let Some(host) = plasmid.host(species) else {
            continue;
        };
        if unit(rng) >= host.presence_prob(clade) {
            continue;
        }
        let mut cargo = Vec::new();
        for &(g, site) in &plasmid.cargo {
            if unit(rng) < CARGO_PROB {
                cargo.push((g, site, rng.random_bool(0.5)));
            }
        }
        carried.push((p, cargo));
    }
    carried
}

/// Expected fraction of all genomes carrying mobile gene `gene` (through any plasmid).
pub fn expected_mobile_frequency(coll: &Collection, gene: usize) -> f64 {
    let holders: Vec<&Plasmid> = coll
        .plasmids
        .iter()
        .filter(|p| p.cargo.iter().any(|&(g, _)| g == gene))
        .collect();
    let mut total = 0.0;
    for (s, species) in coll.species.iter().enumerate() {
        let mut within = 0.0;
        for (c, w) in species.clade_weights.iter().enumerate() {
            let absent: f64 = holders
                .iter()
                .filter_map(|p| p.host(s))
                .map(|h| 1.0 - h.presence_prob(c) * CARGO_PROB)
                .product();
            within += w * (1.0 - absent);
        }
        total += coll.species_weights[s] * within;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::small_params;

    fn species_params(count: usize) -> Params {
        let mut p = small_params();
        p.genome_size = 50_000;
        p.clades = 4;
        p.accessory_genes = 30;
        p.species = Some(SpeciesParams {
            count,
            skew: 1.0,
            plasmids: 6,
            query_genes: 3,
            truth_k: 31,
        });
        p
    }

    fn mobile(n: usize) -> Vec<Record> {
        (0..n)
            .map(|i| Record {
                name: format!("amr{i}"),
                seq: crate::seq::rng_for(99, Stream::Core, i as u64)
                    .random_iter::<u8>()
                    .take(800)
                    .map(|b| b"ACGT"[(b % 4) as usize])
                    .collect(),
            })
            .collect()
    }

    #[test]
    fn species_are_distinct_skewed_and_sized() {
        let c = Collection::new(species_params(5), &Markov::iid(0.5), mobile(4));
        assert_eq!(c.species.len(), 5);
        let (lo, hi) = SPECIES_SIZE_FACTOR;
        for s in &c.species {
            let f = s.core.len() as f64 / 50_000.0;
            assert!((lo - 0.01..=hi + 0.01).contains(&f), "{f}");
            assert_eq!(s.clades.len(), 4);
            assert_eq!(s.genes.len(), 30);
        }
        // Distinct cores: two species share almost no 16-mers.
        let kmers = |s: &[u8]| s.windows(16).map(|w| w.to_vec()).collect::<HashSet<_>>();
        let a = kmers(&c.species[0].core);
        let shared = c.species[1]
            .core
            .windows(16)
            .filter(|w| a.contains(*w))
            .count();
        assert!(shared < 20, "{shared}");
        let mut sizes = [0usize; 5];
        for i in 0..3000 {
            sizes[c.plan(i).species] += 1;
        }
        assert!(sizes[0] > 3 * sizes[4], "{sizes:?}");
        assert!(sizes.iter().all(|&n| n > 0));
        assert!(c.genes[0].name.starts_with("sp00_acc_"));
    }

    #[test]
    fn mobile_genes_ride_plasmids_across_species() {
        let c = Collection::new(species_params(4), &Markov::iid(0.5), mobile(6));
        let mobile: Vec<usize> = (0..c.genes.len())
            .filter(|&g| c.genes[g].kind == GeneKind::Mobile)
            .collect();
        assert_eq!(mobile.len(), 6);
        for &g in &mobile {
            assert!(c.plasmids.iter().any(|p| p.cargo.iter().any(|x| x.0 == g)));
        }
        let n = 4000;
        let mut carriers_by_species = vec![HashSet::new(); mobile.len()];
        let mut carriers = vec![0usize; c.genes.len()];
        for i in 0..n {
            let genome = c.genome(i);
            let chromosome = genome.chromosome_len;
            for pl in &genome.placed {
                carriers[pl.gene] += 1;
                if let Some(m) = mobile.iter().position(|&g| g == pl.gene) {
                    assert!(pl.start >= chromosome, "mobile genes sit on plasmids");
                    carriers_by_species[m].insert(genome.species);
                } else {
                    assert!(pl.start + pl.len <= chromosome);
                    assert_eq!(c.genes[pl.gene].species, Some(genome.species));
                }
            }
            let total: usize = genome.replicons.iter().map(|r| r.2).sum();
            assert_eq!(genome.seq.len(), chromosome + total);
        }
        // Some mobile gene crosses species boundaries.
        assert!(carriers_by_species.iter().any(|s| s.len() >= 2));
        // Observed frequencies follow the model.
        for (g, &count) in carriers.iter().enumerate() {
            let e = c.expected_frequency(g);
            let o = count as f64 / n as f64;
            let sd = (e * (1.0 - e) / n as f64).sqrt();
            assert!((o - e).abs() <= 6.0 * sd + 0.01, "gene {g}: {o} vs {e}");
        }
    }

    #[test]
    fn plasmids_become_whole_contigs() {
        let c = Collection::new(species_params(3), &Markov::iid(0.5), mobile(3));
        let mut seen = 0;
        for i in 0..200 {
            let genome = c.genome(i);
            let contigs = c.contigs(&genome);
            for &(_, start, len) in &genome.replicons {
                assert!(contigs.iter().any(|x| x.start == start && x.len == len));
                seen += 1;
            }
            assert!(contigs
                .iter()
                .all(|x| x.start + x.len <= genome.chromosome_len
                    || x.start >= genome.chromosome_len));
            assert_eq!(
                contigs.iter().map(|x| x.len).sum::<usize>(),
                genome.seq.len()
            );
        }
        assert!(seen > 0);
    }
}
