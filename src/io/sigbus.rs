//! A guard that turns SIGBUS on a memory-mapped index into an error.
//!
//! Touching a page of a mapped file that the kernel cannot supply (a device I/O error, or a
//! page past the end of a file truncated while mapped) raises SIGBUS, whose default action
//! kills the process with no message (issue 12: exit 135 for the CLI and the whole server).
//!
//! [`register`] records a mapping in a fixed, lock-free table and, the first time, installs a
//! process-wide SIGBUS handler. When a fault lies in a registered mapping the handler:
//! 1. records the page in the mapping's table entry (poisoned pages, seen by every thread);
//! 2. records the address in a per-thread slot ([`take_thread_fault`]);
//! 3. maps an anonymous zero page over the faulting page (`mmap` with `MAP_FIXED`, which is
//!    async-signal-safe) and returns, so the faulting load runs again and reads zeros.
//!
//! Callers check the slot after touching a mapping and discard what they read if it is set;
//! later reads of a poisoned page are refused by [`Registration::poisoned_page_in`], since
//! the page now reads as zeros without faulting. Faults outside every registered mapping go
//! to the handler that was installed before (Rust's own stack-overflow handler, usually), or
//! get the default action.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Mappings that can be registered at once.
pub(crate) const MAPPINGS_MAX: usize = 4096;
/// Poisoned pages remembered per mapping; past that, the whole mapping counts as poisoned.
const POISONED_PER_MAPPING: usize = 8;

/// One mapping in the table. `len` 0 means the entry holds none.
struct Entry {
    claimed: AtomicBool,
    start: AtomicUsize,
    len: AtomicUsize,
    poisoned_count: AtomicUsize,
    /// Offsets (from `start`) of poisoned pages, plus one (0: not written yet).
    poisoned: [AtomicUsize; POISONED_PER_MAPPING],
}

impl Entry {
    const fn new() -> Entry {
        Entry {
            claimed: AtomicBool::new(false),
            start: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            poisoned_count: AtomicUsize::new(0),
            poisoned: [const { AtomicUsize::new(0) }; POISONED_PER_MAPPING],
        }
    }
}

static TABLE: [Entry; MAPPINGS_MAX] = [const { Entry::new() }; MAPPINGS_MAX];
static INSTALLED: OnceLock<Result<(), i32>> = OnceLock::new();
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
static PAGE_BYTES: AtomicUsize = AtomicUsize::new(4096);

thread_local! {
    /// The first guarded fault on this thread since it was last taken (0: none). A `const`
    /// initialised `Cell` of plain data: reading it is a plain TLS access, safe in a handler.
    static THREAD_FAULT: Cell<usize> = const { Cell::new(0) };
}

/// A handler installed with `SA_SIGINFO`.
type SigInfoHandler = extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void);

/// Why the guard could not be set up.
#[derive(Debug)]
pub(crate) enum GuardError {
    /// Every entry of the table is in use.
    TableFull,
    /// `sigaction` failed with this errno.
    Install(i32),
}

/// A registered mapping; unregisters itself when dropped (before the mapping is unmapped).
#[derive(Debug)]
pub(crate) struct Registration {
    index: Option<usize>,
    start: usize,
    len: usize,
}

/// Registers the mapping `[start, start + len)`, installing the handler on first use.
pub(crate) fn register(start: *const u8, len: usize) -> Result<Registration, GuardError> {
    install()?;
    let start = start as usize;
    if len == 0 {
        return Ok(Registration {
            index: None,
            start,
            len,
        });
    }
    for (index, entry) in TABLE.iter().enumerate() {
        if entry
            .claimed
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            entry.poisoned_count.store(0, Ordering::Relaxed);
            for page in &entry.poisoned {
                page.store(0, Ordering::Relaxed);
            }
            entry.start.store(start, Ordering::Relaxed);
            entry.len.store(len, Ordering::Release);
            return Ok(Registration {
                index: Some(index),
                start,
                len,
            });
        }
    }
    Err(GuardError::TableFull)
}

impl Registration {
    /// Whether `address` lies in this mapping.
    pub(crate) fn contains(&self, address: usize) -> bool {
        address >= self.start && address - self.start < self.len
    }

