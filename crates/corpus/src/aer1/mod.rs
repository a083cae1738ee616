//! Generators for the AER-1 suites, one module per family.

pub mod common;
mod emit;
mod emit_receipt;
mod hostile;
mod readings;
mod receipt;
mod reclosed;
mod revision06;
mod structure;
mod substituted;
mod tamper;
mod truncated;
mod valid;
mod workflow;

use agentconf_aer1::producer::{v07_example_specs, EntrySpec};

use agentconf_contract::vector::Vector;

/// Every AER-1 vector, in generation order (the corpus sorts by id afterwards).
pub fn generate(out: &mut Vec<Vector>) {
    generate_verifier_vectors(out);
    generate_emitter_vectors(out);
}

/// The vectors a verifier runs on (`aer1/timeline`, `aer1/receipt`, `aer1/workflow`), with their
/// other readings.
pub fn generate_verifier_vectors(out: &mut Vec<Vector>) {
    valid::generate(out);
    truncated::generate(out);
    reclosed::generate(out);
    substituted::generate(out);
    revision06::generate(out);
    tamper::generate(out);
    structure::generate(out);
    hostile::generate(out);
    receipt::generate(out);
    workflow::generate(out);
    readings::apply(out);
}

/// The vectors an emitter runs on (`aer1/emit-*`): among them the corpus's largest artifacts.
pub fn generate_emitter_vectors(out: &mut Vec<Vector>) {
    emit::generate(out);
    emit_receipt::generate(out);
}

/// The entry specs of the draft's example for job `job-7a1f`.
pub fn common_specs(n: usize) -> Vec<EntrySpec> {
    v07_example_specs(common::JOB, n)
}
