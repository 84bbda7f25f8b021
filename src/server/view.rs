//! What a server serves, one view at a time, and how it moves to the next.
//!
//! A [`View`] is everything opened together from the index paths the server was given: the
//! expanded files (a collection's as its manifest listed them, with its removed documents
//! hidden), their searchers and worker threads, their row memory, the identities of the files.
//! The server holds the current view; a request takes it when it starts and keeps it until its
//! answer is written, so a search finishes on the view it started with, and the view's files
//! stay open (also those a merge has unlinked since) until its last search is done.
//!
//! A collection's manifest is the commit point of every change to it (`add`, `remove`,
//! `merge`). The server compares each followed manifest's file identity with the one seen when
//! the view was opened (one `stat`, a few µs) at the start of every request and once a second;
//! a change opens a new view beside the current one and switches atomically, and requests that
//! saw the change wait for the new view, so an answer never comes from a generation older than
//! the one committed when the request arrived. SIGHUP and `POST /api/reload` open a new view
//! whatever changed (plain index files given to `serve` are reloaded that way). A view that
//! cannot be opened leaves the current one serving, with the reason in `/healthz` and the
//! log, and is not tried again until the manifest changes again or a reload is asked for.
//! A collection on a server is followed by its manifest's version there (ETag and size), asked
//! with a `HEAD` once a second by the follow timer ([`View::ask_servers`]), not per request: a
//! request cannot wait for a round trip, so a remote commit is served within that interval.
//! That includes a manifest deleted or replaced by something that is not a file: the
//! collection's directory is then an error ([`crate::collection::is_collection`]), never a
//! plain directory of its files served with its removals forgotten.
//!
//! While two views are open, both hold their memory: row memory (cache or image) and worker
//! threads are per view, and the old view's are released with its last search.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use serde::Serialize;

use super::dispatch::Dispatcher;
use super::metadata::Metadata;
use super::metrics::Metrics;
use super::watch::IndexWatch;
use super::{ServerConfig, ServerError, UnavailableIndex};
use crate::answer::IndexDescription;
use crate::collection::{CollectionSeen, RemoteVersion, SearchSet};
use crate::format::HeaderOptions;
use crate::io::{FileIdentity, MemoryImage, PageCache, RowMemory, Warmup};
use crate::query::{Grouping, Index, OpenError, Sources};
use crate::search::{open_fresh, Opened, SearchSetup, SessionSetup};
use crate::sync::lock;

/// What the server was asked to serve: expanded again at every reload.
pub(crate) use crate::search::IndexSources;

/// A collection a view serves, as its manifest was when the view was opened.
#[derive(Clone, Debug)]
pub(crate) struct Followed {
    /// The name requests and answers use (its directory's name).
    pub name: String,
    /// The manifest seen.
    pub seen: CollectionSeen,
    /// For a collection on a server: its manifest's version there when last asked (once a
    /// second, [`View::ask_servers`]); a request cannot wait for a round trip, so a remote
    /// commit is seen within that interval.
    pub remote_now: Arc<Mutex<Option<RemoteVersion>>>,
}

/// A followed manifest's state now: a local file's identity, a remote file's version.
#[derive(Clone, Debug, PartialEq)]
enum ManifestNow {
    Local(Option<FileIdentity>),
    Remote(Option<RemoteVersion>),
}

/// One generation of what the server serves; see the module documentation.
pub(crate) struct View {
    /// Counts views from 1 (the one opened at start-up).
    pub number: u64,
    /// The collections served, each with the manifest generation seen.
    pub collections: Vec<Followed>,
    /// The index files, in searcher order, each described with its name, file, layout and
    /// generation.
    pub indexes: Vec<IndexDescription>,
    /// Indexes that could not be opened, in the order given.
    pub unavailable: Vec<UnavailableIndex>,
    /// File identities of `indexes`, to see them change on disk.
    pub watch: Arc<IndexWatch>,
    /// The index the workers share.
    pub index: Arc<Index>,
    /// The search workers.
    pub dispatcher: Dispatcher,
    /// Groupings of the documents by a metadata column, made on first use per column.
    groupings: Mutex<HashMap<String, Arc<Grouping>>>,
    /// The page cache.
    pub cache: Option<Arc<PageCache>>,
    /// The image of the whole index, when the cache budget holds it.
    pub image: Option<Arc<MemoryImage>>,
    /// The warm-up streaming the index into the cache, if asked for.
    warmup: Mutex<Option<Warmup>>,
}

