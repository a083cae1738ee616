//! `agentconf-mutant MUTANT OPERATION ARGS…`: deliberately wrong implementations, for the mutation
//! kill matrix (issue 5, item 6).
//!
//! Every mutant speaks the one-shot contract of `crates/contract/CONTRACT.md` exactly as the
//! reference's `agentconf impl` does (same operations, argument order, exit codes 0/1/89 and
//! result object), but carries one deliberate defect, selected by MUTANT. `none` is the reference
//! unchanged: the control, which must pass every vector. The kill matrix (`tests/kill_matrix.rs`)
//! runs the corpus against each mutant and asserts that each one is caught, on the rule it breaks.
//!
//! `none` is not a copy: it is `agentconf_reference::command::run`, the entry `agentconf impl`
//! uses. The other mutants read their arguments with the contract's `Call::parse`, exit with the
//! contract's codes, and take the reference's reading of a call where they do not break it (the
//! timeline options from `dispatch::timeline_options`, files and session contexts as the
//! reference opens them).
//!
//! The mutants reuse the reference libraries for everything they do not break, one module per
//! suite: [`aer1_verifiers`] run the reference verifier and then drop findings, or recompute the
//! chain links under a changed construction (from the preimage the reference builds);
//! [`aer1_producers`] write the reference's artifact with one defect; [`grp_receivers`] run the
//! reference `Receiver` with a step of its pipeline left out or moved, or over an admission store
//! with a changed key, atomicity or durability. A mutant answers every operation: where its
//! defect does not apply it is the reference (a verifier mutant declines the emit operations).
//! `agentconf-mutant --list` lists them.
//!
//! These are test fixtures. Nothing here is a way to verify anything.

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

use std::io::{self, Write};
use std::process::ExitCode;

use agentconf_contract::call::{Call, Parsed};
use agentconf_contract::exit::{
    EXIT_ACCEPT as EXIT_VALID, EXIT_REJECT as EXIT_INVALID, EXIT_UNSUPPORTED, EXIT_USAGE,
};

mod aer1_producers;
mod aer1_verifiers;
mod grp_receivers;
mod preimage;

use aer1_producers::Producer;
use aer1_verifiers::Verifier;
use grp_receivers::GrpMutant;

/// One deliberate defect, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mutant {
    None,
    Verifier(Verifier),
    Producer(Producer),
    Grp(GrpMutant),
}

/// The control's line of `--list`.
const NONE: (&str, &str) = ("none", "the reference, unchanged (the control)");

impl Mutant {
    /// Every mutant with its name and what it gets wrong, in the order `--list` prints them.
    fn all() -> impl Iterator<Item = (&'static str, Mutant, &'static str)> {
        let verifiers = aer1_verifiers::MUTANTS
            .iter()
            .map(|&(n, m, w)| (n, Mutant::Verifier(m), w));
        let producers = aer1_producers::MUTANTS
            .iter()
            .map(|&(n, m, w)| (n, Mutant::Producer(m), w));
        let receivers = grp_receivers::MUTANTS
            .iter()
            .map(|&(n, m, w)| (n, Mutant::Grp(m), w));
        std::iter::once((NONE.0, Mutant::None, NONE.1))
            .chain(verifiers)
            .chain(producers)
            .chain(receivers)
    }

    fn parse(name: &str) -> Option<Mutant> {
        Mutant::all()
            .find(|(n, _, _)| *n == name)
            .map(|(_, m, _)| m)
    }

    fn verifier(self) -> Option<Verifier> {
        match self {
            Mutant::Verifier(v) => Some(v),
            _ => None,
        }
    }

    fn grp(self) -> Option<GrpMutant> {
        match self {
            Mutant::Grp(g) => Some(g),
            _ => None,
        }
    }
}

/// What one operation concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Valid,
    Invalid,
    Unsupported,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.len() == 1 && args[0] == "--list" {
        let text: String = Mutant::all()
            .map(|(name, _, what)| format!("{name}\t{what}\n"))
            .collect();
        let _ = io::stdout().lock().write_all(text.as_bytes());
        return ExitCode::from(EXIT_VALID);
    }
    let (Some(name), Some(operation)) = (args.first(), args.get(1)) else {
        to_stderr(
            "usage: agentconf-mutant MUTANT OPERATION ARGS… (agentconf-mutant --list lists them)\n",
        );
        return ExitCode::from(EXIT_USAGE);
    };
    let Some(mutant) = Mutant::parse(name) else {
        to_stderr(&format!(
            "agentconf-mutant: unknown mutant {name:?} (agentconf-mutant --list lists them)\n"
        ));
        return ExitCode::from(EXIT_USAGE);
    };
    if mutant == Mutant::None {
        // The control is the reference itself, through the same entry as `agentconf impl`.
        let stdin = io::stdin();
        return match agentconf_reference::command::run(
            operation,
            &args[2..],
            &mut stdin.lock(),
            &mut io::stdout().lock(),
            &mut io::stderr().lock(),
        ) {
            Ok(code) => ExitCode::from(code),
            Err(e) => {
                to_stderr(&format!("agentconf-mutant {name}: {e}\n"));
                ExitCode::from(EXIT_USAGE)
            }
        };
    }
    match run(mutant, operation, &args[2..]) {
        Ok(Outcome::Valid) => ExitCode::from(EXIT_VALID),
        Ok(Outcome::Invalid) => ExitCode::from(EXIT_INVALID),
        Ok(Outcome::Unsupported) => ExitCode::from(EXIT_UNSUPPORTED),
        Err(e) => {
            to_stderr(&format!("agentconf-mutant {name}: {e}\n"));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn to_stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// The contract's operations, read as `agentconf impl` reads them, each to its suite's module.
fn run(m: Mutant, operation: &str, args: &[String]) -> Result<Outcome, String> {
    match Call::parse(operation, args) {
        Parsed::Call(Call::Receipt { receipt, tier }) => {
            aer1_verifiers::receipt(m.verifier(), &receipt, tier.as_deref().unwrap_or("core"))
        }
        Parsed::Call(Call::Timeline {
            revision,
            timeline,
            commitment,
        }) => aer1_verifiers::timeline(m.verifier(), &revision, &timeline, commitment.as_deref()),
        Parsed::Call(Call::Workflow { workflow }) => {
            aer1_verifiers::workflow(m.verifier(), &workflow)
        }
        Parsed::Call(Call::GrpAdmit {
            revision,
            session,
            state_dir,
        }) => grp_receivers::admit(m.grp(), &revision, &session, &state_dir),
        Parsed::Call(
            call @ (Call::EmitTimeline { .. }
            | Call::EmitCommitment { .. }
            | Call::EmitReceipt { .. }),
        ) => match m {
            Mutant::Producer(p) => aer1_producers::emit(p, &call),
            // Every other mutant is a verifier or a receiver: it declines to emit (89).
            _ => Ok(Outcome::Unsupported),
        },
        Parsed::WrongArguments(op) => Err(op.usage_error()),
        Parsed::UnknownOperation(_) => Ok(Outcome::Unsupported),
    }
}

/// Writes an operation's whole output to standard output.
fn write_out(text: &str) -> Result<(), String> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write output: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mutant_has_a_unique_name() {
        let all: Vec<_> = Mutant::all().collect();
        for (i, (name, m, _)) in all.iter().enumerate() {
            assert_eq!(Mutant::parse(name), Some(*m));
            assert!(all[i + 1..].iter().all(|(n, _, _)| n != name));
        }
    }
}
