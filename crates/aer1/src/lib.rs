//! Reference implementation of AER-1 ("A Portable Execution Receipt for AI Agent Tool Calls",
//! draft-zambo-aer1), revision 09, with the historical revision-06 chain construction.
//!
//! AER-1 is an individual Internet-Draft: not an RFC and not endorsed by the IETF. This crate
//! follows the facts recorded in the project's spec notes, including where the draft author's
//! reference kit and the text disagree (the kit wins on U+007F escaping; see spec-notes).
//!
//! What a verified chain proves is limited: anyone who can drop entries from either end, or
//! replace the last one, and recompute the links gets a chain that passes every rule. Only an
//! independently obtained external commitment speaks to completeness ([`commitment`]).

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

pub mod commitment;
pub mod digest;
pub mod escape;
pub mod finding;
pub mod formats;
/// Lowercase hex: one implementation for the workspace, in the crate every other builds on.
pub use agentconf_json::hex;
pub mod integer;
pub mod producer;
pub mod receipt;
pub mod report;
pub mod text;
pub mod timeline;
pub mod workflow;

/// Strict JSON reading, shared with the GRP reference (crate `agentconf-json`).
pub use agentconf_json as json;

pub use digest::Revision;
pub use finding::{Finding, RuleError, Verdict};
pub use report::{Report, TruncationEvidence};
