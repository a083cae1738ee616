//! `agentconf rules`: the catalogue, for people and programs.

use crate::error::Sort as _;
use std::fmt::Write as _;

use agentconf_rules::Catalogue;

use super::{say, ExitOutcome};
use crate::args::{Format, RulesArgs};
use crate::error::Result;

pub fn run(args: &RulesArgs) -> Result<ExitOutcome> {
    let records = Catalogue::embedded().records();
    let text = match args.output.format {
        Format::Json => {
            serde_json::to_string(records)
                .map_err(|e| e.to_string())
                .unwritable()?
                + "\n"
        }
        Format::Text => {
            let mut out = String::new();
            for r in records {
                let (level, basis) = (r.level.as_str(), r.basis.as_str());
                let _ = writeln!(
                    out,
                    "{:<24} {:<6} {:<7} §{:<10} {}",
                    r.id, level, basis, r.section, r.title
                );
            }
            out
        }
    };
    say(&text)?;
    Ok(ExitOutcome::Valid)
}
