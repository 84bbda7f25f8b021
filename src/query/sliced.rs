//! Bit-sliced (vertical) counters: the scores of one block's documents, stored as bit planes.
//!
//! Plane `j` holds bit `j` of every document's count, one bit per document in the order of the
//! row's bits. Adding a row (one bit per document) is then a binary addition done on whole
//! machine words at once: XOR for the sum bit, AND for the carry, rippling up the planes only
//! while some document still carries. A 4 KiB row of 32,768 documents costs a few hundred
//! vector operations instead of 32,768 counter increments, and the counters of a block take
//! `planes · row_bytes` bytes instead of `32 · row_bytes`.
//!
//! Many rows of the same block are added faster together ([`SlicedCounters::add_rows`]): a
//! carry-save adder tree (as in the Harley–Seal population count) first sums up to 16 rows
//! into a 5-bit vertical number held in registers, which is then added into the planes once.
//!
//! Thresholds are tested on the planes directly (a bit-sliced comparison), so pruning and
//! ranking never expand the counters.
//!
//! Memory layout: documents are grouped in *lanes* of [`LANE_WORDS`] 64-bit words (256
//! documents); the planes of one lane are contiguous (`lane · planes + plane`), so a ripple
//! touches neighbouring cache lines. Bit `b` of word `w` of a lane is document `64·w + b` of
//! the lane, which is bit `b mod 8` of row byte `8·w + b / 8`: little-endian words read the row
//! bytes in COBS's LSB-first order.

/// Words per lane: one AVX2 register of documents.
pub(crate) const LANE_WORDS: usize = 4;
/// Bytes of a row per lane.
pub(crate) const LANE_BYTES: usize = LANE_WORDS * 8;
/// Rows summed by one carry-save tree in [`SlicedCounters::add_rows`].
pub const TREE_ROWS: usize = 16;

type Lane = [u64; LANE_WORDS];

const ZERO: Lane = [0; LANE_WORDS];

/// Planes needed to count up to `max_count` without overflow.
pub fn planes_for(max_count: u64) -> usize {
    (64 - max_count.leading_zeros() as usize).max(1)
}

/// Lanes covering `used_bytes` bytes of a row.
pub(crate) fn lanes_for(used_bytes: usize) -> usize {
    used_bytes.div_ceil(LANE_BYTES)
}

/// `u64` words the counters of a block of `used_bytes` row bytes need with `planes` planes.
pub fn words_for(used_bytes: usize, planes: usize) -> usize {
    lanes_for(used_bytes) * planes * LANE_WORDS
}

/// The counters of one block of one query, over caller-owned storage (all zero at start).
pub struct SlicedCounters<'a> {
    planes: usize,
    lanes: usize,
    data: &'a mut [u64],
}

/// Read-only view of counters, for thresholds and ranking.
#[derive(Clone, Copy)]
pub(crate) struct SlicedView<'a> {
    planes: usize,
    lanes: usize,
    data: &'a [u64],
}

/// The row bytes of one lane as words; a short last lane is padded with zero bits.
#[inline(always)]
fn load(bytes: &[u8]) -> Lane {
    let mut padded = [0u8; LANE_BYTES];
    let bytes = if bytes.len() >= LANE_BYTES {
        &bytes[..LANE_BYTES]
    } else {
        padded[..bytes.len()].copy_from_slice(bytes);
        &padded[..]
    };
    let mut lane = ZERO;
    for (word, b) in lane.iter_mut().zip(bytes.chunks_exact(8)) {
        *word = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    }
    lane
}

#[inline(always)]
fn xor(a: Lane, b: Lane) -> Lane {
    std::array::from_fn(|w| a[w] ^ b[w])
}

#[inline(always)]
fn and(a: Lane, b: Lane) -> Lane {
    std::array::from_fn(|w| a[w] & b[w])
}

#[inline(always)]
fn or(a: Lane, b: Lane) -> Lane {
    std::array::from_fn(|w| a[w] | b[w])
}

#[inline(always)]
fn is_zero(a: Lane) -> bool {
    a.iter().fold(0, |acc, &w| acc | w) == 0
}

/// Full adder on lanes: returns (sum, carry) of `a + b + c`.
#[inline(always)]
fn csa(a: Lane, b: Lane, c: Lane) -> (Lane, Lane) {
    let u = xor(a, b);
    (xor(u, c), or(and(a, b), and(u, c)))
}

