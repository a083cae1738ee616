//! `agentconf smoke -- COMMAND` (or `--adapter FILE`, whose command runs): does the wrapper
//! speak the contract? A few trivial cases per
//! operation and a one-screen diagnosis (`agentconf_harness::smoke`). Exit 0 when it works, 1
//! when it does not, 2 for usage errors.

use crate::error::Sort as _;
use std::time::Duration;

use agentconf_contract::case::Case;
use agentconf_harness::smoke::{check, Diagnosis};
use agentconf_harness::Implementation;

use super::{say, ExitOutcome};
use crate::args::SmokeArgs;
use crate::error::Result;

pub fn run(args: &SmokeArgs) -> Result<ExitOutcome> {
    let corpus = agentconf_corpus::corpus();
    let cases: Vec<Case<'_>> = corpus.iter().flat_map(|v| v.cases()).collect();
    let adapter = match &args.adapter {
        None => None,
        Some(path) => {
            let (name, text, _) = crate::adapter_file::read_adapter(path)?;
            let ids = cases.iter().map(|c| c.id.clone()).collect();
            Some(crate::adapter_file::checked_adapter(
                &name,
                &text,
                &ids,
                agentconf_harness::adapter::Mode::OneShot,
            )?)
        }
    };
    // One command source, as `run` has: the adapter's command or the one after `--`.
    let Some(argv) = crate::target::one_command(adapter.as_ref(), &args.command)? else {
        return Err(
            "smoke needs a command: give it after -- (agentconf smoke -- ./your-wrapper), \
                    or an adapter whose command runs the tool (--adapter FILE)",
        )
        .usage();
    };
    let imp = Implementation {
        argv,
        timeout: Duration::from_secs(args.timeout),
        capture_limit: agentconf_harness::DEFAULT_CAPTURE_BYTES,
        // Probes need no profile: they are the plainest cases of each suite.
        profiles: Vec::new(),
    };
    let (text, diagnosis) = check(&imp, adapter.as_ref(), &cases);
    say(&text)?;
    Ok(if diagnosis == Diagnosis::Works {
        ExitOutcome::Valid
    } else {
        ExitOutcome::Invalid
    })
}
