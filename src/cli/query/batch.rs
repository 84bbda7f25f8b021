//! Query records collected, normalised and searched together; the ones that cannot be
//! searched (not DNA, shorter than k) are reported and counted, and the rest still run.

use std::io::Write;

use anyhow::Result;
use bitsift::alphabet::{normalize, BaseReading};
use bitsift::answer::{ResultWriter, SkipReason};
use bitsift::query::{SearchError, SearchOptions, Searcher};
use bitsift::seqfile::SeqRecord;

/// Query bases collected before a batch is searched: bounds the memory of a huge query file.
const BATCH_BYTES_MAX: usize = 64 << 20;
/// Skipped queries named one by one on standard error; the rest are only counted.
const SKIP_WARNINGS_MAX: u64 = 10;

/// Queries that were not searched, by reason.
#[derive(Debug, Default)]
pub struct Skips {
    too_short: u64,
    not_dna: u64,
    read_failed: u64,
    /// Queries seen, searched or not.
    pub queries: u64,
}

impl Skips {
    /// Queries not searched.
    pub fn total(&self) -> u64 {
        self.too_short + self.not_dna + self.read_failed
    }

    fn count(&mut self, reason: SkipReason) {
        match reason {
            SkipReason::TooShort => self.too_short += 1,
            SkipReason::NotNucleotides => self.not_dna += 1,
            SkipReason::ReadFailed => self.read_failed += 1,
        }
    }

    /// One line: how many queries were skipped and why.
    pub fn summary(&self) -> String {
        let mut reasons = Vec::new();
        if self.too_short > 0 {
            reasons.push(format!("{} shorter than k", self.too_short));
        }
        if self.not_dna > 0 {
            reasons.push(format!("{} not DNA", self.not_dna));
        }
        if self.read_failed > 0 {
            reasons.push(format!("{} whose index reads failed", self.read_failed));
        }
        let unlisted = self.total().saturating_sub(SKIP_WARNINGS_MAX);
        format!(
            "{} of {} {} not searched ({}){}; exit status 3",
            self.total(),
            self.queries,
            if self.queries == 1 {
                "query was"
            } else {
                "queries were"
            },
            reasons.join(", "),
            if unlisted > 0 {
                format!(", {unlisted} of them not listed above")
            } else {
                String::new()
            }
        )
    }
}

/// A query of the batch, in input order: to be searched, or already refused.
enum Pending {
    Search(SeqRecord),
    NotDna { name: String, message: String },
}

/// Query records waiting to be searched together; results are written in input order.
pub struct Batch<'o> {
    /// `path: ` of the query file, to prefix messages.
    pub origin: String,
    reading: BaseReading,
    options: &'o SearchOptions,
    stats: bool,
    pending: Vec<Pending>,
    bytes: usize,
    lowercase_warned: bool,
    /// The last batch whose stats were printed.
    batch_reported: u64,
    /// What was skipped so far.
    pub skips: Skips,
}

impl<'o> Batch<'o> {
    /// An empty batch reading bases by `reading` and searching with `options`.
    pub fn new(reading: BaseReading, options: &'o SearchOptions, stats: bool) -> Self {
        Batch {
            origin: String::new(),
            reading,
            options,
            stats,
            pending: Vec::new(),
            bytes: 0,
            lowercase_warned: false,
            batch_reported: 0,
            skips: Skips::default(),
        }
    }

    /// Records waiting.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether the waiting records hold enough bases to be searched now.
    pub fn is_full(&self) -> bool {
        self.bytes >= BATCH_BYTES_MAX
    }

    /// Normalises `record` and adds it; a record that is not DNA is reported on standard
    /// error now and in the results in its turn.
    pub fn push(&mut self, mut record: SeqRecord) {
        self.skips.queries += 1;
        if let Err(error) = normalize(&mut record.sequence, self.reading) {
            let message = error.to_string();
            self.warn_skipped(&record.name, SkipReason::NotNucleotides, &message);
            self.pending.push(Pending::NotDna {
                name: record.name,
                message,
            });
            return;
        }
        self.warn_lowercase(&record);
        self.bytes += record.sequence.len();
        self.pending.push(Pending::Search(record));
    }

    /// Under COBS's byte rule lowercase bases read as A: say so once.
    fn warn_lowercase(&mut self, record: &SeqRecord) {
        if self.lowercase_warned
            || self.reading != (BaseReading::Cobs { fold_case: false })
            || !record.sequence.iter().any(u8::is_ascii_lowercase)
        {
            return;
        }
        self.lowercase_warned = true;
        tracing::warn!(
            "{}query {:?} has lowercase bases, which the COBS rule reads as A (so they rarely match); drop --cobs-bases, or add --fold-case, to read them as ACGT",
            self.origin,
            record.name
        );
    }

    /// Counts a skipped query and names it on standard error (the first few).
    fn warn_skipped(&mut self, name: &str, reason: SkipReason, message: &str) {
        self.skips.count(reason);
        if self.skips.total() <= SKIP_WARNINGS_MAX {
            tracing::warn!(
                "{}query {name:?}: {message}; it was not searched",
                self.origin
            );
        }
    }

    /// Searches the collected queries together and writes their results in input order.
    pub fn run<W: Write>(
        &mut self,
        searcher: &mut Searcher,
        writer: &mut ResultWriter<W>,
    ) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        self.bytes = 0;
        let queries: Vec<&[u8]> = pending
            .iter()
            .filter_map(|p| match p {
                Pending::Search(record) => Some(record.sequence.as_slice()),
                Pending::NotDna { .. } => None,
            })
            .collect();
        let mut answers = if queries.is_empty() {
            Vec::new()
        } else {
            searcher.search_batch(&queries, self.options)?
        }
        .into_iter();
        for entry in &pending {
            let record = match entry {
                Pending::Search(record) => record,
                Pending::NotDna { name, message } => {
                    writer.write_skipped(name, SkipReason::NotNucleotides, message)?;
                    continue;
                }
            };
            let answer = answers.next().expect("one answer per searched query");
            match answer {
                Ok(result) => {
                    writer.write_result(&record.name, &result)?;
                    if self.stats {
                        if result.batch.batch != self.batch_reported {
                            self.batch_reported = result.batch.batch;
                            eprintln!("# batch\t{}", result.batch.summary());
                        }
                        eprintln!(
                            "# {}\ttotal_hits={} documents_searched={} {}",
                            bitsift::tsv::field(&record.name),
                            result.total_hits,
                            result.documents_searched,
                            result.stats.summary()
                        );
                    }
                }
                Err(error @ SearchError::ReadFailed(_)) => {
                    // Only this query's rows were unreadable; the others stand.
                    let message = format!("{error}; it was not answered");
                    self.skips.count(SkipReason::ReadFailed);
                    tracing::error!("{}query {:?}: {message}", self.origin, record.name);
                    writer.write_skipped(&record.name, SkipReason::ReadFailed, &message)?;
                }
                Err(error @ SearchError::TooShort { .. }) => {
                    let message = error.to_string();
                    self.warn_skipped(&record.name, SkipReason::TooShort, &message);
                    writer.write_skipped(&record.name, SkipReason::TooShort, &message)?;
                }
                Err(error) => return Err(error.into()),
            }
        }
        Ok(())
    }
}
