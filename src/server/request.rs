//! `POST /api/search` requests: the body's fields, and their checks. Sequences are read as
//! the command line reads them (FASTA text through the project's FASTA/FASTQ reader, bases
//! under the same rule) and the cutoff is checked by [`Cutoff::checked`], so a request and
//! a command get the same answer and the same complaint.

use std::io::Cursor;
use std::path::Path;

use axum::http::StatusCode;
use serde::Deserialize;

use super::api_error::ApiError;
use crate::alphabet::{normalize, BaseReading};
use crate::answer::Cutoff;
use crate::seqfile::{SeqReader, SeqRecord};

/// Queries one request may carry.
pub(crate) const QUERIES_PER_REQUEST_MAX: usize = 1000;
/// Hits per query a request gets when it gives no `limit`.
pub(crate) const LIMIT_DEFAULT: usize = 100;

/// One named sequence of a request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NamedSequence {
    /// Name shown in the results (default `query_N`).
    #[serde(default)]
    pub name: Option<String>,
    /// Bases.
    pub sequence: String,
}

/// What an answer is written as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AnswerFormat {
    /// The JSON answer (`results`, `stats`).
    #[default]
    Json,
    /// The command line's TSV, as a download.
    Tsv,
    /// The command line's presence matrix, as a download.
    Matrix,
}

/// `POST /api/search` body. Exactly one of `sequence`, `sequences` and `fasta`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchRequest {
    /// One raw sequence.
    #[serde(default)]
    pub sequence: Option<String>,
    /// Several named sequences.
    #[serde(default)]
    pub sequences: Option<Vec<NamedSequence>>,
    /// FASTA or FASTQ text (or a raw sequence without header).
    #[serde(default)]
    pub fasta: Option<String>,
    /// Fraction of a query's k-mers a document must contain (0..=1, default 0.8).
    #[serde(default)]
    pub threshold: Option<f64>,
    /// Instead of `threshold`: the identity estimate a hit must reach (0..=1).
    #[serde(default)]
    pub min_identity: Option<f64>,
    /// `threshold` and `min_identity` apply to the raw fraction, false positives included,
    /// as COBS (the hits still carry their corrected scores).
    #[serde(default)]
    pub raw_threshold: bool,
    /// Documents per query at most (0: all; default 100).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Hits to skip before the first one returned: with `limit`, one page of the ranking.
    #[serde(default)]
    pub offset: usize,
    /// A metadata column to count each query's hits by (see `metadata_columns` of
    /// `GET /api/indexes`).
    #[serde(default)]
    pub group_by: Option<String>,
    /// With `group_by`: return only the hits of this group (a value of the column, `""` for
    /// documents the table does not list); totals and groups still count every hit.
    #[serde(default)]
    pub group: Option<String>,
    /// `json` (default), `tsv` or `matrix` (the command line's outputs, as downloads).
    #[serde(default)]
    pub format: AnswerFormat,
    /// `matrix`: cells are 1 and 0 instead of fractions.
    #[serde(default)]
    pub presence: bool,
    /// Names of the indexes to search (default: all; see `GET /api/indexes`).
    #[serde(default)]
    pub indexes: Option<Vec<String>>,
    /// Read lowercase letters as uppercase (the default). `false` keeps COBS's exact byte
    /// rule, under which every byte other than `ACGT` (lowercase letters too) reads as `A`.
    #[serde(default = "fold_case_default")]
    pub fold_case: bool,
    /// Also say where each hit matches (`coverage` per hit: the query's stretches covered by
    /// matching k-mers and the longest run of missing ones); the hits' rows are read again.
    #[serde(default)]
    pub coverage: bool,
}

fn fold_case_default() -> bool {
    true
}

impl SearchRequest {
    /// The cutoff the request asks for, checked.
    pub(crate) fn cutoff(&self) -> Result<Cutoff, ApiError> {
        let cutoff = match (self.threshold, self.min_identity) {
            (Some(_), Some(_)) => {
                return Err(ApiError::bad_request(
                    "give \"threshold\" or \"min_identity\", not both",
                ))
            }
            (_, Some(identity)) => Cutoff::Identity(identity),
            (threshold, None) => {
                Cutoff::Fraction(threshold.unwrap_or(crate::query::THRESHOLD_DEFAULT))
            }
        };
        cutoff
            .checked()
            .map_err(|e| ApiError::bad_request(e.to_string()))
    }

