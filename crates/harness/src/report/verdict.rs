//! The verdict of a results file, in five levels, computed once and shown the same way by every
//! format and by the exit code. A green verdict is earned only by the whole corpus, graded
//! strictly, with nothing unexpected and no expected failure.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::grade::Grading;
use crate::results::ResultsFile;
use crate::status::Status;

/// The verdict's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Every case of the corpus ran, graded strictly; nothing unexpected, no expected failure,
    /// nothing skipped or unsupported.
    Conforms,
    /// As [`Level::Conforms`], except for cases the adapter lists as expected failures: never
    /// green, and each is a failure of its rules.
    ConformsWithKnownFailures,
    /// Nothing unexpected in what ran, but not everything ran, or not strictly: the reasons say
    /// what is missing.
    Partial,
    /// At least one unexpected result.
    Fail,
    /// No case was counted: everything was unsupported, skipped, or nothing ran.
    NothingTested,
}

/// The verdict of one results file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunVerdict {
    pub level: Level,
    /// Cases that failed as the adapter's expected-failure list says they would.
    pub known_failures: usize,
    /// Why the verdict is not about the whole corpus under strict grading (empty for a
    /// complete run graded strictly). Every format shows them as `scope:` lines. Expected
    /// failures are not among them: every format lists them, each with its reason.
    pub partial: Vec<String>,
    /// The scope the results speak for, in one line that every format shows first among its
    /// scope lines: the whole corpus, or what the adapter declared (its suites and revisions)
    /// and how many cases fell outside it.
    pub scope: String,
    /// Whether the `in-scope` level holds ([`RunVerdict::meets_in_scope`]): CONFORMS, CONFORMS
    /// WITH N KNOWN FAILURES, or a PARTIAL whose only reason is cases out of the declared scope.
    pub in_scope: bool,
}

impl RunVerdict {
    /// What the verdict means, in one sentence for the end of a run: what it does and does not
    /// claim.
    pub fn meaning(&self) -> &'static str {
        match self.level {
            Level::Conforms => {
                "every case of the corpus ran and passed under strict grading, each rule earned \
                 with paired credit; it speaks of these cases only, not of conformance beyond \
                 them"
            }
            Level::ConformsWithKnownFailures => {
                "as CONFORMS, except the cases the expected-failures list names: each is still a \
                 failure of its rules"
            }
            Level::Partial if self.in_scope => {
                "nothing failed, and every case of the scope the adapter declares ran strictly \
                 graded and passed (report --require in-scope holds); the cases outside that \
                 scope did not run: a claim about the declared scope only, not about the corpus"
            }
            Level::Partial => {
                "nothing failed, but not every case ran or was graded strictly (the scope lines \
                 say what is missing): no claim of conformance"
            }
            Level::Fail => "at least one case had an unexpected outcome (listed above)",
            Level::NothingTested => "no case was counted: nothing here is a result",
        }
    }

    /// The verdict in capitals, as every format shows it: `CONFORMS WITH 3 KNOWN FAILURES`.
    pub fn headline(&self) -> String {
        self.level.headline(self.known_failures)
    }

    /// Whether a run with this verdict exits 0: FAIL and NOTHING TESTED do not.
    pub fn exit_ok(&self) -> bool {
        !matches!(self.level, Level::Fail | Level::NothingTested)
    }

    /// Whether this verdict is `level` or better, in the order CONFORMS, CONFORMS WITH N KNOWN
    /// FAILURES, PARTIAL, FAIL, NOTHING TESTED (`report --require LEVEL`). `at_least(Partial)`
    /// is [`RunVerdict::exit_ok`].
    pub fn at_least(&self, level: Level) -> bool {
        rank(self.level) <= rank(level)
    }

    /// `report --require in-scope`: what `known-failures` asks of the whole corpus, asked of the
    /// scope the adapter declares. CONFORMS or CONFORMS WITH N KNOWN FAILURES, or a PARTIAL
    /// whose only reason is cases outside the declared scope: every case inside it ran,
    /// strictly graded, with nothing unexpected, skipped, unsupported, filtered out or cut,
    /// each passing or failing as a listed expected failure. Between `known-failures` and
    /// `partial`: every verdict that meets `known-failures` meets it, and it meets `partial`.
    pub fn meets_in_scope(&self) -> bool {
        self.in_scope
    }
}

