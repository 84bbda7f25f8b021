//! `add`: new genomes become a new sub-index (built with the collection's parameters), or an
//! existing index is adopted as one; both are registered in one manifest commit.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::clean::{clean, only_leftovers, remove_sidecars};
use super::lock::{WriterLock, LOCK_NAME};
use super::manifest::{subindex_path, Manifest, Parameters, Provenance, SubIndex};
use super::manifest_file::open_manifest;
use super::{crash, CollectionError, NAMES_SHOWN_MAX, SIDECAR_SUFFIXES};
use crate::builder::layout::RowSizing;
use crate::builder::{build, BuildOptions, BuildReport};
use crate::format::{
    IndexHeader, IndexKind, LayoutChoice, MINIMIZER_FPR_MIN, MINIMIZER_K_MIN, RANGE_ROWS_DEFAULT,
};
use crate::timestamp;

/// Parameters the user gave explicitly; `None` means "the collection's" (or the default for a
/// new collection).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ExplicitParameters {
    /// Term size.
    pub k: Option<u32>,
    /// False-positive rate.
    pub fpr: Option<f64>,
    /// Hash functions.
    pub hashes: Option<u32>,
    /// Canonical k-mers.
    pub canonical: Option<bool>,
    /// Bytes per row.
    pub page_size: Option<u64>,
    /// How blocks' rows are sized.
    pub rows: Option<RowSizing>,
    /// Where new sub-indexes put a k-mer's rows.
    pub layout: Option<LayoutChoice>,
}

/// What to do with document names the collection already shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DuplicatePolicy {
    /// Refuse the addition.
    #[default]
    Error,
    /// Add, with a warning naming them.
    Warn,
    /// Add silently.
    Allow,
}

/// What to add.
#[derive(Clone, Debug)]
pub struct AddOptions {
    /// The collection (created when it does not exist).
    pub directory: PathBuf,
    /// Sequence files and directories to build into one new sub-index.
    pub inputs: Vec<PathBuf>,
    /// Files listing inputs.
    pub lists: Vec<PathBuf>,
    /// One document per record.
    pub per_record: bool,
    /// Existing COBS indexes to adopt, one sub-index each.
    pub adopt: Vec<PathBuf>,
    /// Parameters given explicitly.
    pub explicit: ExplicitParameters,
    /// Build threads.
    pub threads: usize,
    /// Build memory budget.
    pub memory_bytes: u64,
    /// Show build progress.
    pub progress: bool,
    /// Which documents of the new sub-index share blocks.
    pub order: crate::builder::order::Order,
    /// The metadata table a group order reads.
    pub metadata: Option<PathBuf>,
    /// Block summaries to write beside the new sub-index.
    pub summaries: Option<crate::builder::summaries::SummaryOptions>,
    /// Duplicate names.
    pub duplicates: DuplicatePolicy,
}

/// What `add` did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AddReport {
    /// Whether the collection was created.
    pub created: bool,
    /// The manifest's generation after the commit.
    pub generation: u64,
    /// The new sub-indexes.
    pub added: Vec<SubIndex>,
    /// The build, when genomes were built.
    pub build: Option<BuildReport>,
    /// Names that were already shown (with a policy that let them in).
    pub duplicates: Vec<String>,
    /// Leftovers of interrupted writers that were removed.
    pub cleaned: Vec<String>,
}

/// Adds genomes and/or adopted indexes to the collection; see the module documentation. A
/// failed addition to a new collection (a directory that did not exist or was empty) leaves
/// no directory, or an empty one, behind.
pub fn add(options: &AddOptions) -> Result<AddReport, CollectionError> {
    if options.inputs.is_empty() && options.lists.is_empty() && options.adopt.is_empty() {
        return Err(CollectionError::Invalid(
            "nothing to add: give sequence files, a list of them, or an index to adopt".into(),
        ));
    }
    let directory = &options.directory;
    let created = prepare_directory(directory)?;
    let was_empty = created || is_empty_directory(directory)?;
    let result = add_locked(options, created);
    if result.is_err() && was_empty && !super::is_collection(directory) {
        undo_new_directory(directory, created);
    }
    result
}

