//! `bitsift iobench` (being written).

use anyhow::Result;
use clap::Args;

use super::{Outcome, Ui};

#[derive(Args, Debug)]
pub struct IobenchArgs {}

pub fn run(_args: IobenchArgs, _ui: Ui) -> Result<Outcome> {
    anyhow::bail!("not implemented yet")
}
