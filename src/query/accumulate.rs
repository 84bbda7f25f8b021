//! Turning rows into scores.
//!
//! A document's score is the number of query k-mers whose `H` rows all have the document's bit
//! set. With one hash function a row is added to the counters as it arrives, weighted by how
//! many k-mers use it. With several, each (block, k-mer) pair ANDs its rows into an
//! accumulator buffer taken from a pool, and adds it once the last row has arrived; buffers
//! return to the pool, so memory is bounded by the k-mers whose rows are partly read.

/// `LANES[byte][i]` is bit `i` of `byte`: adding it to 8 counters adds one row byte.
static LANES: [[u32; 8]; 256] = lanes();

const fn lanes() -> [[u32; 8]; 256] {
    let mut table = [[0u32; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[byte][bit] = ((byte >> bit) & 1) as u32;
            bit += 1;
        }
        byte += 1;
    }
    table
}

/// Adds `weight` to `counters[8·i + b]` for every set bit `b` of `row[i]`.
/// `counters` must hold at least `8 · row.len()` entries.
///
/// This is the hot loop of every query (one call per row read). On x86-64 CPUs with AVX2 it
/// runs a copy of the loop compiled for AVX2, where each row byte is one 256-bit add; the
/// check is a cached feature test.
#[inline]
pub fn add_row(counters: &mut [u32], row: &[u8], weight: u32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        unsafe { add_row_avx2(counters, row, weight) };
        return;
    }
    add_row_portable(counters, row, weight);
}

/// [`add_row_portable`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_row_avx2(counters: &mut [u32], row: &[u8], weight: u32) {
    add_row_portable(counters, row, weight);
}

#[inline(always)]
fn add_row_portable(counters: &mut [u32], row: &[u8], weight: u32) {
    debug_assert!(counters.len() >= row.len() * 8);
    let counters = &mut counters[..row.len() * 8];
    if weight == 1 {
        for (chunk, &byte) in counters.chunks_exact_mut(8).zip(row) {
            let lanes = &LANES[byte as usize];
            for lane in 0..8 {
                chunk[lane] += lanes[lane];
            }
        }
    } else {
        for (chunk, &byte) in counters.chunks_exact_mut(8).zip(row) {
            let lanes = &LANES[byte as usize];
            for lane in 0..8 {
                chunk[lane] += lanes[lane] * weight;
            }
        }
    }
}

/// AND accumulators for `H > 1`: one state per (block, query, k-mer) pair (numbered by the
/// planner), buffers from a pool.
#[derive(Debug, Default)]
pub(crate) struct AndAccumulators {
    /// Per pair: pool slot + 1 (0 = none yet).
    slot: Vec<u32>,
    /// Per pair: rows ANDed so far.
    hits: Vec<u16>,
    row_bytes: usize,
    pool: Vec<u8>,
    free: Vec<u32>,
    slots_allocated: u32,
}

impl AndAccumulators {
    /// Resets for a batch of `pairs` pairs with rows of at most `row_bytes`.
    pub(crate) fn reset(&mut self, pairs: usize, row_bytes: usize) {
        self.slot.clear();
        self.slot.resize(pairs, 0);
        self.hits.clear();
        self.hits.resize(pairs, 0);
        if row_bytes != self.row_bytes {
            self.pool.clear();
            self.slots_allocated = 0;
            self.row_bytes = row_bytes;
        }
        self.free.clear();
        self.free.extend(0..self.slots_allocated);
    }

    /// ANDs `row` into the accumulator of `pair`; when it is the `num_hashes`-th row,
    /// returns the finished AND (valid until the next call) and frees the accumulator.
    pub(crate) fn and_row(&mut self, pair: usize, row: &[u8], num_hashes: u16) -> Option<&[u8]> {
        let row_bytes = self.row_bytes;
        debug_assert!(row.len() <= row_bytes);
        let slot = if self.slot[pair] == 0 {
            let slot = match self.free.pop() {
                Some(slot) => slot,
                None => {
                    self.pool.resize(self.pool.len() + row_bytes, 0);
                    self.slots_allocated += 1;
                    self.slots_allocated - 1
                }
            };
            let buffer = &mut self.pool[slot as usize * row_bytes..][..row_bytes];
            buffer[..row.len()].copy_from_slice(row);
            buffer[row.len()..].fill(0);
            self.slot[pair] = slot + 1;
            slot
        } else {
            let slot = self.slot[pair] - 1;
            let buffer = &mut self.pool[slot as usize * row_bytes..][..row.len()];
            for (a, &b) in buffer.iter_mut().zip(row) {
                *a &= b;
            }
            slot
        };
        self.hits[pair] += 1;
        if self.hits[pair] < num_hashes {
            return None;
        }
        self.slot[pair] = 0;
        self.free.push(slot);
        Some(&self.pool[slot as usize * row_bytes..][..row_bytes])
    }

    /// Bytes held in the pool (its high-water mark).
    #[cfg(test)]
    pub(crate) fn pool_bytes(&self) -> usize {
        self.pool.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_row_counts_bits_lsb_first() {
        let mut counters = vec![0u32; 16];
        add_row(&mut counters, &[0b0000_0101, 0b1000_0000], 1);
        add_row(&mut counters, &[0b0000_0001, 0], 3);
        assert_eq!(counters[0], 4);
        assert_eq!(counters[1], 0);
        assert_eq!(counters[2], 1);
        assert_eq!(counters[15], 1);
        assert_eq!(counters.iter().sum::<u32>(), 6);
    }

    #[test]
    fn add_row_equals_a_bit_by_bit_count_for_every_length_and_weight() {
        // Whatever copy of the loop the CPU selects, it must equal the naive count.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for len in [0usize, 1, 3, 31, 32, 33, 64, 100, 4096] {
            for weight in [1u32, 2, 7] {
                let row: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        state as u8
                    })
                    .collect();
                let mut fast = vec![5u32; len * 8 + 3];
                let mut naive = fast.clone();
                add_row(&mut fast, &row, weight);
                for (i, byte) in row.iter().enumerate() {
                    for bit in 0..8 {
                        if byte >> bit & 1 == 1 {
                            naive[i * 8 + bit] += weight;
                        }
                    }
                }
                assert_eq!(fast, naive, "len {len} weight {weight}");
            }
        }
    }

    #[test]
    fn and_accumulators_and_then_release() {
        let mut acc = AndAccumulators::default();
        acc.reset(6, 2);
        assert!(acc.and_row(5, &[0b1111, 0xff], 3).is_none());
        assert!(acc.and_row(5, &[0b0110, 0x0f], 3).is_none());
        let done = acc.and_row(5, &[0b0011, 0xf1], 3).unwrap().to_vec();
        assert_eq!(done, vec![0b0010, 0x01]);
        // The slot is reused for the next pair.
        assert!(acc.and_row(0, &[1, 1], 2).is_none());
        assert_eq!(acc.pool_bytes(), 2);
        assert_eq!(acc.and_row(0, &[1, 0], 2).unwrap(), &[1, 0]);
    }
}
