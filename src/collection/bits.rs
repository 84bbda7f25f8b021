//! Copying runs of bit columns between rows (bits LSB first within a byte, as COBS stores a
//! row's documents), a word at a time.

/// ORs `len` bits of `source`, starting at bit `from`, into `target` starting at bit `to`.
/// Bits of `target` outside `to..to + len` are untouched; inside they must be zero for the
/// result to be a copy. Panics if either range is out of bounds (a planning bug).
pub(crate) fn or_bits(source: &[u8], from: usize, target: &mut [u8], to: usize, len: usize) {
    assert!(from + len <= source.len() * 8, "source bits out of range");
    assert!(to + len <= target.len() * 8, "target bits out of range");
    // 56 bits at a time: shifted by up to 7 they still fit one u64.
    const CHUNK: usize = 56;
    let mut done = 0;
    while done < len {
        let count = (len - done).min(CHUNK);
        let value = load(source, from + done) & ((1u64 << count) - 1);
        store_or(target, to + done, value, count);
        done += count;
    }
}

/// The 57+ bits of `bytes` from bit `bit` on, in the low bits (zero past the end).
#[inline]
fn load(bytes: &[u8], bit: usize) -> u64 {
    let start = bit / 8;
    let end = (start + 8).min(bytes.len());
    let mut word = [0u8; 8];
    word[..end - start].copy_from_slice(&bytes[start..end]);
    u64::from_le_bytes(word) >> (bit % 8)
}

/// ORs the low `count` (≤ 56) bits of `value` into `bytes` at bit `bit`.
#[inline]
fn store_or(bytes: &mut [u8], bit: usize, value: u64, count: usize) {
    let start = bit / 8;
    let shifted = value << (bit % 8);
    let touched = (bit % 8 + count).div_ceil(8);
    for (offset, byte) in bytes[start..start + touched].iter_mut().enumerate() {
        *byte |= (shifted >> (8 * offset)) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bit(bytes: &[u8], i: usize) -> bool {
        bytes[i / 8] >> (i % 8) & 1 == 1
    }

    proptest! {
        #[test]
        fn copies_exactly_the_run(
            source in proptest::collection::vec(any::<u8>(), 1..80),
            from_seed in any::<usize>(),
            to_seed in any::<usize>(),
            len_seed in any::<usize>(),
            target_len in 1usize..80,
        ) {
            let source_bits = source.len() * 8;
            let target_bits = target_len * 8;
            let from = from_seed % source_bits;
            let to = to_seed % target_bits;
            let len = len_seed % ((source_bits - from).min(target_bits - to) + 1);
            let mut target = vec![0u8; target_len];
            or_bits(&source, from, &mut target, to, len);
            for i in 0..target_bits {
                let expected = i >= to && i < to + len && bit(&source, from + (i - to));
                prop_assert_eq!(bit(&target, i), expected, "bit {}", i);
            }
        }
    }
}