impl Level {
    /// The level in capitals, with the count of known failures the one level that has them
    /// names: `CONFORMS WITH 3 KNOWN FAILURES`.
    pub fn headline(self, known_failures: usize) -> String {
        match self {
            Level::Conforms => "CONFORMS".into(),
            Level::ConformsWithKnownFailures => format!(
                "CONFORMS WITH {known_failures} KNOWN FAILURE{}",
                if known_failures == 1 { "" } else { "S" }
            ),
            Level::Partial => "PARTIAL".into(),
            Level::Fail => "FAIL".into(),
            Level::NothingTested => "NOTHING TESTED".into(),
        }
    }

    /// The level and count a headline ([`Level::headline`]) names, exactly as written; `None`
    /// for anything else (a matrix file's verdict is read back through this).
    pub(crate) fn from_headline(headline: &str) -> Option<(Level, usize)> {
        let plain = [
            Level::Conforms,
            Level::Partial,
            Level::Fail,
            Level::NothingTested,
        ];
        if let Some(level) = plain.into_iter().find(|l| l.headline(0) == headline) {
            return Some((level, 0));
        }
        let count = headline
            .strip_prefix("CONFORMS WITH ")?
            .split(' ')
            .next()?
            .parse::<usize>()
            .ok()?;
        let level = Level::ConformsWithKnownFailures;
        (level.headline(count) == headline).then_some((level, count))
    }
}

/// A level's place in the order, best first.
fn rank(level: Level) -> u8 {
    match level {
        Level::Conforms => 0,
        Level::ConformsWithKnownFailures => 1,
        Level::Partial => 2,
        Level::Fail => 3,
        Level::NothingTested => 4,
    }
}

/// The verdict of `file`, from its result lines and header (the footer is not trusted).
pub fn verdict(file: &ResultsFile) -> RunVerdict {
    let count = |s: Status| file.results.iter().filter(|r| r.status == s).count();
    let unexpected = file
        .results
        .iter()
        .filter(|r| r.status.is_unexpected())
        .count();
    let known_failures = count(Status::Xfail);
    let counted = file
        .results
        .iter()
        .filter(|r| r.status.is_counted())
        .count();
    let (partial, scope_only) = partial_reasons(file);
    let level = if counted == 0 {
        Level::NothingTested
    } else if unexpected > 0 {
        Level::Fail
    } else if !partial.is_empty() {
        Level::Partial
    } else if known_failures > 0 {
        Level::ConformsWithKnownFailures
    } else {
        Level::Conforms
    };
    RunVerdict {
        level,
        known_failures,
        in_scope: matches!(level, Level::Conforms | Level::ConformsWithKnownFailures)
            || (level == Level::Partial && scope_only),
        scope: scope_line(file),
        partial,
    }
}

/// The scope line: the whole corpus when no case is out of the declared scope; else the suites
/// in scope, each with the revisions its cases ran under, and the count out of scope.
fn scope_line(file: &ResultsFile) -> String {
    let out = file
        .results
        .iter()
        .filter(|r| r.status == Status::OutOfScope)
        .count();
    if out == 0 {
        return "every case of the corpus (no narrower scope declared)".into();
    }
    let mut suites: Vec<(&str, Vec<&str>)> = Vec::new();
    for r in file
        .results
        .iter()
        .filter(|r| r.status != Status::OutOfScope)
    {
        let revision = r.revision.as_deref().unwrap_or("?");
        match suites.iter_mut().find(|(s, _)| *s == r.suite.as_str()) {
            Some((_, revs)) if revs.contains(&revision) => {}
            Some((_, revs)) => revs.push(revision),
            None => suites.push((r.suite.as_str(), vec![revision])),
        }
    }
    let listed: Vec<String> = suites
        .into_iter()
        .map(|(suite, mut revs)| {
            revs.sort_unstable();
            let word = if revs.len() == 1 {
                "revision"
            } else {
                "revisions"
            };
            format!("{suite} ({word} {})", revs.join(", "))
        })
        .collect();
    let within = if listed.is_empty() {
        "nothing".to_string()
    } else {
        listed.join(", ")
    };
    format!(
        "as the adapter declares it, {within}; {out} of the {} cases out of scope",
        file.results.len()
    )
}

