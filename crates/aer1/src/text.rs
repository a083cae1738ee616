//! Helpers for putting untrusted text into messages (defined with the JSON reader, which needs
//! them for member paths).

pub use agentconf_json::text::clip;
