//! `bitsift synth` (being written).

use anyhow::Result;
use clap::Args;

use super::{Outcome, Ui};

#[derive(Args, Debug)]
pub struct SynthArgs {}

pub fn run(_args: SynthArgs, _ui: Ui) -> Result<Outcome> {
    anyhow::bail!("not implemented yet")
}
