//! Argument groups shared by the commands that search (`query`, `serve`): flattened into
//! each (`#[command(flatten)]`), each translating into its library type, so that an option
//! is spelled, parsed and documented once.

use std::path::PathBuf;

use bitsift::io::{DirectIo, EngineChoice, EngineOptions};
use bitsift::search::IndexSources;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::Args;

/// The indexes to search: files, directories, collections, lists of them.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub(crate) struct IndexArgs {
    /// Index file (.cobs_compact or .cobs_classic, from COBS or bitsift), a directory of
    /// them, or a collection; repeat for several. All are searched together and ranked
    /// together
    #[arg(short, long = "index", value_name = "INDEX", help_heading = "Input")]
    pub(crate) indexes: Vec<PathBuf>,
    /// File listing index paths, one per line (e.g. the 305 Phylign batches; -: standard
    /// input)
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    pub(crate) index_list: Vec<PathBuf>,
    /// Only these sub-indexes of the collections given (file names, comma-separated), with
    /// the collection's removed documents hidden: one job's or one machine's part of a
    /// collection
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        help_heading = "Input"
    )]
    pub(crate) subindexes: Vec<String>,
}

impl IndexArgs {
    /// What to search, as the library says it.
    pub(crate) fn sources(&self) -> IndexSources {
        IndexSources {
            paths: self.indexes.clone(),
            lists: self.index_list.clone(),
            subindexes: self.subindexes.clone(),
        }
    }
}

/// Which I/O engine reads, and how.
#[derive(Args, Debug, Clone, Copy, PartialEq)]
pub(crate) struct EngineArgs {
    /// I/O engine
    #[arg(long, value_parser = engine_names(), default_value_t = EngineChoice::Auto, help_heading = "I/O")]
    pub(crate) engine: EngineChoice,
    /// Reads in flight (uring), reader threads (pread) or range requests (remote indexes),
    /// per session (`serve`: per worker) [default: 64; 256 for remote indexes]
    #[arg(long, value_name = "N", help_heading = "I/O")]
    pub(crate) queue_depth: Option<u32>,
    /// Bypass the page cache with O_DIRECT (uring, pread)
    #[arg(long, value_parser = direct_io_names(), default_value_t = DirectIo::Auto, help_heading = "I/O")]
    pub(crate) direct_io: DirectIo,
}

impl Default for EngineArgs {
    fn default() -> Self {
        let options = EngineOptions::default();
        EngineArgs {
            engine: options.choice,
            queue_depth: options.queue_depth,
            direct_io: options.direct,
        }
    }
}

impl EngineArgs {
    /// The engine options, as the library says them.
    pub(crate) fn options(&self) -> EngineOptions {
        EngineOptions {
            choice: self.engine,
            queue_depth: self.queue_depth,
            direct: self.direct_io,
            ..EngineOptions::default()
        }
    }
}

/// `--engine`'s values: the library's names and descriptions, read by its `FromStr`.
pub(crate) fn engine_names() -> impl TypedValueParser<Value = EngineChoice> {
    let values = EngineChoice::ALL.map(|c| PossibleValue::new(c.as_str()).help(c.describe()));
    PossibleValuesParser::new(values).try_map(|name| name.parse::<EngineChoice>())
}

/// `--direct-io`'s values: the library's names and descriptions, read by its `FromStr`.
fn direct_io_names() -> impl TypedValueParser<Value = DirectIo> {
    let values = DirectIo::ALL.map(|c| PossibleValue::new(c.as_str()).help(c.describe()));
    PossibleValuesParser::new(values).try_map(|name| name.parse::<DirectIo>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        engine: EngineArgs,
    }

    /// The defaults of the command line are the library's, and every name parses.
    #[test]
    fn engine_defaults_and_names_are_the_library_s() {
        let parsed = Wrapper::parse_from(["q"]);
        assert_eq!(parsed.engine.options(), EngineOptions::default());
        assert_eq!(parsed.engine, EngineArgs::default());
        for choice in EngineChoice::ALL {
            let parsed = Wrapper::parse_from(["q", "--engine", choice.as_str()]);
            assert_eq!(parsed.engine.engine, choice);
        }
        for choice in DirectIo::ALL {
            let parsed = Wrapper::parse_from(["q", "--direct-io", choice.as_str()]);
            assert_eq!(parsed.engine.direct_io, choice);
        }
        assert!(Wrapper::try_parse_from(["q", "--engine", "fast"]).is_err());
    }
}
