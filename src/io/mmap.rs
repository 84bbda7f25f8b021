//! The mmap engine: what COBS does (whole-file mapping, `MADV_RANDOM`), so that a comparison
//! with COBS isolates the access pattern from everything else. Each read is a slice of the
//! mapping handed to the consumer; touching it may take a synchronous page fault.
//!
//! A page the kernel cannot supply (an I/O error, or a file truncated while mapped) raises
//! SIGBUS. Every mapping is registered with the [SIGBUS guard](super::sigbus), and each read
//! touches its pages before the consumer sees them: a fault there fails that read (naming the
//! file and offset) instead of killing the process, and the page is remembered as poisoned so
//! that later reads of it fail too. [`Mappings::mapping`] and [`Mappings::take_fault`]
//! give the same guard to callers that read the mapping directly.

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::{Advice, Mmap, MmapOptions};

use super::sigbus::{self, GuardError, Registration};
use super::{EngineKind, IoError, MemoryEngine, MemoryFiles, ResidentFiles};

/// One mapped file. `guard` is declared before `map` so that it unregisters first.
struct Mapped {
    path: PathBuf,
    file: File,
    guard: Registration,
    map: Mmap,
}

/// Memory-mapped files; see the module documentation.
pub(crate) type MmapEngine = MemoryEngine<Mappings>;

/// The files of an [`MmapEngine`], each mapped and guarded.
pub(crate) struct Mappings {
    maps: Vec<Mapped>,
}

impl MmapEngine {
    /// Maps every file read-only with `MADV_RANDOM`, each guarded against SIGBUS.
    pub(crate) fn open(paths: &[PathBuf]) -> Result<Self, IoError> {
        Ok(MemoryEngine::new(Mappings::open(paths)?))
    }
}

impl Mappings {
    /// See [`MmapEngine::open`].
    pub(super) fn open(paths: &[PathBuf]) -> Result<Self, IoError> {
        let mut maps = Vec::with_capacity(paths.len());
        for path in paths {
            let open_error = |source| IoError::Open {
                path: path.clone(),
                source,
            };
            let file = super::open_regular(path).map_err(open_error)?;
            // SAFETY: the mapping is read-only. A page the kernel cannot supply (I/O error,
            // truncation by another process) raises SIGBUS, which the guard registered just
            // below turns into an error for the read that touched it.
            let map = unsafe { MmapOptions::new().map(&file) }.map_err(open_error)?;
            map.advise(Advice::Random).map_err(open_error)?;
            let guard = sigbus::register(map.as_ptr(), map.len()).map_err(|e| {
                let detail = match e {
                    GuardError::TableFull => {
                        format!("more than {} files mapped at once", sigbus::MAPPINGS_MAX)
                    }
                    GuardError::Install(errno) => format!(
                        "cannot install the SIGBUS guard: {}",
                        std::io::Error::from_raw_os_error(errno)
                    ),
                };
                IoError::Unavailable {
                    engine: "mmap",
                    detail,
                }
            })?;
            maps.push(Mapped {
                path: path.clone(),
                file,
                guard,
                map,
            });
        }
        Ok(Mappings { maps })
    }

    /// The whole mapping of file `file`, for callers that score straight from resident
    /// memory. After reading from it, call [`Mappings::take_fault`] and discard what was
    /// computed if it reports a fault: a faulted page reads as zeros.
    pub(crate) fn mapping(&self, file: u32) -> &[u8] {
        &self.maps[file as usize].map
    }

    /// Reports, and clears, a fault that hit one of this engine's mappings on this thread
    /// since the last call (or since the last read of this engine on this thread). The
    /// faulted page then reads as zeros, so whatever was computed from the mapping since the
    /// last call must be discarded. Faults in other mappings are left for their owners.
    pub(crate) fn take_fault(&self) -> Result<(), IoError> {
        let owner = |address: usize| self.maps.iter().any(|m| m.guard.contains(address));
        match sigbus::take_thread_fault(owner) {
            None => Ok(()),
            Some(address) => {
                let mapped = self
                    .maps
                    .iter()
                    .find(|m| m.guard.contains(address))
                    .expect("the owner check found this mapping");
                let offset = (address - mapped.map.as_ptr() as usize) as u64;
                Err(mapped.fault_error(offset))
            }
        }
    }
}

