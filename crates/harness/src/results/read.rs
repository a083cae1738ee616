//! Reading a results file: JSON lines, each a header, a result or a footer, in that order.
//!
//! The seal covers the bytes. Each line must be exactly the bytes `agentconf run` writes for what
//! it says ([`canonical`]): a member the format does not know, a duplicate, other spacing, member
//! order or escapes, a carriage return, a blank line or text after the footer are refused, so
//! nothing in the file escapes its digests. The footer's digests are compared here with SHA-256
//! taken over the lines' exact bytes as they were read (header line and newline; every result
//! line and its newline), never over a re-serialization of what was parsed.
//!
//! The file is untrusted (anyone can write one and hand it to `report` or `claim verify`), so it
//! is read as a stream, one bounded line at a time, and memory stays bounded by what a real run
//! writes, not by the file: a line may be at most [`MAX_LINE_BYTES`] long, a result line may name
//! no more rules than the catalogue has, and a file may hold no more result lines than its header
//! announces, nor more than the reader allows (the corpus's case count, when one is known).

use std::fmt;
use std::io::{self, BufRead};

use agentconf_json::hex::lower as lower_hex;

use super::{Line, ResultLine, ResultsFile};

/// The longest line a results file may have. What `agentconf run` writes is far shorter: a
/// result line carries the case's metadata, a detail of a few hundred bytes and at most 2,000
/// bytes of standard error (escaped, at most six times that).
pub const MAX_LINE_BYTES: usize = 32 << 10;

/// The most result lines a file is read with when no corpus bounds it (`report diff`, which
/// compares files of any corpus): several times today's corpus.
pub const MAX_CASES_WITHOUT_CORPUS: usize = 4096;

/// Why a text is not a results file, with the line (1-based) where that shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The line, when the problem is on one.
    pub line: Option<usize>,
    pub(crate) problem: ReadProblem,
}

