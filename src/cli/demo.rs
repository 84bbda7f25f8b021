//! `bitsift demo` (placeholder until the bundled data lands).

use anyhow::Result;
use clap::Args;

use super::{Outcome, Ui};

#[derive(Args, Debug)]
pub struct DemoArgs {}

pub fn run(_args: DemoArgs, _ui: Ui) -> Result<Outcome> {
    Ok(Outcome::Success)
}
