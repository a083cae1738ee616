//! `agentconf`: verify AER-1 receipts, timelines and workflows; print digests and commitments.
//!
//! Exit codes: 0 valid, 1 invalid, 2 usage error, unreadable input or unwritable output.

mod adapter_file;
mod args;
mod commands;
mod corpus_choice;
mod error;
mod input;
mod progress;
mod render;
mod signed;
mod target;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

fn main() -> ExitCode {
    ignore_file_size_signal();
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => usage_error(e),
    };
    match commands::run(cli) {
        Ok(outcome) => outcome.exit_code(),
        // The reader went away (`… | head`): it has what it wanted, and a message about it
        // would only clutter its terminal. The exit code still says the output was cut.
        Err(error) if error.is_output_closed() => ExitCode::from(error.kind().exit_code()),
        Err(error) => {
            // One terminal-safe line: a hostile file name in an error cannot move the cursor or
            // print a line of its own (no error message has a line break of its own).
            let line = agentconf_json::text::terminal_safe(&format!("agentconf: {error}"));
            commands::to_stderr(&(line + "\n"));
            ExitCode::from(error.kind().exit_code())
        }
    }
}

/// Prints a usage error as clap does and exits with its code; a mistyped subcommand that clap's
/// own similarity measure finds nothing for (`rnu`: two letters swapped) gets the nearest
/// subcommand by edit distance (a swap counts as one edit).
fn usage_error(e: clap::Error) -> ! {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let suggested = e.get(ContextKind::SuggestedSubcommand).is_some();
    let typed = match e.get(ContextKind::InvalidSubcommand) {
        Some(ContextValue::String(s)) if e.kind() == ErrorKind::InvalidSubcommand => {
            Some(s.clone())
        }
        _ => None,
    };
    let _ = e.print();
    if let (false, Some(typed)) = (suggested, typed) {
        let names: Vec<String> = args::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        if let Some(near) = nearest(&typed, &names) {
            let line = agentconf_json::text::terminal_safe(&format!(
                "  tip: a similar subcommand exists: '{near}'"
            ));
            commands::to_stderr(&(line + "\n"));
        }
    }
    std::process::exit(e.exit_code())
}

/// The name in `names` nearest to `typed`, when it is near enough: at most one edit for a short
/// name, two for a longer one (insertions, deletions, substitutions and swaps of neighbours).
fn nearest<'a>(typed: &str, names: &'a [String]) -> Option<&'a str> {
    let limit = if typed.chars().count() <= 4 { 1 } else { 2 };
    names
        .iter()
        .map(|n| (edits(typed, n), n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n.as_str())
}

/// The optimal string alignment distance between `a` and `b`.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// A file size limit (`ulimit -f`) makes the kernel send SIGXFSZ to a process whose write crosses
/// it, and its default action ends the process at once (exit 153): nothing said, the results left
/// in a temporary file, the lock held. Ignored, that write fails with EFBIG instead, which every
/// writer here handles like a full disk: a message, the whole lines kept, the lock released.
fn ignore_file_size_signal() {
    // SAFETY: signal(2) with SIG_IGN installs no handler code; it is called once, before any
    // thread is started.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

#[cfg(test)]
mod tests {
    use super::{edits, nearest};

    #[test]
    fn a_swap_is_one_edit_and_far_names_are_not_suggested() {
        assert_eq!(edits("rnu", "run"), 1);
        assert_eq!(edits("run", "run"), 0);
        assert_eq!(edits("reprot", "report"), 1);
        let names: Vec<String> = ["run", "report", "smoke", "verify"]
            .map(String::from)
            .to_vec();
        assert_eq!(nearest("rnu", &names), Some("run"));
        assert_eq!(nearest("smkoe", &names), Some("smoke"));
        assert_eq!(nearest("xyz", &names), None);
    }
}
