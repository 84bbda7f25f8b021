//! Which documents a search reports, as a user says it, checked once for every front end.

use super::identity::threshold_for_identity;

/// Which documents a search reports, as a user says it: a fraction of the query's k-mers
/// (`threshold`), or an identity estimate (`min_identity`). Every front end checks it here,
/// so that all say the same about a bad value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cutoff {
    /// At least this fraction of the query's k-mers.
    Fraction(f64),
    /// An identity estimate of at least this.
    Identity(f64),
}

impl Cutoff {
    /// The cutoff when its value is a number from 0 to 1; else what is wrong and what the
    /// value means.
    pub fn checked(self) -> Result<Cutoff, CutoffError> {
        let (Cutoff::Fraction(value) | Cutoff::Identity(value)) = self;
        let meaning = self.meaning();
        if value.is_nan() {
            return Err(CutoffError::NotANumber { meaning });
        }
        if !(0.0..=1.0).contains(&value) {
            return Err(CutoffError::OutOfRange { value, meaning });
        }
        Ok(self)
    }

    /// What the value means, for error messages.
    pub fn meaning(self) -> &'static str {
        match self {
            Cutoff::Fraction(_) => {
                "the threshold is the fraction of a query's k-mers a document must contain, from 0 to 1 (e.g. 0.8)"
            }
            Cutoff::Identity(_) => {
                "the minimum identity is the identity a hit's copy is estimated to have, from 0 to 1 (e.g. 0.99)"
            }
        }
    }

    /// The threshold (fraction of k-mers) it sets on an index whose largest k is `k`.
    pub(crate) fn threshold(self, k: u32) -> f64 {
        match self {
            Cutoff::Fraction(fraction) => fraction,
            Cutoff::Identity(identity) => threshold_for_identity(identity, k),
        }
    }
}

/// Why a cutoff is refused; each message ends with what the value means.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CutoffError {
    /// The value is NaN.
    #[error("\"nan\" is not a number; {meaning}")]
    NotANumber {
        /// What the value means ([`Cutoff::meaning`]).
        meaning: &'static str,
    },
    /// The value is outside 0..=1.
    #[error("{value} is out of range; {meaning}")]
    OutOfRange {
        /// The value given.
        value: f64,
        /// What the value means ([`Cutoff::meaning`]).
        meaning: &'static str,
    },
}