    /// Checks the output fields against each other.
    pub(crate) fn check_output(&self) -> Result<(), ApiError> {
        if self.presence && self.format != AnswerFormat::Matrix {
            return Err(ApiError::bad_request(
                "\"presence\" applies to \"format\": \"matrix\"",
            ));
        }
        if self.group.is_some() && self.group_by.is_none() {
            return Err(ApiError::bad_request(
                "\"group\" names a value of the \"group_by\" column: give both",
            ));
        }
        if self.group_by.is_some() && self.format == AnswerFormat::Matrix {
            return Err(ApiError::bad_request(
                "\"group_by\" applies to \"format\": \"json\" or \"tsv\"",
            ));
        }
        Ok(())
    }
}

/// The request's queries, named, their bases checked and read under the request's rule.
/// Takes the sequences out of the request (no copy of a large FASTA text).
pub(crate) fn queries_of(
    request: &mut SearchRequest,
    max_bases: usize,
) -> Result<Vec<SeqRecord>, ApiError> {
    let given = [
        request.sequence.is_some(),
        request.sequences.is_some(),
        request.fasta.is_some(),
    ];
    if given.iter().filter(|&&b| b).count() != 1 {
        return Err(ApiError::bad_request(
            "give exactly one of \"sequence\" (one sequence), \"sequences\" ([{\"name\", \"sequence\"}]) or \"fasta\" (FASTA text)",
        ));
    }
    let mut records = if let Some(sequence) = request.sequence.take() {
        vec![SeqRecord {
            name: "query".into(),
            sequence: sequence.into_bytes(),
        }]
    } else if let Some(sequences) = request.sequences.take() {
        named(sequences)
    } else {
        fasta_records(request.fasta.take().unwrap_or_default())?
    };
    if records.is_empty() {
        return Err(ApiError::bad_request("no sequence given"));
    }
    if records.len() > QUERIES_PER_REQUEST_MAX {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("{} sequences in one request; at most {QUERIES_PER_REQUEST_MAX} are accepted, split the request", records.len()),
        ));
    }
    let reading = if request.fold_case {
        BaseReading::Standard
    } else {
        BaseReading::Cobs { fold_case: false }
    };
    for record in &mut records {
        check_bases(record, reading, max_bases)?;
    }
    Ok(records)
}

fn named(sequences: Vec<NamedSequence>) -> Vec<SeqRecord> {
    sequences
        .into_iter()
        .enumerate()
        .map(|(i, item)| SeqRecord {
            name: item.name.unwrap_or_else(|| format!("query_{}", i + 1)),
            sequence: item.sequence.into_bytes(),
        })
        .collect()
}

/// FASTA or FASTQ text read by the project's reader, or one raw sequence without a header.
fn fasta_records(text: String) -> Result<Vec<SeqRecord>, ApiError> {
    let starts = text.trim_start().as_bytes().first().copied();
    if !matches!(starts, Some(b'>' | b'@')) {
        let sequence = text.into_bytes();
        return Ok(if sequence.iter().all(u8::is_ascii_whitespace) {
            Vec::new()
        } else {
            vec![SeqRecord {
                name: "query".into(),
                sequence,
            }]
        });
    }
    let source = Path::new("fasta");
    let mut reader = SeqReader::from_reader(source, Cursor::new(text.into_bytes()))
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let mut records = Vec::new();
    let mut record = SeqRecord::default();
    while reader
        .next_into(&mut record)
        .map_err(|e| ApiError::bad_request(e.to_string()))?
    {
        if records.len() == QUERIES_PER_REQUEST_MAX {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("more than {QUERIES_PER_REQUEST_MAX} sequences in one request; split the request"),
            ));
        }
        if record.name.is_empty() {
            record.name = format!("query_{}", records.len() + 1);
        }
        records.push(std::mem::take(&mut record));
    }
    Ok(records)
}

