//! The verbs that print: `doc-list` (and the document list every construction prints),
//! `print-parameters` and `print-kmers`, in COBS's exact text (`src/cobs.cpp`).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use bitsift::builder::layout::bits_per_kmer;
use bitsift::builder::{inputs, BuildOptions};
use bitsift::kmer::{kmer_count, BaseRule, KmerHasher};
use bitsift::seqfile::{SeqReader, SeqRecord};
use clap::Args;

use super::super::{Outcome, UsageError};

#[derive(Args, Debug)]
pub struct DocListArgs {
    /// path to documents to list
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// "list" to read a file list, or filter documents by file type (any, fasta, fastq)
    #[arg(long, default_value = "any", value_name = "TYPE")]
    file_type: String,
    /// term size (k-mer size)
    #[arg(short = 'k', long, default_value_t = 31, value_name = "K")]
    term_size: u32,
}

#[derive(Args, Debug)]
pub struct ParametersArgs {
    /// number of hash functions
    #[arg(long, default_value_t = 1, value_name = "N")]
    num_hashes: u32,
    /// false positive rate
    #[arg(short, long, default_value_t = 0.3, value_name = "RATE")]
    false_positive_rate: f64,
    /// number of elements to be inserted into the index
    #[arg(short, long, default_value_t = 0, value_name = "N")]
    num_elements: u64,
}

#[derive(Args, Debug)]
pub struct KmersArgs {
    /// the dna sequence to search for
    #[arg(value_name = "QUERY")]
    query: String,
    /// the size of one kmer
    #[arg(short = 'k', long, default_value_t = 31, value_name = "K")]
    kmer_size: u32,
}

/// One document as COBS lists it.
struct Listed {
    path: PathBuf,
    bytes: u64,
    terms: u64,
}

pub fn doc_list(args: DocListArgs) -> Result<Outcome> {
    let files = match args.file_type.as_str() {
        "list" => inputs::discover(&[], std::slice::from_ref(&args.path))?,
        "any" | "*" | "fasta" | "fastq" => inputs::discover(std::slice::from_ref(&args.path), &[])?,
        other => {
            return Err(UsageError(format!(
                "--file-type {other}: bitsift lists FASTA and FASTQ files, or a list of them"
            ))
            .into())
        }
    };
    print_document_list(&files, args.term_size)?;
    Ok(Outcome::Success)
}

/// Prints the document list of a build on standard output, as COBS's constructions do, and
/// returns the number of documents.
pub fn print_inputs(options: &BuildOptions, term_size: u32) -> Result<u64> {
    let files = super::construct::input_files(options)?;
    print_document_list(&files, term_size)?;
    Ok(files.len() as u64)
}

fn print_document_list(files: &[PathBuf], term_size: u32) -> Result<()> {
    if term_size == 0 {
        bail!("-k 0: the term size is at least 1");
    }
    let listed = files
        .iter()
        .map(|path| list_document(path, term_size as usize))
        .collect::<Result<Vec<_>>>()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    out.write_all(document_list_text(&listed, term_size).as_bytes())?;
    out.flush()?;
    Ok(())
}

fn list_document(path: &Path, k: usize) -> Result<Listed> {
    let bytes = std::fs::metadata(path)?.len();
    let mut reader = SeqReader::open(path)?;
    let mut record = SeqRecord::default();
    let mut terms = 0u64;
    while reader.next_into(&mut record)? {
        terms += kmer_count(record.sequence.len(), k) as u64;
    }
    Ok(Listed {
        path: path.to_path_buf(),
        bytes,
        terms,
    })
}

/// `print_document_list` of `src/cobs.cpp`, with COBS's document names (the file name up to
/// its first dot).
fn document_list_text(listed: &[Listed], k: u32) -> String {
    use std::fmt::Write as _;
    let n = listed.len();
    let mut text = format!("--- document list ({n} entries) ---\n");
    for (i, doc) in listed.iter().enumerate() {
        let _ = writeln!(
            text,
            "document[{i}] size {} {k}-mers {} : {} : {}",
            doc.bytes,
            doc.terms,
            doc.path.display(),
            cobs_document_name(&doc.path)
        );
    }
    let _ = writeln!(text, "--- end of document list ({n} entries) ---");
    let _ = writeln!(text, "documents: {n}");
    if n > 0 {
        let terms = listed.iter().map(|d| d.terms);
        let total: u64 = terms.clone().sum();
        let _ = writeln!(
            text,
            "minimum {k}-mers: {}",
            terms.clone().min().unwrap_or(0)
        );
        let _ = writeln!(text, "maximum {k}-mers: {}", terms.max().unwrap_or(0));
        let _ = writeln!(
            text,
            "average {k}-mers: {}",
            (total as f64 / n as f64) as u64
        );
        let _ = writeln!(text, "total {k}-mers: {total}");
    }
    text
}

/// COBS's `base_name`: the file name up to its first dot.
fn cobs_document_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.split_once('.') {
        Some((stem, _)) => stem.to_string(),
        None => name,
    }
}

