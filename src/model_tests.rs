//! Search results against independent models (a unit test of the whole library, so it may
//! reach the engines, fault plans and caches that are not part of the public interface), for random and real genomes:
//! - no false negatives: a document's score is at least its brute-force k-mer count;
//! - exactness: the score equals what the index bits, computed independently from each
//!   document's k-mers with xxh64, say;
//! - a sane false-positive rate: k-mers absent from a document rarely score;
//! - every engine returns identical results, also with transient I/O faults injected (EINTR,
//!   EAGAIN, EIO then success, short and empty reads, delayed and reordered completions).

#[path = "../tests/common/reference.rs"]
mod reference;

use std::collections::HashSet;
use std::path::PathBuf;

use crate::builder::{build, BuildOptions};
use crate::format::{IndexHeader, LayoutChoice};
use crate::io::{
    open_engine, DirectIo, EngineChoice, EngineOptions, FaultEngine, FaultPlan, FaultTally,
    OpenedEngine,
};
use crate::query::{Index, OpenError, SearchOptions, Session as Searcher, SessionConfig};
use crate::search::SessionSetup;
use proptest::prelude::*;
use reference::*;

struct Collection {
    /// Per document: its records.
    documents: Vec<Vec<Vec<u8>>>,
    queries: Vec<Vec<u8>>,
}

/// Documents with N runs, lowercase stretches and lengths around k; queries taken from
/// documents (exact and mutated), random, and with N / lowercase.
fn collection(seed: u64, documents: usize, k: usize) -> Collection {
    let mut rng = Rng(seed);
    let mut docs = Vec::new();
    for d in 0..documents {
        let records = 1 + rng.below(3) as usize;
        let mut recs = Vec::new();
        for _ in 0..records {
            let len = match rng.below(10) {
                0 => rng.below(k as u64 + 1) as usize,
                _ => k + rng.below(1500) as usize,
            };
            let mut seq = rng.dna(len);
            if d % 4 == 1 && len > 20 {
                let at = rng.below(len as u64 - 10) as usize;
                seq[at..at + 5].copy_from_slice(b"NNNNN");
            }
            if d % 5 == 2 && len > 40 {
                let at = rng.below(len as u64 - 30) as usize;
                seq[at..at + 25].make_ascii_lowercase();
            }
            recs.push(seq);
        }
        docs.push(recs);
    }
    let mut queries = Vec::new();
    for q in 0..24 {
        let source = &docs[rng.below(docs.len() as u64) as usize];
        let record = &source[rng.below(source.len() as u64) as usize];
        let mut query = if record.len() > k + 10 && q % 4 != 3 {
            let len = (k + rng.below(300) as usize).min(record.len());
            let at = rng.below((record.len() - len + 1) as u64) as usize;
            record[at..at + len].to_vec()
        } else {
            let len = k + rng.below(200) as usize;
            rng.dna(len)
        };
        match q % 6 {
            1 => {
                // point mutations
                for _ in 0..3 {
                    let at = rng.below(query.len() as u64) as usize;
                    query[at] = b"ACGT"[rng.below(4) as usize];
                }
            }
            2 => {
                let at = rng.below(query.len() as u64) as usize;
                query[at] = b'N';
            }
            3 => query.make_ascii_lowercase(),
            4 => query.reverse(), // not a reverse complement: mostly absent
            _ => {}
        }
        queries.push(query);
    }
    queries.push(b"ACGTACGTAC".iter().cycle().take(k).copied().collect());
    Collection {
        documents: docs,
        queries,
    }
}

struct Built {
    _dir: tempfile::TempDir,
    index: PathBuf,
    header: IndexHeader,
    report: crate::builder::BuildReport,
}

/// The generated document number of each index document, from its name (`doc012` -> 12).
fn generated_numbers(header: &IndexHeader) -> Vec<usize> {
    let names = header.names.all().unwrap();
    names
        .iter()
        .map(|n| n.trim_start_matches("doc").parse().unwrap())
        .collect()
}

/// Each generated document's k-mers, by brute force.
fn collection_terms(collection: &Collection, k: usize, canonical: bool) -> Vec<HashSet<Vec<u8>>> {
    collection
        .documents
        .iter()
        .map(|records| document_terms(records, k, canonical))
        .collect()
}

fn build_collection(
    collection: &Collection,
    k: u32,
    page_size: Option<u64>,
    num_hashes: u32,
    canonical: bool,
    memory_bytes: u64,
    layout: LayoutChoice,
) -> Built {
    try_build_collection(
        collection,
        k,
        page_size,
        num_hashes,
        canonical,
        memory_bytes,
        layout,
    )
    .expect("build")
}

