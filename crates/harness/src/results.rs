//! The results file: JSON lines — one header, one line per vector, one footer. Everything else
//! (terminal summary, per-rule table, JUnit, Markdown, HTML, badge) is derived from it, so a
//! conformance claim can be re-checked from the file alone. Timestamps and durations are the only
//! fields that differ between two runs of the same implementation on the same corpus.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use agentconf_contract::case::Case;
use agentconf_contract::vector::{Expectation, Suite};
use agentconf_rules::Rule;
use serde::{Deserialize, Serialize};

use crate::grade::Grading;
use crate::runner::VectorResult;
use crate::status::{Status, STATUSES};

/// The results-file format version.
pub const FORMAT: &str = "agentconf-results/1";

/// The largest results file `agentconf report` reads: one line per vector, a few hundred bytes
/// each, so 1 GiB is millions of vectors.
pub const MAX_RESULTS_BYTES: u64 = 1 << 30;

pub use crate::identity::{FileDigest, ImplementationInfo};

/// The first line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format: String,
    pub suite_version: String,
    pub corpus_digest: String,
    /// Vectors selected for the run.
    pub vector_count: usize,
    /// Cases selected (a vector has one case per revision group it is graded under): the number
    /// of result lines a complete run writes. Absent in files written before cases existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_count: Option<usize>,
    pub implementation: ImplementationInfo,
    /// SHA-256 of the adapter file, when one was used.
    pub adapter_digest: Option<String>,
    pub grading: Grading,
    /// Capability profiles the implementation claimed.
    pub profiles: Vec<String>,
    /// Which cases were selected. Absent in files written before agentconf 0.2: the selection
    /// is unknown, and no verdict drawn from such a file says the whole corpus ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Selection>,
    /// SHA-256 over the selected case ids, each with a newline, in run order (see
    /// [`case_ids_sha256`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_ids_sha256: Option<String>,
    /// RFC 3339, UTC.
    pub started_at: String,
}

/// The cases a run was restricted to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    /// Case-id prefixes a case had to start with (`--include`); empty: every case.
    pub include: Vec<String>,
    /// Case-id prefixes left out (`--exclude`).
    pub exclude: Vec<String>,
    /// The cases of the whole corpus the run was drawn from.
    pub corpus_case_count: usize,
}

impl Selection {
    /// Whether the case `id` is selected: it starts with an `include` prefix (or there is none)
    /// and with no `exclude` prefix. A vector id is a prefix of all its cases' ids. The one
    /// definition `run` selects by and a results file is checked against.
    pub fn selects(&self, id: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| id.starts_with(p.as_str())))
            && !self.exclude.iter().any(|p| id.starts_with(p.as_str()))
    }
}

/// One case's line: the vector's metadata (so reports need no corpus), the expectation under the
/// revision it ran, and its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultLine {
    /// The case id: the vector id, or `<id>@<revision>` for a vector's further revisions.
    pub id: String,
    /// The draft revision the case ran under. Absent in files written before cases existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    pub suite: Suite,
    pub family: String,
    pub rules: Vec<String>,
    pub level: String,
    pub expectation: Expectation,
    pub expected_rules: Vec<String>,
    /// The vector this one was derived from (`derivation.source`), for paired credit: a rejection
    /// counts for its rules only when that vector was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derived_from: Option<String>,
    pub status: Status,
    pub detail: String,
    /// Captured standard error (an excerpt), never interpreted.
    pub stderr: String,
    pub duration_ms: u64,
    /// For an expected failure (`xfail`): the status it failed with, so that a false accept
    /// listed as expected is still shown as one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_as: Option<Status>,
    /// For an expected failure (`xfail`): the reason the adapter's list gives, which every
    /// report shows beside it. Absent otherwise, and in files written before it was recorded
    /// (the detail then starts with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xfail_reason: Option<String>,
    /// For an emitter's `wrong-output` (or an expected failure that failed so): the rules of the
    /// faults found in what it wrote, each once, whether the vector lists them or not. The
    /// per-rule table charges the case to these alone ([`crate::report::per_rule`]). Absent
    /// otherwise, and in files written before it existed (such a line is charged to every rule
    /// of its vector, as it was then).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub broken_rules: Vec<String>,
}

