//! Reading an adapter file (CONTRACT.md section 12) for `run`, `smoke` and `claim verify`: the
//! bounded, UTF-8 text, its SHA-256 for the results header, and the checked adapter with every
//! mistake named.

use crate::error::Sort as _;
use agentconf_harness::adapter::{Adapter, Mode};

use crate::error::{to_stderr, Result};

/// An adapter file's name for messages, its text (bounded, UTF-8) and the SHA-256 the results
/// header records for it.
pub fn read_adapter(path: &std::path::Path) -> Result<(String, String, String)> {
    let input = crate::input::open(path)?;
    let bytes =
        agentconf_json::read_limited(input.reader, agentconf_harness::adapter::MAX_ADAPTER_BYTES)
            .map_err(|e| crate::input::read_error(&input.name, &e))?
            .map_err(|e| format!("{}: {e}", input.name))
            .refused()?;
    let digest = agentconf_aer1::hex::lower(&agentconf_aer1::digest::sha256(&bytes));
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{}: not UTF-8", input.name))
        .refused()?;
    Ok((input.name, text, digest))
}

/// An adapter file's text checked for a run in `mode`. Every mistake is named, each on a line
/// of its own: all but the last on standard error now, the last as the error (so that a single
/// mistake is one line, as every error is).
pub fn checked_adapter(
    name: &str,
    text: &str,
    corpus_ids: &std::collections::BTreeSet<String>,
    mode: Mode,
) -> Result<Adapter> {
    let adapter = Adapter::parse_for(text, corpus_ids, mode)
        .map_err(|errors| match say_all_but_last(name, errors.all()) {
            Some((last, 1)) => format!("{name}: {last}"),
            Some((last, n)) => format!("{name}: {last} ({n} mistakes, each on a line of its own)"),
            // Never: an error lists at least one mistake.
            None => format!("{name}: {errors}"),
        })
        .refused()?;
    // Legal, but probably a trap: said before the run, which goes on.
    for w in adapter.warnings() {
        let line = agentconf_json::text::terminal_safe(&format!("agentconf: {name}: warning: {w}"));
        to_stderr(&(line + "\n"));
    }
    Ok(adapter)
}

/// An expected-failures file (`run --xfail FILE`): its name, the checked entries and the SHA-256
/// the results header records for it. Read under the adapter's size limit; every mistake named
/// as an adapter's are.
pub fn read_expected_failures(
    path: &std::path::Path,
    corpus_ids: &std::collections::BTreeSet<String>,
) -> Result<(agentconf_harness::adapter::ExpectedFailures, String)> {
    let (name, text, digest) = read_adapter(path)?;
    let failures = agentconf_harness::adapter::ExpectedFailures::parse(&text, corpus_ids)
        .map_err(|errors| match say_all_but_last(&name, errors.all()) {
            Some((last, _)) => format!("{name}: {last}"),
            None => format!("{name}: {errors}"),
        })
        .refused()?;
    Ok((failures, digest))
}

/// Says every mistake of file `name` but the last on standard error, a line each (escaped for
/// the terminal); the last, which the caller makes the error, and how many there were. `None`
/// when there were none.
fn say_all_but_last<'m, M: std::fmt::Display>(
    name: &str,
    mistakes: &'m [M],
) -> Option<(&'m M, usize)> {
    let (last, earlier) = mistakes.split_last()?;
    for e in earlier {
        let line = agentconf_json::text::terminal_safe(&format!("agentconf: {name}: {e}"));
        to_stderr(&(line + "\n"));
    }
    Some((last, mistakes.len()))
}