pub fn print_parameters(args: ParametersArgs) -> Result<Outcome> {
    if args.num_hashes == 0 || !(args.false_positive_rate > 0.0 && args.false_positive_rate < 1.0) {
        return Err(UsageError(
            "--num-hashes is at least 1 and --false-positive-rate between 0 and 1".into(),
        )
        .into());
    }
    print!(
        "{}",
        parameters_text(args.num_hashes, args.false_positive_rate, args.num_elements)
    );
    Ok(Outcome::Success)
}

fn parameters_text(num_hashes: u32, fpr: f64, num_elements: u64) -> String {
    let ratio = bits_per_kmer(num_hashes, fpr);
    if num_elements == 0 {
        return format!("{}\n", format_general(ratio));
    }
    let signature_size = (num_elements as f64 * ratio).ceil() as u64;
    let signature_bytes = signature_size / 8;
    format!(
        "signature_size = {signature_size}\nsignature_bytes = {signature_bytes} = {}\n",
        format_iec_units(signature_bytes)
    )
}

/// A double as C++ streams print it by default (`%g`, 6 significant digits).
fn format_general(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let scientific = format!("{value:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!(
            "{}e{sign}{:02}",
            trim_zeros(mantissa),
            exponent.unsigned_abs()
        );
    }
    let decimals = (5 - exponent).max(0) as usize;
    trim_zeros(&format!("{value:.decimals$}")).to_string()
}

fn trim_zeros(number: &str) -> &str {
    if !number.contains('.') {
        return number;
    }
    number.trim_end_matches('0').trim_end_matches('.')
}

/// tlx's `format_iec_units`: three decimals, a space, and Ki, Mi, … (nothing below 1024).
fn format_iec_units(number: u64) -> String {
    const UNITS: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let mut value = number as f64;
    let mut scale = 0;
    while value >= 1024.0 && scale + 1 < UNITS.len() {
        value /= 1024.0;
        scale += 1;
    }
    format!("{value:.3} {}", UNITS[scale])
}

/// `print-kmers`: the canonical k-mers of the query, one a line, by COBS's byte rule. COBS
/// prints the first `L − k` of the `L − k + 1` (its loop stops one early); so does this.
pub fn print_kmers(args: KmersArgs) -> Result<Outcome> {
    let k = args.kmer_size as usize;
    let query = args.query.as_bytes();
    if k == 0 || query.len() < k {
        return Err(UsageError(format!(
            "the query is {} characters, shorter than the k-mer size {k}",
            query.len()
        ))
        .into());
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut hasher = KmerHasher::new(args.kmer_size, true, 1, BaseRule::Cobs);
    let mut failed = Ok(());
    hasher.for_each_term(&query[..query.len() - 1], |term| {
        if failed.is_ok() {
            failed = out.write_all(term).and_then(|()| out.write_all(b"\n"));
        }
    });
    failed?;
    out.flush()?;
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values `cobs print-parameters` prints (docs: cobs-format §3.4).
    #[test]
    fn parameters_print_as_cobs() {
        assert_eq!(parameters_text(1, 0.3, 0), "2.80367\n");
        assert_eq!(
            parameters_text(1, 0.3, 1_000_000),
            "signature_size = 2803674\nsignature_bytes = 350459 = 342.245 Ki\n"
        );
        assert!(parameters_text(3, 0.1, 1_000_000).starts_with("signature_size = 4808328\n"));
    }

    #[test]
    fn doubles_print_as_cpp_streams() {
        assert_eq!(format_general(2.803_674_4), "2.80367");
        assert_eq!(format_general(4.0), "4");
        assert_eq!(format_general(14.426_950_4), "14.427");
        assert_eq!(format_general(1234567.0), "1.23457e+06");
        assert_eq!(format_general(0.000_012_5), "1.25e-05");
        assert_eq!(format_general(0.5), "0.5");
    }

    #[test]
    fn iec_units_print_as_tlx() {
        assert_eq!(format_iec_units(0), "0.000 ");
        assert_eq!(format_iec_units(1023), "1023.000 ");
        assert_eq!(format_iec_units(1536), "1.500 Ki");
        assert_eq!(format_iec_units(3 << 30), "3.000 Gi");
    }

    #[test]
    fn document_names_cut_at_the_first_dot() {
        assert_eq!(
            cobs_document_name(Path::new("d/SAMD001.contigs.fa.gz")),
            "SAMD001"
        );
        assert_eq!(cobs_document_name(Path::new("plain")), "plain");
    }

    #[test]
    fn document_list_prints_as_cobs() {
        let listed = [
            Listed {
                path: "g/a.fa".into(),
                bytes: 100,
                terms: 70,
            },
            Listed {
                path: "g/b.fa.gz".into(),
                bytes: 50,
                terms: 5,
            },
        ];
        assert_eq!(
            document_list_text(&listed, 31),
            "--- document list (2 entries) ---\n\
             document[0] size 100 31-mers 70 : g/a.fa : a\n\
             document[1] size 50 31-mers 5 : g/b.fa.gz : b\n\
             --- end of document list (2 entries) ---\n\
             documents: 2\n\
             minimum 31-mers: 5\n\
             maximum 31-mers: 70\n\
             average 31-mers: 37\n\
             total 31-mers: 75\n"
        );
    }
}