/// Whether `directory` holds nothing at all.
fn is_empty_directory(directory: &Path) -> Result<bool, CollectionError> {
    let mut entries = std::fs::read_dir(directory).map_err(CollectionError::io(
        directory,
        "cannot list the collection directory",
    ))?;
    Ok(entries.next().is_none())
}

/// Removes what a failed first addition made: the lock file, then the directory if this
/// addition created it (and it is empty again). Best effort: the next writer cleans up what
/// is left ([`clean`]).
fn undo_new_directory(directory: &Path, created: bool) {
    let lock = directory.join(LOCK_NAME);
    if let Err(e) = std::fs::remove_file(&lock) {
        if e.kind() != std::io::ErrorKind::NotFound {
            tracing::debug!("{}: cannot remove: {e}", lock.display());
        }
    }
    if created {
        if let Err(e) = std::fs::remove_dir(directory) {
            tracing::debug!("{}: cannot remove: {e}", directory.display());
        }
    }
}

/// [`add`] under the collection's lock, in a directory that exists.
fn add_locked(options: &AddOptions, created: bool) -> Result<AddReport, CollectionError> {
    let directory = &options.directory;
    // Checked before the lock too, so a foreign directory, or a collection whose manifest is
    // lost, does not even get a lock file.
    has_manifest(directory)?;
    let _lock = WriterLock::acquire(directory)?;
    let existing = match has_manifest(directory)? {
        true => Some(Manifest::load_for_writing(directory)?),
        false => None,
    };
    let cleaned = clean(directory, existing.as_ref())?;
    let is_new = existing.is_none();
    let mut manifest = match existing {
        Some(manifest) => {
            check_explicit(directory, &manifest.parameters, &options.explicit)?;
            manifest
        }
        None => Manifest::new(new_parameters(options)?),
    };
    let mut added = Vec::new();
    let result = add_files(options, &mut manifest, &mut added);
    let outcome = result.and_then(|report| {
        let duplicates = check_duplicates(directory, &manifest, &added, options.duplicates)?;
        Ok((report, duplicates))
    });
    let (build_report, duplicates) = match outcome {
        Ok(done) => done,
        Err(error) => {
            discard(directory, &added);
            return Err(error);
        }
    };
    crash::point("add-registering");
    manifest.subindexes.extend(added.iter().cloned());
    if let Err(error) = manifest.commit(directory) {
        discard(directory, &added);
        return Err(error);
    }
    crash::point("add-committed");
    Ok(AddReport {
        created: created || is_new,
        generation: manifest.generation,
        added,
        build: build_report,
        duplicates,
        cleaned,
    })
}

/// Whether `directory` is a collection with a manifest to load (`true`), or may become a new
/// one (`false`: it holds nothing, or only a writer's lock and temporary files). An error
/// when it holds someone else's files, or is a collection whose manifest is lost: a new
/// collection there would delete its sub-index files as leftovers.
fn has_manifest(directory: &Path) -> Result<bool, CollectionError> {
    if super::is_collection(directory) {
        open_manifest(directory)?;
        return Ok(true);
    }
    if !only_leftovers(directory)? {
        return Err(CollectionError::NotACollection {
            path: directory.to_path_buf(),
        });
    }
    Ok(false)
}

/// Builds the inputs and adopts the indexes into new, not yet listed, sub-index files.
fn add_files(
    options: &AddOptions,
    manifest: &mut Manifest,
    added: &mut Vec<SubIndex>,
) -> Result<Option<BuildReport>, CollectionError> {
    let mut report = None;
    if !options.inputs.is_empty() || !options.lists.is_empty() {
        let (sub, built) = build_subindex(options, manifest)?;
        added.push(sub);
        report = Some(built);
        crash::point("add-built");
    }
    for path in &options.adopt {
        added.push(adopt(&options.directory, manifest, path)?);
        crash::point("add-adopted");
    }
    Ok(report)
}

/// Creates `directory` when missing (its parent must exist); returns whether it did.
fn prepare_directory(directory: &Path) -> Result<bool, CollectionError> {
    if directory.is_dir() {
        return Ok(false);
    }
    if directory.exists() {
        return Err(CollectionError::Invalid(format!(
            "{}: exists and is not a directory; a collection is a directory",
            directory.display()
        )));
    }
    std::fs::create_dir(directory).map_err(CollectionError::io(
        directory,
        "cannot create the collection directory",
    ))?;
    Ok(true)
}

