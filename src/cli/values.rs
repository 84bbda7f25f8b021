//! Value parsers of the index options every building command shares (`-k`, `--fpr`,
//! `--hashes`, `--page-size`): a value out of range is a usage error (exit 2, nothing run),
//! said the same way by `build`, `add` and `synth`.

use std::str::FromStr;

use bitsift::format::{HASHES_MAX, K_MAX, PAGE_SIZE_MAX};

/// Why a command-line value was refused: the message clap prints after the option's name
/// (every value parser of the command line answers with it, or with a library's own error).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct BadValue(pub String);

impl From<String> for BadValue {
    fn from(message: String) -> BadValue {
        BadValue(message)
    }
}

impl From<bitsift::units::SizeError> for BadValue {
    fn from(error: bitsift::units::SizeError) -> BadValue {
        BadValue(error.to_string())
    }
}

/// `-k`: from 1 to [`K_MAX`].
pub(crate) fn k(text: &str) -> Result<u32, BadValue> {
    one_to(text, "", K_MAX.into(), || format!("k is from 1 to {K_MAX}"))
}

/// `--fpr`: strictly between 0 and 1.
pub(crate) fn fpr(text: &str) -> Result<f64, BadValue> {
    let fpr: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if !(fpr > 0.0 && fpr < 1.0) {
        return Err(BadValue(
            "the false-positive rate is between 0 and 1, exclusive (e.g. 0.3)".into(),
        ));
    }
    Ok(fpr)
}

/// `--hashes`: from 1 to [`HASHES_MAX`].
pub(crate) fn hashes(text: &str) -> Result<u32, BadValue> {
    one_to(text, "", HASHES_MAX, || {
        format!("from 1 to {HASHES_MAX} hash functions")
    })
}

/// `--page-size`: from 1 to [`PAGE_SIZE_MAX`] bytes per row.
pub(crate) fn page_size(text: &str) -> Result<u64, BadValue> {
    one_to(text, " of bytes", PAGE_SIZE_MAX, || {
        format!("from 1 to {PAGE_SIZE_MAX} bytes per row")
    })
}

/// `text` as a whole number (`of`, such as " of bytes", says of what) from 1 to `max`;
/// `range` says what the range is, for a number outside it.
fn one_to<T: FromStr + Copy + Into<u64>>(
    text: &str,
    of: &str,
    max: u64,
    range: impl FnOnce() -> String,
) -> Result<T, BadValue> {
    let value: T = text
        .parse()
        .map_err(|_| format!("{text:?} is not a whole number{of}"))?;
    if value.into() == 0 || value.into() > max {
        return Err(BadValue(range()));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_at_both_ends() {
        assert_eq!(k("31"), Ok(31));
        assert!(k("0").is_err() && k(&(K_MAX + 1).to_string()).is_err() && k("x").is_err());
        assert_eq!(fpr("0.3"), Ok(0.3));
        for bad in ["0", "1", "1.5", "-0.1", "nan", "x"] {
            assert!(fpr(bad).is_err(), "{bad}");
        }
        assert!(hashes("0").is_err() && hashes("1").is_ok());
        assert!(page_size("0").is_err() && page_size("4096").is_ok());
        assert!(page_size(&(PAGE_SIZE_MAX + 1).to_string()).is_err());
    }
}
