//! Reading a results file: JSON lines, each a header, a result or a footer, in that order.

use std::fmt;

use super::{Line, ResultsFile};

/// Why a text is not a results file, with the line (1-based) where that shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The line, when the problem is on one.
    pub line: Option<usize>,
    pub problem: ReadProblem,
}

/// What is wrong with the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadProblem {
    /// The first line is not a results header: the text is something else (a vector, a report,
    /// a manifest, an empty file).
    NotAResultsFile,
    /// Not one of the file's lines (serde's words).
    NotALine(String),
    SecondHeader,
    ResultOutsideHeaderAndFooter,
    SecondFooter,
    NoHeader,
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
        }
    }
}

impl std::error::Error for ReadError {}

/// Whether `line` is a results header line: `{"type":"header",…}`, however damaged the rest.
fn is_header_line(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .is_ok_and(|v| v.get("type").and_then(|t| t.as_str()) == Some("header"))
}

/// Reads a results file. Errors name the line; a text whose first line is no results header is
/// called what it is, not a results file, instead of a parser's complaint about it.
pub fn parse(text: &str) -> Result<ResultsFile, ReadError> {
    if !text.lines().next().is_some_and(is_header_line) {
        return Err(ReadError {
            line: Some(1),
            problem: ReadProblem::NotAResultsFile,
        });
    }
    let mut header = None;
    let mut results = Vec::new();
    let mut footer = None;
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = |problem| ReadError {
            line: Some(n + 1),
            problem,
        };
        let parsed: Line =
            serde_json::from_str(line).map_err(|e| at(ReadProblem::NotALine(e.to_string())))?;
        match parsed {
            Line::Header(h) if header.is_none() && n == 0 => header = Some(h),
            Line::Header(_) => return Err(at(ReadProblem::SecondHeader)),
            Line::Result(r) if header.is_some() && footer.is_none() => results.push(r),
            Line::Result(_) => return Err(at(ReadProblem::ResultOutsideHeaderAndFooter)),
            Line::Footer(f) if footer.is_none() => footer = Some(f),
            Line::Footer(_) => return Err(at(ReadProblem::SecondFooter)),
        }
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
}
