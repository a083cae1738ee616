//! The smoke check: a handful of trivial cases per operation, and a one-screen diagnosis of the
//! wrapper ("cannot start", "wrong exit codes", "prints garbage", "too slow", "accepts
//! everything"), so a broken wrapper gets one clear message instead of hundreds of failed cases.
//! `agentconf smoke -- COMMAND` runs it; `agentconf run` runs it by itself when its first cases
//! all crash the same way (see [`identical_crashes`]).
//!
//! A smoke check says whether the wrapper speaks the contract, never whether the implementation
//! conforms: it proves nothing about the rules.

use std::fmt::Write as _;

use agentconf_contract::case::Case;
use agentconf_contract::vector::{Expectation, Suite};

use crate::adapter::Adapter;
use crate::grade::{Grade, Grading};
use crate::runner::{run_case_with, Implementation, VectorResult};
use crate::status::Status;

/// Runs the probes drawn from `cases` (the corpus's, in corpus order) one after another through
/// `adapter` (if any), strictly graded, each in a fresh directory of its own under the work root;
/// returns the one-screen report and the diagnosis.
pub fn check(
    imp: &Implementation,
    adapter: Option<&Adapter>,
    cases: &[Case<'_>],
) -> (String, Diagnosis) {
    let probes = probes(cases);
    let work = crate::dirs::work_root().join(format!("agentconf-smoke-{}", std::process::id()));
    let results: Vec<VectorResult> = probes
        .iter()
        .map(|p| run_case_with(imp, adapter, &p.case, &work, Grading::Strict))
        .collect();
    let _ = std::fs::remove_dir_all(&work);
    let diagnosis = diagnose(&probes, &results);
    let width = terminal_width();
    let text = render(&probes, &results, &diagnosis, width);
    (wrap(&text, width), diagnosis)
}

/// The width of the terminal standard error (or standard output) is, in columns; 80 when
/// neither is a terminal (a CI log, a file, a pipe).
pub fn terminal_width() -> usize {
    const OFF_A_TERMINAL: usize = 80;
    use std::os::fd::AsFd as _;
    for fd in [std::io::stderr().as_fd(), std::io::stdout().as_fd()] {
        // A descriptor that is no terminal makes it fail.
        if let Ok(size) = rustix::termios::tcgetwinsize(fd) {
            if size.ws_col >= 20 {
                return usize::from(size.ws_col);
            }
        }
    }
    OFF_A_TERMINAL
}

/// `text` with every line longer than `width` characters (at least 20) broken at spaces, the
/// continuation lines indented by four spaces more than the line's own indentation; a word
/// longer than the room left is cut. Runs of spaces inside a line (column alignment) are kept.
pub(crate) fn wrap(text: &str, width: usize) -> String {
    let width = width.max(20);
    let mut out = String::with_capacity(text.len() + text.len() / width * 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if line.chars().count() <= width {
            out.push_str(line);
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let hang = " ".repeat((indent + 4).min(width / 2));
        let mut current = " ".repeat(indent);
        let mut length = indent;
        // Nothing on `current` yet but indentation.
        let mut at_start = true;
        for word in line[indent..].split(' ') {
            if word.is_empty() && at_start {
                continue;
            }
            let mut chars: Vec<char> = word.chars().collect();
            loop {
                let gap = usize::from(!at_start);
                if length + gap + chars.len() <= width {
                    if !at_start {
                        current.push(' ');
                    }
                    length += gap + chars.len();
                    current.extend(chars.drain(..));
                    at_start = false;
                    break;
                }
                if at_start {
                    // Wider than a whole line: as much as fits, the rest on the next.
                    let take = width.saturating_sub(length).max(1).min(chars.len());
                    current.extend(chars.drain(..take));
                }
                out.push_str(current.trim_end());
                out.push('\n');
                current.clone_from(&hang);
                length = hang.len();
                at_start = true;
                if chars.is_empty() {
                    break;
                }
            }
        }
        out.push_str(current.trim_end());
    }
    out
}

/// One probe: a case and the operation it calls.
pub(crate) struct Probe<'a> {
    pub(crate) suite: Suite,
    pub(crate) case: Case<'a>,
}

/// The probes drawn from `cases` (the corpus's, in corpus order): per suite, its first valid
/// case that runs under one revision with no tier or commitment, and an invalid case derived from
/// it (so the pair shows both answers on nearly the same input). A suite without such a pair
/// contributes what it has.
pub(crate) fn probes<'a>(cases: &[Case<'a>]) -> Vec<Probe<'a>> {
    let mut out = Vec::new();
    for suite in Suite::ALL {
        let plain = |c: &&Case<'a>| {
            c.vector.suite == suite
                && c.vector.options.tier.is_none()
                && !c.vector.inputs.iter().any(|i| i.role == "commitment")
                && c.vector.requires.is_empty()
                && !c.id.contains(agentconf_contract::case::CASE_REVISION_SEPARATOR)
                // Timelines under the current construction: a wrapper is checked on what most
                // of the corpus asks, not on the historical revision 06.
                && (suite != Suite::Aer1Timeline
                    || c.revision
                        == agentconf_rules::Revisions::embedded()
                            .newest(agentconf_rules::draft_revisions::AER1))
        };
        let derived_from = |valid: &Case<'a>| {
            cases.iter().filter(plain).find(|c| {
                c.expectation == Expectation::Invalid
                    && c.vector
                        .derivation
                        .as_ref()
                        .is_some_and(|d| d.source == valid.vector.id)
            })
        };
        let valids = || {
            cases
                .iter()
                .filter(plain)
                .filter(|c| c.expectation == Expectation::Valid)
        };
        // The first valid case that has an invalid one derived from it, else the first valid.
        let Some(valid) = valids()
            .find(|v| derived_from(v).is_some())
            .or_else(|| valids().next())
        else {
            continue;
        };
        let invalid = derived_from(valid);
        out.push(Probe {
            suite,
            case: valid.clone(),
        });
        if let Some(invalid) = invalid {
            out.push(Probe {
                suite,
                case: invalid.clone(),
            });
        }
    }
    out
}

