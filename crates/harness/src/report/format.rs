//! The report formats: each knows its name (as `--format` takes it), its file extension, what it
//! is for, and the renderer of a [`View`] (and of a [`Diff`], for the formats a diff has). The
//! CLI's `--format` values and their help are derived from [`ReportFormat::ALL`].

use super::view::View;
use super::{badge, diff_json, diff_markdown, diff_text, html, json, junit, markdown, text, Diff};

/// A format of `agentconf report`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReportFormat {
    Text,
    Json,
    Junit,
    Markdown,
    Html,
    Badge,
}

impl ReportFormat {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [ReportFormat; 6] = [
        ReportFormat::Text,
        ReportFormat::Json,
        ReportFormat::Junit,
        ReportFormat::Markdown,
        ReportFormat::Html,
        ReportFormat::Badge,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            ReportFormat::Text => "text",
            ReportFormat::Json => "json",
            ReportFormat::Junit => "junit",
            ReportFormat::Markdown => "markdown",
            ReportFormat::Html => "html",
            ReportFormat::Badge => "badge",
        }
    }

    /// The format called `name`, if any.
    pub fn from_name(name: &str) -> Option<ReportFormat> {
        ReportFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The extension of a file holding a report in this format (without the dot).
    pub(crate) fn extension(self) -> &'static str {
        match self {
            ReportFormat::Text => "txt",
            ReportFormat::Json | ReportFormat::Badge => "json",
            ReportFormat::Junit => "xml",
            ReportFormat::Markdown => "md",
            ReportFormat::Html => "html",
        }
    }

    /// What the format is for, in a few words (`--help`).
    pub fn about(self) -> &'static str {
        match self {
            ReportFormat::Text => "the terminal summary",
            ReportFormat::Json => "one JSON object (agentconf-summary/1)",
            ReportFormat::Junit => "JUnit XML for CI test reports, one testsuite per suite",
            ReportFormat::Markdown => "for a pull request or a CI step summary",
            ReportFormat::Html => "one self-contained page with filters and per-case detail",
            ReportFormat::Badge => "a shields.io endpoint badge (JSON)",
        }
    }

    /// Every format's name, comma-separated: `text, json, …`.
    pub fn names() -> String {
        ReportFormat::ALL.map(ReportFormat::name).join(", ")
    }

    /// The report of `view` in this format.
    pub fn render(self, view: &View) -> String {
        match self {
            ReportFormat::Text => text::render(view),
            ReportFormat::Json => json::render(view),
            ReportFormat::Junit => junit::render(view),
            ReportFormat::Markdown => markdown::render(view),
            ReportFormat::Html => html::render(view),
            ReportFormat::Badge => badge::render(view),
        }
    }

    /// Whether a diff has this format (text, JSON, Markdown).
    pub fn has_diff(self) -> bool {
        self.diff_renderer().is_some()
    }

    /// `diff` in this format; a format a diff does not have (JUnit, HTML, badge) gives the text.
    pub fn render_diff(self, diff: &Diff) -> String {
        self.diff_renderer().unwrap_or(diff_text)(diff)
    }

    fn diff_renderer(self) -> Option<fn(&Diff) -> String> {
        match self {
            ReportFormat::Text => Some(diff_text),
            ReportFormat::Json => Some(diff_json),
            ReportFormat::Markdown => Some(diff_markdown),
            ReportFormat::Junit | ReportFormat::Html | ReportFormat::Badge => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_read_back() {
        for f in ReportFormat::ALL {
            assert_eq!(ReportFormat::from_name(f.name()), Some(f));
        }
        let mut names: Vec<&str> = ReportFormat::ALL.map(ReportFormat::name).to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ReportFormat::ALL.len());
        assert_eq!(ReportFormat::from_name("yaml"), None);
    }
}