/// [`build_collection`], with the builder's error as text.
fn try_build_collection(
    collection: &Collection,
    k: u32,
    page_size: Option<u64>,
    num_hashes: u32,
    canonical: bool,
    memory_bytes: u64,
    layout: LayoutChoice,
) -> Result<Built, String> {
    let dir = temp_dir();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    for (d, records) in collection.documents.iter().enumerate() {
        let named: Vec<(String, Vec<u8>)> = records
            .iter()
            .enumerate()
            .map(|(r, s)| (format!("d{d}_r{r}"), s.clone()))
            .collect();
        write_fasta(&inputs.join(format!("doc{d:03}.fa")), &named);
    }
    let index = dir.path().join("x.cobs_compact");
    let report = build(&BuildOptions {
        output: index.clone(),
        inputs: vec![inputs],
        lists: vec![],
        per_record: false,
        k,
        fpr: 0.3,
        num_hashes,
        canonical,
        threads: 2,
        page_size,
        memory_bytes,
        force: false,
        progress: false,
        order: Default::default(),
        metadata: None,
        summaries: Some(Default::default()),
        rows: Default::default(),
        layout,
        documents: None,
    })
    .map_err(|e| e.to_string())?;
    let header = IndexHeader::open(&index).expect("open built index");
    Ok(Built {
        _dir: dir,
        index,
        header,
        report,
    })
}

fn engines() -> Vec<EngineOptions> {
    let mut engines = Vec::new();
    for choice in [
        EngineChoice::Uring,
        EngineChoice::Pread,
        EngineChoice::Mmap,
        EngineChoice::Ram,
    ] {
        engines.push(EngineOptions {
            choice,
            queue_depth: Some(16),
            direct: DirectIo::Auto,
            ..EngineOptions::default()
        });
    }
    engines.push(EngineOptions {
        choice: EngineChoice::Pread,
        queue_depth: Some(3),
        direct: DirectIo::Off,
        ..EngineOptions::default()
    });
    engines
}

/// A session over the index file `path` through the engine `options` opens, set up as
/// `config` says.
fn open_session(
    path: &std::path::Path,
    options: &EngineOptions,
    config: SessionConfig,
) -> Result<Searcher, OpenError> {
    let index = Index::open(
        &[path.to_path_buf()],
        &crate::format::HeaderOptions::default(),
    )?;
    let setup = SessionSetup {
        engine: *options,
        config,
    };
    setup.open(&index)
}

/// Scoring on `threads` threads, reading from storage.
fn threads(threads: usize) -> SessionConfig {
    SessionConfig {
        threads,
        ..SessionConfig::default()
    }
}

/// A searcher over `built` through the engine `options` opens, wrapped in a fault engine
/// with `plan`; `None` where io_uring is unavailable.
fn faulty_searcher(
    built: &Built,
    options: &EngineOptions,
    plan: FaultPlan,
) -> Option<(Searcher, FaultTally)> {
    // Opened with its checksum sidecar, as every search opens an index; the engine reads the
    // index and its side files.
    let index = Index::open(
        std::slice::from_ref(&built.index),
        &crate::format::HeaderOptions::default(),
    )
    .expect("open built index");
    let engine = match open_engine(index.read_paths(), options) {
        Ok(opened) => opened.engine,
        Err(e) if options.choice == EngineChoice::Uring => {
            eprintln!("io_uring unavailable here, skipping that engine: {e}");
            return None;
        }
        Err(e) => panic!("{options:?}: {e}"),
    };
    let engine = FaultEngine::new(engine, plan);
    assert!(engine.hooked());
    let tally = engine.tally();
    let engine = OpenedEngine {
        engine: Box::new(engine),
        notice: None,
        resident_fraction: None,
    };
    let searcher = Searcher::new(index, engine, &threads(1)).expect("searcher");
    Some((searcher, tally))
}

/// Every query at threshold 0 as (query, document, score) triples, sorted.
fn triples(searcher: &mut Searcher, built: &Built, queries: &[Vec<u8>]) -> Vec<(usize, u64, u32)> {
    let mut triples = Vec::new();
    for (q, query) in queries.iter().enumerate() {
        let everything = SearchOptions {
            threshold: 0.0,
            ..SearchOptions::default()
        };
        match searcher.search(query, &everything) {
            Ok(result) => {
                assert_eq!(
                    result.hits.len() as u64,
                    built.header.document_count(),
                    "t=0 lists every document"
                );
                for hit in result.hits {
                    triples.push((q, hit.document, hit.kmers_found));
                }
            }
            Err(crate::query::SearchError::TooShort { .. }) => {
                assert!(query.len() < built.header.k as usize);
            }
            Err(e) => panic!("{e}"),
        }
    }
    triples.sort();
    triples
}

