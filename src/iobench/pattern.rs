//! The verifiable content of an iobench file. Every 512-byte sector is self-describing, so
//! any read of whole sectors at any aligned offset can be checked without keeping state:
//!
//! | bytes | content |
//! |---|---|
//! | 0..8 | [`MAGIC`], `b"bsiftIO1"` |
//! | 8..16 | the sector number (offset / 512), little-endian u64 |
//! | 16..512 | 62 little-endian u64 words: the SplitMix64 stream seeded with `sector ^ STREAM_SEED` |
//!
//! The header catches a read served from the wrong place (a stale or misdirected block); the
//! stream catches anything else, and makes the file incompressible and never sparse.

use super::rng::SplitMix64;

/// Bytes per pattern sector (the smallest logical block of any disk).
pub(crate) const SECTOR_BYTES: usize = 512;
/// The first bytes of every sector.
pub(crate) const MAGIC: [u8; 8] = *b"bsiftIO1";
/// Mixed into each sector's stream seed.
pub(crate) const STREAM_SEED: u64 = 0x6269_7473_6966_7421;

const HEADER_BYTES: usize = 16;
const WORDS_PER_SECTOR: usize = (SECTOR_BYTES - HEADER_BYTES) / 8;
const _: () = assert!(HEADER_BYTES + WORDS_PER_SECTOR * 8 == SECTOR_BYTES);

/// The first byte that differs from the pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// Offset of the byte in the file.
    pub offset: u64,
    /// What the pattern has there.
    pub expected: u8,
    /// What was read.
    pub found: u8,
}

/// Writes the pattern of the sectors starting at `first_sector` into `buf` (whole sectors).
pub(crate) fn fill(buf: &mut [u8], first_sector: u64) {
    assert_eq!(buf.len() % SECTOR_BYTES, 0, "whole sectors only");
    for (index, sector) in buf.chunks_exact_mut(SECTOR_BYTES).enumerate() {
        let number = first_sector + index as u64;
        sector[..8].copy_from_slice(&MAGIC);
        sector[8..16].copy_from_slice(&number.to_le_bytes());
        let mut stream = SplitMix64::new(number ^ STREAM_SEED);
        for word in sector[HEADER_BYTES..].chunks_exact_mut(8) {
            word.copy_from_slice(&stream.next_u64().to_le_bytes());
        }
    }
}

/// Checks the 16-byte header of every sector of `buf`, read at sector `first_sector`.
#[inline]
pub(crate) fn check_headers(buf: &[u8], first_sector: u64) -> Result<(), Mismatch> {
    debug_assert_eq!(buf.len() % SECTOR_BYTES, 0);
    for (index, sector) in buf.chunks_exact(SECTOR_BYTES).enumerate() {
        let number = first_sector + index as u64;
        let mut expected = [0u8; HEADER_BYTES];
        expected[..8].copy_from_slice(&MAGIC);
        expected[8..].copy_from_slice(&number.to_le_bytes());
        if sector[..HEADER_BYTES] != expected {
            return Err(first_difference(
                &sector[..HEADER_BYTES],
                &expected,
                number * SECTOR_BYTES as u64,
            ));
        }
    }
    Ok(())
}

/// Checks every byte of `buf`, read at sector `first_sector`.
pub(crate) fn check_full(buf: &[u8], first_sector: u64) -> Result<(), Mismatch> {
    check_headers(buf, first_sector)?;
    for (index, sector) in buf.chunks_exact(SECTOR_BYTES).enumerate() {
        let number = first_sector + index as u64;
        let mut stream = SplitMix64::new(number ^ STREAM_SEED);
        for (word_index, word) in sector[HEADER_BYTES..].chunks_exact(8).enumerate() {
            let expected = stream.next_u64().to_le_bytes();
            if word != expected {
                let offset = number * SECTOR_BYTES as u64 + (HEADER_BYTES + word_index * 8) as u64;
                return Err(first_difference(word, &expected, offset));
            }
        }
    }
    Ok(())
}

fn first_difference(found: &[u8], expected: &[u8], offset: u64) -> Mismatch {
    let index = found
        .iter()
        .zip(expected)
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    Mismatch {
        offset: offset + index as u64,
        expected: expected[index],
        found: found[index],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filled_sectors_check_at_any_offset() {
        let mut buf = vec![0u8; 8 * SECTOR_BYTES];
        fill(&mut buf, 1000);
        assert_eq!(&buf[..8], b"bsiftIO1");
        assert_eq!(&buf[8..16], &1000u64.to_le_bytes());
        assert_eq!(check_full(&buf, 1000), Ok(()));
        // A sub-range is the pattern of its own sectors.
        assert_eq!(
            check_full(&buf[2 * SECTOR_BYTES..5 * SECTOR_BYTES], 1002),
            Ok(())
        );
        // The same bytes claimed for another place fail on the header.
        let wrong = check_headers(&buf, 1001).unwrap_err();
        assert_eq!(wrong.offset, 1001 * 512 + 8);
    }

    #[test]
    fn a_flipped_byte_is_located() {
        let mut buf = vec![0u8; 4 * SECTOR_BYTES];
        fill(&mut buf, 0);
        buf[3 * SECTOR_BYTES + 301] ^= 0x40;
        assert_eq!(check_headers(&buf, 0), Ok(()), "headers intact");
        let mismatch = check_full(&buf, 0).unwrap_err();
        assert_eq!(mismatch.offset, 3 * 512 + 301);
        assert_eq!(mismatch.found, mismatch.expected ^ 0x40);

        buf[3 * SECTOR_BYTES + 301] ^= 0x40;
        buf[SECTOR_BYTES + 9] = buf[SECTOR_BYTES + 9].wrapping_add(1);
        assert_eq!(check_headers(&buf, 0).unwrap_err().offset, 512 + 9);
    }

    #[test]
    fn sectors_differ_and_zeroes_fail() {
        let mut buf = vec![0u8; 2 * SECTOR_BYTES];
        fill(&mut buf, 5);
        assert_ne!(buf[16..512], buf[512 + 16..]);
        let zeroes = vec![0u8; SECTOR_BYTES];
        assert_eq!(check_full(&zeroes, 0).unwrap_err().offset, 0);
    }
}
