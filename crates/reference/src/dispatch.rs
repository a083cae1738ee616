//! One dispatch from a contract [`Call`] to the AER-1 reference: every way the reference is run
//! (`agentconf impl`, `impl serve`, the in-process backend, the corpus self-test) comes through
//! here, so they cannot disagree on which revision, tier or construction a call means.

use std::io::{self, Read};

use agentconf_aer1::commitment::read_commitment;
use agentconf_aer1::receipt::{verify_receipt_reader, Tier};
use agentconf_aer1::timeline::{verify_timeline, TimelineOptions, DEFAULT_MAX_DOCUMENT_BYTES};
use agentconf_aer1::workflow::verify_workflow_reader;
use agentconf_aer1::{Finding, Revision, Verdict};
use agentconf_contract::call::Call;
use agentconf_contract::exit::ExitMeaning;
use agentconf_contract::result::{self, ImplResult};

/// Where a call's named inputs come from: files, or a vector's bytes in memory.
pub trait Inputs {
    /// Opens the input the call names `name` (a path, or a vector's file name).
    fn open(&self, name: &str) -> Result<Box<dyn Read + '_>, String>;
}

/// Inputs named by paths on disk.
pub struct Files;

impl Inputs for Files {
    fn open(&self, name: &str) -> Result<Box<dyn Read + '_>, String> {
        Ok(Box::new(open_file(name)?))
    }
}

/// Opens a file for reading: only a regular file. A directory, FIFO, socket or device is refused
/// with a clear message, without blocking (a FIFO's open would wait for a writer forever) and
/// before anything is read from it.
pub fn open_file(name: &str) -> Result<std::fs::File, String> {
    agentconf_json::file::open_regular(std::path::Path::new(name))
        .map_err(|e| format!("cannot read {name}: {e}"))
}

/// What the reference concluded about an AER-1 call.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The operation, revision or tier is not one the reference implements (exit 89).
    Unsupported,
    Judged(Judgement),
}

/// A verdict with the findings behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    pub failures: Vec<Finding>,
    /// Timelines: judged under the historical (revision 06) construction.
    pub historical: bool,
}

impl Answer {
    /// The exit meaning of the one-shot call.
    pub fn exit(&self) -> ExitMeaning {
        match self {
            Answer::Unsupported => ExitMeaning::Unsupported,
            Answer::Judged(j) => match j.verdict {
                Verdict::Valid => ExitMeaning::Accept,
                Verdict::Invalid => ExitMeaning::Reject,
            },
        }
    }

    /// The result object of the call (none when unsupported).
    pub fn result_object(&self) -> Option<ImplResult> {
        let Answer::Judged(j) = self else {
            return None;
        };
        let mut rules = Vec::new();
        for f in &j.failures {
            if !rules.contains(&f.rule) {
                rules.push(f.rule);
            }
        }
        Some(ImplResult {
            verdict: match j.verdict {
                Verdict::Valid => result::Verdict::Valid,
                Verdict::Invalid => result::Verdict::Invalid,
            },
            rules,
            messages: j.failures.iter().map(|f| f.to_string()).collect(),
        })
    }
}

/// The limit on documents read whole: receipts, workflows, commitments.
pub const MAX_DOCUMENT_BYTES: u64 = DEFAULT_MAX_DOCUMENT_BYTES;

/// Answers one AER-1 call. `Err` is an unreadable input (a usage error, exit 2); a GRP call is
/// not answered here (it is a stream: [`crate::admit`]).
pub fn answer(call: &Call, inputs: &dyn Inputs) -> Result<Answer, String> {
    match call {
        Call::Receipt { receipt, tier } => {
            // A tier the reference does not know is unsupported, never checked as another.
            let Some(tier) = Tier::parse(tier.as_deref().unwrap_or("core")) else {
                return Ok(Answer::Unsupported);
            };
            let r = verify_receipt_reader(inputs.open(receipt)?, tier, MAX_DOCUMENT_BYTES)
                .map_err(|e| read_error(receipt, &e))?;
            Ok(judged(r.verdict, r.failures, false))
        }
        Call::Workflow { workflow } => {
            let r = verify_workflow_reader(inputs.open(workflow)?, MAX_DOCUMENT_BYTES)
                .map_err(|e| read_error(workflow, &e))?;
            Ok(judged(r.verdict, r.failures, false))
        }
        Call::Timeline {
            revision,
            timeline,
            commitment,
        } => {
            let Some(options) = timeline_options(revision, commitment.as_deref(), inputs)? else {
                return Ok(Answer::Unsupported);
            };
            let r = verify_timeline(inputs.open(timeline)?, &options)
                .map_err(|e| read_error(timeline, &e))?;
            Ok(judged(r.verdict, r.failures, r.historical))
        }
        Call::GrpAdmit { .. } => Err("grp-admit is a stream of events, not one call".into()),
        Call::EmitTimeline { .. } | Call::EmitCommitment { .. } | Call::EmitReceipt { .. } => {
            Err("an emit operation writes an artifact, not a verdict (see crate::emit)".into())
        }
    }
}

/// The timeline options for a `REVISION` argument and an optional commitment; `None` when the
/// reference does not support the combination (an unknown revision, or a commitment under a
/// revision the AER1-CM rules do not apply to, which has none).
pub fn timeline_options(
    revision: &str,
    commitment: Option<&str>,
    inputs: &dyn Inputs,
) -> Result<Option<TimelineOptions>, String> {
    // A commitment only in the revisions its rules apply to, as the CLI has it.
    if commitment.is_some() && !agentconf_aer1::commitment::exists_in(revision) {
        return Ok(None);
    }
    // The revisions table says which construction each revision uses (07 and 08 share 09's).
    let Some(revision) = Revision::parse(revision) else {
        return Ok(None);
    };
    let mut options = TimelineOptions {
        revision,
        ..TimelineOptions::default()
    };
    if let Some(name) = commitment {
        match read_commitment(inputs.open(name)?, MAX_DOCUMENT_BYTES)
            .map_err(|e| format!("cannot read {name}: {e}"))?
        {
            Ok(c) => options.commitment = Some(c),
            Err(findings) => options.commitment_findings = findings,
        }
    }
    Ok(Some(options))
}

fn read_error(name: &str, e: &io::Error) -> String {
    format!("cannot read {name}: {e}")
}

fn judged(verdict: Verdict, failures: Vec<Finding>, historical: bool) -> Answer {
    Answer::Judged(Judgement {
        verdict,
        failures,
        historical,
    })
}

#[cfg(test)]
mod tests {
    use agentconf_aer1::receipt::Tier as ReferenceTier;
    use agentconf_contract::vector::Tier;

    /// The contract's tier names and the reference's are the same four words: a tier the
    /// contract names is never answered unsupported, nor checked as another.
    #[test]
    fn the_reference_knows_every_contract_tier_by_its_name() {
        for t in Tier::ALL {
            let r = ReferenceTier::parse(t.as_str()).expect("a contract tier the reference lacks");
            assert_eq!(r.as_str(), t.as_str());
        }
        assert_eq!(Tier::ALL.len(), ReferenceTier::ALL.len());
    }
}
