//! Generators for the GRP admission suite (`grp/admission/<family>/<name>`).

mod admission;
mod cluster;
pub mod common;
mod duplicate;
mod tokens;

use agentconf_contract::vector::Vector;

pub fn generate(out: &mut Vec<Vector>) {
    duplicate::generate(out);
    admission::generate(out);
    cluster::generate(out);
}