impl MemoryFiles for Mappings {
    const KIND: EngineKind = EngineKind::Mmap;

    fn count(&self) -> usize {
        self.maps.len()
    }

    fn path(&self, file: u32) -> &Path {
        &self.maps[file as usize].path
    }

    fn touch(&self, file: u32, offset: u64, bytes: &[u8]) -> Option<IoError> {
        self.maps[file as usize].fault_in(offset, bytes)
    }

    /// A page can still vanish between the touch and the consumer's reads (evicted, then the
    /// file truncated): the consumer then read zeros and must discard this read.
    fn vanished(&self) -> Result<(), IoError> {
        Mappings::take_fault(self)
    }
}

impl Mapped {
    /// Touches every page of `bytes` (at `offset` of the file); the error of the first page
    /// that is poisoned or faults, if any.
    fn fault_in(&self, offset: u64, bytes: &[u8]) -> Option<IoError> {
        let len = bytes.len() as u64;
        if let Some(page) = self.guard.poisoned_page_in(offset, len) {
            return Some(self.fault_error(page.max(offset)));
        }
        let page = sigbus::page_bytes() as u64;
        let mut at = offset;
        while at < offset + len {
            // SAFETY: `at - offset` < bytes.len(); a volatile load so the touch is not elided.
            unsafe { std::ptr::read_volatile(bytes.as_ptr().add((at - offset) as usize)) };
            at = (at / page + 1) * page;
        }
        let base = self.map.as_ptr() as usize;
        sigbus::take_thread_fault(|address| self.guard.contains(address))
            .map(|address| self.fault_error((address - base) as u64))
    }

    /// The error for a fault at `offset`: the file ended before it (truncated while mapped),
    /// or the page could not be read.
    fn fault_error(&self, offset: u64) -> IoError {
        let page = sigbus::page_bytes() as u64;
        let page_start = offset / page * page;
        match self.file.metadata() {
            Ok(metadata) if metadata.len() <= offset => IoError::UnexpectedEnd {
                path: self.path.clone(),
                offset,
                size: metadata.len(),
            },
            _ => IoError::Read {
                path: self.path.clone(),
                offset: page_start,
                len: page.min(self.map.len() as u64 - page_start),
                source: std::io::Error::from_raw_os_error(libc::EIO),
            },
        }
    }
}

impl ResidentFiles for Mappings {
    fn bytes(&self, file: u32) -> &[u8] {
        self.mapping(file)
    }

