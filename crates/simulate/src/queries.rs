//! Query sets of the species model, one FASTA file per class, with known answers:
//! - `core`: stretches of a species' core genome, taken from one of its clades (a gene from a
//!   reference strain); every genome of the species shares most of its k-mers;
//! - `accessory`: genes of a species' accessory pool (most of them rare, clade-correlated);
//! - `mobile`: the real genes riding plasmids, shared across species;
//! - `absent`: genes drawn from the same Markov chain and never inserted;
//! - `universal` (with `--universal-genes`): the genes in nearly every genome of every species.
//!
//! The core, accessory and absent classes hold `--query-genes` queries for each species of
//! `--query-species` (all by default): a species' queries are the same whichever other
//! species are chosen. Queries depend only on the seed and the model, not on the number of
//! genomes.

use rand::RngExt;

use crate::markov::Markov;
use crate::model::{log_uniform, Collection, GeneKind};
use crate::seq::{rng_for, unit, Stream};

/// Query classes, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryClass {
    Core,
    Accessory,
    Mobile,
    Absent,
    Universal,
}

impl QueryClass {
    pub const ALL: [QueryClass; 5] = [
        QueryClass::Core,
        QueryClass::Accessory,
        QueryClass::Mobile,
        QueryClass::Absent,
        QueryClass::Universal,
    ];

    /// The classes of a collection: `universal` only when it has universal genes.
    pub fn of(coll: &Collection) -> Vec<QueryClass> {
        QueryClass::ALL
            .into_iter()
            .filter(|&c| c != QueryClass::Universal || !coll.universal.is_empty())
            .collect()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            QueryClass::Core => "core",
            QueryClass::Accessory => "accessory",
            QueryClass::Mobile => "mobile",
            QueryClass::Absent => "absent",
            QueryClass::Universal => "universal",
        }
    }

    /// The FASTA file of the class.
    pub fn file_name(self) -> String {
        format!("queries_{}.fa", self.as_str())
    }
}

/// One query.
pub struct Query {
    pub name: String,
    pub class: QueryClass,
    /// `key=value` words for the FASTA header.
    pub description: String,
    pub seq: Vec<u8>,
}

/// Stream index of query `q` of `class` for species `species`.
fn stream(class: QueryClass, species: usize, q: usize) -> u64 {
    ((class as u64) << 60) | ((species as u64) << 32) | q as u64
}

/// All queries of the species model, by class then species: core and accessory queries of
/// the species `species` (numbers, ascending), the mobile genes, `per_class` absent queries
/// per species of `species`, then the universal genes.
pub fn query_sets(
    coll: &Collection,
    markov: &Markov,
    per_class: usize,
    species: &[usize],
) -> Vec<Query> {
    let mut queries = Vec::new();
    for &s in species {
        for q in 0..per_class {
            queries.push(core_query(coll, s, q));
        }
    }
    for &s in species {
        queries.extend(accessory_queries(coll, s, per_class));
    }
    for (g, gene) in coll.genes.iter().enumerate() {
        if gene.kind == GeneKind::Mobile {
            let plasmids: Vec<&str> = coll
                .plasmids
                .iter()
                .filter(|p| p.cargo.iter().any(|c| c.0 == g))
                .map(|p| p.name.as_str())
                .collect();
            queries.push(Query {
                name: gene.name.clone(),
                class: QueryClass::Mobile,
                description: format!(
                    "plasmids={} expected_freq={:.6}",
                    plasmids.join(","),
                    coll.expected_frequency(g)
                ),
                seq: gene.seq.clone(),
            });
        }
    }
    let absent = per_class * species.len();
    let width = crate::model::digits(absent.saturating_sub(1)).max(4);
    for q in 0..absent {
        let mut rng = rng_for(
            coll.params.seed,
            Stream::Query,
            stream(QueryClass::Absent, 0, q),
        );
        let len = log_uniform(coll.params.gene_length, &mut rng);
        queries.push(Query {
            name: format!("absent_q{q:0width$}"),
            class: QueryClass::Absent,
            description: String::new(),
            seq: markov.generate(len, &mut rng),
        });
    }
    for g in coll.universal.clone() {
        let gene = &coll.genes[g];
        queries.push(Query {
            name: gene.name.clone(),
            class: QueryClass::Universal,
            description: format!("expected_freq={:.6}", gene.base_freq),
            seq: gene.seq.clone(),
        });
    }
    queries
}

/// Query `q` of species `s`'s core: a stretch of a clade chosen by clade weight.
fn core_query(coll: &Collection, s: usize, q: usize) -> Query {
    let species = &coll.species[s];
    let mut rng = rng_for(
        coll.params.seed,
        Stream::Query,
        stream(QueryClass::Core, s, q),
    );
    let clade = species.clade_of(unit(&mut rng));
    let sequence = &species.clades[clade];
    let len = log_uniform(coll.params.gene_length, &mut rng).min(sequence.len());
    let start = rng.random_range(0..=sequence.len() - len);
    Query {
        name: format!("core_{}_q{q:03}", species.name),
        class: QueryClass::Core,
        description: format!(
            "species={} clade={} start={start}",
            species.name,
            species.clade_label(clade)
        ),
        seq: sequence[start..start + len].to_vec(),
    }
}

/// `per_class` distinct genes of species `s`'s accessory pool, uniformly chosen.
fn accessory_queries(coll: &Collection, s: usize, per_class: usize) -> Vec<Query> {
    let species = &coll.species[s];
    let mut pool: Vec<usize> = species.genes.clone().collect();
    let mut rng = rng_for(
        coll.params.seed,
        Stream::Query,
        stream(QueryClass::Accessory, s, 0),
    );
    let take = per_class.min(pool.len());
    for i in 0..take {
        let pick = rng.random_range(i..pool.len());
        pool.swap(i, pick);
    }
    pool[..take]
        .iter()
        .map(|&g| {
            let gene = &coll.genes[g];
            Query {
                name: gene.name.clone(),
                class: QueryClass::Accessory,
                description: format!(
                    "species={} home_clade={} expected_freq={:.6}",
                    species.name,
                    species.clade_label(gene.home_clade),
                    coll.expected_frequency(g)
                ),
                seq: gene.seq.clone(),
            }
        })
        .collect()
}
