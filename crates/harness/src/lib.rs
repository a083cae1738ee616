//! The agentconf harness: runs an implementation against the corpus through the contract
//! (`crates/contract`, `CONTRACT.md`), grades each case and writes the results file that every
//! report is derived from.
//!
//! It links the contract and the rule catalogue only, never a reference: the judge does not link
//! what it judges. The reference reaches it as one more backend ([`session::Backend`]), handed
//! in by the CLI.

// Every unsafe operation in an explicit block with a `// SAFETY:` note saying why it is sound,
// also inside an `unsafe fn` (whose own contract does not cover the calls it makes).
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

// Deadlines that hold and nothing left running need process groups, `poll` and `waitid`
// (`process.rs`, `child.rs`, `interrupt.rs`): one clear message instead of fifty missing-symbol
// errors. On Windows, agentconf runs under WSL 2 or from the container image (Dockerfile).
#[cfg(not(unix))]
compile_error!(
    "agentconf-harness needs a Unix process model (process groups, poll, waitid): build on \
     Linux or macOS; on Windows use WSL 2 or the container image"
);

// The public surface is chosen: the namespaces below, whose names say what a caller gets
// (`results::parse`, `report::html`, `matrix::markdown`), and the run's vocabulary re-exported
// at the root. Everything else is the harness's own machinery (processes, receivers, the
// scenario player's internals, directories), private so it can change without a caller noticing.
pub mod adapter;
pub mod attestation;
pub mod corpus_check;
pub mod emitted;
#[cfg(feature = "fuzzing")]
pub mod fuzz;
pub mod identity;
pub mod interrupt;
pub mod matrix;
pub mod preimage;
pub mod report;
pub mod results;
pub mod signing;
pub mod smoke;

mod case_result;
mod child;
mod dirs;
mod grade;
mod kill;
mod materialize;
mod persistent;
mod process;
mod repeated;
mod run;
mod runner;
mod scenario;
mod session;
mod status;
mod suite_detail;

// A run: what runs (an implementation, a backend), how it is graded, what it returns sealed.
pub use case_result::VectorResult;
pub use grade::{grade_verdict, Grade, Grading};
pub use run::{FilesError, Finished, NamedFile, RunBuilder, RunFailure, RunRecord, WriteFailure};
pub use runner::{run_case, run_case_with, Implementation, EMIT_OUTPUT_LIMIT};
pub use session::{Backend, Launch, Outputs, RunError, RunNotes, RunOptions, MAX_JOBS};
pub use status::Status;
pub use suite_detail::SuiteDetail;

// The contract's limits and defaults a caller states or documents.
pub use process::{DEFAULT_CAPTURE_BYTES, DEFAULT_TIMEOUT_SECS};

// How implementations are contained, chosen once per process (the results header records it).
pub use process::{containment, Containment, CONTAINMENT_VAR};
pub use scenario::MAX_DECISION_LINE_BYTES;

// Playing one GRP scenario in process (the reference's in-process receivers, the corpus's self
// test).
pub use scenario::{play, Graded, Judge, ReceiverLink, Receivers};

// The cluster profile: a node's link to the shared store (the reference's in-process nodes have
// one), and the history of a cluster case (its results line's `history`).
pub use scenario::cluster::history::{Entry as HistoryEntry, What as HistoryWhat};
pub use scenario::cluster::StoreLink;

// Persistent mode: a session with one server process, for its tests and benchmark; and a case's
// input files as an implementation is given them, for benchmarks that time the exchange alone.
pub use materialize::write_inputs;
pub use persistent::{
    PersistentConfig, PersistentError, PersistentSession, ServerEnded, StartProblem, StopProblem,
    MAX_RESPONSE_LINE_BYTES,
};