    /// A fault on this thread, or a page of any mapping poisoned by an earlier fault on any
    /// thread (it now reads as zeros without faulting), is an error.
    fn take_fault(&self) -> Result<(), IoError> {
        Mappings::take_fault(self)?;
        for mapped in &self.maps {
            if let Some(offset) = mapped.guard.poisoned_page_in(0, mapped.map.len() as u64) {
                return Err(mapped.fault_error(offset));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{IoCounters, ReadBatch, ReadConsumer, ReadEngine, ReadRequest};
    use tempfile::TempDir;

    /// A file of `size` bytes, none of them zero, in a folder of its own.
    fn file_of(size: usize) -> (TempDir, PathBuf) {
        let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8 + 1).collect();
        crate::testing::file_with("mapped", bytes)
    }

    /// Cuts the file at `path` to `len` bytes, as another process might under a mapping.
    fn truncate(path: &std::path::Path, len: u64) {
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_len(len)
            .unwrap();
    }

    /// Records what each request got.
    #[derive(Default)]
    struct Outcomes {
        completed: Vec<(usize, Vec<u8>)>,
        failed: Vec<(usize, String)>,
    }

    impl ReadConsumer for Outcomes {
        fn complete(&mut self, request: usize, bytes: &[u8]) {
            self.completed.push((request, bytes.to_vec()));
        }

        fn failed(&mut self, request: usize, error: IoError) -> Result<(), IoError> {
            self.failed.push((request, error.to_string()));
            Ok(())
        }
    }

    #[test]
    fn a_file_truncated_under_the_map_fails_the_reads_past_its_end_and_the_process_lives() {
        let (_dir, path) = file_of(1 << 20);
        let mut engine = MmapEngine::open(std::slice::from_ref(&path)).unwrap();
        truncate(&path, 64 << 10);
        let requests = [
            ReadRequest {
                file: 0,
                offset: 4096,
                len: 4096,
            },
            ReadRequest {
                file: 0,
                offset: 512 << 10,
                len: 4096,
            },
            ReadRequest {
                file: 0,
                offset: 8192,
                len: 100,
            },
        ];
        let mut outcomes = Outcomes::default();
        let mut counters = IoCounters::default();
        engine
            .read_batch(ReadBatch::new(&requests, &mut outcomes, &mut counters))
            .unwrap();
        let completed: Vec<usize> = outcomes.completed.iter().map(|c| c.0).collect();
        assert_eq!(completed, [0, 2], "the reads inside the file still work");
        assert_eq!(outcomes.completed[0].1[0], (4096 % 251) as u8 + 1);
        assert_eq!(outcomes.failed.len(), 1, "{:?}", outcomes.failed);
        let (request, message) = &outcomes.failed[0];
        assert_eq!(*request, 1);
        assert!(
            message.contains("mapped")
                && message.contains("ended at 65536 bytes, before offset 524288")
                && message.contains("truncated"),
            "{message}"
        );
        // The page now reads as zeros without faulting: a second read must still fail.
        let mut again = Outcomes::default();
        engine
            .read_batch(ReadBatch::new(&requests[1..2], &mut again, &mut counters))
            .unwrap();
        assert!(again.completed.is_empty());
        assert_eq!(again.failed.len(), 1);
        assert!(
            engine.files().take_fault().is_ok(),
            "nothing left to report"
        );
    }

    #[test]
    fn reading_the_mapping_directly_reports_the_fault_once() {
        let (_dir, path) = file_of(256 << 10);
        let engine = MmapEngine::open(std::slice::from_ref(&path)).unwrap();
        truncate(&path, 4096);
        let mapping = engine.files().mapping(0);
        assert_eq!(mapping.len(), 256 << 10);
        assert_eq!(mapping[10], 11);
        assert!(engine.files().take_fault().is_ok());
        // SAFETY: reading inside the mapping; the guard turns the fault into zeros.
        let byte = unsafe { std::ptr::read_volatile(&mapping[200 << 10]) };
        assert_eq!(byte, 0, "a faulted page reads as zeros");
        let error = engine
            .files()
            .take_fault()
            .expect_err("the fault is reported");
        assert!(
            error.to_string().contains("before offset 204800"),
            "{error}"
        );
        assert!(engine.files().take_fault().is_ok(), "and cleared");
    }

    #[test]
    fn another_engines_fault_is_left_for_it() {
        let (_dir, path) = file_of(64 << 10);
        let (_other_dir, other_path) = file_of(64 << 10);
        let engine = MmapEngine::open(std::slice::from_ref(&path)).unwrap();
        let other = MmapEngine::open(std::slice::from_ref(&other_path)).unwrap();
        truncate(&other_path, 0);
        // SAFETY: as above.
        unsafe { std::ptr::read_volatile(&other.files().mapping(0)[8192]) };
        assert!(engine.files().take_fault().is_ok());
        assert!(other.files().take_fault().is_err());
    }

    #[test]
    fn a_bus_error_outside_the_guarded_mappings_still_ends_the_process() {
        const CHILD: &str = "BITSIFT_TEST_SIGBUS_CHILD";
        if std::env::var_os(CHILD).is_some() {
            // In the child: a guarded mapping installs the handler; then a fault in a mapping
            // nobody registered must get the default action (and not loop forever).
            let (_dir, guarded) = file_of(8192);
            let _engine = MmapEngine::open(std::slice::from_ref(&guarded)).unwrap();
            let (_other_dir, path) = file_of(1 << 20);
            let file = File::open(&path).unwrap();
            // SAFETY: read-only mapping; the fault below is the point of this test.
            let map = unsafe { MmapOptions::new().map(&file) }.unwrap();
            truncate(&path, 0);
            // SAFETY: inside the mapping; raises SIGBUS.
            unsafe { std::ptr::read_volatile(&map[512 << 10]) };
            std::process::exit(3); // not reached when the signal ends the process
        }
        let test =
            "io::mmap::tests::a_bus_error_outside_the_guarded_mappings_still_ends_the_process";
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--test-threads", "1"])
            .env(CHILD, "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("the child hangs: the handler swallowed a fault it does not own");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGBUS), "{status:?}");
    }
}
