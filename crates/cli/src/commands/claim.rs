//! `agentconf claim verify RESULTS [--signed-by SIGNERS] [-- COMMAND]`: a conformance claim
//! re-checked by anyone. The claim is one results file (plus the adapter it names); this re-runs
//! exactly the cases, grading, profiles and adapter it records and compares every case's status.
//! With `--signed-by`, the signature of the file's bytes is checked first and the signer named;
//! without a command nothing runs then. `agentconf claim sign RESULTS --key KEY` signs a file.
//!
//! What runs is held to what the claim records before anything runs: the command is the user's
//! (or the adapter's), never the reference standing in for someone else's implementation, and
//! its executable and the files its arguments name must have the recorded SHA-256.

use crate::error::Sort as _;
use std::collections::{BTreeMap, BTreeSet};

use agentconf_harness::identity::{self, Difference, ImplementationInfo};
use agentconf_harness::results::ResultsFile;

use super::{say, ExitOutcome};
use crate::args::{
    ClaimSignArgs, ClaimVerifyArgs, GradingArg, ImplementationArg, ProfileArg, RunArgs,
};
use crate::error::Result;

/// `agentconf claim sign RESULTS [--key KEY] [--attestation FILE]`: RESULTS.sig written for a
/// whole results file of this agentconf's corpus.
pub fn sign(args: &ClaimSignArgs) -> Result<ExitOutcome> {
    let key = crate::signed::signing_key(args.key.as_deref())?
        .ok_or_else(|| {
            format!(
                "no key: give --key KEY (an OpenSSH Ed25519 private key file) or set {}",
                agentconf_harness::signing::SIGNING_KEY_VAR
            )
        })
        .usage()?;
    let corpus = agentconf_corpus::corpus();
    let cases = corpus.iter().map(|v| v.cases().len()).sum();
    let bytes = crate::signed::results_bytes(&args.results, cases)?;
    let name = args.results.display().to_string();
    // Only a file every report would take is signed: whole, as written, of this corpus.
    let claim = super::report::whole_from(&bytes[..], &name, cases)?;
    held_to_the_embedded_corpus(&claim, &corpus, &name)?;
    for path in [Some(agentconf_harness::signing::signature_path(
        &args.results,
    ))]
    .into_iter()
    .chain([args.attestation.clone()])
    .flatten()
    {
        agentconf_harness::results::check_writable(&path)?;
    }
    let said = crate::signed::sign(
        &args.results,
        &bytes,
        &claim,
        Some(&key),
        args.attestation.as_deref(),
    )?;
    say(&format!(
        "{said}{name}: signed ({}).\n",
        crate::signed::WHAT_A_SIGNATURE_PROVES
    ))?;
    Ok(ExitOutcome::Valid)
}

