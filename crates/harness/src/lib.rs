//! The agentconf harness: runs an implementation against the corpus through the contract
//! (`crates/contract`, `CONTRACT.md`), grades each case and writes the results file that every
//! report is derived from.
//!
//! It links the contract and the rule catalogue only, never a reference: the judge does not link
//! what it judges. The reference reaches it as one more backend ([`session::Backend`]), handed
//! in by the CLI.

// Deadlines that hold and nothing left running need process groups, `poll` and `waitid`
// (`process.rs`, `child.rs`, `interrupt.rs`): one clear message instead of fifty missing-symbol
// errors. On Windows, agentconf runs under WSL 2 or from the container image (Dockerfile).
#[cfg(not(unix))]
compile_error!(
    "agentconf-harness needs a Unix process model (process groups, poll, waitid): build on \
     Linux or macOS; on Windows use WSL 2 or the container image"
);

pub mod adapter;
mod case_result;
pub mod child;
pub mod corpus_check;
pub mod dirs;
pub mod emitted;
pub mod grade;
pub mod identity;
pub mod interrupt;
pub mod materialize;
pub mod matrix;
pub mod persistent;
pub mod preimage;
pub mod process;
pub mod repeated;
pub mod report;
pub mod results;
pub mod run;
pub mod runner;
pub mod scenario;
pub mod session;
pub mod smoke;
pub mod status;