/// Why the documents cannot be grouped by a column.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GroupingError {
    /// The server was started without a sample table.
    #[error("cannot group by {0:?}: this server was started without a sample table")]
    NoTable(String),
    /// The table has no such column, or its cells cannot group the documents.
    #[error("{0}")]
    Column(String),
}

/// Why a request's `indexes` cannot be searched.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SelectError {
    /// The request is wrong: an unknown name, or an empty list.
    Invalid(String),
    /// A named index is known but cannot be searched now.
    Unavailable(String),
}

impl View {
    /// Expands the sources and opens view `number`; when a collection's manifest changed in
    /// between (a merge committed and deleted the files it listed), expands again.
    pub(crate) fn open(
        config: &ServerConfig,
        number: u64,
        metrics: &Arc<Metrics>,
    ) -> Result<View, ServerError> {
        open_fresh(&config.sources, |set| {
            View::open_set(config, set, number, metrics)
        })
    }

    fn open_set(
        config: &ServerConfig,
        set: &SearchSet,
        number: u64,
        metrics: &Arc<Metrics>,
    ) -> Result<View, ServerError> {
        let names = index_names(set);
        let collections = followed(set, &names);
        let sorted = sort_out_broken(config, set, names)?;
        // Identities first: a change made while the files are being opened is seen.
        let in_collection = sorted.set.collection_files();
        let watch = IndexWatch::capture(&sorted.set.paths, &in_collection)
            .map_err(|(path, source)| crate::IoAt::new(path, "cannot open", source))?;
        let watch = Arc::new(watch);
        let opened = search_setup(config).open_set(&sorted.set, sources_of(&sorted.names))?;
        tell(config, &opened);
        let index = opened.index;
        let mut indexes = index_entries(&index, &sorted, &collections);
        for (file, entry) in indexes.iter_mut().enumerate() {
            entry.documents = index.shown_documents(file as u32);
        }
        let memory = opened.setup.config.memory;
        let cache = memory.as_ref().and_then(|m| m.pages().cloned());
        let image = match &memory {
            Some(RowMemory::Image(image)) => Some(image.clone()),
            _ => None,
        };
        let dispatcher = Dispatcher::start(
            opened.sessions,
            metrics.clone(),
            config.max_concurrent + config.max_queued,
            watch.clone(),
        );
        Ok(View {
            number,
            collections,
            indexes,
            unavailable: sorted.unavailable,
            watch,
            index,
            dispatcher,
            groupings: Mutex::new(HashMap::new()),
            cache,
            image,
            warmup: Mutex::new(opened.warmup),
        })
    }

    /// Whether a followed manifest was replaced since this view was opened (a remote one: as
    /// its server said when last asked).
    pub(crate) fn stale(&self) -> bool {
        self.collections.iter().any(|c| {
            c.seen.manifest_changed()
                || (c.seen.remote.is_some() && *lock(&c.remote_now) != c.seen.remote)
        })
    }