/// Searches every query with every engine, bare and with transient faults injected; returns
/// per engine the (query, document, score) triples at threshold 0.
fn search_all(built: &Built, queries: &[Vec<u8>]) -> Vec<Vec<(usize, u64, u32)>> {
    let mut per_engine = Vec::new();
    for options in engines() {
        let mut searcher = match open_session(&built.index, &options, threads(1)) {
            Ok(s) => s,
            Err(e) if options.choice == EngineChoice::Uring => {
                eprintln!("io_uring unavailable here, skipping that engine: {e}");
                continue;
            }
            Err(e) => panic!("{options:?}: {e}"),
        };
        per_engine.push(triples(&mut searcher, built, queries));
    }
    assert!(
        per_engine.len() >= 4,
        "at least pread, mmap, ram and buffered pread ran"
    );
    let (mut injected, mut attempts) = (0, 0);
    for (index, options) in engines().iter().enumerate() {
        let plan = FaultPlan::transient(queries.len() as u64 * 31 + index as u64);
        let Some((mut searcher, tally)) = faulty_searcher(built, options, plan) else {
            continue;
        };
        per_engine.push(triples(&mut searcher, built, queries));
        let counts = tally.get();
        injected +=
            counts.interrupted + counts.again + counts.io_error + counts.short + counts.empty;
        attempts += counts.attempts;
    }
    // A tiny collection (4 KiB-aligned reads of an index of a few pages) may need only a few
    // reads; with enough of them, some must have been faulty (about 30 % are).
    assert!(
        injected > 0 || attempts < 40,
        "{attempts} read attempts and no transient fault injected"
    );
    per_engine
}

