//! Heap buffers with a chosen alignment, as O_DIRECT and registered io_uring buffers need.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// A zero-initialised heap buffer whose start is aligned to `align` bytes.
pub(crate) struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
    /// Start and length of the anonymous mapping holding the buffer, when it was mapped
    /// rather than allocated ([`AlignedBuf::huge_zeroed`]).
    mapping: Option<(NonNull<u8>, usize)>,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like Vec<u8>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared references only allow reads of the owned bytes.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocates `len` zero bytes aligned to `align` (a power of two). `len` 0 allocates one
    /// alignment unit so that the pointer is always valid.
    pub(crate) fn zeroed(len: usize, align: usize) -> AlignedBuf {
        assert!(align.is_power_of_two(), "alignment must be a power of two");
        let layout = Layout::from_size_align(len.max(align), align)
            .expect("buffer size overflows the address space");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuf {
            ptr,
            layout,
            mapping: None,
        }
    }

    /// `len` zero bytes aligned to 2 MiB in an anonymous mapping, with transparent huge pages
    /// asked for before any page is touched (an allocator would zero, and so fault in, every
    /// 4 KiB page first). A buffer scored at random across gigabytes then costs a TLB miss
    /// per 2 MiB instead of per 4 KiB, which in a virtual machine, with nested page tables,
    /// is most of the cost of a random row. Falls back to [`AlignedBuf::zeroed`].
    pub(crate) fn huge_zeroed(len: usize) -> AlignedBuf {
        const HUGE: usize = 2 << 20;
        let len = len.max(HUGE);
        let Some(mapped) = len.checked_add(HUGE) else {
            return AlignedBuf::zeroed(len, HUGE);
        };
        // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return AlignedBuf::zeroed(len, HUGE);
        }
        let start = (base as usize).div_ceil(HUGE) * HUGE;
        debug_assert!(start + len <= base as usize + mapped);
        // SAFETY: advisory call on memory of the mapping just made.
        unsafe {
            libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
        let layout = Layout::from_size_align(len, HUGE).expect("checked above");
        AlignedBuf {
            ptr: NonNull::new(start as *mut u8).expect("a mapping is never at address 0"),
            layout,
            mapping: NonNull::new(base.cast()).map(|base| (base, mapped)),
        }
    }

    /// Usable bytes.
    pub(crate) fn len(&self) -> usize {
        self.layout.size()
    }

    /// Alignment of the start.
    pub(crate) fn align(&self) -> usize {
        self.layout.align()
    }

    /// The bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() initialised bytes (zeroed at allocation).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// The bytes, mutable.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in as_slice, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// Raw pointer to the start, for reading a region that others may be writing around.
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// Raw pointer to the start, for the kernel to write into.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        match self.mapping {
            // SAFETY: the whole mapping made in `huge_zeroed`, unmapped once.
            Some((base, len)) => unsafe {
                libc::munmap(base.as_ptr().cast(), len);
            },
            // SAFETY: allocated in `zeroed` with exactly this layout.
            None => unsafe { dealloc(self.ptr.as_ptr(), self.layout) },
        }
    }
}

impl std::fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlignedBuf")
            .field("len", &self.len())
            .field("align", &self.align())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zeroed() {
        let mut buf = AlignedBuf::zeroed(10_000, 4096);
        assert_eq!(buf.as_mut_ptr() as usize % 4096, 0);
        assert!(buf.as_slice().iter().all(|&b| b == 0));
        buf.as_mut_slice()[9_999] = 7;
        assert_eq!(buf.as_slice()[9_999], 7);
        assert_eq!(AlignedBuf::zeroed(0, 512).len(), 512);
    }

    #[test]
    fn huge_buffers_are_aligned_zeroed_and_writable() {
        for len in [1, (2 << 20) + 5, 9 << 20] {
            let mut buf = AlignedBuf::huge_zeroed(len);
            assert!(buf.len() >= len);
            assert_eq!(buf.as_mut_ptr() as usize % (2 << 20), 0);
            assert!(buf.as_slice().iter().all(|&b| b == 0));
            buf.as_mut_slice()[len - 1] = 9;
            assert_eq!(buf.as_slice()[len - 1], 9);
        }
    }
}