/// The parameters of a new collection: explicit ones, else those of the first adopted index
/// when nothing is built, else the build defaults.
fn new_parameters(options: &AddOptions) -> Result<Parameters, CollectionError> {
    let explicit = &options.explicit;
    let building = !options.inputs.is_empty() || !options.lists.is_empty();
    let (k, canonical, hashes, layout) = match (building, options.adopt.first()) {
        (false, Some(first)) => {
            let header = IndexHeader::open(first)?;
            let layout = LayoutChoice::of(header.rows);
            (header.k, header.canonical, header.num_hashes, layout)
        }
        // Minimizer ranges of one size for every sub-index, whatever its page size: merges
        // combine only sub-indexes of one layout (a standalone build sizes its ranges by its
        // page size instead, LayoutChoice::range_rows_for).
        _ => (
            31,
            true,
            1,
            LayoutChoice::Minimizer {
                range_rows: Some(RANGE_ROWS_DEFAULT),
            },
        ),
    };
    let k = explicit.k.unwrap_or(k);
    // A collection built at a low rate or with short terms keeps COBS's layout
    // (LayoutChoice::default_for).
    let cobs_default =
        building && (explicit.fpr.is_some_and(|f| f < MINIMIZER_FPR_MIN) || k < MINIMIZER_K_MIN);
    let layout = match (explicit.layout, cobs_default) {
        (Some(given), _) => given,
        (None, true) => LayoutChoice::Cobs,
        // Minimizers shorter than 13 bases are too few for ranges of 16 rows of large
        // genomes: each sub-index gets ranges that fit (LayoutChoice::fit).
        (None, false) if building && crate::kmer::minimizer_length(k) < 13 => {
            LayoutChoice::MINIMIZER
        }
        (None, false) => layout,
    };
    let parameters = Parameters {
        k,
        canonical: explicit.canonical.unwrap_or(canonical),
        hashes: explicit.hashes.unwrap_or(hashes),
        fpr: explicit.fpr.or(building.then_some(0.3)),
        page_size: explicit.page_size,
        // Row counts that divide one another, so that later additions merge into full
        // blocks (issue 36: exact rows left two adds at 2 blocks after a merge); the cost is
        // up to 2x the rows of a block, measured in BENCHMARKS.md.
        rows: explicit.rows.unwrap_or(RowSizing::PowerOfTwo),
        layout,
    };
    Ok(parameters)
}

/// Refuses explicit parameters that differ from the collection's.
fn check_explicit(
    directory: &Path,
    parameters: &Parameters,
    explicit: &ExplicitParameters,
) -> Result<(), CollectionError> {
    let mismatch = |what: &str, given: String, has: String| {
        CollectionError::Mismatch {
        path: directory.to_path_buf(),
        detail: format!(
            "{what} {given} was asked for but the collection has {what} {has}; every sub-index of a collection shares k, hash functions, false-positive rate, canonical form and (when the collection fixes it) page size, so leave it unset to use the collection's"
        ),
    }
    };
    if let Some(k) = explicit.k.filter(|&k| k != parameters.k) {
        return Err(mismatch("k =", k.to_string(), parameters.k.to_string()));
    }
    if let Some(h) = explicit.hashes.filter(|&h| h != parameters.hashes) {
        return Err(mismatch(
            "hash functions =",
            h.to_string(),
            parameters.hashes.to_string(),
        ));
    }
    if let Some(c) = explicit.canonical.filter(|&c| c != parameters.canonical) {
        let word = |c: bool| if c { "canonical" } else { "non-canonical" }.to_string();
        return Err(mismatch("k-mers", word(c), word(parameters.canonical)));
    }
    if let (Some(given), Some(has)) = (explicit.fpr, parameters.fpr) {
        if (given - has).abs() > 1e-12 {
            return Err(mismatch(
                "false-positive rate",
                given.to_string(),
                has.to_string(),
            ));
        }
    }
    if let (Some(given), Some(has)) = (explicit.page_size, parameters.page_size) {
        if given != has {
            return Err(mismatch("page size", given.to_string(), has.to_string()));
        }
    }
    Ok(())
}