/// Batches, pruning and the page cache must not change any answer: one batch of all queries
/// equals the queries one by one; pruned results at thresholds 0.5 and 0.8 equal unpruned
/// ones (same documents, same exact scores); a small cache (forced to evict) changes nothing
/// and serves repeated queries.
fn check_batches_pruning_and_cache(built: &Built, queries: &[Vec<u8>]) {
    let options = EngineOptions {
        choice: EngineChoice::Pread,
        queue_depth: Some(8),
        direct: DirectIo::Auto,
        ..EngineOptions::default()
    };
    let mut searcher = open_session(&built.index, &options, threads(1)).unwrap();
    let ram = EngineOptions {
        choice: EngineChoice::Ram,
        ..options
    };
    let refs: Vec<&[u8]> = queries.iter().map(Vec::as_slice).collect();
    let key = |answers: Vec<crate::query::Answer>| -> Vec<Option<Vec<(u64, u32)>>> {
        answers
            .into_iter()
            .map(|a| {
                a.ok()
                    .map(|r| r.hits.iter().map(|h| (h.document, h.kmers_found)).collect())
            })
            .collect()
    };
    for threshold in [0.0, 0.5, 0.8] {
        // Summaries may drop hits made of Bloom false positives (see `check_summaries`);
        // pruning and waves never change an answer.
        let exact = SearchOptions {
            threshold,
            prune: false,
            summaries: false,
            waves: false,
            ..SearchOptions::default()
        };
        let pruned = SearchOptions {
            threshold,
            prune: true,
            summaries: false,
            waves: true,
            ..SearchOptions::default()
        };
        let one_by_one: Vec<_> = refs.iter().map(|q| searcher.search(q, &exact)).collect();
        let one_by_one = key(one_by_one);
        let batched = key(searcher.search_batch(&refs, &exact).unwrap());
        assert_eq!(batched, one_by_one, "batch vs one by one, t={threshold}");
        let batched_pruned = key(searcher.search_batch(&refs, &pruned).unwrap());
        assert_eq!(batched_pruned, one_by_one, "pruned batch, t={threshold}");
        let single_pruned: Vec<_> = refs.iter().map(|q| searcher.search(q, &pruned)).collect();
        assert_eq!(
            key(single_pruned),
            one_by_one,
            "pruned single, t={threshold}"
        );
        // Scored in place (resident rows, bit-sliced counters, carry-save trees), on one
        // thread and with blocks spread over three, pruned and not: the same answers.
        for threads in [1, 3] {
            let mut resident = open_session(&built.index, &ram, self::threads(threads)).unwrap();
            for options in [&exact, &pruned] {
                let in_place = key(resident.search_batch(&refs, options).unwrap());
                assert_eq!(
                    in_place, one_by_one,
                    "resident, {threads} threads, {options:?}"
                );
            }
        }
    }
    let reference = key(searcher
        .search_batch(&refs, &SearchOptions::default())
        .unwrap());
    // With waves, the same answers (with summaries too).
    let one_wave = SearchOptions {
        waves: true,
        ..SearchOptions::default()
    };
    assert_eq!(
        key(searcher.search_batch(&refs, &one_wave).unwrap()),
        reference,
        "waves vs one wave"
    );
    let cache = std::sync::Arc::new(crate::io::PageCache::new(64 * 4160 * 16, 4096));
    let cached = SessionConfig {
        memory: Some(crate::io::RowMemory::Pages(cache.clone())),
        ..threads(1)
    };
    let mut searcher = open_session(&built.index, &options, cached).unwrap();
    for _ in 0..2 {
        let cached: Vec<_> = refs
            .iter()
            .map(|q| searcher.search(q, &SearchOptions::default()))
            .collect();
        assert_eq!(key(cached), reference, "through the cache");
    }
    let stats = cache.stats();
    // Every read of the first pass is a miss that the second pass hits (a random case whose
    // queries read nothing, e.g. every block ruled out by its summaries, has neither).
    assert!(
        stats.hits > 0 || stats.misses == 0,
        "repeated queries hit the cache: {stats:?}"
    );
    // A budget that holds the whole index becomes its image, scored in place once loaded,
    // on one thread and spread over three: the same answers.
    let memory = crate::io::RowMemory::for_budget(1 << 40, searcher.index().read_files());
    let crate::io::RowMemory::Image(image) = &memory else {
        panic!("a budget larger than the index holds it whole");
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !image.is_loaded() {
        assert!(image.failure().is_none(), "{:?}", image.failure());
        assert!(
            std::time::Instant::now() < deadline,
            "the image never loaded"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    for threads in [1, 3] {
        let in_memory = SessionConfig {
            memory: Some(memory.clone()),
            ..self::threads(threads)
        };
        let mut searcher = open_session(&built.index, &options, in_memory).unwrap();
        assert_eq!(searcher.source(), crate::query::RowSource::Image);
        let in_image = key(searcher
            .search_batch(&refs, &SearchOptions::default())
            .unwrap());
        assert_eq!(
            in_image, reference,
            "scored in the image, {threads} threads"
        );
    }
}

/// Checks one built collection against both models; returns (false-positive lookups, absent
/// lookups) for the false-positive rate.
fn check(collection: &Collection, built: &Built, canonical: bool) -> (u64, u64) {
    let header = &built.header;
    let k = header.k as usize;
    let h = header.num_hashes as u64;
    let per_engine = search_all(built, &collection.queries);
    for other in &per_engine[1..] {
        assert_eq!(&per_engine[0], other, "engines disagree");
    }
    // Map index documents back to the generated ones by name (doc012 -> 12).
    let generated = generated_numbers(header);
    let terms = collection_terms(collection, k, canonical);
    let (mut false_positive, mut absent) = (0u64, 0u64);
    for &(q, document, score) in &per_engine[0] {
        let query = &collection.queries[q];
        let doc_terms = &terms[generated[document as usize]];
        let exact = brute_force_count(query, k, canonical, doc_terms);
        assert!(
            score >= exact,
            "false negative: query {q} document {document}: score {score} < brute force {exact}"
        );
        let rows = RowModel::of_document(header, document as usize);
        let doc_rows = document_rows(doc_terms, h, &rows);
        let model = model_score(query, k, canonical, h, &rows, &doc_rows);
        assert_eq!(
            score, model,
            "query {q} document {document}: bits disagree with the model"
        );
        let positions = (query.len() + 1 - k) as u64;
        false_positive += (score - exact) as u64;
        absent += positions - exact as u64;
    }
    check_summaries(&collection.queries, &terms, &generated, built, canonical);
    (false_positive, absent)
}

/// Block summaries at thresholds 0.3, 0.5 and 0.8, read from storage (with waves) and scored
/// in memory: every document whose brute-force count reaches the threshold is reported; every
/// report is one the exact search (no summaries, COBS's answer) makes, with the same score.
/// `terms[generated[d]]` are the k-mers of index document `d`. Returns the (query, block)
/// pairs the summaries ruled out.
fn check_summaries(
    queries: &[Vec<u8>],
    terms: &[HashSet<Vec<u8>>],
    generated: &[usize],
    built: &Built,
    canonical: bool,
) -> u64 {
    let k = built.header.k as usize;
    let mut ruled_out = 0;
    for choice in [EngineChoice::Pread, EngineChoice::Ram] {
        let options = EngineOptions {
            choice,
            queue_depth: Some(8),
            direct: DirectIo::Auto,
            ..EngineOptions::default()
        };
        let mut searcher = open_session(&built.index, &options, threads(1)).unwrap();
        for threshold in [0.3, 0.5, 0.8] {
            let summarised = SearchOptions {
                threshold,
                ..SearchOptions::default()
            };
            let exact = SearchOptions {
                summaries: false,
                ..summarised.clone()
            };
            for (q, query) in queries.iter().enumerate() {
                let (Ok(got), Ok(want)) = (
                    searcher.search(query, &summarised),
                    searcher.search(query, &exact),
                ) else {
                    continue;
                };
                ruled_out += got.stats.blocks_ruled_out;
                let want: HashSet<(u64, u32)> = want
                    .hits
                    .iter()
                    .map(|h| (h.document, h.kmers_found))
                    .collect();
                let reported: HashSet<u64> = got.hits.iter().map(|h| h.document).collect();
                for hit in &got.hits {
                    assert!(
                        want.contains(&(hit.document, hit.kmers_found)),
                        "query {q} t={threshold}: {hit:?} is not what the exact search reports"
                    );
                }
                let needed = crate::query::count_threshold(threshold, got.kmers_total[0]);
                for (document, &g) in generated.iter().enumerate() {
                    let truth = brute_force_count(query, k, canonical, &terms[g]) as u64;
                    assert!(
                        truth < needed || reported.contains(&(document as u64)),
                        "query {q} t={threshold}: document {document} holds {truth} >= {needed} k-mers but was not reported ({choice:?})"
                    );
                }
            }
        }
    }
    ruled_out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn random_collections_match_the_models(
        seed in any::<u64>(),
        documents in 1usize..140,
        k in prop::sample::select(vec![3u32, 9, 16, 31]),
        page_size in prop::sample::select(vec![None, Some(1u64), Some(2), Some(3), Some(8), Some(20)]),
        num_hashes in 1u32..4,
        canonical in any::<bool>(),
        range_rows in prop::sample::select(vec![0u32, 1, 8, 16, 128]),
    ) {
        let collection = collection(seed, documents, k as usize);
        let layout = match range_rows {
            0 => LayoutChoice::Cobs,
            1 => LayoutChoice::MINIMIZER,
            rows => LayoutChoice::Minimizer { range_rows: Some(rows) },
        };
        let built = match try_build_collection(&collection, k, page_size, num_hashes, canonical, 1 << 30, layout) {
            Ok(built) => built,
            Err(message) => {
                // Ranges (of the size given, or of the most rows, 1024) that cannot fit the
                // minimizers: check that they really do not (fewer than 8 possible
                // minimizers a range). COBS's layout always fits.
                prop_assert!(range_rows > 0, "{}", message);
                let range_rows = if range_rows == 1 { 1024 } else { range_rows };
                let cobs = build_collection(&collection, k, page_size, num_hashes, canonical, 1 << 30, LayoutChoice::Cobs);
                let most = cobs.header.blocks.iter().map(|b| b.row_count).max().unwrap();
                let m = k.div_ceil(2).min(13);
                let space = (1u64 << (2 * m)) / if canonical { 2 } else { 1 };
                prop_assert!(most.div_ceil(range_rows as u64) * 8 > space, "{}", message);
                return Ok(());
            }
        };
        let (false_positive, absent) = check(&collection, &built, canonical);
        check_batches_pruning_and_cache(&built, &collection.queries);
        // k = 3 has only 64 distinct terms: everything is "present"; skip the rate there.
        if k > 3 && absent > 2000 {
            let rate = false_positive as f64 / absent as f64;
            prop_assert!(rate < 0.5, "false-positive rate {rate} too high for fpr 0.3: the index is too full");
        }
    }
}

#[test]
fn a_block_larger_than_the_memory_budget_is_built_in_column_groups() {
    // 150 documents at page size 32: one block of 19 byte columns. The budget holds the
    // builder's per-thread scratch (a column of `rows` bytes, three sequence buffers and 1 MiB
    // per thread, 2 threads) plus 5 columns, so the block is built in 4 groups.
    let collection = collection(7, 150, 31);
    let layout = LayoutChoice::Minimizer {
        range_rows: Some(16),
    };
    let roomy = build_collection(&collection, 31, Some(32), 2, true, 1 << 30, layout);
    assert_eq!(roomy.report.blocks_spilled, 0);
    let rows = roomy.header.blocks[0].row_count;
    let largest = collection
        .documents
        .iter()
        .map(|records| records.iter().map(|r| r.len() as u64).sum::<u64>())
        .max()
        .unwrap();
    let budget = 2 * (rows + 3 * largest + (1 << 20)) + 5 * rows;
    let tight = build_collection(&collection, 31, Some(32), 2, true, budget, layout);
    assert_eq!(
        tight.report.blocks_spilled, 1,
        "the block must have been spilled"
    );
    assert_eq!(
        std::fs::read(&roomy.index).unwrap(),
        std::fs::read(&tight.index).unwrap(),
        "spilled build must write the same bytes"
    );
    check(&collection, &tight, true);
}

#[test]
fn real_genomes_have_no_false_negatives() {
    // Three bundled plasmids and phage lambda; queries: the bundled resistance genes.
    let names = [
        "Kpn_pMCR_1511_KX377410.fa.gz",
        "Eco_pBK32602_KU295134.fa.gz",
        "Kpn_plasmid12_NC_011385.fa.gz",
        "Phage_lambda_NC_001416.fa.gz",
    ];
    let read_all = |path: PathBuf| -> Vec<Vec<u8>> {
        let mut reader = crate::seqfile::SeqReader::open(&path).unwrap();
        let mut record = crate::seqfile::SeqRecord::default();
        let mut records = Vec::new();
        while reader.next_into(&mut record).unwrap() {
            records.push(record.sequence.clone());
        }
        records
    };
    let documents: Vec<Vec<Vec<u8>>> = names
        .iter()
        .map(|n| read_all(demo_file(&format!("genomes/{n}"))))
        .collect();
    let queries: Vec<Vec<u8>> = read_all(demo_file("queries/amr_genes.fa"));
    let collection = Collection { documents, queries };
    for layout in [LayoutChoice::Cobs, LayoutChoice::MINIMIZER] {
        let built = build_collection(&collection, 31, None, 1, true, 1 << 30, layout);
        let (false_positive, absent) = check(&collection, &built, true);
        assert!(absent > 10_000);
        assert!((false_positive as f64 / absent as f64) < 0.45, "{layout}");
    }
}

#[test]
fn flipped_bytes_never_give_a_silent_wrong_answer() {
    // Storage that flips a bit in returned data (issue 12 saw wrong results in 2 of 5 runs).
    // Every answer must be the clean one or an error naming the index, never another score.
    // 64 documents in 8-byte rows: every bit of a row is a document, and at threshold 0
    // every document's score is reported, so a flipped bit in a row a query reads shows.
    let collection = collection(17, 64, 31);
    let built = build_collection(
        &collection,
        31,
        Some(8),
        1,
        true,
        1 << 30,
        LayoutChoice::Minimizer {
            range_rows: Some(16),
        },
    );
    let options = EngineOptions {
        choice: EngineChoice::Pread,
        queue_depth: Some(8),
        direct: DirectIo::Auto,
        ..EngineOptions::default()
    };
    let everything = SearchOptions {
        threshold: 0.0,
        ..SearchOptions::default()
    };
    let key = |answer: crate::query::Answer| -> Result<Vec<(u64, u32)>, String> {
        answer
            .map(|r| r.hits.iter().map(|h| (h.document, h.kmers_found)).collect())
            .map_err(|e| e.to_string())
    };
    let mut clean = open_session(&built.index, &options, threads(1)).unwrap();
    let reference: Vec<_> = collection
        .queries
        .iter()
        .map(|q| key(clean.search(q, &everything)))
        .collect();
    let (mut flipped, mut wrong, mut refused) = (0, 0, 0);
    for seed in 0..20 {
        let plan = FaultPlan {
            flip: 1.0,
            ..FaultPlan::clean(seed)
        };
        let (mut searcher, tally) = faulty_searcher(&built, &options, plan).expect("pread");
        for (q, query) in collection.queries.iter().enumerate() {
            match (key(searcher.search(query, &everything)), &reference[q]) {
                (Err(e), Ok(_)) => {
                    assert!(
                        e.contains("x.cobs_compact"),
                        "the error names the index: {e}"
                    );
                    refused += 1;
                }
                (got, want) => wrong += u32::from(got != *want),
            }
        }
        flipped += tally.get().flipped;
    }
    assert!(flipped > 0, "bits were flipped");
    assert_eq!(
        wrong, 0,
        "silent wrong answers ({refused} answers refused with an error)"
    );
}

/// Documents in families (a family's documents share most of a base sequence, with point
/// mutations and their own extra pieces), interleaved so that the input order mixes them, some
/// shorter than k, with N runs and lowercase stretches; queries from documents (exact,
/// mutated) and random ones. Returns the collection and each document's family.
fn families(seed: u64, families: usize, documents: usize, k: usize) -> (Collection, Vec<usize>) {
    let mut rng = Rng(seed);
    let bases: Vec<Vec<u8>> = (0..families)
        .map(|_| {
            let len = 300 + rng.below(1200) as usize;
            rng.dna(len)
        })
        .collect();
    let mut docs = Vec::new();
    let mut family_of = Vec::new();
    for d in 0..documents {
        let family = rng.below(families as u64) as usize;
        let mut seq = bases[family].clone();
        for _ in 0..seq.len() / 50 {
            let at = rng.below(seq.len() as u64) as usize;
            seq[at] = b"ACGT"[rng.below(4) as usize];
        }
        let extra = rng.below(400) as usize;
        seq.extend(rng.dna(extra));
        if d % 7 == 3 {
            seq.truncate(rng.below(k as u64) as usize);
        }
        if d % 5 == 1 && seq.len() > 40 {
            seq[10..15].copy_from_slice(b"NNNNN");
            seq[20..35].make_ascii_lowercase();
        }
        docs.push(vec![seq]);
        family_of.push(family);
    }
    let mut queries = Vec::new();
    for q in 0..16 {
        let source = &docs[rng.below(docs.len() as u64) as usize][0];
        let mut query = if source.len() > k + 20 && q % 4 != 3 {
            let len = (k + rng.below(200) as usize).min(source.len());
            let at = rng.below((source.len() - len + 1) as u64) as usize;
            source[at..at + len].to_vec()
        } else {
            let len = k + rng.below(100) as usize;
            rng.dna(len)
        };
        if q % 4 == 1 {
            let at = rng.below(query.len() as u64) as usize;
            query[at] = b"ACGT"[rng.below(4) as usize];
        }
        queries.push(query);
    }
    (
        Collection {
            documents: docs,
            queries,
        },
        family_of,
    )
}

/// Builds `collection` with `order` (and a metadata table of families for group orders) and
/// summaries of `bits` bits per k-mer within `cap` bytes; with `per_record`, the documents
/// are records spread over three files.
fn build_ordered(
    collection: &Collection,
    family_of: &[usize],
    order: &crate::builder::order::Order,
    page_size: u64,
    bits: f64,
    cap: u64,
    per_record: bool,
) -> Built {
    let dir = temp_dir();
    let inputs = dir.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    let mut table = String::from("document\tfamily\n");
    let mut files: Vec<Vec<(String, Vec<u8>)>> = vec![Vec::new(); 3];
    for (d, records) in collection.documents.iter().enumerate() {
        if per_record {
            files[d % 3].push((format!("doc{d:03}"), records.concat()));
        } else {
            let named: Vec<(String, Vec<u8>)> = records
                .iter()
                .map(|s| (format!("d{d}"), s.clone()))
                .collect();
            write_fasta(&inputs.join(format!("doc{d:03}.fa")), &named);
        }
        table.push_str(&format!("doc{d:03}\tf{}\n", family_of[d]));
    }
    for (f, records) in files.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
        write_fasta(&inputs.join(format!("records{f}.fa")), records);
    }
    let metadata = dir.path().join("metadata.tsv");
    std::fs::write(&metadata, table).unwrap();
    let index = dir.path().join("x.cobs_compact");
    let report = build(&BuildOptions {
        output: index.clone(),
        inputs: vec![inputs],
        lists: vec![],
        per_record,
        k: 31,
        fpr: 0.3,
        num_hashes: 1,
        canonical: true,
        threads: 2,
        page_size: Some(page_size),
        memory_bytes: 1 << 30,
        force: false,
        progress: false,
        order: order.clone(),
        metadata: matches!(order, crate::builder::order::Order::Group(_)).then_some(metadata),
        summaries: Some(crate::builder::summaries::SummaryOptions {
            bits_per_kmer: bits,
            max_ram_bytes: cap,
        }),
        rows: Default::default(),
        layout: LayoutChoice::Minimizer {
            range_rows: Some(16),
        },
        documents: None,
    })
    .expect("build");
    let header = IndexHeader::open(&index).expect("open built index");
    Built {
        _dir: dir,
        index,
        header,
        report,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, .. ProptestConfig::default() })]

    /// The summary count of a block is never below the brute-force count of the union of its
    /// documents' k-mers (so never below any of its documents' true scores), whatever the
    /// order, bits per k-mer and RAM cap.
    #[test]
    fn summaries_bound_brute_force_for_every_order(
        seed in any::<u64>(),
        family_count in 1usize..6,
        documents in 1usize..90,
        order in prop::sample::select(vec!["size", "input", "similarity", "group:family"]),
        page_size in 1u64..4,
        bits in prop::sample::select(vec![0.25, 1.0, 4.0, 16.0]),
        cap in prop::sample::select(vec![16u64, 4096, 1 << 30]),
        per_record in any::<bool>(),
    ) {
        let (collection, family_of) = families(seed, family_count, documents, 31);
        let order: crate::builder::order::Order = order.parse().unwrap();
        let built = build_ordered(&collection, &family_of, &order, page_size, bits, cap, per_record);
        let header = &built.header;
        let summaries = crate::summary::BlockSummaries::load(&built.index, header)
            .expect("summaries load")
            .expect("summaries written");
        prop_assert_eq!(summaries.block_count(), header.blocks.len());
        prop_assert!(summaries.ram_bytes() <= cap.max(8 * header.blocks.len() as u64));
        // Index documents are the generated ones, each once.
        let generated = generated_numbers(header);
        let mut sorted = generated.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..documents).collect::<Vec<_>>());
        let terms = collection_terms(&collection, 31, true);
        let mut hasher = crate::kmer::KmerHasher::new(31, true, 1, crate::kmer::BaseRule::Cobs);
        prop_assert_eq!(summaries.minimizer(), crate::kmer::minimizer_length(31));
        let mut scanner = crate::kmer::Minimizers::new(31, summaries.minimizer(), true, crate::kmer::BaseRule::Cobs);
        for query in &collection.queries {
            let mut hashes = Vec::new();
            hasher.hashes_into(query, &mut hashes);
            let mut minimizers = Vec::new();
            scanner.minimizers_into(query, &mut minimizers);
            let weights = vec![1u32; hashes.len()];
            for (b, block) in header.blocks.iter().enumerate() {
                let members = &generated[block.first_document as usize..][..block.document_count as usize];
                let union: HashSet<Vec<u8>> =
                    members.iter().flat_map(|&d| terms[d].iter().cloned()).collect();
                let truth = brute_force_count(query, 31, true, &union) as u64;
                let bound = summaries.possible_positions(b, &hashes, 1, &minimizers, &weights);
                prop_assert!(bound >= truth, "block {}: summary {} < brute force {}", b, bound, truth);
                let probes = summaries.prepare(&hashes, 1, &minimizers);
                for needed in [0, truth / 2, truth, truth + 1, bound, bound + 1] {
                    prop_assert_eq!(summaries.reaches(b, &probes, &weights, needed), bound >= needed);
                }
                for &d in members {
                    prop_assert!(brute_force_count(query, 31, true, &terms[d]) as u64 <= bound);
                }
            }
        }
        // Searches with the summaries lose no document that holds a query.
        check_summaries(&collection.queries, &terms, &generated, &built, true);
        // A group order keeps each family contiguous, touching at most one block more than
        // its size needs.
        if matches!(order, crate::builder::order::Order::Group(_)) {
            let per_block = 8 * page_size as usize;
            for family in 0..family_count {
                let positions: Vec<usize> = (0..documents)
                    .filter(|&p| family_of[generated[p]] == family)
                    .collect();
                let Some((&first, &last)) = positions.first().zip(positions.last()) else {
                    continue;
                };
                prop_assert_eq!(last - first + 1, positions.len(), "family {} is contiguous", family);
                let touched = last / per_block - first / per_block + 1;
                prop_assert!(touched <= positions.len().div_ceil(per_block) + 1);
            }
        }
    }
}

