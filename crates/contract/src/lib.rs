//! What passes between the agentconf harness and an implementation under test (see
//! `crates/contract/CONTRACT.md`), as types: an implementer writing Rust can depend on this crate
//! alone.
//!
//! - [`vector`]: a vector file (inputs kept apart from answers), its cases ([`case`]) and the
//!   manifest ([`manifest`]), with rules, levels, tiers and decision outcomes as enums;
//! - [`schema`]: the JSON Schemas of a vector file and of the manifest, generated from those
//!   types (`vectors/schema/`, written by `cargo xtask schemas`);
//! - [`exit`]: the exit codes and what each means;
//! - [`call`]: the operations and their arguments in the contract's order, built by the harness
//!   and parsed by an implementation;
//! - [`result`]: the optional result object an AER-1 call prints;
//! - [`protocol`]: the persistent mode's request and response lines;
//! - [`decision`]: the decision line a GRP receiver writes per event;
//! - [`emit`]: what an emitter is asked to record (`aer1-emit-timeline`).
//!
//! Both drafts are individual Internet-Drafts (AER-1 revision 09, GRP revision 01), not RFCs and
//! not IETF-endorsed. Nothing here verifies anything: it says what is asked and what an answer
//! looks like.

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

pub mod call;
pub mod case;
pub mod decision;
pub mod emit;
pub mod exit;
pub mod manifest;
pub mod protocol;
pub mod result;
pub mod schema;
mod schema_types;
pub mod vector;

pub use agentconf_rules::{Level, Rule};
