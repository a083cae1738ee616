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
    /// Not one of the file's lines (serde's words).
    NotALine(String),
    SecondHeader,
    ResultOutsideHeaderAndFooter,
    SecondFooter,
    NoHeader,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.line {
            write!(f, "line {n}: ")?;
        }
        match &self.problem {
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

/// Reads a results file. Errors name the line.
pub fn parse(text: &str) -> Result<ResultsFile, ReadError> {
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
