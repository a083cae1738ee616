//! `agentconf`: verify AER-1 receipts, timelines and workflows; print digests and commitments.
//!
//! Exit codes: 0 valid, 1 invalid, 2 usage error, unreadable input or unwritable output.

mod args;
mod commands;
mod input;
mod render;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    match commands::run(cli) {
        Ok(outcome) => outcome.exit_code(),
        Err(error) => {
            commands::to_stderr(&format!("agentconf: {error}\n"));
            ExitCode::from(commands::EXIT_USAGE)
        }
    }
}
