//! The `cobs` command: COBS's command line run by bitsift (`bitsift cobs` under COBS's name).

#[path = "../cli/mod.rs"]
mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
