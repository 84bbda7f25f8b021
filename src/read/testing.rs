//! An engine that owns the read path's layers, for tests of the layers on plain data files:
//! [`Stack`] is an engine like any other, so every engine test runs through it too.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{with_layers, Integrity, LayerScratch, Layers, SIDE_PAGE_BYTES};
use crate::format::checksums::ChecksumBuilder;
use crate::format::{sidecar_path, ChecksumTable, CHECKSUM_PAGE_BYTES};
use crate::io::{EngineKind, FaultHook, IoError, PageCache, ReadBatch, ReadEngine, ResidentFiles};

/// Which layers a [`Stack`] has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Which {
    /// The checksum layer.
    pub checks: bool,
    /// The row cache.
    pub cache: bool,
}

/// Writes the checksum sidecar of the data file `path`; returns the sidecar's path.
pub(crate) fn write_sidecar(path: &Path) -> PathBuf {
    let bytes = std::fs::read(path).unwrap();
    let mut builder = ChecksumBuilder::new(0);
    builder.update(&bytes);
    builder.finish(path).write().unwrap();
    sidecar_path(path)
}

/// The files an engine under a [`Stack`] over `data` must open: the data files, then their
/// sidecars (written here).
pub(crate) fn files_with_sidecars(data: &[PathBuf]) -> Vec<PathBuf> {
    let mut all = data.to_vec();
    all.extend(data.iter().map(|p| write_sidecar(p)));
    all
}

/// An engine with the read path's layers; see the module documentation.
pub(crate) struct Stack {
    engine: Box<dyn ReadEngine>,
    integrity: Integrity,
    side: Option<PageCache>,
    rows: Option<Arc<PageCache>>,
    paths: Vec<PathBuf>,
    data_files: u32,
    scratch: LayerScratch,
}

impl Stack {
    /// `which` layers over `engine`, opened on [`files_with_sidecars`]`(data)`.
    pub(crate) fn new(engine: Box<dyn ReadEngine>, data: &[PathBuf], which: Which) -> Stack {
        let n = data.len() as u32;
        assert_eq!(
            engine.file_count(),
            2 * data.len(),
            "data files and their sidecars"
        );
        let tables = data
            .iter()
            .enumerate()
            .map(|(f, path)| {
                which.checks.then(|| {
                    let size = engine.file_size(f as u32);
                    (ChecksumTable::open_data(path, size).unwrap(), n + f as u32)
                })
            })
            .collect();
        Stack {
            engine,
            integrity: Integrity::from_tables(tables),
            side: which
                .checks
                .then(|| PageCache::new(1 << 20, SIDE_PAGE_BYTES as usize)),
            rows: which.cache.then(|| Arc::new(PageCache::new(8 << 20, 4096))),
            paths: files_with_sidecars_paths(data),
            data_files: n,
            scratch: LayerScratch::default(),
        }
    }

    /// The row cache, if any.
    pub(crate) fn row_cache(&self) -> Option<&PageCache> {
        self.rows.as_deref()
    }
}

fn files_with_sidecars_paths(data: &[PathBuf]) -> Vec<PathBuf> {
    let mut all = data.to_vec();
    all.extend(data.iter().map(|p| sidecar_path(p)));
    all
}

impl ReadEngine for Stack {
    fn kind(&self) -> EngineKind {
        self.engine.kind()
    }

    fn alignment(&self) -> u64 {
        let mut align = self.engine.alignment();
        if self.integrity.any() {
            align = align.max(CHECKSUM_PAGE_BYTES);
        }
        if let Some(rows) = &self.rows {
            align = align.max(rows.page_size() as u64);
        }
        align
    }

    fn read_shape(&self) -> crate::io::ReadShape {
        crate::io::ReadShape {
            alignment: self.alignment(),
            ..self.engine.read_shape()
        }
    }

    fn direct(&self) -> bool {
        self.engine.direct()
    }

    fn file_count(&self) -> usize {
        self.data_files as usize
    }

    fn file_size(&self, file: u32) -> u64 {
        self.engine.file_size(file)
    }

    fn read_batch(&mut self, batch: ReadBatch<'_>) -> Result<(), IoError> {
        let layers = Layers {
            integrity: &self.integrity,
            side_cache: self.side.as_ref(),
            row_cache: self.rows.as_deref(),
            index_files: self.data_files,
            paths: &self.paths,
        };
        with_layers(self.engine.as_mut(), &layers, &mut self.scratch, |engine| {
            engine.read_batch(batch)
        })
    }

    fn set_fault_hook(&mut self, hook: Option<Arc<dyn FaultHook>>) -> bool {
        self.engine.set_fault_hook(hook)
    }

    fn resident(&self) -> Option<&dyn ResidentFiles> {
        None
    }
}
