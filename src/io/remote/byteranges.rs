//! The answer to an HTTP request for several byte ranges (`Range: bytes=a-b,c-d,…`), read
//! and checked: a `206` with a `multipart/byteranges` body (RFC 9110 §14.6), or a `206` with
//! one part when the server coalesced the ranges. Pure: no I/O, so every malformed answer is
//! tested here.
//!
//! Every part's `Content-Range` must lie inside the file, name the file's size at open (a
//! other size is a changed file), and hold whole asked ranges (a server may coalesce ranges
//! into one part, never split one); every asked range must be in some part, no part may hold
//! none, and each part's data is exactly the length its `Content-Range` says, followed by the
//! next boundary. Parts may come in any order.

use std::ops::Range;

use bytes::Bytes;

/// Why an answer to a multi-range request cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ByteRangesError {
    /// A part's (or the answer's) `Content-Range` names another file size: the file changed.
    #[error("the server's file has {got} bytes, {want} at open")]
    OtherSize {
        /// Size in the answer.
        got: u64,
        /// Size at open.
        want: u64,
    },
    /// A `Content-Range` that does not parse, or lies outside the file.
    #[error("unusable Content-Range {0:?}")]
    ContentRange(String),
    /// A multipart answer whose `Content-Type` names no boundary.
    #[error("a multipart answer without a boundary: Content-Type {0:?}")]
    NoBoundary(String),
    /// A single-part answer without `Content-Range`.
    #[error("a partial answer without Content-Range")]
    NoContentRange,
    /// A part's headers name no `Content-Range`.
    #[error("part {0} has no Content-Range")]
    PartWithoutRange(usize),
    /// The body ended, or did not continue with a boundary, where a part said it would.
    #[error("the body is cut or malformed at byte {0}")]
    Malformed(usize),
    /// A part that holds no asked range whole.
    #[error("a part of bytes {}-{} that was not asked for", .0.start, .0.end.saturating_sub(1))]
    Unasked(Range<u64>),
    /// An asked range that no part holds.
    #[error("no part holds the asked bytes {}-{}", .0.start, .0.end.saturating_sub(1))]
    Missing(Range<u64>),
}

impl ByteRangesError {
    /// Whether the error means the file on the server is not the one opened.
    pub(crate) fn changed(&self) -> bool {
        matches!(self, ByteRangesError::OtherSize { .. })
    }
}

/// The `Range` header value asking for `ranges` (each non-empty, end exclusive).
pub(crate) fn range_header(ranges: &[Range<u64>]) -> String {
    let mut value = String::from("bytes=");
    for (index, range) in ranges.iter().enumerate() {
        assert!(range.start < range.end, "an empty range is never asked for");
        if index > 0 {
            value.push(',');
        }
        value.push_str(&format!("{}-{}", range.start, range.end - 1));
    }
    value
}

/// The bytes of every range of `asked` (sorted, disjoint, non-adjacent, inside a file of
/// `size` bytes), in order, from a `206` answer with `content_type`, `content_range` (the
/// answer's headers) and `body`.
pub(crate) fn parse(
    asked: &[Range<u64>],
    size: u64,
    content_type: Option<&str>,
    content_range: Option<&str>,
    body: &Bytes,
) -> Result<Vec<Bytes>, ByteRangesError> {
    debug_assert!(asked.windows(2).all(|w| w[0].end < w[1].start));
    let parts = match content_type.and_then(multipart_boundary) {
        Some(boundary) => parts(&boundary?, size, body)?,
        None => {
            let range = content_range.ok_or(ByteRangesError::NoContentRange)?;
            let range = parse_content_range(range, size)?;
            if body.len() as u64 != range.end - range.start {
                return Err(ByteRangesError::Malformed(body.len()));
            }
            vec![(range, body.clone())]
        }
    };
    select(asked, &parts)
}

