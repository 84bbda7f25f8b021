//! Writing a collection: output directory handling, atomic files, parallel
//! genome generation, progress, truth/genes/collection files.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use flate2::write::GzEncoder;
use flate2::Compression;
use rayon::prelude::*;
use serde_json::json;

use crate::cli::Args;
use crate::fasta::{push_wrapped, read_fasta};
use crate::markov::Markov;
use crate::model::{digits, Collection, GeneKind, Params, SpeciesParams};
use crate::queries::{query_sets, Query, QueryClass};
use crate::truth::TruthCounter;

/// What a finished run produced.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub genomes: usize,
    pub contigs: u64,
    pub bases: u64,
    pub fasta_bytes: u64,
    pub written_bytes: u64,
    pub seconds: f64,
    /// Species model: (fraction of the genomes in the 20 largest species, species with
    /// genomes, species).
    pub species_top20: Option<(f64, usize, usize)>,
}

/// Is `name` a file this tool writes (and may replace with `--force`)?
fn is_our_file(name: &str) -> bool {
    let base = name.strip_prefix('.').unwrap_or(name);
    let base = base.split(".tmp.").next().unwrap_or(base);
    matches!(
        base,
        "truth.tsv"
            | "genes.fa"
            | "genomes.tsv"
            | "collection.json"
            | "metadata.tsv"
            | "queries_truth.tsv"
            | "queries_core.fa"
            | "queries_accessory.fa"
            | "queries_mobile.fa"
            | "queries_absent.fa"
            | "queries_universal.fa"
    ) || base
        .strip_prefix("genome_")
        .and_then(|r| r.strip_suffix(".fa.gz").or_else(|| r.strip_suffix(".fa")))
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Creates the output directory, or checks it is empty (or cleans our own
/// files from it with `force`).
fn prepare_dir(dir: &Path, force: bool) -> Result<()> {
    if dir.exists() {
        if !dir.is_dir() {
            bail!(
                "output path {} exists and is not a directory",
                dir.display()
            );
        }
        let entries: Vec<_> = fs::read_dir(dir)
            .with_context(|| format!("cannot list output directory {}", dir.display()))?
            .collect::<Result<_, _>>()
            .with_context(|| format!("cannot list output directory {}", dir.display()))?;
        if !entries.is_empty() {
            if !force {
                bail!(
                    "output directory {} is not empty (use --force to overwrite)",
                    dir.display()
                );
            }
            // Remove the completion marker first, then the rest of our files.
            let marker = dir.join("collection.json");
            if marker.exists() {
                fs::remove_file(&marker)
                    .with_context(|| format!("cannot remove {}", marker.display()))?;
            }
            for e in entries {
                let name = e.file_name();
                if is_our_file(&name.to_string_lossy()) && e.path().is_file() {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
    } else {
        fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    }
    Ok(())
}

/// A temporary name next to `path`: `.NAME.tmp.PID`.
fn tmp_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.tmp.{}", std::process::id()))
}

/// Writes `path` through a temporary file renamed into place on success, so
/// that an interrupted run never leaves a partial file under the final name.
fn write_atomic(path: &Path, f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<u64> {
    let tmp = tmp_path(path);
    let result = (|| {
        let file = File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        f(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        let len = file.metadata()?.len();
        drop(file);
        fs::rename(&tmp, path)?;
        Ok::<u64, std::io::Error>(len)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        anyhow::Error::new(e).context(format!("cannot write {}", path.display()))
    })
}

/// Writes the bytes, gzip level 1 if `gzip`.
fn write_maybe_gz(path: &Path, data: &[u8], gzip: bool) -> Result<u64> {
    write_atomic(path, |w| {
        if gzip {
            let mut e = GzEncoder::new(w, Compression::new(1));
            e.write_all(data)?;
            e.finish()?;
            Ok(())
        } else {
            w.write_all(data)
        }
    })
}

struct Progress {
    genomes: AtomicU64,
    bytes: AtomicU64,
    done: AtomicBool,
}

fn progress_loop(p: &Progress, total: usize, start: Instant) {
    let tty = std::io::stderr().is_terminal();
    let every = if tty {
        Duration::from_millis(500)
    } else {
        Duration::from_secs(10)
    };
    let mut last = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let finished = p.done.load(Ordering::Relaxed);
        if !finished && last.elapsed() < every {
            continue;
        }
        last = Instant::now();
        let g = p.genomes.load(Ordering::Relaxed);
        let mb = p.bytes.load(Ordering::Relaxed) as f64 / 1e6;
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        let eta = if g > 0 {
            format!("{:.0}s", secs * (total as f64 - g as f64) / g as f64)
        } else {
            "?".into()
        };
        let line = format!(
            "genomes {g}/{total}  {mb:.1} MB  {:.1} MB/s  elapsed {secs:.0}s  eta {eta}",
            mb / secs
        );
        if tty {
            eprint!("\r\x1b[2K{line}");
        } else {
            eprintln!("{line}");
        }
        if finished {
            if tty {
                eprintln!();
            }
            return;
        }
    }
}

/// Per-genome result kept by the writer loop.
struct GenomeOut {
    truth: String,
    row: String,
    /// metadata.tsv row (species model).
    metadata: String,
    /// queries_truth.tsv rows (species model).
    query_truth: String,
    species: usize,
    clade: usize,
    genes: Vec<usize>,
    contigs: u64,
    bases: u64,
    n_bases: u64,
    fasta_bytes: u64,
    written_bytes: u64,
}

/// Tab-separated tables written row by row under temporary names and renamed when complete.
struct Tables {
    files: Vec<(PathBuf, PathBuf, BufWriter<File>)>,
}

impl Tables {
    /// Opens `(file name, header line)` tables in `dir`.
    fn create(dir: &Path, tables: &[(&str, &str)]) -> Result<Tables> {
        let mut files = Vec::new();
        for (name, header) in tables {
            let path = dir.join(name);
            let tmp = tmp_path(&path);
            let file =
                File::create(&tmp).with_context(|| format!("cannot write {}", path.display()));
            let mut file = match file {
                Ok(f) => BufWriter::with_capacity(1 << 20, f),
                Err(e) => {
                    Tables { files }.discard();
                    return Err(e);
                }
            };
            file.write_all(header.as_bytes())?;
            files.push((path, tmp, file));
        }
        Ok(Tables { files })
    }

    /// Appends `rows[i]` to table `i`.
    fn append(&mut self, rows: &[&str]) -> Result<()> {
        for ((path, _, w), row) in self.files.iter_mut().zip(rows) {
            w.write_all(row.as_bytes())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// Flushes every table and moves it into place.
    fn commit(self) -> Result<()> {
        let mut pending = Vec::new();
        for (path, tmp, w) in self.files {
            pending.push((path.clone(), tmp.clone()));
            if let Err(e) = w.into_inner().map_err(|e| e.into_error()) {
                for (_, tmp) in &pending {
                    let _ = fs::remove_file(tmp);
                }
                return Err(
                    anyhow::Error::new(e).context(format!("cannot write {}", path.display()))
                );
            }
        }
        for (path, tmp) in &pending {
            fs::rename(tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// Removes the temporary files.
    fn discard(self) {
        for (_, tmp, w) in self.files {
            drop(w);
            let _ = fs::remove_file(tmp);
        }
    }
}

/// The queries of the species model and their truth counter.
struct QuerySets {
    queries: Vec<Query>,
    /// The species the core, accessory and absent queries come from.
    species: Vec<usize>,
    counter: TruthCounter,
}

/// Generates genome `i` and writes its FASTA; returns its table rows and counts.
fn genome_out(
    args: &Args,
    coll: &Collection,
    queries: Option<&QuerySets>,
    name: &str,
    i: usize,
) -> Result<GenomeOut> {
    let ext = if args.gzip { "fa.gz" } else { "fa" };
    let genome = coll.genome(i);
    let contigs = coll.contigs(&genome);
    let mut fasta = Vec::new();
    let mut truth = String::new();
    coll.render(&genome, &contigs, name, &mut fasta, &mut truth);
    let written = write_maybe_gz(&args.out.join(format!("{name}.{ext}")), &fasta, args.gzip)?;
    let species = &coll.species[genome.species];
    let (row, metadata) = if coll.multi_species() {
        let clade = species.clade_label(genome.clade);
        (
            format!(
                "{name}\t{}\t{clade}\t{}\t{}\t{}\t{}\t{}\n",
                species.name,
                genome.seq.len(),
                contigs.len(),
                genome.placed.len(),
                genome.replicons.len(),
                genome.n_bases
            ),
            format!("{name}\t{}\t{clade}\n", species.name),
        )
    } else {
        let row = format!(
            "{name}\t{}\t{}\t{}\t{}\t{}\n",
            genome.clade,
            genome.seq.len(),
            contigs.len(),
            genome.placed.len(),
            genome.n_bases
        );
        (row, String::new())
    };
    let mut query_truth = String::new();
    if let Some(sets) = queries {
        for (q, found) in sets.counter.count(&genome.seq, &contigs) {
            let query = &sets.queries[q];
            let _ = writeln!(
                query_truth,
                "{}\t{}\t{name}\t{found}\t{}",
                query.name,
                query.class.as_str(),
                sets.counter.kmers_total(q)
            );
        }
    }
    Ok(GenomeOut {
        row,
        metadata,
        query_truth,
        truth,
        species: genome.species,
        clade: genome.clade,
        genes: genome.placed.iter().map(|p| p.gene).collect(),
        contigs: contigs.len() as u64,
        bases: genome.seq.len() as u64,
        n_bases: genome.n_bases as u64,
        fasta_bytes: fasta.len() as u64,
        written_bytes: written,
    })
}

/// What the genome loop counted.
struct Counts {
    carriers: Vec<u64>,
    /// Per species, genomes per clade.
    clade_sizes: Vec<Vec<u64>>,
    n_bases: u64,
    gene_copies: u64,
}

/// The tables of a run: always truth.tsv and genomes.tsv; metadata.tsv and queries_truth.tsv
/// with the species model.
fn table_layout(multi_species: bool) -> Vec<(&'static str, &'static str)> {
    let mut tables = vec![(
        "truth.tsv",
        "genome\tgene\tcontig\tstart\tstrand\tlength\tmismatches\n",
    )];
    if multi_species {
        tables.push((
            "genomes.tsv",
            "genome\tspecies\tclade\tlength\tcontigs\tgenes\tplasmids\tn_bases\n",
        ));
        tables.push(("metadata.tsv", "document\tspecies\tclade\n"));
        tables.push((
            "queries_truth.tsv",
            "query\tclass\tgenome\tkmers_found\tkmers_total\n",
        ));
    } else {
        tables.push((
            "genomes.tsv",
            "genome\tclade\tlength\tcontigs\tgenes\tn_bases\n",
        ));
    }
    tables
}

/// Generates and writes every genome in bounded parallel batches, in genome order.
fn write_genomes(
    args: &Args,
    coll: &Collection,
    queries: Option<&QuerySets>,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    summary: &mut Summary,
) -> Result<Counts> {
    let n = args.genomes;
    let width = digits(n - 1).max(5);
    let mut counts = Counts {
        carriers: vec![0; coll.genes.len()],
        clade_sizes: coll
            .species
            .iter()
            .map(|s| vec![0; s.clades.len()])
            .collect(),
        n_bases: 0,
        gene_copies: 0,
    };
    let mut tables = Tables::create(&args.out, &table_layout(coll.multi_species()))?;
    // Bounded batches keep memory independent of the genome count while the output order
    // stays fixed.
    let batch = (pool.current_num_threads() * 16).max(32);
    let result = (|| {
        for lo in (0..n).step_by(batch) {
            let hi = (lo + batch).min(n);
            let outs: Vec<Result<GenomeOut>> = pool.install(|| {
                (lo..hi)
                    .into_par_iter()
                    .map(|i| {
                        let out =
                            genome_out(args, coll, queries, &format!("genome_{i:0width$}"), i);
                        progress.genomes.fetch_add(1, Ordering::Relaxed);
                        if let Ok(o) = &out {
                            progress.bytes.fetch_add(o.fasta_bytes, Ordering::Relaxed);
                        }
                        out
                    })
                    .collect()
            });
            for out in outs {
                let out = out?;
                tables.append(&[&out.truth, &out.row, &out.metadata, &out.query_truth])?;
                for g in out.genes {
                    counts.carriers[g] += 1;
                    counts.gene_copies += 1;
                }
                counts.clade_sizes[out.species][out.clade] += 1;
                summary.contigs += out.contigs;
                summary.bases += out.bases;
                summary.fasta_bytes += out.fasta_bytes;
                summary.written_bytes += out.written_bytes;
                counts.n_bases += out.n_bases;
            }
        }
        Ok(())
    })();
    match result {
        Ok(()) => tables.commit()?,
        Err(e) => {
            tables.discard();
            return Err(e);
        }
    }
    Ok(counts)
}

/// Runs the whole simulation described by `args`.
pub fn run(args: &Args) -> Result<Summary> {
    let params = args.params()?;
    let start = Instant::now();
    let threads = if args.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        args.threads
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;

    // Read inputs before touching the output directory.
    let markov = match &args.train {
        Some(path) => {
            let recs = read_fasta(path, "training")?;
            Markov::train(recs.iter().map(|r| r.seq.as_slice()), args.markov_order)
                .with_context(|| format!("training file {}", path.display()))?
        }
        None => Markov::iid(args.gc),
    };
    let real_genes = match &args.genes {
        Some(path) => read_fasta(path, "genes")?,
        None => Vec::new(),
    };
    if let Some(r) = real_genes.iter().find(|r| r.seq.len() < 31) {
        bail!(
            "gene {} in {} is shorter than 31 bases",
            r.name,
            args.genes
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string())
        );
    }
    prepare_dir(&args.out, args.force)?;

    let coll = pool.install(|| Collection::new(params.clone(), &markov, real_genes));
    if coll.replaced_real_gene_chars > 0 && !args.quiet {
        eprintln!(
            "note: replaced {} non-ACGT characters in --genes sequences with random bases",
            coll.replaced_real_gene_chars
        );
    }
    let queries = match &params.species {
        Some(sp) => Some(write_query_sets(args, &coll, &markov, sp)?),
        None => None,
    };

    let n = args.genomes;
    let progress = Progress {
        genomes: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
        done: AtomicBool::new(false),
    };
    let mut summary = Summary {
        genomes: n,
        ..Summary::default()
    };
    let counts = std::thread::scope(|s| {
        if !args.quiet {
            s.spawn(|| progress_loop(&progress, n, start));
        }
        let r = write_genomes(
            args,
            &coll,
            queries.as_ref(),
            &pool,
            &progress,
            &mut summary,
        );
        progress.done.store(true, Ordering::Relaxed);
        r
    })?;

    if coll.multi_species() {
        let (share, with_genomes) = top20_share(&species_sizes(&counts));
        summary.species_top20 = Some((share, with_genomes, coll.species.len()));
    }
    write_atomic(&args.out.join("genes.fa"), |w| {
        w.write_all(&gene_pool_fasta(&coll, &counts.carriers))
    })?;
    let doc = collection_json(
        args,
        &params,
        &markov,
        &coll,
        &counts,
        queries.as_ref(),
        &summary,
    );
    // Written last: its presence marks a complete collection.
    write_atomic(&args.out.join("collection.json"), |w| {
        serde_json::to_writer_pretty(&mut *w, &doc)?;
        w.write_all(b"\n")
    })?;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// Generates the query sets of the species model and writes one FASTA file per class.
fn write_query_sets(
    args: &Args,
    coll: &Collection,
    markov: &Markov,
    sp: &SpeciesParams,
) -> Result<QuerySets> {
    let species = crate::species::query_species(sp.count, sp.query_species);
    let queries = query_sets(coll, markov, sp.query_genes, &species);
    for class in QueryClass::of(coll) {
        let mut fasta = Vec::new();
        for q in queries.iter().filter(|q| q.class == class) {
            let mut header = format!(
                ">{} class={} length={}",
                q.name,
                class.as_str(),
                q.seq.len()
            );
            if !q.description.is_empty() {
                header.push(' ');
                header.push_str(&q.description);
            }
            header.push('\n');
            fasta.extend_from_slice(header.as_bytes());
            push_wrapped(&mut fasta, &q.seq);
        }
        write_atomic(&args.out.join(class.file_name()), |w| w.write_all(&fasta))?;
    }
    let counter = TruthCounter::new(sp.truth_k, queries.iter().map(|q| q.seq.as_slice()));
    Ok(QuerySets {
        queries,
        species,
        counter,
    })
}

/// genes.fa: the gene pool, with its model parameters and observed carrier counts.
fn gene_pool_fasta(coll: &Collection, carriers: &[u64]) -> Vec<u8> {
    let mut genes_fa = Vec::new();
    for (g, gene) in coll.genes.iter().enumerate() {
        let species = match gene.species {
            Some(s) if coll.multi_species() => format!(" species={}", coll.species[s].name),
            _ => String::new(),
        };
        genes_fa.extend_from_slice(
            format!(
                ">{} length={} kind={}{species} base_freq={:.6} home_clade={} home_freq={:.6} expected_freq={:.6} carriers={}\n",
                gene.name,
                gene.seq.len(),
                gene.kind.as_str(),
                gene.base_freq,
                gene.home_clade,
                gene.home_freq,
                coll.expected_frequency(g),
                carriers[g]
            )
            .as_bytes(),
        );
        push_wrapped(&mut genes_fa, &gene.seq);
    }
    genes_fa
}

/// collection.json: parameters, model facts and counts.
fn collection_json(
    args: &Args,
    params: &Params,
    markov: &Markov,
    coll: &Collection,
    counts: &Counts,
    queries: Option<&QuerySets>,
    summary: &Summary,
) -> serde_json::Value {
    let n = args.genomes;
    let width = digits(n - 1).max(5);
    let ext = if args.gzip { "fa.gz" } else { "fa" };
    // Carrier statistics for the record.
    let mut sorted: Vec<u64> = counts.carriers.clone();
    sorted.sort_unstable();
    let carrier_stats = if sorted.is_empty() {
        json!(null)
    } else {
        json!({
            "min": sorted[0],
            "median": sorted[sorted.len() / 2],
            "mean": sorted.iter().sum::<u64>() as f64 / sorted.len() as f64,
            "max": sorted[sorted.len() - 1],
            "absent": sorted.iter().filter(|&&c| c == 0).count(),
        })
    };
    let expected_accessory: f64 = coll
        .genes
        .iter()
        .enumerate()
        .map(|(i, g)| coll.expected_frequency(i) * g.seq.len() as f64)
        .sum();
    let path_str = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let species0 = &coll.species[0];
    let mut doc = json!({
        "tool": "bitsift-simulate",
        "version": env!("CARGO_PKG_VERSION"),
        "seed": params.seed,
        "parameters": {
            "genomes": n,
            "genome_size": params.genome_size,
            "train": path_str(&args.train),
            "markov_order": if args.train.is_some() { markov.order() } else { 0 },
            "gc": if args.train.is_some() { None } else { Some(args.gc) },
            "clades": params.clades,
            "clade_skew": params.clade_skew,
            "clade_divergence": params.clade_divergence,
            "clade_indels": params.clade_indels,
            "clade_deletions": params.clade_deletions,
            "clade_inversions": params.clade_inversions,
            "strain_divergence": params.strain_divergence,
            "accessory_genes": params.accessory_genes,
            "gene_length": params.gene_length.to_string(),
            "freq_skew": params.freq_skew,
            "clade_affinity": params.clade_affinity,
            "genes": path_str(&args.genes),
            "contigs": params.contigs.to_string(),
            "n_runs": params.n_runs,
            "soft_mask": params.soft_mask,
            "flip_contigs": params.flip_contigs,
            "gzip": args.gzip,
            "home_site_prob": crate::model::HOME_SITE_PROB,
            "min_contig": crate::model::MIN_CONTIG,
        },
        "model": {
            "training_gc": markov.gc,
            "training_transitions": markov.trained_transitions,
            "core_length": species0.core.len(),
            "clade_lengths": species0.clades.iter().map(|c| c.len()).collect::<Vec<_>>(),
            "clade_weights": species0.clade_weights,
            "expected_accessory_bases_per_genome": expected_accessory.round(),
        },
        "counts": {
            "genomes": n,
            "contigs": summary.contigs,
            "total_bases": summary.bases,
            "n_bases": counts.n_bases,
            "accessory_genes": params.accessory_genes,
            "real_genes": coll
                .genes
                .iter()
                .filter(|g| matches!(g.kind, GeneKind::Real | GeneKind::Mobile))
                .count(),
            "gene_copies": counts.gene_copies,
            "genome_fasta_bytes": summary.fasta_bytes,
            "genome_file_bytes": summary.written_bytes,
            "clade_sizes": counts.clade_sizes[0],
            "gene_carriers": carrier_stats,
        },
        "files": {
            "genomes": {
                "pattern": format!("genome_{}.{ext}", "N".repeat(width)),
                "first": format!("genome_{:0width$}.{ext}", 0),
                "last": format!("genome_{:0width$}.{ext}", n - 1),
            },
            "truth": "truth.tsv",
            "genome_table": "genomes.tsv",
            "genes": "genes.fa",
        },
    });
    if let (Some(sp), Some(sets)) = (&params.species, queries) {
        add_species_json(&mut doc, sp, coll, counts, sets);
    }
    doc
}

/// The species model's parameters, species, plasmids, query sets and files.
fn add_species_json(
    doc: &mut serde_json::Value,
    sp: &SpeciesParams,
    coll: &Collection,
    counts: &Counts,
    sets: &QuerySets,
) {
    let parameters = &mut doc["parameters"];
    parameters["species"] = json!(sp.count);
    parameters["species_skew"] = json!(sp.skew);
    parameters["plasmids"] = json!(sp.plasmids);
    parameters["plasmid_host_bias"] = json!(sp.plasmid_host_bias);
    parameters["universal_genes"] = json!(sp.universal_genes);
    parameters["query_genes"] = json!(sp.query_genes);
    parameters["query_species"] = json!(sp.query_species);
    parameters["truth_k"] = json!(sp.truth_k);
    let model = doc["model"].as_object_mut().expect("model is an object");
    for key in ["core_length", "clade_lengths", "clade_weights"] {
        model.remove(key);
    }
    model.insert(
        "species".into(),
        coll.species
            .iter()
            .enumerate()
            .map(|(s, species)| {
                json!({
                    "name": species.name,
                    "weight": coll.species_weights[s],
                    "core_length": species.core.len(),
                    "clade_lengths": species.clades.iter().map(|c| c.len()).collect::<Vec<_>>(),
                    "clade_weights": species.clade_weights,
                })
            })
            .collect(),
    );
    model.insert(
        "plasmids".into(),
        coll.plasmids
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "length": p.backbone.len(),
                    "hosts": p.hosts.iter().map(|h| json!({
                        "species": coll.species[h.species].name,
                        "base_freq": h.base_freq,
                        "home_clade": coll.species[h.species].clade_label(h.home_clade),
                        "home_freq": h.home_freq,
                    })).collect::<Vec<_>>(),
                    "cargo": p.cargo.iter().map(|&(g, _)| coll.genes[g].name.as_str()).collect::<Vec<_>>(),
                })
            })
            .collect(),
    );
    let mut weights = coll.species_weights.clone();
    weights.sort_by(|a, b| b.total_cmp(a));
    model.insert(
        "species_top20_weight".into(),
        json!(weights.iter().take(20).sum::<f64>()),
    );
    model.insert(
        "universal_genes".into(),
        coll.universal
            .clone()
            .map(|g| {
                let gene = &coll.genes[g];
                json!({
                    "name": gene.name,
                    "length": gene.seq.len(),
                    "presence": gene.base_freq,
                    "site": gene.home_site,
                })
            })
            .collect(),
    );
    model.insert(
        "query_species".into(),
        sets.species
            .iter()
            .map(|&s| coll.species[s].name.as_str())
            .collect(),
    );
    let counts_json = &mut doc["counts"];
    counts_json["clade_sizes"] = json!(counts.clade_sizes);
    let sizes = species_sizes(counts);
    counts_json["species_sizes"] = json!(sizes);
    let (share, with_genomes) = top20_share(&sizes);
    counts_json["species_top20_share"] = json!(share);
    counts_json["species_with_genomes"] = json!(with_genomes);
    let per_class: serde_json::Map<String, serde_json::Value> = QueryClass::of(coll)
        .iter()
        .map(|c| {
            let count = sets.queries.iter().filter(|q| q.class == *c).count();
            (c.as_str().to_string(), json!(count))
        })
        .collect();
    counts_json["queries"] = serde_json::Value::Object(per_class);
    let files = &mut doc["files"];
    files["metadata"] = json!("metadata.tsv");
    files["query_truth"] = json!("queries_truth.tsv");
    files["queries"] = json!(QueryClass::of(coll)
        .iter()
        .map(|c| c.file_name())
        .collect::<Vec<_>>());
}

/// Genomes per species.
fn species_sizes(counts: &Counts) -> Vec<u64> {
    counts
        .clade_sizes
        .iter()
        .map(|c| c.iter().sum::<u64>())
        .collect()
}

/// The fraction of the genomes in the 20 largest species, and how many species have genomes.
fn top20_share(sizes: &[u64]) -> (f64, usize) {
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = sorted.iter().sum();
    let top: u64 = sorted.iter().take(20).sum();
    let with_genomes = sorted.iter().filter(|&&n| n > 0).count();
    (top as f64 / total.max(1) as f64, with_genomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fasta::parse_fasta;
    use crate::seq::revcomp;
    use clap::Parser;
    use std::collections::HashMap;

    struct TempDir(PathBuf);
    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let p = std::env::temp_dir().join(format!(
                "bitsift-sim-test-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = fs::remove_dir_all(&p);
            TempDir(p)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn args(dir: &Path, extra: &[&str]) -> Args {
        let mut argv: Vec<String> = [
            "bitsift-simulate",
            "--quiet",
            "--genomes",
            "12",
            "--genome-size",
            "60000",
            "--clades",
            "4",
            "--accessory-genes",
            "60",
            "--contigs",
            "5-40",
            "--n-runs",
            "1",
            "--seed",
            "42",
            "-o",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        argv.push(dir.display().to_string());
        argv.extend(extra.iter().map(|s| s.to_string()));
        Args::try_parse_from(argv).unwrap()
    }

    fn read_dir_sorted(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn same_seed_same_bytes_whatever_the_thread_count() {
        for gz in [false, true] {
            let a = TempDir::new(&format!("det-a-{gz}"));
            let b = TempDir::new(&format!("det-b-{gz}"));
            let mut extra = vec!["--soft-mask"];
            if gz {
                extra.push("--gzip");
            }
            let mut one = args(&a.0, &extra);
            one.threads = 1;
            let mut two = args(&b.0, &extra);
            two.threads = 3;
            run(&one).unwrap();
            run(&two).unwrap();
            let fa = read_dir_sorted(&a.0);
            let fb = read_dir_sorted(&b.0);
            assert_eq!(fa.len(), 12 + 4);
            assert!(fa.iter().all(|(n, _)| !n.starts_with('.')));
            assert_eq!(fa, fb);
        }
        // Genome i does not depend on how many genomes are made.
        let c = TempDir::new("det-prefix");
        let mut five = args(&c.0, &["--soft-mask"]);
        five.genomes = 5;
        run(&five).unwrap();
        let a = TempDir::new("det-a-false");
        run(&args(&a.0, &["--soft-mask"])).unwrap();
        for i in 0..5 {
            let name = format!("genome_{i:05}.fa");
            assert_eq!(
                fs::read(a.0.join(&name)).unwrap(),
                fs::read(c.0.join(&name)).unwrap()
            );
        }
        // A different seed gives different genomes.
        let a = TempDir::new("det-c");
        let b = TempDir::new("det-d");
        run(&args(&a.0, &[])).unwrap();
        let mut other = args(&b.0, &[]);
        other.seed = 43;
        run(&other).unwrap();
        assert_ne!(
            fs::read(a.0.join("genome_00000.fa")).unwrap(),
            fs::read(b.0.join("genome_00000.fa")).unwrap()
        );
    }

    /// Checks every truth row against the written FASTA files.
    fn check_truth(dir: &Path, exact: bool) -> usize {
        let truth = fs::read_to_string(dir.join("truth.tsv")).unwrap();
        let genes: HashMap<String, Vec<u8>> = parse_fasta(&fs::read(dir.join("genes.fa")).unwrap())
            .unwrap()
            .into_iter()
            .map(|r| (r.name, r.seq))
            .collect();
        let mut contigs: HashMap<String, Vec<u8>> = HashMap::new();
        for (name, bytes) in read_dir_sorted(dir) {
            if name.starts_with("genome_") && name.ends_with(".fa") {
                let text = String::from_utf8(bytes).unwrap();
                // 80-column lines and length= headers.
                let mut lines = text.lines().peekable();
                while let Some(h) = lines.next() {
                    assert!(h.starts_with(">genome_"));
                    let (cname, len) = h[1..].split_once(" length=").unwrap();
                    let mut seq = Vec::new();
                    while let Some(l) = lines.peek().filter(|l| !l.starts_with('>')) {
                        assert!(l.len() <= 80 && !l.is_empty());
                        seq.extend_from_slice(l.as_bytes());
                        lines.next();
                    }
                    assert_eq!(seq.len(), len.parse::<usize>().unwrap());
                    contigs.insert(cname.to_string(), seq);
                }
            }
        }
        let mut rows = 0;
        let mut strands = [0usize; 2];
        for line in truth.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 7);
            let (genome, gene, contig, start) = (f[0], f[1], f[2], f[3]);
            assert!(contig.starts_with(&format!("{genome}_contig_")));
            let start: usize = start.parse().unwrap();
            let len: usize = f[5].parse().unwrap();
            let mism: usize = f[6].parse().unwrap();
            let gseq = &genes[gene];
            assert_eq!(gseq.len(), len);
            let expect = match f[4] {
                "+" => {
                    strands[0] += 1;
                    gseq.clone()
                }
                "-" => {
                    strands[1] += 1;
                    revcomp(gseq)
                }
                s => panic!("bad strand {s}"),
            };
            let got = &contigs[contig][start..start + len];
            let diff = got
                .iter()
                .zip(&expect)
                .filter(|(a, b)| !a.eq_ignore_ascii_case(b))
                .count();
            assert_eq!(diff, mism, "{line}");
            if exact {
                assert_eq!(mism, 0);
            }
            rows += 1;
        }
        assert!(strands[0] > 0 && strands[1] > 0);
        rows
    }

    #[test]
    fn truth_agrees_with_sequences() {
        let dir = TempDir::new("truth");
        let genes = dir.0.with_extension("genes.fa");
        fs::write(
            &genes,
            b">blaTEST some gene\nACGTACGGTTACGATCGATCGGATCGATCGATTTAGCGCGATCGA\nNNACGT\n",
        )
        .unwrap();
        let a = args(&dir.0, &["--soft-mask", "--genes", genes.to_str().unwrap()]);
        run(&a).unwrap();
        let rows = check_truth(&dir.0, false);
        assert!(rows > 50, "{rows}");
        assert!(fs::read_to_string(dir.0.join("truth.tsv"))
            .unwrap()
            .contains("\tblaTEST\t"));
        // Without strain substitutions every copy is exact.
        let a = args(&dir.0, &["--force", "--strain-divergence", "0"]);
        run(&a).unwrap();
        check_truth(&dir.0, true);
        let json: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.0.join("collection.json")).unwrap()).unwrap();
        assert_eq!(json["counts"]["genomes"], 12);
        assert_eq!(json["parameters"]["strain_divergence"], 0.0);
        assert_eq!(json["counts"]["real_genes"], 0);
        let _ = fs::remove_file(genes);
    }

    #[test]
    fn refuses_non_empty_dir_and_force_replaces_our_files() {
        let dir = TempDir::new("force");
        fs::create_dir_all(&dir.0).unwrap();
        fs::write(dir.0.join("keep.txt"), b"x").unwrap();
        fs::write(dir.0.join("genome_99999.fa"), b">old\n").unwrap();
        let err = run(&args(&dir.0, &[])).unwrap_err();
        assert!(format!("{err:#}").contains("is not empty (use --force"));
        let mut two = args(&dir.0, &["--force"]);
        two.genomes = 2;
        run(&two).unwrap();
        let names: Vec<String> = read_dir_sorted(&dir.0).into_iter().map(|x| x.0).collect();
        assert_eq!(
            names,
            [
                "collection.json",
                "genes.fa",
                "genome_00000.fa",
                "genome_00001.fa",
                "genomes.tsv",
                "keep.txt",
                "truth.tsv"
            ]
        );
        // A file in place of the directory, and missing inputs.
        let file = dir.0.join("keep.txt");
        assert!(format!("{:#}", run(&args(&file, &[])).unwrap_err()).contains("not a directory"));
        let err = run(&args(&dir.0.join("new"), &["--train", "/nonexistent.fa"])).unwrap_err();
        assert!(format!("{err:#}").starts_with("cannot read training file /nonexistent.fa"));
        assert!(!dir.0.join("new").exists());
    }

    #[test]
    fn our_file_names() {
        for n in [
            "genome_00001.fa",
            "genome_1.fa.gz",
            ".genome_00001.fa.tmp.123",
            "truth.tsv",
            ".collection.json.tmp.9",
        ] {
            assert!(is_our_file(n), "{n}");
        }
        for n in ["genome_.fa", "genome_x.fa", "notes.txt", "genome_001.fasta"] {
            assert!(!is_our_file(n), "{n}");
        }
    }

    /// Reads every genome FASTA of `dir` as (genome, contig sequences).
    fn genome_contigs(dir: &Path) -> Vec<(String, Vec<Vec<u8>>)> {
        read_dir_sorted(dir)
            .into_iter()
            .filter(|(n, _)| n.starts_with("genome_") && n.ends_with(".fa"))
            .map(|(n, bytes)| {
                let records = parse_fasta(&bytes).unwrap();
                (
                    n.trim_end_matches(".fa").to_string(),
                    records.into_iter().map(|r| r.seq).collect(),
                )
            })
            .collect()
    }

    fn cobs_term(w: &[u8]) -> Vec<u8> {
        let rc = revcomp(w);
        for i in 0..w.len() / 2 {
            if w[i] != rc[i] {
                return if w[i] < rc[i] { w.to_vec() } else { rc };
            }
        }
        w.to_vec()
    }

    /// Checks queries_truth.tsv against a byte-level recount over the written FASTA files of
    /// the query files of `classes`; returns its rows (sorted) and the queries per class.
    fn check_query_truth(
        dir: &Path,
        classes: &[&'static str],
    ) -> (Vec<String>, HashMap<&'static str, usize>) {
        let contigs = genome_contigs(dir);
        let genome_terms: HashMap<String, std::collections::HashSet<Vec<u8>>> = contigs
            .iter()
            .map(|(name, seqs)| {
                let terms = seqs
                    .iter()
                    .flat_map(|s| s.windows(31))
                    .filter(|w| w.iter().all(|b| b"ACGT".contains(b)))
                    .map(cobs_term)
                    .collect();
                (name.clone(), terms)
            })
            .collect();
        let mut expected = Vec::new();
        let mut counts = HashMap::new();
        for &class in classes {
            let text = fs::read(dir.join(format!("queries_{class}.fa"))).unwrap();
            let queries = parse_fasta(&text).unwrap();
            assert!(!queries.is_empty(), "{class}");
            counts.insert(class, queries.len());
            for q in queries {
                for (genome, _) in &contigs {
                    let found = q
                        .seq
                        .windows(31)
                        .filter(|w| genome_terms[genome].contains(&cobs_term(w)))
                        .count();
                    if found > 0 {
                        expected.push(format!(
                            "{}\t{class}\t{genome}\t{found}\t{}",
                            q.name,
                            q.seq.len() - 30
                        ));
                    }
                }
            }
        }
        let truth = fs::read_to_string(dir.join("queries_truth.tsv")).unwrap();
        let mut got: Vec<String> = truth.lines().skip(1).map(str::to_string).collect();
        got.sort();
        expected.sort();
        assert_eq!(got, expected);
        (got, counts)
    }

    /// A FASTA file of `n` random 600-base genes `amr0`, `amr1`...
    fn mobile_genes(path: &Path, n: usize) {
        let mut rng = crate::seq::rng_for(11, crate::seq::Stream::Core, 0);
        let mut fasta = String::new();
        for g in 0..n {
            let seq: String = (0..600)
                .map(|_| b"ACGT"[rand::RngExt::random_range(&mut rng, 0..4)] as char)
                .collect();
            fasta.push_str(&format!(">amr{g}\n{seq}\n"));
        }
        fs::write(path, fasta).unwrap();
    }

    #[test]
    fn universal_genes_and_query_species() {
        let dir = TempDir::new("universal");
        let genes = dir.0.with_extension("mobile.fa");
        mobile_genes(&genes, 3);
        let base = [
            "--species",
            "9",
            "--species-skew",
            "1.5",
            "--plasmids",
            "4",
            "--query-genes",
            "2",
            "--genes",
            genes.to_str().unwrap(),
        ];
        let mut extra = base.to_vec();
        extra.extend(["--universal-genes", "2", "--query-species", "3"]);
        let mut a = args(&dir.0, &extra);
        a.genomes = 40;
        run(&a).unwrap();
        let (rows, classes) = check_query_truth(
            &dir.0,
            &["core", "accessory", "mobile", "absent", "universal"],
        );
        // Three species (the largest, one in the middle, the smallest), two queries each.
        assert_eq!(
            (
                classes["core"],
                classes["accessory"],
                classes["absent"],
                classes["mobile"],
                classes["universal"]
            ),
            (6, 6, 6, 3, 2)
        );
        let core = fs::read_to_string(dir.0.join("queries_core.fa")).unwrap();
        for s in ["sp00", "sp02", "sp08"] {
            assert!(core.contains(&format!(">core_{s}_q000 ")), "{s}");
        }
        assert!(!core.contains(">core_sp01_"));
        // Each universal gene is found whole in nearly every genome, of every species.
        let species: HashMap<String, String> = fs::read_to_string(dir.0.join("metadata.tsv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f[0].to_string(), f[1].to_string())
            })
            .collect();
        for u in ["universal_00", "universal_01"] {
            let hits: Vec<&String> = rows
                .iter()
                .filter(|r| r.starts_with(&format!("{u}\tuniversal\t")))
                .collect();
            assert!(hits.len() >= 32, "{u}: {}", hits.len());
            let carriers: std::collections::HashSet<&String> = hits
                .iter()
                .map(|r| &species[r.split('\t').nth(2).unwrap()])
                .collect();
            let all: std::collections::HashSet<&String> = species.values().collect();
            assert_eq!(carriers, all);
        }
        let genes_fa = fs::read_to_string(dir.0.join("genes.fa")).unwrap();
        assert!(genes_fa.contains(">universal_01 length="));
        assert!(genes_fa.contains(" kind=universal "));
        let json: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.0.join("collection.json")).unwrap()).unwrap();
        assert_eq!(json["parameters"]["universal_genes"], 2);
        assert_eq!(json["counts"]["queries"]["universal"], 2);
        assert_eq!(
            json["model"]["universal_genes"].as_array().unwrap().len(),
            2
        );
        assert_eq!(
            json["model"]["query_species"],
            json!(["sp00", "sp02", "sp08"])
        );
        let share = json["counts"]["species_top20_share"].as_f64().unwrap();
        assert_eq!(share, 1.0);
        assert!(json["files"]["queries"]
            .as_array()
            .unwrap()
            .contains(&json!("queries_universal.fa")));
        // Without universal genes: the same species, clades, accessory and mobile genes.
        let plain = TempDir::new("universal-plain");
        let mut b = args(&plain.0, &base);
        b.genomes = 40;
        run(&b).unwrap();
        let read = |d: &Path, f: &str| fs::read_to_string(d.join(f)).unwrap();
        assert_eq!(read(&dir.0, "metadata.tsv"), read(&plain.0, "metadata.tsv"));
        let gene_rows = |d: &Path| -> Vec<String> {
            read(d, "truth.tsv")
                .lines()
                .filter(|l| !l.contains("\tuniversal_"))
                .map(|l| l.split('\t').take(2).collect::<Vec<_>>().join("\t"))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        assert_eq!(gene_rows(&dir.0), gene_rows(&plain.0));
        let _ = fs::remove_file(genes);
    }

    #[test]
    fn species_collection_files_agree() {
        let dir = TempDir::new("species");
        let genes = dir.0.with_extension("mobile.fa");
        mobile_genes(&genes, 4);
        let extra = [
            "--species",
            "3",
            "--plasmids",
            "4",
            "--query-genes",
            "2",
            "--genes",
            genes.to_str().unwrap(),
        ];
        let mut a = args(&dir.0, &extra);
        a.genomes = 30;
        run(&a).unwrap();
        let files: Vec<String> = read_dir_sorted(&dir.0).into_iter().map(|x| x.0).collect();
        for f in [
            "metadata.tsv",
            "queries_core.fa",
            "queries_accessory.fa",
            "queries_mobile.fa",
            "queries_absent.fa",
            "queries_truth.tsv",
        ] {
            assert!(files.contains(&f.to_string()), "{f} missing: {files:?}");
        }
        // metadata.tsv agrees with genomes.tsv, and every species appears.
        let metadata = fs::read_to_string(dir.0.join("metadata.tsv")).unwrap();
        let genomes = fs::read_to_string(dir.0.join("genomes.tsv")).unwrap();
        let mut species = std::collections::BTreeSet::new();
        for (m, g) in metadata.lines().zip(genomes.lines()).skip(1) {
            let m: Vec<&str> = m.split('\t').collect();
            let g: Vec<&str> = g.split('\t').collect();
            assert_eq!((m[0], m[1], m[2]), (g[0], g[1], g[2]));
            assert!(m[2].starts_with(&format!("{}_c", m[1])));
            species.insert(m[1].to_string());
        }
        assert_eq!(metadata.lines().count(), 31);
        assert_eq!(species.len(), 3);
        // The truth table equals a byte-level recount over the written FASTA files.
        let (got, classes) = check_query_truth(&dir.0, &["core", "accessory", "mobile", "absent"]);
        assert_eq!(classes["core"], 6);
        assert_eq!(classes["mobile"], 4);
        assert!(!files.contains(&"queries_universal.fa".to_string()));
        // Core queries are found in most genomes of their species, absent ones nowhere.
        assert!(got.iter().any(|r| r.contains("\tcore\t")));
        assert!(!got.iter().any(|r| r.contains("\tabsent\t")));
        // Same bytes with another thread count, and genome i does not depend on the count.
        let other = TempDir::new("species-b");
        let mut b = args(&other.0, &extra);
        b.genomes = 20;
        b.threads = 3;
        run(&b).unwrap();
        for name in [
            "genome_00007.fa",
            "queries_core.fa",
            "queries_mobile.fa",
            "genes.fa",
        ] {
            let left = fs::read(dir.0.join(name)).unwrap();
            let right = fs::read(other.0.join(name)).unwrap();
            if name == "genes.fa" {
                // Carrier counts differ with the genome count; the sequences do not.
                assert_eq!(
                    parse_fasta(&left).unwrap().len(),
                    parse_fasta(&right).unwrap().len()
                );
            } else {
                assert_eq!(left, right, "{name}");
            }
        }
        let _ = fs::remove_file(genes);
    }

    #[test]
    fn trains_on_demo_genome_if_present() {
        let train = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data/demo/genomes/Kpn_MGH78578_CP000647_pKPN3-7.fa.gz");
        if !train.exists() {
            return;
        }
        let recs = read_fasta(&train, "training").unwrap();
        let m = Markov::train(recs.iter().map(|r| r.seq.as_slice()), 5).unwrap();
        // Klebsiella pneumoniae is ~57 % GC.
        assert!((0.55..0.59).contains(&m.gc), "{}", m.gc);
        let s = m.generate(
            500_000,
            &mut crate::seq::rng_for(1, crate::seq::Stream::Core, 0),
        );
        let gc = s.iter().filter(|&&b| b == b'G' || b == b'C').count() as f64 / s.len() as f64;
        assert!((gc - m.gc).abs() < 0.01, "{gc}");
    }
}
