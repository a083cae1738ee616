//! The reference as an implementation under the contract (`crates/contract`): what `agentconf
//! impl`, `agentconf impl serve`, the in-process backend of `agentconf run`, the corpus
//! self-test and the kill matrix's mutants all run.
//!
//! - [`dispatch`]: one call (contract [`agentconf_contract::call::Call`]) to the AER-1 reference;
//! - [`admit`]: the GRP receiver on a stream of event lines;
//! - [`command`]: the one-shot command and the persistent server (`impl serve`);
//! - [`inprocess`]: the reference as a backend of the harness, called as a library (no spawns).
//! - [`profiles`]: the GRP capability profiles it claims.
//!
//! The harness never links this crate: the judge does not link what it judges. The CLI hands the
//! in-process backend to the harness.

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

pub mod admit;
pub mod command;
pub mod dispatch;
pub mod emit;
pub mod inprocess;
pub mod profiles;
pub mod vector_inputs;
