//! The vector model lives in `agentconf-contract`; this module only re-exports it for the
//! generators' imports.

pub use agentconf_contract::case::*;
pub use agentconf_contract::manifest::*;
pub use agentconf_contract::vector::*;