/// Adds `carry` into `planes` (one lane's planes) from plane `from` up, while it lasts.
#[inline(always)]
fn ripple_planes(planes: &mut [u64], from: usize, mut carry: Lane) {
    for plane in planes[from * LANE_WORDS..].chunks_exact_mut(LANE_WORDS) {
        if is_zero(carry) {
            return;
        }
        let current: Lane = [plane[0], plane[1], plane[2], plane[3]];
        plane.copy_from_slice(&xor(current, carry));
        carry = and(current, carry);
    }
    debug_assert!(is_zero(carry), "a counter overflowed its planes");
}

impl<'a> SlicedCounters<'a> {
    /// Counters with `planes` planes for a row of `used_bytes` bytes over `data`, which must
    /// hold [`words_for`] words, all zero (or counters left by earlier adds).
    pub fn new(data: &'a mut [u64], used_bytes: usize, planes: usize) -> SlicedCounters<'a> {
        let lanes = lanes_for(used_bytes);
        assert!((1..=64).contains(&planes), "planes {planes} out of range");
        assert_eq!(
            data.len(),
            lanes * planes * LANE_WORDS,
            "counter storage size"
        );
        SlicedCounters {
            planes,
            lanes,
            data,
        }
    }

    /// A read-only view.
    #[cfg(test)]
    pub(crate) fn view(&self) -> SlicedView<'_> {
        SlicedView {
            planes: self.planes,
            lanes: self.lanes,
            data: self.data,
        }
    }

    /// The planes of lane `lane`, `planes · LANE_WORDS` words.
    #[inline(always)]
    fn lane_mut(&mut self, lane: usize) -> &mut [u64] {
        let size = self.planes * LANE_WORDS;
        &mut self.data[lane * size..(lane + 1) * size]
    }

    /// Adds `carry` (already shifted to plane `from`) into lane `lane`.
    #[inline(always)]
    fn ripple(&mut self, lane: usize, from: usize, carry: Lane) {
        ripple_planes(self.lane_mut(lane), from, carry);
    }

    /// Adds one row (`bytes.len() ≤ lanes · 32`) with weight `weight`: every document whose
    /// bit is set gains `weight`.
    #[inline]
    pub fn add_row(&mut self, bytes: &[u8], weight: u32) {
        dispatch_add_row(self, bytes, weight);
    }

    #[inline(always)]
    fn add_row_body(&mut self, bytes: &[u8], weight: u32) {
        debug_assert!(bytes.len() <= self.lanes * LANE_BYTES);
        for (lane, chunk) in bytes.chunks(LANE_BYTES).enumerate() {
            let row = load(chunk);
            let mut bits = weight;
            while bits != 0 {
                let plane = bits.trailing_zeros() as usize;
                self.ripple(lane, plane, row);
                bits &= bits - 1;
            }
        }
    }

    /// Adds every count of `other` (the same geometry: lanes and planes) into these
    /// counters: the partial counts of one unit scored in parts on several threads.
    pub(crate) fn add_counters(&mut self, other: &SlicedView<'_>) {
        assert_eq!(
            (self.lanes, self.planes),
            (other.lanes, other.planes),
            "counters of the same geometry"
        );
        for lane in 0..self.lanes {
            for plane in 0..self.planes {
                let bits = other.plane(lane, plane);
                if !is_zero(bits) {
                    self.ripple(lane, plane, bits);
                }
            }
        }
    }

    /// Adds up to [`TREE_ROWS`] rows of weight 1 at once (see the module documentation).
    #[inline]
    pub fn add_rows(&mut self, rows: &[&[u8]]) {
        dispatch_add_rows(self, rows);
    }