/// Builds the new genomes into the next sub-index file.
fn build_subindex(
    options: &AddOptions,
    manifest: &mut Manifest,
) -> Result<(SubIndex, BuildReport), CollectionError> {
    let parameters = &mut manifest.parameters;
    let Some(fpr) = options.explicit.fpr.or(parameters.fpr) else {
        return Err(CollectionError::UnknownFpr {
            path: options.directory.clone(),
        });
    };
    parameters.fpr = Some(fpr);
    let page_size = parameters.page_size.or(options.explicit.page_size);
    // Row sizing is a policy for new sub-indexes, not a parameter searches share: an addition
    // may change it (sub-indexes of both kinds search together).
    parameters.rows = options.explicit.rows.unwrap_or(parameters.rows);
    // So is the row layout: sub-indexes of both layouts search together.
    parameters.layout = options.explicit.layout.unwrap_or(parameters.layout);
    let build_options = BuildOptions {
        output: PathBuf::new(),
        inputs: options.inputs.clone(),
        lists: options.lists.clone(),
        per_record: options.per_record,
        k: parameters.k,
        fpr,
        num_hashes: parameters.hashes,
        canonical: parameters.canonical,
        threads: options.threads,
        page_size,
        memory_bytes: options.memory_bytes,
        force: false,
        progress: options.progress,
        order: options.order.clone(),
        metadata: options.metadata.clone(),
        summaries: options.summaries,
        rows: parameters.rows,
        layout: parameters.layout,
        documents: None,
    };
    let file = manifest.reserve_file("cobs_compact");
    let output = subindex_path(&options.directory, &file);
    let build_options = BuildOptions {
        output: output.clone(),
        ..build_options
    };
    let report = build(&build_options)?;
    let header = IndexHeader::open(&output)?;
    let provenance = Provenance::now(
        "add",
        serde_json::json!({
            "k": build_options.k,
            "fpr": build_options.fpr,
            "hashes": build_options.num_hashes,
            "canonical": build_options.canonical,
            "page_size": build_options.page_size,
            "rows": build_options.rows,
            "layout": build_options.layout,
            "per_record": build_options.per_record,
            "threads": build_options.threads,
            "memory_bytes": build_options.memory_bytes,
        }),
        options
            .inputs
            .iter()
            .chain(&options.lists)
            .map(|p| p.display().to_string())
            .collect(),
    );
    Ok((entry(file, &header, provenance)?, report))
}

/// A manifest entry describing `header`'s file.
pub(super) fn entry(
    file: String,
    header: &IndexHeader,
    provenance: Provenance,
) -> Result<SubIndex, CollectionError> {
    let documents = header.names.all()?.iter().map(str::to_string).collect();
    // A merged file adopted from another collection keeps its placeholders hidden.
    let padding = header.names.placeholders().to_vec();
    Ok(entry_named(file, header, documents, padding, provenance))
}

/// A manifest entry describing `header`'s file, whose names are `documents` and whose
/// placeholders (hidden for good) are `padding`.
pub(super) fn entry_named(
    file: String,
    header: &IndexHeader,
    documents: Vec<String>,
    padding: Vec<u64>,
    provenance: Provenance,
) -> SubIndex {
    SubIndex {
        file,
        kind: header.kind.into(),
        page_size: header.page_size,
        blocks: header.blocks.len() as u64,
        layout: header.rows,
        bytes: header.file_size,
        document_count: header.document_count(),
        names_digest: Some(header.names.digest()),
        documents,
        names_loaded: true,
        hidden: Vec::new(),
        hidden_documents: Vec::new(),
        placeholders: padding.len() as u64,
        padding,
        created: timestamp::now_rfc3339(),
        provenance,
    }
}

