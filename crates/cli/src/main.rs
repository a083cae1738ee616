//! `agentconf`: verify AER-1 receipts, timelines and workflows; print digests and commitments.
//!
//! Exit codes: 0 valid, 1 invalid, 2 usage error, unreadable input or unwritable output.

mod adapter_file;
mod args;
mod commands;
mod error;
mod input;
mod render;
mod signed;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    ignore_file_size_signal();
    let cli = args::Cli::parse();
    match commands::run(cli) {
        Ok(outcome) => outcome.exit_code(),
        // The reader went away (`… | head`): it has what it wanted, and a message about it
        // would only clutter its terminal. The exit code still says the output was cut.
        Err(error) if error.is_output_closed() => ExitCode::from(commands::EXIT_USAGE),
        Err(error) => {
            // One terminal-safe line: a hostile file name in an error cannot move the cursor or
            // print a line of its own (no error message has a line break of its own).
            let line = agentconf_json::text::terminal_safe(&format!("agentconf: {error}"));
            commands::to_stderr(&(line + "\n"));
            ExitCode::from(commands::EXIT_USAGE)
        }
    }
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
