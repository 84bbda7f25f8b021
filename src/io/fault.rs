//! Where faults enter an engine: every engine hands each result it gets for a read (from the
//! kernel, or a copy out of memory) to its [`FaultHook`], if one is set
//! ([`ReadEngine::set_fault_hook`]), and acts on what the hook returns. Only the tests' fault
//! engine (`fault_engine`) sets one, so a production read pays one branch.

#[cfg(doc)]
use super::ReadEngine;

/// What one attempt at a read returned: bytes landed, or an errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptResult {
    /// This many bytes landed (0: none, though the read lies inside the file).
    Bytes(u32),
    /// The read failed with this errno.
    Errno(i32),
}

/// One attempt at a read, as an engine describes it to its [`FaultHook`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// File number.
    pub file: u32,
    /// Offset of the read (its start, not this attempt's).
    pub offset: u64,
    /// Bytes the read asks for.
    pub len: u32,
    /// Bytes that had landed before this attempt, which reads the rest.
    pub done: u32,
    /// Results this read got before this one.
    pub index: u32,
    /// O_DIRECT alignment of offsets and lengths, or 1.
    pub align: u64,
    /// Size of the file.
    pub file_size: u64,
}

/// Rewrites the results an engine gets, to inject faults (testing only).
pub trait FaultHook: Send + Sync {
    /// The result the engine should act on instead of `result`. A hook can take bytes away
    /// (a short or empty read, an error) but not invent them: engines cap a larger count at
    /// what really landed.
    fn rewrite(&self, attempt: &Attempt, result: AttemptResult) -> AttemptResult;
}

/// Applies `hook`, if any, to `real`, never letting it claim more bytes than landed.
#[inline]
pub(crate) fn rewrite(
    hook: Option<&dyn FaultHook>,
    attempt: &Attempt,
    real: AttemptResult,
) -> AttemptResult {
    let Some(hook) = hook else {
        return real;
    };
    match (real, hook.rewrite(attempt, real)) {
        (AttemptResult::Bytes(landed), AttemptResult::Bytes(claimed)) => {
            AttemptResult::Bytes(claimed.min(landed))
        }
        (AttemptResult::Errno(errno), AttemptResult::Bytes(_)) => AttemptResult::Errno(errno),
        (_, rewritten) => rewritten,
    }
}
