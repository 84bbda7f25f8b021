//! What counts as a base, and how the bytes of a sequence become the bytes that are hashed:
//! one rule for queries (command line, query files, the JSON API, the web page) and genomes
//! (the builder), applied where sequences enter the program and never in [`crate::kmer`].
//!
//! [`normalize`] checks a sequence against the nucleotide alphabet and rewrites it in place:
//!
//! - **nucleotides** are `A C G T U`, `N`, and the IUPAC codes `R Y S W K M B D H V`, in
//!   either case;
//! - **whitespace** (spaces, tabs, line breaks) is not a base and is dropped;
//! - anything else (protein letters such as `E F I L P Q`, digits, alignment gaps `-` and
//!   `.`, stop codons `*`) is refused with a [`NotNucleotides`] error that lists the first
//!   offending letters: a wrong kind of input gets an error, never hits.
//!
//! With [`BaseReading::Standard`] letters are folded to upper case and `U` becomes `T`, so
//! `acgt`, `ACGT` and `ACGU` are the same bases. [`BaseReading::Cobs`] keeps COBS v0.3.x's
//! exact byte rule instead: bytes stay as given, and the k-mer layer reads every byte other
//! than `ACGT` (lowercase letters and whitespace included) as `A`.
//!
//! ```
//! use bitsift::alphabet::{normalize, BaseReading};
//! let mut sequence = b"acgu ACGN\n".to_vec();
//! normalize(&mut sequence, BaseReading::Standard).unwrap();
//! assert_eq!(sequence, b"ACGTACGN");
//! let mut protein = b"MKTLLILAVL".to_vec();
//! let error = normalize(&mut protein, BaseReading::Standard).unwrap_err();
//! assert_eq!((error.position, error.letters.as_slice()), (4, &b"LI"[..]));
//! ```

use std::fmt;

/// How the bytes of a sequence are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BaseReading {
    /// bitsift's rule: whitespace dropped, letters folded to upper case, `U` read as `T`.
    #[default]
    Standard,
    /// COBS v0.3.x's exact rule: bytes as given, so lowercase letters, whitespace, `N` and
    /// IUPAC codes all count as `A`. `fold_case` reads lowercase letters as upper case first
    /// (`cobs query` has no such switch; bitsift's `--fold-case` did this before it became
    /// the default).
    Cobs {
        /// Fold lowercase letters to upper case.
        fold_case: bool,
    },
}

/// Distinct offending bytes kept for the error message.
const SHOWN_MAX: usize = 6;

/// A sequence that is not made of nucleotides.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct NotNucleotides {
    /// Position (1-based, in the sequence as given) of the first byte that is not a base.
    pub position: usize,
    /// The distinct offending bytes in order of first appearance (at most six).
    pub letters: Vec<u8>,
    /// Offending bytes in all.
    pub count: usize,
    /// Whether more distinct offending bytes exist than `letters` holds.
    pub more_letters: bool,
}

/// What a byte of a sequence is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// A nucleotide letter, as it reads under [`BaseReading::Standard`].
    Base(u8),
    /// Whitespace: not a base.
    Space,
    /// Anything else.
    Foreign,
}

const fn class_of(byte: u8) -> Class {
    match byte.to_ascii_uppercase() {
        b'U' => Class::Base(b'T'),
        upper @ (b'A' | b'C' | b'G' | b'T' | b'N' | b'R' | b'Y' | b'S' | b'W' | b'K' | b'M'
        | b'B' | b'D' | b'H' | b'V') => Class::Base(upper),
        b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => Class::Space,
        _ => Class::Foreign,
    }
}

const CLASSES: [Class; 256] = {
    let mut table = [Class::Foreign; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = class_of(i as u8);
        i += 1;
    }
    table
};

/// Bit of [`KIND`]: the byte is neither a base nor whitespace.
const KIND_FOREIGN: u8 = 1;
/// Bit of [`KIND`]: the byte is whitespace.
const KIND_SPACE: u8 = 2;

/// Per byte, [`KIND_FOREIGN`] or [`KIND_SPACE`] or 0 (a base): OR-ed over a sequence, it
/// says in one branch-free pass whether anything needs an error or removing.
const KIND: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = match CLASSES[i] {
            Class::Base(_) => 0,
            Class::Space => KIND_SPACE,
            Class::Foreign => KIND_FOREIGN,
        };
        i += 1;
    }
    table
};

