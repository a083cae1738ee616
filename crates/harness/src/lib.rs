//! The agentconf harness: runs an implementation's command against the corpus through the
//! contract in `CONTRACT.md`, and grades each vector.
//!
//! This crate is being built in steps (issue 5). Present: the contract's exit codes and result
//! object ([`contract`]), running a command with a timeout that kills its whole process group and
//! bounded capture of its output ([`process`]), writing a vector's inputs into a fresh directory
//! ([`materialize`]).

pub mod adapter;
pub mod contract;
pub mod inprocess;
pub mod materialize;
pub mod persistent;
pub mod process;
pub mod report;
pub mod results;
pub mod runner;