/// The boundary of a `multipart/byteranges` content type; `None` when the type is another.
fn multipart_boundary(content_type: &str) -> Option<Result<String, ByteRangesError>> {
    let mut fields = content_type.split(';');
    let kind = fields.next()?.trim();
    if !kind.eq_ignore_ascii_case("multipart/byteranges") {
        return None;
    }
    let boundary = fields.find_map(|field| {
        let (name, value) = field.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"').to_string())
    });
    Some(match boundary {
        Some(b) if !b.is_empty() && b.len() <= 70 => Ok(b),
        _ => Err(ByteRangesError::NoBoundary(content_type.to_string())),
    })
}

/// `bytes START-END/SIZE` as a range, checked against the file's `size`.
fn parse_content_range(value: &str, size: u64) -> Result<Range<u64>, ByteRangesError> {
    let bad = || ByteRangesError::ContentRange(value.to_string());
    let rest = value
        .trim()
        .strip_prefix("bytes")
        .ok_or_else(bad)?
        .trim_start();
    let (span, total) = rest.split_once('/').ok_or_else(bad)?;
    let (start, end) = span.split_once('-').ok_or_else(bad)?;
    let number = |text: &str| {
        let text = text.trim();
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        text.parse::<u64>().map_err(|_| bad())
    };
    let (start, last, total) = (number(start)?, number(end)?, number(total)?);
    if total != size {
        return Err(ByteRangesError::OtherSize {
            got: total,
            want: size,
        });
    }
    if start > last || last >= size {
        return Err(bad());
    }
    Ok(start..last + 1)
}

/// The parts of a multipart body: each part's range and data.
fn parts(
    boundary: &str,
    size: u64,
    body: &Bytes,
) -> Result<Vec<(Range<u64>, Bytes)>, ByteRangesError> {
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    // The first delimiter starts the body or a line (a preamble may come before it).
    let mut at = if body.starts_with(delimiter) {
        delimiter.len()
    } else {
        let mut line = delimiter.to_vec();
        line.splice(0..0, *b"\r\n");
        find(body, &line, 0).ok_or(ByteRangesError::Malformed(0))? + line.len()
    };
    let mut found = Vec::new();
    loop {
        if body[at..].starts_with(b"--") {
            return Ok(found);
        }
        // Transport padding, then the end of the delimiter's line.
        while matches!(body.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        if !body[at..].starts_with(b"\r\n") {
            return Err(ByteRangesError::Malformed(at));
        }
        at += 2;
        let headers_end = find(body, b"\r\n\r\n", at).ok_or(ByteRangesError::Malformed(at))?;
        let headers = std::str::from_utf8(&body[at..headers_end])
            .map_err(|_| ByteRangesError::Malformed(at))?;
        let range = headers
            .split("\r\n")
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.trim()
                    .eq_ignore_ascii_case("content-range")
                    .then_some(value)
            })
            .ok_or(ByteRangesError::PartWithoutRange(found.len()))?;
        let range = parse_content_range(range, size)?;
        let start = headers_end + 4;
        let end = start
            .checked_add((range.end - range.start) as usize)
            .filter(|&end| end <= body.len())
            .ok_or(ByteRangesError::Malformed(body.len()))?;
        found.push((range, body.slice(start..end)));
        if !body[end..].starts_with(b"\r\n") || !body[end + 2..].starts_with(delimiter) {
            return Err(ByteRangesError::Malformed(end));
        }
        at = end + 2 + delimiter.len();
    }
}

/// Where `needle` first occurs in `haystack` from `from` on.
fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|position| position + from)
}

/// The bytes of each asked range from the parts; every part must hold at least one asked
/// range whole.
fn select(
    asked: &[Range<u64>],
    parts: &[(Range<u64>, Bytes)],
) -> Result<Vec<Bytes>, ByteRangesError> {
    let holds =
        |part: &Range<u64>, range: &Range<u64>| part.start <= range.start && range.end <= part.end;
    if let Some((part, _)) = parts
        .iter()
        .find(|(part, _)| !asked.iter().any(|range| holds(part, range)))
    {
        return Err(ByteRangesError::Unasked(part.clone()));
    }
    asked
        .iter()
        .map(|range| {
            let (part, data) = parts
                .iter()
                .find(|(part, _)| holds(part, range))
                .ok_or_else(|| ByteRangesError::Missing(range.clone()))?;
            let from = (range.start - part.start) as usize;
            Ok(data.slice(from..from + (range.end - range.start) as usize))
        })
        .collect()
}

