//! The verbs that print: `doc-list` (and the document list every construction prints),
//! `print-parameters` and `print-kmers`, in COBS's exact text (`src/cobs.cpp`).

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use bitsift::builder::layout::bits_per_kmer;
use bitsift::doclist::{DocumentList, FileType};
use bitsift::kmer::{BaseRule, KmerHasher};
use clap::Args;

use super::super::{Outcome, UsageError};
use super::{parse_false_positive_rate, parse_num_hashes, parse_term_size};

#[derive(Args, Debug)]
pub(crate) struct DocListArgs {
    /// path to documents to list
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// "list" to read a file list, or filter documents by file type (any, text, cortex,
    /// cobs_doc, fasta, fastq)
    #[arg(long, default_value = "any", value_name = "TYPE")]
    file_type: String,
    /// term size (k-mer size)
    #[arg(short = 'k', long, default_value_t = 31, value_name = "K", value_parser = parse_term_size)]
    term_size: u32,
}

#[derive(Args, Debug)]
pub(crate) struct ParametersArgs {
    /// number of hash functions
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = parse_num_hashes)]
    num_hashes: u32,
    /// false positive rate
    #[arg(short, long, default_value_t = 0.3, value_name = "RATE",
          value_parser = parse_false_positive_rate)]
    false_positive_rate: f64,
    /// number of elements to be inserted into the index
    #[arg(short, long, default_value_t = 0, value_name = "N")]
    num_elements: u64,
}

#[derive(Args, Debug)]
pub(crate) struct KmersArgs {
    /// the dna sequence to search for
    #[arg(value_name = "QUERY")]
    query: String,
    /// the size of one kmer
    #[arg(short = 'k', long, default_value_t = 31, value_name = "K", value_parser = parse_term_size)]
    kmer_size: u32,
}

pub(crate) fn doc_list(args: DocListArgs) -> Result<Outcome> {
    let filter =
        FileType::parse(&args.file_type).map_err(|e| UsageError(format!("--file-type: {e}")))?;
    let list = DocumentList::scan(&args.path, filter)?;
    print_document_list(&list, args.term_size)?;
    Ok(Outcome::Success)
}

/// Prints `list` on standard output as COBS's `print_document_list` does (the constructions
/// print it too): each document with its file's size, its term count and its name.
pub(crate) fn print_document_list(list: &DocumentList, term_size: u32) -> Result<()> {
    let listed = list
        .entries
        .iter()
        .map(|entry| {
            let bytes = std::fs::metadata(&entry.path)?.len();
            Ok(Listed {
                path: entry.path.clone(),
                bytes,
                terms: entry.num_terms(term_size.into())?,
                name: entry.name.clone(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    out.write_all(document_list_text(&listed, term_size).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// One document as COBS lists it.
struct Listed {
    path: PathBuf,
    bytes: u64,
    terms: u64,
    name: String,
}

/// `print_document_list` of `src/cobs.cpp`.
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
            doc.name
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

pub(crate) fn print_parameters(args: ParametersArgs) -> Result<Outcome> {
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
pub(crate) fn print_kmers(args: KmersArgs) -> Result<Outcome> {
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
    fn document_list_prints_as_cobs() {
        let listed = [
            Listed {
                path: "g/a.fa".into(),
                bytes: 100,
                terms: 70,
                name: "a".into(),
            },
            Listed {
                path: "g/b.fa.gz".into(),
                bytes: 50,
                terms: 5,
                name: "b".into(),
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
