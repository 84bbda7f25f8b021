//! Minimal FASTA reading (plain or gzip, detected by magic bytes) and writing.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use flate2::read::MultiGzDecoder;

/// Line width of written FASTA.
pub const LINE_WIDTH: usize = 80;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// First word of the header line.
    pub name: String,
    /// Sequence, upper case; whitespace and non-letters removed.
    pub seq: Vec<u8>,
}

/// Reads all records of a FASTA file (`.gz` or plain). `what` names the file
/// in error messages ("training", "genes").
pub fn read_fasta(path: &Path, what: &str) -> Result<Vec<Record>> {
    let mut raw = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut raw))
        .with_context(|| format!("cannot read {what} file {}", path.display()))?;
    let text = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut text = Vec::with_capacity(raw.len() * 4);
        MultiGzDecoder::new(raw.as_slice())
            .read_to_end(&mut text)
            .with_context(|| format!("cannot decompress {what} file {}", path.display()))?;
        text
    } else {
        raw
    };
    let records = parse_fasta(&text)
        .with_context(|| format!("{what} file {} is not valid FASTA", path.display()))?;
    if records.is_empty() {
        bail!("{what} file {} contains no FASTA records", path.display());
    }
    Ok(records)
}

/// Parses FASTA text.
pub fn parse_fasta(text: &[u8]) -> Result<Vec<Record>> {
    let mut records: Vec<Record> = Vec::new();
    for (lineno, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.trim_ascii();
        if line.is_empty() || line[0] == b';' {
            continue;
        }
        if line[0] == b'>' {
            let name = line[1..]
                .split(|b| b.is_ascii_whitespace())
                .find(|w| !w.is_empty())
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .unwrap_or_else(|| format!("record_{}", records.len() + 1));
            records.push(Record {
                name,
                seq: Vec::new(),
            });
        } else {
            let Some(rec) = records.last_mut() else {
                bail!("line {}: sequence before the first '>' header", lineno + 1);
            };
            rec.seq.extend(
                line.iter()
                    .filter(|b| b.is_ascii_alphabetic())
                    .map(|b| b.to_ascii_uppercase()),
            );
        }
    }
    Ok(records)
}

/// Appends `seq` to `out` as lines of at most `LINE_WIDTH` characters.
pub fn push_wrapped(out: &mut Vec<u8>, seq: &[u8]) {
    out.reserve(seq.len() + seq.len() / LINE_WIDTH + 1);
    for chunk in seq.chunks(LINE_WIDTH) {
        out.extend_from_slice(chunk);
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_wrap_round_trip() {
        let recs = parse_fasta(b">a desc\nacg\nTN\r\n\n>b\nGG\n>\nA\n").unwrap();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].name, "a");
        assert_eq!(recs[0].seq, b"ACGTN");
        assert_eq!(recs[1].seq, b"GG");
        assert_eq!(recs[2].name, "record_3");
        let long = vec![b'A'; 170];
        let mut out = Vec::new();
        push_wrapped(&mut out, &long);
        let lines: Vec<_> = out.split(|&b| b == b'\n').collect();
        assert_eq!(
            lines.iter().map(|l| l.len()).collect::<Vec<_>>(),
            [80, 80, 10, 0]
        );
        assert!(parse_fasta(b"ACGT\n>x\nA\n").is_err());
    }

    #[test]
    fn reads_gzip_and_reports_missing_files() {
        use std::io::Write;
        let dir = std::env::temp_dir().join(format!("bitsift-sim-fasta-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.fa.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b">x\nACGT\n").unwrap();
        std::fs::write(&p, e.finish().unwrap()).unwrap();
        let recs = read_fasta(&p, "training").unwrap();
        assert_eq!(recs[0].seq, b"ACGT");
        let err = read_fasta(&dir.join("missing.fa"), "training").unwrap_err();
        assert!(format!("{err:#}").starts_with("cannot read training file"));
        std::fs::write(dir.join("empty.fa"), b"").unwrap();
        assert!(read_fasta(&dir.join("empty.fa"), "genes").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