/// Why a file does not speak for the whole corpus under strict grading, and whether every
/// reason is a case out of the declared scope (the `in-scope` level).
fn partial_reasons(file: &ResultsFile) -> (Vec<String>, bool) {
    let h = &file.header;
    let mut out = Vec::new();
    let mut scope_only = true;
    match &h.selection {
        None => out.push("the results file does not record which cases were selected".into()),
        Some(s) => {
            let mut filters = Vec::new();
            if !s.include.is_empty() {
                filters.push(format!("--include {}", s.include.join(", ")));
            }
            if !s.exclude.is_empty() {
                filters.push(format!("--exclude {}", s.exclude.join(", ")));
            }
            if !filters.is_empty() {
                out.push(format!("a subset was selected ({})", filters.join("; ")));
            }
            if file.results.len() < s.corpus_case_count {
                out.push(format!(
                    "{} of the corpus's {} cases have a result",
                    file.results.len(),
                    s.corpus_case_count
                ));
            }
        }
    }
    if let Some(n) = h.case_count.filter(|n| *n != file.results.len()) {
        out.push(format!(
            "the header announces {n} cases, the file holds {} result lines",
            file.results.len()
        ));
    }
    if file.footer.is_none() {
        out.push("the run was cut short (no footer)".into());
    }
    if file.footer.as_ref().is_some_and(|f| f.interrupted) {
        out.push(
            "the run was interrupted: only the cases that finished before it have a result".into(),
        );
    }
    if h.grading == Grading::Loose {
        out.push("loose grading: rejections were not checked for their rules".into());
    }
    scope_only &= out.is_empty();
    for (status, what) in [
        (Status::Skip, "skipped by the adapter"),
        (Status::Unsupported, "unsupported"),
        (Status::OutOfScope, "out of the declared scope"),
    ] {
        let mut by_suite: BTreeMap<&str, usize> = BTreeMap::new();
        for r in file.results.iter().filter(|r| r.status == status) {
            *by_suite.entry(r.suite.as_str()).or_default() += 1;
        }
        if !by_suite.is_empty() {
            let n: usize = by_suite.values().sum();
            let suites: Vec<String> = by_suite.iter().map(|(s, n)| format!("{s} {n}")).collect();
            out.push(format!("{n} {what} ({})", suites.join(", ")));
            scope_only &= status == Status::OutOfScope;
        }
    }
    (out, scope_only)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Level; 5] = [
        Level::Conforms,
        Level::ConformsWithKnownFailures,
        Level::Partial,
        Level::Fail,
        Level::NothingTested,
    ];

    fn of(level: Level) -> RunVerdict {
        RunVerdict {
            level,
            known_failures: usize::from(level == Level::ConformsWithKnownFailures),
            partial: Vec::new(),
            scope: String::new(),
            in_scope: false,
        }
    }

    #[test]
    fn at_least_follows_the_order_best_first() {
        for (i, have) in ALL.iter().enumerate() {
            for (j, want) in ALL.iter().enumerate() {
                assert_eq!(
                    of(*have).at_least(*want),
                    i <= j,
                    "{have:?} at least {want:?}"
                );
            }
        }
        assert!(of(Level::Conforms).at_least(Level::Conforms));
        assert!(!of(Level::ConformsWithKnownFailures).at_least(Level::Conforms));
        assert!(!of(Level::Partial).at_least(Level::ConformsWithKnownFailures));
        assert!(!of(Level::NothingTested).at_least(Level::Fail));
    }

    #[test]
    fn headlines_name_their_levels() {
        for level in ALL {
            let v = of(level);
            assert_eq!(
                Level::from_headline(&v.headline()),
                Some((level, v.known_failures))
            );
        }
        assert_eq!(Level::from_headline("conforms"), None);
    }

    #[test]
    fn at_least_partial_is_the_exit_code_of_every_report() {
        for level in ALL {
            assert_eq!(
                of(level).at_least(Level::Partial),
                of(level).exit_ok(),
                "{level:?}"
            );
        }
    }
}