impl ResultLine {
    pub fn new(c: &Case<'_>, r: VectorResult) -> ResultLine {
        ResultLine {
            status: r.status,
            detail: r.detail,
            stderr: r.stderr,
            duration_ms: r.duration_ms,
            failed_as: r.failed_as,
            xfail_reason: r.xfail_reason,
            broken_rules: r.broken_rules.iter().map(|r| r.id().to_string()).collect(),
            ..ResultLine::describing(c)
        }
    }

    /// The line `c` gets before it runs: everything the corpus says of the case (id, revision,
    /// suite, family, rules, level, expectation, expected rules, derivation), and an outcome not
    /// yet known (`skip`, no detail). What a results file is checked against
    /// ([`crate::corpus_check`]).
    pub fn describing(c: &Case<'_>) -> ResultLine {
        let v = c.vector;
        ResultLine {
            id: c.id.clone(),
            revision: Some(c.revision.to_string()),
            suite: v.suite,
            family: v.family.clone(),
            rules: rules_of_case(c),
            level: v.level.as_str().to_string(),
            expectation: c.expectation,
            expected_rules: c
                .expected_rules
                .iter()
                .map(|r| r.id().to_string())
                .collect(),
            derived_from: v.derivation.as_ref().map(|d| d.source.clone()),
            status: Status::Skip,
            detail: String::new(),
            stderr: String::new(),
            duration_ms: 0,
            failed_as: None,
            xfail_reason: None,
            broken_rules: Vec::new(),
        }
    }
}

/// The vector's rules that exist under the revisions the case grades: a per-rule table must not
/// count a revision-06 case under a rule revision 06 does not have. AER1-TL-VERSIONING, the
/// current construction's duty towards 06 chains, stays with the 06 cases that show it.
fn rules_of_case(c: &Case<'_>) -> Vec<String> {
    c.vector
        .rules
        .iter()
        .filter(|rule| match rule {
            Rule::Aer1TlVersioning => true,
            rule => rule
                .record()
                .revisions
                .iter()
                .any(|r| c.revisions.contains(r)),
        })
        .map(|r| r.id().to_string())
        .collect()
}

/// The last line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footer {
    /// Vectors per status (every status listed, zeros included).
    pub totals: BTreeMap<String, usize>,
    /// Statuses that make the run fail: false accepts and rejects, wrong reasons, crashes,
    /// timeouts, protocol errors, and expected failures that passed.
    pub unexpected: usize,
    pub finished_at: String,
    pub duration_ms: u64,
    /// SHA-256 over the result lines, each as written (`{"type":"result",…}` and a newline), in
    /// order: an edited, removed, added or reordered line no longer matches. Absent in files
    /// written before agentconf 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results_sha256: Option<String>,
    /// SHA-256 over the header line as written (see [`header_sha256`]): a header edited after
    /// the run (its grading, profiles, selection or implementation) no longer matches. Absent in
    /// files written before agentconf 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_sha256: Option<String>,
    /// The run was interrupted (SIGINT or SIGTERM): the lines are the cases that finished
    /// before it, and the file can never support a conformance claim.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Persistent mode only: how many times the implementation's process was started again
    /// (after a crash, a hang or a protocol error, or because it exited between requests).
    /// Absent for one-shot runs, and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarts: Option<usize>,
}

/// One line of the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Line {
    Header(Header),
    Result(ResultLine),
    Footer(Footer),
}

/// The footer for `results`.
pub fn footer(results: &[ResultLine], duration_ms: u64) -> Footer {
    let mut totals: BTreeMap<String, usize> =
        STATUSES.iter().map(|s| (s.name().to_string(), 0)).collect();
    for r in results {
        *totals.entry(r.status.name().to_string()).or_default() += 1;
    }
    Footer {
        unexpected: results.iter().filter(|r| r.status.is_unexpected()).count(),
        totals,
        finished_at: now_rfc3339(),
        duration_ms,
        results_sha256: Some(results_sha256(results)),
        // Set by the writer once the header is final (`header_sha256`).
        header_sha256: None,
        interrupted: false,
        // Set by the writer of a persistent run.
        restarts: None,
    }
}