/// Drops whitespace (never a base, under either rule), then checks and rewrites the bases.
fn check_bases(
    record: &mut SeqRecord,
    reading: BaseReading,
    max_bases: usize,
) -> Result<(), ApiError> {
    record.sequence.retain(|b| !b.is_ascii_whitespace());
    if record.sequence.is_empty() {
        return Err(ApiError::bad_request(format!(
            "query {:?} is empty",
            record.name
        )));
    }
    normalize(&mut record.sequence, reading)
        .map_err(|e| ApiError::bad_request(format!("query {:?}: {e}", record.name)))?;
    if record.sequence.len() > max_bases {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "query {:?} is {} bases; this server accepts at most {max_bases} per query (--max-query-bases)",
                record.name,
                record.sequence.len()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: &str) -> SearchRequest {
        serde_json::from_str::<SearchRequest>(json).unwrap()
    }

    #[test]
    fn fasta_fastq_and_raw_text() {
        let records = fasta_records(">a gene\nACGT\nacgt\n>b\nTT\n".into()).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(
            (records[0].name.as_str(), records[0].sequence.as_slice()),
            ("a", &b"ACGTacgt"[..])
        );
        let raw = fasta_records("ACGT\nTTTT\n".into()).unwrap();
        assert_eq!(raw[0].name, "query");
        let fastq = fasta_records("@r1\nACGT\n+\nIIII\n".into()).unwrap();
        assert_eq!(fastq[0].sequence, b"ACGT");
        let broken = fasta_records("@r1\nACGT\n+\nII\n".into()).unwrap_err();
        assert_eq!(broken.status, StatusCode::BAD_REQUEST);
        assert!(broken.message.starts_with("fasta: "), "{}", broken.message);
    }

    #[test]
    fn validation_names_the_problem() {
        let err = queries_of(&mut request(r#"{"sequence": "ACGT1"}"#), 100).unwrap_err();
        assert!(
            err.message.starts_with(
                "query \"query\": not a nucleotide sequence: digits ('1' from position 5;"
            ),
            "{}",
            err.message
        );
        let folded = queries_of(&mut request(r#"{"sequence": "acgu acgt"}"#), 100).unwrap();
        assert_eq!(folded[0].sequence, b"ACGTACGT");
        let exact = queries_of(
            &mut request(r#"{"sequence": "acgt ACGT", "fold_case": false}"#),
            100,
        )
        .unwrap();
        assert_eq!(exact[0].sequence, b"acgtACGT");
        let err = queries_of(&mut request(r#"{"fasta": ">p\nMKTLLILAVL\n"}"#), 100).unwrap_err();
        assert_eq!(err.status, StatusCode::BAD_REQUEST);
        assert!(
            err.message.contains("looks like a protein"),
            "{}",
            err.message
        );
        let err = queries_of(&mut request(r#"{"sequence": "  "}"#), 100).unwrap_err();
        assert!(err.message.contains("is empty"));
        let err = queries_of(&mut request(r#"{"sequence": "ACGTACGT"}"#), 4).unwrap_err();
        assert_eq!(err.status, StatusCode::PAYLOAD_TOO_LARGE);
        let err =
            queries_of(&mut request(r#"{"sequence": "A", "fasta": ">x\nA"}"#), 4).unwrap_err();
        assert!(err.message.contains("exactly one"));
        assert!(serde_json::from_str::<SearchRequest>(r#"{"sequense": "A"}"#).is_err());
    }

    #[test]
    fn the_cutoff_is_a_threshold_or_an_identity() {
        assert_eq!(request("{}").cutoff().unwrap(), Cutoff::Fraction(0.8));
        assert_eq!(
            request(r#"{"min_identity": 0.99}"#).cutoff().unwrap(),
            Cutoff::Identity(0.99)
        );
        let both = request(r#"{"threshold": 0.5, "min_identity": 0.99}"#).cutoff();
        assert!(both.unwrap_err().message.contains("not both"));
        let out = request(r#"{"threshold": 1.5}"#).cutoff().unwrap_err();
        assert!(out
            .message
            .starts_with("1.5 is out of range; the threshold"));
        let presence = request(r#"{"presence": true}"#).check_output().unwrap_err();
        assert!(presence.message.contains("matrix"));
    }
}
