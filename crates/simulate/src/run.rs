//! Writing a collection: output directory handling, atomic files, parallel
//! genome generation, progress, truth/genes/collection files.

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
use crate::model::{digits, Collection};

/// What a finished run produced.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub genomes: usize,
    pub contigs: u64,
    pub bases: u64,
    pub fasta_bytes: u64,
    pub written_bytes: u64,
    pub seconds: f64,
}

/// Is `name` a file this tool writes (and may replace with `--force`)?
fn is_our_file(name: &str) -> bool {
    let base = name.strip_prefix('.').unwrap_or(name);
    let base = base.split(".tmp.").next().unwrap_or(base);
    matches!(
        base,
        "truth.tsv" | "genes.fa" | "genomes.tsv" | "collection.json"
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
    genes: Vec<usize>,
    contigs: u64,
    bases: u64,
    n_bases: u64,
    fasta_bytes: u64,
    written_bytes: u64,
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

    let n = args.genomes;
    let width = digits(n - 1).max(5);
    let ext = if args.gzip { "fa.gz" } else { "fa" };
    let progress = Progress {
        genomes: AtomicU64::new(0),
        bytes: AtomicU64::new(0),
        done: AtomicBool::new(false),
    };

    let truth_path = args.out.join("truth.tsv");
    let genomes_path = args.out.join("genomes.tsv");
    let truth_tmp = tmp_path(&truth_path);
    let genomes_tmp = tmp_path(&genomes_path);

    let process = |i: usize| -> Result<GenomeOut> {
        let name = format!("genome_{i:0width$}");
        let genome = coll.genome(i);
        let contigs = coll.contigs(&genome);
        let mut fasta = Vec::new();
        let mut truth = String::new();
        coll.render(&genome, &contigs, &name, &mut fasta, &mut truth);
        let written = write_maybe_gz(&args.out.join(format!("{name}.{ext}")), &fasta, args.gzip)?;
        progress.genomes.fetch_add(1, Ordering::Relaxed);
        progress
            .bytes
            .fetch_add(fasta.len() as u64, Ordering::Relaxed);
        Ok(GenomeOut {
            row: format!(
                "{name}\t{}\t{}\t{}\t{}\t{}\n",
                genome.clade,
                genome.seq.len(),
                contigs.len(),
                genome.placed.len(),
                genome.n_bases
            ),
            truth,
            genes: genome.placed.iter().map(|p| p.gene).collect(),
            contigs: contigs.len() as u64,
            bases: genome.seq.len() as u64,
            n_bases: genome.n_bases as u64,
            fasta_bytes: fasta.len() as u64,
            written_bytes: written,
        })
    };

    let mut summary = Summary {
        genomes: n,
        ..Summary::default()
    };
    let mut carriers = vec![0u64; coll.genes.len()];
    let mut clade_sizes = vec![0u64; params.clades];
    let mut n_bases = 0u64;
    let mut gene_copies = 0u64;

    let result: Result<()> = std::thread::scope(|s| {
        if !args.quiet {
            s.spawn(|| progress_loop(&progress, n, start));
        }
        let r = (|| {
            let open = |p: &Path| {
                File::create(p)
                    .map(|f| BufWriter::with_capacity(1 << 20, f))
                    .with_context(|| format!("cannot write {}", p.display()))
            };
            let mut truth_w = open(&truth_tmp)?;
            let mut genomes_w = open(&genomes_tmp)?;
            truth_w.write_all(b"genome\tgene\tcontig\tstart\tstrand\tlength\tmismatches\n")?;
            genomes_w.write_all(b"genome\tclade\tlength\tcontigs\tgenes\tn_bases\n")?;
            // Bounded batches keep memory independent of the genome count
            // while the output order stays fixed.
            let batch = (threads * 16).max(32);
            for lo in (0..n).step_by(batch) {
                let hi = (lo + batch).min(n);
                let outs: Vec<Result<GenomeOut>> =
                    pool.install(|| (lo..hi).into_par_iter().map(process).collect());
                for out in outs {
                    let out = out?;
                    truth_w.write_all(out.truth.as_bytes())?;
                    genomes_w.write_all(out.row.as_bytes())?;
                    for g in out.genes {
                        carriers[g] += 1;
                        gene_copies += 1;
                    }
                    summary.contigs += out.contigs;
                    summary.bases += out.bases;
                    summary.fasta_bytes += out.fasta_bytes;
                    summary.written_bytes += out.written_bytes;
                    n_bases += out.n_bases;
                }
            }
            for w in [truth_w, genomes_w] {
                w.into_inner().map_err(|e| e.into_error())?;
            }
            fs::rename(&truth_tmp, &truth_path)
                .with_context(|| format!("cannot write {}", truth_path.display()))?;
            fs::rename(&genomes_tmp, &genomes_path)
                .with_context(|| format!("cannot write {}", genomes_path.display()))?;
            Ok(())
        })();
        progress.done.store(true, Ordering::Relaxed);
        r
    });
    if let Err(e) = result {
        let _ = fs::remove_file(&truth_tmp);
        let _ = fs::remove_file(&genomes_tmp);
        return Err(e);
    }
    let genome_rows = fs::read_to_string(&genomes_path)?;
    for line in genome_rows.lines().skip(1) {
        if let Some(c) = line
            .split('\t')
            .nth(1)
            .and_then(|c| c.parse::<usize>().ok())
        {
            clade_sizes[c] += 1;
        }
    }

    // The gene pool, with observed carrier counts.
    let mut genes_fa = Vec::new();
    for (g, gene) in coll.genes.iter().enumerate() {
        genes_fa.extend_from_slice(
            format!(
                ">{} length={} kind={} base_freq={:.6} home_clade={} home_freq={:.6} expected_freq={:.6} carriers={}\n",
                gene.name,
                gene.seq.len(),
                if gene.real { "real" } else { "accessory" },
                gene.base_freq,
                gene.home_clade,
                gene.home_freq,
                coll.expected_frequency(gene),
                carriers[g]
            )
            .as_bytes(),
        );
        push_wrapped(&mut genes_fa, &gene.seq);
    }
    write_maybe_gz(&args.out.join("genes.fa"), &genes_fa, false)?;

    // Carrier statistics for the record.
    let mut sorted: Vec<u64> = carriers.clone();
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
        .map(|g| coll.expected_frequency(g) * g.seq.len() as f64)
        .sum();
    let path_str = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let doc = json!({
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
            "core_length": coll.core.len(),
            "clade_lengths": coll.clades.iter().map(|c| c.len()).collect::<Vec<_>>(),
            "clade_weights": coll.clade_weights,
            "expected_accessory_bases_per_genome": expected_accessory.round(),
        },
        "counts": {
            "genomes": n,
            "contigs": summary.contigs,
            "total_bases": summary.bases,
            "n_bases": n_bases,
            "accessory_genes": params.accessory_genes,
            "real_genes": coll.genes.len() - params.accessory_genes,
            "gene_copies": gene_copies,
            "genome_fasta_bytes": summary.fasta_bytes,
            "genome_file_bytes": summary.written_bytes,
            "clade_sizes": clade_sizes,
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
    // Written last: its presence marks a complete collection.
    write_atomic(&args.out.join("collection.json"), |w| {
        serde_json::to_writer_pretty(&mut *w, &doc)?;
        w.write_all(b"\n")
    })?;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
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
