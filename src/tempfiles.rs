//! Temporary files that do not outlive the command that wrote them.
//!
//! Outputs are written as `.NAME.bitsift-tmp-PID` beside their destination and renamed when
//! complete ([`create_temporary`], [`TempPath::rename_to`]). Such a file is removed:
//! - when its [`TempPath`] is dropped without being renamed (an error, a full disk);
//! - on SIGINT or SIGTERM: a signal thread removes every registered temporary file, then ends
//!   the process as the signal would have (exit status 128 + signal in a shell), unless the
//!   host handles signals itself and said so with [`leave_signals_to_host`];
//! - after SIGKILL or a crash, by the next build in that directory ([`remove_stale`]): a
//!   temporary file whose process is gone and whose lock nobody holds is removed.
//!
//! Each temporary file holds an exclusive `flock` while it is written, so a cleaner never
//! removes a file another host (same name, same PID, shared file system) is still writing.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

/// Marks bitsift's temporary files: `.NAME` + this + the process id.
const TEMPORARY_MARKER: &str = ".bitsift-tmp-";

/// Paths to remove if the process is interrupted.
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static SIGNALS_INSTALLED: Once = Once::new();
/// Set by [`leave_signals_to_host`]: no signal thread is ever started.
static SIGNALS_LEFT_TO_HOST: AtomicBool = AtomicBool::new(false);

/// Leaves SIGINT and SIGTERM to the host program: temporary files are then removed only when
/// dropped (on errors, and when the host stops a build), and no signal ever ends the process
/// from here. For a host with its own handling of signals, such as the Python package, where
/// Ctrl-C must raise `KeyboardInterrupt` rather than end the interpreter. Call it before the
/// first temporary file is created; a signal thread already started keeps running.
pub fn leave_signals_to_host() {
    SIGNALS_LEFT_TO_HOST.store(true, Ordering::SeqCst);
}

/// A temporary file's name: removed on drop, on SIGINT and SIGTERM, unless renamed first.
#[derive(Debug)]
pub(crate) struct TempPath {
    path: PathBuf,
    kept: bool,
}

impl TempPath {
    /// The temporary name.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Renames the file to `destination`; from now on it is no longer temporary. Sync the
    /// directory afterwards ([`sync_directory`]) to make the rename durable.
    pub(crate) fn rename_to(mut self, destination: &Path) -> std::io::Result<()> {
        std::fs::rename(&self.path, destination)?;
        self.kept = true;
        unregister(&self.path);
        Ok(())
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
            unregister(&self.path);
        }
    }
}

/// The temporary name of `destination`: `.NAME.bitsift-tmp-PID` in the same directory, so
/// the final rename never crosses file systems.
pub(crate) fn temporary_path(destination: &Path) -> PathBuf {
    let name = destination
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    parent_directory(destination).join(format!(".{name}{TEMPORARY_MARKER}{}", std::process::id()))
}

/// Creates the temporary file of `destination` (it must not exist), locked and registered
/// for removal on SIGINT and SIGTERM. A destination that exists and is not a regular file
/// (`/dev/null`, a pipe) is refused: the final rename would replace it with a file.
pub(crate) fn create_temporary(destination: &Path) -> std::io::Result<(TempPath, File)> {
    if std::fs::metadata(destination).is_ok_and(|m| !m.is_file()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "exists and is not a regular file (a device, pipe or directory); give a file name",
        ));
    }
    let path = temporary_path(destination);
    install_signal_cleanup();
    register(&path);
    let temp = TempPath {
        path: path.clone(),
        kept: false,
    };
    let file = match OpenOptions::new().write(true).create_new(true).open(&path) {
        Ok(file) => file,
        Err(e) => {
            // Not ours: never remove a file we did not create.
            let mut temp = temp;
            temp.kept = true;
            unregister(&path);
            return Err(e);
        }
    };
    // SAFETY: flock only takes the descriptor, which `file` keeps open.
    unsafe {
        libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB);
    }
    Ok((temp, file))
}

/// Makes renames in the directory of `path` durable. A file system that cannot sync a
/// directory (it refuses with `EINVAL` or `ENOTSUP`) is taken at its word: there is nothing
/// more to do.
pub(crate) fn sync_directory(path: &Path) -> std::io::Result<()> {
    sync_directory_itself(&parent_directory(path))
}

/// Makes renames and new entries in `directory` durable; see [`sync_directory`].
pub(crate) fn sync_directory_itself(directory: &Path) -> std::io::Result<()> {
    match File::open(directory)?.sync_all() {
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOTSUP)) => {
            tracing::debug!("{}: cannot sync the directory: {e}", directory.display());
            Ok(())
        }
        result => result,
    }
}