    /// Asks the servers of the remote collections followed for their manifests' versions
    /// now (a `HEAD` each, off the async threads). A server that cannot be asked leaves the
    /// last answer: an outage is not a commit.
    pub(crate) async fn ask_servers(&self) {
        for followed in self.collections.iter().filter(|c| c.seen.remote.is_some()) {
            let seen = followed.seen.clone();
            let asked = tokio::task::spawn_blocking(move || seen.remote_version_now()).await;
            match asked {
                Ok(Some(Ok(now))) => *lock(&followed.remote_now) = Some(now),
                // The manifest is gone from its server (an answer, not an outage): the
                // reload this makes due fails, and `/healthz` says so, as for a local one.
                Ok(Some(Err(error))) if error.kind() == std::io::ErrorKind::NotFound => {
                    *lock(&followed.remote_now) = None
                }
                Ok(Some(Err(error))) => tracing::warn!(
                    "{}: cannot ask its server for the manifest's version: {error}",
                    followed.seen.directory.display()
                ),
                _ => {}
            }
        }
    }

    /// The states of the followed manifests now.
    fn manifests_now(&self) -> Vec<ManifestNow> {
        self.collections
            .iter()
            .map(|c| match c.seen.remote {
                Some(_) => ManifestNow::Remote(lock(&c.remote_now).clone()),
                None => {
                    ManifestNow::Local(FileIdentity::of(&manifest_path(&c.seen.directory)).ok())
                }
            })
            .collect()
    }

    /// The manifest generation of each collection served, by name.
    pub(crate) fn generations(&self) -> Vec<Generation<'_>> {
        self.collections
            .iter()
            .map(|c| Generation {
                name: &c.name,
                generation: c.seen.generation,
            })
            .collect()
    }

    /// The grouping of the documents by `column` of `metadata`, made on first use; an
    /// error when the server has no such column.
    pub(crate) fn grouping(
        &self,
        metadata: &Metadata,
        column: &str,
    ) -> Result<Arc<Grouping>, GroupingError> {
        if metadata.columns().is_empty() {
            return Err(GroupingError::NoTable(column.to_string()));
        }
        let mut groupings = self.groupings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(grouping) = groupings.get(column) {
            return Ok(grouping.clone());
        }
        let grouping = Arc::new(
            Grouping::new(&self.index, metadata, column)
                .map_err(|e| GroupingError::Column(e.to_string()))?,
        );
        groupings.insert(column.to_string(), grouping.clone());
        Ok(grouping)
    }

    /// The selection mask for index `names`, or an error naming the unknown or unavailable one.
    pub(crate) fn select(&self, names: &[String]) -> Result<Vec<bool>, SelectError> {
        if names.is_empty() {
            return Err(SelectError::Invalid(
                "\"indexes\" is empty; leave it out to search all indexes".into(),
            ));
        }
        let mut mask = vec![false; self.indexes.len()];
        for name in names {
            let mut found = false;
            for (position, entry) in self.indexes.iter().enumerate() {
                if &entry.name == name {
                    mask[position] = true;
                    found = true;
                }
            }
            if found {
                continue;
            }
            if let Some(broken) = self.unavailable.iter().find(|i| &i.name == name) {
                return Err(SelectError::Unavailable(format!(
                    "index {name:?} is unavailable: {}",
                    broken.error
                )));
            }
            let mut known: Vec<&str> = self.indexes.iter().map(|i| i.name.as_str()).collect();
            known.dedup();
            return Err(SelectError::Invalid(format!(
                "unknown index {name:?}; this server has: {}",
                known.join(", ")
            )));
        }
        Ok(mask)
    }

    /// Looks at every index file now and returns the changed ones: (position, error text).
    pub(crate) fn changed_indexes(&self) -> Vec<(usize, &str)> {
        (0..self.watch.len())
            .filter_map(|i| self.watch.check(i).err().map(|e| (i, e)))
            .collect()
    }

    /// Stops the warm-up, if one runs.
    pub(crate) fn stop_warmup(&self) {
        let warmup = self.warmup.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(warmup) = warmup {
            warmup.stop();
        }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        tracing::debug!("view {} closed", self.number);
        self.stop_warmup();
    }
}

/// A collection's name and the manifest generation a view serves.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub(crate) struct Generation<'a> {
    /// The collection's name.
    pub name: &'a str,
    /// Its manifest's generation.
    pub generation: u64,
}

