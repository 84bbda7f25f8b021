//! The names of the engine choices (`auto`, `uring`, …; `auto`, `required`, `off`), read in
//! one place: the command line's value parsers and Python's keyword arguments both parse
//! them with `FromStr`, so that a name means the same everywhere.

use std::fmt;
use std::str::FromStr;

use super::{DirectIo, EngineChoice};

/// A name that is not one of a choice's values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {name:?} is not one of {expected}")]
pub struct UnknownName {
    /// What was named (`engine`, `direct_io`).
    pub what: &'static str,
    /// The name given.
    pub name: String,
    /// The names allowed, comma-separated.
    pub expected: &'static str,
}

impl EngineChoice {
    /// Every choice, in the order help lists them.
    pub const ALL: [EngineChoice; 5] = [
        EngineChoice::Auto,
        EngineChoice::Uring,
        EngineChoice::Pread,
        EngineChoice::Mmap,
        EngineChoice::Ram,
    ];

    /// What the choice does, in a few words (its line of help).
    pub fn describe(self) -> &'static str {
        match self {
            EngineChoice::Auto => "io_uring when it works here, else pread.",
            EngineChoice::Uring => "io_uring with O_DIRECT.",
            EngineChoice::Pread => "Thread pool of pread calls.",
            EngineChoice::Mmap => "Memory map (as COBS).",
            EngineChoice::Ram => "Whole index in memory.",
        }
    }
}

impl DirectIo {
    /// Every choice, in the order help lists them.
    pub const ALL: [DirectIo; 3] = [DirectIo::Auto, DirectIo::Required, DirectIo::Off];

    /// What the choice does, in a few words (its line of help).
    pub fn describe(self) -> &'static str {
        match self {
            DirectIo::Auto => "O_DIRECT when the file system supports it.",
            DirectIo::Required => "O_DIRECT or fail.",
            DirectIo::Off => "Buffered reads through the page cache.",
        }
    }
}

impl FromStr for EngineChoice {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Self, UnknownName> {
        let expected = "auto, uring, pread, mmap, ram";
        by_name(
            &EngineChoice::ALL,
            EngineChoice::as_str,
            name,
            "engine",
            expected,
        )
    }
}

impl FromStr for DirectIo {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Self, UnknownName> {
        let expected = "auto, required, off";
        by_name(
            &DirectIo::ALL,
            DirectIo::as_str,
            name,
            "direct_io",
            expected,
        )
    }
}

/// The one of `all` whose name (`as_str`) is `name`; else the error naming `what` and the
/// names `expected`.
fn by_name<T: Copy>(
    all: &[T],
    as_str: fn(T) -> &'static str,
    name: &str,
    what: &'static str,
    expected: &'static str,
) -> Result<T, UnknownName> {
    let found = all.iter().copied().find(|&choice| as_str(choice) == name);
    found.ok_or_else(|| UnknownName {
        what,
        name: name.to_string(),
        expected,
    })
}

impl fmt::Display for EngineChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for DirectIo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` lists every choice: a variant added stops this compiling until it is listed.
    #[test]
    fn every_choice_is_listed() {
        for choice in EngineChoice::ALL {
            let position = match choice {
                EngineChoice::Auto => 0,
                EngineChoice::Uring => 1,
                EngineChoice::Pread => 2,
                EngineChoice::Mmap => 3,
                EngineChoice::Ram => 4,
            };
            assert_eq!(EngineChoice::ALL[position], choice);
        }
        for choice in DirectIo::ALL {
            let position = match choice {
                DirectIo::Auto => 0,
                DirectIo::Required => 1,
                DirectIo::Off => 2,
            };
            assert_eq!(DirectIo::ALL[position], choice);
        }
    }

    #[test]
    fn every_name_reads_back_and_others_are_refused() {
        for choice in EngineChoice::ALL {
            assert_eq!(choice.as_str().parse::<EngineChoice>(), Ok(choice));
        }
        for choice in DirectIo::ALL {
            assert_eq!(choice.as_str().parse::<DirectIo>(), Ok(choice));
        }
        let error = "fast".parse::<EngineChoice>().unwrap_err().to_string();
        assert_eq!(
            error,
            "engine \"fast\" is not one of auto, uring, pread, mmap, ram"
        );
        let error = "on".parse::<DirectIo>().unwrap_err().to_string();
        assert_eq!(error, "direct_io \"on\" is not one of auto, required, off");
    }
}