pub fn verify(args: &ClaimVerifyArgs) -> Result<ExitOutcome> {
    let corpus = agentconf_corpus::corpus();
    let cases = corpus.iter().map(|v| v.cases().len()).sum();
    let name = args.results.display().to_string();
    // With --signed-by, the bytes are read once: the signature is checked over them, and they
    // are what is read as the claim.
    let (claim, signer) = match &args.signed_by {
        Some(signers) => {
            let bytes = crate::signed::results_bytes(&args.results, cases)?;
            let signer = crate::signed::check_signature(
                &args.results,
                &bytes,
                signers,
                args.signature.as_deref(),
            )?;
            (
                super::report::whole_from(&bytes[..], &name, cases)?,
                Some(signer),
            )
        }
        None => (super::report::load_whole(&args.results, cases)?, None),
    };
    held_to_the_embedded_corpus(&claim, &corpus, &name)?;
    if let Some(signer) = &signer {
        let mut text = format!("claim:      {name}\n");
        text.push_str(&crate::signed::signer_lines(signer));
        text.push_str(&format!(
            "seal:       whole: the header and the {} result lines are, byte for byte, what the \
             footer's digests seal\n",
            claim.results.len()
        ));
        text.push_str(&format!(
            "corpus:     {}, this agentconf's: every line as the corpus says\n",
            claim.header.corpus_digest
        ));
        text.push_str(&recorded_lines(&claim.header.implementation));
        let rerun = !args.command.is_empty() || args.adapter.is_some();
        if !rerun {
            text.push_str(&format!(
                "SIGNED: {} cases; the claim's verdict: {}. Nothing was re-run: to see the \
                 verdict reproduced, give the implementation's command after --.\n",
                claim.results.len(),
                agentconf_harness::report::verdict(&claim).headline()
            ));
            say(&text)?;
            return Ok(ExitOutcome::Valid);
        }
        say(&text)?;
    }
    let corpus_ids = crate::corpus_choice::case_ids(&corpus);
    let adapter_command = claimed_adapter_command(&claim, args, &corpus_ids, &name)?;
    claimed_xfail(&claim, args, &name)?;
    let run = rerun_args(&claim, args, adapter_command.as_deref(), &name)?;
    // Exactly what `run` will start, resolved the way it resolves it.
    let argv = crate::target::target(&run, &corpus_ids)?
        .implementation
        .argv;
    let recorded = &claim.header.implementation;
    let now = ImplementationInfo::of(String::new(), &argv);
    let differences = identity::differences(recorded, &now);
    let mut text = identities(&name, recorded, &now, &differences);
    if !differences.is_empty() && !args.allow_different_implementation {
        text.push_str(&format!(
            "NOT THE SAME IMPLEMENTATION: {} difference{} from what {name} records (above), so \
             nothing ran; give --allow-different-implementation to run it anyway.\n",
            differences.len(),
            if differences.len() == 1 { "" } else { "s" }
        ));
        say(&text)?;
        return Ok(ExitOutcome::Invalid);
    }
    // Said before the run, which can take a while.
    say(&text)?;
    let again = super::run::execute(&run)?;
    let case_differences = compare(&claim, &again);
    let by = if differences.is_empty() {
        ""
    } else {
        " BY A DIFFERENT IMPLEMENTATION (--allow-different-implementation)"
    };
    let mut text = if case_differences.is_empty() {
        format!(
            "REPRODUCED{by}: {} cases, every status as {name} records it; the claim's verdict: \
             {} (corpus {}).\n",
            claim.results.len(),
            agentconf_harness::report::verdict(&claim).headline(),
            claim.header.corpus_digest
        )
    } else {
        format!(
            "NOT REPRODUCED{by}: {} of {} cases differ from {name}:\n",
            case_differences.len(),
            claim.results.len().max(again.results.len())
        )
    };
    for d in &case_differences {
        text.push_str(&format!("  {d}\n"));
    }
    text.push_str(&format!("new results: {}\n", args.out.display()));
    say(&text)?;
    Ok(if case_differences.is_empty() {
        ExitOutcome::Valid
    } else {
        ExitOutcome::Invalid
    })
}

/// A claim is re-run only on the corpus it was made against: this agentconf's, every line as
/// that corpus says.
fn held_to_the_embedded_corpus(
    claim: &ResultsFile,
    corpus: &[agentconf_contract::vector::Vector],
    name: &str,
) -> Result<()> {
    let embedded = agentconf_corpus::writer::manifest(corpus).corpus_digest;
    if claim.header.corpus_digest != embedded {
        return Err(format!(
            "{name} was made against corpus {}; this agentconf embeds {embedded}: re-check it \
             with the agentconf version that made it",
            claim.header.corpus_digest
        ))
        .refused();
    }
    agentconf_harness::corpus_check::check(claim, corpus, &embedded)
        .map_err(|e| format!("{name}: refused: {e}"))
        .refused()
}

/// The adapter given is the one the claim was made with (checked before anything runs, by its
/// SHA-256, and read as `run` reads it); its command, when it names one.
fn claimed_adapter_command(
    claim: &ResultsFile,
    args: &ClaimVerifyArgs,
    corpus_ids: &BTreeSet<String>,
    name: &str,
) -> Result<Option<Vec<String>>> {
    let path = match (&claim.header.adapter_digest, &args.adapter) {
        (Some(_), None) => {
            return Err(format!(
                "{name} was made with an adapter: give it with --adapter"
            ))
            .usage()
        }
        (None, Some(_)) => {
            return Err(format!(
                "{name} was made without an adapter; --adapter would change what runs"
            ))
            .usage()
        }
        (None, None) => return Ok(None),
        (Some(_), Some(path)) => path,
    };
    let (adapter_name, text, digest) = crate::adapter_file::read_adapter(path)?;
    if claim.header.adapter_digest.as_deref() != Some(digest.as_str()) {
        return Err(format!(
            "{} is not the adapter {name} was made with (sha256 {digest}, recorded {})",
            path.display(),
            claim.header.adapter_digest.as_deref().unwrap_or_default()
        ))
        .refused();
    }
    let mode = crate::target::mode(args.persistent);
    let adapter = crate::adapter_file::checked_adapter(&adapter_name, &text, corpus_ids, mode)?;
    Ok(Some(adapter.command).filter(|c| !c.is_empty()))
}

