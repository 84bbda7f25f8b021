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
    Collection, Gene, GeneKind, Inserts, Params, Plasmid, PlasmidHost, Span, Species,
    SpeciesParams,
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
/// A universal gene is missing from a genome with a probability drawn uniformly below this
/// (per gene), as rRNA operons are sometimes missing from draft assemblies: every universal
/// gene is in 90-100 % of the genomes of every species.
pub const UNIVERSAL_MISSING_MAX: f64 = 0.1;

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
    let weights = zipf_weights(sp.count, sp.skew);
    let host_weights: Vec<f64> = if sp.plasmid_host_bias > 0.0 {
        weights
            .iter()
            .map(|w| w.powf(sp.plasmid_host_bias))
            .collect()
    } else {
        Vec::new()
    };
    let mut plasmids: Vec<Plasmid> = (0..sp.plasmids)
        .map(|p| make_plasmid(&params, markov, &host_weights, p))
        .collect();
    assign_cargo(&params, &genes, mobile_first, &mut plasmids);
    for (p, plasmid) in plasmids.iter().enumerate() {
        for host in &plasmid.hosts {
            species[host.species].plasmids.push(p);
        }
    }
    let universal_first = genes.len();
    let width = digits(sp.universal_genes.saturating_sub(1)).max(2);
    genes.extend((0..sp.universal_genes).map(|u| {
        let mut rng = rng_for(params.seed, Stream::UniversalGene, u as u64);
        let presence = 1.0 - UNIVERSAL_MISSING_MAX * unit(&mut rng);
        let home_site = unit(&mut rng);
        let len = log_uniform(params.gene_length, &mut rng);
        Gene {
            name: unique_name(format!("universal_{u:0width$}"), &mut names),
            seq: markov.generate(len, &mut rng),
            kind: GeneKind::Universal,
            species: None,
            base_freq: presence,
            home_freq: presence,
            home_clade: 0,
            home_site,
        }
    }));
    let mut coll = Collection::from_parts(params, species, weights, genes, plasmids, replaced);
    coll.universal = universal_first..coll.genes.len();
    coll
}

/// Species ranks (0 = the most abundant) the core, accessory and absent queries are drawn
/// from: `n` of `count`, the largest first, then log-spaced down to the smallest (rank
/// `count - 1`), so the set holds the head, mid-ranked species and the tail. `n = count` is
/// every species.
pub fn query_species(count: usize, n: usize) -> Vec<usize> {
    let n = n.clamp(1, count);
    if n == 1 {
        return vec![0];
    }
    let mut ranks: Vec<usize> = Vec::with_capacity(n);
    for j in 0..n {
        let ideal = (count as f64).powf(j as f64 / (n - 1) as f64).round() as usize;
        let lowest = ranks.last().map_or(0, |&r| r + 1);
        let highest = count - (n - j);
        ranks.push(ideal.saturating_sub(1).clamp(lowest, highest));
    }
    ranks
}