/// Brings an existing index in: checks its parameters, then hard-links it into the
/// collection (or copies it across file systems), with its sidecars.
fn adopt(
    directory: &Path,
    manifest: &mut Manifest,
    source: &Path,
) -> Result<SubIndex, CollectionError> {
    let header = IndexHeader::open(source)?;
    let parameters = &manifest.parameters;
    let differs = |what: &str, has: String, wants: String| {
        CollectionError::AdoptMismatch {
        path: source.to_path_buf(),
        detail: format!(
            "cannot adopt: the index has {what} {has} but the collection has {what} {wants}; only indexes with the collection's k, hash functions and canonical form can join it"
        ),
    }
    };
    if header.k != parameters.k {
        return Err(differs(
            "k =",
            header.k.to_string(),
            parameters.k.to_string(),
        ));
    }
    if header.num_hashes != parameters.hashes {
        return Err(differs(
            "hash functions =",
            header.num_hashes.to_string(),
            parameters.hashes.to_string(),
        ));
    }
    if header.canonical != parameters.canonical {
        let word = |c: bool| if c { "canonical" } else { "non-canonical" }.to_string();
        return Err(differs(
            "k-mers",
            word(header.canonical),
            word(parameters.canonical),
        ));
    }
    let extension = match header.kind {
        IndexKind::Compact => "cobs_compact",
        IndexKind::Classic => "cobs_classic",
    };
    let file = manifest.reserve_file(extension);
    let target = subindex_path(directory, &file);
    link_or_copy(source, &target)?;
    for suffix in SIDECAR_SUFFIXES {
        let sidecar = PathBuf::from(format!("{}{suffix}", source.display()));
        if sidecar.is_file() {
            let copy = PathBuf::from(format!("{}{suffix}", target.display()));
            copy_synced(&sidecar, &copy, "cannot copy the sidecar")?;
        }
    }
    // A catalog of its own, from the file as it is now (one beside the source may be stale).
    crate::builder::output::write_catalog(&target);
    let provenance = Provenance::now(
        "adopt",
        serde_json::json!({}),
        vec![source.display().to_string()],
    );
    entry(file, &header, provenance)
}

/// Hard-links `source` to `target`, or copies it (and syncs the copy) when linking fails.
fn link_or_copy(source: &Path, target: &Path) -> Result<(), CollectionError> {
    if std::fs::hard_link(source, target).is_ok() {
        return Ok(());
    }
    copy_synced(source, target, "cannot copy the adopted index")
}

/// Copies `source` to `target` (a name the manifest does not list yet, so a crash leaves a
/// leftover, never a half file in the collection) and syncs the copy, so that it is durable
/// before the manifest that lists it.
fn copy_synced(source: &Path, target: &Path, action: &'static str) -> Result<(), CollectionError> {
    std::fs::copy(source, target).map_err(CollectionError::io(target, action))?;
    std::fs::File::open(target)
        .and_then(|file| file.sync_all())
        .map_err(CollectionError::io(target, action))
}

/// Applies the duplicate policy to the new sub-indexes' names against the names the
/// collection shows (and each other). Returns the duplicates let in.
fn check_duplicates(
    directory: &Path,
    manifest: &Manifest,
    added: &[SubIndex],
    policy: DuplicatePolicy,
) -> Result<Vec<String>, CollectionError> {
    if policy == DuplicatePolicy::Allow {
        return Ok(Vec::new());
    }
    let mut shown: HashSet<&str> = manifest
        .subindexes
        .iter()
        .flat_map(SubIndex::visible_names)
        .collect();
    let mut duplicates = Vec::new();
    for name in added.iter().flat_map(SubIndex::visible_names) {
        if !shown.insert(name) {
            duplicates.push(name.to_string());
        }
    }
    if duplicates.is_empty() {
        return Ok(duplicates);
    }
    if policy == DuplicatePolicy::Error {
        return Err(CollectionError::Duplicates {
            path: directory.to_path_buf(),
            count: duplicates.len(),
            names: duplicates.into_iter().take(NAMES_SHOWN_MAX).collect(),
        });
    }
    tracing::warn!(
        "{}: {} document name(s) already in the collection were added again: {}",
        directory.display(),
        duplicates.len(),
        duplicates
            .iter()
            .take(NAMES_SHOWN_MAX)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(duplicates)
}

/// Deletes the files of sub-indexes that will not be registered.
fn discard(directory: &Path, added: &[SubIndex]) {
    for sub in added {
        let _ = std::fs::remove_file(subindex_path(directory, &sub.file));
        let _ = remove_sidecars(directory, &sub.file);
    }
}
