//! Query records collected, normalised and searched together; the ones that cannot be
//! searched (not DNA, shorter than k) are reported and counted, and the rest still run.

use std::io::Write;

use anyhow::Result;
use bitsift::alphabet::BaseReading;
use bitsift::answer::{ResultWriter, SkipReason};
use bitsift::query::{QueryResult, SearchError, SearchOptions, Session};
use bitsift::search::{Outcome, QueryBatch};
use bitsift::seqfile::SeqRecord;

/// Skipped queries named one by one on standard error; the rest are only counted.
const SKIP_WARNINGS_MAX: u64 = 10;

/// Queries that were not searched, by reason.
#[derive(Debug, Default)]
pub(crate) struct Skips {
    too_short: u64,
    not_dna: u64,
    read_failed: u64,
    /// Queries seen, searched or not.
    pub(crate) queries: u64,
    /// Queries answered with at least one hit.
    pub(crate) with_hits: u64,
    /// Hits reported, over all queries.
    pub(crate) hits: u64,
    /// The largest false-positive rate per k-mer of a reported document.
    pub(crate) fpr_max: f64,
}

impl Skips {
    /// Queries not searched.
    pub(crate) fn total(&self) -> u64 {
        self.too_short + self.not_dna + self.read_failed
    }

    fn count(&mut self, reason: SkipReason) {
        match reason {
            SkipReason::TooShort => self.too_short += 1,
            SkipReason::NotNucleotides => self.not_dna += 1,
            SkipReason::ReadFailed => self.read_failed += 1,
        }
    }

    /// The closing line of a run: `800 queries, 109 with hits, 288 hits`.
    pub(crate) fn closing(&self) -> String {
        format!(
            "{}, {} with hits, {}",
            bitsift::units::plural(self.queries, "query"),
            self.with_hits,
            bitsift::units::plural(self.hits, "hit")
        )
    }

    /// One line: how many queries were skipped and why.
    pub(crate) fn summary(&self) -> String {
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

/// Query records waiting to be searched together ([`QueryBatch`]), with what the command
/// line says about them: warnings for the queries skipped, statistics, results in input order.
pub(crate) struct Batch<'o> {
    /// `path: ` of the query file, to prefix messages.
    pub(crate) origin: String,
    reading: BaseReading,
    options: &'o SearchOptions,
    stats: bool,
    queries: QueryBatch,
    lowercase_warned: bool,
    /// The last batch whose stats were printed.
    batch_reported: u64,
    /// What was skipped so far.
    pub(crate) skips: Skips,
}

impl<'o> Batch<'o> {
    /// An empty batch reading bases by `reading` and searching with `options`.
    pub(crate) fn new(reading: BaseReading, options: &'o SearchOptions, stats: bool) -> Self {
        Batch {
            origin: String::new(),
            reading,
            options,
            stats,
            queries: QueryBatch::new(reading),
            lowercase_warned: false,
            batch_reported: 0,
            skips: Skips::default(),
        }
    }

    /// Records waiting.
    pub(crate) fn len(&self) -> usize {
        self.queries.len()
    }

    /// Whether the waiting records hold enough bases to be searched now.
    pub(crate) fn is_full(&self) -> bool {
        self.queries.is_full()
    }

    /// Normalises `record` and adds it; a record that is not DNA is reported on standard
    /// error now and in the results in its turn.
    pub(crate) fn push(&mut self, record: SeqRecord) {
        self.skips.queries += 1;
        let name = record.name.clone();
        let refused = match self.queries.push(record) {
            Ok(bases) => {
                let lowercase = bases.iter().any(u8::is_ascii_lowercase);
                self.warn_lowercase(&name, lowercase);
                return;
            }
            Err(message) => message.to_string(),
        };
        self.warn_skipped(&name, SkipReason::NotNucleotides, &refused);
    }

    /// Under COBS's byte rule lowercase bases read as A: say so once.
    fn warn_lowercase(&mut self, name: &str, lowercase: bool) {
        if self.lowercase_warned
            || self.reading != (BaseReading::Cobs { fold_case: false })
            || !lowercase
        {
            return;
        }
        self.lowercase_warned = true;
        tracing::warn!(
            "{}query {:?} has lowercase bases, which the COBS rule reads as A (so they rarely match); drop --cobs-bases, or add --fold-case, to read them as ACGT",
            self.origin,
            name
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
    pub(crate) fn run<W: Write>(
        &mut self,
        searcher: &mut Session,
        writer: &mut ResultWriter<W>,
    ) -> Result<()> {
        if self.queries.is_empty() {
            return Ok(());
        }
        for (name, outcome) in self.queries.run(searcher, self.options)? {
            match outcome {
                Outcome::Answered(result) => {
                    self.skips.hits += result.hits.len() as u64;
                    self.skips.with_hits += u64::from(!result.hits.is_empty());
                    let fprs = result.corrected.iter().map(|c| c.fpr);
                    self.skips.fpr_max = fprs.fold(self.skips.fpr_max, f64::max);
                    writer.write_result(&name, &result)?;
                    self.print_stats(&name, &result);
                }
                Outcome::NotDna(message) => {
                    writer.write_skipped(&name, SkipReason::NotNucleotides, &message)?;
                }
                Outcome::Unanswered(error @ SearchError::ReadFailed(_)) => {
                    // Only this query's rows were unreadable; the others stand.
                    let message = format!("{error}; it was not answered");
                    self.skips.count(SkipReason::ReadFailed);
                    tracing::error!("{}query {:?}: {message}", self.origin, name);
                    writer.write_skipped(&name, SkipReason::ReadFailed, &message)?;
                }
                Outcome::Unanswered(error @ SearchError::TooShort { .. }) => {
                    let message = error.to_string();
                    self.warn_skipped(&name, SkipReason::TooShort, &message);
                    writer.write_skipped(&name, SkipReason::TooShort, &message)?;
                }
                Outcome::Unanswered(error) => return Err(error.into()),
            }
        }
        Ok(())
    }

    /// With `--stats`: the batch's line when it is a new batch, then the query's.
    fn print_stats(&mut self, name: &str, result: &QueryResult) {
        if !self.stats {
            return;
        }
        if result.batch.batch != self.batch_reported {
            self.batch_reported = result.batch.batch;
            eprintln!("# batch\t{}", result.batch.summary());
        }
        eprintln!(
            "# {}\ttotal_hits={} documents_searched={} {}",
            bitsift::tsv::field(name),
            result.total_hits,
            result.documents_searched,
            result.stats.summary()
        );
    }
}
