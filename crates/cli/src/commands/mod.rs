//! One module per subcommand; each returns whether its input was valid.

mod claim;
mod commit;
mod digest;
mod grp;
mod implementation;
mod matrix;
mod report;
mod rules;
mod run;
mod smoke;
mod vectors;
mod vectors_diff;
mod verify;

use std::io::{self, Write};
use std::process::ExitCode;

use crate::args::{Cli, Command, Verify};
use crate::error::{Error, Result};
use agentconf_aer1::Revision;

// The contract's codes; `verify` uses the same ones: 0 valid, 1 invalid, 2 usage errors,
// unreadable input and unwritable output (clap uses the same code for bad arguments), each
// error's from its kind (`crate::error::Kind::exit_code`).
pub use agentconf_contract::exit::{EXIT_ACCEPT as EXIT_VALID, EXIT_REJECT as EXIT_INVALID};

/// The limit on documents read whole: receipts, workflows, commitments.
pub const MAX_DOCUMENT_BYTES: u64 = agentconf_aer1::timeline::DEFAULT_MAX_DOCUMENT_BYTES;

/// Whether the input was valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitOutcome {
    Valid,
    Invalid,
    /// `agentconf impl` only: the contract's exit code for the call (0, 1 or 89).
    Exit(u8),
}

impl ExitOutcome {
    pub fn exit_code(self) -> ExitCode {
        ExitCode::from(match self {
            ExitOutcome::Valid => EXIT_VALID,
            ExitOutcome::Invalid => EXIT_INVALID,
            ExitOutcome::Exit(code) => code,
        })
    }

    fn from_verdict(v: agentconf_aer1::Verdict) -> ExitOutcome {
        match v {
            agentconf_aer1::Verdict::Valid => ExitOutcome::Valid,
            agentconf_aer1::Verdict::Invalid => ExitOutcome::Invalid,
        }
    }
}

pub fn run(cli: Cli) -> Result<ExitOutcome> {
    match cli.command {
        Command::Verify(Verify::Receipt(a)) => verify::receipt(&a),
        Command::Verify(Verify::Timeline(a)) => verify::timeline(&a),
        Command::Verify(Verify::Workflow(a)) => verify::workflow(&a),
        Command::Digest(a) => digest::run(&a),
        Command::Commit(a) => commit::run(&a),
        Command::Rules(a) => rules::run(&a),
        Command::Vectors(crate::args::Vectors::List(a)) => vectors::list(&a),
        Command::Vectors(crate::args::Vectors::Show(a)) => vectors::show(&a),
        Command::Vectors(crate::args::Vectors::Export(a)) => vectors::export(&a),
        Command::Vectors(crate::args::Vectors::Diff(a)) => vectors_diff::run(&a),
        Command::Grp(crate::args::Grp::Init(a)) => grp::init(&a),
        Command::Grp(crate::args::Grp::Admit(a)) => grp::admit(&a),
        Command::Grp(crate::args::Grp::Sign(a)) => grp::sign(&a),
        Command::Grp(crate::args::Grp::Key(a)) => grp::key(&a),
        Command::Grp(crate::args::Grp::Close(a)) => grp::close(&a),
        Command::Grp(crate::args::Grp::Recover(a)) => grp::recover(&a),
        Command::Impl(a) => implementation::run(&a),
        Command::Run(a) => run::run(&a),
        Command::Matrix(a) => matrix::run(&a),
        Command::Smoke(a) => smoke::run(&a),
        Command::Report(a) => report::run(&a),
        Command::Claim(crate::args::Claim::Verify(a)) => claim::verify(&a),
        Command::Claim(crate::args::Claim::Sign(a)) => claim::sign(&a),
    }
}

/// The chain construction of an AER-1 revision the command line accepted (any the revisions table
/// lists); `Err` when the table names a construction this build does not implement.
fn revision(arg: &str) -> Result<Revision> {
    Revision::parse(arg).ok_or_else(|| {
        let construction = agentconf_rules::Revisions::embedded()
            .construction(agentconf_rules::draft_revisions::AER1, arg)
            .unwrap_or("unknown");
        Error::Usage(format!(
            "revision {arg} uses the {construction} construction, which this build of agentconf does not implement"
        ))
    })
}

// One writer of messages for every command, below all of them (the adapter file reads too).
pub use crate::error::to_stderr;

/// Writes human-readable text to standard output, as [`emit`] does, made safe for a terminal
/// first ([`agentconf_json::text::terminal_text`]): text that quotes a claim, an implementation's
/// output, an adapter or a corpus id can neither move the cursor, write the clipboard (OSC 52),
/// ring, overwrite a line nor reorder what is read. Data (JSON, a vector file, a rendered
/// document that escaped its own content for its format) goes through [`emit`] as it is.
fn say(text: &str) -> Result<()> {
    emit(&agentconf_json::text::terminal_text(text))
}

/// Writes to standard output, turning failures (a closed pipe, a full disk) into an error
/// instead of the panic `println!` would raise. A lost output is never success.
fn emit(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| match e.kind() {
            io::ErrorKind::BrokenPipe => Error::OutputClosed,
            _ => Error::Output(e),
        })
}