/// Families grouped into blocks of 8 documents: the summaries rule out the blocks of the
/// other families, and the searches still find every document that holds a query.
#[test]
fn grouped_families_let_summaries_rule_out_blocks_without_losing_a_hit() {
    let (collection, family_of) = families(7, 6, 96, 31);
    let order: crate::builder::order::Order = "group:family".parse().unwrap();
    let built = build_ordered(&collection, &family_of, &order, 1, 4.0, 1 << 30, false);
    let generated = generated_numbers(&built.header);
    let terms = collection_terms(&collection, 31, true);
    let ruled_out = check_summaries(&collection.queries, &terms, &generated, &built, true);
    assert!(
        ruled_out > 0,
        "{} blocks, 6 families: some blocks must be ruled out",
        built.header.blocks.len()
    );
}

/// An absent gene's blocks are ruled out by the first round of the summary screen alone: it
/// reads the summary pages of about a third of the gene's minimizers at t = 0.8, not all of
/// them; at t = 0.3 (one round of every bucket) it reads them all. Nothing is read of the rows.
#[test]
fn an_absent_gene_is_ruled_out_by_a_sample_of_its_summary_pages() {
    let (collection, family_of) = families(11, 4, 64, 31);
    let order: crate::builder::order::Order = "group:family".parse().unwrap();
    // Generous summaries (64 bits a k-mer): a file of many pages, as a large index has.
    let built = build_ordered(&collection, &family_of, &order, 1, 64.0, 1 << 30, false);
    assert!(
        built.header.blocks.len() >= 4,
        "{}",
        built.header.blocks.len()
    );
    let mut rng = Rng(99);
    let gene = rng.dna(3000);
    let options = EngineOptions {
        choice: EngineChoice::Pread,
        queue_depth: Some(8),
        direct: DirectIo::Off,
        ..EngineOptions::default()
    };
    let side_pages = |threshold: f64| {
        // A fresh searcher each time: nothing in its side cache.
        let mut searcher = open_session(&built.index, &options, threads(1)).unwrap();
        let search = SearchOptions {
            threshold,
            ..SearchOptions::default()
        };
        let result = searcher.search(&gene, &search).unwrap();
        assert_eq!(
            result.stats.blocks_ruled_out,
            built.header.blocks.len() as u64,
            "t={threshold}: every block"
        );
        assert_eq!(result.stats.bytes_read, result.stats.side_bytes_read);
        result.stats.side_bytes_read / 4096
    };
    let (sampled, all) = (side_pages(0.8), side_pages(0.3));
    assert!(all > 100, "a 3 kb gene has ~300 minimizers: {all} pages");
    assert!(
        sampled * 2 < all,
        "the sample reads {sampled} pages against {all}"
    );
}
