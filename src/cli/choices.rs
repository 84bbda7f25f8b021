//! Choices among named values on the command line that only it has (`--format`): clap value
//! enums that mirror the library's enums and convert into them, so that clap stays out of
//! the library (which the Python package compiles without it). Each variant's doc comment is
//! its line in `--help`; the names are the library's `as_str` (tested below). The engine's
//! names are the library's own, parsed by its `FromStr` (see `search_args`).

use bitsift::answer::OutputFormat;
use clap::ValueEnum;

/// `--format` of `bitsift query` ([`OutputFormat`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
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
        check::<FormatArg, OutputFormat>(OutputFormat::as_str);
    }

    /// The way back, by exhaustive matches: a value added to a library enum stops the tests
    /// compiling until the command line offers it too.
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
        for arg in FormatArg::value_variants() {
            assert_eq!(format_arg((*arg).into()), *arg);
        }
    }
}