/// What the probes showed about the wrapper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Diagnosis {
    /// Every probe was answered as the corpus expects (or an operation is unsupported).
    Works,
    /// Every probe crashed, timed out or broke the protocol (`status`, `detail` and `stderr`,
    /// what it wrote on standard error, are the first probe's).
    Broken {
        status: Status,
        detail: String,
        stderr: String,
        /// The suite of the first probe: a GRP receiver gets the stream's advice.
        suite: Suite,
    },
    /// Valid probes were rejected; every invalid probe was rejected as it should be.
    RejectsEverything,
    /// Invalid probes were accepted; every valid probe was accepted as it should be.
    AcceptsEverything,
    /// Valid probes rejected and invalid ones accepted: the exit codes look swapped.
    Inverted,
    /// Something else is wrong: the per-probe lines say what.
    Mixed,
}

/// The diagnosis of `results`, one per probe of `probes`.
pub(crate) fn diagnose(probes: &[Probe<'_>], results: &[VectorResult]) -> Diagnosis {
    let answered: Vec<(&Probe<'_>, &VectorResult)> = probes
        .iter()
        .zip(results)
        .filter(|(_, r)| !matches!(r.status, Status::Unsupported | Status::OutOfScope))
        .collect();
    if answered.is_empty() {
        return Diagnosis::Works;
    }
    if let Some((probe, first)) = answered.first() {
        if answered.iter().all(|(_, r)| r.status.is_no_answer()) {
            return Diagnosis::Broken {
                status: first.status,
                detail: first.detail.clone(),
                stderr: first.stderr.clone(),
                suite: probe.suite,
            };
        }
    }
    if answered.iter().all(|(_, r)| r.status == Status::Pass) {
        return Diagnosis::Works;
    }
    // The pattern of the wrong verdicts (the lines show crashes and the rest).
    let wrong = |e: Expectation| -> Vec<Status> {
        answered
            .iter()
            .filter(|(p, r)| p.case.expectation == e && !r.status.is_no_answer())
            .filter(|(_, r)| r.status != Status::Pass)
            .map(|(_, r)| r.status)
            .collect()
    };
    let (valid, invalid) = (wrong(Expectation::Valid), wrong(Expectation::Invalid));
    let only = |v: &[Status], s: Status| v.iter().all(|x| *x == s);
    match (valid.is_empty(), invalid.is_empty()) {
        (false, false)
            if only(&valid, Status::FalseReject) && only(&invalid, Status::FalseAccept) =>
        {
            Diagnosis::Inverted
        }
        (false, true) if only(&valid, Status::FalseReject) => Diagnosis::RejectsEverything,
        (true, false) if only(&invalid, Status::FalseAccept) => Diagnosis::AcceptsEverything,
        _ => Diagnosis::Mixed,
    }
}

/// The one-screen report, `width` columns wide: a line per probe (its status, what it expects and
/// its case id, whose first part names the suite; its detail beside it when the line has room,
/// else on a line of its own cut at the width, or, for a broken wrapper, left to the diagnosis,
/// which gives the first one's in full), then the diagnosis, wrapped by the caller.
pub(crate) fn render(
    probes: &[Probe<'_>],
    results: &[VectorResult],
    d: &Diagnosis,
    width: usize,
) -> String {
    let mut out = String::from("agentconf smoke check: a few trivial cases per operation\n");
    // Columns as wide as their widest entry, so that a row fits a narrow terminal.
    let status_width = results
        .iter()
        .map(|r| r.status.name().len())
        .max()
        .unwrap_or(0);
    let expectation_width = (probes.iter())
        .map(|p| expectation_name(p.case.expectation).len())
        .max()
        .unwrap_or(0);
    let broken = matches!(d, Diagnosis::Broken { .. });
    for (p, r) in probes.iter().zip(results) {
        let head = format!(
            "  {:<status_width$} {:<expectation_width$} {}",
            r.status.name(),
            expectation_name(p.case.expectation),
            crate::report::terminal_safe(&p.case.id),
        );
        let detail = crate::report::terminal_safe(&crate::report::clip(&r.detail, 100));
        let _ = if detail.is_empty() {
            writeln!(out, "{head}")
        } else if head.chars().count() + 2 + detail.chars().count() <= width {
            writeln!(out, "{head}  {detail}")
        } else if broken {
            writeln!(out, "{head}")
        } else {
            writeln!(out, "{head}\n{}", cut(&format!("      {detail}"), width))
        };
    }
    let of_status = |status: Status| {
        let mut s: Vec<&str> = probes
            .iter()
            .zip(results)
            .filter(|(_, r)| r.status == status)
            .map(|(p, _)| p.suite.as_str())
            .collect();
        s.dedup();
        s
    };
    let (unsupported, out_of_scope) = (
        of_status(Status::Unsupported),
        of_status(Status::OutOfScope),
    );
    out.push('\n');
    let advice = "check the command, the argument order and the exit codes in \
                  crates/contract/CONTRACT.md (sections 2 and 3)";
    let _ = match d {
        Diagnosis::Works => writeln!(
            out,
            "diagnosis: the wrapper works: every call was answered as the contract asks. This \
             says nothing yet about conformance: run the whole corpus with `agentconf run`."
        ),
        Diagnosis::Broken {
            status,
            detail,
            stderr,
            suite: Suite::GrpAdmission,
        } => writeln!(
            out,
            "diagnosis: the receiver is broken: no GRP call was answered (the first: {}, {}). A \
             receiver is started as COMMAND grp-admit REVISION SESSION STATE_DIR, reads one event \
             per line on standard input and writes one decision line per event, flushed, until \
             its input ends; exiting before that is a crash, whatever its status (CONTRACT.md \
             sections 3.2 and 5).{}",
            status.name(),
            crate::report::terminal_safe(&crate::report::clip(detail, 200)),
            stderr_excerpt(stderr)
        ),
        Diagnosis::Broken {
            status,
            detail,
            stderr,
            ..
        } => writeln!(
            out,
            "diagnosis: the wrapper is broken: no call was answered (the first: {}, {}). {}{}",
            status.name(),
            crate::report::terminal_safe(&crate::report::clip(detail, 200)),
            match status {
                Status::Timeout => "It hangs or is far too slow: does it wait for standard \
                                    input, or start something that never ends?"
                    .to_string(),
                Status::ProtocolError => "It prints something on standard output that is not \
                                          the contract's result object: print nothing, or \
                                          exactly one JSON object."
                    .to_string(),
                _ => format!(
                    "It cannot start, or exits with codes the contract does not use: {advice}."
                ),
            },
            stderr_excerpt(stderr)
        ),
        Diagnosis::RejectsEverything => writeln!(
            out,
            "diagnosis: it rejects valid input too: the wrapper may exit 1 for any failure of its \
             own (a missing file, a wrong argument). {advice}."
        ),
        Diagnosis::AcceptsEverything => writeln!(
            out,
            "diagnosis: it accepts invalid input too: the wrapper may exit 0 whatever the tool \
             says. {advice}."
        ),
        Diagnosis::Inverted => writeln!(
            out,
            "diagnosis: valid input rejected and invalid input accepted: the exit codes look \
             swapped (0 accepts, 1 rejects)."
        ),
        Diagnosis::Mixed => writeln!(
            out,
            "diagnosis: some calls went wrong (the lines above say which); {advice}."
        ),
    };
    if !unsupported.is_empty() {
        let _ = writeln!(
            out,
            "unsupported (exit 89): {}: fine if the implementation does not claim them.",
            unsupported.join(", ")
        );
    }
    if !out_of_scope.is_empty() {
        let _ = writeln!(
            out,
            "out of the adapter's declared scope (not run): {}.",
            out_of_scope.join(", ")
        );
    }
    out
}

/// `line` cut to `width` characters, ending in `…` when cut.
fn cut(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    let mut out: String = line.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// How many lines of the implementation's standard error a broken wrapper's diagnosis shows.
const STDERR_LINES: usize = 5;

/// The first lines of what the first probe wrote on standard error, each made safe for a
/// terminal and clipped, after a line saying so; nothing when it wrote nothing.
fn stderr_excerpt(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        // Nothing started, or it said nothing: no line to spend on it.
        return String::new();
    }
    let mut out = String::from("\nIts standard error began:");
    for line in lines.iter().take(STDERR_LINES) {
        out.push_str("\n    ");
        out.push_str(&crate::report::terminal_safe(&crate::report::clip(
            line.trim_end(),
            400,
        )));
    }
    if lines.len() > STDERR_LINES {
        let _ = write!(out, "\n    … ({} more lines)", lines.len() - STDERR_LINES);
    }
    out
}

fn expectation_name(e: Expectation) -> &'static str {
    match e {
        Expectation::Valid => "valid",
        Expectation::Invalid => "invalid",
        Expectation::Acceptable => "acceptable",
    }
}

/// How many of a run's first results must crash identically before `agentconf run` stops and
/// runs the smoke check instead of going on.
pub const IDENTICAL_CRASHES: usize = 10;

/// Whether `first` (a run's first results, in the order they came) are [`IDENTICAL_CRASHES`]
/// results that crashed, timed out or broke the protocol with the same detail: a broken wrapper,
/// not an implementation with bugs.
pub(crate) fn identical_crashes(first: &[Grade]) -> bool {
    first.len() >= IDENTICAL_CRASHES
        && first
            .iter()
            .all(|g| g.status.is_no_answer() && *g == first[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_wrapped_to_the_width_and_short_ones_kept() {
        let long = format!(
            "  aer1-receipt  valid  crash  {}  exit code 2 is not one of the contract's",
            "x".repeat(150)
        );
        let text = format!("short line\n{long}\nend");
        for width in [20, 40, 80, 100] {
            let wrapped = wrap(&text, width);
            for line in wrapped.lines() {
                assert!(line.chars().count() <= width, "{width}: {line:?}");
            }
            assert!(wrapped.starts_with("short line\n"), "{wrapped}");
            assert!(wrapped.ends_with("\nend"), "{wrapped}");
            // Nothing is lost: the words, in order, are the text's.
            let words = |s: &str| s.split_whitespace().collect::<String>();
            assert_eq!(words(&wrapped), words(&text), "{width}");
            // Continuation lines hang under the first.
            assert!(
                wrapped.lines().nth(2).unwrap().starts_with("      "),
                "{wrapped}"
            );
        }
        assert_eq!(wrap(&text, 400), text);
    }

    #[test]
    fn a_broken_wrapper_shows_the_first_lines_of_its_stderr_made_safe() {
        let stderr = "python3: can't open file '/w/nonexistent.py': [Errno 2] No such file\n\
                      \x1b]52;c;aGk=\x07second\nthird\nfourth\nfifth\nsixth\nseventh\n";
        let shown = stderr_excerpt(stderr);
        assert!(
            shown.contains("can't open file '/w/nonexistent.py'"),
            "{shown}"
        );
        assert!(
            !shown.contains('\x1b') && !shown.contains('\x07'),
            "{shown}"
        );
        assert!(shown.contains("\\u{1b}"), "{shown}");
        assert!(
            shown.contains("fifth") && !shown.contains("sixth"),
            "{shown}"
        );
        assert!(shown.contains("(2 more lines)"), "{shown}");
        assert!(stderr_excerpt("").is_empty());
    }
}
