//! `agentconf digest`: every entry's digest, streamed as entries are read, for spec authors.

use crate::error::Sort as _;
use std::io::{self, Write};

use agentconf_aer1::hex;
use agentconf_aer1::timeline::{verify_timeline_observed, EntryDigest, TimelineOptions};
use agentconf_aer1::Verdict;
use serde_json::json;

use super::{revision, to_stderr, ExitOutcome};
use crate::args::{DigestArgs, Format};
use crate::error::Result;
use crate::input::{open, read_error};
use crate::render;

pub fn run(args: &DigestArgs) -> Result<ExitOutcome> {
    let revision = revision(&args.revision)?;
    if args.preimage && revision.is_historical() {
        return Err(format!(
            "--preimage needs a revision with the `preimage` construction: revision {} hashes the \
             bytes alone",
            args.revision
        ))
        .usage();
    }
    let input = open(&args.file)?;
    let options = TimelineOptions {
        revision,
        ..TimelineOptions::default()
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    // The observer cannot return errors: keep the first write failure and stop writing.
    let mut write_error: Option<io::Error> = None;
    let json = args.output.format == Format::Json;
    if json {
        let head = format!(
            "{{\"tool\":\"agentconf\",\"tool_version\":\"{}\",\"draft\":\"{}\",\"kind\":\"aer1-digest\",\"revision\":\"{}\",\"historical\":{},\"entries\":[",
            env!("CARGO_PKG_VERSION"),
            agentconf_aer1::report::DRAFT,
            args.revision,
            revision.is_historical()
        );
        write_error = out.write_all(head.as_bytes()).err();
    } else if revision.is_historical() {
        // Labelled wherever a revision-06 result is shown (lines starting with '#' are comments).
        let head = "# HISTORICAL: revision-06 digests (SHA-256 of each entry's bytes alone), \
                    not digests under the current construction\n";
        write_error = out.write_all(head.as_bytes()).err();
    }
    let mut observe = |d: &EntryDigest<'_>| {
        if write_error.is_some() {
            return;
        }
        let line = if json {
            entry_json(d, args.preimage)
        } else {
            entry_text(d, args.preimage)
        };
        if let Err(e) = out.write_all(line.as_bytes()) {
            write_error = Some(e);
        }
    };
    let report = verify_timeline_observed(input.reader, &options, &mut observe)
        .map_err(|e| read_error(&input.name, &e))?;
    if let Some(e) = write_error {
        return Err(format!("cannot write output: {e}")).unwritable();
    }
    let tail = if json {
        let failures = serde_json::to_string(&report.failures)
            .map_err(|e| e.to_string())
            .unwritable()?;
        let verdict = serde_json::to_string(&report.verdict)
            .map_err(|e| e.to_string())
            .unwritable()?;
        format!(
            "],\"entry_count\":{},\"verdict\":{verdict},\"failures\":{failures},\"failures_omitted\":{}}}\n",
            report.entry_count, report.failures_omitted
        )
    } else {
        String::new()
    };
    out.write_all(tail.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write output: {e}"))
        .unwritable()?;
    if !json && report.verdict == Verdict::Invalid {
        // Failures go to standard error so the digest lines stay easy to parse.
        let mut text = format!(
            "the timeline does not verify under revision {}:\n",
            args.revision
        );
        for f in &report.failures {
            text.push_str(&format!(
                "  {}\n",
                agentconf_harness::report::terminal_safe(&render::finding(f))
            ));
        }
        to_stderr(&text);
    }
    Ok(ExitOutcome::from_verdict(report.verdict))
}

fn entry_text(d: &EntryDigest<'_>, preimage: bool) -> String {
    let digest = d
        .digest
        .map_or_else(|| "unavailable".to_string(), |h| hex::lower(&h));
    let mut line = format!("{} {digest}\n", d.index);
    if preimage {
        if let Some(p) = d.preimage {
            // Preimages are ASCII: every other character is written as a \u escape.
            line.push_str(&format!("  preimage: {}\n", String::from_utf8_lossy(p)));
        }
    }
    line
}

fn entry_json(d: &EntryDigest<'_>, preimage: bool) -> String {
    let mut value = json!({
        "index": d.index,
        "digest": d.digest.map(|h| hex::lower(&h)),
    });
    if preimage {
        value["preimage"] = json!(d.preimage.map(|p| String::from_utf8_lossy(p).into_owned()));
    }
    let sep = if d.index == 0 { "" } else { "," };
    format!("{sep}{value}")
}