/// Under [`BaseReading::Standard`], what each byte becomes: its base, or 0 for whitespace
/// (dropped). Foreign bytes never get here.
const STANDARD: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        if let Class::Base(base) = CLASSES[i] {
            table[i] = base;
        }
        i += 1;
    }
    table
};

/// Whether `byte` is a nucleotide letter (either case, IUPAC codes and `U` included).
pub fn is_nucleotide(byte: u8) -> bool {
    matches!(CLASSES[byte as usize], Class::Base(_))
}

/// Checks that `sequence` holds nucleotides only and rewrites it as `reading` says (see the
/// module documentation). On error the sequence is left as it was.
pub fn normalize(sequence: &mut Vec<u8>, reading: BaseReading) -> Result<(), NotNucleotides> {
    let kinds = sequence
        .iter()
        .fold(0u8, |kinds, &b| kinds | KIND[b as usize]);
    if kinds & KIND_FOREIGN != 0 {
        return Err(not_nucleotides(sequence));
    }
    match reading {
        BaseReading::Standard if kinds & KIND_SPACE != 0 => {
            // Compacting in place: whitespace maps to 0 and is overwritten.
            let mut kept = 0;
            for read in 0..sequence.len() {
                let base = STANDARD[sequence[read] as usize];
                sequence[kept] = base;
                kept += usize::from(base != 0);
            }
            sequence.truncate(kept);
        }
        BaseReading::Standard => {
            for byte in sequence.iter_mut() {
                *byte = STANDARD[*byte as usize];
            }
        }
        BaseReading::Cobs { fold_case: true } => sequence.make_ascii_uppercase(),
        BaseReading::Cobs { fold_case: false } => {}
    }
    Ok(())
}

/// The error for a sequence holding bytes that are neither bases nor whitespace.
fn not_nucleotides(sequence: &[u8]) -> NotNucleotides {
    let foreign = |b: u8| KIND[b as usize] == KIND_FOREIGN;
    let first = sequence.iter().position(|&b| foreign(b)).unwrap_or(0);
    let mut letters = Vec::new();
    let mut count = 0;
    let mut more_letters = false;
    for &byte in sequence[first..].iter().filter(|&&b| foreign(b)) {
        count += 1;
        if letters.contains(&byte) {
            continue;
        }
        if letters.len() < SHOWN_MAX {
            letters.push(byte);
        } else {
            more_letters = true;
        }
    }
    NotNucleotides {
        position: first + 1,
        letters,
        count,
        more_letters,
    }
}

/// What the offending letters suggest the input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Suspect {
    Protein,
    Gaps,
    Digits,
    Unknown,
}

impl NotNucleotides {
    fn suspect(&self) -> Suspect {
        // Letters of the protein alphabet that are no nucleotide code, and the stop symbol.
        const PROTEIN_ONLY: &[u8] = b"EFILPQXZJO*";
        let all = |test: &dyn Fn(u8) -> bool| self.letters.iter().all(|&b| test(b));
        if all(&|b| PROTEIN_ONLY.contains(&b.to_ascii_uppercase())) {
            Suspect::Protein
        } else if all(&|b| b == b'-' || b == b'.') {
            Suspect::Gaps
        } else if all(&|b| b.is_ascii_digit()) {
            Suspect::Digits
        } else {
            Suspect::Unknown
        }
    }
}