/// The expected-failures file given is the one the claim was made with (`run --xfail FILE`),
/// checked by its SHA-256 before anything runs (the run reads and checks its entries).
fn claimed_xfail(claim: &ResultsFile, args: &ClaimVerifyArgs, name: &str) -> Result<()> {
    match (&claim.header.xfail_digest, &args.xfail) {
        (None, None) => Ok(()),
        (Some(_), None) => Err(format!(
            "{name} was made with an expected-failures file (run --xfail): give it with --xfail"
        ))
        .usage(),
        (None, Some(_)) => Err(format!(
            "{name} was made without an expected-failures file; --xfail would change its statuses"
        ))
        .usage(),
        (Some(recorded), Some(path)) => {
            let (_, _, digest) = crate::adapter_file::read_adapter(path)?;
            if *recorded == digest {
                Ok(())
            } else {
                Err(format!(
                    "{} is not the expected-failures file {name} was made with (sha256 {digest}, \
                     recorded {recorded})",
                    path.display()
                ))
                .refused()
            }
        }
    }
}

/// The run that re-checks the claim: its cases, grading and profiles, through the command given
/// (after `--` or by the adapter) or, with none, the reference, when the claim is its own.
fn rerun_args(
    claim: &ResultsFile,
    args: &ClaimVerifyArgs,
    adapter_command: Option<&[String]>,
    name: &str,
) -> Result<RunArgs> {
    let h = &claim.header;
    let selection = h
        .selection
        .clone()
        .ok_or_else(|| {
            format!("{name} does not record which cases it selected: there is nothing to reproduce")
        })
        .refused()?;
    let profiles = h
        .profiles
        .iter()
        .map(|p| match p.as_str() {
            "durable" => Ok(ProfileArg::Durable),
            "atomic" => Ok(ProfileArg::Atomic),
            "cluster" => Ok(ProfileArg::Cluster),
            other => Err(format!("{name} claims an unknown profile {other:?}")).refused(),
        })
        .collect::<Result<Vec<_>>>()?;
    let implementation = if args.command.is_empty() && adapter_command.is_none() {
        references_own(&h.implementation)
            .ok_or_else(|| refusal(claim, args, name))
            .refused()?
    } else {
        // A command is given: `implementation` is not read.
        ImplementationArg::Reference
    };
    Ok(RunArgs {
        implementation,
        command: args.command.clone(),
        grading: match h.grading {
            agentconf_harness::Grading::Strict => GradingArg::Strict,
            agentconf_harness::Grading::Loose => GradingArg::Loose,
        },
        profiles,
        include: selection.include.clone(),
        exclude: selection.exclude.clone(),
        jobs: args.jobs,
        timeout: args.timeout,
        fail_fast: false,
        max_fail: None,
        out: args.out.clone(),
        html: None,
        adapter: args.adapter.clone(),
        emit_xfail: None,
        xfail: args.xfail.clone(),
        persistent: args.persistent,
        validate_protocol: false,
        // The claim's statuses are compared one by one: every case must run again.
        keep_going: true,
        // A re-run is never signed: its results are the checker's, not the claim's.
        sign: None,
        attestation: None,
    })
}

/// How the reference re-runs a claim that is its own, or `None` when the claim is not: one
/// recorded with the reference in process (no command), or with `agentconf impl` of this very
/// build (the recorded program's SHA-256 is this executable's).
fn references_own(recorded: &ImplementationInfo) -> Option<ImplementationArg> {
    if recorded.argv.is_empty() {
        return Some(ImplementationArg::Reference);
    }
    let this_build = ImplementationInfo::of(String::new(), &[]).executable_sha256;
    let runs_impl = matches!(recorded.argv.as_slice(), [_, operation] if operation == "impl");
    (runs_impl && this_build.is_some() && recorded.executable_sha256 == this_build)
        .then_some(ImplementationArg::ReferenceProcess)
}

