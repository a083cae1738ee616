//! Reference receiver admission stage for GRP, "The Governed Remediation Protocol (GRP) for
//! Agentic AI Systems" (draft-sato-soos-grp), revisions 00 and 01.
//!
//! GRP is an individual Internet-Draft: not a standard, not IETF-endorsed, not consensus, and not
//! evidence of deployment. The SOOS names and ALE codes are the draft's proposed vocabulary. The
//! suite's scope is admission of change events, up to the hand-off to impact assessment.
//!
//! Pipeline ([`admission::Receiver::deliver`]), in order: event shape → publisher authority
//! (registration, revocation, validity window, permitted event types) → signature (the project's
//! JWS profile, [`jws`]) → session nonce → in revision 01 the `(publisher_id, event_id)` duplicate
//! check → atomic admission of the pair in the [`store`] → hand-off; each check and the admission
//! a step of an [`admission::Pipeline`].

// No raw memory or system calls here: the few that a process needs are in the harness and
// the CLI, each with its reason.
#![forbid(unsafe_code)]

pub mod admission;
pub mod event;
pub mod jws;
pub mod keys;
pub mod lines;
pub mod session;
pub mod store;
pub mod stream;

pub use admission::{Decision, DecisionOutcome, Receiver, Revision};
