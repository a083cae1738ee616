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
    emit::generate(out);
    emit_receipt::generate(out);
    readings::apply(out);
}

/// The entry specs of the draft's example for job `job-7a1f`.
pub fn common_specs(n: usize) -> Vec<EntrySpec> {
    v07_example_specs(common::JOB, n)
}
