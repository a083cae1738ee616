//! `agentconf impl …`: the reference speaking the harness contract (crates/contract/CONTRACT.md),
//! one-shot or persistent (`impl serve`). The reference's side of the contract lives in
//! `agentconf-reference`; this only connects it to the process's standard streams.

use crate::error::Sort as _;
use std::io;

use super::ExitOutcome;
use crate::args::ImplArgs;
use crate::error::Result;

pub fn run(args: &ImplArgs) -> Result<ExitOutcome> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let mut log = io::stderr().lock();
    let code = agentconf_reference::command::run(
        &args.operation,
        &args.args,
        &mut input,
        &mut out,
        &mut log,
    )
    .usage()?;
    Ok(ExitOutcome::Exit(code))
}
