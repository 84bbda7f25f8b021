//! A ring allocator for read buffers: variable-sized regions of one arena, handed out in
//! submission order and released in (roughly) completion order.
//!
//! A batch mixes 4 KiB row reads with merged reads of up to hundreds of KiB. Fixed slots sized
//! for the longest read would either waste most of the arena or leave few reads in flight;
//! carving each read's exact size from a ring keeps many small reads in flight and still
//! serves the long ones. A region is reused only after it is released and every region
//! allocated before it has been released too (the ring's tail only moves forward), which is
//! cheap and, with reads completing roughly in order, wastes little.

use std::collections::VecDeque;

/// Hands out regions `[start, start + len)` of an arena of `capacity` bytes.
#[derive(Debug, Default)]
pub(crate) struct RingAlloc {
    capacity: usize,
    /// Where the next region starts (may wrap to 0).
    head: usize,
    /// Live regions in allocation order: (start, len, released).
    live: VecDeque<(usize, usize, bool)>,
}

impl RingAlloc {
    /// An empty ring over `capacity` bytes.
    pub(crate) fn new(capacity: usize) -> RingAlloc {
        RingAlloc {
            capacity,
            head: 0,
            live: VecDeque::with_capacity(256),
        }
    }

    /// Forgets every region (start of a batch, or after the arena was replaced).
    pub(crate) fn reset(&mut self, capacity: usize) {
        self.capacity = capacity;
        self.head = 0;
        self.live.clear();
    }

    /// A region of `len` bytes, or `None` until earlier regions are released.
    pub(crate) fn alloc(&mut self, len: usize) -> Option<usize> {
        let start = match self.live.front() {
            None => {
                self.head = 0;
                (len <= self.capacity).then_some(0)?
            }
            Some(&(tail, _, _)) if self.head > tail => {
                if self.head + len <= self.capacity {
                    self.head
                } else if len <= tail {
                    0
                } else {
                    return None;
                }
            }
            Some(&(tail, _, _)) => {
                // head <= tail: the free space is [head, tail). head == tail with live
                // regions means the ring is full.
                if self.head < tail && self.head + len <= tail {
                    self.head
                } else {
                    return None;
                }
            }
        };
        self.live.push_back((start, len, false));
        self.head = start + len;
        Some(start)
    }

    /// Releases the region that starts at `start`; the tail advances past every released
    /// region at the front.
    pub(crate) fn release(&mut self, start: usize) {
        if let Some(entry) = self.live.iter_mut().find(|e| e.0 == start && !e.2) {
            entry.2 = true;
        }
        while self.live.front().is_some_and(|e| e.2) {
            self.live.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
        a.0 < b.0 + b.1 && b.0 < a.0 + a.1
    }

    #[test]
    fn regions_never_overlap_and_space_is_reused() {
        // A deterministic mix of sizes, released out of order.
        let mut ring = RingAlloc::new(64 << 10);
        let mut live: Vec<(usize, usize)> = Vec::new();
        let mut served = 0usize;
        let mut seed = 7u64;
        for _ in 0..10_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = [4096, 4096, 8192, 4096, 32768][(seed >> 33) as usize % 5];
            match ring.alloc(len) {
                Some(start) => {
                    assert!(start + len <= 64 << 10);
                    for &other in &live {
                        assert!(!overlaps((start, len), other), "{start}+{len} vs {other:?}");
                    }
                    live.push((start, len));
                    served += len;
                }
                None => {
                    assert!(!live.is_empty(), "an empty ring refused {len} bytes");
                    // Release a few, not always the oldest.
                    let n = live.len().min(3);
                    for i in (0..n).rev() {
                        let pick = (seed as usize >> (i * 3)) % live.len();
                        let (start, _) = live.swap_remove(pick);
                        ring.release(start);
                    }
                }
            }
        }
        assert!(served > 100 * (64 << 10));
    }

    #[test]
    fn an_empty_ring_serves_its_whole_capacity() {
        let mut ring = RingAlloc::new(16384);
        assert_eq!(ring.alloc(16384), Some(0));
        assert_eq!(ring.alloc(4096), None);
        ring.release(0);
        assert_eq!(ring.alloc(8192), Some(0));
        assert_eq!(ring.alloc(8192), Some(8192));
        assert_eq!(ring.alloc(4096), None);
        ring.release(8192); // out of order: the tail stays at 0
        assert_eq!(ring.alloc(4096), None);
        ring.release(0);
        assert_eq!(ring.alloc(20000), None);
        assert_eq!(ring.alloc(4096), Some(0));
    }
}
