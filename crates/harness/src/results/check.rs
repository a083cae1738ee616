//! Is a results file whole? The footer there, its totals and digests matching the lines and the
//! header, the lines the cases the header selected.

use std::fmt;

use super::{case_ids_sha256, footer, header_sha256, ResultsFile};

/// Why a results file is not the whole file a run wrote: no report may be drawn from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incomplete {
    /// No footer: cut after this many result lines, or the run never finished.
    NoFooter {
        lines: usize,
    },
    TotalsDisagree,
    NoResultsDigest,
    ResultsDigestMismatch,
    NoHeaderDigest,
    HeaderDigestMismatch,
    NoSelectionRecord,
    NotTheSelectedCases,
}

impl fmt::Display for Incomplete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Incomplete::NoFooter { lines } => {
                return write!(
                    f,
                    "the file has no footer: it was cut after {lines} result lines (or the run \
                     never finished)"
                )
            }
            Incomplete::TotalsDisagree => {
                "the footer's totals disagree with the result lines: the file was edited"
            }
            Incomplete::NoResultsDigest => {
                "the footer carries no digest of the result lines, so the file cannot show it is \
                 whole (it was written before agentconf 0.2, or the digest was removed)"
            }
            Incomplete::ResultsDigestMismatch => {
                "the result lines do not match the footer's digest: lines were edited, removed, \
                 added or reordered"
            }
            Incomplete::NoHeaderDigest => {
                "the footer carries no digest of the header, so the file cannot show its header \
                 is the run's (it was written before agentconf 0.2, or the digest was removed)"
            }
            Incomplete::HeaderDigestMismatch => {
                "the header does not match the footer's digest: the header was edited"
            }
            Incomplete::NoSelectionRecord => {
                "the header does not record the cases it selected (their count and the digest of \
                 their ids), so the file cannot show it is whole"
            }
            Incomplete::NotTheSelectedCases => {
                "the result lines are not the cases the header selected (ids or order differ)"
            }
        })
    }
}

impl std::error::Error for Incomplete {}

/// Checks that a results file is the one a run wrote: the footer is there, its totals and its
/// digest match the result lines, and the lines are the cases the header selected. A report
/// must not be drawn from a file that fails.
///
/// For a file read by [`super::read`], the digests were already compared with SHA-256 over the
/// lines' exact bytes, and every line held to be exactly what agentconf writes for it, so the
/// digests recomputed here from the parsed lines are the bytes' digests; for a file built in
/// memory they are what its lines serialize to.
///
/// The digests are plain SHA-256, not signatures: they catch a cut, damaged or carelessly edited
/// file. Someone who recomputes them can still forge lines; [`crate::corpus_check`] then holds
/// every line's metadata to the corpus, a signature ([`crate::signing`]) says who vouched for
/// the bytes, and only re-running (`agentconf claim verify`) checks the statuses.
pub fn check(file: &ResultsFile) -> Result<(), Incomplete> {
    let Some(f) = &file.footer else {
        return Err(Incomplete::NoFooter {
            lines: file.results.len(),
        });
    };
    let expected = footer(&file.results, f.duration_ms);
    if expected.totals != f.totals || expected.unexpected != f.unexpected {
        return Err(Incomplete::TotalsDisagree);
    }
    // Both digests are required: a file without them cannot show that it is whole, and
    // removing one must not be a way around the check.
    let Some(digest) = &f.results_sha256 else {
        return Err(Incomplete::NoResultsDigest);
    };
    if expected.results_sha256.as_ref() != Some(digest) {
        return Err(Incomplete::ResultsDigestMismatch);
    }
    match &f.header_sha256 {
        None => return Err(Incomplete::NoHeaderDigest),
        Some(d) if *d != header_sha256(&file.header) => {
            return Err(Incomplete::HeaderDigestMismatch)
        }
        Some(_) => {}
    }
    let (Some(digest), Some(count)) = (&file.header.case_ids_sha256, file.header.case_count) else {
        return Err(Incomplete::NoSelectionRecord);
    };
    // A run stopped early (--fail-fast, --max-fail) has fewer lines than it selected; the
    // corpus check (`corpus_check`) then holds each line to the selection.
    if count == file.results.len()
        && case_ids_sha256(file.results.iter().map(|r| r.id.as_str())) != *digest
    {
        return Err(Incomplete::NotTheSelectedCases);
    }
    Ok(())
}
