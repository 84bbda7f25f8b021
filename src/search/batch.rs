//! One batch of named queries: each read by the base rule (normalised, or refused as not
//! DNA), the rest searched together with one session, and every query's outcome given back
//! in input order. The command line and Python batch their queries with it alike.

use crate::alphabet::{normalize, BaseReading, NotNucleotides};
use crate::query::{Answer, QueryResult, SearchError, SearchOptions, Session};
use crate::seqfile::SeqRecord;

/// Query bases collected before a batch is searched: bounds the memory of a huge query file.
pub const BATCH_BYTES_MAX: usize = 64 << 20;

/// What became of one query of a batch (as large as the [`Answer`] it is made of, which it
/// does not box: one allocation more per query for nothing).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Outcome {
    /// Searched and answered.
    Answered(QueryResult),
    /// Not searched: its bases are not DNA by the base rule (the reason).
    NotDna(String),
    /// Searched without an answer: shorter than k, or its reads failed (the others stand).
    Unanswered(SearchError),
}

/// Named queries waiting to be searched together; see the module documentation.
pub struct QueryBatch {
    reading: BaseReading,
    /// Per query in input order: its name and its normalised bases, or why it is refused.
    pending: Vec<(String, Result<Vec<u8>, NotNucleotides>)>,
    bytes: usize,
}

impl QueryBatch {
    /// The first waiting query that cannot be searched (not DNA, or shorter than `k`), with
    /// the reason, before anything is read.
    pub fn first_unsearchable(&self, k: u32) -> Option<(&str, String)> {
        self.pending.iter().find_map(|(name, bases)| match bases {
            Err(reason) => Some((name.as_str(), reason.to_string())),
            Ok(bases) if bases.len() < k as usize => {
                let error = SearchError::TooShort {
                    length: bases.len(),
                    k,
                };
                Some((name.as_str(), error.to_string()))
            }
            Ok(_) => None,
        })
    }

    /// When every waiting query was refused (nothing to search, so no session is needed):
    /// their outcomes in input order, and the batch is empty again; else `None`.
    pub fn refused(&mut self) -> Option<Vec<(String, Outcome)>> {
        let searches = self.pending.iter().any(|(_, bases)| bases.is_ok());
        (!searches).then(|| self.outcomes(Vec::new()))
    }

    /// An empty batch reading bases by `reading`.
    pub fn new(reading: BaseReading) -> QueryBatch {
        QueryBatch {
            reading,
            pending: Vec::new(),
            bytes: 0,
        }
    }

    /// Queries waiting.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether no query waits.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Whether the waiting queries hold enough bases ([`BATCH_BYTES_MAX`]) to be searched now.
    pub fn is_full(&self) -> bool {
        self.bytes >= BATCH_BYTES_MAX
    }

    /// Reads `record`'s bases by the batch's rule and adds it: its normalised bases, or why
    /// it is not DNA (it is then answered [`Outcome::NotDna`] in its turn).
    pub fn push(&mut self, record: SeqRecord) -> Result<&[u8], &NotNucleotides> {
        let SeqRecord { name, mut sequence } = record;
        let bases = match normalize(&mut sequence, self.reading) {
            Ok(()) => {
                self.bytes += sequence.len();
                Ok(sequence)
            }
            Err(error) => Err(error),
        };
        self.pending.push((name, bases));
        match &self.pending[self.pending.len() - 1].1 {
            Ok(bases) => Ok(bases),
            Err(reason) => Err(reason),
        }
    }

    /// Searches the waiting queries together with `session` and gives every query's name
    /// and outcome in input order; the batch is empty again. An error is one of the whole
    /// batch (the engine failed).
    pub fn run(
        &mut self,
        session: &mut Session,
        options: &SearchOptions,
    ) -> Result<Vec<(String, Outcome)>, SearchError> {
        let queries: Vec<&[u8]> = self
            .pending
            .iter()
            .filter_map(|(_, bases)| bases.as_deref().ok())
            .collect();
        let answers = match queries.is_empty() {
            true => Vec::new(),
            false => session.search_batch(&queries, options)?,
        };
        Ok(self.outcomes(answers))
    }

    /// Pairs the waiting queries with `answers`, one per query searched, in order.
    fn outcomes(&mut self, answers: Vec<Answer>) -> Vec<(String, Outcome)> {
        let pending = std::mem::take(&mut self.pending);
        self.bytes = 0;
        let mut answers = answers.into_iter();
        let mut outcomes = Vec::with_capacity(pending.len());
        for (name, bases) in pending {
            let outcome = match bases {
                Err(reason) => Outcome::NotDna(reason.to_string()),
                Ok(_) => match answers.next() {
                    Some(Ok(result)) => Outcome::Answered(result),
                    Some(Err(error)) => Outcome::Unanswered(error),
                    None => unreachable!("one answer per searched query"),
                },
            };
            outcomes.push((name, outcome));
        }
        outcomes
    }
}