    #[inline(always)]
    fn add_rows_body(&mut self, rows: &[&[u8]]) {
        assert!(rows.len() <= TREE_ROWS);
        let bytes = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        for lane in 0..bytes.div_ceil(LANE_BYTES) {
            let at = lane * LANE_BYTES;
            let row = |i: usize| -> Lane {
                match rows.get(i) {
                    Some(r) if r.len() > at => load(&r[at..r.len().min(at + LANE_BYTES)]),
                    _ => ZERO,
                }
            };
            // A carry-save tree: 16 inputs → bits of weight 1, 2, 4, 8, 16.
            let (s0, c0) = csa(row(0), row(1), row(2));
            let (s1, c1) = csa(row(3), row(4), row(5));
            let (s2, c2) = csa(row(6), row(7), row(8));
            let (s3, c3) = csa(row(9), row(10), row(11));
            let (s4, c4) = csa(row(12), row(13), row(14));
            let (t0, d0) = csa(s0, s1, s2);
            let (t1, d1) = csa(s3, s4, row(15));
            let ones = xor(t0, t1);
            let d2 = and(t0, t1);
            // Weight-2 terms: c0..c4, d0, d1, d2 (8 of them).
            let (u0, e0) = csa(c0, c1, c2);
            let (u1, e1) = csa(c3, c4, d0);
            let (u2, e2) = csa(d1, d2, u0);
            let twos = xor(u1, u2);
            let e3 = and(u1, u2);
            // Weight-4 terms: e0..e3.
            let (v0, f0) = csa(e0, e1, e2);
            let fours = xor(v0, e3);
            let f1 = and(v0, e3);
            // Weight-8 terms: f0, f1.
            let eights = xor(f0, f1);
            let sixteens = and(f0, f1);
            self.add_number(lane, [ones, twos, fours, eights, sixteens]);
        }
    }

    /// Adds a 5-bit vertical number (`bits[j]` has weight `2^j`) into lane `lane` in one pass
    /// of full adders, then ripples the carry while it lasts.
    #[inline(always)]
    fn add_number(&mut self, lane: usize, bits: [Lane; 5]) {
        let planes = self.lane_mut(lane);
        let mut carry = ZERO;
        let mut chunks = planes.chunks_exact_mut(LANE_WORDS);
        for addend in bits {
            let Some(plane) = chunks.next() else {
                debug_assert!(
                    is_zero(or(carry, addend)),
                    "a counter overflowed its planes"
                );
                return;
            };
            let current: Lane = [plane[0], plane[1], plane[2], plane[3]];
            let (sum, next) = csa(current, addend, carry);
            plane.copy_from_slice(&sum);
            carry = next;
        }
        if self.planes > 5 {
            ripple_planes(self.lane_mut(lane), 5, carry);
        } else {
            debug_assert!(is_zero(carry), "a counter overflowed its planes");
        }
    }
}

/// Picks the AVX2 copy of a hot loop when the CPU has it (a cached feature test).
macro_rules! multiversion {
    ($dispatch:ident, $avx2:ident, $body:ident, ($($arg:ident: $ty:ty),*)) => {
        #[inline]
        fn $dispatch(counters: &mut SlicedCounters<'_>, $($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                unsafe { $avx2(counters, $($arg),*) };
                return;
            }
            counters.$body($($arg),*);
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $avx2(counters: &mut SlicedCounters<'_>, $($arg: $ty),*) {
            counters.$body($($arg),*);
        }
    };
}

multiversion!(dispatch_add_row, add_row_avx2, add_row_body, (bytes: &[u8], weight: u32));
multiversion!(dispatch_add_rows, add_rows_avx2, add_rows_body, (rows: &[&[u8]]));

