//! Choices among named values on the command line (`--engine`, `--direct-io`, `--format`):
//! clap value enums that mirror the library's enums and convert into them, so that clap stays
//! out of the library (which the Python package compiles without it). Each variant's doc
//! comment is its line in `--help`; the names are the library's `as_str` (tested below).

use bitsift::answer::OutputFormat;
use bitsift::io::{DirectIo, EngineChoice};
use clap::ValueEnum;

/// `--engine`: which I/O engine to open ([`EngineChoice`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// io_uring when it works here, else pread.
    #[default]
    Auto,
    /// io_uring with O_DIRECT.
    Uring,
    /// Thread pool of pread calls.
    Pread,
    /// Memory map (as COBS).
    Mmap,
    /// Whole index in memory.
    Ram,
}

impl From<EngineArg> for EngineChoice {
    fn from(arg: EngineArg) -> EngineChoice {
        match arg {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::Uring => EngineChoice::Uring,
            EngineArg::Pread => EngineChoice::Pread,
            EngineArg::Mmap => EngineChoice::Mmap,
            EngineArg::Ram => EngineChoice::Ram,
        }
    }
}

/// `--direct-io`: whether to bypass the page cache ([`DirectIo`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum DirectIoArg {
    /// O_DIRECT when the file system supports it.
    #[default]
    Auto,
    /// O_DIRECT or fail.
    Required,
    /// Buffered reads through the page cache.
    Off,
}

impl From<DirectIoArg> for DirectIo {
    fn from(arg: DirectIoArg) -> DirectIo {
        match arg {
            DirectIoArg::Auto => DirectIo::Auto,
            DirectIoArg::Required => DirectIo::Required,
            DirectIoArg::Off => DirectIo::Off,
        }
    }
}

/// `--format` of `bitsift query` ([`OutputFormat`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Header line, then `query document kmers_found kmers_total fraction identity`; with
    /// `--group-by`, one line per query and group instead.
    #[default]
    Tsv,
    /// One JSON document: provenance, the indexes, then per query its totals, hits, groups
    /// and stats.
    Json,
    /// As `cobs query` prints: `*name<TAB>hits`, then `document<TAB>score` lines.
    Cobs,
    /// A presence matrix: a header of the queries, then one line per document that is a hit
    /// of at least one query, with the fraction of each query's k-mers it holds (empty: not
    /// a hit).
    Matrix,
}

impl From<FormatArg> for OutputFormat {
    fn from(arg: FormatArg) -> OutputFormat {
        match arg {
            FormatArg::Tsv => OutputFormat::Tsv,
            FormatArg::Json => OutputFormat::Json,
            FormatArg::Cobs => OutputFormat::Cobs,
            FormatArg::Matrix => OutputFormat::Matrix,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value clap accepts names the library value it becomes, and the defaults agree.
    fn check<A, L>(library_name: impl Fn(L) -> &'static str)
    where
        A: ValueEnum + Default + Into<L> + Copy,
        L: Default + PartialEq + std::fmt::Debug,
    {
        for arg in A::value_variants() {
            let clap_name = arg
                .to_possible_value()
                .map(|value| value.get_name().to_owned());
            assert_eq!(clap_name.as_deref(), Some(library_name((*arg).into())));
        }
        assert_eq!(A::default().into(), L::default());
    }

    #[test]
    fn names_and_defaults_match_the_library() {
        check::<EngineArg, EngineChoice>(EngineChoice::as_str);
        check::<DirectIoArg, DirectIo>(DirectIo::as_str);
        check::<FormatArg, OutputFormat>(OutputFormat::as_str);
    }

    /// The way back, by exhaustive matches: a value added to a library enum stops the tests
    /// compiling until the command line offers it too.
    fn engine_arg(choice: EngineChoice) -> EngineArg {
        match choice {
            EngineChoice::Auto => EngineArg::Auto,
            EngineChoice::Uring => EngineArg::Uring,
            EngineChoice::Pread => EngineArg::Pread,
            EngineChoice::Mmap => EngineArg::Mmap,
            EngineChoice::Ram => EngineArg::Ram,
        }
    }

    fn direct_io_arg(direct: DirectIo) -> DirectIoArg {
        match direct {
            DirectIo::Auto => DirectIoArg::Auto,
            DirectIo::Required => DirectIoArg::Required,
            DirectIo::Off => DirectIoArg::Off,
        }
    }

    fn format_arg(format: OutputFormat) -> FormatArg {
        match format {
            OutputFormat::Tsv => FormatArg::Tsv,
            OutputFormat::Json => FormatArg::Json,
            OutputFormat::Cobs => FormatArg::Cobs,
            OutputFormat::Matrix => FormatArg::Matrix,
        }
    }

    #[test]
    fn conversions_are_one_to_one() {
        for arg in EngineArg::value_variants() {
            assert_eq!(engine_arg((*arg).into()), *arg);
        }
        for arg in DirectIoArg::value_variants() {
            assert_eq!(direct_io_arg((*arg).into()), *arg);
        }
        for arg in FormatArg::value_variants() {
            assert_eq!(format_arg((*arg).into()), *arg);
        }
    }
}
