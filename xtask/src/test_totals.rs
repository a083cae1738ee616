//! `cargo xtask test [ARGS…]`: `cargo test --workspace ARGS…` with its output as it comes, closed
//! by one line of totals over every test binary. Cargo prints a summary per binary, the last
//! often a doc-test run with 0 tests, so without the totals a green run can be mistaken for one
//! that ran nothing. The exit status is cargo's.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};

/// Sums over cargo's `test result:` lines.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub binaries: usize,
    pub passed: usize,
    pub failed: usize,
    pub ignored: usize,
}

impl Totals {
    /// Adds one line of cargo's output, if it is a `test result:` summary.
    pub fn add(&mut self, line: &str) {
        let Some(rest) = line.trim_start().strip_prefix("test result:") else {
            return;
        };
        self.binaries += 1;
        let words: Vec<&str> = rest.split_whitespace().collect();
        for pair in words.windows(2) {
            let Ok(n) = pair[0].parse::<usize>() else {
                continue;
            };
            match pair[1].trim_end_matches([';', ',']) {
                "passed" => self.passed += n,
                "failed" => self.failed += n,
                "ignored" => self.ignored += n,
                _ => {}
            }
        }
    }

    pub fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} ignored, in {} test binaries",
            self.passed, self.failed, self.ignored, self.binaries
        )
    }
}

pub fn run(args: &[&str]) -> ExitCode {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let child = Command::new(cargo)
        .args(["test", "--workspace"])
        .args(args)
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!("xtask: cannot start cargo test: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut totals = Totals::default();
    if let Some(stdout) = child.stdout.take() {
        let mut out = std::io::stdout().lock();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            totals.add(&line);
            let _ = writeln!(out, "{line}");
        }
    }
    let status = child.wait();
    println!("{}", totals.line());
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

#[cfg(test)]
mod tests {
    use super::Totals;

    #[test]
    fn sums_every_binary_and_skips_other_lines() {
        let mut t = Totals::default();
        for line in [
            "running 3 tests",
            "test result: ok. 15 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s",
            "test a ... ok",
            "test result: FAILED. 2 passed; 3 failed; 0 ignored; 0 measured; 4 filtered out; finished in 1.2s",
            "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
        ] {
            t.add(line);
        }
        assert_eq!(
            t,
            Totals {
                binaries: 3,
                passed: 17,
                failed: 3,
                ignored: 1
            }
        );
        assert_eq!(
            t.line(),
            "17 passed, 3 failed, 1 ignored, in 3 test binaries"
        );
    }
}