/// One line: the claim is someone else's, and the command to give (ready to paste).
fn refusal(claim: &ResultsFile, args: &ClaimVerifyArgs, name: &str) -> String {
    let recorded = shell_words(&claim.header.implementation.argv);
    let mut again = format!(
        "agentconf claim verify {}",
        shell_words(&[name.to_string()])
    );
    if let Some(adapter) = &args.adapter {
        again.push_str(&format!(
            " --adapter {}",
            shell_words(&[adapter.display().to_string()])
        ));
    }
    if args.persistent {
        again.push_str(" --persistent");
    }
    format!(
        "{name} was made with the command {recorded}, not by this agentconf's reference: give \
         that command after -- to re-check it ({again} -- {recorded})"
    )
}

/// What the claim records of its implementation and what runs now, and where they differ.
fn identities(
    name: &str,
    recorded: &ImplementationInfo,
    now: &ImplementationInfo,
    differences: &[Difference],
) -> String {
    let mut text = format!("claim:      {name}\n");
    text.push_str(&recorded_lines(recorded));
    if differences.is_empty() {
        text.push_str(&format!(
            "re-running: {}: the same executable and files\n",
            command_of(now)
        ));
    } else {
        text.push_str(&format!("re-running: {}\n", command_of(now)));
        text.push_str(&digests(now));
        text.push_str("not the same implementation:\n");
        for d in differences {
            text.push_str(&format!("  {d}\n"));
        }
    }
    text
}

/// What the claim records of its implementation: the command, the name the claimant gave it
/// (their words, checked by nothing) beside the digests of what ran.
fn recorded_lines(recorded: &ImplementationInfo) -> String {
    let mut text = format!("recorded:   {}\n", command_of(recorded));
    text.push_str(&format!(
        "            named {:?} by the claimant; what ran:\n",
        recorded.name
    ));
    text.push_str(&digests(recorded));
    if let Some(version) = &recorded.interpreter_version {
        text.push_str(&format!("            interpreter {version}\n"));
    }
    text
}

/// The command, ready to paste, or what runs without one.
fn command_of(info: &ImplementationInfo) -> String {
    if info.argv.is_empty() {
        "the reference, in process".into()
    } else {
        shell_words(&info.argv)
    }
}

/// The executable's and every named file's SHA-256, a line each.
fn digests(info: &ImplementationInfo) -> String {
    let mut text = format!(
        "            executable {} sha256 {}\n",
        info.program(),
        info.executable_sha256.as_deref().unwrap_or("unknown")
    );
    for f in &info.files {
        text.push_str(&format!(
            "            file {} sha256 {}\n",
            f.path, f.sha256
        ));
    }
    text
}

/// Words as a POSIX shell reads them back: a word of plain characters as it is, any other in
/// single quotes.
fn shell_words(words: &[String]) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    words
        .iter()
        .map(|w| {
            if !w.is_empty() && w.chars().all(plain) {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every case whose status differs, or that only one file has, in the claim's order.
fn compare(claim: &ResultsFile, again: &ResultsFile) -> Vec<String> {
    let now: BTreeMap<&str, &str> = again
        .results
        .iter()
        .map(|r| (r.id.as_str(), r.status.name()))
        .collect();
    let mut out = Vec::new();
    for r in &claim.results {
        match now.get(r.id.as_str()) {
            Some(s) if *s == r.status.name() => {}
            Some(s) => out.push(format!("{}: recorded {}, now {s}", r.id, r.status.name())),
            None => out.push(format!(
                "{}: recorded {}, not run now",
                r.id,
                r.status.name()
            )),
        }
    }
    let recorded: BTreeSet<&str> = claim.results.iter().map(|r| r.id.as_str()).collect();
    for r in &again.results {
        if !recorded.contains(r.id.as_str()) {
            out.push(format!(
                "{}: not in the claim, now {}",
                r.id,
                r.status.name()
            ));
        }
    }
    out
}