/// The footer's digest of the header: SHA-256 over the header line's JSON text and a newline.
pub fn header_sha256(header: &Header) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    // A struct of strings, numbers and enums: serialisation cannot fail.
    hasher.update(serde_json::to_string(&Line::Header(header.clone())).unwrap_or_default());
    hasher.update(b"\n");
    hex(&hasher.finalize())
}

/// The footer's digest of `results`: SHA-256 over each line's JSON text and a newline.
pub fn results_sha256(results: &[ResultLine]) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    for r in results {
        // A struct of strings, numbers and enums: serialisation cannot fail.
        hasher.update(serde_json::to_string(&Line::Result(r.clone())).unwrap_or_default());
        hasher.update(b"\n");
    }
    hex(&hasher.finalize())
}

/// The header's digest of the cases selected: SHA-256 over each case id and a newline, in run
/// order.
pub fn case_ids_sha256<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    for id in ids {
        hasher.update(id.as_bytes());
        hasher.update(b"\n");
    }
    hex(&hasher.finalize())
}

/// Lowercase hex of `bytes`: every digest the harness writes (results, identities, preimages).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks that a results file is the one a run wrote: the footer is there, its totals and its
/// digest match the result lines, and the lines are the cases the header selected. `Err` says,
/// in one line, what does not hold; a report must not be drawn from such a file.
///
/// The digests are plain SHA-256, not signatures: they catch a cut, damaged or carelessly edited
/// file. Someone who recomputes them can still forge lines; [`crate::corpus_check`] then holds
/// every line's metadata to the corpus, and only re-running (`agentconf claim verify`) checks
/// the statuses.
pub fn check(file: &ResultsFile) -> Result<(), String> {
    let Some(f) = &file.footer else {
        return Err(format!(
            "the file has no footer: it was cut after {} result lines (or the run never finished)",
            file.results.len()
        ));
    };
    let expected = footer(&file.results, f.duration_ms);
    if expected.totals != f.totals || expected.unexpected != f.unexpected {
        return Err(
            "the footer's totals disagree with the result lines: the file was edited".into(),
        );
    }
    // Both digests are required: a file without them cannot show that it is whole, and
    // removing one must not be a way around the check.
    let Some(digest) = &f.results_sha256 else {
        return Err(
            "the footer carries no digest of the result lines, so the file cannot show \
                    it is whole (it was written before agentconf 0.2, or the digest was removed)"
                .into(),
        );
    };
    if expected.results_sha256.as_ref() != Some(digest) {
        return Err(
            "the result lines do not match the footer's digest: lines were edited, removed, \
             added or reordered"
                .into(),
        );
    }
    if f.header_sha256.as_deref() != Some(header_sha256(&file.header).as_str()) {
        return Err(if f.header_sha256.is_none() {
            "the footer carries no digest of the header, so the file cannot show its header is \
             the run's (it was written before agentconf 0.2, or the digest was removed)"
                .into()
        } else {
            "the header does not match the footer's digest: the header was edited".into()
        });
    }
    let (Some(digest), Some(count)) = (&file.header.case_ids_sha256, file.header.case_count) else {
        return Err(
            "the header does not record the cases it selected (their count and the \
                    digest of their ids), so the file cannot show it is whole"
                .into(),
        );
    };
    // A run stopped early (--fail-fast, --max-fail) has fewer lines than it selected; the
    // corpus check (`corpus_check`) then holds each line to the selection.
    if count == file.results.len()
        && case_ids_sha256(file.results.iter().map(|r| r.id.as_str())) != *digest
    {
        return Err(
            "the result lines are not the cases the header selected (ids or order differ)".into(),
        );
    }
    Ok(())
}

/// A whole results file, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultsFile {
    pub header: Header,
    pub results: Vec<ResultLine>,
    pub footer: Option<Footer>,
}