fn manifest_path(directory: &Path) -> PathBuf {
    directory.join(crate::collection::MANIFEST_NAME)
}

/// The collections of `set`, each named as its files are (`names`, per file of `set`).
fn followed(set: &SearchSet, names: &[String]) -> Vec<Followed> {
    set.collections()
        .iter()
        .enumerate()
        .map(|(c, seen)| Followed {
            name: set
                .collection_of()
                .iter()
                .position(|of| *of == Some(c))
                .and_then(|file| names.get(file).cloned())
                .unwrap_or_else(|| collection_name(&seen.directory)),
            seen: seen.clone(),
            remote_now: Arc::new(Mutex::new(seen.remote.clone())),
        })
        .collect()
}

/// A collection is named by its directory's name, as a file is by its file name.
fn collection_name(directory: &Path) -> String {
    directory.file_name().map_or_else(
        || directory.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// The current view, the reload in progress, the last failed reload.
pub(crate) struct Views {
    current: RwLock<Arc<View>>,
    /// Held by the one reload running; requests that need the new view wait for it.
    reloading: tokio::sync::Mutex<()>,
    failure: Mutex<Option<ReloadFailure>>,
}

/// A reload that failed: the current view goes on serving.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ReloadFailure {
    /// Why.
    pub error: String,
    /// The view still served.
    pub view: u64,
    /// When (seconds since the Unix epoch).
    pub at: u64,
    /// The manifests' identities then: not tried again until one changes.
    #[serde(skip)]
    manifests: Vec<ManifestNow>,
}

/// Why a reload is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// A followed manifest changed.
    Manifest,
    /// SIGHUP or `POST /api/reload`: whatever changed.
    Asked,
}

impl Views {
    /// Views starting with `first`.
    pub(crate) fn new(first: View) -> Views {
        Views {
            current: RwLock::new(Arc::new(first)),
            reloading: tokio::sync::Mutex::new(()),
            failure: Mutex::new(None),
        }
    }

    /// The current view, as it is.
    pub(crate) fn current(&self) -> Arc<View> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The last reload that failed, unless a later one succeeded or the followed manifests
    /// went back, since it failed, to those the current view serves (a manifest restored as
    /// it was: nothing is left to reload).
    pub(crate) fn failure(&self) -> Option<ReloadFailure> {
        let failure = self
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()?;
        let view = self.current();
        let moot = failure.view == view.number
            && !view.collections.is_empty()
            && !view.stale()
            && failure.manifests != view.manifests_now();
        (!moot).then_some(failure)
    }

    /// Whether `view` must be replaced: a manifest changed, and not into the state a failed
    /// reload already tried.
    pub(crate) fn due(&self, view: &View) -> bool {
        if !view.stale() {
            return false;
        }
        let failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure
            .as_ref()
            .is_none_or(|f| f.view != view.number || f.manifests != view.manifests_now())
    }

    /// The current view, replaced first when it is [`Views::due`].
    pub(crate) async fn fresh(&self, config: &ServerConfig, metrics: &Arc<Metrics>) -> Arc<View> {
        let view = self.current();
        if !self.due(&view) {
            return view;
        }
        let _ = self.reload(Trigger::Manifest, config, metrics).await;
        self.current()
    }