/// A file that appears at its destination complete or not at all, the one way bitsift
/// replaces a file (indexes and their sidecars, merged sub-indexes, collection manifests,
/// benchmark files, query outputs). It is written under its temporary name
/// ([`temporary_path`], removed on drop, on SIGINT and SIGTERM, and after a crash by the next
/// writer there), then [`AtomicFile::commit`] flushes it, fsyncs it, renames it over the
/// destination and fsyncs the directory, so a crash at any point leaves the old file or the
/// new one, never a part.
///
/// Dropped without a commit (an error, a full disk), its unwritten bytes are discarded and
/// the temporary file removed.
#[derive(Debug)]
pub struct AtomicFile {
    temporary: Option<TempPath>,
    writer: Option<BufWriter<File>>,
    destination: PathBuf,
}

impl AtomicFile {
    /// Starts writing `destination` (a regular file or nothing yet), through a buffer of
    /// 64 KiB.
    pub fn create(destination: &Path) -> std::io::Result<AtomicFile> {
        AtomicFile::with_buffer(destination, 64 << 10)
    }

    /// As [`AtomicFile::create`], with a write buffer of `buffer_bytes`.
    pub(crate) fn with_buffer(
        destination: &Path,
        buffer_bytes: usize,
    ) -> std::io::Result<AtomicFile> {
        let (temporary, file) = create_temporary(destination)?;
        Ok(AtomicFile {
            temporary: Some(temporary),
            writer: Some(BufWriter::with_capacity(buffer_bytes, file)),
            destination: destination.to_path_buf(),
        })
    }

    /// Where the file goes.
    pub fn destination(&self) -> &Path {
        &self.destination
    }

    /// The temporary file being written (`None` once committed); read it only after a
    /// [`sync`](Self::sync).
    pub(crate) fn temporary_path(&self) -> Option<&Path> {
        self.temporary.as_ref().map(TempPath::path)
    }

    /// Flushes and fsyncs what was written, so that a full disk shows now rather than at the
    /// commit.
    pub(crate) fn sync(&mut self) -> std::io::Result<()> {
        let writer = self.writer.as_mut().expect("synced after commit");
        writer.flush()?;
        writer.get_ref().sync_all()
    }

    /// Flushes, fsyncs, renames the file over its destination and fsyncs the directory.
    pub fn commit(mut self) -> std::io::Result<()> {
        self.sync()?;
        drop(self.writer.take());
        let temporary = self.temporary.take().expect("committed twice");
        temporary.rename_to(&self.destination)?;
        sync_directory(&self.destination)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.writer
            .as_mut()
            .expect("written after commit")
            .write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.writer
            .as_mut()
            .expect("written after commit")
            .write_all(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().expect("flushed after commit").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Unwritten bytes of an abandoned file are discarded, not flushed; the temporary
        // file is then removed by its `TempPath`.
        if let Some(writer) = self.writer.take() {
            drop(writer.into_parts());
        }
    }
}

/// Replaces `destination` with `bytes` atomically ([`AtomicFile`]).
pub fn write_atomically(destination: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = AtomicFile::with_buffer(destination, 0)?;
    file.write_all(bytes)?;
    file.commit()
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent_directory(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Removes bitsift temporary files in `directory` left by processes that no longer run
/// (killed with SIGKILL, or by a crash) and that nobody holds locked. Returns the files
/// removed. Best effort: what cannot be checked or removed is left alone.
pub(crate) fn remove_stale(directory: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(directory) else {
        return Vec::new();
    };
    let own = std::process::id();
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = temporary_owner(&name.to_string_lossy()) else {
            continue;
        };
        if pid == own || process_exists(pid) {
            continue;
        }
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_file()) && unlocked(&path) {
            match std::fs::remove_file(&path) {
                Ok(()) => removed.push(path),
                Err(e) => tracing::debug!("{}: cannot remove: {e}", path.display()),
            }
        }
    }
    removed
}

/// The process id in a temporary file's name `.NAME.bitsift-tmp-PID`.
fn temporary_owner(name: &str) -> Option<u32> {
    let (stem, pid) = name.rsplit_once(TEMPORARY_MARKER)?;
    if !stem.starts_with('.') || stem.len() < 2 || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse()
        .ok()
        .filter(|&pid| pid > 0 && pid <= i32::MAX as u32)
}

/// Whether a process with this id runs on this machine.
fn process_exists(pid: u32) -> bool {
    // SAFETY: signal 0 only checks that the process exists; pid is positive, so this never
    // addresses a process group.
    let status = unsafe { libc::kill(pid as libc::pid_t, 0) };
    status == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether nobody holds the file's lock (a writer on another host sharing the directory).
fn unlocked(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    else {
        return false;
    };
    // SAFETY: flock only takes the descriptor, which `file` keeps open.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

fn register(path: &Path) {
    lock_registry().push(path.to_path_buf());
}

fn unregister(path: &Path) {
    lock_registry().retain(|p| p != path);
}

fn lock_registry() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock leaves a valid list of paths.
    REGISTERED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the thread that removes registered files on SIGINT and SIGTERM, once. A signal
/// the process was started ignoring (`nohup`, `cmd &` in a script) stays ignored.
fn install_signal_cleanup() {
    if SIGNALS_LEFT_TO_HOST.load(Ordering::SeqCst) {
        return;
    }
    SIGNALS_INSTALLED.call_once(|| {
        let wanted: Vec<libc::c_int> = [libc::SIGINT, libc::SIGTERM]
            .into_iter()
            .filter(|&signal| !ignored(signal))
            .collect();
        if wanted.is_empty() {
            return;
        }
        let mut signals = match signal_hook::iterator::Signals::new(&wanted) {
            Ok(signals) => signals,
            Err(e) => {
                tracing::debug!(
                    "cannot watch SIGINT/SIGTERM: {e}; temporary files may be left if interrupted"
                );
                return;
            }
        };
        let spawned = std::thread::Builder::new()
            .name("bitsift-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    for path in lock_registry().iter() {
                        let _ = std::fs::remove_file(path);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                }
            });
        if let Err(e) = spawned {
            tracing::debug!("cannot start the signal thread: {e}");
        }
    });
}

/// Whether `signal` is set to be ignored.
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: a null new action only queries; `current` is a valid sigaction to fill.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_carry_the_process_id() {
        let path = temporary_path(Path::new("out/x.cobs_compact"));
        assert_eq!(
            path,
            PathBuf::from(format!(
                "out/.x.cobs_compact.bitsift-tmp-{}",
                std::process::id()
            ))
        );
        assert_eq!(
            temporary_owner(".x.cobs_compact.bitsift-tmp-123"),
            Some(123)
        );
        assert_eq!(temporary_owner("x.cobs_compact.bitsift-tmp-123"), None);
        assert_eq!(temporary_owner(".x.bitsift-tmp-12a"), None);
        assert_eq!(temporary_owner(".x.bitsift-tmp-0"), None);
        assert_eq!(temporary_owner(".x.bitsift-tmp-"), None);
    }