    /// The offset of the first poisoned page overlapping `[offset, offset + len)`, if any.
    /// One atomic load when nothing is poisoned.
    #[inline]
    pub(crate) fn poisoned_page_in(&self, offset: u64, len: u64) -> Option<u64> {
        let entry = &TABLE[self.index?];
        let count = entry.poisoned_count.load(Ordering::Acquire);
        if count == 0 || len == 0 {
            return None;
        }
        let page = page_bytes() as u64;
        let first = offset / page * page;
        if count > POISONED_PER_MAPPING {
            return Some(first);
        }
        entry.poisoned[..count]
            .iter()
            .map(|slot| slot.load(Ordering::Acquire))
            .filter(|&stored| stored != 0)
            .map(|stored| stored as u64 - 1)
            .filter(|&poisoned| poisoned >= first && poisoned < offset + len)
            .min()
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(index) = self.index {
            let entry = &TABLE[index];
            entry.len.store(0, Ordering::Release);
            entry.claimed.store(false, Ordering::Release);
        }
    }
}

/// The system page size.
pub(crate) fn page_bytes() -> usize {
    PAGE_BYTES.load(Ordering::Relaxed)
}

/// Takes this thread's recorded fault if `owns` claims its address; leaves it otherwise.
pub(crate) fn take_thread_fault(owns: impl Fn(usize) -> bool) -> Option<usize> {
    THREAD_FAULT
        .try_with(|slot| {
            let address = slot.get();
            (address != 0 && owns(address)).then(|| {
                slot.set(0);
                address
            })
        })
        .ok()
        .flatten()
}

/// Installs the handler once per process.
fn install() -> Result<(), GuardError> {
    let installed = INSTALLED.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 {
            PAGE_BYTES.store(page as usize, Ordering::Relaxed);
        }
        // SAFETY: sigaction is plain data; zeroed is a valid (empty) value.
        let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: querying the current action with a valid out-pointer.
        if unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) } != 0 {
            return Err(last_errno());
        }
        let _ = PREVIOUS.set(previous);
        // SAFETY: as above.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_sigbus as SigInfoHandler as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        // SAFETY: valid pointers; the handler only does async-signal-safe work.
        unsafe { libc::sigemptyset(&mut action.sa_mask) };
        // SAFETY: installing a handler with valid pointers.
        if unsafe { libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) } != 0 {
            return Err(last_errno());
        }
        Ok(())
    });
    installed.map_err(GuardError::Install)
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EINVAL)
}

/// The handler. Only atomics, a TLS cell, `mmap` and `sigaction` happen here, and `errno` is
/// preserved.
extern "C" fn on_sigbus(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid siginfo for an SA_SIGINFO handler; si_code > 0 means
    // the kernel raised it for a fault, so si_addr is meaningful.
    let address = unsafe {
        if info.is_null() || (*info).si_code <= 0 {
            0
        } else {
            (*info).si_addr() as usize
        }
    };
    // SAFETY: __errno_location returns this thread's errno.
    let errno = unsafe { *libc::__errno_location() };
    let handled = address != 0 && guard_fault(address);
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
    if !handled {
        chain(signal, info, context);
    }
}

/// Records and patches a fault at `address` if it lies in a registered mapping.
fn guard_fault(address: usize) -> bool {
    let Some(entry) = TABLE.iter().find(|entry| {
        let len = entry.len.load(Ordering::Acquire);
        let start = entry.start.load(Ordering::Relaxed);
        len != 0 && address >= start && address - start < len
    }) else {
        return false;
    };
    let page = address & !(page_bytes() - 1);
    let start = entry.start.load(Ordering::Relaxed);
    let offset = page.saturating_sub(start);
    let index = entry.poisoned_count.fetch_add(1, Ordering::AcqRel);
    if index < POISONED_PER_MAPPING {
        entry.poisoned[index].store(offset + 1, Ordering::Release);
    }
    let _ = THREAD_FAULT.try_with(|slot| {
        if slot.get() == 0 {
            slot.set(address);
        }
    });
    // SAFETY: replaces one page of a mapping this process registered (and so owns) with an
    // anonymous read-only zero page; mmap is async-signal-safe.
    let patched = unsafe {
        libc::mmap(
            page as *mut libc::c_void,
            page_bytes(),
            libc::PROT_READ,
            libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    patched != libc::MAP_FAILED
}

/// Passes a fault we do not handle to the previous handler, or restores the default action
/// so that the faulting instruction, run again, ends the process as it would have.
fn chain(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let previous = PREVIOUS.get();
    let handler = previous.map_or(libc::SIG_DFL, |p| p.sa_sigaction);
    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        // SAFETY: resetting to the default action with a valid pointer.
        unsafe {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &default, std::ptr::null_mut());
        }
        return;
    }
    let Some(previous) = previous else { return };
    if previous.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous handler was installed with SA_SIGINFO, so it has this type.
        let f: SigInfoHandler = unsafe { std::mem::transmute(handler) };
        f(signal, info, context);
    } else {
        // SAFETY: a plain handler has this type.
        let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
        f(signal);
    }
}