    /// Opens a new view and switches to it; on failure the current view goes on serving and
    /// the error is kept for `/healthz`. One reload runs at a time.
    pub(crate) async fn reload(
        &self,
        trigger: Trigger,
        config: &ServerConfig,
        metrics: &Arc<Metrics>,
    ) -> Result<Arc<View>, ReloadFailure> {
        let _turn = self.reloading.lock().await;
        let view = self.current();
        if trigger == Trigger::Manifest && !self.due(&view) {
            return Ok(view); // another request reloaded while this one waited
        }
        let manifests = view.manifests_now();
        #[cfg(feature = "remote")]
        crate::io::remote::RemoteObject::forget_all();
        let (config, shared) = (config.clone(), metrics.clone());
        let number = view.number + 1;
        let opened = tokio::task::spawn_blocking(move || View::open(&config, number, &shared))
            .await
            .map_err(|e| e.to_string())
            .and_then(|opened| opened.map_err(|e| e.to_string()));
        match opened {
            Ok(new) => {
                let new = Arc::new(new);
                *self.current.write().unwrap_or_else(|e| e.into_inner()) = new.clone();
                *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = None;
                tracing::info!("{}", describe(&new));
                metrics.reloaded(true);
                Ok(new)
            }
            Err(error) => {
                let failure = ReloadFailure {
                    error: format!("reload failed, view {} still served: {error}", view.number),
                    view: view.number,
                    at: SystemTime::now()
                        .duration_since(SystemTime::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs()),
                    manifests,
                };
                tracing::error!("{}", failure.error);
                metrics.reloaded(false);
                *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(failure.clone());
                Err(failure)
            }
        }
    }
}

/// One line for the log about a new view.
fn describe(view: &View) -> String {
    let generations: Vec<String> = view
        .collections
        .iter()
        .map(|c| format!("{} generation {}", c.name, c.seen.generation))
        .collect();
    let documents: u64 = view.indexes.iter().map(|i| i.documents).sum();
    format!(
        "serving view {}: {}, {}{}",
        view.number,
        crate::units::plural(view.indexes.len() as u64, "index file"),
        crate::units::plural(documents, "document"),
        if generations.is_empty() {
            String::new()
        } else {
            format!(" ({})", generations.join(", "))
        }
    )
}

/// The sources of files named `names` (files of one name are one source).
fn sources_of(names: &[String]) -> Sources {
    let mut sources = Sources::default();
    for name in names {
        let source = match sources.names.iter().position(|n| n == name) {
            Some(source) => source,
            None => {
                sources.names.push(name.clone());
                sources.names.len() - 1
            }
        };
        sources.of_file.push(source as u32);
    }
    sources
}

/// Names for the files of `set`, unique per source: a collection's files all take the
/// collection's name (its directory's name), other files their file name without extension;
/// a name taken by another source gets a number.
fn index_names(set: &SearchSet) -> Vec<String> {
    let collections: Vec<Option<String>> = set
        .collection_of()
        .iter()
        .map(|c| c.map(|c| collection_name(&set.collections()[c].directory)))
        .collect();
    unique_names(&set.paths, &collections)
}

fn unique_names(paths: &[PathBuf], collections: &[Option<String>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(paths.len());
    // Names given so far, each with the collection it stands for (`None`: a plain file).
    let mut taken: Vec<(String, Option<&str>)> = Vec::new();
    for (position, path) in paths.iter().enumerate() {
        let collection = collections.get(position).and_then(Option::as_deref);
        if let Some(c) = collection {
            if let Some((name, _)) = taken.iter().find(|(_, of)| *of == Some(c)) {
                names.push(name.clone());
                continue;
            }
        }
        let stem = collection.map(str::to_string).unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "index".into())
        });
        let mut name = stem.clone();
        let mut n = 2;
        while taken.iter().any(|(t, _)| *t == name) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        taken.push((name.clone(), collection));
        names.push(name);
    }
    names
}

/// The files a view serves, and those it leaves out.
struct Sorted {
    /// Files to serve, with what their manifests record.
    set: SearchSet,
    /// Their names.
    names: Vec<String>,
    /// Indexes left out.
    unavailable: Vec<UnavailableIndex>,
}