/// A `multipart/byteranges` body of `parts` of `file` (as nginx writes it), and its content
/// type: for tests, and for the in-memory server of the engine's conformance suite.
#[cfg(test)]
pub(crate) fn encode(file: &[u8], parts: &[Range<u64>], boundary: &str) -> (String, Vec<u8>) {
    let mut body = Vec::new();
    for range in parts {
        body.extend_from_slice(
            format!(
                "\r\n--{boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes {}-{}/{}\r\n\r\n",
                range.start,
                range.end - 1,
                file.len()
            )
            .as_bytes(),
        );
        body.extend_from_slice(&file[range.start as usize..range.end as usize]);
    }
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/byteranges; boundary={boundary}"), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDARY: &str = "00000000001";
    /// One range: the first 100 bytes.
    const FIRST: [Range<u64>; 1] = [Range { start: 0, end: 100 }];

    fn file() -> Vec<u8> {
        (0..10_000u32).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    fn asked() -> Vec<Range<u64>> {
        vec![0..100, 300..4096, 5000..5001, 9000..10_000]
    }

    fn expect(file: &[u8], asked: &[Range<u64>]) -> Vec<Bytes> {
        asked
            .iter()
            .map(|r| Bytes::copy_from_slice(&file[r.start as usize..r.end as usize]))
            .collect()
    }

    fn parse_parts(file: &[u8], parts: &[Range<u64>]) -> Result<Vec<Bytes>, ByteRangesError> {
        let (kind, body) = encode(file, parts, BOUNDARY);
        parse(&asked(), file.len() as u64, Some(&kind), None, &body.into())
    }

    #[test]
    fn the_range_header_lists_inclusive_ends() {
        assert_eq!(
            range_header(&asked()),
            "bytes=0-99,300-4095,5000-5000,9000-9999"
        );
    }

    #[test]
    fn a_well_formed_answer_gives_every_range() {
        let file = file();
        assert_eq!(
            parse_parts(&file, &asked()).unwrap(),
            expect(&file, &asked())
        );
        // A preamble before the first boundary, a quoted boundary, another case.
        let (_, body) = encode(&file, &asked(), BOUNDARY);
        let mut with_preamble = b"preamble".to_vec();
        with_preamble.extend(body);
        let kind = format!("Multipart/ByteRanges; boundary=\"{BOUNDARY}\"");
        let got = parse(&asked(), 10_000, Some(&kind), None, &with_preamble.into()).unwrap();
        assert_eq!(got, expect(&file, &asked()));
    }

    #[test]
    fn parts_may_come_in_any_order_or_coalesced() {
        let file = file();
        let mut reversed = asked();
        reversed.reverse();
        assert_eq!(
            parse_parts(&file, &reversed).unwrap(),
            expect(&file, &asked())
        );
        // The first three ranges in one part, the last alone.
        let coalesced = [0..5001, 9000..10_000];
        assert_eq!(
            parse_parts(&file, &coalesced).unwrap(),
            expect(&file, &asked())
        );
    }

    #[test]
    fn a_single_part_answer_is_used_when_it_holds_every_range() {
        let file = file();
        let whole: Bytes = file.clone().into();
        let got = parse(
            &asked(),
            10_000,
            Some("application/octet-stream"),
            Some("bytes 0-9999/10000"),
            &whole,
        )
        .unwrap();
        assert_eq!(got, expect(&file, &asked()));
        // Only the first range: the others are missing.
        let first = whole.slice(0..100);
        let error = parse(&asked(), 10_000, None, Some("bytes 0-99/10000"), &first).unwrap_err();
        assert_eq!(error, ByteRangesError::Missing(300..4096));
        // No Content-Range at all (a 206 that says nothing).
        let error = parse(&asked(), 10_000, None, None, &first).unwrap_err();
        assert_eq!(error, ByteRangesError::NoContentRange);
        // A body longer than its Content-Range.
        let error = parse(&asked(), 10_000, None, Some("bytes 0-99/10000"), &whole).unwrap_err();
        assert!(matches!(error, ByteRangesError::Malformed(_)), "{error}");
    }

    #[test]
    fn a_missing_or_extra_part_is_an_error() {
        let file = file();
        let mut missing = asked();
        missing.remove(2);
        assert_eq!(
            parse_parts(&file, &missing).unwrap_err(),
            ByteRangesError::Missing(5000..5001)
        );
        let mut extra = asked();
        extra.push(6000..6010);
        assert_eq!(
            parse_parts(&file, &extra).unwrap_err(),
            ByteRangesError::Unasked(6000..6010)
        );
        // A part that splits an asked range holds none of it whole.
        let split = [0..100, 300..2000, 2000..4096, 5000..5001, 9000..10_000];
        assert_eq!(
            parse_parts(&file, &split).unwrap_err(),
            ByteRangesError::Unasked(300..2000)
        );
    }

    #[test]
    fn a_wrong_content_range_is_an_error_and_another_size_is_a_change() {
        let file = file();
        let (kind, _) = encode(&file, &asked(), BOUNDARY);
        // The file grew on the server: its parts name another size.
        let mut longer = file.clone();
        longer.extend_from_slice(&[0; 10]);
        let (_, body) = encode(&longer, &asked(), BOUNDARY);
        let error = parse(&asked(), 10_000, Some(&kind), None, &body.into()).unwrap_err();
        assert_eq!(
            error,
            ByteRangesError::OtherSize {
                got: 10_010,
                want: 10_000
            }
        );
        assert!(error.changed());
        for bad in [
            "bytes 0-99",
            "bytes 99-0/10000",
            "bytes 0-10000/10000",
            "bytes -5/10000",
            "bytes 0-99/*",
            "items 0-99/10000",
            "bytes +0-99/10000",
        ] {
            let error = parse(&asked(), 10_000, None, Some(bad), &Bytes::new()).unwrap_err();
            assert!(
                matches!(error, ByteRangesError::ContentRange(_)),
                "{bad}: {error}"
            );
            assert!(!error.changed());
        }
    }

    #[test]
    fn a_cut_or_damaged_body_is_an_error() {
        let file = file();
        let (kind, body) = encode(&file, &asked(), BOUNDARY);
        for cut in [
            0,
            10,
            60,
            200,
            body.len() / 2,
            body.len() - 20,
            body.len() - 4,
        ] {
            let error = parse(
                &asked(),
                10_000,
                Some(&kind),
                None,
                &Bytes::copy_from_slice(&body[..cut]),
            )
            .unwrap_err();
            assert!(
                matches!(
                    error,
                    ByteRangesError::Malformed(_) | ByteRangesError::Missing(_)
                ),
                "cut at {cut}: {error}"
            );
        }
        // One byte too many in a part: the next boundary is not where it must be.
        let (_, good) = encode(&file, &FIRST, BOUNDARY);
        let mut damaged = good.clone();
        let data_end = good.len() - format!("\r\n--{BOUNDARY}--\r\n").len();
        damaged.insert(data_end, b'x');
        let error = parse(&FIRST, 10_000, Some(&kind), None, &damaged.into()).unwrap_err();
        assert!(matches!(error, ByteRangesError::Malformed(_)), "{error}");
        // No boundary in the content type.
        let error = parse(
            &asked(),
            10_000,
            Some("multipart/byteranges"),
            None,
            &body.clone().into(),
        )
        .unwrap_err();
        assert!(matches!(error, ByteRangesError::NoBoundary(_)));
        // A part without Content-Range.
        let text = String::from_utf8_lossy(&encode(&[b'a'; 100], &FIRST, BOUNDARY).1)
            .replace("Content-Range: bytes 0-99/100", "Content-Length: 100");
        let error = parse(&FIRST, 100, Some(&kind), None, &text.into_bytes().into()).unwrap_err();
        assert_eq!(error, ByteRangesError::PartWithoutRange(0));
    }
}