/// What is wrong with the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReadProblem {
    /// The first line is not a results header: the text is something else (a vector, a report,
    /// a manifest, an empty file).
    NotAResultsFile,
    /// Not one of the file's lines (serde's words).
    NotALine(String),
    SecondHeader,
    ResultOutsideHeaderAndFooter,
    SecondFooter,
    NoHeader,
    /// A line longer than [`MAX_LINE_BYTES`].
    LineTooLong,
    /// A line that is not UTF-8.
    NotUtf8,
    /// A result line naming more rules than the catalogue has.
    TooManyRules(usize),
    /// More result lines than the header announces, or than the reader allows.
    TooManyLines {
        allowed: usize,
    },
    /// The file could not be read.
    Io(String),
    /// A member the results format does not know (its path in the line, `implementation.x`).
    UnknownMember(String),
    /// A line that says what agentconf writes, but in other bytes (spacing, member order,
    /// escapes, a carriage return): the seal covers the bytes, so it is refused.
    NotAsWritten,
    /// An empty line, which agentconf never writes.
    BlankLine,
    /// Text after the footer line, or a footer line without its newline.
    AfterFooter,
    /// A digest of the footer that does not match the bytes of the lines it seals.
    Seal(super::Incomplete),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let (Some(n), false) = (self.line, self.problem == ReadProblem::NotAResultsFile) {
            write!(f, "line {n}: ")?;
        }
        match &self.problem {
            ReadProblem::NotAResultsFile => f.write_str(
                "not a results file: its first line is not the header line that `agentconf run` \
                 writes (give the file `agentconf run --out` wrote)",
            ),
            ReadProblem::NotALine(e) => write!(f, "{e}"),
            ReadProblem::SecondHeader => f.write_str("a second or misplaced header"),
            ReadProblem::ResultOutsideHeaderAndFooter => {
                f.write_str("a result outside header and footer")
            }
            ReadProblem::SecondFooter => f.write_str("a second footer"),
            ReadProblem::NoHeader => f.write_str("the file has no header line"),
            ReadProblem::LineTooLong => write!(
                f,
                "longer than {MAX_LINE_BYTES} bytes, which no line agentconf run writes is"
            ),
            ReadProblem::NotUtf8 => f.write_str("not UTF-8"),
            ReadProblem::TooManyRules(n) => {
                write!(f, "a result naming {n} rules, more than the catalogue has")
            }
            ReadProblem::TooManyLines { allowed } => write!(
                f,
                "more than {allowed} result lines (what the header announces, or the corpus \
                 has)"
            ),
            ReadProblem::Io(e) => write!(f, "cannot read: {e}"),
            ReadProblem::UnknownMember(path) => write!(
                f,
                "a member the results format does not know (`{}`): refused, since no report \
                 may show or hide what the seal does not cover",
                agentconf_json::text::clip(path, 80)
            ),
            ReadProblem::NotAsWritten => f.write_str(
                "not the bytes agentconf writes for this line (other spacing, member order, \
                 escapes or line ending): the seal covers the exact bytes, so an edited or \
                 converted file is refused (a file whose line endings were converted, by git \
                 say, must be checked out byte for byte)",
            ),
            ReadProblem::BlankLine => f.write_str("an empty line, which agentconf never writes"),
            ReadProblem::AfterFooter => f.write_str(
                "text after the footer, or a footer without its newline: the file ends with \
                 the footer line and its newline",
            ),
            ReadProblem::Seal(e) => write!(f, "refused: {e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// Whether `line` is a results header line: `{"type":"header",…}`, however damaged the rest.
fn is_header_line(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .is_ok_and(|v| v.get("type").and_then(|t| t.as_str()) == Some("header"))
}

/// Reads a results file held in memory (tests, fuzzing): [`read`] over its bytes, with the
/// bound for a file of no known corpus.
pub fn parse(text: &str) -> Result<ResultsFile, ReadError> {
    read(text.as_bytes(), MAX_CASES_WITHOUT_CORPUS)
}

/// Reads a results file from `reader`, one bounded line at a time, with at most `max_cases`
/// result lines (the corpus's case count, when the caller knows the corpus). Errors name the
/// line; a text whose first line is no results header is called what it is, not a results file.
pub fn read(mut reader: impl BufRead, max_cases: usize) -> Result<ResultsFile, ReadError> {
    use sha2::Digest as _;
    let mut header = None;
    let mut results: Vec<ResultLine> = Vec::new();
    let mut footer: Option<super::Footer> = None;
    let mut buf = Vec::new();
    let mut n = 0;
    let rule_limit = agentconf_rules::Rule::ALL.len();
    // SHA-256 over the exact bytes read: the header line, and every result line, each with its
    // newline (what the footer's `header_sha256` and `results_sha256` seal).
    let mut header_bytes = sha2::Sha256::new();
    let mut results_bytes = sha2::Sha256::new();
    loop {
        n += 1;
        let at = |problem| ReadError {
            line: Some(n),
            problem,
        };
        let Some(ended) = read_line(&mut reader, &mut buf).map_err(at)? else {
            break;
        };
        // Nothing follows the footer line, whose newline ends the file.
        if footer.is_some() {
            return Err(at(ReadProblem::AfterFooter));
        }
        let line = std::str::from_utf8(&buf).map_err(|_| at(ReadProblem::NotUtf8))?;
        if n == 1 && !is_header_line(line) {
            return Err(at(ReadProblem::NotAResultsFile));
        }
        if line.trim().is_empty() {
            return Err(at(ReadProblem::BlankLine));
        }
        let parsed: Line =
            serde_json::from_str(line).map_err(|e| at(ReadProblem::NotALine(e.to_string())))?;
        canonical(line, &parsed).map_err(at)?;
        match parsed {
            Line::Header(h) if header.is_none() && n == 1 => {
                header_bytes.update(line.as_bytes());
                header_bytes.update(b"\n");
                header = Some(h)
            }
            Line::Header(_) => return Err(at(ReadProblem::SecondHeader)),
            Line::Result(r) if header.is_some() && footer.is_none() => {
                let rules = r.rules.len().max(r.expected_rules.len());
                if rules > rule_limit {
                    return Err(at(ReadProblem::TooManyRules(rules)));
                }
                let announced = header
                    .as_ref()
                    .and_then(|h: &super::Header| h.case_count)
                    .unwrap_or(max_cases);
                let allowed = announced.min(max_cases);
                if results.len() >= allowed {
                    return Err(at(ReadProblem::TooManyLines { allowed }));
                }
                results_bytes.update(line.as_bytes());
                results_bytes.update(b"\n");
                results.push(r);
            }
            Line::Result(_) => return Err(at(ReadProblem::ResultOutsideHeaderAndFooter)),
            Line::Footer(f) if footer.is_none() => {
                if !ended {
                    return Err(at(ReadProblem::AfterFooter));
                }
                seal_of_bytes(
                    &f,
                    &lower_hex(&header_bytes.clone().finalize()),
                    &lower_hex(&results_bytes.clone().finalize()),
                )
                .map_err(|e| at(ReadProblem::Seal(e)))?;
                footer = Some(f)
            }
            Line::Footer(_) => return Err(at(ReadProblem::SecondFooter)),
        }
    }
    if n == 1 {
        // An empty file: nothing at all, so not a results file.
        return Err(ReadError {
            line: Some(1),
            problem: ReadProblem::NotAResultsFile,
        });
    }
    Ok(ResultsFile {
        header: header.ok_or(ReadError {
            line: None,
            problem: ReadProblem::NoHeader,
        })?,
        results,
        footer,
    })
}

/// The footer's digests against those of the bytes read. A digest the footer lacks is left to
/// [`super::check`], which refuses its absence.
fn seal_of_bytes(
    footer: &super::Footer,
    header_sha256: &str,
    results_sha256: &str,
) -> Result<(), super::Incomplete> {
    use super::Incomplete;
    if footer
        .results_sha256
        .as_deref()
        .is_some_and(|d| d != results_sha256)
    {
        return Err(Incomplete::ResultsDigestMismatch);
    }
    if footer
        .header_sha256
        .as_deref()
        .is_some_and(|d| d != header_sha256)
    {
        return Err(Incomplete::HeaderDigestMismatch);
    }
    Ok(())
}

/// Whether `line` is exactly what agentconf writes for `parsed`: the JSON text of the line and
/// nothing else. A member the format does not know is named; any other difference (spacing,
/// member order, escapes, a carriage return) is [`ReadProblem::NotAsWritten`].
fn canonical(line: &str, parsed: &Line) -> Result<(), ReadProblem> {
    // Strings, numbers, options and sequences: serialisation cannot fail.
    let written = serde_json::to_string(parsed).unwrap_or_default();
    if written == line {
        return Ok(());
    }
    let (Ok(read), Ok(known)) = (
        serde_json::from_str::<serde_json::Value>(line),
        serde_json::from_str::<serde_json::Value>(&written),
    ) else {
        return Err(ReadProblem::NotAsWritten);
    };
    match unknown_member(&read, &known, "") {
        Some(path) => Err(ReadProblem::UnknownMember(path)),
        None => Err(ReadProblem::NotAsWritten),
    }
}

/// The path of the first member of `read` that `known` (the same line as agentconf writes it)
/// does not have.
fn unknown_member(read: &serde_json::Value, known: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    let join = |name: &str| {
        if at.is_empty() {
            name.to_string()
        } else {
            format!("{at}.{name}")
        }
    };
    match (read, known) {
        (Value::Object(r), Value::Object(k)) => r.iter().find_map(|(name, v)| match k.get(name) {
            None => Some(join(name)),
            Some(kv) => unknown_member(v, kv, &join(name)),
        }),
        (Value::Array(r), Value::Array(k)) => r
            .iter()
            .zip(k)
            .enumerate()
            .find_map(|(i, (rv, kv))| unknown_member(rv, kv, &format!("{at}[{i}]"))),
        _ => None,
    }
}

/// Reads one line (without its newline) into `buf`, at most [`MAX_LINE_BYTES`] of it: `None` at
/// the end of the input, else whether a newline ended it. A carriage return is kept: agentconf
/// never writes one, so a converted line ending is a byte change like any other.
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> Result<Option<bool>, ReadProblem> {
    buf.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadProblem::Io(e.to_string())),
        };
        if available.is_empty() {
            return Ok((!buf.is_empty()).then_some(false));
        }
        let (take, done) = match memchr_newline(available) {
            Some(i) => (i, true),
            None => (available.len(), false),
        };
        if buf.len() + take > MAX_LINE_BYTES {
            return Err(ReadProblem::LineTooLong);
        }
        buf.extend_from_slice(&available[..take]);
        reader.consume(if done { take + 1 } else { take });
        if done {
            return Ok(Some(true));
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Line;

    #[test]
    fn a_text_that_is_not_a_results_file_is_called_so() {
        for text in [
            "[package]\nname = \"x\"\n",
            "{\"format\":\"agentconf-manifest/1\"}\n",
            "{\"type\":\"result\",\"id\":\"a\"}\n",
            "",
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.problem, ReadProblem::NotAResultsFile, "{text:?}");
            assert!(e.to_string().starts_with("not a results file: "), "{e}");
        }
        // A results file damaged further down keeps the parser's error, which names the line.
        let e = parse("{\"type\":\"header\"}\n{\"type\":\"result\"\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(matches!(e.problem, ReadProblem::NotALine(_)), "{e}");
    }

    /// Memory follows what a run writes, not the file: an endless line (`/dev/zero`) stops at
    /// the line bound, never read whole.
    #[test]
    fn an_endless_line_stops_at_the_bound() {
        let zeros = std::io::BufReader::new(std::io::repeat(0).take(1 << 30));
        use std::io::Read as _;
        let e = read(zeros, 10).unwrap_err();
        assert_eq!(e.problem, ReadProblem::LineTooLong);
    }

    /// A sealed file as `write_file` writes it: the fixture of the report snapshots, sealed.
    fn sealed_text() -> String {
        let mut file = crate::report::snapshot_tests::file(true);
        file.seal(12_345);
        let dir = std::env::temp_dir().join(format!("agentconf-seal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.jsonl");
        super::super::write_file(&path, &file).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        text
    }

    /// What `write_file` writes reads back whole, and is the same file.
    #[test]
    fn a_written_file_round_trips() {
        let text = sealed_text();
        let file = parse(&text).unwrap();
        super::super::check(&file).unwrap();
        let mut again = String::new();
        for line in std::iter::once(Line::Header(file.header.clone()))
            .chain(file.results.iter().cloned().map(Line::Result))
            .chain(file.footer.clone().map(Line::Footer))
        {
            again.push_str(&serde_json::to_string(&line).unwrap());
            again.push('\n');
        }
        assert_eq!(again, text);
    }

    /// The forgery: a member the format does not know added to a line, with no
    /// re-sealing at all (before, the digests were taken over the parsed structure, so it passed).
    #[test]
    fn a_member_the_format_does_not_know_is_refused() {
        let text = sealed_text();
        let lines: Vec<&str> = text.lines().collect();
        for (n, path) in [
            (1, "verdict_note"),
            (2, "verdict_note"),
            (lines.len(), "verdict_note"),
        ] {
            let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            let l = &mut edited[n - 1];
            l.insert_str(l.len() - 1, ",\"verdict_note\":\"CERTIFIED\"");
            let e = parse(&(edited.join("\n") + "\n")).unwrap_err();
            assert_eq!(e.line, Some(n));
            assert_eq!(e.problem, ReadProblem::UnknownMember(path.into()), "{e}");
        }
        // Inside a nested object too, named by its path.
        let nested = text.replacen(
            "\"implementation\":{",
            "\"implementation\":{\"certified\":true,",
            1,
        );
        let e = parse(&nested).unwrap_err();
        assert_eq!(
            e.problem,
            ReadProblem::UnknownMember("implementation.certified".into())
        );
    }

    /// A rule id this build does not know (a file from another version) is read and kept as
    /// written; a level that is neither MUST nor SHOULD is no results line, refused with serde's
    /// words on its line.
    #[test]
    fn unknown_rule_ids_are_kept_and_unknown_levels_refused() {
        let text = sealed_text();
        let file = parse(&text).unwrap();
        let unknown: Vec<&str> = file
            .results
            .iter()
            .flat_map(|r| &r.rules)
            .filter(|r| r.known().is_none())
            .map(|r| r.id())
            .collect();
        assert_eq!(unknown, ["X-NOT-A-RULE<b>"]);
        let may = text.replacen("\"level\":\"MUST\"", "\"level\":\"MAY\"", 1);
        assert_ne!(may, text, "the fixture has a MUST line");
        let e = parse(&may).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(
            matches!(&e.problem, ReadProblem::NotALine(why) if why.contains("MAY")),
            "{e}"
        );
    }

    /// Any byte change is refused: a value edited (the digests no longer match the bytes),
    /// spacing, a converted line ending, a blank line, text after the footer, a footer without
    /// its newline.
    #[test]
    fn any_byte_change_is_refused() {
        let text = sealed_text();
        let edited = text.replacen("\"status\":\"false-accept\"", "\"status\":\"pass\"", 1);
        assert_ne!(edited, text, "the fixture has a false accept");
        let e = parse(&edited).unwrap_err();
        assert!(
            matches!(
                e.problem,
                ReadProblem::Seal(crate::results::Incomplete::ResultsDigestMismatch)
            ),
            "{e}"
        );
        let header_edit = text.replacen("\"grading\":\"strict\"", "\"grading\":\"loose\"", 1);
        assert!(matches!(
            parse(&header_edit).unwrap_err().problem,
            ReadProblem::Seal(crate::results::Incomplete::HeaderDigestMismatch)
        ));
        let spaced = text.replacen("\"suite\":", "\"suite\": ", 1);
        assert_eq!(
            parse(&spaced).unwrap_err().problem,
            ReadProblem::NotAsWritten
        );
        let crlf = text.replace('\n', "\r\n");
        assert_eq!(parse(&crlf).unwrap_err().problem, ReadProblem::NotAsWritten);
        let blank = text.replacen('\n', "\n\n", 1);
        assert_eq!(parse(&blank).unwrap_err().problem, ReadProblem::BlankLine);
        let after = format!("{text}\n");
        assert_eq!(parse(&after).unwrap_err().problem, ReadProblem::AfterFooter);
        let unended = text.trim_end_matches('\n');
        assert_eq!(
            parse(unended).unwrap_err().problem,
            ReadProblem::AfterFooter
        );
        // The untouched text still reads.
        parse(&text).unwrap();
    }
}