/// The files to serve: all of them, or with `skip_broken` those that open on their own,
/// the others listed with their error.
fn sort_out_broken(
    config: &ServerConfig,
    set: &SearchSet,
    names: Vec<String>,
) -> Result<Sorted, ServerError> {
    let mut keep = Vec::with_capacity(set.paths.len());
    let mut sorted = Sorted {
        set: set.clone(),
        names: Vec::new(),
        unavailable: Vec::new(),
    };
    for (path, name) in set.paths.iter().zip(names) {
        // Opening each index alone runs every check a session makes, and finds them all.
        let broken = match config.skip_broken {
            true => opens_alone(path, config).err(),
            false => None,
        };
        keep.push(broken.is_none());
        match broken {
            Some(error) => {
                tracing::warn!("{error}; serving the other indexes without it");
                sorted.unavailable.push(UnavailableIndex {
                    name,
                    file: path.display().to_string(),
                    error: error.to_string(),
                });
            }
            None => sorted.names.push(name),
        }
    }
    sorted.set.retain(&keep);
    if sorted.set.paths.is_empty() {
        let errors: Vec<&str> = sorted
            .unavailable
            .iter()
            .map(|u| u.error.as_str())
            .collect();
        return Err(ServerError::NothingToServe(errors.join("\n")));
    }
    Ok(sorted)
}

/// Whether the index file at `path` opens with a session on its own.
fn opens_alone(path: &Path, config: &ServerConfig) -> Result<(), OpenError> {
    let index = Index::open(&[path.to_path_buf()], &HeaderOptions::default())?;
    let setup = SessionSetup {
        engine: config.engine,
        ..SessionSetup::default()
    };
    setup.open(&index).map(drop)
}

/// The setup of a view's indexes and workers: one session per worker, sharing the memory of
/// the cache budget (a paged cache, or one image of the whole index when the budget holds it,
/// see [`RowMemory`]); rows scored in memory spread over every core, the threads coming from
/// one shared pool, so workers running at once share the cores instead of multiplying them.
fn search_setup(config: &ServerConfig) -> SearchSetup {
    SearchSetup {
        sources: config.sources.clone(),
        header: HeaderOptions::default(),
        side_memory: config.side_memory,
        cache_bytes: (config.cache_bytes > 0).then_some(config.cache_bytes),
        warm: config.warm,
        sessions: config.workers.max(1),
        session: SessionSetup {
            engine: config.engine,
            ..SessionSetup::default()
        },
    }
}

/// Logs what the open found: block summaries that cannot be used (their indexes are searched
/// in full) and the summaries' size, an engine fallback.
fn tell(config: &ServerConfig, opened: &Opened) {
    for problem in &opened.notices.ones_problems {
        tracing::warn!("{problem}");
    }
    if config.summaries {
        for problem in &opened.notices.summary_problems {
            tracing::warn!("{problem}");
        }
        let summaries = opened.index.summaries();
        if summaries.any() {
            tracing::info!(
                "block summaries: {} on disk, read page by page; side memory budget {}",
                crate::units::format_bytes(summaries.file_bytes()),
                crate::units::format_bytes(opened.index.side_memory())
            );
        }
    }
    if let Some(notice) = &opened.notices.engine {
        tracing::warn!("{notice}");
    }
}

/// What the server tells about each file of `index`.
fn index_entries(
    index: &Index,
    sorted: &Sorted,
    collections: &[Followed],
) -> Vec<IndexDescription> {
    index
        .headers()
        .iter()
        .zip(&sorted.names)
        .zip(sorted.set.collection_of())
        .map(|((header, name), &collection)| {
            let mut entry = IndexDescription::new(name, header, 0);
            entry.file = Some(header.path.display().to_string());
            entry.layout = Some(header.rows);
            entry.generation = collection
                .and_then(|c| collections.get(c))
                .map(|c| c.seen.generation);
            entry
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_names_are_unique() {
        let paths: Vec<PathBuf> = ["a/x.cobs_compact", "b/x.cobs_compact", "y.cobs_classic"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(unique_names(&paths, &[]), vec!["x", "x_2", "y"]);
        // A collection's files share its name; a file named like it gets a number.
        let files: Vec<PathBuf> = [
            "c/sub-1.cobs_compact",
            "c/sub-2.cobs_compact",
            "d/c.cobs_compact",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let of = [Some("c".to_string()), Some("c".to_string()), None];
        assert_eq!(unique_names(&files, &of), vec!["c", "c", "c_2"]);
    }
}