impl fmt::Display for NotNucleotides {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown: Vec<String> = self
            .letters
            .iter()
            .map(|&b| format!("'{}'", b.escape_ascii()))
            .collect();
        if self.more_letters {
            shown.push("…".into());
        }
        let letters = format!(
            "{} from position {}; {} in all",
            shown.join(", "),
            self.position,
            self.count
        );
        write!(f, "not a nucleotide sequence: ")?;
        match self.suspect() {
            Suspect::Protein => write!(
                f,
                "it looks like a protein ({letters}); bitsift searches DNA: A, C, G, T, U, N and the IUPAC codes"
            ),
            Suspect::Gaps => write!(
                f,
                "alignment gaps ({letters}) are not bases; remove them first (e.g. seqkit seq -g)"
            ),
            Suspect::Digits => write!(
                f,
                "digits ({letters}) are not bases; give FASTA rather than numbered (GenBank-style) lines"
            ),
            Suspect::Unknown => write!(
                f,
                "{letters} are not bases, which are A, C, G, T, U, N and the IUPAC codes R Y S W K M B D H V"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standard(text: &[u8]) -> Result<Vec<u8>, NotNucleotides> {
        let mut sequence = text.to_vec();
        normalize(&mut sequence, BaseReading::Standard).map(|()| sequence)
    }

    #[test]
    fn standard_folds_case_drops_whitespace_and_reads_u_as_t() {
        assert_eq!(standard(b"acgt ACGT\tn\r\nu").unwrap(), b"ACGTACGTNT");
        assert_eq!(
            standard(b"ryswkmbdhvRYSWKMBDHV").unwrap(),
            b"RYSWKMBDHVRYSWKMBDHV"
        );
        assert_eq!(standard(b"").unwrap(), b"");
    }

    #[test]
    fn cobs_keeps_bytes_as_given() {
        let mut sequence = b"acgt NU".to_vec();
        normalize(&mut sequence, BaseReading::Cobs { fold_case: false }).unwrap();
        assert_eq!(sequence, b"acgt NU");
        normalize(&mut sequence, BaseReading::Cobs { fold_case: true }).unwrap();
        assert_eq!(sequence, b"ACGT NU");
        let mut protein = b"MEEP".to_vec();
        assert!(normalize(&mut protein, BaseReading::Cobs { fold_case: false }).is_err());
    }

    #[test]
    fn protein_is_refused_with_its_letters() {
        // M and K are IUPAC nucleotide codes too: the first letter that is not is L.
        let error = standard(b"MKTLLILAVLAAVLAQPEFGHIK").unwrap_err();
        assert_eq!(error.position, 4);
        assert_eq!(error.letters, b"LIQPEF");
        assert!(!error.more_letters);
        assert_eq!(
            error.to_string(),
            "not a nucleotide sequence: it looks like a protein ('L', 'I', 'Q', 'P', 'E', 'F' from position 4; 11 in all); bitsift searches DNA: A, C, G, T, U, N and the IUPAC codes"
        );
    }

    #[test]
    fn a_refused_sequence_is_left_as_it_was() {
        let mut sequence = b"acgt acgtE".to_vec();
        assert!(normalize(&mut sequence, BaseReading::Standard).is_err());
        assert_eq!(sequence, b"acgt acgtE");
    }

    #[test]
    fn hints_name_gaps_and_digits() {
        let gaps = standard(b"ACGT--ACGT").unwrap_err();
        assert_eq!((gaps.position, gaps.count), (5, 2));
        assert_eq!(
            gaps.to_string(),
            "not a nucleotide sequence: alignment gaps ('-' from position 5; 2 in all) are not bases; remove them first (e.g. seqkit seq -g)"
        );
        let digits = standard(b"1 acgtacgt 11 acgt").unwrap_err();
        assert!(digits.to_string().contains("GenBank"), "{digits}");
        let one = standard(b"ACGT\x00#").unwrap_err().to_string();
        assert!(
            one.ends_with(": '\\x00', '#' from position 5; 2 in all are not bases, which are A, C, G, T, U, N and the IUPAC codes R Y S W K M B D H V"),
            "{one}"
        );
    }

    #[test]
    fn many_letters_are_cut_short() {
        let error = standard(b"ACGTEFIJLOPQ").unwrap_err();
        assert_eq!(error.letters.len(), SHOWN_MAX);
        assert!(error.more_letters);
        assert_eq!(error.count, 8);
        assert!(
            error.to_string().contains(", … from position 5; 8 in all"),
            "{error}"
        );
    }

    #[test]
    fn every_byte_is_classified() {
        let nucleotides: Vec<u8> = (0..=255u8).filter(|&b| is_nucleotide(b)).collect();
        assert_eq!(nucleotides, b"ABCDGHKMNRSTUVWYabcdghkmnrstuvwy");
    }
}
