//! `agentconf rules`: the catalogue, for people and programs.

use std::fmt::Write as _;

use agentconf_rules::{Basis, Catalogue, Level};

use super::{emit, Outcome};
use crate::args::{Format, RulesArgs};

pub fn run(args: &RulesArgs) -> Result<Outcome, String> {
    let records = Catalogue::embedded().records();
    let text = match args.output.format {
        Format::Json => serde_json::to_string(records).unwrap_or_default() + "\n",
        Format::Text => {
            let mut out = String::new();
            for r in records {
                let level = match r.level {
                    Level::Must => "MUST",
                    Level::Should => "SHOULD",
                };
                let basis = match r.basis {
                    Basis::Text => "text",
                    Basis::Text09 => "text-09",
                    Basis::Kit => "kit",
                    Basis::Interp => "interp",
                };
                let _ = writeln!(
                    out,
                    "{:<24} {:<6} {:<7} §{:<10} {}",
                    r.id, level, basis, r.section, r.title
                );
            }
            out
        }
    };
    emit(&text)?;
    Ok(Outcome::Valid)
}
