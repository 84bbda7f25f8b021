//! [`read_range`]: a long run of bytes read in order through the read path, for the readers
//! that copy or check whole blocks (merge) rather than look up rows.

use crate::io::{IoCounters, IoError, ReadBatch, ReadConsumer, ReadEngine, ReadRequest};

/// Bytes in flight at once: a few reads of [`RANGE_READ_BYTES`].
const RANGE_BATCH_BYTES: u64 = 8 << 20;
/// Bytes of one read.
const RANGE_READ_BYTES: u64 = 1 << 20;

/// Reads bytes `offset..offset + len` of engine file `file` through `engine` (a layered
/// engine checks them), in aligned reads of 1 MiB, 8 MiB in flight, and hands them to `sink`
/// in order, in pieces. Reads are aligned to `alignment` (the engine's, and the checksum
/// page when the file has checksums); only the bytes asked for reach `sink`. `buffer` is
/// reused between calls.
pub(crate) fn read_range<E: From<IoError>>(
    engine: &mut dyn ReadEngine,
    alignment: u64,
    file: u32,
    offset: u64,
    len: u64,
    buffer: &mut Vec<u8>,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<IoCounters, E> {
    let align = alignment.max(1);
    let file_size = engine.file_size(file);
    let end = offset + len;
    assert!(end <= file_size, "a range within the file");
    let mut counters = IoCounters::default();
    let mut at = offset / align * align;
    let mut requests = Vec::new();
    while at < end {
        let batch_end = (at + RANGE_BATCH_BYTES).min(end.div_ceil(align) * align);
        requests.clear();
        let mut read_at = at;
        while read_at < batch_end {
            let read_len = (batch_end - read_at).min(RANGE_READ_BYTES);
            requests.push(ReadRequest {
                file,
                offset: read_at,
                len: read_len as u32,
            });
            read_at += read_len;
        }
        buffer.clear();
        buffer.resize((batch_end - at) as usize, 0);
        let mut fill = Fill {
            buffer,
            base: at,
            requests: &requests,
            short: None,
        };
        engine.read_batch(ReadBatch::new(&requests, &mut fill, &mut counters))?;
        // Engines fail a read that ends before the end of the file: only bytes past it (and
        // so past `end`) may be missing.
        let available = batch_end.min(end);
        debug_assert!(fill.short.is_none_or(|short| short >= available));
        let from = offset.max(at);
        sink(&buffer[(from - at) as usize..(available - at) as usize])?;
        at = batch_end;
    }
    Ok(counters)
}

/// Copies each read of a batch to its place in the batch's buffer.
struct Fill<'a> {
    buffer: &'a mut Vec<u8>,
    base: u64,
    requests: &'a [ReadRequest],
    /// The end of the bytes that arrived, when a read came short (at the end of the file).
    short: Option<u64>,
}

impl ReadConsumer for Fill<'_> {
    fn complete(&mut self, request: usize, bytes: &[u8]) {
        let read = self.requests[request];
        let start = (read.offset - self.base) as usize;
        self.buffer[start..start + bytes.len()].copy_from_slice(bytes);
        if bytes.len() < read.len as usize {
            let end = read.offset + bytes.len() as u64;
            self.short = Some(self.short.map_or(end, |s| s.min(end)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::RamEngine;

    #[test]
    fn hands_exactly_the_range_in_order() {
        let bytes: Vec<u8> = (0..(20u64 << 20) + 777).map(|i| (i % 251) as u8).collect();
        let (_dir, path) = crate::testing::file_with("f", &bytes);
        let mut engine = RamEngine::open(&[path]).unwrap();
        let mut buffer = Vec::new();
        for (offset, len) in [
            (0, 10),
            (5000, 9 << 20),
            (3, bytes.len() as u64 - 3),
            (bytes.len() as u64 - 5, 5),
        ] {
            let mut got = Vec::new();
            read_range::<IoError>(
                &mut engine,
                4096,
                0,
                offset,
                len,
                &mut buffer,
                &mut |piece| {
                    got.extend_from_slice(piece);
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(
                got,
                &bytes[offset as usize..(offset + len) as usize],
                "{offset} {len}"
            );
        }
    }
}