/// Plasmid `p`: backbone, host species and their frequencies. Hosts are uniform among the
/// species, or drawn by `host_weights` (without replacement) when these are given.
fn make_plasmid(params: &Params, markov: &Markov, host_weights: &[f64], p: usize) -> Plasmid {
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
        let pick = if host_weights.is_empty() {
            // Partial Fisher-Yates: the next host is uniform among the species left.
            rng.random_range(hosts.len()..order.len())
        } else {
            weighted_pick(host_weights, &order[hosts.len()..], unit(&mut rng)) + hosts.len()
        };
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

/// The position in `left` (species numbers) that uniform draw `u` picks with probability
/// proportional to `weights[species]`.
fn weighted_pick(weights: &[f64], left: &[usize], u: f64) -> usize {
    let total: f64 = left.iter().map(|&s| weights[s]).sum();
    let mut target = u * total;
    for (i, &s) in left.iter().enumerate() {
        target -= weights[s];
        if target < 0.0 {
            return i;
        }
    }
    // Rounding: the last species with a positive weight.
    left.iter().rposition(|&s| weights[s] > 0.0).unwrap_or(0)
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
    // The species' plasmids in plasmid order: the same draws as scanning every plasmid.
    for &p in &coll.species[species].plasmids {
        let plasmid = &coll.plasmids[p];
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
    let mut hosts: Vec<usize> = holders
        .iter()
        .flat_map(|p| p.hosts.iter().map(|h| h.species))
        .collect();
    hosts.sort_unstable();
    hosts.dedup();
    let mut total = 0.0;
    for s in hosts {
        let species = &coll.species[s];
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
            plasmid_host_bias: 0.0,
            universal_genes: 0,
            query_genes: 3,
            query_species: count,
            truth_k: 31,
        });
        p
    }

    fn with_species(mut p: Params, f: impl FnOnce(&mut SpeciesParams)) -> Params {
        f(p.species.as_mut().unwrap());
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

    #[test]
    fn query_species_span_the_ranks() {
        assert_eq!(query_species(7, 7), (0..7).collect::<Vec<_>>());
        assert_eq!(query_species(2300, 2300), (0..2300).collect::<Vec<_>>());
        assert_eq!(query_species(5, 1), [0]);
        assert_eq!(query_species(5, 2), [0, 4]);
        let ranks = query_species(2300, 24);
        assert_eq!(ranks.len(), 24);
        assert!(ranks.windows(2).all(|w| w[0] < w[1]));
        assert_eq!((ranks[0], ranks[1], ranks[23]), (0, 1, 2299));
        // Head, middle and tail.
        assert!(ranks.iter().filter(|&&r| r < 20).count() >= 5, "{ranks:?}");
        assert!(ranks.iter().any(|&r| (100..500).contains(&r)), "{ranks:?}");
        assert!(
            ranks.iter().filter(|&&r| r >= 1000).count() >= 3,
            "{ranks:?}"
        );
        for (count, n) in [(10, 9), (3, 3), (1000, 40), (2, 1)] {
            let r = query_species(count, n);
            assert_eq!(r.len(), n);
            assert!(r.windows(2).all(|w| w[0] < w[1]) && r[n - 1] < count);
        }
    }

    #[test]
    fn universal_genes_are_in_nearly_every_genome() {
        let p = with_species(species_params(4), |sp| sp.universal_genes = 3);
        let c = Collection::new(p, &Markov::iid(0.5), mobile(2));
        assert_eq!(c.universal.len(), 3);
        assert_eq!(c.universal.end, c.genes.len());
        assert_eq!(c.genes[c.universal.start].name, "universal_00");
        let n = 600;
        let mut carriers = [0usize; 3];
        let mut species = HashSet::new();
        for i in 0..n {
            let genome = c.genome(i);
            for pl in &genome.placed {
                if c.universal.contains(&pl.gene) {
                    assert!(pl.start + pl.len <= genome.chromosome_len);
                    carriers[pl.gene - c.universal.start] += 1;
                    species.insert(genome.species);
                }
            }
        }
        assert_eq!(species.len(), 4);
        for (u, &k) in carriers.iter().enumerate() {
            let gene = &c.genes[c.universal.start + u];
            assert_eq!(gene.kind, GeneKind::Universal);
            let e = c.expected_frequency(c.universal.start + u);
            assert!((1.0 - UNIVERSAL_MISSING_MAX..=1.0).contains(&e));
            let o = k as f64 / n as f64;
            assert!((o - e).abs() < 0.05, "{o} vs {e}");
        }
        // Species, clades, accessory genes and plasmids of every genome stay those of the
        // collection without universal genes.
        let plain = Collection::new(species_params(4), &Markov::iid(0.5), mobile(2));
        for i in 0..100 {
            let (a, b) = (plain.plan(i), c.plan(i));
            assert_eq!((a.species, a.clade), (b.species, b.clade));
            let genes = |plan: &crate::model::Plan| {
                let mut g: Vec<usize> = plan
                    .inserts
                    .iter()
                    .map(|x| x.0)
                    .filter(|g| !c.universal.contains(g))
                    .collect();
                g.sort_unstable();
                g
            };
            assert_eq!(genes(&a), genes(&b));
            assert_eq!(a.plasmids, b.plasmids);
        }
    }

    #[test]
    fn plasmid_hosts_follow_abundance_with_a_bias() {
        let first_hosts = |bias: f64| {
            let p = with_species(species_params(40), |sp| {
                sp.plasmids = 400;
                sp.plasmid_host_bias = bias;
            });
            let c = Collection::new(p, &Markov::iid(0.5), mobile(1));
            for (s, species) in c.species.iter().enumerate() {
                let hosted: Vec<usize> = (0..c.plasmids.len())
                    .filter(|&p| c.plasmids[p].host(s).is_some())
                    .collect();
                assert_eq!(species.plasmids, hosted);
            }
            let mut top5 = 0;
            for plasmid in &c.plasmids {
                let mut hosts: Vec<usize> = plasmid.hosts.iter().map(|h| h.species).collect();
                top5 += (hosts[0] < 5) as usize;
                hosts.sort_unstable();
                hosts.dedup();
                assert_eq!(hosts.len(), plasmid.hosts.len());
            }
            top5 as f64 / c.plasmids.len() as f64
        };
        // Uniform: 5 of 40 species; weight^1 with Zipf skew 1: about 53 %.
        let uniform = first_hosts(0.0);
        assert!((0.07..0.19).contains(&uniform), "{uniform}");
        let biased = first_hosts(1.0);
        assert!((0.45..0.62).contains(&biased), "{biased}");
    }
}
