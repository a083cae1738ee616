//! Sealing a results file: the footer's totals and the digests of header, lines and selection.

use std::collections::BTreeMap;

use agentconf_json::hex::lower as lower_hex;

use super::{now_rfc3339, Footer, Header, Line, ResultLine, ResultsFile};
use crate::status::STATUSES;

impl ResultsFile {
    /// Seals a file assembled or edited in memory as a run seals its own: the header's case
    /// count and case-id digest follow the lines, and a new footer's totals and digests follow
    /// both (not interrupted, no restarts). What `claim verify` and every report check then holds
    /// for the file, whatever its lines say; only the corpus check can tell them false.
    pub fn seal(&mut self, duration_ms: u64) {
        self.header.case_count = Some(self.results.len());
        self.header.case_ids_sha256 =
            Some(case_ids_sha256(self.results.iter().map(|r| r.id.as_str())));
        let mut footer = footer(&self.results, duration_ms);
        footer.header_sha256 = Some(header_sha256(&self.header));
        self.footer = Some(footer);
    }
}

/// The footer for `results`.
pub(crate) fn footer(results: &[ResultLine], duration_ms: u64) -> Footer {
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
pub(crate) fn header_sha256(header: &Header) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    // A struct of strings, numbers and enums: serialisation cannot fail.
    hasher.update(serde_json::to_string(&Line::Header(header.clone())).unwrap_or_default());
    hasher.update(b"\n");
    lower_hex(&hasher.finalize())
}

/// The footer's digest of `results`: SHA-256 over each line's JSON text and a newline.
pub(crate) fn results_sha256(results: &[ResultLine]) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    for r in results {
        // A struct of strings, numbers and enums: serialisation cannot fail.
        hasher.update(serde_json::to_string(&Line::Result(r.clone())).unwrap_or_default());
        hasher.update(b"\n");
    }
    lower_hex(&hasher.finalize())
}

/// The header's digest of the cases selected: SHA-256 over each case id and a newline, in run
/// order.
pub(crate) fn case_ids_sha256<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    for id in ids {
        hasher.update(id.as_bytes());
        hasher.update(b"\n");
    }
    lower_hex(&hasher.finalize())
}
