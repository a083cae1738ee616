//! Reading a results file: JSON lines, each a header, a result or a footer, in that order.
//!
//! The file is untrusted (anyone can write one and hand it to `report` or `claim verify`), so it
//! is read as a stream, one bounded line at a time, and memory stays bounded by what a real run
//! writes, not by the file: a line may be at most [`MAX_LINE_BYTES`] long, a result line may name
//! no more rules than the catalogue has, and a file may hold no more result lines than its header
//! announces, nor more than the reader allows (the corpus's case count, when one is known).

use std::fmt;
use std::io::{self, BufRead};

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
    let mut header = None;
    let mut results: Vec<ResultLine> = Vec::new();
    let mut footer = None;
    let mut buf = Vec::new();
    let mut n = 0;
    let rule_limit = agentconf_rules::Rule::ALL.len();
    loop {
        n += 1;
        let at = |problem| ReadError {
            line: Some(n),
            problem,
        };
        if !read_line(&mut reader, &mut buf).map_err(at)? {
            break;
        }
        let line = std::str::from_utf8(&buf).map_err(|_| at(ReadProblem::NotUtf8))?;
        if n == 1 && !is_header_line(line) {
            return Err(at(ReadProblem::NotAResultsFile));
        }
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line =
            serde_json::from_str(line).map_err(|e| at(ReadProblem::NotALine(e.to_string())))?;
        match parsed {
            Line::Header(h) if header.is_none() && n == 1 => header = Some(h),
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
                results.push(r);
            }
            Line::Result(_) => return Err(at(ReadProblem::ResultOutsideHeaderAndFooter)),
            Line::Footer(f) if footer.is_none() => footer = Some(f),
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

/// Reads one line (without its newline) into `buf`, at most [`MAX_LINE_BYTES`] of it; `false` at
/// the end of the input.
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> Result<bool, ReadProblem> {
    buf.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReadProblem::Io(e.to_string())),
        };
        if available.is_empty() {
            return Ok(!buf.is_empty());
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
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(true);
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