    /// A process id that no process has: one of a child that has exited and been reaped.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn stale_files_of_dead_processes_go_and_live_or_locked_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dead_pid();
        let stale = dir
            .path()
            .join(format!(".a.cobs_compact.bitsift-tmp-{dead}"));
        let live = dir.path().join(".b.cobs_compact.bitsift-tmp-1");
        let locked = dir
            .path()
            .join(format!(".c.cobs_compact.bitsift-tmp-{dead}"));
        let other = dir.path().join(format!("notes.bitsift-tmp-{dead}"));
        for path in [&stale, &live, &locked, &other] {
            std::fs::write(path, b"x").unwrap();
        }
        let holder = File::open(&locked).unwrap();
        // SAFETY: the descriptor is open.
        assert_eq!(
            unsafe { libc::flock(holder.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
            0
        );
        assert_eq!(remove_stale(dir.path()), vec![stale.clone()]);
        assert!(!stale.exists());
        assert!(live.exists(), "pid 1 runs");
        assert!(locked.exists(), "someone holds its lock");
        assert!(other.exists(), "not a bitsift temporary name");
    }

    #[test]
    fn dropped_temporaries_vanish_and_renamed_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let destination = dir.path().join("y.cobs_compact");
        let (temp, file) = create_temporary(&destination).unwrap();
        assert!(temp.path().exists());
        assert!(lock_registry().contains(&temp.path().to_path_buf()));
        assert!(!unlocked(temp.path()), "locked while being written");
        let path = temp.path().to_path_buf();
        drop(file);
        drop(temp);
        assert!(!path.exists());
        assert!(!lock_registry().contains(&path));

        let (temp, file) = create_temporary(&destination).unwrap();
        drop(file);
        let path = temp.path().to_path_buf();
        temp.rename_to(&destination).unwrap();
        assert!(destination.exists());
        assert!(!lock_registry().contains(&path));

        std::fs::write(&path, b"someone else's").unwrap();
        assert!(create_temporary(&destination).is_err());
        assert!(path.exists(), "a file we did not create is never removed");
    }

    #[test]
    fn an_atomic_file_appears_whole_at_commit_and_never_when_dropped() {
        let (dir, destination) = crate::testing::file_with("out.json", b"old");
        let mut file = AtomicFile::create(&destination).unwrap();
        file.write_all(b"new contents").unwrap();
        file.sync().unwrap();
        assert_eq!(
            std::fs::read(&destination).unwrap(),
            b"old",
            "not before the commit"
        );
        drop(file);
        assert_eq!(std::fs::read(&destination).unwrap(), b"old");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
        write_atomically(&destination, b"new").unwrap();
        assert_eq!(std::fs::read(&destination).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let error = write_atomically(dir.path(), b"x").unwrap_err();
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::InvalidInput,
            "a directory is refused"
        );
    }
}