/// Reads a results file. Errors name the line.
pub fn parse(text: &str) -> Result<ResultsFile, String> {
    let mut header = None;
    let mut results = Vec::new();
    let mut footer = None;
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let parsed: Line =
            serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        match parsed {
            Line::Header(h) if header.is_none() && n == 0 => header = Some(h),
            Line::Header(_) => return Err(format!("line {}: a second or misplaced header", n + 1)),
            Line::Result(r) if header.is_some() && footer.is_none() => results.push(r),
            Line::Result(_) => {
                return Err(format!(
                    "line {}: a result outside header and footer",
                    n + 1
                ))
            }
            Line::Footer(f) if footer.is_none() => footer = Some(f),
            Line::Footer(_) => return Err(format!("line {}: a second footer", n + 1)),
        }
    }
    Ok(ResultsFile {
        header: header.ok_or("the file has no header line")?,
        results,
        footer,
    })
}

/// Writes `file` to `path` through a temporary file and a rename, so a reader never sees half a
/// results file.
pub fn write_file(path: &std::path::Path, file: &ResultsFile) -> Result<(), String> {
    let mut text = String::new();
    let mut push = |line: &Line| -> Result<(), String> {
        text.push_str(&serde_json::to_string(line).map_err(|e| e.to_string())?);
        text.push('\n');
        Ok(())
    };
    push(&Line::Header(file.header.clone()))?;
    for r in &file.results {
        push(&Line::Result(r.clone()))?;
    }
    if let Some(f) = &file.footer {
        push(&Line::Footer(f.clone()))?;
    }
    write_atomically(path, text.as_bytes())
}

/// Writes through a temporary file and a rename, so a reader never sees half a report. The
/// temporary file is created next to the target under a fresh name that must not exist yet
/// (`O_EXCL`), so nothing already there — a symbolic link planted by the implementation under
/// test, say — is followed or overwritten; a target that exists and is not a regular file is
/// refused.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write as _;
    check_target(path)?;
    let (mut file, tmp) = create_temp(path)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()));
    drop(file);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// Checks, before anything runs, that `path` can be written as [`write_atomically`] will: the
/// target is absent or a regular file, and its directory takes a new file. A run that could not
/// write its results costs nothing this way.
pub fn check_writable(path: &std::path::Path) -> Result<(), String> {
    check_target(path)?;
    let (file, tmp) = create_temp(path)?;
    drop(file);
    let _ = std::fs::remove_file(&tmp);
    Ok(())
}

/// The target must be absent or a regular file: not a symbolic link, directory or device.
fn check_target(path: &std::path::Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "cannot write {}: it is a symbolic link (refused: write to the file itself)",
            path.display()
        )),
        Ok(m) if !m.is_file() => Err(format!(
            "cannot write {}: it exists and is not a regular file",
            path.display()
        )),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot write {}: {e}", path.display())),
    }
}

/// A new file next to `path`, under a name no one else has (created with `O_EXCL`).
fn create_temp(path: &std::path::Path) -> Result<(std::fs::File, std::path::PathBuf), String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "results".into());
    let mut last = None;
    for _ in 0..16 {
        let nonce = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let tmp = path.with_file_name(format!(
            ".{name}.{}.{nonce:x}.{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(format!("cannot write {}: {e}", path.display())),
        }
    }
    Err(format!(
        "cannot write {}: no fresh temporary name ({})",
        path.display(),
        last.map(|e| e.to_string()).unwrap_or_default()
    ))
}

/// The current time as RFC 3339 UTC with seconds.
pub fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_refuse_links_and_non_files_and_leave_no_temporary() {
        let dir = std::env::temp_dir().join(format!("agentconf-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("results.jsonl");
        check_writable(&target).unwrap();
        write_atomically(&target, b"one\n").unwrap();
        write_atomically(&target, b"two\n").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two\n");
        // A link planted where the results go is refused, and what it points to is untouched.
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let link = dir.join("link.jsonl");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(check_writable(&link).unwrap_err().contains("symbolic link"));
        assert!(write_atomically(&link, b"x").is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert!(check_writable(&dir)
            .unwrap_err()
            .contains("not a regular file"));
        assert!(check_writable(&dir.join("missing/results.jsonl")).is_err());
        // Only the files written remain.
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["link.jsonl", "results.jsonl", "victim"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(20_422), (2025, 11, 30));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert!(now_rfc3339().ends_with('Z'));
    }
}