impl<'a> SlicedView<'a> {
    /// A view of counters stored by [`SlicedCounters::new`] with the same geometry.
    pub(crate) fn new(data: &'a [u64], used_bytes: usize, planes: usize) -> SlicedView<'a> {
        let lanes = lanes_for(used_bytes);
        assert_eq!(
            data.len(),
            lanes * planes * LANE_WORDS,
            "counter storage size"
        );
        SlicedView {
            planes,
            lanes,
            data,
        }
    }

    #[inline(always)]
    fn plane(&self, lane: usize, plane: usize) -> Lane {
        let at = (lane * self.planes + plane) * LANE_WORDS;
        std::array::from_fn(|w| self.data[at + w])
    }

    /// Bit mask of the documents of `lane` whose count is at least `value`.
    #[inline]
    fn at_least_in_lane(&self, lane: usize, value: u64) -> Lane {
        if value == 0 {
            return [u64::MAX; LANE_WORDS];
        }
        if value >> self.planes != 0 {
            return ZERO;
        }
        // From the top plane down: `greater` marks documents already above `value`, `equal`
        // those equal on the planes seen so far.
        let mut greater = ZERO;
        let mut equal = [u64::MAX; LANE_WORDS];
        for plane in (0..self.planes).rev() {
            let bits = self.plane(lane, plane);
            if value >> plane & 1 == 1 {
                equal = and(equal, bits);
            } else {
                greater = or(greater, and(equal, bits));
                equal = std::array::from_fn(|w| equal[w] & !bits[w]);
            }
        }
        or(greater, equal)
    }

    /// Whether any of the first `documents` documents has a count of at least `value`.
    pub(crate) fn any_at_least(&self, value: u64, documents: u64) -> bool {
        (0..self.lanes).any(|lane| {
            let mask = self.at_least_in_lane(lane, value);
            mask.iter()
                .enumerate()
                .any(|(w, &m)| m & valid_bits(documents, (lane * LANE_WORDS + w) as u64) != 0)
        })
    }

    /// Count of document `document`.
    pub(crate) fn count(&self, document: u64) -> u64 {
        let lane = (document / 256) as usize;
        let word = (document % 256 / 64) as usize;
        let bit = document % 64;
        (0..self.planes).fold(0, |acc, plane| {
            acc | (self.plane(lane, plane)[word] >> bit & 1) << plane
        })
    }

    /// Calls `found(document, count)` for every one of the first `documents` documents whose
    /// count is at least `value`, in document order.
    pub(crate) fn for_each_at_least(
        &self,
        value: u64,
        documents: u64,
        mut found: impl FnMut(u64, u64),
    ) {
        for lane in 0..self.lanes {
            let mask = self.at_least_in_lane(lane, value);
            for (w, &m) in mask.iter().enumerate() {
                let word = (lane * LANE_WORDS + w) as u64;
                let mut bits = m & valid_bits(documents, word);
                while bits != 0 {
                    let document = word * 64 + bits.trailing_zeros() as u64;
                    found(document, self.count(document));
                    bits &= bits - 1;
                }
            }
        }
    }
}

/// The bits of word `word` (64 documents each) that hold one of the first `documents`.
#[inline(always)]
fn valid_bits(documents: u64, word: u64) -> u64 {
    let first = word * 64;
    if documents >= first + 64 {
        u64::MAX
    } else if documents <= first {
        0
    } else {
        (1u64 << (documents - first)) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Xorshift(u64);
    impl Xorshift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn row(&mut self, len: usize) -> Vec<u8> {
            (0..len)
                .map(|_| self.next() as u8 & self.next() as u8)
                .collect()
        }
    }

    fn naive_add(counts: &mut [u64], row: &[u8], weight: u32) {
        for (i, byte) in row.iter().enumerate() {
            for bit in 0..8 {
                if byte >> bit & 1 == 1 {
                    counts[i * 8 + bit] += weight as u64;
                }
            }
        }
    }

    #[test]
    fn rows_and_trees_equal_a_bit_by_bit_count_for_every_length() {
        let mut rng = Xorshift(0x2545_F491_4F6C_DD1D);
        for used in [1usize, 3, 13, 31, 32, 33, 64, 100, 1024, 4096] {
            let max = 40 * 7 + 40;
            let planes = planes_for(max);
            let mut data = vec![0u64; words_for(used, planes)];
            let mut naive = vec![0u64; used * 8];
            let mut counters = SlicedCounters::new(&mut data, used, planes);
            for round in 0..40 {
                let row = rng.row(used);
                let weight = [1u32, 1, 2, 7][round % 4];
                counters.add_row(&row, weight);
                naive_add(&mut naive, &row, weight);
            }
            let rows: Vec<Vec<u8>> = (0..40).map(|_| rng.row(used)).collect();
            for group in rows.chunks(TREE_ROWS) {
                let refs: Vec<&[u8]> = group.iter().map(Vec::as_slice).collect();
                counters.add_rows(&refs);
                for r in group {
                    naive_add(&mut naive, r, 1);
                }
            }
            let view = counters.view();
            for (d, &expected) in naive.iter().enumerate() {
                assert_eq!(view.count(d as u64), expected, "used {used} document {d}");
            }
        }
    }

    #[test]
    fn counters_added_together_equal_one_count_of_all_rows() {
        let mut rng = Xorshift(99);
        for used in [1usize, 33, 100, 512] {
            let planes = planes_for(200);
            let (mut a, mut b) = (
                vec![0u64; words_for(used, planes)],
                vec![0u64; words_for(used, planes)],
            );
            let mut naive = vec![0u64; used * 8];
            let mut left = SlicedCounters::new(&mut a, used, planes);
            let mut right_data = std::mem::take(&mut b);
            {
                let mut right = SlicedCounters::new(&mut right_data, used, planes);
                for round in 0..50 {
                    let row = rng.row(used);
                    let weight = 1 + (round % 3) as u32;
                    if round % 2 == 0 {
                        left.add_row(&row, weight);
                    } else {
                        right.add_row(&row, weight);
                    }
                    naive_add(&mut naive, &row, weight);
                }
            }
            left.add_counters(&SlicedView::new(&right_data, used, planes));
            let view = left.view();
            for (d, &expected) in naive.iter().enumerate() {
                assert_eq!(view.count(d as u64), expected, "used {used} document {d}");
            }
        }
    }

    #[test]
    fn thresholds_on_planes_equal_thresholds_on_counts() {
        let mut rng = Xorshift(7);
        let used = 77; // 616 documents, the last lane partly used
        let documents = 611;
        let planes = planes_for(100);
        let mut data = vec![0u64; words_for(used, planes)];
        let mut naive = vec![0u64; used * 8];
        let mut counters = SlicedCounters::new(&mut data, used, planes);
        for _ in 0..100 {
            let row = rng.row(used);
            counters.add_row(&row, 1);
            naive_add(&mut naive, &row, 1);
        }
        let view = counters.view();
        let best = naive[..documents].iter().copied().max().unwrap();
        for value in [0, 1, best - 1, best, best + 1, 99, 100] {
            let mut found = Vec::new();
            view.for_each_at_least(value, documents as u64, |d, c| found.push((d, c)));
            let expected: Vec<(u64, u64)> = naive[..documents]
                .iter()
                .enumerate()
                .filter(|(_, &c)| c >= value)
                .map(|(d, &c)| (d as u64, c))
                .collect();
            assert_eq!(found, expected, "value {value}");
            assert_eq!(
                view.any_at_least(value, documents as u64),
                !expected.is_empty()
            );
        }
    }

    #[test]
    fn documents_past_the_count_are_never_reported() {
        // Bits beyond the block's documents (a damaged or foreign file may set them) count
        // nowhere.
        let planes = planes_for(3);
        let mut data = vec![0u64; words_for(2, planes)];
        let mut counters = SlicedCounters::new(&mut data, 2, planes);
        counters.add_row(&[0xff, 0xff], 3);
        let mut found = Vec::new();
        counters
            .view()
            .for_each_at_least(1, 10, |d, c| found.push((d, c)));
        assert_eq!(found, (0..10).map(|d| (d, 3)).collect::<Vec<_>>());
        assert!(!counters.view().any_at_least(1, 0));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Any mix of single rows (any weight) and carry-save trees (0 to 16 rows), on rows of
        /// any length, equals a bit-by-bit count, and so do the threshold tests.
        #[test]
        fn any_sequence_of_adds_equals_a_bit_by_bit_count(
            used in 1usize..600,
            seed in proptest::prelude::any::<u64>(),
            steps in proptest::collection::vec((0u32..4, 0usize..=TREE_ROWS), 1..24),
        ) {
            let mut rng = Xorshift(seed | 1);
            let max: u64 = steps.iter().map(|&(w, n)| if w == 0 { n as u64 } else { w as u64 }).sum();
            let planes = planes_for(max);
            let mut data = vec![0u64; words_for(used, planes)];
            let mut naive = vec![0u64; used * 8];
            let mut counters = SlicedCounters::new(&mut data, used, planes);
            for &(weight, rows) in &steps {
                if weight == 0 {
                    let group: Vec<Vec<u8>> = (0..rows).map(|_| rng.row(used)).collect();
                    let refs: Vec<&[u8]> = group.iter().map(Vec::as_slice).collect();
                    counters.add_rows(&refs);
                    group.iter().for_each(|r| naive_add(&mut naive, r, 1));
                } else {
                    let row = rng.row(used);
                    counters.add_row(&row, weight);
                    naive_add(&mut naive, &row, weight);
                }
            }
            let view = counters.view();
            for (d, &expected) in naive.iter().enumerate() {
                proptest::prop_assert_eq!(view.count(d as u64), expected);
            }
            let documents = (used * 8 - (seed % 8) as usize) as u64;
            for value in [0, 1, max / 2, max] {
                let expected = naive[..documents as usize].iter().any(|&c| c >= value);
                proptest::prop_assert_eq!(view.any_at_least(value, documents), expected);
            }
        }
    }

    #[test]
    fn plane_counts_cover_the_maximum() {
        assert_eq!(planes_for(0), 1);
        assert_eq!(planes_for(1), 1);
        assert_eq!(planes_for(2), 2);
        assert_eq!(planes_for(255), 8);
        assert_eq!(planes_for(256), 9);
        assert_eq!(planes_for(u64::MAX), 64);
    }
}
